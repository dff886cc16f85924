"""Pilot tests of the job list's health columns (issue 11): the headline metric's columns, `m` to
choose it (remembered across restarts), badges, their notifications, and snapshots."""
from __future__ import annotations

import math
import os
from pathlib import Path

import numpy as np
import pytest
from health_logs import cut_short, falling, write_scalars
from uihelp import MTIME, NOW, STEPS, T0, make_app, notices, run_beside, run_pilot, run_values, wait_for

from tui_insight.summary.formats.writer import SummaryWriter
from tui_insight.ui.screens.dashboard import DashboardScreen
from tui_insight.ui.widgets.job_table import JobTable
from tui_insight.summary.queries.sparkline import sparkline
from tui_insight.workspace import Workspace


def table(app) -> JobTable:
    return app.screen.query_one(JobTable)


def scalars(loss: np.ndarray) -> dict[str, np.ndarray]:
    return {"loss": loss, "acc": 1 - falling(STEPS) / 2}


@pytest.fixture
def health_logs(ui_logs: Path) -> Path:
    """The three runs of ui_logs (not live, healthy), and one of each badge: a NaN in the loss, a
    loss that turned up, a live run that stopped stepping, a live run that steps, one cut short.
    A logged step every 2 s."""
    nan = falling(STEPS)
    nan[17] = math.nan
    write_scalars(ui_logs, "run_nan", scalars(nan), MTIME - 100, interval=2.0)
    up = falling(STEPS)
    up[-4:] = 2.0  # the last tenth rose to over twice the best
    write_scalars(ui_logs, "run_up", scalars(up), MTIME - 50, interval=2.0)
    write_scalars(ui_logs, "run_stuck", scalars(falling(STEPS)), NOW - 25, interval=2.0)  # 12 steps missed
    write_scalars(ui_logs, "run_live", scalars(falling(STEPS)), NOW - 1, interval=2.0)
    cut_short(write_scalars(ui_logs, "run_cut", {"loss": falling(30)}, MTIME, interval=2.0), NOW - 3000)
    return ui_logs


# -- the columns --------------------------------------------------------------------------------------------

def test_the_health_columns_show_the_headline_and_the_badges(health_logs):
    app = make_app(health_logs)
    columns = ("health", "live", "value", "best", "change", "speed", "since", "state")

    async def body(pilot):
        t = table(app)
        return {tid: {c: t.cell(tid, c) for c in columns} for tid in t.order}, t.header("value")

    rows, header = run_pilot(app, body)
    assert header == "loss"
    a = rows["./run_a"]
    assert a["health"] == "" and a["live"] == "" and a["since"] == ""
    assert a["speed"] == "0.5"  # a step every 2 s
    loss = run_values("run_a", np.arange(1, STEPS + 1))["loss"]
    assert a["best"] == f"{np.float32(loss.min()):.4g}@{int(np.argmin(loss)) + 1}" and a["change"][0] in "+-"
    assert rows["./run_nan"]["health"] == "NaN"
    assert rows["./run_up"]["health"] == "diverging" and rows["./run_up"]["value"] == "2"
    assert rows["./run_stuck"]["health"] == "stalled" and rows["./run_stuck"]["since"] == "25s"
    assert rows["./run_live"]["health"] == "" and rows["./run_live"]["since"] == "1s"
    assert rows["./run_live"]["live"] == "● live" and rows["./run_stuck"]["live"] == "● live"
    assert rows["./run_cut"]["state"] == "!" and rows["./run_cut"]["health"] == ""  # truncated: a problem


def test_a_rows_health_is_the_one_the_badge_watch_computed(health_logs):
    """A job's health is computed once per view: the row and the badges share it."""
    app = make_app(health_logs)

    async def body(pilot):
        t, views = table(app), app.cache.jobs
        book = app.screen.badges.book
        return all(t.rows_by_id[tid].health is book.of(views[tid], None) for tid in t.order), len(t.order)

    shared, rows = run_pilot(app, body)
    assert shared and rows == 8


def test_sorting_by_health_puts_the_jobs_with_badges_together(health_logs):
    app = make_app(health_logs)

    async def body(pilot):
        app.screen.state = app.screen.state.sort_by("health", reverse=True)
        await pilot.pause()
        return list(table(app).order)

    order = run_pilot(app, body)
    assert set(order[:4]) == {"./run_nan", "./run_up", "./run_stuck", "./run_cut"}  # truncated is a badge too
    assert order[4:] == ["./run_a", "./run_b", "./run_c", "./run_live"]  # ties stay in name order


def test_the_trend_and_columns_follow_the_metric_chosen_with_m_and_it_is_remembered(ui_logs, tmp_path):
    home = tmp_path / "state"
    workspace, _ = Workspace.open(str(ui_logs), home=home)
    app = make_app(ui_logs, workspace=workspace)
    acc = run_values_acc("run_a")

    async def choose(pilot):
        t = table(app)
        before = t.cell("./run_a", "trend"), t.header("value")
        await pilot.press("m")
        assert await wait_for(pilot, lambda: type(app.screen).__name__ == "HeadlinePicker")
        labels = [str(o.prompt) for o in app.screen.query_one("OptionList")._options]
        await pilot.press("down", "enter")  # the first tag after "each job's loss": acc
        assert await wait_for(pilot, lambda: table(app).header("value") == "acc")
        return before, labels, t.cell("./run_a", "trend"), t.cell("./run_a", "best"), app.screen.state.headline

    before, labels, trend, best, chosen = run_pilot(app, choose)
    assert before[1] == "loss" and labels == ["each job's loss (the default)", "acc", "loss", "lr"]
    assert chosen == "acc" and trend == sparkline(acc, 10) != before[0]
    assert best == f"{np.float32(acc.max()):.4g}@{int(np.argmax(acc)) + 1}"  # accuracy: higher is better

    again, problem = Workspace.open(str(ui_logs), home=home)  # a restart: read back from the file
    restarted = make_app(ui_logs, workspace=again)

    async def reopen(pilot):
        return restarted.screen.state.headline, table(restarted).header("value"), table(restarted).cell("./run_a", "trend")

    assert problem == "" and run_pilot(restarted, reopen) == ("acc", "acc", trend)


def run_values_acc(name: str) -> np.ndarray:
    return run_values(name, np.arange(1, STEPS + 1))["acc"]


def test_m_back_to_the_default_and_escape_keeps_the_choice(ui_logs):
    app = make_app(ui_logs)
    app.workspace.remember("app", "jobs", {"headline": "lr"})

    async def body(pilot):
        t = table(app)
        first = t.header("value"), t.cell("./run_c", "value")  # run_c has no lr
        await pilot.press("m")
        assert await wait_for(pilot, lambda: type(app.screen).__name__ == "HeadlinePicker")
        await pilot.press("escape")
        await pilot.pause()
        kept = app.screen.state.headline
        await pilot.press("m")
        assert await wait_for(pilot, lambda: type(app.screen).__name__ == "HeadlinePicker")
        await pilot.press("home", "enter")
        await pilot.pause()
        return first, kept, app.screen.state.headline, t.header("value")

    first, kept, after, header = run_pilot(app, body)
    assert first == ("lr", "-") and kept == "lr"
    assert after is None and header == "loss"


def test_80_columns_show_the_job_its_state_badges_and_headline(health_logs):
    app = make_app(health_logs)

    async def body(pilot):
        t = table(app)
        last = t.columns[-1]
        return t.column_x(last) + t.width_of(last) + 2, t.render_line(0).text

    right_edge, header = run_pilot(app, body, size=(80, 24))
    assert right_edge <= 80
    for name in ("job", "st", "health", "live", "loss", "best@step", "trend", "Δ10%"):
        assert name in header


# -- notifications ------------------------------------------------------------------------------------------

def test_a_nan_written_while_the_app_runs_is_announced_and_rings_the_bell(ui_logs):
    app = make_app(ui_logs, bell=True)
    rung = []
    app.bell = lambda: rung.append(True)

    def append_nan():
        with SummaryWriter(ui_logs / "run_b", timestamp=int(T0) + 100, wall_time=T0 + 100) as writer:
            writer.add_scalar("loss", math.nan)
            writer.record(STEPS + 1, wall_time=T0 + 2.0 * (STEPS + 1))
        for path in (ui_logs / "run_b").iterdir():
            os.utime(path, (MTIME, MTIME))  # written before the app's clock: not live
        app.cache.reload()  # as the loading thread does on the change notice

    async def body(pilot):
        before = notices(app)
        await run_beside(pilot, append_nan)
        assert await wait_for(pilot, lambda: table(app).cell("./run_b", "health") == "NaN")
        assert await wait_for(pilot, lambda: any("NaN" in n for n in notices(app)))
        return before, notices(app)

    before, after = run_pilot(app, body, notifications=True)
    assert not any("NaN" in n for n in before)  # nothing to say at the start
    assert any("./run_b: a NaN or infinite value in loss" in n for n in after)
    assert rung == [True]


@pytest.mark.parametrize("bell_stalled", [False, True], ids=["bell", "bell-stalled"])
def test_a_job_that_stalls_under_an_open_dashboard_is_announced(ui_logs, bell_stalled):
    """Its summary file is still open for writing (MindSpore would have made it read-only on
    close): a stop, announced; `--bell` rings only for NaN and diverging, `--bell-stalled` for this too."""
    now = [NOW]
    write_scalars(ui_logs, "run_live", scalars(falling(STEPS)), NOW - 1, interval=2.0)
    app = make_app(ui_logs, clock=lambda: now[0], bell=True, bell_stalled=bell_stalled)
    rung = []
    app.bell = lambda: rung.append(True)

    async def body(pilot):
        await pilot.press("enter")  # ./run_a's dashboard covers the job list
        assert await wait_for(pilot, lambda: isinstance(app.screen, DashboardScreen))
        quiet = notices(app)
        now[0] = NOW + 15  # no new step for 16 s: 8 intervals of 2 s
        assert await wait_for(pilot, lambda: any("stalled" in n for n in notices(app)), timeout=3)
        return quiet, notices(app)

    quiet, said = run_pilot(app, body, notifications=True)
    assert not any("stalled" in n for n in quiet)
    assert any("./run_live: stalled: no new step of loss for 16s" in n for n in said)
    assert rung == ([True] if bell_stalled else [])


def test_a_run_that_finishes_normally_raises_no_notification_and_no_bell(ui_logs):
    """Issue 22: a MindSpore run whose writer closed it (read-only), walked through ten minutes
    of the app's clock under `--bell-stalled`: no notification, no bell, no badge; not live."""
    now = [NOW]
    run = write_scalars(ui_logs, "run_done", scalars(falling(STEPS)), NOW - 1, interval=2.0)
    for path in run.iterdir():
        path.chmod(0o400)  # as MindSpore's writer leaves a summary file it closed
    app = make_app(ui_logs, clock=lambda: now[0], bell_stalled=True)
    rung = []
    app.bell = lambda: rung.append(True)

    async def body(pilot):
        seen = []
        for seconds in (5, 15, 30, 60, 130, 600):
            now[0] = NOW + seconds
            await pilot.pause(1.1)  # the clock's tick looks at the live jobs once a second
            seen.append((table(app).cell("./run_done", "health"), table(app).cell("./run_done", "live")))
        return seen, notices(app)

    seen, said = run_pilot(app, body, notifications=True)
    assert seen == [("", "")] * 6 and said == [] and rung == []


def test_a_fast_job_is_not_called_stalled_while_the_next_poll_is_due(ui_logs):
    """A step every 0.5 s and a reload every 3 s (the default; logs over ssh are polled): the list
    waits a reload interval more than five steps before it calls the job stalled."""
    now = [NOW]
    write_scalars(ui_logs, "run_fast", scalars(falling(STEPS)), NOW - 0.5, interval=0.5)
    app = make_app(ui_logs, clock=lambda: now[0], reload_interval=3.0)

    async def body(pilot):
        now[0] = NOW + 4  # 4.5 s since the last step: over five steps, within one more poll
        await pilot.pause(1.3)  # the clock's tick looks at the live jobs once a second
        quiet = notices(app), table(app).cell("./run_fast", "health")
        now[0] = NOW + 6  # 6.5 s: a poll came and brought nothing
        assert await wait_for(pilot, lambda: any("stalled" in n for n in notices(app)), timeout=3)
        return quiet, notices(app)

    (quiet, cell), said = run_pilot(app, body, notifications=True)
    assert not any("stalled" in n for n in quiet) and cell == ""
    assert any("./run_fast: stalled: no new step of loss for 6s" in n for n in said)


# -- pictures -----------------------------------------------------------------------------------------------

@pytest.mark.parametrize("size", [(80, 24), (160, 48)], ids=["80x24", "160x48"])
def test_snapshot_health(snap_compare, health_logs, size):
    app = make_app(health_logs)

    async def sorted_by_health(pilot):
        assert await wait_for(pilot, lambda: bool(pilot.app.screen.query(JobTable))
                              and pilot.app.screen.query_one(JobTable).row_count > 0)
        pilot.app.screen.state = pilot.app.screen.state.sort_by("health", reverse=True)
        await pilot.pause()

    assert snap_compare(app, terminal_size=size, run_before=sorted_by_health)
