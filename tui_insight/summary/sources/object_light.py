"""S3 through `obstore` (Rust's object_store) where it can honour every setting, s3fs elsewhere.

Importing s3fs/aiobotocore/botocore and making its client costs a whole process about 0.5 CPU-s
before the first request; obstore imports in a few milliseconds. `light_fs` gives a small
filesystem with the calls `FsspecSource` makes (`find`, `cat_file`, `cat_ranges`, `ls`, `isdir`,
and a presigned URL for `object_stream`) when the settings are all ones obstore takes the same
way s3fs would: credentials in the environment (`AWS_ACCESS_KEY_ID`, `AWS_SECRET_ACCESS_KEY`,
`AWS_SESSION_TOKEN`), an endpoint (`--storage-option client_kwargs.endpoint_url=`, `$AWS_ENDPOINT_URL`,
`obs://`'s `$OBS_ENDPOINT`) and a region (`client_kwargs.region_name`, `$AWS_REGION`,
`$AWS_DEFAULT_REGION`; without an endpoint it must be known: s3fs looks a bucket's region up).
`$AWS_CA_BUNDLE`'s certificates are trusted beside the system's. Anything else (a profile or SSO
in ~/.aws, an instance role, requester-pays, SSE-C keys, other storage options, a proxy, TLS
options) keeps s3fs, silently (the log says which was used).
`$TUI_INSIGHT_S3_CLIENT=s3fs` forces s3fs.
"""
from __future__ import annotations

import logging
import os
import re
import ssl
import threading
from datetime import timedelta
from typing import Any, Callable, TypeVar, cast

T = TypeVar("T")

CLIENT_ENV = "TUI_INSIGHT_S3_CLIENT"
_PROXIES = ("HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY", "http_proxy", "https_proxy", "all_proxy")
# The storage options this path honours (the rest need s3fs): the tests' and README's.
_CLIENT_KWARGS = {"endpoint_url", "region_name"}
_CONFIG_KWARGS = {"retries", "connect_timeout", "read_timeout"}
_HARMLESS = {"skip_instance_cache", "use_listings_cache"}
URL_SECONDS = 3600

log = logging.getLogger(__name__)


def light_fs(protocol: str, options: dict[str, Any], timeout: float) -> ObstoreFS | None:
    """An `ObstoreFS` for an `s3://` URL whose settings obstore honours, else None (s3fs reads it).
    `timeout`: seconds a request may stay silent."""
    if protocol != "s3" or os.environ.get(CLIENT_ENV, "").lower() == "s3fs":
        return None
    reason = _unsupported(options)
    if reason is None:
        try:
            import obstore  # noqa: F401
        except ImportError:
            reason = "obstore is not installed"
    if reason is not None:
        log.info("s3: read through s3fs (%s)", reason)
        return None
    client = options.get("client_kwargs", {})
    config = options.get("config_kwargs", {})
    endpoint = client.get("endpoint_url") or os.environ.get("AWS_ENDPOINT_URL_S3") or os.environ.get("AWS_ENDPOINT_URL")
    region = client.get("region_name") or os.environ.get("AWS_REGION") or os.environ.get("AWS_DEFAULT_REGION") or "us-east-1"
    log.info("s3: read through obstore (endpoint %s, region %s)", endpoint or "AWS", region)
    return ObstoreFS(endpoint, region, timeout, config)


def _unsupported(options: dict[str, Any]) -> str | None:
    """Why obstore cannot read with these settings the way s3fs would, or None."""
    env = os.environ
    for key, value in options.items():
        allowed = {"client_kwargs": _CLIENT_KWARGS, "config_kwargs": _CONFIG_KWARGS}.get(key)
        if allowed is None and key not in _HARMLESS:
            return f"storage option {key}"
        if allowed is not None and (not isinstance(value, dict) or set(value) - allowed):
            return f"storage option {key}"
    retries = options.get("config_kwargs", {}).get("retries", {})
    if not isinstance(retries, dict) or set(retries) - {"max_attempts"}:
        return "storage option config_kwargs.retries"
    if not (env.get("AWS_ACCESS_KEY_ID") and env.get("AWS_SECRET_ACCESS_KEY")):
        return "no credentials in the environment"
    if env.get("AWS_PROFILE") or env.get("AWS_DEFAULT_PROFILE"):
        return "a profile"
    if any(env.get(name) for name in _PROXIES):
        return "a proxy"
    bundle = env.get("AWS_CA_BUNDLE")
    if bundle and not os.path.isfile(bundle):
        return "a CA bundle that is not a file"
    endpoint = options.get("client_kwargs", {}).get("endpoint_url") or env.get("AWS_ENDPOINT_URL_S3") \
        or env.get("AWS_ENDPOINT_URL")
    region = options.get("client_kwargs", {}).get("region_name") or env.get("AWS_REGION") or env.get("AWS_DEFAULT_REGION")
    if not region and os.path.isfile(os.path.expanduser(env.get("AWS_CONFIG_FILE") or "~/.aws/config")):
        return "the region may be in the AWS config file"  # (botocore reads it; obstore does not)
    if not endpoint and not region:
        return "the bucket's region is not given"
    return None


class ObstoreFS:
    """The fsspec calls `FsspecSource` makes, over one obstore `S3Store` per bucket. Paths are
    `bucket/key`; errors are OSErrors with one line (a missing object: FileNotFoundError)."""

    def __init__(self, endpoint: str | None, region: str, timeout: float, config: dict[str, Any]):
        self._endpoint, self._region = endpoint, region
        connect = config.get("connect_timeout", timeout)
        # A silent server ends a request at `_bounded`'s deadline; this bounds its thread.
        self._client: dict[str, Any] = {"connect_timeout": timedelta(seconds=float(connect)),
                                        "timeout": timedelta(seconds=max(float(timeout), 1.0) * 10),
                                        "allow_http": bool(endpoint and endpoint.startswith("http:"))}
        attempts = config.get("retries", {}).get("max_attempts")
        # $AWS_CA_BUNDLE's certificates are trusted too (botocore trusts them alone).
        self._bundle = None if self._client["allow_http"] else os.environ.get("AWS_CA_BUNDLE") or None
        if self._bundle:
            with open(self._bundle, "rb") as file:
                self._client["root_certificate"] = file.read()
        self._retry: dict[str, Any] = {} if attempts is None else {"max_retries": max(0, int(attempts) - 1)}
        self._stores: dict[str, Any] = {}

    def _store(self, bucket: str) -> Any:
        store = self._stores.get(bucket)
        if store is None:
            from obstore.store import S3Store

            config: dict[str, Any] = {"region": self._region}
            if self._endpoint:
                config["endpoint"] = self._endpoint
                config["virtual_hosted_style_request"] = False  # s3fs's path-style addressing
            try:
                store = S3Store(bucket, config=cast(Any, config), client_options=cast(Any, self._client),
                                retry_config=cast(Any, self._retry or None))
            except Exception as exc:  # noqa: BLE001 (its configuration errors)
                raise OSError(_line(exc)) from None
            self._stores[bucket] = store
        return store

    @staticmethod
    def _strip_protocol(url: str) -> str:
        return url.split("://", 1)[-1].rstrip("/")

    @staticmethod
    def _split(path: str) -> tuple[str, str]:
        bucket, _, key = path.lstrip("/").partition("/")
        return bucket, key

    def invalidate_cache(self, path: str | None = None) -> None:
        """Nothing is cached: every listing is a new one."""

    def find(self, path: str, withdirs: bool = False, detail: bool = True, timeout: float | None = None) -> dict[str, dict]:
        """Every object under `path` (a directory's prefix) with its size, mtime and ETag."""
        return _bounded(timeout, self._find, path)

    def _find(self, path: str) -> dict[str, dict]:
        import obstore

        bucket, key = self._split(path)
        found: dict[str, dict] = {}
        try:
            for batch in obstore.list(self._store(bucket), (key.rstrip("/") + "/") if key else None, chunk_size=1000):
                for meta in batch:
                    name = f"{bucket}/{meta['path']}"
                    found[name] = {"name": name, "size": meta["size"], "type": "file",
                                   "LastModified": meta["last_modified"], "ETag": meta.get("e_tag") or ""}
        except Exception as exc:  # noqa: BLE001 (obstore's errors)
            raise _os_error(exc) from None
        return found

    def isdir(self, path: str, timeout: float | None = None) -> bool:
        return bool(self.find(path, timeout=timeout))

    def ls(self, path: str, detail: bool = False, timeout: float | None = None) -> list[str]:
        return _bounded(timeout, self._ls, path)

    def _ls(self, path: str) -> list[str]:
        import obstore

        bucket, key = self._split(path)
        prefix = (key.rstrip("/") + "/") if key else None
        try:
            listed = obstore.list_with_delimiter(self._store(bucket), prefix)
        except Exception as exc:  # noqa: BLE001
            raise _os_error(exc) from None
        names = [f"{bucket}/{p}" for p in listed["common_prefixes"]] + [f"{bucket}/{m['path']}" for m in listed["objects"]]
        if not names:
            raise FileNotFoundError(2, "No such file or directory", path)
        return names

    def cat_file(self, path: str, start: int = 0, end: int | None = None, timeout: float | None = None) -> bytes:
        return _bounded(timeout, self._cat_file, path, start, end)

    def _cat_file(self, path: str, start: int, end: int | None) -> bytes:
        import obstore

        bucket, key = self._split(path)
        try:
            if end is not None and end <= start:
                return b""
            if end is None:
                return bytes(obstore.get(self._store(bucket), key, options={"range": {"offset": start}}).bytes())
            return bytes(obstore.get_range(self._store(bucket), key, start=start, end=end))
        except Exception as exc:  # noqa: BLE001
            raise _os_error(exc) from None

    def cat_ranges(self, paths: list[str], starts: list[int], ends: list[int],
                   on_error: str = "return", timeout: float | None = None) -> list[bytes | Exception]:
        """Each range; a file's ranges in one `get_ranges` (concurrent requests, near ones merged)."""
        return _bounded(timeout, self._cat_ranges, paths, starts, ends)

    def _cat_ranges(self, paths: list[str], starts: list[int], ends: list[int]) -> list[bytes | Exception]:
        import obstore

        by_path: dict[str, list[int]] = {}
        for at, path in enumerate(paths):
            by_path.setdefault(path, []).append(at)
        got: list[bytes | Exception] = [b""] * len(paths)
        for path, places in by_path.items():
            wanted = [at for at in places if ends[at] > starts[at]]
            if not wanted:
                continue
            bucket, key = self._split(path)
            try:
                parts = obstore.get_ranges(self._store(bucket), key, starts=[starts[at] for at in wanted],
                                           ends=[ends[at] for at in wanted])
                for at, part in zip(wanted, parts):
                    got[at] = bytes(part)
            except Exception as exc:  # noqa: BLE001
                for at in wanted:
                    got[at] = _os_error(exc)
        return got

    def presign_get(self, path: str) -> str:
        """A presigned GET URL for `path` (bucket/key), for `object_stream`."""
        import obstore

        bucket, key = self._split(path)
        return obstore.sign(self._store(bucket), "GET", key, timedelta(seconds=URL_SECONDS))

    def obstore_tls(self) -> ssl.SSLContext:
        """The checks obstore makes: the system's certificates, and $AWS_CA_BUNDLE's."""
        context = ssl.create_default_context()
        if self._bundle:
            context.load_verify_locations(cafile=self._bundle)
        return context


def _bounded(timeout: float | None, call: Callable[..., T], *args: Any) -> T:
    """`call(*args)`, given up past `timeout` seconds (TimeoutError, as fsspec's async backends):
    obstore has one client-wide timeout, and a request's deadline grows with its bytes. A request
    given up on ends in its thread at the client's own timeout."""
    if timeout is None:
        return call(*args)
    result: list[Any] = []

    def run() -> None:
        try:
            result.append((True, call(*args)))
        except BaseException as exc:  # noqa: BLE001 (raised again in the caller)
            result.append((False, exc))

    thread = threading.Thread(target=run, daemon=True, name="tui-insight-obstore")
    thread.start()
    thread.join(timeout)
    if not result:
        raise TimeoutError(f"no answer in {timeout:.0f} s")
    ok, value = result[0]
    if not ok:
        raise value
    return value


def _os_error(exc: BaseException) -> OSError:
    from obstore.exceptions import NotFoundError, PermissionDeniedError

    if isinstance(exc, NotFoundError):
        return FileNotFoundError(2, "No such file or directory")
    if isinstance(exc, PermissionDeniedError):
        return PermissionError(13, _line(exc))
    return OSError(_line(exc))


def _line(exc: BaseException) -> str:
    """obstore's messages carry the whole chain of causes (and the server's XML answer): the S3
    `<Message>`, else a refused connection as botocore says it, else the first line."""
    text = str(exc)
    message = re.search(r"<Message>([^<]+)</Message>", text)
    if message:
        return message.group(1).strip()
    if "ConnectError" in text or "tcp connect error" in text:
        url = re.search(r"Error performing (?:GET|HEAD|PUT|POST) (\S+)", text)
        return f'Could not connect to the endpoint URL: "{url.group(1) if url else "?"}"'
    for line in text.strip().splitlines():
        line = line.strip().removeprefix("Generic S3 error: ")
        if line:
            return line
    return type(exc).__name__
