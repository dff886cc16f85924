"""Benchmark logs, written with tui_insight's own writer.

    python bench/make_logs.py big DIR    # issue 2: one ~100 MB file, 50 scalar tags x 20,000
                                         # steps + 20 histogram tags x 2,000 steps
    python bench/make_logs.py many DIR   # issue 3: 500 small jobs
    python bench/make_logs.py tensorboard DIR  # issue 30: a ~100 MB tensorboardX run of scalars
                                               # and histograms
"""
from __future__ import annotations

import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from tui_insight.proto import summary_pb2  # noqa: E402
from tui_insight.summary.formats.writer import SummaryWriter, fill_histogram  # noqa: E402


def write_big(directory: Path, scalar_tags: int = 50, steps: int = 20_000, hist_tags: int = 20,
              hist_every: int = 10) -> Path:
    rng = np.random.default_rng(0)
    writer = SummaryWriter(directory, timestamp=1_700_000_000, wall_time=1_700_000_000.0)
    # Histogram protos are prepared once per tag and reused with a shift: binning 40,000
    # histograms would make this script slow without changing what the reader sees.
    base = []
    for h in range(hist_tags):
        proto = summary_pb2.Summary.Histogram()
        fill_histogram(proto, rng.normal(size=5000))
        base.append(proto)
    names = [f"train/scalar_{i:02d}" for i in range(scalar_tags)]
    for step in range(1, steps + 1):
        for i, name in enumerate(names):
            writer.add_scalar(name, float(np.sin(step / 500 + i)) + 0.001 * step)
        if step % hist_every == 0:
            for h, proto in enumerate(base):
                value = writer._pending.value.add(tag=f"weights/layer_{h:02d}")
                value.histogram.CopyFrom(proto)
                value.histogram.min = proto.min + step * 1e-4
        writer.record(step, wall_time=1_700_000_000.0 + step * 0.1)
    writer.close()
    return writer.path


def write_many(directory: Path, jobs: int = 500, steps: int = 50) -> None:
    for j in range(jobs):
        writer = SummaryWriter(directory / f"run_{j:03d}", timestamp=1_700_000_000 + j)
        for step in range(1, steps + 1):
            writer.add_scalar("loss", 1.0 / step + j * 1e-3)
            writer.add_scalar("acc", 1 - 1.0 / step)
            writer.record(step)
        writer.close()


def write_tensorboard(directory: Path, megabytes: float = 100.0, scalar_tags: int = 10, hist_tags: int = 20,
                      values: int = 2000) -> Path:
    """A run as PyTorch writes it, by the real tensorboardX writer: each step one event per
    scalar and one per histogram (tensorboardX's default "tensorflow" bins), the weights drifting
    step by step, until the file holds `megabytes`."""
    from tensorboardX import SummaryWriter as TbWriter

    rng = np.random.default_rng(12)
    weights = [rng.standard_normal(values) * (0.1 + 0.02 * h) for h in range(hist_tags)]
    writer = TbWriter(str(directory), flush_secs=3600)
    step = 0
    while True:
        step += 1
        wall = 1_700_000_000.0 + step * 0.25
        for i in range(scalar_tags):
            writer.add_scalar(f"train/scalar_{i:02d}", float(np.sin(step / 300 + i)) + 0.001 * step, step,
                              walltime=wall)
        for h in range(hist_tags):
            weights[h] += rng.standard_normal(values) * 0.002
            writer.add_histogram(f"weights/layer_{h:02d}", weights[h], step, walltime=wall)
        if step % 50 == 0:
            writer.flush()
            if sum(p.stat().st_size for p in directory.glob("events.out.tfevents.*")) >= megabytes * 1e6:
                break
    writer.close()
    return next(directory.glob("events.out.tfevents.*"))


if __name__ == "__main__":
    kind, out = sys.argv[1], Path(sys.argv[2])
    t0 = time.perf_counter()
    if kind == "big":
        path = write_big(out)
        print(f"wrote {path} ({path.stat().st_size / 1e6:.1f} MB) in {time.perf_counter() - t0:.1f}s")
    elif kind == "tensorboard":
        path = write_tensorboard(out)
        print(f"wrote {path} ({path.stat().st_size / 1e6:.1f} MB) in {time.perf_counter() - t0:.1f}s")
    else:
        write_many(out)
        print(f"wrote 500 jobs under {out} in {time.perf_counter() - t0:.1f}s")
