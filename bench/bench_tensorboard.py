"""Reading a TensorBoard file against the same data in MindSpore's format (issue 12). Run by hand:

    python bench/bench_tensorboard.py [--tags 50] [--steps 20000] [--repeat 3] [--no-accumulator]

Writes, under $TMPDIR/tui-insight-bench/tensorboard (kept for the next run), 50 scalar tags x
20,000 steps with the real tensorboardX writer (one event per add_scalar, as PyTorch writes:
1,000,000 records, ~100 MB with these tag names; writing takes minutes, tensorboardX frames in
pure Python unless the `crc32c` package is installed) and the same numbers with our MindSpore
writer (one event per step holding the 50 values, as MindSpore writes). Then times, each in a
fresh process, side by side (interleaved `--repeat` times, medians reported):

- ms cache: our MindSpore-format load of the same data, `SummaryCache.reload()`;
- tb cache: the TensorBoard file loaded the same way, `SummaryCache.reload()` (what the app does);
- tb bulk: the TensorBoard file through the cache's reading path: `bulk_framing.scan_batches` +
  `LayoutBook(dialect="tensorboard")` + `Layout.numbers`, `tensorboard.read_event` for the
  events without a layout (each tag's first, the file version);
- tb per record: `framing.scan_records` + `tensorboard.read_event` per record (the raw reader);
- the framing alone of the TensorBoard file, record by record and in bulk;
- TensorBoard's own `EventAccumulator.Reload()` on the TensorBoard file (once: it takes a minute).

Targets (issue 12): tb cache <= 2x ms cache, <= 1/10 of EventAccumulator.
"""
from __future__ import annotations

import argparse
import json
import os
import statistics
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
from tui_insight.proto import tb_event_pb2
from tui_insight.summary.store.cache import SummaryCache
from tui_insight.summary.formats.bulk_framing import scan_batches
from tui_insight.summary.formats.framing import ScanReport, scan_records
from tui_insight.summary.formats.layouts import LayoutBook
from tui_insight.summary.formats.tensorboard import Problem, TagPlugins, read_event
kind, path = sys.argv[1], sys.argv[2]
if kind == "accumulator":
    from tensorboard.backend.event_processing.event_accumulator import EventAccumulator


def tb_decode(payload):
    try:
        return tb_event_pb2.Event.FromString(payload)
    except DecodeError:
        return None


def framed(scan):
    report = ScanReport()
    with open(path, "rb") as fh:
        yield from scan(fh, 0, os.fstat(fh.fileno()).st_size, report)
    assert report.bad_records == 0, report.problems


t0 = time.perf_counter()
count = values = 0
if kind == "framing-records":
    for _ in framed(scan_records):
        count += 1
elif kind == "framing-batches":
    for batch in framed(scan_batches):
        count += len(batch)
elif kind == "tb-records":
    plugins = TagPlugins()
    for _, payload in framed(scan_records):
        event = read_event(payload, plugins)
        count += 1
        if not isinstance(event, Problem):
            values += sum(1 for number in event.numbers if number is not None)
elif kind == "tb-bulk":
    book, plugins = LayoutBook(dialect="tensorboard"), TagPlugins()
    for batch in framed(scan_batches):
        payloads = batch.payloads
        count += len(batch)
        which, layouts, decoded = book.classify(payloads, tb_decode)
        for number, layout in enumerate(layouts):
            steps, walls, floats = layout.numbers(payloads.rows(np.flatnonzero(which == number), layout.size))
            values += floats.size
        for i in np.flatnonzero(which < 0).tolist():
            event = read_event(payloads[i], plugins)
            if not isinstance(event, Problem):
                values += sum(1 for number in event.numbers if number is not None)
elif kind in ("ms-cache", "tb-cache"):
    cache = SummaryCache(os.path.dirname(path))
    cache.reload()
    (job,) = cache.jobs.values()
    count = sum(status.records for status in job.file_status)
    values = sum(len(series) for series in job.tags.values())  # kept (sampled) values
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
    from tui_insight.summary.formats.writer import SummaryWriter

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
    parser.add_argument("--repeat", type=int, default=3, help="interleaved runs of each (medians reported)")
    parser.add_argument("--no-accumulator", action="store_true", help="skip EventAccumulator (slow)")
    args = parser.parse_args()
    tb, ms = logs(args.tags, args.steps)
    print(f"TensorBoard file {tb.stat().st_size / 1e6:.1f} MB, MindSpore file {ms.stat().st_size / 1e6:.1f} MB")
    runs = {
        "ms cache (SummaryCache.reload)": ("ms-cache", ms),
        "tb cache (SummaryCache.reload)": ("tb-cache", tb),
        "tb bulk (scan_batches + layouts)": ("tb-bulk", tb),
        "tb per record (read_event)": ("tb-records", tb),
        "tb framing, record by record": ("framing-records", tb),
        "tb framing, bulk": ("framing-batches", tb),
    }
    seconds: dict[str, list[float]] = {name: [] for name in runs}
    last: dict[str, dict] = {}
    for _ in range(args.repeat):
        for name, (kind, path) in runs.items():
            last[name] = timed(kind, path)
            seconds[name].append(last[name]["seconds"])
    if not args.no_accumulator:
        try:
            import tensorboard  # noqa: F401
        except ImportError:
            print("tensorboard is not installed: no EventAccumulator figure")
        else:
            name = "tb EventAccumulator.Reload (once)"
            last[name] = timed("accumulator", tb)
            seconds[name] = [last[name]["seconds"]]
    median = {name: statistics.median(times) for name, times in seconds.items()}
    for name, result in last.items():
        print(f"{name:36s} {median[name]:8.2f} s  (runs: {', '.join(f'{t:.2f}' for t in seconds[name])})  "
              f"{result['records']:>9,} records  {result['values']:>10,} values")
    tb_s, ms_s = median["tb cache (SummaryCache.reload)"], median["ms cache (SummaryCache.reload)"]
    print(f"tb cache / ms cache: {tb_s / ms_s:.2f}x (target <= 2x)")
    print(f"tb bulk path alone / ms cache: {median['tb bulk (scan_batches + layouts)'] / ms_s:.2f}x")
    per_record = median["tb per record (read_event)"]
    print(f"tb per record / ms cache: {per_record / ms_s:.1f}x (the reader before bulk framing)")
    if "tb EventAccumulator.Reload (once)" in median:
        print(f"tb cache / EventAccumulator: {tb_s / median['tb EventAccumulator.Reload (once)']:.3f} (target <= 0.1)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
