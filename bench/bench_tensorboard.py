"""Reading a TensorBoard file against the same data in MindSpore's format (issue 12). Run by hand:

    python bench/bench_tensorboard.py [--tags 50] [--steps 20000] [--no-accumulator]

Writes, under $TMPDIR/tui-insight-bench/tensorboard (kept for the next run), 50 scalar tags x
20,000 steps with the real tensorboardX writer (one event per add_scalar, as PyTorch writes:
1,000,000 records, ~100 MB with these tag names; writing takes minutes, tensorboardX frames in
pure Python unless the `crc32c` package is installed) and the same numbers with our MindSpore
writer (one event per step holding the 50 values, as MindSpore writes). Then times, each in a
fresh process:

- tb: framing (`records.scan_records`) + `tensorboard.read_event` per record, the raw reader;
- ms (per event): framing + protobuf decoding of each MindSpore event and its values;
- ms (layouts): framing + the cache's bulk decoding (`records.LayoutBook`), what the cache does;
- the framing alone of each file;
- TensorBoard's own `EventAccumulator.Reload()` on the TensorBoard file (if tensorboard is installed).

Targets (issue 12, for the cache once it reads TensorBoard files): TensorBoard file <= 2x the
MindSpore file, <= 1/10 of EventAccumulator.
"""
from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

CHILD = r"""
import json, os, sys, time
sys.path.insert(0, sys.argv[3])
import numpy as np
from google.protobuf.message import DecodeError
from tui_insight.proto import summary_pb2
from tui_insight.summary.records import LayoutBook, ScanReport, scan_records
from tui_insight.summary.tensorboard import Problem, TagPlugins, read_event
kind, path = sys.argv[1], sys.argv[2]
if kind == "accumulator":
    from tensorboard.backend.event_processing.event_accumulator import EventAccumulator


def records():
    report = ScanReport()
    with open(path, "rb", buffering=1 << 20) as fh:
        yield from scan_records(fh, 0, os.fstat(fh.fileno()).st_size, report)
    assert report.bad_records == 0, report.problems


t0 = time.perf_counter()
count = values = 0
if kind == "framing":
    for _ in records():
        count += 1
elif kind == "tb":
    plugins = TagPlugins()
    for _, payload in records():
        event = read_event(payload, plugins)
        count += 1
        if not isinstance(event, Problem):
            values += sum(1 for v in event.values if v.scalar is not None)
elif kind == "ms-events":
    for _, payload in records():
        event = summary_pb2.Event.FromString(payload)
        count += 1
        values += len([(v.tag, v.scalar_value) for v in event.summary.value if v.WhichOneof("value") == "scalar_value"])
elif kind == "ms-layouts":
    def decode(payload):
        try:
            return summary_pb2.Event.FromString(payload)
        except DecodeError:
            return None

    def decoded_values(batch, book):
        which, layouts, decoded = book.classify(batch, decode)
        found = 0
        for number, layout in enumerate(layouts):
            rows = b"".join([batch[i] for i in np.flatnonzero(which == number).tolist()])
            found += layout.numbers(np.frombuffer(rows, dtype=np.uint8).reshape(-1, layout.size))[2].size
        for i in np.flatnonzero(which < 0).tolist():
            event = decoded[i] if i in decoded else decode(batch[i])
            found += len(event.summary.value) if event is not None else 0
        return found

    book, batch = LayoutBook(), []
    for _, payload in records():
        batch.append(payload)
        count += 1
        if len(batch) >= 4096:
            values += decoded_values(batch, book)
            batch = []
    values += decoded_values(batch, book)
elif kind == "accumulator":
    accumulator = EventAccumulator(path)
    accumulator.Reload()
    tags = accumulator.Tags()["scalars"]
    count = len(tags)
    values = sum(len(accumulator.Scalars(tag)) for tag in tags)
print(json.dumps({"seconds": time.perf_counter() - t0, "records": count, "values": values}))
"""


def tag_name(i: int) -> str:
    # Descriptive tags, as training scripts write them; their length makes the file ~100 MB.
    return f"train/layer_{i:02d}/gradient_norm_after_clipping_and_scaling"


def value(step: int, i: int) -> float:
    return 1.0 / (1 + step) + i * 1e-3


def write_tensorboard(directory: Path, tags: int, steps: int) -> Path:
    from tensorboardX import SummaryWriter

    with SummaryWriter(str(directory), max_queue=100_000, flush_secs=3600) as writer:
        for step in range(steps):
            for i in range(tags):
                writer.add_scalar(tag_name(i), value(step, i), step, walltime=1.7e9 + step)
    (path,) = directory.glob("*tfevents*")
    return path


def write_mindspore(directory: Path, tags: int, steps: int) -> Path:
    from tui_insight.summary.writer import SummaryWriter

    with SummaryWriter(directory, timestamp=1700000000) as writer:
        for step in range(steps):
            for i in range(tags):
                writer.add_scalar(tag_name(i), value(step, i))
            writer.record(step, wall_time=1.7e9 + step)
    (path,) = directory.glob("*summary*")
    return path


def logs(tags: int, steps: int) -> tuple[Path, Path]:
    """The two files, written once and kept under $TMPDIR for later runs."""
    base = Path(os.environ.get("TMPDIR") or tempfile.gettempdir()) / "tui-insight-bench" / "tensorboard"
    root = base / f"{tags}x{steps}"
    done = root / "done.json"
    if done.exists():
        paths = json.loads(done.read_text())
        return Path(paths["tb"]), Path(paths["ms"])
    for sub in ("tb", "ms"):
        for old in (root / sub).glob("*"):
            old.unlink()
    t0 = time.perf_counter()
    tb = write_tensorboard(root / "tb", tags, steps)
    print(f"tensorboardX wrote {tb.stat().st_size / 1e6:.1f} MB in {time.perf_counter() - t0:.0f} s", flush=True)
    ms = write_mindspore(root / "ms", tags, steps)
    done.write_text(json.dumps({"tb": str(tb), "ms": str(ms)}))
    return tb, ms


def timed(kind: str, path: Path) -> dict:
    out = subprocess.run([sys.executable, "-c", CHILD, kind, str(path), str(REPO)], check=True,
                         capture_output=True, text=True)
    return json.loads(out.stdout.strip().splitlines()[-1])


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tags", type=int, default=50)
    parser.add_argument("--steps", type=int, default=20_000)
    parser.add_argument("--no-accumulator", action="store_true", help="skip EventAccumulator (slow)")
    args = parser.parse_args()
    tb, ms = logs(args.tags, args.steps)
    print(f"TensorBoard file {tb.stat().st_size / 1e6:.1f} MB, MindSpore file {ms.stat().st_size / 1e6:.1f} MB")
    results = {
        "tb framing": timed("framing", tb),
        "tb framing + read_event": timed("tb", tb),
        "ms framing": timed("framing", ms),
        "ms framing + per-event decode": timed("ms-events", ms),
        "ms framing + layouts (the cache)": timed("ms-layouts", ms),
    }
    if not args.no_accumulator:
        try:
            import tensorboard  # noqa: F401
        except ImportError:
            print("tensorboard is not installed: no EventAccumulator figure")
        else:
            results["tb EventAccumulator.Reload"] = timed("accumulator", tb)
    for name, result in results.items():
        print(f"{name:36s} {result['seconds']:8.2f} s  {result['records']:>9,} records  {result['values']:>10,} values")
    tb_s = results["tb framing + read_event"]["seconds"]
    ms_s = results["ms framing + layouts (the cache)"]["seconds"]
    print(f"tb / ms (layouts): {tb_s / ms_s:.1f}x (target <= 2x)")
    print(f"tb / ms (per-event decode): {tb_s / results['ms framing + per-event decode']['seconds']:.1f}x")
    if "tb EventAccumulator.Reload" in results:
        print(f"tb / EventAccumulator: {tb_s / results['tb EventAccumulator.Reload']['seconds']:.3f} (target <= 0.1)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
