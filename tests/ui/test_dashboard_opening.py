"""Opening a job: the first view is composed with the dashboard, holding the job first, and the
keyboard lands on a chart (once there is one); the key footer rewrites its keys in place."""
from __future__ import annotations

from uihelp import MINDSPORE_LOGS, NOW, run_pilot, wait_for, wait_for_view, write_run

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


def test_the_keyboard_given_to_the_tag_list_for_want_of_a_chart_moves_to_the_first_chart(tmp_path):
    """A view built before its job's scalars were there gives the keyboard to the tag list; when
    the charts come (the series back in memory, or a run's first scalars) a chart takes it; not
    when the keyboard is elsewhere (the filter box)."""
    for name in ("run_a", "run_b"):
        write_run(tmp_path, name, tags=())  # steps, no scalar yet
    cache = SummaryCache(str(tmp_path), clock=lambda: NOW)
    cache.reload()
    app = InsightApp(cache, start_loading=False, reload_interval=0, clock=lambda: NOW, logdir_label="LOGDIR",
                     graph_prefetch_delay=None)

    async def focused_after_scalars_come(pilot, name: str, move_first: bool) -> str:
        app.open_jobs((f"./{name}",), "scalars")
        await wait_for_view(pilot, app)
        view = app.screen.query_one(ScalarsView)
        await pilot.pause()
        before = type(app.focused).__name__
        if move_first:
            await pilot.press("slash")  # the user types a filter: the keyboard stays there
        write_run(tmp_path, name, tags=("loss",))
        cache.reload()
        assert await wait_for(pilot, lambda: len(view.charts) == 1)
        await pilot.pause()
        return f"{before}->{type(app.focused).__name__}"

    async def body(pilot):
        followed = await focused_after_scalars_come(pilot, "run_a", move_first=False)
        await pilot.press("escape")
        return followed, await focused_after_scalars_come(pilot, "run_b", move_first=True)

    assert run_pilot(app, body) == ("TagList->ScalarChart", "TagList->FilterBox")


def test_the_other_views_are_built_hidden_once_the_keys_pause_and_their_key_shows_them():
    """After the prefetch delay, with no key pressed, each view with data is built hidden, one at
    a time; its key then shows the view built ahead (not a new one)."""
    from uihelp import make_app

    from tui_insight.ui.views.histograms import HistogramsView

    app = make_app(MINDSPORE_LOGS, graph_prefetch_delay=0.05)

    async def body(pilot):
        app.open_jobs(("./lenet_lr0.01",))
        await wait_for_view(pilot, app)
        ahead = await wait_for(pilot, lambda: bool(app.screen.query(HistogramsView)))
        built = app.screen.query_one(HistogramsView)
        shown_before = built.display
        await pilot.press("2")
        await wait_for_view(pilot, app, "HistogramsView")
        return ahead, shown_before, app.screen.query_one(HistogramsView) is built, built.display

    assert run_pilot(app, body) == (True, False, True, True)
