"""The tensor view: one tensor tag at a time, as a table of a slice or as a ridgeline over steps.

- The slice box takes MindInsight's `dims` grammar (`[0,:,1:10]`); a slice that cannot be
  applied is explained beside it and the last good slice stays on screen.
- `[`/`]` (and the slider) move through the kept steps; slice, cursor and scroll stay put.
  The last step follows new steps as they arrive; an older one stays on screen.
- Statistics of the slice and the whole tensor (§4.6); `h` the distribution over steps as a
  ridgeline, `b` as TensorBoard's percentile bands, from the same decode.

The choices (the tensor; per tensor its slice, step, column width and cell; the mode) are a
`TensorsState` in one reactive; the panes are widgets (`widgets/tensor_panes.py`). A step (up to
10,000,000 values) and every step's histogram are decoded on the view's loader; slicing (at most
100,000) runs on the UI thread, so the table paints at once. Only the step on screen is kept: the
payload LRU has the others, so going through every step does not grow the process past its bound.
"""
from __future__ import annotations

from functools import partial
from typing import Any

from textual import on
from textual.actions import SkipAction
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.events import Resize
from textual.reactive import reactive
from textual.widget import Widget
from textual.widgets import Input, Static

from ...summary.queries.tensors import TensorSlice
from ...summary.store.job_view import Changes
from ...summary.store.series import Series
from ..common.focus import focus_now
from ..loader import Loaded
from ..presenters import tensors as present
from ..presenters.tensors import WIDE, StepData, option_id
from ..state.tensors import Key, TensorsState
from ..widgets.bands import HINT as BANDS_HINT
from ..widgets.bands import BandsChart
from ..widgets.ridgeline import TRUE_COLOUR_HINT, RidgelineChart, limited_colours
from ..widgets.slice_table import SliceTable, column_width_for
from ..widgets.step_slider import StepSlider
from ..widgets.tensor_panes import SliceBar, TensorBody, TensorTagList
from .base import DataView, ViewSpec


def _of_decoded(name: str) -> Any:
    """A read-only property of the view: `name` of the decoded step, None while there is none."""
    return property(lambda view: getattr(view.decoded, name) if view.decoded is not None else None)


class TensorsView(DataView):
    SPEC = ViewSpec("tensors", "Tensors", "3", ("tensor",), "job")
    HELP_GROUP = "Tensors"
    DEFAULT_CSS = """
    TensorsView { layout: horizontal; }
    TensorsView #tensor-main { width: 1fr; height: 1fr; }
    TensorsView #tensor-title { height: 1; padding: 0 1; background: $panel; text-wrap: nowrap; text-overflow: ellipsis; }
    TensorsView #tensor-steps { height: 1; padding: 0 1; }
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
        self._asked: tuple | None = None  # the (key, locator, step) asked of the loader last
        self._versions: dict[Key, int] = {}  # per tensor, bumped when its data changes
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
        current = self.current
        job = self.cache.job(current[0]) if current is not None else None
        return job.series("tensor", current[1]) if job is not None and current is not None else None

    def steps(self) -> Any:
        series = self.series()
        return series.steps if series is not None else ()

    def step_index(self) -> int | None:
        """The index of the chosen step among the kept steps (nearest if it was dropped)."""
        return self.state.step_index(self.steps())

    # -- building -----------------------------------------------------------------------------

    def compose(self) -> ComposeResult:
        yield TensorTagList(self.state.filter, id="tensor-tags")
        with Vertical(id="tensor-main"):
            yield Static("", id="tensor-title")
            yield SliceBar(id="tensor-slicebar")
            yield StepSlider(id="tensor-steps")
            yield TensorBody(self.loader, id="tensor-body")
            yield Static("", id="tensor-readout")

    @property
    def body(self) -> TensorBody:
        return self.query_one(TensorBody)

    @property
    def slicebar(self) -> SliceBar:
        return self.query_one(SliceBar)

    def on_mount(self) -> None:
        self._read_keys()
        self._resolve_current()
        self._redraw(None, self.state)
        self.ready_for_keys()  # the list is filled and the table, chart or message in place

    def on_resize(self, event: Resize) -> None:
        self.body.set_class(self.size.width < WIDE, "-narrow")
        self.query_one(TensorTagList).set_class(self.app.size.width < 100, "-narrow")
        self._draw_stats()
        self._draw_readout()  # its step's clock time shows from WIDE on (drawn before the first layout: width 0)

    def first_focus(self) -> Widget | None:
        if self.current is None:
            return self.query_one("#tensor-list")
        return self.body.first_focus(self.state.histogram, self.state.bands)

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
        self.query_one(TensorTagList).show_filter(new.filter)
        self._want_step()
        self._fill_table()
        self._want_histogram()
        self._style_chart()
        self.slicebar.show_error(self.state.slice_error)
        self._show_body()
        self._draw_all()

    def _resolve_current(self) -> None:
        self.state = self.state.resolve(self.keys, any(not job.ready for job in self.jobs))

    # -- tags -----------------------------------------------------------------------------------

    def _read_keys(self) -> bool:
        """Read the tensors the jobs have; True if they changed."""
        keys = present.tensor_keys(self.jobs, self.train_ids)
        changed, self.keys = keys != self.keys, keys
        return changed

    def _sync_list(self) -> None:
        shown = present.filtered(self.keys, self.state.filter)
        colours = {tid: self.job_colour(tid) for tid in self.train_ids} if self.comparing else None
        self.query_one(TensorTagList).show(present.list_rows(shown, self.train_ids, colours),
                                           option_id(self.current) if self.current in shown else None,
                                           f"tensors {len(shown)}/{len(self.keys)}")

    @on(TensorTagList.Chosen)
    def _chosen(self, event: TensorTagList.Chosen) -> None:
        event.stop()
        self.state = self.state.choose(event.key)
        if event.selected:
            self.focus_view()

    @on(Input.Changed, "#tensor-filter")
    def _filter_changed(self, event: Input.Changed) -> None:
        event.stop()
        self.state = self.state.with_filter(event.value)

    def action_filter_tags(self) -> None:
        self.query_one(TensorTagList).open_filter()

    # -- decoding the chosen step -----------------------------------------------------------------

    def _want_step(self) -> None:
        """Ask the loader for the chosen step of the chosen tensor, unless it is on screen or asked."""
        key = self.current
        job = self.cache.job(key[0]) if key is not None else None
        wanted = present.wanted_step(self.state, self.series(), job)
        if key is None or isinstance(wanted, str):
            self._asked = None
            self.loader.forget("step")
            self.decoded = StepData(key, 0, None, problem=wanted) if key is not None and isinstance(wanted, str) else None
            self._clear_table()
            return
        i, step, locator = wanted
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

        def done(result: Loaded) -> None:
            self._asked = None
            if key != self.current:
                return
            # A failure's sentence goes where the table would be.
            self.decoded = result.value if result.ok else StepData(key, step, locator, None, None, result.error)
            tensor = self.tensor
            fitted = self.state.fit_slice(tensor.dims) if tensor is not None and tensor.array is not None else self.state
            if fitted != self.state:
                self.state = fitted  # redraws, with the default slice
            else:  # the decoded step changed, not the state
                self._fill_table()
                self._show_body()
                self._draw_all()

        # One decoder at a time, on the newest request: holding `]` does not start a decode
        # (of up to 10,000,000 values) per key press.
        self.loader.request("step", partial(present.decode_step, self.cache, job, key, i, step, locator), done, first=True)

    def _clear_table(self) -> None:
        self.slice = self.slice_stats = None
        self.slicebar.show_slice(None)

    def _fill_table(self) -> None:
        """Slice the decoded step as the state says and give it to the table (if anything changed)."""
        decoded, tensor = self.decoded, self.tensor
        if decoded is None or tensor is None or tensor.array is None or decoded.key != self.current:
            self._clear_table()
            return
        text = self.state.slice_for(tensor.dims)
        if self.slice is None or self.slice.text != text or self._sliced is not decoded:
            cut = present.cut(tensor.array, text)
            if isinstance(cut, str):  # the state checked the slice against this shape: not expected
                self.decoded = StepData(decoded.key, decoded.step, decoded.locator, None, None, cut)
                self._clear_table()
                return
            (self.slice, self.slice_stats), self._sliced = cut, decoded
            self.body.show_slice(decoded.key, self.slice, self.state.column_width(column_width_for(self.slice.data)),
                                 self.state.place().cursor, present.integers(tensor))
        else:
            self.body.table.set_column_width(self.state.column_width(column_width_for(self.slice.data)))
        self.slicebar.show_slice(self.slice.text)

    # -- the slice box ------------------------------------------------------------------------------

    def action_edit_slice(self) -> None:
        if self.state.histogram:
            self.action_toggle_histogram()
        self.slicebar.box.open()

    @on(Input.Submitted, "#tensor-slice")
    def _slice_entered(self, event: Input.Submitted) -> None:
        event.stop()
        tensor = self.tensor
        dims = tensor.dims if tensor is not None and tensor.array is not None else None
        self.state = self.state.with_slice(event.value, dims, self.problem)
        if not self.state.slice_error:
            focus_now(self.body.table)
            self.slicebar.show_error(self.state.slice_error)

    @on(Input.Changed, "#tensor-slice")
    def _slice_typed(self, event: Input.Changed) -> None:
        event.stop()
        if event.input.has_focus:
            self.state = self.state.clear_slice_error()

    def action_reset_slice(self) -> None:
        if self.tensor is not None and self.tensor.array is not None:
            self.state = self.state.reset_slice()

    def action_leave(self) -> None:
        if self.slicebar.editing:
            self.slicebar.cancel()
            self.state = self.state.clear_slice_error()
            self.focus_view()
            self.slicebar.show_error(self.state.slice_error)
            return
        chart = self.body.chart
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
        natural = column_width_for(self.slice.data) if self.slice is not None else self.body.table.column_width
        self.state = self.state.wider(natural) if direction > 0 else self.state.narrower(natural)

    @on(SliceTable.CellMoved)
    def _cell_moved(self, event: SliceTable.CellMoved) -> None:
        event.stop()
        if self.decoded is not None and self.decoded.key == self.current == self.body.table_key and self.slice is not None:
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
        if self.state.histogram and key is not None:
            work = partial(present.step_histograms, self.cache, self.cache.job(key[0]), key[1])
            self.body.want_charts((key, self._versions.get(key, 0)), work)

    def action_mode(self) -> None:
        self.state = self.state.next_mode()

    def action_cycle_axis(self) -> None:
        self.state = self.state.next_axis()

    def _style_chart(self) -> None:
        key = self.current
        view = self.cache.job(key[0]) if key else None
        origin = float(view.first_wall_time or 0.0) if view is not None else 0.0
        self.body.style_charts(self.state.mode, self.state.axis, origin, present.chart_title(key, len(self.train_ids) > 1))

    # -- live updates ---------------------------------------------------------------------------

    def cache_changed(self, changes: Changes) -> None:
        changed = present.changed_keys(changes, self.train_ids, self.keys, self.cache.job)
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
        self.body.show(self.state.histogram, self.state.bands, self.slice is not None, self._message_text())

    def _message_text(self) -> str:
        return present.message_text(self.current, self.tensor, self.problem, any(not job.ready for job in self.jobs))

    def _draw_all(self) -> None:
        self._draw_title()
        self.query_one(StepSlider).show(self.step_index() or 0, len(self.steps()))
        self._draw_stats()
        self._draw_readout()

    def _draw_title(self) -> None:
        current, hint = self.current, TRUE_COLOUR_HINT if limited_colours(self.app) else ""
        colour = self.job_colour(current[0]) if self.comparing and current is not None else None
        self.query_one("#tensor-title", Static).update(self._message_text() if current is None else present.title_text(
            self.state, self.series(), self.step_index(), self.tensor, colour, hint))

    def _draw_stats(self) -> None:
        piece = self.slice_stats if self.slice is not None else None
        reason = "" if self.tensor is None else (self.problem or self.tensor.reason)
        self.body.show_stats(present.stats_text(self.overall, piece, reason, self.body.has_class("-narrow")))

    def _draw_readout(self) -> None:
        chart = self.body.shown_chart(self.state.bands).readout() if self.state.histogram else None
        cell = None
        table = self.body.table
        if not self.state.histogram and self.slice is not None and self.tensor is not None and table.display:
            job = self.cache.job(self.current[0]) if self.current else None
            origin = float(job.first_wall_time) if job is not None and job.first_wall_time else None
            cell = present.cell_readout(self.current[1] if self.current else "", self.slice.text, self.tensor.dims,
                                        table.cursor_indices, table.cursor_value, self.series(), self.step_index(), origin,
                                        self.size.width)
        readout = self.query_one("#tensor-readout", Static)
        text = present.readout(self.state, chart, BANDS_HINT, cell)
        if readout.content != text:  # an update lays the screen out again (and it redraws on every resize)
            readout.update(text)

    @on(RidgelineChart.CursorMoved)
    @on(BandsChart.CursorMoved)
    def _cursor_moved(self, event: RidgelineChart.CursorMoved | BandsChart.CursorMoved) -> None:
        event.stop()
        self._draw_readout()

    # -- export ---------------------------------------------------------------------------------

    def export_scope(self) -> dict[str, Any]:
        return present.export_scope(self.current, self.train_ids)

    def describe_export(self) -> str:
        return present.export_text(self.current)
