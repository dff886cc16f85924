"""The tensor view: one tensor tag at a time, as a table of a slice or as a ridgeline over steps.

- The slice box takes MindInsight's `dims` grammar (`[0,:,1:10]`); a slice that cannot be
  applied is explained under it and the last good slice stays on screen.
- `[`/`]` (and the slider) move through the kept steps; slice, cursor and scroll stay put.
- The statistics panel shows the slice's and the whole tensor's min, max, mean, count and
  NaN/+inf/-inf counts (§4.6).
- `h` shows the tensor's distribution over steps as a ridgeline (the histogram view's widget).

Decoding a step (up to 10,000,000 values) and the whole tensor's statistics run in a thread
worker; slicing (at most 100,000 values) runs on the UI thread when the slice is entered, so
the table paints at once. The view keeps only the step on screen: older steps are left to
the payload LRU, so going through every step does not grow the process past its bound.
"""
from __future__ import annotations

import threading
from typing import Any

import numpy as np
from rich.markup import escape
from rich.segment import Segment
from rich.style import Style
from rich.text import Text
from textual import on
from textual.actions import SkipAction
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical
from textual.events import Click, Resize
from textual.message import Message
from textual.strip import Strip
from textual.widget import Widget
from textual.widgets import Input, OptionList, Static
from textual.widgets.option_list import Option

from ...summary.cache import Changes
from ...summary.histograms import Ridgeline, rebin
from ...summary.payloads import Locator, PayloadError, TensorData
from ...summary.scalars import X_AXES
from ...summary.tensors import (
    SliceError, TensorSlice, TensorUnavailable, apply_slice, default_slice, parse_slice, statistics,
    tensor_at, tensor_histogram_steps,
)
from ..common.format import clock_time, duration, number
from ..common.palette import SERIES_COLOURS
from .base import DataView, ViewSpec
from ..common.filters import compile_filter
from ..widgets.ridgeline import MODES, RidgelineChart, ridgeline_bindings
from ..widgets.slice_table import SliceTable, column_width_for
from ..common.focus import focus_now

Key = tuple[str, str]  # (train id, tag)
WIDE = 118  # from this view width on, statistics sit beside the table
SINGLE_JOB_COLOUR = SERIES_COLOURS[4]


def option_id(key: tuple[str, str]) -> str:
    """The tensor list's id of (train id, tag); a job's heading in comparison is its train id."""
    return f"{key[0]}\n{key[1]}"


def dims_text(dims: tuple[int, ...]) -> str:
    return "x".join(str(d) for d in dims) if dims else "scalar"


def full_index(slice_text: str, dims: tuple[int, ...], free: tuple[int, ...]) -> tuple[int, ...] | None:
    """The index into the whole tensor of a cell: the slice's fixed indices plus the cell's free ones."""
    try:
        index = parse_slice(slice_text, dims)
    except SliceError:
        return None
    out, free_iter = [], iter(free)
    for item, size in zip(index, dims):
        if isinstance(item, int):
            out.append(item % size if size else item)
        else:
            value = next(free_iter, None)
            if value is None:
                return None
            out.append(value)
    return tuple(out)


class TensorChart(RidgelineChart):
    HELP_GROUP = "Tensor histogram"
    BINDINGS = ridgeline_bindings("tensors")


class StepSlider(Widget):
    """Where the shown step is among the kept steps: `◀ ━━━●──── ▶`. A click picks a step."""

    DEFAULT_CSS = """
    StepSlider { height: 1; width: 1fr; }
    """

    class Picked(Message):
        def __init__(self, index: int) -> None:
            super().__init__()
            self.index = index

    def __init__(self, **kwargs: Any):
        super().__init__(**kwargs)
        self.index = 0
        self.count = 0

    def show(self, index: int, count: int) -> None:
        if (index, count) != (self.index, self.count):
            self.index, self.count = index, count
            self.refresh()

    def _track(self) -> int:
        return max(1, self.content_size.width - 4)

    def render_line(self, y: int) -> Strip:
        width = self.content_size.width
        base = self.rich_style
        if y != 0 or self.count == 0 or width < 6:
            return Strip.blank(width, base)
        track = self._track()
        knob = round(self.index / (self.count - 1) * (track - 1)) if self.count > 1 else 0
        accent = Style(color=SERIES_COLOURS[1], bold=True)
        segments = [Segment("◀ ", Style(dim=self.index == 0)), Segment("━" * knob, accent), Segment("●", accent),
                    Segment("─" * (track - knob - 1), Style(dim=True)),
                    Segment(" ▶", Style(dim=self.index == self.count - 1))]
        return Strip(segments, width).apply_style(base)

    def on_click(self, event: Click) -> None:
        if self.count < 2:
            return
        x = event.x - 2
        track = self._track()
        if 0 <= x < track:
            self.post_message(self.Picked(round(x / max(track - 1, 1) * (self.count - 1))))
        elif x < 0:
            self.post_message(self.Picked(max(0, self.index - 1)))
        else:
            self.post_message(self.Picked(min(self.count - 1, self.index + 1)))


class TensorsView(DataView):
    SPEC = ViewSpec("tensors", "Tensors", "3", ("tensor",), "job")
    HELP_GROUP = "Tensors"
    DEFAULT_CSS = """
    TensorsView { layout: horizontal; }
    TensorsView #tensor-tags { width: 30; height: 1fr; }
    TensorsView #tensor-tags.-narrow { width: 22; }
    TensorsView #tensor-filter { height: 3; }
    TensorsView #tensor-list { height: 1fr; text-wrap: nowrap; text-overflow: ellipsis; }
    TensorsView #tensor-main { width: 1fr; height: 1fr; }
    TensorsView #tensor-title { height: 1; padding: 0 1; background: $panel; }
    TensorsView #tensor-slicebar { height: 1; }
    TensorsView #tensor-slice-label { width: auto; padding: 0 1; color: $text-muted; }
    TensorsView #tensor-slice { width: 30; height: 1; border: none; padding: 0 1; background: $boost; }
    TensorsView #tensor-slice:focus { background: $accent 30%; }
    TensorsView #tensor-slice-error { width: 1fr; height: 1; padding: 0 1; color: $text-muted; }
    TensorsView #tensor-slice-error.-error { color: $error; }
    TensorsView #tensor-steps { height: 1; padding: 0 1; }
    TensorsView #tensor-body { height: 1fr; }
    TensorsView #tensor-data { width: 1fr; height: 1fr; }
    TensorsView #tensor-message { width: 1fr; height: 1fr; padding: 1 2; color: $text-muted; }
    TensorsView #tensor-chart { height: 1fr; }
    TensorsView #tensor-stats { width: 38; height: 1fr; padding: 0 1; border-left: vkey $panel-lighten-2; }
    TensorsView.-narrow #tensor-body { layout: vertical; }
    TensorsView.-narrow #tensor-stats { width: 1fr; height: auto; border-left: none; border-top: hkey $panel-lighten-2; }
    TensorsView #tensor-readout { height: auto; max-height: 2; padding: 0 1; background: $panel; }
    """
    BINDINGS = [
        Binding("slash", "filter_tags", "Filter tags", id="tensors.filter"),
        Binding("d", "edit_slice", "Edit slice", id="tensors.slice"),
        Binding("r", "reset_slice", "Default slice", show=False, id="tensors.reset_slice"),
        Binding("left_square_bracket", "step(-1)", "Previous step", id="tensors.prev_step"),
        Binding("right_square_bracket", "step(1)", "Next step", id="tensors.next_step"),
        Binding("left_curly_bracket", "step_end(0)", "First step", show=False, id="tensors.first_step"),
        Binding("right_curly_bracket", "step_end(1)", "Last step", show=False, id="tensors.last_step"),
        Binding("h", "toggle_histogram", "Table/histogram", id="tensors.histogram"),
        Binding("o", "mode", "Offset/overlay", show=False, id="tensors.mode"),
        Binding("x", "cycle_axis", "Step axis", show=False, id="tensors.step_axis"),
        Binding("plus,equals_sign", "column_width(2)", "Wider columns", show=False, id="tensors.wider"),
        Binding("minus", "column_width(-2)", "Narrower columns", show=False, id="tensors.narrower"),
        Binding("escape", "leave", "Cancel slice edit", show=False, id="tensors.leave"),
    ]

    class StepLoaded(Message):
        """A worker decoded one step of a tensor."""

        def __init__(self, request: int, key: Key, step: int, locator: Locator | None,
                     tensor: TensorData | None, overall: dict | None, problem: str) -> None:
            super().__init__()
            self.request, self.key, self.step, self.locator = request, key, step, locator
            self.tensor, self.overall, self.problem = tensor, overall, problem

    class HistogramLoaded(Message):
        def __init__(self, request: int, key: Key, ridge: Ridgeline | None, problem: str) -> None:
            super().__init__()
            self.request, self.key, self.ridge, self.problem = request, key, ridge, problem

    def __init__(self, cache, train_ids, **kwargs: Any):
        super().__init__(cache, train_ids, **kwargs)
        self.keys: list[Key] = []  # every (job, tensor tag), sorted by tag
        self.tag_filter = ""
        self.current: Key | None = None
        self.step: int | None = None  # the step shown (kept by number across live updates)
        self.locator: Locator | None = None  # where the shown step's tensor is
        self.tensor: TensorData | None = None
        self.overall: dict | None = None  # statistics of the whole tensor
        self.slice: TensorSlice | None = None
        self.slice_stats: dict | None = None
        self.slice_texts: dict[Key, str] = {}  # the last good slice of each tag
        self.problem = ""  # why there is no table
        self.histogram = False
        self.mode = "offset"
        self.axis = "step"
        self.column_width: int | None = None  # chosen by the user (+/-), else from the data
        self._request = 0  # numbers the loads; a message of an older request is dropped
        self._histogram_version: dict[Key, int] = {}
        self._histogram_shown: tuple[Key, int] | None = None
        self._keep_position = True  # for the step being decoded
        self._lock = threading.Lock()
        self._wanted: tuple | None = None  # the step the decoder should read next
        self._decoding = False

    # -- building -----------------------------------------------------------------------------

    def compose(self) -> ComposeResult:
        with Vertical(id="tensor-tags"):
            yield Input(placeholder="/ filter tags (regex)", id="tensor-filter")
            yield OptionList(id="tensor-list")
        with Vertical(id="tensor-main"):
            yield Static("", id="tensor-title")
            with Horizontal(id="tensor-slicebar"):
                yield Static("slice", id="tensor-slice-label")
                yield Input(placeholder="[0,:,:]", id="tensor-slice")  # focus selects it: typing replaces
                yield Static("", id="tensor-slice-error")
            yield StepSlider(id="tensor-steps")
            with Horizontal(id="tensor-body"):
                with Vertical(id="tensor-data"):
                    yield SliceTable(id="tensor-table")
                    yield Static("", id="tensor-message")
                    yield TensorChart("tensor-chart", "", colour=SINGLE_JOB_COLOUR, id="tensor-chart")
                yield Static("", id="tensor-stats")
            yield Static("", id="tensor-readout")

    def on_mount(self) -> None:
        self.query_one("#tensor-list", OptionList).border_title = "tensors"
        self._read_keys()
        self._sync_list()
        if self.keys:
            self._open(self.keys[0])
        self._show_body()
        self._update_all()
        self.call_after_refresh(self.ready_for_keys)  # interim: the view takes the keys when ready

    def on_resize(self, event: Resize) -> None:
        self.set_class(self.size.width < WIDE, "-narrow")
        self.query_one("#tensor-tags").set_class(self.app.size.width < 100, "-narrow")
        self._update_stats()

    def focus_view(self) -> None:
        if not self.is_mounted:
            self.call_after_refresh(self.focus_view)
        elif self.current is None:
            focus_now(self.query_one("#tensor-list"))
        elif self.histogram:
            focus_now(self.query_one(TensorChart))
        else:
            focus_now(self.query_one(SliceTable))

    # -- tags -----------------------------------------------------------------------------------

    def _read_keys(self) -> bool:
        keys = sorted(((job.train_id, tag) for job in self.jobs for tag in job.tag_names("tensor")),
                      key=lambda k: (k[1], self.train_ids.index(k[0]) if k[0] in self.train_ids else 0))
        if keys == self.keys:
            return False
        self.keys = keys
        return True

    def _shown_keys(self) -> list[Key]:
        match = compile_filter(self.tag_filter)
        return [key for key in self.keys if match(key[1])]

    def _sync_list(self) -> None:
        listing = self.query_one("#tensor-list", OptionList)
        shown = self._shown_keys()
        many = len(self.train_ids) > 1
        options = []
        job = None
        if many:  # grouped by job, in the dashboard's order
            order = {tid: i for i, tid in enumerate(self.train_ids)}
            shown = sorted(shown, key=lambda key: order.get(key[0], len(order)))
        for tid, tag in shown:
            prompt = Text(tag, no_wrap=True, overflow="ellipsis")
            if many:
                if tid != job:  # each job's tensors under its name: colour alone is lost under NO_COLOR
                    job = tid
                    options.append(Option(Text.assemble(("● ", self.job_colour(tid)), (tid, "bold"),
                                                        no_wrap=True, overflow="ellipsis"),
                                          id=tid, disabled=True))
                prompt = Text.assemble(("  ", ""), tag, no_wrap=True, overflow="ellipsis")
            options.append(Option(prompt, id=option_id((tid, tag))))
        current_ids = [listing.get_option_at_index(i).id for i in range(listing.option_count)]
        if current_ids != [o.id for o in options]:
            listing.clear_options()
            listing.add_options(options)
        if self.current in shown:
            listing.highlighted = listing.get_option_index(option_id(self.current))
        listing.border_title = f"tensors {len(shown)}/{len(self.keys)}"

    @on(OptionList.OptionHighlighted, "#tensor-list")
    def _highlighted(self, event: OptionList.OptionHighlighted) -> None:
        event.stop()
        tid, newline, tag = str(event.option.id).partition("\n")
        if newline and (tid, tag) != self.current:
            self._open((tid, tag))

    @on(OptionList.OptionSelected, "#tensor-list")
    def _selected(self, event: OptionList.OptionSelected) -> None:
        event.stop()
        self._highlighted(event)  # type: ignore[arg-type]
        self.focus_view()

    @on(Input.Changed, "#tensor-filter")
    def _filter_changed(self, event: Input.Changed) -> None:
        event.stop()
        self.tag_filter = event.value
        self._sync_list()

    @on(Input.Submitted, "#tensor-filter")
    def _filter_done(self, event: Input.Submitted) -> None:
        event.stop()
        focus_now(self.query_one("#tensor-list"))

    def action_filter_tags(self) -> None:
        focus_now(self.query_one("#tensor-filter", Input))

    # -- which tag and step ---------------------------------------------------------------------

    def _series(self):
        if self.current is None:
            return None
        view = self.cache.job(self.current[0])
        return view.series("tensor", self.current[1]) if view is not None else None

    def step_index(self) -> int | None:
        """The index of the shown step among the kept steps (nearest if it was dropped)."""
        series = self._series()
        if series is None or not len(series):
            return None
        if self.step is None:
            return len(series) - 1
        i = int(np.searchsorted(series.steps, self.step))
        if i >= len(series) or (i > 0 and series.steps[i] != self.step
                                and self.step - series.steps[i - 1] <= series.steps[i] - self.step):
            i -= 1
        return max(0, min(len(series) - 1, i))

    def _open(self, key: Key) -> None:
        """Show tag `key`, at its last step."""
        if self.current is not None and self.slice is not None:
            self.slice_texts[self.current] = self.slice.text
        self.current = key
        self.step = None
        self.tensor = self.overall = self.slice = self.slice_stats = None
        self.locator = None
        self.problem = "loading…"
        self.column_width = None
        series = self._series()
        if series is not None and len(series):
            self.step = int(series.steps[-1])
        self._histogram_shown = None
        self.query_one(TensorChart).border_title = key[1] if len(self.train_ids) == 1 else f"{key[1]} · {key[0]}"
        self._load_step(keep_position=False)
        if self.histogram:
            self._load_histogram()
        self._update_all()

    def _load_step(self, keep_position: bool = True) -> None:
        """Decode the shown step in a worker (nothing to do if it is the one on screen)."""
        series = self._series()
        i = self.step_index()
        if self.current is None or series is None or i is None:
            self.tensor, self.problem = None, "no kept steps"
            self._show_body()
            return
        view = self.cache.job(self.current[0])
        locator = view.locator(series, i) if view is not None else None
        if locator is not None and locator == self.locator and self.tensor is not None:
            return
        self._request += 1
        self._keep_position = keep_position
        wanted = (self._request, self.current, int(series.steps[i]), i, view, locator)
        with self._lock:
            # One decoder at a time, on the newest request: holding `]` does not start a
            # thread (and a 10,000,000-value decode) per key press.
            self._wanted = wanted
            start = not self._decoding
            self._decoding = True
        if start:
            self.run_worker(self._decode_steps, thread=True, group="tensors-step", description="decode tensor steps")

    def _decode_steps(self) -> None:
        """Worker thread: decode the newest wanted step until no newer one is wanted."""
        while True:
            with self._lock:
                wanted, self._wanted = self._wanted, None
                if wanted is None:
                    self._decoding = False
                    return
            request, key, step, i, view, locator = wanted
            tensor, overall, problem = None, None, ""
            try:
                tensor = tensor_at(self.cache, view, key[1], i)
                if tensor.array is None:
                    problem = tensor.reason or "no values"
                else:
                    overall = statistics(tensor.array)
            except PayloadError as exc:
                problem = str(exc)
            except Exception as exc:  # a bug must not leave the view waiting: say it
                problem = f"cannot read this step: {exc}"
            self.post_message(self.StepLoaded(request, key, step, locator, tensor, overall, problem))

    def on_tensors_view_step_loaded(self, message: StepLoaded) -> None:
        message.stop()
        if message.request != self._request or message.key != self.current:
            return
        self.step, self.locator = message.step, message.locator
        self.tensor, self.overall = message.tensor, message.overall
        self.problem = message.problem
        if self.tensor is not None and self.tensor.array is not None:
            text = self.slice.text if self.slice is not None else self.slice_texts.get(message.key, "")
            self._apply(text or default_slice(self.tensor.dims), keep_position=self._keep_position,
                        fallback=True)
        else:
            self.slice = self.slice_stats = None
        self._show_body()
        self._update_all()

    def _apply(self, text: str, keep_position: bool = True, fallback: bool = False) -> bool:
        """Slice the shown tensor with `text`. On a bad slice: say why, keep the last good one
        (or, when the tensor itself changed shape, fall back to the default). True if applied."""
        tensor = self.tensor
        if tensor is None or tensor.array is None:
            return False
        error = self.query_one("#tensor-slice-error", Static)
        try:
            sliced = apply_slice(tensor.array, text)
        except SliceError as exc:
            if not fallback:
                error.update(escape(str(exc)))
                error.add_class("-error")
                return False
            default = default_slice(tensor.dims)
            sliced = apply_slice(tensor.array, default)
            error.update(escape(f"{text} does not fit {dims_text(tensor.dims)} ({exc}): default slice"))
            error.add_class("-error")
            keep_position = False
        else:
            error.update("")
            error.remove_class("-error")
        self.slice = sliced
        self.slice_stats = statistics(sliced.data)
        box = self.query_one("#tensor-slice", Input)
        if box.value != sliced.text and not box.has_focus:
            box.value = sliced.text
        table = self.query_one(SliceTable)
        width = self.column_width if self.column_width is not None else column_width_for(sliced.data)
        # The table clamps its cursor and scroll to the new shape: stepping keeps the position.
        integers = tensor.dtype.startswith(("DT_INT", "DT_UINT", "DT_BOOL"))
        table.set_slice(sliced.data, sliced.row_index, sliced.col_index, width, keep_position=keep_position,
                        integers=integers)
        return True

    # -- slice box ------------------------------------------------------------------------------

    def action_edit_slice(self) -> None:
        if self.histogram:
            self.action_toggle_histogram()
        focus_now(self.query_one("#tensor-slice", Input))

    @on(Input.Submitted, "#tensor-slice")
    def _slice_entered(self, event: Input.Submitted) -> None:
        event.stop()
        if self.tensor is None or self.tensor.array is None:
            self.query_one("#tensor-slice-error", Static).update(
                escape(f"no values to slice: {self.problem}" if self.problem else "no tensor shown"))
            return
        if self._apply(event.value, keep_position=True):
            focus_now(self.query_one(SliceTable))
            self._update_all()

    def on_descendant_focus(self, event) -> None:
        if getattr(event.widget, "id", None) == "tensor-slice":
            error = self.query_one("#tensor-slice-error", Static)
            if not error.has_class("-error"):
                error.update("[dim]enter applies · esc cancels[/dim]")

    def on_descendant_blur(self, event) -> None:
        if getattr(event.widget, "id", None) == "tensor-slice":
            error = self.query_one("#tensor-slice-error", Static)
            if not error.has_class("-error"):
                error.update("")

    @on(Input.Changed, "#tensor-slice")
    def _slice_typed(self, event: Input.Changed) -> None:
        event.stop()
        error = self.query_one("#tensor-slice-error", Static)
        if error.has_class("-error") and event.input.has_focus:
            error.remove_class("-error")
            error.update("[dim]enter applies · esc cancels[/dim]")

    def action_reset_slice(self) -> None:
        if self.tensor is not None and self.tensor.array is not None:
            self._apply(default_slice(self.tensor.dims), keep_position=False)
            self.query_one("#tensor-slice", Input).value = self.slice.text if self.slice else ""
            self._update_all()

    def action_leave(self) -> None:
        box = self.query_one("#tensor-slice", Input)
        if box.has_focus:
            box.value = self.slice.text if self.slice is not None else ""
            error = self.query_one("#tensor-slice-error", Static)
            error.update("")
            error.remove_class("-error")
            self.focus_view()
            return
        chart = self.query_one(TensorChart)
        if chart.has_focus and chart.hide_cursor():
            return
        raise SkipAction()

    # -- steps ----------------------------------------------------------------------------------

    def action_step(self, move: int) -> None:
        series = self._series()
        i = self.step_index()
        if series is None or i is None:
            return
        j = max(0, min(len(series) - 1, i + move))
        self._go_to(j)

    def action_step_end(self, last: int) -> None:
        series = self._series()
        if series is not None and len(series):
            self._go_to(len(series) - 1 if last else 0)

    def _go_to(self, index: int) -> None:
        series = self._series()
        if series is None or not len(series):
            return
        step = int(series.steps[index])
        if step == self.step and self.tensor is not None:
            return
        self.step = step
        self._load_step(keep_position=True)
        self._update_title()
        self._update_slider()

    @on(StepSlider.Picked)
    def _picked(self, event: StepSlider.Picked) -> None:
        event.stop()
        self._go_to(event.index)

    # -- histogram mode -------------------------------------------------------------------------

    def action_toggle_histogram(self) -> None:
        self.histogram = not self.histogram
        if self.histogram:
            self._load_histogram()
        self._show_body()
        self._update_all()
        self.focus_view()

    def _load_histogram(self) -> None:
        key = self.current
        if key is None:
            return
        version = self._histogram_version.get(key, 0)
        if self._histogram_shown == (key, version):
            return
        self._histogram_shown = (key, version)
        self._request += 1
        request = self._request
        view = self.cache.job(key[0])
        cache = self.cache
        chart = self.query_one(TensorChart)
        chart.set_data(("loading", key, version), None, "decoding every step…")

        def work() -> None:
            ridge, problem = None, ""
            try:
                steps = tensor_histogram_steps(cache, view, key[1]) if view is not None else []
                if steps:
                    ridge = rebin(steps)
                else:
                    problem = "no kept steps"
            except TensorUnavailable as exc:
                problem = f"no histogram: {exc}"
            except PayloadError as exc:
                problem = f"cannot read: {exc}"
            except Exception as exc:
                problem = f"cannot draw: {exc}"
            self.post_message(self.HistogramLoaded(request, key, ridge, problem))

        self.run_worker(work, thread=True, group="tensors-histogram", description=f"histograms of {key[1]}")

    def on_tensors_view_histogram_loaded(self, message: HistogramLoaded) -> None:
        message.stop()
        if message.key != self.current:
            return
        chart = self.query_one(TensorChart)
        version = self._histogram_version.get(message.key, 0)
        chart.set_data((message.key, version), message.ridge, message.problem)
        self._update_readout()

    def action_mode(self) -> None:
        self.mode = MODES[(MODES.index(self.mode) + 1) % len(MODES)]
        self._style_chart()

    def action_cycle_axis(self) -> None:
        self.axis = X_AXES[(X_AXES.index(self.axis) + 1) % len(X_AXES)]  # type: ignore[arg-type]
        self._style_chart()

    def _style_chart(self) -> None:
        chart = self.query_one(TensorChart)
        view = self.cache.job(self.current[0]) if self.current else None
        origin = float(view.first_wall_time or 0.0) if view is not None else 0.0
        chart.set_style(self.mode, self.axis, origin)
        self._update_title()

    def action_column_width(self, change: int) -> None:
        table = self.query_one(SliceTable)
        self.column_width = table.column_width + change
        table.set_column_width(self.column_width)
        self.column_width = table.column_width

    # -- live updates ---------------------------------------------------------------------------

    def cache_changed(self, changes: Changes) -> None:
        mine = set(self.train_ids)
        changed: set[Key] = set()
        for tid in mine & (set(changes.updated) | changes.added | changes.removed):
            keys = changes.updated.get(tid)
            if keys:
                changed |= {(tid, tag) for plugin, tag in keys if plugin == "tensor"}
            else:
                view = self.cache.job(tid)
                changed |= {(tid, tag) for tag in (view.tag_names("tensor") if view is not None else [])}
                changed |= {key for key in self.keys if key[0] == tid}
        if not changed:
            return
        for key in changed:
            self._histogram_version[key] = self._histogram_version.get(key, 0) + 1
        if self._read_keys():
            self._sync_list()
        if self.current is None and self.keys:
            self._open(self.keys[0])
            return
        if self.current in changed:
            if self._series() is None:  # the tag is gone
                self.tensor = self.slice = None
                self.problem = "this tag is no longer in the job"
                self._show_body()
            else:
                self._load_step(keep_position=True)  # same step (or nearest) if its data moved
                if self.histogram:
                    self._load_histogram()
        self._update_all()

    # -- showing --------------------------------------------------------------------------------

    def _show_body(self) -> None:
        table = self.query_one(SliceTable)
        message = self.query_one("#tensor-message", Static)
        chart = self.query_one(TensorChart)
        has_values = self.slice is not None and self.tensor is not None and self.tensor.array is not None
        chart.display = self.histogram
        table.display = not self.histogram and has_values
        message.display = not self.histogram and not has_values
        if not has_values:
            message.update(self._message_text())
        self._style_chart()

    def _message_text(self) -> str:
        if self.current is None:
            loading = any(not job.loaded for job in self.jobs)
            return "no tensor tags yet" if loading else "these jobs have no tensors"
        tensor = self.tensor
        if tensor is None:
            return escape(self.problem or "loading…")
        return (f"[b]{escape(self.current[1])}[/b]  shape {dims_text(tensor.dims)} · {escape(tensor.dtype)}\n\n"
                f"No values to show: {escape(self.problem or tensor.reason)}")

    def _update_all(self) -> None:
        self._update_title()
        self._update_slider()
        self._update_stats()
        self._update_readout()

    def _update_title(self) -> None:
        title = self.query_one("#tensor-title", Static)
        if self.current is None:
            title.update(self._message_text())
            return
        series = self._series()
        i = self.step_index()
        parts = [f"[b]{escape(self.current[1])}[/b]"]
        if len(self.train_ids) > 1:
            parts.append(f"[{self.job_colour(self.current[0])}]●[/] {escape(self.current[0])}")
        if series is not None and i is not None:
            parts.append(f"step {int(series.steps[i])} ({i + 1}/{len(series)})")
        if self.tensor is not None:
            parts.append(f"{dims_text(self.tensor.dims)} {escape(self.tensor.dtype)}")
        if self.histogram:
            parts.append(f"histogram · {self.mode} · step axis: {self.axis}")
        title.update(" · ".join(parts))

    def _update_slider(self) -> None:
        series = self._series()
        i = self.step_index()
        self.query_one(StepSlider).show(i or 0, len(series) if series is not None else 0)

    def _update_stats(self) -> None:
        stats = self.query_one("#tensor-stats", Static)
        overall = self.overall
        piece = self.slice_stats if self.slice is not None else None
        if overall is None:
            reason = "" if self.tensor is None else (self.problem or self.tensor.reason)
            stats.update(f"[dim]no statistics{': ' + escape(reason) if reason else ''}[/dim]")
            return
        rows = [("min", "min"), ("max", "max"), ("mean", "avg"), ("count", "count"),
                ("nan", "nan_count"), ("+inf", "pos_inf_count"), ("-inf", "neg_inf_count")]
        if self.has_class("-narrow"):  # two small tables side by side, under the table
            left, right = rows[:3], rows[3:]
            text = Text()
            text.append(f"{'':<5}{'slice':>11}{'tensor':>11}   {'':<5}{'slice':>8}{'tensor':>9}", style="bold")
            for k in range(len(right)):
                text.append("\n")
                if k < len(left):
                    label, key = left[k]
                    text.append(f"{label:<5}", style="dim")
                    text.append(f"{_stat(piece, key) if piece else '-':>11}")
                    text.append(f"{_stat(overall, key):>11}")
                else:
                    text.append(" " * 27)
                label, key = right[k]
                text.append(f"   {label:<5}", style="dim")
                text.append(f"{_stat(piece, key) if piece else '-':>8}", style=_stat_style(key, piece))
                text.append(f"{_stat(overall, key):>9}", style=_stat_style(key, overall))
            stats.update(text)
            return
        text = Text()
        text.append(f"{'':<6}{'slice':>14}{'tensor':>14}\n", style="bold")
        for label, key in rows:
            text.append(f"{label:<6}", style="dim")
            text.append(f"{_stat(piece, key) if piece else '-':>14}", style=_stat_style(key, piece))
            text.append(f"{_stat(overall, key):>14}\n", style=_stat_style(key, overall))
        text.append("\n")
        for label, key in (("zeros", "zero_count"), ("< 0", "neg_count"), ("> 0", "pos_count")):
            text.append(f"{label:<6}", style="dim")
            text.append(f"{'':>14}{_stat(overall, key):>14}\n")
        text.append("\nstatistics leave NaN/Inf out", style="dim")
        stats.update(text)

    def _update_readout(self) -> None:
        readout = self.query_one("#tensor-readout", Static)
        if self.histogram:
            chart = self.query_one(TensorChart)
            text = chart.readout()
            readout.update(text if text.plain else Text(
                "↑/↓ step cursor · ←/→ bucket · o offset/overlay · x step axis · h table", style="dim"))
            return
        table = self.query_one(SliceTable)
        if self.slice is None or self.tensor is None or not table.display:
            readout.update(Text("[ ] steps · d slice · h histogram · / filter tags", style="dim"))
            return
        value = table.cursor_value
        if value is None:
            readout.update(Text("empty slice", style="dim"))
            return
        index = full_index(self.slice.text, self.tensor.dims, table.cursor_indices)
        where = "[" + ", ".join(str(i) for i in index) + "]" if index is not None else "?"
        text = Text()
        text.append(f"{self.current[1] if self.current else ''}{where}", style="bold")
        text.append(" = ")
        text.append(repr(value) if np.isfinite(value) else number(value),
                    style="bold" if np.isfinite(value) else "bold #D55E00")
        series = self._series()
        i = self.step_index()
        if series is not None and i is not None:
            wall = float(series.wall_times[i])
            view = self.cache.job(self.current[0]) if self.current else None
            origin = float(view.first_wall_time or wall) if view is not None else wall
            when = f" · {clock_time(wall)}" if self.size.width >= WIDE else ""
            text.append(f"   step {int(series.steps[i])} +{duration(wall - origin)}{when}", style="dim")
        readout.update(text)

    @on(SliceTable.CellMoved)
    def _cell_moved(self, event: SliceTable.CellMoved) -> None:
        event.stop()
        self._update_readout()

    @on(RidgelineChart.CursorMoved)
    def _cursor_moved(self, event: RidgelineChart.CursorMoved) -> None:
        event.stop()
        self._update_readout()

    # -- export ---------------------------------------------------------------------------------

    def export_scope(self) -> dict[str, Any]:
        tags = {("tensor", self.current[1])} if self.current else set()
        return {"train_ids": [self.current[0]] if self.current else list(self.train_ids),
                "plugins": {"tensor"}, "tags": tags}

    def describe_export(self) -> str:
        if self.current is None:
            return "no tensor"
        return f"tensor {self.current[1]} of {self.current[0]}"


def _stat(values: dict | None, key: str) -> str:
    if values is None:
        return "-"
    value = values[key]
    if key in ("min", "max", "avg"):
        return number(value)
    return f"{int(value):,}"


def _stat_style(key: str, values: dict | None) -> str:
    if values is not None and key in ("nan_count", "pos_inf_count", "neg_inf_count") and values[key]:
        return "bold #D55E00"
    return ""

