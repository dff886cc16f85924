"""Pilot tests of type-ahead in the pickers: a few letters find one of hundreds of items
(250 tags: under the cache's cap of scalar tags per job)."""
from __future__ import annotations

import pytest
from textual.widgets import OptionList
from uihelp import T0, make_app, run_pilot, wait_for

from tui_insight.summary.formats.writer import SummaryWriter
from tui_insight.ui.widgets.job_table import JobTable

TAGS = [f"layer_{i:03d}/grad_norm" for i in range(250)] + ["loss"]


def many_tags(root):
    with SummaryWriter(root / "run_a", timestamp=int(T0), wall_time=T0) as writer:
        for step in (1, 2):
            for tag in TAGS:
                writer.add_scalar(tag, float(step))
            writer.record(step, wall_time=T0 + step)
    return root


def every_tag_read(app) -> bool:
    job = app.cache.jobs.get("./run_a")
    return job is not None and len(job.digests) == len(TAGS)


def shown_labels(screen) -> list[str]:
    options = screen.query_one(OptionList)
    return [str(options.get_option_at_index(i).prompt) for i in range(options.option_count)]


@pytest.mark.parametrize("size", [(80, 24), (160, 48)])
def test_typing_in_the_headline_picker_filters_and_enter_picks(tmp_path, size):
    app = make_app(many_tags(tmp_path))

    async def body(pilot):
        seen = {}
        assert await wait_for(pilot, lambda: app.screen.query(JobTable) and every_tag_read(app))
        await pilot.press("m")
        assert await wait_for(pilot, lambda: type(app.screen).__name__ == "HeadlinePicker")
        seen["all"] = len(shown_labels(app.screen))
        await pilot.press(*"r_17")
        await pilot.pause()
        seen["typed"] = shown_labels(app.screen)
        await pilot.press("down", "enter")
        assert await wait_for(pilot, lambda: type(app.screen).__name__ == "JobsScreen")
        seen["chosen"] = app.screen.state.headline
        await pilot.press("m")
        assert await wait_for(pilot, lambda: type(app.screen).__name__ == "HeadlinePicker")
        await pilot.press(*"nothing-like-it")
        await pilot.pause()
        seen["none"] = (shown_labels(app.screen), "nothing matches" in str(app.screen.query_one("#picker-count").render()))
        await pilot.press("escape")
        seen["kept"] = app.screen.state.headline
        return seen

    seen = run_pilot(app, body, size)
    assert seen["all"] == len(TAGS) + 1  # and "each job's loss"
    assert seen["typed"] == [f"layer_{i:03d}/grad_norm" for i in range(170, 180)]
    assert seen["chosen"] == "layer_171/grad_norm"  # the second match: ↓ moves among the matches
    assert seen["none"] == ([], True)
    assert seen["kept"] == "layer_171/grad_norm"  # escape chooses nothing
