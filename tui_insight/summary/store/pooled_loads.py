"""The summary cache's side of its loading processes (`pool.py`): when they start, what is
sent to them, and how what they read is installed and published.

`SummaryCache` takes these methods as a base class (`PooledLoads`): they read and change the
cache's own state (its loaders, disk cache, progress), on the loading thread."""
from __future__ import annotations

import logging
import os
# (BrokenExecutor: the process pool's error's base, without importing concurrent.futures.process
# and multiprocessing, 10 ms of a start that reads in this process)
from concurrent.futures import FIRST_COMPLETED, BrokenExecutor, Future, wait
from typing import TYPE_CHECKING, Mapping

from ...escape import shown
from ..sources.discovery import FoundJob
from .job_view import Changes, LoadProgress
from .pool import JobPool
from .snapshot import decode

if TYPE_CHECKING:
    from ..sources.local import Source
    from .disk_cache import DiskCache
    from .loader import JobLoader

log = logging.getLogger(__name__.rpartition(".")[0] + ".cache")  # (as the cache's own messages)


class PooledLoads:
    """First loads of a big pass read in worker processes, for `SummaryCache`."""

    _pool: JobPool | None
    _loaders: dict[str, JobLoader]
    disk: DiskCache | None
    _where: str
    logdir: str
    progress: LoadProgress

    if TYPE_CHECKING:  # the cache's own, which these methods call
        def _note(self, text: str) -> None: ...
        def _serve_held(self, total: Changes) -> None: ...
        def _shelve(self, loader: JobLoader, stats: Mapping[str, os.stat_result | OSError]) -> None: ...
        def _read_in_process(self, loader: JobLoader, item: FoundJob, stats: dict[str, os.stat_result | OSError],
                             total: Changes, first: bool) -> None: ...
        def _published_refresh(self, loader: JobLoader, changes: Changes, total: Changes, first: bool) -> None: ...

    def _start_pool(self, workers: int, source: Source) -> None:
        """The loading processes of a cache of `workers` > 1 (None for fewer, or a remote
        `source`: workers read locally), not started yet (`start_processes`)."""
        self._pool = JobPool(workers) if workers > 1 and source.is_local else None
        self._ahead = self._pool is not None  # `start_processes` may start them (no pass has ended)

    def start_processes(self) -> None:
        """Start the loading processes now when the first pass will be a cold load of a sweep
        (`JobPool.start_ahead`): their start (the forkserver's imports, then each worker's)
        overlaps discovery and the first jobs instead of following them. Once at most, before
        the first pass ends (a pass starts them anyway when it has jobs for them). The app calls
        it after its first paint: started with the cache, they took the machine's cores from the
        UI's imports and first paint (on 2 busy cores, a cold 5,000-run sweep's first paint came
        0.3 s later)."""
        if not self._ahead or self._pool is None:
            return
        self._ahead = False
        self._pool.start_ahead(self.logdir, cold=self.disk is None or not self.disk.has_index(self.logdir, self._where))

    def _send(self, batch: list[FoundJob], pending: dict[Future, tuple[list[FoundJob], int]], total: Changes) -> int:
        """`batch` sent to a loading process (in `pending`): 0; else its jobs read here, shelved: how many."""
        entries = [(item, self.disk.entry_to_write(item.path, self._where) if self.disk else None) for item in batch]
        sent = self._pool.send(entries, self._note, self._pool_died) if self._pool is not None else None
        if sent is not None:
            pending[sent[0]] = (batch, sent[1])
            return 0
        for item in batch:
            stats = self._loaders[item.train_id].stat_files(item)
            self._read_in_process(self._loaders[item.train_id], item, stats, total, first=True)
            self._shelve(self._loaders[item.train_id], stats)
        return len(batch)

    def _pool_died(self, generation: int) -> str:
        note = "a loading process died; its jobs were read again in this process"
        self._note(note)
        if self._pool is not None:
            self._pool.broke(generation)
        return note

    def _install_done(self, pending: dict[Future, tuple[list[FoundJob], int]], total: Changes, block: bool) -> int:
        """Install the first loads the pool has finished (waiting a little for one when `block`),
        in the order they were sent, and read here the ones a dead pool lost; how many."""
        if not pending:
            return 0
        finished = wait(list(pending), timeout=0.1, return_when=FIRST_COMPLETED)[0] if block else {f for f in pending if f.done()}
        count, alive = 0, {}  # (a pool's health: checked once a call, after a wait only; each check polls its workers)
        for future, (items, generation) in list(pending.items()):
            if future not in finished:
                if block and generation not in alive:
                    alive[generation] = self._pool is not None and self._pool.live(generation)
                if not block or alive[generation]:
                    continue
            del pending[future]
            for i, item in enumerate(items):
                self._install(future, i, item, generation, total)
            count += len(items)
        if block:
            self._serve_held(total)
        return count

    def _install(self, future: Future, i: int, item: FoundJob, generation: int, total: Changes) -> None:
        """The `i`th job of the batch `future` read: installed, or read here."""
        loader = self._loaders.get(item.train_id)
        if loader is None:
            return
        snapshot = None
        try:
            if future.cancel() or not future.done():  # its pool died before it ran, or while it did
                raise BrokenExecutor("lost with its pool")
            result = future.result()[i]
            if isinstance(result, Exception):
                raise result
            data, nbytes, nfiles, written = result
            # With a disk cache the series go there as they are (the worker wrote them) and only
            # the header is read here: most jobs of a big first load would be evicted at once anyway.
            if written is not None and self.disk is not None:
                self.disk.written(loader.path, data, *written)
                on_disk = True
            else:
                on_disk = self.disk is not None and self.disk.save(loader.path, data, self._where)
            snapshot = decode(data, details=not on_disk)
            if on_disk and self.disk is not None:
                self.disk.decoded(loader.path, snapshot)
        except BrokenExecutor:
            loader.notes.append(self._pool_died(generation))
        except Exception as exc:  # a bug in a worker: read the job here, and say why
            log.exception("reading %s in a loading process failed", shown(item.train_id))
            loader.notes.append(f"reading in a loading process failed ({type(exc).__name__}); read in this process")
        stats = loader.stat_files(item)  # now: the files may have grown since the worker read them
        # Nothing grew and nothing else to read: listed from the header, as a warm start lists it.
        settled = snapshot is not None and on_disk and loader.list_settled(snapshot, item, stats)
        if snapshot is not None and (settled or loader.fits(snapshot, item, stats)):
            if not settled:
                loader.install(snapshot, from_disk=on_disk)
            self.progress.bytes_read += nbytes
            self.progress.files_read += nfiles
        if settled:  # (no refresh that would read nothing)
            self._published_refresh(loader, Changes(), total, first=True)
        else:
            self._read_in_process(loader, item, stats, total, first=True)
