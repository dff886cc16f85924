"""The collector's one switch: pauses from several threads nest, and a freeze lasts while anyone holds it."""
from __future__ import annotations

import gc
import threading

from tui_insight.summary import gc_policy


def test_a_pause_ending_under_another_threads_pause_leaves_the_collector_off():
    assert gc.isenabled()
    started, go_on = threading.Event(), threading.Event()

    def other():
        with gc_policy.paused():
            started.set()
            go_on.wait(10)

    thread = threading.Thread(target=other)
    thread.start()
    started.wait(10)
    with gc_policy.paused():
        assert not gc.isenabled()
    assert not gc.isenabled()  # the other thread's pause is still on
    go_on.set()
    thread.join()
    assert gc.isenabled()


def test_a_collector_turned_off_before_is_not_turned_on_by_a_pause():
    gc.disable()
    try:
        with gc_policy.paused():
            pass
        assert not gc.isenabled()
    finally:
        gc.enable()


def test_a_freeze_lasts_until_its_last_holder_lets_go():
    first, second = object(), object()
    with gc_policy.made_by(first):
        kept = [object() for _ in range(100)]
    gc_policy.freeze_for(second)
    assert gc.get_freeze_count() > 0 and gc_policy.holds(first) and gc_policy.holders() == 2
    gc_policy.release(first)
    assert gc.get_freeze_count() > 0 and not gc_policy.holds(first)
    gc_policy.release(second)
    assert gc.get_freeze_count() == 0 and gc.isenabled() and kept


def full_passes() -> int:
    return gc.get_stats()[2]["collections"]


def churn(rounds: int = 200_000) -> None:
    """Allocations that survive a while (cycles), as a UI's redraws make: generation-1 passes."""
    kept = []
    for i in range(rounds):
        node: list = [i]
        node.append(node)
        kept.append(node)
        if len(kept) > 5_000:
            kept.clear()


def test_deferred_full_passes_run_only_when_asked_and_when_due():
    gc.collect()
    try:
        gc_policy.defer_full()
        before = full_passes()
        churn()
        assert gc.get_count()[2] >= gc_policy.FULL_EVERY  # CPython would have run one by now
        assert full_passes() == before
        assert gc_policy.collect_full_when_due(idle=True, now=1e9)
        assert full_passes() == before + 1
        churn()
        assert not gc_policy.collect_full_when_due(idle=True, now=1e9 + 1)  # too soon after the last
        assert not gc_policy.collect_full_when_due(idle=False, now=1e9 + gc_policy.FULL_AT_MOST_SECONDS + 1)
        assert gc_policy.collect_full_when_due(idle=False, now=1e9 + gc_policy.FULL_ANYWAY_SECONDS + 1)
    finally:
        gc_policy.undefer_full()
    assert gc.get_threshold()[2] == 10  # CPython's own again


def test_no_full_pass_is_due_while_the_collector_is_paused():
    gc.collect()
    try:
        gc_policy.defer_full()
        churn()
        with gc_policy.paused():
            assert not gc_policy.collect_full_when_due(idle=True, now=2e9)
        assert gc_policy.collect_full_when_due(idle=True, now=2e9)
    finally:
        gc_policy.undefer_full()
