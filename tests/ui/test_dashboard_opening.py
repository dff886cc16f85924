"""Opening a job: the first view is composed with the dashboard, holding the job first, and the
keyboard lands on a chart; the key footer rewrites its keys in place."""
from __future__ import annotations

from uihelp import NOW, run_pilot, wait_for, wait_for_view, write_run

from tui_insight.summary.store.cache import SummaryCache
from tui_insight.ui.app import InsightApp
from tui_insight.ui.views.scalars import ScalarsView
from tui_insight.ui.widgets.chart import ScalarChart


def test_an_evicted_job_opens_with_the_keyboard_on_a_chart(tmp_path):
    """The view is built as the dashboard composes: the job is held before it reads the series,
    so its charts are there when it picks what takes the keys (not the tag list)."""
    for name in ("run_a", "run_b"):
        write_run(tmp_path, name)
    cache = SummaryCache(str(tmp_path), clock=lambda: NOW, memory_budget=1)  # no job keeps its series unheld
    cache.reload()
    app = InsightApp(cache, start_loading=False, reload_interval=0, clock=lambda: NOW, logdir_label="LOGDIR",
                     graph_prefetch_delay=None)

    async def body(pilot):
        app.open_jobs(("./run_b",))
        await wait_for_view(pilot, app)
        view = app.screen.query_one(ScalarsView)
        assert await wait_for(pilot, lambda: len(view.charts) == 3)
        await pilot.pause()
        return type(app.focused).__name__

    assert run_pilot(app, body) == ScalarChart.__name__
