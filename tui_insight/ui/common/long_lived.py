"""Keep big, long-lived models (a 50,000-node graph) out of the garbage collector's passes.

Such a graph is ~100,000 objects that live as long as the view holding it. Left to the
collector they are walked by a young pass, then a middle one, then by every full pass: ~200 ms
each on a 2-core VM, a stall the user feels under the next key. `gc.freeze()` moves every
object alive into the permanent generation, which no pass walks; when the last holder lets go,
`gc.unfreeze()` hands them back, so garbage frozen alongside (and a dropped graph, whose nodes
and edge table refer to each other) is collected then.

    with long_lived.made_by(view):   # in the loader's work (a thread): collector off, then freeze
        built = build_source(...)
    if view_is_gone:                 # it went while the work ran: give back at once
        long_lived.release(view)
    ...
    long_lived.release(view)         # when the view goes (on_unmount)
"""
from __future__ import annotations

import gc
import threading
from contextlib import contextmanager
from typing import Iterator

_lock = threading.Lock()
_holders: set[int] = set()  # id() of the objects that froze something and have not released it


@contextmanager
def made_by(holder: object) -> Iterator[None]:
    """Run the block with the collector off (a pass in the middle of it would walk everything
    the block has made so far), then freeze everything alive for `holder`."""
    collecting = gc.isenabled()
    gc.disable()
    try:
        yield
        with _lock:
            gc.freeze()
            _holders.add(id(holder))
    finally:
        if collecting:
            gc.enable()


def release(holder: object) -> None:
    """`holder` no longer keeps what it froze; the last holder to go unfreezes everything."""
    with _lock:
        if id(holder) not in _holders:
            return
        _holders.discard(id(holder))
        if not _holders:
            gc.unfreeze()


def holds(holder: object) -> bool:
    """`holder` keeps objects frozen."""
    with _lock:
        return id(holder) in _holders


def holders() -> int:
    """How many holders keep objects frozen."""
    with _lock:
        return len(_holders)
