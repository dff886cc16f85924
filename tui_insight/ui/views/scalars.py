"""The scalar view: tag list, chart grid or one combined chart, smoothing, axes, zoom, value cursor.

State that outlives a redraw (selection, smoothing, x-axis, zoom and its back stack, cursor,
layout) lives here; charts only draw what they are given. Zoom, x-axis and threshold apply to
every chart (their x-axes are linked); the value cursor belongs to the active chart (the
focused one, or the one shown full-screen), whose series the read-out lists.
"""
from __future__ import annotations

import math
import re
from dataclasses import dataclass
from typing import Any

import numpy as np
from rich.text import Text
from textual import on
from textual.actions import SkipAction
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.events import DescendantFocus
from textual.widgets import Static

from ...summary.cache import Changes
from ...summary.scalars import X_AXES, ScalarSeries, scalar_series, smooth, threshold_mask, value_at, x_values
from ..common.format import clock_time, duration, number, short_time
from ..common.palette import SERIES_COLOURS, SERIES_MARKERS
from .base import DataView, ViewSpec
from ..widgets.chart import ChartOptions, ScalarChart, Trace, x_limits
from ..widgets.tag_picker import TagPicker
from ..widgets.view_grid import ViewGrid
from ..common.focus import focus_now

SMOOTHING_STEPS = (0.0, 0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 0.95, 0.99)
OVERLAY = "__overlay__"  # chart id of the combined chart
MIN_CHART_WIDTH = 56
MIN_CHART_HEIGHT = 10
CURSOR_JUMP = 20  # shift+left/right move the cursor by 1/CURSOR_JUMP of the visible range


def parse_threshold(text: str) -> tuple[float | None, float | None]:
    """`> 2.5`, `< 0.1`, `<0.1 >2.5` or a bare number (= above). Raises ValueError with a message."""
    text = text.strip()
    if not text:
        return None, None
    above = below = None
    rest = text
    for op, value in re.findall(r"([<>])\s*([^\s<>]+)", text):
        number_value = _number(value)
        if op == ">":
            above = number_value
        else:
            below = number_value
        rest = rest.replace(op, " ", 1).replace(value, " ", 1)
    if above is None and below is None:
        above = _number(text)
    elif rest.strip():
        raise ValueError(f"cannot read {rest.strip()!r}: write > 2.5, < 0.1 or both")
    return above, below


def _number(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise ValueError(f"{text!r} is not a number") from None
    if not math.isfinite(value):
        raise ValueError("the threshold must be a finite number")
    return value


def describe_threshold(above: float | None, below: float | None) -> str:
    parts = []
    if below is not None:
        parts.append(f"< {number(below)}")
    if above is not None:
        parts.append(f"> {number(above)}")
    return " or ".join(parts)


@dataclass
class Line:
    """One job's series of one tag, with what is derived from it for the current settings."""

    train_id: str
    tag: str
    series: ScalarSeries
    version: int
    x: np.ndarray
    smoothed: np.ndarray | None  # None when smoothing is off


class ChartGrid(ViewGrid):
    """The scrollable grid that holds the charts; tells the view when its size changes."""

    DEFAULT_CSS = """
    ChartGrid { layout: grid; grid-size: 1; grid-rows: 14; overflow-y: auto; height: 1fr; }
    ChartGrid > ScalarChart { height: 100%; }
    """


class ScalarsView(DataView):
    SPEC = ViewSpec("scalars", "Scalars", "1", ("scalar",), "job")
    HELP_GROUP = "Scalars"
    DEFAULT_CSS = """
    ScalarsView { layout: horizontal; }
    ScalarsView.-fullscreen #scalar-tags { display: none; }
    ScalarsView #scalar-main { width: 1fr; height: 1fr; }
    ScalarsView #scalar-status { height: 1; padding: 0 1; background: $panel; }
    ScalarsView #scalar-readout { height: auto; max-height: 7; padding: 0 1; background: $panel; }
    """
    BINDINGS = [
        Binding("slash", "filter_tags", "Filter tags", id="scalars.filter"),
        Binding("a", "select_all", "Select all/none", id="scalars.select_all"),
        Binding("s", "smooth(1)", "Smooth more", id="scalars.smooth_more"),
        Binding("S", "smooth(-1)", "Smooth less", id="scalars.smooth_less"),
        Binding("x", "cycle_x", "X axis", id="scalars.x_axis"),
        Binding("y", "log_y", "Log y", id="scalars.log_y"),
        Binding("t", "threshold", "Threshold", id="scalars.threshold"),
        Binding("o", "overlay", "One chart", id="scalars.overlay"),
        Binding("n", "normalise", "Normalise", show=False, id="scalars.normalise"),
        Binding("f", "fullscreen", "Full screen", id="scalars.fullscreen"),
        Binding("left", "cursor(-1)", "Cursor left", show=False, id="scalars.cursor_left"),
        Binding("right", "cursor(1)", "Cursor right", show=False, id="scalars.cursor_right"),
        Binding("shift+left", f"cursor(-{CURSOR_JUMP})", "Cursor jump left", show=False, id="scalars.jump_left"),
        Binding("shift+right", f"cursor({CURSOR_JUMP})", "Cursor jump right", show=False,
                id="scalars.jump_right"),
        Binding("z", "zoom_range", "Zoom to range", id="scalars.zoom_range"),
        Binding("plus,equals_sign", "zoom(0.5)", "Zoom in", show=False, id="scalars.zoom_in"),
        Binding("minus", "zoom(2)", "Zoom out", show=False, id="scalars.zoom_out"),
        Binding("left_square_bracket", "pan(-0.25)", "Pan left", show=False, id="scalars.pan_left"),
        Binding("right_square_bracket", "pan(0.25)", "Pan right", show=False, id="scalars.pan_right"),
        Binding("backspace", "zoom_back", "Zoom back", show=False, id="scalars.zoom_back"),
        Binding("0", "zoom_reset", "Zoom reset", show=False, id="scalars.zoom_reset"),
        Binding("escape", "leave", "Leave full screen", show=False, id="scalars.leave"),
    ]

    def __init__(self, cache, train_ids, **kwargs: Any):
        super().__init__(cache, train_ids, **kwargs)
        self.picker = TagPicker("scalar", "tags")
        self.smoothing = 0.0
        self.x_axis = "step"
        self.log_y = False
        self.threshold: tuple[float | None, float | None] = (None, None)
        self.x_range: tuple[float, float] | None = None
        self.zoom_stack: list[tuple[float, float] | None] = []
        self.zoom_anchor: float | None = None
        self.cursor_x: float | None = None
        self.overlay = False
        self.normalise = False
        self.fullscreen: str | None = None  # chart id shown alone
        self.active_chart: str | None = None
        self._series: dict[tuple[str, str], tuple[ScalarSeries, int]] = {}
        self._lines: dict[tuple[str, str], Line] = {}
        self._versions = 0
        self._charts: dict[str, ScalarChart] = {}
        self._ready = False  # set once on_mount has built the charts

    # -- building -----------------------------------------------------------------------------

    def compose(self) -> ComposeResult:
        yield self.picker
        with Vertical(id="scalar-main"):
            yield Static("", id="scalar-status")
            yield ChartGrid(id="scalar-grid")
            yield Static("", id="scalar-readout")

    def on_mount(self) -> None:
        self._load_all()
        self._sync_charts()
        self._ready = True  # DataView.on_mount (after this one) focuses the first chart
        self.call_after_refresh(self.ready_for_keys)  # interim: the view takes the keys when ready

    def focus_view(self) -> None:
        if not self._ready:
            return
        if self._charts:
            first = self._chart_order()[0]
            focus_now(self._charts[first])
        else:
            self.picker.focus_list()

    # -- data -----------------------------------------------------------------------------------

    def _load_all(self) -> None:
        for job in self.jobs:
            for tag in job.tag_names("scalar"):
                self._load(job.train_id, tag)
        self.picker.set_tags(sorted({tag for _, tag in self._series}))

    def _load(self, train_id: str, tag: str) -> None:
        view = self.cache.job(train_id)
        series = scalar_series(view, tag) if view is not None else None
        if series is None:
            self._series.pop((train_id, tag), None)
        else:
            self._versions += 1
            self._series[(train_id, tag)] = (series, self._versions)
        self._lines.pop((train_id, tag), None)

    def line(self, train_id: str, tag: str) -> Line | None:
        """The series with its x and smoothed values for the current x-axis and smoothing."""
        found = self._series.get((train_id, tag))
        if found is None:
            return None
        series, version = found
        line = self._lines.get((train_id, tag))
        settings = (version, self.x_axis, self.smoothing)
        if line is None or getattr(line, "_settings", None) != settings:
            view = self.cache.job(train_id)
            origin = view.first_wall_time if view is not None else None
            x = x_values(series, self.x_axis, origin)  # type: ignore[arg-type]
            smoothed = smooth(series.values, self.smoothing) if self.smoothing > 0 else None
            line = Line(train_id, tag, series, version, x, smoothed)
            line._settings = settings  # type: ignore[attr-defined]
            self._lines[(train_id, tag)] = line
        return line

    def cache_changed(self, changes: Changes) -> None:
        mine = set(self.train_ids)
        touched = False
        for tid in mine & (set(changes.updated) | changes.added):
            keys = changes.updated.get(tid) or set()
            view = self.cache.job(tid)
            if view is None:
                continue
            if not keys:  # the job was read again from scratch, or just appeared
                for key in [k for k in self._series if k[0] == tid]:
                    self._series.pop(key, None)
                tags = view.tag_names("scalar")
            else:
                tags = [tag for plugin, tag in keys if plugin == "scalar"]
            for tag in tags:
                self._load(tid, tag)
                touched = True
        for tid in mine & changes.removed:
            for key in [k for k in self._series if k[0] == tid]:
                self._series.pop(key, None)
                touched = True
        if not touched:
            return
        if self.picker.set_tags(sorted({tag for _, tag in self._series})):
            self._sync_charts()
        else:
            self.update_charts()

    # -- tag list -------------------------------------------------------------------------------

    @property
    def tags(self) -> list[str]:
        return self.picker.tags

    @property
    def selected(self) -> set[str]:
        return self.picker.selected

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

    def _chart_order(self) -> list[str]:
        tags = self.visible_tags()
        if not tags:
            return []
        return [OVERLAY] if self.overlay else tags

    def _sync_charts(self) -> None:
        """Mount the charts the selection asks for (keeping the ones that stay), then fill them."""
        grid = self.query_one(ChartGrid)
        wanted = self._chart_order()
        if list(self._charts) != wanted:
            had_focus = isinstance(self.screen.focused, ScalarChart)
            kept = {cid: chart for cid, chart in self._charts.items() if cid in wanted}
            if list(kept) != [cid for cid in wanted if cid in kept]:
                kept = {}  # the order changed: build them all again
            for cid, chart in self._charts.items():
                if cid not in kept:
                    chart.remove()
            first_kept = next(iter(kept.values()), None)
            previous = None
            charts = {}
            for cid in wanted:
                chart = kept.get(cid)
                if chart is None:
                    chart = ScalarChart(cid, cid)
                    if previous is not None:
                        grid.mount(chart, after=previous)
                    elif first_kept is not None:
                        grid.mount(chart, before=first_kept)
                    else:
                        grid.mount(chart)
                charts[cid] = previous = chart
            self._charts = charts
            if self.fullscreen not in self._charts:
                self.fullscreen = None
                self.remove_class("-fullscreen")
            if self.active_chart not in self._charts:
                self.active_chart = wanted[0] if wanted else None
            if had_focus and self.active_chart:
                self.call_after_refresh(self._charts[self.active_chart].focus)
        if OVERLAY in self._charts:
            self._charts[OVERLAY].border_title = "combined: " + ", ".join(self.visible_tags())
        self.layout_grid()
        self.update_charts()

    def layout_grid(self) -> None:
        grid = self.query_one(ChartGrid)
        width, height = grid.size.width, grid.size.height
        self.query_one("#scalar-tags").set_class(self.app.size.width < 100, "-narrow")
        if not width or not height:
            return
        shown = [cid for cid in self._charts if self.fullscreen in (None, cid)]
        for cid, chart in self._charts.items():
            chart.display = cid in shown
        if not shown:
            return
        columns = 1 if self.fullscreen else max(1, min(len(shown), width // MIN_CHART_WIDTH))
        rows = math.ceil(len(shown) / columns)
        row_height = max(MIN_CHART_HEIGHT, height // min(rows, 2)) if not self.fullscreen else height
        if rows > 2:  # leave room to see that more charts follow
            row_height = max(MIN_CHART_HEIGHT, min(row_height, height * 2 // 5))
        grid.styles.grid_size_columns = columns
        grid.styles.grid_rows = str(row_height)

    def update_charts(self) -> None:
        """Hand every chart its traces; charts whose key and options did not change do nothing."""
        for chart_id, chart in self._charts.items():
            tags = self.visible_tags() if chart_id == OVERLAY else [chart_id]
            key = self._chart_key(tags)
            options = self._chart_options(chart_id, tags)
            if key == chart.key and options == chart.options:
                continue
            chart.set_chart(key, self._traces(tags), options)
        self._update_status()
        self._update_readout()

    def _chart_key(self, tags: list[str]) -> tuple:
        versions = tuple(self._series[(tid, tag)][1] if (tid, tag) in self._series else 0
                         for tag in tags for tid in self.train_ids)
        return (tuple(tags), versions, self.smoothing, self.x_axis, self.threshold, self.overlay,
                self._normalised(tags), self.app.no_color)

    def _normalised(self, tags: list[str]) -> bool:
        return self.overlay and (len(tags) > 2 or (self.normalise and len(tags) > 1))

    def _two_axes(self, tags: list[str]) -> bool:
        return self.overlay and len(tags) == 2 and not self.normalise

    def _colour_and_marker(self, tag_index: int, job_index: int) -> tuple[str, str]:
        many_jobs = len(self.train_ids) > 1
        if self.overlay and not many_jobs:
            colour = SERIES_COLOURS[tag_index % len(SERIES_COLOURS)]
            marker = SERIES_MARKERS[tag_index % len(SERIES_MARKERS)] if self.app.no_color else "braille"
        else:
            colour = self.job_colour(self.train_ids[job_index])
            which = tag_index if self.overlay else job_index
            marker = SERIES_MARKERS[which % len(SERIES_MARKERS)] if (self.app.no_color or self.overlay) else "braille"
        return colour, marker

    def _traces(self, tags: list[str]) -> list[Trace]:
        traces: list[Trace] = []
        normalised = self._normalised(tags)
        two_axes = self._two_axes(tags)
        above, below = self.threshold
        for k, tag in enumerate(tags):
            for j, tid in enumerate(self.train_ids):
                line = self.line(tid, tag)
                if line is None or not len(line.series):
                    continue
                colour, marker = self._colour_and_marker(k, j)
                raw = line.series.values
                smoothed = line.smoothed
                if normalised:
                    raw, smoothed = _normalise(raw, smoothed)
                right = two_axes and k == 1
                if smoothed is not None:
                    traces.append(Trace(line.x, raw, colour, "faint", right, marker))
                    traces.append(Trace(line.x, smoothed, colour, "smoothed", right, marker))
                else:
                    traces.append(Trace(line.x, raw, colour, "line", right, marker))
                if (above is not None or below is not None) and not normalised:
                    hits = threshold_mask(line.series.values, above, below)
                    if hits.any():
                        traces.append(Trace(line.x[hits], line.series.values[hits], colour, "points", right))
        return traces

    def _chart_options(self, chart_id: str, tags: list[str]) -> ChartOptions:
        legend: list[tuple[str, str]] = []
        notes = []
        many_jobs = len(self.train_ids) > 1
        if chart_id == OVERLAY and not many_jobs:
            legend = [(self._colour_and_marker(k, 0)[0], tag) for k, tag in enumerate(tags)]
        elif many_jobs:
            legend = [(self.job_colour(tid), tid) for tid in self.train_ids]
            if chart_id == OVERLAY:
                notes.append("tags by marker: " + ", ".join(
                    f"{tag} {_shown_marker(SERIES_MARKERS[k % len(SERIES_MARKERS)])}" for k, tag in enumerate(tags)))
        if self._two_axes(tags):
            notes.append(f"left axis: {tags[0]} · right axis: {tags[1]}")
        if self._normalised(tags):
            notes.append("normalised: each series scaled to 0..1")
        if self.smoothing > 0:
            notes.append(f"smoothed {self.smoothing:g}, raw faint")
        above, below = self.threshold
        hlines = tuple(v for v in (above, below) if v is not None) if not self._normalised(tags) else ()
        cursor = self.cursor_x if chart_id == self.active_chart else None
        symbols: tuple[str, ...] = ()
        if self.app.no_color and legend:  # colours are gone: name each entry's marker instead
            symbols = tuple(_shown_marker(SERIES_MARKERS[i % len(SERIES_MARKERS)]) for i in range(len(legend)))
        return ChartOptions(self.x_axis, self.x_range, self.log_y, cursor, hlines, tuple(legend), symbols,
                            " · ".join(notes))

    # -- status and read-out ----------------------------------------------------------------------

    def _update_status(self) -> None:
        parts = [f"x: {self.x_axis}"]
        parts.append(f"smoothing {self.smoothing:g}" if self.smoothing else "no smoothing")
        if self.log_y:
            parts.append("log y")
        if self.threshold != (None, None):
            parts.append("threshold " + describe_threshold(*self.threshold))
        if self.x_range is not None:
            lo, hi = self.x_range
            parts.append(f"zoom {self._x_text(lo)}..{self._x_text(hi)} (⌫ back, 0 reset)")
        if self.zoom_anchor is not None:
            parts.append(f"zoom from {self._x_text(self.zoom_anchor)}: move, z again")
        if self.overlay:
            parts.append("one chart")
        if self.fullscreen:
            parts.append("full screen (f/esc)")
        if not self.tags:
            parts = ["no scalar tags yet" if any(not j.loaded for j in self.jobs) else "these jobs have no scalars"]
        self.query_one("#scalar-status", Static).update(" · ".join(parts))

    def _x_text(self, x: float) -> str:
        if self.x_axis == "step":
            return f"{x:.0f}" if abs(x) < 1e15 else f"{x:.3g}"
        if self.x_axis == "relative":
            return duration(x)
        return clock_time(x)

    def _update_readout(self) -> None:
        readout = self.query_one("#scalar-readout", Static)
        chart_id = self.fullscreen or self.active_chart
        if chart_id is None or chart_id not in self._charts:
            readout.update("")
            return
        if self.cursor_x is None:
            readout.update("[dim]←/→ value cursor · z zoom to range · [ ] pan · ? every key[/dim]")
            return
        tags = self.visible_tags() if chart_id == OVERLAY else [chart_id]
        lines = []
        for k, tag in enumerate(tags):
            for j, tid in enumerate(self.train_ids):
                line = self.line(tid, tag)
                if line is None or not len(line.series):
                    continue
                view = self.cache.job(tid)
                origin = view.first_wall_time if view is not None else None
                i = value_at(line.series, self.cursor_x, self.x_axis, origin)  # type: ignore[arg-type]
                if i < 0:
                    continue
                colour, _ = self._colour_and_marker(k, j)
                who = (f"{tid} " if len(self.train_ids) > 1 else "") + tag
                wall = float(line.series.wall_times[i])
                relative = wall - origin if origin is not None else float("nan")
                text = Text.assemble(("● ", colour), (who, "bold"),
                                     f"  step {int(line.series.steps[i])}",
                                     f"  value {number(line.series.values[i])}")
                if line.smoothed is not None:
                    text.append(f"  smoothed {number(line.smoothed[i])}")
                text.append(f"  {short_time(wall)} +{duration(relative)}", style="dim")
                lines.append(text)
        readout.update(Text("\n").join(lines) if lines else Text("no point here", style="dim"))

    # -- focus ------------------------------------------------------------------------------------

    def on_descendant_focus(self, event: DescendantFocus) -> None:
        widget = event.widget
        if isinstance(widget, ScalarChart) and widget.chart_id != self.active_chart:
            self.active_chart = widget.chart_id
            self.update_charts()

    # -- actions ------------------------------------------------------------------------------------

    def action_smooth(self, direction: int) -> None:
        steps = SMOOTHING_STEPS
        i = min(range(len(steps)), key=lambda k: abs(steps[k] - self.smoothing))
        self.smoothing = steps[max(0, min(len(steps) - 1, i + direction))]
        self.update_charts()

    def action_cycle_x(self) -> None:
        self.x_axis = X_AXES[(X_AXES.index(self.x_axis) + 1) % len(X_AXES)]  # type: ignore[arg-type]
        # Zoom and cursor are in the old axis' units: start afresh.
        self.x_range, self.zoom_stack, self.zoom_anchor, self.cursor_x = None, [], None, None
        self.update_charts()

    def action_log_y(self) -> None:
        self.log_y = not self.log_y
        self.update_charts()

    def action_threshold(self) -> None:
        from .dialogs import PromptScreen

        def validate(text: str) -> str:
            try:
                parse_threshold(text)
            except ValueError as exc:
                return str(exc)
            return ""

        def done(text: str | None) -> None:
            if text is None:
                return
            self.threshold = parse_threshold(text)
            self.update_charts()

        current = describe_threshold(*self.threshold).replace(" or ", " ")
        self.app.push_screen(PromptScreen("Highlight points beyond a threshold: [b]> 2.5[/b], [b]< 0.1[/b] or both; "
                                          "empty clears", current, "> 2.5", validate), done)

    def action_overlay(self) -> None:
        if not self.overlay and len(self.visible_tags()) < 2:
            self.notify("Select two or more tags to draw them in one chart", severity="warning")
            return
        self.overlay = not self.overlay
        self.fullscreen = None
        self.remove_class("-fullscreen")
        self._sync_charts()
        self.call_after_refresh(self.focus_view)

    def action_normalise(self) -> None:
        self.normalise = not self.normalise
        self.update_charts()

    def action_fullscreen(self) -> None:
        if self.fullscreen:
            self.fullscreen = None
        else:
            focused = self.screen.focused
            chart_id = focused.chart_id if isinstance(focused, ScalarChart) else self.active_chart
            if chart_id is None:
                return
            self.fullscreen = chart_id
            self.active_chart = chart_id
        self.set_class(bool(self.fullscreen), "-fullscreen")
        self.layout_grid()
        self.update_charts()
        chart = self._charts.get(self.fullscreen or self.active_chart or "")
        if chart is not None:
            focus_now(chart)

    def action_leave(self) -> None:
        if self.zoom_anchor is not None:
            self.zoom_anchor = None
            self.update_charts()
        elif self.fullscreen:
            self.action_fullscreen()
        else:
            raise SkipAction()

    # -- value cursor and zoom ----------------------------------------------------------------------

    def _active_x(self) -> np.ndarray:
        """The distinct x of the active chart's series inside the visible range, sorted."""
        chart_id = self.fullscreen or self.active_chart
        if chart_id is None:
            return np.empty(0)
        tags = self.visible_tags() if chart_id == OVERLAY else [chart_id]
        xs = [self.line(tid, tag) for tag in tags for tid in self.train_ids]
        arrays = [line.x for line in xs if line is not None and len(line.x)]
        if not arrays:
            return np.empty(0)
        x = np.unique(np.concatenate(arrays))
        x = x[np.isfinite(x)]
        if self.x_range is not None:
            lo, hi = self.x_range
            x = x[(x >= lo) & (x <= hi)]
        return x

    def action_cursor(self, move: int) -> None:
        x = self._active_x()
        if not len(x):
            return
        if self.cursor_x is None:
            self.cursor_x = float(x[-1] if move < 0 else x[0])
        elif abs(move) == 1:
            i = int(np.searchsorted(x, self.cursor_x))
            if move > 0:
                i = i + 1 if i < len(x) and x[i] == self.cursor_x else i
            else:
                i = i - 1
            self.cursor_x = float(x[max(0, min(len(x) - 1, i))])
        else:
            lo, hi = (self.x_range if self.x_range is not None else (float(x[0]), float(x[-1])))
            target = self.cursor_x + math.copysign((hi - lo) / CURSOR_JUMP, move)
            self.cursor_x = float(x[int(np.argmin(np.abs(x - target)))])
        self.update_charts()

    def _current_range(self) -> tuple[float, float] | None:
        if self.x_range is not None:
            return self.x_range
        traces = []
        for chart_id in self._charts:
            tags = self.visible_tags() if chart_id == OVERLAY else [chart_id]
            for tag in tags:
                for tid in self.train_ids:
                    line = self.line(tid, tag)
                    if line is not None:
                        traces.append(Trace(line.x, line.series.values, "#000000"))
        return x_limits(traces, ChartOptions())

    def _set_range(self, new: tuple[float, float] | None) -> None:
        if new == self.x_range:
            return
        self.zoom_stack.append(self.x_range)
        self.x_range = new
        self.update_charts()

    def action_zoom(self, factor: float) -> None:
        current = self._current_range()
        if current is None:
            return
        lo, hi = current
        centre = self.cursor_x if self.cursor_x is not None and lo <= self.cursor_x <= hi else (lo + hi) / 2
        half = (hi - lo) * factor / 2
        if self.x_axis == "step" and half < 1:
            half = 1.0
        self._set_range((centre - half, centre + half))

    def action_pan(self, fraction: float) -> None:
        current = self._current_range()
        if current is None:
            return
        lo, hi = current
        shift = (hi - lo) * fraction
        self._set_range((lo + shift, hi + shift))

    def action_zoom_range(self) -> None:
        if self.cursor_x is None:
            self.action_zoom(0.5)
            return
        if self.zoom_anchor is None:
            self.zoom_anchor = self.cursor_x
            self.update_charts()
            return
        lo, hi = sorted((self.zoom_anchor, self.cursor_x))
        self.zoom_anchor = None
        if lo == hi:
            self.update_charts()
            return
        self._set_range((lo, hi))

    def action_zoom_back(self) -> None:
        if not self.zoom_stack:
            if self.zoom_anchor is None:
                self.notify("Nothing to go back to", timeout=1.5)
            return
        self.x_range = self.zoom_stack.pop()
        self.update_charts()

    def action_zoom_reset(self) -> None:
        self.x_range, self.zoom_stack, self.zoom_anchor = None, [], None
        self.update_charts()

    # -- export ---------------------------------------------------------------------------------------

    def export_scope(self) -> dict[str, Any]:
        return {"train_ids": list(self.train_ids), "plugins": {"scalar"},
                "tags": {("scalar", tag) for tag in self.visible_tags()}}

    def describe_export(self) -> str:
        tags = self.visible_tags()
        return f"{len(tags)} scalar tag{'s' if len(tags) != 1 else ''} of {', '.join(self.train_ids)}"


def _shown_marker(marker: str) -> str:
    return "⣿" if marker == "braille" else marker


def _normalise(raw: np.ndarray, smoothed: np.ndarray | None) -> tuple[np.ndarray, np.ndarray | None]:
    finite = raw[np.isfinite(raw)]
    if not len(finite):
        return raw, smoothed
    lo, hi = float(finite.min()), float(finite.max())
    span = hi - lo if hi > lo else 1.0
    return (raw - lo) / span, (None if smoothed is None else (smoothed - lo) / span)

