"""What the lineage view (`l`) is set to: the tab, the columns, the order, the filter, the cursor.

The columns: until the user picks with `v` the table shows what a user compares runs by
(`DEFAULT_COLUMNS` and every `metric/*`); long dataset paths stay hidden until asked for. After a
pick, the columns that existed then keep the user's choice and columns that appear later
(a new metric) follow the defaults.

The order: None is MindInsight's (newest first); else a column and a direction. The filter is
the text typed after `/`; reading it into conditions is `summary.lineage`'s job (the view keeps
the last conditions that could be read).
"""
from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any, Iterable

from .persist import get_bool, get_str, get_strs

MODEL, DATASET = "model", "dataset"
KEY_COLUMN = "summary_dir"  # always shown, first, fixed when scrolling sideways
METRIC = "metric/"
# What the table opens with (besides every metric/*): the settings runs are compared by.
DEFAULT_COLUMNS: tuple[str, ...] = (KEY_COLUMN, "network", "optimizer", "learning_rate", "epoch", "batch_size",
                                    "loss")


def default_columns(columns: Iterable[str]) -> list[str]:
    """The columns of `columns` the table shows before the user picks."""
    return [c for c in columns if c in DEFAULT_COLUMNS or c.startswith(METRIC)]


@dataclass(frozen=True)
class LineageState:
    mode: str = MODEL  # the tab: model or dataset lineage
    chosen: tuple[str, ...] | None = None  # the user's pick with `v`; None: the defaults
    known: tuple[str, ...] = ()  # the columns there were when the user picked
    sort_column: str | None = None  # None: MindInsight's order (newest first)
    descending: bool = False
    filter: str = ""
    row: str | None = None  # the cursor: a summary_dir
    column: str | None = None  # and a column of the model table

    # -- what is shown ---------------------------------------------------------------------------

    def visible_columns(self, columns: Iterable[str]) -> list[str]:
        """The columns of `columns` (every column there is, in table order) the table shows."""
        columns = list(columns)
        defaults = set(default_columns(columns))
        known = set(self.known)
        chosen = set(self.chosen or ())
        shown = []
        for column in columns:
            if column == KEY_COLUMN:
                shown.append(column)
            elif self.chosen is not None and column in known:
                if column in chosen:
                    shown.append(column)
            elif column in defaults:
                shown.append(column)
        return shown

    def sort_text(self) -> str:
        if self.sort_column is None:
            return "newest first"
        return f"sorted by {self.sort_column} {'▼' if self.descending else '▲'}"

    # -- transitions -------------------------------------------------------------------------------

    def with_mode(self, mode: str) -> "LineageState":
        mode = mode if mode in (MODEL, DATASET) else MODEL
        return self if mode == self.mode else replace(self, mode=mode)

    def toggle_mode(self) -> "LineageState":
        return self.with_mode(DATASET if self.mode == MODEL else MODEL)

    def with_columns(self, chosen: Iterable[str], known: Iterable[str]) -> "LineageState":
        """The user's pick (`v`) among the columns `known` there were."""
        return replace(self, chosen=tuple(chosen), known=tuple(known))

    def sort_by(self, column: str, descending: bool | None = None) -> "LineageState":
        """Sort by `column`: ascending, or the other way when it already sorts by it."""
        if descending is None:
            descending = not self.descending if column == self.sort_column else False
        return replace(self, sort_column=column, descending=descending)

    def sort_reverse(self, column: str | None) -> "LineageState":
        """`S`: the current order the other way, or `column` descending when unsorted."""
        if self.sort_column is None:
            return self if column is None else self.sort_by(column, descending=True)
        return replace(self, descending=not self.descending)

    def sort_clear(self) -> "LineageState":
        return replace(self, sort_column=None, descending=False)

    def with_filter(self, text: str) -> "LineageState":
        return self if text == self.filter else replace(self, filter=text)

    def with_cursor(self, row: str | None, column: str | None = None) -> "LineageState":
        column = self.column if column is None else column
        if (row, column) == (self.row, self.column):
            return self
        return replace(self, row=row, column=column)

    # -- remembered ----------------------------------------------------------------------------------

    def to_json(self) -> dict[str, Any]:
        data: dict[str, Any] = {"mode": self.mode, "sort_column": self.sort_column, "descending": self.descending,
                                "filter": self.filter, "row": self.row, "column": self.column}
        if self.chosen is not None:
            data["chosen"] = list(self.chosen)
            data["known"] = list(self.known)
        return data

    @classmethod
    def from_json(cls, data: Any) -> "LineageState":
        if not isinstance(data, dict):
            return cls()
        chosen = get_strs(data, "chosen") if isinstance(data.get("chosen"), list) else None
        sort_column = data.get("sort_column")
        row, column = data.get("row"), data.get("column")
        return cls(
            mode=get_str(data, "mode", MODEL, (MODEL, DATASET)),
            chosen=chosen,
            known=get_strs(data, "known") if chosen is not None else (),
            sort_column=sort_column if isinstance(sort_column, str) else None,
            descending=get_bool(data, "descending", False) if isinstance(sort_column, str) else False,
            filter=get_str(data, "filter", ""),
            row=row if isinstance(row, str) else None,
            column=column if isinstance(column, str) else None,
        )
