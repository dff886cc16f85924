"""False alarms over a sweep that finishes normally, and errors on deep-link starts (issue 22).
Run by hand, against the tree on PYTHONPATH (so the same script measures before and after):

    PYTHONPATH=. python bench/bench_alarms.py [--runs 100] [--starts 100] [--part alarms|links|both]

alarms: `--runs` runs that train and finish normally, half written by the repo's MindSpore writer
(the file made read-only on close, as MindSpore's writer does: compat §1.1), half by the real
tensorboardX writer (closed: it leaves nothing else); step intervals from 0.2 s to 20 s, losses
that fall, a fifth of them to exactly 0 (with rounding noise above it). The job list's notifier
(`health.BadgeWatch`, as `JobsScreen` drives it) watches them on a moving clock: a first view
half-way through training, the second half written, the writers closed, then an hour walked a
second at a time with the cache reloaded every 3 s (the default poll). Counted: notifications
(one per job that gained a badge), bells under `--bell` (before: any announced badge rang; after:
NaN and diverging) and under `--bell-stalled`, and `--summary`'s exit status an hour later.
Target: 0 notifications, 0 bells, exit 0.

links: `--starts` app starts on deep links (`--job`, `--job --view X` for every view,
`--compare`, in turn) on a copy of the fixture logs, the cache loading in its thread and a
writer appending beside; counted: error notifications and warning/error log lines. Target: 0.
"""
from __future__ import annotations

import argparse
import asyncio
import io
import logging
import os
import shutil
import sys
import tempfile
import threading
import time
from collections import Counter
from pathlib import Path

import numpy as np

T_END = 1_700_000_000.0  # when every run of the sweep logs its last step
POLL_SECONDS = 3.0
WATCH_SECONDS = 3600


def loss_curve(i: int, n: int) -> np.ndarray:
    """A falling loss; every fifth run converges to exactly 0, with rounding noise above it."""
    rng = np.random.default_rng(i)
    steps = np.arange(n)
    if i % 5 == 0:
        loss = np.maximum(0.0, 1.0 - steps / (0.6 * n))
        tail = loss[int(0.6 * n):]
        tail[rng.random(tail.size) < 0.3] = 1e-7
        return loss
    return 0.2 + np.exp(-steps / (n / 5)) + 0.01 * rng.standard_normal(n)


class Run:
    """One run of the sweep: its writer, its steps and when each is logged."""

    def __init__(self, root: Path, i: int):
        from tui_insight.summary.formats.writer import SummaryWriter

        self.i = i
        self.interval = [0.2, 1.0, 2.0, 5.0, 20.0][i % 5]
        self.n = 60 + (i * 37) % 240
        self.loss = loss_curve(i, self.n)
        offset = (i * 0.37) % self.interval  # the last steps fall at different moments
        self.walls = T_END - offset - self.interval * np.arange(self.n)[::-1]
        self.directory = root / f"run_{i:03d}"
        self.directory.mkdir(parents=True)
        self.mindspore = i % 2 == 0
        if self.mindspore:
            self.writer = SummaryWriter(self.directory, timestamp=int(T_END - 3600), wall_time=self.walls[0])
        else:
            from tensorboardX import SummaryWriter as TensorBoardXWriter

            self.writer = TensorBoardXWriter(str(self.directory))

    def write(self, start: int, end: int) -> None:
        """Steps [start, end), written out (as a flush by the writer's timer would)."""
        for k in range(start, end):
            if self.mindspore:
                self.writer.add_scalar("loss", float(self.loss[k]))
                self.writer.record(k + 1, wall_time=float(self.walls[k]))
            else:
                self.writer.add_scalar("loss", float(self.loss[k]), k + 1, walltime=float(self.walls[k]))
        self.writer.flush()
        self.date(float(self.walls[end - 1]))

    def close(self) -> None:
        """The run ends normally: MindSpore's writer makes its file read-only; tensorboardX closes."""
        self.writer.close()
        for path in self.directory.iterdir():
            if self.mindspore:
                os.chmod(path, 0o400)
        self.date(float(self.walls[-1]))

    def date(self, mtime: float) -> None:
        for path in self.directory.iterdir():
            os.utime(path, (mtime, mtime))


def bench_alarms(runs: int) -> dict:
    from tui_insight import health_report
    from tui_insight.summary.queries import health
    from tui_insight.summary.store.cache import SummaryCache

    ringing = set(getattr(health, "RINGING", ()))
    root = Path(tempfile.mkdtemp(prefix="tui-insight-alarms-"))
    try:
        sweep = [Run(root / "sweep", i) for i in range(runs)]
        now = [T_END - 0.5 * max(r.interval * r.n for r in sweep)]
        for run in sweep:  # half-way through training, the app starts watching
            run.write(0, run.n // 2)
        cache = SummaryCache(str(root / "sweep"), clock=lambda: now[0])  # (no disk cache: none is given)
        cache.reload()
        watch = health.BadgeWatch(health.HealthBook(seen_within=POLL_SECONDS))
        watch.reset(cache.jobs, None, now[0])
        news: list[tuple[float, str, tuple[str, ...]]] = []

        def look(changes=None) -> None:
            found = watch.update(cache.jobs, changes.updated, None, now[0]) if changes is not None \
                else watch.tick(cache.jobs, None, now[0])
            news.extend((now[0], job.train_id, new) for job, new in found)

        for run in sweep:  # the second half of training
            run.write(run.n // 2, run.n)
        now[0] = T_END + 0.5
        look(cache.reload())
        for run in sweep:
            run.close()
        now[0] = T_END + 1.0
        look(cache.reload())
        for second in range(2, WATCH_SECONDS):
            now[0] = T_END + second
            if second % POLL_SECONDS == 0:
                look(cache.reload())
            look()
        bells = sum(1 for _, _, new in news if (not ringing or any(b in ringing for b in new)))
        bells_stalled = sum(1 for _, _, new in news if (not ringing or any(b in ringing | {"stalled"} for b in new)))
        out = io.StringIO()
        status = health_report.run(str(root / "sweep"), out=out, err=io.StringIO(), clock=lambda: now[0])
        return {"runs": runs, "notifications": len(news), "bells (--bell)": bells,
                "bells (--bell-stalled)": bells_stalled,
                "announced, by badge": dict(Counter(b for _, _, new in news for b in new)),
                "--summary exit": status}
    finally:
        shutil.rmtree(root, ignore_errors=True)


class Recorder(logging.Handler):
    def __init__(self):
        super().__init__(logging.WARNING)
        self.lines: list[str] = []

    def emit(self, record: logging.LogRecord) -> None:
        self.lines.append(f"{record.name}: {record.getMessage()}")


def bench_links(starts: int) -> dict:
    from tui_insight.summary.formats.writer import SummaryWriter
    from tui_insight.summary.store.cache import SummaryCache
    from tui_insight.ui.app import InsightApp, StartAt
    from tui_insight.ui.screens.dashboard import DashboardScreen
    from tui_insight.ui.views.registry import JOB_VIEWS

    fixtures = Path(__file__).resolve().parents[1] / "tests" / "fixtures" / "mindspore"
    root = Path(tempfile.mkdtemp(prefix="tui-insight-links-")) / "logs"
    shutil.copytree(fixtures, root)
    job = "./lenet_lr0.01"
    forms = [StartAt((job,), "scalars"), *(StartAt((job,), spec.view_id) for spec in JOB_VIEWS),
             StartAt((job, "./resnetish_bs32"), "scalars")]
    errors: list[str] = []

    class RecordingApp(InsightApp):
        def notify(self, message, *, severity="information", **kwargs):
            if severity == "error":
                errors.append(str(message))
            super().notify(message, severity=severity, **kwargs)

    stop = threading.Event()

    def live_writer() -> None:
        with SummaryWriter(root / job.removeprefix("./"), timestamp=int(time.time()) + 1) as writer:
            step = 0
            while not stop.is_set():
                step += 1
                writer.add_scalar("loss", 1.0 / step)
                writer.record(step)
                writer.flush()
                stop.wait(0.02)

    async def start(form: StartAt) -> int:
        """The errors (notifications and log lines) of one start; one more if it never opened."""
        before = len(errors) + len(recorder.lines)
        app = RecordingApp(SummaryCache(str(root)), start_at=form, reload_interval=0.1, logdir_label="LOGDIR",
                           graph_prefetch_delay=None)
        async with app.run_test(size=(120, 36), notifications=True) as pilot:
            deadline = time.monotonic() + 30
            while time.monotonic() < deadline:
                screen = app.screen
                if isinstance(screen, DashboardScreen) and screen.active_view is not None:
                    break
                await pilot.pause(0.05)
            else:
                errors.append(f"{form} never opened")
            await pilot.pause(0.3)
        return len(errors) + len(recorder.lines) - before

    recorder = Recorder()
    logging.getLogger().addHandler(recorder)
    thread = threading.Thread(target=live_writer, daemon=True)
    thread.start()
    started = time.monotonic()
    try:
        per_start = [asyncio.run(start(forms[k % len(forms)])) for k in range(starts)]
    finally:
        stop.set()
        thread.join()
        logging.getLogger().removeHandler(recorder)
        shutil.rmtree(root.parent, ignore_errors=True)
    return {"starts": starts, "starts with errors": sum(1 for n in per_start if n),
            "error notifications": len(errors), "warning/error log lines": len(recorder.lines),
            "first": (errors + recorder.lines)[:2], "seconds": round(time.monotonic() - started, 1)}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=100)
    parser.add_argument("--starts", type=int, default=100)
    parser.add_argument("--part", choices=("alarms", "links", "both"), default="both")
    args = parser.parse_args()
    import tui_insight

    print(f"tui_insight from {os.path.dirname(tui_insight.__file__)}")
    if args.part in ("alarms", "both"):
        print("alarms:", bench_alarms(args.runs))
    if args.part in ("links", "both"):
        print("links:", bench_links(args.starts))
    sys.stdout.flush()


if __name__ == "__main__":
    main()
