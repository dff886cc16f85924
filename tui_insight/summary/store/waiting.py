"""Waiting for a cache's first load (tests and headless use; `cache` re-exports it)."""
from __future__ import annotations

import time
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from .cache import SummaryCache


def wait_loaded(cache: "SummaryCache", timeout: float = 30.0) -> bool:
    """Block until every job found has been loaded once (tests and headless use)."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if cache.progress.reloads and all(v.loaded for v in cache.jobs.values()):
            return True
        time.sleep(0.01)
    return False
