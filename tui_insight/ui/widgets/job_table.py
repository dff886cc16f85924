"""The table of jobs: one row per job, drawn line by line, updated row by row.

A Line-API table rather than Textual's DataTable: DataTable measures every cell it adds or
updates, which for hundreds of jobs reloading live costs tenths of a second; here a row is a
cached strip, rebuilt only when what it says changes, and only visible rows are drawn.

Incremental: a job's change rebuilds its row only. The row moves to its sorted place by bisection
(the shown rows' sort keys are kept sorted beside `order`); column widths come from a count of
cell lengths per column, updated from that row. Only a new filter or order sorts every row again.
The clock moves only visible rows' times (a row scrolled into view is brought up to date before
it is drawn); a live marker that runs out, or a live job that stalls, is found in a heap of the
times rows change by the clock alone, not by visiting every row.

The health columns (`summary.health`) show one headline metric per job: the state's choice (`m`),
else each job's loss; the trend sparkline draws the same tag. Rows read the jobs' digests only.

The table draws a `JobListState` (`show(state)`: filter, order, marks, the job the cursor goes
to); what the user asks of it (a header click, a cursor move) comes back as messages for the
screen to put in its state. Job ids are drawn as segments: never read as markup.
"""
from __future__ import annotations

import bisect
import heapq
import math
import textwrap
import weakref
from collections import Counter
from functools import lru_cache
from typing import Any, Callable, Iterable, Mapping

from rich.segment import Segment
from rich.style import Style
from textual.binding import Binding
from textual.events import Click
from textual.geometry import Region, Size
from textual.message import Message
from textual.reactive import reactive
from textual.scroll_view import ScrollView
from textual.strip import Strip

from ...summary.queries.health import HealthBook, JobHealth
from ...summary.store.job_view import JobView
from ..common.filters import compile_filter
from ..common.format import relative_time
from ..common.palette import job_colour
from ..common.text import shown
from ..state.jobs import JobListState
from .sparkline import sparkline

SPARK_WIDTH = 10
PLUGINS = ("scalar", "histogram", "tensor", "image")
MAX_ID_WIDTH = 48
MAX_STATE_WIDTH = 20  # "unreadable: <a long reason>" is cut (the help and the export say it whole)
MAX_HEADLINE_WIDTH = 16  # the headline column's header: a long tag name is cut
MOVES_ONE_BY_ONE = 64  # rows changing place in one refresh that are moved one at a time (more: in bulk)

# (key, header, sortable, right-aligned): most telling first, so 80 columns show the job, its
# state and badges, whether it is live and its headline metric's last and best values.
COLUMNS: tuple[tuple[str, str, bool, bool], ...] = (
    ("mark", " ", False, False),
    ("id", "job", True, False),
    ("state", "state", True, False),
    ("health", "health", True, False),
    ("live", "live", True, False),
    ("value", "headline", True, True),  # the header names the headline tag
    ("best", "best@step", True, True),
    ("trend", "trend", False, False),
    ("change", "Δ10%", True, True),
    ("speed", "steps/s", True, True),
    ("since", "since", False, True),
    ("step", "last step", True, True),
    ("updated", "updated", True, True),
    ("files", "files s/l/g/p", True, False),
    ("tags", "tags s/h/t/i", True, False),
)
SORTABLE = tuple(key for key, _, sortable, _ in COLUMNS if sortable)
Cell = tuple[str, str]  # text, style
parse_style = lru_cache(maxsize=256)(Style.parse)


def headline_header(chosen: str | None, tags: Iterable[str]) -> str:
    """The headline column's header: the chosen tag, else the jobs' default tag when they share
    one, else "headline"."""
    names = set(tags) if chosen is None else {chosen}
    name = shown(next(iter(names))) if len(names) == 1 else "headline"
    return name if len(name) <= MAX_HEADLINE_WIDTH else name[: MAX_HEADLINE_WIDTH - 1] + "…"


def _order_value(value: float | None) -> tuple[int, float]:
    """A number as a sort key: finite values in order, then NaN, inf and missing ones."""
    if value is None or not math.isfinite(value):
        return (1, 0.0)
    return (0, value)


def state_style(state: str) -> str:
    if state == "ok":
        return "green"
    if state == "growing":
        return "yellow"
    if state == "loading":
        return "dim"
    return "bold red"


TEXT_KEYS = tuple(key for key, _, _, _ in COLUMNS if key != "trend")  # the cells a row keeps the text of
_TEXT_AT = {key: i for i, key in enumerate(TEXT_KEYS)}
CLOCK_KEYS = ("health", "live", "since", "updated")  # the cells the clock alone moves
_CLOCK_AT = tuple(_TEXT_AT[key] for key in CLOCK_KEYS)


class JobRow:
    """A job's row. Thousands are built at a warm start and few are seen: a row keeps the text of
    its cells (the columns' widths need every row's) and what its sort values come from, in as
    few objects as it can (the garbage collector walks every object that stays); the cells'
    styles and the sort values are worked out when a row is drawn or sorted."""

    __slots__ = ("train_id", "texts", "health", "mark", "step", "files", "tags", "at", "built_from", "_trend_width")

    def __init__(self, train_id: str, texts: tuple[str, ...], health: JobHealth, mark: int | None, step: int,
                 files: int, tags: int, at: float, built_from: weakref.ref | None = None):
        self.train_id = train_id
        self.texts = texts  # in TEXT_KEYS order
        self.health = health  # the headline and what the clock cells are computed from
        self.mark = mark  # its place in the marking order (its colour), None: not marked
        self.step, self.files, self.tags = step, files, tags  # the last step (-1: none), file and tag counts
        self.at = at  # the clock its clock cells were computed at
        # The view it was built from (None: a placeholder), weakly: a view holds the job's series
        # until the cache drops them, and the list must not keep them alive.
        self.built_from = built_from
        self._trend_width = -1

    def is_from(self, view: JobView) -> bool:
        return self.built_from is not None and self.built_from() is view

    def text(self, key: str) -> str:
        return self.texts[_TEXT_AT[key]]

    def style(self, key: str, text: str) -> str:
        if key == "mark":
            return f"bold {job_colour(self.mark)}" if self.mark is not None else ""
        if key == "state":
            return state_style(self.health.state)
        if key == "live":
            return "bold green" if text else ""
        if key == "health":
            return "bold red" if text else ""
        return ""

    @property
    def cells(self) -> dict[str, Cell]:
        """Every column's cell but the trend's (`trend`): text and style."""
        return {key: (text, self.style(key, text)) for key, text in zip(TEXT_KEYS, self.texts)}

    def sort_value(self, key: str) -> Any:
        """What the row sorts by in column `key`."""
        health = self.health
        if key == "id":
            return self.train_id
        if key == "state":
            return health.state
        if key == "step":
            return self.step
        if key == "updated":
            return health.update_time
        if key == "files":
            return self.files
        if key == "tags":
            return self.tags
        if key == "live":
            return (health.live(self.at), health.update_time)
        if key == "health":
            badges = health.badges(self.at)
            return (len(badges), badges)
        digest = health.digest
        if digest is None:
            return _order_value(None)
        if key == "value":
            return _order_value(digest.last_value)
        if key == "best":
            return _order_value(health.best()[0])
        if key == "change":
            return _order_value(digest.recent_change)
        if key == "speed":
            return _order_value(digest.steps_per_second)
        raise KeyError(key)

    @property
    def sort(self) -> dict[str, Any]:
        return {key: self.sort_value(key) for key in SORTABLE}

    def spark(self) -> tuple[float, ...]:
        digest = self.health.digest
        return digest.spark if digest is not None else ()

    def trend(self) -> Cell:
        """The sparkline cell, drawn only when the row is on screen (its width is `trend_width`,
        known without drawing it)."""
        return sparkline(self.spark(), SPARK_WIDTH), "cyan"

    @property
    def trend_width(self) -> int:
        """The sparkline's length: a character per finite point of the digest's spark (as many
        as the cell is wide at most, as `sparkline` draws them)."""
        if self._trend_width < 0:
            spark = self.spark()
            self._trend_width = (sum(map(math.isfinite, spark)) if len(spark) <= SPARK_WIDTH
                                 else len(self.trend()[0]))
        return self._trend_width


def clock_texts(health: JobHealth, now: float) -> tuple[str, str, str, str]:
    """The text of the cells that move with the clock alone at `now`, in CLOCK_KEYS order."""
    text, _, live = health.clock_cells(now)
    return (text["health"], "● live" if live else "", text["since"],
            relative_time(health.update_time, now) if health.loaded else "-")


def job_row(view: JobView, now: float, mark_index: int | None, headline: str | None = None,
            health: JobHealth | None = None) -> JobRow:
    """The row of `view` at `now`; `headline`: the tag the health columns show (None: the job's
    loss); `health`: `JobHealth.of(view, headline)` when the caller has it already."""
    if health is None:
        health = JobHealth.of(view, headline)  # reads digests only: the job's details may not be in memory
    tag_counts = view.tag_counts
    counts = tuple(tag_counts.get(p, 0) for p in PLUGINS)
    last = view.last_step
    files = (len(view.summary_files) + len(view.tensorboard_files), len(view.lineage_files), len(view.graph_files),
             len(view.profile_dirs))
    metric = health.metric_cells()
    badges, live, since, updated = clock_texts(health, now)
    texts = (  # TEXT_KEYS order
        "●" if mark_index is not None else " ", shown(view.train_id), state_text(health.state, len(view.not_shown)),
        badges, live,
        metric["value"], metric["best"], metric["change"], metric["speed"], since,
        str(last) if last is not None else "-", updated, "%d/%d/%d/%d" % files, "%d/%d/%d/%d" % counts)
    return JobRow(view.train_id, texts, health, mark_index, last if last is not None else -1, sum(files),
                  sum(counts), now, weakref.ref(view))


def state_text(state: str, not_shown: int) -> str:
    """The state cell: the state, and `*N` when the job holds N things no view shows (kinds of
    data, tags over a limit: `JobView.not_shown`), kept whole when a long state is cut."""
    text = shown(state)
    if not not_shown:
        return text
    mark = f" *{not_shown}"
    if len(text) + len(mark) > MAX_STATE_WIDTH:
        text = text[: MAX_STATE_WIDTH - len(mark) - 1] + "…"
    return text + mark


def _unread(view: JobView) -> bool:
    """Nothing of the job was read or found yet: its row is the placeholder's (what `job_row` reads)."""
    return not (view.loaded or view.update_time or view.digests or view.tag_counts or view.last_step is not None
                or view.summary_files or view.tensorboard_files or view.lineage_files or view.graph_files
                or view.profile_dirs)


def _tally(counts: Counter, delta: Counter, sign: int) -> None:
    """Add (sign 1) or take away (-1) `delta` from `counts`; a count that reaches 0 goes."""
    for key, n in delta.items():
        count = counts.get(key, 0) + sign * n
        if count:
            counts[key] = count
        else:
            del counts[key]


def _fit(text: str, width: int, right: bool) -> str:
    if len(text) > width:
        return text[: max(width - 1, 0)] + "…" if width else ""
    return text.rjust(width) if right else text.ljust(width)


class JobTable(ScrollView, can_focus=True):
    """Every job of the cache, filtered and sorted as its `JobListState` says; keeps the cursor on
    the same job (or the state's cursor job once it appears)."""

    HELP_GROUP = "Job list"
    COMPONENT_CLASSES = {"job-table--header", "job-table--cursor", "job-table--odd", "job-table--empty"}
    DEFAULT_CSS = """
    JobTable { height: 1fr; background: $surface; }
    JobTable > .job-table--header { background: $panel; text-style: bold; }
    JobTable > .job-table--odd { background: $background; }
    JobTable > .job-table--cursor { background: $primary 40%; text-style: bold; }
    JobTable:focus > .job-table--cursor { background: $primary; color: $background; }
    JobTable > .job-table--empty { color: $foreground-muted; }
    """
    BINDINGS = [
        Binding("up", "cursor(-1)", "Up", show=False, id="jobs.cursor_up"),
        Binding("down", "cursor(1)", "Down", show=False, id="jobs.cursor_down"),
        Binding("pageup", "page(-1)", "Page up", show=False, id="jobs.page_up"),
        Binding("pagedown", "page(1)", "Page down", show=False, id="jobs.page_down"),
        Binding("home", "to_end(-1)", "First job", show=False, id="jobs.first"),
        Binding("end", "to_end(1)", "Last job", show=False, id="jobs.last"),
    ]

    cursor_row: reactive[int] = reactive(0, always_update=True)

    class Opened(Message):
        """enter, or a click on the row under the cursor."""

        def __init__(self, train_id: str):
            super().__init__()
            self.train_id = train_id

    class SortChosen(Message):
        """The user asked to sort by `column` (a header click): reverse None flips a repeated column."""

        def __init__(self, column: str, reverse: bool | None = None):
            super().__init__()
            self.column, self.reverse = column, reverse

    class CursorMoved(Message):
        """The user moved the cursor (keys or mouse) to `train_id`."""

        def __init__(self, train_id: str | None):
            super().__init__()
            self.train_id = train_id

    class VisibleChanged(Message):
        """The rows on screen changed (a scroll, the filter, the order, the first paint):
        `train_ids` top to bottom, for the owner to ask the cache to read them first."""

        def __init__(self, train_ids: tuple[str, ...]):
            super().__init__()
            self.train_ids = train_ids

    def __init__(self, **kwargs: Any):
        super().__init__(**kwargs)
        self.rows_by_id: dict[str, JobRow] = {}
        self.order: list[str] = []  # train ids shown, top to bottom
        self.state = JobListState()
        self.empty_text = ""  # what the table says when it has no job at all
        self.widths: dict[str, int] = {key: len(header) + (2 if key == self.state.sort_key else 0)
                                       for key, header, _, _ in COLUMNS}  # the header's sort arrow
        self.value_header = "headline"
        self.health_book = HealthBook()  # each view's health, computed once (the owner may share it)
        self.loading_ids: set[str] = set()  # jobs whose row says "loading"
        # What it did, for tests and benchmarks: rows built, measured, placed; full sorts.
        self.work: Counter[str] = Counter()
        self._strips: dict[tuple, Strip] = {}  # rendered rows
        self._keys: list[tuple] = []  # the shown rows' (sort value, train id), ascending
        self._match: Callable[[str], bool] = compile_filter("")
        self._lengths: dict[str, Counter[int]] = {key: Counter() for key, _, _, _ in COLUMNS}
        self._headlines: Counter[str] = Counter()  # rows by their headline tag (the column's header)
        self._expiries: list[tuple[float, str]] = []  # (when the row's clock cells change next, train id)
        self._now = 0.0  # the clock of the latest refresh
        self._window: tuple[str, ...] | None = None  # the rows last said to be visible

    # -- what the owner calls ---------------------------------------------------------------

    @property
    def filter_text(self) -> str:
        return self.state.filter

    @property
    def sort_key(self) -> str:
        return self.state.sort_key

    @property
    def sort_reverse(self) -> bool:
        return self.state.reverse

    @property
    def marked(self) -> tuple[str, ...]:
        return self.state.marked

    @property
    def row_count(self) -> int:
        return len(self.order)

    @property
    def current_job(self) -> str | None:
        if not self.order or not 0 <= self.cursor_row < len(self.order):
            return None
        return self.order[self.cursor_row]

    def cell(self, train_id: str, column: str) -> str:
        """What a cell says (tests and the palette read it)."""
        row = self.rows_by_id[train_id]
        return row.trend()[0] if column == "trend" else row.text(column)

    def header(self, column: str) -> str:
        """What a column's header says (without the sort arrow)."""
        if column == "value":
            return self.value_header
        return next(header for key, header, _, _ in COLUMNS if key == column)

    def column_x(self, column: str) -> int:
        """Where `column` starts, in cells from the table's left edge (before scrolling)."""
        left = 0
        for key, _, _, _ in COLUMNS:
            if key == column:
                return left
            left += self.widths[key] + 2
        raise KeyError(column)

    def show(self, state: JobListState, views: Mapping[str, JobView], now: float) -> None:
        """Draw `state`: its filter and order; its marks (their colours); the cursor goes to its
        job when the job is shown."""
        old, self.state = self.state, state
        keep = self.current_job
        if state.headline != old.headline:
            self._rebuild(views, now)  # every row shows another tag
        elif (state.filter, state.sort_key, state.reverse) != (old.filter, old.sort_key, old.reverse):
            self._reorder()
        if state.marked != old.marked:
            changed = [tid for tid in self.rows_by_id if (tid in state.marked) or (tid in old.marked)]
            self._update_rows(views, now, changed, force=True)
        elif (state.filter, state.sort_key, state.reverse, state.cursor, state.headline) == (
                old.filter, old.sort_key, old.reverse, old.cursor, old.headline):
            return
        self._settle(keep)

    def set_empty_text(self, text: str) -> None:
        if text != self.empty_text:
            self.empty_text = text
            self.refresh()

    def set_sort(self, key: str, reverse: bool | None = None) -> None:
        """Ask to sort by `key` (the screen puts it in its state and the table shows it)."""
        if key in SORTABLE:
            self.post_message(self.SortChosen(key, reverse))

    def refresh_jobs(self, views: Mapping[str, JobView], now: float, train_ids: Iterable[str] | None = None,
                     force: bool = False) -> None:
        """Recompute the rows of `train_ids` (all jobs if None), drop vanished jobs, redraw.

        Each row is rebuilt alone and moved to its sorted place; all rows are sorted again only
        when `train_ids` is None (or most of the rows changed)."""
        keep = self.current_job
        if train_ids is None:
            self._rebuild(views, now)
            self._settle(keep)
            return
        before = self._on_screen()
        changed = self._update_rows(views, now, train_ids, force)
        if len(self.rows_by_id) != len(views):
            gone = [tid for tid in self.rows_by_id if tid not in views]
            for tid in gone:
                self._drop(tid)
            if gone:
                self._update_widths()
                changed.update(gone)
        if changed or force:
            # Rows changed off screen only (thousands restored in slices): no repaint.
            self._settle(keep, repaint=force or before != self._on_screen() or not changed.isdisjoint(before[0]))

    def add_placeholders(self, views: Mapping[str, JobView], now: float, train_ids: Iterable[str]) -> set[str]:
        """Put the new jobs `train_ids` in at once as "loading" rows, to be rebuilt in slices: the
        table's height changes once, not once a slice (each change lays the screen out again).
        The jobs whose placeholder is not their row yet (jobs already read) are returned."""
        keep = self.current_job
        template = job_row(JobView("", ""), now, None, self.state.headline)
        rest = template.texts[2:]  # what a row says but its mark and id (TEXT_KEYS order)
        pending = set()
        added = []
        for tid in train_ids:
            view = views.get(tid)
            if view is None or tid in self.rows_by_id:
                continue
            if not _unread(view):
                pending.add(tid)
            mark = self._mark_index(tid)
            row = JobRow(tid, ("●" if mark is not None else " ", shown(tid), *rest), template.health, mark,
                         template.step, template.files, template.tags, now)
            self.rows_by_id[tid] = row
            self.loading_ids.add(tid)  # (no headline, no clock to follow)
            added.append(row)
        self._place_all([row.train_id for row in added])
        self._measure(added, 1)
        self.work["placeholders"] += len(added)
        self._update_widths()
        self._settle(keep)
        return pending

    def refresh_times(self, now: float) -> None:
        """Once a second: only the clock cells ("updated", "live", "since", "health") move, and
        only the visible rows are redone (a row is brought up to date when it scrolls into view).
        A live marker that ran out, or a job that stalled, moves its row wherever it is, as the
        order by "live" or "health" depends on it."""
        self._now = now
        keep = self.current_job
        changed = False
        while self._expiries and self._expiries[0][0] <= now:
            _, tid = heapq.heappop(self._expiries)
            if tid in self.rows_by_id:
                freshened = self._freshen(tid, now)
                changed = freshened or changed
                if not freshened:
                    self._schedule(tid, self.rows_by_id[tid])
        for tid in self.visible_ids():
            changed = self._freshen(tid, now) or changed
        if changed:
            self._settle(keep)

    # -- rows, one at a time ------------------------------------------------------------------

    def _sort_key(self, tid: str, row: JobRow) -> tuple:
        return (row.sort_value(self.state.sort_key), tid)

    def _rebuild(self, views: Mapping[str, JobView], now: float) -> None:
        """Every row from scratch (first paint)."""
        self.rows_by_id = {}
        self.loading_ids = set()
        self._lengths = {key: Counter() for key, _, _, _ in COLUMNS}
        self._headlines = Counter()
        self._expiries = []
        self._now = max(self._now, now)
        for tid, view in views.items():
            row = job_row(view, now, self._mark_index(tid), self.state.headline,
                          self.health_book.of(view, self.state.headline))
            self.work["rows_built"] += 1
            self.rows_by_id[tid] = row
            self._loading(tid, row)
        self._measure(self.rows_by_id.values(), 1)
        self._reorder()
        self._update_widths()

    def _reorder(self) -> None:
        """The shown rows from scratch: a new filter or order."""
        self.work["full_sorts"] += 1
        self._match = compile_filter(self.state.filter)
        match = self._match
        self._keys = sorted(self._sort_key(tid, row) for tid, row in self.rows_by_id.items() if match(tid))
        ids = [key[1] for key in self._keys]
        self.order = ids[::-1] if self.state.reverse else ids
        self._window = None  # say which rows are visible at the next paint, even if the same
        self._update_widths()  # the sort arrow widens its column's header

    def _update_rows(self, views: Mapping[str, JobView], now: float, train_ids: Iterable[str],
                     force: bool) -> set[str]:
        """The rows of `train_ids` rebuilt; the jobs whose rows changed."""
        self._now = max(self._now, now)
        changed = set()
        rows = []  # (train id, old row or None, new row)
        for tid in train_ids:
            view = views.get(tid)
            old = self.rows_by_id.get(tid)
            if view is None or (old is not None and old.is_from(view) and not force):
                continue  # built from this very view already (the clock cells follow in `_freshen`)
            row = job_row(view, now, self._mark_index(tid), self.state.headline,
                          self.health_book.of(view, self.state.headline))
            self.work["rows_built"] += 1
            if old is None or old.texts != row.texts or old.mark != row.mark or old.health != row.health:
                rows.append((tid, old, row))
                changed.add(tid)
            else:
                old.at = row.at
        if changed:
            self._set_rows(rows)
            self._measure([old for _, old, _ in rows if old is not None], -1)
            self._measure([row for _, _, row in rows], 1)
            self._update_widths()
        return changed

    def _set_rows(self, rows: list[tuple[str, JobRow | None, JobRow]]) -> None:
        """`_set_row` of many rows. When many move (new rows, or rows whose sort value changed:
        thousands replace their placeholders at a warm start sorted by time), they go out and
        in together, one pass over the order and one merge, not a delete and an insert each
        (each moves half the list along)."""
        key = self.state.sort_key
        moving = {tid for tid, old, row in rows
                  if old is None or (key != "id" and old.sort_value(key) != row.sort_value(key))}
        if len(moving) <= MOVES_ONE_BY_ONE:
            for tid, _, row in rows:
                self._set_row(tid, row)
            return
        self._keys = [k for k in self._keys if k[1] not in moving]
        for tid, _, row in rows:
            self.rows_by_id[tid] = row
            self._loading(tid, row)
        self._place_all(list(moving))

    def _set_row(self, tid: str, row: JobRow) -> None:
        """Put `row` in the table in its sorted place, in place of its old version (the caller
        counts the lengths of both, `_measure`)."""
        old = self.rows_by_id.get(tid)
        key = self.state.sort_key
        if old is None:
            self.rows_by_id[tid] = row
            self._place(tid, row)
        elif key != "id" and old.sort_value(key) != row.sort_value(key):
            self._unplace(tid, old)
            self.rows_by_id[tid] = row
            self._place(tid, row)
        else:
            self.rows_by_id[tid] = row  # same place
        self._loading(tid, row)

    def _drop(self, tid: str) -> None:
        row = self.rows_by_id.pop(tid)
        self.health_book.forget(tid)
        self.loading_ids.discard(tid)
        self._measure([row], -1)
        self._unplace(tid, row)

    def _place(self, tid: str, row: JobRow) -> None:
        if not self._match(tid):
            return
        self.work["rows_placed"] += 1
        key = self._sort_key(tid, row)
        i = bisect.bisect_left(self._keys, key)
        self._keys.insert(i, key)
        self.order.insert(len(self._keys) - 1 - i if self.state.reverse else i, tid)

    def _place_all(self, train_ids: list[str]) -> None:
        """`_place` of many rows: their keys sorted, then merged with the shown rows' (two sorted
        runs: one pass), not inserted one by one (each insert moves half the list along)."""
        rows, match = self.rows_by_id, self._match
        keys = sorted(self._sort_key(tid, rows[tid]) for tid in train_ids if match(tid))
        if not keys:
            return
        self.work["rows_placed"] += len(keys)
        self._keys = sorted(self._keys + keys)
        ids = [key[1] for key in self._keys]
        self.order = ids[::-1] if self.state.reverse else ids

    def _unplace(self, tid: str, row: JobRow) -> None:
        if not self._match(tid):
            return
        key = self._sort_key(tid, row)
        i = bisect.bisect_left(self._keys, key)
        if i < len(self._keys) and self._keys[i] == key:
            del self._keys[i]
            del self.order[len(self._keys) - i if self.state.reverse else i]
        else:  # not where it should be: cannot happen, but never leave a wrong order
            self._keys = [k for k in self._keys if k[1] != tid]
            self.order = [t for t in self.order if t != tid]

    def _measure(self, rows: Iterable[JobRow], sign: int) -> None:
        """Count (sign 1) or uncount (-1) the rows' cell lengths and headline tags. In bulk, the
        counting done in C: thousands of rows at a warm start replace their placeholders."""
        rows = list(rows)
        if not rows:
            return
        if sign > 0:
            self.work["rows_measured"] += len(rows)
        for key, column in zip(TEXT_KEYS, zip(*[row.texts for row in rows])):
            _tally(self._lengths[key], Counter(map(len, column)), sign)
        _tally(self._lengths["trend"], Counter([row.trend_width for row in rows]), sign)
        _tally(self._headlines, Counter([row.health.tag for row in rows
                                         if row.health.digest is not None and row.health.tag is not None]), sign)

    def _loading(self, tid: str, row: JobRow) -> None:
        if row.health.state == "loading":
            self.loading_ids.add(tid)
        else:
            self.loading_ids.discard(tid)
        self._schedule(tid, row)

    def _schedule(self, tid: str, row: JobRow) -> None:
        """Remember when the row's clock cells change next (its live marker runs out, it stalls)."""
        when = row.health.next_change(row.at)
        if when is None:
            return
        heapq.heappush(self._expiries, (when, tid))
        if len(self._expiries) > 2 * len(self.rows_by_id) + 64:  # stale entries: keep it small
            entries = ((r.health.next_change(r.at), t) for t, r in self.rows_by_id.items())
            self._expiries = [(w, t) for w, t in entries if w is not None]
            heapq.heapify(self._expiries)

    def _update_widths(self) -> None:
        self.value_header = headline_header(self.state.headline, self._headlines)
        widths = {}
        for key, _, _, _ in COLUMNS:
            cell_width = max(self._lengths[key], default=0)
            widths[key] = max(len(self.header(key)) + (2 if key == self.state.sort_key else 0), cell_width)
        widths["id"] = min(widths["id"], MAX_ID_WIDTH)
        widths["state"] = min(widths["state"], MAX_STATE_WIDTH)
        if widths != self.widths:
            self.widths = widths
            self._strips.clear()

    def _freshen(self, tid: str, now: float) -> bool:
        """Bring the row's clock cells to `now`; True if they changed."""
        row = self.rows_by_id.get(tid)
        if row is None or row.at == now:
            return False
        texts = list(row.texts)
        for i, text in zip(_CLOCK_AT, clock_texts(row.health, now)):
            texts[i] = text
        if tuple(texts) == row.texts:  # (then so are the sort values: "live" and "health" follow the texts)
            row.at = now
            return False
        new = JobRow(tid, tuple(texts), row.health, row.mark, row.step, row.files, row.tags, now, row.built_from)
        self._set_row(tid, new)
        self._measure([row], -1)
        self._measure([new], 1)
        self._update_widths()
        return True

    def visible_ids(self) -> list[str]:
        """The jobs of the rows on screen, top to bottom."""
        top = max(0, int(self.scroll_y))
        return self.order[top:top + max(1, self.size.height - 1)]

    def _on_screen(self) -> tuple:
        """What decides how the rows on screen look, besides their own cells."""
        return tuple(self.visible_ids()), self.widths, self.value_header, self.cursor_row

    def _settle(self, keep: str | None, repaint: bool = True) -> None:
        """Size from the rows; the cursor goes to the state's job if shown, else stays on `keep`.
        `repaint` False: nothing on screen changed (the cursor is set only if it moved)."""
        total = sum(w + 2 for w in self.widths.values())
        self.virtual_size = Size(total, len(self.order) + 1)
        if self.order:
            wanted = self.state.cursor if self.state.cursor is not None and self.state.cursor in self.order else keep
            try:
                row = self.order.index(wanted) if wanted is not None else -1
            except ValueError:
                row = -1
            row = row if row >= 0 else min(self.cursor_row, len(self.order) - 1)
        else:
            row = 0
        if repaint or row != self.cursor_row:
            self.cursor_row = row  # (a watched reactive: scrolls to the cursor and repaints)
        if len(self._strips) > 4 * max(len(self.rows_by_id), 64):
            self._strips.clear()
        if repaint:
            self.refresh()

    # -- keys and mouse ---------------------------------------------------------------------

    def action_cursor(self, move: int) -> None:
        self.move_cursor(self.cursor_row + move)

    def action_page(self, direction: int) -> None:
        self.move_cursor(self.cursor_row + direction * max(1, self.size.height - 2))

    def action_to_end(self, direction: int) -> None:
        self.move_cursor(0 if direction < 0 else len(self.order) - 1)

    def action_cursor_down(self) -> None:  # the name DataTable users know
        self.action_cursor(1)

    def move_cursor(self, row: int) -> None:
        """The user moves the cursor to `row` (the screen is told which job it is on)."""
        if not self.order:
            self.cursor_row = 0
            return
        self.cursor_row = max(0, min(len(self.order) - 1, row))
        self.state = self.state.with_cursor(self.current_job)  # until the screen's state says so too
        self.post_message(self.CursorMoved(self.current_job))

    def watch_cursor_row(self, row: int) -> None:
        self._scroll_to_cursor()
        self.refresh()

    def _scroll_to_cursor(self) -> None:
        visible = max(1, self.size.height - 1)  # the header takes a line
        top = int(self.scroll_y)
        if self.cursor_row < top:
            self.scroll_to(y=self.cursor_row, animate=False, immediate=True)
        elif self.cursor_row >= top + visible:
            self.scroll_to(y=self.cursor_row - visible + 1, animate=False, immediate=True)

    def on_click(self, event: Click) -> None:
        if event.y == 0:
            column = self._column_at(event.x + int(self.scroll_x))
            if column is not None and column in SORTABLE:
                self.post_message(self.SortChosen(column))
            return
        row = int(self.scroll_y) + event.y - 1
        if 0 <= row < len(self.order):
            if row == self.cursor_row or event.chain >= 2:
                self.post_message(self.Opened(self.order[row]))
            else:
                self.move_cursor(row)

    def _column_at(self, x: int) -> str | None:
        left = 0
        for key, _, _, _ in COLUMNS:
            right = left + self.widths[key] + 2
            if left <= x < right:
                return key
            left = right
        return None

    # -- drawing ----------------------------------------------------------------------------

    def _mark_index(self, tid: str) -> int | None:
        return self.state.marked.index(tid) if tid in self.state.marked else None

    def render_lines(self, crop: Region) -> list[Strip]:
        """Before a paint: the visible rows' times are brought to the latest clock, and the owner
        hears when the visible rows changed."""
        if self._now:
            visible = self.visible_ids()
            keep = self.current_job
            if True in [self._freshen(tid, self._now) for tid in visible]:
                self._settle(keep)
        window = tuple(self.visible_ids())
        if window != self._window:
            self._window = window
            self.post_message(self.VisibleChanged(window))
        return super().render_lines(crop)

    def _style(self, name: str) -> Style:
        return self.get_component_rich_style(name, partial=True)

    def render_line(self, y: int) -> Strip:
        width = self.size.width
        scroll_x = int(self.scroll_x)
        base = self.rich_style
        if y == 0:
            strip = self._header_strip(base)
        else:
            row = int(self.scroll_y) + y - 1
            if not 0 <= row < len(self.order):
                lines = self._empty_lines(width) if not self.order else []
                if row < len(lines):
                    style = base + self._style("job-table--empty")
                    return Strip([Segment(lines[row], style)]).adjust_cell_length(width, base)
                return Strip.blank(width, base)
            strip = self._row_strip(row, base)
        return strip.crop(scroll_x, self._last_whole_column(scroll_x, width)).adjust_cell_length(width, base)

    def _last_whole_column(self, left: int, width: int) -> int:
        """The right edge of the last column shown whole from `left` in `width` cells: a column the
        edge of the screen would cut is left blank (scroll right to see it)."""
        edge = 0
        for key, _, _, _ in COLUMNS:
            right = edge + self.widths[key] + 2
            if right > left + width:
                return edge if edge > left else left + width
            edge = right
        return left + width

    def empty_message(self) -> str:
        """Why no row is shown: the filter, or what the owner says (an empty LOGDIR)."""
        if self.rows_by_id and self.state.filter:
            return f"no job matches /{shown(self.state.filter)}/ (esc clears the filter)"
        return shown(self.empty_text)

    def _empty_lines(self, width: int) -> list[str]:
        return [f" {line}" for line in textwrap.wrap(self.empty_message(), max(width - 2, 10),
                                                             break_on_hyphens=False)]

    def _header_strip(self, base: Style) -> Strip:
        style = base + self._style("job-table--header")
        segments = []
        for key, _, _, right in COLUMNS:
            label = self.header(key)
            if key == self.state.sort_key:
                label += " ▼" if self.state.reverse else " ▲"
            segments.append(Segment(" " + _fit(label, self.widths[key], right) + " ", style))
        return Strip(segments)

    def _row_strip(self, row: int, base: Style) -> Strip:
        tid = self.order[row]
        job = self.rows_by_id[tid]
        cursor = row == self.cursor_row
        focused = self.has_focus
        key = (tid, job.texts, job.mark, job.health.state, job.spark(), cursor, focused, row % 2)
        strip = self._strips.get(key)
        if strip is None:
            line = base + (self._style("job-table--odd") if row % 2 else Style())
            if cursor:
                line = line + self._style("job-table--cursor")
            segments = []
            self.work["trends_drawn"] += 1
            texts = iter(job.texts)
            for column, _, _, right in COLUMNS:
                if column == "trend":
                    text, style = job.trend()
                else:
                    text = next(texts)
                    style = job.style(column, text)
                cell_style = line + parse_style(style) if style else line
                if cursor and style:
                    cell_style = cell_style + Style(bgcolor=line.bgcolor) if line.bgcolor else cell_style
                segments.append(Segment(" ", line))
                segments.append(Segment(_fit(text, self.widths[column], right), cell_style))
                segments.append(Segment(" ", line))
            strip = self._strips[key] = Strip(segments)
        return strip

    def on_focus(self) -> None:
        self.refresh()

    def on_blur(self) -> None:
        self.refresh()

    def on_resize(self) -> None:
        self._scroll_to_cursor()
