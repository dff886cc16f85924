"""The histogram view: tag list, a grid of ridgelines (one per tag and job), a step/value cursor.

Every chart shows all kept steps of a tag re-binned onto the tag's shared buckets (§4.5).
Decoding up to 50 payloads per tag and re-binning them runs in one thread worker that works
through a queue of (job, tag) pairs, visible charts first; results come back as messages.
A chart keeps what it shows until the new data of a changed tag arrives, and keeps its cursor
on the same step, so live updates do not move the user.
"""
from __future__ import annotations

import math
import threading
from collections import deque
from typing import Any

from rich.text import Text
from textual import on
from textual.actions import SkipAction
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.message import Message
from textual.widget import Widget
from textual.widgets import Static

from ...summary.cache import Changes
from ...summary.histograms import Ridgeline, histogram_steps, rebin
from ...summary.payloads import PayloadError
from ...summary.scalars import X_AXES
from ..common.palette import SERIES_COLOURS
from .base import DataView, ViewSpec
from ..widgets.tag_picker import TagPicker
from ..widgets.view_grid import ViewGrid
from ..widgets.ridgeline import MODES, RidgelineChart, ridgeline_bindings
from ..common.focus import focus_now

MIN_CHART_WIDTH = 60
MIN_CHART_HEIGHT = 12
SINGLE_JOB_COLOUR = SERIES_COLOURS[4]  # sky blue: bright enough to fade over dark and light themes

Key = tuple[str, str]  # (train id, tag)


def load_ridgeline(cache, train_id: str, tag: str) -> tuple[Ridgeline | None, str]:
    """The ridgeline of one tag of one job, or None and why (runs in a worker thread)."""
    view = cache.job(train_id)
    if view is None:
        return None, f"{train_id} is gone"
    try:
        steps = histogram_steps(cache, view, tag)
    except PayloadError as exc:
        return None, f"cannot read {tag}: {exc}"
    if not steps:
        return None, "no kept steps"
    try:
        return rebin(steps), ""
    except (ValueError, FloatingPointError) as exc:
        return None, f"cannot re-bin {tag}: {exc}"


class HistogramChart(RidgelineChart):
    HELP_GROUP = "Histograms"
    BINDINGS = ridgeline_bindings("histograms")


class HistogramGrid(ViewGrid):
    """The scrollable grid of charts; tells the view when its size changes."""

    DEFAULT_CSS = """
    HistogramGrid { layout: grid; grid-size: 1; grid-rows: 16; overflow-y: auto; height: 1fr; }
    HistogramGrid > HistogramChart { height: 100%; }
    """


class HistogramsView(DataView):
    SPEC = ViewSpec("histograms", "Histograms", "2", ("histogram",), "job")
    HELP_GROUP = "Histograms"
    DEFAULT_CSS = """
    HistogramsView { layout: horizontal; }
    HistogramsView.-fullscreen #histogram-tags { display: none; }
    HistogramsView #histogram-main { width: 1fr; height: 1fr; }
    HistogramsView #histogram-status { height: 1; padding: 0 1; background: $panel; }
    HistogramsView #histogram-readout { height: auto; max-height: 3; padding: 0 1; background: $panel; }
    """
    BINDINGS = [
        Binding("slash", "filter_tags", "Filter tags", id="histograms.filter"),
        Binding("a", "select_all", "Select all/none", id="histograms.select_all"),
        Binding("o", "mode", "Offset/overlay", id="histograms.mode"),
        Binding("x", "cycle_axis", "Step axis", id="histograms.step_axis"),
        Binding("f", "fullscreen", "Full screen", id="histograms.fullscreen"),
        Binding("escape", "leave", "Hide cursor / leave full screen", show=False, id="histograms.leave"),
    ]

    class Loaded(Message):
        """A worker finished one chart's data."""

        def __init__(self, key: Key, version: int, ridge: Ridgeline | None, problem: str) -> None:
            super().__init__()
            self.key, self.version, self.ridge, self.problem = key, version, ridge, problem

    def __init__(self, cache, train_ids, **kwargs: Any):
        super().__init__(cache, train_ids, **kwargs)
        self.picker = TagPicker("histogram", "histograms")
        self.mode = "offset"
        self.axis = "step"
        self.fullscreen: Key | None = None
        self.active: Key | None = None  # the chart whose cursor the read-out shows
        self._charts: dict[Key, HistogramChart] = {}
        self._versions: dict[Key, int] = {}  # bumped when the cache says a tag changed
        self._results: dict[Key, tuple[int, Ridgeline | None, str]] = {}
        self._queue: deque[tuple[Key, int]] = deque()
        self._queued: set[tuple[Key, int]] = set()
        self._lock = threading.Lock()
        self._loading = False  # a worker is draining the queue

    # -- building -----------------------------------------------------------------------------

    def compose(self) -> ComposeResult:
        yield self.picker
        with Vertical(id="histogram-main"):
            yield Static("", id="histogram-status")
            yield HistogramGrid(id="histogram-grid")
            yield Static("", id="histogram-readout")

    def on_mount(self) -> None:
        self._read_tags()
        self._sync_charts()
        self.call_after_refresh(self.ready_for_keys)  # interim: the view takes the keys when ready

    def focus_view(self) -> None:
        if not self.is_mounted or not self._charts:
            # Before the charts are mounted: the first chart takes the keys once it is.
            self.picker.focus_list()
            self.call_after_refresh(self._focus_chart)
        else:
            self._focus_chart()

    def _focus_chart(self) -> None:
        chart = self._charts.get(self.active) if self.active else None
        if chart is None and self._charts:
            chart = next(iter(self._charts.values()))
        if chart is not None:
            focus_now(chart)

    # -- tags -----------------------------------------------------------------------------------

    def _read_tags(self) -> bool:
        """Re-read the tag names of the jobs; True if they changed."""
        return self.picker.set_tags(sorted({tag for job in self.jobs for tag in job.tag_names("histogram")}))

    @property
    def tags(self) -> list[str]:
        return self.picker.tags

    def visible_tags(self) -> list[str]:
        return self.picker.visible_tags()

    @on(TagPicker.Changed)
    def _tags_changed(self, event: TagPicker.Changed) -> None:
        event.stop()
        self._sync_charts()

    def action_filter_tags(self) -> None:
        if self.fullscreen:
            self.action_fullscreen()
        self.picker.focus_filter()

    def action_select_all(self) -> None:
        self.picker.select_all()
        self._sync_charts()

    # -- charts ---------------------------------------------------------------------------------

    def chart_keys(self) -> list[Key]:
        """The charts to show: every visible tag, for each job that has it."""
        keys = []
        for tag in self.visible_tags():
            for job in self.jobs:
                if job.series("histogram", tag) is not None:
                    keys.append((job.train_id, tag))
        return keys

    def _chart_colour(self, train_id: str) -> str:
        return SINGLE_JOB_COLOUR if len(self.train_ids) == 1 else self.job_colour(train_id)

    def _sync_charts(self) -> None:
        """Mount the charts the selection asks for (keeping those that stay, in order), then fill them."""
        grid = self.query_one(HistogramGrid)
        wanted = self.chart_keys()
        if list(self._charts) != wanted:
            had_focus = any(chart.has_focus for chart in self._charts.values())
            kept = {key: chart for key, chart in self._charts.items() if key in wanted}
            if list(kept) != [key for key in wanted if key in kept]:
                kept = {}
            for key, chart in self._charts.items():
                if key not in kept:
                    chart.remove()
            charts: dict[Key, HistogramChart] = {}
            previous = None
            first_kept = next(iter(kept.values()), None)
            for key in wanted:
                chart = kept.get(key)
                if chart is None:
                    tid, tag = key
                    title = tag if len(self.train_ids) == 1 else f"{tag} · {tid}"
                    chart = HistogramChart(f"{tid}\n{tag}", title, colour=self._chart_colour(tid))
                    if previous is not None:
                        grid.mount(chart, after=previous)
                    elif first_kept is not None:
                        grid.mount(chart, before=first_kept)
                    else:
                        grid.mount(chart)
                charts[key] = previous = chart
            self._charts = charts
            if self.fullscreen not in self._charts:
                self.fullscreen = None
                self.remove_class("-fullscreen")
            if self.active not in self._charts:
                self.active = wanted[0] if wanted else None
            if had_focus and self.active is not None:
                self.call_after_refresh(self._charts[self.active].focus)
        self.layout_grid()
        self.update_charts()

    def layout_grid(self) -> None:
        grid = self.query_one(HistogramGrid)
        self.query_one("#histogram-tags").set_class(self.app.size.width < 100, "-narrow")
        width, height = grid.size.width, grid.size.height
        if not width or not height:
            return
        shown = [key for key in self._charts if self.fullscreen in (None, key)]
        for key, chart in self._charts.items():
            chart.display = key in shown
        if not shown:
            return
        columns = 1 if self.fullscreen else max(1, min(len(shown), width // MIN_CHART_WIDTH))
        rows = math.ceil(len(shown) / columns)
        row_height = height if self.fullscreen else max(MIN_CHART_HEIGHT, height // min(rows, 2))
        if rows > 2 and not self.fullscreen:  # leave room to see that more charts follow
            row_height = max(MIN_CHART_HEIGHT, min(row_height, height * 2 // 5))
        grid.styles.grid_size_columns = columns
        grid.styles.grid_rows = str(row_height)

    def update_charts(self) -> None:
        """Give every chart its data and settings; queue loads for what is missing or stale."""
        wanted: list[tuple[Key, int]] = []
        for key, chart in self._charts.items():
            tid = key[0]
            view = self.cache.job(tid)
            origin = float(view.first_wall_time or 0.0) if view is not None else 0.0
            chart.set_style(self.mode, self.axis, origin)
            version = self._versions.get(key, 0)
            result = self._results.get(key)
            if result is not None:
                got, ridge, problem = result
                chart.set_data((key, got), ridge, problem)
            if result is None or result[0] != version:
                wanted.append((key, version))
        # The focused and on-screen charts first.
        wanted.sort(key=lambda item: (item[0] != self.active, not self._charts[item[0]].display))
        self._enqueue(wanted)
        self._update_status()
        self._update_readout()

    # -- loading --------------------------------------------------------------------------------

    def _enqueue(self, items: list[tuple[Key, int]]) -> None:
        with self._lock:
            for item in items:
                if item not in self._queued:
                    self._queued.add(item)
                    self._queue.append(item)
            start = bool(self._queue) and not self._loading
            if start:
                self._loading = True
        if start:
            self.run_worker(self._drain, thread=True, group="histograms-load", description="decode histograms")

    def _drain(self) -> None:
        """Worker thread: load queued charts one by one until the queue is empty."""
        while True:
            with self._lock:
                if not self._queue:
                    self._loading = False
                    return
                item = self._queue.popleft()
            (tid, tag), version = item
            try:
                ridge, problem = load_ridgeline(self.cache, tid, tag)
            except Exception as exc:  # a bug must not kill the loader: say it in the chart
                ridge, problem = None, f"cannot draw {tag}: {exc}"
            with self._lock:
                self._queued.discard(item)
            self.post_message(self.Loaded((tid, tag), version, ridge, problem))

    def on_histograms_view_loaded(self, message: Loaded) -> None:
        message.stop()
        current = self._versions.get(message.key, 0)
        if message.version != current:
            return  # a newer load is queued
        self._results[message.key] = (message.version, message.ridge, message.problem)
        chart = self._charts.get(message.key)
        if chart is not None:
            chart.set_data((message.key, message.version), message.ridge, message.problem)
        self._update_status()
        self._update_readout()

    def pending(self) -> int:
        """Charts queued or being decoded (an item leaves before its result is posted)."""
        with self._lock:
            return len(self._queued)

    # -- live updates ---------------------------------------------------------------------------

    def cache_changed(self, changes: Changes) -> None:
        mine = set(self.train_ids)
        touched = False
        for tid in mine & (set(changes.updated) | changes.added | changes.removed):
            keys = changes.updated.get(tid)
            if keys:
                tags = [tag for plugin, tag in keys if plugin == "histogram"]
            else:  # the job appeared, vanished or was read again from scratch
                tags = [tag for (t, tag) in set(self._versions) | set(self._results) | set(self._charts) if t == tid]
                view = self.cache.job(tid)
                tags += view.tag_names("histogram") if view is not None else []
            for tag in set(tags):
                self._versions[(tid, tag)] = self._versions.get((tid, tag), 0) + 1
                touched = True
        if not touched:
            return
        self._read_tags()
        self._sync_charts()

    # -- status and read-out ----------------------------------------------------------------------

    def _update_status(self) -> None:
        if not self.tags:
            loading = any(not job.loaded for job in self.jobs)
            text = "no histogram tags yet" if loading else "these jobs have no histograms"
        else:
            parts = [f"{self.mode}", f"step axis: {self.axis}"]
            shown = len(self._charts)
            parts.append(f"{shown} chart{'s' if shown != 1 else ''}")
            pending = self.pending()
            if pending:
                parts.append(f"decoding {pending}…")
            if self.fullscreen:
                parts.append("full screen (f/esc)")
            text = " · ".join(parts)
        self.query_one("#histogram-status", Static).update(text)

    def _update_readout(self) -> None:
        readout = self.query_one("#histogram-readout", Static)
        chart = self._charts.get(self.active) if self.active else None
        if chart is None:
            readout.update("")
            return
        text = chart.readout()
        if not text.plain:
            text = Text("↑/↓ step cursor · ←/→ bucket · o offset/overlay · x step axis · f full screen · "
                        "/ filter · space select", style="dim")
        elif len(self.train_ids) > 1:
            text = Text.assemble((f"{self.active[0]}  ", "dim"), text)
        readout.update(text)

    @on(RidgelineChart.CursorMoved)
    def _cursor_moved(self, event: RidgelineChart.CursorMoved) -> None:
        event.stop()
        key = self._key_of(event.chart)
        if key is not None and key == self.active:
            self._update_readout()

    def _key_of(self, chart: Widget) -> Key | None:
        for key, candidate in self._charts.items():
            if candidate is chart:
                return key
        return None

    def on_descendant_focus(self, event) -> None:
        key = self._key_of(event.widget) if isinstance(event.widget, RidgelineChart) else None
        if key is not None and key != self.active:
            self.active = key
            self._update_readout()

    # -- actions --------------------------------------------------------------------------------

    def action_mode(self) -> None:
        self.mode = MODES[(MODES.index(self.mode) + 1) % len(MODES)]
        self.update_charts()

    def action_cycle_axis(self) -> None:
        self.axis = X_AXES[(X_AXES.index(self.axis) + 1) % len(X_AXES)]  # type: ignore[arg-type]
        self.update_charts()

    def action_fullscreen(self) -> None:
        if self.fullscreen:
            self.fullscreen = None
        else:
            focused = self.screen.focused
            key = self._key_of(focused) if isinstance(focused, RidgelineChart) else self.active
            if key is None:
                return
            self.fullscreen = self.active = key
        self.set_class(bool(self.fullscreen), "-fullscreen")
        self.layout_grid()
        self._update_status()
        chart = self._charts.get(self.fullscreen or self.active) if (self.fullscreen or self.active) else None
        if chart is not None:
            focus_now(chart)

    def action_leave(self) -> None:
        chart = self._charts.get(self.active) if self.active else None
        if chart is not None and chart.has_focus and chart.hide_cursor():
            return
        if self.fullscreen:
            self.action_fullscreen()
            return
        raise SkipAction()

    # -- export ---------------------------------------------------------------------------------

    def export_scope(self) -> dict[str, Any]:
        return {"train_ids": list(self.train_ids), "plugins": {"histogram"},
                "tags": {("histogram", tag) for tag in self.visible_tags()}}

    def describe_export(self) -> str:
        tags = self.visible_tags()
        return f"{len(tags)} histogram tag{'s' if len(tags) != 1 else ''} of {', '.join(self.train_ids)}"

