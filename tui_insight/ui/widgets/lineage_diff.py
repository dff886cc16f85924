"""The diff panel of a comparison dashboard (`D`): only the lineage columns where the shown runs differ.

One row per differing column (`summary.lineage_diff.differing_columns`), one column per run with
lineage, values written as the lineage table writes them. The border says how many columns
differ and which runs have no lineage to compare.
"""
from __future__ import annotations

from typing import Any, Sequence

from rich.text import Text

from ...summary.queries.lineage import LineageRow
from ...summary.queries.lineage_diff import differing_columns
from ..common.text import literal, markup
from .lineage_table import Cell, LineageTable, TableColumn, cell_text


class LineageDiff(LineageTable):
    HELP_GROUP = "Lineage diff"
    DEFAULT_CSS = """
    LineageDiff { height: auto; min-height: 4; max-height: 40%; border: round $panel-lighten-2; }
    LineageDiff:focus { border: round $accent; }
    """

    def __init__(self, **kwargs: Any):
        super().__init__(fixed=1, empty_text="", **kwargs)
        self.shown: tuple[str, ...] = ()  # the differing columns, as drawn

    def show(self, rows: Sequence[LineageRow], colours: dict[str, str], without: Sequence[str]) -> None:
        """The differing columns of `rows` (one per run with lineage, in order); `without`: the
        shown runs that have no lineage."""
        differing = differing_columns(rows)
        self.shown = tuple(differing)
        columns = [TableColumn("column", "lineage")]
        columns += [TableColumn(row.summary_dir, row.summary_dir) for row in rows]
        cells: dict[str, list[Cell]] = {}
        for column in differing:
            cells[column] = [literal(column), *(self._cell(row.get(column), column, colours.get(row.summary_dir))
                                                for row in rows)]
        if len(rows) < 2:
            self.empty_text = "fewer than two of the shown runs have lineage: nothing to compare"
            title = "lineage diff"
        else:
            self.empty_text = f"the {len(rows)} runs' lineage is the same in every column"
            title = f"lineage diff: {len(differing)} column{'s' if len(differing) != 1 else ''} differ"
        self.set_table(columns, cells, differing)
        if without:
            title += " · no lineage: " + ", ".join(without)
        self.border_title = markup(title)

    @staticmethod
    def _cell(value: Any, column: str, colour: str | None) -> Cell:
        cell = cell_text(value, column)
        if cell is None or colour is None:
            return cell
        text = cell if isinstance(cell, Text) else Text(cell)
        text.stylize(colour)
        return text
