"""The tensor view's panes: the tag list with its filter, the slice bar, and the body (the slice
table, or a message in its place, or the ridgeline or the bands, beside the statistics).

Each pane shows what the view hands it (a presenter's text, a decoded slice, a chart's data) and
keeps its own small rules: the filter's enter goes to the list; the slice box says the slice the
table shows whenever it is not being edited; the keyboard stays with the data pane when the
table gives way to a message or comes back.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable, Hashable

from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.containers import Horizontal, Vertical
from textual.message import Message
from textual.widget import Widget
from textual.widgets import Input, OptionList, Static
from textual.widgets.option_list import Option

from ...summary.queries.tensors import TensorSlice
from ..common.focus import focus_now
from ..common.text import markup
from ..loader import Loaded, Loader
from .bands import BandsChart, bands_bindings
from .on_demand_input import OnDemandInput
from .ridgeline import RidgelineChart, ridgeline_bindings
from .slice_table import SliceTable

SLICE_HINT = "[dim]enter applies · esc cancels[/dim]"


class TensorMessage(Static, can_focus=True):
    """What is said where the table would be (loading, no values, a failed decode). It keeps the
    keyboard while the table is away, so `[`/`]` still move to a step that has values."""


class TensorChart(RidgelineChart):
    HELP_GROUP = "Tensor histogram"
    BINDINGS = ridgeline_bindings("tensors")


class TensorBands(BandsChart):
    HELP_GROUP = "Tensor distribution"
    BINDINGS = bands_bindings("tensors")


class TensorTagList(Vertical):
    """The filter box over the list of tensors; enter in the box gives the keyboard to the list.
    The cursor on a tensor posts `Chosen`."""

    DEFAULT_CSS = """
    TensorTagList { width: 30; height: 1fr; }
    TensorTagList.-narrow { width: 22; }
    TensorTagList #tensor-filter { height: 3; }
    TensorTagList #tensor-list { height: 1fr; text-wrap: nowrap; text-overflow: ellipsis; }
    """

    @dataclass
    class Chosen(Message):
        """The list's cursor went to the tensor `key` (train id, tag); `selected`: enter was pressed on it."""

        key: tuple[str, str]
        selected: bool

    def __init__(self, filter_text: str, **kwargs: Any):
        super().__init__(**kwargs)
        self._filter = filter_text

    def compose(self) -> ComposeResult:
        yield OnDemandInput(self._filter, placeholder="/ filter tags (regex)", id="tensor-filter")
        yield OptionList(id="tensor-list")

    def on_mount(self) -> None:
        self.query_one("#tensor-list", OptionList).border_title = "tensors"

    def show(self, rows: list[tuple[str, Text, bool]], highlighted: str | None, title: str) -> None:
        """The list's lines (id, prompt, disabled), filled again only if they changed; the cursor on
        the line `highlighted` (if it is there)."""
        listing = self.query_one("#tensor-list", OptionList)
        if [listing.get_option_at_index(i).id for i in range(listing.option_count)] != [row[0] for row in rows]:
            listing.clear_options()
            listing.add_options([Option(prompt, id=oid, disabled=disabled) for oid, prompt, disabled in rows])
        if highlighted is not None:
            listing.highlighted = listing.get_option_index(highlighted)
        listing.border_title = title

    def show_filter(self, text: str) -> None:
        """The box says `text`, unless the user is typing in it."""
        box = self.query_one("#tensor-filter", Input)
        if box.value != text and not box.has_focus:
            box.value = text

    def open_filter(self) -> None:
        self.query_one("#tensor-filter", OnDemandInput).open()

    @on(Input.Submitted, "#tensor-filter")
    def _filter_done(self, event: Input.Submitted) -> None:
        event.stop()
        focus_now(self.query_one("#tensor-list"))

    @on(OptionList.OptionHighlighted, "#tensor-list")
    @on(OptionList.OptionSelected, "#tensor-list")
    def _moved(self, event: OptionList.OptionHighlighted | OptionList.OptionSelected) -> None:
        event.stop()
        tid, newline, tag = str(event.option.id).partition("\n")
        if newline:  # not a job's heading
            self.post_message(self.Chosen((tid, tag), isinstance(event, OptionList.OptionSelected)))


class SliceBar(Horizontal):
    """The slice box, and beside it why the slice typed cannot be applied (or, while editing, the keys)."""

    DEFAULT_CSS = """
    SliceBar { height: 1; }
    SliceBar #tensor-slice-label { width: auto; padding: 0 1; color: $text-muted; }
    SliceBar #tensor-slice { width: 30; height: 1; border: none; padding: 0 1; background: $boost; }
    SliceBar #tensor-slice:focus { background: $accent 30%; }
    SliceBar #tensor-slice-error { width: 1fr; height: 1; padding: 0 1; color: $text-muted; }
    SliceBar #tensor-slice-error.-error { color: $error; }
    """

    def __init__(self, **kwargs: Any):
        super().__init__(**kwargs)
        self.shown: str | None = None  # the slice the table shows (None: no table)
        self.error = ""

    def compose(self) -> ComposeResult:
        yield Static("slice", id="tensor-slice-label")
        yield OnDemandInput(placeholder="[0,:,:]", id="tensor-slice", returns=False)  # focus selects it: typing replaces
        yield Static("", id="tensor-slice-error")

    @property
    def box(self) -> OnDemandInput:
        return self.query_one("#tensor-slice", OnDemandInput)

    @property
    def editing(self) -> bool:
        return self.box.has_focus

    def show_slice(self, text: str | None) -> None:
        """The slice the table shows (None: none); the box says it unless it is being edited."""
        self.shown = text
        box = self.box
        if text is not None and box.value != text and not box.has_focus:
            box.value = text

    def show_error(self, message: str) -> None:
        """Why the slice typed was refused ("": it was not)."""
        self.error = message
        line = self.query_one("#tensor-slice-error", Static)
        line.set_class(bool(message), "-error")
        line.update(markup(message) if message else SLICE_HINT if self.box.has_focus else "")

    def cancel(self) -> None:
        """Put back the slice the table shows, leaving what was typed."""
        self.box.value = self.shown or ""

    def on_descendant_focus(self, event) -> None:
        if event.widget is self.box:
            self.show_error(self.error)

    def on_descendant_blur(self, event) -> None:
        box = self.box
        if event.widget is box:
            if self.shown is not None and box.value != self.shown:
                box.value = self.shown  # the box says what the table shows
            self.show_error(self.error)


class TensorBody(Horizontal):
    """The data pane (the table, a message in its place, the ridgeline or the bands) beside the
    statistics; `-narrow`: the statistics under it. The charts' data comes through the view's
    loader, so every step's histogram is decoded after the step on screen, never beside it."""

    DEFAULT_CSS = """
    TensorBody { height: 1fr; }
    TensorBody #tensor-data { width: 1fr; height: 1fr; }
    TensorBody #tensor-message { width: 1fr; height: 1fr; padding: 1 2; color: $text-muted; }
    TensorBody #tensor-chart, TensorBody #tensor-bands { height: 1fr; }
    TensorBody #tensor-stats { width: 38; height: 1fr; padding: 0 1; border-left: vkey $panel-lighten-2; }
    TensorBody.-narrow { layout: vertical; }
    TensorBody.-narrow #tensor-stats { width: 1fr; height: auto; border-left: none; border-top: hkey $panel-lighten-2; }
    """

    def __init__(self, loader: Loader, **kwargs: Any):
        super().__init__(**kwargs)
        self.loader = loader
        self.table_key: Hashable = None  # the tensor whose slice the table shows
        self._charted: Hashable = None  # what the charts show or are loading

    def compose(self) -> ComposeResult:
        with Vertical(id="tensor-data"):
            yield SliceTable(id="tensor-table")
            yield TensorMessage("", id="tensor-message")
            yield TensorChart("tensor-chart", "", id="tensor-chart")  # in the theme's primary
            yield TensorBands("", id="tensor-bands")
        yield Static("", id="tensor-stats")

    @property
    def table(self) -> SliceTable:
        return self.query_one(SliceTable)

    @property
    def chart(self) -> TensorChart:
        return self.query_one(TensorChart)

    @property
    def bands(self) -> TensorBands:
        return self.query_one(TensorBands)

    def shown_chart(self, bands: bool) -> TensorChart | TensorBands:
        return self.bands if bands else self.chart

    def first_focus(self, histogram: bool, bands: bool) -> Widget:
        if histogram:
            return self.shown_chart(bands)
        table = self.table
        return table if table.display else self.query_one(TensorMessage)

    def show(self, histogram: bool, bands: bool, has_values: bool, message: str) -> None:
        """The chart (`histogram`: the bands if `bands`), else the table if it `has_values`, else
        `message` (markup) in its place; the keyboard stays with the data pane."""
        table, text = self.table, self.query_one(TensorMessage)
        had_keys = table.has_focus or text.has_focus
        self.chart.display = histogram and not bands
        self.bands.display = histogram and bands
        table.display = not histogram and has_values
        text.display = not histogram and not has_values
        if not has_values:
            text.update(message)
        if had_keys and not histogram:
            focus_now(table if has_values else text)

    def show_slice(self, key: Hashable, sliced: TensorSlice, width: int, cursor: tuple[int, int], integers: bool) -> None:
        """The slice `sliced` of the tensor `key` in the table, columns `width` wide, the cursor on
        `cursor` unless the table shows that tensor with its cursor there already (it keeps its scroll)."""
        table = self.table
        same = self.table_key == key and table.cursor == cursor
        self.table_key = key
        table.set_slice(sliced.data, sliced.row_index, sliced.col_index, width, cursor=None if same else cursor,
                        integers=integers)

    def want_charts(self, key: Hashable, work: Callable[[], tuple[Any, Any, str]]) -> None:
        """Both charts' data for `key` (a tensor and the version of its data): (ridgeline, bands,
        why not) from `work`, on the loader, unless the charts show or load it already."""
        if self._charted == key:
            return
        self._charted = key
        self._chart_data(("loading", key), None, None, "decoding every step…")

        def done(result: Loaded) -> None:
            if self._charted == key:
                self._chart_data(key, *(result.value if result.ok else (None, None, result.error)))

        self.loader.request("histogram", work, done)

    def _chart_data(self, key: Hashable, ridge: Any, dist: Any, message: str) -> None:
        self.chart.set_data(key, ridge, message)  # each announces it (CursorMoved): the view's read-out follows
        self.bands.set_data(key, dist, message)

    def style_charts(self, mode: str, axis: str, origin: float, title: str | None) -> None:
        """The ridgeline's mode, both charts' step axis (wall times from `origin`) and title (markup)."""
        self.chart.set_style(mode, axis, origin)
        self.bands.set_style(axis, origin)
        if title is not None:
            self.chart.border_title = self.bands.border_title = title

    def show_stats(self, text: Text | str) -> None:
        stats = self.query_one("#tensor-stats", Static)
        if stats.content != text:  # an update lays the screen out again (and it redraws on every resize)
            stats.update(text)
