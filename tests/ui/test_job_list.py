"""Pilot tests of the job list: marking, the trend column, its help, empty LOGDIR, literal text,
and the state the workspace remembers."""
from __future__ import annotations

import numpy as np
from textual.widgets import Input, Static

from tui_insight.ui.screens.dashboard import DashboardScreen
from tui_insight.ui.screens.help import HelpScreen
from tui_insight.ui.screens.jobs import JobsScreen
from tui_insight.ui.widgets.job_table import JobTable
from tui_insight.ui.widgets.sparkline import sparkline, trend_tag
from uihelp import STEPS, make_app, run_pilot, run_values, wait_for, write_run


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

def test_the_trend_draws_the_loss_tag_when_there_is_one_and_the_header_says_so(tmp_path):
    root = tmp_path / "logs"
    write_run(root, "acc_first", tags=("acc", "loss"))  # loss is not the first tag
    app = make_app(root)

    async def body(pilot):
        return table(app).cell("./acc_first", "trend"), table(app).header("trend"), screen_text(table(app))

    trend, header, drawn = run_pilot(app, body)
    loss = run_values("acc_first", np.arange(1, STEPS + 1))["loss"]
    assert trend == sparkline(loss, 10) != sparkline(run_values("acc_first", np.arange(1, STEPS + 1))["acc"], 10)
    assert header == "trend (loss)" and "trend (loss)" in drawn


def test_without_a_loss_tag_the_trend_is_the_first_tag_and_the_header_says_which(tmp_path):
    root = tmp_path / "logs"
    write_run(root, "acc_only", tags=("acc", "lr"))
    app = make_app(root)

    async def header(pilot):
        return table(app).cell("./acc_only", "trend"), table(app).header("trend")

    trend, only_first = run_pilot(app, header)
    assert trend == sparkline(run_values("acc_only", np.arange(1, STEPS + 1))["acc"], 10)
    assert only_first == "trend (1st tag)"

    write_run(root, "with_loss", tags=("loss",))
    mixed = make_app(root)

    async def mixed_header(pilot):
        return table(mixed).header("trend")

    assert run_pilot(mixed, mixed_header) == "trend (loss|1st)"


def test_the_trend_tag_is_the_first_with_loss_in_its_name_in_any_case():
    assert trend_tag(["acc", "train/Loss", "loss"]) == "train/Loss"
    assert trend_tag(["acc", "lr"]) == "acc"
    assert trend_tag([]) is None


def test_help_says_what_space_does_and_what_the_columns_mean(ui_logs):
    app = make_app(ui_logs)

    async def body(pilot):
        await pilot.press("question_mark")
        await pilot.pause()
        assert isinstance(app.screen, HelpScreen)
        return str(app.screen.query_one("#help-text", Static).render())

    text = run_pilot(app, body)
    assert "without moving the cursor" in text and "space ↓ space c" in text
    assert "files s/l/g  summary files / lineage files / graph (.pb) files" in text
    assert "tags s/h/t/i  scalar / histogram / tensor / image tags" in text
    assert "trend" in text and "loss" in text and "first scalar tag" in text


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
        await pilot.press("s", "s", "s", "S")  # by last step (after state, live), reversed
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
        x = sum(t.widths[key] + 2 for key in ("mark", "id", "state", "live")) + 1  # inside "last step"
        await pilot.click(JobTable, offset=(x, 0))
        await pilot.pause()
        return app.screen.state.sort_key, t.sort_key

    assert run_pilot(app, body) == ("step", "step")


