"""Reads of a remote source's jobs off the cache's scheduler: each on its source's lane (issue 29).

With several LOGDIRs (`sources.multi.MultiSource`) every source has a lane, a thread of its
own. The cache's scheduler hands a remote job's read (`JobLoader.refresh`) to the lane of its
source and goes on with the next job, so a host that hangs mid-read (sshd stopped, a `cat` that
never returns) holds up its own lane only: the other sources' jobs go on being read. While a job
is being read there, the scheduler leaves its loader alone (no second read, no eviction, no
details served); the lane hands the result back (`land`) to be published on the scheduler. The
loaders of a lane's jobs share the lane's own event layouts, never the scheduler's. A job whose
lane is stalled or whose source says something is wrong is published `reconnecting`.
A caller's own pass (`reload()`, `load_job()`) waits for the reads it handed over, until each is
done or its lane is stalled (`wait`); the background passes do not wait.
"""
from __future__ import annotations

import logging
from concurrent.futures import FIRST_COMPLETED, Future, wait
from dataclasses import dataclass, replace
from typing import Callable, Mapping

from ..formats.layouts import LayoutBook
from ..sources.multi import Lane, MultiSource
from .job_view import Changes, JobView
from .loader import JobLoader

log = logging.getLogger(__name__)
WAIT_STEP = 0.05  # seconds between looks at a lane a caller's pass waits for


@dataclass
class Reading:
    """A job's read on its lane: the loader it reads with, and whether it is a first load."""

    loader: JobLoader
    future: Future
    first: bool
    lane: Lane


class LaneReads:
    """The jobs being read on their sources' lanes, by train id (`source`: the cache's)."""

    def __init__(self, source: object, schedule: Callable[[Callable[[], object]], object],
                 published: Callable[[JobLoader, Changes, Changes, bool], None]):
        """`schedule(run)`: `run` done on the scheduler, soon; `published(loader, changes, total,
        first)`: the cache's publishing of a refresh (done there)."""
        self._lane_of = source.lane if isinstance(source, MultiSource) else None
        self._schedule, self._published = schedule, published
        self._books: dict[int, tuple[LayoutBook, LayoutBook]] = {}  # a lane's event layouts, by id(lane)
        self.reading: dict[str, Reading] = {}

    @property
    def used(self) -> bool:
        """Whether the source has lanes (several LOGDIRs): else nothing here does anything."""
        return self._lane_of is not None

    def lane(self, path: str) -> Lane | None:
        """The lane a job at `path` is read on; None: on the scheduler (a local source's, or one source)."""
        return self._lane_of(path) if self._lane_of is not None else None

    def books(self, path: str, default: tuple[LayoutBook, LayoutBook]) -> tuple[LayoutBook, LayoutBook]:
        """The event layouts a new loader of the job at `path` shares: its lane's, else `default`."""
        lane = self.lane(path)
        if lane is None:
            return default
        return self._books.setdefault(id(lane), (LayoutBook(), LayoutBook(dialect="tensorboard")))

    def busy(self, train_id: str) -> bool:
        """The job is being read on its lane (its loader is the lane's until it lands)."""
        return train_id in self.reading

    def held_up(self, train_id: str, path: str) -> bool:
        """Being read on its lane, or its lane is stalled: not to be handed over again now."""
        if train_id in self.reading:
            return True
        lane = self.lane(path)
        return lane is not None and lane.stalled

    def start(self, lane: Lane, loader: JobLoader, read: Callable[[Callable[[Changes], None]], Changes],
              first: bool, loaders: Mapping[str, JobLoader], publish: Callable[[Changes], None]) -> None:
        """`read(progressed)` (the loader's refresh) on `lane`. Its progress views are published
        (`publish`) and its result (`land`) on the scheduler; `loaders`: the cache's, by train id."""
        train_id = loader.train_id

        def progressed(partial: Changes) -> None:  # (on the lane, about once a second while reading)
            lane.heard()
            self._schedule(lambda: publish(partial) if self.loader(train_id) is loader else None)

        future = lane.submit(lambda: read(progressed))
        self.reading[train_id] = Reading(loader, future, first, lane)
        future.add_done_callback(lambda _: self._schedule(lambda: self.land(train_id, loaders.get(train_id), Changes())))

    def loader(self, train_id: str) -> JobLoader | None:
        """The loader reading the job on its lane now, if one is."""
        reading = self.reading.get(train_id)
        return reading.loader if reading is not None else None

    def land(self, train_id: str, loader: JobLoader | None, total: Changes) -> bool:
        """Publish a read that is done (on the scheduler): whether there was one. One whose loader
        is not `loader` (the cache's now: the job went, or was forgotten, meanwhile) is dropped."""
        reading = self.reading.get(train_id)
        if reading is None or not reading.future.done():
            return False
        # A caller's pass and the scheduler may both land a read: the one that takes it publishes it.
        taken = self.reading.pop(train_id, None)
        if taken is not reading:
            if taken is not None:  # another read of the job started meanwhile: it stays
                self.reading[train_id] = taken
            return False
        if reading.loader is not loader:
            return False
        try:
            changes = reading.future.result()
        except Exception as exc:  # a bug of ours in the read: the job says so, the others go on
            log.exception("reading %s on its lane failed", train_id)
            loader.notes.append(f"reading failed ({type(exc).__name__})")
            changes = Changes(updated={train_id: set()})
        self._published(loader, changes, total, reading.first)
        return True

    def land_waited(self, train_ids: list[str], loaders: Mapping[str, JobLoader], total: Changes) -> int:
        """A caller's pass: wait for the reads it handed over (`wait`), publish them; how many."""
        return sum(self.land(train_id, loaders.get(train_id), total) for train_id in self.wait(train_ids))

    def wait(self, train_ids: list[str]) -> list[str]:
        """Wait until each of these reads is done or its lane is stalled; the ones done, in
        `train_ids` order. Woken by each read that ends (a lane reads its jobs one after the
        other: a look every WAIT_STEP per job would add that much per job), and every WAIT_STEP
        to see whether a lane stalled."""
        waiting = {reading.future: reading for train_id in train_ids
                   if (reading := self.reading.get(train_id)) is not None}
        while waiting:
            wait(waiting, timeout=WAIT_STEP, return_when=FIRST_COMPLETED)
            waiting = {future: reading for future, reading in waiting.items()
                       if not future.done() and not reading.lane.stalled}
        return [train_id for train_id in train_ids
                if (reading := self.reading.get(train_id)) is not None and reading.future.done()]

    def shown(self, view: JobView) -> JobView:
        """`view` as published: marked `reconnecting` while its lane is failing."""
        if self._lane_of is None:
            return view
        lane = self._lane_of(view.path)
        failing = lane is not None and lane.failing
        return view if view.reconnecting == failing else replace(view, reconnecting=failing)

    def marks(self, views: dict[str, JobView]) -> dict[str, JobView]:
        """The views whose `reconnecting` mark is no longer so, marked again, by train id."""
        if self._lane_of is None:
            return {}
        remarked = {}
        for train_id, view in views.items():
            shown = self.shown(view)
            if shown is not view:
                remarked[train_id] = shown
        return remarked
