"""Where a log directory's files are read from: this machine, a host over ssh, an object store.

The cache and the on-demand readers (payloads, graphs, lineage, profiler) touch files only
through a `Source`:
- `discover(listings)`: the jobs under the root (`discovery.Discovery`); a remote source lists
  the whole tree in one request and answers later `stat` calls from that listing;
- `stat(path)`: an `os.stat_result` (remote sources build one with `file_stat`); raises OSError;
- `open_range(path, start, end)`: a binary file object holding at least bytes [start, end) of the
  file at their own offsets (`seek`/`read`/`tell` in file offsets). Locally the file itself; a
  remote source fetches the range in one request and hands it back in memory, so the record
  scanner's small reads are not round trips;
- `read(path, start, end)`: those bytes (payloads, graphs, lineage, profiler files);
- `listdir(path)`: names in a directory (profiler output).

Paths are strings the source understands: absolute local paths, or POSIX paths under the remote
root. `location` is what the user typed, for messages.
"""
from __future__ import annotations

import io
import os
from typing import BinaryIO, Protocol

from .discovery import Discovery, discover
from .records import open_regular

REGULAR_FILE = 0o100644


def file_stat(size: int, mtime: float) -> os.stat_result:
    """A stat result for a file known only by its size and mtime (a remote listing): no device
    or inode, so a replaced file is known by its size going down (or its mtime, by the caller)."""
    ns = int(mtime * 1e9)
    return os.stat_result((REGULAR_FILE, 0, 0, 1, 0, 0, size, int(mtime), int(mtime), int(mtime),
                           mtime, mtime, mtime, ns, ns, ns))


class Source(Protocol):
    location: str  # as the user gave it
    root: str  # the root path as the source names it
    is_local: bool

    def discover(self, listings: dict) -> Discovery: ...

    def stat(self, path: str) -> os.stat_result: ...

    def open_range(self, path: str, start: int, end: int) -> BinaryIO: ...

    def read(self, path: str, start: int = 0, end: int | None = None) -> bytes: ...

    def listdir(self, path: str) -> list[str]: ...

    def close(self) -> None: ...


class RangeFile(io.RawIOBase):
    """Bytes [base, base + len(data)) of a file, read at their file offsets (a remote range)."""

    def __init__(self, data: bytes, base: int):
        self._data = memoryview(data)
        self._base = base
        self._pos = base

    def readable(self) -> bool:
        return True

    def seekable(self) -> bool:
        return True

    def seek(self, offset: int, whence: int = io.SEEK_SET) -> int:
        if whence == io.SEEK_CUR:
            offset += self._pos
        elif whence == io.SEEK_END:
            offset += self._base + len(self._data)
        self._pos = offset
        return offset

    def tell(self) -> int:
        return self._pos

    def read(self, size: int = -1) -> bytes:
        at = self._pos - self._base
        if at < 0:
            raise OSError(f"byte {self._pos} was not fetched (the range starts at {self._base})")
        end = len(self._data) if size is None or size < 0 else min(len(self._data), at + size)
        chunk = bytes(self._data[at:end])
        self._pos += len(chunk)
        return chunk

    def readinto(self, buffer) -> int:
        chunk = self.read(len(buffer))
        buffer[:len(chunk)] = chunk
        return len(chunk)


class LocalSource:
    """Files on this machine: today's reading, unchanged (directory listings reused by stamp)."""

    is_local = True

    def __init__(self, logdir: str):
        self.location = logdir
        self.root = os.path.abspath(logdir)

    def discover(self, listings: dict) -> Discovery:
        return discover(self.root, listings)

    def stat(self, path: str) -> os.stat_result:
        return os.stat(path)

    def open_range(self, path: str, start: int, end: int) -> BinaryIO:
        return open_regular(path, buffering=1 << 20)  # a FIFO or device would block or never end

    def read(self, path: str, start: int = 0, end: int | None = None) -> bytes:
        with open_regular(path) as fh:
            fh.seek(start)
            return fh.read() if end is None else fh.read(max(0, end - start))

    def listdir(self, path: str) -> list[str]:
        return sorted(os.listdir(path))

    def close(self) -> None:
        pass


LOCAL = LocalSource(os.sep)  # reads any absolute local path (readers given no source)
