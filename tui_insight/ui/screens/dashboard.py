"""The dashboard of one job, or of the marked jobs compared: one view per kind of data.

Opening a job costs only the first view; the others are built hidden once the dashboard has
been shown for a moment (`graph_prefetch_delay`) and the keys pause, one at a time
(`build_views_ahead`), or when first shown if that comes first. Each is built with what the
workspace remembered for it. The graph view of a job that has a graph comes first
(`prefetch_graph`): a big graph takes about a second to build and `5` should show it at once.
`ViewScreen` hosts a view of every job (lineage).

The app keeps the last few dashboards (`screens.kept`): opened again, one is shown as it was
left (its view, its settings, its widgets), with the changes that came meanwhile.

A comparison shows the runs its `RunsState` lets through: `R` opens the run panel (space or a
digit shows/hides a run, `/` filters by name), `D` the lineage columns where the shown runs
differ. Views draw only the shown runs (`DataView.show_jobs`, or built again), keep each run's
colour, and keep their settings under the whole comparison's name.

Under the title, one line names what the jobs hold that no view shows (`JobView.not_shown`:
PR curves, audio, embeddings, tags over the tag limits); `?` lists each job's notes whole.
"""
from __future__ import annotations

from typing import TYPE_CHECKING, Any

from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal
from textual.widgets import ContentSwitcher, Static, Tab, Tabs

from ...summary.queries import ranks
from ...summary.queries.lineage_diff import lineage_rows
from ...summary.store.job_view import Changes
from .._textual_compat import StyledOnceScreen, lay_out_hidden, paint_hidden, underline_active_tab
from ..common.focus import focus_now
from ..common.names import apart
from ..common.palette import job_colour
from ..common.text import markup
from ..state.runs import RunsState
from ..views.base import DataView, ViewSpec, workspace_scope
from ..views.graph import GraphView
from ..views.profiler import ProfilerView
from ..views.registry import JOB_VIEWS, spec_by_id, view_class
from ..widgets.footer import InsightFooter
from ..widgets.lineage_diff import LineageDiff
from ..widgets.run_picker import RunPicker

if TYPE_CHECKING:
    from ..app import InsightApp

# A compared run's name in the title keeps at least this many cells, however many runs share it.
MIN_TITLE_NAME = 6
# Views are built ahead (`build_views_ahead`) once the keys paused this long, one per gap.
VIEWS_AHEAD_IDLE = 0.3
VIEWS_AHEAD_GAP = 0.1
# Layouts of a view built hidden before it is painted: a grid shapes itself on its first Resize,
# then mounts its charts, which draw on theirs.
HIDDEN_LAYOUTS = 8
HIDDEN_WAIT, HIDDEN_WAITS = 0.025, 40  # how often, and how many times, one still mounting is looked at


def build_view(spec: ViewSpec, cache, train_ids: tuple[str, ...], app, tag_filter: str = "",
               shown: tuple[str, ...] | None = None) -> DataView:
    """The view of `spec` over `train_ids` (drawing only `shown` of them, when given), with what
    the app's workspace remembered for it.

    `tag_filter` (from `--tags`) replaces the remembered tag list's filter and shows every tag
    it lets through. Views keep their tag list under "tags" (`TagSelection.to_json`).
    """
    workspace = getattr(app, "workspace", None)
    saved = workspace.get(workspace_scope(train_ids, spec.scope), spec.view_id) if workspace else {}
    if tag_filter:
        saved = {**saved, "tags": {"filter": tag_filter, "deselected": []}}
    if shown is None:
        return view_class(spec.view_id)(cache, train_ids, saved=saved)
    return view_class(spec.view_id)(cache, shown, saved=saved, compared=train_ids)


def jobs_title(train_ids: tuple[str, ...], views, shown: tuple[str, ...] | None = None,
               width: int | None = None) -> str:
    """The job and its state, or the compared runs in their colours (those hidden: ○, dim),
    under the group's name when they are the ranks of one training (`./exp/rank_* · 4 ranks`).

    In `width` cells a comparison's names are kept apart (`names.apart`: a shared start dropped,
    cut in the middle), each given an equal share and at least `MIN_TITLE_NAME` cells."""
    if len(train_ids) == 1:
        tid = train_ids[0]
        state = views[tid].state if tid in views else "gone"
        return f"[b]{markup(tid)}[/b]  [dim]{markup(state)}[/dim]"
    # The ranks of one training: named as the group.
    group = ranks.one_group(train_ids, ranks.profile_ranks(views[tid] for tid in train_ids if tid in views))
    lead = f"{group.name} · {len(train_ids)} ranks  " if group is not None else f"compare {len(train_ids)}  "
    names = list(train_ids)
    if width is not None:
        share = (width - len(lead) - 4 * len(train_ids)) // len(train_ids)
        names = apart(names, max(MIN_TITLE_NAME, share))
    parts = [f"[{job_colour(i)}]●[/] {markup(name)}" if shown is None or tid in shown
             else f"[{job_colour(i)}]○[/] [dim]{markup(name)}[/dim]"
             for i, (tid, name) in enumerate(zip(train_ids, names))]
    return f"[b]{markup(lead.strip())}[/b]  " + "  ".join(parts)


def not_shown_line(train_ids: tuple[str, ...], views, shown: tuple[str, ...] | None = None) -> str:
    """"not shown: pr_curves 2 tags · 20 tags over the 300 limit" (markup) for one job; for a
    comparison, each shown run's, by name; "" when nothing is left unshown."""
    holding = [(tid, views[tid].not_shown) for tid in train_ids
               if tid in views and views[tid].not_shown and (shown is None or tid in shown)]
    if not holding:
        return ""
    if len(train_ids) == 1:
        what = markup(holding[0][1].brief())
    else:
        what = "; ".join(f"{markup(tid)} {markup(unshown.brief())}" for tid, unshown in holding)
    described = sorted({kind for _, unshown in holding for kind in unshown.described()})
    where = f"{spec_by_id('described').key} describes {', '.join(described)} · " if described else ""
    return f"[b]not shown:[/b] {what}  [dim]({where}? lists them)[/dim]"


def not_shown_note(train_ids: tuple[str, ...], views) -> str:
    """The `?` help's section: each job's notes (`JobView.problems`) whole."""
    lines = []
    for tid in train_ids:
        problems = views[tid].problems if tid in views else ()
        if problems:
            lines += [f"  [b]{markup(tid)}[/b]", *(f"    {markup(problem)}" for problem in problems)]
    if not lines:
        return ""
    return "\n".join(["[b]Not shown, and what could not be read[/b]  (the line under the title)", *lines])


class DashboardScreen(StyledOnceScreen):
    HELP_GROUP = "Dashboard"
    # The view decides (`focus_view`), so keys never land in a filter box by accident; "" and not
    # None (the app's "*"): the first view is composed with the screen, and its tag list would
    # take the keys before the view chose.
    AUTO_FOCUS = ""
    BINDINGS = [
        *(Binding(spec.key, f"show_view('{spec.view_id}')", spec.title, id=f"dashboard.{spec.view_id}")
          for spec in JOB_VIEWS),
        Binding("R", "toggle_runs", "Runs", id="dashboard.runs"),
        Binding("D", "toggle_diff", "Lineage diff", id="dashboard.diff"),
    ]
    DEFAULT_CSS = """
    DashboardScreen #dashboard-body { height: 1fr; }
    DashboardScreen #dashboard-not-shown { height: 1; padding: 0 1; color: $warning; text-wrap: nowrap;
                                           text-overflow: ellipsis; }
    DashboardScreen #views { width: 1fr; }
    DashboardScreen #run-tags, DashboardScreen LineageDiff, DashboardScreen #dashboard-no-run { display: none; }
    DashboardScreen.-runs #run-tags, DashboardScreen.-diff LineageDiff { display: block; }
    DashboardScreen.-no-run #views { display: none; }
    DashboardScreen.-no-run #dashboard-no-run { display: block; width: 1fr; height: 1fr; content-align: center middle; }
    """

    app: "InsightApp"

    def __init__(self, train_ids: tuple[str, ...], initial: str | None = None, tag_filter: str = "",
                 **kwargs: Any):
        super().__init__(**kwargs)
        self.train_ids = tuple(train_ids)
        self.initial = initial or ""  # "": the first view with something to show (`opening_view`)
        self.tag_filter = tag_filter  # for the initial view only (`--tags`)
        self.current = ""
        self._prefetch_is_due = False  # the delay after opening has passed (see prefetch_graph)
        self._prefetch_timed = False  # that delay has started (when first shown)
        self._ahead_paused = False  # views were being built ahead when the dashboard was left
        self.runs = RunsState.of(self.train_ids)  # read from the workspace in compose (the app is known there)
        self._shown = self.train_ids  # the runs the views draw now
        self._syncing = self._sync_again = False  # views being built again for other runs (_sync_views)
        self._holding = False  # its jobs are held in the cache (while on the screen stack)
        self._hidden_tabs: frozenset[str] = frozenset()  # the views whose tabs are hidden (all shown when composed)

    @property
    def comparing(self) -> bool:
        return len(self.train_ids) > 1

    def compose(self) -> ComposeResult:
        # Held before the first view is built below: it reads the jobs' series as it composes.
        self.app.cache.hold(self, self.train_ids)  # their series stay in memory while shown
        self._holding = True
        workspace = getattr(self.app, "workspace", None)
        if self.comparing and workspace is not None:
            self.runs = RunsState.of(self.train_ids, workspace.get(workspace_scope(self.train_ids), "dashboard"))
        self._shown = self.runs.visible() or self.train_ids
        self.initial = self.initial or opening_view([job for tid in self.train_ids
                                                     if (job := self.app.cache.jobs.get(tid)) is not None])
        yield Static(self._title(), id="dashboard-title", classes="screen-title")
        not_shown = Static(self._not_shown(), id="dashboard-not-shown")
        not_shown.display = bool(not_shown.content)
        yield not_shown
        # Created on the initial view: Tabs announce their first activation after mount, which
        # would otherwise switch back to the first view.
        yield Tabs(*(Tab(f"{spec.key} {spec.title}", id=f"tab-{spec.view_id}") for spec in JOB_VIEWS),
                   active=f"tab-{self.initial}", id="view-tabs")
        with Horizontal(id="dashboard-body"):
            # The first view is composed with the screen, so the first frame shows it (mounted
            # after the screen, it came one layout and paint later); the others at their first visit.
            with ContentSwitcher(id="views", initial=f"view-{self.initial}"):
                yield build_view(spec_by_id(self.initial), self.app.cache, self.train_ids, self.app,
                                 self.tag_filter, self._shown)
            yield Static("", id="dashboard-no-run")
            if self.comparing:
                yield RunPicker()
        if self.comparing:
            yield LineageDiff(id="dashboard-diff")
        yield InsightFooter()

    def on_mount(self) -> None:
        self.query_one(Tabs).can_focus = False
        self._show_runs(None, self.runs)
        self.show_view(self.initial)
        if self.is_current:
            self._prefetch_later()  # (built ahead off screen: once it is shown)

    def _prefetch_later(self) -> None:
        delay = self.app.graph_prefetch_delay
        if delay is not None and not self._prefetch_timed:
            self._prefetch_timed = True
            # After the first view has painted and settled: the build holds the GIL for a while.
            self.set_timer(delay, self._prefetch_due)

    def on_unmount(self) -> None:
        self.app.cache.release(self)

    def on_screen_suspend(self) -> None:
        """Popped (kept by the app to be shown again, `screens.kept`): its jobs' series may be
        evicted meanwhile like any job's; held again when it comes back, they are read again
        then if they were (the cache publishes them, the views redraw)."""
        if self not in self.app.screen_stack:
            self._holding = False
            self.app.cache.release(self)

    def on_screen_resume(self) -> None:
        self.app.kept_dashboards.want_ahead(self._ahead_wanted)  # `l` next, maybe
        self._prefetch_later()
        if self._ahead_paused:
            self.build_views_ahead()
        if not self._holding:
            self._holding = True
            self.app.cache.hold(self, self.train_ids)
            self.on_resize()  # the terminal may have changed size while it was away

    def _ahead_wanted(self) -> list:
        """What to build ahead while this dashboard is shown: the lineage screen."""
        return self.app.lineage_ahead() if self.app.screen is self else []

    def _prefetch_due(self) -> None:
        self._prefetch_is_due = True
        self.prefetch_graph()
        self.build_views_ahead()

    def build_views_ahead(self) -> None:
        """Build the next view with data that is not built yet, hidden, so its first visit only
        shows it; then, `VIEWS_AHEAD_GAP` later, the next. Only while the dashboard is shown and
        the keys paused for `VIEWS_AHEAD_IDLE` (a build holds the keys ~50-100 ms); a dashboard
        shown again goes on where it stopped."""
        if not self.is_attached or not self.is_current:
            self._ahead_paused = True
            return
        self._ahead_paused = False
        idle = self.app.idle_seconds()
        if idle < VIEWS_AHEAD_IDLE:
            self.set_timer(VIEWS_AHEAD_IDLE - idle, self.build_views_ahead)
            return
        switchers = self.query_children("#dashboard-body").first().query_children(ContentSwitcher)
        built = {view.id for view in self._views()}
        # The graph view of a job with a model graph is prefetch_graph's; one that shows only a
        # dataset graph (a MindSpore run's lineage) is built here in its turn.
        prefetched = self._has_model_graph()
        spec = next((spec for spec in JOB_VIEWS if f"view-{spec.view_id}" not in built
                     and not (spec.view_id == "graph" and prefetched) and self._has_data(spec.view_id)), None)
        if spec is None or not switchers:
            return
        view = build_view(spec, self.app.cache, self.train_ids, self.app, shown=self._shown)
        switchers.first().add_content(view)
        self.call_after_refresh(self._settle_hidden, view, HIDDEN_LAYOUTS)
        self.set_timer(VIEWS_AHEAD_GAP, self.build_views_ahead)

    def _settle_hidden(self, view: DataView, layouts: int, waits: int = HIDDEN_WAITS) -> None:
        """One step of making a view built hidden ready to show: laid out where the views are
        (`lay_out_hidden`) while that changes something, at most `layouts` times, each once its
        widgets handled what the last one started and its loader delivered (decoded images
        change the layout); then painted (`paint_hidden`), so its first visit only shows it.
        Waits at most `waits` times `HIDDEN_WAIT` in all (a graph still building is painted as
        it is). Stops once the view is shown (the screen lays it out) or gone."""
        if not self.is_attached or (view.is_attached and view.display):
            return
        switcher = view.parent
        if not (view.is_mounted and isinstance(switcher, ContentSwitcher) and switcher.content_size):
            if waits:  # still mounting
                self.set_timer(HIDDEN_WAIT, lambda: self._settle_hidden(view, layouts, waits - 1))
            return
        busy = view.loader.pending() or any(node.message_queue_size for node in view.walk_children(with_self=True))
        if busy and waits:
            self.set_timer(HIDDEN_WAIT, lambda: self._settle_hidden(view, layouts, waits - 1))
            return
        if layouts and lay_out_hidden(view, switcher.content_region):
            self.call_after_refresh(self._settle_hidden, view, layouts - 1, waits)
            return
        paint_hidden(view)

    def prefetch_graph(self) -> None:
        """Mount the graph view hidden, so the graph builds before the user asks for it.

        Only when one of the jobs has a graph (checked again when the cache reports graphs),
        once per dashboard. MindInsight builds every job's graph when it loads the job; this
        builds one, for the job the user opened.
        """
        switchers = self.query(ContentSwitcher)  # none left while the dashboard is taken down
        if not self._prefetch_is_due or not switchers or self._view("graph") is not None:
            return
        if not self._has_model_graph():
            return
        view = build_view(spec_by_id("graph"), self.app.cache, self.train_ids, self.app, shown=self._shown)
        switchers.first().add_content(view)  # hidden until `5`
        self.call_after_refresh(self._settle_hidden, view, HIDDEN_LAYOUTS)

    def _has_model_graph(self) -> bool:
        jobs = self.app.cache.jobs
        return any(jobs[tid].graphs for tid in self.train_ids if tid in jobs)

    @property
    def active_view(self) -> DataView | None:
        return self._view(self.current) if self.current else None

    def _view(self, view_id: str) -> DataView | None:
        """The view `view_id` if it is built (a look among the switcher's children: a query of
        `#view-...` walked every widget of every view built)."""
        return next((view for view in self._views() if view.id == f"view-{view_id}"), None)

    def show_view(self, view_id: str) -> None:
        switcher = self.query_one(ContentSwitcher)
        if self._view(view_id) is None:
            tag_filter = self.tag_filter if view_id == self.initial else ""
            switcher.mount(build_view(spec_by_id(view_id), self.app.cache, self.train_ids, self.app, tag_filter,
                                      self._shown))
        self.current = view_id
        switcher.current = f"view-{view_id}"
        tabs = self.query_one(Tabs)
        tabs.active = f"tab-{view_id}"
        underline_active_tab(tabs)  # in this frame (Textual moves it one frame later)
        self._show_tabs()  # a view shown by name and left loses its tab if it has no data
        # A view built just now takes the keyboard itself once its widgets are ready
        # (DataView.ready_for_keys); one built before takes it now.
        view = self.active_view
        if view is not None:
            view.focus_view()

    def action_show_view(self, view_id: str) -> None:
        self.show_view(view_id)

    def _has_data(self, view_id: str) -> bool:
        """Whether a job of the dashboard has data for the view (`DataView.has_data`)."""
        jobs = self.app.cache.jobs
        return any(view_class(view_id).has_data(jobs[tid]) for tid in self.train_ids if tid in jobs)

    def _show_tabs(self) -> None:
        """Hide the tabs of views none of the jobs has data for (the one shown stays: `--view`
        asked for it, and the view says why it is empty); they come back when data arrives."""
        tabs = self.query_one(Tabs)
        hidden = frozenset(spec.view_id for spec in JOB_VIEWS
                           if spec.view_id != self.current and not self._has_data(spec.view_id))
        # Only the tabs that change: each show or hide posts a message and moves the underline.
        for spec in JOB_VIEWS:
            if spec.view_id in hidden and spec.view_id not in self._hidden_tabs:
                tabs.hide(f"tab-{spec.view_id}")
            elif spec.view_id not in hidden and spec.view_id in self._hidden_tabs:
                tabs.show(f"tab-{spec.view_id}")
        self._hidden_tabs = hidden
        self.refresh_bindings()

    def on_profiler_view_show_node(self, message: ProfilerView.ShowNode) -> None:
        """The profiler's `g` on an op: the op's node in the graph view, if the job has a graph."""
        message.stop()
        job = self.app.cache.job(message.train_id)
        if job is None or not job.graphs:
            self.notify(markup(f"{message.train_id} has no graph to show {message.node} in"), severity="warning")
            return
        self.show_view("graph")
        view = self.active_view
        if isinstance(view, GraphView):
            view.show_node(message.node)

    def on_tabs_tab_activated(self, event: Tabs.TabActivated) -> None:
        event.stop()
        if event.tab is None or event.tab.id != self.query_one(Tabs).active:
            return  # a stale notice: the tabs moved on since
        view_id = str(event.tab.id).removeprefix("tab-")
        if view_id and view_id != self.current:
            self.show_view(view_id)

    def cache_changed(self, changes: Changes) -> None:
        mine = set(self.train_ids)
        if changes.removed & mine:
            self.notify(markup(f"{', '.join(sorted(changes.removed & mine))} disappeared from LOGDIR"),
                        severity="warning")
        if changes.jobs() & mine:
            self._show_title()
            self._show_tabs()
        for view in self._views():
            view.deliver_changes(changes)
        if changes.graphs & mine:
            self.prefetch_graph()  # a job that was still loading when the dashboard opened
        if self.runs.diff and (changes.lineage | changes.added | changes.removed) & mine:
            self._show_diff()

    def on_resize(self) -> None:
        if self.comparing:
            self.query_one(RunPicker).set_class(self.app.size.width < 100, "-narrow")
            self._show_title()

    def _views(self) -> list[DataView]:
        """The views built so far: the switcher's children, not a walk through every widget of every view."""
        return [view for body in self.query_children("#dashboard-body")
                for switcher in body.query_children(ContentSwitcher) for view in switcher.query_children(DataView)]

    def _title(self) -> str:
        return jobs_title(self.train_ids, self.app.cache.jobs, self.runs.visible() if self.comparing else None,
                          width=self.app.size.width - 2)

    def _not_shown(self) -> str:
        return not_shown_line(self.train_ids, self.app.cache.jobs, self.runs.visible() if self.comparing else None)

    def _show_title(self) -> None:
        titles = self.query_children("#dashboard-title")  # none before the screen is composed
        if titles:
            title = self._title()
            if titles.first(Static).content != title:  # an update lays the screen out again
                titles.first(Static).update(title)
            line = self.query_one("#dashboard-not-shown", Static)
            text = self._not_shown()
            if line.content != text:
                line.update(text)
                line.display = bool(text)

    def help_note(self) -> str:
        """`?`'s note: the active view's, then what the jobs hold that no view shows."""
        view = self.active_view
        parts = [getattr(view, "HELP_NOTE", "") if view is not None else "",
                 not_shown_note(self.train_ids, self.app.cache.jobs)]
        return "\n\n".join(part for part in parts if part)

    # -- the runs of a comparison ---------------------------------------------------------------

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action in ("toggle_runs", "toggle_diff"):
            return self.comparing  # one job: nothing to pick or compare
        if action == "show_view" and parameters:  # a hidden tab's key does nothing, and is not in the footer
            return parameters[0] == self.current or self._has_data(str(parameters[0]))
        return True

    def action_toggle_runs(self) -> None:
        self.set_runs(self.runs.toggle_panel())
        if self.runs.panel:
            self.query_one(RunPicker).focus_list()
        else:
            self._focus_view()

    def action_toggle_diff(self) -> None:
        self.set_runs(self.runs.toggle_diff())

    def on_tag_picker_changed(self, event: RunPicker.Changed) -> None:
        if not isinstance(event.picker, RunPicker):
            return  # a view's tag list
        event.stop()
        self.set_runs(self.runs.with_runs(event.selection))

    def on_run_picker_closed(self, event: RunPicker.Closed) -> None:
        event.stop()
        self.action_toggle_runs()

    def set_runs(self, runs: RunsState) -> None:
        """Show what `runs` says (panels, title, which runs the views draw) and remember it."""
        old, self.runs = self.runs, runs
        if runs != old:
            self._show_runs(old, runs)
            workspace = getattr(self.app, "workspace", None)
            if workspace is not None:
                workspace.remember(workspace_scope(self.train_ids), "dashboard", runs.to_json())

    def _show_runs(self, old: RunsState | None, new: RunsState) -> None:
        if not self.comparing:
            return
        self.set_class(new.panel, "-runs")
        self.set_class(new.diff, "-diff")
        self.query_one(RunPicker).show(new.runs)
        visible = new.visible()
        self.set_class(not visible, "-no-run")
        self.query_one("#dashboard-no-run", Static).update(markup(new.describe()))
        if old is None or old.visible() != visible:
            self._show_title()
            if new.diff:
                self._show_diff()
            if visible and visible != self._shown:
                self._shown = visible
                self.call_later(self._sync_views)
        elif new.diff and not old.diff:
            self._show_diff()

    async def _sync_views(self) -> None:
        """Views draw the shown runs: in place when they can, else they are built again (the
        one showing now at once, the others when shown). Toggles that come meanwhile join in."""
        if self._syncing:
            self._sync_again = True
            return
        self._syncing = True
        try:
            while True:
                self._sync_again = False
                shown = self._shown
                stale = [view for view in self._views() if not view.show_jobs(shown)]
                for view in stale:
                    await view.remove()
                if not self.is_attached:
                    return  # the dashboard was closed meanwhile
                if self.current and self._view(self.current) is None:
                    self.show_view(self.current)
                if not self._sync_again:
                    break
        finally:
            self._syncing = False

    def _show_diff(self) -> None:
        jobs = self.app.cache.jobs
        visible = self.runs.visible()
        rows = lineage_rows(jobs, visible)
        with_lineage = {row.summary_dir for row in rows}
        colours = {tid: job_colour(i) for i, tid in enumerate(self.train_ids)}
        self.query_one(LineageDiff).show(rows, colours, [tid for tid in visible if tid not in with_lineage])

    def _focus_view(self) -> None:
        view = self.active_view
        if view is not None and self.runs.visible():
            view.focus_view()
        elif self.comparing and self.runs.panel:
            focus_now(self.query_one(RunPicker).listing)

    def export_scope(self) -> tuple[dict[str, Any], str]:
        view = self.active_view
        if view is None:
            return {"train_ids": list(self.train_ids)}, ", ".join(self.train_ids)
        return view.export_scope(), view.describe_export()


class ViewScreen(StyledOnceScreen):
    """A view over every job (lineage, `l`)."""

    HELP_GROUP = "Lineage"
    AUTO_FOCUS = None

    app: "InsightApp"

    def __init__(self, view_id: str, **kwargs: Any):
        super().__init__(**kwargs)
        self.spec = spec_by_id(view_id)

    def compose(self) -> ComposeResult:
        yield Static(f"[b]{markup(self.spec.title)}[/b]  [dim]all jobs[/dim]", classes="screen-title")
        yield build_view(self.spec, self.app.cache, tuple(self.app.cache.jobs), self.app)
        yield InsightFooter()

    def on_screen_resume(self) -> None:
        """Shown again (kept from a visit or built ahead, `screens.kept`): jobs may have been
        marked or unmarked meanwhile."""
        self.query_one(DataView).marks_changed()

    def cache_changed(self, changes: Changes) -> None:
        view = self.query_one(DataView)
        if changes.added or changes.removed:
            view.train_ids = tuple(self.app.cache.jobs)
        view.deliver_changes(changes)

    def export_scope(self) -> tuple[dict[str, Any], str]:
        view = self.query_one(DataView)
        return view.export_scope(), view.describe_export()


def opening_view(jobs: list) -> str:
    """The view a dashboard opens on: Scalars, unless the jobs (all read) have no scalar; then the
    first view that has something of theirs (a profile-only job opens on its profile)."""
    if not jobs or not all(job.ready for job in jobs):
        return "scalars"
    for spec in JOB_VIEWS:
        if _has_content(spec, jobs):
            return spec.view_id
    return "scalars"


def _has_content(spec: ViewSpec, jobs: list) -> bool:
    """Whether a view would show something of `jobs` (not only say there is nothing)."""
    if spec.plugins:
        return any(job.tag_count(plugin) > 0 for job in jobs for plugin in spec.plugins)
    if spec.view_id == "graph":
        return any(job.graphs or (job.lineage is not None and job.lineage.dataset_graph) for job in jobs)
    return any(view_class(spec.view_id).has_data(job) for job in jobs)
