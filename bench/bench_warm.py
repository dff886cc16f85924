"""Warm start of a sweep (issue 14, "A warm start is instant"), run by hand:

    python bench/bench_warm.py --sweep DIR/sweep-5000 --cache DIR/cache-5000 [--repeat 3]

Starts the app headless at 160x48 in a fresh process `--repeat` times over a disk cache that
already holds the sweep (made by bench/bench_sweep.py; `--fill` loads the sweep once first when
the cache directory is empty) and reports, per start and as medians:

- first row: the first paint of a row whose job is shown read (not "loading");
- rows loaded: every job of the cache read and every row of the table built from it (the
  table shows no "loading" row and has a row per job);
- cache done: the cache's first pass over; CPU of the process, of the UI thread and of the
  cache's thread up to "rows loaded" (they share one GIL: the wall time is about their sum);
- when the app handed the cache's changes to the job list, and how many jobs were read by then.

Times count from after the imports, as in bench/bench_sweep.py (the imports are reported apart).

`--against DIR` starts another checkout (e.g. `git archive` of the base into DIR) alternately
with this one: the machine's load changes by the minute. When the two keep the disk cache's
index in different formats, give the other its own cache (`--against-cache`, e.g. `cp -al` of
the first: the entries are shared, each index is its own), else each discards the other's. `--py-spy FILE` records one more
start with py-spy (all threads, collapsed stacks) and prints the top frames; BENCH_PROFILE=FILE
cProfiles the UI thread, BENCH_SWITCH=S sets `sys.setswitchinterval`.
"""
from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

CHILD = r"""
import json, sys, time
t0 = time.perf_counter()
sys.path.insert(0, sys.argv[2])
logdir, cache_dir = sys.argv[1], sys.argv[3]
import os
if os.environ.get("BENCH_SWITCH"):
    sys.setswitchinterval(float(os.environ["BENCH_SWITCH"]))
from tui_insight.summary.store.cache import SummaryCache
from tui_insight.summary.store.disk_cache import DiskCache
from tui_insight.ui.app import InsightApp
from tui_insight.ui.widgets.job_table import JobTable

marks = {"imported": time.perf_counter() - t0}
start, start_cpu, start_ui_cpu = time.perf_counter(), time.process_time(), time.thread_time()  # as bench_sweep.py: from after the imports
render_line = JobTable.render_line
def timed(self, y):
    if "first" not in marks and y >= 1:
        row = int(self.scroll_y) + y - 1
        if 0 <= row < len(self.order) and self.order[row] not in self.loading_ids:
            marks["first"] = time.perf_counter() - start
    if "painted" not in marks:
        marks["painted"] = time.perf_counter() - start
    return render_line(self, y)
JobTable.render_line = timed

from tui_insight.ui.screens.jobs import JobsScreen
deliveries = marks["deliveries"] = []  # (seconds, jobs loaded) at each hand-over of changes to the job list
cache_changed = JobsScreen.cache_changed
def delivered(self, changes):
    deliveries.append((round(time.perf_counter() - start, 3), sum(v.loaded for v in cache.jobs.values())))
    return cache_changed(self, changes)
JobsScreen.cache_changed = delivered

cache = SummaryCache(logdir, workers=2, disk_cache=DiskCache(cache_dir))
app = InsightApp(cache, reload_interval=3.0, graph_prefetch_delay=None)

async def auto(pilot):
    table = app.screen.query_one(JobTable)
    deadline = time.monotonic() + 600
    while time.monotonic() < deadline:
        if "cache" not in marks and cache.progress.reloads >= 1:
            marks["cache"] = time.perf_counter() - start
        views = cache.jobs
        # The cheap checks first: a scan of 5,000 views every 10 ms was ~60 ms of the UI thread's CPU.
        if (cache.progress.reloads >= 1 and not table.loading_ids and table.row_count == len(views)
                and all(v.loaded for v in views.values())):
            break
        await pilot.pause(0.01)
    marks["all"] = time.perf_counter() - start
    marks["all_cpu"] = time.process_time() - start_cpu
    marks["ui_cpu"] = time.thread_time() - start_ui_cpu  # the UI thread (this one)
    marks["cache_cpu"] = time.clock_gettime(time.pthread_getcpuclockid(cache.loading_thread.ident))
    marks["jobs"] = len(cache.jobs)
    marks["work"] = dict(table.work)
    app.exit()

if os.environ.get("BENCH_PROFILE"):  # the UI thread's calls (cProfile sees only its own thread)
    import cProfile
    cProfile.run("app.run(headless=True, auto_pilot=auto, size=(160, 48))", os.environ["BENCH_PROFILE"])
else:
    app.run(headless=True, auto_pilot=auto, size=(160, 48))
print(json.dumps(marks))
"""


def run(sweep: Path, cache: Path, spy: Path | None = None, root: Path = ROOT) -> dict:
    cmd = [sys.executable, "-c", CHILD, str(sweep), str(root), str(cache)]
    if spy is not None:
        cmd = [str(Path(sys.executable).parent / "py-spy"), "record", "--threads", "--rate", "250", "--format", "raw", "-o", str(spy), "--", *cmd]
    out = subprocess.run(cmd, capture_output=True, text=True)
    if out.returncode != 0:
        raise SystemExit(f"benchmark child failed:\n{out.stderr[-3000:]}")
    lines = [line for line in out.stdout.splitlines() if line.startswith("{")]
    return json.loads(lines[-1])


def top(spy: Path, n: int = 40) -> None:
    """The functions with the most samples (own and cumulative) per thread, from py-spy's raw stacks."""
    own: dict[tuple[str, str], int] = {}
    cumulative: dict[tuple[str, str], int] = {}
    threads: dict[str, int] = {}
    for line in spy.read_text().splitlines():
        stack, _, count = line.rpartition(" ")
        frames = stack.split(";")
        thread, frames = frames[0], frames[1:]
        threads[thread] = threads.get(thread, 0) + int(count)
        if frames:
            own[(thread, frames[-1])] = own.get((thread, frames[-1]), 0) + int(count)
        for frame in set(frames):
            cumulative[(thread, frame)] = cumulative.get((thread, frame), 0) + int(count)
    print("samples by thread:", threads)
    for title, table in (("own", own), ("cumulative", cumulative)):
        print(f"-- {title}")
        for (thread, frame), count in sorted(table.items(), key=lambda kv: -kv[1])[:n]:
            print(f"{count:6d}  {thread[:30]:30s} {frame}")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sweep", type=Path, required=True)
    parser.add_argument("--cache", type=Path, required=True, help="a disk cache directory of the benchmark's own")
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--fill", action="store_true", help="load the sweep once first (an empty cache)")
    parser.add_argument("--py-spy", type=Path, help="record one more start with py-spy into this file")
    parser.add_argument("--top", type=int, default=40)
    parser.add_argument("--against", type=Path, help="another checkout (e.g. `git archive` of the base) started "
                                                     "alternately with this one")
    parser.add_argument("--against-cache", type=Path, help="the disk cache of the --against checkout (default --cache)")
    args = parser.parse_args()
    if args.fill:
        shutil.rmtree(args.cache, ignore_errors=True)
        r = run(args.sweep, args.cache)
        print(f"filled: all loaded in {r['all']:.2f} s")
    roots = [ROOT] if args.against is None else [args.against, ROOT]
    results: dict[Path, list] = {root: [] for root in roots}
    for _ in range(args.repeat):
        for root in roots:  # side by side: the machine's load changes by the minute
            cache = args.against_cache if root == args.against and args.against_cache else args.cache
            r = run(args.sweep, cache, root=root)
            results[root].append(r)
            print(f"  {root}: first row {r.get('first', float('nan')):.2f} s, rows loaded {r['all']:.2f} s "
                  f"(cache done {r.get('cache', float('nan')):.2f} s, first paint {r.get('painted', float('nan')):.2f} s, "
                  f"imports {r['imported']:.2f} s; CPU {r['all_cpu']:.2f} s: UI thread {r['ui_cpu']:.2f} s, "
                  f"cache thread {r['cache_cpu']:.2f} s), {r['jobs']} jobs, table {r['work']}")
            print(f"    changes handed to the job list at (s, jobs read then): {r['deliveries']}")
    for root, runs in results.items():
        if not runs:
            continue
        med = {k: statistics.median(r.get(k, float("nan")) for r in runs)
               for k in ("first", "all", "cache", "all_cpu", "ui_cpu", "cache_cpu")}
        print(f"{root}: median of {len(runs)}: first row {med['first']:.2f} s, rows loaded {med['all']:.2f} s, "
              f"cache done {med['cache']:.2f} s, CPU {med['all_cpu']:.2f} s (UI thread {med['ui_cpu']:.2f} s, "
              f"cache thread {med['cache_cpu']:.2f} s)")
    print(f"load average: {os.getloadavg()}")
    if args.py_spy:
        run(args.sweep, args.cache, args.py_spy)
        top(args.py_spy, args.top)
    return 0


if __name__ == "__main__":
    sys.exit(main())
