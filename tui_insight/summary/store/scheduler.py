"""The store's one scheduler: all of a cache's work runs on one thread, one item at a time.

Work is typed, and queued by urgency:

1. `ServeHolds`: bring back the details of held jobs and keep the memory budget (a user just
   opened a job); queued once however many holds ask for it;
2. `Call`: a caller's own request (`reload()`, `load_job()`...), which the caller waits for;
3. `Reload`: files changed (their paths), or a full pass; queued `Reload`s merge their paths;
4. `Poll`: the background full pass; queued once.

So loaders, views and the budget are only ever touched from the scheduler's thread, and no lock
guards them. The thread starts with the first item and ends at `stop`, or after IDLE_SECONDS
without work (a cache used by a script lets go of its thread, and of itself); a request made on
it (a subscriber calling `reload()`) runs at once, as it would wait for itself. Whoever waits
for an item gets a `Future` with its result or its exception. `stop` cancels the background
items still queued; a caller's `Call` is still done.
"""
from __future__ import annotations

import logging
import threading
from concurrent.futures import Future
from dataclasses import dataclass, field
from typing import Any, Callable

log = logging.getLogger(__name__)
IDLE_SECONDS = 30.0  # the thread ends after this long without work (the next item starts one)


@dataclass(frozen=True)
class ServeHolds:
    pass


@dataclass(frozen=True)
class Call:
    run: Callable[[], Any]


@dataclass(frozen=True)
class Reload:
    paths: frozenset[str] | None = None  # None: every job (a full pass)
    first: bool = False  # the first pass after `start` (its objects are kept out of collections)


@dataclass(frozen=True)
class Poll:
    pass


Work = ServeHolds | Call | Reload | Poll
_URGENCY = {ServeHolds: 0, Call: 1, Reload: 2, Poll: 3}


@dataclass
class _Queued:
    work: Work
    future: Future = field(default_factory=Future)


class Scheduler:
    """Runs `do(work)` for each item on one thread (see the module doc)."""

    def __init__(self, do: Callable[[Work], Any], name: str):
        self._do = do
        self._name = name
        self._ready = threading.Condition()
        self._queues: list[list[_Queued]] = [[] for _ in _URGENCY]
        self._thread: threading.Thread | None = None
        self._last: Callable[[], None] | None = None  # `stop`'s last work, run on the thread
        self.stopping = False  # `stop` was called and the thread has not ended: long work stops early

    @property
    def thread(self) -> threading.Thread | None:
        """The thread doing the work (None while there is none)."""
        return self._thread

    def on_thread(self) -> bool:
        return self._thread is threading.current_thread()

    def submit(self, work: Work) -> Future:
        """Queue `work` (merged with a like item queued already); its Future."""
        with self._ready:
            queue = self._queues[_URGENCY[type(work)]]
            if queue and isinstance(work, (ServeHolds, Poll)):
                return queue[0].future
            if queue and isinstance(work, Reload):
                merged = _merged(queue[-1].work, work)
                if merged is not None:
                    queue[-1].work = merged
                    return queue[-1].future
            queued = _Queued(work)
            queue.append(queued)
            if self._thread is None:
                self._thread = threading.Thread(target=self._run, name=self._name, daemon=True)
                self._thread.start()
            self._ready.notify()
            return queued.future

    def call(self, run: Callable[[], Any]) -> Any:
        """`run()` on the scheduler's thread, waited for; at once when already on it."""
        if self.on_thread():
            return run()
        return self.submit(Call(run)).result()

    def stop(self, last: Callable[[], None] | None = None, timeout: float = 5.0) -> None:
        """Cancel the queued background work and end the thread after the item it is doing
        (which is told: `stopping`), then run `last` on it; wait up to `timeout` s."""
        with self._ready:
            for queue in self._queues:
                for queued in [q for q in queue if not isinstance(q.work, Call)]:
                    queue.remove(queued)
                    queued.future.cancel()
            thread = self._thread
            if thread is None:
                if last is not None:
                    last()
                return
            self.stopping = True
            self._last = last
            self._ready.notify()
        if thread is not threading.current_thread():
            thread.join(timeout)

    def _next(self) -> _Queued | None:
        """The most urgent item, waiting for one; None: the thread ends (stopping, or idle)."""
        with self._ready:
            while True:
                if self.stopping:
                    return None
                for queue in self._queues:
                    if queue:
                        return queue.pop(0)
                if not self._ready.wait(IDLE_SECONDS) and not any(self._queues):
                    return None

    def _run(self) -> None:
        try:
            while (queued := self._next()) is not None:
                if not queued.future.set_running_or_notify_cancel():
                    continue
                try:
                    queued.future.set_result(self._do(queued.work))
                except BaseException as exc:
                    queued.future.set_exception(exc)
        finally:
            with self._ready:
                last, self._last = self._last, None
            if last is not None:
                try:
                    last()
                except Exception:
                    log.exception("stopping %s failed", self._name)
            self._end()

    def _end(self) -> None:
        with self._ready:
            self.stopping = False
            self._thread = None
            if any(self._queues):  # queued as it ended: a new thread does them
                self._thread = threading.Thread(target=self._run, name=self._name, daemon=True)
                self._thread.start()


def _merged(queued: Work, new: Reload) -> Reload | None:
    """The one `Reload` doing both, or None if they differ in kind."""
    if not isinstance(queued, Reload) or queued.first != new.first:
        return None
    if queued.paths is None or new.paths is None:
        return Reload(None, queued.first)
    return Reload(queued.paths | new.paths, queued.first)
