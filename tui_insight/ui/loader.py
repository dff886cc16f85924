"""One background loader for every slow thing a view asks for: decodes, re-binning, graph builds.

A view owns one `Loader`. It asks for work under a key (`request(key, work, done)`); the loader
runs the work in one Textual thread worker of the view, in request order (`first=True` jumps
the queue: the focused chart before the others), and calls `done(result)` on the UI thread with
a `Loaded` result. The rules every view used to write for itself live here once:

- **Coalescing**: a key asked for again before its work started runs once, with the newest work.
- **Newest request wins**: a result whose key was asked for again since is dropped, whether it
  was still queued, running, or already posted and not yet delivered.
- **One error path**: work that raises becomes a result with `error` set to a sentence to show
  where the picture would be (`LoadProblem` and `PayloadError` say their own message; anything
  else is logged and said as "ExcType: message"). Never a traceback.
- **Cancellation**: `forget()` drops queued and running requests. When the view is removed,
  Textual cancels its workers; the loop stops before the next item and results are not delivered.
"""
from __future__ import annotations

import logging
import threading
from dataclasses import dataclass
from typing import Any, Callable, Hashable

from textual.message import Message
from textual.widget import Widget
from textual.worker import get_current_worker

from ..summary.formats.values import PayloadError

log = logging.getLogger(__name__)


class LoadProblem(Exception):
    """Raised by work that cannot produce its result; the message is shown as it is."""


@dataclass(frozen=True)
class Loaded:
    """What a request produced: `value`, or why not (`error`, a sentence for the user)."""

    key: Hashable
    value: Any = None
    error: str = ""

    @property
    def ok(self) -> bool:
        return not self.error


@dataclass
class LoaderResult(Message):
    """Carries a `Loaded` from the worker thread to the owner's message queue (see `LoaderHost`)."""

    loader: "Loader"
    generation: int
    result: Loaded
    done: Callable[[Loaded], None]


class LoaderHost:
    """Mixin for a widget that owns loaders: hands each result to its loader for delivery."""

    def on_loader_result(self, message: LoaderResult) -> None:
        message.stop()
        message.loader.deliver(message)


def describe_error(exc: BaseException) -> str:
    """The sentence a failed request shows."""
    if isinstance(exc, (LoadProblem, PayloadError)):
        return str(exc)
    return f"{type(exc).__name__}: {exc}" if str(exc) else type(exc).__name__


class Loader:
    """Keyed, coalescing, newest-wins background work for one widget (see the module doc)."""

    def __init__(self, owner: Widget, name: str) -> None:
        self.owner = owner
        self.name = name
        self._lock = threading.Lock()
        self._queue: dict[Hashable, tuple[int, Callable[[], Any], Callable[[Loaded], None]]] = {}
        self._generation: dict[Hashable, int] = {}  # the newest request per key
        self._running: Hashable | None = None
        self._draining = False
        self._counter = 0

    # -- the UI thread ----------------------------------------------------------------------------

    def request(self, key: Hashable, work: Callable[[], Any], done: Callable[[Loaded], None], *,
                first: bool = False) -> None:
        """Run `work()` in the background and call `done(Loaded)` on the UI thread.

        A newer request for `key` replaces this one (queued) or makes its result stale (running).
        """
        with self._lock:
            self._counter += 1
            generation = self._counter
            self._generation[key] = generation
            self._queue.pop(key, None)
            if first:
                self._queue = {key: (generation, work, done), **self._queue}
            else:
                self._queue[key] = (generation, work, done)
            start = not self._draining
            self._draining = True
        if start:
            self.owner.run_worker(self._drain, thread=True, group=f"loader-{self.name}",
                                  description=f"{self.name} loader", exit_on_error=False)

    def forget(self, key: Hashable | None = None) -> None:
        """Drop the request for `key` (every request when None): queued or running, never delivered."""
        with self._lock:
            if key is None:
                self._queue.clear()
                self._generation.clear()
            else:
                self._queue.pop(key, None)
                self._generation.pop(key, None)

    def pending(self) -> int:
        """Requests not yet delivered (queued, running, or posted and waiting for the UI thread)."""
        with self._lock:
            return len(self._generation)

    def is_wanted(self, key: Hashable) -> bool:
        """Asked for and not yet delivered or forgotten."""
        with self._lock:
            return key in self._generation

    def deliver(self, message: LoaderResult) -> None:
        """On the UI thread: call `done` unless a newer request for the key came since."""
        key = message.result.key
        with self._lock:
            if self._generation.get(key) != message.generation:
                return
            del self._generation[key]
        message.done(message.result)

    # -- the worker thread ------------------------------------------------------------------------

    def _drain(self) -> None:
        worker = get_current_worker()
        while True:
            with self._lock:
                if not self._queue or worker.is_cancelled:
                    self._draining = False
                    self._running = None
                    return
                key = next(iter(self._queue))
                generation, work, done = self._queue.pop(key)
                self._running = key
            try:
                result = Loaded(key, work())
            except Exception as exc:  # one error path: the view shows the sentence, never a traceback
                if not isinstance(exc, (LoadProblem, PayloadError)):
                    log.exception("%s loader: %r failed", self.name, key)
                result = Loaded(key, None, describe_error(exc))
            with self._lock:
                self._running = None
                wanted = self._generation.get(key) == generation
            if wanted and not worker.is_cancelled:
                self.owner.post_message(LoaderResult(self, generation, result, done))
