"""Which tags a view shows: the tags there are, the selection and the `/` filter.

Shared by the scalar, histogram and image views (their tag lists are one `TagPicker` widget
drawing a `TagSelection`). New tags are selected unless the user turned them off, so a tag
switched off stays off when more data arrives, and after a restart.
"""
from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any

from ..common.filters import compile_filter
from .persist import get_str, get_strs


@dataclass(frozen=True)
class TagSelection:
    tags: tuple[str, ...] = ()  # every tag of the view's jobs, sorted
    selected: frozenset[str] = frozenset()
    deselected: frozenset[str] = frozenset()  # turned off by the user: new data does not select them
    filter: str = ""

    # -- what is shown ------------------------------------------------------------------------

    def shown(self) -> tuple[str, ...]:
        """The tags the filter lets through (the rows of the list)."""
        match = compile_filter(self.filter)
        return tuple(t for t in self.tags if match(t))

    def visible(self) -> tuple[str, ...]:
        """The tags to draw: selected and let through by the filter."""
        match = compile_filter(self.filter)
        return tuple(t for t in self.tags if t in self.selected and match(t))

    def empty_reason(self) -> str:
        """Why nothing is drawn, as a hint of what to do ("" when something is)."""
        if not self.tags or self.visible():
            return ""
        if not self.shown():
            return f"no tag matches /{self.filter}/ (esc clears)"
        return "no tag selected: space selects, a selects all"

    # -- transitions ----------------------------------------------------------------------------

    def with_tags(self, tags: tuple[str, ...] | list[str]) -> "TagSelection":
        """The jobs' current tags; new ones are selected unless the user turned them off."""
        tags = tuple(tags)
        if tags == self.tags:
            return self
        selected = frozenset(t for t in tags if t in self.selected or t not in self.deselected)
        return replace(self, tags=tags, selected=selected)

    def toggle(self, tag: str) -> "TagSelection":
        if tag in self.selected:
            return replace(self, selected=self.selected - {tag}, deselected=self.deselected | {tag})
        return replace(self, selected=self.selected | {tag}, deselected=self.deselected - {tag})

    def select_all(self) -> "TagSelection":
        """Select every tag the filter lets through, or none if all of them already are."""
        shown = set(self.shown())
        if shown and shown <= self.selected:
            return replace(self, selected=self.selected - shown, deselected=self.deselected | shown)
        return replace(self, selected=self.selected | shown, deselected=self.deselected - shown)

    def only(self, tags: tuple[str, ...] | list[str]) -> "TagSelection":
        """Select exactly `tags` (the others are turned off): `--tags` on the command line."""
        wanted = frozenset(tags)
        return replace(self, selected=frozenset(t for t in self.tags if t in wanted),
                       deselected=frozenset(t for t in self.tags if t not in wanted))

    def with_filter(self, text: str) -> "TagSelection":
        return self if text == self.filter else replace(self, filter=text)

    # -- remembered ---------------------------------------------------------------------------

    def to_json(self) -> dict[str, Any]:
        return {"deselected": sorted(self.deselected), "filter": self.filter}

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> "TagSelection":
        return cls(deselected=frozenset(get_strs(data, "deselected")), filter=get_str(data, "filter", ""))
