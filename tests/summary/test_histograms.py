"""Histogram queries: differential against MindInsight's re-binned buckets, the raw buckets of
over-limit tags against a plain re-implementation of MindInsight's sweep, and unit tests."""
from __future__ import annotations

import math

import numpy as np
import pytest

from tui_insight.summary.formats.values import HistogramData
from tui_insight.summary.formats.writer import SummaryWriter
from tui_insight.summary.queries.histograms import HistogramStep, Ridgeline, bin_count, histogram_steps, rebin
from tui_insight.summary.store.cache import SummaryCache

SUFFIX = "/histogram"


# -- a plain, one-bucket-at-a-time version of MindInsight's re-binning (compat §4.5) ----------

def _reference_rebin(hists: list[HistogramData]) -> tuple[float, float, list[list[int]]]:
    """(first left, width, counts per step), straight from the description, with python floats."""
    totals = [int(sum(b[2] for b in h.buckets)) for h in hists]
    fin = lambda x: x if math.isfinite(x) else 0.0  # noqa: E731
    used = [h for h, n in zip(hists, totals) if n > 0]
    lo = min((fin(h.min) for h in used), default=0.0)
    hi = max((fin(h.max) for h in used), default=0.0)
    bins = bin_count(max(totals, default=0))
    if lo == hi:
        lo, hi = lo - 0.5, hi + 0.5
    width = (hi - lo) / bins
    all_counts = []
    for h, total in zip(hists, totals):
        buckets = [(float(b[0]), float(b[1]), float(b[2])) for b in h.buckets]
        counts = []
        pos = 0
        for i in range(bins):
            cl = lo + width * i
            cr = cl + width
            if total == 0 or cr <= buckets[min(pos, len(buckets) - 1)][0]:
                counts.append(0)
                continue
            while pos < len(buckets) and cl >= buckets[pos][0] + buckets[pos][1]:
                pos += 1
            acc = 0.0
            while pos < len(buckets):
                left, w, c = buckets[pos]
                right = left + w
                overlap = max(0.0, min(cr, right) - max(cl, left))
                acc += c if w == 0 else (overlap / w) * c
                if cr > right:
                    pos += 1
                else:
                    break
            counts.append(math.ceil(acc))
        all_counts.append(counts)
    return lo, width, all_counts


def _hist(buckets, lo=None, hi=None, nan=0, pos=0, neg=0) -> HistogramData:
    b = np.array(buckets, dtype=np.float64).reshape(-1, 3)
    lo = float(b[:, 0].min()) if lo is None else lo
    hi = float((b[:, 0] + b[:, 1]).max()) if hi is None else hi
    return HistogramData(b, nan, pos, neg, lo, hi)


def _steps(hists) -> list[HistogramStep]:
    return [HistogramStep(i, 1000.0 + i, h) for i, h in enumerate(hists)]


def _truth_cases(truth):
    for tid, job in truth["jobs"].items():
        for full_tag, rows in job["histograms"].items():
            yield tid, full_tag, rows


# -- differential ---------------------------------------------------------------------------

def test_rebin_matches_mindinsight(truth, fixture_cache):
    compared = 0
    for tid, full_tag, rows in _truth_cases(truth):
        raw_steps = truth["jobs"][tid]["raw"]["tags"][full_tag]["distinct_steps"]
        if raw_steps > 50:
            continue  # sampled by MindInsight at random: see the over-limit test
        view = fixture_cache.job(tid)
        steps = histogram_steps(fixture_cache, view, full_tag[: -len(SUFFIX)])
        ridge = rebin(steps)
        assert list(ridge.steps) == [r["step"] for r in rows], (tid, full_tag)
        np.testing.assert_allclose(ridge.wall_times, [r["wall_time"] for r in rows], rtol=0, atol=1e-6)
        for i, row in enumerate(rows):
            expected = np.array(row["buckets"], dtype=np.float64)
            assert expected.shape == (ridge.bins, 3), (tid, full_tag, row["step"])
            np.testing.assert_allclose(ridge.lefts, expected[:, 0], rtol=1e-9, atol=1e-12, err_msg=f"{tid} {full_tag}")
            np.testing.assert_allclose(np.full(ridge.bins, ridge.bin_width), expected[:, 1], rtol=1e-9)
            np.testing.assert_allclose(np.diff(ridge.edges), expected[:, 1], rtol=1e-9)
            np.testing.assert_array_equal(ridge.counts[i], expected[:, 2].astype(np.int64),
                                          err_msg=f"{tid} {full_tag} step {row['step']}")
            np.testing.assert_allclose(np.array(ridge.buckets(i)), expected, rtol=1e-9, atol=1e-12)
        compared += 1
    assert compared >= 20


def test_over_limit_histogram_against_raw_buckets(truth, fixture_cache):
    job = truth["jobs"]["./limits"]
    full_tag = "limits/weights/histogram"
    raw = {r["step"]: r for r in job["raw"]["histograms"][full_tag]}
    assert len(raw) == job["raw"]["tags"][full_tag]["distinct_steps"] == 100
    steps = histogram_steps(fixture_cache, fixture_cache.job("./limits"), "limits/weights")
    kept = [s.step for s in steps]
    assert 25 <= len(kept) <= 50
    assert kept[0] == min(raw) and kept[-1] == max(raw)
    assert set(kept) <= set(raw)
    assert len(job["histograms"][full_tag]) == 50  # MindInsight kept 50 too, of its own choosing
    # What we decoded is what is in the file.
    for s in steps:
        r = raw[s.step]
        np.testing.assert_array_equal(s.data.buckets, np.array(r["buckets"], dtype=np.float64))
        assert (s.data.nan_count, s.data.pos_inf_count, s.data.neg_inf_count) == \
            (r["nan_count"], r["pos_inf_count"], r["neg_inf_count"])
        assert (s.data.min, s.data.max) == (r["min"], r["max"])
    # Re-binning our kept steps gives what MindInsight's sweep gives on the raw buckets.
    raw_hists = [_hist(raw[k]["buckets"], raw[k]["min"], raw[k]["max"]) for k in kept]
    lo, width, counts = _reference_rebin(raw_hists)
    ridge = rebin(steps)
    assert ridge.edges[0] == lo and ridge.bin_width == width
    np.testing.assert_array_equal(ridge.counts, np.array(counts))


def test_edge_case_histograms(truth, fixture_cache):
    view = fixture_cache.job("./edge_cases")
    raw = truth["jobs"]["./edge_cases"]["raw"]["histograms"]
    const = rebin(histogram_steps(fixture_cache, view, "edge/const"))
    first = raw["edge/const/histogram"][0]
    assert first["min"] == first["max"]
    assert const.edges[0] == first["min"] - 0.5 and const.edges[-1] == pytest.approx(first["max"] + 0.5)
    with_inf = rebin(histogram_steps(fixture_cache, view, "edge/with_nan_inf"))
    by_step = {r["step"]: r for r in raw["edge/with_nan_inf/histogram"]}
    for i, step in enumerate(with_inf.steps):
        r = by_step[int(step)]
        assert (with_inf.nan_counts[i], with_inf.pos_inf_counts[i], with_inf.neg_inf_counts[i]) == \
            (r["nan_count"], r["pos_inf_count"], r["neg_inf_count"])
    assert with_inf.nan_counts.sum() > 0 and with_inf.pos_inf_counts.sum() > 0 and with_inf.neg_inf_counts.sum() > 0


def test_unknown_tag_gives_no_steps(fixture_cache):
    assert histogram_steps(fixture_cache, fixture_cache.job("./"), "nope") == []


# -- unit tests -----------------------------------------------------------------------------

@pytest.mark.parametrize("n, bins", [(0, 1), (1, 2), (5, 2), (6, 3), (10, 3), (11, 3), (21, 4), (100, 11),
                                     (271, 29), (280, 29), (281, 30), (10**6, 30)])
def test_bin_count(n, bins):
    assert bin_count(n) == bins


def test_rebin_matches_reference_on_random_histograms():
    rng = np.random.default_rng(7)
    for trial in range(60):
        hists = []
        for _ in range(int(rng.integers(1, 8))):
            size = int(rng.integers(0, 400))
            values = rng.normal(rng.normal(), rng.uniform(0.01, 3), size=size).astype(np.float32)
            if size:
                lo, hi = float(values.min()), float(values.max())
                edges_lo, edges_hi = (lo - 0.5, hi + 0.5) if lo == hi else (lo, hi)
                c, e = np.histogram(values, bins=max(1, min(90, size // 10 + 1)), range=(edges_lo, edges_hi))
                e = e.astype(np.float32).astype(np.float64)  # MindSpore writes float32 edges
                hists.append(_hist(np.c_[e[:-1], np.diff(e), c], lo, hi))
            else:
                hists.append(HistogramData(np.zeros((0, 3)), 0, 0, 0, math.inf, -math.inf))
        ridge = rebin(_steps(hists))
        lo, width, counts = _reference_rebin(hists)
        assert ridge.edges[0] == lo and ridge.bin_width == width, trial
        np.testing.assert_array_equal(ridge.counts, np.array(counts), err_msg=f"trial {trial}")


def test_rebin_hand_example():
    # one step, buckets [0,1):4 and [1,2):2; 6 values -> 3 bins of width 2/3 over [0, 2]
    ridge = rebin(_steps([_hist([[0, 1, 4], [1, 1, 2]], 0.0, 2.0)]))
    np.testing.assert_allclose(ridge.edges, [0, 2 / 3, 4 / 3, 2])
    # [0,2/3): 4*2/3=2.67->3; [2/3,4/3): 4/3+2/3=2 (rounding may lift it to 3); [4/3,2): 2*2/3=1.33->2
    assert ridge.counts[0, 0] == 3 and ridge.counts[0, 2] == 2 and ridge.counts[0, 1] in (2, 3)
    assert ridge.counts.dtype == np.int64


def test_zero_width_bucket_adds_its_whole_count():
    ridge = rebin(_steps([_hist([[0.0, 1.0, 1], [1.5, 0.0, 7], [2.0, 1.0, 1]], 0.0, 3.0)]))
    assert ridge.bins == 3  # 9 values
    np.testing.assert_array_equal(ridge.counts[0], [1, 7, 1])  # [1,2) gets all 7 of the bucket at 1.5
    # MindInsight's sweep passes over a zero-width bucket sitting exactly on a bin edge
    hists = [_hist([[0.0, 1.0, 1], [1.0, 0.0, 7], [2.0, 1.0, 1]], 0.0, 3.0)]
    np.testing.assert_array_equal(rebin(_steps(hists)).counts, _reference_rebin(hists)[2])


def test_empty_steps_and_empty_input():
    ridge = rebin(_steps([HistogramData(np.zeros((0, 3)), 2, 0, 1, math.nan, math.nan)]))
    assert ridge.bins == 1
    np.testing.assert_array_equal(ridge.edges, [-0.5, 0.5])
    np.testing.assert_array_equal(ridge.counts, [[0]])
    assert ridge.nan_counts[0] == 2 and ridge.neg_inf_counts[0] == 1
    none = rebin([])
    assert none.counts.shape == (0, 1) and none.steps.shape == (0,)


def test_steps_without_values_do_not_widen_the_range():
    full = _hist([[10.0, 1.0, 3]], 10.0, 11.0)
    empty = _hist([[-100.0, 1.0, 0]], -100.0, -99.0)
    ridge = rebin(_steps([empty, full]))
    assert ridge.edges[0] == 10.0 and ridge.edges[-1] == 11.0
    np.testing.assert_array_equal(ridge.counts[0], [0, 0])


def test_non_finite_min_max_count_as_zero():
    h = _hist([[1.0, 1.0, 4]], math.nan, math.inf)
    ridge = rebin(_steps([h]))
    assert ridge.edges[0] == -0.5 and ridge.edges[-1] == 0.5  # range [0, 0] widened


def test_rebin_50_steps_30_bins():
    """Speed is measured by bench/bench_queries.py; this checks the result."""
    rng = np.random.default_rng(1)
    hists = []
    for k in range(50):
        values = rng.normal(k * 0.1, 1.0, size=1000)
        c, e = np.histogram(values, bins=90)
        hists.append(_hist(np.c_[e[:-1], np.diff(e), c], float(values.min()), float(values.max())))
    steps = _steps(hists)
    ridge = rebin(steps)
    assert ridge.counts.shape == (50, 30)
    # re-binning keeps every value (rounding up may only add)
    assert (ridge.counts.sum(axis=1) >= 1000).all() and (ridge.counts.sum(axis=1) <= 1030).all()


def test_histogram_steps_from_written_log(tmp_path):
    values = [np.arange(20, dtype=np.float64), np.array([1.0, 2.0, np.nan, np.inf, -np.inf, 2.0])]
    with SummaryWriter(tmp_path / "run", timestamp=5, wall_time=50.0) as writer:
        for step, v in enumerate(values, start=1):
            writer.add_histogram("w", v)
            writer.record(step, wall_time=50.0 + step)
    cache = SummaryCache(str(tmp_path))
    cache.reload()
    steps = histogram_steps(cache, cache.job("./run"), "w")
    assert [(s.step, s.wall_time) for s in steps] == [(1, 51.0), (2, 52.0)]
    assert steps[0].data.buckets[:, 2].sum() == 20 and steps[0].data.min == 0 and steps[0].data.max == 19
    assert (steps[1].data.nan_count, steps[1].data.pos_inf_count, steps[1].data.neg_inf_count) == (1, 1, 1)
    ridge = rebin(steps)
    assert isinstance(ridge, Ridgeline)
    assert ridge.bins == bin_count(20) and ridge.edges[0] == 0.0 and ridge.edges[-1] == pytest.approx(19.0)
    assert ridge.counts[0].sum() >= 20 and ridge.counts[1].sum() >= 3
    assert list(ridge.nan_counts) == [0, 1]


# -- histograms no writer should make (issue 15) ----------------------------------------------

def test_buckets_no_histogram_holds_are_dropped_and_named():
    from tui_insight.proto import summary_pb2
    from tui_insight.summary.formats.values import histogram_from_proto

    proto = summary_pb2.Summary.Histogram(min=0.0, max=4.0, nan_count=2, pos_inf_count=-3)
    for left, width, count in [(3.0, 1.0, 5), (math.nan, 1.0, 1), (0.0, math.inf, 1), (1.0, -1.0, 1),
                               (2.0, 1.0, -7), (0.0, 1.0, 2), (1e308, 1e308, 1), (1.0, 1.0, 2 ** 60)]:
        proto.buckets.add(left=left, width=width, count=count)
    data = histogram_from_proto(proto)
    np.testing.assert_array_equal(data.buckets, [[0.0, 1.0, 2], [3.0, 1.0, 5]])  # sorted, the rest dropped
    assert data.problem == ("6 buckets dropped: non-finite edge, negative width, negative count, count past 2**53; "
                            "negative NaN/Inf counts read as 0")
    assert (data.nan_count, data.pos_inf_count, data.neg_inf_count) == (2, 0, 0)
    sound = summary_pb2.Summary.Histogram(min=0.0, max=1.0)
    sound.buckets.add(left=0.0, width=1.0, count=3)
    assert histogram_from_proto(sound).problem == ""


def test_contradicting_or_huge_ranges_still_rebin_to_finite_sorted_edges():
    crossed = rebin(_steps([_hist([[0.0, 1.0, 3]], 5.0, -5.0)]))  # min above max
    wide = rebin(_steps([_hist([[-1e308, 1e308, 3], [0.0, 1e308, 1]], -1e308, 1e308)]))
    for ridge in (crossed, wide):
        assert np.all(np.isfinite(ridge.edges)) and np.all(np.diff(ridge.edges) > 0)
        assert ridge.counts.min() >= 0
    assert crossed.edges[0] == -5.0 and crossed.edges[-1] == 5.0
    assert crossed.counts.sum() == 3 and wide.counts.sum() > 0  # the range is cut to +-1e300: counts, roughly


def test_hostile_histograms_load_rebin_draw_and_export(tmp_path):
    """Every kind of damaged histogram beside a sound one: each tag re-bins to a ridgeline that
    draws at any size, the damaged steps say what was dropped, and the export writes the rest."""
    from hostile_logs import HOSTILE_HISTOGRAMS, write_hostile_histograms

    from tui_insight.export import export_snapshot
    from tui_insight.ui.widgets.ridgeline import RidgeOptions, draw_ridgeline, ridge_readout, undrawable

    (tmp_path / "logs").mkdir()
    write_hostile_histograms(tmp_path / "logs")
    cache = SummaryCache(str(tmp_path / "logs"))
    cache.reload()
    view = cache.job("./")
    assert view.state == "ok" and sorted(view.tag_names("histogram")) == sorted(HOSTILE_HISTOGRAMS)
    problems = {}
    for tag in HOSTILE_HISTOGRAMS:
        ridge = rebin(histogram_steps(cache, view, tag))
        assert undrawable(ridge) == "", tag
        for mode in ("offset", "overlay"):
            for width, height in ((20, 6), (80, 24), (200, 60)):
                strips = draw_ridgeline(ridge, RidgeOptions(mode=mode, cursor_step=1, cursor_bin=0), width, height)
                assert len(strips) == height and all(strip.cell_length == width for strip in strips)
        problems[tag] = ridge.problems[0]
        assert ridge.problems[0] in ridge_readout(ridge, 0, 0, 0.0).plain
    assert problems["fine"] == problems["unsorted"] == problems["nan_min_max"] == problems["min_over_max"] == \
        "negative NaN/Inf counts read as 0"  # every step is written with neg_inf_count -4
    assert problems["nan_edge"].startswith("1 bucket dropped: non-finite edge")
    assert problems["negative_width"].startswith("1 bucket dropped: negative width")
    assert problems["negative_count"].startswith("1 bucket dropped: negative count")
    assert problems["huge_count"].startswith("2 buckets dropped: count past 2**53")
    result = export_snapshot(cache, tmp_path / "out")
    kept = sum(len(buckets) - (tag in ("nan_edge", "inf_width", "negative_width", "negative_count"))
               - 2 * (tag == "huge_count") for tag, (buckets, _, _) in HOSTILE_HISTOGRAMS.items())
    assert result.rows["histograms"] == 2 * kept  # two steps of each


def _same_histogram(a: HistogramData, b: HistogramData) -> bool:
    return (a.buckets.shape == b.buckets.shape and np.array_equal(a.buckets.view(np.int64), b.buckets.view(np.int64))
            and (a.nan_count, a.pos_inf_count, a.neg_inf_count, a.problem) == (b.nan_count, b.pos_inf_count,
                                                                                b.neg_inf_count, b.problem)
            and repr((a.min, a.max)) == repr((b.min, b.max)))


def test_histograms_read_together_are_each_read_alone():
    # `histograms_from_protos` reads the buckets from the messages' bytes: fields left out
    # (proto3's zeros), -0.0, counts of 1 to 10 varint bytes, and every histogram that must go
    # the one-message way (dropped or unsorted buckets, negative NaN counts, an unknown field).
    from tui_insight.proto import summary_pb2
    from tui_insight.summary.formats.values import histogram_from_proto, histograms_from_protos

    rng = np.random.default_rng(15)
    protos = []
    for k in range(60):
        proto = summary_pb2.Summary.Histogram(min=float(k) - 0.5, max=float(k) * 2, nan_count=k % 3,
                                              pos_inf_count=k % 2, neg_inf_count=1 if k == 7 else 0)
        edges = np.sort(rng.standard_normal(k % 17))
        for left in edges:
            proto.buckets.add(left=float(left), width=float(rng.uniform(0, 2)), count=int(rng.integers(0, 5000)))
        protos.append(proto)
    odd = [[(0.0, 0.0, 0), (-0.0, 1.0, 2 ** 40), (1.0, 0.0, 2 ** 53)],  # left out; long varints
           [(1.0, 1.0, 2 ** 60)], [(1.0, 1.0, -1)], [(math.nan, 1.0, 1)], [(0.0, math.inf, 1)],  # dropped
           [(2.0, 1.0, 1), (1.0, 1.0, 1)], []]  # unsorted; no buckets
    for buckets in odd:
        proto = summary_pb2.Summary.Histogram(min=0.0, max=3.0)
        for left, width, count in buckets:
            proto.buckets.add(left=left, width=width, count=count)
        protos.append(proto)
    protos.append(summary_pb2.Summary.Histogram(nan_count=-1))
    protos[-1].buckets.add(left=0.5, width=0.5, count=1)
    unknown = summary_pb2.Summary.Histogram()  # a bucket holding a field the reader does not know
    unknown.ParseFromString(bytes([0x0A, 13, 0x09, *np.float64(1.5).tobytes(), 0x18, 3, 0x70, 1]))
    swapped = summary_pb2.Summary.Histogram()  # a bucket's fields in another order (protobuf reads any)
    swapped.ParseFromString(bytes([0x0A, 11, 0x18, 3, 0x09, *np.float64(1.5).tobytes()]))
    protos[3:3] = [unknown, swapped]
    together = histograms_from_protos(protos)
    assert len(together) == len(protos)
    for proto, read in zip(protos, together):
        assert _same_histogram(read, histogram_from_proto(proto))
    assert together[3].buckets.tolist() == together[4].buckets.tolist() == [[1.5, 0.0, 3.0]]
