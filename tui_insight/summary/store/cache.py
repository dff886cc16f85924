"""The one shared, reloading, bounded summary cache of a log directory.

All loading runs through the cache's scheduler (`scheduler.py`), one item at a time (a remote
job of several LOGDIRs is read on its source's lane: `lanes.py`): reloads, polls, holds, and
callers' own `reload()` or `load_job()` (on the caller's thread when the scheduler is idle). What readers see is a
`JobView` per job: immutable, replaced whole when the job changes, so a screen or the exporter
always reads a consistent state while loading goes on.
Subscribers are told what changed (which jobs, which plugin/tag pairs) after each job is
refreshed, on the thread doing the item."""
from __future__ import annotations

import bisect
import logging
import os
import threading
import time
from collections import deque
from concurrent.futures import CancelledError, Future
from types import MappingProxyType
from typing import Callable, Hashable, Iterable, Iterator, Mapping, Sequence

from ...escape import shown
from .. import gc_policy, limits
from ..formats.file_names import classify
from ..formats.layouts import LayoutBook
from ..formats.mixed_layouts import MixedBook
from ..formats.payloads import PayloadStore
from ..gc_policy import CollectorPause
from ..sources.discovery import Discovery, FoundJob, rediscover, restored_listings, saved_listings
from ..sources.local import LocalSource, Source
from ..sources.poll import PollTable
from .budget import DEFAULT_BUDGET, DetailBudget
from .disk_cache import DiskCache, inside
from .file_state import describe
from .job_view import Changes, JobView, LoadProgress
from .lanes import LaneReads
from .loader import JobLoader
from .pool import BATCH_JOBS, BIG_JOB_BYTES, MIN_JOBS
from .pooled_loads import PooledLoads
from .scheduler import Call, Poll, Reload, Scheduler, ServeHolds, Work
from .snapshot import decode, encode, header_end
from .waiting import wait_loaded
from .wakeups import Wakeups, next_poll

RESTORED_NOTICE_SECONDS = 0.05  # jobs listed from the disk cache are announced together at most this often
FIRST_LISTED = 128  # jobs (a screenful, by id) listed from the disk cache before new jobs are announced
TRIM_EVERY = 250  # jobs shelved between two returns of the freed heap (`gc_policy.trim`: ~1 ms)
# A run being written sends a change notice at every flush (10 a second for a training loop that
# flushes every 10 steps): after reloading on a notice, the ones that follow within this many
# seconds are gathered (the watcher keeps them) and read in one reload.
# Directory listings are kept for the next start at most this often: keeping them rewrites the
# whole index (14 MB for 5,000 jobs, ~0.1 s), and a listing kept late is only relisted then.
LISTINGS_SAVE_SECONDS = 60.0
LIVE_RELOAD_SECONDS = 0.4
log = logging.getLogger(__name__)


Subscriber = Callable[[Changes], None]


class SummaryCache(PooledLoads):
    """Jobs of one log directory, loaded in the background and read as snapshots.

    Memory: every job keeps what the job list shows; the series of a job ("details") are kept
    while someone holds the job (`hold`) and after that while they fit `memory_budget` bytes,
    least recently used out first. A job without details in memory is published with
    `detailed=False` and an empty `tags`; holding it brings them back.

    `disk_cache` (a `DiskCache`, None for none) keeps each job's snapshot between runs: a job
    whose files only grew since is restored from it and reads only what was appended.
    `workers` > 1 reads the first load of jobs in that many processes (`start_processes` starts
    them ahead of the first pass).
    `every_step`: plugins whose series keep every step in the files, after the same restart
    rules, instead of MindInsight's limits (the public API's `all_steps`; no disk cache then,
    whose snapshots hold the limited series).
    """

    def __init__(self, logdir: "str | os.PathLike | Source", payload_bytes: int = limits.PAYLOAD_CACHE_BYTES,
                 clock: Callable[[], float] = time.time, memory_budget: int = DEFAULT_BUDGET,
                 disk_cache: DiskCache | None = None, workers: int = 1, every_step: frozenset[str] = frozenset()):
        # `logdir`: a local path, or a `Source` (a remote tree); `logdir` is then its location.
        self.source: Source = LocalSource(os.fspath(logdir)) if isinstance(logdir, (str, os.PathLike)) else logdir
        self.logdir = self.source.root if self.source.is_local else self.source.location
        self.clock = clock  # tells a file still being written from one cut short (tests fix it)
        self.payloads = PayloadStore(payload_bytes, self.source)
        self._where = "" if self.source.is_local else self.source.location  # keys the disk cache's entries
        self.progress = LoadProgress()
        self._notes: list[str] = []  # problems of the cache itself (the disk cache, a loading process)
        self.problems: tuple[str, ...] = ()  # directory-level problems of the last scan, and the notes
        self.error: str = ""  # set when LOGDIR itself cannot be read
        self._every_step = every_step
        if every_step:
            disk_cache, workers = None, 1  # snapshots and loading processes keep the limits
        self.disk = disk_cache
        if disk_cache is not None and self.source.is_local and inside(disk_cache.root, self.logdir):
            self.disk = None  # nothing is ever written inside LOGDIR
            self._note(f"the cache directory {disk_cache.root} is inside LOGDIR: it is not used")
        self._index_read = False  # the disk cache's index of this LOGDIR was read (on the first pass)
        self._budget = DetailBudget(memory_budget)
        self._shelved = 0  # jobs `_shelve`d
        self._start_pool(workers, self.source)
        self._urgent: tuple[str, ...] = ()  # the latest held jobs: read first (`hold`)
        self._published = threading.Condition()  # notified whenever a view is replaced (`details`)
        self._loaders: dict[str, JobLoader] = {}
        self._layout_book = LayoutBook()  # event layouts, shared by all jobs (a sweep repeats them)
        self._tb_layout_book = LayoutBook(dialect="tensorboard")  # ... of TensorBoard events
        self._mixed_books = (MixedBook(), MixedBook("tensorboard"))  # ... of events holding histograms
        self._last_saved: tuple[JobLoader, bytes] | None = None  # the last job `_save` wrote, and its header
        self._views: dict[str, JobView] = {}  # replaced whole when jobs come or go (`_set_views`)
        self._jobs: Mapping[str, JobView] = MappingProxyType(self._views)
        self._subscribers: list[Subscriber] = []
        self._scheduler = Scheduler(self._do, "summary-cache")  # where all loading runs
        self._stop = threading.Event()  # set by `stop`: the watching thread ends
        self._watcher: threading.Thread | None = None  # `start`'s: turns file changes and time into work
        self._listings: dict = {}  # directory listings discovery may reuse (kept in the disk cache's index)
        self._listings_saved = 0  # how many the disk cache holds
        self._listings_saved_at = -LISTINGS_SAVE_SECONDS  # time.monotonic() of the last keep_listings
        self._hint: tuple[str, ...] = ()  # jobs to read first (`prioritize`)
        self._reading: JobLoader | None = None  # the job being read in this process (`hold` hurries it)
        self._pause = CollectorPause()  # the collector's pause during the current full pass (`reload`)
        self._found: dict[str, FoundJob] = {}  # the last full discovery
        self._dirs: tuple[dict[str, str], list[str]] | None = None  # `_job_dirs`, made again when jobs come or go
        self._poll: PollTable | None = None  # the full poll's files of settled jobs (`_unsettled`), ditto
        self._polls = 0  # background polls so far: their turn in looking at finished runs (`poll.Rotation`)
        self._unsettled_jobs: set[str] = set()  # `JobLoader.unsettled`, shared by the loaders and the table
        self._lanes = LaneReads(self.source, lambda run: None if self._stop.is_set() else self._scheduler.submit(Call(run)),
                                lambda loader, changes, total, first: self._published_refresh(loader, changes, total, first))
        self._background = False  # the item being done is the scheduler's own (a caller's waits for its lanes)

    # -- reading --------------------------------------------------------------------------

    @property
    def jobs(self) -> Mapping[str, JobView]:
        """Every job's current view, by train id (sorted); read-only."""
        return self._jobs

    def job(self, train_id: str) -> JobView | None:
        return self._views.get(train_id)

    @property
    def memory_budget(self) -> int:
        """Bytes of details kept for jobs nobody holds."""
        return self._budget.max_bytes

    @property
    def workers(self) -> int:
        """Processes reading first loads (1: none, all in this process)."""
        return self._pool.workers if self._pool is not None else 1

    @property
    def loading_thread(self) -> threading.Thread | None:
        """The scheduler's own thread (background loading), None while it has no work."""
        return self._scheduler.thread

    def subscribe(self, callback: Subscriber) -> Callable[[], None]:
        """Call `callback(changes)` (on the loading thread) after each change; returns unsubscribe."""
        self._subscribers.append(callback)
        return lambda: self._subscribers.remove(callback) if callback in self._subscribers else None

    def _note(self, text: str) -> None:
        """A problem of the cache itself: logged, and listed with the directory's problems."""
        log.warning("%s: %s", shown(self.logdir), shown(text))
        if text not in self._notes:
            self._notes = [*self._notes[-4:], text]
            self.problems = (*[p for p in self.problems if p != text], text)

    # -- details on demand ----------------------------------------------------------------

    def hold(self, owner: Hashable, train_ids: Iterable[str]) -> None:
        """Keep these jobs' details in memory while `owner` (a screen...) shows them: never
        evicted, and brought back first if they were (published with a `Changes` naming all
        their tags). Replaces the owner's earlier hold. Safe to call from any thread."""
        ids = tuple(dict.fromkeys(train_ids))
        self._budget.hold(owner, ids)
        self._budget.touch(ids)
        self._urgent = ids  # not read yet: read them next
        reading = self._reading
        if reading is not None:
            reading.publish_soon()  # a big job being read serves the hold after its next batch
        self._scheduler.submit(ServeHolds())

    def release(self, owner: Hashable) -> None:
        """The owner no longer shows its jobs: they may be evicted (the last, being just used)."""
        self._budget.touch(self._budget.release(owner))
        self._scheduler.submit(ServeHolds())

    def details(self, train_id: str, timeout: float = 120.0) -> JobView | None:
        """The job's view with its details (`detailed`), brought back if they were evicted; None
        for an unknown job. Blocks until the loading thread has served it: on that thread (in a
        subscriber) it raises RuntimeError, as it would wait for itself."""
        if self._scheduler.on_thread():
            raise RuntimeError(f"SummaryCache.details({train_id!r}) called on the loading thread (from a "
                               "subscriber?): it would wait for that thread; use cache.job() there, or hold()")
        owner = ("details", object())
        self.hold(owner, [train_id])
        deadline = time.monotonic() + timeout
        try:
            with self._published:
                while True:
                    view = self._views.get(train_id)
                    remaining = deadline - time.monotonic()
                    if view is None or view.detailed or remaining <= 0:
                        return view
                    self._published.wait(min(remaining, 0.5))
        finally:
            self.release(owner)

    def _serve_holds(self) -> None:
        try:
            self._serve_held(Changes())
            self._enforce_budget()
        except Exception:
            log.exception("bringing back the details of held jobs of %s failed", shown(self.logdir))

    def _serve_held(self, total: Changes) -> None:
        """Bring back the details of held jobs that were evicted."""
        for train_id in sorted(self._budget.held()):
            loader = self._loaders.get(train_id)
            if loader is None or loader.detailed or loader.found is None \
                    or self._lanes.held_up(train_id, loader.path):  # being read on its lane, or stalled
                continue
            found = loader.found
            stats = loader.stat_files(found)
            self._restore_details(loader, found, stats)
            if self._lanes.used and self._read_on_lane(loader, found, stats, first=True):
                continue  # a remote job: read on its lane (published "first": every tag redrawn)
            changes = loader.refresh(found, self.payloads, self.progress, stats)
            changes.updated.setdefault(train_id, set()).update(loader.tags)  # open views redraw every tag
            self._published_refresh(loader, changes, total, first=False)

    def _restore_details(self, loader: JobLoader, found: FoundJob,
                         stats: Mapping[str, os.stat_result | OSError]) -> None:
        """Give a job without details its series back: from the disk cache when its entry fits
        the files (the refresh that follows reads what was appended since), else from scratch."""
        snapshot = self.disk.load(loader.path, details=True, where=self._where) if self.disk is not None else None
        if snapshot is not None and loader.fits(snapshot, found, stats):
            loader.install(snapshot, from_disk=True)
        else:
            loader.start_over()

    def _restore_listed(self, loader: JobLoader, found: FoundJob,
                        stats: Mapping[str, os.stat_result | OSError]) -> bool:
        """A job seen for the first time: listed from its disk cache entry's header when it fits.
        True when the job is then exactly what the header read (published: nothing to read);
        False when there is something to read (from the header on, when it fits)."""
        snapshot = self.disk.load(loader.path, details=False, where=self._where) if self.disk is not None else None
        if snapshot is None:
            return False
        if loader.list_settled(snapshot, found, stats):  # most jobs of a warm start: the short way
            return True
        if loader.fits(snapshot, found, stats):
            loader.install(snapshot, from_disk=True)
            return loader.settle_listed(found, stats)
        return False

    def _hand_over(self, changes: Changes, total: Changes) -> None:
        """Tell subscribers about views already in place (`_set_view`, or set without waking
        anyone waiting for a view)."""
        if changes:
            with self._published:
                self._published.notify_all()
            total.merge(changes)
            self._notify(changes)

    def _published_refresh(self, loader: JobLoader, changes: Changes, total: Changes, first: bool) -> None:
        """After a refresh: save a first load, or a job read from scratch, to the disk cache,
        count the details against the budget, evict if over, then publish (whoever waits for
        this view finds the budget kept)."""
        train_id = loader.train_id
        if first:  # restored or installed without reading: still news, for every tag
            changes.updated.setdefault(train_id, set()).update(loader.tags)
        if loader.detailed and loader.view.loaded:
            if (first or loader.saved is None) and loader.unsaved:
                self._save(loader)
            if first:
                self._budget.touch([train_id])
        if loader.detailed:
            self._budget.set_size(train_id, loader.detail_bytes())
        self._enforce_budget()
        if changes or self._views.get(train_id) is not loader.view:
            self._publish(train_id, loader.view, changes)
            total.merge(changes)

    def _save(self, loader: JobLoader) -> bytes | None:
        """Write the job's snapshot to the disk cache: its bytes, or None when it was not written."""
        if self.disk is None:
            return None
        data = encode(loader.snapshot())
        if not self.disk.save(loader.path, data, self._where):
            return None
        loader.mark_saved()
        self._last_saved = (loader, data[:header_end(data)])  # (`_shelve` keeps its header's digests)
        return data

    def _enforce_budget(self) -> None:
        """Evict the details of the least recently used jobs nobody holds until the rest fit."""
        for train_id in self._budget.victims():
            loader = self._loaders.get(train_id)
            if self._lanes.busy(train_id):
                continue  # its lane's until it lands
            if loader is not None and loader.detailed:
                if loader.unsaved:
                    self._save(loader)  # what was read since the last save is not read again
                loader.drop_details()
                self._publish(train_id, loader.view)  # no notice: what the job list shows is the same
            self._budget.drop(train_id)

    # -- loading --------------------------------------------------------------------------

    def reload(self) -> Changes:
        """One pass: discover jobs, read what was appended, publish; every directory and file is
        looked at. Safe to call from any thread (done through the scheduler)."""
        return self._scheduler.call(self._full_pass)

    def poll(self) -> Changes:
        """`reload` as the background loop does it: directories and files unchanged for a while
        (finished runs) are looked at in turn, a tenth at each poll (`poll.Rotation`), so an idle
        poll of thousands of finished runs costs a fraction of looking at all of them. Safe to
        call from any thread."""
        return self._scheduler.call(self._poll_pass)

    def reload_changed(self, paths: Iterable[str]) -> Changes:
        """Reload only the jobs whose directories hold `paths` (file change notices); a full
        `reload` when a path may mean a new or removed job. Safe to call from any thread."""
        paths = frozenset(paths)
        return self._scheduler.call(lambda: self._changed_pass(paths))

    def _do(self, work: Work) -> Changes | None:
        """One item of the scheduler's work (on its thread, or a caller's when it was idle)."""
        if isinstance(work, ServeHolds):
            self._serve_holds()
            return None
        if isinstance(work, Call):
            return work.run()
        self._background = True  # the loop's own pass: it never waits for a lane
        try:
            return self._poll_pass() if isinstance(work, Poll) else self._changed_pass(work.paths) \
                if work.paths is not None else self._full_pass(keep=work.first)
        finally:
            self._background = False

    def _full_pass(self, keep: bool = False) -> Changes:
        """`keep`: the loop's first pass, whose objects stay out of collections for a while."""
        with CollectorPause(self if keep else None) as self._pause:
            return self._reload()

    def _poll_pass(self) -> Changes:
        with CollectorPause() as self._pause:
            self._polls += 1
            return self._reload(turn=self._polls)

    def _changed_pass(self, paths: frozenset[str]) -> Changes:
        jobs = self._jobs_at(paths)
        if jobs is None:
            return self._reload()
        found = {}
        for train_id in jobs:
            loader = self._loaders[train_id]
            job = rediscover(loader.path, train_id, self._listings)
            if job is None:
                return self._reload()
            found[train_id] = job
        return self._reload(found)

    def _jobs_at(self, paths: Iterable[str]) -> set[str] | None:
        """Train ids of the job directories holding `paths`; None when that is not clear."""
        paths = list(paths)
        if len(paths) > 256 or not self._loaders:
            return None
        dirs, ordered = self._job_dirs()

        def holds_jobs(path: str) -> bool:  # a job directory below `path` (they sort together)
            prefix = path + os.sep
            i = bisect.bisect_left(ordered, prefix)
            return i < len(ordered) and ordered[i].startswith(prefix)

        jobs = set()
        for path in paths:
            if classify(os.path.basename(path)) is None and not os.path.isdir(path) and not holds_jobs(path):
                continue  # a checkpoint, a log...: no job file, and no job went with it
            for candidate in (path, os.path.realpath(path)):
                if candidate in dirs:  # the job directory itself: its entries changed
                    jobs.add(dirs[candidate])
                    break
                parent = os.path.dirname(candidate)
                if parent in dirs and not os.path.isdir(candidate):
                    if holds_jobs(candidate):
                        return None  # a directory that held jobs went
                    jobs.add(dirs[parent])
                    break
            else:
                return None
        return jobs

    def _job_dirs(self) -> tuple[dict[str, str], list[str]]:
        """Each job's directory (-> its train id), and them sorted: a notice costs no pass over all jobs."""
        if self._dirs is None:
            dirs = {loader.path: train_id for train_id, loader in self._loaders.items()}
            self._dirs = (dirs, sorted(dirs))
        return self._dirs

    # -- one job at a time (a streaming export) ---------------------------------------------

    def discover_jobs(self) -> list[str]:
        """Find the jobs (listed as "loading") without reading any file; their train ids, sorted."""
        def discover() -> list[str]:
            self._reload(read=False)
            return sorted(self._loaders)
        return self._scheduler.call(discover)

    def load_job(self, train_id: str) -> JobView | None:
        """Read one job found by the last discovery; its view, or None if it is unknown."""
        return self._scheduler.call(lambda: self._load_one(train_id))

    def _load_one(self, train_id: str) -> JobView | None:
        found = self._found.get(train_id)
        if found is None or train_id not in self._loaders:
            return None
        self._budget.hold(_LOADING_ONE, [train_id])  # kept in memory for the caller whatever its size
        try:
            self._reload(only={train_id: found})
            self._serve_held(Changes())  # read before and evicted since: its details back
            return self._lanes.shown(view) if (view := self._views.get(train_id)) is not None else None
        finally:
            self._budget.release(_LOADING_ONE)

    def forget(self, train_id: str) -> None:
        """Drop what was read of a job (memory): it is listed as not loaded, as if just found."""
        self._scheduler.call(lambda: self._forget(train_id))

    def _forget(self, train_id: str) -> None:
        loader = self._loaders.get(train_id)
        if loader is not None:
            self._loaders[train_id] = self._new_loader(train_id, loader.path)
            self._budget.drop(train_id)
            self._set_view(train_id, self._loaders[train_id].view)

    def _reload(self, only: dict[str, FoundJob] | None = None, read: bool = True, turn: int | None = None) -> Changes:
        total = Changes()
        self.progress.loading = True
        try:
            if self.disk is not None and read and not self._index_read:
                self._index_read = True
                self.disk.use_index(self.logdir, self._where)  # the jobs' headers, and the directory listings, in one file
                if self.source.is_local:  # a remote source lists its whole tree at each reload
                    self._listings = restored_listings(self.disk.saved_listings())
                self._listings_saved = len(self._listings)
            if only is not None:
                found = Discovery(only, list(self.problems))
            else:
                try:
                    found = self.source.discover(self._listings, turn)
                    self.error = ""
                except OSError as exc:
                    self.error = f"cannot read {self.logdir}: {describe(exc)}"
                    found = Discovery({}, [])
            self.problems = (*[p for p in found.problems if p not in self._notes], *self._notes)
            for train_id, view in (remarked := self._lanes.marks(self._views)).items():  # a host stalled or back
                self._set_view(train_id, view)
            self._hand_over(Changes(updated={train_id: set() for train_id in remarked}), total)
            if only is None:
                self._found = found.jobs
            if only is None and found.jobs.keys() == self._loaders.keys():
                removed = added = set()  # the same jobs (an idle poll): no sets of thousands built
            else:
                known = set(self._loaders) if only is None else set(only)
                removed = known - set(found.jobs)
                added = {train_id for train_id in found.jobs if train_id not in self._loaders}
            for train_id in removed:
                del self._loaders[train_id]
                self._budget.drop(train_id)
            for train_id in added:
                self._loaders[train_id] = self._new_loader(train_id, found.jobs[train_id].path)
            self.progress.jobs_found = len(self._loaders)
            stats = self._stat_restorable(added, found.jobs) if read else {}
            # The first screenful of jobs (by id, the list's order) listed from the disk cache
            # before anyone is told of the new jobs: the job list's first rows come read.
            listed = {tid for tid in sorted(stats)[:FIRST_LISTED] if only is None
                      and self._restore_listed(self._loaders[tid], found.jobs[tid], stats[tid])}
            if added or removed:
                self._dirs = None
                # New jobs show up at once (state "loading"), before their files are read.
                self._set_views()
                first = Changes(added=added, removed=removed, updated={tid: set() for tid in listed})
                total.merge(first)
                self._notify(first)
            jobs = found.jobs if read else {}
            if listed:
                jobs = {tid: job for tid, job in jobs.items() if tid not in listed}
            loaded = len(listed) + self._read_jobs(jobs, total, full=only is None, stats=stats, turn=turn)
            if only is None and read:
                self.progress.jobs_loaded = loaded
                self.progress.reloads += 1
                if self.disk is not None:
                    if (found.listed or len(self._listings) != self._listings_saved) \
                            and time.monotonic() - self._listings_saved_at >= LISTINGS_SAVE_SECONDS:
                        self.disk.keep_listings(saved_listings(self._listings))  # reused at the next start
                        self._listings_saved = len(self._listings)
                        self._listings_saved_at = time.monotonic()
                    self.disk.write_index(self._job_dirs()[1])
        finally:
            self.progress.loading = False
        return total

    def _stopping(self) -> bool:
        return self._scheduler.stopping

    def _new_loader(self, train_id: str, path: str) -> JobLoader:
        layouts, tb_layouts = self._lanes.books(path, (self._layout_book, self._tb_layout_book))
        # (a lane's thread reads with its own books: the mixed ones are the loading thread's)
        mixed = self._mixed_books if layouts is self._layout_book else None
        return JobLoader(train_id, path, self.clock, layouts, tb_layouts, self.source, self._unsettled_jobs,
                         self._every_step, mixed)

    def _read_on_lane(self, loader: JobLoader, item: FoundJob, stats: dict[str, os.stat_result | OSError],
                      first: bool) -> bool:
        """Hand a remote job's read to its source's lane (`lanes.py`); False when it has none."""
        if (lane := self._lanes.lane(item.path)) is None:
            return False
        if not loader.detailed and loader.needs_reading(item, stats):
            self._restore_details(loader, item, stats)
        self._lanes.start(lane, loader, lambda progressed: loader.refresh(item, self.payloads, self.progress, stats,
                                                                          progressed), first, self._loaders,
                          lambda partial: self._publish(loader.train_id, loader.view, partial))
        return True

    def _stat_restorable(self, added: set[str], jobs: Mapping[str, FoundJob]) -> dict[str, dict]:
        """The `stat_files` of the new jobs the disk cache lists, taken in one loop before anyone
        is told of them. Taken job by job between restores, each stat (which lets go of the GIL)
        waited for the UI thread, then busy with the rows of the jobs restored so far, to let go
        of it in turn (up to 5 ms: `sys.getswitchinterval`): 10,000 stats took 1.5 s of a warm
        start of 5,000 jobs instead of 50 ms. (Jobs to be read get their stat at their turn: a
        first load may come minutes later, and a stat that old would miss what was appended.)"""
        if self.disk is None or not added:
            return {}
        return {train_id: self._loaders[train_id].stat_files(jobs[train_id])
                for train_id in added if self.disk.has_header(self._loaders[train_id].path)}

    def _read_jobs(self, jobs: Mapping[str, FoundJob], total: Changes, full: bool,
                   stats: Mapping[str, dict[str, os.stat_result | OSError]] | None = None,
                   turn: int | None = None) -> int:
        """Bring every job of `jobs` up to date, in `_order`; on a `full` pass over enough jobs,
        first loads go to the process pool when there is one. Held jobs without details are
        served between jobs. The number of jobs done (counted in the progress on a full pass).
        `stats`: some jobs' `stat_files`, taken earlier in this reload."""
        stats_taken = stats or {}
        pooled = full and len(jobs) >= MIN_JOBS
        count = len(jobs)
        if full:
            jobs = self._unsettled(jobs, turn)
        pending: dict[Future, tuple[list[FoundJob], int]] = {}  # first loads in the pool (and its generation)
        batch: list[FoundJob] = []  # first loads for the pool, not sent yet (`BATCH_JOBS` at once)
        sent = 0  # jobs sent to the pool in this pass
        # Until the pool's first answer (its processes start: ~0.3 s on 2 cores), jobs that find
        # its queue full are read here instead of waiting: the first rows need no process.
        answered = False
        handed: list[str] = []  # jobs read on their sources' lanes (`_read_on_lane`)
        shelved = self._shelved
        # Jobs listed from the disk cache with nothing to read: one notice per batch, not per job.
        restored, restored_by = Changes(), time.monotonic() + RESTORED_NOTICE_SECONDS
        done = count - len(jobs)
        try:
            for item in self._order(jobs):
                if self._stopping():
                    break
                if full:
                    self.progress.jobs_loaded = done
                    self._pause.check()
                if self._budget.holding:
                    self._serve_held(total)
                if pending:
                    installed = self._install_done(pending, total, block=False)
                    done += installed
                    answered = answered or installed > 0
                loader = self._loaders[item.train_id]
                if self._lanes.used and self._lanes.held_up(item.train_id, item.path):
                    continue  # read on its lane now, or behind a host that does not answer
                file_stats = loader.unchanged(item, stats_taken.get(item.train_id))
                if file_stats is None:
                    done += 1
                    continue  # no file of the job changed: no work, nothing published
                first = not loader.view.loaded
                if first and not loader.files:
                    if self._restore_listed(loader, item, file_stats):
                        restored.updated[item.train_id] = set()
                        if item.train_id in self._views:  # in place, waking `details` waiters once per batch (`_hand_over`)
                            self._views[item.train_id] = loader.view
                        else:
                            self._set_view(item.train_id, loader.view)
                        if time.monotonic() >= restored_by:  # a notice for the batch so far
                            self._hand_over(restored, total)
                            restored, restored_by = Changes(), time.monotonic() + RESTORED_NOTICE_SECONDS
                        done += 1
                        continue
                if self._lanes.used and self._read_on_lane(loader, item, file_stats, first):
                    handed.append(item.train_id)
                    continue
                if pooled and self._pool is not None and self._pool.takes(loader, item, file_stats) \
                        and (answered or len(pending) < 2 * self._pool.workers):
                    batch.append(item)
                    if len(batch) < (1 if sent < 2 * self._pool.workers else BATCH_JOBS):
                        continue  # the first tasks one job each (the first rows), then `BATCH_JOBS` a task
                    while len(pending) >= 2 * self._pool.workers and not self._stopping():
                        done += self._install_done(pending, total, block=True)
                    sent += len(batch)
                    done += self._send(batch, pending, total)
                    batch = []
                    continue
                self._read_in_process(loader, item, file_stats, total, first)
                if first and pooled:
                    self._shelve(loader, file_stats)
                done += 1
            if batch and not self._stopping():
                done += self._send(batch, pending, total)
            while pending and not self._stopping():
                done += self._install_done(pending, total, block=True)
                if full:
                    self.progress.jobs_loaded = done
            if handed and not self._background:  # a caller's pass: what its lanes read, unless stalled
                done += self._lanes.land_waited(handed, self._loaders, total)
        finally:
            self._hand_over(restored, total)
            for future in pending:
                future.cancel()
            self._ahead = False  # (processes started after a pass would wait for the next one)
            if self._pool is not None and (sent or self._pool.running):
                self._pool.close()  # idle workers hold memory; later first loads start new ones
            if self._shelved != shelved:
                gc_policy.trim()
        return done

    def _unsettled(self, jobs: Mapping[str, FoundJob], turn: int | None = None) -> dict[str, FoundJob]:
        """`jobs` but the settled ones whose files each have the same stat (`PollTable`): an idle
        full poll ends here. The jobs left are checked again one by one, in turn, by `unchanged`."""
        if self._poll is None or not self._poll.fits(jobs):
            self._poll = PollTable(jobs, self._loaders, self._unsettled_jobs)
        if not self.source.is_local:  # its stats come from this reload's listing: comparing all is free
            return self._poll.left(jobs, self.source.stat)
        return self._poll.left(jobs, os.stat, turn)  # (the local source's stat is os.stat)

    def _read_in_process(self, loader: JobLoader, item: FoundJob, stats: dict[str, os.stat_result | OSError],
                         total: Changes, first: bool) -> None:
        if not loader.detailed and loader.needs_reading(item, stats):
            self._restore_details(loader, item, stats)  # an evicted job that grew: read, publish, evict again
        def progressed(partial: Changes) -> None:
            self._progressed(loader, partial)

        self._reading = loader
        try:
            changes = loader.refresh(item, self.payloads, self.progress, stats, progressed)
        finally:
            self._reading = None
        self._published_refresh(loader, changes, total, first)

    def _shelve(self, loader: JobLoader, stats: Mapping[str, os.stat_result | OSError]) -> None:
        """A first load of a big pass read here, as the pool's are: its series go to the disk
        cache and only its header stays, unless someone holds it or it is big. (Kept, they would
        fill the memory budget before the least recently used left: a sweep of 1,000 runs read
        with one process held 268 MB of series nobody had opened.)"""
        size = sum(st.st_size for st in stats.values() if isinstance(st, os.stat_result))
        if (self.disk is None or not loader.detailed or loader.train_id in self._budget.held()
                or size > BIG_JOB_BYTES):
            return
        data = self._save(loader) if loader.unsaved else None
        if data is None and self._last_saved is not None and self._last_saved[0] is loader and not loader.unsaved:
            data = self._last_saved[1]  # saved as the refresh published it: that header
        self._last_saved = None
        if loader.saved is None:
            return  # not on disk: the budget keeps it or lets it go, as for any job
        # As a pool's job: the header's digests, bytes until read (the digests just made held
        # 6 kB more a job: 30 MB of a 5,000-run sweep).
        header = decode(data, details=False) if data is not None else None
        if header is not None:
            self.disk.decoded(loader.path, header)
        loader.drop_details(header)
        self._shelved += 1
        if self._shelved % TRIM_EVERY == 0:
            gc_policy.trim()  # (their pages are scattered between what stays: glibc keeps them)
        self._budget.drop(loader.train_id)
        self._publish(loader.train_id, loader.view)  # no notice: what the job list shows is the same

    def _progressed(self, loader: JobLoader, changes: Changes) -> None:
        """A job's view published while its files are still being read; and the jobs opened
        meanwhile served, so that opening one never waits for a big job to be read whole."""
        self._publish(loader.train_id, loader.view, changes)
        if self._budget.holding and any(not self._loaders[tid].detailed for tid in self._budget.held()
                                        if tid in self._loaders):
            self._budget.hold(_READING, [loader.train_id])  # its series are being built: never evicted now
            try:
                self._serve_held(Changes())
            finally:
                self._budget.release(_READING)

    def prioritize(self, train_ids: Sequence[str]) -> None:
        """A hint from any thread: read these jobs next (the rows a user sees, the filter's
        matches), in this order, before the rest. The latest hint replaces earlier ones; ids
        the cache does not know, or has read already, are ignored."""
        self._hint = tuple(train_ids)

    def _order(self, jobs: Mapping[str, FoundJob]) -> Iterator[FoundJob]:
        """The jobs of one pass, by train id (the job list's default order), held then hinted
        ones first, following the latest hold and hint while the pass goes on."""
        queue = deque(sorted(jobs))
        urgent_seen = hint_seen = None
        done: set[str] = set()
        while queue:
            urgent, hint = self._urgent, self._hint
            if hint is not hint_seen or urgent is not urgent_seen:
                urgent_seen, hint_seen = urgent, hint
                first = [tid for tid in dict.fromkeys((*urgent, *hint)) if tid in jobs and tid not in done]
                if first:
                    chosen = set(first)
                    queue = deque([*first, *(tid for tid in queue if tid not in chosen)])
            train_id = queue.popleft()
            if train_id in done:
                continue
            done.add(train_id)
            yield jobs[train_id]

    def _publish(self, train_id: str, view: JobView, changes: Changes | None = None) -> None:
        """Replace a job's view and tell subscribers (`changes`; None: nobody needs to know)."""
        self._set_view(train_id, view)
        if changes is not None:
            self._notify(changes)

    def _set_views(self) -> None:
        """A new mapping: jobs came or went (readers holding the old one keep a stable set)."""
        self._views = {tid: self._lanes.shown(self._loaders[tid].view) for tid in sorted(self._loaders)}
        self._jobs = MappingProxyType(self._views)
        with self._published:
            self._published.notify_all()

    def _set_view(self, train_id: str, view: JobView) -> None:
        """Replace one job's view. In place: the set of jobs is the same (readers iterating the
        mapping see each job's old view or its new one, each whole), and a copy of thousands of
        entries per job published would cost more than restoring a job from the disk cache."""
        views = self._views
        if train_id not in views:
            self._set_views()
            return
        views[train_id] = self._lanes.shown(view)
        with self._published:
            self._published.notify_all()

    def _notify(self, changes: Changes) -> None:
        for callback in list(self._subscribers):
            try:
                callback(changes)
            except Exception:  # a broken subscriber must not stop loading, but says what broke
                log.exception("a subscriber of the cache of %s failed on %s", shown(self.logdir), shown(repr(changes)))

    # -- the reload loop --------------------------------------------------------------------

    def start(self, interval: float = 3.0) -> None:
        """Load in the background, then reload on file changes and every `interval` s: a
        watching thread turns both into the scheduler's work. interval 0 loads once."""
        if self._watcher is not None:
            return
        self._stop.clear()
        self._watcher = threading.Thread(target=self._watch, args=(interval,), name="summary-cache-watch", daemon=True)
        self._watcher.start()

    def stop(self) -> None:
        """Stop watching and loading (the pass going on ends after its job); close the pool."""
        self._stop.set()
        self._scheduler.stop(last=self._pool.close if self._pool is not None else None)
        if self._watcher is not None:
            self._watcher.join(timeout=5)
            self._watcher = None

    def _watch(self, interval: float) -> None:
        if interval <= 0:
            self._waited(Reload())
            return
        try:
            self._waited(Reload(first=True))
            self._watch_on(interval)
        finally:
            gc_policy.release(self)  # (at once when the first pass failed or the cache stops)

    def _watch_on(self, interval: float) -> None:
        poll, last_full = interval, time.monotonic()
        wakeups = Wakeups(self.logdir, self.source.is_local, self._stop)
        for changed in wakeups.every(interval):
            if self._stop.is_set():
                return
            if changed:
                started = time.monotonic()
                self._thaw_on(self._waited(Reload(frozenset(changed))))
                self._stop.wait(max(0.0, started + LIVE_RELOAD_SECONDS - time.monotonic()))
                continue
            # A timeout. While change notices work, the full poll (a safety net for what
            # notices miss: network file systems, symlinked directories) backs off.
            if wakeups.watching and time.monotonic() - last_full < poll:
                continue
            changes = self._waited(Poll())
            self._thaw_on(changes)
            last_full = time.monotonic()
            poll = next_poll(poll, interval, bool(changes), wakeups.watching)

    def _thaw_on(self, changes: Changes | None) -> None:
        """The first pass's objects stay frozen while the logs do not change: an idle app's full
        collections then walk none of them (5,000 jobs: ~250,000 objects, ~0.2 s a pass, with a
        few hundred unreachable). The first change lets them go: what it replaces is collected."""
        if changes:
            gc_policy.release(self)

    def _waited(self, work: Reload | Poll) -> Changes | None:
        """`work` done by the scheduler, waited for: a failure is logged and the next wakeup
        tries again; None when it failed or was cancelled (the cache stops)."""
        try:
            return self._scheduler.submit(work).result()
        except CancelledError:
            return None
        except Exception:
            log.exception("reloading %s failed", shown(self.logdir))
            return None


_LOADING_ONE = "load_job"  # the hold of `load_job` on the job it reads
_READING = "reading"  # the hold on a job being read while held jobs are served (`_progressed`)

__all__ = ["SummaryCache", "wait_loaded"]
