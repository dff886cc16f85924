"""Snapshots of a comparison dashboard with the summary table and the run panel, at 80x24 and
160x48: three runs compared, the value cursor on step 4, the second run switched off in the
panel (its title entry hollow, gone from charts and table). Logs, times and clock are fixed
(uihelp.py). Update with `pytest tests/ui/test_comparison_snapshots.py --snapshot-update` after
checking the report."""
from __future__ import annotations

import pytest

from tui_insight.ui.widgets.run_picker import RunList
from uihelp import make_app, wait_for, wait_for_view


@pytest.mark.parametrize("size", [(80, 24), (160, 48)], ids=["80x24", "160x48"])
def test_comparison_with_summary_table_and_run_panel(snap_compare, ui_logs, size):
    app = make_app(ui_logs)

    async def compare_and_hide_one(pilot):
        app.open_jobs(("./run_a", "./run_b", "./run_c"))
        await wait_for_view(pilot, app)
        await pilot.press("right", "right", "right", "right", "R", "down", "space")
        assert await wait_for(pilot, lambda: isinstance(app.focused, RunList) and
                              len(app.screen.query_one("ScalarsView").summary.order) == 5)
        await pilot.pause()

    assert snap_compare(app, terminal_size=size, run_before=compare_and_hide_one)
