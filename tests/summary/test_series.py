"""Bounded step series: MindInsight's replace/restart rules and even sampling past the limit."""
import numpy as np

from tui_insight.summary.store.series import Series


def batch(steps, values=None, fid=0):
    steps = np.asarray(steps, dtype=np.int64)
    values = steps.astype(float) if values is None else np.asarray(values, dtype=float)
    return {"step": steps, "wall_time": steps * 0.5, "fid": np.full(len(steps), fid, dtype=np.int32),
            "value": values}


RANKS = np.array([0, 1, 2])


def merged(*batches, limit=1000):
    series = Series.empty(limit, ("value",))
    for b in batches:
        series = series.merge(b, RANKS)
    return series


def test_keeps_steps_sorted_with_their_columns():
    s = merged(batch([3, 1, 2], [30, 10, 20]))
    assert s.steps.tolist() == [1, 2, 3]
    assert s.values.tolist() == [10, 20, 30]
    assert s.wall_times.tolist() == [0.5, 1.0, 1.5]


def test_a_step_written_again_replaces_it():
    s = merged(batch(range(1, 11)), batch([5], [500.0]))
    assert s.steps.tolist() == list(range(1, 11))
    assert s.values[4] == 500.0


def test_restart_in_newer_file_drops_later_steps_of_older_file():
    # compat §3.8: file A holds 1..10, newer file B holds 5..7 -> 1..4 from A and 5..7 from B.
    s = merged(batch(range(1, 11), fid=0), batch([5, 6, 7], [50, 60, 70], fid=1))
    assert s.steps.tolist() == [1, 2, 3, 4, 5, 6, 7]
    assert s.values.tolist() == [1, 2, 3, 4, 50, 60, 70]


def test_same_file_rewrite_keeps_later_steps():
    s = merged(batch(list(range(1, 11)) + [5], list(range(1, 11)) + [55]))
    assert s.steps.tolist() == list(range(1, 11))
    assert s.values[4] == 55


def test_restart_rule_holds_within_one_batch():
    both = {k: np.concatenate([batch(range(1, 11), fid=0)[k], batch([5, 6], fid=1)[k]]) for k in batch([1])}
    s = merged(both)
    assert s.steps.tolist() == [1, 2, 3, 4, 5, 6]


def test_limit_keeps_first_and_newest_and_spreads_evenly():
    s = merged(*[batch(range(i, i + 100)) for i in range(1, 20001, 100)], limit=1000)
    steps = s.steps
    assert len(steps) == 1000  # the whole limit is used
    assert steps[0] == 1 and steps[-1] == 20000
    ideal = (20000 - 1) / 999
    gaps = np.diff(steps)
    assert gaps.max() < 2 * ideal and gaps.min() > ideal / 2
    assert len(s.candidates["step"]) <= 2000  # memory stays bounded by twice the limit
    assert s.seen == 20000


def test_small_limits_are_used_fully():
    """Images keep 10 of 12 steps, histograms 50 of 100 (a doubling grid alone would keep 6 and 26)."""
    for steps, limit in ((12, 10), (100, 50), (30, 20)):
        s = merged(*[batch(range(i, min(i + 3, steps + 1))) for i in range(1, steps + 1, 3)], limit=limit)
        assert len(s) == limit and s.steps[0] == 1 and s.steps[-1] == steps


def test_sampling_does_not_depend_on_batch_boundaries():
    one = merged(batch(range(1, 5001)), limit=100)
    many = merged(*[batch(range(i, min(i + 7, 5001))) for i in range(1, 5001, 7)], limit=100)
    assert one.steps.tolist() == many.steps.tolist()
    assert one.width == many.width


def test_sparse_steps_are_sampled_too():
    s = merged(batch(range(0, 100000, 10)), limit=50)
    assert len(s) <= 50 and s.steps[0] == 0 and s.steps[-1] == 99990


def test_merge_returns_new_series_and_leaves_old_untouched():
    first = merged(batch([1, 2, 3]))
    second = first.merge(batch([4]), RANKS)
    assert len(first) == 3 and len(second) == 4


def test_tags_of_one_layout_are_sampled_once_and_as_each_alone():
    """`shared`: tags whose step, wall time and file columns are the same arrays (one event
    layout) get the same picks as merged one by one, and keep sharing those columns."""
    rng = np.random.default_rng(3)
    alone = {tag: Series.empty(50, ("value",)) for tag in "ab"}
    together = dict(alone)
    for n in range(12):  # appends, replays, a restart in a newer file, steps out of order
        steps = np.arange(n * 40, n * 40 + 60) if n % 3 else rng.integers(0, 500, 80)
        common = batch(steps, fid=n // 6)
        shared: dict = {}
        for tag in "ab":
            cols = {**common, "value": rng.normal(size=len(steps))}
            alone[tag] = alone[tag].merge(cols, RANKS)
            together[tag] = together[tag].merge(cols, RANKS, shared)
    for tag in "ab":
        for name in ("step", "wall_time", "fid", "value"):
            assert together[tag].columns[name].tobytes() == alone[tag].columns[name].tobytes()
            assert together[tag].candidates[name].tobytes() == alone[tag].candidates[name].tobytes()
        assert together[tag].width == alone[tag].width > 1
    assert together["a"].columns["step"] is together["b"].columns["step"]
    assert together["a"].candidates["fid"] is together["b"].candidates["fid"]
    assert together["a"].values.tobytes() != together["b"].values.tobytes()


def test_runs_of_the_same_steps_keep_the_same_steps_and_others_their_own():
    """A sweep's runs log the same steps: the kept ones are worked out once and given again
    for equal steps (read-only: a caller writing into them would change the next run's); steps
    as many but not equal, or under another limit, are picked for themselves."""
    first = merged(batch(range(2000)))
    again = merged(batch(range(2000), np.arange(2000.0) * 3))
    gap = merged(batch([*range(1000), *range(5000, 6000)]))  # (as many steps, a gap)
    other_limit = merged(batch(range(2000)), limit=1500)
    assert len(first) == 1000 and first.steps[[0, -1]].tolist() == [0, 1999]
    assert again.steps.tolist() == first.steps.tolist() and again.values.tolist() == (first.steps * 3.0).tolist()
    # (the targets in the gap pick its edges: a third of the steps kept, not half as in `first`)
    assert len(gap) < 400 and gap.steps[[0, -1]].tolist() == [0, 5999]
    assert len(other_limit) == 1500 and other_limit.steps[[0, -1]].tolist() == [0, 1999]
