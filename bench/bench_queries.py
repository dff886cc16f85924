"""Query benchmarks, run by hand: python bench/bench_queries.py

Issue targets: ridgeline 50 steps x 30 bins <= 20 ms; 50,000-node graph open <= 1 s and a
search <= 200 ms; lineage sort or filter of 1,000 rows <= 100 ms; decimating a series costs the
same for 100 or 100,000 points.
"""
from __future__ import annotations

import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests" / "summary"))

from tui_insight.summary.formats.graph_build import build_graph  # noqa: E402
from tui_insight.summary.queries.lineage import filter_rows, parse_conditions, sort_rows  # noqa: E402
from tui_insight.summary.formats.payloads import HistogramData  # noqa: E402
from tui_insight.summary.queries.histograms import HistogramStep, rebin  # noqa: E402
from tui_insight.summary.queries.scalars import decimate  # noqa: E402


def best_of(fn, repeat=5) -> float:
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return min(times)


def main() -> None:
    rng = np.random.default_rng(1)
    steps = []
    for k in range(50):
        values = rng.normal(k * 0.1, 1.0, size=1000)
        counts, edges = np.histogram(values, bins=90)
        data = HistogramData(np.c_[edges[:-1], np.diff(edges), counts], 0, 0, 0, float(values.min()), float(values.max()))
        steps.append(HistogramStep(k, float(k), data))
    print(f"rebin 50 steps x 30 bins: {best_of(lambda: rebin(steps)) * 1000:.1f} ms (target 20 ms)")

    from test_graph import _large_graph

    proto = _large_graph(1000)
    start = time.perf_counter()
    graph = build_graph(proto)
    print(f"graph of {len(proto.node):,} operators: build {time.perf_counter() - start:.2f} s (target 1 s)")
    print(f"  search 'conv': {best_of(lambda: graph.search('conv')) * 1000:.1f} ms (target 200 ms)")
    start = time.perf_counter()
    build_graph(proto, optimized=True)
    print(f"  optimized build {time.perf_counter() - start:.2f} s")

    from test_lineage import _rows

    rows = _rows([{"loss": (i * 7919) % 1000 / 10 if i % 10 else None, "optimizer": ("SGD", "Adam")[i % 2],
                   "metric/acc": i / 1000, "epoch": i % 7} for i in range(1000)])
    conditions = parse_conditions("loss<50 optimizer=SGD metric/acc>=0.1 epoch in 1,2,3")
    print(f"lineage 1,000 rows: filter {best_of(lambda: filter_rows(rows, conditions)) * 1000:.2f} ms, "
          f"sort {best_of(lambda: sort_rows(rows, 'loss', descending=True)) * 1000:.2f} ms (target 100 ms)")

    for n in (100, 100_000, 1_000_000):
        x = np.arange(n, dtype=np.float64)
        y = rng.normal(size=n)
        print(f"decimate {n:>9,} points to 200 columns: {best_of(lambda: decimate(x, y, 200)) * 1000:.2f} ms")


if __name__ == "__main__":
    main()
