"""The full poll's table: every file of the jobs that had nothing to do, flat, so a poll with
nothing changed is one loop of stat-and-compare over all files, with no per-job work.

A job is settled when its loader found no file changed (`JobLoader.settled`: the job as found,
each file's path and (ino, size, mtime_ns, ctime_ns)). The table is made from the settled records
of one discovery's jobs (equal `FoundJob`s: the same files). A loader whose record goes (a
refresh; a new loader) names its job in the shared `unsettled` set; those jobs, the ones not
settled when the table was made, and those with a file whose stat differs are left for the
cache's one-by-one check. The table is made again when more than a few jobs were left (they
have settled since) or the jobs changed.

Dormant files (unchanged for DORMANT_SECONDS when the table was made: finished runs, most of a
sweep) are checked in turn by the background poll (its `turn`, counted by the caller so that a
table made again goes on where the last one was): a tenth of them at each poll, so each is still
checked at every DORMANT_TURNS-th poll (TensorBoard stops polling files inactive for a day; here
they are only checked less often). Change notices, where they work, still report a dormant file at
once. An explicit full reload (no turn) checks every file.
"""
from __future__ import annotations

import os
import time
from collections.abc import Callable, Mapping, Sequence
from typing import Generic, Protocol, TypeVar

REMAKE_SHARE = 8  # more than 1/8 of the jobs left by a pass: the next pass makes the table again
DORMANT_SECONDS = 600.0
DORMANT_TURNS = 10

Row = TypeVar("Row", bound=tuple)
Job = TypeVar("Job")  # what a job is to the caller (a discovered `FoundJob`)


class Rotation(Generic[Row]):
    """Rows (stamps of files or directories, the path first) split into the ones to check at
    every poll and the dormant ones, checked a DORMANT_TURNS-th at a time: a row's turn comes
    from its path, so rows made again (a table remade as runs come and go) keep their turns."""

    def __init__(self, rows: Sequence[Row], mtime_ns_at: int, now: float | None = None,
                 always: Callable[[Row], bool] | None = None):
        cutoff = int(((time.time() if now is None else now) - DORMANT_SECONDS) * 1e9)
        self.hot: list[Row] = []
        self.dormant: list[list[Row]] = [[] for _ in range(DORMANT_TURNS)]  # by turn
        for row in rows:
            if row[mtime_ns_at] >= cutoff or (always is not None and always(row)):
                self.hot.append(row)
            else:
                self.dormant[hash(row[0]) % DORMANT_TURNS].append(row)  # (str hashes: stable within a process)

    def to_check(self, turn: int | None) -> Sequence[Row]:
        """The rows to check at the background poll numbered `turn`: the hot ones and the
        dormant ones of its turn; all of them when `turn` is None."""
        if turn is None:
            return [row for rows in (self.hot, *self.dormant) for row in rows]
        return self.hot + self.dormant[turn % DORMANT_TURNS]


class Settled(Protocol):
    """A job loader as the table sees it: what it last settled, `(job, file rows)` or None."""
    settled: tuple | None


class PollTable:
    def __init__(self, jobs: Mapping[str, object], loaders: Mapping[str, Settled], unsettled: set[str]):
        self.jobs = dict(jobs)  # what it was made for
        self.unsettled = unsettled  # shared with the loaders: records gone since it was made
        unsettled.clear()  # the records read below are current
        rows: list[tuple] = []  # (path, ino, size, mtime_ns, ctime_ns, train_id): only numbers, no objects to visit
        self.not_settled: list[str] = []
        for train_id, item in jobs.items():
            settled = loaders[train_id].settled
            if settled is not None and settled[0] == item:  # equal: the same files (a remote listing makes new objects)
                rows += [(*entry, train_id) for entry in settled[1]]
            else:
                self.not_settled.append(train_id)
        self.rows = Rotation(rows, mtime_ns_at=3)
        self.stale = False  # too many jobs left by the last pass: make it again

    def fits(self, jobs: Mapping[str, object]) -> bool:
        """Made for these jobs (equal: the same files), and not stale."""
        return not self.stale and jobs == self.jobs  # values compared by identity first: C speed

    def left(self, jobs: Mapping[str, Job], stat: Callable[[str], os.stat_result],
             turn: int | None = None) -> dict[str, Job]:
        """Those of `jobs` (which it `fits`) whose files may have changed, or not known settled;
        at a background poll's `turn`, only the dormant files of that turn are looked at."""
        left = {train_id: jobs[train_id] for train_id in self.not_settled}
        left.update((train_id, jobs[train_id]) for train_id in self.unsettled if train_id in jobs)
        for path, ino, size, mtime_ns, ctime_ns, train_id in self.rows.to_check(turn):
            try:
                st = stat(path)
            except OSError:
                left[train_id] = jobs[train_id]
                continue
            if st.st_mtime_ns != mtime_ns or st.st_size != size or st.st_ctime_ns != ctime_ns or st.st_ino != ino:
                left[train_id] = jobs[train_id]
        self.stale = len(left) * REMAKE_SHARE > len(jobs)
        return left
