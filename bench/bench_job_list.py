"""Job list with health columns (issue 11), run by hand:

    python bench/bench_job_list.py [--jobs 1000] [--idle 30] [--dir DIR]

Uses bench_sweep.py's sweep of N runs (made once under $TMPDIR and kept: each 10 scalar tags
x 2,000 steps, `loss` first, so every row has a headline, its digest and its badges, + 2 histogram
tags); a run `run_live` is added for a live phase and removed after. Then, each in a fresh
process, headless at 160x48:

- first paint, warm: the cache loaded before the app starts; from starting the app to the first
  painted frame of the table with every job's row (health columns and all) built; the loading
  thread starts after it (it would take the GIL from the first paint for its first pass);
- first paint, cold: the app starts on an unread LOGDIR; from start to the first painted frame
  with rows (every job listed, "loading"), and to the first painted row whose job is read (the
  rows on screen are read first);
- building every row from scratch (`refresh_jobs`, what a new headline from `m` costs);
- CPU of the idle app (loading thread and change notices on, reload interval 3 s) over `--idle`
  seconds; and over the same time while one run appends a step a second (rows kept up to date,
  badges watched).
"""
from __future__ import annotations

import argparse
import json
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(HERE))

from bench_sweep import SCALAR_STEPS, SCALAR_TAGS, make_sweep  # noqa: E402  the same runs as the sweep bench

CHILD = r"""
import json, os, sys, threading, time
sys.path.insert(0, sys.argv[2])
logdir, mode, idle = sys.argv[1], sys.argv[3], float(sys.argv[4])
from tui_insight.summary.store.cache import SummaryCache
from tui_insight.summary.formats.writer import SummaryWriter
from tui_insight.ui.app import InsightApp
from tui_insight.ui.widgets.job_table import JobTable

marks = {}
cache = SummaryCache(logdir)
if mode == "warm":
    cache.reload()
jobs = len(cache.jobs)
render_line = JobTable.render_line
def timed(self, y):
    strip = render_line(self, y)
    if "first" not in marks and self.row_count:
        if "rows" not in marks:
            marks["rows"] = time.perf_counter() - start
        views = cache.jobs
        on_screen = self.order[:max(1, self.size.height - 1)]
        if mode == "warm" and len(self.rows_by_id) == jobs or mode == "cold" and any(views[t].loaded for t in on_screen):
            marks["first"] = time.perf_counter() - start
    return strip
JobTable.render_line = timed

start = time.perf_counter()
app = InsightApp(cache, reload_interval=3.0, graph_prefetch_delay=None, start_loading=mode == "cold")

async def auto(pilot):
    while "first" not in marks and time.perf_counter() - start < 600:
        await pilot.pause(0.005)
    if mode == "cold" or idle == 0:
        app.exit()
        return
    cache.start(3.0)  # as the app does: reloads on change notices, and every 3 s without them
    while cache.progress.reloads < 1 or cache.progress.loading:
        await pilot.pause(0.05)
    table = app.screen.query_one(JobTable)
    t0 = time.perf_counter()
    table.refresh_jobs(cache.jobs, app.clock())
    marks["rebuild_ms"] = (time.perf_counter() - t0) * 1000
    await pilot.pause(3.0)
    cpu0, wall0 = time.process_time(), time.perf_counter()
    await pilot.pause(idle)
    marks["idle_pct"] = 100 * (time.process_time() - cpu0) / (time.perf_counter() - wall0)
    # One run appends a step a second: its row, the badge watch and the loading thread keep up.
    stop = threading.Event()
    def append():
        writer = SummaryWriter(os.path.join(logdir, "run_live"), wall_time=time.time())
        step = 1
        while not stop.wait(1.0):
            for i in range(10):
                writer.add_scalar("loss" if i == 0 else f"metric/m{i - 1}", 1.0 / step)
            writer.record(step, wall_time=time.time())
            writer.flush()
            step += 1
        writer.close()
    thread = threading.Thread(target=append)
    thread.start()
    await pilot.pause(3.0)
    cpu0, wall0 = time.process_time(), time.perf_counter()
    await pilot.pause(idle)
    marks["live_pct"] = 100 * (time.process_time() - cpu0) / (time.perf_counter() - wall0)
    marks["live_row_step"] = table.cell("./run_live", "step") if "./run_live" in table.rows_by_id else "-"
    stop.set()
    thread.join()
    app.exit()

app.run(headless=True, auto_pilot=auto, size=(160, 48))
print(json.dumps(marks))
"""


def child(logdir: Path, mode: str, idle: float) -> dict:
    out = subprocess.run([sys.executable, "-c", CHILD, str(logdir), str(ROOT), mode, str(idle)],
                         capture_output=True, text=True)
    if out.returncode != 0:
        raise SystemExit(f"benchmark child failed:\n{out.stderr[-3000:]}")
    return json.loads(out.stdout.strip().splitlines()[-1])


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--jobs", type=int, default=1000)
    parser.add_argument("--idle", type=float, default=30.0, help="seconds of each CPU measurement")
    parser.add_argument("--dir", type=Path, default=Path(tempfile.gettempdir()) / "tui-insight-bench")
    args = parser.parse_args()
    args.dir.mkdir(parents=True, exist_ok=True)
    logdir = make_sweep(args.dir, args.jobs)
    print(f"{args.jobs} jobs of {SCALAR_TAGS} scalar tags x {SCALAR_STEPS} steps at {logdir}")
    try:
        cold = [child(logdir, "cold", 0) for _ in range(3)]
        warm = [child(logdir, "warm", 0)["first"] for _ in range(2)]
        w = child(logdir, "warm", args.idle)
    finally:
        shutil.rmtree(logdir / "run_live", ignore_errors=True)  # the sweep stays as bench_sweep.py made it
    print(f"  first paint, cache loaded: {min([w['first'], *warm]) * 1000:.0f} ms (target 300 ms, best of 3); "
          f"every row rebuilt (a new headline): {w['rebuild_ms']:.0f} ms")
    print(f"  first paint, cold start: every job listed after {min(c['rows'] for c in cold) * 1000:.0f} ms, "
          f"the first row read on screen after {min(c['first'] for c in cold) * 1000:.0f} ms (best of 3)")
    print(f"  idle app: {w['idle_pct']:.1f}% of a core over {args.idle:.0f} s (target 5%); with one run "
          f"appending a step a second: {w['live_pct']:.1f}% (its row at step {w['live_row_step']})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
