"""Log directories behind a URL: `s3://bucket/prefix`, `obs://...` (an S3-compatible endpoint),
`hdfs://...`, any fsspec protocol (`pip install 'tui-insight[remote]'`). S3 with its settings
in the environment is read through obstore where installed (`object_light`), else s3fs.

Each reload is one listing of the whole tree (`find` with details: one paged LIST on object
stores) that gives every file's size and mtime; the cache then reads only the bytes from its
saved offset to the listed size: up to `ONE_GET` bytes in one ranged request (every request is
a round trip, costs money, and some servers read the whole object for each ranged GET), more in
requests of `WINDOW` bytes, the next fetched while one is scanned (so memory stays bounded).
Payloads decoded on demand are ranged reads through a small cache of recently read blocks.

Objects have no append: a writer uploads the whole file again. An object that grew is taken to
be the old bytes with more after them (MindSpore only appends, and checking the old bytes would
mean reading them again) and is read from its saved offset; one whose size went down, or that
changed (mtime, ETag) at the same size, is another file and is read from its start.
"""
from __future__ import annotations

import io
import math
import os
import posixpath
import ssl
import threading
from collections.abc import Iterable
from datetime import datetime
from typing import Any, BinaryIO, cast

from .discovery import Discovery
from .local import ListedFiles, RangeCache, RangeFile, SourceError
from .location import is_url  # noqa: F401 (where it was; the tests import it from here)
from .object_light import ObstoreFS, light_fs
from .object_stream import STREAM_FROM, StreamedRange, StreamError, stream_url, tls_context
from .remote_limits import LIST_BYTES, RequestLimits, limits_from
from .remote_listing import MARKER, bad_entries, jobs_from_listing, listed_mtime, listed_size, path_part, real_key

EXTRA = "pip install 'tui-insight[remote]'"
BACKENDS = {"s3": "s3fs", "s3a": "s3fs", "gs": "gcsfs", "gcs": "gcsfs", "abfs": "adlfs", "az": "adlfs",
            "hdfs": "pyarrow", "sftp": "paramiko"}
RECONNECTING = "reconnecting…"
ONE_GET = 128 << 20  # a range up to this size is fetched in one request
WINDOW = 32 << 20  # bytes of a larger range fetched per request while the cache scans it


def parse_storage_options(items: list[str]) -> dict[str, Any]:
    """`key=value` strings (`--storage-option`) as fsspec storage options: dotted keys nest
    (`client_kwargs.endpoint_url=...`), `true`/`false` and integers are converted."""
    options: dict[str, Any] = {}
    for item in items:
        key, sep, value = item.partition("=")
        if not sep or not key.strip():
            raise SourceError(f"--storage-option {item!r}: expected key=value")
        *parents, leaf = key.strip().split(".")
        place = options
        for name in parents:
            place = place.setdefault(name, {})
            if not isinstance(place, dict):
                raise SourceError(f"--storage-option {item!r}: {name} is both a value and a group")
        place[leaf] = _value(value)
    return options


def _value(text: str) -> Any:
    if text.lower() in ("true", "false"):
        return text.lower() == "true"
    try:
        return int(text)
    except ValueError:
        return text


def _mtime(info: dict) -> float:
    """The listed mtime in seconds (NaN when it is no time: `listed_mtime` then refuses it)."""
    for key in ("mtime", "LastModified", "last_modified", "modified", "created", "updated"):
        value = info.get(key)
        try:
            if isinstance(value, datetime):
                return value.timestamp()
            if isinstance(value, (int, float)) and not isinstance(value, bool):
                return float(value)
            if isinstance(value, str):
                return datetime.fromisoformat(value.replace("Z", "+00:00")).timestamp()
        except (ValueError, OverflowError, OSError):
            return math.nan
    return 0.0


def _version(info: dict) -> tuple:
    """What tells a rewritten object at the same size: its ETag, else its mtime."""
    return (info.get("ETag") or info.get("etag") or "", _mtime(info))


class FsspecSource:
    """A log directory behind an fsspec URL (see the module doc)."""

    is_local = False

    def __init__(self, url: str, storage_options: dict[str, Any] | None = None,
                 limits: RequestLimits | None = None):
        """`limits`: how long one request may take (`remote_limits`; else from the environment)."""
        self.location = url
        self.limits = limits if limits is not None else limits_from()
        self.status = ""
        protocol, _, rest = url.partition("://")
        protocol = protocol.lower()
        options = dict(storage_options or {})
        if protocol == "obs":  # Huawei OBS (ModelArts): its S3-compatible API
            protocol = "s3"
            endpoint = os.environ.get("OBS_ENDPOINT") or os.environ.get("S3_ENDPOINT")
            if endpoint and "endpoint_url" not in options.get("client_kwargs", {}):
                options.setdefault("client_kwargs", {})["endpoint_url"] = endpoint
            if "endpoint_url" not in options.get("client_kwargs", {}) and not os.environ.get("AWS_ENDPOINT_URL"):
                raise SourceError(f"{url}: obs:// needs its endpoint: set OBS_ENDPOINT or "
                                  "--storage-option client_kwargs.endpoint_url=https://obs.REGION.myhuaweicloud.com")
        self.fs: Any = light_fs(protocol, options, self.limits.timeout)  # obstore: no s3fs import
        try:
            if self.fs is None:
                import fsspec

                self.fs = fsspec.filesystem(protocol, **options)
        except ImportError as exc:
            module = BACKENDS.get(protocol, getattr(exc, "name", None) or "its fsspec backend")
            hint = EXTRA if module in ("s3fs", "fsspec") else f"pip install {module}"
            raise SourceError(f"{url}: reading {protocol}:// needs {module}: {hint}") from None
        except ValueError as exc:
            raise SourceError(f"{url}: {exc}") from None
        except Exception as exc:  # noqa: BLE001 (a backend's own configuration errors)
            raise SourceError(f"{url}: {_describe(exc)}") from None
        # Async backends (s3fs, gcsfs, adlfs) cancel a request past its `timeout`; others keep their own.
        self._async = _is_async(self.fs)
        self.root = self.fs._strip_protocol(f"{protocol}://{rest}").rstrip("/") or "/"
        self._last: Discovery | None = None
        self._listed: int | None = None  # files in the last listing (its successor's time)
        self._ranges = RangeCache(self._fetch, fetch_many=self._fetch_many)
        self._files = ListedFiles(self._ranges)  # the last listing: `stat` answers from it
        self._streams = True  # large ranges are streamed by one GET (`object_stream`) until that cannot be
        self._tls: ssl.SSLContext | None = None

    def discover(self, listings: dict, turn: int | None = None) -> Discovery:
        try:
            self.fs.invalidate_cache(self.root)  # backends keep listings: this one must be new
            nbytes = self.limits.max_listing if self._listed is None else self._listed * LIST_BYTES
            found = self.fs.find(self.root, withdirs=False, detail=True, **self._deadline(nbytes))
        except Exception as exc:  # noqa: BLE001 (backends raise their own errors, not only OSError)
            if self._last is None:
                raise SourceError(_describe(exc, self._seconds(nbytes))) from None  # the cache says "cannot read LOGDIR: ..."
            self.status = RECONNECTING  # keep what was found: the next reload tries again
            return self._last
        if not found and self._last is None and not self._is_dir():
            raise SourceError("no such bucket or directory")
        self.status = ""
        entries, listed = [], []
        bad: dict[str, list[str]] = {}  # directory -> its files with a bad size or mtime
        prefix = self.root.rstrip("/") + "/"
        for name, info in found.items():
            name = self.fs._strip_protocol(name)
            if not name.startswith(prefix) or info.get("type", "file") != "file":
                continue
            rel = name[len(prefix):]
            size, mtime = listed_size(info.get("size") or 0), listed_mtime(_mtime(info))
            if size is None or mtime is None:
                field = f"size {info.get('size')!r}" if size is None else f"mtime {_mtime(info)!r}"
                bad.setdefault(rel.rpartition("/")[0], []).append(f"{rel.rpartition('/')[2]}: {field}")
                continue
            # The path a job's path joined with the file's name gives (`remote_listing.path_part`).
            listed.append((prefix + "/".join(map(path_part, rel.split("/"))), size, mtime, _version(info)))
            entries.append((rel, size, mtime))
        self._files.update(listed)
        self._listed = len(found)
        found_jobs = jobs_from_listing(self.root, entries)
        self._last = Discovery(found_jobs.jobs, bad_entries(bad) + found_jobs.problems)
        return self._last

    def _seconds(self, nbytes: int) -> float:
        return self.limits.seconds(nbytes)

    def _deadline(self, nbytes: int) -> dict[str, float]:
        """The keyword that bounds one request moving `nbytes` (fsspec's `timeout`), if the backend has it."""
        return {"timeout": self._seconds(nbytes)} if self._async else {}

    def _is_dir(self) -> bool:
        try:
            return bool(self.fs.isdir(self.root, **self._deadline(0)))
        except Exception:  # noqa: BLE001
            return False

    def stat(self, path: str) -> os.stat_result:
        return self._files.stat(path)

    def _fetch(self, path: str, start: int, end: int) -> bytes:
        try:
            return self.fs.cat_file(real_key(path), start=start, end=end, **self._deadline(end - start))
        except TimeoutError:  # fsspec's FSTimeoutError: past its deadline
            self.status = RECONNECTING
            raise OSError(_describe(TimeoutError(), self._seconds(end - start))) from None
        except OSError:
            raise
        except Exception as exc:  # noqa: BLE001 (a dropped connection, a backend error)
            self.status = RECONNECTING
            raise OSError(_describe(exc)) from None

    def _fetch_many(self, ranges: list[tuple[str, int, int]]) -> list[bytes | OSError]:
        """Each range, fetched together (concurrently by async backends such as s3fs)."""
        nbytes = sum(end - start for _, start, end in ranges)
        try:
            got = self.fs.cat_ranges([real_key(p) for p, _, _ in ranges], [s for _, s, _ in ranges], [e for _, _, e in ranges],
                                     on_error="return", **self._deadline(nbytes))
        except Exception as exc:  # noqa: BLE001 (a dropped connection, a backend error, past its deadline)
            self.status = RECONNECTING
            return [OSError(_describe(exc, self._seconds(nbytes)))] * len(ranges)
        return [data if isinstance(data, bytes) else OSError(_describe(data)) for data in got]

    def prefetch(self, ranges: Iterable[tuple[str, int, int]]) -> None:
        """The blocks of each (path, start, end), fetched together (`RangeCache.prefetch`)."""
        self._ranges.prefetch(ranges)

    def open_range(self, path: str, start: int, end: int) -> BinaryIO:
        if STREAM_FROM <= end - start <= ONE_GET and self._streams and MARKER not in path:
            stream = self._stream(path, start, end)
            if stream is not None:
                return cast(BinaryIO, stream)  # (a RawIOBase with the reads the scanner makes)
        window = end - start if end - start <= ONE_GET else WINDOW
        first = self._fetch(path, start, start + window) if end > start else b""  # fails here: the file's error
        if start + len(first) >= end:
            return RangeFile(first, start)
        return WindowedRange(self._fetch, path, start, end, first)

    def _stream(self, path: str, start: int, end: int) -> StreamedRange | None:
        """The range streamed from one GET while it is scanned, or None where this filesystem
        cannot give a URL for it (`object_stream.stream_url`: s3fs's reads are used)."""
        try:
            url = stream_url(self.fs, path)
        except Exception:  # noqa: BLE001 (no credentials, a backend error: s3fs's own read says why)
            return None
        if url is None:
            self._streams = False  # not s3fs, or its reads need more than a URL
            return None
        if url.startswith("https:") and self._tls is None:
            self._tls = tls_context(self.fs)
        try:
            return StreamedRange(url, start, end, self.limits.timeout, self._seconds(end - start), self._tls,
                                 failed=self._stream_failed,
                                 keep=lambda at, size, buffer: self._ranges.hold(path, at, size, buffer))
        except StreamError as exc:
            if exc.status is None:
                raise
            # Refused (a URL's signature this store does not take, a missing object): s3fs's own
            # read, whose answer is the one reported.
            self._streams = exc.status not in (400, 401, 403)
            return None

    def _stream_failed(self, error: StreamError) -> None:
        if error.transient and error.status is None:
            self.status = RECONNECTING

    def read(self, path: str, start: int = 0, end: int | None = None) -> bytes:
        if end is None:
            end = self.stat(path).st_size
        return self._ranges.read(path, start, end)

    def same_start(self, path: str, start: bytes) -> bool:
        if self._fetch(path, 0, len(start)) == start:
            return True
        self._files.replaced(path)  # an object put again under its key: its blocks are another's
        return False

    def listdir(self, path: str) -> list[str]:
        try:
            return sorted(posixpath.basename(p.rstrip("/")) for p in self.fs.ls(real_key(path), detail=False,
                                                                                 **self._deadline(0)))
        except TimeoutError:
            raise OSError(_describe(TimeoutError(), self._seconds(0))) from None
        except OSError:
            raise
        except Exception as exc:  # noqa: BLE001
            raise OSError(_describe(exc)) from None

    def close(self) -> None:
        self._ranges.let_go()


class _Prefetch:
    """One window fetched in a thread while the previous one is scanned."""

    def __init__(self, fetch, path: str, start: int, end: int):
        self.start = start
        self._result: bytes | OSError = OSError("not fetched")
        self._thread = threading.Thread(target=self._run, args=(fetch, path, start, end), daemon=True)
        self._thread.start()

    def _run(self, fetch, path: str, start: int, end: int) -> None:
        try:
            self._result = fetch(path, start, end)
        except OSError as exc:
            self._result = exc

    def get(self) -> bytes:
        self._thread.join()
        if isinstance(self._result, OSError):
            raise self._result
        return self._result


class WindowedRange(RangeFile):
    """Bytes [start, end) of a remote file, fetched `WINDOW` bytes at a time as they are read
    (the next window while this one is scanned). A later window that cannot be fetched reads as
    the end of the file: the scan stops at the last whole record, which is where the next reload
    goes on from (nothing lost or read twice)."""

    def __init__(self, fetch, path: str, start: int, end: int, first: bytes):
        super().__init__(first, start)
        self._fetch, self._path, self._end = fetch, path, end
        self._next = self._prefetch(start + len(first))

    def _prefetch(self, start: int) -> _Prefetch | None:
        return _Prefetch(self._fetch, self._path, start, min(self._end, start + WINDOW)) if start < self._end else None

    def _load(self, base: int, data: bytes) -> None:
        io.BytesIO.__init__(self, data)  # the window now: `data` at `base`
        self._base = base

    def seek(self, offset: int, whence: int = io.SEEK_SET) -> int:
        if whence == io.SEEK_END:
            offset, whence = self._end + offset, io.SEEK_SET
        if whence == io.SEEK_SET and offset < self._base:
            self._load(offset, b"")  # back before the window (a resync): read from there again
        return super().seek(offset, whence)

    def read(self, size: int | None = -1) -> bytes:
        if size is None or size < 0:
            size = self._end - self.tell()
        chunk = super().read(size)
        pos = self.tell()
        if len(chunk) == size or pos >= self._end:
            return chunk
        need = size - len(chunk)  # the window ran out: the next one
        try:
            if self._next is not None and self._next.start == pos:
                more = self._next.get()
            else:  # a seek elsewhere, or a record bigger than a window
                more = self._fetch(self._path, pos, min(self._end, pos + max(WINDOW, need)))
            if len(more) < need:  # one record spans windows
                more += self._fetch(self._path, pos + len(more), min(self._end, pos + need))
        except OSError:
            return chunk
        self._load(pos, more)
        self._next = self._prefetch(pos + len(more))
        return chunk + super().read(need)


def _is_async(fs: Any) -> bool:
    if isinstance(fs, ObstoreFS):  # takes `timeout` too
        return True
    import fsspec.asyn

    return isinstance(fs, fsspec.asyn.AsyncFileSystem)


def _describe(exc: BaseException, seconds: float | None = None) -> str:
    """One line: the error's own first line, or its kind; past a deadline of `seconds`, that."""
    if isinstance(exc, TimeoutError) and seconds is not None:
        return f"no answer in {seconds:.0f} s"
    text = (str(exc).strip().splitlines() or [""])[0]
    if isinstance(exc, OSError) and exc.strerror:
        text = exc.strerror
    return text or type(exc).__name__
