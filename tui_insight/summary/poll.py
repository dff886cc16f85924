"""The full poll's table: every file of the jobs that had nothing to do, flat, so a poll with
nothing changed is one loop of stat-and-compare over all files, with no per-job work.

A job is settled when its loader found no file changed (`_JobLoader.settled`: the job as found,
each file's path and (ino, size, mtime_ns, ctime_ns)). The table is made from the settled records
of one discovery's jobs (equal `FoundJob`s: the same files). A loader whose record goes (a
refresh; a new loader) names its job in the shared `unsettled` set; those jobs, the ones not
settled when the table was made, and those with a file whose stat differs are left for the
cache's one-by-one check. The table is made again when more than a few jobs were left (they
have settled since) or the jobs changed.
"""
from __future__ import annotations

from collections.abc import Callable, Mapping

REMAKE_SHARE = 8  # more than 1/8 of the jobs left by a pass: the next pass makes the table again


class PollTable:
    def __init__(self, jobs: Mapping[str, object], loaders: Mapping[str, object], unsettled: set[str]):
        self.jobs = dict(jobs)  # what it was made for
        self.unsettled = unsettled  # shared with the loaders: records gone since it was made
        unsettled.clear()  # the records read below are current
        self.rows: list[tuple] = []  # (path, ino, size, mtime_ns, ctime_ns, train_id): only numbers, no objects to visit
        self.not_settled: list[str] = []
        for train_id, item in jobs.items():
            settled = loaders[train_id].settled
            if settled is not None and settled[0] == item:  # equal: the same files (a remote listing makes new objects)
                self.rows += [(*entry, train_id) for entry in settled[1]]
            else:
                self.not_settled.append(train_id)
        self.stale = False  # too many jobs left by the last pass: make it again

    def fits(self, jobs: Mapping[str, object]) -> bool:
        """Made for these jobs (equal: the same files), and not stale."""
        return not self.stale and jobs == self.jobs  # values compared by identity first: C speed

    def left(self, jobs: Mapping[str, object], stat: Callable[[str], object]) -> dict[str, object]:
        """Those of `jobs` (which it `fits`) whose files may have changed, or not known settled."""
        left = {train_id: jobs[train_id] for train_id in self.not_settled}
        left.update((train_id, jobs[train_id]) for train_id in self.unsettled if train_id in jobs)
        for path, ino, size, mtime_ns, ctime_ns, train_id in self.rows:
            try:
                st = stat(path)
            except OSError:
                left[train_id] = jobs[train_id]
                continue
            if st.st_mtime_ns != mtime_ns or st.st_size != size or st.st_ctime_ns != ctime_ns or st.st_ino != ino:
                left[train_id] = jobs[train_id]
        self.stale = len(left) * REMAKE_SHARE > len(jobs)
        return left
