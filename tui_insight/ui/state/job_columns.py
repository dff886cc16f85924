"""The job list's columns and which of them fit a width: pure, tested without a terminal.

Every column has a priority. A width too narrow for all of them drops the least telling first
(`files`, `tags`, `updated`, ...) and keeps the job, its health and the headline metric's last
value, best and trend; a column whose every cell is empty (`live` when nothing is live) takes no
room at all. The column the list sorts by and the one under the column cursor are always shown:
moving the column cursor onto a dropped column brings it in (others make room), so every column
is a few `→` away and never behind a horizontal scroll. The health column and the headline's
stay even when empty: that no job has a badge is worth seeing.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Mapping, Sequence


@dataclass(frozen=True)
class Column:
    key: str
    header: str
    sortable: bool
    right: bool  # right-aligned (numbers)
    priority: int  # 0: always shown; the higher, the sooner dropped for want of room
    about: str = ""  # what it says, for the column picker


# Left to right, as drawn.
COLUMNS: tuple[Column, ...] = (
    Column("mark", " ", False, False, 0),
    Column("id", "job", True, False, 0, "the job's name"),
    Column("state", "st", True, False, 3, "reading state: ✓ ok, … loading, + growing, ↻ reconnecting, ! a problem"),
    Column("health", "health", True, False, 1, "badges: NaN, diverging, stalled"),
    Column("live", "live", True, False, 5, "still being written"),
    Column("value", "headline", True, True, 1, "the headline metric's last value"),
    Column("best", "best@step", True, True, 2, "the headline's best value and its step"),
    Column("trend", "trend", False, False, 2, "the headline over the kept steps"),
    Column("change", "Δ10%", True, True, 4, "change over the last 10% of steps"),
    Column("speed", "steps/s", True, True, 6, "training speed"),
    Column("since", "since", False, True, 7, "time since the headline's last step"),
    Column("step", "last step", True, True, 8, "the last step"),
    Column("updated", "updated", True, True, 9, "time since a file last changed"),
    Column("tags", "tags s/h/t/i", True, False, 10, "scalar / histogram / tensor / image tags"),
    Column("files", "files s/l/g/p", True, False, 11, "summary / lineage / graph / profile files"),
)
BY_KEY = {column.key: column for column in COLUMNS}
SORTABLE = tuple(column.key for column in COLUMNS if column.sortable)
PADDING = 2  # a space each side of a cell
ID_MIN_WIDTH = 16  # a long job name is cut in its middle down to this before columns are dropped

# The state column's glyph for each state (the status line says the state and what it means).
STATE_GLYPHS = {"ok": "✓", "loading": "…", "growing": "+", "reconnecting…": "↻"}
PROBLEM_GLYPH = "!"  # truncated, corrupt, unreadable: drawn in red


def state_glyph(state: str) -> str:
    return STATE_GLYPHS.get(state.split(":")[0], PROBLEM_GLYPH)


@dataclass(frozen=True)
class Fit:
    """The columns shown, left to right, and the job name column's width."""

    keys: tuple[str, ...]
    id_width: int

    def width(self, widths: Mapping[str, int]) -> int:
        return sum((self.id_width if key == "id" else widths[key]) + PADDING for key in self.keys)


def fit_columns(widths: Mapping[str, int], available: int, keep: Sequence[str] = (),
                empty: Sequence[str] = ()) -> Fit:
    """The columns that fit `available` cells, given each column's natural width (header and
    widest cell) in `widths`. `keep`: shown whatever the width (the sort column, the column
    cursor's); `empty`: columns with no text in any cell, not shown unless kept. Columns go
    highest priority number first; the job name is cut in its middle, down to ID_MIN_WIDTH,
    before any column of priority below 3 goes."""
    kept = {"mark", "id", *keep}
    keys = [c.key for c in COLUMNS if c.key in kept or c.key not in empty or c.priority < 3]
    id_width = widths.get("id", 0)

    def total() -> int:
        return Fit(tuple(keys), id_width).width(widths)

    droppable = sorted((BY_KEY[k] for k in keys if k not in kept), key=lambda c: -c.priority)
    for column in droppable:
        if total() <= available:
            break
        if column.priority < 3 and id_width > ID_MIN_WIDTH:
            id_width = max(ID_MIN_WIDTH, id_width - (total() - available))
            if total() <= available:
                break
        keys.remove(column.key)
    if total() > available:
        id_width = max(min(id_width, ID_MIN_WIDTH), id_width - (total() - available))
    return Fit(tuple(keys), id_width)


def next_column(current: str, step: int, keys: Sequence[str] = SORTABLE) -> str:
    """The column cursor's move: the next (step 1) or previous (-1) of `keys`, stopping at
    either end; a cursor not on one of them goes to the first."""
    if current not in keys:
        return keys[0]
    i = keys.index(current) + step
    return keys[max(0, min(len(keys) - 1, i))]
