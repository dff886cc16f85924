"""Switching views in a dashboard: a view shown again, or built ahead and shown for the first
time, is painted once from what its widgets drew before: no chart is drawn again (`draws`),
no list row either."""
from __future__ import annotations

from collections import Counter

import pytest
from uihelp import MINDSPORE_LOGS, make_app, run_pilot, wait_for, wait_for_view

from tui_insight.ui import _textual_compat as compat
from tui_insight.ui.views.base import DataView
from tui_insight.ui.views.histograms import HistogramChart, HistogramsView
from tui_insight.ui.widgets.chart import ScalarChart
from tui_insight.ui.widgets.tag_picker import TagList

SIZE = (160, 48)


class Drawn:
    """Counts the frames the app paints and the lines each widget of `classes` renders
    (`Widget.render_line`, called for the lines a widget has not rendered at its size)."""

    def __init__(self, app, classes) -> None:
        self.frames = 0
        self.lines: Counter = Counter()
        display = app._display

        def counted(screen, renderable):
            if renderable is not None:
                self.frames += 1
            return display(screen, renderable)

        app._display = counted
        self._patched = []
        for cls in classes:
            render_line = cls.render_line

            def drawn(widget, y, _render_line=render_line):
                self.lines[widget] += 1
                return _render_line(widget, y)

            self._patched.append((cls, render_line))
            cls.render_line = drawn

    def clear(self) -> None:
        self.frames = 0
        self.lines.clear()

    def restore(self) -> None:
        for cls, render_line in self._patched:
            cls.render_line = render_line

    def widgets(self, cls) -> int:
        return sum(1 for widget in self.lines if isinstance(widget, cls))


@pytest.fixture
def settled_keys(monkeypatch):
    """A key holds the paint until its messages are handled, however long they take.

    The app bounds that hold in wall time (`KEY_HOLD_SECONDS`): a key whose messages outlast it
    paints, then paints again when the rest lands (a view's key: the footer's keys). How many
    frames that makes depends on the machine's load and on what the process ran before, not on
    the view. Lifted, a second frame is one the view asked for after the first (a Resize
    handled after the layout, a timer), on any machine."""
    monkeypatch.setattr(compat, "KEY_HOLD_SECONDS", 10.0)


def draws(charts) -> int:
    """How many times `charts` were drawn (each chart counts its drawings: `draws`)."""
    return sum(chart.draws for chart in charts)


def test_a_view_built_ahead_shows_in_one_paint_drawing_no_chart(settled_keys):
    """Built hidden while the keys paused, the histogram view was laid out where it will show
    and drawn then: its key paints one frame and draws no chart and no row of the tag list.
    (Laid out only when shown, each chart on screen was drawn then, over two frames.) Two jobs."""
    app = make_app(MINDSPORE_LOGS, graph_prefetch_delay=0.05)
    drawn = Drawn(app, (TagList,))

    async def first_visit(pilot, job: str):
        app.open_jobs((job,))
        await wait_for_view(pilot, app)
        assert await wait_for(pilot, lambda: bool(app.screen.query(HistogramsView)))
        built = app.screen.query_one(HistogramsView)
        # Laid out hidden: its charts have their size before the view is shown, and are drawn
        # (all those on screen in one pass, the first among them) once the layout settled.
        assert await wait_for(pilot, lambda: any(chart.size for chart in built.query(HistogramChart)))
        assert await wait_for(pilot, lambda: built.query(HistogramChart).first().draws > 0)
        # The other views are built ahead too (their layouts would paint the tab bar meanwhile).
        assert await wait_for(pilot, lambda: len(app.screen.query(DataView)) == 5
                              and all(view.size for view in app.screen.query(DataView)))
        await pilot.pause(0.5)
        charts = list(built.query(HistogramChart))
        before = draws(charts)
        drawn.clear()
        await pilot.press("2")
        await wait_for_view(pilot, app, "HistogramsView")
        await pilot.pause(0.3)
        shown = [chart for chart in charts if chart.region]
        result = len(shown), drawn.frames, draws(charts) - before, drawn.widgets(TagList), type(app.focused).__name__
        await pilot.press("escape")
        return result

    async def body(pilot):
        try:
            return [await first_visit(pilot, job) for job in ("./lenet_lr0.01", "./lenet_lr0.1")]
        finally:
            drawn.restore()

    visits = run_pilot(app, body, size=SIZE)
    assert all(shown >= 3 and focused == "HistogramChart" for shown, _, _, _, focused in visits), visits
    assert [(charts, lists) for _, _, charts, lists, _ in visits] == [(0, 0), (0, 0)]
    assert [frames for _, frames, _, _, _ in visits] == [1, 1], visits


def test_a_view_shown_again_paints_once_drawing_no_chart(settled_keys):
    """Scalars, histograms, scalars again: the second `1` paints one frame, draws no chart, and
    the tag list keeps its rows (a Resize at the same size dropped them: a paint later)."""
    app = make_app(MINDSPORE_LOGS)
    drawn = Drawn(app, (TagList,))

    async def body(pilot):
        app.open_jobs(("./lenet_lr0.01",), "scalars")
        await wait_for_view(pilot, app)
        await pilot.press("2")
        await wait_for_view(pilot, app, "HistogramsView")
        await pilot.pause(0.3)
        await pilot.press("1")
        await wait_for_view(pilot, app)
        await pilot.pause(0.3)
        charts = list(app.screen.query(ScalarChart))
        before = draws(charts)
        frames, lists = [], 0
        for _ in range(2):
            await pilot.press("2")
            await wait_for_view(pilot, app, "HistogramsView")
            await pilot.pause(0.3)
            drawn.clear()
            await pilot.press("1")
            await wait_for_view(pilot, app)
            await pilot.pause(0.3)
            frames.append(drawn.frames)
            lists += drawn.widgets(TagList)
        drawn.restore()
        return len(charts), frames, draws(charts) - before, lists, type(app.focused).__name__

    charts, frames, charts_drawn, lists_drawn, focused = run_pilot(app, body, size=SIZE)
    assert charts >= 3
    assert (frames, charts_drawn, lists_drawn, focused) == ([1, 1], 0, 0, "ScalarChart")


def test_the_graph_view_of_a_dataset_graph_alone_is_built_ahead_too(tmp_path):
    """A job whose only graph is its dataset pipeline (no model graph for the graph prefetch)
    has its graph view built hidden with the others while the keys pause; `5` shows that one."""
    from tui_insight.summary.formats.writer import LineageWriter, SummaryWriter
    from tui_insight.ui.views.graph import GraphView

    job = tmp_path / "job"
    with SummaryWriter(job, timestamp=1_700_000_000, wall_time=1_700_000_000.0) as writer:
        writer.add_scalar("loss", 1.0)
        writer.record(1, wall_time=1_700_000_001.0)
    with LineageWriter(job, timestamp=1_700_000_000) as lineage:
        lineage.write_dataset_graph({"op_type": "Batch", "batch_size": 32, "children": [
            {"op_type": "MnistDataset", "dataset_dir": "/data/mnist"}]})
    app = make_app(tmp_path, graph_prefetch_delay=0.05)

    async def body(pilot):
        app.open_jobs(("./job",))
        await wait_for_view(pilot, app)
        ahead = await wait_for(pilot, lambda: bool(app.screen.query(GraphView)))
        built = app.screen.query(GraphView).first() if ahead else None
        await pilot.press("5")
        await wait_for_view(pilot, app, "GraphView")
        return ahead, app.screen.query_one(GraphView) is built

    assert run_pilot(app, body, size=SIZE) == (True, True)
