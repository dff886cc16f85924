"""The registry of dashboard views and `DataView`, the base class every view subclasses.

See `tui_insight/ui/__init__.py` for how a new view plugs in: create the module named in `VIEWS`
and export a `DataView` subclass as `VIEW` in it. Until then a `PlaceholderView` shows what the
cache holds for that kind of data.
"""
from __future__ import annotations

import importlib
import importlib.util
from dataclasses import dataclass
from typing import Any, ClassVar

from rich.markup import escape
from textual.app import ComposeResult
from textual.containers import VerticalScroll
from textual.widget import Widget
from textual.widgets import Static

from ..summary.cache import Changes, JobView, SummaryCache
from .palette import job_colour


@dataclass(frozen=True)
class ViewSpec:
    view_id: str  # also the binding id suffix and the DOM id ("view-<view_id>")
    title: str
    key: str  # the key that shows the view
    plugins: tuple[str, ...]  # the cache plugins it shows (for the placeholder and for export)
    scope: str  # "job": the opened or compared jobs; "all": every job (lineage)
    module: str  # where the real view lives: a module that defines `VIEW`


VIEWS: tuple[ViewSpec, ...] = (
    ViewSpec("scalars", "Scalars", "1", ("scalar",), "job", "tui_insight.ui.screens.scalars"),
    ViewSpec("histograms", "Histograms", "2", ("histogram",), "job", "tui_insight.ui.screens.histograms"),
    ViewSpec("tensors", "Tensors", "3", ("tensor",), "job", "tui_insight.ui.screens.tensors"),
    ViewSpec("images", "Images", "4", ("image",), "job", "tui_insight.ui.screens.images"),
    ViewSpec("graph", "Graph", "5", (), "job", "tui_insight.ui.screens.graph"),
    ViewSpec("lineage", "Lineage", "l", (), "all", "tui_insight.ui.screens.lineage"),
)
JOB_VIEWS = tuple(spec for spec in VIEWS if spec.scope == "job")


def spec_by_id(view_id: str) -> ViewSpec:
    for spec in VIEWS:
        if spec.view_id == view_id:
            return spec
    raise KeyError(view_id)


class DataView(Widget):
    """One view of the dashboard: the data of `train_ids` of one kind.

    Subclasses compose their widgets, react to `cache_changed` and may refine `export_scope`.
    """

    DEFAULT_CSS = """
    DataView { height: 1fr; width: 1fr; }
    """
    spec: ClassVar[ViewSpec | None] = None  # set by the dashboard when it builds the view

    def __init__(self, cache: SummaryCache, train_ids: tuple[str, ...], **kwargs: Any):
        super().__init__(**kwargs)
        self.cache = cache
        self.train_ids = tuple(train_ids)

    @property
    def jobs(self) -> list[JobView]:
        """The current snapshot of each job of the view that still exists."""
        views = self.cache.jobs
        return [views[tid] for tid in self.train_ids if tid in views]

    def job_colour(self, train_id: str) -> str:
        """The job's colour in this view: stable, the order in which the jobs were compared."""
        index = self.train_ids.index(train_id) if train_id in self.train_ids else 0
        return job_colour(index)

    def cache_changed(self, changes: Changes) -> None:
        """Called on the UI thread after the cache changed (notices coalesced). Default: nothing."""

    def export_scope(self) -> dict[str, Any]:
        """Keyword arguments for `export_snapshot` that match what the view shows."""
        spec = self.spec
        plugins = set(spec.plugins) if spec and spec.plugins else None
        return {"train_ids": list(self.train_ids), "plugins": plugins}

    def describe_export(self) -> str:
        spec = self.spec
        what = spec.title.lower() if spec else "data"
        return f"{what} of {', '.join(self.train_ids) or 'no job'}"

    def on_mount(self) -> None:
        # A view is built when it is first shown: give it the keyboard once its widgets are up.
        # (Textual also runs the subclasses' own `on_mount`.)
        self.call_after_refresh(self._first_focus)

    def _first_focus(self) -> None:
        focused = self.screen.focused
        if self.display and (focused is None or self not in focused.ancestors_with_self):
            self.focus_view()

    def focus_view(self) -> None:
        """Give the keyboard to the view (its first focusable widget)."""
        for widget in self.query("*"):
            if widget.focusable:
                widget.focus()
                return


class PlaceholderView(DataView):
    """A view whose screen is not built yet: says so, and lists what the cache holds for it."""

    DEFAULT_CSS = """
    PlaceholderView > VerticalScroll { height: 1fr; padding: 0 1; }
    """

    def compose(self) -> ComposeResult:
        with VerticalScroll(can_focus=True):
            yield Static(self._text(), id="placeholder-text")

    def on_mount(self) -> None:
        self.query_one(VerticalScroll).can_focus = True

    def cache_changed(self, changes: Changes) -> None:
        touched = changes.added | changes.removed | set(changes.updated) | changes.lineage | changes.graphs
        if self.spec and self.spec.scope == "all":
            self.train_ids = tuple(self.cache.jobs)
        if touched & set(self.train_ids) or changes.removed:
            self.query_one("#placeholder-text", Static).update(self._text())

    def _text(self) -> str:
        spec = self.spec
        title = spec.title if spec else "This view"
        lines = [f"[b]{escape(title)}[/b]: this view is not built yet. What the cache holds for it:", ""]
        jobs = self.jobs
        if not jobs:
            lines.append("  (no job loaded yet)")
        for job in jobs:
            colour = self.job_colour(job.train_id)
            lines.append(f"[{colour}]●[/] [b]{escape(job.train_id)}[/b]  [dim]{escape(job.state)}[/dim]")
            lines.extend("    " + line for line in self._job_lines(job, spec))
            lines.append("")
        return "\n".join(lines)

    @staticmethod
    def _job_lines(job: JobView, spec: ViewSpec | None) -> list[str]:
        if spec is None:
            return []
        if spec.view_id == "graph":
            if not job.graphs:
                return ["no graph"]
            return [f"{escape(tag)}  ({g.kind}, step {g.step})" for tag, g in job.graphs.items()]
        if spec.view_id == "lineage":
            lineage = job.lineage
            if lineage is None or lineage.empty:
                return ["no lineage"]
            out = []
            if lineage.train:
                out.append("train: " + escape(", ".join(f"{k}={v}" for k, v in sorted(lineage.train.items()))))
            metric = lineage.evaluation.get("metric") if lineage.evaluation else None
            if metric:
                out.append("metric: " + escape(", ".join(f"{k}={v}" for k, v in sorted(metric.items()))))
            if lineage.user_defined:
                out.append("user defined: " + escape(", ".join(sorted(lineage.user_defined))))
            if lineage.dataset_graph:
                out.append("dataset graph: yes")
            return out
        out = []
        for plugin in spec.plugins:
            tags = job.tag_names(plugin)
            if not tags:
                out.append(f"no {plugin} tags")
            for tag in tags:
                series = job.series(plugin, tag)
                n = len(series) if series is not None else 0
                last = series.last_step if series is not None else None
                out.append(f"{escape(tag)}  {n} step{'s' if n != 1 else ''}" + (f" (last {last})" if last is not None else ""))
        return out


def view_class(spec: ViewSpec) -> tuple[type[DataView], str]:
    """The class that shows `spec`, and "" or why the real view could not be loaded."""
    try:
        found = importlib.util.find_spec(spec.module)
    except (ImportError, ValueError):
        found = None
    if found is None:
        return PlaceholderView, ""
    try:
        module = importlib.import_module(spec.module)
        cls = getattr(module, "VIEW")
        if not (isinstance(cls, type) and issubclass(cls, DataView)):
            raise TypeError(f"{spec.module}.VIEW is not a DataView subclass")
        return cls, ""
    except Exception as exc:  # a broken view must not take the app down
        return PlaceholderView, f"{spec.title} view failed to load: {exc}"
