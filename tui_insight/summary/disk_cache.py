"""Job snapshots kept in the user's cache directory, so a second start reads only what is new.

One entry per job under `$XDG_CACHE_HOME/tui-insight/snapshots/` (`~/.cache/...` when it is not
set), named by a hash of the job directory's real path. Entries are written whole to a temporary
file and renamed into place, so a reader (another tui-insight on the same logs) sees an old
entry or a new one, never half of one. The directory is kept under a size bound: past it, the
entries used longest ago (by mtime, which a read refreshes) are deleted. A damaged entry, or
one of another format version, is deleted when it is read and the job is read from its files.
Whether an entry still fits the files is the loader's call (`SummaryCache`).
"""
from __future__ import annotations

import hashlib
import logging
import os
import tempfile
from pathlib import Path

from .snapshot import PREFIX, JobSnapshot, SnapshotError, decode, header_end

DEFAULT_MAX_BYTES = 2 << 30
CLEAN_TO = 0.8  # a cleanup deletes down to this fraction of the bound (not one entry per write)
SUFFIX = ".snap"
log = logging.getLogger(__name__)


def default_root() -> Path:
    """`$XDG_CACHE_HOME/tui-insight` (`~/.cache/tui-insight` when it is not set)."""
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "tui-insight"


def inside(path: str | os.PathLike, directory: str | os.PathLike) -> bool:
    """True when `path` is `directory` or below it (real paths: symlinks resolved)."""
    path, directory = os.path.realpath(path), os.path.realpath(directory)
    return path == directory or path.startswith(directory.rstrip(os.sep) + os.sep)


class DiskCache:
    """Snapshots by job directory, bounded in bytes. Used by one thread at a time."""

    def __init__(self, root: str | os.PathLike | None = None, max_bytes: int = DEFAULT_MAX_BYTES):
        self.root = Path(root) if root is not None else default_root()
        self.dir = self.root / "snapshots"
        self._dir = str(self.dir)
        self._names: dict[tuple[str, str], Path] = {}  # (where, job path) -> its entry (a real path costs a stat per component)
        self._made = False  # the directory exists
        self.max_bytes = max_bytes
        self._bytes: int | None = None  # what the directory holds, once counted
        self._failed = False  # writing failed once (said in the log once)

    def entry(self, job_path: str, where: str = "") -> Path:
        """`where`: the remote tree a job path is in ("" on this machine), so `host:/logs` and a
        local `/logs` never share entries."""
        path = self._names.get((where, job_path))
        if path is None:
            key = f"{where}\n{job_path}" if where else os.path.realpath(job_path)
            digest = hashlib.sha256(key.encode("utf-8", "surrogateescape")).hexdigest()
            path = self._names[(where, job_path)] = Path(os.path.join(self._dir, digest[:40] + SUFFIX))
        return path

    def load(self, job_path: str, details: bool, where: str = "") -> JobSnapshot | None:
        """The job's snapshot (only its header unless `details`), or None when there is none or
        it is damaged (then it is deleted)."""
        path = self.entry(job_path, where)
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
            return self._damaged(path, exc)
        except OSError as exc:
            log.warning("cannot read the cache entry %s: %s", path, exc.strerror or exc)
            return None
        try:
            snapshot = decode(data, details)
        except SnapshotError as exc:
            return self._damaged(path, exc)
        if snapshot.path != job_path:
            return None  # another directory's entry under the same hash: never seen, but not ours
        try:
            os.utime(path)  # used now: the last to go in a cleanup
        except OSError:
            pass
        return snapshot

    def _damaged(self, path: Path, exc: SnapshotError) -> None:
        log.info("discarding the cache entry %s: %s", path, exc)
        self._remove(path)
        return None

    def save(self, job_path: str, data: bytes, where: str = "") -> bool:
        """Write the job's entry (`snapshot.encode`'s bytes, atomically); False when it could not be written."""
        path = self.entry(job_path, where)
        tmp = None
        try:
            if not self._made:
                self.dir.mkdir(parents=True, exist_ok=True)
                self._made = True
            try:
                old = path.stat().st_size
            except OSError:
                old = 0
            fd, tmp = tempfile.mkstemp(dir=self.dir, prefix=".tmp-", suffix=SUFFIX)
            with os.fdopen(fd, "wb") as fh:
                fh.write(data)
            os.replace(tmp, path)
        except OSError as exc:
            self._made = False  # the directory may have gone: made again next time
            if tmp is not None:
                self._remove(Path(tmp))
            if not self._failed:
                self._failed = True
                log.warning("cannot write to the cache directory %s: %s", self.dir, exc.strerror or exc)
            return False
        if self._bytes is None:
            self._bytes = self.size()
        else:
            self._bytes += len(data) - old
        if self._bytes > self.max_bytes:
            self.cleanup()
        return True

    def discard(self, job_path: str) -> None:
        self._remove(self.entry(job_path))

    def size(self) -> int:
        """Bytes of every entry (and leftover temporary file)."""
        return sum(size for _, size, _ in self._entries())

    def cleanup(self) -> None:
        """Delete the entries used longest ago until the directory holds at most CLEAN_TO of the bound."""
        entries = sorted(self._entries(), key=lambda e: e[2])
        total = sum(size for _, size, _ in entries)
        target = self.max_bytes * CLEAN_TO
        for path, size, _ in entries:
            if total <= target:
                break
            if self._remove(path):
                total -= size
        self._bytes = total

    def _entries(self) -> list[tuple[Path, int, float]]:
        """(path, size, mtime) of each file of the directory."""
        found = []
        try:
            with os.scandir(self.dir) as it:
                for item in it:
                    if item.name.endswith(SUFFIX):
                        try:
                            st = item.stat(follow_symlinks=False)
                        except OSError:
                            continue
                        found.append((Path(item.path), st.st_size, st.st_mtime))
        except OSError:
            return []
        return found

    @staticmethod
    def _remove(path: Path) -> bool:
        try:
            path.unlink()
            return True
        except FileNotFoundError:
            return False
        except OSError as exc:
            log.warning("cannot delete the cache entry %s: %s", path, exc.strerror or exc)
            return False
