"""The job list: every job of LOGDIR, filtered, sorted, marked for comparison, with its health.

What the list is set to (filter, order, marked jobs, the job under the cursor, the headline
metric) is one `JobListState` in one reactive; the watcher draws it and hands it to the app's
workspace (scope "app", view "jobs"), so it comes back after a restart. `self.app.marked`, which
the palette and the app read, follows the state's marks.

A badge (`summary.health`) that appears while the app runs is announced (a notification, and the
terminal bell with `--bell` for NaN and diverging), even while a dashboard covers the list: the
screen watches every change the cache reports and, at the app's clock tick, the jobs that may
stall. A run that finishes is never announced; `stalled` only where a clean close would have shown.
"""
from __future__ import annotations

import logging
import weakref
from functools import partial
from typing import TYPE_CHECKING, Any, TypeVar

from textual import on
from textual.actions import SkipAction
from textual.app import ComposeResult
from textual.binding import Binding
from textual.css.query import NoMatches
from textual.widget import Widget
from textual.reactive import reactive
from textual.screen import Screen
from textual.widgets import Input, Static

from ...summary import gc_policy
from ...summary.queries import health, ranks
from ...summary.store.job_view import STATE_MEANINGS, Changes, JobView, state_meaning
from ..common.focus import focus_now
from ..common.text import literal, markup
from ..dialogs import ListPicker
from ..loader import Loader, LoaderHost
from ..state.job_columns import BY_KEY, state_glyph
from ..state.jobs import SORT_KEYS, JobListState
from ..widgets.footer import InsightFooter
from ..widgets.job_groups import GroupRow, group_id
from ..widgets.job_table import JobTable
from ..widgets.on_demand_input import ReturningInput
from ..widgets.progress import ProgressLine
from . import dashboard_loaded, load_dashboard
from .kept import LIST_LINEAGE_REST, Ahead

log = logging.getLogger(__name__)
T = TypeVar("T", bound=Widget)

if TYPE_CHECKING:
    from ..app import InsightApp

WORKSPACE_SCOPE, WORKSPACE_VIEW = "app", "jobs"
ROWS_PER_SLICE = 1000  # rows rebuilt between two paints (a row costs ~0.03 ms)
PLACEHOLDERS_FROM = 300  # jobs found at once go in as "loading" placeholders first (cheaper than rows)
SLICE_PAUSE_SECONDS = 0.02
# The dashboard's views are imported this long after the list settled: the import holds the GIL
# for ~0.5 s, which the last rows' paint and the user's first keys would otherwise wait for.
PRELOAD_AFTER_SECONDS = 1.0
NO_JOBS = "no summary, lineage or .pb files under {dir}; MindSpore writes them with SummaryRecord/SummaryCollector"

HELP_NOTE = "\n".join([
    "[b]Marking and comparing[/b]",
    "  space marks the job under the cursor (or unmarks it) without moving the cursor:",
    "  [b]space ↓ space c[/b] compares two jobs. The marking order gives each job its colour.",
    "  On a rank group's row, space marks (or unmarks) all its ranks.",
    "",
    "[b]Headline metric[/b]  (m chooses it for every job; remembered for this LOGDIR)",
    "  By default each job's scalar tag named loss or ending in /loss, else the first",
    "  one whose name contains loss, else none. Best is the lowest value, or the highest",
    "  for names with a word acc, accuracy, f1, auc, precision or recall in them.",
    "",
    "[b]Columns[/b]  (they fit the width: the least telling go first, empty ones take no room)",
    "  ← → move the column cursor (‹header›; a column not shown comes in), s sorts by it",
    "  (again: the other way), o picks a column to sort by by name; a new order shows the top",
    "  [b]st[/b]  the state: ✓ ok, … loading, + growing, ! truncated, corrupt or unreadable",
    "       (the line under the list says the cursor job's state whole)",
    "  [b]health[/b]  badges, below",
    "  [b]st *N[/b]  the job holds N things no view shows: kinds of data (audio, mesh and",
    "             embeddings, described on M; a run's step statistics, ...) or tags over a",
    "             tag limit; its dashboard names them",
    "  [b]live[/b]  not finished (below): no close seen, a file grew within the window",
    "  [b]loss[/b] (named after the headline)  its last value; [b]best@step[/b] its best value and step",
    "  [b]trend[/b]  the headline over the kept steps: the means of ten equal slices",
    "  [b]Δ10%[/b]  the change over the last 10% of steps; [b]steps/s[/b] training speed",
    "  [b]since[/b]  while live, the time since the headline's last step",
    "  [b]files s/l/g/p[/b]  summary files / lineage files / graph (.pb) files / profiles",
    "  [b]tags s/h/t/i[/b]  scalar / histogram / tensor / image tags",
    "",
    "[b]Badges[/b]  (one appearing while the app runs is announced; --bell: NaN, diverging)",
    "  [b]      NaN[/b]  a NaN or infinite value anywhere in the headline's values",
    f"  [b]diverging[/b]  a real rise: the trend's last point back over {health.DIVERGE_SHARE:.0%} of its range",
    f"             from its best, and over {health.DIVERGE_NOISE:g}x the run's noise (never a loss at 0;",
    f"             at least {health.DIVERGE_MIN_STEPS} steps)",
    f"  [b]  stalled[/b]  stopped while it looked alive: live, no new step for {health.STALL_INTERVALS:g}x its",
    "             usual step interval and one reload interval (TensorBoard files: 2 min",
    "             more, their writers write every 2 min). Announced only for MindSpore",
    "             files read here and still open for writing (--bell-stalled rings)",
    "",
    "[b]Rank groups[/b]  (jobs under one path but for a rank_N, rank-N or device_N directory;",
    "  or jobs right under one parent whose profiles name their rank, no rank twice:",
    "  profiler_info_<N>.json, cpu_op_type_info_<N>.csv; a path's rank wins over a profile's)",
    "  One row per training: + shows its ranks below it, - hides them, enter opens its",
    "  ranks together. The row says the worst of its ranks: their badges, the mean of",
    "  their last values, the slowest rank's steps/s, the furthest step.",
    f"  [b]straggler[/b]  a rank over {ranks.STRAGGLER_FRACTION:.0%} of the median latest step behind it",
    "             (--straggler, straggler in config.toml)",
    "  [b]rank diverging[/b]  a rank whose headline trend ends worse than the other ranks'",
    f"             band by over {ranks.DIVERGE_BAND:g}x its width (at least {ranks.DIVERGE_FLOOR:.0%} of the value;",
    "             three ranks or more; a straggler is judged a straggler only)",
    "",
    "[b]Finished[/b]  (never announced; the live column is empty)",
    "  MindSpore made its summary files read-only on close (logs on this machine),",
    f"  or no file grew for {health.FINISH_INTERVALS:g} step intervals, at least {health.FINISH_FLOOR_SECONDS:g} s",
    f"  ({health.TENSORBOARD_FLUSH_SECONDS:g} s more for TensorBoard files). TensorBoard writers leave no",
    "  mark on close: such a run that stops shows stalled, unannounced, until then",
    "",
    "[b]Job states[/b]",
    *(f"  [b]{markup(f'{state:>10}')}[/b]  {markup(meaning)}" for state, meaning in STATE_MEANINGS.items()),
])


class HeadlinePicker(ListPicker):
    """`m`: the scalar tag the health columns show; dismisses with its index (0: each job's loss)."""

    HELP_GROUP = "Pick the headline metric"
    BINDINGS = [Binding("escape", "cancel", "Cancel", id="headline_picker.cancel")]

    def __init__(self, labels: list, current: int):
        super().__init__("Headline metric of every job", labels, current, "headline-picker-list")


class SortPicker(ListPicker):
    """`o`: the column the list sorts by; dismisses with its index in SORT_KEYS."""

    HELP_GROUP = "Pick the column to sort by"
    BINDINGS = [Binding("escape", "cancel", "Cancel", id="sort_picker.cancel")]

    def __init__(self, labels: list, current: int):
        super().__init__("Sort the jobs by", labels, current, "sort-picker-list")


def cursor_line(view: JobView | None) -> str:
    """The status line of the job under the cursor (markup): its whole name, its state's glyph,
    the state and what it means, and what of it no view shows."""
    if view is None:
        return ""
    state = view.state
    parts = [f"[b]{markup(view.train_id)}[/b]", f"{state_glyph(state)} {markup(state)}"]
    meaning = state_meaning(state)
    if meaning and state.split(":")[0] != "unreadable":
        parts[-1] += f": {markup(meaning)}"
    if view.not_shown:
        parts.append(f"{len(view.not_shown)} not shown (its dashboard names them)")
    return " · ".join(parts)


def group_line(group: ranks.RankGroup, rank_badges: dict[str, tuple[str, ...]], key: str,
               profiled: dict[str, int] | None = None) -> str:
    """The status line of a rank group under the cursor (markup): its name, its ranks (by the
    profiler's rank ids: said so), who lags and who diverges, the ranks whose profiles name
    another rank than their path (`profiled`: the ranks the profiles name), and the key that
    shows or hides its ranks."""
    by = " (profiler rank ids)" if group.by == "profiler" else ""
    parts = [f"[b]{markup(group.name)}[/b]", f"{len(group.members)} ranks{by}"]
    for _, number, other in ranks.disagreements(group, profiled or {}):
        parts.append(f"rank {number}'s profiler says rank {other}")
    for badge in ranks.RANK_BADGES:
        named = [f"rank {number}" for tid, number in zip(group.members, group.ranks) if badge in rank_badges.get(tid, ())]
        if named:
            parts.append(f"{badge}: {', '.join(named)}")
    parts.append(f"{key} {'hides' if key == '-' else 'shows'} them, ⏎ opens them")
    return " · ".join(parts)


class JobsScreen(LoaderHost, Screen):
    """The first screen: the table of jobs."""

    HELP_GROUP = "Job list"
    HELP_NOTE = HELP_NOTE
    DEFAULT_CSS = """
    JobsScreen #jobs-cursor { height: 1; padding: 0 1; background: $panel; }
    """
    AUTO_FOCUS = "#jobs-table"
    BINDINGS = [
        Binding("enter", "open", "Open", id="jobs.open"),
        Binding("space", "toggle_mark", "Mark", id="jobs.mark"),
        Binding("plus", "expand(1)", "Show ranks", show=False, id="jobs.expand"),
        Binding("minus", "expand(0)", "Hide ranks", show=False, id="jobs.collapse"),
        Binding("c", "compare", "Compare", id="jobs.compare"),
        Binding("slash", "filter", "Filter", id="jobs.filter"),
        Binding("s", "sort_here", "Sort", id="jobs.sort"),
        Binding("o", "choose_sort", "Order by", show=False, id="jobs.sort_pick"),
        Binding("m", "choose_headline", "Metric", id="jobs.headline"),
        Binding("S", "sort_reverse", "Reverse sort", show=False, id="jobs.sort_reverse"),
        Binding("u", "unmark_all", "Unmark all", show=False, id="jobs.unmark_all"),
        Binding("escape", "clear_filter", "Clear filter", show=False, id="jobs.clear_filter"),
    ]

    state: reactive[JobListState] = reactive(JobListState, init=False)
    _dashboard_asked = False  # `_preload_dashboard`
    _preload_timer: Any = None
    _ahead_for: tuple = ()  # the cursor's job and the marks when what to build ahead was last asked

    app: "InsightApp"

    def compose(self) -> ComposeResult:
        yield Static(self._title(), id="jobs-title", classes="screen-title")
        box = ReturningInput(placeholder="filter jobs: substring or regex (enter: done, escape: clear)", id="jobs-filter",
                    classes="filter")
        box.display = False  # until `/`
        yield box
        yield JobTable(id="jobs-table")
        yield Static("", id="jobs-cursor", classes="status-line")
        yield ProgressLine(id="progress")
        yield InsightFooter()

    def _title(self) -> str:
        return f"[b]tui-insight[/b]  [dim]{markup(self.app.logdir_label)}[/dim]"

    def on_mount(self) -> None:
        workspace = getattr(self.app, "workspace", None)
        state = JobListState.from_json(workspace.get(WORKSPACE_SCOPE, WORKSPACE_VIEW) if workspace else {})
        if self.app.marked:  # marked before this screen was built: the app's list wins
            state = state.with_marked(self.app.marked)
        self.set_reactive(JobsScreen.state, state)
        # A new step takes up to a reload interval to be seen: not "stalled" meanwhile.
        self.badges = health.BadgeWatch(health.HealthBook(seen_within=self.app.reload_interval))
        table = self.table
        table.health_book = self.badges.book  # a job's health computed once for its row and its badges
        table.straggler_fraction = self.app.straggler_fraction
        table.refresh_jobs(self.app.cache.jobs, self.app.clock())
        self.watch_state(JobListState(), state)
        if state.filter:
            box = self.query_one("#jobs-filter", Input)
            box.value = state.filter
            box.display = True
        focus_now(table)
        self.update_progress()
        # What each job's badges are now (nothing here is news), once the list is on screen.
        self.call_after_refresh(self._reset_badges)

    def _reset_badges(self) -> None:
        self.badges.reset(self.app.cache.jobs, self.state.headline, self.app.clock())
        self._badges_known = True

    def watch_state(self, old: JobListState, new: JobListState) -> None:
        """The one place that draws the state."""
        self.table.show(new, self.app.cache.jobs, self.app.clock())
        if new.headline != old.headline:
            self.badges.reset(self.app.cache.jobs, new.headline, self.app.clock())  # not news
        if list(new.marked) != self.app.marked:
            self.app.marked[:] = new.marked
        workspace = getattr(self.app, "workspace", None)
        if workspace is not None:
            workspace.remember(WORKSPACE_SCOPE, WORKSPACE_VIEW, new.to_json())
        self._show_cursor_job()

    def _show_cursor_job(self) -> None:
        """The line under the list: the cursor job's whole name and state (the list shows a
        glyph and may cut the name)."""
        line = self._child("jobs-cursor", Static)
        table = self._table_if_there()
        if line is None or table is None:
            return
        tid = table.current_job
        group = table.current_group
        if group is not None:
            text = group_line(group, table.rank_badges, "-" if group.name in self.state.expanded else "+",
                              table.profile_ranks)
        else:
            text = self._cursor_line(self.app.cache.jobs.get(tid) if tid is not None else None)
        if text != getattr(line, "_said", None):
            line._said = text  # type: ignore[attr-defined]
            line.update(text, layout=False)
        if (tid, self.state.marked) != self._ahead_for:
            self._ahead_for = (tid, self.state.marked)
            self._want_ahead()

    _cursor_of: Any = None  # weakref to the view the cursor line was made from, and that line
    _cursor_text = ""

    def _cursor_line(self, view: JobView | None) -> str:
        """`cursor_line(view)`, made again only for another view (views are frozen; a change of
        the job publishes a new one): the clock asks at every tick. The view is known
        weakly, as the rows know theirs: it may hold the job's series."""
        if view is None:
            return ""
        if self._cursor_of is None or self._cursor_of() is not view:
            self._cursor_of, self._cursor_text = weakref.ref(view), cursor_line(view)
        return self._cursor_text

    def _want_ahead(self) -> None:
        """Once the keys rested, what `enter`, `c` and `l` would open is built off screen (`KeptScreens`)."""
        self.app.kept_dashboards.want_ahead(self._ahead_wanted)

    def _ahead_wanted(self) -> list[Ahead]:
        """The marked jobs (two or more, read), then the cursor's job (found and read, not a rank
        group), then the lineage screen; while the job list is shown, settled, and the dashboard's
        module imported (not waited for), once the user pressed a key."""
        table = self._table_if_there()
        if (table is None or self.app.screen is not self or not self._settled() or not dashboard_loaded()
                or not self.app.keys_seen):  # left alone (an idle minute measured): nothing ahead
            return []
        wanted = []
        marked = self.state.compare(self.app.cache.jobs)
        if len(marked) > 1 and all(self.app.cache.jobs[t].loaded for t in marked):  # `c` next, likely
            wanted.append(Ahead("compare", marked, partial(load_dashboard().DashboardScreen, marked)))
        tid = table.current_job
        job = self.app.cache.jobs.get(tid) if tid is not None and table.current_group is None else None
        if job is not None and job.loaded:  # (its series, if evicted, are read back for the hold)
            wanted.append(Ahead("cursor", (job.train_id,), partial(load_dashboard().DashboardScreen, (job.train_id,))))
        return wanted + self.app.lineage_ahead(LIST_LINEAGE_REST)

    @property
    def table(self) -> JobTable:
        return self.query_one(JobTable)

    # -- from the app ---------------------------------------------------------------------

    def _table_if_there(self) -> JobTable | None:
        return self._child("jobs-table", JobTable)  # none yet while composing, none left at teardown

    def _child(self, id: str, kind: type[T]) -> T | None:
        """A widget of this screen by id, or None (an id lookup: these run several times a second,
        and a query walks the whole screen)."""
        try:
            return self.get_child_by_id(id, kind)
        except NoMatches:
            return None

    _missed: Changes | None = None  # changes that came while another screen covered this one
    badges: health.BadgeWatch

    def __init__(self, *args: Any, **kwargs: Any):
        super().__init__(*args, **kwargs)
        self.badges = health.BadgeWatch()
        self._badges_known = False  # the badges at the start, not news (`_reset_badges`)
        self._backlog = set()

    def covered(self) -> bool:
        """Another screen with an opaque background is above this one: nothing here is seen, so
        changes wait (a repaint here would repaint the screen above, charts and all)."""
        stack = self.app.screen_stack
        if self not in stack:
            return False
        return any(screen.styles.background.a == 1 for screen in stack[stack.index(self) + 1:])

    def on_screen_resume(self) -> None:
        missed, self._missed = self._missed, None
        if missed is not None:
            self.cache_changed(missed)
        if self.app.marked != list(self.state.marked):  # marked elsewhere (the lineage view's space)
            self.state = self.state.with_marked(self.app.marked)
        self.tick()
        self.update_progress()

    def cache_changed(self, changes: Changes) -> None:
        table = self._table_if_there()
        if table is None:
            return
        views = self.app.cache.jobs
        self._announce(self.badges.update(views, changes.jobs(), self.state.headline, self.app.clock()))
        if self.covered():
            if self._missed is None:
                self._missed = Changes()
            self._missed.merge(changes)
            return
        if changes.removed:
            self.state = self.state.without(changes.removed)
        elif self.app.marked != list(self.state.marked):  # the app dropped marks of jobs that went
            self.state = self.state.with_marked(self.app.marked)
        # The cache names every job whose first load ends (`Changes.updated`): the rows still
        # "loading" (thousands in a cold sweep) are not looked at at each hand-over.
        touched = changes.added | set(changes.updated) | changes.lineage | changes.graphs
        views = self.app.cache.jobs
        if len(views) != len(table.rows_by_id) or changes.added:
            touched |= {tid for tid in views if tid not in table.rows_by_id}
        self._backlog |= touched
        self._rebuild_rows()
        self._invalidate_progress()

    _backlog: set[str]  # jobs whose rows are still to be rebuilt (`_rebuild_rows`)
    _rebuild_queued = False

    def _rebuild_rows(self) -> None:
        """Rebuild the rows of the backlog, the visible ones first, at most ROWS_PER_SLICE at a
        time with a paint between slices: thousands of jobs restored at once from the disk cache
        never hold the screen for seconds (the rows on screen fill in first). Hundreds of jobs
        found at once first go in together as "loading" placeholders (`add_placeholders`)."""
        table = self._table_if_there()
        if table is None or not self._backlog:
            return
        backlog = self._backlog
        views = self.app.cache.jobs
        # (a set's difference with the dict itself: `set - dict.keys()` copies every key, 5,000 a hand-over)
        new = backlog.difference(table.rows_by_id)
        if len(new) > PLACEHOLDERS_FROM:  # hundreds found at once: all in the list now, filled in below
            backlog -= new
            backlog |= table.add_placeholders(views, self.app.clock(), new)
        visible = [tid for tid in table.visible_ids() if tid in backlog]
        # Then by id: the cache reads jobs by id too, and a table still being filled shows the first ids.
        batch = visible + sorted(backlog.difference(visible))[:max(0, ROWS_PER_SLICE - len(visible))]
        backlog.difference_update(batch)
        table.refresh_jobs(views, self.app.clock(), batch)
        if backlog and not self._rebuild_queued:
            self._rebuild_queued = True
            self.set_timer(SLICE_PAUSE_SECONDS, self._rebuild_rest, name="job-rows")

    def _rebuild_rest(self) -> None:
        self._rebuild_queued = False
        self._rebuild_rows()
        if not self._backlog:
            self._preload_dashboard()

    def watch_the_clock(self) -> None:
        """At the app's clock tick, also under a dashboard: a live job may have stalled. Not
        before the badges that were there at the start are known (none is news)."""
        if not self._badges_known:
            return
        self._announce(self.badges.tick(self.app.cache.jobs, self.state.headline, self.app.clock()))

    def clock_due(self) -> float | None:
        """When (on the app's clock) the clock's tick next has something to do here: a live job
        may stall (a badge), and while the list is seen, a visible row's clock cells or a row's
        place may change. Now while the list is not settled (rows to build, the dashboard's
        preload not asked yet: `update_progress` asks it). None: the clock alone changes nothing."""
        now = self.app.clock()
        if self._backlog or not self._dashboard_asked or not self._badges_known:
            return now
        due = [self.badges.next_deadline()]
        table = self._table_if_there()
        if table is not None and not self.covered():
            due.append(table.next_change())
        return min((t for t in due if t is not None), default=None)

    def _announce(self, news: list) -> None:
        """A notification per job that gained a badge; the terminal bell when one of them is a
        badge it rings for (`--bell`: NaN and diverging; `--bell-stalled`: stalled too)."""
        now = self.app.clock()
        for job, new in news:
            severe = any(b in health.FAILING for b in new)
            self.app.notify(markup(health.notice(job, new, now)), title="Run health",
                            severity="error" if severe else "warning", timeout=10)
        if any(b in self.app.bell_on_badges for _, new in news for b in new):
            self.app.bell()

    def _invalidate_progress(self) -> None:
        line = self._child("progress", ProgressLine)
        if line is not None:
            line.invalidate()

    def tick(self) -> None:
        """The app's clock tick (`clock_due`): relative times and live markers move on."""
        table = self._table_if_there()
        if table is not None:
            table.refresh_times(self.app.clock())

    def update_progress(self) -> None:
        self._preload_dashboard()
        if self.covered():
            return
        line = self._child("progress", ProgressLine)  # none yet while composing, none left at teardown
        table = self._table_if_there()
        if line is not None:
            shown = table.row_count if table is not None and self.state.filter else None
            line.show(self.app.cache, self.app.reload_interval, shown)
        if table is not None:
            table.set_empty_text(self.empty_text())
        self._show_cursor_job()

    @property
    def dashboard_preloaded(self) -> bool:
        """The dashboard's views were asked for in the background (`_preload_dashboard`)."""
        return self._dashboard_asked

    def _settled(self) -> bool:
        """The first load is done and every row built from it."""
        progress = self.app.cache.progress
        table = self._table_if_there()
        return (not progress.loading and progress.reloads > 0 and not self._backlog
                and table is not None and not table.loading_ids)

    def _preload_dashboard(self) -> None:
        """PRELOAD_AFTER_SECONDS after the list settled (not before: the import holds the GIL,
        which the load, the rows and their paint would wait for), import the dashboard's views
        in the background, so that opening the first job does not wait for them."""
        if self._dashboard_asked or self._preload_timer is not None or not self._settled():
            return
        self._preload_timer = self.set_timer(PRELOAD_AFTER_SECONDS, self._preload_now, name="dashboard-preload")

    def _preload_now(self) -> None:
        self._preload_timer = None
        if self._dashboard_asked or not self._settled():
            return  # (asked again once settled: `update_progress` runs at every tick until then)
        self._dashboard_asked = True
        Loader(self, "dashboard").request("dashboard", load_dashboard, self._dashboard_imported)

    def _dashboard_imported(self, loaded: object) -> None:
        # The first load's rows are built and the dashboard's modules imported: the full pass they
        # made due runs at the next idle tick (and what survives it stays out of later passes),
        # not in the idle minute after (`gc_policy.look_after_load`).
        gc_policy.look_after_load()
        self._want_ahead()

    def empty_text(self) -> str:
        """What the table says while it has no job: loading, LOGDIR unreadable, or empty."""
        cache = self.app.cache
        if cache.error:
            return cache.error
        if cache.progress.reloads == 0 and (cache.progress.loading or self.app.start_loading):
            return "looking for jobs…"
        return NO_JOBS.format(dir=self.app.logdir_label)

    # -- actions ----------------------------------------------------------------------------

    @on(JobTable.Opened)
    def _row_opened(self, event: JobTable.Opened) -> None:
        event.stop()
        self._open(event.train_id)

    def _open(self, row_id: str) -> None:
        """A job's dashboard; a rank group's: its ranks together."""
        group = self.table.row(row_id) if row_id in self.table.group_rows else None
        if isinstance(group, GroupRow):
            ids = tuple(t for t in group.group.members if t in self.app.cache.jobs)
            self.app.open_jobs(ids)
        else:
            self.app.open_jobs((row_id,))

    def action_expand(self, on: int) -> None:
        """`+`/`-`: show or hide the ranks of the group under the cursor (on one of its ranks:
        `-` hides them and the cursor goes to the group's row)."""
        table = self.table
        group = table.current_group
        tid = table.current_job
        if group is None and tid is not None and tid in table.member_of:
            group = table.member_of[tid]
        if group is None:
            self.notify("No rank group here: + and - show and hide a group's ranks", severity="warning")
            return
        state = self.state.expand(group.name, bool(on))
        self.state = state if on else state.with_cursor(group_id(group))

    @on(JobTable.VisibleChanged)
    def _visible_changed(self, event: JobTable.VisibleChanged) -> None:
        """Ask the cache to read what the user sees first: the visible rows, then the filter's
        matches still loading (a hint; a cache without `prioritize` ignores it)."""
        event.stop()
        prioritize = getattr(self.app.cache, "prioritize", None)
        if prioritize is None:
            return
        ids = list(event.train_ids)
        table = self._table_if_there()
        if self.state.filter and table is not None:
            shown = set(ids)
            ids += [tid for tid in table.job_ids if tid in table.loading_ids and tid not in shown]
        try:
            prioritize(ids)
        except Exception:  # a hint: loading goes on in its own order
            log.exception("the cache's prioritize failed")

    @on(JobTable.SortChosen)
    def _sort_chosen(self, event: JobTable.SortChosen) -> None:
        event.stop()
        self.state = self.state.sort_by(event.column, event.reverse)

    @on(JobTable.ColumnChosen)
    def _column_chosen(self, event: JobTable.ColumnChosen) -> None:
        event.stop()
        self.state = self.state.with_column(event.column)

    @on(JobTable.CursorMoved)
    def _cursor_moved(self, event: JobTable.CursorMoved) -> None:
        event.stop()
        self.state = self.state.with_cursor(event.train_id)
        self._show_cursor_job()

    def action_open(self) -> None:
        tid = self.table.current_job
        if tid is None:
            self.notify("No job to open yet", severity="warning")
            return
        self._open(tid)

    def action_toggle_mark(self) -> None:
        """Mark (or unmark) the job under the cursor; the cursor stays (`space ↓ space c`)."""
        tid = self.table.current_job
        group = self.table.current_group
        if group is not None and tid is not None:  # a group's row: its ranks, together
            self.state = self.state.toggle_marks(group.members).with_cursor(tid)
        elif tid is not None:
            self.state = self.state.toggle_mark(tid).with_cursor(tid)

    def action_unmark_all(self) -> None:
        self.state = self.state.unmark_all()

    def action_compare(self) -> None:
        marked = self.state.compare(self.app.cache.jobs)
        if not marked:
            self.notify("Mark jobs with space first, then press c to compare them", severity="warning")
            return
        self.app.open_jobs(marked)

    def action_filter(self) -> None:
        box = self.query_one("#jobs-filter", ReturningInput)
        box.display = True
        box.open()

    def action_clear_filter(self) -> None:
        box = self.query_one("#jobs-filter", Input)
        if not box.display and not self.state.filter:
            raise SkipAction()
        box.value = ""
        box.display = False
        self.state = self.state.with_filter("")
        focus_now(self.table)

    def action_sort_here(self) -> None:
        """`s`: sort by the column under the column cursor (again: the other way). The table's
        cursor column, not the state's: keys typed ahead (`→ → s`) reach this binding before the
        table's `ColumnChosen` messages reach the state."""
        self.state = self.state.with_column(self.table.state.cursor_column).sort_here()

    def action_choose_sort(self) -> None:
        """`o`: pick the column to sort by, by name (type-ahead)."""
        labels = [literal(f"{self.table.header(key):<16} {BY_KEY[key].about}") for key in SORT_KEYS]
        current = SORT_KEYS.index(self.state.sort_key) if self.state.sort_key in SORT_KEYS else 0
        self.app.push_screen(SortPicker(labels, current), self._sort_picked)

    def _sort_picked(self, index: int | None) -> None:
        if index is not None and 0 <= index < len(SORT_KEYS):
            key = SORT_KEYS[index]
            self.state = self.state.sort_by(key, None if key != self.state.sort_key else self.state.reverse)

    def action_sort_reverse(self) -> None:
        self.state = self.state.sort_reverse()

    def action_choose_headline(self) -> None:
        """`m`: pick the headline metric among every scalar tag of every job."""
        tags = sorted({tag for view in self.app.cache.jobs.values() for tag in view.digests})
        if not tags:
            self.notify("No scalar tag yet to choose from", severity="warning")
            return
        labels = [literal("each job's loss (the default)", "italic"), *(literal(tag) for tag in tags)]
        chosen = self.state.headline
        current = tags.index(chosen) + 1 if chosen in tags else 0
        self.app.push_screen(HeadlinePicker(labels, current), lambda index: self._headline_picked(tags, index))

    def _headline_picked(self, tags: list[str], index: int | None) -> None:
        if index is None or not 0 <= index <= len(tags):
            return
        self.state = self.state.with_headline(tags[index - 1] if index else None)

    @on(Input.Changed, "#jobs-filter")
    def _filter_changed(self, event: Input.Changed) -> None:
        self.state = self.state.with_filter(event.value)

    @on(Input.Submitted, "#jobs-filter")
    def _filter_done(self, event: Input.Submitted) -> None:
        if not event.value:
            event.input.display = False
        focus_now(self.table)

    def export_scope(self) -> tuple[dict[str, Any], str]:
        """`e` here exports the marked jobs, or every job the filter shows."""
        ids = list(self.state.compare(self.app.cache.jobs)) or self.table.job_ids
        what = "marked jobs" if self.state.marked else ("filtered jobs" if self.state.filter else "all jobs")
        return {"train_ids": ids}, f"{what} ({len(ids)})"
