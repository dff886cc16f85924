"""Names are bytes the user should see: a LOGDIR and a job directory whose names are not UTF-8
(`run\\xff\\xfe`, read as lone surrogates) work in the TUI and are shown with the bytes visible."""
from __future__ import annotations

import json
import os
from pathlib import Path

from tui_insight.workspace import Workspace
from uihelp import make_app, run_pilot, wait_for, wait_for_view, write_run

ODD = os.fsdecode(b"run\xff\xfe")


def odd_logdir(tmp_path: Path) -> Path:
    root = tmp_path / os.fsdecode(b"logs\xff")
    write_run(root, ODD)
    write_run(root, "plain")
    return root


def screen_text(app) -> str:
    return app.export_screenshot().replace("&#160;", " ")


def test_a_job_named_with_invalid_bytes_opens_shows_them_and_is_remembered(tmp_path):
    logdir, home = odd_logdir(tmp_path), tmp_path / "state"
    train_id = f"./{ODD}"

    def app_with_workspace():
        workspace, notice = Workspace.open(str(logdir), home=home)
        assert notice == ""
        return make_app(logdir, workspace=workspace)

    first = app_with_workspace()

    async def change(pilot):
        for key in ["down", "up", "down", "up"]:  # the cursor passes over the job
            await pilot.press(key)
        listed = screen_text(first)
        first.open_jobs((train_id,))
        await wait_for_view(pilot, first)
        await pilot.press("s", "s", "x")
        settings = first.screen.active_view.state.to_json()
        await pilot.press("escape")
        await wait_for(pilot, lambda: len(first.screen_stack) == 1)
        return listed, settings, first.return_code

    listed, settings, code = run_pilot(first, change)  # quitting saves the workspace
    assert code is None
    assert "run\\xff\\xfe" in listed  # the bytes, visible
    saved = json.loads(next((home / "workspaces").iterdir()).read_text(encoding="utf-8"))
    assert f"scalars@{train_id}" in saved["views"]

    again = app_with_workspace()

    async def reopen(pilot):
        again.open_jobs((train_id,))
        await wait_for_view(pilot, again)
        return again.screen.active_view.state.to_json()

    assert run_pilot(again, reopen) == settings


def test_the_log_takes_a_name_with_invalid_bytes(tmp_path, monkeypatch, capsys):
    """A warning naming such a job is written to the log with the bytes escaped; before, the
    handler failed and logging printed its own traceback on the terminal the app draws on."""
    import logging
    from logging.handlers import RotatingFileHandler

    from tui_insight.ui.app import log_to_state_dir

    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path))
    root = logging.getLogger()
    before = list(root.handlers)
    assert log_to_state_dir() == ""
    try:
        # Handed to the app's handlers only: pytest-xdist cannot send a report holding the raw
        # name (in its own captured log) back from its worker.
        record = logging.getLogger("tui_insight.test").makeRecord(
            "tui_insight.test", logging.WARNING, __file__, 0, "cannot read %s", (ODD,), None)
        for handler in [h for h in root.handlers if h not in before]:
            handler.handle(record)
            handler.flush()
    finally:
        for handler in [h for h in root.handlers if h not in before]:
            root.removeHandler(handler)
            handler.close()
    written = (tmp_path / "tui-insight" / "tui-insight.log").read_text(encoding="utf-8")
    assert "cannot read run\\udcff\\udcfe" in written
    assert "Logging error" not in capsys.readouterr().err
    assert not any(isinstance(h, RotatingFileHandler) for h in root.handlers if h not in before)
