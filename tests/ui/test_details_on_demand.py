"""A job whose series were dropped under the memory budget opens with its charts: the dashboard
holds it while it is shown (its series come back) and lets it go when it closes."""
from __future__ import annotations

import numpy as np
from uihelp import NOW, STEPS, run_pilot, run_values, wait_for, wait_for_view, write_run

from tui_insight.summary.store.cache import SummaryCache
from tui_insight.ui.app import InsightApp
from tui_insight.ui.views.scalars import ScalarsView


def test_an_evicted_job_opens_with_its_charts_and_is_let_go_when_closed(tmp_path):
    for name in ("run_a", "run_b", "run_c"):
        write_run(tmp_path, name)
    cache = SummaryCache(str(tmp_path), clock=lambda: NOW, memory_budget=1)  # no job keeps its series unheld
    cache.reload()
    assert not any(view.detailed for view in cache.jobs.values())
    app = InsightApp(cache, start_loading=False, reload_interval=0, clock=lambda: NOW, logdir_label="LOGDIR",
                     graph_prefetch_delay=None)

    async def body(pilot):
        app.open_jobs(("./run_b",))
        await wait_for_view(pilot, app)
        view = app.screen.query_one(ScalarsView)
        assert await wait_for(pilot, lambda: len(view.charts) == 3 and all(c.traces for c in view.charts.values()))
        loss = next(c for c in view.charts.values() if "loss" in str(c.border_title))
        expected = run_values("run_b", np.arange(1, STEPS + 1))["loss"].astype(np.float32)
        assert np.array_equal(loss.traces[-1].y, expected)
        assert cache.job("./run_b").detailed and not cache.job("./run_a").detailed
        await pilot.press("escape")
        return await wait_for(pilot, lambda: not cache.job("./run_b").detailed)  # let go: over the budget

    assert run_pilot(app, body)
