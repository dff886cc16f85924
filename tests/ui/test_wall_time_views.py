"""Wall times are whatever float64 a file holds: each is shown as a time or as "out of range".

Nanoseconds since the epoch (`time.time_ns()` by mistake), 1e300, NaN and infinities reach every
place that turns a wall time into a date: the read-outs, the scalar chart's wall axis, the
ridgeline's step labels. None of them may end the app.
"""
from __future__ import annotations

import logging
import math

import numpy as np
import pytest
from uihelp import T0, make_app, run_pilot, wait_for, wait_for_view

from tui_insight.summary.formats.writer import SummaryWriter
from tui_insight.ui.common.format import clock_time, duration, short_time
from tui_insight.ui.widgets.chart import wall_label
from tui_insight.wall_time import OUT_OF_RANGE, wall_text

NANOSECONDS = 1.7e18  # a wall time written with time.time_ns()
NO_DATES = [1e300, -1e300, NANOSECONDS, math.nan, math.inf, -math.inf, 1.7e15]


@pytest.mark.parametrize("wall", NO_DATES, ids=repr)
def test_a_wall_time_that_is_no_date_is_out_of_range(wall):
    assert clock_time(wall) == OUT_OF_RANGE
    assert short_time(wall) == OUT_OF_RANGE
    assert wall_text(wall, "%m-%d") == OUT_OF_RANGE
    assert wall_label(wall, 10.0) in ("", OUT_OF_RANGE)  # a tick: no label where no number is
    assert wall_label(wall, 1e6) in ("", OUT_OF_RANGE)


def test_dates_and_no_time(utc):
    assert clock_time(T0) == "2023-11-14 22:13:20"
    assert short_time(T0) == "22:13:20"
    assert clock_time(0.0) == "-"
    assert wall_text(-1e10) == "1653-02-10 06:13:20"  # before 1970 is a date too
    assert duration(1e300 - T0) == OUT_OF_RANGE
    assert duration(math.nan) == duration(-math.inf) == OUT_OF_RANGE  # the read-out said "+-"
    assert duration(None) == "-"
    assert duration(125.0) == "2m05s"


ODD_WALLS = [T0, 1e300, NANOSECONDS, math.nan, -1e300, math.inf, T0 + 10]


@pytest.fixture
def odd_wall_logs(tmp_path):
    job = tmp_path / "logs" / "odd"
    job.mkdir(parents=True)
    rng = np.random.default_rng(0)
    with SummaryWriter(job, timestamp=int(T0), wall_time=T0) as writer:
        for step, wall in enumerate(ODD_WALLS, start=1):
            writer.add_scalar("loss", 1.0 / step)
            writer.add_histogram("weights", rng.standard_normal(50))
            writer.add_tensor("kernel", rng.standard_normal((3, 4)).astype(np.float32))
            writer.record(step, wall_time=wall)
    return tmp_path / "logs"


class CaughtErrors(logging.Handler):
    def __init__(self) -> None:
        super().__init__(logging.ERROR)
        self.messages: list[str] = []

    def emit(self, record: logging.LogRecord) -> None:
        self.messages.append(record.getMessage())


@pytest.mark.parametrize("view_id, view, keys", [
    ("scalars", "ScalarsView", ["x", "x", "right", "end", "home", "right", "right", "right"]),
    ("histograms", "HistogramsView", ["x", "x", "up", "up", "up", "down", "x"]),
], ids=["scalars", "histograms"])
def test_views_show_wall_times_that_are_no_date(odd_wall_logs, utc, view_id, view, keys):
    app = make_app(odd_wall_logs)
    errors = CaughtErrors()
    logging.getLogger("tui_insight").addHandler(errors)

    async def body(pilot):
        app.open_jobs(("./odd",), view_id)
        await wait_for_view(pilot, app, view)
        for key in keys:
            await pilot.press(key)
            await pilot.pause()
        await wait_for(pilot, lambda: not any(worker.is_running for worker in app.workers))
        return app.return_code, type(app.screen).__name__

    try:
        assert run_pilot(app, body, size=(160, 48)) == (None, "DashboardScreen")
    finally:
        logging.getLogger("tui_insight").removeHandler(errors)
    assert not errors.messages
