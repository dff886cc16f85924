"""The full poll's table: every file of the jobs that had nothing to do, flat, so a poll with
nothing changed is one loop of stat-and-compare over all files (no per-job work).

A job is settled when its loader found no file changed (`_JobLoader.settled`: the job as found,
each file's path and (ino, size, mtime_ns, ctime_ns)). A row stays good while its loader holds
that same settled record (any refresh drops it) and the file's stat matches; a job whose row is
not good is left for the cache's one-by-one check. Made for one discovery's jobs (the same
`FoundJob` objects: the same files); made again when more than a few jobs were left (they have
settled since) or the jobs changed.
"""
from __future__ import annotations

from typing import Callable, Mapping

REMAKE_SHARE = 8  # more than 1/8 of the jobs left by a pass: the next pass makes the table again


class PollTable:
    def __init__(self, jobs: Mapping[str, object], loaders: Mapping[str, object]):
        self.jobs = dict(jobs)  # what it was made for: compared by identity of each job
        self.rows: list[tuple] = []  # (path, ino, size, mtime_ns, ctime_ns, train_id, loader, settled)
        self.unsettled: list[str] = []  # jobs with no rows: left to the one-by-one check
        for train_id, item in jobs.items():
            loader = loaders[train_id]
            settled = loader.settled
            if settled is not None and settled[0] is item:
                self.rows += [(*entry, train_id, loader, settled) for entry in settled[1]]
            else:
                self.unsettled.append(train_id)
        self.stale = False  # too many jobs left by the last pass: make it again

    def fits(self, jobs: Mapping[str, object]) -> bool:
        """Made for these jobs (equal: the same files), and not stale."""
        return not self.stale and jobs == self.jobs  # values compared by identity first: C speed

    def left(self, jobs: Mapping[str, object], stat: Callable[[str], object]) -> dict[str, object]:
        """Those of `jobs` (which it `fits`) whose files may have changed, or not known settled."""
        left = {train_id: jobs[train_id] for train_id in self.unsettled}
        for path, ino, size, mtime_ns, ctime_ns, train_id, loader, settled in self.rows:
            if loader.settled is not settled:
                left[train_id] = jobs[train_id]
                continue
            try:
                st = stat(path)
            except OSError:
                left[train_id] = jobs[train_id]
                continue
            if st.st_mtime_ns != mtime_ns or st.st_size != size or st.st_ctime_ns != ctime_ns or st.st_ino != ino:
                left[train_id] = jobs[train_id]
        self.stale = len(left) * REMAKE_SHARE > len(jobs)
        return left
