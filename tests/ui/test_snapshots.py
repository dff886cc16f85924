"""Snapshots (pytest-textual-snapshot) of the job list and the scalar view at 80x24 and 160x48.

The logs, file times, clock, time zone and LOGDIR label are fixed (see uihelp.py), so the
pictures do not change between runs. Update them with `pytest tests/ui --snapshot-update`
after checking the report.
"""
from __future__ import annotations

from pathlib import Path

import pytest

from tui_insight.ui.widgets.job_table import JobTable
from uihelp import NOW, make_app, wait_for, write_run


async def rows_shown(pilot) -> None:
    """Keys are pressed once the list shows its jobs, as a user would."""
    assert await wait_for(pilot, lambda: bool(pilot.app.screen.query(JobTable))
                          and pilot.app.screen.query_one(JobTable).row_count > 0)


async def by_name(pilot) -> None:
    """The list sorted by job name (by health, the truncated run would come first)."""
    await rows_shown(pilot)
    pilot.app.screen.state = pilot.app.screen.state.sort_by("id", reverse=False)
    await pilot.pause()


@pytest.fixture
def snapshot_logs(ui_logs: Path) -> Path:
    """The three runs, one more that is being written (live), and one cut in a record and left
    for 50 minutes (truncated)."""
    write_run(ui_logs, "run_live", steps=25, mtime=NOW - 12, live=True)
    cut = write_run(ui_logs, "run_cut", steps=30)
    path = next(cut.iterdir())
    data = path.read_bytes()
    path.write_bytes(data[: len(data) - 7])
    import os

    os.utime(path, (NOW - 3000, NOW - 3000))
    return ui_logs


@pytest.mark.parametrize("size", [(80, 24), (160, 48)], ids=["80x24", "160x48"])
def test_job_list(snap_compare, snapshot_logs, size):
    app = make_app(snapshot_logs)

    async def mark_two(pilot):
        await rows_shown(pilot)
        await pilot.press("down", "space", "down", "space")
        await pilot.pause()

    assert snap_compare(app, terminal_size=size, run_before=mark_two)


@pytest.mark.parametrize("size", [(80, 24), (160, 48)], ids=["80x24", "160x48"])
def test_scalar_view(snap_compare, snapshot_logs, size):
    app = make_app(snapshot_logs)

    async def open_run(pilot):
        await by_name(pilot)
        await pilot.press("enter")
        await pilot.pause()
        await pilot.press("s", "s", "s", "s", "s", "s", "right", "right", "right", "right", "right")
        await pilot.pause()

    assert snap_compare(app, terminal_size=size, run_before=open_run)


def test_scalar_comparison(snap_compare, snapshot_logs):
    app = make_app(snapshot_logs)

    async def compare(pilot):
        await by_name(pilot)
        await pilot.press("space", "down", "space", "down", "space", "c")  # space leaves the cursor where it is
        await pilot.pause()
        await pilot.press("s", "s", "s", "right", "right", "right", "right", "right", "right", "right", "right")
        await pilot.pause()

    assert snap_compare(app, terminal_size=(160, 48), run_before=compare)
