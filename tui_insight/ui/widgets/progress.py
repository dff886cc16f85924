"""The loading progress line: jobs found and loaded, files and megabytes read.

LOGDIR's path can appear in it (a directory that cannot be read): it goes through `markup()`,
so `/data/[exp]/logs` shows as written.
"""
from __future__ import annotations

from textual.widgets import Static

from ...summary.cache import SummaryCache
from ..common.format import megabytes
from ..common.text import markup


def progress_text(cache: SummaryCache, reload_interval: float) -> str:
    p = cache.progress
    if cache.error:
        return f"[b red]{markup(cache.error)}[/]"
    files = f"{p.files_read} file{'s' if p.files_read != 1 else ''}"
    if p.reloads == 0 or (p.loading and p.jobs_loaded < p.jobs_found):
        return f"[b]loading[/b] {p.jobs_loaded}/{p.jobs_found} jobs · {files} read · {megabytes(p.bytes_read)}"
    total = sum(len(v.summary_files) + len(v.lineage_files) + len(v.graph_files) for v in cache.jobs.values())
    files = f"{total} file{'s' if total != 1 else ''}"
    again = f" · reload every {reload_interval:g}s" if reload_interval > 0 else ""
    problems = f" · [yellow]{len(cache.problems)} problem(s) in LOGDIR[/]" if cache.problems else ""
    return f"{p.jobs_found} jobs · {files} · {megabytes(p.bytes_read)} read{again}{problems}"


class ProgressLine(Static):
    """Refreshed by the app's timer; reads only the cache's counters."""

    DEFAULT_CSS = """
    ProgressLine { height: 1; padding: 0 1; }
    """

    def show(self, cache: SummaryCache, reload_interval: float) -> None:
        text = progress_text(cache, reload_interval)
        if text != getattr(self, "_last", None):
            self._last = text
            self.update(text)
