"""Speed of the lineage view over 1,000 jobs (issue 5: a sort or a filter in at most 100 ms).

Run by hand: `python bench/bench_lineage_view.py [--jobs 1000] [--size 160x48]`. It writes
1,000 lineage-only jobs (varied hyper-parameters, metrics, user-defined keys and four dataset
pipelines) into a temporary directory with our writer, loads them, opens the lineage view in a
headless app and prints, for each operation, the time of the work on the UI thread (queries
+ table update + drawing the visible lines) and the time until the app is idle again (what a
user waits for; it includes Textual's own frame).
"""
from __future__ import annotations

import argparse
import asyncio
import random
import statistics
import sys
import tempfile
import time
from pathlib import Path

from tui_insight.summary.formats.writer import LineageWriter
from tui_insight.summary.store.cache import SummaryCache
from tui_insight.ui.app import InsightApp

T0 = 1_700_000_000

PIPELINES = [
    {"op_type": "Batch", "batch_size": 32, "drop_remainder": True,
     "children": [{"op_type": "GeneratorDataset", "num_parallel_workers": 1, "children": []}]},
    {"op_type": "Batch", "batch_size": 16, "drop_remainder": True,
     "children": [{"op_type": "Map", "input_columns": ["image"],
                   "operations": [{"tensor_op_name": "Resize", "tensor_op_params": "{\"size\": [32, 32]}"}],
                   "children": [{"op_type": "MnistDataset", "dataset_dir": "/data/mnist", "children": []}]}]},
    {"op_type": "Batch", "batch_size": 64, "drop_remainder": False,
     "children": [{"op_type": "Shuffle", "buffer_size": 1000,
                   "children": [{"op_type": "Cifar10Dataset", "dataset_dir": "/data/cifar", "children": []}]}]},
    {"op_type": "Batch", "batch_size": 128, "drop_remainder": True,
     "children": [{"op_type": "ImageFolderDataset", "dataset_dir": "/data/imagenet", "children": []}]},
]


def write_jobs(root: Path, n: int) -> None:
    rng = random.Random(5)
    for i in range(n):
        directory = root / f"run_{i:04d}"
        directory.mkdir(parents=True)
        with LineageWriter(directory, timestamp=T0 + i) as writer:
            writer.write_train(optimizer=rng.choice(["Momentum", "Adam", "SGD"]),
                               learning_rate=rng.choice([0.1, 0.03, 0.01, 0.003, 0.001]),
                               loss_function="SoftmaxCrossEntropyWithLogits", epoch=rng.randint(1, 90),
                               device_num=rng.choice([1, 8]), batch_size=rng.choice([16, 32, 64, 128]),
                               train_dataset_path="/data/train", train_dataset_size=rng.randint(1000, 60000),
                               network=rng.choice(["LeNet5", "ResNet50", "MobileNetV2"]),
                               loss=rng.random() * 3, model_size=rng.randint(10_000, 100_000_000))
            if rng.random() < 0.9:  # some jobs have no evaluation: missing metric values
                writer.write_eval({"Accuracy": rng.random(), "Loss": rng.random() * 3},
                                  valid_dataset_path="/data/test", valid_dataset_size=10000)
            writer.write_user_defined({"seed": rng.randint(0, 2 ** 30), "note": rng.choice(["a", "b", "c"])})
            writer.write_dataset_graph(PIPELINES[i % len(PIPELINES)])


def ms(seconds: float) -> str:
    return f"{seconds * 1000:7.1f} ms"


async def measure(logdir: Path, size: tuple[int, int]) -> None:
    from tui_insight.summary.queries.lineage import filter_rows, model_rows, parse_conditions, sort_rows
    from tui_insight.ui.views.lineage import LineageView
    from tui_insight.ui.widgets.lineage_table import LineageTable

    cache = SummaryCache(str(logdir))
    start = time.perf_counter()
    cache.reload()
    print(f"load {len(cache.jobs)} jobs:            {ms(time.perf_counter() - start)}")

    rows = model_rows(cache.jobs)
    for name, fn in (
        ("query model_rows", lambda: model_rows(cache.jobs)),
        ("query filter (3 conditions)", lambda: filter_rows(rows, parse_conditions(
            "learning_rate>=0.01 optimizer=Momentum metric/Accuracy>0.5"))),
        ("query sort by metric/Accuracy", lambda: sort_rows(rows, "metric/Accuracy", True)),
    ):
        times = []
        for _ in range(5):
            t = time.perf_counter()
            fn()
            times.append(time.perf_counter() - t)
        print(f"{name:<32}{ms(statistics.median(times))}")

    app = InsightApp(cache, start_loading=False, reload_interval=0)
    async with app.run_test(size=size) as pilot:
        await pilot.pause()
        start = time.perf_counter()
        await pilot.press("l")
        await pilot.pause()
        print(f"open the view (first paint):     {ms(time.perf_counter() - start)}")
        view = app.screen.query_one(LineageView)
        table = view.model_table

        def draw() -> None:  # what a frame costs the table: its visible lines
            for y in range(table.size.height):
                table.render_line(y)

        async def timed(label: str, action) -> None:
            work, idle = [], []
            for _ in range(5):
                t = time.perf_counter()
                action()
                draw()
                work.append(time.perf_counter() - t)
                await pilot.pause()
                idle.append(time.perf_counter() - t)
            print(f"{label:<32}{ms(statistics.median(work))} work, {ms(statistics.median(idle))} until idle")

        idle = []
        for _ in range(5):
            t = time.perf_counter()
            await pilot.pause()
            idle.append(time.perf_counter() - t)
        print(f"{'(an idle wait with no work)':<32}{ms(statistics.median(idle))}: part of every 'until idle'")
        columns = [c for c in ("loss", "optimizer", "metric/Accuracy", "summary_dir") if c in view.all_columns]
        state = {"i": 0}

        def sort_next() -> None:
            column = columns[state["i"] % len(columns)]
            state["i"] += 1
            view.state = view.state.sort_by(column)  # the view redraws in watch_state

        await timed("sort (a column, then the next)", sort_next)
        filters = ["learning_rate>=0.01 optimizer=Momentum metric/Accuracy>0.5", "learning_rate>=0.01",
                   "batch_size in 16,32", "network=LeNet5 epoch>10", "metric/Accuracy>0.2"]

        def filter_next() -> None:
            text = filters[state["i"] % len(filters)]
            state["i"] += 1
            view.state = view.state.with_filter(text)

        await timed("filter (a condition text)", filter_next)

        def bad_filter() -> None:
            view.state = view.state.with_filter("lerning_rate>=0.01")

        await timed("filter that cannot be read", bad_filter)
        await timed("live update (rows rebuilt)", view.refresh_rows)
        print(f"shown rows: {len(view.shown)} of {len(view.rows)}; table {table.size.width}x{table.size.height}")
        assert isinstance(table, LineageTable)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--jobs", type=int, default=1000)
    parser.add_argument("--size", default="160x48")
    args = parser.parse_args(argv)
    width, height = (int(x) for x in args.size.split("x"))
    with tempfile.TemporaryDirectory(prefix="bench-lineage-") as tmp:
        start = time.perf_counter()
        write_jobs(Path(tmp), args.jobs)
        print(f"write {args.jobs} lineage jobs:        {ms(time.perf_counter() - start)}")
        asyncio.run(measure(Path(tmp), (width, height)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
