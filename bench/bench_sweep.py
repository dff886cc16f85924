"""Sweep benchmark (issue 14), run by hand:

    python bench/bench_sweep.py --runs 1000 [--runs 5000] [--idle 60] [--dir DIR]

Makes a hyper-parameter sweep of N runs outside the repository (default under $TMPDIR, kept
between invocations): each run 10 scalar tags x 2,000 steps + 2 histogram tags x 100 steps
(~0.93 MB), written once with our writer and hard-linked into every run directory (the reader
still opens and reads every file; hard links only save disk). Then, each in a fresh process:

- the app (headless, 160x48) three times, as the command line sets it up (default memory
  budget): cold with one process (`--workers 1`), cold with a process per core, then warm (the
  disk cache the second run wrote; a cache directory of the benchmark's own, never the user's).
  Each: time to the first painted row whose job is read, time to all rows loaded, peak RSS,
  opening one job (enter -> its scalar charts painted; under the budget its series may have to
  come back first), CPU of an idle full reload (the poll that stats every file: the safety net
  for what change notices miss) beside the CPU of its stat calls alone, CPU of an idle background
  poll (`SummaryCache.poll`, what the app's loop runs: finished runs in turn), CPU of the idle app over
  `--idle` seconds;
- the load/parse-floor ratio, side by side in one process: the cache's full load against the
  floor (read every file, frame and CRC-check the records, decode each Event with protobuf), on
  the ~100 MB run of bench/make_logs.py and on 100 of the sweep's runs.
"""
from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(HERE))

from installed_bytecode import compile_checkouts  # noqa: E402

SCALAR_TAGS = 10
SCALAR_STEPS = 2000
HIST_TAGS = 2
HIST_EVERY = 20  # 100 histogram steps


def write_template(directory: Path) -> Path:
    import numpy as np

    from tui_insight.summary.formats.writer import SummaryWriter

    rng = np.random.default_rng(0)
    writer = SummaryWriter(directory, timestamp=1_700_000_000, wall_time=1_700_000_000.0)
    samples = [rng.normal(size=2000) for _ in range(HIST_TAGS)]
    names = ["loss"] + [f"metric/m{i}" for i in range(SCALAR_TAGS - 1)]
    for step in range(1, SCALAR_STEPS + 1):
        for i, name in enumerate(names):
            writer.add_scalar(name, float(1.0 / step + 0.01 * i + 0.001 * rng.standard_normal()))
        if step % HIST_EVERY == 0:
            for h, values in enumerate(samples):
                writer.add_histogram(f"weights/layer{h}", values * (1 + step / SCALAR_STEPS))
        writer.record(step, wall_time=1_700_000_000.0 + step)
    writer.close()
    return writer.path


def make_sweep(base: Path, runs: int, name: str = "sweep") -> Path:
    """`base/<name>-<runs>`, made once: run_00000 ... with the template hard-linked in."""
    sweep = base / f"{name}-{runs}"
    done = sweep / ".complete"
    if done.exists():
        return sweep
    template_dir = base / "template"
    if not template_dir.exists() or not any(template_dir.iterdir()):
        write_template(template_dir)
    template = next(p for p in template_dir.iterdir() if ".summary." in p.name)
    for i in range(runs):
        run = sweep / f"run_{i:05d}"
        run.mkdir(parents=True, exist_ok=True)
        target = run / template.name
        if not target.exists():
            try:
                os.link(template, target)
            except OSError:
                target.write_bytes(template.read_bytes())
    done.write_text("")
    # The marker is not a summary file: discovery ignores it.
    return sweep


APP_CHILD = r"""
import gc, json, os, resource, statistics, sys, time
sys.path.insert(0, sys.argv[2])
logdir, idle_seconds, workers, cache_dir = sys.argv[1], float(sys.argv[3]), int(sys.argv[4]), sys.argv[5]
IDLE_REPEATS = 20
from tui_insight.summary.store.cache import SummaryCache
from tui_insight.summary.store.disk_cache import DiskCache
from tui_insight.ui.app import InsightApp
from tui_insight.ui.widgets.job_table import JobTable
from tui_insight.ui.widgets.chart import ScalarChart

marks = {}
start, start_cpu = time.perf_counter(), time.process_time()
render_line = JobTable.render_line
def timed(self, y):
    if "first" not in marks:
        views = app.cache.jobs
        if any(views[t].loaded for t in list(views)[:48] if t in views) and self.row_count:
            marks["first"] = time.perf_counter() - start
    return render_line(self, y)
JobTable.render_line = timed
chart_line = ScalarChart.render_line
def chart_timed(self, y):
    marks["chart"] = time.perf_counter()
    return chart_line(self, y)
ScalarChart.render_line = chart_timed

cache = SummaryCache(logdir, workers=workers, disk_cache=DiskCache(cache_dir) if cache_dir else None)
app = InsightApp(cache, reload_interval=3.0, graph_prefetch_delay=None)

async def auto(pilot):
    deadline = time.monotonic() + 3600
    while time.monotonic() < deadline:
        if cache.progress.reloads >= 1 and all(v.loaded for v in cache.jobs.values()):
            break
        await pilot.pause(0.05)
    marks["all"] = time.perf_counter() - start
    marks["all_cpu"] = time.process_time() - start_cpu
    marks["rss_loaded_mb"] = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    # An idle full reload: CPU of the thread doing it (process time would also count the UI
    # thread still painting the last rows), and the process CPU over the same interval.
    await pilot.pause(2.0)
    # Its floor: the stat calls alone (one per job directory, one per file of each job), measured
    # in turn with it; medians of IDLE_REPEATS (the first polls after a load settle the jobs).
    paths = [p for job in cache._found.values() for p in (job.path, *(os.path.join(job.path, n) for n in
             (*job.summary_files, *job.lineage_files, *job.graph_files)))]
    reload_ms, process_ms, floor_ms, poll_ms = [], [], [], []
    for _ in range(IDLE_REPEATS):
        cpu0, proc0 = time.thread_time(), time.process_time()
        cache.reload()
        reload_ms.append((time.thread_time() - cpu0) * 1000)
        process_ms.append((time.process_time() - proc0) * 1000)
        cpu0 = time.thread_time()
        cache.poll()  # what the app's loop runs: finished runs in turn
        poll_ms.append((time.thread_time() - cpu0) * 1000)
        cpu0 = time.thread_time()
        for p in paths:
            os.stat(p)
        floor_ms.append((time.thread_time() - cpu0) * 1000)
    marks["idle_reload_cpu_ms"] = statistics.median(reload_ms)
    marks["idle_reload_process_ms"] = statistics.median(process_ms)
    marks["idle_poll_cpu_ms"] = statistics.median(poll_ms)
    marks["stat_floor_ms"] = statistics.median(floor_ms)
    marks["stats"] = len(paths)
    # Opening one job: enter on the first row -> its charts painted.
    t0 = time.perf_counter(); marks.pop("chart", None)
    await pilot.press("enter")
    while "chart" not in marks and time.perf_counter() - t0 < 120:
        await pilot.pause(0.01)
    await pilot.pause(0.3)
    marks["open_s"] = marks.get("chart", float("nan")) - t0
    await pilot.press("escape")
    await pilot.pause(1.0)
    loader = time.pthread_getcpuclockid(cache.loading_thread.ident)  # the cache's loading thread
    gc_passes = [[0, 0.0] for _ in range(3)]  # per generation: passes, seconds, while idle
    gc_started = [0.0]
    def gc_timer(phase, info):
        if phase == "start":
            gc_started[0] = time.perf_counter()
        else:
            gc_passes[info["generation"]][0] += 1
            gc_passes[info["generation"]][1] += time.perf_counter() - gc_started[0]
    gc.callbacks.append(gc_timer)
    cpu0, wall0, loader0 = time.process_time(), time.perf_counter(), time.clock_gettime(loader)
    await pilot.pause(idle_seconds)
    wall = time.perf_counter() - wall0
    gc.callbacks.remove(gc_timer)
    marks["idle_gc"] = [[n, round(seconds * 1000, 1)] for n, seconds in gc_passes]
    marks["idle_app_cpu_pct"] = 100 * (time.process_time() - cpu0) / wall
    try:
        marks["idle_loader_cpu_pct"] = 100 * (time.clock_gettime(loader) - loader0) / wall
    except OSError:  # the loading thread ended meanwhile (idle long enough): its clock is gone
        marks["idle_loader_cpu_pct"] = float("nan")
    marks["rss_peak_mb"] = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    marks["detailed"] = sum(v.detailed for v in cache.jobs.values())
    marks["detail_mb"] = cache._budget.total / 1e6
    app.exit()

app.run(headless=True, auto_pilot=auto, size=(160, 48))
print(json.dumps(marks))
"""

FLOOR_CHILD = r"""
import json, os, sys, time
sys.path.insert(0, sys.argv[2])
from tui_insight.proto import summary_pb2
from tui_insight.summary.store.cache import SummaryCache
from tui_insight.summary.formats.framing import ScanReport, scan_records
logdir = sys.argv[1]
files = []
for d, _, names in os.walk(logdir):
    files += [os.path.join(d, n) for n in names if ".summary." in n]

def floor():
    events = 0
    for path in files:
        size = os.path.getsize(path)
        with open(path, "rb") as fh:
            for _, payload in scan_records(fh, 0, size, ScanReport()):
                summary_pb2.Event.FromString(payload)
                events += 1
    return events

def load():
    SummaryCache(logdir).reload()

results = {}
for name, fn in (("floor", floor), ("load", load), ("floor", floor), ("load", load)):
    t0 = time.perf_counter(); fn(); elapsed = time.perf_counter() - t0
    results[name] = min(results.get(name, elapsed), elapsed)
results["files"] = len(files)
results["mb"] = sum(os.path.getsize(p) for p in files) / 1e6
print(json.dumps(results))
"""


def child(script: str, *args: str) -> dict:
    out = subprocess.run([sys.executable, "-c", script, *args], capture_output=True, text=True)
    if out.returncode != 0:
        raise SystemExit(f"benchmark child failed:\n{out.stderr[-3000:]}")
    return json.loads(out.stdout.strip().splitlines()[-1])


def floor_ratio(logdir: Path, label: str) -> None:
    r = child(FLOOR_CHILD, str(logdir), str(ROOT))
    print(f"  {label}: {r['files']} files, {r['mb']:.1f} MB: load {r['load']:.2f} s, parse floor "
          f"{r['floor']:.2f} s -> ratio {r['load'] / r['floor']:.2f}x (best of 2 each, same process)")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, action="append", help="sweep sizes (default 1000)")
    parser.add_argument("--idle", type=float, default=60.0, help="seconds of idle app to measure")
    parser.add_argument("--dir", type=Path, default=Path(tempfile.gettempdir()) / "tui-insight-bench")
    parser.add_argument("--skip-floor", action="store_true")
    parser.add_argument("--only", default="cold1,cold,warm",
                        help="which app runs, comma-separated: cold1 (--workers 1), cold (a worker per core), warm")
    args = parser.parse_args()
    compile_checkouts(ROOT)
    sizes = args.runs or [1000]
    args.dir.mkdir(parents=True, exist_ok=True)
    for runs in sizes:
        t0 = time.perf_counter()
        sweep = make_sweep(args.dir, runs)
        print(f"sweep of {runs} runs at {sweep} (made in {time.perf_counter() - t0:.1f} s)")
        cache_dir = args.dir / f"cache-{runs}"  # the benchmark's own disk cache, emptied first
        cores = os.cpu_count() or 1
        runs_asked = args.only.split(",")
        for key, label, workers in (("cold1", "cold, 1 process", 1), ("cold", f"cold, {cores} workers", cores),
                                    ("warm", "warm", cores)):
            if key not in runs_asked:
                continue
            if label.startswith("cold"):
                shutil.rmtree(cache_dir, ignore_errors=True)
            r = child(APP_CHILD, str(sweep), str(ROOT), str(args.idle), str(workers), str(cache_dir))
            print(f"  {label}: first useful row {r.get('first', float('nan')):.2f} s, all loaded {r['all']:.2f} s "
                  f"(process CPU {r['all_cpu']:.2f} s), "
                  f"RSS {r['rss_loaded_mb']:.0f} MB loaded / {r['rss_peak_mb']:.0f} MB peak "
                  f"({r['detailed']} jobs with details, {r['detail_mb']:.0f} MB), open one job "
                  f"{r['open_s']:.2f} s, idle full reload {r['idle_reload_cpu_ms']:.0f} ms CPU (median of 20) "
                  f"({r['idle_reload_process_ms']:.0f} ms process; its {r['stats']} stat calls alone "
                  f"{r['stat_floor_ms']:.0f} ms), idle background poll {r['idle_poll_cpu_ms']:.1f} ms CPU, idle app {r['idle_app_cpu_pct']:.2f}% of a core over {args.idle:.0f} s "
                  f"({r['idle_loader_cpu_pct']:.1f}% in the cache's polls; collections by generation "
                  f"[passes, ms]: {r['idle_gc']})")
        print(f"  disk cache: {sum(p.stat().st_size for p in cache_dir.rglob('*') if p.is_file()) / 1e6:.0f} MB")
    if not args.skip_floor:
        from make_logs import write_big

        print("load / parse floor:")
        big = args.dir / "big"
        if not big.exists() or not any(big.iterdir()):
            write_big(big)
        floor_ratio(big, "the ~100 MB run")
        small = make_sweep(args.dir, 100)
        floor_ratio(small, "100 small runs")
    return 0


if __name__ == "__main__":
    sys.exit(main())
