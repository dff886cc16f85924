"""Text from log files rendered as markdown, as TensorBoard's text plugin renders it.

TensorBoard renders every text summary as markdown (tables included) and a vector or matrix of
strings as a table whose cells are markdown. Here Rich's `Markdown` does the rendering, with two
changes: control characters are made visible first (`shown`, line by line, so the markdown's
lines stay lines; a file cannot send the terminal an escape sequence), and a table's cells fold
instead of ending in "…", so a table wider than the terminal loses no character.
"""
from __future__ import annotations

from typing import Sequence

from rich import box
from rich.console import Console, ConsoleOptions, Group, RenderableType, RenderResult
from rich.markdown import Markdown, TableElement
from rich.table import Table

from ...escape import shown

__all__ = ["cells_table", "markdown"]


class _FoldingTable(TableElement):
    """A markdown table whose cells fold at the column's width rather than being cut."""

    def __rich_console__(self, console: Console, options: ConsoleOptions) -> RenderResult:
        table = Table(box=box.SIMPLE, pad_edge=False, style="markdown.table.border", show_edge=False,
                      collapse_padding=True)
        if self.header is not None and self.header.row is not None:
            for column in self.header.row.cells:
                heading = column.content.copy()
                heading.stylize("markdown.table.header")
                table.add_column(heading, overflow="fold")
        if self.body is not None:
            for row in self.body.rows:
                table.add_row(*(cell.content for cell in row.cells))
        yield table


class _Markdown(Markdown):
    elements = {**Markdown.elements, "table_open": _FoldingTable}


def visible(text: str) -> str:
    """`text` with its control characters shown as escapes, its lines kept (tabs: 4 spaces)."""
    return "\n".join(shown(line) for line in text.expandtabs(4).split("\n"))


def markdown(text: str) -> RenderableType:
    """`text` rendered as markdown (links shown, not followed: a terminal link would run on click)."""
    return _Markdown(visible(text), hyperlinks=False)


def cells_table(rows: Sequence[Sequence[str]]) -> RenderableType:
    """A vector or matrix of strings as TensorBoard draws it: a table, each cell markdown."""
    table = Table(box=box.SIMPLE, show_header=False, show_edge=False, pad_edge=False, collapse_padding=True)
    width = max((len(row) for row in rows), default=0)
    for _ in range(width):
        table.add_column(overflow="fold")
    for row in rows:
        table.add_row(*(markdown(cell) for cell in row))
    return Group(table)
