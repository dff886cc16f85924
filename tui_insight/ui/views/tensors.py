"""The tensor view: one tensor tag at a time, as a table of a slice or as a ridgeline over steps.

- The slice box takes MindInsight's `dims` grammar (`[0,:,1:10]`); a slice that cannot be
  applied is explained under it and the last good slice stays on screen.
- `[`/`]` (and the slider) move through the kept steps; slice, cursor and scroll stay put.
  The last step follows new steps as they arrive; an older one stays on screen.
- The statistics panel shows the slice's and the whole tensor's min, max, mean, count and
  NaN/+inf/-inf counts (§4.6).
- `h` shows the tensor's distribution over steps as a ridgeline (the histogram view's widget),
  `b` as TensorBoard's percentile bands (`widgets/bands.py`), from the same decode.

What the user chose (the tensor; per tensor its slice, step, column width and cell; the mode)
is a `TensorsState` (`ui/state/tensors.py`) held in one reactive; `watch_state` redraws from it.
Decoding a step (up to 10,000,000 values) with the whole tensor's statistics, and the histogram
of every step, go through the view's loader; slicing (at most 100,000 values) runs on the UI
thread, so the table paints at once. The view keeps only the step on screen: older steps are left
to the payload LRU, so going through every step does not grow the process past its bound.
"""
from __future__ import annotations

from typing import Any

from rich.text import Text
from textual import on
from textual.actions import SkipAction
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical
from textual.events import Resize
from textual.reactive import reactive
from textual.widget import Widget
from textual.widgets import Input, OptionList, Static
from textual.widgets.option_list import Option

from ...escape import shown
from ...summary.formats.values import PayloadError
from ...summary.queries.distributions import distribution
from ...summary.queries.histograms import rebin
from ...summary.queries.tensors import (
    SliceError,
    TensorSlice,
    TensorUnavailable,
    apply_slice,
    statistics,
    tensor_at,
    tensor_histogram_steps,
)
from ...summary.store.job_view import Changes
from ...summary.store.series import Series
from ..common.filters import compile_filter
from ..common.focus import focus_now
from ..common.text import markup
from ..loader import Loaded, LoadProblem
from ..presenters import tensors as present
from ..presenters.tensors import WIDE, StepData, full_index, option_id
from ..state.tensors import Key, TensorsState, dims_text
from ..widgets.bands import HINT as BANDS_HINT
from ..widgets.bands import BandsChart, bands_bindings
from ..widgets.on_demand_input import OnDemandInput
from ..widgets.ridgeline import TRUE_COLOUR_HINT, RidgelineChart, limited_colours, ridgeline_bindings
from ..widgets.slice_table import SliceTable, column_width_for
from ..widgets.step_slider import StepSlider
from .base import DataView, ViewSpec

__all__ = ["TensorsView", "TensorChart", "TensorMessage", "StepSlider", "StepData", "full_index", "option_id", "dims_text"]

SLICE_HINT = "[dim]enter applies · esc cancels[/dim]"


def _of_decoded(name: str) -> Any:
    """A read-only property of the view: `name` of the decoded step, None while there is none."""
    return property(lambda view: getattr(view.decoded, name) if view.decoded is not None else None)


class TensorMessage(Static, can_focus=True):
    """What is said where the table would be (loading, no values, a failed decode). It keeps the
    keyboard while the table is away, so `[`/`]` still move to a step that has values."""


class TensorChart(RidgelineChart):
    HELP_GROUP = "Tensor histogram"
    BINDINGS = ridgeline_bindings("tensors")


class TensorBands(BandsChart):
    HELP_GROUP = "Tensor distribution"
    BINDINGS = bands_bindings("tensors")


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
    TensorsView #tensor-title { height: 1; padding: 0 1; background: $panel; text-wrap: nowrap; text-overflow: ellipsis; }
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
    TensorsView #tensor-chart, TensorsView #tensor-bands { height: 1fr; }
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
        Binding("right_curly_bracket", "step_end(1)", "Last step (follows new steps)", show=False,
                id="tensors.last_step"),
        Binding("h", "toggle_histogram", "Table/histogram", id="tensors.histogram"),
        Binding("b", "toggle_bands", "Distribution", id="tensors.bands"),
        Binding("o", "mode", "Offset/overlay", show=False, id="tensors.mode"),
        Binding("x", "cycle_axis", "Step axis", show=False, id="tensors.step_axis"),
        Binding("plus,equals_sign", "column_width(1)", "Wider columns", show=False, id="tensors.wider"),
        Binding("minus", "column_width(-1)", "Narrower columns", show=False, id="tensors.narrower"),
        Binding("escape", "leave", "Cancel slice edit", show=False, id="tensors.leave"),
    ]

    state: reactive[TensorsState] = reactive(TensorsState, init=False)

    def __init__(self, cache, train_ids, **kwargs: Any):
        super().__init__(cache, train_ids, **kwargs)
        self.set_reactive(TensorsView.state, TensorsState.from_json(self.saved))
        self.keys: list[Key] = []  # every (job, tensor tag), sorted by tag
        self.decoded: StepData | None = None  # the step on screen (or why it is not)
        self.slice: TensorSlice | None = None  # the slice of it in the table
        self.slice_stats: dict | None = None
        self._asked: tuple | None = None  # the (key, locator) asked of the loader last
        self._versions: dict[Key, int] = {}  # per tensor, bumped when its data changes
        self._ridge_for: tuple[Key, int] | None = None  # what the chart shows or is loading
        self._table_key: Key | None = None  # the tensor whose slice the table shows
        self._sliced: StepData | None = None  # the decoded step `slice` was cut from

    # -- what is on screen (read by the export and by tests) -----------------------------------

    @property
    def current(self) -> Key | None:
        return self.state.current

    # Of the step on screen (None while none is): its values, the whole tensor's statistics,
    # its step number and where it is in the files.
    tensor = _of_decoded("tensor")
    overall = _of_decoded("overall")
    step = _of_decoded("step")
    locator = _of_decoded("locator")

    @property
    def problem(self) -> str:
        """Why there is no table ("" when there is one, "loading…" while decoding)."""
        if self.decoded is None:
            return "loading…" if self.current is not None else ""
        return self.decoded.problem

    def series(self) -> Series | None:
        """The kept steps of the current tensor."""
        if self.current is None:
            return None
        view = self.cache.job(self.current[0])
        return view.series("tensor", self.current[1]) if view is not None else None

    def steps(self) -> Any:
        series = self.series()
        return series.steps if series is not None else ()

    def step_index(self) -> int | None:
        """The index of the chosen step among the kept steps (nearest if it was dropped)."""
        return self.state.step_index(self.steps())

    # -- building -----------------------------------------------------------------------------

    def compose(self) -> ComposeResult:
        with Vertical(id="tensor-tags"):
            yield OnDemandInput(self.state.filter, placeholder="/ filter tags (regex)", id="tensor-filter")
            yield OptionList(id="tensor-list")
        with Vertical(id="tensor-main"):
            yield Static("", id="tensor-title")
            with Horizontal(id="tensor-slicebar"):
                yield Static("slice", id="tensor-slice-label")
                yield OnDemandInput(placeholder="[0,:,:]", id="tensor-slice", returns=False)  # focus selects it: typing replaces
                yield Static("", id="tensor-slice-error")
            yield StepSlider(id="tensor-steps")
            with Horizontal(id="tensor-body"):
                with Vertical(id="tensor-data"):
                    yield SliceTable(id="tensor-table")
                    yield TensorMessage("", id="tensor-message")
                    yield TensorChart("tensor-chart", "", id="tensor-chart")  # in the theme's primary
                    yield TensorBands("", id="tensor-bands")
                yield Static("", id="tensor-stats")
            yield Static("", id="tensor-readout")

    def on_mount(self) -> None:
        self.query_one("#tensor-list", OptionList).border_title = "tensors"
        self._read_keys()
        self._resolve_current()
        self._redraw(None, self.state)
        self.ready_for_keys()  # the list is filled and the table, chart or message in place

    def on_resize(self, event: Resize) -> None:
        self.set_class(self.size.width < WIDE, "-narrow")
        self.query_one("#tensor-tags").set_class(self.app.size.width < 100, "-narrow")
        self._draw_stats()
        self._draw_readout()  # its step's clock time shows from WIDE on (drawn before the first layout: width 0)

    def first_focus(self) -> Widget | None:
        if self.current is None:
            return self.query_one("#tensor-list")
        if self.state.histogram:
            return self.query_one(TensorBands) if self.state.bands else self.query_one(TensorChart)
        table = self.query_one(SliceTable)
        return table if table.display else self.query_one(TensorMessage)

    # -- the state ----------------------------------------------------------------------------

    def watch_state(self, old: TensorsState, new: TensorsState) -> None:
        if self.is_mounted:
            self._redraw(old, new)
        self.remember(new)

    def _redraw(self, old: TensorsState | None, new: TensorsState) -> None:
        """Draw what differs between `old` and `new` (everything when `old` is None)."""
        if old is not None and old.with_cursor(new.place().cursor) == new:
            self._draw_readout()  # the table moved its cursor: it drew itself
            return
        if old is None or (old.filter, old.current) != (new.filter, new.current):
            self._sync_list()
        box = self.query_one("#tensor-filter", Input)
        if box.value != new.filter and not box.has_focus:
            box.value = new.filter
        self._want_step()
        self._fill_table()
        self._want_histogram()
        self._style_chart()
        self._draw_slice_error()
        self._show_body()
        self._draw_all()

    def _resolve_current(self) -> None:
        """Choose the first tensor if none is chosen, or the chosen one is gone for good."""
        current = self.state.current
        if not self.keys or current in self.keys:
            return
        loading = any(not job.ready for job in self.jobs)
        if current is None or not loading:
            self.state = self.state.choose(self.keys[0])

    # -- tags -----------------------------------------------------------------------------------

    def _read_keys(self) -> bool:
        keys = sorted(((job.train_id, tag) for job in self.jobs for tag in job.tag_names("tensor")),
                      key=lambda k: (k[1], self.train_ids.index(k[0]) if k[0] in self.train_ids else 0))
        if keys == self.keys:
            return False
        self.keys = keys
        return True

    def shown_keys(self) -> list[Key]:
        """The tensors the filter lets through."""
        match = compile_filter(self.state.filter)
        return [key for key in self.keys if match(key[1])]

    def _sync_list(self) -> None:
        listing = self.query_one("#tensor-list", OptionList)
        shown = self.shown_keys()
        colours = {tid: self.job_colour(tid) for tid in self.train_ids} if self.comparing else None
        options = [Option(prompt, id=oid, disabled=disabled)
                   for oid, prompt, disabled in present.list_rows(shown, self.train_ids, colours)]
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
        if newline:
            self.state = self.state.choose((tid, tag))

    @on(OptionList.OptionSelected, "#tensor-list")
    def _selected(self, event: OptionList.OptionSelected) -> None:
        event.stop()
        self._highlighted(event)  # type: ignore[arg-type]
        self.focus_view()

    @on(Input.Changed, "#tensor-filter")
    def _filter_changed(self, event: Input.Changed) -> None:
        event.stop()
        self.state = self.state.with_filter(event.value)

    @on(Input.Submitted, "#tensor-filter")
    def _filter_done(self, event: Input.Submitted) -> None:
        event.stop()
        focus_now(self.query_one("#tensor-list"))

    def action_filter_tags(self) -> None:
        self.query_one("#tensor-filter", OnDemandInput).open()

    # -- decoding the chosen step -----------------------------------------------------------------

    def _want_step(self) -> None:
        """Ask the loader for the chosen step of the chosen tensor, unless it is on screen or asked."""
        key = self.current
        series = self.series()
        i = self.state.step_index(series.steps.tolist()) if series is not None else None
        if key is None or series is None or i is None:
            self._asked = None
            self.loader.forget("step")
            if key is None:
                self.decoded = None
            else:
                job = self.cache.job(key[0])
                if series is not None:
                    problem = "no kept steps"
                else:
                    problem = "this tag is no longer in the job" if job is None or job.ready else "loading…"
                self.decoded = StepData(key, 0, None, problem=problem)
            self._clear_table()
            return
        view = self.cache.job(key[0])
        locator = view.locator(series, i) if view is not None else None
        step = int(series.steps[i])
        decoded = self.decoded
        if decoded is not None and (decoded.key, decoded.locator, decoded.step) == (key, locator, step) \
                and locator is not None:
            self._asked = None
            self.loader.forget("step")
            return
        if self._asked == (key, locator, step) and self.loader.is_wanted("step"):
            return
        if decoded is not None and decoded.key != key:
            self.decoded = None  # another tensor: "loading…" until it is decoded
            self._clear_table()
        self._asked = (key, locator, step)
        cache = self.cache

        def work() -> StepData:
            if view is None:
                raise LoadProblem(f"{shown(key[0])} is gone")
            tensor = tensor_at(cache, view, key[1], i)
            if tensor.array is None:
                return StepData(key, step, locator, tensor, None, tensor.reason or "no values")
            return StepData(key, step, locator, tensor, statistics(tensor.array))

        def done(result: Loaded) -> None:
            self._asked = None
            if key != self.current:
                return
            if result.ok:
                self.decoded = result.value
            else:  # the sentence goes where the table would be
                self.decoded = StepData(key, step, locator, None, None, result.error)
            tensor = self.tensor
            if tensor is not None and tensor.array is not None:
                fitted = self.state.fit_slice(tensor.dims)
                if fitted != self.state:
                    self.state = fitted  # redraws, with the default slice
                    return
            self._redraw_data()

        # One decoder at a time, on the newest request: holding `]` does not start a decode
        # (of up to 10,000,000 values) per key press.
        self.loader.request("step", work, done, first=True)

    def _redraw_data(self) -> None:
        """The decoded step or the chart's data changed (the state did not)."""
        self._fill_table()
        self._show_body()
        self._draw_all()

    def _clear_table(self) -> None:
        self.slice = self.slice_stats = None

    def _fill_table(self) -> None:
        """Slice the decoded step as the state says and give it to the table (if anything changed)."""
        decoded, tensor = self.decoded, self.tensor
        if decoded is None or tensor is None or tensor.array is None or decoded.key != self.current:
            self._clear_table()
            return
        text = self.state.slice_for(tensor.dims)
        table = self.query_one(SliceTable)
        if self.slice is None or self.slice.text != text or self._sliced is not decoded:
            try:
                sliced = apply_slice(tensor.array, text)
            except SliceError as exc:  # the state checked it against this shape: not expected
                self.decoded = StepData(decoded.key, decoded.step, decoded.locator, None, None, str(exc))
                self._clear_table()
                return
            self.slice, self._sliced = sliced, decoded
            self.slice_stats = statistics(sliced.data)
            place = self.state.place()
            same = self._table_key == decoded.key and table.cursor == place.cursor
            self._table_key = decoded.key
            integers = tensor.dtype.startswith(("DT_INT", "DT_UINT", "DT_BOOL"))
            table.set_slice(sliced.data, sliced.row_index, sliced.col_index,
                            self.state.column_width(column_width_for(sliced.data)),
                            cursor=None if same else place.cursor, integers=integers)
        else:
            table.set_column_width(self.state.column_width(column_width_for(self.slice.data)))
        box = self.query_one("#tensor-slice", Input)
        if box.value != self.slice.text and not box.has_focus:
            box.value = self.slice.text

    # -- the slice box ------------------------------------------------------------------------------

    def _draw_slice_error(self) -> None:
        error = self.query_one("#tensor-slice-error", Static)
        message = self.state.slice_error
        error.set_class(bool(message), "-error")
        if message:
            error.update(markup(message))
        else:
            error.update(SLICE_HINT if self.query_one("#tensor-slice", Input).has_focus else "")

    def action_edit_slice(self) -> None:
        if self.state.histogram:
            self.action_toggle_histogram()
        self.query_one("#tensor-slice", OnDemandInput).open()

    @on(Input.Submitted, "#tensor-slice")
    def _slice_entered(self, event: Input.Submitted) -> None:
        event.stop()
        tensor = self.tensor
        dims = tensor.dims if tensor is not None and tensor.array is not None else None
        self.state = self.state.with_slice(event.value, dims, self.problem)
        if not self.state.slice_error:
            focus_now(self.query_one(SliceTable))
            self._draw_slice_error()

    def on_descendant_focus(self, event) -> None:
        if getattr(event.widget, "id", None) == "tensor-slice":
            self._draw_slice_error()

    def on_descendant_blur(self, event) -> None:
        if getattr(event.widget, "id", None) == "tensor-slice":
            if self.slice is not None and event.widget.value != self.slice.text:
                event.widget.value = self.slice.text  # the box says what the table shows
            self._draw_slice_error()

    @on(Input.Changed, "#tensor-slice")
    def _slice_typed(self, event: Input.Changed) -> None:
        event.stop()
        if event.input.has_focus:
            self.state = self.state.clear_slice_error()

    def action_reset_slice(self) -> None:
        if self.tensor is not None and self.tensor.array is not None:
            self.state = self.state.reset_slice()

    def action_leave(self) -> None:
        box = self.query_one("#tensor-slice", Input)
        if box.has_focus:
            box.value = self.slice.text if self.slice is not None else ""
            self.state = self.state.clear_slice_error()
            self.focus_view()
            self._draw_slice_error()
            return
        chart = self.query_one(TensorChart)
        if chart.has_focus and chart.hide_cursor():
            return
        raise SkipAction()

    # -- steps ----------------------------------------------------------------------------------

    def action_step(self, move: int) -> None:
        steps = self.steps()
        self.state = self.state.step_prev(steps) if move < 0 else self.state.step_next(steps)

    def action_step_end(self, last: int) -> None:
        self.state = self.state.step_last() if last else self.state.step_first(self.steps())

    @on(StepSlider.Picked)
    def _picked(self, event: StepSlider.Picked) -> None:
        event.stop()
        self.state = self.state.step_at(self.steps(), event.index)

    # -- the table ------------------------------------------------------------------------------

    def action_column_width(self, direction: int) -> None:
        natural = column_width_for(self.slice.data) if self.slice is not None else self.query_one(SliceTable).column_width
        self.state = self.state.wider(natural) if direction > 0 else self.state.narrower(natural)

    @on(SliceTable.CellMoved)
    def _cell_moved(self, event: SliceTable.CellMoved) -> None:
        event.stop()
        if self.decoded is not None and self.decoded.key == self.current == self._table_key and self.slice is not None:
            self.state = self.state.with_cursor(event.table.cursor)
        self._draw_readout()

    # -- histogram mode -------------------------------------------------------------------------

    def action_toggle_histogram(self) -> None:
        self.state = self.state.toggle_histogram()
        self.focus_view()

    def action_toggle_bands(self) -> None:
        self.state = self.state.toggle_bands()
        self.focus_view()

    def _want_histogram(self) -> None:
        key = self.current
        if not self.state.histogram or key is None:
            return
        version = self._versions.get(key, 0)
        if self._ridge_for == (key, version):
            return
        self._ridge_for = (key, version)
        view = self.cache.job(key[0])
        cache = self.cache
        chart, bands = self.query_one(TensorChart), self.query_one(TensorBands)
        chart.set_data(("loading", key, version), None, "decoding every step…")
        bands.set_data(("loading", key, version), None, "decoding every step…")

        def work():
            try:
                steps = tensor_histogram_steps(cache, view, key[1]) if view is not None else []
            except TensorUnavailable as exc:
                raise LoadProblem(f"no histogram: {exc}") from exc
            except PayloadError as exc:
                raise LoadProblem(f"cannot read: {exc}") from exc
            if not steps:
                raise LoadProblem("no kept steps")
            return rebin(steps), distribution(steps)

        def done(result: Loaded) -> None:
            if self._ridge_for != (key, version):
                return
            ridge, dist = result.value if result.ok else (None, None)
            chart.set_data((key, version), ridge, result.error)
            bands.set_data((key, version), dist, result.error)
            self._draw_readout()

        self.loader.request("histogram", work, done)

    def action_mode(self) -> None:
        self.state = self.state.next_mode()

    def action_cycle_axis(self) -> None:
        self.state = self.state.next_axis()

    def _style_chart(self) -> None:
        chart = self.query_one(TensorChart)
        key = self.current
        view = self.cache.job(key[0]) if key else None
        origin = float(view.first_wall_time or 0.0) if view is not None else 0.0
        chart.set_style(self.state.mode, self.state.axis, origin)
        bands = self.query_one(TensorBands)
        bands.set_style(self.state.axis, origin)
        if key is not None:
            chart.border_title = bands.border_title = markup(key[1] if len(self.train_ids) == 1 else f"{key[1]} · {key[0]}")

    # -- live updates ---------------------------------------------------------------------------

    def cache_changed(self, changes: Changes) -> None:
        mine = set(self.train_ids)
        changed: set[Key] = set()
        for tid in mine & changes.jobs():
            tags = changes.tags(tid, "tensor")
            if tags is not None:
                changed |= {(tid, tag) for tag in tags}
            else:
                view = self.cache.job(tid)
                changed |= {(tid, tag) for tag in (view.tag_names("tensor") if view is not None else [])}
                changed |= {key for key in self.keys if key[0] == tid}
        if not changed:
            return
        for key in changed:
            self._versions[key] = self._versions.get(key, 0) + 1
        if self._read_keys():
            self._sync_list()
        before = self.state
        self._resolve_current()
        if self.state is before and self.current in changed:
            self._redraw(None, self.state)  # same step (or nearest, or the newest) if its data moved
        elif self.state is before:
            self._draw_all()

    # -- showing --------------------------------------------------------------------------------

    def _show_body(self) -> None:
        table = self.query_one(SliceTable)
        message = self.query_one("#tensor-message", Static)
        chart = self.query_one(TensorChart)
        histogram = self.state.histogram
        has_values = self.slice is not None
        had_keys = table.has_focus or message.has_focus
        chart.display = histogram and not self.state.bands
        self.query_one(TensorBands).display = histogram and self.state.bands
        table.display = not histogram and has_values
        message.display = not histogram and not has_values
        if not has_values:
            message.update(self._message_text())
        if had_keys and not histogram:  # the keyboard stays with the data pane
            focus_now(table if has_values else message)

    def _message_text(self) -> str:
        loading = any(not job.ready for job in self.jobs)
        return present.message_text(self.current, self.tensor, self.problem, loading)

    def _draw_all(self) -> None:
        self._draw_title()
        self._draw_slider()
        self._draw_stats()
        self._draw_readout()

    def _draw_title(self) -> None:
        title = self.query_one("#tensor-title", Static)
        if self.current is None:
            title.update(self._message_text())
            return
        colour = self.job_colour(self.current[0]) if self.comparing else None
        hint = TRUE_COLOUR_HINT if limited_colours(self.app) else ""
        title.update(present.title_text(self.state, self.series(), self.step_index(), self.tensor, colour, hint))

    def _draw_slider(self) -> None:
        i = self.step_index()
        self.query_one(StepSlider).show(i or 0, len(self.steps()))

    def _draw_stats(self) -> None:
        piece = self.slice_stats if self.slice is not None else None
        reason = "" if self.tensor is None else (self.problem or self.tensor.reason)
        self.query_one("#tensor-stats", Static).update(
            present.stats_text(self.overall, piece, reason, self.has_class("-narrow")))

    def _draw_readout(self) -> None:
        readout = self.query_one("#tensor-readout", Static)
        if self.state.histogram:
            chart = self.query_one(TensorBands) if self.state.bands else self.query_one(TensorChart)
            text = chart.readout()
            readout.update(text if text.plain else present.chart_hint(self.state.bands, BANDS_HINT))
            return
        table = self.query_one(SliceTable)
        if self.slice is None or self.tensor is None or not table.display:
            readout.update(Text(present.TABLE_HINT, style="dim"))
            return
        view = self.cache.job(self.current[0]) if self.current else None
        origin = float(view.first_wall_time) if view is not None and view.first_wall_time else None
        readout.update(present.cell_readout(self.current[1] if self.current else "", self.slice.text, self.tensor.dims,
                                            table.cursor_indices, table.cursor_value, self.series(),
                                            self.step_index(), origin, self.size.width))

    @on(RidgelineChart.CursorMoved)
    @on(BandsChart.CursorMoved)
    def _cursor_moved(self, event: RidgelineChart.CursorMoved | BandsChart.CursorMoved) -> None:
        event.stop()
        self._draw_readout()

    # -- export ---------------------------------------------------------------------------------

    def export_scope(self) -> dict[str, Any]:
        tags = {("tensor", self.current[1])} if self.current else set()
        return {"train_ids": [self.current[0]] if self.current else list(self.train_ids),
                "plugins": {"tensor"}, "tags": tags}

    def describe_export(self) -> str:
        if self.current is None:
            return "no tensor"
        return f"tensor {self.current[1]} of {self.current[0]}"

