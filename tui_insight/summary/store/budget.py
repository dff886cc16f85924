"""Which jobs keep their details (full series) in memory: a byte budget, holds, least recently used out.

The job list needs only each job's digests and counts; a job's details are needed while it is
open (a screen holds it) and are kept after that while they fit. `DetailBudget` does the
bookkeeping for `SummaryCache`: the bytes of each job whose details are in memory, who holds
which jobs, and in which order jobs were used. It decides nothing about loading.
"""
from __future__ import annotations

import threading
from collections import OrderedDict
from typing import Hashable, Iterable

DEFAULT_BUDGET = 256 << 20


class DetailBudget:
    """Bytes of details per job under `max_bytes`; holds may come from any thread."""

    def __init__(self, max_bytes: int = DEFAULT_BUDGET):
        self.max_bytes = max_bytes
        self.total = 0
        self._sizes: dict[str, int] = {}  # jobs whose details are in memory -> their bytes
        self._recent: OrderedDict[str, None] = OrderedDict()  # least recently used first
        self._holds: dict[Hashable, frozenset[str]] = {}
        self._lock = threading.Lock()

    def set_size(self, train_id: str, nbytes: int) -> None:
        """The job's details are in memory and take `nbytes`. A job not used since its details
        came back (a live job read again while nobody looks at it) is the first to go."""
        with self._lock:
            self.total += nbytes - self._sizes.get(train_id, 0)
            self._sizes[train_id] = nbytes
            if train_id not in self._recent:
                self._recent[train_id] = None
                self._recent.move_to_end(train_id, last=False)

    def drop(self, train_id: str) -> None:
        """The job's details left memory (evicted or forgotten, or the job went)."""
        with self._lock:
            self.total -= self._sizes.pop(train_id, 0)
            self._recent.pop(train_id, None)

    def touch(self, train_ids: Iterable[str]) -> None:
        """These jobs were just used: the last to be evicted."""
        with self._lock:
            for train_id in train_ids:
                self._recent[train_id] = None
                self._recent.move_to_end(train_id)

    def hold(self, owner: Hashable, train_ids: Iterable[str]) -> None:
        with self._lock:
            self._holds[owner] = frozenset(train_ids)

    def release(self, owner: Hashable) -> frozenset[str]:
        """Drop the owner's hold; the jobs it held."""
        with self._lock:
            return self._holds.pop(owner, frozenset())

    @property
    def holding(self) -> bool:
        """Someone holds jobs (a quick look, without the lock: `held` says which)."""
        return bool(self._holds)

    def held(self) -> set[str]:
        with self._lock:
            return set().union(*self._holds.values()) if self._holds else set()

    def victims(self) -> list[str]:
        """Jobs to evict, least recently used first, so that the rest fit the budget; held jobs never."""
        if self.total <= self.max_bytes:
            return []
        held = self.held()
        with self._lock:
            over = self.total - self.max_bytes
            chosen = []
            for train_id in self._recent:
                if over <= 0:
                    break
                if train_id in held or train_id not in self._sizes:  # held, or touched before its details came
                    continue
                chosen.append(train_id)
                over -= self._sizes[train_id]
            return chosen
