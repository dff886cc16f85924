"""When Python's cycle collector runs: the one place that switches it.

Loading and building make many long-lived objects with few or no cycles (a full pass's job views,
a 50,000-node graph); a collection in the middle walks everything made so far, and the first
full collections after walk it all again. Two rules:

- **A counted pause** (`paused`): the collector is off while any pause is on, from any thread,
  and back on when the last one ends (never turned on if it was off before the first). A pause
  that checked `gc.isenabled()` itself would turn it back on under another thread's pause.
- **A held freeze** (`made_by`, `freeze_for`, `release`): `gc.freeze()` moves every object alive
  into the permanent generation, which no pass walks; it stays there while anyone holds it. The
  last holder to let go unfreezes (a dropped graph and garbage frozen alongside are then
  collected). Holders are the views keeping a big model and the store's first pass
  (`CollectorPause(keep=...)`, thawed when the logs first change).
"""
from __future__ import annotations

import gc
import sys
import threading
import time
from contextlib import contextmanager
from typing import Iterator

PAUSE_COLLECTOR_SECONDS = 5.0  # the cycle collector is off this long at the start of a full pass

_lock = threading.Lock()
_pauses = 0  # pauses on now, from every thread
_was_on = False  # the collector was on when the first of them began
_holders: set[int] = set()  # id() of what froze objects and has not released them


def pause() -> None:
    global _pauses, _was_on
    with _lock:
        if _pauses == 0:
            _was_on = gc.isenabled()
            gc.disable()
        _pauses += 1


def resume() -> None:
    global _pauses
    with _lock:
        _pauses -= 1
        if _pauses == 0 and _was_on:
            gc.enable()


@contextmanager
def paused() -> Iterator[None]:
    """The block runs with the collector off (see the module doc)."""
    pause()
    try:
        yield
    finally:
        resume()


def freeze_for(holder: object) -> None:
    """Freeze every object alive now, held by `holder` until it is `release`d. The heap that full
    collections walk starts again from here (`collect_full_when_due`)."""
    global _heap_after_full
    with _lock:
        gc.freeze()
        _holders.add(id(holder))
        _heap_after_full = heap_size()


@contextmanager
def made_by(holder: object) -> Iterator[None]:
    """Run the block paused, then freeze everything alive for `holder`."""
    with paused():
        yield
        freeze_for(holder)


def release(holder: object) -> None:
    """`holder` no longer keeps what it froze; the last holder to go unfreezes everything."""
    with _lock:
        if id(holder) not in _holders:
            return
        _holders.discard(id(holder))
        if not _holders:
            gc.unfreeze()


# -- full collections at idle moments (the app) -----------------------------------------------------

FULL_EVERY = 10  # generation-1 passes between two full collections (CPython's own threshold)
FULL_AT_MOST_SECONDS = 30.0  # never two idle full collections closer than this
FULL_ANYWAY_SECONDS = 120.0  # a full collection due this long runs even while keys come
FULL_GROWTH = 1.25  # the heap grew by a quarter since the last full collection (CPython's own rule)
_deferred: tuple[int, int, int] | None = None  # the thresholds before `defer_full` (None: not deferred)
_last_full = 0.0  # time.monotonic() of the last look at the heap by `collect_full_when_due`
_heap_after_full = 0  # heap_size() right after it
_look_now = False  # a load just ended: the next idle look comes at once (`look_after_load`)


def defer_full() -> None:
    """Full (generation 2) collections only from `collect_full_when_due`, not at allocation.

    A full collection walks every object alive (an open app: ~1 M, 50-150 ms): started by an
    allocation, it lands in whatever the UI is doing, a key's paint among it. The app calls
    `collect_full_when_due` when the user has been idle a moment instead."""
    global _deferred, _last_full, _heap_after_full
    with _lock:
        if _deferred is None:
            _last_full, _heap_after_full = time.monotonic(), heap_size()  # as if one ran now
            _deferred = gc.get_threshold()
            first, second, _ = _deferred
            gc.set_threshold(first, second, 1_000_000)  # (the third counts generation-1 passes)


def undefer_full() -> None:
    """Back to CPython's own full collections (the thresholds from before `defer_full`)."""
    global _deferred, _look_now
    with _lock:
        _look_now = False
        if _deferred is not None:
            gc.set_threshold(*_deferred)
            _deferred = None


def look_after_load() -> None:
    """A load just ended: the next idle `collect_full_when_due` runs a full pass at once, without
    the wait, the generation-1 passes' count or the heap's growth. The pass a load makes due then
    runs while the user still waits for the load, not in the idle minute after (5,000 jobs: a
    50-90 ms pass within the first FULL_AT_MOST_SECONDS of an idle app). While a holder keeps
    objects frozen (the store's first pass), what survives it is frozen with them: the job list's
    rows and the app's screens, which later passes (a dashboard opened) then do not walk again."""
    global _look_now
    with _lock:
        _look_now = True


def collect_full_when_due(idle: bool, now: float | None = None) -> bool:
    """A full collection, if it is due as CPython would have it (FULL_EVERY generation-1 passes
    since the last one, and the heap grew by a quarter: an idle app's redraws allocate and free
    without growing, and each full pass walks the whole heap), the collector is on (no `paused`
    block runs) and the last look here was FULL_AT_MOST_SECONDS ago (`idle`: the user is idle),
    or FULL_ANYWAY_SECONDS (a user who never pauses); right after a load, at the first idle look,
    whatever the heap (`look_after_load`). True: it ran.

    The heap is measured by `heap_size` (the process's private resident memory: a count the kernel
    keeps) for want of CPython's own count of long-lived objects. It is looked at once a wait,
    not at every clock tick while a pass is due."""
    global _last_full, _heap_after_full, _look_now
    now = time.monotonic() if now is None else now
    wait = FULL_AT_MOST_SECONDS if idle else FULL_ANYWAY_SECONDS
    if _look_now and idle and gc.isenabled():
        _look_now = False
        _last_full = now
        gc.collect(2)
        with _lock:
            if _holders:  # what was built from the load joins the store's objects held frozen
                gc.freeze()
        _heap_after_full = heap_size()
        return True
    if gc.get_count()[2] < FULL_EVERY or not gc.isenabled() or now - _last_full < wait:
        return False
    _last_full = now  # (also when the heap did not grow: counting it can take 50 ms, once a wait)
    if heap_size() < FULL_GROWTH * _heap_after_full:
        return False
    gc.collect(2)
    _heap_after_full = heap_size()
    return True


def heap_size() -> int:
    """The process's private memory in RAM, in pages (Linux: resident less shared, from
    /proc/self/statm), else the allocator's blocks (`sys.getallocatedblocks`). Not the blocks
    where the kernel keeps the count: those are summed over every pool of the allocator, whose
    pages an idle process has let go cold: 0.2-0.4 s a count for 2 M objects after 5-15 idle
    seconds on a virtual machine (7 ms warm), each time the idle app's clock looked."""
    try:
        with open("/proc/self/statm", "rb") as statm:
            fields = statm.read().split()
        return int(fields[1]) - int(fields[2])
    except (OSError, IndexError, ValueError):
        return sys.getallocatedblocks()


_malloc_trim: object = None  # glibc's `malloc_trim`, once looked up (False: there is none)


def trim() -> None:
    """Hand the C heap's free pages back to the system (glibc's `malloc_trim`; nothing where
    there is none). Reading a job in this process frees most of what it allocated, scattered
    between what stays: glibc keeps those pages, and a sweep read in one process held 25 MB of
    5,000 jobs' worth of them."""
    global _malloc_trim
    if _malloc_trim is None:
        try:
            import ctypes

            _malloc_trim = ctypes.CDLL("libc.so.6").malloc_trim
        except (OSError, AttributeError):
            _malloc_trim = False
    if _malloc_trim:
        _malloc_trim(0)  # type: ignore[operator]


_M_TRIM_THRESHOLD, _M_MMAP_THRESHOLD = -1, -3  # glibc's mallopt parameters
REUSED_BLOCK_BYTES = 64 << 20  # a loading process's heap keeps blocks up to this size for the next job


def reuse_freed_heap() -> None:
    """In a loading process only: blocks of up to `REUSED_BLOCK_BYTES` come from the heap, and
    its free top stays (glibc's mallopt; nothing where there is none). By default glibc maps
    each block of a file's size anew and hands it back when freed, so every job's read faulted
    its pages in again: 17-20% of a small job's CPU. The process reads one job after another
    and is stopped after the pass, so what it keeps is reused, not held."""
    try:
        import ctypes

        mallopt = ctypes.CDLL("libc.so.6").mallopt
    except (OSError, AttributeError):
        return
    mallopt(_M_MMAP_THRESHOLD, REUSED_BLOCK_BYTES)
    mallopt(_M_TRIM_THRESHOLD, 2 * REUSED_BLOCK_BYTES)


def holds(holder: object) -> bool:
    """`holder` keeps objects frozen."""
    with _lock:
        return id(holder) in _holders


def holders() -> int:
    """How many holders keep objects frozen."""
    with _lock:
        return len(_holders)


class CollectorPause:
    """The collector paused for the first seconds of a store's full pass: a pass builds thousands
    of long-lived objects (views), which every collection would traverse again (a tenth of a warm
    start of 5,000 jobs). What the pass frees is freed by reference counting meanwhile; a long
    pass (a cold load) has the collector back after PAUSE_COLLECTOR_SECONDS (`check`).

    `keep` (the store's first pass, while the app starts: the store): the objects are frozen for
    it when the collector comes back and again when the pass ends, until it is `release`d (the
    logs change). Else the first collections after a warm start of 5,000 jobs traversed the
    ~200,000 objects it made three times (0.3 s of CPU on the store's and the UI's threads, while
    the job list is built), and an idle app's full collections walked them again."""

    def __init__(self, keep: object | None = None) -> None:
        self.on, self.until, self.keep = False, 0.0, keep

    def __enter__(self) -> "CollectorPause":
        pause()
        self.on = True
        self.until = time.monotonic() + PAUSE_COLLECTOR_SECONDS
        return self

    def check(self) -> None:
        if self.on and time.monotonic() > self.until:
            self.resume()

    def resume(self) -> None:
        if self.on:
            self.on = False
            if self.keep is not None:
                freeze_for(self.keep)
            resume()

    def __exit__(self, *exc: object) -> None:
        if self.keep is not None and not self.on:  # back on during the pass: the rest joins the frozen
            freeze_for(self.keep)
        self.resume()
