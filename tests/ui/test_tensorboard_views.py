"""The views on TensorBoard runs (issue 12): the text view, histograms of 600+ buckets, images,
and a MindSpore run compared beside a TensorBoard run. Logs: the real tensorboardX/tensorboard
fixtures (`tests/fixtures/tensorboard`), and a run of our own writer."""
from __future__ import annotations

import json
import shutil

from fixture_paths import FIXTURES
from tui_insight.ui.views.text import TextView
from uihelp import make_app, run_pilot, wait_for, wait_for_view, write_run

TB = FIXTURES / "tensorboard"
MANIFEST = json.loads((FIXTURES / "tensorboard.manifest.json").read_text())


def text_of_view(view: TextView) -> str:
    return str(view.query_one("#text-content").render())


def test_text_view_lists_steps_and_their_text_newest_first_and_turns_the_order():
    app = make_app(TB)

    async def body(pilot):
        app.open_jobs(("./tf2",), "scalars")
        await wait_for_view(pilot, app)
        await pilot.press("8")
        await wait_for_view(pilot, app, "TextView")
        view = app.screen.query_one(TextView)
        assert await wait_for(pilot, lambda: "step 0" in text_of_view(view))
        shown = text_of_view(view)
        assert shown.index("step 2") < shown.index("step 1") < shown.index("step 0")
        assert "step 0 notes" in shown
        await pilot.press("o")
        assert await wait_for(pilot, lambda: text_of_view(view).index("step 0") < text_of_view(view).index("step 2"))
        return str(view.query_one("#text-status").render())

    status = run_pilot(app, body)
    assert "notes" in status and "3 steps" in status and "oldest first" in status
