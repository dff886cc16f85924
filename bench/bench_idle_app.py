"""What an idle, loaded app does (issue 30), run by hand:

    python bench/bench_idle_app.py [LOGDIR] [--before TREE] [--settle 20] [--window 30]
                                   [--keys "enter escape"] [--size 160x48] [--repeats 1]

Starts the app in tmux (a server of its own, a private HOME, and a disk cache of its own under
--dir: the first start of a big LOGDIR is cold, later ones warm), as a user would, on LOGDIR
(default: the shared MindSpore fixtures). Once every job is loaded it sends `--keys` through tmux
(e.g. `enter escape`: a dashboard opened and left, kept), waits `--settle` seconds, then measures
the process over `--window` seconds of nothing happening:

- each thread's CPU (the kernel's `schedstat`) and how often it woke (time slices), with the
  main thread's CPU a wakeup;
- each of Textual's timers that fired (by callback): ticks, CPU in all, slowest tick's wall time;
- every callback the event loop ran (a timer's task, a widget's message queue...): count, CPU;
- the cycle collector's passes by generation.

The app's own code is run unchanged; the child wraps Textual's `Timer._tick`, asyncio's
`Handle._run` and `gc.callbacks` to count (a few microseconds a callback). `--before TREE`: the
same measures of another checkout (a detached base worktree), interleaved with this one's.
"""
from __future__ import annotations

import argparse
import json
import os
import shlex
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent

CHILD = r"""
import asyncio, gc, json, os, sys, threading, time
from asyncio import events as _events

report_path, control_path = sys.argv[1], sys.argv[2]
sys.argv = ["tui-insight", *sys.argv[3:]]

from textual import timer as _timer
from tui_insight.ui import app as _app_module

timers, handles, passes = {}, {}, [[0, 0.0], [0, 0.0], [0, 0.0]]
counting = [False]

def label_of(callback):
    owner = getattr(callback, "__self__", None)
    if isinstance(owner, asyncio.Task):
        coro = owner.get_coro()
        frame = getattr(coro, "cr_frame", None)
        me = frame.f_locals.get("self") if frame is not None else None
        if isinstance(me, _timer.Timer):
            return "timer " + getattr(me._callback, "__qualname__", me.name)
        name = getattr(coro, "__qualname__", type(coro).__name__)
        return f"task {name}" + (f" ({type(me).__name__})" if me is not None else "")
    return getattr(callback, "__qualname__", repr(callback))

_tick = _timer.Timer._tick
async def tick(self, *, next_timer, count):
    if not counting[0]:
        return await _tick(self, next_timer=next_timer, count=count)
    wall0, cpu0 = time.perf_counter(), time.thread_time()
    try:
        return await _tick(self, next_timer=next_timer, count=count)
    finally:
        name = getattr(self._callback, "__qualname__", self.name)
        entry = timers.setdefault(name, [0, 0.0, 0.0])
        entry[0] += 1
        entry[1] += time.thread_time() - cpu0
        entry[2] = max(entry[2], time.perf_counter() - wall0)
_timer.Timer._tick = tick

_run = _events.Handle._run
def run(self):
    if not counting[0]:
        return _run(self)
    cpu0 = time.thread_time()
    try:
        return _run(self)
    finally:
        entry = handles.setdefault(label_of(self._callback), [0, 0.0])
        entry[0] += 1
        entry[1] += time.thread_time() - cpu0
_events.Handle._run = run

gc_started = [0.0]
def gc_timer(phase, info):
    if phase == "start":
        gc_started[0] = time.perf_counter()
    elif counting[0]:
        passes[info["generation"]][0] += 1
        passes[info["generation"]][1] += time.perf_counter() - gc_started[0]
gc.callbacks.append(gc_timer)

apps = []
_mount = _app_module.InsightApp.on_mount
def on_mount(self):
    apps.append(self)
    return _mount(self)
_app_module.InsightApp.on_mount = on_mount

def threads():
    names = {t.native_id: t.name for t in threading.enumerate()}
    out = {}
    for tid in os.listdir("/proc/self/task"):
        try:
            with open(f"/proc/self/task/{tid}/schedstat") as f:
                run_ns, _, slices = (int(x) for x in f.read().split())
            with open(f"/proc/self/task/{tid}/comm") as f:
                comm = f.read().strip()
        except OSError:
            continue
        out[tid] = (names.get(int(tid), comm), run_ns, slices)
    return out

def measure():
    while not apps:
        time.sleep(0.2)
    app = apps[0]
    cache = app.cache
    while not (cache.progress.reloads and not cache.progress.loading and all(v.loaded for v in list(cache.jobs.values()))):
        time.sleep(0.2)
    with open(report_path + ".loaded", "w") as f:
        f.write(str(len(cache.jobs)))
    with open(control_path) as control:  # blocks (no wakeups) until the parent says start
        control.readline()
        before, wall0, cpu0 = threads(), time.perf_counter(), time.process_time()
        counting[0] = True
        control.readline()  # ... and stop
        counting[0] = False
        after, wall, cpu = threads(), time.perf_counter() - wall0, time.process_time() - cpu0
    rows = []
    for tid, (name, run_ns, slices) in after.items():
        name0, run0, slices0 = before.get(tid, (name, 0, 0))
        rows.append({"thread": name + ("" if tid in before else " (new)"), "main": int(tid) == os.getpid(),
                     "cpu_ms": (run_ns - run0) / 1e6, "wakeups": slices - slices0})
    gone = [before[tid][0] for tid in before if tid not in after]
    result = {"jobs": len(cache.jobs), "wall": wall, "process_cpu_ms": cpu * 1000, "threads": rows, "gone": gone,
              "timers": {k: [n, c * 1000, w * 1000] for k, (n, c, w) in timers.items()},
              "handles": {k: [n, c * 1000] for k, (n, c) in handles.items()},
              "gc": [[n, round(s * 1000, 1)] for n, s in passes]}
    with open(report_path + ".part", "w") as f:
        json.dump(result, f)
    os.rename(report_path + ".part", report_path)
    app.call_from_thread(app.exit)

threading.Thread(target=measure, name="bench-measure", daemon=True).start()
from tui_insight.cli import program
program()
"""


def run_once(tree: Path, label: str, args: argparse.Namespace, work: Path) -> dict:
    """One start of the app of `tree` in tmux; its report."""
    home = work / f"home-{label}"
    home.mkdir(parents=True, exist_ok=True)
    cache_home = args.dir / f"xdg-cache-{label}"
    report, control = work / f"report-{label}.json", work / f"control-{label}"
    for stale in (report, Path(f"{report}.loaded")):
        stale.unlink(missing_ok=True)
    control.unlink(missing_ok=True)
    os.mkfifo(control)
    child = work / "child.py"
    child.write_text(CHILD)
    env = (f"HOME={shlex.quote(str(home))} XDG_CACHE_HOME={shlex.quote(str(cache_home))} "
           f"PYTHONPATH={shlex.quote(str(tree))} TERM=xterm-256color")
    command = (f"cd {shlex.quote(str(work))} && {env} exec {shlex.quote(sys.executable)} {shlex.quote(str(child))} "
               f"{shlex.quote(str(report))} {shlex.quote(str(control))} {shlex.quote(str(args.logdir))}")
    width, height = args.size.split("x")
    tmux = ["tmux", "-L", args.server]
    subprocess.run([*tmux, "new-session", "-d", "-s", label, "-x", width, "-y", height, command], check=True)
    try:
        t0 = time.monotonic()
        while not Path(f"{report}.loaded").exists():
            if time.monotonic() - t0 > args.timeout:
                raise TimeoutError(f"{label}: not loaded after {args.timeout:g} s")
            time.sleep(0.2)
        loaded_s = time.monotonic() - t0
        time.sleep(1.0)
        for key in args.keys.split():
            subprocess.run([*tmux, "send-keys", "-t", label, key], check=True)
            time.sleep(1.0)
        time.sleep(args.settle)
        with open(control, "w") as c:
            c.write("start\n")
            c.flush()
            time.sleep(args.window)
            c.write("stop\n")
        t0 = time.monotonic()
        while not report.exists():
            if time.monotonic() - t0 > 30:
                raise TimeoutError(f"{label}: no report")
            time.sleep(0.1)
        result = json.loads(report.read_text())
        result["loaded_s"] = loaded_s
        return result
    finally:
        time.sleep(0.5)
        subprocess.run([*tmux, "kill-session", "-t", label], stderr=subprocess.DEVNULL)


def show(label: str, r: dict) -> None:
    wall = r["wall"]
    main = next(t for t in r["threads"] if t["main"])
    print(f"{label}: {r['jobs']} jobs (loaded after {r['loaded_s']:.1f} s); over {wall:.1f} s idle: process "
          f"{r['process_cpu_ms']:.0f} ms CPU = {r['process_cpu_ms'] / wall / 10:.3f}% of a core; main thread "
          f"{main['cpu_ms']:.0f} ms = {main['cpu_ms'] / wall / 10:.3f}%, {main['wakeups']} wakeups "
          f"({main['cpu_ms'] / max(1, main['wakeups']):.2f} ms each)")
    for t in sorted(r["threads"], key=lambda t: -t["cpu_ms"]):
        if t["wakeups"] or t["cpu_ms"]:
            print(f"    thread {t['thread']:24s} {t['cpu_ms']:8.1f} ms  {t['wakeups']:5d} wakeups "
                  f"({t['wakeups'] / wall:.1f}/s)")
    for name in r["gone"]:
        print(f"    thread {name} ended")
    for name, (n, cpu, slowest) in sorted(r["timers"].items(), key=lambda kv: -kv[1][1]):
        print(f"    timer {name:40s} {n:4d} ticks {cpu:8.1f} ms CPU (slowest {slowest:.1f} ms wall)")
    for name, (n, cpu) in sorted(r["handles"].items(), key=lambda kv: -kv[1][1])[:12]:
        print(f"    loop  {name[:60]:60s} {n:5d} x {cpu:8.1f} ms CPU")
    print(f"    collections by generation [passes, ms]: {r['gc']}")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("logdir", nargs="?", default="/work/shared/fixtures/mindspore")
    parser.add_argument("--before", type=Path, help="another checkout to measure alike, interleaved")
    parser.add_argument("--settle", type=float, default=20.0, help="seconds after the keys before measuring")
    parser.add_argument("--window", type=float, default=30.0, help="seconds measured")
    parser.add_argument("--keys", default="", help="tmux keys sent once loaded, e.g. 'enter escape'")
    parser.add_argument("--size", default="160x48")
    parser.add_argument("--repeats", type=int, default=1)
    parser.add_argument("--timeout", type=float, default=300.0, help="seconds the load may take")
    parser.add_argument("--dir", type=Path, default=Path(tempfile.gettempdir()) / "tui-insight-bench-idle",
                        help="where the disk caches of the app runs are kept (between invocations)")
    args = parser.parse_args()
    if shutil.which("tmux") is None:
        print("tmux is needed", file=sys.stderr)
        return 2
    args.server = f"bench-idle-{os.getpid()}"
    args.dir.mkdir(parents=True, exist_ok=True)
    trees = [("this", ROOT)] + ([("before", args.before.resolve())] if args.before else [])
    print(f"{args.logdir}, {args.size}, keys {args.keys or '(none)'}, settle {args.settle:g} s, window "
          f"{args.window:g} s; load {os.getloadavg()[0]:.2f}")
    with tempfile.TemporaryDirectory(prefix="bench-idle-") as tmp:
        try:
            for i in range(args.repeats):
                for label, tree in trees:
                    show(f"{label} #{i + 1}", run_once(tree, label, args, Path(tmp)))
        finally:
            subprocess.run(["tmux", "-L", args.server, "kill-server"], stderr=subprocess.DEVNULL)
    print(f"load {os.getloadavg()[0]:.2f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
