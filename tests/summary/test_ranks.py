"""Ranks grouped, stragglers and diverging ranks (summary/queries/ranks.py): the rules on job ids
and numbers, then on ranks written by our writer and read by the cache."""
from __future__ import annotations

import time

import numpy as np
import pytest
from health_logs import write_scalars
from rank_logs import copy_profile, rank_loss, write_finished_group, write_profiled_group

from tui_insight.summary.queries import ranks
from tui_insight.summary.store.cache import SummaryCache


def test_rank_and_device_components_group_under_one_parent_path_whatever_the_source():
    groups = ranks.group_ranks(["./a/rank_1", "node1:./a/rank_0", "./a/rank-2", "./b/device_0/summary",
                                "./b/device_1/summary", "./c/rank_0", "./a/rank_x", "./d/rank_0/x"])
    assert [(g.name, g.members, g.ranks) for g in groups] == [
        ("./a/rank_*", ("node1:./a/rank_0", "./a/rank_1", "./a/rank-2"), (0, 1, 2)),
        ("./b/device_*/summary", ("./b/device_0/summary", "./b/device_1/summary"), (0, 1)),
    ]  # ./c/rank_0 and ./d/rank_0/x are alone: no group; rank_x is no rank
    assert groups[0].key == ("./a", "")
    assert ranks.split_source("node1:./a/rank_0") == ("node1", "./a/rank_0")
    assert ranks.split_source("./a:b/rank_0") == ("", "./a:b/rank_0")  # a colon inside a name is no source
    assert ranks.group_of(groups)["./a/rank-2"] is groups[0]


def test_a_rank_more_than_the_fraction_behind_the_median_step_is_a_straggler():
    steps = {"r0": 100, "r1": 100, "r5": 100, "r2": 91, "r3": 89, "r4": None}
    assert ranks.stragglers(steps) == {"r3", "r4"}  # 9% behind is not, 11% is; no step yet is
    assert ranks.stragglers(steps, fraction=0.05) == {"r2", "r3", "r4"}
    assert ranks.stragglers({"r0": 100}) == set()  # one rank is its own median


def test_a_rank_diverges_when_its_end_leaves_the_others_band_by_over_twice_its_width():
    ends = {"r0": 0.20, "r1": 0.21, "r2": 0.22, "r3": 0.27}
    assert ranks.diverging(ends) == {"r3"}  # 0.05 above a band 0.02 wide
    assert ranks.diverging({**ends, "r3": 0.25}) == set()  # 0.03: within twice the width
    assert ranks.diverging({**ends, "r3": 0.10}) == set()  # better than the others is no divergence
    assert ranks.diverging({**ends, "r3": 0.10}, lower=False) == {"r3"}  # for an accuracy it is
    same = {"r0": 0.5, "r1": 0.5, "r2": 0.5, "r3": 0.52}  # one all-reduced loss: a band of width 0
    assert ranks.diverging(same) == {"r3"} and ranks.diverging({**same, "r3": 0.505}) == set()
    assert ranks.diverging({"r0": 0.2, "r1": 9.0}) == set()  # two ranks: no band to leave


def test_the_group_badges_are_every_badge_of_its_ranks_in_order():
    order = ("NaN", "diverging", "stalled", "rank diverging", "straggler")
    assert ranks.group_badges([(), ("straggler",), ("NaN", "rank diverging")], order) == \
        ("NaN", "rank diverging", "straggler")
    assert ranks.group_badges([(), ()], order) == ()


@pytest.mark.parametrize("jump, short, expected", [
    (2, None, {"./exp/rank_2": ("rank diverging",)}),
    (None, 3, {"./exp/rank_3": ("straggler",)}),
    (None, None, {}),
])
def test_rank_health_of_ranks_written_and_read(tmp_path, jump, short, expected):
    write_finished_group(tmp_path, time.time() - 7200, jump=jump, short=short)
    cache = SummaryCache(str(tmp_path))
    cache.reload()
    views = [cache.job(tid) for tid in cache.discover_jobs()]
    (group,) = ranks.group_ranks(v.train_id for v in views)
    found = ranks.rank_health(views)
    assert {tid: r.badges for tid, r in found.items() if r.badges} == expected
    assert found["./exp/rank_0"].last_step == 100 and found["./exp/rank_0"].steps_per_second == pytest.approx(2.0)
    assert group.members == tuple(f"./exp/rank_{r}" for r in range(4))


def test_the_band_is_the_mean_min_and_max_at_each_step_any_rank_logged():
    steps, mean, low, high = ranks.band([
        (np.array([1, 2, 3]), np.array([1.0, 2.0, 3.0])),
        (np.array([1, 2]), np.array([3.0, np.nan])),  # stopped at step 2; a NaN is left out
        (np.array([1, 3]), np.array([5.0, 6.0])),
    ])
    assert steps.tolist() == [1, 2, 3]
    assert mean.tolist() == [3.0, 2.0, 4.5] and low.tolist() == [1.0, 2.0, 3.0] and high.tolist() == [5.0, 2.0, 6.0]
    assert [len(a) for a in ranks.band([])] == [0, 0, 0, 0]


def test_a_dashboards_jobs_are_one_group_only_when_they_are_all_its_ranks():
    assert ranks.one_group(["./a/rank_0", "./a/rank_1"]).name == "./a/rank_*"
    assert ranks.one_group(["./a/rank_0", "./a/rank_1", "./solo"]) is None
    assert ranks.one_group(["./a/rank_0", "./b/rank_1"]) is None
    assert ranks.one_group(["./a/rank_0"]) is None


def test_jobs_under_one_parent_whose_profilers_name_their_ranks_are_a_group():
    profiled = {"./exp/b": 1, "host2:./exp/a": 0, "./exp/c": 2, "./solo": 0, "./x/rank_0": 5}
    groups = ranks.group_ranks(["./exp/b", "host2:./exp/a", "./exp/c", "./exp/plain", "./solo", "./x/rank_0",
                                "./x/rank_1"], profiled)
    assert [(g.name, g.members, g.ranks, g.by, g.key) for g in groups] == [
        ("./exp/*", ("host2:./exp/a", "./exp/b", "./exp/c"), (0, 1, 2), "profiler", ("./exp", "")),
        ("./x/rank_*", ("./x/rank_0", "./x/rank_1"), (0, 1), "path", ("./x", "")),
    ]  # ./exp/plain has no profile: no rank; ./solo is alone under ./
    # Path and profiler disagree: the path wins, and the difference is told.
    assert ranks.disagreements(groups[1], profiled) == [("./x/rank_0", 0, 5)]
    assert ranks.disagreements(groups[0], profiled) == []
    assert ranks.one_group(("./exp/a", "./exp/b"), {"./exp/a": 0, "./exp/b": 1}).name == "./exp/*"
    assert ranks.one_group(("./exp/a", "./exp/b")) is None  # nothing names their ranks


def test_a_rank_id_twice_under_one_parent_is_no_group():
    """Two jobs of rank 0 under one parent are two trainings (or a rerun): none of them is grouped."""
    profiled = {"./exp/a": 0, "./exp/b": 1, "./exp/a_again": 0}
    assert ranks.group_ranks(list(profiled), profiled) == []
    assert ranks.group_ranks(["./a/x", "./b/y"], {"./a/x": 0, "./b/y": 1}) == []  # other parents


def test_the_cache_reads_the_rank_a_profile_names(tmp_path):
    """MindSpore's profiles (the rank in `FRAMEWORK/cpu_op_*_<N>`) and MindInsight's older layout
    (`profiler/profiler_info_<N>.json`); a job holding two ranks' profiles is no rank."""
    write_profiled_group(tmp_path, time.time() - 7200, {"a": 2, "b": 3})
    legacy = tmp_path / "exp" / "old" / "profiler"
    legacy.mkdir(parents=True)
    (legacy / "profiler_info_7.json").write_text("{}")
    (legacy / "cpu_op_type_info_7.csv").write_text("")
    both = write_scalars(tmp_path, "two", {"loss": rank_loss(0)}, time.time() - 7200)
    copy_profile(0, both)
    copy_profile(1, both)
    cache = SummaryCache(str(tmp_path))
    cache.reload()
    assert {tid: view.profile_rank for tid, view in cache.jobs.items()} == {
        "./exp/a": 2, "./exp/b": 3, "./exp/old": 7, "./two": None}
    groups = ranks.group_ranks(cache.jobs, ranks.profile_ranks(cache.jobs.values()))
    assert [(g.name, g.members, g.ranks) for g in groups] == [("./exp/*", ("./exp/a", "./exp/b", "./exp/old"), (2, 3, 7))]
