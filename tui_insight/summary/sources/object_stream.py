"""A large range of an S3 object read by one GET, streamed into memory while the cache scans it.

s3fs reads a body through aiohttp on its event loop thread, whole, before the scan can start:
for a 107 MB object from a local moto server that is 0.30 s and 0.14 CPU-s, where a plain GET
of the same bytes takes 0.10-0.15 s and 0.03 CPU-s, and the parse then waits for all of it.
Here a thread sends one GET to a presigned URL (s3fs's own client signs it: its credentials,
region, endpoint and addressing) with the standard library's HTTP client and receives the body
straight into one buffer (`readinto`, the GIL released while the socket is read), while the
scanner reads what has arrived. One GET, not ranges: some servers (moto) read the whole object
for every ranged GET.

Only what a URL can carry is streamed: a filesystem with requester-pays, extra request
arguments (SSE-C keys) or a proxy keeps s3fs's own reads (`stream_url` gives None), as does a
GET the server refuses (a signature it does not take: the source reads through s3fs then).
At `close` the buffer is handed to the source's range cache (`keep`), so payload reads right
after the load (an export's) need no request.

A body cut short (the connection dropped, past the request's deadline) reads as the end of the
range: the scan stops at the last whole record, where the next reload goes on; `close` then
raises the error, so the file says why and the source reports `reconnecting…`.
"""
from __future__ import annotations

import http.client
import mmap
import os
import re
import socket
import ssl
import threading
import time
from typing import Any, Callable
from urllib.parse import urlsplit

from .local import RangeReader

STREAM_FROM = 8 << 20  # ranges this long or longer are streamed (shorter ones: one s3fs read)
CHUNK = 1 << 20  # bytes received per read: the scanner waits for at most this much past what it needs
URL_SECONDS = 3600  # a presigned URL's lifetime (it is used at once)
ERROR_BYTES = 64 << 10  # of an error answer's body, read for its message
_PROXIES = ("HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY", "http_proxy", "https_proxy", "all_proxy")


def stream_url(fs: Any, key: str) -> str | None:
    """A presigned GET URL for `key` (bucket/key) through the s3fs filesystem `fs`, or None when
    its reads need more than a URL carries (see the module doc) or it is not s3fs."""
    if hasattr(fs, "presign_get"):  # `object_light.ObstoreFS`: obstore signs it
        return fs.presign_get(key)
    try:
        import s3fs  # type: ignore[import-untyped]
        from fsspec.asyn import sync
    except ImportError:
        return None
    if not isinstance(fs, s3fs.S3FileSystem) or fs.req_kw or fs.s3_additional_kwargs \
            or any(os.environ.get(name) for name in _PROXIES) or (fs.config_kwargs or {}).get("proxies"):
        return None
    bucket, path, version = fs.split_path(key)

    async def presign() -> str:
        await fs.set_session()
        client = await fs.get_s3(bucket)
        params = {"Bucket": bucket, "Key": path, **({"VersionId": version} if version else {})}
        return await client.generate_presigned_url("get_object", Params=params, ExpiresIn=URL_SECONDS)

    return sync(fs.loop, presign)


def tls_context(fs: Any) -> ssl.SSLContext:
    """The TLS checks s3fs's client makes: `client_kwargs.verify` (False, or a CA bundle's path),
    else $AWS_CA_BUNDLE, else botocore's default bundle; obstore's (`ObstoreFS.obstore_tls`)."""
    if hasattr(fs, "obstore_tls"):
        return fs.obstore_tls()
    verify = (getattr(fs, "client_kwargs", None) or {}).get("verify", os.environ.get("AWS_CA_BUNDLE") or True)
    if verify is False:
        context = ssl.create_default_context()
        context.check_hostname = False
        context.verify_mode = ssl.CERT_NONE
        return context
    if isinstance(verify, str):
        return ssl.create_default_context(cafile=verify)
    from botocore.httpsession import get_cert_path  # type: ignore[import-untyped]

    return ssl.create_default_context(cafile=get_cert_path(True))


class StreamError(OSError):
    """A streamed GET that failed; `transient`: the connection, not the object (`reconnecting…`);
    `status`: the HTTP status of a GET the server refused (the caller may read another way)."""

    def __init__(self, message: str, transient: bool, status: int | None = None):
        super().__init__(message)
        self.transient, self.status = transient, status


class StreamedRange(RangeReader):
    """Bytes [start, end) of an object at their own offsets, arriving in a thread from one GET
    of `url` (see the module doc). `open` waits for the answer's headers, so an object that
    cannot be read fails there; later reads wait for the bytes they need."""

    def __init__(self, url: str, start: int, end: int, timeout: float, seconds: float,
                 context: ssl.SSLContext | None = None, failed: Callable[[StreamError], None] | None = None,
                 keep: Callable[[int, int, mmap.mmap], None] | None = None):
        """`timeout`: seconds the server may stay silent; `seconds`: the whole GET's deadline;
        `context`: an https URL's TLS checks; `failed(error)` is told of a GET that failed;
        `keep(start, size, buffer)` takes the buffer over at `close` (what arrived of the range)."""
        self._failed, self._keep = failed, keep
        self._start, self._end, self._pos = start, end, start
        self._size = end - start
        # Pages mapped as they are written (bytearray(n) would zero all n bytes before the GET).
        self._buffer = mmap.mmap(-1, max(self._size, 1))
        if hasattr(mmap, "MADV_HUGEPAGE"):  # Linux: fewer page faults while the body arrives
            self._buffer.madvise(mmap.MADV_HUGEPAGE)
        self._filled = 0  # bytes of the buffer received
        self._answered = self._done = self._stop = False
        self._error: StreamError | None = None
        self._conn: http.client.HTTPConnection | None = None
        self._seconds = seconds
        self._deadline = time.monotonic() + seconds
        self._arrived = threading.Condition()
        self._thread = threading.Thread(target=self._receive, args=(url, timeout, context), daemon=True,
                                        name="tui-insight-s3-get")
        self._thread.start()
        with self._arrived:
            self._wait(lambda: self._answered)
        if self._error is not None and not self._filled:
            error, self._error = self._error, None
            self._thread.join()
            super().close()
            self._buffer.close()
            if failed is not None:
                failed(error)
            raise error

    def _receive(self, url: str, timeout: float, context: ssl.SSLContext | None) -> None:
        """The GET, in its thread: the body into the buffer, CHUNK bytes a read."""
        error: StreamError | None = None
        got = 0
        try:
            parts = urlsplit(url)
            if parts.scheme == "https":
                self._conn = http.client.HTTPSConnection(parts.hostname or "", parts.port, timeout=timeout,
                                                         context=context)
            else:
                self._conn = http.client.HTTPConnection(parts.hostname or "", parts.port, timeout=timeout)
            target = parts.path + (f"?{parts.query}" if parts.query else "")
            self._conn.request("GET", target, headers={"Range": f"bytes={self._start}-{self._end - 1}"})
            answer = self._conn.getresponse()
            if answer.status not in (200, 206) or (answer.status == 200 and self._start):
                error = StreamError(_refusal(answer), transient=answer.status >= 500, status=answer.status)
                return
            self._say(answered=True)
            with memoryview(self._buffer) as into:
                while got < self._size and not self._stop:
                    count = answer.readinto(into[got:got + CHUNK])
                    if not count:
                        break
                    got += count
                    self._say(filled=got)
            if got < self._size:
                error = StreamError(f"the connection ended after {got:,} of {self._size:,} bytes", transient=True)
        except TimeoutError:
            error = StreamError(f"no answer in {timeout:.0f} s", transient=True)
        except (OSError, http.client.HTTPException) as exc:
            error = StreamError(_reason(exc), transient=True)
        finally:
            if self._conn is not None:
                self._conn.close()
            # Stopped by `close` (the scan needs no more) or `_cut` (which says why): no error of its own.
            self._say(answered=True, done=True, error=None if self._stop else error)

    def _say(self, answered: bool = False, filled: int | None = None, done: bool = False,
             error: StreamError | None = None) -> None:
        with self._arrived:
            self._answered |= answered
            self._filled = self._filled if filled is None else filled
            self._done |= done
            self._error = self._error or error
            self._arrived.notify_all()

    def _wait(self, ready: Callable[[], bool]) -> None:
        """Waits (holding `_arrived`) until `ready()` or the GET ended; past the GET's deadline,
        cuts it (`_cut`)."""
        while not ready() and not self._done:
            left = self._deadline - time.monotonic()
            if left <= 0:
                self._cut(StreamError(f"no answer in {self._seconds:.0f} s", transient=True))
                left = 1.0  # the thread ends at once now (its socket is shut down)
            self._arrived.wait(left)

    def _cut(self, error: StreamError | None) -> None:
        """Stops the GET: its socket is shut down, so a read waiting in the thread returns now."""
        self._stop = True
        self._error = self._error or error
        conn = self._conn
        sock = conn.sock if conn is not None else None
        if sock is not None:
            try:
                sock.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass

    def read(self, size: int | None = -1) -> bytes:
        """Up to `size` bytes from the position, once they have arrived (fewer: the range's end,
        or where the body was cut short)."""
        at = self._pos - self._start
        if at < 0:
            raise OSError(f"byte {self._pos} was not fetched (the range starts at {self._start})")
        want = self._size - at if size is None or size < 0 else min(size, self._size - at)
        if want <= 0:
            return b""
        with self._arrived:
            self._wait(lambda: self._filled >= at + want)
            want = min(want, self._filled - at)
        if want <= 0:
            return b""
        self._pos += want
        with memoryview(self._buffer) as view:
            return bytes(view[at:at + want])

    def readinto(self, buffer) -> int:
        data = self.read(len(buffer))
        buffer[:len(data)] = data
        return len(data)

    def close(self) -> None:
        """Stops the GET if it is still running (the scan ended before the range's end); raises
        its error if the body was cut short."""
        if self.closed:
            return
        with self._arrived:
            if not self._done:
                self._cut(None)  # the rest is not wanted
        self._thread.join()
        super().close()
        if self._keep is not None and self._filled:
            self._keep(self._start, self._filled, self._buffer)
        else:
            self._buffer.close()
        if self._error is not None:
            if self._failed is not None:
                self._failed(self._error)
            raise self._error


def _refusal(answer: http.client.HTTPResponse) -> str:
    """An error answer as one line: S3's `<Code>` and `<Message>`, else the HTTP status."""
    body = answer.read(ERROR_BYTES).decode("utf-8", "replace")
    code, message = (re.search(f"<{tag}>([^<]*)</{tag}>", body) for tag in ("Code", "Message"))
    if answer.status == 404 or (code and code.group(1) == "NoSuchKey"):
        return "No such file or directory"
    words = ": ".join(m.group(1).strip() for m in (code, message) if m and m.group(1).strip())
    return words or f"HTTP {answer.status} {answer.reason}".strip()


def _reason(exc: BaseException) -> str:
    """An error as one line: its strerror, else its own first line, else its kind."""
    if isinstance(exc, OSError) and exc.strerror:
        return exc.strerror
    lines = str(exc).strip().splitlines()
    return lines[0] if lines else type(exc).__name__
