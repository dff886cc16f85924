"""Jobs from a flat listing of a remote tree: (relative path, size, mtime) of every file, as one
LIST (object stores) or one ssh round trip returns it.

The rules are `discovery`'s (file kinds, profile directories, ids, read order, hidden
directories skipped, `MAX_DEPTH`); only the walk differs: directories are known by the files
under them, so an empty directory is not seen (it holds no job anyway).
"""
from __future__ import annotations

import posixpath
from collections.abc import Iterable

from .discovery import MAX_DEPTH, Discovery, FoundJob, classify, is_profile_dir, job_of, sort_files, train_id_for


def jobs_from_listing(root: str, entries: Iterable[tuple[str, int, float]]) -> Discovery:
    """The jobs under `root` (a POSIX path the remote side understands) from its file listing:
    `entries` are (path relative to root, '/'-separated; size; mtime). Sizes and mtimes are the
    caller's to keep (its `stat`); they are accepted here so a listing passes through unchanged."""
    children: dict[tuple[str, ...], list[str]] = {}  # directory -> names of the files in it
    for rel, _size, _mtime in entries:
        parts = tuple(p for p in rel.split("/") if p not in ("", "."))
        if not parts or ".." in parts:
            continue
        children.setdefault(parts[:-1], []).append(parts[-1])
        for i in range(len(parts) - 1):  # directories holding only directories are seen too
            children.setdefault(parts[:i], [])

    def path_of(parts: tuple[str, ...]) -> str:
        return posixpath.join(root, *parts) if parts else root

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

    jobs: dict[str, FoundJob] = {}
    for directory in sorted(files_of):  # parents first, names in order: the order of `discover`
        files = files_of[directory]
        sort_files(files)
        rel = "/".join(directory)
        jobs[train_id_for(rel)] = job_of(train_id_for(rel), path_of(directory), files)
    return Discovery(jobs, [])


def _walked(directory: tuple[str, ...], profiles: set) -> bool:
    """Whether `discover` would list this directory: within MAX_DEPTH, through no hidden
    directory and no profile directory."""
    if len(directory) > MAX_DEPTH:
        return False
    for i, name in enumerate(directory):
        if directory[:i + 1] in profiles or name.startswith("."):
            return False
    return True
