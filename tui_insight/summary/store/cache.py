"""The one shared, reloading, bounded summary cache of a log directory.

Loading happens on one thread (the reload loop, or whoever calls `reload`). What readers see
is a `JobView` per job: immutable, replaced whole when the job changes, so a screen or the
exporter always reads a consistent state while loading goes on. Subscribers are told what
changed (which jobs, which plugin/tag pairs) after each job is refreshed.
"""
from __future__ import annotations

import bisect
import gc
import logging
import os
import threading
import time
from collections import Counter, deque
from concurrent.futures import FIRST_COMPLETED, Future, wait
from concurrent.futures.process import BrokenProcessPool
from dataclasses import MISSING, asdict, dataclass, field, fields, replace
from types import MappingProxyType
from typing import Any, Callable, Hashable, Iterable, Iterator, Mapping, Sequence

import numpy as np
from google.protobuf.message import DecodeError

from ...escape import shown
from ...proto import summary_pb2
from ...wall_time import EARLIEST, LATEST
from .. import limits
from ..formats import tensorboard as tb
from ..formats.custom_scalars import PLUGIN as CUSTOM_SCALARS
from ..formats.custom_scalars import Layout, layout_of
from ..formats.file_names import classify
from ..formats.lineage import JobLineage, read_lineage
from ..formats.payloads import Locator, PayloadStore
from ..formats.projector import MAX_CONFIG_BYTES, MAX_TSV_BYTES, inside_path, parse_config, tsv_shape
from ..formats.records import LayoutBook, Payloads, RecordBatch, ScanReport, frame, period_of, scan_batches
from ..formats.routing import file_read_order, histogram_kept, routes, summary_layout
from ..sources.discovery import Discovery, FoundJob, rediscover, restored_listings, saved_listings
from ..sources.local import HEAD_BYTES, LOCAL, LocalSource, Source
from ..sources.poll import PollTable
from ..text import text_of  # noqa: F401  (readers of the cache import it from here too)
from .budget import DEFAULT_BUDGET, DetailBudget
from .digest import TagDigest, digest
from .disk_cache import DiskCache, inside
from .not_shown import EMBEDDINGS, EXAMPLES, NOTHING, WIDE_HISTOGRAMS, LeftOut, NotShown, NotShownBook, UnshownKind
from .pool import BIG_JOB_BYTES, MIN_JOBS, JobPool
from .series import Series
from .snapshot import JobSnapshot, decode, encode

MAX_HPARAMS_RECORDS = 100  # hparams records kept per job (a run writes one to three)
TagKey = tuple[str, str]  # (plugin, tag as written)
# Pending values between merges: bounds memory while loading. Counted in values, not bytes, so
# a MindSpore event of 50 values weighs as much as 50 TensorBoard events of one (twice its bytes);
# each merge costs a call per tag, whatever it holds. The bytes bound is for events of few
# values and long payloads (histograms, images: read on demand, pending as locators).
_MERGE_VALUES = 1 << 18
_MERGE_BYTES = 64 << 20
_BATCH_BYTES = 4 << 20  # bytes read and routed at once (bounds the memory of a batch)
PROGRESS_EVERY_SECONDS = 1.0  # a job's view is published this often while its files are read
RESTORED_NOTICE_SECONDS = 0.05  # jobs listed from the disk cache are announced together at most this often
FIRST_LISTED = 128  # jobs (a screenful, by id) listed from the disk cache before new jobs are announced
PAUSE_COLLECTOR_SECONDS = 5.0  # the cycle collector is off this long at the start of a full pass
MAX_POLL_SECONDS = 30.0  # the interval poll backs off to this while change notices work
# A run being written sends a change notice at every flush (10 a second for a training loop that
# flushes every 10 steps): after reloading on a notice, the ones that follow within this many
# seconds are gathered (the watcher keeps them) and read in one reload.
# Directory listings are kept for the next start at most this often: keeping them rewrites the
# whole index (14 MB for 5,000 jobs, ~0.1 s), and a listing kept late is only relisted then.
LISTINGS_SAVE_SECONDS = 60.0
LIVE_RELOAD_SECONDS = 0.4
KEEP_FROZEN_SECONDS = 5.0  # the first pass's objects stay out of collections this long (`_CollectorPause`)
NOT_A_SUMMARY = "not a summary file"  # a file's error when none of its records is valid
NOT_AN_EVENT_FILE = "not a TensorBoard event file"  # ... a `tfevents` file's
log = logging.getLogger(__name__)


@dataclass(frozen=True)
class GraphSource:
    """Where a graph is: a `graph_def` record of a summary file, or a whole `.pb` file."""

    tag: str
    kind: str  # "summary", "tensorboard" (a TensorBoard event file's GraphDef) or "pb"
    path: str
    offset: int  # record offset for "summary" and "tensorboard"; 0 for "pb"
    step: int
    wall_time: float


@dataclass(frozen=True)
class FileStatus:
    name: str
    size: int
    records: int
    bad_records: int
    tail_bytes: int
    error: str  # "" or why the file cannot be read
    truncated: bool = False  # an incomplete tail nobody has written to for TRUNCATED_AFTER_SECONDS


# What each job state says, for the job list's help and the exporter's warnings.
STATE_MEANINGS = {
    "ok": "every record was read",
    "loading": "not read yet",
    "growing": "its last record is incomplete: still being written",
    "truncated": "its last record is incomplete and 10 minutes old: the writer stopped",
    "corrupt": "records that failed their checksum were skipped",
    "unreadable": "a file of the job cannot be read (the reason follows)",
}


def state_meaning(state: str) -> str:
    """What a `JobView.state` says ("corrupt: 3 records" -> the meaning of "corrupt")."""
    return STATE_MEANINGS.get(state.split(":")[0], "")


@dataclass(frozen=True)
class JobView:
    """A consistent, read-only snapshot of one job."""

    train_id: str
    path: str
    summary_files: tuple[str, ...] = ()
    lineage_files: tuple[str, ...] = ()
    graph_files: tuple[str, ...] = ()
    profile_dirs: tuple[str, ...] = ()  # child directories holding a profiler's output
    tensorboard_files: tuple[str, ...] = ()  # TensorBoard event files
    files: tuple[str, ...] = ()  # summary and TensorBoard file paths by file id (Series' `fid` column)
    tags: Mapping[TagKey, Series] = field(default_factory=dict)  # first-seen order
    graphs: Mapping[str, GraphSource] = field(default_factory=dict)
    lineage: JobLineage | None = None
    file_status: tuple[FileStatus, ...] = ()
    first_wall_time: float | None = None  # the job's first event: origin of relative time
    update_time: float = 0.0  # mtime of the newest file
    changed_at: float = 0.0  # when the local clock saw it change (health.py: the files' clock may be skewed)
    loaded: bool = False  # False until the first load of the job has finished
    problems: tuple[str, ...] = ()  # what could not be read, and `not_shown.notes()`, a line each
    not_shown: NotShown = NOTHING  # what the job holds that no view shows (kinds, tags over the limits)
    # What the job list reads; kept when the details (`tags`) are dropped under the memory budget.
    digests: Mapping[str, TagDigest] = field(default_factory=dict)  # scalar tag -> digest, first-seen order
    tag_counts: Mapping[str, int] = field(default_factory=dict)  # plugin -> number of tags
    last_step: int | None = None  # the newest step of any tag
    detailed: bool = True  # False: `tags` is empty (memory budget) until the job is held again (`SummaryCache.hold`)
    closed: bool | None = None  # every summary file read-only, as MindSpore leaves it on close (`writer_closed`)
    custom_scalars: Layout | None = None  # the newest `add_custom_scalars` layout read (custom_scalars.py)

    @property
    def ready(self) -> bool:
        """Loaded, with its details in memory: what a view of its tags needs (else it shows "loading")."""
        return self.loaded and self.detailed

    @property
    def records(self) -> int:
        return sum(f.records for f in self.file_status)

    @property
    def bad_records(self) -> int:
        return sum(f.bad_records for f in self.file_status) + (self.lineage.bad_records if self.lineage else 0)

    @property
    def tail_bytes(self) -> int:
        return sum(f.tail_bytes for f in self.file_status)

    @property
    def state(self) -> str:
        """`loading`, `unreadable: <reason>`, `corrupt: N records`, `truncated`, `growing` or `ok`."""
        if not self.loaded:
            return "loading"
        errors = [f for f in self.file_status if f.error]
        if errors:
            if len(self.file_status) > 1:  # say which, when the job's other files were read
                return f"unreadable: {os.path.basename(errors[0].name)}: {errors[0].error}"
            return f"unreadable: {errors[0].error}"
        if self.bad_records:
            return f"corrupt: {self.bad_records} record{'s' if self.bad_records != 1 else ''}"
        if any(f.truncated for f in self.file_status):
            return "truncated"
        if self.tail_bytes:
            return "growing"
        return "ok"

    def tag_names(self, plugin: str) -> list[str]:
        return sorted(tag for p, tag in self.tags if p == plugin)

    def series(self, plugin: str, tag: str) -> Series | None:
        return self.tags.get((plugin, tag))

    def samples(self, series: Series, i: int) -> int:
        """How many images kept step `i` of an image series holds (TF2's `tf.summary.image` writes
        up to `max_outputs` a step; a Summary.Image holds one)."""
        column = series.columns.get("samples")
        return 1 if column is None else int(column[i])

    def locator(self, series: Series, i: int) -> Locator:
        cols = series.columns
        path = self.files[int(cols["fid"][i])]
        kind = "tensorboard" if tb.is_tensorboard_file(os.path.basename(path)) else "summary"
        return Locator(path, int(cols["offset"][i]), int(cols["index"][i]), kind)

    def tag_count(self, plugin: str) -> int:
        return self.tag_counts.get(plugin, 0)


@dataclass
class Changes:
    """What one refresh changed."""

    added: set[str] = field(default_factory=set)
    removed: set[str] = field(default_factory=set)
    updated: dict[str, set[TagKey]] = field(default_factory=dict)  # train_id -> tags with new data
    lineage: set[str] = field(default_factory=set)  # jobs whose lineage changed
    graphs: set[str] = field(default_factory=set)  # jobs whose graphs changed

    def __bool__(self) -> bool:
        return bool(self.added or self.removed or self.updated or self.lineage or self.graphs)

    def merge(self, other: "Changes") -> None:
        self.added |= other.added
        self.removed |= other.removed
        for job, tags in other.updated.items():
            self.updated.setdefault(job, set()).update(tags)
        self.lineage |= other.lineage
        self.graphs |= other.graphs


@dataclass
class _FileState:
    name: str
    fid: int
    end: int = 0  # where the next scan starts
    size: int = 0
    inode: tuple[int, int] = (0, 0)
    records: int = 0
    bad_records: int = 0
    tail_bytes: int = 0
    error: str = ""
    mtime: float = 0.0
    kind: str = "summary"  # "summary" or "tensorboard": how its records are decoded
    head: str = ""  # hex of the file's first bytes as read (`source.HEAD_BYTES`); "" when not known

    def status(self, now: float) -> FileStatus:
        truncated = bool(self.tail_bytes) and now - self.mtime > limits.TRUNCATED_AFTER_SECONDS
        # Records were found and not one of them is valid (random bytes, a text file under a
        # summary file's name): the file is not a summary file, rather than "corrupt: 1 record".
        # Derived on each publish, so a valid record appended later makes it a summary file again.
        unread = NOT_A_SUMMARY if self.kind == "summary" else NOT_AN_EVENT_FILE
        error = self.error or (unread if self.bad_records and not self.records else "")
        return FileStatus(self.name, self.size, self.records, self.bad_records, self.tail_bytes, error,
                          truncated)

    def nothing_appended(self, st: os.stat_result) -> bool:
        """Whether `st` is the file as read to its end; if so, take its time and size as read."""
        self.mtime = st.st_mtime
        if st.st_size != self.end or (st.st_dev, st.st_ino) != self.inode:
            return False
        self.size, self.tail_bytes, self.error = st.st_size, 0, ""
        return True


class _ScalarBlock:
    """Scalars of the events that share one layout (same tags in the same order).

    Training logs repeat the same layout step after step: events decoded one by one append one
    list of values each, events read in bulk (`records.Layout`) append numpy chunks, and both
    become per-tag columns at merge time.
    """

    def __init__(self, keys: tuple[TagKey, ...], payloads: tuple[tuple[int, TagKey], ...] = ()):
        self.keys = keys
        self.payloads = payloads  # (index of the value in the event, tag) of values read on demand
        self.histograms = tuple(p for p in payloads if p[1][0] == "histogram")
        self.images = tuple(index for index, key in payloads if key[0] == "image")  # their value indices
        self._one_each = (1,) * len(self.images)  # a Summary.Image holds one image
        self._clear()

    def _clear(self) -> None:
        self._clear_scalars()
        self.p_seq: list[int] = []  # events of this layout with payloads: one entry per event
        self.p_step: list[int] = []
        self.p_wall_time: list[float] = []
        self.p_fid: list[int] = []
        self.p_offset: list[int] = []
        self.p_samples: list[tuple[int, ...]] = []  # per event: the images each of `images` holds
        self.dropped: list[tuple[int, int]] = []  # (event row, value index): a value left out

    def _clear_scalars(self) -> None:
        self.seq: list[int] = []
        self.step: list[int] = []
        self.wall_time: list[float] = []
        self.fid: list[int] = []
        self.values: list[list[float]] = []
        self.chunks: list[tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray]] = []

    def add_scalars(self, seq: int, step: int, wall_time: float, fid: int, values: list[float]) -> None:
        """One event's scalar values (decoded one by one), in the order of `keys`."""
        self.seq.append(seq)
        self.step.append(step)
        self.wall_time.append(wall_time)
        self.fid.append(fid)
        self.values.append(values)

    def add_payload_event(self, seq: int, step: int, wall_time: float, fid: int, offset: int,
                          samples: tuple[int, ...] | None = None) -> None:
        """An event with payloads; `samples`: how many images each of `images` holds (one each if None)."""
        self.p_seq.append(seq)
        self.p_step.append(step)
        self.p_wall_time.append(wall_time)
        self.p_fid.append(fid)
        self.p_offset.append(offset)
        if self.images:
            self.p_samples.append(self._one_each if samples is None else samples)

    def drop(self, index: int) -> None:
        """The last event's value at `index` is left out (a histogram with too many buckets)."""
        self.dropped.append((len(self.p_seq) - 1, index))

    def drain_payloads(self) -> Iterator[tuple[TagKey, dict[str, np.ndarray]]]:
        if not self.p_seq:
            return
        n = len(self.p_seq)
        common = {
            "seq": np.array(self.p_seq, dtype=np.int64),
            "step": np.array(self.p_step, dtype=np.int64),
            "wall_time": np.array(self.p_wall_time, dtype=np.float64),
            "fid": np.array(self.p_fid, dtype=np.int32),
            "offset": np.array(self.p_offset, dtype=np.int64),
        }
        dropped = self.dropped
        samples = np.array(self.p_samples, dtype=np.int32).reshape(n, len(self.images))
        self.p_seq, self.p_step, self.p_wall_time, self.p_fid, self.p_offset = [], [], [], [], []
        self.p_samples = []
        self.dropped = []
        for index, key in self.payloads:
            cols = {**common, "index": np.full(n, index, dtype=np.int32)}
            if key[0] == "image":
                cols["samples"] = np.ascontiguousarray(samples[:, self.images.index(index)])
            rows = [row for row, i in dropped if i == index]
            if rows:
                keep = np.ones(n, dtype=bool)
                keep[rows] = False
                cols = {name: col[keep] for name, col in cols.items()}
            yield key, cols

    def add_chunk(self, seq: np.ndarray, step: np.ndarray, wall_time: np.ndarray, fid: int,
                  values: np.ndarray) -> None:
        self.chunks.append((seq, step, wall_time, np.full(len(seq), fid, dtype=np.int32), values))

    def drain(self) -> Iterator[tuple[TagKey, dict[str, np.ndarray]]]:
        chunks = self.chunks
        if self.step:
            chunks = chunks + [(
                np.array(self.seq, dtype=np.int64),
                np.array(self.step, dtype=np.int64),
                np.array(self.wall_time, dtype=np.float64),
                np.array(self.fid, dtype=np.int32),
                np.array(self.values, dtype=np.float64).reshape(len(self.step), len(self.keys)),
            )]
        if not chunks:
            return
        self._clear_scalars()
        if len(chunks) == 1:
            seq, step, wall_time, fid, table = chunks[0]
        else:
            seq, step, wall_time, fid, table = (np.concatenate(parts) for parts in zip(*chunks))
            if len(seq) > 1 and not bool(np.all(seq[1:] > seq[:-1])):
                order = np.argsort(seq, kind="stable")  # back into read order
                seq, step, wall_time, fid, table = seq[order], step[order], wall_time[order], fid[order], table[order]
        common = {"seq": seq, "step": step, "wall_time": wall_time, "fid": fid}
        for j, key in enumerate(self.keys):
            yield key, {**common, "value": np.ascontiguousarray(table[:, j])}


def _decode(payload: bytes) -> summary_pb2.Event | None:
    try:
        return summary_pb2.Event.FromString(payload)
    except DecodeError:
        return None


def _file_kind(name: str) -> str:
    return "tensorboard" if tb.is_tensorboard_file(name) else "summary"


def _read_order(state: "_FileState"):
    return file_read_order(state.name)


def _bulk_rows(layouts: list, which: np.ndarray,
               payloads: Payloads) -> dict[int, tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]]:
    """Per layout number: (its rows in the batch, ascending; their steps, wall times, scalars).
    The numbers are read once per geometry (a TensorBoard batch holds a layout per tag, and
    tags of one name length share every offset), in file order: reading them layout by layout
    would jump back and forth through the block."""
    readers: list = []  # per geometry, its first layout: it reads the numbers of them all
    group_of: dict[tuple, int] = {}
    groups = np.zeros(len(layouts), dtype=np.int64)  # layout number -> its geometry's
    for number, layout in enumerate(layouts):
        if layout.geometry not in group_of:
            group_of[layout.geometry] = len(readers)
            readers.append(layout)
        groups[number] = group_of[layout.geometry]
    known = which >= 0
    bulk = {}
    for group, reader in enumerate(readers):
        if len(readers) == 1:
            rows = np.flatnonzero(known)
        else:
            rows = np.flatnonzero(known & (groups[np.maximum(which, 0)] == group))
        steps, walls, floats = reader.numbers_at(payloads.array, payloads.starts[rows])
        number = which[rows]
        period = period_of(number)
        if period:  # a training loop's tags, in the same order every step: layout j's rows are j::period
            for j in range(period):
                bulk[int(number[j])] = (rows[j::period], steps[j::period], walls[j::period], floats[j::period])
            continue
        # Each layout's rows together, in file order (16-bit keys sort by radix, in linear time).
        order = np.argsort(number.astype(np.int16) if len(layouts) < 1 << 15 else number, kind="stable")
        rows, steps, walls, floats, number = rows[order], steps[order], walls[order], floats[order], number[order]
        edges = [0, *(np.flatnonzero(np.diff(number)) + 1).tolist(), len(rows)]
        for a, b in zip(edges, edges[1:]):
            bulk[int(number[a])] = (rows[a:b], steps[a:b], walls[a:b], floats[a:b])
    return bulk


def _has_restart(payloads: Sequence[bytes], which: np.ndarray, decoded: dict) -> bool:
    """Does an event decoded one by one in this batch restart the run (SessionLog START)? The
    events it decodes are added to `decoded`, for the routing that follows."""
    for i in np.flatnonzero(which < 0).tolist():
        event = decoded[i] if i in decoded else decoded.setdefault(i, tb.decode_event(payloads[i]))
        if event is not None and tb.is_restart(event):
            return True
    return False


class _FileReplaced(Exception):
    """A file read on from where it stopped no longer starts as it did: another file under its name."""


def _head_bytes(state: _FileState) -> bytes:
    """The first bytes the file had when read (none known: b"", which every file starts with)."""
    try:
        return bytes.fromhex(state.head)
    except ValueError:
        return b""


def _describe(exc: OSError) -> str:
    return exc.strerror or str(exc)


_NO_TAGS: Mapping = MappingProxyType({})  # the tags of a job listed without its details (never written)
# Each field's default, the mappings (`default_factory`) empty and read-only, for `_new_view`.
_VIEW_DEFAULTS = {f.name: _NO_TAGS if f.default is MISSING else f.default for f in fields(JobView)}


def _new_view(**values) -> JobView:
    """`JobView(**values)`, the mappings not given empty (read-only, shared). A warm start makes
    two views per job, thousands: a frozen dataclass's __init__ sets each of the 22 fields
    through object.__setattr__ (2.7 us for a "loading" view; this, 0.4 us)."""
    view = object.__new__(JobView)
    view.__dict__.update(_VIEW_DEFAULTS, **values)
    return view

_NO_RANKS = np.zeros(0, dtype=np.int64)  # (never written: `_file_ranks` makes a new array)
_NO_RANKS.flags.writeable = False


class _JobLoader:
    """Loader-side state of one job. Used by the loading thread only."""

    def __init__(self, train_id: str, path: str, clock: Callable[[], float] = time.time,
                 layouts: LayoutBook | None = None, tb_layouts: LayoutBook | None = None,
                 source: Source = LOCAL, unsettled: set[str] | None = None, every_step: frozenset[str] = frozenset()):
        self.train_id = train_id
        self.every_step = every_step  # plugins whose series keep every step (`SummaryCache`)
        self.source = source  # where the files are read from
        self.layouts = layouts if layouts is not None else LayoutBook()
        self.tb_layouts = tb_layouts if tb_layouts is not None else LayoutBook(dialect="tensorboard")
        self.path = path
        self.clock = clock
        # Train ids of the jobs whose `settled` went (a new loader's too), shared by the cache's
        # loaders: what the poll's table holds of them is no longer so (`poll.PollTable`).
        self.unsettled = unsettled if unsettled is not None else set()
        self._reset()
        self.view = _new_view(train_id=train_id, path=path)
        self.found: FoundJob | None = None  # the job as the last refresh saw it
        self.detailed = True  # False: the series were dropped under the memory budget
        self.saved: tuple | None = None  # `_read_stamp()` of what the disk cache holds of the job
        self.notes: list[str] = []  # problems of this session only (never in a snapshot)
        self._lineage_sizes: tuple = ()
        self._stats: dict[str, os.stat_result | OSError] = {}  # this reload's stat of each file
        self._stamp: tuple = ()  # what the files were at the last refresh: unchanged -> no work
        self._next_stamp: tuple = ()
        self._found: FoundJob | None = None  # the job being refreshed, for progress views
        self._on_progress: Callable[[Changes], None] | None = None
        self._next_progress = 0.0
        self._hparams_published: tuple = ()  # the hparams records in the view's lineage
        self.projector: tuple[UnshownKind, ...] = ()  # the embeddings its projector config names
        self._projector_stamp: tuple | None = None  # the config as last read
        self._projector_problem = ""  # why the config cannot be read

    def _reset(self) -> None:
        self.files: dict[str, _FileState] = {}
        self.tags: dict[TagKey, Series] = {}
        self.evicted: set[TagKey] = set()
        self.graphs: dict[str, GraphSource] = {}
        self.first_wall_time: float | None = None
        self.blocks: list[_ScalarBlock] = []  # scalar values read since the last merge
        self._layouts: dict[tuple, tuple] = {}
        self.seq = 0  # events read: orders values of different layouts
        self.changed: set[TagKey] = set()
        self.problems: list[str] = []
        self._pb_stamps: dict[str, tuple[int, float]] = {}  # .pb graph files: (size, mtime) when added
        self.tb_plugins = tb.TagPlugins()  # the plugin of each TensorBoard tag (named on its first value only)
        self.hparams: list[tb.HParams] = []  # TensorBoard hparams records, read order: lineage
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
        change its state); else this reload's stat of each file, for `refresh`. `stats`: the
        job's `stat_files` taken earlier in this reload (none since)."""
        if stats is None:
            stats = self.stat_files(found)
        if self._next_stamp == self._stamp and self.view.loaded and not any(
                f.tail_bytes and not f.truncated for f in self.view.file_status):
            if all(isinstance(st, os.stat_result) for st in stats.values()):
                base = found.path + os.sep
                self.settled = (found, tuple((base + name, st.st_ino, st.st_size, st.st_mtime_ns, st.st_ctime_ns)
                                             for name, st in stats.items()))
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

    def refresh(self, found: FoundJob, store: PayloadStore, progress: "LoadProgress",
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

    def _progress_view(self, reading: _FileState) -> Changes:
        """Publish the view as read so far (still `loading` on a first load)."""
        # Tags changed so far in this refresh (its final changes name them again).
        changes = Changes(updated={self.train_id: set(self.changed)}) if self.changed else Changes()
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
        except _FileReplaced:  # found while reading on: read everything again (from the starts: no more checks)
            self._start_again(store)
            changes.updated[self.train_id] = set()
            graphs_before = {}
            ranks = self._read_files(names, progress)
        self._merge(ranks)
        self._refresh_pb(found)
        self._refresh_projector(found)
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
        if (self.view.state != published.state and published.state != "loading") or self.view.closed != published.closed:
            # e.g. a tail left incomplete is now "truncated"; the writer closed its files (health: finished)
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
                self.files[name] = _FileState(name, len(self.files), kind=_file_kind(name))
        ranks = self._file_ranks()
        for name in names:
            self._read_file(self.files[name], ranks, progress)
        return ranks

    def _replaced(self, state: _FileState) -> bool:
        st = self._stats.get(state.name)
        if not isinstance(st, os.stat_result):
            return not state.error  # gone (an unreadable file stays as it was)
        return (st.st_dev, st.st_ino) != state.inode and state.inode != (0, 0) or st.st_size < state.end

    def _file_ranks(self) -> np.ndarray:
        names = tuple(self.files)  # by file id
        if self._ranks[0] != names:  # the same files as last time: the same ranks
            order = sorted(self.files.values(), key=_read_order) if len(names) > 1 else list(self.files.values())
            ranks = np.zeros(len(order), dtype=np.int64)
            for rank, state in enumerate(order):
                ranks[state.fid] = rank
            self._ranks = (names, ranks)
        return self._ranks[1]

    def _read_file(self, state: _FileState, ranks: np.ndarray, progress: "LoadProgress") -> None:
        path = os.path.join(self.path, state.name)
        try:
            st = self._stats.get(state.name) or self.source.stat(path)
            if isinstance(st, OSError):
                raise st
            if state.nothing_appended(st):
                return  # no need to open the file
            if state.end and not self.source.same_start(path, _head_bytes(state)):
                raise _FileReplaced(state.name)
            with self.source.open_range(path, state.end, st.st_size) as fh:
                if self.source.is_local:
                    st = os.fstat(fh.fileno())  # the file as opened (it may have grown since its stat)
                state.inode = (st.st_dev, st.st_ino)
                state.size = st.st_size
                state.error = ""
                report = ScanReport()
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
                        if publish:
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
            state.error = _describe(exc)

    def _events(self, batch: RecordBatch, state: _FileState) -> int:
        """Route the events of `batch` (records in read order): the ones with a known layout in
        bulk, the others one by one, in an order that admits tags as a one-by-one read would.
        Returns the values queued for the next merge (an event decoded one by one counts one)."""
        state.records += len(batch)
        payloads = batch.payloads
        if state.kind == "tensorboard":
            book, decode, handle = self.tb_layouts, tb.decode_event, self._tb_event
        else:
            book, decode, handle = self.layouts, _decode, self._event
        which, layouts, decoded = book.classify(payloads, decode)
        if layouts and state.kind == "tensorboard" and _has_restart(payloads, which, decoded):
            # A restart drops the steps read before it: read the batch one by one, in order.
            which, layouts = np.full(len(payloads), -1, dtype=np.int64), []
        base = self.seq
        self.seq += len(batch)
        singles = np.flatnonzero(which < 0).tolist()
        bulk = _bulk_rows(layouts, which, payloads) if layouts else {}
        starts = {int(rows[0]): number for number, (rows, *_) in bulk.items()}  # row -> the layout it is the first event of
        queued = len(singles)
        # Visit each layout's first event and every event decoded one by one in read order.
        for i in sorted([*starts, *singles]):
            if i in starts:
                number = starts[i]
                queued += self._bulk(layouts[number], *bulk[number], base, state)
            else:
                event = decoded[i] if i in decoded else decode(payloads[i])
                handle(event, state, batch[i][0], base + i + 1)
        return queued

    def _bulk(self, layout, rows_at: np.ndarray, steps: np.ndarray, walls: np.ndarray, floats: np.ndarray,
              base: int, state: _FileState) -> int:
        """The events at `rows_at` of the batch, all of `layout`, with the numbers read from them.
        Returns the values queued."""
        plan = self._layouts.get((layout.tags, layout.kinds))
        if plan is None:
            plan = self._layouts[(layout.tags, layout.kinds)] = self._plan(layout.tags, layout.kinds)
        scalar_idx, block, _ = plan
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
        if scalar_idx:
            cols = [layout.float_of_value[i] for i in scalar_idx]
            values = floats if cols == list(range(floats.shape[1])) else floats[:, cols]
            block.add_chunk(base + 1 + rows_at, steps, walls, state.fid, values)
        return len(rows_at) * len(scalar_idx)

    def _event(self, event: summary_pb2.Event | None, state: _FileState, offset: int, seq: int) -> None:
        if event is None:
            state.bad_records += 1
            return
        self._wall(event.wall_time, state, event.step)
        kind = event.WhichOneof("what")
        if kind == "summary":
            self._summary(event, state, offset, seq)
        elif kind == "graph_def":
            self._summary_graph(event, state, offset)

    def _tb_event(self, event, state: _FileState, offset: int, seq: int) -> None:
        """One TensorBoard event (a `tb_event_pb2.Event`, None if undecodable), routed into the
        same blocks as summary events: scalars by value, everything else as locators."""
        if event is None:
            state.bad_records += 1
            return
        if self._tb_scalar(event, state, seq):
            return
        routed = tb.event_of(event, self.tb_plugins)
        self._wall(routed.wall_time, state, routed.step)
        if routed.problems:  # values that cannot be read: counted, the event's others kept
            state.bad_records += len(routed.problems)
            self.problems.extend(f"{state.name}: step {routed.step}: {p}" for p in routed.problems)
        if routed.restart:
            self._restart(routed.step)
        elif routed.graph:
            if len(event.graph_def):
                self._summary_graph(event, state, offset, kind="tensorboard")
        elif routed.values:
            self._tb_values(routed, event, state, offset, seq)

    def _tb_scalar(self, event, state: _FileState, seq: int) -> bool:
        """The common event of torch and tensorboardX, one `simple_value` without metadata, read
        without `event_of` (what it would do, done directly); False for any other event."""
        if event.WhichOneof("what") != "summary" or len(event.summary.value) != 1:
            return False
        value = event.summary.value[0]
        if value.WhichOneof("value") != "simple_value" or value.HasField("metadata"):
            return False
        key = ((text_of(value.tag),), ("scalar",))
        layout = self._layouts.get(key)
        if layout is None:
            layout = self._layouts[key] = self._plan(*key)
        if layout[0]:  # not a tag left out under the tag limits
            layout[1].add_scalars(seq, event.step, event.wall_time, state.fid, [value.simple_value])
        self._wall(event.wall_time, state, event.step)
        return True

    def _wall(self, wall: float, state: _FileState, step: int) -> None:
        """An event's wall time: the least that is a date is the origin of relative time; one
        that is no date (nanoseconds, 1e300, NaN) is a problem of the job, shown "out of range"."""
        if EARLIEST <= wall <= LATEST:
            if self.first_wall_time is None or wall < self.first_wall_time:
                self.first_wall_time = wall
        else:
            self._wall_no_date(state, step, wall)

    def _wall_no_date(self, state: _FileState, step: int, wall: float) -> None:
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

    def _tb_values(self, routed: tb.TBEvent, event, state: _FileState, offset: int, seq: int) -> None:
        values = []
        for value in routed.values:
            if value.plugin == "hparams":  # metadata only: lineage, not a tag
                record = tb.hparams_data(event.summary.value[value.index])
                if isinstance(record, tb.Problem):
                    state.bad_records += 1
                    self.problems.append(f"{state.name}: {value.tag}: {record}")
                elif len(self.hparams) < MAX_HPARAMS_RECORDS:
                    self.hparams.append(record)
                continue
            if value.plugin == "other" and value.written == CUSTOM_SCALARS:  # a layout, not a tag
                layout = layout_of(event.summary.value[value.index])
                if isinstance(layout, str):
                    state.bad_records += 1
                    self.problems.append(f"{state.name}: {value.tag}: {layout}")
                    continue
                if self.custom_scalars is None:  # no view draws a layout yet: the account says so
                    self.unshown.saw(CUSTOM_SCALARS, value.tag)
                self.custom_scalars = layout
                continue
            if value.plugin == "other" and ("other", value.tag) not in self.tags and ("other", value.tag) not in self.evicted:
                self.unshown.saw(value.written or "other", value.tag)  # a tag seen for the first time
            values.append(value)
        if not values:
            return
        # The layout by value index (values left out above or unreadable have none).
        tags: list[str] = [""] * (values[-1].index + 1)
        kinds: list[str | None] = [None] * len(tags)
        for value in values:
            tags[value.index], kinds[value.index] = value.tag, value.plugin
        key = (tuple(tags), tuple(kinds))
        layout = self._layouts.get(key)
        if layout is None:
            layout = self._layouts[key] = self._plan(*key)
        scalar_idx, block, payloads = layout
        if scalar_idx:
            numbers = {value.index: value.scalar for value in values}
            block.add_scalars(seq, routed.step, routed.wall_time, state.fid, [numbers[i] for i in scalar_idx])
        if payloads:  # histograms of any number of buckets are kept: the screen re-bins them
            samples = tuple(tb.image_count(event.summary.value[i]) for i in block.images)
            block.add_payload_event(seq, routed.step, routed.wall_time, state.fid, offset, samples)

    def _restart(self, step: int) -> None:
        """A TensorBoard restart (SessionLog START at `step`, torch's `purge_step`): every tag's
        steps >= `step` read before it are dropped, as TensorBoard drops them."""
        self._merge(self._file_ranks())
        for key, series in self.tags.items():
            purged = series.before(step)
            if purged is not series:
                self.tags[key] = purged
                self.changed.add(key)

    def _summary(self, event: summary_pb2.Event, state: _FileState, offset: int, seq: int) -> None:
        values = list(event.summary.value)  # one wrapper per value, reused below
        key = summary_layout(values)
        layout = self._layouts.get(key)
        if layout is None:
            layout = self._layouts[key] = self._plan(*key)
        scalar_idx, block, payloads = layout
        if scalar_idx:
            block.add_scalars(seq, event.step, event.wall_time, state.fid, [values[i].scalar_value for i in scalar_idx])
        if payloads:
            block.add_payload_event(seq, event.step, event.wall_time, state.fid, offset)
            for index, key in block.histograms:
                if not histogram_kept(values[index]):
                    block.drop(index)
                    self.unshown.saw_value(WIDE_HISTOGRAMS, key[1])

    def _plan(self, tags: tuple[str, ...], kinds: tuple[str | None, ...]) -> tuple:
        """How to route the values of events with this layout; admits their tags once."""
        scalar_idx, scalar_keys, payloads = [], [], []
        for index, key in routes(tags, kinds):
            if not self._admit(key):
                continue
            if key[0] == "scalar":
                scalar_idx.append(index)
                scalar_keys.append(key)
            else:
                payloads.append((index, key))
        block = _ScalarBlock(tuple(scalar_keys), tuple(payloads))
        self.blocks.append(block)
        return tuple(scalar_idx), block, tuple(payloads)

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
        for key, parts in pieces.items():
            if key not in self.tags:
                continue  # evicted meanwhile
            if len(parts) == 1:
                cols = parts[0]
            else:  # several event layouts: back into read order
                cols = {name: np.concatenate([p[name] for p in parts]) for name in parts[0]}
                order = np.argsort(cols["seq"], kind="stable")
                cols = {name: col[order] for name, col in cols.items()}
            self.tags[key] = self.tags[key].merge(cols, ranks)
            self.changed.add(key)

    # -- graphs -------------------------------------------------------------------------

    def _summary_graph(self, event, state: _FileState, offset: int, kind: str = "summary") -> None:
        if kind == "summary" and not len(event.graph_def.node):
            return
        # Only the latest summary-file (or TensorBoard) graph is kept; .pb graphs stay (compat §3.5).
        for tag, source in list(self.graphs.items()):
            if source.kind != "pb":
                del self.graphs[tag]
        self._add_graph(GraphSource(state.name, kind, os.path.join(self.path, state.name), offset,
                                    event.step, event.wall_time))

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
                self.problems.append(f"{name}: unreadable ({_describe(st) if st else 'gone'})")
                continue
            stamp = (st.st_size, st.st_mtime)
            if self._pb_stamps.get(name) != stamp:
                self._pb_stamps[name] = stamp
                self._add_graph(GraphSource(name, "pb", path, 0, 0, st.st_mtime))

    # -- projector embeddings (listed as not shown) --------------------------------------

    def _refresh_projector(self, found: FoundJob) -> None:
        """Read the projector config again when it changed: the embeddings it names, and the
        shapes of the first few (from the config, else from a small TSV inside the job)."""
        name = found.projector_files[0] if found.projector_files else ""
        st = self._stats.get(name) if name else None
        if not isinstance(st, os.stat_result):
            self.projector, self._projector_stamp = (), None
            self._projector_problem = f"{name}: unreadable ({_describe(st) if st else 'gone'})" if name else ""
            return
        stamp = (st.st_ino, st.st_size, st.st_mtime_ns)
        if stamp == self._projector_stamp:
            return
        self._projector_stamp, self._projector_problem = stamp, ""
        try:
            text = self.source.read(os.path.join(self.path, name), 0, min(st.st_size, MAX_CONFIG_BYTES))
        except OSError as exc:
            self.projector, self._projector_problem = (), f"{name}: unreadable ({_describe(exc)})"
            return
        embeddings = parse_config(text.decode("utf-8", "surrogateescape"))
        if not embeddings:
            self._projector_problem = f"{name}: no embeddings read from it"
        labels = []
        for embedding in embeddings[:EXAMPLES]:
            if not embedding.shape:
                embedding = replace(embedding, shape=self._tsv_shape(embedding.tensor_path))
            labels.append(embedding.label())
        self.projector = (UnshownKind(EMBEDDINGS, len(embeddings), tuple(labels)),) if embeddings else ()

    def _tsv_shape(self, tensor_path: str) -> tuple[int, ...]:
        """(rows, columns) of a small TSV inside the job directory; () when not cheap or not readable."""
        inside = inside_path(tensor_path)
        if inside is None or not inside.endswith(".tsv"):
            return ()
        path = os.path.join(self.path, *inside.split("/"))
        try:
            size = self.source.stat(path).st_size
            return tsv_shape(self.source.read(path, 0, size)) if size <= MAX_TSV_BYTES else ()
        except OSError:
            return ()

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
        return self.unshown.account(self.projector, graphs)

    def _problems(self, not_shown: NotShown) -> tuple[str, ...]:
        projector = [self._projector_problem] if self._projector_problem else []
        return tuple(self.problems + projector + not_shown.notes() + self.notes)

    def _publish(self, found: FoundJob, lineage: JobLineage | None, unchanged: bool = False,
                 loaded: bool = True) -> None:
        """Replace the view; or keep it when `unchanged` (no new data) and what it shows of the
        files (sizes, states, times) is the same: an idle reload then publishes nothing new."""
        now = self.clock()
        file_status = tuple(self.files[name].status(now) for name in found.event_files)
        update_time = _update_time(self._stats)
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
        files_by_fid = [""] * len(self.files)
        for state in self.files.values():
            files_by_fid[state.fid] = os.path.join(self.path, state.name)
        if self.detailed:
            digests = MappingProxyType(self._digests(view))
            counts = MappingProxyType(dict(Counter(plugin for plugin, _ in self.tags)))
            last_steps = [s.last_step for s in self.tags.values() if len(s)]
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
        digests: dict[str, TagDigest] = {}
        for (plugin, tag), series in self.tags.items():
            if plugin != "scalar":
                continue
            old = view.digests.get(tag)
            if old is not None and ("scalar", tag) not in self.changed and old.seen == series.seen:
                digests[tag] = old
            else:
                new = digest(series)
                if new is not None:
                    digests[tag] = new
        return digests


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
        """May reading go on from `snapshot`? Every file it describes must still be the same file
        (device, inode) and at least as long as what it read; else the job is read from scratch."""
        if snapshot.path != self.path or sorted(f["fid"] for f in snapshot.files) != list(range(len(snapshot.files))):
            return False
        for record in snapshot.files:
            st = stats.get(record["name"])
            if record["name"] not in found.event_files or not isinstance(st, os.stat_result):
                return False
            if (st.st_dev, st.st_ino) != tuple(record["inode"]) or st.st_size < record["end"]:
                return False
        n = len(snapshot.files)
        return all(not len(s.candidates["fid"]) or 0 <= int(s.candidates["fid"].min()) <= int(s.candidates["fid"].max()) < n
                   for s in snapshot.series.values())

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
            self.files[record["name"]] = _FileState(**{**record, "inode": tuple(record["inode"])})
        self.tags = {key: snapshot.series[key] for key in snapshot.tag_keys} if snapshot.detailed else {}
        self.evicted = set(snapshot.evicted)
        self.graphs = {g["tag"]: GraphSource(**g) for g in snapshot.graphs}
        self.first_wall_time = snapshot.first_wall_time
        self.problems = list(snapshot.problems)
        self._take_not_shown(snapshot.not_shown)
        self.hparams = list(snapshot.hparams)
        self.custom_scalars = snapshot.custom_scalars
        # TensorBoard names a tag's plugin on its first value only: what the tags became says it.
        self.tb_plugins = tb.plugin_names([*self.tags, *self.evicted])
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
        self.projector = tuple(k for k in not_shown.kinds if k.kind == EMBEDDINGS)
        self._projector_stamp = None

    def list_settled(self, snapshot: JobSnapshot, found: FoundJob, stats: Mapping[str, os.stat_result | OSError]) -> bool:
        """A fresh loader listed from a header (`snapshot`, not `detailed`) whose job is exactly
        what it read: `fits`, `install` and `settle_listed` in one go, with one view made instead
        of three (a warm start lists thousands). False, with nothing changed, when the job is not
        so simple (lineage, .pb graphs, hparams, a file grown or replaced): then the caller goes
        the long way."""
        records = snapshot.files
        if (snapshot.detailed or snapshot.hparams or found.lineage_files or found.graph_files
                or found.projector_files or self.files
                or self.view.loaded or snapshot.path != self.path):
            return False
        names = found.event_files
        if len(records) != len(names):
            return False
        files: dict[str, _FileState] = {}
        status = []
        saved = []
        now = self.clock()
        base = self.path + os.sep
        for fid, record in enumerate(records):  # as `fits`, then `nothing_appended` (nothing kept before the end)
            st = stats.get(record["name"])
            if (record["fid"] != fid or not isinstance(st, os.stat_result) or st.st_size != record["end"]
                    or st.st_ino != record["inode"][1] or st.st_dev != record["inode"][0]):
                return False
            state = _FileState(record["name"], fid, record["end"], record["size"], (st.st_dev, st.st_ino),
                               record["records"], record["bad_records"], record["tail_bytes"], record["error"],
                               record["mtime"], record["kind"], record["head"])
            saved.append((state.name, state.inode, state.end, state.records, state.bad_records, state.tail_bytes,
                          state.error))
            state.nothing_appended(st)
            files[state.name] = state
            status.append(state.status(now))
        if files.keys() != set(names):
            return False
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
        update_time = _update_time(stats)
        self.view = _new_view(
            train_id=self.train_id, path=self.path, summary_files=tuple(found.summary_files),
            tensorboard_files=tuple(found.tensorboard_files), profile_dirs=tuple(found.profile_dirs),
            files=tuple(base + state.name for state in files.values()), tags=_NO_TAGS,
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

    def drop_details(self) -> None:
        """Let the series go (memory budget): the files' states, digests and counts stay."""
        self.tags = {}
        self._layouts = {}  # their blocks admitted tags into the dropped series
        self.blocks = []
        self.detailed = False
        self.view = replace(self.view, tags=MappingProxyType({}), detailed=False)


def writer_closed(found: FoundJob, stats: Mapping[str, os.stat_result | OSError], modes_known: bool) -> bool | None:
    """Whether the job's writer closed it: every MindSpore summary file read-only, as MindSpore
    leaves one on close (compat §1.1). None where that cannot show: no summary file, TensorBoard
    files beside them (their writers leave nothing on close), or modes not known (remote listings)."""
    if not modes_known or not found.summary_files or found.tensorboard_files:
        return None
    modes = [stats[name].st_mode for name in found.summary_files if isinstance(stats.get(name), os.stat_result)]
    if len(modes) != len(found.summary_files):
        return None
    return not any(mode & 0o222 for mode in modes)


def _update_time(stats: Mapping[str, os.stat_result | OSError]) -> float:
    """The newest mtime among the job's files."""
    return max((st.st_mtime for st in stats.values() if isinstance(st, os.stat_result)), default=0.0)


@dataclass
class LoadProgress:
    jobs_found: int = 0
    jobs_loaded: int = 0
    files_read: int = 0
    bytes_read: int = 0
    loading: bool = False
    reloads: int = 0


Subscriber = Callable[[Changes], None]


class SummaryCache:
    """Jobs of one log directory, loaded in the background and read as snapshots.

    Memory: every job keeps what the job list shows; the series of a job ("details") are kept
    while someone holds the job (`hold`) and after that while they fit `memory_budget` bytes,
    least recently used out first. A job without details in memory is published with
    `detailed=False` and an empty `tags`; holding it brings them back.

    `disk_cache` (a `DiskCache`, None for none) keeps each job's snapshot between runs: a job
    whose files only grew since is restored from it and reads only what was appended.
    `workers` > 1 reads the first load of jobs in that many processes.
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
        self._pool = JobPool(workers) if workers > 1 and self.source.is_local else None  # workers read locally
        self._urgent: tuple[str, ...] = ()  # the latest held jobs: read first (`hold`)
        self._published = threading.Condition()  # notified whenever a view is replaced (`details`)
        self._errand_lock = threading.Lock()
        self._errand_queued = False
        self._loaders: dict[str, _JobLoader] = {}
        self._layout_book = LayoutBook()  # event layouts, shared by all jobs (a sweep repeats them)
        self._tb_layout_book = LayoutBook(dialect="tensorboard")  # ... of TensorBoard events
        self._views: dict[str, JobView] = {}  # replaced whole when jobs come or go (`_set_views`)
        self._jobs: Mapping[str, JobView] = MappingProxyType(self._views)
        self._subscribers: list[Subscriber] = []
        self._load_lock = _LoadLock()
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self._listings: dict = {}  # directory listings discovery may reuse (kept in the disk cache's index)
        self._listings_saved = 0  # how many the disk cache holds
        self._listings_saved_at = -LISTINGS_SAVE_SECONDS  # time.monotonic() of the last keep_listings
        self._hint: tuple[str, ...] = ()  # jobs to read first (`prioritize`)
        self._reading: _JobLoader | None = None  # the job being read in this process (`hold` hurries it)
        self._pause = _CollectorPause()  # the collector's pause during the current full pass (`reload`)
        self._watching = False  # change notices arrive: the interval poll may back off
        self._keep_first = False  # the loop's first pass is going on (`_CollectorPause`'s keep)
        self._found: dict[str, FoundJob] = {}  # the last full discovery
        self._dirs: tuple[dict[str, str], list[str]] | None = None  # `_job_dirs`, made again when jobs come or go
        self._poll: PollTable | None = None  # the full poll's files of settled jobs (`_unsettled`), ditto
        self._polls = 0  # background polls so far: their turn in looking at finished runs (`poll.Rotation`)
        self._unsettled_jobs: set[str] = set()  # `_JobLoader.unsettled`, shared by the loaders and the table

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
        self._request_errand()

    def release(self, owner: Hashable) -> None:
        """The owner no longer shows its jobs: they may be evicted (the last, being just used)."""
        self._budget.touch(self._budget.release(owner))
        self._request_errand()

    def details(self, train_id: str, timeout: float = 120.0) -> JobView | None:
        """The job's view with its details (`detailed`), brought back if they were evicted; None
        for an unknown job. Blocks until the loading thread has served it: on that thread (in a
        subscriber) it raises RuntimeError, as it would wait for itself."""
        if self._load_lock.held_here():
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

    def _request_errand(self) -> None:
        """Serve holds and the budget soon, on a thread of the cache's own: a reload going on
        serves them between jobs, an idle cache at once."""
        with self._errand_lock:
            if self._errand_queued:
                return
            self._errand_queued = True
        threading.Thread(target=self._run_errand, name="summary-cache-details", daemon=True).start()

    def _run_errand(self) -> None:
        with self._load_lock:
            with self._errand_lock:
                self._errand_queued = False
            try:
                self._serve_held(Changes())
                self._enforce_budget()
            except Exception:
                log.exception("bringing back the details of held jobs of %s failed", shown(self.logdir))

    def _serve_held(self, total: Changes) -> None:
        """Bring back the details of held jobs that were evicted (under the load lock)."""
        for train_id in sorted(self._budget.held()):
            loader = self._loaders.get(train_id)
            if loader is None or loader.detailed or loader.found is None:
                continue
            found = loader.found
            stats = loader.stat_files(found)
            self._restore_details(loader, found, stats)
            changes = loader.refresh(found, self.payloads, self.progress, stats)
            changes.updated.setdefault(train_id, set()).update(loader.tags)  # open views redraw every tag
            self._published_refresh(loader, changes, total, first=False)

    def _restore_details(self, loader: _JobLoader, found: FoundJob,
                         stats: Mapping[str, os.stat_result | OSError]) -> None:
        """Give a job without details its series back: from the disk cache when its entry fits
        the files (the refresh that follows reads what was appended since), else from scratch."""
        snapshot = self.disk.load(loader.path, details=True, where=self._where) if self.disk is not None else None
        if snapshot is not None and loader.fits(snapshot, found, stats):
            loader.install(snapshot, from_disk=True)
        else:
            loader.start_over()

    def _restore_listed(self, loader: _JobLoader, found: FoundJob,
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

    def _published_refresh(self, loader: _JobLoader, changes: Changes, total: Changes, first: bool) -> None:
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

    def _save(self, loader: _JobLoader) -> None:
        if self.disk is not None and self.disk.save(loader.path, encode(loader.snapshot()), self._where):
            loader.mark_saved()

    def _enforce_budget(self) -> None:
        """Evict the details of the least recently used jobs nobody holds until the rest fit."""
        for train_id in self._budget.victims():
            loader = self._loaders.get(train_id)
            if loader is not None and loader.detailed:
                if loader.unsaved:
                    self._save(loader)  # what was read since the last save is not read again
                loader.drop_details()
                self._publish(train_id, loader.view)  # no notice: what the job list shows is the same
            self._budget.drop(train_id)

    # -- loading --------------------------------------------------------------------------

    def reload(self) -> Changes:
        """One pass: discover jobs, read what was appended, publish; every directory and file is
        looked at. Safe to call from any thread."""
        keep = self._keep_first and threading.current_thread() is self._thread  # (not another caller's pass)
        with self._load_lock, _CollectorPause(keep) as self._pause:
            return self._reload()

    def poll(self) -> Changes:
        """`reload` as the background loop does it: directories and files unchanged for a while
        (finished runs) are looked at in turn, a tenth at each poll (`poll.Rotation`), so an idle
        poll of thousands of finished runs costs a fraction of looking at all of them. Safe to
        call from any thread."""
        with self._load_lock, _CollectorPause() as self._pause:
            self._polls += 1
            return self._reload(turn=self._polls)

    def reload_changed(self, paths: Iterable[str]) -> Changes:
        """Reload only the jobs whose directories hold `paths` (file change notices); a full
        `reload` when a path may mean a new or removed job. Safe to call from any thread."""
        with self._load_lock:
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
        with self._load_lock:
            self._reload(read=False)
            return sorted(self._loaders)

    def load_job(self, train_id: str) -> JobView | None:
        """Read one job found by the last discovery; its view, or None if it is unknown."""
        with self._load_lock:
            found = self._found.get(train_id)
            if found is None or train_id not in self._loaders:
                return None
            self._budget.hold(_LOADING_ONE, [train_id])  # kept in memory for the caller whatever its size
            try:
                self._reload(only={train_id: found})
                self._serve_held(Changes())  # read before and evicted since: its details back
                return self._views.get(train_id)
            finally:
                self._budget.release(_LOADING_ONE)

    def forget(self, train_id: str) -> None:
        """Drop what was read of a job (memory): it is listed as not loaded, as if just found."""
        with self._load_lock:
            loader = self._loaders.get(train_id)
            if loader is not None:
                self._loaders[train_id] = _JobLoader(train_id, loader.path, self.clock, self._layout_book,
                                                     self._tb_layout_book, self.source, self._unsettled_jobs,
                                                     self._every_step)
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
                    self.error = f"cannot read {self.logdir}: {_describe(exc)}"
                    found = Discovery({}, [])
            self.problems = (*[p for p in found.problems if p not in self._notes], *self._notes)
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
                self._loaders[train_id] = _JobLoader(train_id, found.jobs[train_id].path, self.clock, self._layout_book,
                                                     self._tb_layout_book, self.source, self._unsettled_jobs,
                                                     self._every_step)
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
        return self._stop.is_set() and self._thread is not None

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
                   stats: Mapping[str, dict] | None = None, turn: int | None = None) -> int:
        """Bring every job of `jobs` up to date, in `_order`; on a `full` pass over enough jobs,
        first loads go to the process pool when there is one. Held jobs without details are
        served between jobs. The number of jobs done (counted in the progress on a full pass).
        `stats`: some jobs' `stat_files`, taken earlier in this reload."""
        stats_taken = stats or {}
        pooled = full and len(jobs) >= MIN_JOBS
        count = len(jobs)
        if full:
            jobs = self._unsettled(jobs, turn)
        pending: dict[Future, tuple[FoundJob, int]] = {}  # first loads in the pool (and its generation)
        used_pool = False
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
                    done += self._install_done(pending, total, block=False)
                loader = self._loaders[item.train_id]
                stats = loader.unchanged(item, stats_taken.get(item.train_id))
                if stats is None:
                    done += 1
                    continue  # no file of the job changed: no work, nothing published
                first = not loader.view.loaded
                if first and not loader.files:
                    if self._restore_listed(loader, item, stats):
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
                if pooled and self._poolable(loader, item, stats):
                    while len(pending) >= 2 * self._pool.workers and not self._stopping():
                        done += self._install_done(pending, total, block=True)
                    sent = self._submit(item)
                    if sent is not None:
                        pending[sent[0]] = (item, sent[1])
                        used_pool = True
                        continue
                self._read_in_process(loader, item, stats, total, first)
                done += 1
            while pending and not self._stopping():
                done += self._install_done(pending, total, block=True)
                if full:
                    self.progress.jobs_loaded = done
        finally:
            self._hand_over(restored, total)
            for future in pending:
                future.cancel()
            if used_pool:
                self._pool.close()  # idle workers hold memory; later first loads start new ones
        return done

    def _unsettled(self, jobs: Mapping[str, FoundJob], turn: int | None = None) -> dict[str, FoundJob]:
        """`jobs` but the settled ones whose files each have the same stat (`PollTable`): an idle
        full poll ends here. The jobs left are checked again one by one, in turn, by `unchanged`."""
        if self._poll is None or not self._poll.fits(jobs):
            self._poll = PollTable(jobs, self._loaders, self._unsettled_jobs)
        if not self.source.is_local:  # its stats come from this reload's listing: comparing all is free
            return self._poll.left(jobs, self.source.stat)
        return self._poll.left(jobs, os.stat, turn)  # (the local source's stat is os.stat)

    def _read_in_process(self, loader: _JobLoader, item: FoundJob, stats: dict[str, os.stat_result | OSError],
                         total: Changes, first: bool) -> None:
        if not loader.detailed and loader.needs_reading(item, stats):
            self._restore_details(loader, item, stats)  # an evicted job that grew: read, publish, evict again
        self._reading = loader
        try:
            changes = loader.refresh(item, self.payloads, self.progress, stats,
                                     lambda partial, loader=loader: self._progressed(loader, partial))
        finally:
            self._reading = None
        self._published_refresh(loader, changes, total, first)

    # -- the process pool ---------------------------------------------------------------------

    def _poolable(self, loader: _JobLoader, item: FoundJob, stats: Mapping[str, os.stat_result | OSError]) -> bool:
        """A first load with nothing to go on (no snapshot) and not big: for the pool."""
        if self._pool is None or self._pool.disabled or loader.files or loader.view.loaded or not item.event_files:
            return False
        size = sum(st.st_size for st in (stats.get(name) for name in item.event_files) if isinstance(st, os.stat_result))
        return size <= BIG_JOB_BYTES

    def _submit(self, item: FoundJob) -> tuple[Future, int] | None:
        """The job sent to a loading process; None when the pool cannot take it (read it here)."""
        for _ in range(2):
            generation = self._pool.generation
            try:
                return self._pool.submit(item)
            except BrokenProcessPool:  # a worker died since the last submit: a new pool
                self._pool_died(generation)
            except Exception as exc:  # the processes cannot be started here
                reason = str(exc).strip().splitlines()[0] if str(exc).strip() else ""
                self._note(f"loading processes could not start ({type(exc).__name__}: {reason}); reading in one")
                self._pool.disabled = True
                return None
        return None

    def _pool_died(self, generation: int) -> str:
        note = "a loading process died; its jobs were read again in this process"
        self._note(note)
        self._pool.broke(generation)
        return note

    def _install_done(self, pending: dict[Future, tuple[FoundJob, int]], total: Changes, block: bool) -> int:
        """Install the first loads the pool has finished (waiting a little for one when `block`),
        in the order they were sent, and read here the ones a dead pool lost; how many."""
        if not pending:
            return 0
        finished, _ = wait(list(pending), timeout=0.1 if block else 0, return_when=FIRST_COMPLETED)
        count = 0
        for future, (item, generation) in list(pending.items()):
            if future in finished or not self._pool.live(generation):
                del pending[future]
                self._install(future, item, generation, total)
                count += 1
        if block:
            self._serve_held(total)
        return count

    def _install(self, future: Future, item: FoundJob, generation: int, total: Changes) -> None:
        loader = self._loaders.get(item.train_id)
        if loader is None:
            return
        snapshot = None
        try:
            if future.cancel() or not future.done():  # its pool died before it ran, or while it did
                raise BrokenProcessPool("lost with its pool")
            data, nbytes, nfiles = future.result()
            # With a disk cache the series go there as they are and only the header is read
            # here: most jobs of a big first load would be evicted at once anyway.
            on_disk = self.disk is not None and self.disk.save(loader.path, data, self._where)
            snapshot = decode(data, details=not on_disk)
        except BrokenProcessPool:
            loader.notes.append(self._pool_died(generation))
        except Exception as exc:  # a bug in a worker: read the job here, and say why
            log.exception("reading %s in a loading process failed", shown(item.train_id))
            loader.notes.append(f"reading in a loading process failed ({type(exc).__name__}); read in this process")
        stats = loader.stat_files(item)  # now: the files may have grown since the worker read them
        if snapshot is not None and loader.fits(snapshot, item, stats):
            loader.install(snapshot, from_disk=on_disk)
            self.progress.bytes_read += nbytes
            self.progress.files_read += nfiles
        self._read_in_process(loader, item, stats, total, first=True)

    def _progressed(self, loader: _JobLoader, changes: Changes) -> None:
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
        self._views = {tid: self._loaders[tid].view for tid in sorted(self._loaders)}
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
        views[train_id] = view
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
        """Load in a background thread, then reload on file changes and every `interval` s.

        interval 0 loads once.
        """
        if self._thread is not None:
            return
        self._stop.clear()
        self._thread = threading.Thread(target=self._loop, args=(interval,), name="summary-cache", daemon=True)
        self._thread.start()

    def stop(self) -> None:
        self._stop.set()
        if self._thread is not None:
            self._thread.join(timeout=5)
            self._thread = None
        if self._pool is not None and self._load_lock.acquire(timeout=5):
            try:
                self._pool.close()
            finally:
                self._load_lock.release()

    def _loop(self, interval: float) -> None:
        if interval <= 0:
            self._reload_logged()
            return
        try:
            self._reload_logged(first=True)
            self._loop_on(interval, thaw_at=time.monotonic() + KEEP_FROZEN_SECONDS)
        finally:
            gc.unfreeze()  # (at once when the first pass failed or the cache stops)

    def _loop_on(self, interval: float, thaw_at: float) -> None:
        poll, last_full = interval, time.monotonic()
        for changed in self._wakeups(interval):
            if self._stop.is_set():
                return
            if thaw_at and time.monotonic() >= thaw_at:
                gc.unfreeze()  # the first pass's objects join the oldest generation: collected again, cycles and all
                thaw_at = 0.0
            if changed:
                started = time.monotonic()
                self._reload_logged(changed)
                self._stop.wait(max(0.0, started + LIVE_RELOAD_SECONDS - time.monotonic()))
                continue
            # A timeout. While change notices work, the full poll (a safety net for what
            # notices miss: network file systems, symlinked directories) backs off.
            if self._watching and time.monotonic() - last_full < poll:
                continue
            changes = self._reload_logged(periodic=True)
            last_full = time.monotonic()
            # Nothing the notices missed: the next safety-net poll waits the longest (a poll of
            # 5,000 jobs stats up to 10,000 paths).
            poll = interval if changes or not self._watching else max(interval, MAX_POLL_SECONDS)

    def _reload_logged(self, paths: set[str] | None = None, periodic: bool = False,
                       first: bool = False) -> Changes | None:
        """`reload` (`poll` when `periodic`) on the loop's thread: a failure is logged and the
        next wakeup tries again. `first`: the loop's first pass, whose objects are kept out of
        collections for a while (`_CollectorPause`)."""
        self._keep_first = first
        try:
            if paths is not None:
                return self.reload_changed(paths)
            return self.poll() if periodic else self.reload()
        except Exception:
            log.exception("reloading %s failed", shown(self.logdir))
            return None
        finally:
            self._keep_first = False

    def _wakeups(self, interval: float) -> Iterator[set[str] | None]:
        """Yields the changed paths when files changed (watchfiles), or None when `interval`
        passed; polls if watching fails."""
        try:
            from watchfiles import watch

            if self.source.is_local and not _utf8(self.logdir):
                # watchfiles takes UTF-8 paths only: a LOGDIR whose name is not is polled.
                log.warning("%s: the name is not UTF-8, so changes are found by polling every %gs",
                            shown(self.logdir), interval)
                return (yield from self._poll_wakeups(interval))
            for changes in watch(self.logdir, stop_event=self._stop, rust_timeout=int(interval * 1000),
                                 yield_on_timeout=True, debounce=100, step=50, raise_interrupt=False) \
                    if self.source.is_local else ():  # a remote source is polled
                self._watching = True
                yield {path for _, path in changes} or None
        except Exception:  # no notices on this file system, or it went away: poll instead
            log.exception("watching %s for changes failed; polling every %gs instead", shown(self.logdir), interval)
        yield from self._poll_wakeups(interval)

    def _poll_wakeups(self, interval: float) -> Iterator[None]:
        """None every `interval` seconds until stopped."""
        self._watching = False
        while not self._stop.wait(interval):
            yield None


def _utf8(path: str) -> bool:
    """Whether `path` is valid UTF-8 (no byte that came in as a surrogate escape)."""
    try:
        path.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


class _LoadLock:
    """The lock of loading (reloads, bringing details back), knowing which thread holds it: the
    thread that does (a subscriber is called on it) must not wait for loading (`details`)."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._owner: int | None = None

    def acquire(self, timeout: float = -1) -> bool:
        if not self._lock.acquire(timeout=timeout):
            return False
        self._owner = threading.get_ident()
        return True

    def release(self) -> None:
        self._owner = None
        self._lock.release()

    def __enter__(self) -> "_LoadLock":
        self.acquire()
        return self

    def __exit__(self, *exc: object) -> None:
        self.release()

    def held_here(self) -> bool:
        return self._owner == threading.get_ident()


class _CollectorPause:
    """Python's cycle collector off for the first seconds of a full pass: a pass builds thousands
    of long-lived objects (views), which every collection would traverse again (a tenth of a warm
    start of 5,000 jobs). What the pass frees is freed by reference counting meanwhile; a long
    pass (a cold load) has the collector back after PAUSE_COLLECTOR_SECONDS (`check`).

    `keep` (the reload loop's first pass, while the app starts): the objects are frozen
    (`gc.freeze`) when the collector comes back, until the loop thaws them KEEP_FROZEN_SECONDS
    later. Else the first collections after a warm start of 5,000 jobs traversed the ~200,000
    objects it made three times (young, middle, then a full collection: 0.3 s of CPU on the
    cache's and the UI's threads, while the job list is being built). Thawed, they join the
    oldest generation as survivors would, and are collected again (cycles and all)."""

    def __init__(self, keep: bool = False) -> None:
        self.paused, self.until, self.keep = False, 0.0, keep

    def __enter__(self) -> "_CollectorPause":
        self.paused = gc.isenabled()  # never turned on here if someone else turned it off
        if self.paused:
            gc.disable()
        self.until = time.monotonic() + PAUSE_COLLECTOR_SECONDS
        return self

    def check(self) -> None:
        if self.paused and time.monotonic() > self.until:
            self.resume()

    def resume(self) -> None:
        if self.paused:
            self.paused = False
            if self.keep:
                gc.freeze()
            gc.enable()

    def __exit__(self, *exc: object) -> None:
        self.resume()


def wait_loaded(cache: SummaryCache, timeout: float = 30.0) -> bool:
    """Block until every job found has been loaded once (tests and headless use)."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if cache.progress.reloads and all(v.loaded for v in cache.jobs.values()):
            return True
        time.sleep(0.01)
    return False


_LOADING_ONE = "load_job"  # the hold of `load_job` on the job it reads
_READING = "reading"  # the hold on a job being read while held jobs are served (`_progressed`)

__all__ = ["SummaryCache", "JobView", "Changes", "GraphSource", "FileStatus", "LoadProgress", "wait_loaded"]
