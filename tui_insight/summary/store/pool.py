"""First loads of many jobs in worker processes (`SummaryCache(..., workers=N)`).

Each worker reads one job from scratch with a loader of its own and hands back the job's
snapshot (`summary/store/snapshot.py`): compact arrays, no pickled objects of ours. The loading thread
installs it and publishes the job. Workers are started with "forkserver" (or "spawn" where
there is none), never fork: the app has threads, and a forked child could inherit a lock held
by one of them. A worker that dies breaks the whole pool (`BrokenProcessPool`); `JobPool` then
starts a new one for later work, and the caller reads the lost jobs in its own process.
"""
from __future__ import annotations

import os
import threading
from concurrent.futures import Future
from typing import TYPE_CHECKING, Callable, Mapping

from ..sources.discovery import FoundJob

if TYPE_CHECKING:
    from concurrent.futures import ProcessPoolExecutor

    from .loader import JobLoader
# multiprocessing and the process executor are imported when a pool is made (10 ms of every
# start otherwise: a one-worker cache, the --summary and --export runs, never make one).

BIG_JOB_BYTES = 64 << 20  # bigger jobs are read in-process: their progress views fill the charts
MIN_JOBS = 8  # a pass over fewer jobs reads them in-process: starting processes would cost more
# Jobs sent to a worker at once: each task costs the app's process a round trip (pickling, a
# wake-up of the executor's threads, the GIL handed over and back), as much as installing the
# job; the first tasks of a pass hold one job each, so the first rows come as soon as before.
BATCH_JOBS = 8


def _context():
    import multiprocessing

    methods = multiprocessing.get_all_start_methods()
    ctx = multiprocessing.get_context("forkserver" if "forkserver" in methods else "spawn")
    if ctx.get_start_method() == "forkserver":
        # Workers start with the libraries the loader needs imported (half of its import time),
        # not with our modules: the forkserver imports its preload list from its own sys.path,
        # the current directory first (Python 3.11 does not give it ours), and a `tui_insight`
        # there was read instead of this one. Each worker takes our sys.path before its first job.
        ctx.set_forkserver_preload(["numpy", "google.protobuf.message", "google_crc32c", "orjson"])
    return ctx


_layouts = _tb_layouts = _mixed = None  # a worker's event layouts, shared by the jobs it reads (a sweep repeats them)


def warm() -> None:
    """In a worker: what its jobs need, made ready (the loader's modules imported, the books)."""
    global _layouts, _tb_layouts, _mixed
    if _layouts is None:  # this worker's first job
        from .. import gc_policy
        from ..formats.layouts import LayoutBook
        from ..formats.mixed_layouts import MixedBook
        from . import loader, snapshot  # noqa: F401 (imported now, not at the first job)

        gc_policy.reuse_freed_heap()
        _layouts, _tb_layouts = LayoutBook(), LayoutBook(dialect="tensorboard")
        _mixed = (MixedBook(), MixedBook("tensorboard"))


def many_jobs(logdir: str) -> bool:
    """Whether LOGDIR holds `MIN_JOBS` directories at its top (a sweep's runs, likely), seen
    before discovery walks it: one listing, no stat."""
    try:
        with os.scandir(logdir) as entries:
            return sum(1 for entry in entries if entry.is_dir()) >= MIN_JOBS
    except OSError:
        return False


def read_job(found: FoundJob, entry: str | None = None) -> tuple[bytes, int, int, tuple[int, int] | None]:
    """In a worker: read a job from scratch; (its snapshot, bytes read, files read, None). With
    `entry` (the disk cache's file for the job) the snapshot is written there and only its header
    comes back, with (the entry's size, the size of the one it replaced): 110 kB a job of a sweep
    no longer go through the pipe, nor are they written by the app's process. Should the write
    fail, the whole snapshot comes back as without `entry`."""
    from .disk_cache import write_file
    from .job_view import LoadProgress
    from .loader import JobLoader
    from .snapshot import encode_pieces

    warm()
    loader = JobLoader(found.train_id, found.path, layouts=_layouts, tb_layouts=_tb_layouts, mixed=_mixed)
    progress = LoadProgress()
    loader.refresh(found, None, progress)
    pieces = encode_pieces(loader.snapshot())  # (the prefix and header first: what comes back)
    if entry is not None:
        try:
            old = write_file(entry, pieces)
        except OSError:
            pass  # the app's process writes it, or says why it cannot
        else:
            return pieces[0], progress.bytes_read, progress.files_read, (sum(map(len, pieces)), old)
    return b"".join(pieces), progress.bytes_read, progress.files_read, None


def read_jobs(batch: list[tuple[FoundJob, str | None]]) -> list:
    """In a worker: `read_job` for each (job, entry) of `batch`, in order; a job whose read
    raised has the exception in its place (the others of the batch are not lost with it)."""
    results: list = []
    for found, entry in batch:
        try:
            results.append(read_job(found, entry))
        except Exception as exc:  # noqa: BLE001 (the caller reads that job in its own process)
            results.append(exc)
    return results


class JobPool:
    """A process pool started on first use, and again after it broke or was closed. Each start
    is a new generation: a future of an older one that never finished is lost, not waited for."""

    def __init__(self, workers: int):
        self.workers = workers
        self.disabled = False  # processes could not be started here: read in the caller's process
        self.generation = 0
        self._executor: ProcessPoolExecutor | None = None
        self._lock = threading.Lock()  # the executor is made by the loading thread or `start_ahead`'s
        # multiprocessing's resource tracker hands it our stderr when it starts: now, that is a
        # file; once a full-screen UI has replaced sys.stderr, it is not (and starting fails).
        from multiprocessing import resource_tracker

        try:
            resource_tracker.ensure_running()
        except Exception:  # noqa: BLE001 (the first submit says it, and reading goes on in-process)
            pass

    def submit(self, batch: list[tuple[FoundJob, str | None]]) -> tuple[Future, int]:
        """Read the jobs of `batch`, (job, its disk-cache entry or None), in a worker
        (`read_jobs`): (its future, the pool's generation). Raises BrokenProcessPool when a
        worker died since the last call."""
        with self._lock:
            executor = self._executor if self._executor is not None else self._new_executor()
        return executor.submit(read_jobs, batch), self.generation

    def _new_executor(self) -> "ProcessPoolExecutor":
        from concurrent.futures import ProcessPoolExecutor

        self._executor = ProcessPoolExecutor(max_workers=self.workers, mp_context=_context())
        self.generation += 1
        return self._executor

    @property
    def running(self) -> bool:
        """Whether processes were started (or are being started) and not closed since."""
        return self._executor is not None

    def start_ahead(self, logdir: str, cold: bool) -> None:
        """Start the workers now, on a thread of their own, when the first pass will be a `cold`
        load of `many_jobs`: their start (the forkserver's imports, then each worker's) goes on
        while discovery walks LOGDIR, not after. The pass closes them."""
        if not cold or self.disabled or self._executor is not None or not many_jobs(logdir):
            return
        with self._lock:
            if self._executor is not None:  # a pass's first `submit` made it meanwhile
                return
            executor = self._new_executor()

        def start() -> None:
            try:
                for _ in range(self.workers):  # (each submit starts a process: none is idle yet)
                    executor.submit(warm)
            except Exception:  # noqa: BLE001 (closed meanwhile, or cannot start: the first job's submit says why)
                with self._lock:
                    if self._executor is executor:
                        self._executor = None
                executor.shutdown(wait=False, cancel_futures=True)

        threading.Thread(target=start, name="loading-processes", daemon=True).start()

    def takes(self, loader: "JobLoader", item: FoundJob, stats: Mapping[str, os.stat_result | OSError]) -> bool:
        """A first load with nothing to go on (no snapshot) and not big: for the pool."""
        if self.disabled or loader.files or loader.view.loaded or not item.event_files:
            return False
        size = sum(st.st_size for st in (stats.get(name) for name in item.event_files) if isinstance(st, os.stat_result))
        return size <= BIG_JOB_BYTES

    def send(self, batch: list[tuple[FoundJob, str | None]], note: Callable[[str], None],
             died: Callable[[int], object]) -> tuple[Future, int] | None:
        """`submit`, in a new pool after `died(generation)` was told of a dead one; None when the
        processes cannot be started here (`note` says why; `disabled` from then on)."""
        from concurrent.futures import BrokenExecutor

        for _ in range(2):
            generation = self.generation
            try:
                return self.submit(batch)
            except BrokenExecutor:  # a worker died since the last submit: a new pool
                died(generation)
            except Exception as exc:  # noqa: BLE001 (the processes cannot be started here)
                reason = str(exc).strip().splitlines()[0] if str(exc).strip() else ""
                note(f"loading processes could not start ({type(exc).__name__}: {reason}); reading in one")
                self.disabled = True
                return None
        return None

    def live(self, generation: int) -> bool:
        """Is the pool of `generation` still the one at work, and whole? A job sent in the very
        moment a worker died may never be answered (the executor fails the jobs it knows of, and
        not one added while it does): the pool saying it is broken is then the only sign."""
        if generation != self.generation or self._executor is None:
            return False
        if getattr(self._executor, "_broken", False) or self._worker_exited():
            self.broke(generation)
            return False
        return True

    def _worker_exited(self) -> bool:
        """Whether a worker process exited (they exit only when shut down): the executor may not
        know, as a worker killed while sending its result leaves the executor's thread waiting
        for the rest of that result, for ever."""
        processes = getattr(self._executor, "_processes", None) or {}
        return any(process.exitcode is not None for process in list(processes.values()))

    def broke(self, generation: int) -> None:
        """A worker of `generation` died: if that is the current pool, the next `submit` starts a new one."""
        if generation == self.generation and self._executor is not None:
            executor, self._executor = self._executor, None
            # Ends the wait of an executor thread for a result its dead worker only began to
            # send (the read then fails and the executor fails its jobs, as for any broken pool).
            writer = getattr(getattr(executor, "_result_queue", None), "_writer", None)
            if writer is not None:
                writer.close()
            executor.shutdown(wait=False, cancel_futures=True)

    def close(self) -> None:
        """Stop the workers (idle processes hold memory); the next `submit` starts them again."""
        with self._lock:
            executor, self._executor = self._executor, None
        if executor is not None:
            executor.shutdown(wait=True, cancel_futures=True)
