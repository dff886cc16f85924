"""The collector's full passes wait for a pause in the keys while the app runs (`gc_policy.defer_full`)."""
from __future__ import annotations

import gc
import sys

from uihelp import MINDSPORE_LOGS, make_app, run_pilot, wait_for_view


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


def test_the_full_pass_after_the_first_load_runs_at_the_next_idle_tick():
    """Not up to half a minute later, in the idle app's time (`gc_policy.look_after_load`)."""
    app = make_app(MINDSPORE_LOGS, load=False)

    async def body(pilot):
        app.cache.reload()  # the first load ends
        kept = [[i] for i in range(sys.getallocatedblocks())]  # what was built from it: the heap doubled
        await pilot.pause(0.3)  # the progress line's tick sees the load end
        before = gc.get_stats()[2]["collections"]
        app.tick_clock()
        return gc.get_stats()[2]["collections"] - before, len(kept)

    full, _ = run_pilot(app, body)
    assert full == 1
