"""A ~100 MB MindSpore run laid out as `SummaryCollector` writes one (issue 30).

    python bench/make_collector_run.py DIR [--megabytes 100]

One summary file written by our `SummaryWriter`: every step one event holding the step's
scalars (loss, learning rate, a few metrics) and a histogram per weight (MindSpore's bins: 90
for a large tensor), the weights drifting step by step so that bucket counts, and with them
the events' sizes, differ from step to step as in a real run.
"""
from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from tui_insight.summary.formats.writer import SummaryWriter  # noqa: E402

SCALARS = ("loss", "learning_rate", "train/accuracy", "train/grad_norm", "eval/accuracy", "eval/loss",
           "epoch_time", "step_time")
WEIGHTS = tuple(f"{name}.{part}" for name in ("conv1", "bn1", "layer1.0.conv1", "layer1.0.conv2", "layer2.0.conv1",
                                              "layer2.0.conv2", "layer3.0.conv1", "layer3.0.conv2", "layer4.0.conv1",
                                              "fc") for part in ("weight", "bias"))


def write_collector_run(directory: Path, megabytes: float = 100.0, values_per_weight: int = 2000) -> Path:
    """Write the run into `directory`; its file's path."""
    rng = np.random.default_rng(30)
    writer = SummaryWriter(directory, timestamp=1_700_000_000, wall_time=1_700_000_000.0)
    weights = [rng.standard_normal(values_per_weight) * (0.1 + 0.02 * i) for i in range(len(WEIGHTS))]
    step = 0
    while True:
        step += 1
        loss = 2.5 * np.exp(-step / 800) + 0.05 * rng.random()
        numbers = (loss, 0.1 * 0.999 ** step, 1 - loss / 3, 1.0 + rng.random(), 1 - loss / 2.8, loss * 1.1,
                   12.0 + rng.random(), 0.05 + 0.01 * rng.random())
        for tag, number in zip(SCALARS, numbers):
            writer.add_scalar(tag, float(number))
        for i, tag in enumerate(WEIGHTS):
            weights[i] += rng.standard_normal(values_per_weight) * 0.002  # a training step's update
            writer.add_histogram(tag, weights[i])
        writer.record(step, wall_time=1_700_000_000.0 + step * 0.25)
        if step % 50 == 0:
            writer.flush()
            if writer.path.stat().st_size >= megabytes * 1e6:
                break
    writer.close()
    return writer.path


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("directory", type=Path)
    parser.add_argument("--megabytes", type=float, default=100.0)
    args = parser.parse_args()
    t0 = time.perf_counter()
    path = write_collector_run(args.directory, args.megabytes)
    print(f"wrote {path} ({path.stat().st_size / 1e6:.1f} MB) in {time.perf_counter() - t0:.1f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
