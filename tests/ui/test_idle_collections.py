"""The collector's full passes wait for a pause in the keys while the app runs (`gc_policy.defer_full`)."""
from __future__ import annotations

import gc

from uihelp import MINDSPORE_LOGS, make_app, run_pilot, wait_for, wait_for_view

from tui_insight.ui.screens import jobs


def test_keys_bring_no_full_collection_and_the_app_leaves_cpythons_own():
    app = make_app(MINDSPORE_LOGS)

    async def body(pilot):
        app.open_jobs(("./lenet_lr0.01",))
        await wait_for_view(pilot, app)
        before = gc.get_stats()[2]["collections"]
        for _ in range(3):
            kept = []
            for i in range(300_000):  # allocations that survive a while, as redraws make
                node: list = [i]
                node.append(node)
                kept.append(node)
                if len(kept) > 5_000:
                    kept.clear()
            await pilot.press("s", "S")
        return gc.get_count()[2], gc.get_stats()[2]["collections"] - before

    passes_since, full = run_pilot(app, body)
    assert passes_since >= 10  # CPython would have run full passes meanwhile
    assert full == 0
    assert gc.get_threshold()[2] == 10


def test_the_full_pass_after_the_first_load_runs_at_an_idle_tick_once_the_list_settled(monkeypatch):
    """Not up to half a minute later, in the idle app's time (`gc_policy.look_after_load`): once the
    rows are built and the dashboard's modules imported (`JobsScreen`'s preload)."""
    monkeypatch.setattr(jobs, "PRELOAD_AFTER_SECONDS", 0.05)
    app = make_app(MINDSPORE_LOGS, load=False)

    async def body(pilot):
        before = gc.get_stats()[2]["collections"]
        app.cache.reload()  # the first load ends
        return await wait_for(pilot, lambda: gc.get_stats()[2]["collections"] > before, timeout=5)

    assert run_pilot(app, body)
