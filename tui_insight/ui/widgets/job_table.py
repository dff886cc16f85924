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

The columns fit the width (`state.job_columns.fit_columns`): the least telling go first, empty
ones take no room, and ← → move a column cursor over the columns (one off screen comes in), so
nothing hides behind a horizontal scroll. Rows and their sort values: `job_rows`.

The table draws a `JobListState` (`show(state)`: filter, order, marks, the job the cursor goes
to, the column cursor); what the user asks of it (a header click, a cursor move) comes back as
messages for the screen to put in its state. A new order shows the top of the list. Job ids are
drawn as segments: never read as markup.

Rank groups (`job_groups`): the rows are kept and sorted as above, job by job; when the jobs hold
ranks of one training, the order shown (`order`) is worked out from the sorted jobs at each
settle, a group's row in place of its ranks (and its ranks below it when expanded), and the
group rows are rebuilt from their ranks' rows (a few numbers each).
"""
from __future__ import annotations

import bisect
import heapq
import math
import textwrap
from collections import Counter
from dataclasses import dataclass
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

from ...summary.queries import ranks
from ...summary.queries.health import HealthBook
from ...summary.store.job_view import JobView
from ..common.filters import compile_filter
from ..common.names import middle
from ..common.text import shown
from ..state.job_columns import BY_KEY, COLUMNS, PADDING, SORTABLE, Fit, fit_columns, next_column
from ..state.jobs import JobListState
from ..messages import LatestMessage
from .job_groups import GroupRow, build_group, group_id, grouped_order, is_group
from .job_rows import (_CLOCK_AT, MAX_ID_WIDTH, TEXT_KEYS, JobRow, clock_texts, clock_texts_until, headline_header,
                       job_row, parse_style)

MOVES_ONE_BY_ONE = 64  # rows changing place in one refresh that are moved one at a time (more: in bulk)

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
    /* The columns fit the width (no horizontal scroll); a one-cell scrollbar leaves 79 of 80 columns. */
    JobTable { height: 1fr; background: $surface; overflow-x: hidden; scrollbar-size-vertical: 1; }
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
        Binding("left", "column(-1)", "Column left", show=False, id="jobs.column_left"),
        Binding("right", "column(1)", "Column right", show=False, id="jobs.column_right"),
    ]

    cursor_row: reactive[int] = reactive(0, always_update=True)

    @dataclass
    class Opened(Message):
        """enter, or a click on the row under the cursor."""

        train_id: str

    @dataclass
    class SortChosen(Message):
        """The user asked to sort by `column` (a header click): reverse None flips a repeated column."""

        column: str
        reverse: bool | None = None

    @dataclass
    class ColumnChosen(LatestMessage):
        """The user moved the column cursor (← →) to `column`."""

        column: str

    @dataclass
    class CursorMoved(LatestMessage):
        """The user moved the cursor (keys or mouse) to `train_id`."""

        train_id: str | None

    @dataclass
    class VisibleChanged(LatestMessage):
        """The rows on screen changed (a scroll, the filter, the order, the first paint):
        `train_ids` top to bottom, for the owner to ask the cache to read them first."""

        train_ids: tuple[str, ...]

    def __init__(self, **kwargs: Any):
        super().__init__(**kwargs)
        self.rows_by_id: dict[str, JobRow] = {}
        self.order: list[str] = []  # train ids shown, top to bottom
        self.state = JobListState()
        self.empty_text = ""  # what the table says when it has no job at all
        # Each column's natural width: its header (and sort arrow), its widest cell.
        self.widths: dict[str, int] = {c.key: len(c.header) + (2 if c.key == self.state.sort_key else 0)
                                       for c in COLUMNS}
        self.fit = Fit(tuple(c.key for c in COLUMNS), self.widths["id"])  # the columns shown (`_refit`)
        self.value_header = "headline"
        self.health_book = HealthBook()  # each view's health, computed once (the owner may share it)
        self.loading_ids: set[str] = set()  # jobs whose row says "loading"
        # What it did, for tests and benchmarks: rows built, measured, placed; full sorts.
        self.work: Counter[str] = Counter()
        self._strips: dict[tuple, Strip] = {}  # rendered rows
        self._keys: list[tuple] = []  # the shown rows' (sort value, train id), ascending
        self._match: Callable[[str], bool] = compile_filter("")
        self._lengths: dict[str, Counter[int]] = {c.key: Counter() for c in COLUMNS}
        self._headlines: Counter[str] = Counter()  # rows by their headline tag (the column's header)
        self._expiries: list[tuple[float, str]] = []  # (when the row's clock cells change next, train id)
        self._now = 0.0  # the clock of the latest refresh
        self._window: tuple[str, ...] | None = None  # the rows last said to be visible
        # Rank groups: found again when jobs come or go; their rows and the ranks' badges.
        self.straggler_fraction = ranks.STRAGGLER_FRACTION
        self.groups: list[ranks.RankGroup] = []
        self.member_of: dict[str, ranks.RankGroup] = {}
        self.group_rows: dict[str, GroupRow] = {}
        self.rank_badges: dict[str, tuple[str, ...]] = {}
        self.profile_ranks: dict[str, int] = {}  # the rank a job's profiles name (groups without rank_N)
        self._ids_changed = True

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
    def job_ids(self) -> list[str]:
        """The jobs the filter shows, in order (a group's ranks whether it is expanded or not)."""
        return [key[1] for key in self._keys]

    @property
    def current_group(self) -> ranks.RankGroup | None:
        """The group whose row is under the cursor (None: a job's row)."""
        tid = self.current_job
        row = self.group_rows.get(tid) if tid is not None else None
        return row.group if row is not None else None

    def row(self, row_id: str) -> JobRow:
        """The row of a job, or of a group (`job_groups.group_id`)."""
        row = self.group_rows.get(row_id) if is_group(row_id) else None
        return row if row is not None else self.rows_by_id[row_id]

    @property
    def current_job(self) -> str | None:
        if not self.order or not 0 <= self.cursor_row < len(self.order):
            return None
        return self.order[self.cursor_row]

    def cell(self, train_id: str, column: str) -> str:
        """What a cell says (tests and the palette read it)."""
        row = self.row(train_id)
        if column == "trend":
            return row.trend()[0]
        return self._decorated(train_id, column, row.text(column))

    def header(self, column: str) -> str:
        """What a column's header says (without the sort arrow)."""
        if column == "value":
            return self.value_header
        return BY_KEY[column].header

    @property
    def columns(self) -> tuple[str, ...]:
        """The columns shown, left to right."""
        return self.fit.keys

    def width_of(self, column: str) -> int:
        """How wide `column` is drawn (its cells, without the padding)."""
        return self.fit.id_width if column == "id" else self.widths[column]

    def column_x(self, column: str) -> int:
        """Where `column` starts, in cells from the table's left edge (KeyError: not shown)."""
        left = 0
        for key in self.fit.keys:
            if key == column:
                return left
            left += self.width_of(key) + PADDING
        raise KeyError(column)

    def empty_columns(self) -> tuple[str, ...]:
        """The columns no row says anything in (they take no room unless sorted by)."""
        return tuple(c.key for c in COLUMNS if max(self._lengths[c.key], default=0) == 0)

    def show(self, state: JobListState, views: Mapping[str, JobView], now: float) -> None:
        """Draw `state`: its filter and order; its marks (their colours); the cursor goes to its
        job when the job is shown."""
        old, self.state = self.state, state
        keep = self.current_job
        resorted = (state.sort_key, state.reverse) != (old.sort_key, old.reverse)
        if state.headline != old.headline:
            self._rebuild(views, now)  # every row shows another tag
        elif resorted or state.filter != old.filter:
            self._reorder()
        if state.marked != old.marked:
            changed = [tid for tid in self.rows_by_id if (tid in state.marked) or (tid in old.marked)]
            self._update_rows(views, now, changed, force=True)
        elif state.column != old.column:
            self._refit()
        elif state.expanded != old.expanded:
            pass  # `_settle` shows the ranks of the groups expanded
        elif (state.filter, state.sort_key, state.reverse, state.cursor, state.headline, state.expanded) == (
                old.filter, old.sort_key, old.reverse, old.cursor, old.headline, old.expanded):
            return
        if resorted and state.cursor is None:  # a new order shows the top of the list
            self.cursor_row = 0
            keep = None
            self.scroll_to(y=0, animate=False, immediate=True)
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
        placeholder = self._placeholder_maker(now)
        pending = set()
        added = []
        for tid in train_ids:
            view = views.get(tid)
            if view is None or tid in self.rows_by_id:
                continue
            if not _unread(view):
                pending.add(tid)
            row = placeholder(tid)
            self.rows_by_id[tid] = row
            self._ids_changed = True
            self.loading_ids.add(tid)  # (no headline, no clock to follow)
            added.append(row)
        self._place_all([row.train_id for row in added])
        self._measure(added, 1)
        self.work["placeholders"] += len(added)
        self._update_widths()
        self._settle(keep)
        return pending

    def refresh_times(self, now: float) -> None:
        """At the clock's tick: only the clock cells ("updated", "live", "since", "health") move, and
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

    def next_change(self) -> float | None:
        """When (on the clock `refresh_times` is given) the clock alone next changes what the table
        shows: a visible row's clock cells, or any row's place (`_expiries`). A row not freshened
        yet (`until == at`) is due at once. None: the clock alone changes nothing here."""
        rows = self.rows_by_id
        due = min([rows[tid].until for tid in self.visible_ids() if tid in rows], default=math.inf)
        if self._expiries:
            due = min(due, self._expiries[0][0])
        return None if due == math.inf else due

    # -- rows, one at a time ------------------------------------------------------------------

    def _sort_key(self, tid: str, row: JobRow) -> tuple:
        """Ascending whatever the order's direction (the value is inverted for a descending one):
        rows that tie stay in name order."""
        return (row.sort_value(self.state.sort_key, self.state.reverse), tid)

    def _rebuild(self, views: Mapping[str, JobView], now: float) -> None:
        """Every row from scratch (first paint)."""
        self.rows_by_id = {}
        self._ids_changed = True
        self.profile_ranks = ranks.profile_ranks(views.values())
        self.loading_ids = set()
        self._lengths = {c.key: Counter() for c in COLUMNS}
        self._headlines = Counter()
        self._expiries = []
        self._now = max(self._now, now)
        placeholder = self._placeholder_maker(now)
        for tid, view in views.items():
            if _unread(view):  # its row is built once, when the job is read or restored
                row = placeholder(tid)
                self.work["placeholders"] += 1
            else:
                row = job_row(view, now, self._mark_index(tid), self.state.headline,
                              self.health_book.of(view, self.state.headline))
                self.work["rows_built"] += 1
            self.rows_by_id[tid] = row
            self._loading(tid, row)
        self._measure(self.rows_by_id.values(), 1)
        self._reorder()
        self._update_widths()

    def _placeholder_maker(self, now: float) -> Callable[[str], JobRow]:
        """What makes a job's "loading" row: the row of a job nothing was read of, its mark and
        name put in (built once, shared by all the placeholders)."""
        template = job_row(JobView("", ""), now, None, self.state.headline)
        rest = template.texts[2:]  # what a row says but its mark and id (TEXT_KEYS order)

        def placeholder(tid: str) -> JobRow:
            mark = self._mark_index(tid)
            return JobRow(tid, ("●" if mark is not None else " ", shown(tid), *rest), template.health, mark,
                          template.step, template.files, template.tags, now)
        return placeholder

    def _reorder(self) -> None:
        """The shown rows from scratch: a new filter or order."""
        self.work["full_sorts"] += 1
        self._match = compile_filter(self.state.filter)
        match = self._match
        self._keys = sorted(self._sort_key(tid, row) for tid, row in self.rows_by_id.items() if match(tid))
        self.order = [key[1] for key in self._keys]
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
            if view is not None and view.profile_rank != self.profile_ranks.get(tid):
                self._new_profile_rank(tid, view.profile_rank)
                changed.add(tid)
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
        for tid, old, row in rows:
            self.rows_by_id[tid] = row
            self._ids_changed = self._ids_changed or old is None
            self._loading(tid, row)
        self._place_all(list(moving))

    def _set_row(self, tid: str, row: JobRow) -> None:
        """Put `row` in the table in its sorted place, in place of its old version (the caller
        counts the lengths of both, `_measure`)."""
        old = self.rows_by_id.get(tid)
        key = self.state.sort_key
        if old is None:
            self.rows_by_id[tid] = row
            self._ids_changed = True
            self._place(tid, row)
        elif key != "id" and old.sort_value(key) != row.sort_value(key):
            self._unplace(tid, old)
            self.rows_by_id[tid] = row
            self._place(tid, row)
        else:
            self.rows_by_id[tid] = row  # same place
        self._loading(tid, row)

    def _new_profile_rank(self, tid: str, rank: int | None) -> None:
        """A job's profiles name another rank (or none now): the groups are found again."""
        if rank is None:
            self.profile_ranks.pop(tid, None)
        else:
            self.profile_ranks[tid] = rank
        self._ids_changed = True

    def _drop(self, tid: str) -> None:
        row = self.rows_by_id.pop(tid)
        self.profile_ranks.pop(tid, None)
        self._ids_changed = True
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
        if not self.member_of:  # (with groups, `_settle` works the order out)
            self.order.insert(i, tid)

    def _place_all(self, train_ids: list[str]) -> None:
        """`_place` of many rows: their keys sorted, then merged with the shown rows' (two sorted
        runs: one pass), not inserted one by one (each insert moves half the list along)."""
        rows, match = self.rows_by_id, self._match
        keys = sorted(self._sort_key(tid, rows[tid]) for tid in train_ids if match(tid))
        if not keys:
            return
        self.work["rows_placed"] += len(keys)
        self._keys = sorted(self._keys + keys)
        self.order = [key[1] for key in self._keys]

    def _unplace(self, tid: str, row: JobRow) -> None:
        if not self._match(tid):
            return
        key = self._sort_key(tid, row)
        i = bisect.bisect_left(self._keys, key)
        if i < len(self._keys) and self._keys[i] == key:
            del self._keys[i]
            if not self.member_of:  # (with groups, `_settle` works the order out)
                del self.order[i]
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
        for column in COLUMNS:
            key = column.key
            cell_width = max(self._lengths[key], default=0)
            widths[key] = max(len(self.header(key)) + (2 if key == self.state.sort_key else 0), cell_width)
        for row_id, row in self.group_rows.items():  # (few: a row per group)
            widths["id"] = max(widths["id"], len(row.text("id")))
            widths["health"] = max(widths["health"], len(row.text("health")))
        for tid in self.rank_badges:
            if tid in self.rows_by_id:
                widths["id"] = max(widths["id"], len(self._decorated(tid, "id", self.rows_by_id[tid].text("id"))))
                widths["health"] = max(widths["health"],
                                       len(self._decorated(tid, "health", self.rows_by_id[tid].text("health"))))
        widths["id"] = min(widths["id"], MAX_ID_WIDTH)
        if widths != self.widths:
            self.widths = widths
            self._strips.clear()
        self._refit()

    def _refit(self) -> bool:
        """Choose the columns shown for the width (`fit_columns`); True if they changed."""
        state = self.state
        width = self.scrollable_content_region.width or self.size.width or 80  # (not the scrollbar's)
        fit = fit_columns(self.widths, width, (state.sort_key, state.cursor_column), self.empty_columns())
        if fit == self.fit:
            return False
        self.fit = fit
        self._strips.clear()
        self.refresh()
        return True

    def _freshen(self, tid: str, now: float) -> bool:
        """Bring the row's clock cells to `now`; True if they changed. Not computed again before
        they can change (`clock_texts_until`): the visible rows are freshened at each tick. A row
        is built with `until == at`: its first freshening computes when that is."""
        row = self.rows_by_id.get(tid)
        if row is None or row.at <= now < row.until:
            return False
        texts = list(row.texts)
        for i, text in zip(_CLOCK_AT, clock_texts(row.health, now)):
            texts[i] = text
        until = clock_texts_until(row.health, now)
        if tuple(texts) == row.texts:  # (then so are the sort values: "live" and "health" follow the texts)
            row.at, row.until = now, until
            return False
        new = JobRow(tid, tuple(texts), row.health, row.mark, row.step, row.files, row.tags, now, row.built_from)
        new.until = until
        self._set_row(tid, new)
        self._measure([row], -1)
        self._measure([new], 1)
        self._update_widths()
        return True

    def _regroup(self) -> None:
        """The rank groups (found again when jobs came or went), their rows and the order shown."""
        if self._ids_changed:
            self._ids_changed = False
            self.groups = ranks.group_ranks(self.rows_by_id, self.profile_ranks)
            self.member_of = ranks.group_of(self.groups)
            if not self.member_of:
                self.order = [key[1] for key in self._keys]
        if not self.groups and not self.group_rows:
            return
        expanded = set(self.state.expanded)
        rows, badges = {}, {}
        for group in self.groups:
            built = build_group(group, self.rows_by_id, group.name in expanded, self._now, self.straggler_fraction)
            if built is not None:
                rows[group_id(group)] = built[0]
                badges.update(built[1])
        self.group_rows, self.rank_badges = rows, badges
        self.order = grouped_order(self.job_ids, self.member_of, expanded)
        self._update_widths()

    def _decorated(self, tid: str, column: str, text: str) -> str:
        """A rank's cell as the table draws it: its id indented under its group's row, its
        `straggler` or `rank diverging` badge after the others."""
        if column == "id" and tid in self.member_of:
            return "  " + text
        extra = self.rank_badges.get(tid) if column == "health" else None
        return " ".join((text, *extra)).strip() if extra else text

    def visible_ids(self) -> list[str]:
        """The jobs of the rows on screen, top to bottom."""
        top = max(0, int(self.scroll_y))
        return self.order[top:top + max(1, self.size.height - 1)]

    def _on_screen(self) -> tuple:
        """What decides how the rows on screen look, besides their own cells."""
        return tuple(self.visible_ids()), self.widths, self.fit, self.value_header, self.cursor_row

    def _settle(self, keep: str | None, repaint: bool = True) -> None:
        """Size from the rows; the cursor goes to the state's job if shown, else stays on `keep`.
        `repaint` False: nothing on screen changed (the cursor is set only if it moved)."""
        self._regroup()
        self.virtual_size = Size(self.fit.width(self.widths), len(self.order) + 1)
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

    def action_column(self, step: int) -> None:
        """← →: the column cursor moves over the sortable columns that say something (and the
        sort column); one not shown comes in, others make room."""
        empty = set(self.empty_columns())
        keys = [k for k in SORTABLE if k not in empty or BY_KEY[k].priority < 3
                or k in (self.state.sort_key, self.state.cursor_column)]
        column = next_column(self.state.cursor_column, step, keys)
        if column != self.state.cursor_column:
            self.state = self.state.with_column(column)  # until the screen's state says so too
            self._refit()
            self.post_message(self.ColumnChosen(column))

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
            column = self._column_at(event.x)
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
        for key in self.fit.keys:
            right = left + self.width_of(key) + PADDING
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
            self.post_message(self.VisibleChanged(tuple(t for t in window if not is_group(t))))
        return super().render_lines(crop)

    def _style(self, name: str) -> Style:
        return self.get_component_rich_style(name, partial=True)

    def render_line(self, y: int) -> Strip:
        width = self.size.width
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
        return strip.crop(0, width).adjust_cell_length(width, base)

    def empty_message(self) -> str:
        """Why no row is shown: the filter, or what the owner says (an empty LOGDIR)."""
        if self.rows_by_id and self.state.filter:
            return f"no job matches /{shown(self.state.filter)}/ (esc clears the filter)"
        return shown(self.empty_text)

    def _empty_lines(self, width: int) -> list[str]:
        return [f" {line}" for line in textwrap.wrap(self.empty_message(), max(width - 2, 10),
                                                             break_on_hyphens=False)]

    def _header_strip(self, base: Style) -> Strip:
        """The headers; the column cursor's is drawn reversed, between ‹ › (seen without colour)."""
        style = base + self._style("job-table--header")
        under = style + Style(reverse=True)
        cursor = self.state.cursor_column
        segments = []
        for key in self.fit.keys:
            column = BY_KEY[key]
            label = self.header(key)
            if key == self.state.sort_key:
                label += " ▼" if self.state.reverse else " ▲"
            text = _fit(label, self.width_of(key), column.right)
            if key == cursor:
                segments.append(Segment("‹" + text + "›", under))
            else:
                segments.append(Segment(" " + text + " ", style))
        return Strip(segments)

    def _row_strip(self, row: int, base: Style) -> Strip:
        tid = self.order[row]
        job = self.row(tid)
        cursor = row == self.cursor_row
        focused = self.has_focus
        key = (tid, job.texts, job.mark, job.health.state, job.spark(), cursor, focused, row % 2,
               tid in self.member_of, self.rank_badges.get(tid))
        strip = self._strips.get(key)
        if strip is None:
            line = base + (self._style("job-table--odd") if row % 2 else Style())
            if cursor:
                line = line + self._style("job-table--cursor")
            segments = []
            self.work["trends_drawn"] += 1
            for column in self.fit.keys:
                if column == "trend":
                    text, style = job.trend()
                else:
                    text = self._decorated(tid, column, job.text(column))
                    style = job.style(column, text)
                width = self.width_of(column)
                cell = middle(text, width).ljust(width) if column == "id" else _fit(text, width, BY_KEY[column].right)
                cell_style = line + parse_style(style) if style else line
                if cursor and style:
                    cell_style = cell_style + Style(bgcolor=line.bgcolor) if line.bgcolor else cell_style
                segments.append(Segment(" ", line))
                segments.append(Segment(cell, cell_style))
                segments.append(Segment(" ", line))
            strip = self._strips[key] = Strip(segments)
        return strip

    def on_focus(self) -> None:
        self.refresh()

    def on_blur(self) -> None:
        self.refresh()

    def on_resize(self) -> None:
        self._refit()
        self._settle(self.current_job)
        self._scroll_to_cursor()
