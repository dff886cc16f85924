"""The scalar view: tag list, chart grid or one combined chart, smoothing, axes, zoom, value cursor,
and under the charts a summary table (last, min, max, cursor value of each tag and run, best run starred).

Everything the user sets (tags, smoothing, x-axis, zoom and its back stack, cursor, layout, each
chart's threshold and log-y) is one `ScalarsState` (`ui/state/scalars.py`) in one reactive; the
watcher redraws from it and binds each chart its `ChartPlot` (an equal plot does not redraw).
What is derived from the logs (series, their x and smoothed values) stays here, keyed by the
version of the data it came from; the summary table reads each tag's digest (`JobView.digests`,
recomputed by the cache only for the tags that changed).

A run being written: newer data is bound at the live pace (`live_interval`) and only to the
charts on screen; a chart scrolled out of view is marked stale and bound when it comes back
into view (the grid's scroll or a new layout), so its drawing costs nothing meanwhile.
"""
from __future__ import annotations

import math
import time
from dataclasses import dataclass
from typing import Any, Awaitable

import numpy as np
from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.events import DescendantFocus
from textual.reactive import reactive
from textual.widgets import Static

from ...summary.queries.best import LOWER, best_of
from ...summary.queries.scalars import ScalarSeries, scalar_series, smooth, threshold_mask, value_at, x_values
from ...summary.store.digest import TagDigest
from ...summary.store.job_view import Changes
from ..common.focus import focus_now
from ..common.format import clock_time, duration, number, short_time
from ..common.palette import SERIES_COLOURS, SERIES_MARKERS
from ..common.text import literal, markup
from ..state.scalars import CURSOR_JUMP, OVERLAY, SMOOTHING_STEPS, ScalarsState, describe_threshold, parse_threshold
from ..widgets.chart import ChartOptions, ChartPlot, ScalarChart, Trace, log_y_problem, x_limits
from ..widgets.summary_table import SummaryRow, SummaryTable
from ..widgets.tag_picker import TagPicker
from ..widgets.view_grid import ViewGrid
from .base import ViewSpec
from .tag_grid import TagGridView

__all__ = ["CURSOR_JUMP", "OVERLAY", "SMOOTHING_STEPS", "ScalarsView", "parse_threshold", "describe_threshold",
           "grid_shape", "line_traces"]

MIN_CHART_WIDTH = 56
# Newer data (a run being written) redraws the charts at most 4 times a second, and less often
# (but at least once a second) when drawing and painting them would cost more than
# `LIVE_DRAW_SHARE` of a core. Only the charts on screen are bound newer data: the others are
# bound when they are scrolled into view.
LIVE_REDRAW_SECONDS = 0.25
LIVE_REDRAW_MAX_SECONDS = 1.0
LIVE_DRAW_SHARE = 0.05
MIN_CHART_HEIGHT = 10


@dataclass
class Line:
    """One job's series of one tag, with what is derived from it for the current settings."""

    train_id: str
    tag: str
    series: ScalarSeries
    settings: tuple  # (data version, x-axis, smoothing) it was derived for
    x: np.ndarray
    smoothed: np.ndarray | None  # None when smoothing is off


class ChartGrid(ViewGrid):
    """The scrollable grid that holds the charts; tells the view when its size changes."""

    DEFAULT_CSS = """
    ChartGrid { layout: grid; grid-size: 1; grid-rows: 14; overflow-y: auto; height: 1fr; }
    ChartGrid > ScalarChart { height: 100%; }
    """


class ScalarsView(TagGridView):
    GRID = ChartGrid
    SPEC = ViewSpec("scalars", "Scalars", "1", ("scalar",), "job")
    HELP_GROUP = "Scalars"
    HELP_NOTE = ("[b]Reading the charts[/b]\n"
                 "  ✓ / · in the tag list: drawn / not drawn (space toggles, a all or none)\n"
                 "  × NaN and ▲ +Inf at the top edge, ▼ -Inf at the bottom: steps with no number\n"
                 "  t and y apply to the focused chart; Y toggles log y on every chart\n"
                 "  Summary table (m): last, min, max @ their step and the value at the cursor;\n"
                 "  ↓ lower is better (loss), ↑ higher (acc, f1, auc, precision, recall), ★ best run;\n"
                 "  b changes it for the tag of the focused chart or table row, B flips every tag\n"
                 "  Settings are remembered per job (start with --fresh to forget them)")
    DEFAULT_CSS = """
    ScalarsView { layout: horizontal; }
    ScalarsView.-fullscreen #scalar-tags { display: none; }
    ScalarsView #scalar-main { width: 1fr; height: 1fr; }
    ScalarsView #scalar-status { height: 1; padding: 0 1; background: $panel; }
    ScalarsView #scalar-empty { height: 1fr; content-align: center middle; color: $text-muted; display: none; }
    ScalarsView.-empty #scalar-empty { display: block; }
    ScalarsView.-empty ChartGrid { display: none; }
    ScalarsView #scalar-readout { height: auto; max-height: 7; padding: 0 1; background: $panel; }
    ScalarsView.-empty #scalar-summary, ScalarsView.-no-summary #scalar-summary { display: none; }
    """
    BINDINGS = [
        Binding("slash", "filter_tags", "Filter tags", id="scalars.filter"),
        Binding("a", "select_all", "Select all/none", id="scalars.select_all"),
        Binding("s", "smooth(1)", "Smooth more", id="scalars.smooth_more"),
        Binding("S", "smooth(-1)", "Smooth less", id="scalars.smooth_less"),
        Binding("x", "cycle_x", "X axis", id="scalars.x_axis"),
        Binding("y", "log_y", "Log y", id="scalars.log_y"),
        Binding("Y", "log_y_all", "Log y on every chart", show=False, id="scalars.log_y_all"),
        Binding("t", "threshold", "Threshold", id="scalars.threshold"),
        Binding("o", "overlay", "One chart", id="scalars.overlay"),
        Binding("n", "normalise", "Normalise", show=False, id="scalars.normalise"),
        Binding("f", "fullscreen", "Full screen", id="scalars.fullscreen"),
        Binding("m", "summary", "Summary table", id="scalars.summary"),
        Binding("b", "best", "Best: lower/higher/none", show=False, id="scalars.best"),
        Binding("B", "best_flip_all", "Best: flip every tag", show=False, id="scalars.best_all"),
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
        Binding("pagedown", "page(1)", "Next page of charts", show=False, id="scalars.page_down"),
        Binding("pageup", "page(-1)", "Previous page of charts", show=False, id="scalars.page_up"),
        Binding("home", "page_to(0)", "First chart", show=False, id="scalars.first_chart"),
        Binding("end", "page_to(-1)", "Last chart", show=False, id="scalars.last_chart"),
        Binding("escape", "leave", "Leave full screen", show=False, id="scalars.leave"),
    ]

    state: reactive[ScalarsState] = reactive(ScalarsState, init=False)

    def __init__(self, cache, train_ids, **kwargs: Any):
        super().__init__(cache, train_ids, **kwargs)
        self.set_reactive(ScalarsView.state, ScalarsState.from_json(self.saved))
        self.picker = TagPicker("scalar", "tags")
        self._series: dict[tuple[str, str], tuple[ScalarSeries, int]] = {}  # derived: (series, version)
        self._digests: dict[tuple[str, str], TagDigest | None] = {}  # of the same snapshot as the series
        self._lines: dict[tuple[str, str], Line] = {}
        self._versions = 0
        self._charts: dict[str, ScalarChart] = {}
        self._texts: dict[str, Any] = {}  # what the status lines show (see _show_text)
        self._live_drawn = -LIVE_REDRAW_SECONDS  # time.monotonic() of the last live redraw
        self._live_timer: Any = None
        self._stale: set[str] = set()  # charts off screen that newer data was not bound to yet

    @property
    def charts(self) -> dict[str, ScalarChart]:
        """The chart widgets, by chart id (a tag, or OVERLAY), in grid order."""
        return dict(self._charts)

    # -- building -----------------------------------------------------------------------------

    def compose(self) -> ComposeResult:
        yield self.picker
        with Vertical(id="scalar-main"):
            yield Static("", id="scalar-status")
            yield ChartGrid(id="scalar-grid")
            yield Static("", id="scalar-empty")
            yield Static("", id="scalar-readout")
            yield SummaryTable(id="scalar-summary")

    async def on_mount(self) -> None:
        for job in self.jobs:
            for tag in job.tag_names("scalar"):
                self._load(job.train_id, tag)
        state = self.state.with_tags(self.state.tags.with_tags(self._tag_names()))
        self.set_reactive(ScalarsView.state, state)
        for mounting in self._redraw(None, state):
            await mounting
        self.watch(self.query_one(ChartGrid), "scroll_y", self._bind_shown, init=False)
        self.ready_for_keys()  # the charts are composed and bound: keys may come

    def first_focus(self):
        target = self._charts.get(self.state.target() or "")
        if target is not None and target.display:
            return target
        shown = [chart for chart in self._charts.values() if chart.display]
        return shown[0] if shown else self.picker.listing

    # -- data -----------------------------------------------------------------------------------

    def _tag_names(self) -> list[str]:
        return sorted({tag for _, tag in self._series})

    def _load(self, train_id: str, tag: str) -> None:
        view = self.cache.job(train_id)
        series = scalar_series(view, tag) if view is not None else None
        if series is None:
            self._series.pop((train_id, tag), None)
            self._digests.pop((train_id, tag), None)
        else:
            self._versions += 1
            self._series[(train_id, tag)] = (series, self._versions)
            self._digests[(train_id, tag)] = view.digests.get(tag)  # type: ignore[union-attr]
        self._lines.pop((train_id, tag), None)

    def line(self, train_id: str, tag: str, state: ScalarsState | None = None) -> Line | None:
        """The series with its x and smoothed values for the state's x-axis and smoothing."""
        state = state or self.state
        found = self._series.get((train_id, tag))
        if found is None:
            return None
        series, version = found
        line = self._lines.get((train_id, tag))
        settings = (version, state.x_axis, state.smoothing)
        if line is None or line.settings != settings:
            view = self.cache.job(train_id)
            origin = view.first_wall_time if view is not None else None
            x = x_values(series, state.x_axis, origin)  # type: ignore[arg-type]
            smoothed = smooth(series.values, state.smoothing) if state.smoothing > 0 else None
            line = Line(train_id, tag, series, settings, x, smoothed)
            self._lines[(train_id, tag)] = line
        return line

    def cache_changed(self, changes: Changes) -> None:
        mine = set(self.train_ids)
        touched = False
        for tid in mine & changes.jobs():
            view = self.cache.job(tid)
            if view is None:
                continue
            changed = changes.tags(tid, "scalar")
            if changed is None:  # the job was read again from scratch, or just appeared
                self._forget(tid)
                tags = view.tag_names("scalar")
            else:
                tags = sorted(changed)
            for tag in tags:
                self._load(tid, tag)
                touched = True
        for tid in mine & changes.removed:
            touched = self._forget(tid) or touched
        if touched and self.is_mounted:
            self._tags_changed(live=True)

    def _forget(self, train_id: str) -> bool:
        """Drop what was loaded of a job; True if there was something."""
        keys = [k for k in self._series if k[0] == train_id]
        for key in keys:
            self._series.pop(key, None)
            self._digests.pop(key, None)
        return bool(keys)

    def _tags_changed(self, live: bool) -> None:
        """The series changed: new tags go into the state; otherwise the charts whose series
        changed redraw (at the live pace when `live`)."""
        state = self.state.with_tags(self.state.tags.with_tags(self._tag_names()))
        if state is not self.state:
            self.state = state
        elif live:  # same tags, newer data: only the charts it touched redraw
            self._live_redraw()
        else:
            self._live_redraw_now(on_screen_only=False)

    def show_jobs(self, train_ids: tuple[str, ...]) -> bool:
        """The dashboard shows other runs of the comparison: load those that appear, forget those
        that go; zoom, cursor and settings stay."""
        train_ids = tuple(train_ids)
        if train_ids == self.train_ids:
            return True
        appearing = [tid for tid in train_ids if tid not in self.train_ids]
        for tid in self.train_ids:
            if tid not in train_ids:
                self._forget(tid)
        self.train_ids = train_ids
        for job in self.jobs:
            if job.train_id in appearing:
                for tag in job.tag_names("scalar"):
                    self._load(job.train_id, tag)
        if self.is_mounted:
            self._tags_changed(live=False)
        return True

    def live_interval(self) -> float:
        """Seconds between live redraws: at least `LIVE_REDRAW_SECONDS`, longer when drawing the
        charts the last live redraw drew took more than `LIVE_DRAW_SHARE` of that time (many
        or big charts), at most `LIVE_REDRAW_MAX_SECONDS`."""
        cost = sum(chart.draw_seconds for chart in self._charts.values() if chart.drawn_at >= self._live_drawn)
        return min(LIVE_REDRAW_MAX_SECONDS, max(LIVE_REDRAW_SECONDS, cost / LIVE_DRAW_SHARE))

    def _live_redraw(self) -> None:
        """Newer data: rebind the charts (only those whose series changed redraw) at most every
        `live_interval()`; what comes meanwhile waits for the timer, which draws the newest."""
        wait = self._live_drawn + self.live_interval() - time.monotonic()
        if wait > 0:
            if self._live_timer is None:
                self._live_timer = self.set_timer(wait, self._live_redraw_now, name="scalars-live")
            return
        self._live_redraw_now()

    def _live_redraw_now(self, on_screen_only: bool = True) -> None:
        self._live_timer = None
        self._live_drawn = time.monotonic()
        if self.is_mounted:
            self._bind_charts(self.state, self._on_screen() if on_screen_only else None)
            self._show_texts(self.state)
            self._show_summary(self.state, live=True)

    # -- drawing from the state -------------------------------------------------------------------

    def watch_state(self, old: ScalarsState, new: ScalarsState) -> None:
        self._redraw(old, new)
        self.remember(new)

    def _redraw(self, old: ScalarsState | None, new: ScalarsState) -> list[Awaitable]:
        """Redraw what differs between `old` and `new` (everything when `old` is None)."""
        self.picker.show(new.tags)
        mounting: list[Awaitable] = []
        if old is None or old.chart_ids() != new.chart_ids():
            mounting = self._sync_charts(new)
        if old is None or old.chart_ids() != new.chart_ids() or old.fullscreen != new.fullscreen:
            self.set_class(bool(new.fullscreen), "-fullscreen")
            self.set_class(not new.chart_ids(), "-empty")
            self.layout_grid()
        if old is None or old.summary != new.summary:
            self.set_class(not new.summary, "-no-summary")
        self._bind_charts(new)
        self._show_texts(new)
        self._show_summary(new)
        return mounting

    def _sync_charts(self, state: ScalarsState) -> list[Awaitable]:
        """Mount the charts the state asks for, keeping the ones that stay."""
        wanted = state.chart_ids()
        focused = self.screen.focused if self.is_attached else None
        had_focus = isinstance(focused, ScalarChart) and focused.chart_id not in wanted
        self._charts, mounting = self.sync_grid(wanted, self._charts, lambda cid: ScalarChart(cid, cid))
        if had_focus and state.target() in self._charts:
            self.call_after_refresh(focus_now, self._charts[state.target()])  # type: ignore[index]
        return list(mounting)

    def grid_widgets(self) -> dict[str, ScalarChart]:
        return self._charts

    def shape_grid(self, grid, shown: list[str], width: int, height: int) -> None:
        columns, row_height = grid_shape(width, height, len(shown), bool(self.state.fullscreen))
        grid.styles.grid_size_columns = columns
        grid.styles.grid_rows = str(row_height)
        self._bind_shown()

    def _grid_shape(self) -> tuple[int, int]:
        """(columns, row height) of the grid as `layout_grid` laid it out."""
        grid = self.query_one(ChartGrid)
        rows = grid.styles.grid_rows
        row_height = int(rows[0].value) if rows else MIN_CHART_HEIGHT
        return int(grid.styles.grid_size_columns or 1), max(row_height, 1)

    def _charts_per_page(self) -> int:
        """How many charts one screenful of the grid shows (as `layout_grid` laid it out)."""
        columns, row_height = self._grid_shape()
        return columns * max(1, self.query_one(ChartGrid).size.height // row_height)

    def _on_screen(self) -> set[str]:
        """The charts the grid shows at its scroll position (every displayed one before it has a size)."""
        grid = self.query_one(ChartGrid)
        shown = [cid for cid, chart in self._charts.items() if chart.display]
        if not grid.size.height:
            return set(shown)
        columns, row_height = self._grid_shape()
        top, bottom = grid.scroll_y, grid.scroll_y + grid.size.height
        return {cid for i, cid in enumerate(shown)
                if (i // columns) * row_height < bottom and (i // columns + 1) * row_height > top}

    def _bind_shown(self) -> None:
        """The grid scrolled or was laid out again: charts now on screen that missed newer data get it."""
        if self._stale and self.is_mounted:
            shown = self._on_screen() & self._stale
            if shown:
                self._bind_charts(self.state, shown)

    def _bind_charts(self, state: ScalarsState, only: set[str] | None = None) -> None:
        """Bind every chart its plot, or only the charts in `only` (the others are marked stale: bound
        when shown); a chart whose key and options did not change keeps its drawing."""
        for chart_id, chart in self._charts.items():
            if only is not None and chart_id not in only:
                self._stale.add(chart_id)
                continue
            self._stale.discard(chart_id)
            tags = state.chart_tags(chart_id)
            if chart_id == OVERLAY:
                chart.set_title("combined: " + ", ".join(tags))
            key = self._chart_key(state, chart_id, tags)
            options = self._chart_options(state, chart_id, tags)
            if key != chart.plot.key or options != chart.plot.options:
                chart.plot = ChartPlot(key, options, tuple(self._traces(state, chart_id, tags)))

    def _chart_key(self, state: ScalarsState, chart_id: str, tags: tuple[str, ...]) -> tuple:
        versions = tuple(self._series[(tid, tag)][1] if (tid, tag) in self._series else 0
                         for tag in tags for tid in self.train_ids)
        return (tags, self.train_ids, versions, state.smoothing, state.x_axis, state.settings(chart_id).threshold,
                state.overlay, state.normalised(chart_id), state.two_axes(chart_id), self.app.no_color)

    def _colour_and_marker(self, state: ScalarsState, tag_index: int, job_index: int) -> tuple[str, str]:
        many_jobs = self.comparing
        if state.overlay and not many_jobs:
            colour = SERIES_COLOURS[tag_index % len(SERIES_COLOURS)]
            marker = SERIES_MARKERS[tag_index % len(SERIES_MARKERS)] if self.app.no_color else "braille"
        else:
            colour = self.job_colour(self.train_ids[job_index])
            which = tag_index if state.overlay else job_index
            marker = SERIES_MARKERS[which % len(SERIES_MARKERS)] if (self.app.no_color or state.overlay) else "braille"
        return colour, marker

    def _traces(self, state: ScalarsState, chart_id: str, tags: tuple[str, ...]) -> list[Trace]:
        traces: list[Trace] = []
        normalised = state.normalised(chart_id)
        two_axes = state.two_axes(chart_id)
        above, below = state.settings(chart_id).threshold
        for k, tag in enumerate(tags):
            for j, tid in enumerate(self.train_ids):
                line = self.line(tid, tag, state)
                if line is None or not len(line.series):
                    continue
                colour, marker = self._colour_and_marker(state, k, j)
                raw = line.series.values
                smoothed = line.smoothed
                if normalised:
                    raw, smoothed = _normalise(raw, smoothed)
                right = two_axes and k == 1
                traces += line_traces(line.x, raw, smoothed, colour, right, marker)
                if (above is not None or below is not None) and not normalised:
                    hits = threshold_mask(line.series.values, above, below)
                    if hits.any():
                        traces.append(Trace(line.x[hits], line.series.values[hits], colour, "points", right))
        return traces

    def _chart_options(self, state: ScalarsState, chart_id: str, tags: tuple[str, ...]) -> ChartOptions:
        legend: list[tuple[str, str]] = []
        notes = []
        many_jobs = self.comparing
        if chart_id == OVERLAY and not many_jobs:
            legend = [(self._colour_and_marker(state, k, 0)[0], tag) for k, tag in enumerate(tags)]
        elif many_jobs:
            legend = [(self.job_colour(tid), tid) for tid in self.train_ids]
            if chart_id == OVERLAY:
                notes.append("tags by marker: " + ", ".join(
                    f"{tag} {_shown_marker(SERIES_MARKERS[k % len(SERIES_MARKERS)])}" for k, tag in enumerate(tags)))
        if state.two_axes(chart_id):
            notes.append(f"left axis: {tags[0]} · right axis: {tags[1]}")
        if state.normalised(chart_id):
            notes.append("normalised: each series scaled to 0..1")
        if state.smoothing > 0:
            notes.append(f"smoothed {state.smoothing:g}, raw faint")
        settings = state.settings(chart_id)
        hlines = tuple(v for v in settings.threshold if v is not None) if not state.normalised(chart_id) else ()
        cursor = state.cursor_x if chart_id == state.target() else None
        symbols: tuple[str, ...] = ()
        if self.app.no_color and legend:  # colours are gone: name each entry's marker instead
            symbols = tuple(_shown_marker(SERIES_MARKERS[i % len(SERIES_MARKERS)]) for i in range(len(legend)))
        return ChartOptions(state.x_axis, state.x_range, settings.log_y, cursor, hlines, tuple(legend), symbols,
                            " · ".join(notes))

    # -- status, read-out, empty chart area --------------------------------------------------------

    def _show_texts(self, state: ScalarsState) -> None:
        self._show_text("#scalar-status", self._status(state))
        self._show_text("#scalar-readout", self._readout(state))
        if not state.chart_ids():
            self._show_text("#scalar-empty", literal(self._empty_reason(state)))

    def _show_text(self, selector: str, text: Any) -> None:
        """Update a line only when its text changed: an update lays the screen out again (every
        chart repainted), which live data must not cost several times a second."""
        if self._texts.get(selector) != text:
            self._texts[selector] = text
            self.query_one(selector, Static).update(text)

    # -- summary table ------------------------------------------------------------------------------

    @property
    def summary(self) -> SummaryTable:
        return self.query_one("#scalar-summary", SummaryTable)

    def _show_summary(self, state: ScalarsState, live: bool = False) -> None:
        if state.summary and state.chart_ids():
            self.summary.show(self.summary_rows(state), runs_column=self.comparing, live=live)

    def summary_rows(self, state: ScalarsState) -> list[SummaryRow]:
        """One row per shown tag and run that has it: its digest, the point at the cursor, and
        whether it is the tag's best run (only among two or more; runs tied for best all are; NaN and inf never win)."""
        rows: list[SummaryRow] = []
        for tag in state.tags.visible():
            way = state.best_direction(tag)
            runs = [(tid, self._digests.get((tid, tag))) for tid in self.train_ids if (tid, tag) in self._series]
            best: frozenset[int] = frozenset()
            if len(runs) > 1 and way is not None:
                best = best_of([d.best(way == LOWER)[0] if d is not None else None for _, d in runs], way)
            for i, (tid, digest) in enumerate(runs):
                rows.append(SummaryRow(tag, tid, self.job_colour(tid), digest, self._cursor_point(state, tid, tag),
                                       way, i in best))
        return rows

    def _cursor_point(self, state: ScalarsState, train_id: str, tag: str) -> tuple[int, float] | None:
        """(step, value) of the series' point nearest the value cursor."""
        if state.cursor_x is None:
            return None
        line = self.line(train_id, tag, state)
        if line is None or not len(line.x):
            return None
        i = int(np.argmin(np.abs(line.x - state.cursor_x)))  # as `value_at`, on the x kept for drawing
        return int(line.series.steps[i]), float(line.series.values[i])

    def _best_tag(self) -> str | None:
        """The tag `b` acts on: the summary table's row when the table has the keyboard, else the
        focused chart's tag (the combined chart: the table's row)."""
        table = self.summary
        target = self.state.target()
        if self.screen.focused is table or target in (None, OVERLAY):
            return table.current_tag
        return target

    def action_summary(self) -> None:
        self.state = self.state.toggle_summary()

    def action_best(self) -> None:
        tag = self._best_tag()
        if tag is None:
            self.notify("Select a tag first", severity="warning")
            return
        self.state = self.state.cycle_best(tag)
        way = self.state.best_direction(tag)
        self.notify(markup(f"{tag}: " + (f"{way} is better" if way else "no best marked")), timeout=2)

    def action_best_flip_all(self) -> None:
        self.state = self.state.flip_best(self.state.tags.visible())

    def _empty_reason(self, state: ScalarsState) -> str:
        if not state.tags.tags:
            return "no scalar tags yet" if any(not j.ready for j in self.jobs) else "these jobs have no scalars"
        return state.tags.empty_reason()

    def _status(self, state: ScalarsState) -> str:
        """The status line (markup): the shared settings, then what the focused chart has of its own."""
        if not state.tags.tags:
            return markup(self._empty_reason(state))
        parts = [f"x: {state.x_axis}"]
        parts.append(f"smoothing {state.smoothing:g}" if state.smoothing else "no smoothing")
        target = state.target()
        settings = state.settings(target)
        own = []
        if target is not None and settings.log_y:
            chart = self._charts.get(target)
            problem = log_y_problem(list(chart.plot.traces)) if chart is not None else ""
            own.append("log y" if not problem else "log y off: values ≤ 0")
        if settings.has_threshold:
            own.append("threshold " + describe_threshold(*settings.threshold))
        if target is not None and own:
            name = "one chart" if target == OVERLAY else target
            parts.append(f"{markup(name)}: {', '.join(own)}")
        if state.x_range is not None:
            lo, hi = state.x_range
            parts.append(f"zoom {self._x_text(state, lo)}..{self._x_text(state, hi)} (⌫ back, 0 reset)")
        if state.zoom_anchor is not None:
            parts.append(f"zoom from {self._x_text(state, state.zoom_anchor)}: move, z again")
        if state.overlay:
            parts.append("one chart")
        if state.fullscreen:
            parts.append("full screen (f/esc)")
        return " · ".join(parts)

    @staticmethod
    def _x_text(state: ScalarsState, x: float) -> str:
        if state.x_axis == "step":
            return f"{x:.0f}" if abs(x) < 1e15 else f"{x:.3g}"
        if state.x_axis == "relative":
            return duration(x)
        return clock_time(x)

    def _readout(self, state: ScalarsState) -> Text | str:
        chart_id = state.target()
        if chart_id is None or chart_id not in self._charts:
            return ""
        if state.cursor_x is None:
            return "[dim]←/→ value cursor · z zoom to range · [ ] pan · ? every key[/dim]"
        lines = []
        for k, tag in enumerate(state.chart_tags(chart_id)):
            for j, tid in enumerate(self.train_ids):
                line = self.line(tid, tag, state)
                if line is None or not len(line.series):
                    continue
                view = self.cache.job(tid)
                origin = view.first_wall_time if view is not None else None
                i = value_at(line.series, state.cursor_x, state.x_axis, origin)  # type: ignore[arg-type]
                if i < 0:
                    continue
                colour, _ = self._colour_and_marker(state, k, j)
                who = (f"{tid} " if self.comparing else "") + tag
                wall = float(line.series.wall_times[i])
                relative = wall - origin if origin is not None else float("nan")
                text = Text.assemble(("● ", colour), literal(who, "bold"),
                                     f"  step {int(line.series.steps[i])}",
                                     f"  value {number(line.series.values[i])}")
                if line.smoothed is not None:
                    text.append(f"  smoothed {number(line.smoothed[i])}")
                text.append(f"  {short_time(wall)} +{duration(relative)}", style="dim")
                lines.append(text)
        return Text("\n").join(lines) if lines else Text("no point here", style="dim")

    # -- focus ------------------------------------------------------------------------------------

    def on_descendant_focus(self, event: DescendantFocus) -> None:
        widget = event.widget
        if isinstance(widget, ScalarChart):
            self.state = self.state.with_active(widget.chart_id)

    def _focus_chart(self, chart_id: str | None) -> None:
        chart = self._charts.get(chart_id or "")
        if chart is None:
            return
        if chart.is_mounted:
            focus_now(chart)
        else:  # mounted just now: focus it once it is
            self.call_after_refresh(focus_now, chart)

    # -- actions ------------------------------------------------------------------------------------

    def action_smooth(self, direction: int) -> None:
        self.state = self.state.smooth(direction)

    def action_cycle_x(self) -> None:
        self.state = self.state.cycle_x(self._cursor_on_next_axis(self.state))

    def _cursor_on_next_axis(self, state: ScalarsState) -> float | None:
        """The x on the next axis of the point under the value cursor (its first series that has one)."""
        chart_id = state.target()
        if state.cursor_x is None or chart_id is None:
            return None
        for tag in state.chart_tags(chart_id):
            for tid in self.train_ids:
                line = self.line(tid, tag, state)
                if line is None or not len(line.series):
                    continue
                view = self.cache.job(tid)
                origin = view.first_wall_time if view is not None else None
                i = value_at(line.series, state.cursor_x, state.x_axis, origin)  # type: ignore[arg-type]
                if i >= 0:
                    x = x_values(line.series, state.next_x_axis(), origin)[i]  # type: ignore[arg-type]
                    return float(x) if math.isfinite(x) else None
        return None

    def action_log_y(self) -> None:
        target = self.state.target()
        if target is not None:
            self.state = self.state.toggle_log_y(target)

    def action_log_y_all(self) -> None:
        self.state = self.state.toggle_log_y_all()

    def action_threshold(self) -> None:
        from ..dialogs import PromptScreen

        chart_id = self.state.target()
        if chart_id is None:
            self.notify("Select a tag first", severity="warning")
            return

        def validate(text: str) -> str:
            try:
                parse_threshold(text)
            except ValueError as exc:
                return str(exc)
            return ""

        def done(text: str | None) -> None:
            if text is not None:
                self.state = self.state.with_threshold(chart_id, *parse_threshold(text))

        name = "the combined chart" if chart_id == OVERLAY else markup(chart_id)
        current = describe_threshold(*self.state.settings(chart_id).threshold).replace(" or ", " ")
        self.app.push_screen(PromptScreen(f"Highlight points of [b]{name}[/b] beyond a threshold: "
                                          "[b]> 2.5[/b], [b]< 0.1[/b] or both; empty clears",
                                          current, "> 2.5", validate), done)

    def action_overlay(self) -> None:
        if not self.state.overlay and len(self.state.tags.visible()) < 2:
            self.notify("Select two or more tags to draw them in one chart", severity="warning")
            return
        self.state = self.state.toggle_overlay()
        self._focus_chart(self.state.target())

    def action_normalise(self) -> None:
        self.state = self.state.toggle_normalise()

    def action_fullscreen(self) -> None:
        focused = self.screen.focused
        chart_id = focused.chart_id if isinstance(focused, ScalarChart) else None
        self.state = self.state.toggle_fullscreen(chart_id)
        self._focus_chart(self.state.target())

    def leave_first(self) -> bool:
        """`escape` first cancels a zoom range being chosen."""
        if self.state.zoom_anchor is None:
            return False
        self.state = self.state.cancel_anchor()
        return True

    # -- paging the grid ----------------------------------------------------------------------------

    def action_page(self, direction: int) -> None:
        """pgdn/pgup: a screenful of charts further (in full screen: the next chart)."""
        ids = list(self._charts)
        if not ids:
            return
        target = self.state.target()
        index = ids.index(target) if target in ids else 0
        step = 1 if self.state.fullscreen else self._charts_per_page()
        self._go_to_chart(ids, max(0, min(len(ids) - 1, index + direction * step)))

    def action_page_to(self, index: int) -> None:
        """home/end: the first or the last chart."""
        ids = list(self._charts)
        if ids:
            self._go_to_chart(ids, index % len(ids))

    def _go_to_chart(self, ids: list[str], index: int) -> None:
        chart_id = ids[index]
        if self.state.fullscreen:
            self.state = self.state.with_fullscreen(chart_id)
        else:
            self.state = self.state.with_active(chart_id)
        chart = self._charts[chart_id]
        focus_now(chart)
        if not self.state.fullscreen:
            self.query_one(ChartGrid).scroll_to_widget(chart, animate=False, top=True)

    # -- value cursor and zoom ----------------------------------------------------------------------

    def _active_x(self, state: ScalarsState) -> np.ndarray:
        """The distinct x of the active chart's series inside the visible range, sorted."""
        chart_id = state.target()
        if chart_id is None:
            return np.empty(0)
        lines = [self.line(tid, tag, state) for tag in state.chart_tags(chart_id) for tid in self.train_ids]
        arrays = [line.x for line in lines if line is not None and len(line.x)]
        if not arrays:
            return np.empty(0)
        x = np.unique(np.concatenate(arrays))
        x = x[np.isfinite(x)]
        if state.x_range is not None:
            lo, hi = state.x_range
            x = x[(x >= lo) & (x <= hi)]
        return x

    def _whole_range(self, state: ScalarsState) -> tuple[float, float] | None:
        """The x range the charts show when not zoomed."""
        traces = [Trace(line.x, line.series.values, "#000000")
                  for chart_id in state.chart_ids() for tag in state.chart_tags(chart_id)
                  for tid in self.train_ids if (line := self.line(tid, tag, state)) is not None]
        return x_limits(traces, ChartOptions())

    def action_cursor(self, move: int) -> None:
        self.state = self.state.move_cursor(self._active_x(self.state).tolist(), move)

    def action_zoom(self, factor: float) -> None:
        self.state = self.state.zoom_by(factor, self._whole_range(self.state))

    def action_pan(self, fraction: float) -> None:
        self.state = self.state.pan(fraction, self._whole_range(self.state))

    def action_zoom_range(self) -> None:
        self.state = self.state.mark_zoom(self._active_x(self.state).tolist())

    def action_zoom_back(self) -> None:
        if not self.state.zoom_stack:
            if self.state.zoom_anchor is None:
                self.notify("Nothing to go back to", timeout=1.5)
            return
        self.state = self.state.zoom_back()

    def action_zoom_reset(self) -> None:
        self.state = self.state.zoom_reset()

    # -- export ---------------------------------------------------------------------------------------

    def export_scope(self) -> dict[str, Any]:
        return {"train_ids": list(self.train_ids), "plugins": {"scalar"},
                "tags": {("scalar", tag) for tag in self.state.tags.visible()}}

    def describe_export(self) -> str:
        tags = self.state.tags.visible()
        return f"{len(tags)} scalar tag{'s' if len(tags) != 1 else ''} of {', '.join(self.train_ids)}"


def line_traces(x: np.ndarray, raw: np.ndarray, smoothed: np.ndarray | None, colour: str, right: bool = False,
                marker: str = "braille") -> list[Trace]:
    """One series as drawn: its raw line, or faint under its smoothed line."""
    if smoothed is None:
        return [Trace(x, raw, colour, "line", right, marker)]
    return [Trace(x, raw, colour, "faint", right, marker), Trace(x, smoothed, colour, "smoothed", right, marker)]


def grid_shape(width: int, height: int, count: int, fullscreen: bool = False) -> tuple[int, int]:
    """(columns, row height) of a grid of `count` charts on `width` x `height` cells: as many
    columns of at least `MIN_CHART_WIDTH` as fit, two rows a screen (more: a part of the third shows
    that more follow); full screen, one chart filling it."""
    if fullscreen:
        return 1, height
    columns = max(1, min(count, width // MIN_CHART_WIDTH))
    rows = math.ceil(count / columns)
    row_height = max(MIN_CHART_HEIGHT, height // max(1, min(rows, 2)))
    if rows > 2:  # leave room to see that more charts follow
        row_height = max(MIN_CHART_HEIGHT, min(row_height, height * 2 // 5))
    return columns, row_height


def _shown_marker(marker: str) -> str:
    return "⣿" if marker == "braille" else marker


def _normalise(raw: np.ndarray, smoothed: np.ndarray | None) -> tuple[np.ndarray, np.ndarray | None]:
    finite = raw[np.isfinite(raw)]
    if not len(finite):
        return raw, smoothed
    lo, hi = float(finite.min()), float(finite.max())
    span = hi - lo if hi > lo else 1.0
    return (raw - lo) / span, (None if smoothed is None else (smoothed - lo) / span)

