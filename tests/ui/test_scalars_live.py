"""A run being written, in the scalar view: newer data reaches the charts on screen; a chart
scrolled out of view is not redrawn for it, and shows it once scrolled into view (issue 14)."""
from __future__ import annotations

from uihelp import T0, make_app, run_pilot, wait_for, wait_for_view

from tui_insight.summary.formats.writer import SummaryWriter
from tui_insight.ui.views.scalars import ScalarsView
from tui_insight.ui.widgets.scalar_panes import ChartGrid
from tui_insight.ui.widgets.chart import draw_chart

TAGS = [f"tag_{i}" for i in range(8)]
STEPS = 30


def write_steps(root, first: int, last: int, timestamp: int) -> None:
    with SummaryWriter(root / "run", timestamp=timestamp, wall_time=T0) as writer:
        for step in range(first, last + 1):
            for i, tag in enumerate(TAGS):
                writer.add_scalar(tag, i + 1.0 / step)
            writer.record(step, wall_time=T0 + step)


def test_a_chart_off_screen_is_not_redrawn_for_new_steps_until_it_is_scrolled_into_view(tmp_path):
    write_steps(tmp_path, 1, STEPS, int(T0))
    app = make_app(tmp_path)

    async def body(pilot):
        app.open_jobs(("./run",))
        await wait_for_view(pilot, app)
        view = app.screen.query_one(ScalarsView)
        grid = view.query_one(ChartGrid)
        first, last = view.charts[TAGS[0]], view.charts[TAGS[-1]]
        assert await wait_for(pilot, lambda: first.draws > 0)
        before = last.draws
        write_steps(tmp_path, STEPS + 1, STEPS + 1, int(T0) + 100)
        app.cache.reload()  # as the loading thread does on a change notice
        shown_first = await wait_for(pilot, lambda: len(first.traces[0].x) == STEPS + 1, timeout=5)
        await pilot.pause()
        off_screen = (grid.max_scroll_y > 0 and grid.scroll_y == 0, len(last.traces[0].x), last.draws - before)
        grid.scroll_end(animate=False, immediate=True)  # as the mouse wheel or `end` would
        shown_last = await wait_for(pilot, lambda: len(last.traces[0].x) == STEPS + 1 and last.draws > before,
                                    timeout=5)
        await pilot.pause()
        fresh = draw_chart(list(last.traces), last.options, last.content_size.width, last.content_size.height,
                           no_color=app.no_color)
        return shown_first, off_screen, shown_last, last.image().plain, fresh.plain

    shown_first, off_screen, shown_last, drawn, fresh = run_pilot(app, body, size=(120, 36))
    assert shown_first  # the chart on screen shows the new step
    assert off_screen == (True, STEPS, 0)  # the last chart, off screen, still has the old steps: not redrawn
    assert shown_last  # scrolled into view, it has the new step and is drawn
    assert drawn == fresh  # what it shows is the newest data
