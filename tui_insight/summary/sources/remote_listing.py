"""Jobs from a flat listing of a remote tree: (relative path, size, mtime) of every file, as one
LIST (object stores) or one ssh round trip returns it.

The rules are `discovery`'s (file kinds, profile directories, ids, read order, hidden
directories skipped, `MAX_DEPTH`); only the walk differs: directories are known by the files
under them, so an empty directory is not seen (it holds no job anyway).

An object key is a name, not a path: `runs//job/F`, `runs/./job/F` and `runs/job/F` are three
objects. Each part of a key stays a part (an empty one, a `.` one), so each is read by its own
key and ids stay distinct (`.//job`, `././job`, `./job`). A job's path must still give a file's
key when joined with its name (`os.path.join` drops an empty last part), so such parts are
written with a marker in paths (`path_part`), which the source takes off (`real_key`).

The numbers of a listing come from the remote side and are checked where they are read
(`listed_size`, `listed_mtime`): a bad one makes its file a counted problem, never an exception.
"""
from __future__ import annotations

import math
import re
from collections.abc import Iterable

from .. import limits
from ..formats.file_names import classify
from .discovery import MAX_DEPTH, Discovery, FoundJob, is_profile_dir, job_of, sort_files, train_id_for

MARKER = "\x00"  # no object store allows NUL in a key (S3's XML listings cannot carry it)
_EMPTY_PART, _DOT_PART = MARKER, MARKER + "."
_DIGITS = re.compile(r"[0-9]{1,19}")
_DECIMAL = re.compile(r"-?[0-9]{1,15}(\.[0-9]{0,12})?")
LATEST_MTIME = 1e11  # seconds since 1970: the year 5138; later is not a time


def listed_size(value: object) -> int | None:
    """A size from a listing (text or number), or None when it is not a plain non-negative integer
    (`-1`, `0x10`, `1e3`, `nan`, superscript digits)."""
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        return value if 0 <= value < 1 << 62 else None
    if isinstance(value, bytes):
        value = value.decode("ascii", "replace")
    if isinstance(value, str) and _DIGITS.fullmatch(value):
        return int(value)
    return None


def listed_mtime(value: object) -> float | None:
    """An mtime from a listing (seconds since 1970, text or number), or None when it is not a
    finite time (`nan`, `inf`, `1e400`, past `LATEST_MTIME`)."""
    if isinstance(value, bytes):
        value = value.decode("ascii", "replace")
    if isinstance(value, str):
        if not _DECIMAL.fullmatch(value):
            return None
        value = float(value)
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return None
    return float(value) if math.isfinite(value) and abs(value) < LATEST_MTIME else None


def path_part(part: str) -> str:
    """A key's part as written in a job's path: an empty or `.` part marked (see the module doc)."""
    return _EMPTY_PART if part == "" else _DOT_PART if part == "." else part


def real_key(path: str) -> str:
    """The key a path built from `path_part`s names."""
    if MARKER not in path:
        return path
    return "/".join("" if p == _EMPTY_PART else "." if p == _DOT_PART else p for p in path.split("/"))


def walk_stopped(limit: int) -> str:
    """The note of a walk that reached its bound (worded as the local walk's)."""
    return f"the walk stopped after {limit:,} directories: jobs in the others are not listed"


def bad_entries(problems: dict[str, list[str]]) -> list[str]:
    """One line per directory: how many of its listed files had a bad field, and the first."""
    return [f"{train_id_for(directory)}: {len(whats)} listed file(s) left out, bad size or mtime "
            f"(first: {whats[0]})" for directory, whats in problems.items()]


def jobs_from_listing(root: str, entries: Iterable[tuple[str, int, float]],
                      max_dirs: int = limits.MAX_DIRS_WALKED) -> Discovery:
    """The jobs under `root` (a POSIX path the remote side understands) from its file listing:
    `entries` are (path relative to root, '/'-separated; size; mtime). Sizes and mtimes are the
    caller's to keep (its `stat`); they are accepted here so a listing passes through unchanged.
    Files in directories past the first `max_dirs` are left out, with a note."""
    children: dict[tuple[str, ...], list[str]] = {}  # directory -> names of the files in it
    problems: list[str] = []
    unusable = 0  # names that cannot be a file under root: empty, `.`, or with a `..` part
    for rel, _size, _mtime in entries:
        parts = tuple(rel.split("/"))
        if not parts[-1] or parts[-1] == "." or ".." in parts:
            unusable += 1
            continue
        if parts[:-1] not in children and len(children) >= max_dirs:
            if not problems:
                problems.append(walk_stopped(max_dirs))
            continue
        children.setdefault(parts[:-1], []).append(parts[-1])
        for i in range(len(parts) - 1):  # directories holding only directories are seen too
            children.setdefault(parts[:i], [])

    def path_of(parts: tuple[str, ...]) -> str:
        return root.rstrip("/") + "/" + "/".join(map(path_part, parts)) if parts else root

    # A profile directory belongs to its parent's job and is not walked into.
    profiles = {d for d in children if d and is_profile_dir(path_of(d), d[-1], children[d])}
    files_of: dict[tuple[str, ...], dict[str, list[str]]] = {}
    for directory, names in children.items():
        if not _walked(directory, profiles):
            continue
        for name in names:
            kind = classify(name)
            if kind:
                files_of.setdefault(directory, {}).setdefault(kind, []).append(name)
    for profile in profiles:
        parent = profile[:-1]
        if _walked(parent, profiles):
            files_of.setdefault(parent, {}).setdefault("profile", []).append(profile[-1])

    if unusable:
        problems.append(f"{train_id_for('')}: {unusable} listed name(s) left out, not a file under LOGDIR "
                        "(empty, `.` or with a `..` part)")
    jobs: dict[str, FoundJob] = {}
    for directory in sorted(files_of):  # parents first, names in order: the order of `discover`
        files = files_of[directory]
        sort_files(files)
        train_id = train_id_for(_relative(directory))
        jobs[train_id] = job_of(train_id, path_of(directory), files)
    return Discovery(jobs, problems)


def _relative(directory: tuple[str, ...]) -> str:
    """A directory's path under root, for its id: its parts joined, and a slash for each part of
    one whose parts are all empty (a key `runs//F` is in `/`, not in root)."""
    return "/" * len(directory) if directory and not any(directory) else "/".join(directory)


def _walked(directory: tuple[str, ...], profiles: set) -> bool:
    """Whether `discover` would list this directory: within MAX_DEPTH, through no hidden
    directory and no profile directory."""
    if len(directory) > MAX_DEPTH:
        return False
    for i, name in enumerate(directory):
        if directory[:i + 1] in profiles or (name.startswith(".") and name != "."):  # `.` is a key part (an object store)
            return False
    return True
