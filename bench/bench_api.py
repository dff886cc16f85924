"""The public API against tbparse and TensorBoard's EventAccumulator (issue 25). Run by hand:

    python bench/bench_api.py [--tags 50] [--steps 40000] [--runs 1000] [--run-steps 50]

Writes with tensorboardX, under $TMPDIR/tui-insight-bench/api (kept for the next run): one big
run (`--tags` scalar tags x `--steps` steps, one event per add_scalar as PyTorch writes; 50 x
40,000 is ~109 MB) and `--runs` small runs (2 tags x `--run-steps` steps). Then, each in a
fresh process, side by side, every scalar of each set into pandas:

- cli load: `tui-insight DIR --summary --json` (the CLI's own cold load, no disk cache);
- api all: `tui_insight.open(DIR).scalars(all_steps=True)`;
- api sampled: `.scalars()` (the 1,000 steps a tag the screens keep);
- api final: `.final()` (every tag's last and best from the digests; no series kept), and with
  `disk_cache=True` twice (the second reads the snapshots the first wrote);
- tbparse: `SummaryReader(DIR).scalars`;
- accumulator: `EventAccumulator(run, size_guidance={"scalars": 0}).Reload()` per run, into a
  DataFrame;
- csv / parquet: `--export csv|parquet --all-steps` of the set (time and bytes written).

Reported per line: wall seconds, CPU seconds (user + system), peak RSS (MB), rows.
"""
from __future__ import annotations

import argparse
import json
import os
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
CACHE_HOME = Path(tempfile.mkdtemp(prefix="tui-insight-bench-cache-"))  # the disk cache's, this run's only

MEASURE = {
    "api all": "import tui_insight\nwith tui_insight.open(D) as l: rows = len(l.scalars(all_steps=True, output='pandas'))",
    "api sampled": "import tui_insight\nwith tui_insight.open(D) as l: rows = len(l.scalars(output='pandas'))",
    "api final": "import tui_insight\nwith tui_insight.open(D) as l: rows = len(l.final(output='pandas'))",
    # Twice with the disk cache (a private one, emptied first): the second reads the snapshots.
    "api final, disk cache cold": "import tui_insight\nwith tui_insight.open(D, disk_cache=True) as l: rows = len(l.final(output='pandas'))",
    "api final, disk cache warm": "import tui_insight\nwith tui_insight.open(D, disk_cache=True) as l: rows = len(l.final(output='pandas'))",
    "tbparse": "from tbparse import SummaryReader\nrows = len(SummaryReader(D).scalars)",
    "accumulator": (
        "import os, pandas\n"
        "from tensorboard.backend.event_processing.event_accumulator import EventAccumulator\n"
        "frames = []\n"
        "for run, _, files in os.walk(D):\n"
        "    if any('tfevents' in f for f in files):\n"
        "        acc = EventAccumulator(run, size_guidance={'scalars': 0}); acc.Reload()\n"
        "        for tag in acc.Tags()['scalars']:\n"
        "            ev = acc.Scalars(tag)\n"
        "            frames.append(pandas.DataFrame({'run': run, 'tag': tag, 'step': [e.step for e in ev],\n"
        "                                            'wall_time': [e.wall_time for e in ev], 'value': [e.value for e in ev]}))\n"
        "rows = len(pandas.concat(frames))"),
}


def write_logs(base: Path, tags: int, steps: int, runs: int, run_steps: int) -> tuple[Path, Path]:
    from tensorboardX import SummaryWriter

    big, many = base / f"big_{tags}x{steps}", base / f"many_{runs}x{run_steps}"
    if not big.exists():
        t0 = time.perf_counter()
        with SummaryWriter(str(big / "run"), flush_secs=3600) as writer:
            for step in range(steps):
                for i in range(tags):
                    writer.add_scalar(f"train/scalar_{i:02d}", (step % 997) / 997 + i, step)
        print(f"wrote {big} in {time.perf_counter() - t0:.0f} s", flush=True)
    if not many.exists():
        for r in range(runs):
            with SummaryWriter(str(many / f"run_{r:04d}")) as writer:
                for step in range(run_steps):
                    writer.add_scalar("loss", 1 / (step + 1) + r * 1e-4, step)
                    writer.add_scalar("acc", step / run_steps, step)
    return big, many


def child(code: str, directory: Path) -> dict:
    """Run `code` (which sets `rows`) in a fresh interpreter; its wall, CPU and peak RSS."""
    script = (f"import time; D = {str(directory)!r}; t0 = time.perf_counter()\n{code}\n"
              "import json, resource; print(json.dumps({'wall': time.perf_counter() - t0, 'rows': rows,"
              " 'rss_mb': resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024}))")
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                          env={**os.environ, "PYTHONPATH": str(REPO), "XDG_CACHE_HOME": str(CACHE_HOME)})
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if done.returncode:
        return {"error": done.stderr.strip().splitlines()[-1]}
    out = json.loads(done.stdout.strip().splitlines()[-1])
    out["cpu"] = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return out


def command(args: list[str]) -> dict:
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.perf_counter()
    done = subprocess.run([sys.executable, "-m", "tui_insight", *args], capture_output=True, text=True,
                          env={**os.environ, "PYTHONPATH": str(REPO)})
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return {"wall": time.perf_counter() - t0, "rc": done.returncode,
            "cpu": (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)}


def size(directory: Path) -> int:
    return sum(p.stat().st_size for p in directory.rglob("*") if p.is_file())


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--tags", type=int, default=50)
    parser.add_argument("--steps", type=int, default=40_000)
    parser.add_argument("--runs", type=int, default=1000)
    parser.add_argument("--run-steps", type=int, default=50)
    parser.add_argument("--skip", nargs="*", default=[], help="measurements to leave out (e.g. accumulator)")
    args = parser.parse_args()
    base = Path(os.environ.get("TMPDIR") or tempfile.gettempdir()) / "tui-insight-bench" / "api"
    big, many = write_logs(base, args.tags, args.steps, args.runs, args.run_steps)
    for name, directory in (("big", big), ("many", many)):
        print(f"\n{name}: {directory} ({size(directory) / 1e6:.1f} MB)", flush=True)
        load = command([str(directory), "--summary", "--json"])
        shutil.rmtree(CACHE_HOME / "tui-insight", ignore_errors=True)
        print(f"  {'cli load':26} wall {load['wall']:7.2f} s  cpu {load['cpu']:7.2f} s", flush=True)
        for label, code in MEASURE.items():
            if label in args.skip:
                continue
            got = child(code, directory)
            if "error" in got:
                print(f"  {label:26} failed: {got['error']}", flush=True)
                continue
            ratio = f"  ({got['wall'] / load['wall']:.2f}x cli load)" if label.startswith("api") else ""
            print(f"  {label:26} wall {got['wall']:7.2f} s  cpu {got['cpu']:7.2f} s  rss {got['rss_mb']:7.0f} MB"
                  f"  rows {got['rows']}{ratio}", flush=True)
        with tempfile.TemporaryDirectory() as tmp:
            for kind in ("csv", "parquet"):
                out = Path(tmp) / kind
                took = command([str(directory), "--export", kind, "--out", str(out), "--all-steps"])
                print(f"  export {kind:19} wall {took['wall']:7.2f} s  cpu {took['cpu']:7.2f} s  "
                      f"{size(out) / 1e6:8.1f} MB", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
