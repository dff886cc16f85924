"""Loss-landscape benchmark (issue 10). Run by hand:

    python bench/bench_landscape.py [--repeat 20]

A 256 x 256 loss grid (a bowl with ripples and noise: every cell a colour of its own, the hard
case) with a 50-checkpoint loss path, drawn at 160 x 48 cells. Prints, in milliseconds (median,
and the slowest run): decoding the record from its protobuf bytes, then drawing (sampling,
colours, contours, path, cursor, colour bar, strips) as heat map, contour lines, both, under
NO_COLOR, and the relief. Target: a heat-map draw <= 50 ms.
"""
from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from tui_insight.proto import summary_pb2  # noqa: E402
from tui_insight.summary.queries.landscape import decode_landscape  # noqa: E402
from tui_insight.ui.widgets import heatmap  # noqa: E402
from tui_insight.ui.widgets.heatmap import HeatOptions, ReliefOptions, draw_heatmap, draw_relief  # noqa: E402

SIZE = 256
COLS, ROWS = 160, 48
TARGET_MS = 50.0


def record() -> bytes:
    rng = np.random.default_rng(0)
    axis = np.linspace(-1, 1, SIZE)
    X, Y = np.meshgrid(axis, axis)
    z = 1 + X ** 2 + 0.5 * Y ** 2 + 0.05 * np.sin(12 * X) * np.cos(9 * Y) + 0.01 * rng.standard_normal(X.shape)
    value = summary_pb2.Summary.Value(tag="landscape_[1, 50]")
    ll = value.loss_landscape
    ll.landscape.x.float_data.extend(axis.tolist())
    ll.landscape.y.float_data.extend(axis.tolist())
    ll.landscape.z.float_data.extend(z.ravel().tolist())
    ll.landscape.z.dims.extend([SIZE, SIZE])
    t = np.linspace(0, 1, 50)
    ll.loss_path.intervals.extend(range(1, 51))
    ll.loss_path.points.x.float_data.extend((0.9 * (1 - t) * np.cos(5 * t)).tolist())
    ll.loss_path.points.y.float_data.extend((0.9 * (1 - t) * np.sin(5 * t)).tolist())
    ll.loss_path.points.z.float_data.extend((2 - t).tolist())
    for name, v in zip("xyz", (0.0, 0.0, 1.0)):
        getattr(ll.convergence_point, name).float_data.append(v)
    ll.metadata.decomposition, ll.metadata.unit, ll.metadata.step_per_epoch = "PCA", "step", 50
    return summary_pb2.Summary(value=[value]).SerializeToString()


def timed(fn, repeat: int) -> tuple[float, float]:
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        fn()
        times.append((time.perf_counter() - start) * 1000)
    return statistics.median(times), max(times)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--repeat", type=int, default=20)
    args = parser.parse_args()
    data = record()

    def decode():
        return decode_landscape(summary_pb2.Summary.FromString(data).value[0])

    ls = decode()
    print(f"{SIZE}x{SIZE} grid, 50-checkpoint path, drawn at {COLS}x{ROWS}; median / slowest of {args.repeat}")
    print(f"  decode record ({len(data) / 1e6:.1f} MB)      {timed(decode, args.repeat)[0]:7.1f} ms")
    cursor = (SIZE // 3, SIZE // 2)
    results = {}
    for name, options in [
        ("heat", HeatOptions(cursor=cursor)),
        ("contour", HeatOptions(drawing="contour", cursor=cursor)),
        ("both", HeatOptions(drawing="both", cursor=cursor)),
        ("heat NO_COLOR", HeatOptions(cursor=cursor, no_color=True)),
    ]:
        heatmap._STYLE_CACHE.clear()
        cold = timed(lambda: draw_heatmap(ls, COLS, ROWS, options), 1)[0]
        median, slowest = timed(lambda: draw_heatmap(ls, COLS, ROWS, options), args.repeat)
        results[name] = median
        print(f"  draw {name:<14}  cold {cold:6.1f} ms   warm {median:6.1f} ms (slowest {slowest:.1f})")
    median, slowest = timed(lambda: draw_relief(ls, COLS, ROWS, ReliefOptions()), args.repeat)
    print(f"  draw relief (24 lines each way)   {median:6.1f} ms (slowest {slowest:.1f})")
    worst = max(results.values())
    verdict = "ok" if worst <= TARGET_MS else "OVER"
    print(f"slowest map drawing {worst:.1f} ms (target <= {TARGET_MS:.0f} ms): {verdict}")


if __name__ == "__main__":
    main()
