"""Tensor queries: differential against MindInsight's stats, data and histogram answers, and unit
tests of the slice grammar, statistics and number formatting."""
from __future__ import annotations

import numpy as np
import pytest

from tui_insight.summary.formats.values import PayloadError
from tui_insight.summary.formats.writer import SummaryWriter
from tui_insight.summary.queries.histograms import rebin
from tui_insight.summary.queries.tensors import (
    SliceError,
    TensorSlice,
    TensorUnavailable,
    apply_slice,
    default_slice,
    format_value,
    parse_slice,
    statistics,
    tensor_at,
    tensor_histogram,
    tensor_histogram_steps,
)
from tui_insight.summary.store.cache import SummaryCache

SUFFIX = "/tensor"
NON_FINITE = {"NAN": np.nan, "INF": np.inf, "-INF": -np.inf}
# our statistics() key -> MindInsight's key for the whole tensor
OVERALL = {"max": "overall_max", "min": "overall_min", "avg": "overall_avg", "count": "overall_count",
           "nan_count": "overall_nan_count", "pos_inf_count": "overall_pos_inf_count",
           "neg_inf_count": "overall_neg_inf_count", "zero_count": "overall_zero_count",
           "neg_count": "overall_neg_zero_count", "pos_count": "overall_pos_zero_count"}
PLAIN = ("max", "min", "avg", "count", "nan_count", "pos_inf_count", "neg_inf_count")


def _from_truth(data):
    if isinstance(data, list):
        return [_from_truth(x) for x in data]
    return NON_FINITE.get(data, data) if isinstance(data, str) else data


def _cases(truth):
    for tid, job in truth["jobs"].items():
        for full_tag, answer in job["tensors"].items():
            yield tid, full_tag[: -len(SUFFIX)], answer


def _kept(view, tag) -> list[int]:
    return [int(s) for s in view.series("tensor", tag).steps]


# -- differential ---------------------------------------------------------------------------

def test_truth_covers_the_interesting_jobs(truth):
    jobs = {tid for tid, _, _ in _cases(truth)}
    assert {"./edge_cases", "./damaged_reference", "./lenet_lr0.01", "./limits"} <= jobs


def test_statistics_match_mindinsight(truth, fixture_cache):
    compared = 0
    for tid, tag, answer in _cases(truth):
        view = fixture_cache.job(tid)
        kept = _kept(view, tag)
        for row in answer["stats"]:
            if row["step"] not in kept:
                continue  # ./limits: MindInsight sampled other steps
            array = tensor_at(fixture_cache, view, tag, kept.index(row["step"])).array
            assert list(array.shape) == row["value"]["dims"]
            got, expected = statistics(array), row["value"]["statistics"]
            for ours, theirs in OVERALL.items():
                assert got[ours] == expected[theirs], (tid, tag, row["step"], ours)
            for key in PLAIN:
                assert got[key] == expected[key], (tid, tag, row["step"], key)
            compared += 1
    assert compared >= 100


def test_slice_data_matches_mindinsight(truth, fixture_cache):
    non_finite_seen = 0
    for tid, tag, answer in _cases(truth):
        view = fixture_cache.job(tid)
        kept = _kept(view, tag)
        step = answer["chosen_step"]
        assert step in kept, (tid, tag)
        array = tensor_at(fixture_cache, view, tag, kept.index(step)).array
        sliced = apply_slice(array, answer["dims_query"])
        value = answer["data"][0]["value"]
        expected = np.array(_from_truth(value["data"]), dtype=np.float64)
        np.testing.assert_array_equal(sliced.data, expected, err_msg=f"{tid} {tag}")  # NaN == NaN here
        got = statistics(sliced.data)
        for key in PLAIN:
            assert got[key] == value["statistics"][key], (tid, tag, key)
        whole = statistics(array)
        for ours, theirs in OVERALL.items():
            assert whole[ours] == value["statistics"][theirs], (tid, tag, ours)
        non_finite_seen += int(not np.isfinite(sliced.data).all())
    assert non_finite_seen >= 1  # the NaN/Inf edge case was compared


def test_tensor_histograms_match_mindinsight(truth, fixture_cache):
    compared = 0
    for tid, tag, answer in _cases(truth):
        view = fixture_cache.job(tid)
        steps = tensor_histogram_steps(fixture_cache, view, tag)
        ridge = rebin(steps)
        rows = {row["step"]: row for row in answer["histogram"]}
        kept = [s.step for s in steps]
        if kept != answer["steps"]:
            # ./limits: both kept a sample of the 30 steps. Tensor values there grow with the
            # step, so the shared range is set by the first and last step, which both kept.
            assert tid == "./limits"
            assert (kept[0], kept[-1]) == (answer["steps"][0], answer["steps"][-1])
            assert set(kept) <= set(truth["jobs"][tid]["raw"]["tags"][tag + SUFFIX]["steps_in_file_order"])
        common = [s for s in kept if s in rows]
        assert len(common) >= 2
        for step in common:
            expected = np.array(rows[step]["value"]["histogram_buckets"], dtype=np.float64)
            i = kept.index(step)
            assert expected.shape == (ridge.bins, 3), (tid, tag, step)
            np.testing.assert_allclose(ridge.lefts, expected[:, 0], rtol=1e-9, atol=1e-12)
            np.testing.assert_allclose(np.full(ridge.bins, ridge.bin_width), expected[:, 1], rtol=1e-9)
            np.testing.assert_array_equal(ridge.counts[i], expected[:, 2].astype(np.int64), err_msg=f"{tid} {tag} {step}")
            compared += 1
    assert compared >= 100


def test_edge_case_tensors(fixture_cache):
    view = fixture_cache.job("./edge_cases")
    nan_inf = tensor_at(fixture_cache, view, "edge/tensor_nan_inf", -1).array
    stats = statistics(nan_inf)
    assert stats["nan_count"] >= 1 and stats["pos_inf_count"] >= 1 and stats["neg_inf_count"] >= 1
    assert np.isfinite([stats["max"], stats["min"], stats["avg"]]).all()
    steps = tensor_histogram_steps(fixture_cache, view, "edge/tensor_nan_inf")
    assert all(s.data.nan_count == 1 for s in steps)
    one = tensor_at(fixture_cache, view, "edge/tensor_1elem", 0)
    assert one.dims == (1,) and apply_slice(one.array, default_slice(one.dims)).data.shape == (1,)
    integer = tensor_at(fixture_cache, view, "edge/tensor_int", 0)
    assert integer.dtype == "DT_INT32"
    assert statistics(integer.array)["zero_count"] == integer.array.size  # step 0 is all zeros


def test_unknown_tensor_tag(fixture_cache):
    view = fixture_cache.job("./lenet_lr0.01")
    assert tensor_histogram_steps(fixture_cache, view, "nope") == []
    with pytest.raises(PayloadError):
        tensor_at(fixture_cache, view, "nope", 0)
    with pytest.raises(PayloadError, match="no kept step"):
        tensor_at(fixture_cache, view, "custom/t3d", 99)


# -- the slice grammar ----------------------------------------------------------------------

def test_parse_examples():
    dims = (2, 3, 4, 20)
    assert parse_slice("[0,0,:,1:10]", dims) == (0, 0, slice(None), slice(1, 10))
    assert parse_slice("  [ -1 , -3, 1:, ::2 ]  ", dims) == (-1, -3, slice(1, None), slice(None, None, 2))
    assert parse_slice("[1,2,-4:-1,10:2:-3]", dims) == (1, 2, slice(-4, -1), slice(10, 2, -3))
    assert parse_slice("[0,0,:3,:]", dims) == (0, 0, slice(None, 3), slice(None))
    assert parse_slice("[]", ()) == ()
    assert parse_slice("[ ]", ()) == ()


def test_apply_slice_follows_numpy():
    array = np.arange(2 * 3 * 4 * 5, dtype=np.float64).reshape(2, 3, 4, 5)
    for text, index in [("[0,0,:,:]", (0, 0, slice(None), slice(None))),
                        ("[-1,1,1:3,::2]", (-1, 1, slice(1, 3), slice(None, None, 2))),
                        ("[1,2,::-1,4]", (1, 2, slice(None, None, -1), 4)),
                        ("[0,1,2,3]", (0, 1, 2, 3)),
                        ("[1,:,0,-2:]", (1, slice(None), 0, slice(-2, None)))]:
        got = apply_slice(array, text)
        np.testing.assert_array_equal(got.data, array[index])
    got = apply_slice(array, "[1, 2, 3:0:-1, 1::2]")
    np.testing.assert_array_equal(got.row_index, [3, 2, 1])
    np.testing.assert_array_equal(got.col_index, [1, 3])
    assert got.text == "[1,2,3:0:-1,1::2]"
    scalar = apply_slice(array, "[0,1,2,3]")
    assert scalar.data.shape == () and scalar.row_index.size == 0 and scalar.col_index.size == 0
    vector = apply_slice(array, "[0,1,:,3]")
    np.testing.assert_array_equal(vector.row_index, [0, 1, 2, 3])
    assert vector.col_index.size == 0 and isinstance(vector, TensorSlice)
    assert apply_slice(np.float64(7.0).reshape(()), "[]").data == 7.0


@pytest.mark.parametrize("text, dims, message", [
    ("[0,:]", (3, 4, 5), "expected 3 dimensions, got 2"),
    ("[0,1,:,:]", (3, 4, 5), "expected 3 dimensions, got 4"),
    ("[:]", (), "expected 0 dimensions, got 1"),
    ("[0,7,:]", (3, 5, 5), "index 7 out of range for dimension 1 (size 5)"),
    ("[-4,:,:]", (3, 5, 5), "index -4 out of range for dimension 0 (size 3)"),
    ("[:,:,:]", (3, 4, 5), "at most 2 dimensions may be sliced with ':'"),
    ("[a,:,:]", (3, 4, 5), "index 'a' is not an integer"),
    ("[0,1.5,:]", (3, 4, 5), "index '1.5' is not an integer"),
    ("[0,x:2,:]", (3, 4, 5), "slice bound 'x' is not an integer"),
    ("[0,1:2:3:4,:]", (3, 4, 5), "is not a slice"),
    ("[0,::0,:]", (3, 4, 5), "step cannot be 0"),
    ("[0,,:]", (3, 4, 5), "element 2 is empty"),
    ("", (3, 4, 5), "the slice is empty"),
    ("   ", (3, 4, 5), "the slice is empty"),
    ("0,:,:", (3, 4, 5), "in brackets"),
    ("[0,:,:", (3, 4, 5), "in brackets"),
    ("[", (3,), "in brackets"),
])
def test_slice_errors(text, dims, message):
    with pytest.raises(SliceError) as info:
        parse_slice(text, dims)
    assert message in str(info.value)
    with pytest.raises(SliceError):
        apply_slice(np.zeros(dims), text)


def test_slice_value_limit():
    array = np.zeros((400, 300))
    with pytest.raises(SliceError, match=r"slice has 120,000 values; at most 100,000 can be shown"):
        apply_slice(array, "[:,:]")
    assert apply_slice(array, "[0:333,:]").data.shape == (333, 300)  # 99,900 values
    assert apply_slice(np.zeros(100_000), "[:]").data.shape == (100_000,)
    with pytest.raises(SliceError, match="100,001 values"):
        apply_slice(np.zeros(100_001), "[:]")


def test_slice_error_is_a_value_error():
    assert issubclass(SliceError, ValueError)


@pytest.mark.parametrize("dims, text", [
    ((), "[]"),
    ((7,), "[:]"),
    ((5000,), "[0:1000]"),
    ((3, 4), "[:,:]"),
    ((2, 3, 4, 5), "[0,0,:,:]"),
    ((2, 10, 2000), "[0,:,0:1000]"),
    ((500, 1000), "[0:100,:]"),  # beyond MindInsight's UI: stay within the 100,000 values
    ((4, 100_000, 3), "[0,0:33333,:]"),
    ((4, 100, 3), "[0,:,:]"),
])
def test_default_slice(dims, text):
    assert default_slice(dims) == text
    if all(dims):
        sliced = apply_slice(np.zeros(dims), text)
        assert sliced.data.size <= 100_000 and sliced.text == text


# -- statistics and histograms --------------------------------------------------------------

def test_statistics_by_hand():
    stats = statistics(np.array([[1.0, -2.0, 0.0], [np.nan, np.inf, -np.inf]]))
    assert stats == {"max": 1.0, "min": -2.0, "avg": -1.0 / 3, "count": 6, "nan_count": 1,
                     "pos_inf_count": 1, "neg_inf_count": 1, "zero_count": 1, "neg_count": 1, "pos_count": 1}
    empty = statistics(np.array([np.nan, np.nan]))
    assert (empty["max"], empty["min"], empty["avg"], empty["count"], empty["nan_count"]) == (0.0, 0.0, 0.0, 2, 2)
    assert statistics(np.array(5.0))["count"] == 1


def test_tensor_histogram_by_hand():
    hist = tensor_histogram(np.array([0.0, 1.0, 2.0, 3.0, np.nan, np.inf]))
    # 4 finite values -> 2 bins over [0, 3]; numpy counts the right edge in the last bin
    np.testing.assert_array_equal(hist.buckets, [[0.0, 1.5, 2.0], [1.5, 1.5, 2.0]])
    assert (hist.nan_count, hist.pos_inf_count, hist.neg_inf_count, hist.min, hist.max) == (1, 1, 0, 0.0, 3.0)
    const = tensor_histogram(np.full(12, 2.0))
    np.testing.assert_allclose(const.buckets[:, 0], [1.5, 1.5 + 1 / 3, 1.5 + 2 / 3])
    assert const.buckets[:, 2].tolist() == [0.0, 12.0, 0.0] and (const.min, const.max) == (2.0, 2.0)
    assert tensor_histogram(np.array([np.nan])).buckets.shape == (0, 3)
    assert len(tensor_histogram(np.random.default_rng(0).normal(size=5000)).buckets) == 30


def test_tensor_histogram_steps_from_written_log(tmp_path):
    with SummaryWriter(tmp_path / "run", timestamp=9, wall_time=10.0) as writer:
        for step in range(1, 4):
            writer.add_tensor("t", np.arange(6, dtype=np.float32).reshape(2, 3) * step)
            writer.record(step, wall_time=10.0 + step)
    cache = SummaryCache(str(tmp_path))
    cache.reload()
    view = cache.job("./run")
    steps = tensor_histogram_steps(cache, view, "t")
    assert [(s.step, s.wall_time) for s in steps] == [(1, 11.0), (2, 12.0), (3, 13.0)]
    ridge = rebin(steps)
    assert ridge.bins == 3 and ridge.edges[0] == 0.0 and ridge.edges[-1] == pytest.approx(15.0)
    assert (ridge.counts.sum(axis=1) >= 6).all()
    data = tensor_at(cache, view, "t", 1)
    np.testing.assert_array_equal(apply_slice(data.array, default_slice(data.dims)).data, [[0, 2, 4], [6, 8, 10]])


def test_too_large_tensor_is_reported(tmp_path, monkeypatch):
    from tui_insight.summary import limits
    monkeypatch.setattr(limits, "MAX_TENSOR_ELEMENTS", 10)
    with SummaryWriter(tmp_path / "run", timestamp=9, wall_time=10.0) as writer:
        writer.add_tensor("big", np.zeros((4, 4), dtype=np.float32))
        writer.record(3, wall_time=11.0)
    cache = SummaryCache(str(tmp_path))
    cache.reload()
    with pytest.raises(TensorUnavailable, match="step 3: .*limit"):
        tensor_histogram_steps(cache, cache.job("./run"), "big")


# -- formatting -----------------------------------------------------------------------------

@pytest.mark.parametrize("x, width, text", [
    (float("nan"), 8, "nan"), (float("inf"), 8, "inf"), (float("-inf"), 8, "-inf"),
    (0.1, 10, "0.1"), (30.0, 10, "30.0"), (30.0, 2, "30"), (-1.5, 10, "-1.5"),
    (1.2581191062927246, 6, "1.2581"), (1.2581191062927246, 30, "1.2581191062927246"),
    (123456789.0, 6, "1.23e8"), (-0.000012345, 8, "-1.23e-5"), (1e300, 5, "1e300"),
    (123456.0, 3, "1e5"), (123456.0, 2, "##"), (float("-inf"), 3, "###"), (5.0, 0, ""),
])
def test_format_value(x, width, text):
    assert format_value(x, width) == text


def test_format_value_always_fits_and_keeps_value():
    rng = np.random.default_rng(3)
    tolerance = {4: 0.5, 6: 0.5, 8: 0.01, 12: 1e-4}  # fewer characters, fewer digits
    for x in np.r_[rng.normal(0, 1e6, 200), rng.normal(0, 1e-6, 200), 0.0, -0.0]:
        for width, rel in tolerance.items():
            text = format_value(x, width)
            assert len(text) <= width
            if "#" not in text:
                assert float(text) == pytest.approx(x, rel=rel, abs=1e-300), (x, width, text)


def test_shapes_that_make_no_sense_are_a_sentence_not_a_crash(tmp_path):
    from hostile_logs import HOSTILE_SHAPES, write_hostile_tensors

    from tui_insight.summary.store.cache import SummaryCache

    write_hostile_tensors(tmp_path)
    cache = SummaryCache(str(tmp_path))
    cache.reload()
    view = cache.job("./")
    problems = {}
    for tag in HOSTILE_SHAPES:
        series = view.series("tensor", tag)
        assert series is not None, tag
        tensor = cache.payloads.tensor(view.locator(series, len(series) - 1))
        problems[tag] = tensor.reason if tensor.array is None else ""
    assert problems["fine"] == "" and problems["zero_and_huge"] == ""
    assert "negative" in problems["neg"] and "negative" in problems["neg_twice"]
    assert "over the limit" in problems["overflow"]
    assert "70 dimensions" in problems["too_many_dims"]


def test_slicing_an_empty_tensor_with_a_huge_axis_costs_what_it_shows():
    """(0, 10^9): no values, but numpy arrays of every index along the huge axis would take 8 GB."""
    import time
    import tracemalloc

    tracemalloc.start()
    started = time.perf_counter()
    try:
        array = np.empty((0, 10 ** 9))
        found = apply_slice(array, default_slice(array.shape))
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert found.data.shape == (0, 1000) and found.col_index.tolist()[:3] == [0, 1, 2]
    assert peak < 1 << 20 and time.perf_counter() - started < 1.0


def test_dims_too_large_for_numpy_even_without_values_are_a_sentence():
    from tui_insight.proto import anf_ir_pb2
    from tui_insight.summary.formats.values import tensor_from_proto

    for dims in ([2 ** 40, 10 ** 9, 0], [0, 2, 10 ** 9, 10 ** 9]):
        tensor = tensor_from_proto(anf_ir_pb2.TensorProto(dims=dims, data_type=anf_ir_pb2.DT_FLOAT32))
        assert tensor.array is None and "too large to be a shape" in tensor.reason


def test_a_tensor_spanning_all_of_float64_still_has_a_histogram():
    data = tensor_histogram(np.array([-1e308, 0.0, 1e308]))
    edges = np.append(data.buckets[:, 0], data.buckets[-1, 0] + data.buckets[-1, 1])
    assert np.all(np.isfinite(edges)) and edges[0] == -1e308 and edges[-1] == 1e308
    assert data.buckets[:, 2].sum() == 3
