"""The loading progress line: jobs found and loaded, files and megabytes read.

LOGDIR's path can appear in it (a directory that cannot be read, a remote LOGDIR's location
first): it goes through `markup()`, so `/data/[exp]/logs` shows as written. A remote source
that lost its connection says so (`reconnecting…`), before its location, until a reload gets
through again.
"""
from __future__ import annotations

from typing import Any, Callable, Mapping

from textual.widgets import Static

from ...summary.store.cache import SummaryCache
from ...summary.store.job_view import JobView
from ..common.format import count, megabytes
from ..common.text import markup


def files_total(jobs: Mapping[str, JobView]) -> int:
    return sum(len(v.summary_files) + len(v.tensorboard_files) + len(v.lineage_files) + len(v.graph_files)
               for v in jobs.values())


def progress_text(cache: SummaryCache, reload_interval: float,
                  total_of: Callable[[Mapping[str, JobView]], int] = files_total, shown: int | None = None) -> str:
    """`shown`: how many jobs a filter leaves in the list ("1 of 15 jobs"); None: no filter."""
    source = cache.source
    if source.is_local:
        return _progress_text(cache, reload_interval, total_of, shown)
    # What went wrong first: several LOGDIRs' locations fill an 80-column line on their own.
    status = f"[b yellow]{markup(source.status)}[/] · " if source.status else ""
    return f"{status}{markup(source.location)} · {_progress_text(cache, reload_interval, total_of, shown)}"


def _progress_text(cache: SummaryCache, reload_interval: float,
                   total_of: Callable[[Mapping[str, JobView]], int], shown: int | None) -> str:
    p = cache.progress
    if cache.error:
        return f"[b red]{markup(cache.error)}[/]"
    if p.reloads == 0 or (p.loading and p.jobs_loaded < p.jobs_found):
        jobs = f"{p.jobs_loaded}/{p.jobs_found} job{'' if p.jobs_found == 1 else 's'}"
        return f"[b]loading[/b] {jobs} · {count(p.files_read, 'file')} read · {megabytes(p.bytes_read)}"
    files = count(total_of(cache.jobs), "file")
    again = f" · reload every {reload_interval:g}s" if reload_interval > 0 else ""
    problems = f" · [yellow]{count(len(cache.problems), 'problem')} in LOGDIR[/]" if cache.problems else ""
    jobs = count(p.jobs_found, "job") if shown is None else f"{shown} of {count(p.jobs_found, 'job')}"
    return f"{jobs} · {files} · {megabytes(p.bytes_read)} read{again}{problems}"


class ProgressLine(Static):
    """Refreshed by the app's timer; reads only the cache's counters. The files of every job are
    counted again only when the cache's jobs changed (a new mapping), not on every tick."""

    DEFAULT_CSS = """
    ProgressLine { height: 1; width: 1fr; padding: 0 1; }
    """

    _counted: tuple[Any, int] | None = None  # (the jobs mapping counted, its files)

    def _total(self, jobs: Mapping[str, JobView]) -> int:
        if self._counted is None or self._counted[0] is not jobs:
            self._counted = (jobs, files_total(jobs))
        return self._counted[1]

    def invalidate(self) -> None:
        """The jobs changed: count their files again at the next tick."""
        self._counted = None

    def show(self, cache: SummaryCache, reload_interval: float, shown: int | None = None) -> None:
        text = progress_text(cache, reload_interval, self._total, shown)
        if text != getattr(self, "_last", None):
            self._last = text
            self.update(text, layout=False)  # one line of fixed size: no layout of the screen
