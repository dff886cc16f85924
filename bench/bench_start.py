"""A sweep's start from process start, as the command line runs it (issue 30), run by hand:

    python bench/bench_start.py --sweep DIR/sweep-5000 [--cache DIR] [--repeat 3]
                                [--only cold,warm] [--workers N] [--against CHECKOUT]

Each start is a fresh process timed from before it was spawned (the interpreter's start and
every import counted, unlike bench/bench_sweep.py and bench/bench_warm.py, which count from
after their imports). It runs the program's own path (`cli.main()`, as `python -m tui_insight
LOGDIR --workers N`) with `run_app` replaced as its module is imported: `make_app` and the app,
headless at 160x48. Marks:

- first row: the first paint of a row whose job is read (not "loading");
- all loaded: every job read and the table holding a row per job, none "loading";
- CPU of the process up to all loaded (the loading processes' own CPU is not in it), of the
  UI thread and of the cache's thread; peak RSS; garbage collections up to all loaded
  (passes by generation, ms).

`cold` empties the benchmark's cache directory first (default:
$TMPDIR/bench-start-cache); `warm` reads what the previous start wrote (a cold one first when it is
empty). `--against` runs another checkout (a detached worktree of the base) alternately with
this one, each start of one followed by the same of the other: the machine's load changes by
the minute. Their disk caches are their own. Bytecode of both is compiled first.
"""
from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
sys.path.insert(0, str(HERE))

from installed_bytecode import compile_checkouts  # noqa: E402

CHILD = r"""
import sys, time
spawned = float(sys.argv[4])
since = lambda: time.time() - spawned
sys.path.insert(0, sys.argv[2])
import asyncio, gc, importlib.util, json, os, resource
logdir, workers = sys.argv[1], sys.argv[3]
marks = {}
collections = [[0, 0.0] for _ in range(3)]
started = [0.0]
def collected(phase, info):
    if phase == "start":
        started[0] = time.perf_counter()
    elif "all" not in marks:
        collections[info["generation"]][0] += 1
        collections[info["generation"]][1] += (time.perf_counter() - started[0]) * 1000
gc.callbacks.append(collected)


def headless(cache, **settings):
    # `run_app` as the program calls it, headless at 160x48 with the benchmark's marks.
    from tui_insight.ui.app import make_app
    from tui_insight.ui.widgets.job_table import JobTable

    marks["imported"] = since()
    render_line = JobTable.render_line
    def timed(self, y):
        if "painted" not in marks:
            marks["painted"] = since()
        if "first" not in marks and y >= 1:
            row = int(self.scroll_y) + y - 1
            if 0 <= row < len(self.order) and self.order[row] not in self.loading_ids:
                marks["first"] = since()
        return render_line(self, y)
    JobTable.render_line = timed
    settings.pop("straggler", None)
    app = make_app(cache, **settings)

    async def auto(pilot):
        table = app.screen.query_one(JobTable)
        deadline = time.monotonic() + 600
        while time.monotonic() < deadline:
            views = cache.jobs
            if os.environ.get("BENCH_FIRST_ONLY") and "first" in marks:
                break
            if (cache.progress.reloads >= 1 and not table.loading_ids and table.row_count == len(views)
                    and all(v.loaded for v in views.values())):
                break
            await asyncio.sleep(0.01)  # (not `pilot.pause`: its wait for every widget's queue costs the UI thread)
        marks["all"] = since()
        marks["cpu"] = time.process_time()
        marks["ui_cpu"] = time.thread_time()
        thread = cache.loading_thread
        marks["cache_cpu"] = time.clock_gettime(time.pthread_getcpuclockid(thread.ident)) if thread else float("nan")
        marks["rss_mb"] = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
        marks["gc"] = [[n, round(ms, 1)] for n, ms in collections]
        marks["jobs"] = len(cache.jobs)
        app.exit()

    try:
        if os.environ.get("BENCH_PROFILE"):  # the UI thread's calls (cProfile sees only its own thread)
            import cProfile
            profile = cProfile.Profile(time.thread_time)  # CPU: its wall time would count waits for the GIL
            profile.runcall(app.run, headless=True, auto_pilot=auto, size=(160, 48))
            profile.dump_stats(os.environ["BENCH_PROFILE"])
        else:
            app.run(headless=True, auto_pilot=auto, size=(160, 48))
    finally:
        cache.stop()
    return 0


class Hook:  # `run_app` replaced as its module is imported (where and when the program imports it)
    def find_spec(self, name, path, target=None):
        if name != "tui_insight.ui.app":
            return None
        sys.meta_path.remove(self)
        spec = importlib.util.find_spec(name)
        load = spec.loader.exec_module
        def exec_module(module):
            load(module)
            module.run_app = headless
        spec.loader.exec_module = exec_module
        return spec
sys.meta_path.insert(0, Hook())

from tui_insight import cli
from tui_insight.summary.store.pool import JobPool
start_ahead = JobPool.start_ahead
def ahead(self, *args, **kwargs):
    marks.setdefault("processes", since())
    return start_ahead(self, *args, **kwargs)
JobPool.start_ahead = ahead
dashboard_cache = cli.dashboard_cache
def made(*args, **kwargs):
    cache = dashboard_cache(*args, **kwargs)
    marks["cache_made"] = since()
    return cache
cli.dashboard_cache = made
sys.argv[1:] = [logdir, "--workers", workers]
status = cli.main()  # the program's path (`main(None)`)
print(json.dumps(marks))
"""


def run(sweep: Path, root: Path, home: Path, workers: int) -> dict:
    env = {**os.environ, "XDG_CACHE_HOME": str(home / "cache"), "XDG_STATE_HOME": str(home / "state"),
           "XDG_CONFIG_HOME": str(home / "config"), "PYTHONPATH": str(root)}
    cmd = [sys.executable, "-c", CHILD, str(sweep), str(root), str(workers)]
    out = subprocess.run([*cmd, repr(time.time())], capture_output=True, text=True, env=env)
    if out.returncode != 0:
        raise SystemExit(f"benchmark child failed:\n{out.stderr[-3000:]}")
    return json.loads([line for line in out.stdout.splitlines() if line.startswith("{")][-1])


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sweep", type=Path, required=True)
    parser.add_argument("--cache", type=Path, help="the benchmark's own cache directory (default beside the sweep)")
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--only", default="cold,warm")
    parser.add_argument("--workers", type=int, default=os.cpu_count() or 1)
    parser.add_argument("--against", type=Path, help="another checkout, started alternately with this one")
    parser.add_argument("--first-only", action="store_true", help="end each start at its first row (\"all loaded\" "
                                                                  "is then that moment)")
    args = parser.parse_args()
    if args.first_only:
        os.environ["BENCH_FIRST_ONLY"] = "1"
    base = args.cache or Path(tempfile.gettempdir()) / "bench-start-cache"
    roots = [ROOT] if args.against is None else [args.against, ROOT]
    compile_checkouts(*roots)
    homes = {root: base / f"home-{i}" for i, root in enumerate(roots)}
    results: dict[tuple[Path, str], list[dict]] = {}
    kinds = args.only.split(",")
    for _ in range(args.repeat):
        for kind in kinds:
            for root in roots:
                home = homes[root]
                if kind == "cold" or not (home / "cache").exists():
                    shutil.rmtree(home / "cache", ignore_errors=True)
                    if kind == "warm":
                        run(args.sweep, root, home, args.workers)
                r = run(args.sweep, root, home, args.workers)
                results.setdefault((root, kind), []).append(r)
                print(f"  {kind:4s} {root}: first row {r.get('first', float('nan')):.2f} s, all loaded {r['all']:.2f} s "
                      f"(first paint {r.get('painted', float('nan')):.2f}, processes started {r.get('processes', float('nan')):.2f}, UI imported {r['imported']:.2f}, cache made "
                      f"{r['cache_made']:.2f}); CPU {r['cpu']:.2f} s (UI thread {r['ui_cpu']:.2f}, cache thread "
                      f"{r['cache_cpu']:.2f}), RSS {r['rss_mb']:.0f} MB, gc {r['gc']}, {r['jobs']} jobs", flush=True)
    for (root, kind), runs in results.items():
        med = {k: statistics.median(r.get(k, float("nan")) for r in runs)
               for k in ("first", "all", "cpu", "ui_cpu", "cache_cpu", "rss_mb")}
        print(f"{kind:4s} {root}: median of {len(runs)}: first row {med['first']:.2f} s, all loaded {med['all']:.2f} s, "
              f"CPU {med['cpu']:.2f} s (UI thread {med['ui_cpu']:.2f}, cache thread {med['cache_cpu']:.2f}), "
              f"RSS {med['rss_mb']:.0f} MB")
    print(f"load average: {os.getloadavg()}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
