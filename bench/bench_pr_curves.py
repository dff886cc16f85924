"""Draw time of the PR curves view at 160x48 on a run of 1,000 PR-curve steps (issue 26).
Run by hand, against the tree on PYTHONPATH:

    PYTHONPATH=. python bench/bench_pr_curves.py [--steps 1000] [--thresholds 201] [--runs 2]

`--runs` runs written by tensorboardX's `add_pr_curve`, `--steps` steps each of one tag
(`--thresholds` thresholds, tensorboardX's default 127 unless given). The store keeps 100
steps a tag (limits.py). Measured, median of 20 each:
- chart: `draw_chart` of the view's traces for one run and for every run overlaid, 160x48;
- view: in the app at 160x48 (Textual's Pilot), the view opened on the runs compared until
  every readout is there (reading the kept steps included), then `[` pressed 20 times: the
  chart's own `draw_seconds` (CPU of drawing and painting it) per step change.
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


def write(root: Path, runs: int, steps: int, thresholds: int) -> None:
    from tensorboardX import SummaryWriter

    for r in range(runs):
        writer = SummaryWriter(str(root / f"run{r}"))
        rng = np.random.default_rng(r)
        for step in range(steps):
            labels = rng.integers(0, 2, 500)
            predictions = np.clip(labels * (0.1 + 0.4 * step / steps) + rng.random(500) * 0.6, 0, 1)
            writer.add_pr_curve("pr/cat", labels, predictions, step, num_thresholds=thresholds)
        writer.close()


def median_ms(samples: list[float]) -> str:
    return f"{statistics.median(samples) * 1000:.1f} ms"


def bench_chart(cache, train_ids: list[str]) -> None:
    from tui_insight.ui.views.pr_curves import curve_traces
    from tui_insight.ui.widgets.chart import ChartOptions, draw_chart

    curves = []
    for tid in train_ids:
        view = cache.job(tid)
        series = view.series("pr_curve", "pr/cat")
        curves.append(("#ff8800", cache.payloads.pr_curve(view.locator(series, len(series) - 1))))
    options = ChartOptions(x_axis="fraction", x_range=(0.0, 1.0), note="precision (y) over recall (x)")
    for label, chosen in (("one run", curves[:1]), (f"{len(curves)} runs overlaid", curves)):
        traces = curve_traces(chosen, [c.values.shape[1] // 2 for _, c in chosen])
        times = []
        for _ in range(20):
            started = time.perf_counter()
            draw_chart(traces, options, 158, 38)
            times.append(time.perf_counter() - started)
        print(f"draw_chart, {label}, 158x38 cells: {median_ms(times)}")


def bench_view(logs: Path, train_ids: list[str]) -> None:
    from uihelp import make_app, run_pilot, wait_for, wait_for_view

    from tui_insight.ui.views.pr_curves import PrCurvesView
    from tui_insight.ui.widgets.chart import ScalarChart

    app = make_app(logs)

    async def body(pilot):
        started = time.perf_counter()
        app.open_jobs(tuple(train_ids), "pr_curves")
        await wait_for_view(pilot, app, "PrCurvesView")
        view = app.screen.query_one(PrCurvesView)

        def readouts() -> int:
            return str(view.query_one("#pr-readout").render()).count(" · area ")
        assert await wait_for(pilot, lambda: readouts() == len(train_ids), timeout=60)
        await pilot.pause()
        opened = time.perf_counter() - started
        chart = view.query_one(ScalarChart)
        draws = []
        for _ in range(20):
            before = chart.draws
            await pilot.press("left_square_bracket")
            assert await wait_for(pilot, lambda before=before: chart.draws > before)
            await pilot.pause()
            draws.append(chart.draw_seconds)
        return opened, draws

    opened, draws = run_pilot(app, body, size=(160, 48))
    print(f"view opened on {len(train_ids)} runs until every readout (wall): {opened * 1000:.0f} ms")
    print(f"chart per step change (CPU, draw + paint): median {median_ms(draws)}, max {max(draws) * 1000:.1f} ms")


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--steps", type=int, default=1000)
    parser.add_argument("--thresholds", type=int, default=127)
    parser.add_argument("--runs", type=int, default=2)
    args = parser.parse_args()
    from tui_insight.summary.store.cache import SummaryCache

    with tempfile.TemporaryDirectory() as tmp:
        logs = Path(tmp) / "logs"
        started = time.perf_counter()
        write(logs, args.runs, args.steps, args.thresholds)
        print(f"wrote {args.runs} runs x {args.steps} steps x {args.thresholds} thresholds "
              f"in {time.perf_counter() - started:.1f} s")
        cache = SummaryCache(str(logs))
        started = time.perf_counter()
        cache.reload()
        print(f"cache loaded in {(time.perf_counter() - started) * 1000:.0f} ms")
        train_ids = sorted(cache.jobs)
        kept = len(cache.job(train_ids[0]).series("pr_curve", "pr/cat"))
        print(f"steps kept per tag: {kept}")
        bench_chart(cache, train_ids)
        bench_view(logs, train_ids)


if __name__ == "__main__":
    main()
