"""What one hand-over of loaded jobs costs the job list (issue 30), run by hand:

    python bench/bench_handover.py [--runs 5000] [--dir DIR] [--repeat 3] [--against CHECKOUT]

The main process of a sweep hands the jobs the cache publishes to the job list a few times a
second (`JobsScreen.cache_changed`): their badges are checked and their rows built again. This
times that alone, in a fresh process per measurement, headless at 160x48, on bench_sweep.py's
sweep of `--runs` runs (listed from a disk cache of the benchmark's own, filled by a first
in-process load when empty), with the cache loaded before the app starts (no loading thread):

- settled: every row built from a loaded job; each hand-over names 12 jobs whose views are new;
- loading: as in a cold sweep, all but 200 rows say "loading" first, then each hand-over names
  12 jobs that were read (the rows still loading are thousands at first).

Each figure is the UI thread's CPU per hand-over (`time.thread_time`), the mean over 300
hand-overs. `--against` runs another checkout (a detached worktree of the base) alternately with
this one, each measurement of one followed by the same of the other.
"""
from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
sys.path.insert(0, str(HERE))

from bench_sweep import make_sweep  # noqa: E402  the same runs as the sweep bench
from installed_bytecode import compile_checkouts  # noqa: E402

HANDOVERS = 300
JOBS_EACH = 12

CHILD = r"""
import dataclasses, json, sys, time
if __name__ == "__main__":  # (the loading processes of the first load import this as their main)
    sys.path.insert(0, sys.argv[2])
    logdir, cache_dir, mode, handovers, each = sys.argv[1], sys.argv[3], sys.argv[4], int(sys.argv[5]), int(sys.argv[6])
    from tui_insight.summary.store.cache import SummaryCache
    from tui_insight.summary.store.disk_cache import DiskCache
    from tui_insight.summary.store.job_view import Changes
    from tui_insight.ui.app import InsightApp
    from tui_insight.ui.screens.jobs import JobsScreen

    cache = SummaryCache(logdir, workers=2, disk_cache=DiskCache(cache_dir))
    cache.reload()
    cache.stop()
    app = InsightApp(cache, reload_interval=3.0, graph_prefetch_delay=None, start_loading=False)
    marks = {}

    def hand_over(screen, train_ids):
        screen.cache_changed(Changes(updated={tid: set() for tid in train_ids}))
        while screen._backlog:  # the slices the screen's timer would build
            screen._rebuild_rows()

    async def auto(pilot):
        await pilot.pause(0.5)
        screen = app.screen
        assert isinstance(screen, JobsScreen)
        ids = list(cache.jobs)
        loaded = dict(cache._views)
        if mode == "loading":
            for tid in ids[200:]:
                cache._views[tid] = dataclasses.replace(loaded[tid], loaded=False)
            hand_over(screen, ids[200:])
            marks["loading_at_start"] = len(screen.table.loading_ids)
        spent = 0.0
        for i in range(handovers):
            batch = ids[200 + i * each:200 + (i + 1) * each]
            for tid in batch:
                cache._views[tid] = dataclasses.replace(loaded[tid])  # a new view, loaded
            cpu = time.thread_time()
            hand_over(screen, batch)
            spent += time.thread_time() - cpu
        marks["ms"] = spent / handovers * 1000
        marks["loading_at_end"] = len(screen.table.loading_ids)
        app.exit()

    app.run(headless=True, auto_pilot=auto, size=(160, 48))
    print(json.dumps(marks))
"""


def run(root: Path, sweep: Path, cache_dir: Path, mode: str) -> dict:
    out = subprocess.run([sys.executable, "-c", CHILD, str(sweep), str(root), str(cache_dir), mode,
                          str(HANDOVERS), str(JOBS_EACH)], capture_output=True, text=True,
                         env={**os.environ, "PYTHONPATH": str(root)})
    if out.returncode != 0:
        raise SystemExit(f"benchmark child failed:\n{out.stderr[-3000:]}")
    return json.loads([line for line in out.stdout.splitlines() if line.startswith("{")][-1])


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=5000)
    parser.add_argument("--dir", type=Path, default=Path(tempfile.gettempdir()) / "tui-insight-bench")
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--only", default="settled,loading")
    parser.add_argument("--against", type=Path, help="another checkout, measured alternately with this one")
    args = parser.parse_args()
    if args.runs < 200 + HANDOVERS * JOBS_EACH:
        parser.error(f"--runs: at least {200 + HANDOVERS * JOBS_EACH}")
    roots = [ROOT] if args.against is None else [args.against, ROOT]
    compile_checkouts(*roots)
    sweep = make_sweep(args.dir, args.runs)
    cache_dir = args.dir / f"handover-cache-{args.runs}"  # the benchmark's own, kept between invocations
    results: dict[tuple[Path, str], list[float]] = {}
    for _ in range(args.repeat):
        for mode in args.only.split(","):
            for root in roots:
                r = run(root, sweep, cache_dir, mode)
                results.setdefault((root, mode), []).append(r["ms"])
                rows = f", rows loading {r['loading_at_start']} -> {r['loading_at_end']}" if mode == "loading" else ""
                print(f"  {mode:8s} {root}: {r['ms']:.3f} ms CPU a hand-over of {JOBS_EACH} jobs{rows}", flush=True)
    for (root, mode), ms in results.items():
        print(f"{mode:8s} {root}: median of {len(ms)}: {statistics.median(ms):.3f} ms a hand-over")
    print(f"load average: {os.getloadavg()}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
