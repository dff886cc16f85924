"""Live cost (issue 14), run by hand: python bench/bench_live.py [SECONDS [cache|jobs|scalars ...]]

A writer process appends 100 steps/s of 50 scalar tags to one run (flushing every 10 steps,
as a training loop's summary writer would) for SECONDS (default 20) while the app runs
headless in another process on (a) the job list and (b) the scalar view of that run. Reports
the app process's CPU (process time / wall time, all its threads: the cache's loading thread
included) and the UI thread's share of it, how many times the cache reloaded, how many times the
screens were handed cache changes, and how many times charts redrew; and (c) the cache alone,
without the app (the floor: reading what is appended). Target: <= 20% of a core with the scalar
view open.

Logs are written under $TMPDIR/tui-insight-bench/live (outside the repo; give each helper or
checkout its own TMPDIR so runs do not clash).
"""
from __future__ import annotations

import asyncio
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))

TAGS = 50
RATE = 100  # steps per second
FLUSH_EVERY = 10  # steps
PREWRITTEN = 1000  # steps already there when the app starts


def write_live(logdir: str, seconds: float, start_step: int) -> None:
    """The writer process: RATE steps/s of TAGS tags, flushed every FLUSH_EVERY steps."""
    import math

    from tui_insight.summary.formats.writer import SummaryWriter

    names = [f"train/tag_{i:02d}" for i in range(TAGS)]
    writer = SummaryWriter(Path(logdir) / "run", timestamp=1_700_000_000)
    t0 = time.monotonic()
    step = start_step
    while time.monotonic() - t0 < seconds:
        for _ in range(FLUSH_EVERY):
            step += 1
            for i, name in enumerate(names):
                writer.add_scalar(name, math.sin(step / 300 + i) + 1e-4 * step)
            writer.record(step)
        writer.flush()
        due = t0 + (step - start_step) / RATE
        time.sleep(max(0.0, due - time.monotonic()))
    writer.close()


def prewrite(logdir: Path) -> None:
    from tui_insight.summary.formats.writer import SummaryWriter

    names = [f"train/tag_{i:02d}" for i in range(TAGS)]
    with SummaryWriter(logdir / "run", timestamp=1_700_000_000) as writer:
        for step in range(1, PREWRITTEN + 1):
            for i, name in enumerate(names):
                writer.add_scalar(name, 1.0 / step + i)
            writer.record(step)


def count_reloads() -> dict:
    """Counts the cache's reloads (each one its watching thread asks the scheduler for) in the
    returned dict."""
    from tui_insight.summary.store.cache import SummaryCache

    counts = {"reloads": 0}
    waited = SummaryCache._waited

    def counted(self, *args, **kwargs):
        counts["reloads"] += 1
        return waited(self, *args, **kwargs)

    SummaryCache._waited = counted
    return counts


def run_app(logdir: str, where: str, seconds: float) -> dict:
    """The app process: open `where` ("jobs" or "scalars"), start the writer, measure."""
    from tui_insight.summary.store.cache import SummaryCache
    from tui_insight.ui.app import InsightApp
    from tui_insight.ui.widgets import chart
    from tui_insight.ui.widgets.job_table import JobTable

    counts = {"chart_lines": 0, "chart_draws": 0}
    render_line = chart.ScalarChart.render_line

    def counted_line(self, y):
        counts["chart_lines"] += 1
        return render_line(self, y)

    chart.ScalarChart.render_line = counted_line
    draw_chart = chart.draw_chart

    def counted_draw(*args, **kwargs):
        counts["chart_draws"] += 1
        return draw_chart(*args, **kwargs)

    chart.draw_chart = counted_draw
    reloads = count_reloads()
    result: dict = {}
    app = InsightApp(SummaryCache(logdir), reload_interval=3.0)

    async def auto(pilot):
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            tables = app.screen.query(JobTable)
            if tables and tables.first().row_count and all(v.loaded for v in app.cache.jobs.values()):
                break
            await pilot.pause(0.05)
        if where == "scalars":
            await pilot.press("enter")
            await pilot.pause(2.0)
        writer = subprocess.Popen([sys.executable, __file__, "write", logdir, str(seconds),
                                   str(PREWRITTEN)])
        await pilot.pause(1.0)  # the writer starts, the first appends arrive
        counts["chart_lines"] = counts["chart_draws"] = reloads["reloads"] = 0
        delivered = app.changes_delivered
        cpu0, ui0, wall0 = time.process_time(), time.thread_time(), time.monotonic()
        while writer.poll() is None:
            await asyncio.sleep(0.2)  # not pilot.pause: it sends a message to every widget each time
        cpu, ui, wall = time.process_time() - cpu0, time.thread_time() - ui0, time.monotonic() - wall0
        await pilot.pause(1.0)
        job = app.cache.jobs.get("./run")
        result.update(cpu_percent=100 * cpu / wall, ui_percent=100 * ui / wall, wall=wall,
                      screen=type(app.screen).__name__, last_step=job.last_step if job else None,
                      cache_changed=app.changes_delivered - delivered, **counts, **reloads)
        app.exit()

    app.run(headless=True, auto_pilot=auto, size=(160, 48))
    return result


def run_cache(logdir: str, seconds: float) -> dict:
    """No app: the cache's loading thread alone, reloading as the app would (the floor)."""
    from tui_insight.summary.store.cache import SummaryCache, wait_loaded

    reloads = count_reloads()
    cache = SummaryCache(logdir)
    cache.start(3.0)
    wait_loaded(cache)
    writer = subprocess.Popen([sys.executable, __file__, "write", logdir, str(seconds), str(PREWRITTEN)])
    time.sleep(1.0)
    reloads["reloads"] = 0
    cpu0, wall0 = time.process_time(), time.monotonic()
    writer.wait()
    cpu, wall = time.process_time() - cpu0, time.monotonic() - wall0
    time.sleep(1.0)
    job = cache.jobs.get("./run")
    cache.stop()
    return {"cpu_percent": 100 * cpu / wall, "ui_percent": 0.0, "wall": wall, "screen": "no app (the cache alone)",
            "last_step": job.last_step if job else None, "cache_changed": 0, "chart_lines": 0, "chart_draws": 0,
            **reloads}


def main() -> None:
    seconds = float(sys.argv[1]) if len(sys.argv) > 1 else 20.0
    base = Path(os.environ.get("TMPDIR") or tempfile.gettempdir()) / "tui-insight-bench" / "live"
    print(f"{RATE} steps/s x {TAGS} tags for {seconds:g} s, app headless at 160x48")
    for where in sys.argv[2:] or ("cache", "jobs", "scalars"):
        logdir = base / where
        if logdir.exists():
            import shutil

            shutil.rmtree(logdir)
        logdir.mkdir(parents=True)
        prewrite(logdir)
        out = subprocess.run([sys.executable, __file__, "cache" if where == "cache" else "app", str(logdir), where,
                              str(seconds)],
                             capture_output=True, text=True)
        lines = [line for line in out.stdout.splitlines() if line.startswith("{")]
        if out.returncode or not lines:
            print(f"({where}) failed:\n{out.stdout[-2000:]}\n{out.stderr[-4000:]}")
            continue
        r = json.loads(lines[-1])
        expected = PREWRITTEN + int(seconds * RATE)
        print(f"({where}) app CPU {r['cpu_percent']:.1f}% of a core (UI thread {r['ui_percent']:.1f}%) "
              f"over {r['wall']:.1f} s on {r['screen']}; cache reloads {r['reloads']} ({r['reloads'] / r['wall']:.1f}/s), "
              f"changes handed to the screens {r['cache_changed']} times ({r['cache_changed'] / r['wall']:.1f}/s), "
              f"charts drawn {r['chart_draws']} times ({r['chart_lines']} lines); last step shown {r['last_step']} (~{expected} written)")


if __name__ == "__main__":
    if len(sys.argv) > 1 and sys.argv[1] == "write":
        write_live(sys.argv[2], float(sys.argv[3]), int(sys.argv[4]))
    elif len(sys.argv) > 1 and sys.argv[1] == "cache":
        print(json.dumps(run_cache(sys.argv[2], float(sys.argv[4]))))
    elif len(sys.argv) > 1 and sys.argv[1] == "app":
        print(json.dumps(run_app(sys.argv[2], sys.argv[3], float(sys.argv[4]))))
    else:
        main()
