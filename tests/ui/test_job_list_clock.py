"""The job list's clock cells ("5s ago", "● live", badges) are computed again only when they can
read differently: the visible rows are looked at at each tick of the app's clock, a finished job's
"12m ago" once a minute. The clock itself ticks every second only while something moves (a key,
a change of the logs); an idle app's clock sleeps until the first thing it shows can change."""
from __future__ import annotations

import time
from pathlib import Path

from health_logs import T0, falling, write_scalars
from uihelp import NOW, STEPS, make_app, notices, run_pilot, wait_for, write_run

from tui_insight.summary.formats.writer import SummaryWriter
from tui_insight.summary.queries.health import JobHealth
from tui_insight.summary.store.cache import SummaryCache
from tui_insight.ui.screens import jobs
from tui_insight.ui.screens.dashboard import DashboardScreen
from tui_insight.ui.screens.jobs import JobsScreen
from tui_insight.ui.widgets import job_table
from tui_insight.ui.widgets.job_rows import clock_texts, clock_texts_until


def walk_the_clock(job: JobHealth, start: float, seconds: float, step: float = 0.25) -> int:
    """Move the clock a `step` at a time; the texts must read the same until `clock_texts_until`
    said. How many times they were computed."""
    at, texts, until, computed = start, clock_texts(job, start), clock_texts_until(job, start), 1
    for i in range(1, int(seconds / step)):
        now = start + i * step
        if now < until:
            assert clock_texts(job, now) == texts, (now - start, texts)
        else:
            at, texts, until, computed = now, clock_texts(job, now), clock_texts_until(job, now), computed + 1
            assert until > at
    return computed


def test_the_clock_texts_hold_until_they_can_change(tmp_path: Path):
    last = T0 + 60  # a live run: a step every 2 s, then it stops (stalled after 10 s, finished after 2 min)
    write_scalars(tmp_path, "live", {"loss": falling(30)}, last, interval=2.0, mtime=last)
    write_scalars(tmp_path, "old", {"loss": falling(30)}, last, interval=2.0, mtime=last - 600)
    cache = SummaryCache(str(tmp_path), clock=lambda: last)
    cache.reload()
    live, old = (JobHealth.of(cache.job(tid)) for tid in ("./live", "./old"))
    assert live.live(last) and not old.live(last)
    # Live: "9s ago" moves every second for a minute, then by the minute: far fewer than 4 a second.
    assert walk_the_clock(live, last, 1000) < 100
    assert walk_the_clock(old, last, 1000) <= 20  # "10m ago" ... "26m ago": once a minute
    assert clock_texts_until(old, last) - last <= 60


def test_a_tick_computes_again_only_the_rows_whose_clock_cells_can_change(ui_logs, monkeypatch):
    write_run(ui_logs, "run_live", mtime=NOW - 5, live=True)
    now = [NOW]
    app = make_app(ui_logs, clock=lambda: now[0])
    computed: list[str] = []

    def counted(health, at):
        computed.append(health.train_id)
        return clock_texts(health, at)

    monkeypatch.setattr(job_table, "clock_texts", counted)  # a row's cells computed again (not built)

    async def body(pilot):
        screen = app.screen
        assert isinstance(screen, JobsScreen)
        now[0] += 1
        screen.tick()
        first = list(computed)  # every visible row, once: by now (or when first shown)
        computed.clear()
        now[0] += 1
        screen.tick()
        return first, sorted(computed), screen.table.cell("./run_live", "updated")

    first, second, updated = run_pilot(app, body)
    assert sorted(set(first)) == ["./run_a", "./run_b", "./run_c", "./run_live"]
    assert all(first.count(tid) == 1 for tid in ("./run_a", "./run_b", "./run_c")), first
    assert second == ["./run_live"]  # "7s ago"; the others read "10m ago" for another minute
    assert updated == "7s ago"


def test_the_cursor_line_is_made_again_only_when_its_job_changes(ui_logs, monkeypatch):
    app = make_app(ui_logs)
    made: list[str] = []
    line_of = jobs.cursor_line

    def counted(view):
        made.append(view.train_id)
        return line_of(view)

    async def body(pilot):
        monkeypatch.setattr(jobs, "cursor_line", counted)
        screen = app.screen
        assert isinstance(screen, JobsScreen)
        tid = screen.table.current_job
        for _ in range(3):
            app.tick_clock()
        quiet = list(made)
        with SummaryWriter(ui_logs / tid, timestamp=int(T0) + 7, wall_time=T0 + 7) as writer:  # a second file
            writer.add_scalar("loss", 0.5)
            writer.record(1, wall_time=T0 + 7)
        assert app.cache.reload().updated.keys() == {tid}
        await pilot.pause(0.3)
        app.tick_clock()
        return tid, quiet, made

    tid, quiet, made_after = run_pilot(app, body)
    assert quiet == []  # three ticks, the same view: the line made at the start stays
    assert made_after == [tid]  # its job changed: made again, once


def counting_ticks(app) -> list[float]:
    """The times the app's clock ticks from now on (the timer calls `tick_clock`)."""
    ticks: list[float] = []
    tick = app.tick_clock

    def counted() -> None:
        ticks.append(time.monotonic())
        tick()

    app.tick_clock = counted
    return ticks


def test_an_idle_job_list_lets_the_clock_sleep_until_a_cell_can_change(ui_logs):
    """Every job finished "10m ago": nothing the list shows changes for a minute, so once nothing
    moved since its last tick the clock does not tick every second; a key brings it back."""
    app = make_app(ui_logs)

    async def body(pilot):
        screen = app.screen
        assert isinstance(screen, JobsScreen)
        assert await wait_for(pilot, lambda: screen.dashboard_preloaded)  # the list settled
        app.tick_clock()  # a tick after the start (something moved: the next in a second)...
        app.tick_clock()  # ... and one with nothing moved since: the next when a cell can change
        ticks = counting_ticks(app)
        await pilot.pause(2.5)
        idle = len(ticks)
        await pilot.press("down")
        woke = await wait_for(pilot, lambda: len(ticks) > idle, timeout=20)
        return idle, woke

    idle, woke = run_pilot(app, body)
    assert idle == 0  # (it ticked twice in those 2.5 s)
    assert woke


def test_a_stall_under_a_dashboard_wakes_the_sleeping_clock_when_it_comes(ui_logs):
    """The list covered, no key, no change: the clock sleeps until the first badge the clock can
    bring, a live job's stall, and announces it then (not at its next minute)."""
    write_scalars(ui_logs, "run_live", {"loss": falling(STEPS)}, NOW - 1, interval=2.0)  # stalls at NOW + 9
    started = time.monotonic()
    # A clock that moves: the stall comes 10 s in, well after the ticks that follow the keys.
    app = make_app(ui_logs, clock=lambda: NOW - 1 + (time.monotonic() - started))

    async def body(pilot):
        await pilot.press("enter")  # ./run_a's dashboard covers the job list
        assert await wait_for(pilot, lambda: isinstance(app.screen, DashboardScreen))
        return await wait_for(pilot, lambda: any("stalled" in n for n in notices(app)), timeout=30)

    assert run_pilot(app, body, notifications=True)


def test_a_sleeping_clock_wakes_when_a_visible_cell_changes(ui_logs):
    """No key, no change: "10m ago" turns "11m ago" when the minute comes, not at the clock's
    longest sleep."""
    started = time.monotonic()
    app = make_app(ui_logs, clock=lambda: NOW + 50 + (time.monotonic() - started))  # the minute comes 10 s in

    async def body(pilot):
        screen = app.screen
        assert isinstance(screen, JobsScreen)
        before = screen.table.cell("./run_a", "updated")
        moved = await wait_for(pilot, lambda: screen.table.cell("./run_a", "updated") == "11m ago", timeout=30)
        return before, moved

    assert run_pilot(app, body) == ("10m ago", True)
