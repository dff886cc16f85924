"""Load time against the parse-only floor (issue 14). Run by hand:

    python bench/bench_parse_floor.py [--repeat 3] [--dir DIR]

On the ~100 MB run of bench/make_logs.py (50 scalar tags x 20,000 steps + 20 histogram tags
x 2,000 steps) and on 100 runs of bench/bench_sweep.py's sweep (each 10 scalar tags x 2,000
steps + 2 histogram tags x 100 steps), both written by our writer and kept under DIR (default
$TMPDIR/tui-insight-bench, shared with bench_sweep.py), times in one process, interleaved
`--repeat` times (medians reported):

- load: `SummaryCache(logdir).reload()` (one process, no disk cache): everything the job list
  and the views need;
- floor: read every file, frame it and check both CRCs (`bulk_framing.scan_batches`, the fastest
  framing we have), decode every event with protobuf and visit every value's field, keeping
  nothing;
- floor, events only: the same without visiting the values (upb decodes them eagerly anyway).

Goal (issue 14): load <= 2x the floor, for the big run and for the small runs.
"""
from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))
sys.path.insert(0, str(HERE))

from tui_insight.proto import summary_pb2  # noqa: E402
from tui_insight.summary.formats.bulk_framing import scan_batches
from tui_insight.summary.formats.framing import ScanReport
from tui_insight.summary.store.cache import SummaryCache  # noqa: E402


def summary_files(logdir: Path) -> list[str]:
    return sorted(os.path.join(d, n) for d, _, names in os.walk(logdir) for n in names if ".summary." in n)


def floor(files: list[str], values: bool) -> int:
    """Frame, CRC-check and decode every event of `files` (and visit its values)."""
    count = 0
    for path in files:
        with open(path, "rb") as fh:
            for batch in scan_batches(fh, 0, os.fstat(fh.fileno()).st_size, ScanReport()):
                for payload in batch.payloads:
                    event = summary_pb2.Event.FromString(payload)
                    if values:
                        for value in event.summary.value:
                            value.WhichOneof("value")
                            count += 1
                    count += 1
    return count


def load(logdir: Path) -> int:
    cache = SummaryCache(str(logdir))
    cache.reload()
    return sum(len(series) for job in cache.jobs.values() for series in job.tags.values())


def measure(logdir: Path, label: str, repeat: int) -> None:
    files = summary_files(logdir)
    runs = {"load": lambda: load(logdir), "floor": lambda: floor(files, True),
            "floor, events only": lambda: floor(files, False)}
    seconds: dict[str, list[float]] = {name: [] for name in runs}
    for _ in range(repeat):
        for name, run in runs.items():
            t0 = time.perf_counter()
            run()
            seconds[name].append(time.perf_counter() - t0)
    median = {name: statistics.median(times) for name, times in seconds.items()}
    mb = sum(os.path.getsize(p) for p in files) / 1e6
    print(f"{label}: {len(files)} files, {mb:.1f} MB")
    for name, times in seconds.items():
        print(f"  {name:20s} {median[name]:6.2f} s  (runs: {', '.join(f'{t:.2f}' for t in times)})")
    print(f"  load / floor: {median['load'] / median['floor']:.2f}x, load / floor of events only: "
          f"{median['load'] / median['floor, events only']:.2f}x (goal <= 2x)")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--dir", type=Path, default=Path(tempfile.gettempdir()) / "tui-insight-bench")
    args = parser.parse_args()
    from bench_sweep import make_sweep
    from make_logs import write_big

    args.dir.mkdir(parents=True, exist_ok=True)
    big = args.dir / "big"
    if not big.exists() or not any(big.iterdir()):
        write_big(big)
    measure(big, "the ~100 MB run", args.repeat)
    measure(make_sweep(args.dir, 100), "100 small runs", args.repeat)
    return 0


if __name__ == "__main__":
    sys.exit(main())
