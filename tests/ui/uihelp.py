"""Helpers of the UI tests: small deterministic logs written with our writer, and app factories.

Everything a snapshot shows is fixed: wall times and file mtimes are set, the app's clock is
injected ("12s ago" stays), LOGDIR is shown under a fixed label and times read in UTC.
"""
from __future__ import annotations

import asyncio
import os
import time
from pathlib import Path
from typing import Any, Callable

import numpy as np
from fixture_paths import MINDSPORE_LOGS  # noqa: F401 (re-exported for the UI tests)

from tui_insight.summary.formats.writer import SummaryWriter
from tui_insight.summary.store.cache import SummaryCache
from tui_insight.ui.app import InsightApp

T0 = 1_700_000_000.0  # first wall time of every run
MTIME = T0 + 3600  # file modification time of every written file
NOW = MTIME + 600  # the injected clock: every job was updated "10m ago" (not live)
STEPS = 40


def run_values(name: str, steps: np.ndarray) -> dict[str, np.ndarray]:
    """The scalars of a demo run: a falling loss, a rising accuracy, a decaying learning rate."""
    seed = sum(map(ord, name))
    rng = np.random.default_rng(seed)
    scale = 1.0 + (seed % 7) / 10
    loss = scale * np.exp(-steps / 15) + 0.05 * rng.standard_normal(len(steps)) + 0.2
    acc = 1 - 0.8 * np.exp(-steps / (10 + seed % 5)) + 0.02 * rng.standard_normal(len(steps))
    lr = 0.1 * 0.95 ** steps
    return {"loss": loss, "acc": acc, "lr": lr}


def write_run(root: Path, name: str, steps: int = STEPS, tags=("loss", "acc", "lr"), mtime: float = MTIME,
              live: bool = False) -> Path:
    """A run of `steps` steps 2 s apart from T0, its files last changed at `mtime`; `live`: its
    steps end at `mtime` instead, as a writer at work leaves them (health tells a copy by the gap)."""
    directory = root / name
    directory.mkdir(parents=True, exist_ok=True)
    step_numbers = np.arange(1, steps + 1)
    values = run_values(name, step_numbers)
    first = mtime - 2.0 * steps if live else T0
    with SummaryWriter(directory, timestamp=int(first), wall_time=first) as writer:
        for i, step in enumerate(step_numbers):
            for tag in tags:
                writer.add_scalar(tag, float(values[tag][i]))
            writer.record(int(step), wall_time=first + 2.0 * float(step))
    for path in directory.iterdir():
        os.utime(path, (mtime, mtime))
    return directory


def make_app(logdir: Any, *, load: bool = True, app_class: type[InsightApp] = InsightApp,
             **kwargs) -> InsightApp:
    """An app over a cache loaded up front (no loading thread), with a fixed clock and title.
    `logdir`: a path, or a source (`sources.multi.MultiSource`, an `SshSource`)."""
    where = str(logdir) if isinstance(logdir, (str, Path)) else logdir
    cache = SummaryCache(where, clock=kwargs.get("clock", lambda: NOW))
    if load:
        cache.reload()
    kwargs.setdefault("start_loading", False)
    kwargs.setdefault("reload_interval", 0)
    kwargs.setdefault("clock", lambda: NOW)
    kwargs.setdefault("logdir_label", "LOGDIR")
    kwargs.setdefault("graph_prefetch_delay", None)  # views appear when the test asks (test_graph_view tests it)
    return app_class(cache, **kwargs)


def run_pilot(app: InsightApp, body: Callable, size: tuple[int, int] = (120, 36), notifications: bool = False):
    """Run `await body(pilot)` against `app`; returns what it returns.

    `notifications`: show toasts, so `notices(app)` reads them (Textual's tests hide them).
    """

    async def main():
        async with app.run_test(size=size, notifications=notifications) as pilot:
            await pilot.pause()
            return await body(pilot)

    return asyncio.run(main())


async def wait_for(pilot, condition: Callable[[], bool], timeout: float = 10.0) -> bool:
    """Whether `condition` holds within `timeout` seconds. Checked again once the app is idle
    (what only needs the app's messages is then there), then every 50 ms (a loader's thread)."""
    if condition():
        return True
    await pilot.pause()
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if condition():
            return True
        await pilot.pause(0.05)
    return condition()


async def wait_for_view(pilot, app, name: str = "ScalarsView") -> None:
    """Wait until the dashboard's view is built and has the keyboard (keys go where a user's would)."""

    def ready() -> bool:
        found = app.screen.query(name)
        focused = app.focused
        return bool(found) and focused is not None and found.first() in focused.ancestors_with_self

    assert await wait_for(pilot, ready), f"{name} never got the focus"


def notices(app: InsightApp) -> list[str]:
    """The text of the notifications the screen shows now (as the user reads them).

    Needs `run_pilot(..., notifications=True)`."""
    return [str(toast.render().plain) for toast in app.screen.query("Toast")]


async def run_beside(pilot, work: Callable[[], None]) -> float:
    """Run `work` in a thread (a writer appending to logs) while the app keeps handling events;
    the seconds it took."""
    import threading

    started = time.monotonic()
    thread = threading.Thread(target=work)
    thread.start()
    while thread.is_alive():
        await pilot.pause(0.02)
    return time.monotonic() - started


async def open_help(pilot) -> str:
    """Press `?` and return the help screen's text, as the user reads it."""
    app = pilot.app
    await pilot.press("question_mark")
    assert await wait_for(pilot, lambda: type(app.screen).__name__ == "HelpScreen"), "? opened no help"
    return str(app.screen.query_one("#help-text").render())


def post_key(app: InsightApp, key: str) -> None:
    """Queue `key` as the terminal would deliver it, without waiting for the app."""
    from textual import events

    app.post_message(events.Key(key, key if len(key) == 1 else None))


async def press_unsettled(app: InsightApp, keys, rng, max_gap: float = 0.05) -> int:
    """Press `keys` 0 to `max_gap` seconds apart (a seeded `random.Random`), never waiting for the
    app to settle in between (Pilot's `press` does). The keys pressed."""
    for key in keys:
        post_key(app, key)
        await asyncio.sleep(rng.uniform(0, max_gap))
    return len(keys)
