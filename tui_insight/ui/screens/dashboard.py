"""The dashboard of one job, or of the marked jobs compared: one view per kind of data.

Views are built the first time they are shown (`views.registry`), so opening a job costs
only the first view. Each is built with what the workspace remembered for it. One exception: the graph view of a job that has a graph is built, hidden,
shortly after the dashboard opens (`prefetch_graph`), because a big graph takes about a second
to build and `5` should show it at once. `ViewScreen` hosts a view of every job (lineage).
"""
from __future__ import annotations

from typing import TYPE_CHECKING, Any

from textual.app import ComposeResult
from textual.binding import Binding
from textual.screen import Screen
from textual.widgets import ContentSwitcher, Static, Tab, Tabs

from ...summary.cache import Changes
from ..common.palette import job_colour
from ..common.text import markup
from ..views.base import DataView, ViewSpec, workspace_scope
from ..views.graph import GraphView
from ..views.profiler import ProfilerView
from ..views.registry import JOB_VIEWS, spec_by_id, view_class
from ..widgets.footer import InsightFooter

if TYPE_CHECKING:
    from ..app import InsightApp


def build_view(spec: ViewSpec, cache, train_ids: tuple[str, ...], app, tag_filter: str = "") -> DataView:
    """The view of `spec` over `train_ids`, with what the app's workspace remembered for it.

    `tag_filter` (from `--tags`) replaces the remembered tag list's filter and shows every tag
    it lets through. Views keep their tag list under "tags" (`TagSelection.to_json`).
    """
    workspace = getattr(app, "workspace", None)
    saved = workspace.get(workspace_scope(train_ids, spec.scope), spec.view_id) if workspace else {}
    if tag_filter:
        saved = {**saved, "tags": {"filter": tag_filter, "deselected": []}}
    return view_class(spec.view_id)(cache, train_ids, saved=saved)


def jobs_title(train_ids: tuple[str, ...], views) -> str:
    if len(train_ids) == 1:
        tid = train_ids[0]
        state = views[tid].state if tid in views else "gone"
        return f"[b]{markup(tid)}[/b]  [dim]{markup(state)}[/dim]"
    parts = [f"[{job_colour(i)}]●[/] {markup(tid)}" for i, tid in enumerate(train_ids)]
    return f"[b]compare {len(train_ids)}[/b]  " + "  ".join(parts)


class DashboardScreen(Screen):
    HELP_GROUP = "Dashboard"
    AUTO_FOCUS = None  # the view decides (`focus_view`), so keys never land in a filter box by accident
    BINDINGS = [
        Binding(spec.key, f"show_view('{spec.view_id}')", spec.title, id=f"dashboard.{spec.view_id}")
        for spec in JOB_VIEWS
    ]

    app: "InsightApp"

    def __init__(self, train_ids: tuple[str, ...], initial: str = "scalars", tag_filter: str = "", **kwargs: Any):
        super().__init__(**kwargs)
        self.train_ids = tuple(train_ids)
        self.initial = initial
        self.tag_filter = tag_filter  # for the initial view only (`--tags`)
        self.current = ""
        self._prefetch_is_due = False  # the delay after opening has passed (see prefetch_graph)

    def compose(self) -> ComposeResult:
        yield Static(jobs_title(self.train_ids, self.app.cache.jobs), id="dashboard-title", classes="screen-title")
        # Created on the initial view: Tabs announce their first activation after mount, which
        # would otherwise switch back to the first view.
        yield Tabs(*(Tab(f"{spec.key} {spec.title}", id=f"tab-{spec.view_id}") for spec in JOB_VIEWS),
                   active=f"tab-{self.initial}", id="view-tabs")
        yield ContentSwitcher(id="views")
        yield InsightFooter()

    def on_mount(self) -> None:
        self.query_one(Tabs).can_focus = False
        self.show_view(self.initial)
        delay = self.app.graph_prefetch_delay
        if delay is not None:
            # After the first view has painted and settled: the build holds the GIL for a while.
            self.set_timer(delay, self._prefetch_due)

    def _prefetch_due(self) -> None:
        self._prefetch_is_due = True
        self.prefetch_graph()

    def prefetch_graph(self) -> None:
        """Mount the graph view hidden, so the graph builds before the user asks for it.

        Only when one of the jobs has a graph (checked again when the cache reports graphs),
        once per dashboard. MindInsight builds every job's graph when it loads the job; this
        builds one, for the job the user opened.
        """
        switchers = self.query(ContentSwitcher)  # none left while the dashboard is taken down
        if not self._prefetch_is_due or not switchers or self.query("#view-graph"):
            return
        jobs = self.app.cache.jobs
        if not any(jobs[tid].graphs for tid in self.train_ids if tid in jobs):
            return
        view = build_view(spec_by_id("graph"), self.app.cache, self.train_ids, self.app)
        switchers.first().add_content(view)  # hidden until `5`

    @property
    def active_view(self) -> DataView | None:
        if not self.current:
            return None
        found = self.query(f"#view-{self.current}")
        return found.first() if found else None  # type: ignore[return-value]

    def show_view(self, view_id: str) -> None:
        switcher = self.query_one(ContentSwitcher)
        if not self.query(f"#view-{view_id}"):
            tag_filter = self.tag_filter if view_id == self.initial else ""
            switcher.mount(build_view(spec_by_id(view_id), self.app.cache, self.train_ids, self.app, tag_filter))
        self.current = view_id
        switcher.current = f"view-{view_id}"
        self.query_one(Tabs).active = f"tab-{view_id}"
        # A view built just now takes the keyboard itself once its widgets are ready
        # (DataView.ready_for_keys); one built before takes it now.
        view = self.active_view
        if view is not None:
            view.focus_view()

    def action_show_view(self, view_id: str) -> None:
        self.show_view(view_id)

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
        titles = self.query_children("#dashboard-title")  # none before the screen is composed
        if titles and (set(changes.updated) | changes.added | changes.removed) & mine:
            title = jobs_title(self.train_ids, self.app.cache.jobs)
            if titles.first(Static).content != title:  # an update lays the screen out again
                titles.first(Static).update(title)
        # The views are the switcher's children: not a walk through every widget of every view.
        for view in [v for switcher in self.query_children(ContentSwitcher) for v in switcher.query_children(DataView)]:
            view.deliver_changes(changes)
        if changes.graphs & mine:
            self.prefetch_graph()  # a job that was still loading when the dashboard opened

    def export_scope(self) -> tuple[dict[str, Any], str]:
        view = self.active_view
        if view is None:
            return {"train_ids": list(self.train_ids)}, ", ".join(self.train_ids)
        return view.export_scope(), view.describe_export()


class ViewScreen(Screen):
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

    def cache_changed(self, changes: Changes) -> None:
        view = self.query_one(DataView)
        if changes.added or changes.removed:
            view.train_ids = tuple(self.app.cache.jobs)
        view.deliver_changes(changes)

    def export_scope(self) -> tuple[dict[str, Any], str]:
        view = self.query_one(DataView)
        return view.export_scope(), view.describe_export()
