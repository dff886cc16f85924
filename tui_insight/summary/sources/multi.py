"""Several log directories read as one (`tui-insight node1:/logs node2:/logs ./local`): a
`Source` over sources, so the cache, the readers, the export and the screens need not know.

- **Names.** Each source has a label: the host of `user@host:/path`, the bucket of a URL, the
  directory's name of a local path (a second source of the same label gets `#2`). A job is
  named by its source: `node1:./exp/rank_0`.
- **Paths.** A source's path `P` is `/@<i>` + `P` here (`/@0/home/me/logs/run`), so paths joined
  below a job's path keep their source; every call goes to the source the prefix names.
- **On its own.** Each source has a lane (`Lane`): a thread of its own where its listings run,
  and the reads of its jobs when it is not local (the cache hands them over: `lane`). A first
  listing is waited for up to `DISCOVER_SECONDS`, a later one up to `STALL_SECONDS`; a source
  whose lane is still at work (a read or a listing from before) is not waited for at all. One
  that fails or does not answer keeps the jobs it had at its last answer, and the failure is
  one problem line naming it; the others go on. A lane silent for `STALL_SECONDS` is stalled:
  `status` names it, as it names the sources that say something is wrong ("node2:
  reconnecting…"). A source that could not be made at all (`unreachable`) is listed as a
  problem at every discovery, with the others loading.
"""
from __future__ import annotations

import logging
import os
import re
import threading
import time
from collections import deque
from collections.abc import Iterable, Sequence
from concurrent.futures import Future
from concurrent.futures import TimeoutError as FutureTimeout
from dataclasses import replace
from functools import partial
from typing import Any, BinaryIO, Callable
from urllib.parse import urlsplit

from .discovery import Discovery
from .location import remote_kind

RECONNECTING = "reconnecting\N{HORIZONTAL ELLIPSIS}"

DISCOVER_SECONDS = 30.0  # a source whose first listing takes longer is listed with no jobs meanwhile
# A lane at work and silent this long is stalled (its jobs say reconnecting…); a later listing
# is waited for this long at most (a healthy one takes ~10-100 ms over ssh).
STALL_SECONDS = 5.0
PREFIX = "/@"
_OURS = re.compile(r"/@(\d+)(/|:)")
log = logging.getLogger(__name__)


def source_label(logdir: str) -> str:
    """How jobs of `logdir` are named when several sources are open: its host (ssh), its bucket
    or host (URL), else the directory's name."""
    kind = remote_kind(logdir)
    if kind == "url":
        parts = urlsplit(logdir)
        return parts.netloc or parts.scheme
    if kind == "ssh":
        return logdir.split(":", 1)[0].rsplit("@", 1)[-1]
    return os.path.basename(os.path.abspath(logdir)) or "/"


def unique_labels(logdirs: Sequence[str]) -> list[str]:
    """A label per LOGDIR, the second and later of one label numbered (`logs`, `logs#2`)."""
    seen: dict[str, int] = {}
    labels = []
    for logdir in logdirs:
        label = source_label(logdir)
        seen[label] = seen.get(label, 0) + 1
        labels.append(label if seen[label] == 1 else f"{label}#{seen[label]}")
    return labels


class UnreachableSource:
    """A LOGDIR whose source could not be made (a host that did not answer): no jobs, and why
    at every discovery, so it is named while the others load."""

    is_local = False
    status = ""

    def __init__(self, location: str, reason: str):
        self.location = location
        self.root = location
        self.reason = reason

    def discover(self, listings: dict, turn: int | None = None) -> Discovery:
        return Discovery({}, [self.reason])

    def stat(self, path: str) -> os.stat_result:
        raise OSError(self.reason)

    def open_range(self, path: str, start: int, end: int) -> BinaryIO:
        raise OSError(self.reason)

    def read(self, path: str, start: int = 0, end: int | None = None) -> bytes:
        raise OSError(self.reason)

    def prefetch(self, ranges: Iterable[tuple[str, int, int]]) -> None:
        pass

    def listdir(self, path: str) -> list[str]:
        raise OSError(self.reason)

    def same_start(self, path: str, start: bytes) -> bool:
        raise OSError(self.reason)

    def close(self) -> None:
        pass


class Lane:
    """One source's own thread: its listings, and the reads of its jobs the cache hands it
    (`SummaryCache`), run there one at a time, so a host that hangs holds up its own lane only.
    A lane at work that has not been heard from (a call starting or ending, a read's progress:
    `heard`, bytes arriving from its host: the source's `heard`) for `STALL_SECONDS` is `stalled`: its jobs stay as last read, marked reconnecting."""

    def __init__(self, label: str, source):
        self.label = label
        self.source = source
        self._calls: deque = deque()
        self._ready = threading.Condition()
        self._busy = 0  # calls queued or running
        self._heard = time.monotonic()
        self._closed = False
        self._thread: threading.Thread | None = None

    def submit(self, run: Callable[[], Any]) -> Future:
        """`run()` done on the lane's thread after the calls before it; its Future."""
        future: Future = Future()
        with self._ready:
            if self._closed:
                future.cancel()
                return future
            if self._busy == 0:
                self._heard = time.monotonic()
            self._busy += 1
            self._calls.append((run, future))
            if self._thread is None:  # a daemon: a hung host's call never holds up the exit
                self._thread = threading.Thread(target=self._run, name=f"source-{self.label}", daemon=True)
                self._thread.start()
            self._ready.notify()
        return future

    def heard(self) -> None:
        """A sign of life from the call being done (a read's progress)."""
        self._heard = time.monotonic()

    @property
    def busy(self) -> bool:
        return self._busy > 0

    @property
    def stalled(self) -> bool:
        """At work, and silent for STALL_SECONDS."""
        heard = max(self._heard, getattr(self.source, "heard", 0.0))  # (bytes arriving over a slow link)
        return self._busy > 0 and time.monotonic() - heard > STALL_SECONDS

    @property
    def failing(self) -> bool:
        """Stalled, or its source says something is wrong (`status`: "reconnecting…")."""
        return self.stalled or bool(self.source.status)

    def close(self) -> None:
        """Cancel the calls queued; the one being done ends on its own (the source's close ends it)."""
        with self._ready:
            self._closed = True
            while self._calls:
                self._calls.popleft()[1].cancel()
                self._busy -= 1
            self._ready.notify()

    def _run(self) -> None:
        while True:
            with self._ready:
                while not self._calls and not self._closed:
                    self._ready.wait()
                if not self._calls:
                    self._thread = None
                    return
                run, future = self._calls.popleft()
                self._heard = time.monotonic()
            try:
                if future.set_running_or_notify_cancel():
                    try:
                        result = run()
                    except BaseException as exc:  # the caller's to see, on its future
                        with self._ready:
                            self._done()
                        future.set_exception(exc)
                    else:
                        with self._ready:
                            self._done()
                        future.set_result(result)
                else:
                    with self._ready:
                        self._done()
            except BaseException:  # noqa: BLE001 (never reached: set_* raise only on misuse)
                log.exception("a call on the lane of %s failed", self.label)

    def _done(self) -> None:
        self._busy -= 1
        self._heard = time.monotonic()


class MultiSource:
    """`sources` (Source objects, or local paths) read as one, named by `labels`."""

    is_local = False  # every read goes through the source it belongs to

    def __init__(self, sources: Sequence, labels: Sequence[str]):
        from .local import LocalSource

        self.sources = [LocalSource(os.fspath(s)) if isinstance(s, (str, os.PathLike)) else s for s in sources]
        self.labels = list(labels)
        self.location = " ".join(s.location for s in self.sources)
        self.root = PREFIX
        self._last: list[Discovery] = [Discovery({}, []) for _ in self.sources]
        self._pending: list[Future | None] = [None] * len(self.sources)  # a listing still running past its time
        self._answered = [False] * len(self.sources)  # listed once: later listings are waited for less
        self._given = [0.0] * len(self.sources)  # the seconds the last listing asked for was given
        self._failing: set[str] = set()  # labels whose last discovery failed or did not answer
        self.lanes = [Lane(label, source) for label, source in zip(self.labels, self.sources)]

    @property
    def failing(self) -> list[str]:
        """The labels of the sources whose last discovery failed or did not answer in time, or
        that say something is wrong (`status`: a dropped host, "reconnecting…")."""
        return [lane.label for lane in self.lanes if lane.label in self._failing or lane.failing]

    @property
    def status(self) -> str:
        return "; ".join(f"{lane.label}: {lane.source.status or RECONNECTING}" for lane in self.lanes if lane.failing)

    def failures(self) -> list[str]:
        """A line per source whose lane is stalled or that says something is wrong, naming it
        (the headless modes end with them)."""
        return [f"{lane.label} ({lane.source.location}): "
                + (lane.source.status if lane.source.status else f"{RECONNECTING} (no answer for {STALL_SECONDS:g} s)")
                + "; its jobs as last read" for lane in self.lanes if lane.failing]

    def lane(self, path: str) -> Lane | None:
        """The lane the reads of `path` go to: its source's, unless that one is local (None: read
        where the caller is)."""
        match = _OURS.match(path)
        if match is None or int(match.group(1)) >= len(self.sources):
            return None
        lane = self.lanes[int(match.group(1))]
        return None if lane.source.is_local else lane

    # -- paths ------------------------------------------------------------------------------------

    def path(self, index: int, path: str) -> str:
        """Our name of source `index`'s `path`: `/@0/abs/path`, or `/@0:rel/path` for a source
        whose paths do not start at `/` (an object store's `bucket/key`)."""
        return f"{PREFIX}{index}{path}" if path.startswith("/") else f"{PREFIX}{index}:{path}"

    def route(self, path: str):
        """(the source, its own path) of one of our paths."""
        match = _OURS.match(path)
        if match is None or int(match.group(1)) >= len(self.sources):
            raise OSError(f"{path}: not a path of these log directories")
        own = path[match.end():]
        return self.sources[int(match.group(1))], "/" + own if match.group(2) == "/" else own

    # -- the Source protocol ----------------------------------------------------------------------

    def discover(self, listings: dict, turn: int | None = None) -> Discovery:
        """Every source's jobs, named by its label; each source listed on its lane, all at once.
        A first listing is waited for up to `DISCOVER_SECONDS`, a later one up to
        `STALL_SECONDS`; one still going then keeps the source's last jobs, and is taken at a
        later discovery once it answers. A lane still at work is not listed (nor waited for)."""
        futures: list[Future | None] = []
        for i, (source, lane) in enumerate(zip(self.sources, self.lanes)):
            own = listings.setdefault(i, {})
            pending = self._pending[i]
            if pending is not None or (lane.busy and self._answered[i]):
                futures.append(pending)  # (None: reads still going; its jobs as last listed)
            else:
                self._given[i] = STALL_SECONDS if self._answered[i] else DISCOVER_SECONDS
                futures.append(lane.submit(partial(source.discover, own, turn)))
        jobs, problems, listed = {}, [], 0
        started = time.monotonic()
        for i, future in enumerate(futures):
            label, lane = self.labels[i], self.lanes[i]
            self._failing.add(label)
            waited = 0.0 if future is self._pending[i] else self._given[i]  # (one still going from before: not at all)
            try:
                if future is None:
                    raise FutureTimeout
                found = future.result(timeout=max(0.0, started + waited - time.monotonic()))
                self._pending[i] = None
                self._last[i] = found
                self._answered[i] = True
                if not isinstance(self.sources[i], UnreachableSource):
                    self._failing.discard(label)
            except FutureTimeout:
                self._pending[i] = future
                found = self._last[i]
                if future is None and not lane.stalled:
                    self._failing.discard(label)  # its reads are going on: nothing wrong
                else:
                    silent = f"no answer in {self._given[i]:g} s" if future is not None \
                        else f"no answer for {STALL_SECONDS:g} s"
                    problems.append(f"{label} ({self.sources[i].location}): {silent}; its jobs as last listed")
            except Exception as exc:  # a source's own failure is its line, never the others' loss
                self._pending[i] = None
                found = self._last[i]
                problems.append(f"{label} ({self.sources[i].location}): {exc}")
            listed += found.listed
            problems += [f"{label}: {problem}" for problem in found.problems]
            for train_id, job in found.jobs.items():
                named = f"{label}:{train_id}"
                jobs[named] = replace(job, train_id=named, path=self.path(i, job.path))
        return Discovery(jobs, problems, listed)

    def stat(self, path: str) -> os.stat_result:
        source, own = self.route(path)
        return source.stat(own)

    def open_range(self, path: str, start: int, end: int) -> BinaryIO:
        source, own = self.route(path)
        return source.open_range(own, start, end)

    def read(self, path: str, start: int = 0, end: int | None = None) -> bytes:
        source, own = self.route(path)
        return source.read(own, start, end)

    def prefetch(self, ranges: Iterable[tuple[str, int, int]]) -> None:
        by_source: dict[int, list[tuple[str, int, int]]] = {}
        for path, start, end in ranges:
            source, own = self.route(path)
            by_source.setdefault(self.sources.index(source), []).append((own, start, end))
        for i, own_ranges in by_source.items():
            self.sources[i].prefetch(own_ranges)

    def listdir(self, path: str) -> list[str]:
        source, own = self.route(path)
        return source.listdir(own)

    def same_start(self, path: str, start: bytes) -> bool:
        source, own = self.route(path)
        return source.same_start(own, start)

    def close(self) -> None:
        for lane in self.lanes:
            lane.close()
        for source in self.sources:
            source.close()
