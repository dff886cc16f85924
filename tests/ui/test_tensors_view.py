"""Tests of the tensor view (issue 4) and of the virtual slice table.

Expected values come from MindInsight's answers in the truth file (data, statistics and
histograms of the fixture tensors) or from the arrays the test wrote.
"""
from __future__ import annotations

import gc
import math
import time
import weakref
from pathlib import Path

import numpy as np
import pytest
from textual.content import Content
from textual.widgets import Input, OptionList, Static
from uihelp import MINDSPORE_LOGS, T0, make_app, run_pilot, wait_for, wait_for_view

from tui_insight.proto import summary_pb2
from tui_insight.summary import limits
from tui_insight.summary.formats.values import PayloadError
from tui_insight.summary.formats.writer import SummaryWriter
from tui_insight.summary.queries.tensors import format_value
from tui_insight.ui.screens.help import collect_bindings
from tui_insight.ui.presenters.tensors import option_id
from tui_insight.ui.views.tensors import TensorsView
from tui_insight.ui.widgets.step_slider import StepSlider
from tui_insight.ui.widgets.tensor_panes import TensorChart
from tui_insight.ui.widgets.slice_table import SliceTable, column_width_for


def readout_of(view) -> str:
    return str(view.query_one("#tensor-readout", Static).render())


def truth_value(x):
    return {"NAN": math.nan, "INF": math.inf, "-INF": -math.inf}.get(x, x) if isinstance(x, str) else x


def as_array(nested) -> np.ndarray:
    if not isinstance(nested, list):
        return np.array(truth_value(nested), dtype=np.float64)
    return np.array([as_array(item) for item in nested], dtype=np.float64)


# -- pieces ---------------------------------------------------------------------------------

def slow_format(x: float, width: int) -> str:
    """The plain search format_value shortcuts: every precision from 17 down."""
    x = float(x)
    if math.isnan(x) or math.isinf(x):
        text = "nan" if math.isnan(x) else ("inf" if x > 0 else "-inf")
    else:
        def compact(t):
            return t if "e" not in t else f"{t.split('e')[0]}e{int(t.split('e')[1])}"
        text = compact(repr(x))
        if text.endswith(".0") and len(text) > width:
            text = text[:-2]
        for precision in range(17, 0, -1):
            if len(text) <= width:
                break
            text = compact(f"{x:.{precision}g}")
    return text if len(text) <= width else "#" * width


def test_format_value_shortcut_writes_what_the_plain_search_writes():
    rng = np.random.default_rng(3)
    values = np.concatenate([
        rng.standard_normal(400), rng.standard_normal(300) * 1e7, rng.standard_normal(300) * 1e-7,
        np.round(rng.standard_normal(300) * 1e4), rng.standard_normal(300).astype(np.float32),
        [0.0, -0.0, 1e300, -1e-300, 5e-324, 123456.0, 9.9999999, 99999.5, 0.1, 1 / 3, math.nan, math.inf, -math.inf],
    ])
    for width in range(0, 16):
        for x in values:
            assert format_value(x, width) == slow_format(x, width), (x, width)


def test_column_width_fits_integers_and_defaults_for_floats():
    assert column_width_for(np.array([[1, 22], [333, -4]])) == 5  # "-333" needs 4 + a gap... "333" and "-"
    assert column_width_for(np.array([1.5, 2.25])) == 10
    assert column_width_for(np.array([1.0, math.nan])) >= 5  # room for "-inf"/"nan"


# -- the view on the fixture logs -------------------------------------------------------------

def tensor_app(logdir=MINDSPORE_LOGS, jobs=("./lenet_lr0.01",), **kwargs):
    app = make_app(logdir, **kwargs)

    def run(body, size=(120, 40)):
        async def wrapped(pilot):
            app.open_jobs(tuple(jobs))
            await pilot.pause()
            await pilot.press("3")
            view = app.screen.query_one(TensorsView)
            assert await wait_for(pilot, lambda: view.current is None or view.tensor is not None)
            await pilot.pause()
            return await body(pilot, view)
        return run_pilot(app, wrapped, size)

    return app, run


async def open_tag(pilot, view, tag: str, train_id: str | None = None) -> None:
    listing = view.query_one("#tensor-list", OptionList)
    key = (train_id or view.train_ids[0], tag)
    listing.highlighted = listing.get_option_index(option_id(key))
    await pilot.pause()
    assert await wait_for(pilot, lambda: view.current == key and view.tensor is not None)
    await pilot.pause()


async def go_to_step(pilot, view, step: int) -> None:
    series = view.series()
    index = series.steps.tolist().index(step)
    view.state = view.state.step_at(series.steps, index)
    assert await wait_for(pilot, lambda: view.step == step and view.tensor is not None
                          and view.locator == view.cache.job(view.current[0]).locator(series, index))
    await pilot.pause()


STATS = ("max", "min", "avg", "count", "nan_count", "pos_inf_count", "neg_inf_count")


@pytest.mark.parametrize("train_id", ["./lenet_lr0.01", "./damaged_reference", "./edge_cases"])
def test_default_slice_table_and_statistics_match_mindinsight(truth, train_id):
    served = truth["jobs"][train_id]["tensors"]
    _, run = tensor_app(jobs=(train_id,))

    async def body(pilot, view):
        assert sorted(tag for _, tag in view.keys) == sorted(t.removesuffix("/tensor") for t in served)
        for full_tag, answer in served.items():
            tag = full_tag.removesuffix("/tensor")
            await open_tag(pilot, view, tag)
            await go_to_step(pilot, view, int(answer["chosen_step"]))
            assert view.slice.text == answer["dims_query"]  # MindInsight's UI default
            value = answer["data"][0]["value"]
            expected = as_array(value["data"])
            table = view.query_one(SliceTable)
            np.testing.assert_array_equal(table.data.reshape(expected.shape), expected)
            stats = value["statistics"]
            for key in STATS:
                assert view.slice_stats[key] == pytest.approx(stats[key], rel=1e-12), (tag, key)
                assert view.overall[key] == pytest.approx(stats[f"overall_{key}"], rel=1e-12), (tag, key)
            assert view.overall["zero_count"] == stats["overall_zero_count"]
            assert view.overall["neg_count"] == stats["overall_neg_zero_count"]
            assert view.overall["pos_count"] == stats["overall_pos_zero_count"]
            title = str(view.query_one("#tensor-title", Static).render())
            assert "x".join(map(str, value["dims"])) in title and value["data_type"] in title
        return True

    assert run(body)


def test_nan_and_infinities_are_marked_each_their_own_way():
    _, run = tensor_app(jobs=("./edge_cases",))

    async def body(pilot, view):
        await open_tag(pilot, view, "edge/tensor_nan_inf")
        table = view.query_one(SliceTable)
        styles = {}
        for y in range(1, table.data.shape[0] + 1):
            for seg in table.render_line(y):
                word = seg.text.strip()
                if word in ("nan", "inf", "-inf"):
                    styles[word] = seg.style
        assert set(styles) == {"nan", "inf", "-inf"}
        colours = {word: style.color for word, style in styles.items()}
        assert len(set(map(str, colours.values()))) == 3  # three distinct colours
        stats = str(view.query_one("#tensor-stats", Static).render())
        assert "nan" in stats and "+inf" in stats
        return True

    assert run(body)


def test_slice_box_shows_original_indices_and_explains_bad_slices():
    _, run = tensor_app()

    async def body(pilot, view):
        await open_tag(pilot, view, "custom/t4d")  # 2x3x4x5
        table = view.query_one(SliceTable)
        await pilot.press("d")
        box = view.query_one("#tensor-slice", Input)
        assert view.screen.focused is box
        box.value = ""
        await pilot.press(*"[1, -1, 1:3, ::2]", "enter")
        assert view.slice.text == "[1,-1,1:3,::2]"
        assert view.screen.focused is table
        array = view.tensor.array
        np.testing.assert_array_equal(table.data, array[1, -1, 1:3, ::2])
        header = table.render_line(0).text.split()
        assert header[-3:] == ["0", "2", "4"]  # original column indices
        assert [table.render_line(y).text.split()[0] for y in (1, 2)] == ["1", "2"]  # original rows
        await pilot.press("down", "right")
        expected = f"custom/t4d[1, 2, 2, 2] = {float(array[1, 2, 2, 2])!r}"  # full precision
        assert await wait_for(pilot, lambda: expected in readout_of(view)), readout_of(view)
        good = view.slice.text
        error = view.query_one("#tensor-slice-error", Static)
        # Which slices are refused and why: tests/ui/state/test_tensors_state.py. Here: it is said.
        await pilot.press("d")
        box.value = "[0,5,:,:]"
        await pilot.press("enter")
        assert "out of range" in str(error.render()) and error.has_class("-error")
        assert view.slice.text == good and view.screen.focused is box  # the last good slice stays on screen
        np.testing.assert_array_equal(table.data, array[1, -1, 1:3, ::2])
        await pilot.press("backspace")
        assert await wait_for(pilot, lambda: not error.has_class("-error"))  # typing clears it
        await pilot.press("escape")
        assert box.value == good and view.screen.focused is table
        await pilot.press("r")
        assert view.slice.text == "[0,0,:,:]"
        return True

    assert run(body)


def test_histogram_mode_is_mindinsight_tensor_histogram(truth):
    served = truth["jobs"]["./lenet_lr0.01"]["tensors"]["custom/t3d/tensor"]["histogram"]
    _, run = tensor_app()

    async def body(pilot, view):
        await open_tag(pilot, view, "custom/t3d")
        await pilot.press("h")
        chart = view.query_one(TensorChart)
        assert await wait_for(pilot, lambda: chart.ridge is not None)
        assert view.screen.focused is chart
        assert chart.ridge.steps.tolist() == [h["step"] for h in served]
        for i, h in enumerate(served):
            assert chart.ridge.counts[i].tolist() == [b[2] for b in h["value"]["histogram_buckets"]]
        await pilot.press("down", "o", "x")
        assert chart.mode == "overlay" and chart.axis == "relative"
        assert await wait_for(pilot, lambda: f"step {served[-1]['step']}" in readout_of(view))
        await pilot.press("h")
        assert view.query_one(SliceTable).display and not chart.display
        assert view.screen.focused is view.query_one(SliceTable)
        return True

    assert run(body)


def test_bindings_have_view_ids_and_show_in_help():
    _, run = tensor_app()

    async def body(pilot, view):
        groups = collect_bindings(view.screen, [view, *view.query("*")])
        ids = {binding.id for items in groups.values() for _, binding, _ in items}
        for name in ("filter", "slice", "prev_step", "next_step", "first_step", "last_step", "histogram",
                     "wider", "narrower", "cell_up", "page_down", "cursor_older"):
            assert f"tensors.{name}" in ids
        await pilot.press("question_mark")
        assert await wait_for(pilot, lambda: bool(view.app.screen.query("#help-text")))
        text = str(view.app.screen.query_one("#help-text").render())
        assert "tensors.next_step" in text and "tensors.slice" in text
        return True

    assert run(body)


# -- logs written by the test ------------------------------------------------------------------

def step_array(step: int, shape=(60, 45)) -> np.ndarray:
    return (step * 10000 + np.arange(np.prod(shape)).reshape(shape)).astype(np.float32)


def write_tensors(directory: Path, steps, shape=(60, 45), timestamp=int(T0)) -> None:
    with SummaryWriter(directory, timestamp=timestamp, wall_time=T0) as writer:
        for step in steps:
            writer.add_tensor("t", step_array(step, shape))
            writer.record(step, wall_time=T0 + step)


def test_steps_move_with_brackets_and_slider_keeping_slice_and_position(tmp_path):
    write_tensors(tmp_path / "logs" / "run", [1, 2, 3, 4, 5])
    _, run = tensor_app(tmp_path / "logs", jobs=("./run",))

    async def body(pilot, view):
        table = view.query_one(SliceTable)
        assert view.step == 5
        await pilot.press("d")
        view.query_one("#tensor-slice", Input).value = "[5:55, 1:]"
        await pilot.press("enter")
        await pilot.press(*["pagedown"] * 2, *["right"] * 12)
        position = (table.cursor, tuple(table.scroll_offset))
        assert table.scroll_offset.y > 0 and table.scroll_offset.x > 0

        async def shows(step):
            assert await wait_for(pilot, lambda: view.step == step and view.tensor is not None
                                  and float(table.data[0, 0]) == float(step_array(step)[5, 1]))
            np.testing.assert_array_equal(table.data, step_array(step)[5:55, 1:])
            assert view.slice.text == "[5:55,1:]"
            assert (table.cursor, tuple(table.scroll_offset)) == position
            assert f"step {step} " in str(view.query_one("#tensor-title", Static).render())

        await pilot.press("left_square_bracket")
        await shows(4)
        await pilot.press("left_curly_bracket")
        await shows(1)
        await pilot.press("right_square_bracket")
        await shows(2)
        await pilot.press("right_curly_bracket")
        await shows(5)
        slider = view.query_one(StepSlider)
        await pilot.click(StepSlider, offset=(2, 0))  # the left end of the track
        await shows(1)
        assert slider.index == 0
        return True

    assert run(body)


def test_the_table_formats_only_what_is_on_screen(tmp_path):
    shape = (1000, 1000)
    directory = tmp_path / "logs" / "big"
    with SummaryWriter(directory, timestamp=int(T0), wall_time=T0) as writer:
        writer.add_tensor("big", np.arange(np.prod(shape), dtype=np.float32).reshape(shape) / 7)
        writer.record(1, wall_time=T0)
    _, run = tensor_app(tmp_path / "logs", jobs=("./big",))

    async def body(pilot, view):
        table = view.query_one(SliceTable)
        assert view.slice.text == "[0:100,:]"  # the default stays within 100,000 values
        assert table.data.shape == (100, 1000)
        # Only visible rows were formatted: a screenful for each time the table was drawn anew
        # (again when it gains focus, which a loaded machine may show after the first frame, and
        # once more seen in a full run: 36 rows of 16), never the 100 rows of the slice.
        assert table.rendered_rows <= 3 * table.size.height < len(table.data)
        await pilot.pause()
        before = table.rendered_rows
        await pilot.press("pagedown")
        assert await wait_for(pilot, lambda: table.rendered_rows > before)  # drawn under load too
        assert table.rendered_rows - before <= table.size.height + 1
        box = view.query_one("#tensor-slice", Input)
        await pilot.press("d")
        box.value = "[:,:]"
        await pilot.press("enter")
        assert "1,000,000 values" in str(view.query_one("#tensor-slice-error", Static).render())
        assert view.slice.text == "[0:100,:]"
        assert view.screen.focused is box  # still there to be fixed
        await pilot.press("escape", "minus", "minus")
        assert table.column_width == 6
        cell = table.render_line(1).text.split("│")[1]
        assert all(len(word) <= 5 for word in cell.split())
        await pilot.press("plus")
        assert table.column_width == 8  # the clamping: tests/ui/state/test_tensors_state.py
        return True

    assert run(body, size=(100, 30))


def write_event(directory: Path, step: int, dims, values) -> None:
    """A tensor written by hand: any shape, any number of values (the writer keeps them consistent)."""
    from tui_insight.summary.formats.framing import frame
    from tui_insight.summary.formats.writer import summary_file_name

    directory.mkdir(parents=True, exist_ok=True)
    path = directory / summary_file_name(int(T0))
    event = summary_pb2.Event(wall_time=T0 + step, step=step)
    value = event.summary.value.add(tag="odd")
    value.tensor.dims.extend(dims)
    value.tensor.data_type = 11  # DT_FLOAT32
    value.tensor.float_data.extend(values)
    with open(path, "ab") as fh:
        if fh.tell() == 0:
            fh.write(frame(summary_pb2.Event(wall_time=T0, version="MindSpore.Event:1").SerializeToString()))
        fh.write(frame(event.SerializeToString()))


@pytest.mark.parametrize("dims, values, why", [
    ((5000, 2001), [], "over the limit of 10,000,000"),
    ((3, 4), [1.0, 2.0, 3.0, 4.0, 5.0], "holds 5 values"),
])
def test_a_tensor_without_values_shows_its_shape_type_and_why(tmp_path, dims, values, why):
    write_event(tmp_path / "logs" / "run", 1, dims, values)
    write_event(tmp_path / "logs" / "run", 2, dims, values)
    _, run = tensor_app(tmp_path / "logs", jobs=("./run",))

    async def body(pilot, view):
        message = view.query_one("#tensor-message", Static)
        assert message.display and not view.query_one(SliceTable).display
        text = str(message.render())
        assert "x".join(map(str, dims)) in text and "DT_FLOAT32" in text and why in text
        assert "no statistics" in str(view.query_one("#tensor-stats", Static).render())
        await pilot.press("d")
        view.query_one("#tensor-slice", Input).value = "[0,0]"
        await pilot.press("enter")
        assert "no values to slice" in str(view.query_one("#tensor-slice-error", Static).render())
        await pilot.press("escape", "h")
        chart = view.query_one(TensorChart)
        assert await wait_for(pilot, lambda: chart.message.startswith("no histogram"))
        assert why in chart.message and "step 1" in chart.message
        return True

    assert run(body)


def test_live_update_follows_the_newest_step_or_keeps_an_older_one_and_the_position(tmp_path):
    run_dir = tmp_path / "logs" / "run"
    write_tensors(run_dir, [1, 2])
    app, run = tensor_app(tmp_path / "logs", jobs=("./run",))

    def shows(step):
        table = app.screen.query_one(SliceTable)
        return lambda: view_of(app).step == step and float(table.data[0, 0]) == float(step_array(step)[0, 0])

    async def body(pilot, view):
        table = view.query_one(SliceTable)
        assert view.step == 2 and view.state.following
        write_tensors(run_dir, [3], timestamp=int(T0) + 1)
        app.cache.reload()
        assert await wait_for(pilot, shows(3))  # the newest step follows
        await pilot.press("left_square_bracket")
        assert await wait_for(pilot, shows(2))
        await pilot.press("down", "down", "right")
        write_tensors(run_dir, [4, 5], timestamp=int(T0) + 2)
        app.cache.reload()
        assert await wait_for(pilot, lambda: len(view.series()) == 5)
        await pilot.pause()
        assert view.step == 2 and table.cursor == (2, 1)  # an older step stays
        assert float(table.data[0, 0]) == float(step_array(2)[0, 0])
        assert "(2/5)" in str(view.query_one("#tensor-title", Static).render())
        await pilot.press("right_curly_bracket")
        assert await wait_for(pilot, shows(5))
        return True

    assert run(body)


def view_of(app) -> TensorsView:
    return app.screen.query_one(TensorsView)


def test_each_tensor_keeps_its_slice_step_width_and_cell_when_coming_back():
    _, run = tensor_app()

    async def body(pilot, view):
        table = view.query_one(SliceTable)
        await open_tag(pilot, view, "custom/t4d")
        await pilot.press("d")
        view.query_one("#tensor-slice", Input).value = "[1,2,:,:]"
        await pilot.press("enter", "left_curly_bracket")
        first = int(view.series().steps[0])
        assert await wait_for(pilot, lambda: view.step == first and view.slice.text == "[1,2,:,:]")
        await pilot.press("minus", "down", "down", "right")
        assert await wait_for(pilot, lambda: table.cursor == (2, 1))
        width = table.column_width
        await open_tag(pilot, view, "custom/t3d")
        assert view.slice.text == "[0,:,:]" and view.step == int(view.series().steps[-1])
        assert table.cursor == (0, 0) and table.column_width != width
        await open_tag(pilot, view, "custom/t4d")
        assert await wait_for(pilot, lambda: view.slice is not None and view.slice.text == "[1,2,:,:]")
        assert view.step == first and table.column_width == width and table.cursor == (2, 1)
        assert view.query_one("#tensor-slice", Input).value == "[1,2,:,:]"
        return True

    assert run(body)


def test_a_reopened_job_brings_back_the_tensor_its_slice_and_mode():
    app = make_app(MINDSPORE_LOGS)

    async def body(pilot):
        app.open_jobs(("./lenet_lr0.01",), view_id="tensors")
        await wait_for_view(pilot, app, "TensorsView")
        view = app.screen.query_one(TensorsView)
        await open_tag(pilot, view, "custom/t4d")
        await pilot.press("d")
        view.query_one("#tensor-slice", Input).value = "[1,0,:,1:3]"
        await pilot.press("enter", "h", "o")
        assert await wait_for(pilot, lambda: view.query_one(TensorChart).ridge is not None)
        app.pop_screen()
        await pilot.pause()
        app.open_jobs(("./lenet_lr0.01",), view_id="tensors")
        await wait_for_view(pilot, app, "TensorsView")
        view = app.screen.query_one(TensorsView)
        chart = view.query_one(TensorChart)
        assert await wait_for(pilot, lambda: chart.ridge is not None and view.slice is not None)
        listing = view.query_one("#tensor-list", OptionList)
        return (view.current, view.slice.text, chart.display, chart.mode, view.screen.focused is chart,
                listing.get_option_at_index(listing.highlighted).id)

    assert run_pilot(app, body) == (("./lenet_lr0.01", "custom/t4d"), "[1,0,:,1:3]", True, "overlay", True,
                                    option_id(("./lenet_lr0.01", "custom/t4d")))


def test_a_remembered_tensor_that_is_gone_falls_back_to_the_first():
    app = make_app(MINDSPORE_LOGS)
    app.workspace.remember("./lenet_lr0.01", "tensors", {"current": ["./lenet_lr0.01", "no/such/tag"],
                                                         "places": [{"job": "./lenet_lr0.01", "tag": "custom/t3d",
                                                                     "slice": "[0,0,0,0,0,0]"}]})

    async def body(pilot):
        app.open_jobs(("./lenet_lr0.01",), view_id="tensors")
        await wait_for_view(pilot, app, "TensorsView")
        view = app.screen.query_one(TensorsView)
        assert await wait_for(pilot, lambda: view.slice is not None)
        return view.current, view.slice.text, str(view.query_one("#tensor-slice-error", Static).render())

    current, text, error = run_pilot(app, body)
    assert current == ("./lenet_lr0.01", "custom/t3d")  # the first tensor
    assert text == "[0,:,:]" and "does not fit" in error  # a remembered slice that no longer fits


@pytest.mark.parametrize("raised, said", [
    (RuntimeError("boom"), "RuntimeError: boom"),
    (PayloadError("the record at offset 12 is damaged"), "the record at offset 12 is damaged"),
])
def test_a_failed_decode_says_why_where_the_table_would_be(tmp_path, monkeypatch, raised, said):
    import tui_insight.ui.presenters.tensors as tensors_presenter

    write_tensors(tmp_path / "logs" / "run", [1, 2])
    real = tensors_presenter.tensor_at

    def failing(cache, view, tag, i):
        if i == 0:
            raise raised
        return real(cache, view, tag, i)

    monkeypatch.setattr(tensors_presenter, "tensor_at", failing)
    _, run = tensor_app(tmp_path / "logs", jobs=("./run",))

    async def body(pilot, view):
        message = view.query_one("#tensor-message", Static)
        await pilot.press("left_square_bracket")
        assert await wait_for(pilot, lambda: message.display and said in str(message.render()))
        assert not view.query_one(SliceTable).display and "Traceback" not in str(message.render())
        await pilot.press("right_square_bracket")  # the next step decodes again
        assert await wait_for(pilot, lambda: view.query_one(SliceTable).display and view.step == 2)
        return True

    assert run(body)


def test_tag_names_are_shown_as_written(tmp_path):
    tag = "[bold red]w[/]\x1b"
    with SummaryWriter(tmp_path / "logs" / "[exp]", timestamp=int(T0), wall_time=T0) as writer:
        writer.add_tensor(tag, np.arange(6, dtype=np.float32).reshape(2, 3))
        writer.record(1, wall_time=T0)
    _, run = tensor_app(tmp_path / "logs", jobs=("./[exp]",))

    async def body(pilot, view):
        listing = view.query_one("#tensor-list", OptionList)
        shown = "[bold red]w[/]\\x1b"  # the escape character made visible
        assert str(listing.get_option_at_index(0).prompt) == shown
        assert shown in str(view.query_one("#tensor-title", Static).render())
        assert await wait_for(pilot, lambda: f"{shown}[0, 0] = 0.0" in readout_of(view))
        await pilot.press("h")
        chart = view.query_one(TensorChart)
        assert await wait_for(pilot, lambda: chart.ridge is not None)
        return Content.from_markup(chart.border_title).plain  # the border title is markup

    assert run(body) == "[bold red]w[/]\\x1b"


def test_stepping_through_every_step_stays_within_the_payload_bound(tmp_path):
    # 12 steps of 200x200 float64 (320 kB each, 3.8 MB in all) through an LRU of 1 MB.
    write_tensors(tmp_path / "logs" / "run", range(1, 13), shape=(200, 200))
    bound = 1 << 20
    app, run = tensor_app(tmp_path / "logs", jobs=("./run",))
    app.cache.payloads.max_bytes = bound

    async def body(pilot, view):
        seen = []
        await pilot.press("left_curly_bracket")
        for step in range(1, 13):
            assert await until(pilot, lambda: view.step == step and view.tensor is not None
                                  and float(view.tensor.array[0, 0]) == float(step_array(step, (200, 200))[0, 0]))
            seen.append(weakref.ref(view.tensor.array))
            assert app.cache.payloads.cached_bytes <= bound
            await pilot.press("right_square_bracket")
        gc.collect()
        alive = sum(ref() is not None for ref in seen)
        assert alive <= bound // (200 * 200 * 8) + 1  # what the LRU holds, plus the one on screen
        return True

    assert run(body)


async def until(pilot, condition, timeout: float = 10.0) -> bool:
    """Like `wait_for`, without sleeping between checks (a decode takes a millisecond here)."""
    deadline = time.monotonic() + timeout
    while not condition():
        if time.monotonic() > deadline:
            return False
        await pilot.pause()
    return True


def test_every_tensor_tag_of_limits_opens_at_first_and_last_steps(truth):
    expected = truth["jobs"]["./limits"]["tensors"]
    _, run = tensor_app(jobs=("./limits",))

    async def body(pilot, view):
        assert len(view.keys) == limits.MAX_TAGS_PER_PLUGIN["tensor"]
        assert {f"{tag}/tensor" for _, tag in view.keys} == set(expected)
        for _, tag in list(view.keys):
            await open_tag(pilot, view, tag)
            steps = view.series().steps.tolist()
            assert steps[-1] == 1500 and len(steps) <= limits.max_steps("tensor")
            for key, step in (("left_curly_bracket", steps[0]), ("right_square_bracket", steps[1]),
                              ("right_curly_bracket", steps[-1])):
                await pilot.press(key)
                assert await until(pilot, lambda: view.step == step and view.tensor is not None)
                assert view.slice is not None and view.problem == ""
        return True

    assert run(body)


# -- snapshots --------------------------------------------------------------------------------

def snapshot_app(train_id: str, tag: str, keys=()):
    app = make_app(MINDSPORE_LOGS)

    async def before(pilot):
        app.open_jobs((train_id,))
        await pilot.pause()
        await pilot.press("3")
        view = app.screen.query_one(TensorsView)
        await wait_for(pilot, lambda: view.tensor is not None)
        await open_tag(pilot, view, tag)
        view.query_one(SliceTable).focus()
        await pilot.press(*keys)
        await pilot.pause()

    return app, before


def test_comparison_lists_each_jobs_tensors_under_its_name():
    jobs = ("./lenet_lr0.01", "./lenet_lr0.1")
    _, run = tensor_app(jobs=jobs)

    async def body(pilot, view):
        listing = view.query_one("#tensor-list", OptionList)
        lines = [(str(o.prompt), o.disabled) for o in (listing.get_option_at_index(i)
                                                       for i in range(listing.option_count))]
        await open_tag(pilot, view, "custom/t3d", "./lenet_lr0.1")
        listing.focus()
        await pilot.pause()
        await pilot.press("up")  # the cursor skips the heading
        assert await wait_for(pilot, lambda: view.current[0] == "./lenet_lr0.01" and view.tensor is not None)
        await pilot.pause()
        return lines, view.current

    lines, current = run(body)
    headings = [text for text, disabled in lines if disabled]
    assert headings == [f"● {tid}" for tid in jobs]  # readable without colour
    second = [text for text, _ in lines].index("● ./lenet_lr0.1")
    assert lines[second + 1] == ("  custom/t3d", False)
    assert current == ("./lenet_lr0.01", lines[second - 1][0].strip())


def test_snapshot_80x24(snap_compare):
    app, before = snapshot_app("./edge_cases", "edge/tensor_nan_inf", ("down", "right"))
    assert snap_compare(app, terminal_size=(80, 24), run_before=before)


def test_snapshot_160x48(snap_compare):
    app, before = snapshot_app("./lenet_lr0.01", "custom/t4d", ("down", "right", "right"))
    assert snap_compare(app, terminal_size=(160, 48), run_before=before)


def test_tab_and_shift_tab_move_between_panes_never_into_a_text_box():
    app, run = tensor_app()

    async def body(pilot, view):
        table = view.query_one(SliceTable)
        table.focus()
        await pilot.pause()
        seen = []
        for key in ("shift+tab", "shift+tab", "tab", "tab"):
            await pilot.press(key)
            await pilot.pause()
            seen.append(app.focused.id or type(app.focused).__name__)
        await pilot.press("d")  # the slice box is reached by its key
        await pilot.pause()
        seen.append(app.focused.id)
        return seen

    seen = run(body)
    assert "tensor-slice" not in seen[:4] and "tensor-filter" not in seen[:4]
    assert seen[0] == "tensor-list"
    assert seen[-1] == "tensor-slice"
