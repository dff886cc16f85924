"""Finding jobs under a log directory (compat §1.2, §1.3), one level deeper than MindInsight.

A job is any directory at or below LOGDIR that holds summary files (`summary.<digits>` in the
name, not ending `_lineage` or `_explain`), lineage files (`_lineage`) or graph files (`.pb`,
except `memory_usage_<n>.pb`) or TensorBoard event files (`tfevents` in the name; a directory may
hold both kinds), or a TensorBoard projector config (`projector_config.pbtxt`: embeddings, listed
as not shown). Ids are relative paths: `./`, `./run1`, `./exp/rank_0`.
Symlinked directories are followed, each real directory once, so links cannot loop, but the
walk stays inside: a link to a directory holding LOGDIR (`/`, a home directory), or onto another
file system than LOGDIR's, is not followed, nor is any directory under /proc, /sys or /dev (a
`/proc/<pid>/cwd` is another process's working directory); each says so in the problems. At most
`limits.MAX_DIRS_WALKED` directories are walked (the problems say when the walk stopped there).
There is no cap on the number of jobs; hidden directories (`.git`, ...) are skipped.
"""
from __future__ import annotations

import os
import time
from dataclasses import dataclass, field

from .. import limits
from ..formats.file_names import classify, summary_sort_key, tensorboard_sort_key
from .poll import Rotation

MAX_DEPTH = 12
SYSTEM_TREES = ("/proc", "/sys", "/dev")  # kernel file systems: never job directories


@dataclass
class FoundJob:
    """A job directory and its files by kind."""

    train_id: str
    path: str
    summary_files: list[str] = field(default_factory=list)  # file names, read order
    lineage_files: list[str] = field(default_factory=list)
    graph_files: list[str] = field(default_factory=list)
    profile_dirs: list[str] = field(default_factory=list)  # child directories holding a profile
    tensorboard_files: list[str] = field(default_factory=list)  # TensorBoard event files, read order
    projector_files: list[str] = field(default_factory=list)  # a TensorBoard projector config (embeddings)

    @property
    def event_files(self) -> list[str]:
        """Every file of framed event records, summary files first: what the cache reads."""
        return [*self.summary_files, *self.tensorboard_files]


@dataclass
class Discovery:
    """The jobs found under a root, and what could not be listed."""

    jobs: dict[str, FoundJob]
    problems: list[str]  # unreadable directories and the like, one line each
    listed: int = 0  # directories whose entries were listed (not known by their stamp)


PROFILE_SUFFIX = "_ascend_ms"  # MindSpore 2.x profiler output (`summary/formats/profiler.py` reads it)


def is_profile_dir(path: str, name: str, names=None) -> bool:
    """A profiler output directory: `*_ascend_ms`, or MindInsight's older `profiler*` holding a
    `profiler_info_*.json`. It belongs to the job of the directory it sits in (never a job itself).
    `names`: the directory's entries when already known (a remote listing), else it is listed."""
    if name.endswith(PROFILE_SUFFIX):
        return True
    if name.startswith("profiler"):
        try:
            names = os.listdir(path) if names is None else names
            return any(n.startswith("profiler_info_") and n.endswith(".json") for n in names)
        except OSError:
            return False
    return False


def train_id_for(rel: str) -> str:
    return "./" if rel in ("", ".") else "./" + rel.replace(os.sep, "/")


# A directory listing is reused while the directory's own stat is unchanged (entries were
# neither added, removed nor renamed), unless it changed less than this long before it was
# listed: a file created within the same timestamp tick would not move the mtime.
RACY_SECONDS = 2.0


@dataclass
class _Listing:
    """One directory's entries as listed, kept while its stamp is the same."""

    stamp: tuple  # the directory's (dev, ino, mtime_ns, ctime_ns)
    files: dict[str, list[str]]  # kind -> sorted file names
    subdirs: list[tuple[str, str]]  # (name, path), sorted by name
    racy: bool = False  # listed too soon after a change to be reused on its stamp alone
    job: FoundJob | None = None  # the job it makes, once made (reused while the listing is)
    walk: _Walk | None = None  # the last walk from this directory (LOGDIR's listing only)


class _Walk:
    """The directories a walk visited, each with its stamp, and the jobs it found: while every
    stamp is the same, walking again would find the same (a poll with nothing changed is then
    one stat and one compare per directory). Kept only for a walk that met no unreadable
    directory and no listing too new to trust (`racy`). Job directories unchanged for a while
    are checked in turn by the background poll (`poll.Rotation`); directories holding others
    (LOGDIR, a sweep's directory: where new jobs appear) at every poll."""

    def __init__(self, dirs: list[tuple[str, int, int, int, int]], jobs: dict[str, FoundJob],
                 containers: set[str], notes: list[str]):
        self.dirs = Rotation(dirs, mtime_ns_at=3, always=lambda row: row[0] in containers)  # (path, dev, ino, mtime_ns, ctime_ns)
        self.jobs = jobs
        self.notes = notes  # directories not walked (`_Bounds`): the same while nothing changed

    def still(self, turn: int | None = None) -> bool:
        """No directory checked changed; at a background poll's `turn`, the dormant job
        directories of that turn only."""
        stat = os.stat
        try:
            for path, dev, ino, mtime_ns, ctime_ns in self.dirs.to_check(turn):
                st = stat(path)
                if st.st_mtime_ns != mtime_ns or st.st_ctime_ns != ctime_ns or st.st_ino != ino or st.st_dev != dev:
                    return False
        except OSError:
            return False
        return True


def discover(logdir: str, listings: dict[str, _Listing] | None = None, turn: int | None = None) -> Discovery:
    """Every job under `logdir`. Raises OSError only when `logdir` itself cannot be listed.

    `listings` (kept by the caller between calls) lets an unchanged directory be known by one
    stat instead of a scan of its entries, and a tree none of whose directories changed by one
    stat per directory and nothing else (`_Walk`); at a background poll's `turn`, dormant job
    directories are stat-ed in turn (`poll.Rotation`).
    """
    root = os.path.realpath(logdir)
    reused = listings if listings is not None else {}
    top = reused.get(root)
    if top is not None and top.walk is not None and top.walk.still(turn):
        return Discovery(dict(top.walk.jobs), list(top.walk.notes), 0)
    jobs: dict[str, FoundJob] = {}
    problems: list[str] = []
    bounds = _Bounds(root)
    visited: set[tuple[int, int]] = set()
    seen: set[str] = set()
    visits: list[tuple[str, int, int, int, int]] = []  # for `_Walk`
    containers: set[str] = {root}  # LOGDIR and the directories holding others (`_Walk`)
    listed = [0]
    racy = [False]

    def walk(path: str, rel: str, depth: int) -> None:
        try:
            st = os.stat(path)
            stamp = (st.st_dev, st.st_ino, st.st_mtime_ns, st.st_ctime_ns)
            visits.append((path, *stamp))
            key = stamp[:2]
            if key in visited:
                return
            if depth and not bounds.admits(path, rel, st):
                return
            visited.add(key)
            listing = reused.get(path)
            if listing is None or listing.stamp != stamp or listing.racy:
                listing = _list(path, stamp, time.time() - st.st_mtime <= RACY_SECONDS)
                reused[path] = listing
                listed[0] += 1
            racy[0] = racy[0] or listing.racy
        except OSError as exc:
            if depth == 0:
                raise
            problems.append(f"{train_id_for(rel)}: unreadable directory ({exc.strerror or exc})")
            return
        seen.add(path)
        files = listing.files
        if files:
            job = listing.job
            if job is None or job.path != path:
                train_id = train_id_for(rel)
                job = listing.job = job_of(train_id, path, files)
            jobs[job.train_id] = job
        if listing.subdirs and depth < MAX_DEPTH:
            containers.add(path)
            for name, sub in listing.subdirs:
                walk(sub, f"{rel}{os.sep}{name}" if rel else name, depth + 1)

    walk(root, "", 0)
    if listings is not None and len(listings) > len(seen):
        for path in [p for p in listings if p not in seen]:
            del listings[path]
    top = reused.get(root)
    if top is not None:
        top.walk = (_Walk(visits, dict(jobs), containers, bounds.notes)
                    if listings is not None and not (problems or racy[0]) else None)
    return Discovery(jobs, problems + bounds.notes, listed[0])


def _system_tree(real: str) -> str:
    """The kernel file system (`SYSTEM_TREES`) that real path `real` is in, or ""."""
    return next((t for t in SYSTEM_TREES if real == t or real.startswith(t + os.sep)), "")


class _Bounds:
    """Where one walk from `root` may go (the module's rules), and a note for each place it
    does not go."""

    def __init__(self, root: str):
        self.dev = os.stat(root).st_dev
        self.inside_system = bool(_system_tree(root))  # LOGDIR itself there: the user asked for it
        self.holders: set[tuple[int, int]] = set()  # (dev, ino) of each directory holding LOGDIR
        parent = os.path.dirname(root)
        while True:
            try:
                st = os.stat(parent)
                self.holders.add((st.st_dev, st.st_ino))
            except OSError:
                pass
            if parent == os.path.dirname(parent):
                break
            parent = os.path.dirname(parent)
        self.walked = 0
        self.notes: list[str] = []

    def admits(self, path: str, rel: str, st: os.stat_result) -> bool:
        """May the walk enter directory `path` (its stat `st`)? Counts it when so."""
        reason = ""
        if (st.st_dev, st.st_ino) in self.holders:
            reason = "a link to a directory holding LOGDIR"
        elif st.st_dev != self.dev:  # a mount point or a link (kernel file systems are mounted apart)
            tree = _system_tree(os.path.realpath(path))
            if tree and not self.inside_system:
                reason = f"it is in {tree}"
            elif os.path.islink(path):
                reason = "a link onto another file system than LOGDIR's"
        if reason:
            self.notes.append(f"{train_id_for(rel)}: not walked ({reason})")
            return False
        if self.walked >= limits.MAX_DIRS_WALKED:
            if self.walked == limits.MAX_DIRS_WALKED:
                self.walked += 1
                self.notes.append(f"the walk stopped after {limits.MAX_DIRS_WALKED:,} directories "
                                  "(limits.MAX_DIRS_WALKED): jobs in the others are not listed")
            return False
        self.walked += 1
        return True


def saved_listings(listings: dict[str, _Listing]) -> list:
    """The listings as plain data (for the disk cache), each still valid while its directory's
    stamp is the same; listings made too soon after a change (`racy`) are left out."""
    return [[path, list(listing.stamp), listing.files, [name for name, _ in listing.subdirs]]
            for path, listing in listings.items() if not listing.racy]


def restored_listings(saved: object) -> dict[str, _Listing]:
    """`saved_listings`' data back (checked: anything malformed is dropped)."""
    listings: dict[str, _Listing] = {}
    if not isinstance(saved, list):
        return listings
    for entry in saved:
        try:
            path, stamp, files, subdirs = entry
            if not (isinstance(path, str) and len(stamp) == 4 and all(type(n) is int for n in stamp)
                    and isinstance(files, dict) and all(isinstance(k, str) and isinstance(v, list)
                                                        and all(isinstance(n, str) for n in v) for k, v in files.items())
                    and all(isinstance(n, str) for n in subdirs)):
                continue
        except (TypeError, ValueError):
            continue
        listings[path] = _Listing(tuple(stamp), files, [(name, os.path.join(path, name)) for name in subdirs])
    return listings


def _list(path: str, stamp: tuple, racy: bool = False) -> _Listing:
    files: dict[str, list[str]] = {}
    subdirs = []
    with os.scandir(path) as it:
        entries = list(it)
    for entry in entries:
        try:
            if entry.is_dir():  # follows symlinks
                if is_profile_dir(entry.path, entry.name):
                    files.setdefault("profile", []).append(entry.name)
                elif not entry.name.startswith("."):
                    subdirs.append((entry.name, entry.path))
                continue
            if not entry.is_file():
                continue
        except OSError:
            continue
        kind = classify(entry.name)
        if kind:
            files.setdefault(kind, []).append(entry.name)
    sort_files(files)
    subdirs.sort()
    return _Listing(stamp, files, subdirs, racy)


def sort_files(files: dict[str, list[str]]) -> None:
    """Put each kind's file names (as `classify` names kinds) in read order, in place."""
    for kind, key in _READ_ORDER:
        names = files.get(kind)
        if names is not None and len(names) > 1:  # (a sort still makes each key: most jobs have one file)
            names.sort(key=key)


_READ_ORDER = (("summary", summary_sort_key), ("lineage", summary_sort_key), ("graph", None), ("profile", None),
               ("tensorboard", tensorboard_sort_key))


def job_of(train_id: str, path: str, files: dict[str, list[str]]) -> FoundJob:
    """The job of a directory whose files are `files` (kind -> names in read order)."""
    return FoundJob(train_id, path, list(files.get("summary", ())), list(files.get("lineage", ())),
                    list(files.get("graph", ())), list(files.get("profile", ())),
                    list(files.get("tensorboard", ())), list(files.get("projector", ())))


def rediscover(path: str, train_id: str, listings: dict[str, _Listing]) -> FoundJob | None:
    """The job in directory `path` again (after a change notice), or None when a full
    `discover` is needed: the directory went, holds no job files any more, or its
    subdirectories changed (a new job may be below)."""
    try:
        st = os.stat(path)
        stamp = (st.st_dev, st.st_ino, st.st_mtime_ns, st.st_ctime_ns)
        old = listings.get(path)
        if old is not None and old.stamp == stamp and not old.racy:
            listing = old
        else:
            listing = _list(path, stamp, time.time() - st.st_mtime <= RACY_SECONDS)
            if old is None or listing.subdirs != old.subdirs:
                return None
            listings[path] = listing
    except OSError:
        return None
    files = listing.files
    if not files:
        return None
    job = listing.job
    if job is None or job.path != path or job.train_id != train_id:
        job = listing.job = job_of(train_id, path, files)
    return job  # the walk's own while the listing is the same: the cache knows it by identity
