"""What the store publishes: one immutable `JobView` per job, replaced whole when the job
changes, and `Changes` (which jobs, which plugin/tag pairs) told to subscribers."""
from __future__ import annotations

import os
from dataclasses import MISSING, dataclass, field, fields
from types import MappingProxyType
from typing import TYPE_CHECKING, Mapping

from ..formats.file_names import is_tensorboard_file
from ..formats.lineage import JobLineage
from ..formats.values import Locator
from .digest import TagDigest
from .not_shown import NOTHING, NotShown
from .series import Series

if TYPE_CHECKING:
    from ..formats.custom_scalars import Layout

TagKey = tuple[str, str]  # (plugin, tag as written)


@dataclass(frozen=True)
class GraphSource:
    """Where a graph is: a `graph_def` record of a summary file, a whole `.pb` file, or one of
    TensorBoard's other graphs (`formats/tb_graphs.py`)."""

    tag: str
    # "summary", "tensorboard" (a TensorBoard event file's GraphDef), "pb", "op graph" (a
    # traced function's RunMetadata), "keras" (a Keras model's config) or "run metadata" (an
    # Event.tagged_run_metadata)
    kind: str
    path: str
    offset: int  # the record's offset; 0 for "pb"
    step: int
    wall_time: float
    index: int = 0  # "op graph", "keras": the value's position in the event's summary


@dataclass(frozen=True)
class FileStatus:
    """One event file of a job, as the views show it."""

    name: str
    size: int
    records: int
    bad_records: int
    tail_bytes: int
    error: str  # "" or why the file cannot be read
    truncated: bool = False  # an incomplete tail nobody has written to for TRUNCATED_AFTER_SECONDS


# What each job state says, for the job list's help and the exporter's warnings.
RECONNECTING = "reconnecting\N{HORIZONTAL ELLIPSIS}"
STATE_MEANINGS = {
    RECONNECTING: "its host does not answer: shown as last read until it does",
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
    profile_rank: int | None = None  # the one rank its profiles name (`formats/profiler_rank.py`)
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
    # Its host does not answer (several LOGDIRs: `store/lanes.py`): shown as last read meanwhile.
    reconnecting: bool = False

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
        """`reconnecting…`, `loading`, `unreadable: <reason>`, `corrupt: N records`, `truncated`,
        `growing` or `ok`."""
        if self.reconnecting:
            return RECONNECTING
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
        kind = "tensorboard" if is_tensorboard_file(os.path.basename(path)) else "summary"
        return Locator(path, int(cols["offset"][i]), int(cols["index"][i]), kind)

    def tag_count(self, plugin: str) -> int:
        return self.tag_counts.get(plugin, 0)


NO_TAGS: Mapping = MappingProxyType({})  # the tags of a job listed without its details (never written)
# Each field's default, the mappings (`default_factory`) empty and read-only, for `new_view`.
_VIEW_DEFAULTS = {f.name: NO_TAGS if f.default is MISSING else f.default for f in fields(JobView)}


def new_view(**values) -> JobView:
    """`JobView(**values)`, the mappings not given empty (read-only, shared). A warm start makes
    two views per job, thousands: a frozen dataclass's __init__ sets each of the 23 fields
    through object.__setattr__ (2.7 us for a "loading" view; this, 0.4 us)."""
    view = object.__new__(JobView)
    view.__dict__.update(_VIEW_DEFAULTS, **values)
    return view


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

    def jobs(self) -> set[str]:
        """Every job added, removed or with new data."""
        return self.added | self.removed | set(self.updated)

    def tags(self, train_id: str, plugin: str) -> set[str] | None:
        """The tags of `plugin` with new data in job `train_id`: a set (empty: none), or None
        when every tag may have changed (the job came, went, or was read again from scratch,
        which `updated` says with an empty set of tags). The one reading of these rules."""
        if train_id in self.added or train_id in self.removed:
            return None
        keys = self.updated.get(train_id)
        if keys is None:
            return set()
        if not keys:
            return None
        return {tag for kind, tag in keys if kind == plugin}

    def merge(self, other: "Changes") -> None:
        self.added |= other.added
        self.removed |= other.removed
        for job, tags in other.updated.items():
            self.updated.setdefault(job, set()).update(tags)
        self.lineage |= other.lineage
        self.graphs |= other.graphs


@dataclass
class LoadProgress:
    """The cache's load so far: jobs found and loaded, files and bytes read."""

    jobs_found: int = 0
    jobs_loaded: int = 0
    files_read: int = 0
    bytes_read: int = 0
    loading: bool = False
    reloads: int = 0
