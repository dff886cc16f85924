"""App benchmarks for issue 3, run by hand: python bench/bench_app.py

- First paint of the job list for a LOGDIR of 500 jobs (target 300 ms): from starting the app
  to the first frame of the table with rows in it, and to all 500 rows shown.
- Redrawing a chart of 5 runs x 1000 points after a key press (target 20 ms): the drawing
  itself (draw_chart), and in the app from the key to the chart's lines painted.
"""
from __future__ import annotations

import statistics
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))
sys.path.insert(0, str(HERE))

from make_logs import write_many  # noqa: E402

from tui_insight.summary.formats.writer import SummaryWriter  # noqa: E402
from tui_insight.summary.store.cache import SummaryCache  # noqa: E402
from tui_insight.ui.app import InsightApp  # noqa: E402
from tui_insight.ui.widgets.chart import ChartOptions, ScalarChart, Trace, draw_chart  # noqa: E402
from tui_insight.ui.widgets.job_table import JobTable  # noqa: E402


def first_paint(logdir: Path) -> tuple[float, float]:
    marks: dict[str, float] = {}
    render_line = JobTable.render_line

    def timed(self, y):
        if self.row_count and "first" not in marks:
            marks["first"] = time.perf_counter()
        if self.row_count >= 500 and "all" not in marks:
            marks["all"] = time.perf_counter()
        return render_line(self, y)

    JobTable.render_line = timed
    try:
        start = time.perf_counter()
        app = InsightApp(SummaryCache(str(logdir)), reload_interval=0)

        async def auto(pilot):
            deadline = time.monotonic() + 20
            while "all" not in marks and time.monotonic() < deadline:
                await pilot.pause(0.005)
            app.exit()

        app.run(headless=True, auto_pilot=auto, size=(160, 48))
    finally:
        JobTable.render_line = render_line
    return marks["first"] - start, marks["all"] - start


def draw_times() -> list[float]:
    rng = np.random.default_rng(0)
    colours = ["#0072b2", "#e69f00", "#009e73", "#cc79a7", "#56b4e9"]
    traces = [Trace(np.arange(1000.0), np.cumsum(rng.normal(size=1000)), c) for c in colours]
    times = []
    for _ in range(20):
        start = time.perf_counter()
        draw_chart(traces, ChartOptions(legend=tuple((c, f"run{i}") for i, c in enumerate(colours))), 150, 40)
        times.append(time.perf_counter() - start)
    return times


def key_to_paint(logdir: Path) -> list[float]:
    """Compare 5 runs of 1000 steps, press `y` (log y) and time until the chart is repainted."""
    painted: list[float] = []
    render_line = ScalarChart.render_line

    def timed(self, y):
        strip = render_line(self, y)
        painted.append(time.perf_counter())
        return strip

    ScalarChart.render_line = timed
    times = []
    app = InsightApp(SummaryCache(str(logdir)), reload_interval=0)

    async def auto(pilot):
        while not (app.screen.query(JobTable) and app.screen.query_one(JobTable).row_count == 5):
            await pilot.pause(0.01)
        await pilot.press("space", "down", "space", "down", "space", "down", "space", "down", "space", "c")
        await pilot.pause(1.0)
        for _ in range(10):
            painted.clear()
            start = time.perf_counter()
            await pilot.press("y")
            await pilot.pause(0.2)
            if painted:
                times.append(painted[-1] - start)
        app.exit()

    try:
        app.run(headless=True, auto_pilot=auto, size=(160, 48))
    finally:
        ScalarChart.render_line = render_line
    return times


def ms(values: list[float]) -> str:
    return f"median {statistics.median(values) * 1000:.1f} ms, max {max(values) * 1000:.1f} ms"


def main() -> None:
    with tempfile.TemporaryDirectory() as tmp:
        many = Path(tmp) / "many"
        write_many(many)
        runs = []
        for _ in range(3):
            runs.append(first_paint(many))
        print(f"500 jobs: first paint of the list {min(r[0] for r in runs) * 1000:.0f} ms (target 300 ms), "
              f"all rows {min(r[1] for r in runs) * 1000:.0f} ms (best of 3)")
        print(f"draw_chart 5 runs x 1000 points at 150x40: {ms(draw_times())} (target 20 ms)")
        five = Path(tmp) / "five"
        for j in range(5):
            with SummaryWriter(five / f"run{j}", timestamp=1) as writer:
                for step in range(1, 1001):
                    writer.add_scalar("loss", 1.0 / step + j * 0.01)
                    writer.record(step)
        print(f"key 'y' to chart painted, 5 runs x 1000 points, 160x48: {ms(key_to_paint(five))} "
              f"(includes Textual's frame scheduling)")


if __name__ == "__main__":
    main()
