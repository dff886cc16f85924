"""The summary table under the scalar charts: per tag and run, last, min, max and the cursor's value.

The view hands over one `SummaryRow` per (tag, run) with what it knows (the tag's digest, the
point at the value cursor, the direction that is better and whether the run is the tag's best);
the table only formats them. Each value reads `0.2143 @40` (value at step), min and max over the
finite values; the best value of each row (min for ↓ tags, max for ↑) is bold, and the run best
at the tag is starred. Rows that did not change cost nothing: an equal list is not drawn again.
"""
from __future__ import annotations

from typing import Any, Sequence

from rich.text import Span, Text

from ...summary.queries.best import HIGHER, LOWER
from ..common.format import number
from ..common.names import apart
from ..common.text import literal
from .lineage_table import Cell, LineageTable, TableColumn
from .summary_row import SummaryRow

BEST_MARK = "★"
RUN_NAME_CELLS = 24  # a run column this wide at most: compared runs cut past the start they share
ARROWS = {LOWER: "↓", HIGHER: "↑"}


def _point(value: float, step: int, bold: bool = False) -> Text:
    """`0.2143 @40`, the step dim."""
    shown = number(value)
    text = f"{shown} @{step}"
    return Text(text, style="bold" if bold else "", spans=[Span(len(shown), len(text), "dim")])


class SummaryTable(LineageTable):
    """Rows of `SummaryRow`s; the first column (the tag) stays put when it scrolls sideways."""

    HELP_GROUP = "Summary table"
    DEFAULT_CSS = """
    SummaryTable { height: auto; max-height: 25%; border-top: solid $panel-lighten-2; }
    """

    def __init__(self, **kwargs: Any):
        super().__init__(fixed=1, empty_text="no values yet", **kwargs)
        self.rows: tuple[SummaryRow, ...] = ()
        self._runs_column: bool | None = None
        # Each row formatted up to its cursor cell, with what it was formatted from: moving the
        # cursor, or new steps of one tag, formats only what changed.
        self._formatted: dict[str, tuple[tuple, list[Cell]]] = {}

    @staticmethod
    def row_key(tag: str, train_id: str) -> str:
        """A row's key: a train id (a path) never holds a NUL, so the last one splits it."""
        return f"{tag}\x00{train_id}"

    @staticmethod
    def key_parts(key: str) -> tuple[str, str]:
        """(tag, train id) of a row key."""
        tag, _, train_id = key.rpartition("\x00")
        return tag, train_id

    @property
    def current_tag(self) -> str | None:
        """The tag of the row under the table's cursor."""
        key = self.current_row_key
        return self.key_parts(key)[0] if key is not None else None

    def show(self, rows: Sequence[SummaryRow], runs_column: bool, live: bool = False) -> None:
        """Draw `rows`, with a run column when runs are compared. Equal rows are not drawn again;
        `live` (newer data of the same rows) never narrows a column."""
        rows = tuple(rows)
        if rows == self.rows and runs_column == self._runs_column:
            return
        self.rows, self._runs_column = rows, runs_column
        columns = [TableColumn("tag", "tag")]
        if runs_column:
            columns.append(TableColumn("run", "run"))
        columns += [TableColumn(key, key, numeric=True) for key in ("last", "min", "max", "cursor")]
        cells: dict[str, list[Cell]] = {}
        formatted: dict[str, tuple[tuple, list[Cell]]] = {}
        runs = list(dict.fromkeys(row.train_id for row in rows))
        run_names = dict(zip(runs, apart(runs, RUN_NAME_CELLS)))
        previous = None
        for row in rows:
            key = self.row_key(row.tag, row.train_id)
            first = row.tag != previous
            run_name = run_names[row.train_id]
            source = (row.digest, row.colour, row.way, row.best, runs_column, first, run_name)
            found = self._formatted.get(key)
            if found is None or len(found[0]) != len(source) or any(a is not b and a != b
                                                                       for a, b in zip(found[0], source)):
                found = (source, self.format_row(row, runs_column, first, run_name))
            formatted[key] = found
            cells[key] = [*found[1], _point(row.cursor[1], row.cursor[0]) if row.cursor is not None else None]
            previous = row.tag
        self._formatted = formatted  # only the rows shown now: a live run does not grow it
        self.set_table(columns, cells, list(cells), keep_widths=live)

    @staticmethod
    def format_row(row: SummaryRow, runs_column: bool, first_of_tag: bool, run_name: str = "") -> list[Cell]:
        """The cells of `row` up to its cursor cell (`run_name`: the run as its cell shows it)."""
        tag = literal(row.tag, "" if first_of_tag else "dim")
        if row.way is not None:
            tag.append(f" {ARROWS[row.way]}", style="dim")
        out: list[Cell] = [tag]
        if runs_column:
            run = Text(f"{BEST_MARK} " if row.best else "  ", style="bold")
            run.append("● ", style=row.colour)
            run.append_text(literal(run_name or row.train_id, "bold" if row.best else ""))
            out.append(run)
        digest = row.digest
        if digest is None:
            out += [None, None, None]
        else:
            out.append(_point(digest.last_value, digest.last_step))
            for way, value, step in ((LOWER, digest.min_value, digest.min_step),
                                     (HIGHER, digest.max_value, digest.max_step)):
                finite = value == value  # NaN when no value of the series is finite
                out.append(_point(value, step, bold=row.way == way) if finite else None)
        return out
