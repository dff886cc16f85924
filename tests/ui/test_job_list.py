"""Pilot tests of the job list: marking, the trend column, its help, empty LOGDIR, literal text,
and the state the workspace remembers. The health columns and badges: test_job_health.py."""
from __future__ import annotations

import numpy as np
import pytest
from textual.widgets import Input, Static
from uihelp import STEPS, make_app, open_help, run_beside, run_pilot, run_values, wait_for, write_run

from tui_insight.ui.screens.dashboard import DashboardScreen
from tui_insight.ui.screens.jobs import JobsScreen
from tui_insight.ui.widgets.job_table import JobTable
from tui_insight.summary.queries.sparkline import sparkline


def table(app) -> JobTable:
    return app.screen.query_one(JobTable)


def screen_text(widget) -> str:
    """The lines a Line-API widget draws now."""
    return "\n".join(widget.render_line(y).text for y in range(widget.size.height))


# -- marking and comparing ------------------------------------------------------------------------

def test_space_marks_without_moving_so_space_down_space_c_compares_two_jobs(ui_logs):
    app = make_app(ui_logs)

    async def body(pilot):
        await pilot.press("space")
        after_space = table(app).current_job
        await pilot.press("down", "space", "c")
        await pilot.pause()
        return after_space, app.screen

    after_space, screen = run_pilot(app, body)
    assert after_space == "./run_a"  # the cursor stayed on the job it marked
    assert isinstance(screen, DashboardScreen) and screen.train_ids == ("./run_a", "./run_b")


def test_marks_are_drawn_kept_in_the_apps_list_and_unmarked(ui_logs):
    app = make_app(ui_logs)

    async def body(pilot):
        await pilot.press("down", "down", "space", "up", "up", "space")
        marks = {tid: table(app).cell(tid, "mark") for tid in table(app).order}
        marked = list(app.marked)
        await pilot.press("space")  # again on ./run_a: unmarked
        once = list(app.marked)
        await pilot.press("u")
        return marks, marked, once, list(app.marked), app.screen.state.marked

    marks, marked, once, after_u, state_marks = run_pilot(app, body)
    assert marks == {"./run_a": "●", "./run_b": " ", "./run_c": "●"}
    assert marked == ["./run_c", "./run_a"]  # marking order: the colours of the comparison
    assert once == ["./run_c"]
    assert after_u == [] and state_marks == ()


# -- the trend column -------------------------------------------------------------------------------

def test_the_trend_draws_the_headline_loss_and_its_column_is_named_after_it(tmp_path):
    root = tmp_path / "logs"
    write_run(root, "acc_first", tags=("acc", "loss"))  # loss is not the first tag
    app = make_app(root)

    async def body(pilot):
        return table(app).cell("./acc_first", "trend"), table(app).header("value"), screen_text(table(app))

    trend, header, drawn = run_pilot(app, body)
    loss = run_values("acc_first", np.arange(1, STEPS + 1))["loss"]
    assert trend == sparkline(loss, 10) != sparkline(run_values("acc_first", np.arange(1, STEPS + 1))["acc"], 10)
    assert header == "loss" and " loss " in drawn.splitlines()[0]


def test_without_a_loss_tag_a_job_has_no_headline_and_no_trend(tmp_path):
    root = tmp_path / "logs"
    write_run(root, "acc_only", tags=("acc", "lr"))
    write_run(root, "with_loss", tags=("loss",))
    app = make_app(root)

    async def body(pilot):
        t = table(app)
        return ([t.cell("./acc_only", c) for c in ("trend", "value", "best")], t.cell("./with_loss", "trend"),
                t.header("value"))

    acc_only, with_loss, header = run_pilot(app, body)
    assert acc_only == ["", "-", "-"]
    assert with_loss == sparkline(run_values("with_loss", np.arange(1, STEPS + 1))["loss"], 10)
    assert header == "loss"  # the only headline tag of the jobs


def test_help_says_what_space_does_and_what_the_columns_mean(ui_logs):
    app = make_app(ui_logs)

    async def body(pilot):
        return await open_help(pilot)

    text = run_pilot(app, body)
    assert "without moving the cursor" in text and "space ↓ space c" in text
    assert "files s/l/g/p  summary files / lineage files / graph (.pb) files / profiles" in text
    assert "tags s/h/t/i  scalar / histogram / tensor / image tags" in text
    assert "trend  the headline over the kept steps" in text and "named loss or ending in /loss" in text


# -- empty and blocked states -------------------------------------------------------------------------

def test_a_logdir_without_jobs_says_what_to_do(tmp_path):
    root = tmp_path / "empty"
    root.mkdir()
    app = make_app(root, logdir_label=str(root))

    async def body(pilot):
        assert await wait_for(pilot, lambda: "SummaryCollector" in screen_text(table(app)))
        return " ".join(screen_text(table(app)).split())

    text = run_pilot(app, body, size=(200, 24))  # the long tmp path on one line
    assert (f"no summary, lineage or .pb files under {root}; MindSpore writes them with "
            "SummaryRecord/SummaryCollector") in text


def test_a_filter_that_matches_no_job_says_so(ui_logs):
    app = make_app(ui_logs)

    async def body(pilot):
        await pilot.press("slash", *"xyz", "enter")
        await pilot.pause()
        return list(table(app).order), screen_text(table(app))

    order, text = run_pilot(app, body)
    assert order == [] and "no job matches /xyz/ (esc clears the filter)" in text


@pytest.mark.parametrize("size", [(80, 24), (160, 48)])
def test_the_status_line_counts_the_jobs_a_filter_shows_of_all(ui_logs, size):
    app = make_app(ui_logs)

    def progress() -> str:
        return str(app.screen.query_one("#progress", Static).render())

    async def body(pilot):
        await wait_for(pilot, lambda: "loading" not in progress())
        everything, total = progress(), table(app).row_count
        await pilot.press("slash", *"lenet_lr0.1", "enter")
        await wait_for(pilot, lambda: " of " in progress())
        filtered, shown = progress(), table(app).row_count
        await pilot.press("escape")
        await wait_for(pilot, lambda: " of " not in progress())
        return everything, total, filtered, shown, progress()

    everything, total, filtered, shown, cleared = run_pilot(app, body, size=size)
    assert shown < total and everything.startswith(f"{total} jobs ·")
    assert filtered.startswith(f"{shown} of {total} jobs ·") and cleared.startswith(f"{total} jobs ·")


# -- text from files is text ----------------------------------------------------------------------------

def test_job_ids_and_the_logdir_are_shown_literally(tmp_path):
    root = tmp_path / "[exp]" / "logs"
    write_run(root, "run[x]")
    write_run(root, "[bold red]markup[/]")
    app = make_app(root, logdir_label=str(root))

    async def body(pilot):
        return screen_text(table(app)), str(app.screen.query_one("#jobs-title", Static).render())

    text, title = run_pilot(app, body, size=(120, 20))
    assert "./run[x]" in text and "./[bold red]markup[/]" in text
    assert str(root) in title and "[exp]" in title


def test_an_unreadable_logdir_shows_its_path_literally_in_the_progress_line(tmp_path):
    missing = tmp_path / "data" / "[exp]" / "logs"
    app = make_app(missing)

    async def body(pilot):
        await pilot.pause(0.4)  # a progress tick
        return str(app.screen.query_one("#progress", Static).render()), screen_text(table(app))

    progress, text = run_pilot(app, body)
    assert f"cannot read {missing}" in progress and "/[exp]/logs" in progress
    assert "[exp]" in " ".join(text.split())


# -- the state, remembered ------------------------------------------------------------------------------

def test_filter_sort_marks_and_cursor_are_remembered_and_come_back(ui_logs):
    write_run(ui_logs, "short", steps=5)
    app = make_app(ui_logs)

    async def change(pilot):
        await pilot.press("space", "down", "down", "space")  # marks ./run_a, ./run_c
        await pilot.press("o", *"last step", "enter")  # by last step, picked by name: most first
        await pilot.press("slash", *"run", "enter")
        await pilot.press("home", "down")
        await pilot.pause()
        return app.workspace.get("app", "jobs"), app.screen.state

    saved, state = run_pilot(app, change)
    assert saved == state.to_json()
    assert state.marked == ("./run_a", "./run_c") and state.sort_key == "step" and state.reverse
    assert state.filter == "run" and state.cursor is not None

    again = make_app(ui_logs, workspace=app.workspace)

    async def reopen(pilot):
        t = table(again)
        box = again.screen.query_one("#jobs-filter", Input)
        return (again.screen.state, list(again.marked), t.current_job, t.cell("./run_c", "mark"),
                box.value, box.display, "./short" in t.order)

    restored, marked, current, mark, box, box_shown, short_shown = run_pilot(again, reopen)
    assert restored == state
    assert marked == ["./run_a", "./run_c"]  # the app's list follows
    assert current == state.cursor and mark == "●"
    assert box == "run" and box_shown and not short_shown


def test_a_remembered_cursor_job_is_found_when_it_appears(ui_logs):
    app = make_app(ui_logs, load=False, start_loading=True, reload_interval=0)
    app.workspace.remember("app", "jobs", {"cursor": "./run_c", "marked": ["./gone", "./run_b"]})

    async def body(pilot):
        assert await wait_for(pilot, lambda: table(app).row_count == 3)
        await pilot.pause()
        await pilot.press("c")
        await pilot.pause()
        return table(app).current_job if isinstance(app.screen, JobsScreen) else None, app.screen

    _, screen = run_pilot(app, body)
    assert isinstance(screen, DashboardScreen) and screen.train_ids == ("./run_b",)  # the gone job is skipped


def test_the_cursor_goes_to_the_remembered_job(ui_logs):
    app = make_app(ui_logs)
    app.workspace.remember("app", "jobs", {"cursor": "./run_c"})

    async def body(pilot):
        return table(app).current_job

    assert run_pilot(app, body) == "./run_c"


def test_sorting_by_clicking_a_header_goes_through_the_state(ui_logs):
    app = make_app(ui_logs)

    async def body(pilot):
        t = table(app)
        x = t.column_x("best") + 1  # inside "best@step"
        await pilot.click(JobTable, offset=(x, 0))
        await pilot.pause()
        return app.screen.state.sort_key, t.sort_key

    assert run_pilot(app, body) == ("best", "best")




# -- thousands of jobs: incremental rows, what is read first, coalesced changes (issue 14) ----------

def _snapshot(t: JobTable) -> tuple:
    return (list(t.order), dict(t.widths), t.value_header,
            {tid: {**row.cells, "trend": row.trend()} for tid, row in t.rows_by_id.items()},
            {tid: dict(row.sort) for tid, row in t.rows_by_id.items()}, t.current_job)


def test_rows_load_one_by_one_at_linear_cost_and_agree_with_a_build_from_scratch(tmp_path, monkeypatch):
    import random

    from uihelp import NOW, T0

    from tui_insight.summary.store.digest import digest
    from tui_insight.summary.store.job_view import JobView
    from tui_insight.summary.store.series import Series
    from tui_insight.ui.widgets import job_table

    root = tmp_path / "empty"
    root.mkdir()
    app = make_app(root)
    n = 400
    rng = random.Random(14)
    names = [f"./job_{i}" + ("_with_a_longer_name" if i == 77 else "") for i in range(n)]  # widths vary
    built = []
    real_job_row = job_table.job_row

    def counting_job_row(view, *args):
        built.append(view.train_id)
        return real_job_row(view, *args)

    monkeypatch.setattr(job_table, "job_row", counting_job_row)
    # Headline digests of several lengths and values (the health columns' widths vary too).
    losses = [{"loss": digest(Series.empty(1000, ("value",)).merge(
        {"step": np.arange(1, k + 2), "wall_time": T0 + np.arange(1, k + 2, dtype=float),
         "fid": np.zeros(k + 1, dtype=np.int32), "value": np.linspace(10.0 ** k, 0.5, k + 1)}, np.zeros(1, np.int64)))}
        for k in range(6)] + [{}]

    def loaded(tid: str, age: float) -> JobView:
        i = names.index(tid)
        return JobView(tid, "/logs/" + tid, summary_files=("a",) * (i % 3 + 1), lineage_files=("l",) * (i % 2),
                       update_time=NOW - age, loaded=True, digests=losses[(i + int(age)) % len(losses)])

    async def body(pilot):
        t = table(app)
        t.work.clear()
        built.clear()
        views: dict = {}
        for tid in rng.sample(names, n):  # found: a "loading" row each
            views[tid] = JobView(tid, "/logs/" + tid)
            t.refresh_jobs(views, NOW, [tid])
        for tid in rng.sample(names, n):  # read, in another order
            views[tid] = loaded(tid, rng.uniform(0, 300))
            t.refresh_jobs(views, NOW, [tid])
        work, rows_built = dict(t.work), len(built)
        checks = [_snapshot(t)]
        t.refresh_jobs(views, NOW)  # from scratch
        checks.append(_snapshot(t))
        # Sorted by update time, newest first: then jobs change one by one again, one goes away.
        app.screen.state = app.screen.state.sort_by("updated", reverse=True)
        await pilot.pause()
        t.work.clear()
        for tid in rng.sample(names, 50):
            views[tid] = loaded(tid, rng.uniform(0, 300))
            t.refresh_jobs(views, NOW, [tid])
        del views["./job_77_with_a_longer_name"]
        t.refresh_jobs(views, NOW, [])
        later_work = dict(t.work)
        checks.append(_snapshot(t))
        t.refresh_jobs(views, NOW)
        checks.append(_snapshot(t))
        return work, rows_built, later_work, checks

    work, rows_built, later_work, checks = run_pilot(app, body)
    # Linear: each change builds and measures its own row once (an out and an in), no full sort.
    assert rows_built == work["rows_built"] == 2 * n
    assert work["rows_measured"] <= 2 * work["rows_built"]
    assert work.get("full_sorts", 0) == 0
    assert later_work.get("full_sorts", 0) == 0 and later_work["rows_built"] == 50
    incremental, scratch, incremental_later, scratch_later = checks
    assert incremental == scratch
    assert incremental[0] == sorted(names)
    assert incremental_later == scratch_later
    assert "./job_77_with_a_longer_name" not in incremental_later[0]
    assert incremental_later[1]["id"] < incremental[1]["id"]  # the widest job went: the column narrows
    order = incremental_later[0]
    updates = [incremental_later[4][tid]["updated"] for tid in order]
    assert updates == sorted(updates, reverse=True)


def test_the_job_list_asks_the_cache_to_read_the_visible_rows_first(tmp_path):
    from uihelp import NOW

    from tui_insight.summary.store.cache import SummaryCache
    from tui_insight.ui.app import InsightApp

    class RecordingCache(SummaryCache):
        def __init__(self, *args, **kwargs):
            super().__init__(*args, **kwargs)
            self.prioritized: list[list[str]] = []

        def prioritize(self, train_ids):
            self.prioritized.append(list(train_ids))

    root = tmp_path / "logs"
    for i in range(12):
        write_run(root, f"run_{i:02d}", steps=3)
    cache = RecordingCache(str(root), clock=lambda: NOW)
    cache.reload()
    app = InsightApp(cache, start_loading=False, reload_interval=0, clock=lambda: NOW, logdir_label="LOGDIR",
                     graph_prefetch_delay=None)

    async def body(pilot):
        t = table(app)
        await pilot.pause()
        visible = t.size.height - 1
        first = (list(cache.prioritized[-1]), list(t.order[:visible]))
        await pilot.press("end")
        await pilot.pause()
        scrolled = (list(cache.prioritized[-1]), t.order[-1])
        await pilot.press("slash", *"run_1", "enter")
        await pilot.pause()
        filtered = (list(cache.prioritized[-1]), list(t.order))
        return visible, first, scrolled, filtered

    visible, first, scrolled, filtered = run_pilot(app, body, size=(100, 10))
    assert 0 < visible < 12
    assert first[0] == first[1]  # the first paint: the rows on screen
    assert scrolled[1] == "./run_11" and scrolled[0][-1] == "./run_11" and len(scrolled[0]) == visible
    assert filtered[0][:len(filtered[1])] == filtered[1] == ["./run_10", "./run_11"]


def test_a_burst_of_changes_reaches_the_job_list_a_few_times_and_the_last_one_is_shown(ui_logs):
    import time

    from uihelp import T0

    from tui_insight.summary.formats.writer import SummaryWriter

    app = make_app(ui_logs)
    bursts = 40

    def write_and_reload():
        with SummaryWriter(ui_logs / "run_a", timestamp=int(T0) + 100, wall_time=T0 + 100) as writer:
            for step in range(STEPS + 1, STEPS + bursts + 1):
                writer.add_scalar("loss", 0.1)
                writer.record(step, wall_time=T0 + 2.0 * step)
                writer.flush()
                app.cache.reload()  # one notice per step, from another thread as the loading thread does
                time.sleep(0.01)

    async def body(pilot):
        screen = app.screen
        delivered = []
        handler = screen.cache_changed

        def counting(changes):
            delivered.append(changes)
            return handler(changes)

        screen.cache_changed = counting
        notices = []
        app.cache.subscribe(notices.append)
        took = await run_beside(pilot, write_and_reload)
        shown = await wait_for(pilot, lambda: table(app).cell("./run_a", "step") == str(STEPS + bursts), timeout=3)
        await pilot.pause(0.4)
        return len(notices), len(delivered), took, shown, table(app).cell("./run_a", "step")

    notices, delivered, took, shown, step = run_pilot(app, body)
    assert notices >= bursts
    assert delivered <= took / 0.25 + 3  # at most ~4 a second, not one per notice
    assert shown and step == str(STEPS + bursts)  # the last change is never lost


def test_changes_that_come_while_a_job_is_open_reach_the_job_list_when_it_shows_again(ui_logs):
    from uihelp import T0

    from tui_insight.summary.formats.writer import SummaryWriter

    app = make_app(ui_logs)

    async def body(pilot):
        await pilot.press("enter")
        await pilot.pause()
        assert isinstance(app.screen, DashboardScreen)
        jobs_screen = app.screen_stack[0]
        with SummaryWriter(ui_logs / "run_b", timestamp=int(T0) + 100, wall_time=T0 + 100) as writer:
            writer.add_scalar("loss", 0.1)
            writer.record(STEPS + 7, wall_time=T0 + 2.0 * (STEPS + 7))
        app.cache.reload()
        await pilot.pause(0.4)
        covered = jobs_screen.covered(), table_of(jobs_screen).cell("./run_b", "step")
        await pilot.press("escape")
        await pilot.pause()
        return covered, table(app).cell("./run_b", "step")

    def table_of(screen):
        return screen.query_one(JobTable)

    (covered, step_while_covered), step_after = run_pilot(app, body)
    assert covered and step_while_covered == str(STEPS)  # nothing repainted under the dashboard
    assert step_after == str(STEPS + 7)


def _empty(tmp_path):
    root = tmp_path / "empty"
    root.mkdir()
    return root


def _read_view(tid: str):
    """A job read to its end (finished: no write for longer than the finish window)."""
    from uihelp import NOW

    from tui_insight.summary.store.job_view import JobView

    return JobView(tid, "/logs/" + tid, summary_files=("a",), update_time=NOW - 1000, loaded=True, last_step=7)


def _a_third_read(names: list[str]) -> dict:
    """Every third job read, the others announced only (nothing read of them yet)."""
    from tui_insight.summary.store.job_view import JobView

    return {tid: _read_view(tid) if i % 3 == 0 else JobView(tid, "/logs/" + tid) for i, tid in enumerate(names)}


def test_thousands_of_jobs_found_at_once_go_in_as_placeholders_and_fill_in_without_repainting_off_screen(tmp_path):
    """A warm start announces thousands of jobs at once: they go in together as "loading" rows
    (the table's height changes once), the rows of jobs already read are rebuilt after, and a
    rebuilt row off screen repaints nothing. The result is the table a build from scratch gives."""
    from uihelp import NOW


    app = make_app(_empty(tmp_path))
    names = [f"./run_{i:04d}" for i in range(700)]

    async def body(pilot):
        t = table(app)
        t.work.clear()
        views = _a_third_read(names)
        pending = t.add_placeholders(views, NOW, names)
        placed = (list(t.order), {tid: t.cell(tid, "state") for tid in names}, dict(t.work))
        await pilot.pause()
        repaints = []
        real_refresh = t.refresh

        def counting_refresh(*args, **kwargs):
            repaints.append(args)
            return real_refresh(*args, **kwargs)

        t.refresh = counting_refresh
        off_screen = [tid for tid in sorted(pending) if tid not in t.visible_ids()]
        t.refresh_jobs(views, NOW, off_screen)
        off_screen_repaints = len(repaints)
        t.refresh_jobs(views, NOW, sorted(pending))  # the visible ones too
        on_screen_repaints = len(repaints)
        t.refresh = real_refresh
        incremental = _snapshot(t)
        t.refresh_jobs(views, NOW)
        return pending, placed, off_screen_repaints, on_screen_repaints, incremental, _snapshot(t)

    pending, placed, off_screen_repaints, on_screen_repaints, incremental, scratch = run_pilot(app, body)
    assert pending == {tid for i, tid in enumerate(names) if i % 3 == 0}  # the read jobs need their real rows
    order, states, work = placed
    assert order == names and set(states.values()) == {"…"}  # the loading glyph
    assert work["placeholders"] == 700 and work.get("rows_built", 0) == 0 and work.get("full_sorts", 0) == 0
    assert off_screen_repaints == 0 and on_screen_repaints > 0
    assert incremental == scratch


@pytest.mark.parametrize("sort_key", ["id", "updated"])
def test_placeholders_and_then_their_rows_join_the_rows_there_in_the_order_and_filter_shown(tmp_path, sort_key):
    """Jobs found at once go in among the rows already there where a build from scratch puts
    them, and so do their rows when they are all read at once: reversed, filtered, sorted by id
    or by another column."""
    from uihelp import NOW

    from tui_insight.summary.store.job_view import JobView

    root = tmp_path / "empty"
    root.mkdir()
    app = make_app(root)
    names = [f"./run_{i:04d}" for i in range(600)]
    read = {tid: JobView(tid, "/logs/" + tid, summary_files=("a",), update_time=NOW - i % 7, loaded=True)
            for i, tid in enumerate(names) if i % 4 == 0}

    async def body(pilot):
        t = table(app)
        app.screen.state = app.screen.state.with_filter("run_0[0-4]").sort_by(sort_key, reverse=True)
        await pilot.pause()
        t.refresh_jobs(read, NOW, list(read))  # some rows there already
        views = {**{tid: JobView(tid, "/logs/" + tid) for tid in reversed(names)}, **read}
        t.add_placeholders(views, NOW, [tid for tid in reversed(names) if tid not in read])
        placed = list(t.order)
        t.refresh_jobs(views, NOW)
        placed_scratch = list(t.order)
        # Then every job read at once, as at a warm start: hundreds of rows change place together.
        views = {tid: JobView(tid, "/logs/" + tid, summary_files=("a",), update_time=NOW - i % 11, loaded=True)
                 for i, tid in enumerate(names)}
        t.refresh_jobs(views, NOW, names)
        filled = _snapshot(t)
        t.refresh_jobs(views, NOW)
        return placed, placed_scratch, filled, _snapshot(t)

    placed, placed_scratch, filled, filled_scratch = run_pilot(app, body)
    assert len(placed_scratch) == 500 and placed == placed_scratch
    assert filled == filled_scratch


def test_a_first_paint_during_a_restore_builds_each_row_once(tmp_path):
    """The list is first drawn while the jobs are being restored: the jobs not read yet go in as
    placeholders, and each job's row is built once, when its view is read."""
    from uihelp import NOW


    app = make_app(_empty(tmp_path))
    names = [f"./run_{i:03d}" for i in range(90)]

    async def body(pilot):
        t = table(app)
        t.work.clear()
        views = _a_third_read(names)
        t.refresh_jobs(views, NOW)  # the first paint
        first = dict(t.work)
        views = {tid: view if view.loaded else _read_view(tid) for tid, view in views.items()}
        t.refresh_jobs(views, NOW, names)  # the rest restored
        return first, dict(t.work), _snapshot(t)

    first, work, filled = run_pilot(app, body)
    assert first["rows_built"] == 30 and first["placeholders"] == 60
    assert work["rows_built"] == 90  # the 30 rows built at first are not built again
    assert {cells["state"][0] for cells in filled[3].values()} == {"✓"}


def test_hundreds_of_jobs_restored_from_the_disk_cache_fill_the_list_each_row_built_once(tmp_path):
    """A warm start: every job is announced at once, goes in as a placeholder, and its row is
    built once, from its restored view; the list is the one a build from scratch gives."""
    from uihelp import NOW

    from tui_insight.summary.store.cache import SummaryCache
    from tui_insight.summary.store.disk_cache import DiskCache
    from tui_insight.ui.app import InsightApp

    root = tmp_path / "logs"
    n = 320  # more than PLACEHOLDERS_FROM, less than a slice of rows
    for i in range(n):
        write_run(root, f"run_{i:03d}", steps=2, tags=("loss",))
    disk = DiskCache(tmp_path / "cache")
    SummaryCache(str(root), disk_cache=disk, clock=lambda: NOW).reload()  # the first start fills the disk cache
    cache = SummaryCache(str(root), disk_cache=DiskCache(disk.root), clock=lambda: NOW)
    app = InsightApp(cache, reload_interval=0, clock=lambda: NOW, logdir_label="LOGDIR", graph_prefetch_delay=None)

    async def body(pilot):
        t = table(app)
        filled = await wait_for(pilot, lambda: t.row_count == n and {t.cell(tid, "state") for tid in t.order} == {"✓"},
                                timeout=60)
        work, incremental = dict(t.work), _snapshot(t)
        t.refresh_jobs(cache.jobs, NOW)
        return filled, cache.progress.bytes_read, work, t.size.height, incremental, _snapshot(t)

    filled, bytes_read, work, height, incremental, scratch = run_pilot(app, body)
    assert filled and bytes_read == 0  # every job restored, none read
    # Placeholders for the jobs not restored yet when the table is first drawn (a busy machine may
    # draw it before, during or after the restore), and each job's row built once.
    assert work.get("placeholders", 0) <= n and work["rows_built"] <= n + height
    # Sparklines are drawn for the rows on screen only (a strip per row and cursor move), and
    # the trend column is as wide as the widest of them.
    assert 0 < work["trends_drawn"] <= 3 * height
    assert incremental[1]["trend"] == max(len("trend"), *(len(cells["trend"][0]) for cells in scratch[3].values()))
    assert incremental == scratch


def test_the_dashboards_views_are_preloaded_only_a_while_after_the_list_settled(tmp_path, monkeypatch):
    """The preload's import holds the GIL for ~0.5 s: started as the last rows were built, the
    paint that shows them (and the first keys) waited for it. It starts PRELOAD_AFTER_SECONDS
    after the first load is done and every row built."""
    from uihelp import NOW

    from tui_insight.summary.store.cache import SummaryCache
    from tui_insight.ui.app import InsightApp
    from tui_insight.ui.screens import jobs

    n = 12
    for i in range(n):
        write_run(tmp_path, f"run_{i:02d}", steps=2, tags=("loss",))
    monkeypatch.setattr(jobs, "ROWS_PER_SLICE", 5)  # the last rows come in slices, as at a warm start
    monkeypatch.setattr(jobs, "PRELOAD_AFTER_SECONDS", 3600.0)
    app = InsightApp(SummaryCache(str(tmp_path), clock=lambda: NOW), reload_interval=0, clock=lambda: NOW,
                     graph_prefetch_delay=None)

    async def body(pilot):
        t = table(app)
        screen = app.screen
        settled = await wait_for(pilot, lambda: app.cache.progress.reloads > 0 and not app.cache.progress.loading
                                 and t.row_count == n and not t.loading_ids)
        at_once = screen.dashboard_preloaded
        await pilot.pause(0.6)  # the progress line's ticks (4 a second) asked for it before
        return settled, at_once, screen.dashboard_preloaded

    assert run_pilot(app, body) == (True, False, False)


def test_the_list_keeps_no_series_the_cache_let_go(tmp_path):
    """Rows and the health book know the view they were built from weakly: a view holds the
    job's series until the memory budget drops them, and holding it kept every job's series
    alive (a cold load of 5,000 runs in one process grew to 4.4 GB instead of ~0.5 GB)."""
    import gc

    from uihelp import NOW

    from tui_insight.summary.store.cache import SummaryCache
    from tui_insight.summary.store.job_view import JobView
    from tui_insight.ui.app import InsightApp

    for i in range(12):
        write_run(tmp_path, f"run_{i:02d}", steps=100)
    cache = SummaryCache(str(tmp_path), clock=lambda: NOW, memory_budget=1)  # no series kept unless held
    ids = [f"./run_{i:02d}" for i in range(12)]
    cache.hold("test", ids)  # read with their series, and the rows built from those views
    app = InsightApp(cache, reload_interval=0, clock=lambda: NOW, graph_prefetch_delay=None)

    async def body(pilot):
        assert await wait_for(pilot, lambda: cache.progress.reloads > 0 and not cache.progress.loading
                              and app.screen.query_one(JobTable).row_count == 12
                              and all(view.detailed for view in cache.jobs.values()))
        await pilot.pause(0.3)
        cache.release("test")  # over the budget now: the series go
        assert await wait_for(pilot, lambda: sum(1 for view in cache.jobs.values() if view.detailed) < 12)
        await pilot.pause(0.3)
        gc.collect()
        ours = str(tmp_path)
        alive = sum(1 for o in gc.get_objects() if isinstance(o, JobView) and o.detailed and o.path.startswith(ours))
        return alive, sum(1 for view in cache.jobs.values() if view.detailed)

    alive, kept = run_pilot(app, body)
    assert kept < 12 and alive == kept


def test_a_notification_leaves_the_status_line_in_sight(ui_logs):
    """The status line says "reconnecting…" and the load's progress: a toast (a run-health
    badge, 10 s) sits above it, not over it."""
    from textual.widgets._toast import Toast

    from tui_insight.ui.widgets.progress import ProgressLine

    app = make_app(ui_logs)

    async def body(pilot):
        app.notify("./run_a: stalled: no new step of loss for 12s " * 2, title="Run health", timeout=10)
        assert await wait_for(pilot, lambda: bool(app.screen.query(Toast)))
        await pilot.pause(0.1)
        return [t.region for t in app.screen.query(Toast)], app.screen.query_one(ProgressLine).region

    toasts, line = run_pilot(app, body, size=(80, 24), notifications=True)
    assert toasts and all(not t.overlaps(line) for t in toasts), (toasts, line)


def test_an_idle_list_keeps_its_progress_line_current(tmp_path):
    """Once the load is over no 4-a-second timer keeps the progress line: the cache's notices and
    the clock's tick do. A run found by a later reload of the idle app is counted there."""
    from uihelp import NOW

    from tui_insight.summary.store.cache import SummaryCache
    from tui_insight.ui.app import InsightApp

    write_run(tmp_path, "run_00", steps=2, tags=("loss",))
    app = InsightApp(SummaryCache(str(tmp_path), clock=lambda: NOW), reload_interval=0, clock=lambda: NOW,
                     graph_prefetch_delay=None)

    def progress() -> str:
        return str(app.screen.query_one("#progress", Static).render())

    async def body(pilot):
        settled = await wait_for(pilot, lambda: app.cache.progress.reloads > 0 and not app.cache.progress.loading
                                 and progress().startswith("1 job"))
        await pilot.pause(1.2)  # idle
        write_run(tmp_path, "run_01", steps=2, tags=("loss",))
        await run_beside(pilot, app.cache.reload)
        return settled, await wait_for(pilot, lambda: progress().startswith("2 jobs"), timeout=5.0), progress()

    settled, counted, line = run_pilot(app, body)
    assert settled and counted, line


# -- a cold sweep's loading processes ---------------------------------------------------------------

def test_the_app_starts_a_cold_sweeps_loading_processes_before_discovery_ends(tmp_path, monkeypatch):
    """The cache waits to be asked (`start_processes`); the app asks once its first frame is
    painted, so the processes' start still overlaps discovery. Discovery is held here until
    they are alive (10 s at most): a pass left to start them itself would do so only after."""
    import multiprocessing
    import threading

    from tui_insight.summary.sources.local import LocalSource
    from tui_insight.summary.store.cache import SummaryCache
    from tui_insight.ui.app import InsightApp

    for i in range(10):  # (a pool is used from pool.MIN_JOBS jobs)
        write_run(tmp_path / "logs", f"run_{i}")
    alive: list[int] = []
    discover = LocalSource.discover

    def held(self, *args, **kwargs):
        found = discover(self, *args, **kwargs)
        if not alive:
            for _ in range(200):
                if multiprocessing.active_children():
                    break
                threading.Event().wait(0.05)
            alive.append(len(multiprocessing.active_children()))
        return found

    monkeypatch.setattr(LocalSource, "discover", held)
    cache = SummaryCache(str(tmp_path / "logs"), workers=2)
    app = InsightApp(cache, reload_interval=0, graph_prefetch_delay=None)

    async def body(pilot):
        return await wait_for(pilot, lambda: len(cache.jobs) == 10 and all(v.loaded for v in cache.jobs.values()), 60)

    try:
        assert run_pilot(app, body)
    finally:
        cache.stop()
    assert alive and alive[0] >= 1


def test_the_first_jobs_read_show_at_once_after_the_jobs_found(tmp_path):
    """Cache changes reach the screens at most every CHANGES_EVERY seconds, but the hand-over of
    jobs found (none read yet, their rows "loading") does not hold the next one: the first jobs
    read fill their rows as soon as they come, not a quarter of a second later."""
    import asyncio

    from tui_insight.summary.store.cache import SummaryCache
    from tui_insight.ui.app import InsightApp

    for name in ("run_a", "run_b"):
        write_run(tmp_path / "logs", name)
    cache = SummaryCache(str(tmp_path / "logs"))
    app = InsightApp(cache, start_loading=False, reload_interval=0, graph_prefetch_delay=None)

    async def body(pilot):
        await asyncio.to_thread(cache.discover_jobs)
        assert await wait_for(pilot, lambda: table(app).row_count == 2, 10)
        found = (app.changes_delivered, set(table(app).loading_ids))
        await asyncio.to_thread(cache.reload)
        await pilot.pause()  # the messages handled, no timer waited for
        delivered = app.changes_delivered
        # (the rows then fill in slices between paints: a busy machine takes more than one pause)
        filled = await wait_for(pilot, lambda: not table(app).loading_ids, 10)
        return found, delivered, filled

    found, delivered, filled = run_pilot(app, body)
    assert found == (1, {"./run_a", "./run_b"})
    assert delivered >= 2 and filled  # (run_b may come in a hand-over of its own)
