"""The job loader: reads a job's files from their saved offsets, routes each value to its
tag's bounded series, and publishes the job's `JobView`. One per job, used on one thread at a
time (the store's loading thread, or a worker process of the pool)."""
from __future__ import annotations

import os
import time
from collections import Counter
from dataclasses import asdict, replace
from types import MappingProxyType
from typing import TYPE_CHECKING, Any, Callable, Mapping, Sequence

import numpy as np

from ...wall_time import EARLIEST, LATEST
from .. import limits
from ..formats import tb_graphs
from ..formats.bulk_framing import RecordBatch, scan_batches
from ..formats.framing import ScanReport, frame
from ..formats.layouts import LayoutBook, unknown_tensors
from ..formats.lineage import JobLineage, read_lineage
from ..formats.payloads import PayloadStore
from ..formats.profiler_rank import profiler_rank
from ..formats.mindspore import MindSporeRouter
from ..formats.mixed_layouts import MixedBook
from ..formats.routed import CUSTOM_SCALARS, Problem, RoutedEvent, RoutedValue, Router
from ..formats.routing import routes
from ..sources.discovery import FoundJob
from ..sources.local import HEAD_BYTES, LOCAL, Source
from .digest import TagDigest, digests
from .file_state import FileReplaced, FileState, describe, file_kind, has_restart, head_bytes
from .file_state import newest_mtime, read_order, tensorboard_router, writer_closed
from .job_view import NO_TAGS, Changes, GraphSource, JobView, LoadProgress, TagKey, new_view
from .not_shown import EMBEDDINGS, WIDE_HISTOGRAMS, LeftOut, NotShown, NotShownBook
from .projector_book import ProjectorBook
from .scalar_block import ScalarBlock, bulk_rows
from .series import Series
from .snapshot import JobSnapshot
from .snapshot_fit import snapshot_fits, unchanged_files

if TYPE_CHECKING:
    from ..formats.custom_scalars import Layout
    from ..formats.tensorboard import HParams, TensorBoardRouter

MAX_HPARAMS_RECORDS = 100  # hparams records kept per job (a run writes one to three)
# Pending values between merges: bounds memory while loading. Counted in values, not bytes, so
# a MindSpore event of 50 values weighs as much as 50 TensorBoard events of one (twice its bytes);
# each merge costs a call per tag, whatever it holds. The bytes bound is for events of few
# values and long payloads (histograms, images: read on demand, pending as locators).
_MERGE_VALUES = 1 << 18
_MERGE_BYTES = 64 << 20
_BATCH_BYTES = 4 << 20  # bytes read and routed at once (bounds the memory of a batch)
PROGRESS_EVERY_SECONDS = 1.0  # a job's view is published this often while its files are read


_SHARED = ("seq", "step", "wall_time", "fid")  # the columns a block's tags share
_NO_RANKS = np.zeros(0, dtype=np.int64)  # (never written: `_file_ranks` makes a new array)
_NO_RANKS.flags.writeable = False


class JobLoader:
    """Loader-side state of one job. Used by the loading thread only."""

    def __init__(self, train_id: str, path: str, clock: Callable[[], float] = time.time,
                 layouts: LayoutBook | None = None, tb_layouts: LayoutBook | None = None,
                 source: Source = LOCAL, unsettled: set[str] | None = None, every_step: frozenset[str] = frozenset(),
                 mixed: tuple[MixedBook, MixedBook] | None = None):
        self.train_id = train_id
        # Layouts of events holding histograms, shared as `layouts` is (a sweep's runs repeat them:
        # learning them again per run cost a protobuf decode and a walk each); None: its own.
        self._mixed_books = mixed
        self.every_step = every_step  # plugins whose series keep every step (`SummaryCache`)
        self.source = source  # where the files are read from
        self.layouts = layouts if layouts is not None else LayoutBook()
        self.ms_router = MindSporeRouter()
        self.tb_layouts = tb_layouts if tb_layouts is not None else LayoutBook(dialect="tensorboard")
        self.path = path
        self.clock = clock
        # Train ids of the jobs whose `settled` went (a new loader's too), shared by the cache's
        # loaders: what the poll's table holds of them is no longer so (`poll.PollTable`).
        self.unsettled = unsettled if unsettled is not None else set()
        self._reset()
        self.view = new_view(train_id=train_id, path=path)
        self.found: FoundJob | None = None  # the job as the last refresh saw it
        self.detailed = True  # False: the series were dropped under the memory budget
        self.saved: tuple | None = None  # `_read_stamp()` of what the disk cache holds of the job
        self.notes: list[str] = []  # problems of this session only (never in a snapshot)
        self._lineage_sizes: tuple = ()
        self._stats: Mapping[str, os.stat_result | OSError] = {}  # this reload's stat of each file
        self._stamp: tuple = ()  # what the files were at the last refresh: unchanged -> no work
        self._next_stamp: tuple = ()
        self._found: FoundJob | None = None  # the job being refreshed, for progress views
        self._on_progress: Callable[[Changes], None] | None = None
        self._next_progress = 0.0
        self._hparams_published: tuple = ()  # the hparams records in the view's lineage
        self.projector = ProjectorBook()  # the embeddings its projector config names

    def _reset(self) -> None:
        self.files: dict[str, FileState] = {}
        self.tags: dict[TagKey, Series] = {}
        self.evicted: set[TagKey] = set()
        self.graphs: dict[str, GraphSource] = {}
        self.first_wall_time: float | None = None
        self.blocks: list[ScalarBlock] = []  # scalar values read since the last merge
        self._layouts: dict[tuple, tuple] = {}
        self.mixed, self.tb_mixed = self._mixed_books or (MixedBook(), MixedBook("tensorboard"))  # read in bulk
        self.seq = 0  # events read: orders values of different layouts
        self.changed: set[TagKey] = set()
        self.problems: list[str] = []
        self._pb_stamps: dict[str, tuple[int, float]] = {}  # .pb graph files: (size, mtime) when added
        # Names each TensorBoard tag's plugin on its first value; made for the first TensorBoard file.
        self.tb_router: TensorBoardRouter | None = None
        self.hparams: list[HParams] = []  # TensorBoard hparams records, read order: lineage
        self.custom_scalars: Layout | None = None  # the newest custom scalars layout: a view, not a tag
        self.unshown = NotShownBook()  # tags of kinds no view shows, tags left out under the limits
        self._unsettle()
        self._ranks: tuple[tuple[str, ...], np.ndarray] = ((), _NO_RANKS)  # `_file_ranks`

    # -- summary files ------------------------------------------------------------------

    def _unsettle(self) -> None:
        # `settled`: `unchanged` found nothing to do: (the job, each file's (path, ino, size,
        # mtime_ns, ctime_ns)). While the job and every stat are the same, there is still nothing to do.
        self.settled: tuple[FoundJob, tuple[tuple[str, int, int, int, int], ...]] | None = None
        self.unsettled.add(self.train_id)

    def unchanged(self, found: FoundJob, stats: dict[str, os.stat_result | OSError] | None = None
                  ) -> dict[str, os.stat_result | OSError] | None:
        """None when no file of the job changed since the last refresh (and time alone cannot
        change its state), nor its profile directories; else this reload's stat of each file,
        for `refresh`. `stats`: the job's `stat_files` taken earlier in this reload (none since)."""
        if stats is None:
            stats = self.stat_files(found)
        if self._next_stamp == self._stamp and self.view.loaded and self.view.profile_dirs == tuple(found.profile_dirs) \
                and not any(f.tail_bytes and not f.truncated for f in self.view.file_status):
            stated = {name: st for name, st in stats.items() if isinstance(st, os.stat_result)}
            if len(stated) == len(stats):
                base = found.path + os.sep
                self.settled = (found, tuple((base + name, st.st_ino, st.st_size, st.st_mtime_ns, st.st_ctime_ns)
                                             for name, st in stated.items()))
            return None
        return stats

    def stat_files(self, found: FoundJob) -> dict[str, os.stat_result | OSError]:
        """This reload's stat of each file of the job (kept for `refresh` to compare next time)."""
        stats: dict[str, os.stat_result | OSError] = {}
        stamp: list = [len(found.event_files), len(found.lineage_files)]
        base = found.path + os.sep
        for name in (*found.event_files, *found.lineage_files, *found.graph_files, *found.projector_files):
            try:
                st = stats[name] = self.source.stat(base + name)
                stamp += (name, st.st_ino, st.st_size, st.st_mtime_ns, st.st_ctime_ns)
            except OSError as exc:
                stats[name] = exc
                stamp += (name, type(exc), exc.errno)
        self._next_stamp = tuple(stamp)  # kept by `refresh` once it has read the files
        return stats

    def needs_reading(self, found: FoundJob, stats: Mapping[str, os.stat_result | OSError]) -> bool:
        """Would a refresh read records (new, appended, replaced or recovered files)? A job
        without its details needs them back first; one whose files only changed mtime does not."""
        if set(found.event_files) != set(self.files):
            return True
        for name, state in self.files.items():
            st = stats.get(name)
            if not isinstance(st, os.stat_result):
                if not state.error:
                    return True  # gone: the job is read again
                continue
            if (st.st_dev, st.st_ino) != state.inode or st.st_size != state.size:
                return True
            if state.error and st.st_mtime != state.mtime:
                return True  # an unreadable file may have become readable
        return False

    def refresh(self, found: FoundJob, store: PayloadStore | None, progress: "LoadProgress",
                stats: dict[str, os.stat_result | OSError] | None = None,
                on_progress: Callable[[Changes], None] | None = None) -> Changes:
        """Read what was appended to the job's files and publish the new view. `on_progress`
        is called with what changed after the view is published while a file is still being
        read (about once a second: the charts of a big job fill from the left)."""
        self._found, self._on_progress = found, on_progress
        self.found = found
        self._unsettle()
        self._next_progress = time.monotonic() + PROGRESS_EVERY_SECONDS
        try:
            return self._refresh(found, progress, stats, store)
        finally:
            self._found = self._on_progress = None

    def publish_soon(self) -> None:
        """Publish progress after the next batch of records (from any thread), not in up to a second."""
        self._next_progress = 0.0

    def _progress_view(self, reading: FileState) -> Changes:
        """Publish the view as read so far (still `loading` on a first load)."""
        # Tags changed so far in this refresh (its final changes name them again).
        changes = Changes(updated={self.train_id: set(self.changed)}) if self.changed else Changes()
        assert self._found is not None  # (set for the refresh that reads)
        self._publish(self._found, None, loaded=self.view.loaded)
        return changes

    def _refresh(self, found: FoundJob, progress: "LoadProgress",
                 stats: dict[str, os.stat_result | OSError] | None, store: PayloadStore | None) -> Changes:
        changes = Changes()
        graphs_before = dict(self.graphs)
        # One stat per file per reload, shared by every step below (each stat is a round trip on
        # the network file systems training logs often live on).
        self._stats = stats if stats is not None else self.stat_files(found)
        names = found.event_files
        if any(name not in names or self._replaced(state) for name, state in self.files.items()):
            self._start_again(store)  # a deleted, truncated or replaced file: read everything again
            changes.updated[self.train_id] = set()
            graphs_before = {}
        try:
            ranks = self._read_files(names, progress)
        except FileReplaced:  # found while reading on: read everything again (from the starts: no more checks)
            self._start_again(store)
            changes.updated[self.train_id] = set()
            graphs_before = {}
            ranks = self._read_files(names, progress)
        self._merge(ranks)
        self._refresh_pb(found)
        self.projector.refresh(self.source, self.path, found, self._stats)
        lineage = self._tb_lineage(self._refresh_lineage(found))
        if self.changed:
            changes.updated.setdefault(self.train_id, set()).update(self.changed)
        if self.graphs != graphs_before:
            changes.graphs.add(self.train_id)
        if lineage is not None:
            changes.lineage.add(self.train_id)
        published = self.view
        self._publish(found, lineage, unchanged=not (self.changed or changes))
        self._stamp, self._next_stamp = self._next_stamp, ()
        self.changed = set()
        if (self.view.state != published.state and published.state != "loading") or self.view.closed != published.closed \
                or self.view.profile_rank != published.profile_rank:
            # e.g. a tail left incomplete is now "truncated"; the writer closed its files (health: finished);
            # its profiles name a rank (rank groups)
            changes.updated.setdefault(self.train_id, set())
        return changes

    def _start_again(self, store: PayloadStore | None) -> None:
        """Forget what was read, and the payloads decoded from the files (their offsets may hold
        other records now)."""
        if store is not None:
            store.forget({os.path.join(self.path, name) for name in self.files})
        self._reset()

    def _read_files(self, names: list[str], progress: "LoadProgress") -> np.ndarray:
        """Read on in each of `names`; its ranks (`_file_ranks`)."""
        for name in names:
            if name not in self.files:
                self.files[name] = FileState(name, len(self.files), kind=file_kind(name))
        ranks = self._file_ranks()
        for name in names:
            self._read_file(self.files[name], ranks, progress)
        return ranks

    def _replaced(self, state: FileState) -> bool:
        st = self._stats.get(state.name)
        if not isinstance(st, os.stat_result):
            return not state.error  # gone (an unreadable file stays as it was)
        return (st.st_dev, st.st_ino) != state.inode and state.inode != (0, 0) or st.st_size < state.end

    def _file_ranks(self) -> np.ndarray:
        names = tuple(self.files)  # by file id
        if self._ranks[0] != names:  # the same files as last time: the same ranks
            order = sorted(self.files.values(), key=read_order) if len(names) > 1 else list(self.files.values())
            ranks = np.zeros(len(order), dtype=np.int64)
            for rank, state in enumerate(order):
                ranks[state.fid] = rank
            self._ranks = (names, ranks)
        return self._ranks[1]

    def _read_file(self, state: FileState, ranks: np.ndarray, progress: "LoadProgress") -> None:
        path = os.path.join(self.path, state.name)
        try:
            st = self._stats.get(state.name) or self.source.stat(path)
            if isinstance(st, OSError):
                raise st
            if state.nothing_appended(st):
                return  # no need to open the file
            if state.end and not self.source.same_start(path, head_bytes(state)):
                raise FileReplaced(state.name)
            with self.source.open_range(path, state.end, st.st_size) as fh:
                if self.source.is_local:
                    st = os.fstat(fh.fileno())  # the file as opened (it may have grown since its stat)
                state.inode = (st.st_dev, st.st_ino)
                state.size = st.st_size
                state.error = ""
                report = ScanReport()
                (self.tb_layouts if state.kind == "tensorboard" else self.layouts).file_starts()
                start = state.end
                counted = start  # bytes up to here are in progress.bytes_read
                unmerged = pending = 0  # bytes of records read, values queued since the last merge
                for batch in scan_batches(fh, state.end, st.st_size, report, max_bytes=_BATCH_BYTES):
                    if not state.head and len(batch) and batch[0][0] == 0:
                        state.head = frame(bytes(batch.payloads[0]))[:HEAD_BYTES].hex()
                    if unmerged:  # the batches before this one: merged and published while reading
                        publish = self._on_progress is not None and time.monotonic() >= self._next_progress
                        if pending >= _MERGE_VALUES or unmerged >= _MERGE_BYTES or publish:
                            self._merge(ranks)
                            unmerged = pending = 0
                        if publish and self._on_progress is not None:
                            self._next_progress = time.monotonic() + PROGRESS_EVERY_SECONDS
                            self._on_progress(self._progress_view(state))
                    pending += self._events(batch, state)
                    unmerged += report.end - counted
                    progress.bytes_read += report.end - counted  # counted as read, not per file
                    counted = report.end
                state.end = report.end
                state.bad_records += report.bad_records
                state.tail_bytes = report.tail_bytes
                self.problems.extend(f"{state.name}: {p}" for p in report.problems)
                del self.problems[:-50]
                if start == 0:
                    progress.files_read += 1  # once per file, not per retry of an incomplete tail
                progress.bytes_read += report.end - counted
        except OSError as exc:
            state.error = describe(exc)
            self._next_stamp = () if getattr(exc, "transient", False) else self._next_stamp  # a lost connection: retried

    def _events(self, batch: RecordBatch, state: FileState) -> int:
        """Route the events of `batch` (records in read order): the ones with a known layout in
        bulk, the others one by one, in an order that admits tags as a one-by-one read would.
        Returns the values queued for the next merge (an event routed one by one counts one)."""
        state.records += len(batch)
        payloads = batch.payloads
        tensorboard = state.kind == "tensorboard"
        if tensorboard and self.tb_router is None:
            self.tb_router = tensorboard_router()
        book = self.tb_layouts if tensorboard else self.layouts
        router: Router = self.tb_router if self.tb_router and tensorboard else self.ms_router
        which, layouts, decoded = book.classify(payloads, router.decode)
        if self.tb_router and tensorboard:  # (TF2's scalar tensors of tags not named scalars yet: one by one)
            unknown_tensors(layouts, which, self.tb_router.plugins, payloads, router.decode, decoded)
        left = np.flatnonzero(which < 0)  # events of scalars and histograms: in bulk too
        mixed = (self.tb_mixed if tensorboard else self.mixed).classify(payloads, left, router.decode, decoded)
        for matched in mixed:
            which[matched.rows] = -2
        if (layouts or mixed) and tensorboard and has_restart(payloads, which, decoded):
            # A restart drops the steps read before it: read the batch one by one, in order.
            which, layouts, mixed = np.full(len(payloads), -1, dtype=np.int64), [], []
        base = self.seq
        self.seq += len(batch)
        singles = np.flatnonzero(which == -1).tolist()
        bulk = bulk_rows(layouts, which, payloads) if layouts else {}
        # row -> (layout, rows, steps, walls, floats[, record offsets]) of the layout it is the first event of
        starts: dict[int, tuple[Any, ...]] = {int(rows[0]): (layouts[number], rows, *numbers)
                                              for number, (rows, *numbers) in bulk.items()}
        starts.update((int(m.rows[0]), (*m, batch.offsets[m.rows])) for m in mixed)
        queued = len(singles)
        # Visit each layout's first event and every event routed one by one in read order.
        for i in sorted([*starts, *singles]):
            if i in starts:
                layout, rows, steps, walls, floats, *offsets = starts[i]
                queued += self._bulk(layout, rows, steps, walls, floats, base, state, *offsets)
                continue
            event = decoded[i] if i in decoded else router.decode(payloads[i])
            if event is None:
                state.bad_records += 1
            else:
                self._routed(router.route(event), state, batch[i][0], base + i + 1)
        return queued

    def _bulk(self, layout, rows_at: np.ndarray, steps: np.ndarray, walls: np.ndarray, floats: np.ndarray,
              base: int, state: FileState, offsets: np.ndarray | None = None) -> int:
        """The events at `rows_at` of the batch, all of `layout` (a `Layout`, or a `MixedLayout` whose
        histograms are kept as locators: the records at `offsets`), with their numbers. Returns the values queued."""
        plan = self._layouts.get(key := (layout.tags, layout.routed_kinds))
        if plan is None:
            plan = self._layouts[key] = self._plan(routes(*key))
        scalar_idx, block, payloads, _ = plan
        self._bulk_walls(steps, walls, state)
        if scalar_idx:
            cols = [layout.float_of_value[i] for i in scalar_idx]
            values = floats if cols == list(range(floats.shape[1])) else floats[:, cols]
            block.add_chunk(base + 1 + rows_at, steps, walls, state.fid, values)
        if payloads and offsets is not None:
            block.add_payload_chunk(base + 1 + rows_at, steps, walls, state.fid, offsets)
        return len(rows_at) * (len(scalar_idx) + len(payloads))

    def _bulk_walls(self, steps: np.ndarray, walls: np.ndarray, state: FileState) -> None:
        """The wall times of events read in bulk, as `_wall` takes them one by one."""
        dated = walls
        if len(walls):
            dates = (walls >= EARLIEST) & (walls <= LATEST)
            if not dates.all():
                for i in np.flatnonzero(~dates).tolist():
                    self._wall_no_date(state, int(steps[i]), float(walls[i]))
                dated = walls[dates]
        if len(dated):
            first = float(dated.min())
            if first == 0.0:  # zeros (0.0 == -0.0) compare as one by one reads would
                for wall in dated.tolist():
                    if self.first_wall_time is None or wall < self.first_wall_time:
                        self.first_wall_time = wall
            elif self.first_wall_time is None or first < self.first_wall_time:
                self.first_wall_time = first

    def _routed(self, routed: RoutedEvent, state: FileState, offset: int, seq: int) -> None:
        """One event routed one by one (either format's), into the same blocks as events read
        in bulk: scalars by value, everything else as locators (`offset`, the value's index)."""
        self._wall(routed.wall_time, state, routed.step)
        if routed.problems:  # values that cannot be read: counted, the event's others kept
            state.bad_records += len(routed.problems)
            self.problems.extend(f"{state.name}: step {routed.step}: {p}" for p in routed.problems)
        if routed.restart:
            self._restart(routed.step)
        elif routed.graph:
            self._graph(routed, state, offset)
        elif routed.values:
            self._values(routed, state, offset, seq)

    def _wall(self, wall: float, state: FileState, step: int) -> None:
        """An event's wall time: the least that is a date is the origin of relative time; one
        that is no date (nanoseconds, 1e300, NaN) is a problem of the job, shown "out of range"."""
        if EARLIEST <= wall <= LATEST:
            if self.first_wall_time is None or wall < self.first_wall_time:
                self.first_wall_time = wall
        else:
            self._wall_no_date(state, step, wall)

    def _wall_no_date(self, state: FileState, step: int, wall: float) -> None:
        """Count a wall time that is no date: one problem line per file, its count kept current."""
        prefix = f"{state.name}: wall times that are no date"
        known = next((p for p in self.problems if p.startswith(prefix)), None)
        if known is None:
            self.problems.append(f"{prefix} (shown as out of range): 1, the first at step {step} ({wall!r})")
            del self.problems[:-50]
            return
        count, _, rest = known.removeprefix(f"{prefix} (shown as out of range): ").partition(",")
        self.problems[self.problems.index(known)] = (
            f"{prefix} (shown as out of range): {int(count) + 1 if count.isdigit() else 1},{rest}")

    def _values(self, routed: RoutedEvent, state: FileState, offset: int, seq: int) -> None:
        values: Sequence[RoutedValue]
        numbers: Sequence[float | None]
        if routed.layout is not None:  # every value a tag's step, planned once per layout
            values, numbers = routed.values, routed.numbers
            plan = self._layouts.get(routed.layout)
            if plan is None:
                plan = self._layouts[routed.layout] = self._plan(tuple([(v.index, (v.plugin, v.tag)) for v in values]))
        else:
            values, numbers = self._tag_values(routed, state, offset)
            if not values:
                return
            key = tuple([(value.index, value.plugin, value.tag) for value in values])
            plan = self._layouts.get(key)
            if plan is None:
                plan = self._layouts[key] = self._plan(tuple([(v.index, (v.plugin, v.tag)) for v in values]))
        _, block, payloads, (scalar_at, images_at, histograms_at) = plan
        if scalar_at:
            block.add_scalars(seq, routed.step, routed.wall_time, state.fid, [numbers[at] for at in scalar_at])
        if payloads:  # TensorBoard histograms of any number of buckets are kept: the screen re-bins them
            samples = tuple([values[at].samples for at in images_at]) if images_at else None
            block.add_payload_event(seq, routed.step, routed.wall_time, state.fid, offset, samples)
            for (index, key), at in zip(block.histograms, histograms_at):
                if values[at].left_out:
                    block.drop(index)
                    self.unshown.saw_value(WIDE_HISTOGRAMS, key[1])

    def _tag_values(self, routed: RoutedEvent, state: FileState, offset: int
                    ) -> tuple[list[RoutedValue], list[float | None]]:
        """The values of `routed` that are a tag's step, and their numbers; the others (hparams
        records, a custom scalars layout, graphs) are taken here, and tags no view shows counted."""
        values, numbers = [], []
        for value, number in zip(routed.values, routed.numbers):
            if value.plugin == "hparams":  # metadata only: lineage, not a tag
                if isinstance(value.data, Problem):
                    state.bad_records += 1
                    self.problems.append(f"{state.name}: {value.tag}: {value.data}")
                elif len(self.hparams) < MAX_HPARAMS_RECORDS:
                    self.hparams.append(value.data)
                continue
            if value.plugin == "other" and value.written == CUSTOM_SCALARS:  # a layout, not a tag
                if isinstance(value.data, str):
                    state.bad_records += 1
                    self.problems.append(f"{state.name}: {value.tag}: {value.data}")
                    continue
                self.custom_scalars = value.data  # the custom scalars view draws it: not counted unshown
                continue
            if value.plugin == "other" and (value.written in tb_graphs.PLUGINS or (
                    value.written == tb_graphs.TAGGED_RUN_METADATA and value.data)):  # a graph, not a tag
                kind = "keras" if value.written == tb_graphs.KERAS_MODEL else \
                    "run metadata" if value.written == tb_graphs.TAGGED_RUN_METADATA else "op graph"
                self._add_graph(GraphSource(value.tag, kind, os.path.join(self.path, state.name), offset,
                                            routed.step, routed.wall_time, value.index))
                continue
            if value.written == tb_graphs.TAGGED_RUN_METADATA:  # step statistics only: counted, not a tag
                self.unshown.saw(value.written, value.tag)
                continue
            if value.plugin == "other" and ("other", value.tag) not in self.tags and ("other", value.tag) not in self.evicted:
                self.unshown.saw(value.written or "other", value.tag)  # a tag seen for the first time
            values.append(value)
            numbers.append(number)
        return values, numbers

    def _restart(self, step: int) -> None:
        """A TensorBoard restart (SessionLog START at `step`, torch's `purge_step`): every tag's
        steps >= `step` read before it are dropped, as TensorBoard drops them."""
        self._merge(self._file_ranks())
        for key, series in self.tags.items():
            purged = series.before(step)
            if purged is not series:
                self.tags[key] = purged
                self.changed.add(key)

    def _plan(self, routes: tuple[tuple[int, TagKey], ...]) -> tuple:
        """How to route the values of events with this layout ((value index, tag) of each routed
        value, in order); admits their tags once. The scalars' indices (for the bulk path),
        the block, the payloads, and where in the routed values the kept scalars, images and
        histograms are."""
        scalar_idx, scalar_keys, payloads = [], [], []
        scalar_at, images_at, histograms_at = [], [], []
        for at, (index, key) in enumerate(routes):
            if not self._admit(key):
                continue
            if key[0] == "scalar":
                scalar_idx.append(index)
                scalar_keys.append(key)
                scalar_at.append(at)
            else:
                payloads.append((index, key))
                if key[0] == "image":
                    images_at.append(at)
                elif key[0] == "histogram":
                    histograms_at.append(at)
        block = ScalarBlock(tuple(scalar_keys), tuple(payloads))
        self.blocks.append(block)
        return tuple(scalar_idx), block, tuple(payloads), (tuple(scalar_at), tuple(images_at), tuple(histograms_at))

    def _admit(self, key: TagKey) -> bool:
        """Make room for `key` under the tag limits; False if the tag was evicted before."""
        if key in self.evicted:
            return False
        if key not in self.tags:
            plugin = key[0]
            cap = limits.MAX_TAGS_PER_PLUGIN.get(plugin)
            same_plugin = [k for k in self.tags if k[0] == plugin] if cap else []
            if cap and len(same_plugin) >= cap:
                self._evict(same_plugin[0], cap)
            elif len(self.tags) + len(self.graphs) >= limits.MAX_TAGS:
                self._evict(next(iter(self.tags)), limits.MAX_TAGS)
            names = ("value",) if plugin == "scalar" else ("offset", "index", "samples") if plugin == "image" \
                else ("offset", "index")
            limit = limits.EVERY_STEP if plugin in self.every_step else limits.max_steps(plugin)
            self.tags[key] = Series.empty(limit, names)
        return True

    def _evict(self, key: TagKey, limit: int) -> None:
        """The earliest-seen tag leaves; its later values are ignored (MindInsight does the same).
        Counted as left out under `limit`; a tag of a kind no view shows is counted under its kind."""
        self.tags.pop(key, None)
        self.changed.discard(key)
        self.evicted.add(key)
        if key[0] != "other":
            self.unshown.left(key[0], limit)

    def _merge(self, ranks: np.ndarray) -> None:
        """Move pending values into the series."""
        pieces: dict[TagKey, list[dict[str, np.ndarray]]] = {}
        for block in self.blocks:
            for key, cols in block.drain():
                pieces.setdefault(key, []).append(cols)
            for key, cols in block.drain_payloads():
                if len(cols["step"]):
                    pieces.setdefault(key, []).append(cols)
        shared: dict = {}  # tags of the same layouts share their columns: ordered, sampled once
        ordered: dict[tuple, tuple[np.ndarray, dict[str, np.ndarray]]] = {}
        for key, parts in pieces.items():
            if key not in self.tags:
                continue  # evicted meanwhile
            if len(parts) == 1:
                cols = parts[0]
            else:  # several event layouts: back into read order
                common = tuple(id(p[name]) for p in parts for name in _SHARED)
                if common not in ordered:
                    seq = np.concatenate([p["seq"] for p in parts])
                    order = np.argsort(seq, kind="stable")
                    ordered[common] = order, {name: np.concatenate([p[name] for p in parts])[order] for name in _SHARED}
                order, cols = ordered[common]
                cols = {**cols, **{name: np.concatenate([p[name] for p in parts])[order]
                                   for name in parts[0] if name not in _SHARED}}
            self.tags[key] = self.tags[key].merge(cols, ranks, shared)
            self.changed.add(key)

    # -- graphs -------------------------------------------------------------------------

    def _graph(self, routed: RoutedEvent, state: FileState, offset: int) -> None:
        # Only the latest run graph of the event files is kept; .pb graphs (compat §3.5) and
        # tagged graphs (the latest of each tag: `_add_graph`) stay.
        for tag, source in list(self.graphs.items()):
            if source.kind in ("summary", "tensorboard"):
                del self.graphs[tag]
        self._add_graph(GraphSource(state.name, state.kind, os.path.join(self.path, state.name), offset,
                                    routed.step, routed.wall_time))

    def _add_graph(self, source: GraphSource) -> None:
        if source.tag not in self.graphs and len(self.graphs) >= limits.MAX_TAGS_PER_PLUGIN["graph"]:
            del self.graphs[next(iter(self.graphs))]
        self.graphs[source.tag] = source

    def _refresh_pb(self, found: FoundJob) -> None:
        for name in list(self._pb_stamps):
            if name not in found.graph_files:
                del self._pb_stamps[name]
                self.graphs.pop(name, None)
        for name in found.graph_files:
            path = os.path.join(self.path, name)
            st = self._stats.get(name)
            if not isinstance(st, os.stat_result):
                self.problems.append(f"{name}: unreadable ({describe(st) if st else 'gone'})")
                continue
            stamp = (st.st_size, st.st_mtime)
            if self._pb_stamps.get(name) != stamp:
                self._pb_stamps[name] = stamp
                self._add_graph(GraphSource(name, "pb", path, 0, 0, st.st_mtime))

    # -- lineage ------------------------------------------------------------------------

    def _refresh_lineage(self, found: FoundJob) -> JobLineage | None:
        """The job's lineage if a lineage file appeared, changed size or went; else None."""
        paths = [os.path.join(self.path, name) for name in found.lineage_files]
        stats = [self._stats.get(name) for name in found.lineage_files]
        sizes = tuple((path, st.st_size if isinstance(st, os.stat_result) else -1) for path, st in zip(paths, stats))
        if sizes == self._lineage_sizes:
            return None
        self._lineage_sizes = sizes
        return read_lineage(paths, self.source) if paths else JobLineage()

    def _tb_lineage(self, lineage: JobLineage | None) -> JobLineage | None:
        """The job's lineage with its TensorBoard hparams records (None: unchanged)."""
        hparams = tuple(self.hparams)
        if lineage is None and hparams == self._hparams_published:
            return None
        self._hparams_published = hparams
        base = lineage if lineage is not None else (self.view.lineage or JobLineage())
        return replace(base, hparams=hparams) if base.hparams != hparams else base

    # -- publishing ---------------------------------------------------------------------

    def _not_shown(self, found: FoundJob) -> NotShown:
        """What the job holds that no view shows: the book's count, the projector's embeddings,
        and the .pb graphs left out under the graph limit."""
        dropped = sum(1 for name in found.graph_files
                      if name not in self.graphs and isinstance(self._stats.get(name), os.stat_result))
        graphs = (LeftOut("graph", dropped, limits.MAX_TAGS_PER_PLUGIN["graph"]),) if dropped else ()
        return self.unshown.account(self.projector.kinds, graphs)

    def _problems(self, not_shown: NotShown) -> tuple[str, ...]:
        projector = [self.projector.problem] if self.projector.problem else []
        return tuple(self.problems + projector + not_shown.notes() + self.notes)

    def _publish(self, found: FoundJob, lineage: JobLineage | None, unchanged: bool = False,
                 loaded: bool = True) -> None:
        """Replace the view; or keep it when `unchanged` (no new data) and what it shows of the
        files (sizes, states, times) is the same: an idle reload then publishes nothing new."""
        now = self.clock()
        file_status = tuple(self.files[name].status(now) for name in found.event_files)
        update_time = newest_mtime(self._stats)
        view = self.view
        changed_at = view.changed_at if update_time == view.update_time else now if view.loaded else min(update_time, now)
        not_shown = self._not_shown(found)
        problems = self._problems(not_shown)
        closed = writer_closed(found, self._stats, self.source.is_local)
        if (unchanged and view.loaded and view.file_status == file_status and view.update_time == update_time
                and view.closed == closed
                and view.summary_files == tuple(found.summary_files) and view.lineage_files == tuple(found.lineage_files)
                and view.tensorboard_files == tuple(found.tensorboard_files)
                and view.graph_files == tuple(found.graph_files) and view.problems == problems
                and view.profile_dirs == tuple(found.profile_dirs) and view.detailed == self.detailed):
            return
        # The profiles' rank is listed again when their directories change (or none was named yet).
        rank = view.profile_rank if view.loaded and view.profile_dirs == tuple(found.profile_dirs) else None
        rank = rank if rank is not None else profiler_rank(self.path, found.profile_dirs, self.source)
        files_by_fid = [""] * len(self.files)
        for state in self.files.values():
            files_by_fid[state.fid] = os.path.join(self.path, state.name)
        if self.detailed:
            digests: Mapping[str, TagDigest] = MappingProxyType(self._digests(view))
            counts: Mapping[str, int] = MappingProxyType(dict(Counter(plugin for plugin, _ in self.tags)))
            last_steps = [step for step in (s.last_step for s in self.tags.values()) if step is not None]
            last_step = max(last_steps) if last_steps else None
        else:  # no series to read them from: what the job list shows stays as it was
            digests, counts, last_step = view.digests, view.tag_counts, view.last_step
        self.view = JobView(
            train_id=self.train_id,
            path=self.path,
            summary_files=tuple(found.summary_files),
            tensorboard_files=tuple(found.tensorboard_files),
            lineage_files=tuple(found.lineage_files),
            graph_files=tuple(found.graph_files),
            profile_dirs=tuple(found.profile_dirs),
            profile_rank=rank,
            files=tuple(files_by_fid),
            tags=MappingProxyType(dict(self.tags)),
            graphs=MappingProxyType(dict(self.graphs)),
            lineage=lineage if lineage is not None else self.view.lineage,
            file_status=file_status,
            first_wall_time=self.first_wall_time,
            update_time=update_time,
            changed_at=changed_at,
            loaded=loaded,
            problems=problems,
            not_shown=not_shown,
            digests=digests,
            tag_counts=counts,
            last_step=last_step,
            detailed=self.detailed,
            custom_scalars=self.custom_scalars,
            closed=closed,
        )

    def _digests(self, view: JobView) -> dict[str, TagDigest]:
        """Digests of the scalar tags, recomputed only for the tags that changed since `view`."""
        kept: dict[str, TagDigest] = {}
        changed: list[tuple[str, Series]] = []
        for (plugin, tag), series in self.tags.items():
            if plugin != "scalar":
                continue
            old = view.digests.get(tag)
            if old is not None and ("scalar", tag) not in self.changed and old.seen == series.seen:
                kept[tag] = old
            else:
                changed.append((tag, series))
        made = digests(changed)
        # (in the tags' order, as before)
        return {tag: kept[tag] if tag in kept else made[tag] for (plugin, tag) in self.tags
                if plugin == "scalar" and (tag in kept or tag in made)}

    # -- details and snapshots ----------------------------------------------------------

    def detail_bytes(self) -> int:
        """Memory held by the series (what the memory budget counts)."""
        return sum(series.nbytes for series in self.tags.values())

    def _read_stamp(self) -> tuple:
        """How far each file was read: a snapshot taken at another stamp says something else."""
        return tuple((s.name, s.inode, s.end, s.records, s.bad_records, s.tail_bytes, s.error)
                     for s in self.files.values())

    @property
    def unsaved(self) -> bool:
        """The disk cache does not hold what was read (nothing, or less)."""
        return self.saved != self._read_stamp()

    def mark_saved(self) -> None:
        self.saved = self._read_stamp()

    def snapshot(self) -> JobSnapshot:
        """What was read, details included (for the disk cache and from loading processes)."""
        files = [{**asdict(state), "inode": list(state.inode)} for state in self.files.values()]
        return JobSnapshot(
            path=self.path, files=files, tag_keys=list(self.tags), series=dict(self.tags),
            evicted=sorted(self.evicted), graphs=[asdict(g) for g in self.graphs.values()],
            first_wall_time=self.first_wall_time, problems=list(self.problems), seq=self.seq,
            digests=dict(self.view.digests), last_step=self.view.last_step, hparams=list(self.hparams),
            not_shown=self.view.not_shown, custom_scalars=self.custom_scalars,
        )

    def fits(self, snapshot: JobSnapshot, found: FoundJob, stats: Mapping[str, os.stat_result | OSError]) -> bool:
        """May reading go on from `snapshot` (`snapshot_fits`)?"""
        return snapshot_fits(snapshot, self.path, found, stats)

    def install(self, snapshot: JobSnapshot, from_disk: bool) -> None:
        """Take `snapshot` (which `fits`) as what was read so far; with only its header, the job
        is listed from it and its details stay on disk (`detailed` False)."""
        view = self.view
        # Never loaded and nothing read: the view is still the empty one `__init__` made (a loaded
        # job without event files, its details dropped, keeps its lineage and graphs: `replace`).
        fresh = not (self.files or view.loaded)
        if not fresh:  # (a fresh loader is as `_reset` leaves it: a warm start installs thousands)
            self._reset()
        for record in snapshot.files:
            self.files[record["name"]] = FileState(**{**record, "inode": tuple(record["inode"])})
        self.tags = {key: snapshot.series[key] for key in snapshot.tag_keys} if snapshot.detailed else {}
        self.evicted = set(snapshot.evicted)
        self.graphs = {g["tag"]: GraphSource(**g) for g in snapshot.graphs}
        self.first_wall_time = snapshot.first_wall_time
        self.problems = list(snapshot.problems)
        self._take_not_shown(snapshot.not_shown)
        self.hparams = list(snapshot.hparams)
        self.custom_scalars = snapshot.custom_scalars
        # TensorBoard names a tag's plugin on its first value only: what the tags became says it.
        self.tb_router = tensorboard_router([*self.tags, *self.evicted])
        self.seq = snapshot.seq
        self.detailed = snapshot.detailed
        self.saved = self._read_stamp() if from_disk else None
        self._stamp = ()  # the next refresh compares the files with what the snapshot read
        listed: dict[str, Any] = dict(tags=MappingProxyType(dict(self.tags)), detailed=self.detailed,
                      digests=MappingProxyType(snapshot.digests), last_step=snapshot.last_step,
                      tag_counts=MappingProxyType(snapshot.tag_counts), not_shown=snapshot.not_shown,
                      custom_scalars=snapshot.custom_scalars)
        # A warm start installs thousands of headers: a constructor costs a fraction of a `replace`.
        self.view = JobView(self.train_id, self.path, **listed) if fresh else replace(view, **listed)

    def _take_not_shown(self, not_shown: NotShown) -> None:
        """Count on from a snapshot's account; the projector and the .pb graphs are looked at
        again by the next refresh."""
        self.unshown = NotShownBook.of(not_shown, skip_kinds=(EMBEDDINGS,), skip_plugins=("graph",))
        self.projector.restore(tuple(k for k in not_shown.kinds if k.kind == EMBEDDINGS))

    def list_settled(self, snapshot: JobSnapshot, found: FoundJob, stats: Mapping[str, os.stat_result | OSError]) -> bool:
        """A fresh loader listed from a header (`snapshot`, not `detailed`) whose job is exactly
        what it read: `fits`, `install` and `settle_listed` in one go, with one view made instead
        of three (a warm start lists thousands). False, with nothing changed, when the job is not
        so simple (lineage, .pb graphs, hparams, a file grown or replaced): then the caller goes
        the long way."""
        if (snapshot.detailed or snapshot.hparams or found.lineage_files or found.graph_files
                or found.projector_files or self.files
                or self.view.loaded or snapshot.path != self.path):
            return False
        names = found.event_files
        files = unchanged_files(snapshot, names, stats)
        if files is None:
            return False
        now = self.clock()
        base = self.path + os.sep
        status = [state.status(now) for state in files.values()]
        saved = [(state.name, state.inode, state.end, state.records, state.bad_records, state.tail_bytes,
                  state.error) for state in files.values()]
        self.files = files
        self.graphs = {g["tag"]: GraphSource(**g) for g in snapshot.graphs}
        self.first_wall_time = snapshot.first_wall_time
        self.problems = list(snapshot.problems)
        self._take_not_shown(snapshot.not_shown)
        self.custom_scalars = snapshot.custom_scalars
        self.detailed = False
        self.saved = tuple(saved)
        self.found = found
        self._stats = stats
        self._stamp, self._next_stamp = self._next_stamp, ()
        update_time = newest_mtime(stats)
        self.view = new_view(
            train_id=self.train_id, path=self.path, summary_files=tuple(found.summary_files),
            tensorboard_files=tuple(found.tensorboard_files), profile_dirs=tuple(found.profile_dirs),
            profile_rank=profiler_rank(self.path, found.profile_dirs, self.source),
            files=tuple(base + state.name for state in files.values()), tags=NO_TAGS,
            graphs=MappingProxyType(dict(self.graphs)), file_status=tuple(status),
            first_wall_time=self.first_wall_time, update_time=update_time, changed_at=min(update_time, now),
            loaded=True, problems=self._problems(snapshot.not_shown), not_shown=snapshot.not_shown,
            digests=MappingProxyType(snapshot.digests),
            tag_counts=MappingProxyType(snapshot.tag_counts), last_step=snapshot.last_step, detailed=False,
            custom_scalars=snapshot.custom_scalars, closed=writer_closed(found, stats, self.source.is_local))
        return True

    def settle_listed(self, found: FoundJob, stats: Mapping[str, os.stat_result | OSError]) -> bool:
        """Just listed from a header (`install`): when the job is exactly what the snapshot read
        (the same files, none grown, nothing else to read: no lineage, .pb graph or hparams),
        publish its view as the refresh that reads nothing would, without one; else False."""
        if self.detailed or found.lineage_files or found.graph_files or found.projector_files or self.hparams \
                or len(found.event_files) != len(self.files):
            return False
        files = self.files
        for name in found.event_files:  # as `_read_file` finds a file with nothing appended
            state, st = files.get(name), stats.get(name)
            if state is None or not isinstance(st, os.stat_result) or not state.nothing_appended(st):
                return False  # the refresh that follows reads it (and sets the same again)
        self.found = found
        self._stats = stats
        self._publish(found, None)
        self._stamp, self._next_stamp = self._next_stamp, ()
        return True

    def start_over(self) -> None:
        """Forget what was read: the next refresh reads every file from its start."""
        self._reset()
        self.detailed = True
        self.saved = None
        self._stamp = ()

    def drop_details(self, header: JobSnapshot | None = None) -> None:
        """Let the series go (memory budget); the digests and counts stay (`header`'s: bytes until read)."""
        self.tags, self._layouts, self.blocks = {}, {}, []  # the layouts' blocks admitted tags into the dropped series
        self.mixed = self.mixed if self._mixed_books else MixedBook()  # (its own holds its events' bytes)
        self.detailed = False
        self.view = replace(self.view, tags=MappingProxyType({}), detailed=False)
        if header is not None:  # the snapshot just saved: the same numbers
            self.view = replace(self.view, digests=MappingProxyType(header.digests), tag_counts=MappingProxyType(header.tag_counts))
