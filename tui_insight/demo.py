"""Demo logs: a few finished runs with every kind of data, and one run that keeps training.

`tui-insight --demo` writes them to a temporary directory (removed on exit) and opens them.
Everything is written with our own writer, the same bytes MindSpore would write.
"""
from __future__ import annotations

import argparse
import os
import shutil
import sys
import tempfile
import threading
import time
from pathlib import Path

import numpy as np

from .summary.writer import LineageWriter, SummaryWriter, make_graph, write_pb_graph

RUNS = [  # name, learning rate, optimizer, batch size
    ("lenet_lr0.1", 0.1, "Momentum", 32),
    ("lenet_lr0.01", 0.01, "Momentum", 32),
    ("lenet_adam", 0.001, "Adam", 64),
]


def lenet_graph():
    """A small LeNet-like graph with name scopes, parameters and a gradient scope."""
    nodes, params = [], []
    scope = "Default/network-WithLossCell/_backbone-LeNet5"
    layers = [("conv1", "Conv2D", [6, 1, 5, 5]), ("conv2", "Conv2D", [16, 6, 5, 5]),
              ("fc1", "MatMul", [120, 400]), ("fc2", "MatMul", [84, 120]), ("fc3", "MatMul", [10, 84])]
    prev = "x"
    shape = [32, 1, 32, 32]
    for i, (layer, op, wshape) in enumerate(layers):
        params.append({"name": f"{layer}.weight", "shape": wshape})
        node_id = str(2 * i + 1)
        nodes.append({"name": node_id, "op_type": op, "scope": f"{scope}/{layer}-{'Conv2d' if op == 'Conv2D' else 'Dense'}",
                      "full_name": f"{scope}/{layer}-{'Conv2d' if op == 'Conv2D' else 'Dense'}/{op}-op{node_id}",
                      "inputs": [prev, f"{layer}.weight"], "shape": shape,
                      "attrs": {"pad_mode": "valid"} if op == "Conv2D" else {"transpose_b": 1}})
        relu_id = str(2 * i + 2)
        nodes.append({"name": relu_id, "op_type": "ReLU", "scope": f"{scope}",
                      "full_name": f"{scope}/ReLU-op{relu_id}", "inputs": [node_id], "shape": shape})
        prev = relu_id
    nodes.append({"name": "20", "op_type": "SoftmaxCrossEntropyWithLogits",
                  "scope": "Default/network-WithLossCell/_loss_fn-SoftmaxCrossEntropyWithLogits",
                  "full_name": "Default/network-WithLossCell/_loss_fn-SoftmaxCrossEntropyWithLogits/"
                               "SoftmaxCrossEntropyWithLogits-op20", "inputs": [prev], "shape": [32]})
    for i, (layer, op, _) in enumerate(layers):
        node_id = str(30 + i)
        nodes.append({"name": node_id, "op_type": f"{op}BackpropFilter" if op == "Conv2D" else "MatMul",
                      "scope": f"Gradients/Default/network-WithLossCell/_backbone-LeNet5/gradient{layer}",
                      "full_name": f"Gradients/Default/network-WithLossCell/_backbone-LeNet5/gradient{layer}/"
                                   f"{op}-op{node_id}", "inputs": ["20"]})
    return make_graph(nodes, params, name="lenet")


def _images(step: int, rng: np.random.Generator) -> np.ndarray:
    """A batch of 4 colourful 3x24x24 images that change with the step."""
    yy, xx = np.mgrid[0:24, 0:24] / 23.0
    batch = []
    for k in range(4):
        phase = step / 5 + k
        batch.append(np.stack([np.sin(xx * 6 + phase) * 0.5 + 0.5, yy, np.cos(yy * 5 - phase) * 0.5 + 0.5]))
    return np.clip(np.array(batch) + rng.normal(0, 0.02, (4, 3, 24, 24)), 0, 1)


def write_step(writer: SummaryWriter, step: int, lr: float, rng: np.random.Generator, wall_time: float) -> None:
    loss = 2.3 * np.exp(-step * lr * 0.5) + 0.05 * rng.normal() + 0.1
    writer.add_scalar("loss/auto", loss)
    writer.add_scalar("accuracy", 1 - loss / 2.5)
    writer.add_scalar("learning_rate", lr * (0.98 ** step))
    if step % 2 == 0:
        writer.add_histogram("conv1.weight/auto", rng.normal(0, 1 / (1 + step / 50), 600))
        writer.add_histogram("fc1.bias/auto", rng.normal(step / 100, 0.2, 120))
        writer.add_tensor("fc3.weight", rng.normal(0, 0.1, (10, 84)).astype(np.float32))
        writer.add_tensor("activations", rng.normal(0, 1, (2, 4, 6, 6)).astype(np.float32))
    if step % 5 == 0:
        writer.add_image("input_data/auto", _images(step, rng))
    writer.record(step, wall_time=wall_time)


def write_run(base: Path, name: str, lr: float, optimizer: str, batch: int, steps: int, seed: int,
              start: int) -> None:
    rng = np.random.default_rng(seed)
    run = base / name
    with SummaryWriter(run, timestamp=start, wall_time=float(start)) as writer:
        writer.add_graph(lenet_graph(), wall_time=float(start))
        for step in range(1, steps + 1):
            write_step(writer, step, lr, rng, start + step * 1.5)
    with LineageWriter(run, timestamp=start) as lineage:
        lineage.write_train(optimizer=optimizer, learning_rate=lr, loss_function="SoftmaxCrossEntropyWithLogits",
                            epoch=steps // 20, parallel_mode="stand_alone", device_num=1, batch_size=batch,
                            train_dataset_path="/data/mnist/train", train_dataset_size=60000, network="LeNet5",
                            loss=float(2.3 * np.exp(-steps * lr * 0.5) + 0.1), model_size=494183)
        lineage.write_dataset_graph({"op_type": "Batch", "batch_size": batch, "drop_remainder": True, "children": [
            {"op_type": "MapDataset", "operations": [{"tensor_op_name": "Resize", "size": [32, 32]},
                                                     {"tensor_op_name": "Rescale", "rescale": 0.00392}],
             "children": [{"op_type": "MnistDataset", "num_samples": 60000, "shuffle": True, "children": []}]}]})
        lineage.write_user_defined({"model_name": "lenet5", "seed": seed, "dropout": 0.1 * seed})
        lineage.write_eval({"Accuracy": float(0.9 - lr), "Loss": float(0.3 + lr)}, "/data/mnist/test", 10000)
    finished = start + steps * 1.5
    for path in run.iterdir():  # finished hours ago, not "live"
        os.utime(path, (finished, finished))


class LiveRun(threading.Thread):
    """A run that keeps appending a step every `period` seconds until stopped."""

    def __init__(self, base: Path, period: float = 1.0):
        super().__init__(name="demo-live-run", daemon=True)
        self.path = base / "live_run"
        self.period = period
        self.stopped = threading.Event()

    def run(self) -> None:
        rng = np.random.default_rng(99)
        start = time.time()
        with SummaryWriter(self.path, timestamp=int(start), wall_time=start) as writer:
            step = 0
            while not self.stopped.is_set():
                step += 1
                write_step(writer, step, 0.05, rng, time.time())
                writer.flush()
                self.stopped.wait(self.period)


def write_demo(base: Path, now: float | None = None) -> None:
    """The finished runs, as if trained over the last few hours."""
    now = time.time() if now is None else now
    for seed, (name, lr, optimizer, batch) in enumerate(RUNS, start=1):
        start = int(now) - (len(RUNS) + 1 - seed) * 3600
        write_run(base, name, lr, optimizer, batch, steps=120, seed=seed, start=start)
    pb = base / "lenet_lr0.1" / "lenet_exported.pb"
    write_pb_graph(pb, lenet_graph())
    stamp = os.stat(base / "lenet_lr0.1" / next(n for n in os.listdir(base / "lenet_lr0.1") if n.endswith("_MS"))).st_mtime
    os.utime(pb, (stamp, stamp))


def run_demo(args: argparse.Namespace) -> int:
    base = Path(tempfile.mkdtemp(prefix="tui-insight-demo-"))
    live = LiveRun(base)
    try:
        write_demo(base)
        live.start()
        print(f"demo logs in {base}", file=sys.stderr)
        from .cli import open_ui

        return open_ui(str(base), args, remember=False)
    finally:
        live.stopped.set()
        live.join(timeout=5)
        shutil.rmtree(base, ignore_errors=True)
