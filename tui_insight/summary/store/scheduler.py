"""The store's one scheduler: a cache's work is done one item at a time, by urgency.

Work is typed, and queued by urgency:

1. `ServeHolds`: bring back the details of held jobs and keep the memory budget (a user just
   opened a job); queued once however many holds ask for it;
2. `Call`: a caller's own request (`reload()`, `load_job()`...), which the caller waits for;
3. `Reload`: files changed (their paths), or a full pass; queued `Reload`s merge their paths;
4. `Poll`: the background full pass; queued once.

Items are done on the scheduler's thread, which starts with the first item and ends at `stop`,
or after IDLE_SECONDS without work (a cache used by a script lets go of its thread, and of
itself). A caller's request finding the scheduler idle (nothing queued, nothing being done) is
done at once on the caller's thread, as the one item being done: a script's `load_job` per job
pays no hand-over between threads (~0.1 ms each). Either way one item at a time touches the
loaders, views and budget, so no other lock guards them; a request made while doing an item
(a subscriber calling `reload()`) runs at once, as it would wait for itself. Whoever waits for
an item gets a `Future` with its result or its exception. `stop` cancels the background items
still queued; a caller's `Call` is still done.
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
    """Bring back the details of the jobs a screen holds, and keep the memory budget."""


@dataclass(frozen=True)
class Call:
    """Run a caller's function on the scheduler."""

    run: Callable[[], Any]


@dataclass(frozen=True)
class Reload:
    """Reload some jobs, or all of them."""

    paths: frozenset[str] | None = None  # None: every job (a full pass)
    first: bool = False  # the first pass after `start` (its objects are kept out of collections)


@dataclass(frozen=True)
class Poll:
    """Look for changed files (the background poll)."""


Work = ServeHolds | Call | Reload | Poll
_URGENCY = {ServeHolds: 0, Call: 1, Reload: 2, Poll: 3}


@dataclass
class _Queued:
    """A work item waiting, and the future its caller waits on."""

    work: Work
    future: Future = field(default_factory=Future)


class Scheduler:
    """Does `do(work)` for each item, one at a time (see the module doc)."""

    def __init__(self, do: Callable[[Work], Any], name: str):
        self._do = do
        self._name = name
        self._ready = threading.Condition()
        self._queues: list[list[_Queued]] = [[] for _ in _URGENCY]
        self._thread: threading.Thread | None = None
        self._doing: threading.Thread | None = None  # the thread doing an item now (its own, or a caller)
        self._last: Callable[[], None] | None = None  # `stop`'s last work, for the thread to run
        self.stopping = False  # `stop` was called and work goes on: long work stops early

    @property
    def thread(self) -> threading.Thread | None:
        """The scheduler's own thread (None while there is none)."""
        return self._thread

    def on_thread(self) -> bool:
        """Whether the calling thread is doing an item now (its work would wait for itself)."""
        return self._doing is threading.current_thread()

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
                self._start()
            self._ready.notify_all()
            return queued.future

    def call(self, run: Callable[[], Any]) -> Any:
        """`run()` done as an item, waited for: at once on this thread when the scheduler is
        idle or this thread is doing an item; else queued."""
        if self.on_thread():
            return run()
        with self._ready:
            idle = self._doing is None and not any(self._queues)
            if idle:
                self._doing = threading.current_thread()
        if not idle:
            return self.submit(Call(run)).result()
        try:
            return run()
        finally:
            with self._ready:
                self._doing = None
                self._ready.notify_all()

    def stop(self, last: Callable[[], None] | None = None, timeout: float = 5.0) -> None:
        """Cancel the queued background work and tell the item being done (`stopping`); end the
        thread, then run `last` once nothing is being done. Waits up to `timeout` s; `last` is
        left undone if work is still going on then (it would pull the pool from under it)."""
        with self._ready:
            for queue in self._queues:
                for queued in [q for q in queue if not isinstance(q.work, Call)]:
                    queue.remove(queued)
                    queued.future.cancel()
            thread = self._thread
            if thread is None and self._doing is None:
                if last is not None:
                    last()
                return
            self.stopping = True
            self._last = last if thread is not None else None
            self._ready.notify_all()
        if thread is None:  # a caller's item is being done: `last` after it
            with self._ready:
                if self._ready.wait_for(lambda: self._doing is None, timeout):
                    self.stopping = False
                    if last is not None:
                        last()
            return
        if thread is not threading.current_thread():
            thread.join(timeout)

    def _start(self) -> None:
        self._thread = threading.Thread(target=self._run, name=self._name, daemon=True)
        self._thread.start()

    def _next(self) -> _Queued | None:
        """The most urgent item, once nothing else is being done; None: the thread ends
        (stopping, or idle)."""
        with self._ready:
            while True:
                if self.stopping:
                    return None
                if self._doing is None:
                    for queue in self._queues:
                        if queue:
                            self._doing = self._thread
                            return queue.pop(0)
                if not self._ready.wait(IDLE_SECONDS) and not any(self._queues):
                    return None

    def _run(self) -> None:
        try:
            while (queued := self._next()) is not None:
                try:
                    if queued.future.set_running_or_notify_cancel():
                        try:
                            queued.future.set_result(self._do(queued.work))
                        except BaseException as exc:
                            queued.future.set_exception(exc)
                finally:
                    with self._ready:
                        self._doing = None
        finally:
            self._end()

    def _end(self) -> None:
        with self._ready:
            last, self._last = self._last, None
            if last is not None and self._ready.wait_for(lambda: self._doing is None, IDLE_SECONDS):  # (a caller's item)
                try:
                    last()
                except Exception:
                    log.exception("stopping %s failed", self._name)
            self.stopping = False
            self._thread = None
            if any(self._queues):  # queued as it ended: a new thread does them
                self._start()


def _merged(queued: Work, new: Reload) -> Reload | None:
    """The one `Reload` doing both, or None if they differ in kind."""
    if not isinstance(queued, Reload) or queued.first != new.first:
        return None
    if queued.paths is None or new.paths is None:
        return Reload(None, queued.first)
    return Reload(queued.paths | new.paths, queued.first)
