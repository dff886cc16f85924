"""What a job holds that no view shows, on screen and in the log (issue 22): the dashboard's line
under its title and its `?` notes, the job list's `*N` mark and its legend, the log's line per
job. Logs written by tensorboardX (`unshown_logs`), driven from the keyboard with Pilot."""
from __future__ import annotations

import logging
from pathlib import Path

import pytest
from tensorboardX import SummaryWriter
from textual.widgets import Static
from uihelp import make_app, open_help, run_beside, run_pilot, wait_for, wait_for_view
from unshown_logs import MANY_TAGS, write_many_tags, write_unshown

from tui_insight.summary import limits
from tui_insight.ui.screens.dashboard import DashboardScreen
from tui_insight.ui.widgets.job_table import JobTable

OVER = MANY_TAGS - limits.MAX_TAGS
RUN_BRIEF = "audio 1 tag, mesh 2, embeddings 1 tensor"


@pytest.fixture
def logs(tmp_path: Path) -> Path:
    root = tmp_path / "logs"
    write_many_tags(root)  # ./many
    write_unshown(root)  # ./run
    write_many_tags(root, "so_few", tags=3)  # nothing unshown
    return root


def line_text(app) -> str:
    line = app.screen.query_one("#dashboard-not-shown", Static)
    return str(line.render()) if line.display else ""


def test_the_dashboard_names_what_no_view_shows_and_help_lists_the_notes(logs):
    app = make_app(logs)

    async def body(pilot):
        await pilot.press("down", "enter")  # ./run (the list is sorted by job)
        await wait_for_view(pilot, app)
        assert app.screen.train_ids == ("./run",)
        run_line = line_text(app)
        help_text = await open_help(pilot)
        await pilot.press("escape", "escape", "end", "enter")  # back to the list, the last job
        await wait_for_view(pilot, app)
        assert app.screen.train_ids == ("./so_few",)
        return run_line, help_text, line_text(app)

    run_line, help_text, few_line = run_pilot(app, body)
    assert run_line == f"not shown: {RUN_BRIEF}  (M describes audio, embeddings, mesh · ? lists them)"
    assert "not shown: audio data, 1 tag, described, not drawn (sound)" in help_text
    assert "not shown: pr_curves" not in help_text  # shown by the PR curves view
    assert "not shown: embeddings data, 1 tensor, described, not drawn (feat:00000 20x5)" in help_text
    assert few_line == ""  # nothing unshown: no line


def test_a_comparison_names_each_shown_runs_unshown_data(logs):
    app = make_app(logs)

    async def body(pilot):
        await pilot.press("space", "down", "space", "c")  # ./many and ./run
        await wait_for_view(pilot, app)
        assert isinstance(app.screen, DashboardScreen) and app.screen.comparing
        return line_text(app)

    line = run_pilot(app, body, size=(200, 36))
    assert line == f"not shown: ./many {OVER} tags over the {limits.MAX_TAGS} limit; ./run {RUN_BRIEF}  (M describes audio, embeddings, mesh · ? lists them)"


def test_the_job_list_marks_jobs_holding_what_no_view_shows(logs):
    app = make_app(logs)

    async def body(pilot):
        table = app.screen.query_one(JobTable)
        cells = {tid: table.cell(tid, "state") for tid in ("./many", "./run", "./so_few")}
        return cells, await open_help(pilot)

    cells, help_text = run_pilot(app, body, size=(80, 24))
    assert cells == {"./many": "✓*1", "./run": "✓*3", "./so_few": "✓"}  # the ok glyph, and the count
    assert "st *N" in help_text and "no view shows" in help_text


def test_the_log_says_it_once_a_job_not_at_every_reload(logs, caplog):
    caplog.set_level(logging.WARNING, logger="tui_insight.ui.not_shown_log")
    app = make_app(logs, load=False, start_loading=True, reload_interval=0)

    def more_loss() -> None:
        writer = SummaryWriter(str(logs / "run"), filename_suffix=".more")
        writer.add_scalar("loss", 0.1, 9)
        writer.close()

    def logged() -> list[str]:
        return [r.getMessage() for r in caplog.records if r.name == "tui_insight.ui.not_shown_log"]

    async def body(pilot):
        assert await wait_for(pilot, lambda: len(logged()) == 2)
        delivered = app.changes_delivered
        await run_beside(pilot, more_loss)
        await run_beside(pilot, app.cache.reload)  # ./run changes: its account does not
        assert await wait_for(pilot, lambda: app.changes_delivered > delivered)
        assert app.cache.job("./run").last_step == 9
        return logged()

    assert run_pilot(app, body) == [f"./many: not shown: {OVER} tags over the {limits.MAX_TAGS} limit",
                                    f"./run: not shown: {RUN_BRIEF}"]
