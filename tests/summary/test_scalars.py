"""Scalar queries: differential against MindInsight's answers, and unit tests of smoothing,
x axes, decimation, thresholds and the value cursor."""
from __future__ import annotations

import numpy as np
import pytest

from tui_insight.summary.formats.writer import SummaryWriter
from tui_insight.summary.queries.scalars import (
    ScalarSeries,
    decimate,
    scalar_series,
    smooth,
    threshold_mask,
    value_at,
    x_values,
)
from tui_insight.summary.store.cache import SummaryCache

SUFFIX = "/scalar"


def _truth_scalar_cases(truth):
    for tid, job in truth["jobs"].items():
        for full_tag in job["scalars"]:
            yield tid, full_tag


# -- differential: what MindInsight kept ----------------------------------------------------

def test_every_truth_scalar_is_compared(truth):
    """Guards the differential test below against comparing nothing."""
    cases = list(_truth_scalar_cases(truth))
    assert len(cases) >= 20
    assert all(tag.endswith(SUFFIX) for _, tag in cases)


def test_scalar_series_matches_mindinsight(truth, fixture_cache):
    compared = 0
    for tid, full_tag in _truth_scalar_cases(truth):
        if tid == "./limits":
            continue  # over the step limit: MindInsight sampled at random, see the test below
        rows = truth["jobs"][tid]["scalars"][full_tag]
        view = fixture_cache.job(tid)
        assert view is not None, tid
        series = scalar_series(view, full_tag[: -len(SUFFIX)])
        assert series is not None, (tid, full_tag)
        steps = np.array([r[0] for r in rows], dtype=np.int64)
        wall = np.array([r[2] for r in rows], dtype=np.float64)
        expected = np.array([np.nan if r[1] is None else r[1] for r in rows], dtype=np.float64)
        assert series.steps.dtype == np.int64 and series.values.dtype == np.float64
        np.testing.assert_array_equal(series.steps, steps, err_msg=f"{tid} {full_tag}")
        np.testing.assert_allclose(series.wall_times, wall, rtol=0, atol=1e-6, err_msg=f"{tid} {full_tag}")
        null = np.array([r[1] is None for r in rows])
        # MindInsight serves NaN and +-Inf as null: ours must be non-finite exactly there.
        np.testing.assert_array_equal(~np.isfinite(series.values), null, err_msg=f"{tid} {full_tag}")
        np.testing.assert_array_equal(series.values[~null].astype(np.float32), expected[~null].astype(np.float32),
                                      err_msg=f"{tid} {full_tag}")
        compared += 1
    assert compared >= 15


def test_nan_inf_scalars_keep_their_kind(truth, fixture_cache):
    """The edge-case job writes NaN, +Inf and -Inf; MindInsight shows null for all three, we keep them apart."""
    rows = truth["jobs"]["./edge_cases"]["scalars"]["edge/nan_inf/scalar"]
    series = scalar_series(fixture_cache.job("./edge_cases"), "edge/nan_inf")
    nulls = [i for i, r in enumerate(rows) if r[1] is None]
    assert len(nulls) == 3
    kinds = {("nan" if np.isnan(v) else "+inf" if v > 0 else "-inf") for v in series.values[nulls]}
    assert kinds == {"nan", "+inf", "-inf"}


def test_over_limit_scalars_keep_a_spread_subset(truth, fixture_cache):
    view = fixture_cache.job("./limits")
    raw_tags = truth["jobs"]["./limits"]["raw"]["tags"]
    over_limit = 0
    for full_tag, raw in raw_tags.items():
        if raw["plugin"] != "scalar":
            continue
        series = scalar_series(view, full_tag[: -len(SUFFIX)])
        assert series is not None, full_tag
        raw_steps = np.array(raw["steps_in_file_order"], dtype=np.int64)
        if raw["distinct_steps"] <= 1000:
            assert len(series) == raw["distinct_steps"]
        else:
            assert 500 <= len(series) <= 1000
        assert int(series.steps[0]) == raw["first_step"]
        assert int(series.steps[-1]) == raw["last_step"]
        assert np.isin(series.steps, raw_steps).all()
        assert (np.diff(series.steps) > 0).all()
        if raw["distinct_steps"] > 1000:
            over_limit += 1
            # MindInsight also kept at most 1000 of them, with the newest one among them.
            kept_by_mi = truth["jobs"]["./limits"]["scalars"][full_tag]
            assert len(kept_by_mi) == 1000 and kept_by_mi[-1][0] == raw["last_step"]
    assert over_limit >= 1


def test_unknown_tag_gives_none(fixture_cache):
    assert scalar_series(fixture_cache.job("./"), "no/such/tag") is None


# -- smoothing ------------------------------------------------------------------------------

def test_smooth_hand_computed():
    w = 0.5
    got = smooth(np.array([1.0, 2.0, 3.0]), w)
    # ema_1 = 0.5, ema_2 = 1.25, ema_3 = 2.125; divided by 1 - 0.5**k
    np.testing.assert_allclose(got, [0.5 / 0.5, 1.25 / 0.75, 2.125 / 0.875], rtol=1e-15)


def test_smooth_skips_non_finite_points():
    values = np.array([1.0, np.nan, 2.0, np.inf, -np.inf, 3.0])
    got = smooth(values, 0.5)
    assert np.isnan(got[1]) and got[3] == np.inf and got[4] == -np.inf
    # k counts finite points only, so 2.0 is the 2nd and 3.0 the 3rd point of the average
    np.testing.assert_allclose(got[[0, 2, 5]], [1.0, 1.25 / 0.75, 2.125 / 0.875], rtol=1e-15)
    assert np.isnan(values[1]) and values[2] == 2.0  # input untouched


def test_smooth_constant_series_is_not_smoothed():
    values = np.full(50, 0.1)
    got = smooth(values, 0.9)
    np.testing.assert_array_equal(got, values)  # exactly, not 0.1 +- rounding


def test_smooth_weight_zero_is_a_copy():
    values = np.array([3.0, 1.0, 2.0])
    got = smooth(values, 0.0)
    np.testing.assert_array_equal(got, values)
    got[0] = 99.0
    assert values[0] == 3.0


def test_smooth_weight_is_clamped_and_short_series_untouched():
    values = np.array([0.0, 10.0])
    np.testing.assert_allclose(smooth(values, 5.0), smooth(values, 0.99))
    np.testing.assert_array_equal(smooth(values, -1.0), values)
    np.testing.assert_array_equal(smooth(np.array([7.0]), 0.6), [7.0])
    assert smooth(np.array([]), 0.6).shape == (0,)


def test_smooth_high_weight_follows_slowly():
    values = np.r_[np.zeros(20), np.ones(20)]
    got = smooth(values, 0.9)
    assert got[19] == 0.0 and 0.0 < got[20] < 0.2 and got[-1] < 1.0 and got[-1] > got[20]


# -- x axes ---------------------------------------------------------------------------------

def _series(steps, walls, values=None):
    steps = np.asarray(steps, dtype=np.int64)
    values = np.arange(len(steps), dtype=np.float64) if values is None else np.asarray(values, dtype=np.float64)
    return ScalarSeries("./run", "loss", steps, np.asarray(walls, dtype=np.float64), values)


def test_x_axes():
    s = _series([3, 7, 12], [1005.0, 1010.5, 1020.0])
    step = x_values(s, "step", None)
    assert step.dtype == np.float64
    np.testing.assert_array_equal(step, [3.0, 7.0, 12.0])
    np.testing.assert_array_equal(x_values(s, "relative", 1000.0), [5.0, 10.5, 20.0])
    np.testing.assert_array_equal(x_values(s, "relative", None), [0.0, 5.5, 15.0])
    np.testing.assert_array_equal(x_values(s, "wall", 1000.0), [1005.0, 1010.5, 1020.0])
    with pytest.raises(ValueError, match="unknown x axis"):
        x_values(s, "time", None)  # type: ignore[arg-type]


def test_relative_axis_of_wall_times_at_the_float_range_warns_nothing():
    """1e308 - (-1e308) overflows to inf: drawn as undrawable, never a RuntimeWarning (an error here)."""
    s = ScalarSeries("./j", "loss", np.array([1, 2]), np.array([1e308, -1e308]), np.array([0.5, 0.4]))
    np.testing.assert_array_equal(x_values(s, "relative", None), [0.0, -np.inf])
    np.testing.assert_array_equal(x_values(s, "relative", -1e308), [np.inf, 0.0])


def test_relative_axis_from_the_jobs_first_event(tmp_path):
    run = tmp_path / "run"
    with SummaryWriter(run, timestamp=100, wall_time=1000.0) as writer:
        for step, wall in ((1, 1010.0), (2, 1025.0)):
            writer.add_scalar("loss", step * 0.5)
            writer.record(step, wall_time=wall)
    cache = SummaryCache(str(tmp_path))
    cache.reload()
    view = cache.job("./run")
    series = scalar_series(view, "loss")
    np.testing.assert_array_equal(series.steps, [1, 2])
    np.testing.assert_array_equal(series.values, [0.5, 1.0])
    assert view.first_wall_time is not None and view.first_wall_time <= 1010.0
    rel = x_values(series, "relative", view.first_wall_time)
    np.testing.assert_allclose(rel, [1010.0 - view.first_wall_time, 1025.0 - view.first_wall_time])


# -- decimation -----------------------------------------------------------------------------

def test_decimate_keeps_spikes_and_bounds_length():
    n = 100_000
    x = np.arange(n, dtype=np.float64)
    y = np.sin(x / 5000.0)
    y[54_321] = 40.0
    y[77_777] = -40.0
    dx, dy = decimate(x, y, 80)
    assert len(dx) <= 160
    assert 40.0 in dy and -40.0 in dy
    assert dx[np.argmax(dy)] == 54_321.0 and dx[np.argmin(dy)] == 77_777.0
    assert (np.diff(dx) > 0).all()  # x order
    # each kept point is a real point of the input
    np.testing.assert_array_equal(y[dx.astype(np.int64)], dy)


def test_decimate_per_column_min_and_max():
    x = np.arange(12, dtype=np.float64)
    y = np.array([5, 1, 9, 3, 2, 8, 7, 0, 4, 6, 5, 1], dtype=np.float64)
    dx, dy = decimate(x, y, 3)  # slots [0,4), [4,8), [8,11]: 12 points > 6
    np.testing.assert_array_equal(dx, [1, 2, 5, 7, 9, 11])
    np.testing.assert_array_equal(dy, [1, 9, 8, 0, 6, 1])


def test_decimate_small_and_empty_inputs():
    dx, dy = decimate(np.array([]), np.array([]), 50)
    assert dx.shape == (0,) and dy.shape == (0,)
    dx, dy = decimate(np.array([4.0]), np.array([2.0]), 50)
    np.testing.assert_array_equal(dx, [4.0])
    np.testing.assert_array_equal(dy, [2.0])
    dx, dy = decimate(np.array([1.0, 2.0, 3.0]), np.array([1.0, np.nan, np.inf]), 0)
    np.testing.assert_array_equal(dx, [1.0])
    dx, dy = decimate(np.full(10, 5.0), np.arange(10.0), 2)  # one x for all: a vertical line
    np.testing.assert_array_equal(dy, [0.0, 9.0])


def test_decimate_drops_non_finite_and_sorts_by_x():
    x = np.array([3.0, 1.0, 2.0, 4.0])
    y = np.array([30.0, 10.0, np.nan, -np.inf])
    dx, dy = decimate(x, y, 10)
    np.testing.assert_array_equal(dx, [1.0, 3.0])
    np.testing.assert_array_equal(dy, [10.0, 30.0])


def test_decimate_a_million_points():
    """Speed is measured by bench/bench_queries.py; this checks the bound on what is drawn."""
    x = np.arange(1_000_000, dtype=np.float64)
    y = np.random.default_rng(0).normal(size=x.size)
    dx, dy = decimate(x, y, 200)
    assert len(dx) <= 400
    assert dy.max() == y.max() and dy.min() == y.min()


# -- thresholds and cursor ------------------------------------------------------------------

def test_threshold_mask():
    values = np.array([0.5, 2.0, -3.0, np.nan, np.inf])
    np.testing.assert_array_equal(threshold_mask(values, 1.0, None), [False, True, False, False, True])
    np.testing.assert_array_equal(threshold_mask(values, None, 0.0), [False, False, True, False, False])
    np.testing.assert_array_equal(threshold_mask(values, 1.0, 0.0), [False, True, True, False, True])
    assert not threshold_mask(values, None, None).any()


def test_value_at_nearest_point():
    s = _series([0, 10, 20, 40], [100.0, 101.0, 105.0, 106.0])
    assert value_at(s, 14.0, "step", None) == 1
    assert value_at(s, 16.0, "step", None) == 2
    assert value_at(s, 1e9, "step", None) == 3
    assert value_at(s, -5.0, "step", None) == 0
    assert value_at(s, 4.6, "relative", 100.0) == 2
    assert value_at(s, 105.9, "wall", None) == 3
    assert value_at(_series([], []), 3.0, "step", None) == -1
