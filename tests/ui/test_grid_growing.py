"""Opening a job of many tags: only the charts that fit on screen (and a row more) are built with
the view, so its first frame comes at once with them drawn; the others are mounted after it."""
from __future__ import annotations

import asyncio
import os

import numpy as np
import pytest
from uihelp import MTIME, NOW, T0, make_app

from tui_insight.summary.formats.writer import SummaryWriter
from tui_insight.ui.views.histograms import HistogramChart
from tui_insight.ui.views.scalars import ScalarsView
from tui_insight.ui.widgets.chart import ScalarChart

SCALARS = [f"tag{i:02d}" for i in range(30)]
HISTOGRAMS = [f"layer{i:02d}.weight" for i in range(16)]


def write_wide_run(root):
    directory = root / "wide"
    directory.mkdir()
    rng = np.random.default_rng(3)
    with SummaryWriter(directory, timestamp=int(T0), wall_time=T0) as writer:
        for step in range(1, 11):
            for i, tag in enumerate(SCALARS):
                writer.add_scalar(tag, float(i + np.sin(step)))
            for tag in HISTOGRAMS:
                writer.add_histogram(tag, rng.standard_normal(50))
            writer.record(step, wall_time=T0 + 2.0 * step)
    for path in directory.iterdir():
        os.utime(path, (MTIME, MTIME))


def name(chart) -> str:
    return chart.chart_id if isinstance(chart, ScalarChart) else chart.chart_key[1]


def open_wide(tmp_path, size, kind, key=None):
    """Open the job (then press `key`, a tab's): the `kind` charts in the DOM when the keyboard
    lands on one, with whether each had its plot then (scalars); every chart once all came, and
    those on screen; after `end` (tabs on histograms), whether the last has the keyboard (and its plot)."""
    write_wide_run(tmp_path)
    app = make_app(tmp_path, clock=lambda: NOW)
    first: dict[str, bool] = {}
    watching = [key is None]

    def drawn(chart) -> bool:
        return bool(chart.plot.traces) if isinstance(chart, ScalarChart) else True

    def hook(message) -> None:
        if watching[0] and not first and app.screen_stack and isinstance(app.focused, kind):
            first.update({name(chart): drawn(chart) for chart in app.screen.query(kind)})

    async def until(pilot, condition) -> None:
        for _ in range(200):
            if condition():
                return
            await pilot.pause(0.05)
        raise AssertionError("never came")

    async def main():
        async with app.run_test(size=size, message_hook=hook) as pilot:
            await pilot.pause()
            app.open_jobs(("./wide",))
            if key is not None:
                await until(pilot, lambda: isinstance(app.focused, ScalarChart))
                watching[0] = True
                await pilot.press(key)
            total = len(SCALARS) if kind is ScalarChart else len(HISTOGRAMS)
            await until(pilot, lambda: len(app.screen.query(kind)) == total)
            await pilot.pause()
            charts = list(app.screen.query(kind))
            grid = charts[0].parent
            on_screen = [name(chart) for chart in charts if grid.region.overlaps(chart.region)]
            if kind is ScalarChart:
                await pilot.press("end")
            else:  # `end` is a histogram's newest step: tab from chart to chart
                for _ in range(total):
                    if app.focused is charts[-1]:
                        break
                    await pilot.press("tab")
            await pilot.pause()
            last = app.focused
            return dict(first), [name(chart) for chart in charts], on_screen, last is charts[-1] and drawn(last)

    return asyncio.run(main())


@pytest.mark.parametrize("size, composed", [((80, 24), 4), ((160, 48), 8)])
def test_scalar_charts_on_screen_come_first_and_the_rest_after(tmp_path, size, composed):
    """80x24: one column of rows 10 tall, 4 rows (24 / 10, and one more) composed; 160x48: two
    columns, rows 19 tall, 4 rows. The charts on screen were there, drawn, when the keyboard came."""
    first, charts, on_screen, last_ready = open_wide(tmp_path, size, ScalarChart)
    assert list(first) == SCALARS[:composed]
    assert all(first.values())
    assert charts == SCALARS
    assert on_screen and set(on_screen) <= set(first)
    assert last_ready  # `end`: the last chart, mounted later, has the keyboard and its data


def test_histogram_charts_on_screen_come_first_and_the_rest_after(tmp_path):
    """160x48, histograms (`2`): two columns of rows 19 tall, 4 rows composed at the tab's first visit."""
    first, charts, on_screen, last_ready = open_wide(tmp_path, (160, 48), HistogramChart, key="2")
    assert list(first) == HISTOGRAMS[:8]
    assert charts == HISTOGRAMS
    assert on_screen and set(on_screen) <= set(first)
    assert last_ready


def test_a_view_of_few_tags_composes_every_chart(tmp_path):
    """Three tags fit: nothing is left for after."""
    from uihelp import write_run
    write_run(tmp_path, "run")
    app = make_app(tmp_path, clock=lambda: NOW)
    seen: list[int] = []

    def hook(message) -> None:
        if not seen and app.screen_stack and isinstance(app.focused, ScalarChart):
            seen.append(len(app.screen.query(ScalarChart)))

    async def main():
        async with app.run_test(size=(80, 24), message_hook=hook) as pilot:
            await pilot.pause()
            app.open_jobs(("./run",))
            for _ in range(100):
                if seen:
                    break
                await pilot.pause(0.05)
            return len(app.screen.query_one(ScalarsView).charts)

    assert asyncio.run(main()) == 3
    assert seen == [3]
