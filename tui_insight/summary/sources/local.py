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
- `listdir(path)`: names in a directory (profiler output);
- `same_start(path, start)`: whether the file still begins with `start` (read now, never from a
  cache). The cache keeps a file's first bytes (its first record's frame, `HEAD_BYTES` at most)
  and asks before reading on from where it stopped: a file replaced under its name by a longer
  one (a copy over it, a writer reopening it with `w`, a rotation where there is no inode) is
  then read again from its start. A source that finds it changed drops what it kept of the file.

Paths are strings the source understands: absolute local paths, or POSIX paths under the remote
root. `location` is what the user typed, for messages. `status` is "" while the source is fine,
else a few words for the status line ("reconnecting…").

A remote source that cannot be reached or read at all raises `SourceError` (one line, for the
user) when it is made or on its first `discover`; later failures are OSErrors of the file read
(the cache keeps what it had and tries again at the next reload).
"""
from __future__ import annotations

import io
import os
import threading
from collections import OrderedDict
from collections.abc import Iterable
from typing import Any, BinaryIO, Callable, Protocol

from ..formats.framing import open_regular
from ..numbers import INT64_MAX
from .discovery import Discovery, discover

REGULAR_FILE = 0o100644
HEAD_BYTES = 64  # a file's first bytes kept to tell it from another file under its name
MAX_MTIME = 253402300799.0  # 9999-12-31 23:59:59 UTC: the last time a clock shows


def file_stat(size: int, mtime: float, ino: int = 0) -> os.stat_result:
    """A stat result for a file known only by its size and mtime (a remote listing): no device
    or inode, so a replaced file is known by its size going down (or its mtime, by the caller,
    who may then give it a new `ino`: the cache reads a file of another inode from its start).
    The numbers come from another machine: a size past an int64 or negative, or an mtime that
    is not finite or not in [0, MAX_MTIME], are taken as 0 (the file is then read, or its time
    shown, as unknown) rather than raising where they are turned into ints."""
    size = size if 0 <= size <= INT64_MAX else 0
    mtime = mtime if 0 <= mtime <= MAX_MTIME else 0.0  # (False for NaN too)
    ns = int(mtime * 1e9)
    return os.stat_result((REGULAR_FILE, ino, 0, 1, 0, 0, size, int(mtime), int(mtime), int(mtime),
                           mtime, mtime, mtime, ns, ns, ns))


class SourceError(OSError):
    """A log directory that cannot be read at all: the message is one line for the user."""


class Source(Protocol):
    location: str  # as the user gave it
    root: str  # the root path as the source names it
    is_local: bool
    status: str  # "" when fine; else for the status line ("reconnecting…")

    def discover(self, listings: dict, turn: int | None = None) -> Discovery:
        """The jobs; at a background poll's `turn`, directories unchanged for a while may be
        looked at in turn (`poll.Rotation`; a remote source lists its tree whole anyway)."""

    def stat(self, path: str) -> os.stat_result: ...

    def open_range(self, path: str, start: int, end: int) -> BinaryIO: ...

    def read(self, path: str, start: int = 0, end: int | None = None) -> bytes: ...

    def prefetch(self, ranges: Iterable[tuple[str, int, int]]) -> None:
        """Bytes [start, end) of each (path, start, end) are about to be `read` piece by piece:
        fetch them at once where a read costs a request."""

    def listdir(self, path: str) -> list[str]: ...

    def same_start(self, path: str, start: bytes) -> bool: ...

    def close(self) -> None: ...


class RangeFile(io.BytesIO):
    """Bytes [base, base + len(data)) of a file, read at their file offsets (a remote range).
    Reads are BytesIO's own (C): the record scanner makes three per record."""

    def __init__(self, data: bytes, base: int):
        super().__init__(data)
        self._base = base

    def seek(self, offset: int, whence: int = io.SEEK_SET) -> int:
        if whence == io.SEEK_SET:
            if offset < self._base:
                raise OSError(f"byte {offset} was not fetched (the range starts at {self._base})")
            offset -= self._base
        return super().seek(offset, whence) + self._base

    def tell(self) -> int:
        return super().tell() + self._base


class RangeReader(io.RawIOBase):
    """The positioning of a streamed range (bytes [start, end) of a file, at their own offsets):
    a subclass keeps `_pos` and `_end` and reads; seeking only moves the position."""

    _pos = _end = 0

    def readable(self) -> bool:
        return True

    def seekable(self) -> bool:
        return True

    def seek(self, offset: int, whence: int = io.SEEK_SET) -> int:
        self._pos = offset + (self._pos if whence == io.SEEK_CUR else self._end if whence == io.SEEK_END else 0)
        return self._pos

    def tell(self) -> int:
        return self._pos


class LocalSource:
    """Files on this machine: today's reading, unchanged (directory listings reused by stamp)."""

    is_local = True
    status = ""

    def __init__(self, logdir: str):
        self.location = logdir
        self.root = os.path.abspath(logdir)

    def discover(self, listings: dict, turn: int | None = None) -> Discovery:
        return discover(self.root, listings, turn)

    def stat(self, path: str) -> os.stat_result:
        return os.stat(path)

    def open_range(self, path: str, start: int, end: int) -> BinaryIO:
        return open_regular(path, buffering=1 << 20)  # a FIFO or device would block or never end

    def read(self, path: str, start: int = 0, end: int | None = None) -> bytes:
        with open_regular(path) as fh:
            fh.seek(start)
            return fh.read() if end is None else fh.read(max(0, end - start))

    def prefetch(self, ranges: Iterable[tuple[str, int, int]]) -> None:
        pass  # a local read costs no request

    def listdir(self, path: str) -> list[str]:
        return sorted(os.listdir(path))

    def same_start(self, path: str, start: bytes) -> bool:
        with open_regular(path) as fh:
            return fh.read(len(start)) == start

    def close(self) -> None:
        pass


LOCAL = LocalSource(os.sep)  # reads any absolute local path (readers given no source)


class RangeCache:
    """Recently read blocks of remote files, for payloads decoded on demand: a histogram or an
    image is a few KB, and the records near it are usually wanted next (one request fetches the
    block). Append-only files: a block read short (the file ended there) is fetched again when
    more of it is wanted; a rewritten file's blocks are dropped (`forget`). Thread-safe.

    A range a load streamed whole can be `hold`: its buffer, handed over, answers the reads and
    prefetches within it with no request (an export decodes every payload of a job right after
    loading it: block by block, a 107 MB file's histograms cost S3 dozens of GETs, each of
    which some servers serve by reading the whole object). The latest `max_held` bytes are held."""

    def __init__(self, fetch: Callable[[str, int, int], bytes], block: int = 1 << 18, max_bytes: int = 32 << 20,
                 fetch_many: Callable[[list[tuple[str, int, int]]], list] | None = None,
                 max_held: int = 128 << 20):
        self._fetch = fetch  # (path, start, end) -> the bytes, in one request
        self._fetch_many = fetch_many  # [(path, start, end)] -> the bytes (or an OSError) of each, at once
        self.block = block
        self.max_bytes = max_bytes
        self.max_held = max_held
        self._blocks: OrderedDict[tuple[str, int], bytes] = OrderedDict()
        self._bytes = 0
        self._held: OrderedDict[str, tuple[int, int, Any, int]] = OrderedDict()  # path -> (start, size, buffer, skip)
        self._held_bytes = 0
        self._lock = threading.Lock()

    def hold(self, path: str, start: int, size: int, buffer: Any, skip: int = 0) -> None:
        """Bytes [start, start + size) of `path` are `buffer[skip:skip + size]` (an mmap, closed
        when let go; sliced for bytes): reads within them are answered from it."""
        with self._lock:
            self._let_go(path)
            if size <= 0 or size > self.max_held:
                buffer.close()
                return
            self._held[path] = (start, size, buffer, skip)
            self._held_bytes += size
            while self._held_bytes > self.max_held:
                self._let_go(next(iter(self._held)))

    def _let_go(self, path: str) -> None:
        """(holding the lock)"""
        held = self._held.pop(path, None)
        if held is not None:
            self._held_bytes -= held[1]
            held[2].close()

    def _held_range(self, path: str, start: int, end: int) -> bytes | None:
        with self._lock:
            held = self._held.get(path)
            if held is None or not held[0] <= start <= end <= held[0] + held[1]:
                return None
            return held[2][held[3] + start - held[0]:held[3] + end - held[0]]

    def read(self, path: str, start: int, end: int) -> bytes:
        """Bytes [start, end) of `path` (fewer where the file ends)."""
        if end <= start:
            return b""
        held = self._held_range(path, start, end)
        if held is not None:
            return held
        first, last = start // self.block, (end - 1) // self.block
        parts: list[bytes] = []
        i = first
        while i <= last:
            with self._lock:
                data = self._blocks.get((path, i))
                if data is not None:
                    self._blocks.move_to_end((path, i))
            wanted = min(end, (i + 1) * self.block) - i * self.block
            if data is not None and len(data) >= wanted:
                parts.append(data)
                i += 1
                continue
            j = i  # fetch the run of missing blocks in one request
            while j < last and (path, j + 1) not in self._blocks:
                j += 1
            fetched = self._fetch(path, i * self.block, (j + 1) * self.block)
            for k in range(i, j + 1):
                piece = fetched[(k - i) * self.block:(k - i + 1) * self.block]
                parts.append(piece)
                self._keep((path, k), piece)
                if len(piece) < self.block:
                    break  # the file ends here
            if len(fetched) < (j + 1 - i) * self.block:
                break
            i = j + 1
        data = b"".join(parts)
        return data[start - first * self.block:end - first * self.block]

    def prefetch(self, ranges: Iterable[tuple[str, int, int]]) -> None:
        """Fetch at once the missing blocks that hold each (path, start, end): reading many
        records one by one cost a request per block (`framing.prefetch_records`). At most half
        the bound at a time; what is not fetched is read as before."""
        if self._fetch_many is None:
            return
        wanted: set[tuple[str, int]] = set()
        with self._lock:
            spans = {path: (held[0], held[0] + held[1]) for path, held in self._held.items()}
        for path, start, end in ranges:
            if path in spans and spans[path][0] <= start and end <= spans[path][1]:
                continue  # held
            wanted.update((path, k) for k in range(start // self.block, (max(end, start + 1) - 1) // self.block + 1))
        with self._lock:
            missing = sorted(key for key in wanted if key not in self._blocks)
        missing = missing[:max(1, self.max_bytes // 2 // self.block)]
        runs: list[list] = []  # [path, first block, last block]
        for path, block in missing:
            if runs and runs[-1][0] == path and runs[-1][2] == block - 1:
                runs[-1][2] = block
            else:
                runs.append([path, block, block])
        if not runs:
            return
        fetched = self._fetch_many([(path, first * self.block, (last + 1) * self.block) for path, first, last in runs])
        for (path, first, last), data in zip(runs, fetched):
            if isinstance(data, OSError):
                continue  # the read of that record says so
            for k in range(first, last + 1):
                piece = data[(k - first) * self.block:(k - first + 1) * self.block]
                self._keep((path, k), piece)
                if len(piece) < self.block:
                    break  # the file ends here

    def _keep(self, key: tuple[str, int], data: bytes) -> None:
        with self._lock:
            old = self._blocks.pop(key, None)
            self._bytes += len(data) - (len(old) if old is not None else 0)
            self._blocks[key] = data
            while self._bytes > self.max_bytes and len(self._blocks) > 1:
                _, gone = self._blocks.popitem(last=False)
                self._bytes -= len(gone)

    def let_go(self) -> None:
        """Every held range let go (the source is closed)."""
        with self._lock:
            for path in list(self._held):
                self._let_go(path)

    def forget(self, path: str) -> None:
        with self._lock:
            self._let_go(path)
            for key in [k for k in self._blocks if k[0] == path]:
                self._bytes -= len(self._blocks.pop(key))


class ListedFiles:
    """The files of a remote tree as its last listing gave them, for `stat` without a request:
    size, mtime and a made-up inode each. A file that shrank, or changed (its `version`: mtime,
    ETag) at the same size, or whose `identity` changed (the remote inode, where the listing has
    one: a file replaced under its name, even by a longer one), was rewritten: it gets a new
    made-up inode (the cache reads a file of another inode from its start) and its blocks in
    `ranges` are dropped, as are those of a file gone."""

    def __init__(self, ranges: RangeCache):
        self._ranges = ranges
        self._files: dict[str, tuple] = {}  # path -> (size, mtime, version, identity or None)
        self._ino: dict[str, int] = {}  # path -> its inode (kept when it goes: a file back is another)

    def update(self, entries: Iterable[tuple]) -> dict[str, int]:
        """Take a new listing: (path, size, mtime, version[, identity]) of every file. Returns the
        size at the last listing of each file that is still the same file (grown or not): what is
        new in it starts there."""
        files: dict[str, tuple] = {}
        same: dict[str, int] = {}
        for path, size, mtime, version, *known in entries:
            identity = known[0] if known else None
            files[path] = (size, mtime, version, identity)
            old = self._files.get(path)
            if old is None or size < old[0] or (size == old[0] and version != old[2]) \
                    or (identity is not None and old[3] is not None and identity != old[3]):
                self._ino[path] = self._ino.get(path, 0) + 1  # new, or rewritten: read from its start
                self._ranges.forget(path)
            else:
                same[path] = old[0]
        for gone in self._files.keys() - files.keys():
            self._ranges.forget(gone)
        self._files = files
        return same

    def replaced(self, path: str) -> None:
        """The file under `path` is another than the one listed before (`Source.same_start`):
        a new inode, and its blocks in `ranges` dropped."""
        self._ino[path] = self._ino.get(path, 0) + 1
        self._ranges.forget(path)

    def size(self, path: str) -> int | None:
        """The listed size, None for a file not listed."""
        known = self._files.get(path)
        return None if known is None else known[0]

    def stat(self, path: str) -> os.stat_result:
        known = self._files.get(path)
        if known is None:
            raise FileNotFoundError(2, "No such file or directory", path)
        return file_stat(known[0], known[1], self._ino[path])
