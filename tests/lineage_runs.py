"""Runs with varied hyper-parameters and lineage, written with the project's writer: the 30 runs
of the lineage chart and importance tests, and the 1,000 of `bench/bench_lineage.py`.

The loss and the metrics depend on the learning rate and the batch size (plus noise), so a
ranking by importance has something to find; some runs have no evaluation (missing metrics)
and two pipelines differ in their batch size and shuffle buffer. Files get fixed times, so the
rows' order (newest first) is the same on every run.
"""
from __future__ import annotations

import math
import os
import random
from pathlib import Path

from tui_insight.summary.formats.writer import LineageWriter

T0 = 1_700_000_000
LEARNING_RATES = (0.1, 0.03, 0.01, 0.003, 0.001)
BATCH_SIZES = (16, 32, 64, 128)


def write_lineage_runs(root: Path, count: int, seed: int = 7, mtime: float = T0 + 86_400) -> list[Path]:
    """`count` runs `run_000` ... under `root`; the later a run, the newer (it is listed first)."""
    rng = random.Random(seed)
    written = []
    for i in range(count):
        directory = root / f"run_{i:03d}"
        directory.mkdir(parents=True, exist_ok=True)
        lr = rng.choice(LEARNING_RATES)
        batch = rng.choice(BATCH_SIZES)
        epoch = rng.randint(1, 30)
        loss = 0.2 + 0.6 * abs(math.log10(lr) + 2) + batch / 400 + rng.gauss(0, 0.05)
        with LineageWriter(directory, timestamp=T0 + i) as writer:
            writer.write_train(optimizer=rng.choice(("Adam", "Momentum", "SGD")), learning_rate=lr,
                               loss_function="SoftmaxCrossEntropyWithLogits", epoch=epoch, device_num=1,
                               batch_size=batch, train_dataset_path="/data/train", train_dataset_size=60000,
                               network=rng.choice(("LeNet5", "ResNet18")), loss=loss, model_size=494183)
            if i % 10 != 3:  # every tenth run was not evaluated
                writer.write_eval({"Accuracy": max(0.0, min(1.0, 1.05 - loss / 2 + rng.gauss(0, 0.03))),
                                   "Loss": loss + rng.gauss(0, 0.02)}, "/data/test", 10000)
            writer.write_user_defined({"seed": rng.randint(0, 10_000), "dropout": rng.choice((0.0, 0.1, 0.5))})
            writer.write_dataset_graph({"op_type": "Batch", "batch_size": batch, "drop_remainder": True, "children": [
                {"op_type": "Shuffle", "buffer_size": rng.choice((1000, 10000)), "children": [
                    {"op_type": "MnistDataset", "dataset_dir": "/data/mnist", "children": []}]}]})
        for path in directory.iterdir():
            os.utime(path, (mtime + i, mtime + i))
        written.append(directory)
    return written
