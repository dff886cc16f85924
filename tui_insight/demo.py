"""Demo logs: a few finished runs with every kind of data, and one run that keeps training.

One run (`lenet_lr0.1`) also holds a CPU profile and the loss landscapes written after
training; one more (`torch_lenet`) is a TensorBoard run, as `torch.utils.tensorboard` writes it.
`tui-insight --demo` writes them to a temporary directory (removed on exit) and opens them.
Everything is written with our own writers, the same bytes MindSpore (or PyTorch) would write.
"""
from __future__ import annotations

import json
import os
import shutil
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Callable

import numpy as np

from .summary.formats.writer import LineageWriter, SummaryWriter, TensorBoardWriter, make_graph, write_pb_graph

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


TENSORBOARD_RUN = "torch_lenet"
LENET_NODES = [  # a GraphDef as torch's add_graph names it: one name scope per module
    ("input/x", "IO Node", []), ("LeNet/Conv2d[conv1]/weight", "prim::GetAttr", []),
    ("LeNet/Conv2d[conv1]/_convolution", "aten::_convolution", ["input/x", "LeNet/Conv2d[conv1]/weight"]),
    ("LeNet/ReLU[relu1]/relu", "aten::relu", ["LeNet/Conv2d[conv1]/_convolution"]),
    ("LeNet/MaxPool2d[pool1]/max_pool2d", "aten::max_pool2d", ["LeNet/ReLU[relu1]/relu"]),
    ("LeNet/Linear[fc1]/weight", "prim::GetAttr", []),
    ("LeNet/Linear[fc1]/linear", "aten::linear", ["LeNet/MaxPool2d[pool1]/max_pool2d", "LeNet/Linear[fc1]/weight"]),
    ("output/output.1", "IO Node", ["LeNet/Linear[fc1]/linear"]),
]


def write_tensorboard_run(base: Path, steps: int, start: int) -> None:
    """A PyTorch-style TensorBoard run: one event per value, histograms of 600+ buckets, text."""
    rng = np.random.default_rng(7)
    run = base / TENSORBOARD_RUN
    with TensorBoardWriter(run, timestamp=start, wall_time=float(start)) as writer:
        writer.add_graph(LENET_NODES, wall_time=float(start))
        for step in range(1, steps + 1):
            wall = start + step * 1.5
            loss = 2.3 * np.exp(-step * 0.03) + 0.05 * rng.normal() + 0.12
            writer.add_scalar("loss/auto", float(loss), step, wall)
            writer.add_scalar("accuracy", float(1 - loss / 2.5), step, wall)
            if step % 2 == 0:
                writer.add_histogram("conv1.weight", rng.normal(0, 1 / (1 + step / 50), 600), step, wall)
            if step % 5 == 0:
                writer.add_image("input_data", _images(step, rng)[0], step, wall)
            if step % 40 == 0:
                writer.add_text("notes", f"epoch {step // 40}: loss {loss:.3f}\nlearning rate 0.05, SGD", step, wall)
    finished = start + steps * 1.5
    for path in run.iterdir():
        os.utime(path, (finished, finished))


def _bowl(x: np.ndarray, y: np.ndarray, floor: float, tilt: float = 0.0) -> np.ndarray:
    """A smooth, slightly tilted bowl of a loss with a gentle ripple: its lowest point near (0, 0)."""
    return floor + 0.9 * x ** 2 + 0.5 * y ** 2 + tilt * x * y + 0.04 * np.sin(3 * x) * np.cos(2 * y)


def write_landscapes(run: Path, lr: float, steps: int, start: float) -> float:
    """The loss landscapes MindSpore's `SummaryLandscape` writes after training, in a summary file
    of their own, all at step 0: one PCA landscape per interval of checkpoints (half the steps
    each, with the loss path through them) and a final Random one. Returns the file's last time."""
    axis = np.linspace(-1.0, 1.0, 21)
    half = steps // 2
    final_loss = float(2.3 * np.exp(-steps * lr * 0.5) + 0.1)
    stamp = float(start)
    with SummaryWriter(run, timestamp=int(start), wall_time=stamp) as writer:
        for k, (first, last) in enumerate(((1, half), (half + 1, steps))):
            floor = float(2.3 * np.exp(-last * lr * 0.5) + 0.1)
            checkpoints = np.linspace(first, last, 5).round().astype(int)
            t = np.linspace(0.0, 1.0, len(checkpoints))
            px = (0.85 - 0.1 * k) * (1 - t) ** 1.5  # from the rim down to the bottom
            py = (-0.6 + 0.15 * k) * (1 - t) + 0.2 * np.sin(np.pi * t) * (1 - t)
            pz = _bowl(px, py, floor, 0.2 * k)
            xx, yy = np.meshgrid(axis, axis)  # rows follow y
            writer.add_landscape(f"landscape_[{first}, {last}]", axis, axis, _bowl(xx, yy, floor, 0.2 * k),
                                 path=(checkpoints.tolist(), px, py, pz),
                                 convergence=(float(px[-1]), float(py[-1]), float(pz[-1])),
                                 metadata={"decomposition": "PCA", "unit": "step", "step_per_epoch": 20})
            stamp += 40.0
            writer.record(0, wall_time=stamp)
        xx, yy = np.meshgrid(axis, axis)
        writer.add_landscape(f"landscape_[{steps}]", axis, axis, _bowl(1.2 * xx, 0.8 * yy, final_loss),
                             convergence=(0.0, 0.0, final_loss),
                             metadata={"decomposition": "Random", "unit": "step", "step_per_epoch": 20})
        stamp += 40.0
        writer.record(0, wall_time=stamp)
    return stamp


# ops of the LeNet graph as MindSpore's CPU profiler names them: type, full name, input shapes, ms per call
PROFILE_OPS = [
    ("Conv2D", "Default/network-WithLossCell/_backbone-LeNet5/conv1-Conv2d/Conv2D-op1",
     ([32, 1, 32, 32], [6, 1, 5, 5]), 0.84),
    ("ReLU", "Default/network-WithLossCell/_backbone-LeNet5/ReLU-op2", ([32, 6, 28, 28],), 0.09),
    ("MaxPool", "Default/network-WithLossCell/_backbone-LeNet5/max_pool2d-MaxPool2d/MaxPool-op11",
     ([32, 6, 28, 28],), 0.11),
    ("Conv2D", "Default/network-WithLossCell/_backbone-LeNet5/conv2-Conv2d/Conv2D-op3",
     ([32, 6, 14, 14], [16, 6, 5, 5]), 1.21),
    ("MatMul", "Default/network-WithLossCell/_backbone-LeNet5/fc1-Dense/MatMul-op5", ([32, 400], [120, 400]), 0.36),
    ("BiasAdd", "Default/network-WithLossCell/_backbone-LeNet5/fc1-Dense/BiasAdd-op12", ([32, 120], [120]), 0.03),
    ("MatMul", "Default/network-WithLossCell/_backbone-LeNet5/fc2-Dense/MatMul-op7", ([32, 120], [84, 120]), 0.15),
    ("MatMul", "Default/network-WithLossCell/_backbone-LeNet5/fc3-Dense/MatMul-op9", ([32, 84], [10, 84]), 0.06),
    ("SoftmaxCrossEntropyWithLogits", "Default/network-WithLossCell/_loss_fn-SoftmaxCrossEntropyWithLogits/"
     "SoftmaxCrossEntropyWithLogits-op20", ([32, 10], [32, 10]), 0.08),
    ("Conv2DBackpropFilter", "Gradients/Default/network-WithLossCell/_backbone-LeNet5/gradconv1/"
     "Conv2DBackpropFilter-op30", ([32, 6, 28, 28], [32, 1, 32, 32], [4]), 1.62),
    ("MatMul", "Gradients/Default/network-WithLossCell/_backbone-LeNet5/gradfc1/MatMul-op32",
     ([32, 120], [32, 400]), 0.41),
    ("ApplyMomentum", "Default/optimizer-Momentum/ApplyMomentum-op40",
     ([6, 1, 5, 5], [6, 1, 5, 5], [], [6, 1, 5, 5], []), 0.02),
]


def _ms(value: float) -> str:
    return f"{value:.6g}"


def write_profile(run: Path, steps: int, start: float, seed: int, pid: int = 4242) -> Path:
    """A MindSpore 2.x CPU profile of the run (`<host>_<pid>_<time>_ascend_ms/`): the op-type and
    op-detail CSVs, the execute timestamps, the framework (input shapes) file and the trace, with
    every op of `PROFILE_OPS` called once per step (the first step slower: graph compilation)."""
    rng = np.random.default_rng(seed + 100)
    made = time.strftime("%Y%m%d%H%M%S", time.localtime(start))
    root = run / f"demo_{pid}_{made}000_ascend_ms"
    framework = root / "FRAMEWORK"
    output = root / "ASCEND_PROFILER_OUTPUT"
    framework.mkdir(parents=True, exist_ok=True)
    output.mkdir(parents=True, exist_ok=True)
    n = len(PROFILE_OPS)
    durations = np.array([[base * (5.0 if step == 0 else 1.0) * rng.lognormal(0.0, 0.12) for _, _, _, base in PROFILE_OPS]
                          for step in range(steps)])  # (steps, ops) ms
    starts = np.zeros((steps, n), dtype=np.int64)  # ns
    clock = int(start * 1e9)
    for step in range(steps):
        for i in range(n):
            starts[step, i] = clock
            clock += int(durations[step, i] * 1e6) + int(rng.integers(20_000, 60_000))
        clock += int(1.5e9) - int(durations[step].sum() * 1e6)  # the rest of the step: data, host work
    grand = float(durations.sum())
    detail = ["op_side,op_type,op_name,full_op_name,op_occurrences,op_total_time(ms),op_avg_time(ms),"
              "total_proportion,subgraph,pid"]
    for i, (op_type, full, _, _) in enumerate(PROFILE_OPS):
        total = float(durations[:, i].sum())
        detail.append(f"Host,{op_type},{full.rpartition('/')[2]},{full},{steps},{_ms(total)},{_ms(total / steps)},"
                      f"{_ms(total / grand)},Default,{pid}")
    types: dict[str, list[float]] = {}
    for i, (op_type, _, _, _) in enumerate(PROFILE_OPS):
        entry = types.setdefault(op_type, [0, 0.0])
        entry[0] += steps
        entry[1] += float(durations[:, i].sum())
    type_rows = ["op_type,type_occurrences,execution_frequency(per-step),total_compute_time,avg_time(ms),percent"]
    for op_type, (count, total) in types.items():
        type_rows.append(f"{op_type},{count},{count // steps},{_ms(total)},{_ms(total / count)},{_ms(total / grand)}")
    timestamps = []
    for i, (_, full, _, _) in enumerate(PROFILE_OPS):
        calls = "".join(f"{starts[s, i]},{_ms(durations[s, i])},0 " for s in range(steps))
        timestamps.append(f"{full};HostCpuOps;{calls}")
    shapes = []
    for step in range(steps):
        for op_type, full, inputs, _ in PROFILE_OPS:
            fields = "".join(f"input_{k + 1}:{list(shape)};" for k, shape in enumerate(inputs))
            shapes.append(f"{op_type};{full.rpartition('/')[2]};4223610263;{fields}")
    trace: list[dict] = [
        {"ph": "M", "name": "process_name", "pid": 2, "tid": 0, "args": {"name": "CPU OP"}},
        {"ph": "M", "name": "process_sort_index", "pid": 2, "tid": 0, "args": {"sort_index": 2}},
        {"ph": "M", "name": "thread_name", "pid": 2, "tid": 0, "args": {"name": "Thread 0"}},
    ]
    for i, (op_type, full, _, _) in enumerate(PROFILE_OPS):
        for s in range(steps):
            trace.append({"ph": "X", "name": full, "pid": 2, "tid": 0, "ts": f"{starts[s, i] / 1000:.3f}",
                          "dur": f"{durations[s, i] * 1000:.3f}", "cat": "", "args": {"type": "HostCpuOps"}})
    (framework / "cpu_op_detail_info_0.csv").write_text("\n".join(detail) + "\n")
    (framework / "cpu_op_type_info_0.csv").write_text("\n".join(type_rows) + "\n")
    (framework / "cpu_op_execute_timestamp_0.txt").write_text("\n".join(timestamps) + "\n")
    (framework / "cpu_framework_0.txt").write_text("\n".join(shapes) + "\n")
    (output / "trace_view.json").write_text(json.dumps(trace))
    return root


def write_run(base: Path, name: str, lr: float, optimizer: str, batch: int, steps: int, seed: int,
              start: int, extras: bool = False) -> None:
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
    if extras:  # profiled while training; landscapes computed from the checkpoints afterwards
        profile = write_profile(run, steps, start, seed)
        for path in profile.rglob("*"):
            os.utime(path, (finished, finished))
        finished = write_landscapes(run, lr, steps, finished + 60)
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
        write_run(base, name, lr, optimizer, batch, steps=120, seed=seed, start=start, extras=name == "lenet_lr0.1")
    write_tensorboard_run(base, steps=120, start=int(now) - 3600 // 2)
    pb = base / "lenet_lr0.1" / "lenet_exported.pb"
    write_pb_graph(pb, lenet_graph())
    stamp = os.stat(base / "lenet_lr0.1" / next(n for n in os.listdir(base / "lenet_lr0.1") if n.endswith("_MS"))).st_mtime
    os.utime(pb, (stamp, stamp))


def run_demo(open_logs: Callable[[str], int]) -> int:
    """Write the demo logs to a temporary directory, keep one run training, and show them with
    `open_logs(directory)` (the command line's dashboard); the logs go when it returns."""
    base = Path(tempfile.mkdtemp(prefix="tui-insight-demo-"))
    live = LiveRun(base)
    try:
        write_demo(base)
        live.start()
        print(f"demo logs in {base}", file=sys.stderr)
        return open_logs(str(base))
    finally:
        live.stopped.set()
        live.join(timeout=5)
        shutil.rmtree(base, ignore_errors=True)
