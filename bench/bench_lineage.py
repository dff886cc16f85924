"""Speed of the lineage view's parallel coordinates and parameter importance (issue 11).

Run by hand: `python bench/bench_lineage.py [--runs 1000] [--size 160x48]`. It writes 1,000
lineage runs with varied hyper-parameters (`tests/lineage_runs.py`, the project's writer) into
a temporary directory under $TMPDIR, loads them and prints:

- importance over every run (`summary.importance.importances`; the bound is 100 ms);
- in a headless app at 160x48 with the chart on 12 axes (`p`): a brush step (`]`, `{`) as the
  work on the UI thread, i.e. the state transition, the filter and both tables, the chart's
  brushes and its drawing (the bound is 50 ms), and the time until the app is idle again
  (which includes Textual's own frame); and the chart's drawing alone, with and without the
  rasterised lines kept from the last draw.
"""
from __future__ import annotations

import argparse
import asyncio
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tests"))

from lineage_runs import write_lineage_runs  # noqa: E402

from tui_insight.summary.queries.lineage import columns, model_rows  # noqa: E402
from tui_insight.summary.queries.importance import importances  # noqa: E402
from tui_insight.summary.store.cache import SummaryCache  # noqa: E402
from tui_insight.ui.app import InsightApp  # noqa: E402

AXES = ["network", "optimizer", "learning_rate", "epoch", "batch_size", "device_num", "loss", "model_size",
        "metric/Accuracy", "metric/Loss", "user_defined/dropout", "user_defined/seed"]  # 12 axes


def ms(seconds: float) -> str:
    return f"{seconds * 1000:7.1f} ms"


def median_time(fn, repeat: int = 7) -> float:
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return statistics.median(times)


async def measure(logdir: Path, size: tuple[int, int]) -> None:
    from tui_insight.ui.views.lineage import LineageView
    from tui_insight.ui.widgets.parallel_coords import ChartLook, ParallelChart, draw_parallel

    cache = SummaryCache(str(logdir))
    start = time.perf_counter()
    cache.reload()
    print(f"load {len(cache.jobs)} runs:                    {ms(time.perf_counter() - start)}")
    rows = model_rows(cache.jobs)
    names = columns(rows)
    found = importances(rows, names)
    print(f"importance, {len(rows)} runs x {len(found)} targets: {ms(median_time(lambda: importances(rows, names)))}"
          "  (bound: 100 ms)")

    app = InsightApp(cache, start_loading=False, reload_interval=0)
    async with app.run_test(size=size) as pilot:
        await pilot.pause()
        await pilot.press("l")
        await pilot.pause()
        view = app.screen.query_one(LineageView)
        choosable = [c for c in view.all_columns if c != "summary_dir"]
        view.state = view.state.with_columns(AXES, choosable)
        await pilot.press("p")
        await pilot.pause()
        chart = view.query_one(ParallelChart)
        print(f"chart: {len(chart.runs.ids)} runs x {len(chart.runs.axes)} axes at {chart.size.width}x"
              f"{chart.size.height} cells")
        view.state = view.state.pick_axis([a.column for a in chart.runs.axes], 2)  # learning_rate

        steps = [("low", 1), ("high", -1), ("low", 1), ("high", 1), ("low", -1), ("low", -1), ("high", 1)]
        idle = []
        for _ in range(7):
            t = time.perf_counter()
            await pilot.pause()
            idle.append(time.perf_counter() - t)
        print(f"(an idle wait with no work):        {ms(statistics.median(idle))}: part of every 'until idle'")

        work, idle = [], []
        for i in range(21):
            name, step = steps[i % len(steps)]
            t = time.perf_counter()
            view._chart_command(name, step)
            chart.strips()  # the frame's drawing of the chart (the tables draw their visible lines only)
            work.append(time.perf_counter() - t)
            await pilot.pause()
            idle.append(time.perf_counter() - t)
        print(f"brush step ([ ] {{ }}):             {ms(statistics.median(work))} work (max {ms(max(work))}), "
              f"{ms(statistics.median(idle))} until idle  (bound: 50 ms)")
        print(f"  filter now: {view.state.filter!r}, {len(view.shown)} of {len(view.rows)} runs inside")

        runs, look = chart.runs, chart.look
        width, height = chart.content_size.width, chart.content_size.height
        raster: dict = {}
        draw_parallel(runs, look, width, height, raster=raster)
        flipped = ChartLook(bytes(1 - b for b in look.inside), look.picked, look.brushes, look.highlight)
        looks = [look, flipped]
        state = {"i": 0}

        def redraw() -> None:
            state["i"] += 1
            draw_parallel(runs, looks[state["i"] % 2], width, height, raster=raster)

        print(f"chart drawing, lines kept:          {ms(median_time(redraw))}")
        scratch = median_time(lambda: draw_parallel(runs, look, width, height))
        print(f"chart drawing from scratch:         {ms(scratch)}")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=1000)
    parser.add_argument("--size", default="160x48")
    args = parser.parse_args(argv)
    width, height = (int(x) for x in args.size.split("x"))
    with tempfile.TemporaryDirectory(prefix="bench-lineage-chart-") as tmp:
        start = time.perf_counter()
        write_lineage_runs(Path(tmp), args.runs)
        print(f"write {args.runs} lineage runs:              {ms(time.perf_counter() - start)}")
        asyncio.run(measure(Path(tmp), (width, height)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
