"""Draw time of a distributions chart (TensorBoard's percentile bands) for 1,000 steps at 160x48
(issue 26). Run by hand, against the tree on PYTHONPATH:

    PYTHONPATH=. python bench/bench_distributions.py [--steps 1000] [--buckets 30]

Measured, median of 20 each:
- compress: TensorBoard's basis points of `--steps` histograms of `--buckets` buckets
  (`queries.distributions.distribution`), what a chart's load adds to decoding the steps;
- chart: `draw_bands` of that distribution on the cells of a full-screen chart at 160x48
  (158x38: the view's status, read-out, tabs and footer, the chart's border), without and with
  the step cursor, in true colour;
- view: in the app at 160x48 (Textual's Pilot), the histogram view on a run written by
  tensorboardX with `--steps` steps (the store keeps 50 a tag: limits.py), `d` then the chart
  full screen, then `left` pressed 20 times: the chart's own `draw_seconds` (CPU of drawing it)
  per cursor move.
"""
from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

TESTS = Path(__file__).resolve().parent.parent / "tests"
sys.path[:0] = [str(TESTS / "ui"), str(TESTS)]  # the UI tests' helpers (Pilot, a loaded cache)


def histogram_steps(steps: int, buckets: int) -> list:
    from tui_insight.summary.formats.values import HistogramData
    from tui_insight.summary.queries.histograms import HistogramStep

    rng = np.random.default_rng(0)
    out = []
    for step in range(steps):
        values = rng.normal(np.sin(step / 150), 1.0 + step / steps, 2000)
        counts, edges = np.histogram(values, bins=buckets)
        data = HistogramData(np.column_stack([edges[:-1], np.diff(edges), counts.astype(np.float64)]),
                             0, 0, 0, float(values.min()), float(values.max()))
        out.append(HistogramStep(step, 1_700_000_000.0 + step, data))
    return out


def median_ms(samples: list[float]) -> str:
    return f"{statistics.median(samples) * 1000:.1f} ms"


def bench_pure(steps: int, buckets: int) -> None:
    from tui_insight.summary.queries.distributions import distribution
    from tui_insight.ui.widgets.bands import BandOptions, draw_bands

    made = histogram_steps(steps, buckets)
    times = []
    for _ in range(20):
        started = time.perf_counter()
        dist = distribution(made)
        times.append(time.perf_counter() - started)
    print(f"compress {steps} steps x {buckets} buckets: {median_ms(times)}")
    for label, cursor in (("no cursor", None), ("cursor", steps // 2)):
        times = []
        for _ in range(20):
            started = time.perf_counter()
            draw_bands(dist, BandOptions(cursor=cursor), 158, 38, "#1e1e1e")
            times.append(time.perf_counter() - started)
        print(f"draw_bands, {steps} steps, 158x38 cells, {label}: {median_ms(times)}")


def write_run(root: Path, steps: int) -> None:
    from tensorboardX import SummaryWriter

    writer = SummaryWriter(str(root / "run"))
    rng = np.random.default_rng(1)
    for step in range(steps):
        writer.add_histogram("fc/weight", rng.normal(np.sin(step / 150), 1.0 + step / steps, 2000), step)
    writer.close()


def bench_view(logs: Path) -> None:
    from uihelp import make_app, run_pilot, wait_for

    from tui_insight.ui.views.histograms import HistogramBands, HistogramChart, HistogramsView

    app = make_app(logs)

    async def body(pilot):
        app.open_jobs(("./run",), "histograms")
        await pilot.pause()
        view = app.screen.query_one(HistogramsView)
        assert await wait_for(pilot, lambda: bool(view.query(HistogramChart)) and view.query_one(HistogramChart).ridge,
                              timeout=60)
        view.query_one(HistogramChart).focus()
        await pilot.press("d")
        assert await wait_for(pilot, lambda: bool(view.query(HistogramBands)) and view.query_one(HistogramBands).dist)
        chart = view.query_one(HistogramBands)
        await pilot.press("f", "end")
        await pilot.pause()
        kept = len(chart.dist)
        draws = []
        for _ in range(20):
            before = chart.draws
            await pilot.press("left")
            assert await wait_for(pilot, lambda before=before: chart.draws > before)
            draws.append(chart.draw_seconds)
        return kept, chart.content_size, draws

    kept, size, draws = run_pilot(app, body, size=(160, 48))
    print(f"view at 160x48, full screen ({size.width}x{size.height} cells, {kept} kept steps): per cursor move "
          f"(CPU) median {median_ms(draws)}, max {max(draws) * 1000:.1f} ms")


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--steps", type=int, default=1000)
    parser.add_argument("--buckets", type=int, default=30)
    args = parser.parse_args()
    bench_pure(args.steps, args.buckets)
    with tempfile.TemporaryDirectory() as tmp:
        logs = Path(tmp) / "logs"
        write_run(logs, args.steps)
        bench_view(logs)


if __name__ == "__main__":
    main()
