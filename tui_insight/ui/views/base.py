"""`DataView`, the base class of every dashboard view, and `ViewSpec`, what the registry says of one.

A view is a thin widget over an immutable state object (`tui_insight.ui.state`):

- it is built with what the workspace remembered for it (`saved`, a dict) and turns that into
  its state with `XState.from_json(saved)`;
- user actions compute a new state with a pure transition and assign it to the view's one
  reactive (`self.state = self.state.smooth_more()`); the watcher redraws from the state and
  calls `self.remember(state)`, which hands `state.to_json()` to the workspace;
- slow work (decodes, builds) goes through `self.loader` (`ui/loader.py`), whose results come
  back on the UI thread; a failure is a sentence shown where the picture would be;
- the view takes the keyboard itself when its widgets are ready (`ready_for_keys`), so a key
  pressed right after opening never reaches a widget that is not composed yet.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, ClassVar

from textual.widget import Widget

from ...summary.store.cache import SummaryCache
from ...summary.store.job_view import Changes, JobView
from ..common.focus import focus_now
from ..common.palette import job_colour
from ..loader import Loader, LoaderHost


@dataclass(frozen=True)
class ViewSpec:
    view_id: str  # also the binding id suffix and the DOM id ("view-<view_id>")
    title: str
    key: str  # the key that shows the view
    plugins: tuple[str, ...]  # the cache plugins it shows (for export)
    scope: str  # "job": the opened or compared jobs; "all": every job (lineage)


def workspace_scope(train_ids: tuple[str, ...], scope: str = "job") -> str:
    """How the workspace names the jobs a view shows: "./a", "./a,./b" compared, "*" for all."""
    return "*" if scope == "all" else ",".join(train_ids)


class DataView(LoaderHost, Widget):
    """One view of the dashboard: the data of `train_ids` of one kind.

    Subclasses set `SPEC`, compose their widgets, react to `cache_changed` and may refine
    `export_scope`.
    """

    DEFAULT_CSS = """
    DataView { height: 1fr; width: 1fr; }
    """
    SPEC: ClassVar[ViewSpec]

    def __init__(self, cache: SummaryCache, train_ids: tuple[str, ...], *,
                 saved: dict[str, Any] | None = None, compared: tuple[str, ...] = (), **kwargs: Any):
        kwargs.setdefault("id", f"view-{self.SPEC.view_id}")
        super().__init__(**kwargs)
        self.cache = cache
        self.train_ids = tuple(train_ids)
        self._compared = tuple(compared)  # every run of the comparison, also those hidden (see `compared`)
        self.saved: dict[str, Any] = dict(saved or {})  # what the workspace remembered
        self.loader = Loader(self, self.SPEC.view_id)
        self._keys_ready = False
        self._missed = Changes()  # cache changes that came before the view was ready
        self._given: Widget | None = None  # what `focus_view` last gave the keyboard

    @property
    def spec(self) -> ViewSpec:
        return self.SPEC

    @property
    def compared(self) -> tuple[str, ...]:
        """Every job of the dashboard, also those it hides (`train_ids` are those it shows): they
        fix each job's colour and where the workspace keeps the view's settings."""
        return self._compared or self.train_ids

    @property
    def comparing(self) -> bool:
        """Runs are compared (even when the dashboard shows only one of them now): job names
        stay in titles and legends, colours stay each job's own."""
        return len(self.compared) > 1

    @classmethod
    def has_data(cls, job: JobView) -> bool:
        """Whether `job` has anything for this view. The dashboard hides the tab (and key) of a
        view that none of its jobs has data for, unless asked for it by name (`--view`)."""
        return True

    def show_jobs(self, train_ids: tuple[str, ...]) -> bool:
        """Show only `train_ids` (some of `compared`). False: the view cannot, build it again."""
        return False

    @property
    def jobs(self) -> list[JobView]:
        """The current snapshot of each job of the view that still exists."""
        views = self.cache.jobs
        return [views[tid] for tid in self.train_ids if tid in views]

    def job_colour(self, train_id: str) -> str:
        """The job's colour in this view: stable, the order in which the jobs were compared."""
        index = self.compared.index(train_id) if train_id in self.compared else 0
        return job_colour(index)

    # -- the workspace --------------------------------------------------------------------------

    @property
    def workspace_scope(self) -> str:
        return workspace_scope(self.compared, self.SPEC.scope)

    def remember(self, state: Any) -> None:
        """Hand the state's remembered part to the app's workspace (if the app keeps one)."""
        workspace = getattr(self.app, "workspace", None)
        if workspace is not None:
            workspace.remember(self.workspace_scope, self.SPEC.view_id, state.to_json())

    # -- the cache ------------------------------------------------------------------------------

    def cache_changed(self, changes: Changes) -> None:
        """Called on the UI thread after the cache changed (notices coalesced). Default: nothing."""

    def marks_changed(self) -> None:
        """The app's marks (`App.marked`) may have changed while the view was off screen (a kept
        screen shown again). Default: nothing, the view does not show them."""

    def deliver_changes(self, changes: Changes) -> None:
        """What screens call: `cache_changed` once the view is ready; before that (its widgets
        are still being composed) the changes are kept and handed over when it is."""
        if self._keys_ready:
            self.cache_changed(changes)
            if self._given is not None:
                self.call_after_refresh(self._follow_first_focus)
        else:
            self._missed.merge(changes)

    # -- export ---------------------------------------------------------------------------------

    def export_scope(self) -> dict[str, Any]:
        """Keyword arguments for `export_snapshot` that match what the view shows."""
        plugins = set(self.SPEC.plugins) if self.SPEC.plugins else None
        return {"train_ids": list(self.train_ids), "plugins": plugins}

    def describe_export(self) -> str:
        return f"{self.SPEC.title.lower()} of {', '.join(self.train_ids) or 'no job'}"

    # -- the keyboard ---------------------------------------------------------------------------

    def ready_for_keys(self) -> None:
        """Subclasses call this once their widgets are composed and filled (usually at the end
        of `on_mount`). From then on `focus_view` works and cache changes are delivered (those
        that came before are handed over now); if the view is showing and nothing of it has the
        keyboard yet, it takes it now."""
        self._keys_ready = True
        if self._missed:
            missed, self._missed = self._missed, Changes()
            self.cache_changed(missed)
        if self.display and self.is_attached:
            focused = self.screen.focused
            # From nowhere, from another view or from what takes no keys (the tabs); not from a
            # panel of the screen (the dashboard's run list).
            if focused is None or not focused.can_focus or (
                    self not in focused.ancestors_with_self
                    and any(isinstance(node, DataView) for node in focused.ancestors)):
                self.focus_view()

    def focus_view(self) -> None:
        """Give the keyboard to the view. Before `ready_for_keys` this does nothing: the view
        takes the keyboard itself when it is ready."""
        if not self._keys_ready:
            return
        target = self.first_focus()
        if target is not None:
            focus_now(target)
            self._given = target

    def _follow_first_focus(self) -> None:
        """The keyboard given by `focus_view` and not moved since moves on to what the view now
        gives it first: a job whose series came back after the view was built (evicted from
        memory) got the tag list, for want of a chart; once its charts are there, a chart."""
        given = self._given
        if given is None or not self.display or not self.is_attached or self.screen.focused is not given:
            return
        target = self.first_focus()
        if target is not None and target is not given:
            self.focus_view()

    def first_focus(self) -> Widget | None:
        """The widget that gets the keyboard when the view is shown (override to choose)."""
        for widget in self.query("*"):
            if widget.focusable:
                return widget
        return None
