"""The lineage view's panes, each a whole widget over text its presenter made:

- `LineageFilterBox`: the filter's text box (`/`) and under it the hint, or why the text could
  not be read (the view parses; the box only shows);
- `LineagePanel`: above the table, one part at a time (parallel coordinates, the importance
  ranking, a scatter) and the one-line read-out under it;
- `LineageDatasetPane`: the dataset table and beside it (under it when narrow) the pipeline
  of the job under its cursor;
- `LineageModes`: the model table or the dataset pane, which show the same rows in one order
  and keep one cursor row between them.
"""
from __future__ import annotations

from typing import Any, Callable, Hashable, Sequence

from rich.console import RenderableType
from textual.app import ComposeResult
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.events import Resize
from textual.widget import Widget
from textual.widgets import ContentSwitcher, Static

from ..state.lineage import CHART, DATASET, IMPORTANCE, MODEL
from .importance_table import ImportanceTable
from .lineage_table import LineageTable
from .on_demand_input import ReturningInput
from .parallel_coords import ParallelChart
from .scatter import ScatterPlot

NARROW = 110  # below this width the dataset pane's detail goes under its table


class LineageFilterBox(Vertical):
    """Hidden until opened or given text; the message is the hint, or an error in bold."""

    DEFAULT_CSS = """
    LineageFilterBox { height: auto; display: none; }
    LineageFilterBox.-shown { display: block; }
    LineageFilterBox #lineage-filter { height: 3; }
    LineageFilterBox #lineage-message { height: auto; max-height: 2; padding: 0 1; color: $foreground-muted; }
    LineageFilterBox #lineage-message.-error { color: $error; text-style: bold; }
    """

    def __init__(self, value: str, placeholder: str, hint: str, **kwargs: Any) -> None:
        super().__init__(classes="-shown" if value else "", **kwargs)
        self._filter_text = value
        self._filter_prompt = placeholder
        self._hint = hint

    def compose(self) -> ComposeResult:
        yield ReturningInput(self._filter_text, placeholder=self._filter_prompt, id="lineage-filter")
        yield Static(self._hint, id="lineage-message")

    @property
    def box(self) -> ReturningInput:
        return self.query_one("#lineage-filter", ReturningInput)

    def open(self) -> None:
        self.add_class("-shown")
        self.box.open()

    def show_error(self, error: str | None) -> None:
        """`error` (markup) under the box; None: the hint again."""
        message = self.query_one("#lineage-message", Static)
        if error is not None:
            message.update(error)
        elif message.has_class("-error"):
            message.update(self._hint)
        message.set_class(error is not None, "-error")

    def show_text(self, text: str) -> None:
        """The filter written elsewhere (a brush step): the box shows it and opens when not empty."""
        if self.box.value != text:
            self.box.value = text
        if text:
            self.add_class("-shown")

    def close(self, clear: bool = False) -> None:
        if clear:
            self.box.value = ""
        self.remove_class("-shown")


class LineagePanel(Vertical):
    """The chart, the ranking and the scatter, of which `show_part` shows one, and the read-out."""

    DEFAULT_CSS = """
    LineagePanel > .lineage-panel-part { display: none; }
    LineagePanel > .lineage-panel-part.-shown { display: block; }
    LineagePanel #lineage-readout { height: 1; padding: 0 1; color: $foreground-muted; text-wrap: nowrap;
                                    text-overflow: ellipsis; }
    """

    def compose(self) -> ComposeResult:
        yield ParallelChart(id="lineage-chart", classes="lineage-panel-part")
        yield ImportanceTable(id="lineage-importance", classes="lineage-panel-part")
        yield ScatterPlot(id="lineage-scatter", classes="lineage-panel-part")
        yield Static("", id="lineage-readout")

    def part(self, panel: str, scatter: bool) -> Widget | None:
        """The part the state's `panel` (and `scatter`) names; None: no panel."""
        if panel == CHART:
            return self.query_one(ParallelChart)
        if panel == IMPORTANCE:
            return self.query_one(ScatterPlot) if scatter else self.query_one(ImportanceTable)
        return None

    def show_part(self, shown: Widget | None) -> None:
        for part in self.query(".lineage-panel-part"):
            part.set_class(part is shown, "-shown")

    def set_readout(self, text: RenderableType) -> None:
        self.query_one("#lineage-readout", Static).update(text, layout=False)  # one line


class LineageDatasetPane(Horizontal):
    """The dataset table and the pipeline detail; `-narrow` puts the detail under the table."""

    DEFAULT_CSS = """
    LineageDatasetPane { height: 1fr; }
    LineageDatasetPane #lineage-dataset-table { width: 1fr; height: 1fr; }
    LineageDatasetPane #lineage-detail-scroll {
        width: 40%; max-width: 72; height: 1fr; border-left: solid $panel-lighten-2; padding: 0 1;
    }
    LineageDatasetPane.-narrow { layout: vertical; }
    LineageDatasetPane.-narrow #lineage-detail-scroll {
        width: 1fr; height: 40%; border-left: none; border-top: solid $panel-lighten-2;
    }
    """

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self._detail_key: Hashable = None

    def compose(self) -> ComposeResult:
        yield LineageTable(id="lineage-dataset-table")
        with VerticalScroll(id="lineage-detail-scroll"):
            yield Static("", id="lineage-detail")

    def on_mount(self) -> None:
        self.query_one("#lineage-detail-scroll", VerticalScroll).can_focus = True

    def show_detail(self, key: Hashable, detail: Callable[[], RenderableType]) -> None:
        """The pipeline `detail()` draws for `key`; the same key again: no new text, no new layout
        (a brush step redraws often)."""
        if key != self._detail_key:
            self._detail_key = key
            self.query_one("#lineage-detail", Static).update(detail())


class LineageModes(ContentSwitcher):
    """`#lineage-model` (the model table) or `#lineage-dataset` (the dataset pane), by mode."""

    def __init__(self, mode: str, **kwargs: Any) -> None:
        super().__init__(initial=self._child(mode), **kwargs)

    @staticmethod
    def _child(mode: str) -> str:
        return "lineage-model" if mode == MODEL else "lineage-dataset"

    def compose(self) -> ComposeResult:
        yield LineageTable(id="lineage-model")
        yield LineageDatasetPane(id="lineage-dataset")

    def on_resize(self, event: Resize) -> None:
        self.query_one(LineageDatasetPane).set_class(event.size.width < NARROW, "-narrow")

    def table(self, mode: str) -> LineageTable:
        return self.query_one("#lineage-model" if mode == MODEL else "#lineage-dataset-table", LineageTable)

    def show(self, old: str, new: str) -> LineageTable:
        """Switch from mode `old` to `new`, the cursor on the same run; the table now shown."""
        keep = self.table(old).current_row_key
        self.current = self._child(new)
        shown = self.table(new)
        shown.move_to(row_key=keep)
        return shown

    def set_order(self, order: Sequence[str], empty: str, column: str | None, descending: bool) -> None:
        """Both tables show the rows `order` names, sorted by `column` (`empty`: what none says)."""
        for table in (self.table(MODEL), self.table(DATASET)):
            table.empty_text = empty
            table.set_sort(column, descending)
            table.set_order(order)

    def move_to(self, row: str) -> None:
        """Both tables' cursors on `row`."""
        for table in (self.table(MODEL), self.table(DATASET)):
            if table.current_row_key != row:
                table.move_to(row_key=row)
