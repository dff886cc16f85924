"""Job snapshots kept in the user's cache directory, so a second start reads only what is new.

One entry per job under `$XDG_CACHE_HOME/tui-insight/snapshots/` (`user_dirs.cache_dir()`),
named by a hash of the job directory's real path. Entries are written whole to a temporary
file and renamed into place, so a reader (another tui-insight on the same logs) sees an old
entry or a new one, never half of one. The directory is kept under a size bound: past it, the
entries used longest ago (by mtime, which a read refreshes) are deleted. A damaged entry, or
one of another format version, is deleted when it is read and the job is read from its files.
Whether an entry still fits the files is the loader's call (`SummaryCache`).

Listing a LOGDIR's jobs needs only each entry's header; opening 5,000 entries for it cost more
than reading them. So the headers of a LOGDIR's jobs are also kept together in one index file
(`index/`, named by a hash of the LOGDIR's real path), written after a pass that saved entries.
A header from the index is what its entry said when it was saved: the loader checks it against
the files exactly like an entry's, and details always come from the entry itself. The index
also keeps discovery's directory listings, each used while its directory's stamp is the same.
It holds the headers as plain data (`snapshot.listing`) and the listings in one `marshal` (no
code is ever run from it) behind a CRC: parsing 5,000 headers' JSON and checking each field was
most of a warm start's listing. A damaged index, or one of another format, is dropped and the
entries are read one by one.
Listing a job from the index does not touch its entry: the cleanup counts an entry as used when
its own mtime says so or when an index that lists it was last read or written (its mtime,
refreshed at each start), so a warm start costs no write per job. The index files count
against the size bound like the entries.
The cache's directories are private (`user_dirs.private_dir`): one that is a symlink or another
user's is refused before anything is read, written or deleted, and the cache keeps nothing.
"""
from __future__ import annotations

import errno
import logging
import marshal
import os
import struct
import tempfile
from pathlib import Path
from typing import Any, Collection

import google_crc32c

from ...user_dirs import cache_dir, private_dir
from . import snapshot
from .snapshot import PREFIX, JobSnapshot, SnapshotError, decode, header_end
from .snapshot import listed as from_listing

DEFAULT_MAX_BYTES = 2 << 30
CLEAN_TO = 0.8  # a cleanup deletes down to this fraction of the bound (not one entry per write)
SUFFIX = ".snap"
INDEX_SUFFIX = ".index"
INDEX_MAGIC = b"TUIINDX\x01"  # 1: one marshal of (where, listings, job path -> `snapshot.listing`); 0: bytes and JSON
_INDEX_PREFIX = struct.Struct("<8sII")  # magic, snapshot format version, crc32c of the rest
log = logging.getLogger(__name__)


def inside(path: str | os.PathLike, directory: str | os.PathLike) -> bool:
    """True when `path` is `directory` or below it (real paths: symlinks resolved)."""
    path, directory = os.path.realpath(path), os.path.realpath(directory)
    return path == directory or path.startswith(directory.rstrip(os.sep) + os.sep)


class DiskCache:
    """Snapshots by job directory, bounded in bytes. Used by one thread at a time."""

    def __init__(self, root: str | os.PathLike | None = None, max_bytes: int = DEFAULT_MAX_BYTES):
        self.root = Path(root) if root is not None else cache_dir()
        self.dir = self.root / "snapshots"
        self._dir = str(self.dir)
        self._names: dict[tuple[str, str], str] = {}  # (where, job path) -> its entry (a real path costs a stat per component)
        self._real_dirs: dict[str, str] = {}  # directory -> its real path, for the job directories' (`_real`)
        self._made = False  # the directory exists
        self._refused: str | None = None  # why the directories are not used ("": used), once checked
        self.max_bytes = max_bytes
        self._bytes: int | None = None  # what the directory holds, once counted
        self._failed = False  # writing failed once (said in the log once)
        self._index_path: Path | None = None  # the index of the LOGDIR in use (`use_index`)
        self._index_where = ""  # ... and the remote tree it is in ("" on this machine)
        # job path -> its header: as the index file holds it (`snapshot.listing`), until the first
        # pass is over, or its entry's prefix and header bytes, saved since the last write
        self._index: dict[str, bytes | tuple] = {}
        self._listings: Any = None  # the directory listings read with the index (`saved_listings`)
        self._kept_listings: Any = None  # ... and to write with it (`keep_listings`)
        self._index_whole = False  # `_index` holds every header of the index file (read, none dropped)
        self._index_gone: set[str] = set()  # job paths dropped from the index since the last write
        self._index_dirty = False
        self._index_jobs = -1  # how many jobs the index was last checked against (`write_index`)

    def refused(self) -> str:
        """"" when the cache's directories are private and ours (made so when missing), else why
        the cache keeps nothing (a symlink, another user's, cannot be made): checked once."""
        if self._refused is None:
            try:
                for directory in (self.root, self.dir, self.root / "index"):
                    private_dir(directory)
                self._refused = ""
            except OSError as exc:
                self._refused = f"the cache directory is not used: {exc.strerror or exc}"
                log.warning("%s", self._refused)
        return self._refused

    def _hashed(self, path: str, where: str = "") -> str:
        """The name of what is kept for `path`: a local path by its real path, a remote one with
        its tree's location (`host:/logs` and a local `/logs` never share a name)."""
        import hashlib  # (here: a run without the disk cache spares its import)

        key = f"{where}\n{path}" if where else self._real(path)
        return hashlib.sha256(key.encode("utf-8", "surrogateescape")).hexdigest()[:40]

    def _real(self, path: str) -> str:
        """`os.path.realpath(path)`, with the real path of its directory remembered: a sweep's
        jobs share one, and each real path cost a stat per component (one here, for the job
        directory itself; any other form of path goes the long way)."""
        head, tail = os.path.split(path)
        if not head or tail in ("", ".", "..") or os.path.islink(path):
            return os.path.realpath(path)
        real = self._real_dirs.get(head)
        if real is None:
            real = self._real_dirs[head] = os.path.realpath(head)
        return os.path.join(real, tail)

    def entry(self, job_path: str, where: str = "") -> Path:
        """`where`: the remote tree a job path is in ("" on this machine), so `host:/logs` and a
        local `/logs` never share entries."""
        return Path(self._entry(job_path, where))

    def _entry(self, job_path: str, where: str = "") -> str:
        """`entry` as a string (no `Path` made: a sweep names thousands)."""
        path = self._names.get((where, job_path))
        if path is None:
            path = self._names[(where, job_path)] = os.path.join(self._dir, self._hashed(job_path, where) + SUFFIX)
        return path

    # -- the index of a LOGDIR's headers ----------------------------------------------------------

    def use_index(self, logdir: str, where: str = "") -> None:
        """Read the headers of `logdir`'s jobs from its index (once): `load` without details
        takes them from there. `where`: the remote tree's location ("" on this machine)."""
        path = self._index_file(logdir, where)
        if path == self._index_path or self.refused():
            return
        self._index_path, self._index, self._index_dirty = path, {}, False
        self._listings = self._kept_listings = None
        self._index_whole = False  # `_index` holds every header of the file
        self._index_where = where
        self._index_gone = set()
        try:
            _, self._listings, self._index = _read_index(path)
        except FileNotFoundError:
            return
        except OSError as exc:
            log.warning("cannot read the cache index %s: %s", path, exc.strerror or exc)
            return
        except SnapshotError as exc:
            log.info("discarding the cache index %s: %s", path, exc)
            self._remove(path)
            return
        self._index_whole = True
        self._touch(path)  # used now: the last to go in a cleanup

    def has_index(self, logdir: str, where: str = "") -> bool:
        """Whether an earlier start left an index of `logdir` (this start is not a cold one)."""
        return self._index_file(logdir, where).exists()

    def _index_file(self, logdir: str, where: str) -> Path:
        return self.root / "index" / (self._hashed(logdir, where) + INDEX_SUFFIX)

    def saved_listings(self) -> object:
        """The directory listings kept with the index (`discovery.saved_listings`' data), or
        None; handed over once (they leave memory: a write takes them from the file)."""
        listings, self._listings = self._listings, None
        return listings

    def keep_listings(self, listings: list) -> None:
        """Keep the directory listings with the index (written with it)."""
        self._kept_listings = listings
        self._index_dirty = True

    def write_index(self, job_paths: Collection[str]) -> None:
        """Write the index (atomically) with the headers of `job_paths` it holds, if any changed.
        Afterwards the headers read from it leave memory (a job found later is listed from its
        entry); the next write merges them back from the file."""
        if self._index_path is None:
            return
        if not self._index_dirty and len(job_paths) == self._index_jobs:
            self._drop_read()
            return  # the same jobs (by count: a job replaced by another is written when it is saved)
        self._index_jobs = len(job_paths)
        entries, on_file = self._index, None
        if not self._index_whole:
            on_file = self._on_file()
            entries = {**on_file[1], **self._index}
        wanted = set(job_paths)
        gone = [p for p in entries if p not in wanted or (p in self._index_gone and p not in self._index)]
        for p in gone:
            del entries[p]
        if not (self._index_dirty or gone):
            self._drop_read()
            return
        listings = self._kept_listings if self._kept_listings is not None else self._listings
        if listings is None:  # handed over to discovery: as the file holds them
            listings = (on_file or self._on_file())[0]
        jobs = {}
        for job_path, header in entries.items():
            if isinstance(header, bytes):  # saved in this session
                try:
                    header = snapshot.listing(header)
                except SnapshotError:
                    continue
                # The listing in place of the bytes, which go now (`load` takes either): 5,000
                # headers' bytes and their listings held at once were 10 MB of the write's peak.
                entries[job_path] = header
                if job_path in self._index:
                    self._index[job_path] = header
            jobs[job_path] = header
        body = marshal.dumps((self._index_where, listings, jobs))
        del jobs
        # (written as two pieces: the prefix and a 12 MB body are not joined into a copy)
        data = [_INDEX_PREFIX.pack(INDEX_MAGIC, snapshot.FORMAT_VERSION, google_crc32c.value(body)), body]
        old = self._file_size(self._index_path)
        if self._write(self._index_path, data):
            self._index, self._index_gone, self._index_dirty = {}, set(), False
            self._index_whole, self._listings, self._kept_listings = False, None, None
            self._grew(len(data[0]) + len(body) - old)

    def _on_file(self) -> tuple[Any, dict[str, bytes | tuple]]:
        """The listings and headers the index file holds (none when it cannot be read)."""
        if self._index_path is None:
            return None, {}
        try:
            _, listings, entries = _read_index(self._index_path)
            return listings, entries
        except (OSError, SnapshotError):
            return None, {}  # the jobs it held are listed from their entries next time

    def _drop_read(self) -> None:
        """Let what was read from the index go (nothing saved since is unwritten): the file has it."""
        if not self._index_dirty:
            self._index, self._index_whole, self._listings = {}, False, None

    def has_header(self, job_path: str) -> bool:
        """The index read at this start holds the job's header (`load` without details finds it there)."""
        return job_path in self._index

    def load(self, job_path: str, details: bool, where: str = "") -> JobSnapshot | None:
        """The job's snapshot (only its header unless `details`), or None when there is none or
        it is damaged (then it is deleted)."""
        if self.refused():
            return None
        if not details:
            header = self._index.get(job_path)
            if header is not None:
                try:
                    listed = decode(header, details=False) if isinstance(header, bytes) else from_listing(header)
                    if listed.path == job_path:
                        return listed
                except SnapshotError as exc:
                    log.info("a header in the cache index is damaged: %s", exc)
                del self._index[job_path]
                self._index_gone.add(job_path)
                self._index_dirty = True
        path = self._entry(job_path, where)
        try:
            with open(path, "rb") as fh:
                if details:
                    data = fh.read()
                else:
                    prefix = fh.read(PREFIX.size)
                    data = prefix + fh.read(header_end(prefix) - PREFIX.size)
        except FileNotFoundError:
            return None
        except SnapshotError as exc:
            self._damaged(path, exc)
            return None
        except OSError as exc:
            log.warning("cannot read the cache entry %s: %s", path, exc.strerror or exc)
            return None
        try:
            snapshot = decode(data, details)
        except SnapshotError as exc:
            self._damaged(path, exc)
            return None
        if snapshot.path != job_path:
            return None  # another directory's entry under the same hash: never seen, but not ours
        if self._index_path is not None and not details:  # listed from its entry: from the index next time
            self._index[job_path] = data[:header_end(data)]
            self._index_dirty = True
        self._touch(path)  # used now: the last to go in a cleanup
        return snapshot

    @staticmethod
    def _touch(path: str | Path) -> None:
        try:
            os.utime(path)
        except OSError:
            pass

    @staticmethod
    def _file_size(path: Path) -> int:
        try:
            return path.stat().st_size
        except OSError:
            return 0

    def _damaged(self, path: str | Path, exc: SnapshotError) -> None:
        log.info("discarding the cache entry %s: %s", path, exc)
        self._remove(path)
        return None

    def save(self, job_path: str, data: bytes, where: str = "") -> bool:
        """Write the job's entry (`snapshot.encode`'s bytes, atomically); False when it could not be written."""
        if self.refused():
            return False
        path = self.entry(job_path, where)
        old = self._file_size(path)
        if not self._write(path, data):
            return False
        if self._index_path is not None:
            self._index[job_path] = data[:header_end(data)]
            self._index_dirty = True
        self._grew(len(data) - old)
        return True

    def entry_to_write(self, job_path: str, where: str = "") -> str | None:
        """Where a loading process may write the job's entry (`write_file`, then `written`), its
        directory made; None when the cache keeps nothing."""
        if self.refused():
            return None
        try:
            if not self._made:
                private_dir(self.dir)
                self._made = True
        except OSError:
            return None  # (`save` says why, once)
        return self._entry(job_path, where)

    def written(self, job_path: str, header: bytes, size: int, old: int) -> None:
        """A loading process wrote the job's entry at `entry_to_write`: `size` bytes over `old`
        (0: none), `header` its prefix and header (`header_end`) for the index."""
        if self._index_path is not None:
            self._index[job_path] = header
            self._index_dirty = True
        self._grew(size - old)

    def decoded(self, job_path: str, header: JobSnapshot) -> None:
        """The header of the job's entry just saved (`save`, `written`), as the caller decoded it
        (`decode(..., details=False)`): the index keeps its listing in place of its bytes, and
        is written without decoding them again (each header of a cold sweep was decoded twice)."""
        if isinstance(self._index.get(job_path), bytes):
            self._index[job_path] = snapshot.listing_of(header)

    def _grew(self, delta: int) -> None:
        """A file of the cache grew by `delta` bytes: clean up past the bound."""
        if self._bytes is None:
            self._bytes = self.size()
        else:
            self._bytes += delta
        if self._bytes > self.max_bytes:
            self.cleanup()

    def _write(self, path: Path, data: bytes | list[bytes]) -> bool:
        """`data` to `path` through a temporary file renamed into place; False when it failed."""
        try:
            if not self._made:
                private_dir(self.dir)
                self._made = True
            private_dir(path.parent)
            write_file(str(path), data)
            return True
        except OSError as exc:
            self._made = False  # the directory may have gone: made again next time
            if not self._failed:
                self._failed = True
                log.warning("cannot write to the cache directory %s: %s", self.dir, exc.strerror or exc)
            return False

    def discard(self, job_path: str) -> None:
        if self.refused():
            return
        self._remove(self.entry(job_path))
        self._index.pop(job_path, None)
        if self._index_path is not None:
            self._index_gone.add(job_path)
            self._index_dirty = True

    def size(self) -> int:
        """Bytes of every entry and index (and leftover temporary file)."""
        return sum(size for _, size, _ in self._entries())

    def cleanup(self) -> None:
        """Delete the entries and indexes used longest ago until they hold at most CLEAN_TO of the bound."""
        entries = self._entries()
        listed = self._listed_use(entries)
        entries.sort(key=lambda e: max(e[2], listed.get(e[0], 0.0)))
        total = sum(size for _, size, _ in entries)
        target = self.max_bytes * CLEAN_TO
        for path, size, _ in entries:
            if total <= target:
                break
            if self._remove(path):
                total -= size
        self._bytes = total

    def _listed_use(self, entries: list[tuple[Path, int, float]]) -> dict[Path, float]:
        """Each entry an index lists -> when that index was last used (its mtime): a start lists
        jobs from the index without opening their entries."""
        used: dict[Path, float] = {}
        for path, _, mtime in entries:
            if not path.name.endswith(INDEX_SUFFIX):
                continue
            try:
                where, _, index = _read_index(path)
            except (OSError, SnapshotError):
                continue  # a damaged index lists nothing
            for job_path in index:
                entry = self.entry(job_path, where)
                used[entry] = max(used.get(entry, 0.0), mtime)
        return used

    def _entries(self) -> list[tuple[Path, int, float]]:
        """(path, size, mtime) of each entry and index (and temporary file); none when refused."""
        found: list[tuple[Path, int, float]] = []
        if self.refused():
            return found
        for directory in (self.dir, self.root / "index"):
            try:
                with os.scandir(directory) as it:
                    for item in it:
                        if item.name.endswith((SUFFIX, INDEX_SUFFIX)):
                            try:
                                st = item.stat(follow_symlinks=False)
                            except OSError:
                                continue
                            found.append((Path(item.path), st.st_size, st.st_mtime))
            except OSError:
                continue
        return found

    @staticmethod
    def _remove(path: str | Path) -> bool:
        try:
            os.unlink(path)
            return True
        except FileNotFoundError:
            return False
        except OSError as exc:
            log.warning("cannot delete the cache entry %s: %s", path, exc.strerror or exc)
            return False


def write_file(path: str, data: bytes | list[bytes]) -> int:
    """`data` (or its pieces, one after the other) to `path` so that a reader sees the old file
    or the new one, never half of one; the old file's size (0: none). OSError when it failed,
    nothing left behind. (Loading processes write their jobs' entries with it.) A new entry is
    written unnamed and then linked in (`_link_new`); one that replaces another is written to
    a temporary file beside it, renamed into place."""
    pieces = data if isinstance(data, list) else [data]
    if _unnamed and _link_new(path, pieces):
        return 0
    try:
        old = os.stat(path).st_size
    except OSError:
        old = 0
    fd, tmp = tempfile.mkstemp(dir=os.path.dirname(path), prefix=".tmp-", suffix=SUFFIX)
    try:
        try:
            _write_all(fd, pieces)
        finally:
            os.close(fd)
        os.replace(tmp, path)
    except BaseException:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise
    return old


# Files written with no name (Linux's O_TMPFILE) and linked in through /proc: False once the
# system or the cache's file system showed it has none.
_unnamed = hasattr(os, "O_TMPFILE") and os.path.isdir("/proc/self/fd")


def _link_new(path: str, pieces: list[bytes]) -> bool:
    """`pieces` written to a file with no name in `path`'s directory, which is then linked in
    as `path` unless a file has that name: a new entry costs no temporary name to make, stat or
    rename (a cold sweep writes 5,000; 56 against 79 us each), and leaves nothing behind if
    the process dies meanwhile. False, with nothing written, when `path` exists or such files
    cannot be made here: the caller writes it the other way (which also says why it failed)."""
    global _unnamed
    try:
        fd = os.open(os.path.dirname(path) or ".", os.O_TMPFILE | os.O_WRONLY, 0o600)
    except OSError as exc:
        if exc.errno in (errno.EOPNOTSUPP, errno.EISDIR, errno.EINVAL):  # (no such files on this file system)
            _unnamed = False
        return False
    try:
        _write_all(fd, pieces)
        # (`src_dir_fd`, ignored with an absolute path, makes it linkat with AT_SYMLINK_FOLLOW:
        # the file behind /proc's link, not the link itself)
        os.link(f"/proc/self/fd/{fd}", path, src_dir_fd=fd)
        return True
    except FileExistsError:
        return False
    except OSError as exc:
        if exc.errno in (errno.ENOENT, errno.EXDEV, errno.EPERM, errno.EOPNOTSUPP):  # (no /proc to link from)
            _unnamed = False
        return False
    finally:
        os.close(fd)


_IOV_MAX = 1024  # pieces one writev call takes (Linux's IOV_MAX)


def _write_all(fd: int, pieces: list[bytes]) -> None:
    """`pieces` one after the other to `fd`, in one system call where it can (a sweep run's
    entry is 16 pieces: written through a buffered file they took 45 calls, 285 against 154 us
    a job, with os.writev), on again from where a short write stopped."""
    if not hasattr(os, "writev"):  # (not on every system)
        data = b"".join(pieces)
        while data:
            data = data[os.write(fd, data):]
        return
    views = [memoryview(piece) for piece in pieces if len(piece)]
    while views:
        done = os.writev(fd, views[:_IOV_MAX])
        if not done:
            raise OSError("no byte written")
        while views and done >= len(views[0]):
            done -= len(views.pop(0))
        if done:
            views[0] = views[0][done:]


def _read_index(path: Path) -> tuple[str, Any, dict[str, bytes | tuple]]:
    """(where, directory listings, job path -> `snapshot.listing`) of an index file; OSError
    when it cannot be read, SnapshotError when damaged or of another version."""
    with open(path, "rb") as fh:
        prefix = fh.read(_INDEX_PREFIX.size)
        body = fh.read()  # (read apart from the prefix: 12 MB are not copied again for the CRC)
    if len(prefix) < _INDEX_PREFIX.size:
        raise SnapshotError("cut short")
    magic, version, crc = _INDEX_PREFIX.unpack(prefix)
    if magic != INDEX_MAGIC:
        raise SnapshotError("not an index (or of another format)")
    if version != snapshot.FORMAT_VERSION:
        raise SnapshotError(f"format version {version}, not {snapshot.FORMAT_VERSION}")
    if google_crc32c.value(body) != crc:
        raise SnapshotError("damaged")
    try:
        where, listings, jobs = marshal.loads(body)
    except (ValueError, TypeError, EOFError) as exc:
        raise SnapshotError(f"malformed: {exc}") from exc
    if type(where) is not str or type(jobs) is not dict or not all(type(p) is str for p in jobs):
        raise SnapshotError("malformed")
    return where, listings, jobs
