"""The run panel of a comparison dashboard (`R`): the compared runs, each in its colour.

A `TagPicker` over the runs (the dashboard's `RunsState.runs`): `space` shows or hides the
highlighted run, `1`…`9` the run of that number (only while the list has the keyboard: elsewhere
the digits switch views), `/` filters the runs by name, `escape` closes the panel. Rows read
`✓ 1 ● ./run_a`, so which run is shown survives NO_COLOR.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.message import Message

from ..common.palette import job_colour
from ..common.text import literal
from ..state.tags import TagSelection
from .tag_picker import SELECTED_MARK, UNSELECTED_MARK, FilterBox, TagList, TagPicker, TextLine

MAX_NUMBERED = 9


class RunList(TagList):
    HELP_GROUP = "Run list"
    BINDINGS = [
        Binding("space", "toggle", "Show/hide run", id="runs.toggle"),
        Binding("enter", "toggle", "Show/hide run", show=False, id="runs.toggle_enter"),
        Binding("slash", "filter", "Filter runs", id="runs.filter"),
        Binding("escape", "close", "Close run list", id="runs.close"),
        *(Binding(str(n), f"number({n})", f"Show/hide run {n}", show=False, id=f"runs.toggle_{n}")
          for n in range(1, MAX_NUMBERED + 1)),
    ]

    @dataclass
    class Number(Message):
        number: int

    class Filter(Message):
        pass

    class Close(Message):
        pass

    def action_number(self, number: int) -> None:
        self.post_message(self.Number(number))

    def action_filter(self) -> None:
        self.post_message(self.Filter())

    def action_close(self) -> None:
        self.post_message(self.Close())


class RunPicker(TagPicker):
    """`#run-filter` above `#run-list`, in `#run-tags`; posts `TagPicker.Changed` and `Closed`."""

    DEFAULT_CSS = """
    RunPicker { width: 28; border-left: solid $panel-lighten-2; }
    RunPicker.-narrow { width: 22; }
    """

    class Closed(Message):
        """escape in the list: the dashboard closes the panel."""

    ROW_MARK_CELLS = 6  # "✓ 1 ● " before each name

    def __init__(self, **kwargs: Any):
        super().__init__("run", "runs", **kwargs)

    def compose(self) -> ComposeResult:
        box = FilterBox(id=self.filter_id)
        box.placeholder = "/ filter runs (regex)"
        yield box
        yield TextLine(classes="tag-hint")
        yield RunList(id=self.list_id)
        yield TextLine(classes="tag-full")

    def _row(self, tag: str, selection: TagSelection) -> Text:  # type: ignore[override]
        """`✓ 1 ● ./run_a`: shown or not, its number for the digit keys, its colour."""
        index = selection.tags.index(tag)
        chosen = tag in selection.selected
        text = Text(f"{SELECTED_MARK if chosen else UNSELECTED_MARK} ", style="bold" if chosen else "dim")
        text.append(f"{index + 1} " if index < MAX_NUMBERED else "  ", style="dim")
        text.append("● " if chosen else "○ ", style=job_colour(index))
        text.append_text(literal(self.names.get(tag, tag), "" if chosen else "dim"))
        return text

    def no_match_text(self, selection: TagSelection) -> str:
        return f"no run matches /{selection.filter}/ (esc clears)"  # the tag list's hint, said of runs

    def on_run_list_number(self, event: RunList.Number) -> None:
        event.stop()
        if 1 <= event.number <= len(self.selection.tags):
            self.post_message(self.Changed(self, self.selection.toggle(self.selection.tags[event.number - 1])))

    def on_run_list_filter(self, event: RunList.Filter) -> None:
        event.stop()
        self.focus_filter()

    def on_run_list_close(self, event: RunList.Close) -> None:
        event.stop()
        self.post_message(self.Closed())
