"""The scalar view's panes: the grid of charts (`ChartGrid`) and, around it, `ScalarMain`: the
status line, the grid, the sentence in place of an empty grid, the value read-out and the
summary table. `ScalarMain.show_text` updates a line only when its text changed: an update lays
the screen out again (every chart repainted), which live data must not cost several times a
second."""
from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from textual.app import ComposeResult
from textual.containers import Vertical
from textual.widget import Widget
from textual.widgets import Static

from .summary_table import SummaryTable
from .view_grid import ViewGrid


class ChartGrid(ViewGrid):
    """The scrollable grid that holds the charts; tells the view when its size changes."""

    DEFAULT_CSS = """
    ChartGrid { layout: grid; grid-size: 1; grid-rows: 14; overflow-y: auto; height: 1fr; }
    ChartGrid > ScalarChart { height: 100%; }
    """


class ScalarMain(Vertical):
    """`#scalar-status`, `#scalar-grid`, `#scalar-empty`, `#scalar-readout`, `#scalar-summary`."""

    DEFAULT_CSS = """
    ScalarMain { width: 1fr; height: 1fr; }
    ScalarMain #scalar-status { height: 1; padding: 0 1; background: $panel; }
    ScalarMain #scalar-readout { height: auto; max-height: 7; padding: 0 1; background: $panel; }
    """

    def __init__(self, charts: Iterable[Widget] = (), **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self._texts: dict[str, Any] = {}  # what each line shows now
        self._charts = list(charts)  # the grid's first charts, composed with it

    def compose(self) -> ComposeResult:
        yield Static("", id="scalar-status")
        yield ChartGrid(*self._charts, id="scalar-grid")
        yield Static("", id="scalar-empty")
        yield Static("", id="scalar-readout")
        yield SummaryTable(id="scalar-summary")

    def show_text(self, line: str, text: Any) -> None:
        """`text` on the line `line` ("status", "empty", "readout") unless it shows it already."""
        if self._texts.get(line) != text:
            self._texts[line] = text
            self.query_one(f"#scalar-{line}", Static).update(text)
