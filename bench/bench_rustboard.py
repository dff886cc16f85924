"""Our load of TensorBoard logs against TensorBoard's Rust data server (issue 30). Run by hand:
    python bench/bench_rustboard.py [--repeat 3] [--steps 10000]
Writes under $TMPDIR/tui-insight-bench/rustboard (kept for the next run), with our
`TensorBoardWriter` (the framing torch's writer makes), two runs:
- scalars: 50 tags x STEPS steps, one event per value (what torch's `add_scalar` writes);
- mixed: 50 scalar tags x STEPS/2 steps, and 10 histogram tags every 10th step,
  as a training loop with `add_histogram` writes (TensorFlow's default bins, as torch bins them).
Then, interleaved `--repeat` times, each in a fresh process, medians reported:
- rustboard: the `tensorboard-data-server` binary (`server --logdir RUN --reload once -v`), its
  own "Finished load cycle" figure (the load alone: the process starts in ~10 ms), without and
  with `--checksum` (by default it checks a record's CRC only when the record fails to parse);
- ours: `SummaryCache(RUN).reload()` in a fresh process, the load alone, every CRC checked;
  and the whole `--summary --no-cache` process (imports included), for the record.
"""
from __future__ import annotations

import argparse
import os
import re
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))
sys.path.insert(0, str(REPO / "bench"))

from installed_bytecode import compile_checkouts  # noqa: E402

OURS = r"""
import sys, time
sys.path.insert(0, sys.argv[2])
from tui_insight.summary.store.cache import SummaryCache
cache = SummaryCache(sys.argv[1])
start, cpu = time.perf_counter(), time.process_time()
cache.reload()
print(time.perf_counter() - start, time.process_time() - cpu)
"""
FINISHED = re.compile(rb"Finished load cycle \(([0-9.]+)(m?s)\)")


def write_runs(root: Path, steps: int) -> dict[str, Path]:
    import numpy as np

    from tui_insight.summary.formats.writer import TensorBoardWriter

    runs = {"scalars": root / f"scalars-{steps}", "mixed": root / f"mixed-{steps}"}
    rng = np.random.default_rng(0)
    if not runs["scalars"].exists():
        with TensorBoardWriter(runs["scalars"], timestamp=1_700_000_000) as writer:
            for step in range(steps):
                for i in range(50):
                    writer.add_scalar(f"train/metric_{i:02d}", float(1.0 / (step + 1) + i), step, 1_700_000_000 + step)
    if not runs["mixed"].exists():
        with TensorBoardWriter(runs["mixed"], timestamp=1_700_000_000) as writer:
            for step in range(steps // 2):
                for i in range(50):
                    writer.add_scalar(f"train/metric_{i:02d}", float(1.0 / (step + 1) + i), step, 1_700_000_000 + step)
                if step % 10 == 0:
                    for i in range(10):
                        writer.add_histogram(f"weights/layer_{i}", rng.standard_normal(1000), step, 1_700_000_000 + step)
    return runs


def rustboard_load(server: str, run: Path, checksum: bool) -> float:
    """Seconds of rustboard's first load cycle, as it reports it."""
    command = [server, "--logdir", str(run), "--reload", "once", "--port", "0", "-v", "--die-after-stdin"]
    if checksum:
        command.append("--checksum")
    proc = subprocess.Popen(command, stdin=subprocess.PIPE, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    try:
        assert proc.stderr is not None
        for line in proc.stderr:
            found = FINISHED.search(line)
            if found:
                value = float(found.group(1))
                return value / 1000 if found.group(2) == b"ms" else value
        raise RuntimeError("rustboard ended without finishing a load cycle")
    finally:
        proc.kill()
        proc.wait()


def ours_load(run: Path) -> tuple[float, float]:
    out = subprocess.run([sys.executable, "-c", OURS, str(run), str(REPO)], capture_output=True, text=True, check=True)
    wall, cpu = map(float, out.stdout.split())
    return wall, cpu


def ours_process(run: Path) -> float:
    start = time.perf_counter()
    subprocess.run([sys.executable, "-m", "tui_insight", str(run), "--summary", "--no-cache"], cwd=REPO,
                   capture_output=True, check=False, env={**os.environ, "PYTHONPATH": str(REPO)})
    return time.perf_counter() - start


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--steps", type=int, default=10_000)
    args = parser.parse_args()
    compile_checkouts(REPO)
    try:
        import tensorboard_data_server
    except ImportError:
        print("tensorboard-data-server is not installed (pip install tensorboard): nothing to compare with")
        return 2
    server = tensorboard_data_server.server_binary()
    root = Path(tempfile.gettempdir()) / "tui-insight-bench" / "rustboard"
    root.mkdir(parents=True, exist_ok=True)
    runs = write_runs(root, args.steps)
    for name, run in runs.items():
        size = sum(f.stat().st_size for f in run.iterdir())
        times: dict[str, list[float]] = {"rustboard": [], "rustboard --checksum": [], "ours (load)": [],
                                         "ours (load CPU)": [], "ours --summary process": []}
        for _ in range(args.repeat):
            times["rustboard"].append(rustboard_load(server, run, checksum=False))
            times["rustboard --checksum"].append(rustboard_load(server, run, checksum=True))
            wall, cpu = ours_load(run)
            times["ours (load)"].append(wall)
            times["ours (load CPU)"].append(cpu)
            times["ours --summary process"].append(ours_process(run))
        median = {key: statistics.median(values) for key, values in times.items()}
        print(f"{name}: {size / 1e6:.1f} MB")
        for key, values in times.items():
            print(f"  {key:26s} {median[key]:6.3f} s  (runs: {', '.join(f'{v:.3f}' for v in values)})")
        print(f"  ours / rustboard: {median['ours (load)'] / median['rustboard']:.2f}x; "
              f"ours / rustboard --checksum: {median['ours (load)'] / median['rustboard --checksum']:.2f}x")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
