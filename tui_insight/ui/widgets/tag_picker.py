"""The tag list of the scalar, histogram and image views: a filter box over a multi-select list.

The picker owns which tags exist, which are selected and the filter; the view asks it for
`visible_tags()` (selected and matching the filter) and redraws when it posts `Changed`.
"""
from __future__ import annotations

from typing import Any

from textual.app import ComposeResult
from textual.containers import Vertical
from textual.message import Message
from textual.widgets import Input, SelectionList
from textual.widgets.selection_list import Selection

from ..focus import focus_now
from .job_table import compile_filter


class TagPicker(Vertical):
    """`#<prefix>-filter` above `#<prefix>-list`, in a container with the id `#<prefix>-tags`."""

    DEFAULT_CSS = """
    TagPicker { width: 30; height: 1fr; }
    TagPicker.-narrow { width: 22; }
    TagPicker > Input { height: 3; }
    TagPicker > SelectionList { height: 1fr; }
    """

    class Changed(Message):
        """The user changed which tags are visible (toggle, filter, select all)."""

        def __init__(self, picker: "TagPicker") -> None:
            super().__init__()
            self.picker = picker

        @property
        def control(self) -> "TagPicker":
            return self.picker

    def __init__(self, prefix: str, title: str = "tags", **kwargs: Any):
        super().__init__(id=f"{prefix}-tags", **kwargs)
        self.title = title  # the list's border reads "<title> visible/all"
        self.filter_id = f"{prefix}-filter"
        self.list_id = f"{prefix}-list"
        self.tags: list[str] = []  # every tag of the jobs, sorted
        self.selected: set[str] = set()
        self.deselected: set[str] = set()  # so a tag the user turned off stays off when data arrives
        self.tag_filter = ""

    def compose(self) -> ComposeResult:
        yield Input(placeholder="/ filter tags (regex)", id=self.filter_id)
        yield SelectionList[str](id=self.list_id)

    def on_mount(self) -> None:
        self.sync()

    @property
    def listing(self) -> SelectionList[str]:
        return self.query_one(f"#{self.list_id}", SelectionList)

    # -- state ------------------------------------------------------------------------------------

    def set_tags(self, tags: list[str]) -> bool:
        """Take the jobs' current tags; new ones are selected unless the user turned them off.

        True if they changed. No `Changed` is posted: the caller redraws itself, at once.
        """
        if tags == self.tags:
            return False
        self.tags = tags
        self.selected = {t for t in self.selected if t in tags} | {t for t in tags if t not in self.deselected}
        if self.is_mounted:
            self.sync()
        return True

    def shown_tags(self) -> list[str]:
        """The tags the filter lets through (the rows of the list)."""
        match = compile_filter(self.tag_filter)
        return [t for t in self.tags if match(t)]

    def visible_tags(self) -> list[str]:
        """The tags to draw: selected and let through by the filter."""
        match = compile_filter(self.tag_filter)
        return [t for t in self.tags if t in self.selected and match(t)]

    # -- the list ---------------------------------------------------------------------------------

    def sync(self) -> None:
        """Make the list show the filtered tags and the selection, keeping the highlight."""
        listing = self.listing
        shown = self.shown_tags()
        current = [listing.get_option_at_index(i).value for i in range(listing.option_count)]
        highlighted = listing.highlighted
        if current != shown:
            listing.clear_options()
            listing.add_options([Selection(tag.replace("[", "\\["), tag, tag in self.selected)  # `[` is markup
                                 for tag in shown])
            if shown:
                listing.highlighted = min(highlighted or 0, len(shown) - 1)
        else:
            for tag in shown:
                if (tag in listing.selected) != (tag in self.selected):
                    (listing.select if tag in self.selected else listing.deselect)(tag)
        self._update_title()

    def _update_title(self) -> None:
        self.listing.border_title = f"{self.title} {len(self.visible_tags())}/{len(self.tags)}"

    def on_selection_list_selection_toggled(self, event: SelectionList.SelectionToggled) -> None:
        event.stop()
        tag = event.selection.value
        if tag in self.selected:
            self.selected.discard(tag)
            self.deselected.add(tag)
        else:
            self.selected.add(tag)
            self.deselected.discard(tag)
        self._update_title()  # the list already shows the toggle
        self.post_message(self.Changed(self))

    def on_input_changed(self, event: Input.Changed) -> None:
        event.stop()
        self.tag_filter = event.value
        self.sync()
        self.post_message(self.Changed(self))

    def on_input_submitted(self, event: Input.Submitted) -> None:
        event.stop()
        focus_now(self.listing)

    # -- actions (bound by the views, which own the keys) ------------------------------------------

    def focus_filter(self) -> None:
        focus_now(self.query_one(f"#{self.filter_id}", Input))

    def focus_list(self) -> None:
        focus_now(self.listing)

    def select_all(self) -> None:
        """Select every tag the filter lets through, or none if all of them already are.

        Called by the view's action, which redraws at once: no `Changed` is posted.
        """
        shown = self.shown_tags()
        if shown and all(t in self.selected for t in shown):
            self.selected -= set(shown)
            self.deselected |= set(shown)
        else:
            self.selected |= set(shown)
            self.deselected -= set(shown)
        self.sync()
