"""Finding jobs under a log directory (compat §1.2, §1.3), one level deeper than MindInsight.

A job is any directory at or below LOGDIR that holds summary files (`summary.<digits>` in the
name, not ending `_lineage` or `_explain`), lineage files (`_lineage`) or graph files (`.pb`,
except `memory_usage_<n>.pb`). Ids are relative paths: `./`, `./run1`, `./exp/rank_0`.
Symlinked directories are followed, each real directory once, so links cannot loop. There is
no cap on the number of jobs; hidden directories (`.git`, ...) are skipped.
"""
from __future__ import annotations

import os
import re
from dataclasses import dataclass, field

SUMMARY_RE = re.compile(r"summary\.(\d+)")
PB_RE = re.compile(r"\.pb$")
PB_BLACKLIST_RE = re.compile(r"^memory_usage_\d+\.pb$")
MAX_DEPTH = 12


@dataclass
class FoundJob:
    train_id: str
    path: str
    summary_files: list[str] = field(default_factory=list)  # file names, read order
    lineage_files: list[str] = field(default_factory=list)
    graph_files: list[str] = field(default_factory=list)


@dataclass
class Discovery:
    jobs: dict[str, FoundJob]
    problems: list[str]  # unreadable directories and the like, one line each


def file_timestamp(name: str) -> int:
    match = SUMMARY_RE.search(name)
    return int(match.group(1)) if match else 0


def summary_sort_key(name: str) -> tuple[int, list[int]]:
    """Read order: timestamp ascending, ties by name descending (compat §3.4)."""
    return (file_timestamp(name), [-ord(c) for c in name])


def classify(name: str) -> str | None:
    """'summary', 'lineage', 'graph' or None for a file name."""
    if SUMMARY_RE.search(name):
        if name.endswith("_lineage"):
            return "lineage"
        if name.endswith("_explain"):
            return None
        return "summary"
    if PB_RE.search(name) and not PB_BLACKLIST_RE.match(name):
        return "graph"
    return None


def train_id_for(rel: str) -> str:
    return "./" if rel in ("", ".") else "./" + rel.replace(os.sep, "/")


def discover(logdir: str) -> Discovery:
    """Every job under `logdir`. Raises OSError only when `logdir` itself cannot be listed."""
    root = os.path.realpath(logdir)
    jobs: dict[str, FoundJob] = {}
    problems: list[str] = []
    visited: set[tuple[int, int]] = set()

    def walk(path: str, rel: str, depth: int) -> None:
        try:
            st = os.stat(path)
            key = (st.st_dev, st.st_ino)
            if key in visited:
                return
            visited.add(key)
            entries = list(os.scandir(path))
        except OSError as exc:
            if depth == 0:
                raise
            problems.append(f"{train_id_for(rel)}: unreadable directory ({exc.strerror or exc})")
            return
        job = FoundJob(train_id_for(rel), path)
        subdirs = []
        for entry in entries:
            try:
                if entry.is_dir():  # follows symlinks
                    if not entry.name.startswith("."):
                        subdirs.append(entry)
                    continue
                if not entry.is_file():
                    continue
            except OSError:
                continue
            kind = classify(entry.name)
            if kind:
                getattr(job, f"{kind}_files").append(entry.name)
        if job.summary_files or job.lineage_files or job.graph_files:
            job.summary_files.sort(key=summary_sort_key)
            job.lineage_files.sort(key=summary_sort_key)
            job.graph_files.sort()
            jobs[job.train_id] = job
        if depth < MAX_DEPTH:
            for entry in sorted(subdirs, key=lambda e: e.name):
                walk(entry.path, os.path.join(rel, entry.name) if rel else entry.name, depth + 1)

    walk(root, "", 0)
    return Discovery(jobs, problems)
