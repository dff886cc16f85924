"""The profiler across ranks (`c` in the profiler view): when the job list holds several ranks of
one training (`rank_N`/`device_N` directories under one parent, or sibling jobs whose profiles
carry different rank ids), a table of each rank's step time and slowest op type, then every op
type's time on each rank with the spread between the fastest and the slowest rank.

Reading goes through the view's loader (the data layer reads the files); the table is text built
by pure functions here from `queries.profiler_cluster.Cluster`.
"""
from __future__ import annotations

import math
from functools import partial

from rich.text import Text
from textual.containers import ScrollableContainer
from textual.widgets import Static

from ...summary.formats import profiler as data
from ...summary.formats.profiler import ProfileRef
from ...summary.queries import profiler_cluster as query
from ...summary.queries.profiler_cluster import Cluster
from ..common.text import literal
from ..loader import Loaded, LoadProblem

NO_STEPS = ("no steps could be told on every rank (CPU profiles carry no step markers): "
            "ranks are compared by their total op time")
STEPS_NOTE = "step ms: mean wall time of steps 2.. (step 1 compiles, shown apart)"


def read_cluster(cache, train_id: str) -> Cluster:
    """The cluster of the ranks `train_id` belongs to (runs in the loader's thread)."""
    jobs = {tid: job.path for tid, job in cache.jobs.items() if job.profile_dirs or tid == train_id}
    refs: list[tuple[str, ProfileRef]] = []
    for tid in query.rank_jobs(jobs, train_id):
        job = cache.job(tid)
        if job is not None:
            refs += [(tid, ref) for ref in data.find_profiles(job.path, cache.source)]
    chosen = query.rank_refs(refs)
    if not chosen:
        raise LoadProblem("no cluster: the job list holds one rank's profile only "
                          "(ranks are rank_N/device_N directories under one parent)")
    return query.cluster([(rank, tid, data.load_profile(ref, shapes=False, timeline=False))
                          for rank, tid, ref in chosen])


def _ms(value: float, width: int = 9) -> str:
    return f"{'—' if value != value else f'{value:.3f}':>{width}}"


def cluster_text(result: Cluster) -> Text:
    """The whole table as text: ranks, then op types by spread."""
    out = Text()
    out.append("Across ranks", style="bold reverse")
    out.append("  c: back to this rank's profile\n", style="dim")
    n = len(result.ranks)
    measure = "step" if result.by_steps else "total op"
    out.append(f"{n} ranks · compared by {measure} time · spread {_ms(result.spread_ms, 0)} ms\n", style="bold")
    out.append(f"slowest first: rank {', '.join(map(str, result.slowest))}\n")
    out.append((STEPS_NOTE if result.by_steps else NO_STEPS) + "\n\n", style="dim")
    slow = result.slowest[0] if result.slowest else None
    out.append(f"{'rank':>4}  {'job':<16} {'steps':>5} {'step ms':>9} {'step 1 ms':>9} {'total ms':>9}  slowest op\n",
               style="bold")
    for r in result.ranks:
        line = (f"{r.rank:>4}  {r.train_id[:16]:<16} {r.steps:>5} {_ms(r.step_ms)} {_ms(r.first_step_ms)}"
                f" {_ms(r.total_ms)}  {r.slowest_op}")
        out.append(line + (" ◀ slowest" if r.rank == slow and n > 1 else "") + "\n",
                   style="bold yellow" if r.rank == slow else "")
    out.append("\nop type ms per rank, largest spread first\n", style="bold")
    out.append(f"{'op type':<18}" + "".join(f"{'rank ' + str(r.rank):>8}" for r in result.ranks)
               + f" {'spread':>9} {'slow':>4} {'fast':>4}\n", style="bold")
    for t in result.types:
        cells = []
        for value, r in zip(t.times_ms, result.ranks):
            cells.append((_ms(value, 8), "bold" if r.rank == t.slowest_rank and t.spread_ms > 0 else ""))
        out.append(f"{t.op_type[:18]:<18}")
        for cell, style in cells:
            out.append(cell, style=style)
        share = "" if math.isnan(t.spread_share) else f" ({t.spread_share:.0%})"
        out.append(f" {_ms(t.spread_ms)} {t.slowest_rank:>4} {t.fastest_rank:>4}{share}\n")
    return out


class ClusterPanel(ScrollableContainer, can_focus=True):
    """The cluster table, read on first show for the view's current job."""

    HELP_GROUP = "Profiler"
    DEFAULT_CSS = """
    ClusterPanel { height: 1fr; padding: 0 1; display: none; }
    ClusterPanel Static { width: auto; }
    """

    def __init__(self, **kwargs) -> None:
        super().__init__(**kwargs)
        self.result: Cluster | None = None
        self.error = ""
        self._for = ""

    def compose(self):
        yield Static("", id="profiler-cluster-table")

    def show_for(self, cache, loader, train_id: str) -> None:
        """Read the cluster of `train_id` unless it is read already."""
        if self._for == train_id and (self.result is not None or self.error):
            return
        self._for, self.result, self.error = train_id, None, ""
        self._draw()
        loader.request("cluster", partial(read_cluster, cache, train_id), partial(self._read, train_id))

    def _read(self, train_id: str, result: Loaded) -> None:
        if train_id != self._for:
            return
        self.result = result.value if result.ok else None
        self.error = "" if result.ok else result.error
        self._draw()

    def _draw(self) -> None:
        if not self.is_mounted:
            return
        table = self.query_one("#profiler-cluster-table", Static)
        if self.result is not None:
            table.update(cluster_text(self.result))
        else:
            table.update(literal(self.error or "reading every rank's profile…"))
