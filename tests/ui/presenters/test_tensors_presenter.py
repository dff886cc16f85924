"""What the tensor view shows (list, title, statistics, read-out, message), from tensors decoded
out of the fixture logs as the view decodes them: plain unit tests, no app, no Pilot."""
from __future__ import annotations

import numpy as np
import pytest
from rich.text import Text
from uihelp import MINDSPORE_LOGS

from tui_insight.summary.queries.tensors import apply_slice, statistics, tensor_at
from tui_insight.summary.store.cache import SummaryCache
from tui_insight.summary.store.job_view import Changes
from tui_insight.ui.presenters import tensors as present
from tui_insight.ui.state.tensors import TensorsState

LENET, LENET_B, EDGE = "./lenet_lr0.01", "./lenet_lr0.1", "./edge_cases"


@pytest.fixture(scope="module")
def cache() -> SummaryCache:
    c = SummaryCache(str(MINDSPORE_LOGS))
    c.reload()
    return c


def decoded(cache, train_id: str, tag: str, index: int = -1):
    view = cache.job(train_id)
    series = view.series("tensor", tag)
    i = index % len(series)
    return series, i, tensor_at(cache, view, tag, i)


def styles_of(text, word: str) -> set[str]:
    return {str(span.style) for span in text.spans if text.plain[span.start:span.end].strip() == word}


def test_full_index_puts_the_cell_back_into_the_tensor():
    assert present.full_index("[1,:,2:5]", (3, 4, 5), (2, 3)) == (1, 2, 3)
    assert present.full_index("[-1,:,:]", (3, 4, 5), (0, 4)) == (2, 0, 4)
    assert present.full_index("[0,0,0]", (3, 4, 5), ()) == (0, 0, 0)
    assert present.full_index("[0,:]", (3, 4, 5), (1,)) is None  # the slice does not fit


def test_compared_the_list_puts_each_jobs_tensors_under_its_name(cache):
    keys = sorted((tid, tag) for tid in (LENET, LENET_B) for tag in cache.job(tid).tag_names("tensor"))
    rows = present.list_rows(keys, (LENET, LENET_B), {LENET: "red", LENET_B: "blue"})
    headings = [str(text) for _, text, disabled in rows if disabled]
    assert headings == [f"● {LENET}", f"● {LENET_B}"]  # readable without colour
    second = [str(text) for _, text, _ in rows].index(f"● {LENET_B}")
    assert (rows[second + 1][0], str(rows[second + 1][1])) == (present.option_id((LENET_B, "custom/t3d")), "  custom/t3d")
    alone = present.list_rows(keys[:2], (LENET,), None)
    assert [str(text) for _, text, _ in alone] == [tag for _, tag in keys[:2]] and not any(d for *_, d in alone)


def test_the_title_says_tensor_step_shape_type_and_mode(cache):
    series, i, tensor = decoded(cache, LENET, "custom/t4d")
    state = TensorsState().choose((LENET, "custom/t4d"))
    title = present.title_text(state, series, i, tensor, None)
    assert title.startswith("[b]custom/t4d[/b]") and f"({i + 1}/{len(series)})" in title
    assert "x".join(map(str, tensor.dims)) in title and tensor.dtype in title and LENET not in title
    compared = present.title_text(state.toggle_histogram(), series, i, tensor, "red", "HINT")
    assert f"[red]●[/] {LENET}" in compared and compared.endswith("histogram · offset · step axis: step")
    assert compared.split(" · ")[1] == "HINT"  # the colour hint goes second in offset mode


def test_statistics_mark_nan_and_infinities_and_fold_when_narrow(cache):
    _, _, tensor = decoded(cache, EDGE, "edge/tensor_nan_inf")
    overall = statistics(tensor.array)
    piece = statistics(apply_slice(tensor.array, "[:]" if len(tensor.dims) == 1 else "[" + ",".join(
        ["0"] * (len(tensor.dims) - 2) + [":", ":"]) + "]").data)
    wide = present.stats_text(overall, piece, "", narrow=False)
    lines = wide.plain.splitlines()
    assert lines[0].split() == ["slice", "tensor"] and [line.split()[0] for line in lines[1:8]] == \
        ["min", "max", "mean", "count", "nan", "+inf", "-inf"]
    assert wide.plain.endswith("statistics leave NaN/Inf out")
    assert present.NOT_FINITE in styles_of(wide, f"{int(overall['nan_count']):,}")
    narrow = present.stats_text(overall, piece, "", narrow=True)
    assert len(narrow.plain.splitlines()) == 5 and "zeros" not in narrow.plain  # two tables side by side
    assert present.stats_text(None, None, "holds 5 values", narrow=False) == \
        "[dim]no statistics: holds 5 values[/dim]"


def test_the_readout_gives_the_cells_index_in_the_whole_tensor_and_its_step(cache):
    series, i, tensor = decoded(cache, LENET, "custom/t4d")
    text = "[0,0,:,:]"
    sliced = apply_slice(tensor.array, text)
    value = float(sliced.data[1, 2])
    origin = float(series.wall_times[0])
    narrow = present.cell_readout("custom/t4d", text, tensor.dims, (1, 2), value, series, i, origin, 100)
    assert narrow.plain.startswith(f"custom/t4d[0, 0, 1, 2] = {value!r}")
    assert f"step {int(series.steps[i])} +" in narrow.plain and narrow.plain.count(" · ") == 0
    wide = present.cell_readout("custom/t4d", text, tensor.dims, (1, 2), value, series, i, origin, present.WIDE)
    assert wide.plain.count(" · ") == 1  # the clock time, from WIDE on
    nan = present.cell_readout("t", "[:]", (3,), (0,), float("nan"), None, None, None, 100)
    assert nan.plain == "t[0] = nan" and present.NOT_FINITE in styles_of(nan, "nan")
    assert present.cell_readout("t", "[:]", (3,), (0,), None, None, None, None, 100).plain == "empty slice"


def test_the_message_says_why_there_is_no_table(cache):
    _, _, tensor = decoded(cache, LENET, "custom/t3d")
    assert present.message_text(None, None, "", loading=True) == "no tensor tags yet"
    assert present.message_text(None, None, "", loading=False) == "these jobs have no tensors"
    assert present.message_text((LENET, "custom/t3d"), None, "", loading=False) == "loading…"
    said = present.message_text((LENET, "custom/t3d"), tensor, "holds 5 values", loading=False)
    assert said.startswith("[b]custom/t3d[/b]  shape " + "x".join(map(str, tensor.dims)))
    assert said.endswith("No values to show: holds 5 values")
    assert np.asarray(tensor.array).size  # a real decoded tensor, shaped as the title says


def test_the_tensors_are_listed_by_tag_then_in_the_jobs_order_and_filtered(cache):
    keys = present.tensor_keys([cache.job(LENET_B), cache.job(LENET)], (LENET, LENET_B))
    assert set(keys) == {(tid, tag) for tid in (LENET, LENET_B) for tag in cache.job(tid).tag_names("tensor")}
    assert keys == sorted(keys, key=lambda key: (key[1], (LENET, LENET_B).index(key[0])))
    t3d = present.filtered(keys, "t3d")
    assert t3d == [(LENET, "custom/t3d"), (LENET_B, "custom/t3d")]
    assert present.filtered(keys, "") == keys


def test_changes_name_the_tensors_whose_data_may_have_moved(cache):
    keys = present.tensor_keys([cache.job(LENET)], (LENET,))
    job = cache.job
    named = Changes(updated={LENET: {("tensor", "custom/t3d"), ("scalar", "loss")}})
    assert present.changed_keys(named, (LENET,), keys, job) == {(LENET, "custom/t3d")}
    assert present.changed_keys(named, (LENET_B,), keys, job) == set()  # not a job of the view
    read_again = Changes(updated={LENET: set()})
    assert present.changed_keys(read_again, (LENET,), keys, job) == set(keys)
    gone = Changes(removed={LENET})
    assert present.changed_keys(gone, (LENET,), keys + [(LENET, "was/here")], lambda tid: None) == \
        set(keys) | {(LENET, "was/here")}


def test_the_wanted_step_is_the_states_or_why_there_is_none(cache):
    job = cache.job(LENET)
    series = job.series("tensor", "custom/t3d")
    state = TensorsState().choose((LENET, "custom/t3d"))
    i = len(series) - 1
    assert present.wanted_step(state, series, job) == (i, int(series.steps[i]), job.locator(series, i))
    assert present.wanted_step(state, None, job) == "this tag is no longer in the job"
    assert present.wanted_step(state, None, None) == "this tag is no longer in the job"
    assert present.wanted_step(state, series.before(int(series.steps[0])), job) == "no kept steps"


def test_a_decoded_step_has_its_values_and_statistics_or_says_why_not(cache):
    job = cache.job(LENET)
    series, i, tensor = decoded(cache, LENET, "custom/t3d")
    step = present.decode_step(cache, job, (LENET, "custom/t3d"), i, int(series.steps[i]), job.locator(series, i))
    np.testing.assert_array_equal(step.tensor.array, tensor.array)
    assert step.overall == statistics(tensor.array) and step.problem == ""
    gone = present.decode_step(cache, None, ("./[b]gone", "custom/t3d"), i, 1, None)
    assert gone.tensor is None and gone.problem == "./[b]gone is gone"


def test_every_steps_histogram_or_why_not(cache):
    ridge, bands, problem = present.step_histograms(cache, cache.job(LENET), "custom/t3d")
    series = cache.job(LENET).series("tensor", "custom/t3d")
    assert problem == "" and len(bands) == len(series) and ridge is not None
    assert present.step_histograms(cache, None, "custom/t3d") == (None, None, "no kept steps")


def test_a_cut_is_the_slice_with_its_statistics_or_why_not(cache):
    _, _, tensor = decoded(cache, LENET, "custom/t3d")
    sliced, stats = present.cut(tensor.array, "[0,:,:]")
    np.testing.assert_array_equal(sliced.data, apply_slice(tensor.array, "[0,:,:]").data)
    assert stats == statistics(sliced.data)
    assert isinstance(present.cut(tensor.array, "[0,0,0,0,0]"), str)
    assert not present.integers(tensor) and tensor.dtype.startswith("DT_FLOAT")


def test_the_readout_is_the_charts_or_the_cells_or_the_keys():
    state = TensorsState().choose((LENET, "custom/t3d"))
    cell = Text("custom/t3d[0, 1] = 2.0")
    assert present.readout(state, None, "bands keys", cell) is cell
    assert present.readout(state, None, "bands keys", None).plain == present.TABLE_HINT
    ridge = state.toggle_histogram()
    assert present.readout(ridge, Text("step 3"), "bands keys", cell).plain == "step 3"
    assert present.readout(ridge, Text(""), "bands keys", cell).plain == present.RIDGE_HINT
    assert present.readout(ridge.toggle_bands(), Text(""), "b: x", None).plain.startswith("b: x")


def test_the_export_takes_the_tensor_on_screen_and_the_charts_name_it():
    assert present.export_scope((LENET, "a/b"), (LENET, LENET_B)) == \
        {"train_ids": [LENET], "plugins": {"tensor"}, "tags": {("tensor", "a/b")}}
    assert present.export_scope(None, (LENET, LENET_B))["train_ids"] == [LENET, LENET_B]
    assert (present.export_text((LENET, "a/b")), present.export_text(None)) == (f"tensor a/b of {LENET}", "no tensor")
    assert present.chart_title((LENET, "[b]t"), compare=False) == "\\[b]t"
    assert present.chart_title((LENET, "t"), compare=True) == f"t · {LENET}"
    assert present.chart_title(None, compare=True) is None
