"""The collector's one switch: pauses from several threads nest, and a freeze lasts while anyone holds it."""
from __future__ import annotations

import gc
import subprocess
import sys
import textwrap
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


# Full collections run on a process's module state (the last full pass, the heap after it): each
# test below runs in a fresh Python, whose heap it grows from a known size.
FRESH_PROCESS = """
import gc
from tui_insight.summary import gc_policy

def full_passes():
    return gc.get_stats()[2]["collections"]

def churn(rounds=200_000, cycles=True):
    # Allocations that survive a while, as a UI's redraws make: generation-1 passes. Without
    # cycles, reference counting frees them all (an idle app's heap does not grow).
    kept = []
    for i in range(rounds):
        node = [i]
        if cycles:
            node.append(node)
        kept.append(node)
        if len(kept) > 5_000:
            kept.clear()

def grow():
    # Objects that stay: the heap doubles, as a load makes it grow.
    import sys
    return [[i] for i in range(sys.getallocatedblocks())]

import mmap

def grow_by_bytes():
    # Objects that stay, as many bytes again as the process holds privately (its heap doubles).
    size = gc_policy.heap_size() * mmap.PAGESIZE
    return [[i] for i in range(size // 100)]

gc.collect()
gc_policy.defer_full()
"""


def in_fresh_process(body: str) -> None:
    done = subprocess.run([sys.executable, "-c", FRESH_PROCESS + textwrap.dedent(body)], capture_output=True,
                          text=True, timeout=120)
    assert done.returncode == 0, done.stderr[-3000:]


def test_deferred_full_passes_run_only_when_asked_and_when_due():
    in_fresh_process("""
        before = full_passes()
        churn()
        kept = grow()
        assert gc.get_count()[2] >= gc_policy.FULL_EVERY  # CPython would have run one by now
        assert full_passes() == before
        assert gc_policy.collect_full_when_due(idle=True, now=1e9)
        assert full_passes() == before + 1
        churn()
        kept += grow()
        assert not gc_policy.collect_full_when_due(idle=True, now=1e9 + 1)  # too soon after the last
        assert not gc_policy.collect_full_when_due(idle=False, now=1e9 + gc_policy.FULL_AT_MOST_SECONDS + 1)
        assert gc_policy.collect_full_when_due(idle=False, now=1e9 + gc_policy.FULL_ANYWAY_SECONDS + 1)
        gc_policy.undefer_full()
        assert gc.get_threshold()[2] == 10  # CPython's own again
    """)


def test_an_idle_heap_that_does_not_grow_brings_no_full_pass():
    """The idle app's redraws allocate and free: a full pass every 30 s walked 5,000 jobs' heap
    for nothing (0.6% of a core idle). A pass is due again once the heap grew by a quarter."""
    in_fresh_process("""
        kept = grow()
        churn()
        assert gc_policy.collect_full_when_due(idle=True, now=1e9)
        for minute in range(1, 10):
            churn(cycles=False)
            assert gc.get_count()[2] >= gc_policy.FULL_EVERY
            assert not gc_policy.collect_full_when_due(idle=True, now=1e9 + 60 * minute), minute
        more = grow()
        assert gc_policy.collect_full_when_due(idle=True, now=1e9 + 600)
    """)


def test_a_heap_that_did_not_grow_is_counted_again_only_after_a_wait():
    """While a pass stays due and the heap does not grow, the app's clock tick (once a second)
    measures the heap once in FULL_AT_MOST_SECONDS, not every second; a heap that grew meanwhile
    gets its pass then."""
    in_fresh_process("""
        counted = []
        count = gc_policy.heap_size
        gc_policy.heap_size = lambda: counted.append(1) or count()
        kept = grow()
        churn()
        assert gc_policy.collect_full_when_due(idle=True, now=1e9)
        churn(cycles=False)
        looks = len(counted)
        wait = int(gc_policy.FULL_AT_MOST_SECONDS)
        for second in range(wait + 1, 3 * wait + 1):  # two waits of ticks, heap unchanged
            assert not gc_policy.collect_full_when_due(idle=True, now=1e9 + second)
        assert len(counted) - looks == 2, len(counted) - looks
        more = grow()
        assert gc_policy.collect_full_when_due(idle=True, now=1e9 + 4 * wait + 1)
    """)


def test_the_heap_is_measured_without_walking_the_allocator():
    """On Linux the heap's growth is read from the kernel's count of the process's memory, never
    by summing the allocator's pools (`sys.getallocatedblocks`): an idle process's pools go cold,
    and counting them took 0.2-0.4 s a look on a virtual machine. A heap that grew by a quarter
    still gets its pass; one that did not, none."""
    in_fresh_process("""
        import sys
        def walked():
            raise AssertionError("the allocator's pools were walked")
        sys.getallocatedblocks = walked
        gc_policy.undefer_full()
        gc_policy.defer_full()
        kept = grow_by_bytes()
        churn()
        assert gc_policy.collect_full_when_due(idle=True, now=1e9)
        churn(cycles=False)
        assert not gc_policy.collect_full_when_due(idle=True, now=1e9 + 60)
        more = grow_by_bytes()
        churn()
        assert gc_policy.collect_full_when_due(idle=True, now=1e9 + 120)
    """)


def test_no_full_pass_is_due_while_the_collector_is_paused():
    in_fresh_process("""
        churn()
        kept = grow()
        with gc_policy.paused():
            assert not gc_policy.collect_full_when_due(idle=True, now=2e9)
        assert gc_policy.collect_full_when_due(idle=True, now=2e9)
    """)


def test_the_pass_a_load_made_due_runs_at_the_first_idle_look_after_it():
    """Right after a load (5,000 jobs) the pass it made due waited for the next look, up to
    FULL_AT_MOST_SECONDS later, and walked the heap in the idle minute after (50-90 ms)."""
    in_fresh_process("""
        import time
        kept = grow()
        now = time.monotonic()
        assert not gc_policy.collect_full_when_due(idle=True, now=now)  # too soon after the start
        gc_policy.look_after_load()
        assert not gc_policy.collect_full_when_due(idle=False, now=now)  # keys come: it waits
        before = full_passes()
        assert gc_policy.collect_full_when_due(idle=True, now=now + 1)
        assert full_passes() == before + 1
        more = grow()
        assert not gc_policy.collect_full_when_due(idle=True, now=now + 2)  # once: then the wait again
    """)


def test_what_survives_the_pass_after_a_load_is_frozen_while_the_store_holds_a_freeze():
    """The job list's rows and the app's screens, built from the load after the store froze its
    own objects, are walked by no later pass until the freeze is let go."""
    in_fresh_process("""
        store = object()
        gc_policy.freeze_for(store)
        frozen = gc.get_freeze_count()
        rows = [[i] for i in range(50_000)]  # built from the load
        gc_policy.look_after_load()
        assert gc_policy.collect_full_when_due(idle=True)
        assert gc.get_freeze_count() >= frozen + len(rows)
        gc_policy.release(store)
        assert gc.get_freeze_count() == 0
    """)
