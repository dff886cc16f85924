"""The tag list of the scalar, histogram and image views: draws a `TagSelection`, posts new ones.

The view owns the selection (in its state); the picker shows it with `show(selection)` and,
when the user toggles a tag, selects all, or types in the filter, posts `Changed` with the new
selection, which the view puts into its state (and which comes back through `show`).

Rows read `✓ tag` or `· tag`, so what is selected survives NO_COLOR. The filter box is reached
with `/` only (tab and shift+tab go between the list and the charts), shows what is typed, and
`escape` in it clears the filter. A filter that matches nothing says so under the box.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.message import Message
from textual.widgets import Input, OptionList, Static
from textual.widgets.option_list import Option

from ..common.focus import focus_now
from ..common.names import apart
from ..common.text import literal
from ..state.tags import TagSelection
from .on_demand_input import OnDemandInput

LIST_FRAME_CELLS = 4  # the list's border and padding
SELECTED_MARK = "✓"
UNSELECTED_MARK = "·"


class TagList(OptionList):
    """The rows of the picker; `space` and `enter` toggle the highlighted tag."""

    BINDINGS = [
        Binding("space", "toggle", "Select tag", id="tags.toggle"),
        Binding("enter", "toggle", "Select tag", show=False, id="tags.toggle_enter"),
    ]

    @dataclass
    class Toggled(Message):
        tag: str

    def action_toggle(self) -> None:  # type: ignore[override]  # (the tag's, not DOMNode's attribute toggle)
        index = self.highlighted
        if index is not None and 0 <= index < self.option_count:
            option_id = self.get_option_at_index(index).id
            if option_id is not None:
                self.post_message(self.Toggled(option_id.removeprefix("tag:")))


class FilterBox(OnDemandInput):
    """The `/` filter: out of the tab order until `/` asks for it; escape clears it."""

    BINDINGS = [Binding("escape", "clear_filter", "Clear filter", id="tags.clear_filter")]

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(placeholder="/ filter tags (regex)", **kwargs)

    def action_clear_filter(self) -> None:
        self.value = ""
        self.post_message(Input.Submitted(self, self.value))


class TextLine(Static):
    """A line of the picker, hidden while empty (`-shown`), that shows a text literally. Only a
    changed text is updated: an update lays the screen out again, and the picker redraws on
    every resize (each time its view is shown again)."""

    def __init__(self, **kwargs: Any) -> None:
        super().__init__("", **kwargs)
        self.text = ""

    def show(self, text: str) -> None:
        if text != self.text:
            self.text = text
            self.update(literal(text))
        self.set_class(bool(text), "-shown")


class TagPicker(Vertical):
    """`#<prefix>-filter` above `#<prefix>-list`, in a container with the id `#<prefix>-tags`.

    Names too long for the list are cut in the middle past the start they all share
    (`…logits`, not `in_graph/logits…`); the highlighted row's whole name shows under the list."""

    ROW_MARK_CELLS = 2  # "✓ " before each name

    DEFAULT_CSS = """
    TagPicker { width: 30; height: 1fr; }
    TagPicker.-narrow { width: 22; }
    TagPicker > Input { height: 3; }
    TagPicker > OptionList { height: 1fr; text-wrap: nowrap; text-overflow: ellipsis; }
    TagPicker > .tag-hint { height: auto; color: $text-muted; padding: 0 1; display: none; }
    TagPicker > .tag-hint.-shown { display: block; }
    TagPicker > .tag-full { height: auto; max-height: 4; color: $text-muted; padding: 0 1; display: none; }
    TagPicker:focus-within > .tag-full.-shown { display: block; }
    """

    @dataclass
    class Changed(Message):
        """The user asked for another selection (toggle, select all, filter)."""

        picker: "TagPicker"
        selection: TagSelection

        @property
        def control(self) -> "TagPicker":
            return self.picker

    def __init__(self, prefix: str, title: str = "tags", **kwargs: Any):
        super().__init__(id=f"{prefix}-tags", **kwargs)
        self.title = title  # the list's border reads "<title> visible/all"
        self.filter_id = f"{prefix}-filter"
        self.list_id = f"{prefix}-list"
        self.selection = TagSelection()  # what is drawn
        self.names: dict[str, str] = {}  # each shown tag -> its name as its row shows it (cut to fit)

    def compose(self) -> ComposeResult:
        yield FilterBox(id=self.filter_id)
        yield TextLine(classes="tag-hint")
        yield TagList(id=self.list_id)
        yield TextLine(classes="tag-full")

    def on_mount(self) -> None:
        self._draw(TagSelection(), self.selection)

    @property
    def listing(self) -> TagList:
        return self.query_one(f"#{self.list_id}", TagList)

    @property
    def filter_box(self) -> FilterBox:
        return self.query_one(f"#{self.filter_id}", FilterBox)

    # -- drawing ------------------------------------------------------------------------------

    def show(self, selection: TagSelection) -> None:
        """Draw `selection` (rows, marks, title, hint), keeping the highlighted row."""
        old, self.selection = self.selection, selection
        if self.is_mounted:
            self._draw(old, selection)

    def _name_width(self) -> int:
        """Cells a row has for its name: the list's rows less their marks (before the list has a
        size: the picker's width less the list's border and padding)."""
        width = self.listing.scrollable_content_region.width or self.size.width - LIST_FRAME_CELLS
        return max(4, width - self.ROW_MARK_CELLS)

    def _draw(self, old: TagSelection, new: TagSelection) -> None:
        listing = self.listing
        shown = new.shown()
        old_names = self.names
        self.names = dict(zip(shown, apart(shown, self._name_width())))
        current = [listing.get_option_at_index(i).id for i in range(listing.option_count)]
        if current != [f"tag:{tag}" for tag in shown]:
            highlighted = listing.highlighted
            listing.clear_options()
            listing.add_options([Option(self._row(tag, new), id=f"tag:{tag}") for tag in shown])
            if shown:
                listing.highlighted = min(highlighted or 0, len(shown) - 1)
        else:
            for tag in shown:
                if (tag in old.selected) != (tag in new.selected) or old_names.get(tag) != self.names[tag]:
                    listing.replace_option_prompt(f"tag:{tag}", self._row(tag, new))
        self._show_full_name()
        box = self.filter_box
        if box.value != new.filter:
            with box.prevent(Input.Changed):
                box.value = new.filter
        title = f"{self.title} {len(new.visible())}/{len(new.tags)}"
        if listing.border_title != title:  # (setting it repaints the list, even to the same title)
            listing.border_title = title
        no_match = bool(new.tags) and not shown
        self.query_one(".tag-hint", TextLine).show(self.no_match_text(new) if no_match else "")

    def no_match_text(self, selection: TagSelection) -> str:
        """What the hint under the filter says when it lets no tag through."""
        return selection.empty_reason()

    def _row(self, tag: str, selection: TagSelection) -> Text:
        chosen = tag in selection.selected
        text = Text(f"{SELECTED_MARK if chosen else UNSELECTED_MARK} ", style="bold" if chosen else "dim")
        text.append_text(literal(self.names.get(tag, tag), "" if chosen else "dim"))
        return text

    def highlighted_name(self) -> str | None:
        """The full name of the highlighted row (None if no row is)."""
        listing = self.listing
        index = listing.highlighted
        if index is None or not 0 <= index < listing.option_count:
            return None
        option_id = listing.get_option_at_index(index).id
        return option_id.removeprefix("tag:") if option_id is not None else None

    def _show_full_name(self) -> None:
        """Under the list, while it has the keyboard, the whole name of the highlighted row when
        the row shows it cut."""
        name = self.highlighted_name()
        cut = name is not None and self.names.get(name, name) != name
        self.query_one(".tag-full", TextLine).show(name if cut and name is not None else "")

    def on_option_list_option_highlighted(self, event: OptionList.OptionHighlighted) -> None:
        event.stop()
        self._show_full_name()

    def on_resize(self) -> None:
        if self.is_mounted:
            self._draw(self.selection, self.selection)

    # -- what the user does -------------------------------------------------------------------

    def on_tag_list_toggled(self, event: TagList.Toggled) -> None:
        event.stop()
        self.post_message(self.Changed(self, self.selection.toggle(event.tag)))

    def on_input_changed(self, event: Input.Changed) -> None:
        event.stop()
        self.post_message(self.Changed(self, self.selection.with_filter(event.value)))

    def on_input_submitted(self, event: Input.Submitted) -> None:
        event.stop()
        if event.value != self.selection.filter:
            self.post_message(self.Changed(self, self.selection.with_filter(event.value)))
        focus_now(self.listing)

    def on_option_list_option_selected(self, event: OptionList.OptionSelected) -> None:
        event.stop()  # enter is the list's toggle binding; a click toggles too
        if event.option.id is not None:
            self.post_message(self.Changed(self, self.selection.toggle(event.option.id.removeprefix("tag:"))))

    # -- actions (bound by the views, which own the keys) ------------------------------------------

    def focus_filter(self) -> None:
        self.filter_box.open()

    def focus_list(self) -> None:
        focus_now(self.listing)

    def select_all(self) -> None:
        """Ask for every tag the filter lets through, or none if all of them already are."""
        self.post_message(self.Changed(self, self.selection.select_all()))

