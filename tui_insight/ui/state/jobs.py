"""What the job list is set to: the filter, the order, the marked jobs, the job under the cursor,
the headline metric its health columns show.

The job list is a screen, not a dashboard view; the app's workspace remembers this state under
scope "app", view "jobs". Marked jobs keep their marking order: it gives each its colour in a
comparison. A remembered mark or cursor whose job is gone (or not found yet) is harmless:
comparing uses the marked jobs that exist, the cursor goes to its job when it appears. The
headline is one scalar tag for every job (None: each job's default, `summary.health`).

A new list sorts by health, most badges first (the runs that need a look on top). Only an order
the user chose (`sort_chosen`) is remembered, so a later default reaches lists that never chose
one; a workspace written before that rule holds the old default, id ascending, and gets the
new one. A new order shows the top of the list: the cursor goes to the first row (`cursor` None). The column cursor
(`column`; None: on the sort column) picks the column `s` sorts by. Rank groups
(`queries/ranks.py`) are one row each; `expanded` names the groups whose ranks are shown below
it (`+`/`-`), remembered like the rest.
"""
from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any, Iterable

from .persist import get_bool, get_str, get_strs

# The sortable columns, left to right ("value", "best", "change", "speed": the headline metric's).
SORT_KEYS = ("id", "state", "health", "live", "value", "best", "change", "speed", "step", "updated", "tags", "files")
# Sorted most first when first chosen: the most badges, the live ones, the fastest.
DESCENDING_FIRST = frozenset({"health", "live", "speed", "step"})
# The default before health came first: remembered by every list, chosen or not.
OLD_DEFAULT_ORDER = ("id", False)


@dataclass(frozen=True)
class JobListState:
    filter: str = ""
    sort_key: str = "health"
    reverse: bool = True
    marked: tuple[str, ...] = ()  # train ids, in marking order
    cursor: str | None = None  # the train id under the cursor
    headline: str | None = None  # the scalar tag the health columns show; None: each job's loss
    column: str | None = None  # the column under the column cursor; None: the sort column
    sort_chosen: bool = False  # the order is the user's (remembered), not the default
    expanded: tuple[str, ...] = ()  # the rank groups (by name) whose ranks are shown

    # -- transitions ----------------------------------------------------------------------------

    def with_filter(self, text: str) -> "JobListState":
        return self if text == self.filter else replace(self, filter=text)

    def sort_by(self, key: str, reverse: bool | None = None) -> "JobListState":
        """Sort by `key`: in its natural direction (`DESCENDING_FIRST` columns most first), or
        the other way when it already sorts by it. The list shows its top (cursor None)."""
        if key not in SORT_KEYS:
            return self
        if reverse is None:
            reverse = not self.reverse if key == self.sort_key else key in DESCENDING_FIRST
        return replace(self, sort_key=key, reverse=reverse, cursor=None, column=key, sort_chosen=True)

    def sort_here(self) -> "JobListState":
        """`s`: sort by the column under the column cursor (again: the other way)."""
        return self.sort_by(self.cursor_column)

    def sort_reverse(self) -> "JobListState":
        return replace(self, reverse=not self.reverse, cursor=None, sort_chosen=True)

    @property
    def cursor_column(self) -> str:
        """The column under the column cursor."""
        return self.column if self.column in SORT_KEYS else self.sort_key

    def with_column(self, key: str) -> "JobListState":
        """The column cursor goes to `key` (a sortable column)."""
        if key not in SORT_KEYS or key == self.cursor_column:
            return self
        return replace(self, column=key)

    def toggle_mark(self, train_id: str) -> "JobListState":
        """Mark `train_id` (last in the marking order), or unmark it."""
        if train_id in self.marked:
            return replace(self, marked=tuple(t for t in self.marked if t != train_id))
        return replace(self, marked=(*self.marked, train_id))

    def toggle_marks(self, train_ids: Iterable[str]) -> "JobListState":
        """Mark every job of `train_ids` not marked yet (in their order), or, when all are, unmark them."""
        ids = tuple(dict.fromkeys(train_ids))
        if all(t in self.marked for t in ids):
            return replace(self, marked=tuple(t for t in self.marked if t not in ids))
        return replace(self, marked=(*self.marked, *(t for t in ids if t not in self.marked)))

    def unmark_all(self) -> "JobListState":
        return self if not self.marked else replace(self, marked=())

    def with_marked(self, train_ids: Iterable[str]) -> "JobListState":
        marked = tuple(dict.fromkeys(train_ids))
        return self if marked == self.marked else replace(self, marked=marked)

    def without(self, train_ids: Iterable[str]) -> "JobListState":
        """The jobs `train_ids` are gone: they are no longer marked."""
        gone = set(train_ids)
        return self.with_marked(t for t in self.marked if t not in gone)

    def with_cursor(self, train_id: str | None) -> "JobListState":
        return self if train_id == self.cursor else replace(self, cursor=train_id)

    def with_headline(self, tag: str | None) -> "JobListState":
        """`m`: the health columns show `tag` for every job (None: each job's default)."""
        return self if tag == self.headline else replace(self, headline=tag)

    def expand(self, group: str, on: bool | None = None) -> "JobListState":
        """Show the ranks of `group` below its row (`on` False: hide them; None: the other way)."""
        shown = group in self.expanded
        if on is None:
            on = not shown
        if on == shown:
            return self
        return replace(self, expanded=(*self.expanded, group) if on else tuple(g for g in self.expanded if g != group))

    def compare(self, existing: Iterable[str]) -> tuple[str, ...]:
        """The marked jobs that exist, in marking order (what `c` opens)."""
        there = set(existing)
        return tuple(t for t in self.marked if t in there)

    # -- remembered -----------------------------------------------------------------------------

    def to_json(self) -> dict[str, Any]:
        data: dict[str, Any] = {"filter": self.filter, "marked": list(self.marked), "cursor": self.cursor,
                                "headline": self.headline, "column": self.column, "expanded": list(self.expanded)}
        if self.sort_chosen:
            data.update(sort_key=self.sort_key, reverse=self.reverse, sort_chosen=True)
        return data

    @classmethod
    def from_json(cls, data: Any) -> "JobListState":
        if not isinstance(data, dict):
            return cls()
        cursor, headline, column = data.get("cursor"), data.get("headline"), data.get("column")
        sort_key = get_str(data, "sort_key", cls.sort_key, SORT_KEYS)
        reverse = get_bool(data, "reverse", cls.reverse if sort_key == cls.sort_key else False)
        written_before = "sort_chosen" not in data and data.get("sort_key") in SORT_KEYS
        chosen = get_bool(data, "sort_chosen", False) or (written_before and (sort_key, reverse) != OLD_DEFAULT_ORDER)
        if not chosen:
            sort_key, reverse = cls.sort_key, cls.reverse
        return cls(
            filter=get_str(data, "filter", ""),
            sort_key=sort_key,
            reverse=reverse,
            sort_chosen=chosen,
            marked=tuple(dict.fromkeys(get_strs(data, "marked"))),
            cursor=cursor if isinstance(cursor, str) else None,
            headline=headline if isinstance(headline, str) else None,
            column=column if column in SORT_KEYS else None,
            expanded=tuple(dict.fromkeys(get_strs(data, "expanded"))),
        )
