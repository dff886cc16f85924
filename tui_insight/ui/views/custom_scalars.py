"""The custom scalars view: the writer's layout (`add_custom_scalars`), one category at a time,
its charts in a grid drawn as the scalar view draws its charts (`ScalarChart`).

A multiline chart draws every scalar tag of the shown jobs matching one of its regular
expressions (`re.search`, as TensorBoard); a margin chart draws each series' value line over a
shaded band from its lower to its upper tag. A chart that matches nothing says so in its place.
The jobs' layouts are merged (`summary/queries/custom_scalars.py`).

Keys: `n` `p` next / previous category · `s` `S` smooth more / less · `x` x-axis · `y` log y ·
left / right the value cursor on the focused chart (shift: a jump) · esc clears it · tab moves
between charts. The line under the grid reads each series of the focused chart at the cursor.
"""
from __future__ import annotations

from typing import Any

from textual.actions import SkipAction
from textual.app import ComposeResult
from textual.binding import Binding
from textual.events import DescendantFocus
from textual.reactive import reactive
from textual.widget import Widget
from textual.widgets import Static
from textual.worker import Worker

from ...summary.formats.custom_scalars import Category, Chart
from ...summary.queries.custom_scalars import ChartContent, categories, content
from ...summary.store.job_view import Changes, JobView
from ..common.text import literal, markup
from ..presenters import custom_scalars as present
from ..presenters.scalars import grid_shape
from ..state.custom_scalars import CustomScalarsState
from ..state.scalars import CURSOR_JUMP
from ..widgets.chart import ChartPlot, ScalarChart
from .base import DataView, ViewSpec
from .scalars import ChartGrid


class MissingChart(Static, can_focus=True):
    """A chart of the layout that draws nothing, saying why, in the chart's place. It takes the
    keyboard as a chart does, so a category of such charts still answers the view's keys."""

    DEFAULT_CSS = """
    MissingChart { border: round $panel-lighten-2; height: 100%; content-align: center middle;
                   color: $text-muted; }
    MissingChart:focus { border: round $accent; }
    """


class CustomScalarsView(DataView):
    SPEC = ViewSpec("custom_scalars", "Custom scalars", "L", ("scalar",), "job")
    HELP_GROUP = "Custom scalars"
    HELP_NOTE = ("[b]Custom scalars[/b] draw the writer's layout (add_custom_scalars): one category at a time;\n"
                 "  multiline charts: every scalar tag matching a chart's regular expressions (re.search);\n"
                 "  margin charts: the value line over a shaded band from its lower to its upper tag")
    DEFAULT_CSS = """
    CustomScalarsView { layout: vertical; }
    CustomScalarsView #cs-status { height: 1; padding: 0 1; background: $panel; text-wrap: nowrap;
                                   text-overflow: ellipsis; }
    CustomScalarsView #cs-empty { height: 1fr; content-align: center middle; color: $text-muted; display: none; }
    CustomScalarsView.-empty #cs-empty { display: block; }
    CustomScalarsView.-empty ChartGrid { display: none; }
    CustomScalarsView #cs-readout { height: auto; max-height: 6; padding: 0 1; background: $panel; }
    """
    BINDINGS = [
        Binding("n", "category(1)", "Next category", id="custom_scalars.next_category"),
        Binding("p", "category(-1)", "Previous category", show=False, id="custom_scalars.previous_category"),
        Binding("s", "smooth(1)", "Smooth more", id="custom_scalars.smooth_more"),
        Binding("S", "smooth(-1)", "Smooth less", show=False, id="custom_scalars.smooth_less"),
        Binding("x", "cycle_x", "X axis", id="custom_scalars.x_axis"),
        Binding("y", "log_y", "Log y", id="custom_scalars.log_y"),
        Binding("left", "cursor(-1)", "Cursor left", show=False, id="custom_scalars.cursor_left"),
        Binding("right", "cursor(1)", "Cursor right", show=False, id="custom_scalars.cursor_right"),
        Binding("shift+left", f"cursor(-{CURSOR_JUMP})", "Cursor jump left", show=False,
                id="custom_scalars.jump_left"),
        Binding("shift+right", f"cursor({CURSOR_JUMP})", "Cursor jump right", show=False,
                id="custom_scalars.jump_right"),
        Binding("escape", "clear_cursor", "Clear cursor", show=False, id="custom_scalars.clear_cursor"),
    ]

    state: reactive[CustomScalarsState] = reactive(CustomScalarsState, init=False)

    def __init__(self, cache, train_ids, **kwargs: Any):
        super().__init__(cache, train_ids, **kwargs)
        self.set_reactive(CustomScalarsView.state, CustomScalarsState.from_json(self.saved))
        self._version = 0  # bumped when the shown jobs' data changes
        self._shape: tuple = ()  # what the grid holds: (category, chart, empty reason) of each cell
        self._cells: list[Widget] = []  # the grid's widgets, one per chart of the category
        self._drawn: list[list[present.Drawn]] = []  # per cell, the series it draws

    @classmethod
    def has_data(cls, job: JobView) -> bool:
        return job.custom_scalars is not None  # the tab shows only on jobs with a layout

    def compose(self) -> ComposeResult:
        yield Static("", id="cs-status")
        yield ChartGrid(id="cs-grid")
        yield Static("", id="cs-empty")
        yield Static("", id="cs-readout")

    async def on_mount(self) -> None:
        self.set_reactive(CustomScalarsView.state, self._settled(self.state))
        await self._redraw()
        self.remember(self.state)
        self.ready_for_keys()

    def first_focus(self) -> Widget | None:
        cells = self._cells
        return cells[min(self.state.active, len(cells) - 1)] if cells else None

    # -- data -----------------------------------------------------------------------------------

    def categories(self) -> list[Category]:
        return categories(self.jobs)

    def category(self) -> Category | None:
        return next((c for c in self.categories() if c.title == self.state.category), None)

    def charts(self) -> list[ScalarChart]:
        """The chart widgets of the category shown, in order (those that draw something)."""
        return [cell for cell in self._cells if isinstance(cell, ScalarChart)]

    def _settled(self, state: CustomScalarsState) -> CustomScalarsState:
        found = self.categories()
        return state.settled([c.title for c in found], [c.title for c in found if c.closed])

    def cache_changed(self, changes: Changes) -> None:
        ids = set(self.train_ids)
        # A job read again from scratch may bring a new layout; else only scalars matter.
        if not any(changes.tags(tid, "scalar") != set() for tid in ids & changes.jobs()):
            return
        self._version += 1
        settled = self._settled(self.state)
        if settled != self.state:
            self.state = settled
        else:
            self._redraw_soon()

    # -- drawing ----------------------------------------------------------------------------------

    def watch_state(self, old: CustomScalarsState, new: CustomScalarsState) -> None:
        self._redraw_soon()
        self.remember(new)

    def _redraw_soon(self) -> Worker[None]:
        """Redraw in a worker of its own group: a newer redraw cancels one not done yet."""
        return self.run_worker(self._redraw, group="custom-scalars", exclusive=True)

    async def _redraw(self) -> None:
        state = self.state
        category = self.category()
        views = {job.train_id: job for job in self.jobs}
        charts: tuple[Chart, ...] = category.charts if category is not None else ()
        contents = [content(chart, list(views.values())) for chart in charts]
        shape = tuple((state.category, chart, c.empty) for chart, c in zip(charts, contents))
        if shape != self._shape:
            await self._build(charts, contents)
            self._shape = shape
        colours = {tid: self.job_colour(tid) for tid in self.train_ids}
        self._drawn = []
        for index, (cell, chart_content) in enumerate(zip(self._cells, contents)):
            drawn = present.drawn_series(chart_content, views, state.x_axis, state.smoothing, colours, self.comparing)
            self._drawn.append(drawn)
            if isinstance(cell, ScalarChart):
                cursor = state.cursor_x if index == state.active else None
                options = present.chart_options(drawn, chart_content, state.x_axis, state.smoothing, state.log_y, cursor)
                key = (state.category, index, self.train_ids, self._version, state.x_axis, state.smoothing)
                if key != cell.plot.key or options != cell.plot.options:
                    cell.plot = ChartPlot(key, options, tuple(present.traces_of(drawn)))
        self.set_class(not self._cells, "-empty")
        loading = any(not job.ready for job in self.jobs)
        titles = [c.title for c in self.categories()]
        origins = {job.train_id: job.first_wall_time for job in self.jobs}
        self.query_one("#cs-empty", Static).update(present.empty_reason(category, self.train_ids, loading))
        self.query_one("#cs-status", Static).update(present.status(state, category, titles, contents))
        self.query_one("#cs-readout", Static).update(present.readout(state, self._drawn, origins, bool(self.charts())))

    async def _build(self, charts: tuple[Chart, ...], contents: list[ChartContent]) -> None:
        """Mount one cell per chart of the category: its chart, or what says why it draws nothing."""
        grid = self.query_one(ChartGrid)
        had_focus = self.is_attached and self.screen.focused in self._cells
        await grid.remove_children()
        cells: list[Widget] = []
        for index, (chart, chart_content) in enumerate(zip(charts, contents)):
            if chart_content.empty:
                cell: Widget = MissingChart(literal(chart_content.empty))
                cell.border_title = markup(chart.title)
            else:
                cell = ScalarChart(str(index), chart.title)
            cells.append(cell)
        self._cells = cells
        if cells:
            await grid.mount_all(cells)
        self.layout_grid()
        if had_focus:
            self.focus_view()

    def layout_grid(self) -> None:
        """The grid's columns and row height for its size (the grid calls it when resized)."""
        grid = self.query_one(ChartGrid)
        if grid.size.width and grid.size.height and self._cells:
            columns, row_height = grid_shape(grid.size.width, grid.size.height, len(self._cells))
            grid.styles.grid_size_columns = columns
            grid.styles.grid_rows = str(row_height)

    # -- actions ----------------------------------------------------------------------------------

    def on_descendant_focus(self, event: DescendantFocus) -> None:
        if event.widget in self._cells:
            self.state = self.state.with_active(self._cells.index(event.widget))

    def action_category(self, direction: int) -> None:
        self.state = self.state.next_category([c.title for c in self.categories()], direction)

    def action_smooth(self, direction: int) -> None:
        self.state = self.state.smooth(direction)

    def action_cycle_x(self) -> None:
        self.state = self.state.cycle_x()

    def action_log_y(self) -> None:
        self.state = self.state.toggle_log_y()

    def action_cursor(self, move: int) -> None:
        self.state = self.state.move_cursor(present.cursor_stops(self._drawn, self.state.active), move)

    def action_clear_cursor(self) -> None:
        if self.state.cursor_x is None:
            raise SkipAction()  # esc means something further up (leave the view)
        self.state = self.state.clear_cursor()
