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

import time
from typing import Any, Awaitable

from textual.app import ComposeResult
from textual.binding import Binding
from textual.events import DescendantFocus
from textual.reactive import reactive

from ...summary.queries import ranks
from ...summary.store.job_view import Changes
from ..common.focus import focus_now
from ..common.text import literal
from ..state.scalars import CURSOR_JUMP, OVERLAY, ScalarsState, parse_threshold
from ..presenters import scalars as present
from ..presenters.scalars import MIN_CHART_HEIGHT, Line, ScalarLines, grid_shape
from ..widgets.chart import ChartPlot, ScalarChart, log_y_problem
from ..widgets.scalar_panes import ChartGrid, ScalarMain
from ..widgets.summary_table import SummaryTable
from .base import ViewSpec
from .tag_grid import TagGridView

__all__ = ["CURSOR_JUMP", "OVERLAY", "ScalarsView"]


class ScalarsView(TagGridView):
    STATE = ScalarsState
    PICKER = ("scalar", "tags")
    GRID = ChartGrid
    MIN_ROW_HEIGHT = MIN_CHART_HEIGHT
    SPEC = ViewSpec("scalars", "Scalars", "1", ("scalar",), "job")
    HELP_GROUP = "Scalars"
    HELP_NOTE = present.HELP_NOTE
    DEFAULT_CSS = """
    ScalarsView { layout: horizontal; }
    ScalarsView #scalar-empty { height: 1fr; content-align: center middle; color: $text-muted; display: none; }
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
        Binding("r", "rank_view", "Ranks: band, one rank, every rank", show=False, id="scalars.rank_view"),
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
        self.lines = ScalarLines()  # each job's series of each tag, and what is derived from them
        self._charts: dict[str, ScalarChart] = {}
        self._live_drawn = -present.LIVE_REDRAW_SECONDS  # time.monotonic() of the last live redraw
        self._live_timer: Any = None
        self._stale: set[str] = set()  # charts off screen that newer data was not bound to yet

    @property
    def charts(self) -> dict[str, ScalarChart]:
        """The chart widgets, by chart id (a tag, or OVERLAY), in grid order."""
        return dict(self._charts)

    # -- building -----------------------------------------------------------------------------

    def compose(self) -> ComposeResult:
        # The charts on screen are composed with the view, so its first frame has them (mounted
        # in `on_mount`, they came one layout and paint later); `_redraw` keeps them and the
        # others are mounted after that frame (`first_keys`, `grow_later`).
        self.lines.load_jobs(self.jobs)
        state = self.state.with_tags(self.state.tags.with_tags(self.lines.tags())).with_ranks(len(self.train_ids))
        self.set_reactive(ScalarsView.state, state)
        self._charts = {chart_id: ScalarChart(chart_id, chart_id) for chart_id in self.first_keys(state.chart_ids())}
        yield self.picker
        yield ScalarMain(self._charts.values(), id="scalar-main")

    async def on_mount(self) -> None:
        state = self.state
        for mounting in self._redraw(None, state):
            await mounting
        self.watch(self.query_one(ChartGrid), "scroll_y", self._bind_shown, init=False)
        self.ready_for_keys()  # the charts are composed and bound: keys may come
        self.grow_later()

    def first_focus(self):
        target = self._charts.get(self.state.target() or "")
        if target is not None and target.display:
            return target
        shown = [chart for chart in self._charts.values() if chart.display]
        return shown[0] if shown else self.picker.listing

    # -- data -----------------------------------------------------------------------------------

    def _origin(self, train_id: str) -> float | None:
        """The job's first wall time: what relative time counts from."""
        view = self.cache.job(train_id)
        return view.first_wall_time if view is not None else None

    def scene(self) -> present.Scene:
        """What the presenters need of the view besides its state."""
        return present.Scene(self.train_ids, self.lines, {tid: self.job_colour(tid) for tid in self.train_ids},
                             {tid: self._origin(tid) for tid in self.train_ids}, self.comparing, self.app.no_color,
                             ranks.one_group(self.train_ids, ranks.profile_ranks(self.jobs)) is not None)

    def line(self, train_id: str, tag: str, state: ScalarsState | None = None) -> Line | None:
        """The series with its x and smoothed values for the state's x-axis and smoothing."""
        return self.lines.line(train_id, tag, state or self.state, self._origin(train_id))

    def cache_changed(self, changes: Changes) -> None:
        touched = self.lines.update(changes, {tid: self.cache.job(tid) for tid in self.train_ids})
        if touched and self.is_mounted:
            self._tags_changed(live=True)

    def _tags_changed(self, live: bool) -> None:
        """The series changed: new tags go into the state; otherwise the charts whose series
        changed redraw (at the live pace when `live`)."""
        state = self.state.with_tags(self.state.tags.with_tags(self.lines.tags()))
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
                self.lines.forget(tid)
        self.train_ids = train_ids
        self.lines.load_jobs(job for job in self.jobs if job.train_id in appearing)
        if self.is_mounted:
            self._tags_changed(live=False)
        return True

    def live_interval(self) -> float:
        """Seconds between live redraws, from what drawing the charts of the last one cost."""
        return present.live_interval(sum(chart.draw_seconds for chart in self._charts.values()
                                         if chart.drawn_at >= self._live_drawn))

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
            self._bind_charts(self.state, self.on_screen() if on_screen_only else None)
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
            self._show_parts(new)
            self.layout_grid()
        elif old.summary != new.summary:
            self._show_parts(new)
        self._bind_charts(new)
        self._show_texts(new)
        self._show_summary(new)
        return mounting

    def _show_parts(self, state: ScalarsState) -> None:
        """The tag list (not in full screen), the charts or the message that there are none, the
        summary table (asked for, with charts to sum up). Set on each part, not with a class on
        the view: that restyles every chart in it, ~0.2 s for the 100 MB run's charts as `a`
        takes them away."""
        empty = not state.chart_ids()
        self.picker.display = not state.fullscreen
        self.query_one("#scalar-empty").display = empty
        self.query_one(ChartGrid).display = not empty
        self.summary.display = bool(state.summary) and not empty

    def _sync_charts(self, state: ScalarsState) -> list[Awaitable]:
        """Mount the charts the state asks for, keeping the ones that stay."""
        wanted = self.limited(state.chart_ids()) if self._charts else self.first_keys(state.chart_ids())
        focused = self.screen.focused if self.is_attached else None
        had_focus = isinstance(focused, ScalarChart) and focused.chart_id not in wanted
        self._charts, mounting = self.sync_grid(wanted, self._charts, lambda cid: ScalarChart(cid, cid))
        if had_focus and state.target() in self._charts:
            self.call_after_refresh(focus_now, self._charts[state.target()])  # type: ignore[index]
        self.grow_later()
        return list(mounting)

    def grid_widgets(self) -> dict[str, ScalarChart]:
        return self._charts

    def grid_keys(self) -> tuple[str, ...]:
        return self.state.chart_ids()

    def grid_shape(self, width: int, height: int, count: int) -> tuple[int, int]:
        return grid_shape(width, height, count, bool(self.state.fullscreen))

    def grow(self) -> None:
        if self._sync_charts(self.state):
            self.layout_grid()
            self._bind_charts(self.state, self.on_screen())

    def shape_grid(self, grid, shown: list[str], width: int, height: int) -> None:
        columns, row_height = grid_shape(width, height, len(shown), bool(self.state.fullscreen))
        grid.styles.grid_size_columns = columns
        grid.styles.grid_rows = str(row_height)
        self._bind_shown()

    def rows_height(self, shown: list[str], width: int, height: int) -> int:
        columns, row_height = grid_shape(width, height, len(shown), bool(self.state.fullscreen))
        return -(-len(shown) // columns) * row_height

    def _bind_shown(self) -> None:
        """The grid scrolled or was laid out again: charts now on screen that missed newer data get it."""
        if self._stale and self.is_mounted:
            shown = self.on_screen() & self._stale
            if shown:
                self._bind_charts(self.state, shown)

    def _bind_charts(self, state: ScalarsState, only: set[str] | None = None) -> None:
        """Bind every chart its plot, or only the charts in `only` (the others are marked stale: bound
        when shown); a chart whose key and options did not change keeps its drawing."""
        scene = self.scene()
        for chart_id, chart in self._charts.items():
            if only is not None and chart_id not in only:
                self._stale.add(chart_id)
                continue
            self._stale.discard(chart_id)
            tags = state.chart_tags(chart_id)
            if chart_id == OVERLAY:
                chart.set_title("combined: " + ", ".join(tags))
            key = present.chart_key(scene, state, chart_id, tags)
            options = present.chart_options(scene, state, chart_id, tags)
            if key != chart.plot.key or options != chart.plot.options:
                chart.plot = ChartPlot(key, options, tuple(present.traces(scene, state, chart_id, tags)))

    # -- status, read-out, empty chart area --------------------------------------------------------

    def _show_texts(self, state: ScalarsState) -> None:
        loading = any(not job.ready for job in self.jobs)
        target = state.target()
        chart = self._charts.get(target) if target is not None else None
        problem = log_y_problem(list(chart.plot.traces)) if chart is not None and state.settings(target).log_y else ""
        main = self.query_one(ScalarMain)
        main.show_text("status", present.status(state, loading, problem))
        main.show_text("readout", present.readout(self.scene(), state, chart is not None))
        if not state.chart_ids():
            main.show_text("empty", literal(present.empty_reason(state, loading)))

    # -- summary table ------------------------------------------------------------------------------

    @property
    def summary(self) -> SummaryTable:
        return self.query_one("#scalar-summary", SummaryTable)

    def _show_summary(self, state: ScalarsState, live: bool = False) -> None:
        if state.summary and state.chart_ids():
            self.summary.show(present.summary_rows(self.scene(), state), runs_column=self.comparing, live=live)

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

    def action_rank_view(self) -> None:
        """`r` on a rank group's dashboard: the band, each rank over it in turn, every rank's line."""
        if ranks.one_group(self.train_ids, ranks.profile_ranks(self.jobs)) is None:
            self.notify("r goes with a rank group's dashboard (enter on its row in the job list)", severity="warning")
            return
        self.state = self.state.next_rank_view(len(self.train_ids))
        self.notify(present.rank_view_note(self.state.rank_view, self.train_ids), timeout=2)

    def action_best(self) -> None:
        tag = self._best_tag()
        if tag is None:
            self.notify("Select a tag first", severity="warning")
            return
        self.state = self.state.cycle_best(tag)
        self.notify(present.best_note(tag, self.state.best_direction(tag)), timeout=2)

    def action_best_flip_all(self) -> None:
        self.state = self.state.flip_best(self.state.tags.visible())

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
        self.state = self.state.cycle_x(present.cursor_on_next_axis(self.scene(), self.state))

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

        def done(text: str | None) -> None:
            if text is not None:
                self.state = self.state.with_threshold(chart_id, *parse_threshold(text))

        prompt, current = present.threshold_prompt(self.state, chart_id)
        self.app.push_screen(PromptScreen(prompt, current, "> 2.5", present.threshold_error), done)

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

    def go_to(self, chart_id: str) -> None:
        self.state = self.state.with_fullscreen(chart_id) if self.state.fullscreen else self.state.with_active(chart_id)
        super().go_to(chart_id)

    def leave_first(self) -> bool:
        """`escape` first cancels a zoom range being chosen."""
        if self.state.zoom_anchor is None:
            return False
        self.state = self.state.cancel_anchor()
        return True

    # -- value cursor and zoom ----------------------------------------------------------------------

    def action_cursor(self, move: int) -> None:
        self.state = self.state.move_cursor(present.active_x(self.scene(), self.state).tolist(), move)

    def action_zoom(self, factor: float) -> None:
        self.state = self.state.zoom_by(factor, present.whole_range(self.scene(), self.state))

    def action_pan(self, fraction: float) -> None:
        self.state = self.state.pan(fraction, present.whole_range(self.scene(), self.state))

    def action_zoom_range(self) -> None:
        self.state = self.state.mark_zoom(present.active_x(self.scene(), self.state).tolist())

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
