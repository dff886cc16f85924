"""A wall time is any float64 a file holds: one that is no date (nanoseconds, 1e300, NaN, inf) is
a counted problem of its job, never the origin of relative time, and its step is kept."""
from __future__ import annotations

import math

import numpy as np
import pytest

from tui_insight.summary.formats.writer import SummaryWriter
from tui_insight.summary.store.cache import SummaryCache

T0 = 1_700_000_000.0
ODD = {3: 1e300, 5: 1.7e18, 7: math.nan, 9: -1e300, 11: math.inf, 13: -math.inf}


def wall_of(step: int) -> float:
    return ODD.get(step, T0 + step)


def problem_lines(view) -> list[str]:
    return [p for p in view.problems if "wall times that are no date" in p]


@pytest.mark.parametrize("steps", [20, 400], ids=["one by one", "in bulk"])
def test_mindspore_wall_times_that_are_no_date_are_counted(tmp_path, steps):
    with SummaryWriter(tmp_path / "run", timestamp=1, wall_time=T0 + 1) as writer:
        for step in range(2, steps + 2):
            writer.add_scalar("loss", 1.0 / step)
            writer.record(step, wall_time=wall_of(step))
    cache = SummaryCache(str(tmp_path))
    cache.reload()
    view = cache.job("./run")
    assert view.first_wall_time == T0 + 1
    assert view.series("scalar", "loss").steps.tolist() == list(range(2, steps + 2))
    [line] = problem_lines(view)
    assert ": 6, the first at step 3 (1e+300)" in line and "out of range" in line


def test_tensorboard_wall_times_that_are_no_date_are_counted(tmp_path):
    from tensorboardX import SummaryWriter as TBWriter

    writer = TBWriter(str(tmp_path / "tb"))
    for step in range(1, 15):
        writer.add_scalar("loss", 1.0 / step, step, walltime=wall_of(step))
        writer.add_histogram("w", np.arange(10.0) * step, step, walltime=wall_of(step))
    writer.close()
    cache = SummaryCache(str(tmp_path))
    cache.reload()
    view = cache.job("./tb")
    assert view.first_wall_time == T0 + 1
    assert view.series("scalar", "loss").steps.tolist() == list(range(1, 15))
    [line] = problem_lines(view)
    assert ": 12, the first at step 3" in line  # the scalar's and the histogram's events
