"""Key → settled paint on every view (issue 30: at most 50 ms). Run by hand, against the tree on
PYTHONPATH:

    PYTHONPATH=. python bench/bench_keys.py [--size 160x48] [--logdir DIR --job ID ...]

Without `--logdir`, the repository's fixtures: MindSpore's (every plugin, lineage, graph), the
extras (landscape, profile) and TensorBoard's (text, PR curves, custom scalars, images). With
`--logdir DIR --job ID`, that job (the 100 MB run, say).

For each job and each view that has something to show, in the app at the given size (Textual's
Pilot, headless: the compositor renders every frame, nothing is written to a terminal), every key
bound in the view (its own bindings and those of the widget that has the keyboard, the keys `?`
lists for it) is pressed once, in binding order. A key that opens a dialog is followed by
`escape`, timed too. Timed: from the key's arrival to the last frame painted before the app is
idle for `SETTLE` (no frame): key → settled paint. The app's clock is fixed (as in the UI
tests), so no frame comes from time passing alone. Printed per view: keys, median, 90th
percentile and worst with its key (the key that opened the view apart), with `--each` every
key's time; then the worst of all. `--only NAME` (repeatable): only the fixture jobs whose id contains NAME.

`--opens` times opening instead (`bench_opens`), same clock: `enter` on the job in the job list
to the settled dashboard, each view's key at its first visit and again, `escape` back to the
job list, `enter` again, `l` (lineage) and its `escape`; on a LOGDIR of several jobs, two marked
and `c` (a comparison). `--dwell S`: S seconds on the job's row, settled, before `enter` and
after marking before `c` (the job list builds what they open ahead, off screen), and 1 + S seconds on
the first view before the other views' keys, with the app's default prefetch delay (0.5 s: the
dashboard builds its graph, then its other views, hidden, while the keys pause). Each is printed with its first frame and its settled frame; `--repeat N`
runs it N times and prints medians and worst.
"""
from __future__ import annotations

import argparse
import asyncio
import os
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(ROOT / "tests" / "ui"), str(ROOT / "tests")]  # the UI tests' helpers (Pilot)

SETTLE = 0.15  # seconds without a frame that count as settled
KEY_TIMEOUT = 10.0
# Keys that leave the view or the app, or start work that is not a paint (export, reload).
SKIP = {"q", "escape", "ctrl+c", "ctrl+q", "e", "E", "ctrl+r", "r", "question_mark", "ctrl+p", "tab", "shift+tab"}


class FrameClock:
    """The time of every frame the app paints (`App._display`, called once per compositor update),
    and the process's CPU time once it is written."""

    def __init__(self, app) -> None:
        self.frames: list[float] = []
        self.cpu: list[float] = []
        display = app._display

        def timed(screen, renderable):
            if renderable is None:
                return display(screen, renderable)
            self.frames.append(time.perf_counter())
            try:
                return display(screen, renderable)
            finally:
                self.cpu.append(time.process_time())

        app._display = timed


async def settle(pilot, clock: FrameClock, started: float) -> float | None:
    """Wait until no frame came for `SETTLE`; the last frame's time after `started` (None: none)."""
    deadline = started + KEY_TIMEOUT
    while time.perf_counter() < deadline:
        await pilot.pause(0.02)
        last = clock.frames[-1] if clock.frames else 0.0
        if time.perf_counter() - max(last, started) >= SETTLE:
            break
    after = [t for t in clock.frames if t >= started]
    return after[-1] - started if after else None


def cpu_to_settled(clock: FrameClock, cpu: float, frames: int) -> float:
    """The process's CPU time from `cpu` to the last frame, if one came after the first `frames`
    (the bench's polls until then included, ~1 ms each), else 0."""
    return clock.cpu[-1] - cpu if len(clock.cpu) > frames else 0.0


def view_keys(app, view) -> list[str]:
    """The keys bound in `view` or in the widget inside it that has the keyboard, binding order."""
    keys = []
    for key, active in app.active_bindings.items():
        node = active.node
        if node is view or view in node.ancestors:
            if key not in SKIP and active.enabled and key not in keys:
                keys.append(key)
    return keys


Timing = tuple[str, float | None, float, int]  # key, settled paint (None: no frame), process CPU to it, frames


async def time_view(pilot, app, clock: FrameClock, view_key: str, view_name: str) -> list[Timing]:
    from uihelp import wait_for_view

    from textual.widgets import Input

    started, cpu, frames = time.perf_counter(), time.process_time(), len(clock.frames)
    dashboard = app.screen
    await pilot.press(view_key)
    try:
        await wait_for_view(pilot, app, view_name)
    except AssertionError:  # the dashboard offers only the views with something to show
        return []
    shown = await settle(pilot, clock, started)
    timings: list[Timing] = [(f"{view_key} (open)", shown, cpu_to_settled(clock, cpu, frames), len(clock.frames) - frames)]
    view = dashboard.query_one(view_name)
    for key in view_keys(app, view):
        started, cpu, frames = time.perf_counter(), time.process_time(), len(clock.frames)
        await pilot.press(key)
        painted = await settle(pilot, clock, started)
        timings.append((key, painted, cpu_to_settled(clock, cpu, frames), len(clock.frames) - frames))
        focused = app.focused
        away = focused is None or (focused is not view and view not in focused.ancestors)
        if app.screen is not dashboard or isinstance(focused, Input) or away:  # a dialog, panel or filter: close it
            started, cpu, frames = time.perf_counter(), time.process_time(), len(clock.frames)
            await pilot.press("escape")
            painted = await settle(pilot, clock, started)
            timings.append((f"{key} escape", painted, cpu_to_settled(clock, cpu, frames), len(clock.frames) - frames))
            if app.screen is not dashboard:
                break
    return timings


def report(name: str, timings: list[Timing], worst: list, each: bool = False) -> None:
    """Keys that painted nothing (nothing to change) are counted, not timed. The key that opened
    the view ("N (open)") is shown apart, not in the keys' figures (opening is timed on its own).
    CPU: the process's, key to the settled frame (not the wait for `SETTLE` after it); frames: the
    frames painted from the key to settled, all keys of the view (a key painted twice counts 2).
    `each`: every key's time too, on a line of its own under the view's."""
    opened = [t for key, t, _, _ in timings if key.endswith("(open)") and t is not None]
    timings = [timing for timing in timings if not timing[0].endswith("(open)")]
    painted = [(key, t, cpu, frames) for key, t, cpu, frames in timings if t is not None]
    if not painted:
        return
    silent = len(timings) - len(painted)
    ms = sorted(t * 1000 for _, t, _, _ in painted)
    key, slowest, _, _ = max(painted, key=lambda timing: timing[1])
    p90 = ms[min(len(ms) - 1, int(0.9 * len(ms)))]
    cpu_ms = statistics.median(cpu * 1000 for _, _, cpu, _ in painted)
    cpu_key, cpu_worst = max(((key, cpu) for key, _, cpu, _ in painted), key=lambda timing: timing[1])
    frames = sum(count for _, _, _, count in painted)
    print(f"  {name:<22} {len(ms):>3} keys ({silent:>2} no frame)  median {statistics.median(ms):6.1f} ms  p90 {p90:6.1f} ms  "
          f"worst {slowest * 1000:6.1f} ms ({key})  CPU median {cpu_ms:5.1f} ms, worst {cpu_worst * 1000:5.1f} ({cpu_key})  "
          f"{frames} frames"
          + (f"  [opened in {opened[0] * 1000:.0f} ms]" if opened else ""))
    worst.append((slowest, name, key))
    if each:
        for key, t, cpu, count in painted:
            print(f"    {key:<24} {t * 1000:6.1f} ms  CPU {cpu * 1000:5.1f} ms  {count} frame{'s' if count != 1 else ''}")


def bench_job(logdir: Path, job: str, size: tuple[int, int], worst: list, each: bool = False) -> None:
    from uihelp import make_app, run_pilot

    from tui_insight.ui.screens.dashboard import DashboardScreen
    from tui_insight.ui.views.registry import JOB_VIEWS, VIEW_CLASSES

    app = make_app(logdir)
    clock = FrameClock(app)
    names = {cls.SPEC.view_id: cls.__name__ for cls in VIEW_CLASSES}

    async def body(pilot):
        results = {}
        table_keys = []
        for key in ("down", "up", "right", "right", "s", "s", "left", "end", "home"):
            started, cpu, frames = time.perf_counter(), time.process_time(), len(clock.frames)
            await pilot.press(key)
            settled = await settle(pilot, clock, started)
            table_keys.append((key, settled, cpu_to_settled(clock, cpu, frames), len(clock.frames) - frames))
        results["job list"] = table_keys
        await pilot.press("slash", *job.lstrip("./"), "enter")
        app.open_jobs((job,), JOB_VIEWS[0].view_id)
        await pilot.pause(0.5)
        for spec in JOB_VIEWS:
            if not isinstance(app.screen, DashboardScreen):  # a key went back to the job list
                app.open_jobs((job,), spec.view_id)
                await pilot.pause(0.5)
            results[spec.view_id] = await time_view(pilot, app, clock, spec.key, names[spec.view_id])
        return results

    results = run_pilot(app, body, size=size)
    print(f"{logdir.name}/{job.lstrip('./')} at {size[0]}x{size[1]}")
    for name, timings in results.items():
        report(name, timings, worst, each)


Opened = tuple[float | None, float | None, float]  # first frame, settled frame (None: no frame), CPU


async def time_open(pilot, clock: FrameClock, *keys: str) -> Opened:
    """Press `keys`; the first and the settled frame after the first key and the process's CPU
    time to the settled frame, in seconds."""
    started, cpu, frames = time.perf_counter(), time.process_time(), len(clock.frames)
    await pilot.press(*keys)
    settled = await settle(pilot, clock, started)
    first = next((t - started for t in clock.frames if t >= started), None)
    return first, settled, cpu_to_settled(clock, cpu, frames)


def bench_opens_once(logdir: Path, job: str, size: tuple[int, int], dwell: float = 0.0) -> dict[str, Opened]:
    """One app: the opens of `job` (see the module's docstring), by name."""
    from uihelp import make_app, run_pilot, wait_for

    from tui_insight.ui.screens.dashboard import DashboardScreen
    from tui_insight.ui.screens.jobs import JobsScreen
    from tui_insight.ui.views.registry import JOB_VIEWS

    # With a dwell, the app's own prefetch delay (its default): views are built ahead while the user reads.
    app = make_app(logdir, **({"graph_prefetch_delay": 0.5} if dwell else {}))
    clock = FrameClock(app)

    async def body(pilot):
        results: dict[str, Opened] = {}
        await pilot.press("slash", *job.lstrip("./"), "enter")  # the cursor on the job
        await settle(pilot, clock, time.perf_counter())
        await pilot.pause(dwell)  # a user reading the row before `enter`
        results["enter (open)"] = await time_open(pilot, clock, "enter")
        await pilot.pause(dwell and 1.0 + dwell)  # reading the first view: the others are built meanwhile
        dashboard = app.screen
        assert isinstance(dashboard, DashboardScreen), "enter did not open the dashboard"
        opened = dashboard.current
        keys = [spec for spec in JOB_VIEWS
                if spec.view_id != opened and dashboard.check_action("show_view", (spec.view_id,))]
        for visit in ("first", "again"):
            for spec in keys + [spec for spec in JOB_VIEWS if spec.view_id == opened]:
                if visit == "first" and spec.view_id == opened:
                    continue
                results[f"{spec.key} {spec.view_id} ({visit})"] = await time_open(pilot, clock, spec.key)
                if app.screen is not dashboard:  # a view's key that left the dashboard
                    await pilot.press("escape")
        results["escape (to jobs)"] = await time_open(pilot, clock, "escape")
        assert isinstance(app.screen, JobsScreen)
        results["enter (again)"] = await time_open(pilot, clock, "enter")
        await time_open(pilot, clock, "escape")
        results["l lineage"] = await time_open(pilot, clock, "l")
        results["l escape"] = await time_open(pilot, clock, "escape")
        if len(app.cache.jobs) > 1:
            await pilot.press("escape")  # the filter off: every job
            await wait_for(pilot, lambda: app.screen.table.row_count > 1)
            await pilot.press("home", "space", "down", "space")
            await settle(pilot, clock, time.perf_counter())
            await pilot.pause(dwell)  # a user reading the marks before `c`
            results["c (compare 2)"] = await time_open(pilot, clock, "c")
            results["c escape"] = await time_open(pilot, clock, "escape")
        return results

    return run_pilot(app, body, size=size)


def bench_opens(logdir: Path, job: str, size: tuple[int, int], repeat: int, worst: list, dwell: float = 0.0) -> None:
    runs = [bench_opens_once(logdir, job, size, dwell) for _ in range(repeat)]
    print(f"opens: {logdir.name}/{job.lstrip('./')} at {size[0]}x{size[1]}, {repeat} run(s): "
          "first frame / settled / CPU, median (worst), ms")

    def ms(values: list[float | None]) -> str:
        timed = [v * 1000 for v in values if v is not None]
        if not timed:
            return "no frame".rjust(17)
        return f"{statistics.median(timed):7.1f} ({max(timed):6.1f})"

    for name in runs[0]:
        firsts = [run[name][0] for run in runs if name in run]
        settled = [run[name][1] for run in runs if name in run]
        cpu = [run[name][2] for run in runs if name in run]
        print(f"  {name:<26} {ms(firsts)} / {ms(settled)} / {ms(cpu)}")
        timed = [v for v in settled if v is not None]
        if timed:
            worst.append((max(timed), f"{logdir.name}/{job.lstrip('./')}", name))


def bench_ahead_once(logdir: Path, size: tuple[int, int], offsets: list[float]) -> dict[float, list[Opened]]:
    """One app on the job list of `logdir`: the cursor moved to the next job (`down`, `home` from
    the last), the keys rested until the job list built that job's dashboard ahead
    (`KeptScreens.build_ahead` called), then an offset, then the next such key, timed as
    `time_open` does (it starts the next build ahead). By offset, the timings."""
    from uihelp import make_app, run_pilot

    app = make_app(logdir)
    clock = FrameClock(app)
    kept = app.kept_dashboards
    starts: list[float] = []
    build = kept.build_ahead

    def timed_build(*args, **kwargs):
        starts.append(time.perf_counter())
        return build(*args, **kwargs)

    kept.build_ahead = timed_build

    def next_key() -> str:
        table = app.screen.table
        return "home" if table.cursor_row >= table.row_count - 1 else "down"

    async def body(pilot):
        results: dict[float, list[Opened]] = {offset: [] for offset in offsets}
        await settle(pilot, clock, time.perf_counter())
        begun = len(starts)
        await pilot.press(next_key())
        for offset in offsets:
            deadline = time.perf_counter() + 2.0
            while len(starts) == begun and time.perf_counter() < deadline:
                await asyncio.sleep(0.002)
            if len(starts) == begun:  # nothing built ahead (the row's dashboard was kept): on
                await pilot.press(next_key())
                continue
            begun = len(starts)
            wait = starts[-1] + offset - time.perf_counter()
            if wait > 0:
                await asyncio.sleep(wait)
            results[offset].append(await time_open(pilot, clock, next_key()))
        return results

    return run_pilot(app, body, size=size)


def bench_ahead(logdir: Path, size: tuple[int, int], repeat: int, worst: list) -> None:
    offsets = [0.0, 0.025, 0.05, 0.075, 0.1, 0.15, 0.2, 0.3]
    runs = [bench_ahead_once(logdir, size, offsets * 3) for _ in range(repeat)]
    print(f"a key during a build ahead: {logdir.name} job list at {size[0]}x{size[1]}, {repeat} run(s): "
          "settled / CPU, median (worst), ms")
    for offset in offsets:
        timings = [timing for run in runs for timing in run[offset]]
        settled = [t * 1000 for _, t, _ in timings if t is not None]
        cpu = [c * 1000 for _, t, c in timings if t is not None]
        if not settled:
            continue
        print(f"  {offset * 1000:5.0f} ms after it started: {statistics.median(settled):6.1f} ({max(settled):6.1f}) / "
              f"{statistics.median(cpu):6.1f} ({max(cpu):6.1f})  {len(settled)} keys")
        worst.append((max(settled) / 1000, logdir.name, f"{offset * 1000:.0f} ms after"))


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--size", default="160x48")
    parser.add_argument("--logdir", type=Path)
    parser.add_argument("--job", action="append")
    parser.add_argument("--opens", action="store_true", help="time opening views (bench_opens), not keys in them")
    parser.add_argument("--repeat", type=int, default=1, help="with --opens: runs per job")
    parser.add_argument("--dwell", type=float, default=0.0,
                        help="with --opens: seconds on the job's row before `enter` (the dashboard is built ahead meanwhile)")
    parser.add_argument("--ahead", action="store_true",
                        help="time an arrow key in the job list pressed as a dashboard is being built ahead")
    parser.add_argument("--only", action="append", help="only the fixture jobs whose id contains this")
    parser.add_argument("--each", action="store_true", help="every key's time under its view's figures")
    args = parser.parse_args()
    width, height = (int(n) for n in args.size.split("x"))
    from fixture_paths import EXTRAS_LOGS, FIXTURES, MINDSPORE_LOGS

    TENSORBOARD_LOGS = FIXTURES / "tensorboard"

    if args.logdir:
        jobs = [(args.logdir, job) for job in args.job or ["."]]
    else:
        jobs = [(MINDSPORE_LOGS, "./lenet_lr0.01"), (MINDSPORE_LOGS, "./limits"),
                (EXTRAS_LOGS, "./landscape_step"), (EXTRAS_LOGS, "./profiled")]
        jobs += [(TENSORBOARD_LOGS, job) for job in sorted(tensorboard_jobs(TENSORBOARD_LOGS))]
    if args.only:
        jobs = [(logdir, job) for logdir, job in jobs if any(name in job for name in args.only)]
    worst: list = []
    if args.ahead:
        from tui_insight.ui.screens import load_dashboard

        load_dashboard()
        bench_ahead(args.logdir or MINDSPORE_LOGS, (width, height), args.repeat, worst)
        slowest, name, key = max(worst)
        print(f"worst: {slowest * 1000:.1f} ms ({key}); load average {' '.join(f'{n:.2f}' for n in os.getloadavg())}")
        return
    if args.opens:
        from tui_insight.ui.screens import load_dashboard

        load_dashboard()  # imported, as the job list's preload has done by the time a user opens a job
        for logdir, job in jobs:
            bench_opens(logdir, job, (width, height), args.repeat, worst, args.dwell)
        slowest, name, key = max(worst)
        over = sum(1 for t, _, _ in worst if t > 0.05)
        print(f"worst open: {slowest * 1000:.1f} ms ({name}, {key}); opens over 50 ms: {over} of {len(worst)}")
        return
    for logdir, job in jobs:
        bench_job(logdir, job, (width, height), worst, args.each)
    slowest, name, key = max(worst)
    over = sum(1 for t, _, _ in worst if t > 0.05)
    print(f"worst of all: {slowest * 1000:.1f} ms ({name}, {key}); views whose worst key is over 50 ms: {over}")
    print(f"process CPU {time.process_time():.1f} s, load average {' '.join(f'{n:.2f}' for n in os.getloadavg())}")


def tensorboard_jobs(logdir: Path) -> list[str]:
    from tui_insight.summary.store.cache import SummaryCache

    cache = SummaryCache(str(logdir))
    cache.reload()
    return list(cache.jobs)


if __name__ == "__main__":
    main()
