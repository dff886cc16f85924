"""The table of jobs: one row per job, drawn line by line, updated row by row.

A Line-API table rather than Textual's DataTable: DataTable measures every cell it adds or
updates, which for hundreds of jobs reloading live costs tenths of a second; here a row is a
cached strip, rebuilt only when what it says changes, and only visible rows are drawn.

Incremental: a job's change rebuilds its row only. The row moves to its sorted place by bisection
(the shown rows' sort keys are kept sorted beside `order`); column widths come from a count of
cell lengths per column, updated from that row. Only a new filter or order sorts every row again.
The clock moves only visible rows' times (a row scrolled into view is brought up to date before
it is drawn); a live marker that runs out is found in a heap of expiries, not by visiting every row.

The table draws a `JobListState` (`show(state)`: filter, order, marks, the job the cursor goes
to); what the user asks of it (a header click, a cursor move) comes back as messages for the
screen to put in its state. Job ids are drawn as segments: never read as markup.
"""
from __future__ import annotations

import bisect
import heapq
import textwrap
from collections import Counter
from dataclasses import dataclass
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

from ...summary.cache import JobView
from ..common.filters import compile_filter
from ..common.format import relative_time
from ..common.palette import job_colour
from ..common.text import shown
from ..state.jobs import JobListState
from .sparkline import sparkline, trend_tag

LIVE_SECONDS = 60.0  # a job whose files changed this recently is being written
SPARK_WIDTH = 10
PLUGINS = ("scalar", "histogram", "tensor", "image")
MAX_ID_WIDTH = 48

# (key, header, sortable, right-aligned): most telling first, so 80 columns show what matters
COLUMNS: tuple[tuple[str, str, bool, bool], ...] = (
    ("mark", " ", False, False),
    ("id", "job", True, False),
    ("state", "state", True, False),
    ("live", "live", True, False),
    ("step", "last step", True, True),
    ("updated", "updated", True, True),
    ("trend", "trend", False, False),
    ("files", "files s/l/g/p", True, False),
    ("tags", "tags s/h/t/i", True, False),
)
SORTABLE = tuple(key for key, _, sortable, _ in COLUMNS if sortable)
Cell = tuple[str, str]  # text, style
parse_style = lru_cache(maxsize=256)(Style.parse)


def trend_of(view: JobView) -> tuple[str | None, Any]:
    """The tag the trend column draws (`sparkline.trend_tag`) and its values; (None, None) if none."""
    tag = trend_tag(view.digests)  # digests: kept when the job's details are not in memory
    if tag is None:
        return None, None
    return tag, view.digests[tag].spark


def trend_header(tags: Iterable[str | None]) -> str:
    """The trend column's header: which tag the sparklines draw ("trend (loss)")."""
    return header_of_kinds({"loss" in tag.lower() for tag in tags if tag is not None})


def header_of_kinds(kinds: set[bool]) -> str:
    """The trend header when the jobs' trend tags have "loss" in them (True), or not (False)."""
    if kinds == {True}:
        return "trend (loss)"
    if kinds == {False}:
        return "trend (1st tag)"
    if kinds:
        return "trend (loss|1st)"
    return "trend"


def state_style(state: str) -> str:
    if state == "ok":
        return "green"
    if state == "growing":
        return "yellow"
    if state == "loading":
        return "dim"
    return "bold red"


@dataclass
class JobRow:
    cells: dict[str, Cell]
    sort: dict[str, Any]
    trend_tag: str | None = None
    at: float = 0.0  # the clock its "updated" and "live" cells were computed at


def time_cells(row: JobRow, now: float) -> tuple[Cell, Cell, bool]:
    """The "updated" and "live" cells of `row` at `now`, and whether it is live."""
    update_time = row.sort["updated"]
    live = bool(update_time) and now - update_time < LIVE_SECONDS
    updated = (relative_time(update_time, now) if row.cells["updated"][0] != "-" else "-", "")
    return updated, (("● live", "bold green") if live else ("", "")), live


def job_row(view: JobView, now: float, mark_index: int | None) -> JobRow:
    counts = [view.tag_count(p) for p in PLUGINS]
    last = view.last_step
    live = bool(view.update_time) and now - view.update_time < LIVE_SECONDS
    tag, values = trend_of(view)
    files = (len(view.summary_files), len(view.lineage_files), len(view.graph_files), len(view.profile_dirs))
    cells = {
        "mark": ("●", f"bold {job_colour(mark_index)}") if mark_index is not None else (" ", ""),
        "id": (shown(view.train_id), ""),
        "state": (shown(view.state), state_style(view.state)),
        "live": ("● live", "bold green") if live else ("", ""),
        "step": (str(last) if last is not None else "-", ""),
        "updated": (relative_time(view.update_time, now) if view.loaded else "-", ""),
        "trend": (sparkline(values, SPARK_WIDTH) if values is not None else "", "cyan"),
        "files": ("/".join(str(n) for n in files), ""),
        "tags": ("/".join(str(n) for n in counts), ""),
    }
    sort = {
        "id": view.train_id,
        "state": view.state,
        "live": (live, view.update_time),
        "step": last if last is not None else -1,
        "updated": view.update_time,
        "files": sum(files),
        "tags": sum(counts),
    }
    return JobRow(cells, sort, tag, now)


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
        self.trend_header = "trend"
        self.loading_ids: set[str] = set()  # jobs whose row says "loading"
        # What it did, for tests and benchmarks: rows built, measured, placed; full sorts.
        self.work: Counter[str] = Counter()
        self._strips: dict[tuple, Strip] = {}  # rendered rows
        self._keys: list[tuple] = []  # the shown rows' (sort value, train id), ascending
        self._match: Callable[[str], bool] = compile_filter("")
        self._lengths: dict[str, Counter[int]] = {key: Counter() for key, _, _, _ in COLUMNS}
        self._trend_kinds: Counter[bool] = Counter()  # rows whose trend tag has "loss" in it, or not
        self._expiries: list[tuple[float, str]] = []  # (when the live marker runs out, train id)
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
        return self.rows_by_id[train_id].cells[column][0]

    def header(self, column: str) -> str:
        """What a column's header says (without the sort arrow)."""
        if column == "trend":
            return self.trend_header
        return next(header for key, header, _, _ in COLUMNS if key == column)

    def show(self, state: JobListState, views: Mapping[str, JobView], now: float) -> None:
        """Draw `state`: its filter and order; its marks (their colours); the cursor goes to its
        job when the job is shown."""
        old, self.state = self.state, state
        keep = self.current_job
        if (state.filter, state.sort_key, state.reverse) != (old.filter, old.sort_key, old.reverse):
            self._reorder()
        if state.marked != old.marked:
            changed = [tid for tid in self.rows_by_id if (tid in state.marked) or (tid in old.marked)]
            self._update_rows(views, now, changed, force=True)
        elif (state.filter, state.sort_key, state.reverse, state.cursor) == (
                old.filter, old.sort_key, old.reverse, old.cursor):
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
        else:
            changed = self._update_rows(views, now, train_ids, force)
            if len(self.rows_by_id) != len(views):
                gone = [tid for tid in self.rows_by_id if tid not in views]
                for tid in gone:
                    self._drop(tid)
                if gone:
                    self._update_widths()
                    changed = True
            if not changed:
                return
        self._settle(keep)

    def refresh_times(self, now: float) -> None:
        """Once a second: only "updated" and "live" move with the clock, and only the visible
        rows are redone (a row is brought up to date when it scrolls into view). A live marker
        that ran out moves its row wherever it is, as the order by "live" depends on it."""
        self._now = now
        keep = self.current_job
        changed = False
        while self._expiries and self._expiries[0][0] <= now:
            _, tid = heapq.heappop(self._expiries)
            row = self.rows_by_id.get(tid)
            if row is not None and row.sort["live"][0]:
                changed = self._freshen(tid, now) or changed
        for tid in self._visible_ids():
            changed = self._freshen(tid, now) or changed
        if changed:
            self._settle(keep)

    # -- rows, one at a time ------------------------------------------------------------------

    def _sort_key(self, tid: str, row: JobRow) -> tuple:
        return (row.sort[self.state.sort_key], tid)

    def _rebuild(self, views: Mapping[str, JobView], now: float) -> None:
        """Every row from scratch (first paint)."""
        self.rows_by_id = {}
        self.loading_ids = set()
        self._lengths = {key: Counter() for key, _, _, _ in COLUMNS}
        self._trend_kinds = Counter()
        self._expiries = []
        self._now = max(self._now, now)
        for tid, view in views.items():
            row = job_row(view, now, self._mark_index(tid))
            self.work["rows_built"] += 1
            self.rows_by_id[tid] = row
            self._measure(tid, row, 1)
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
                     force: bool) -> bool:
        self._now = max(self._now, now)
        changed = force
        for tid in train_ids:
            view = views.get(tid)
            if view is None:
                continue
            row = job_row(view, now, self._mark_index(tid))
            self.work["rows_built"] += 1
            old = self.rows_by_id.get(tid)
            if (old is None or old.cells != row.cells or old.sort != row.sort
                    or old.trend_tag != row.trend_tag):
                self._set_row(tid, row)
                changed = True
            else:
                old.at = row.at
        if changed:
            self._update_widths()
        return changed

    def _set_row(self, tid: str, row: JobRow) -> None:
        """Put `row` in the table: its old version out, the new one measured and in its place."""
        old = self.rows_by_id.get(tid)
        if old is not None:
            self._measure(tid, old, -1)
            if old.sort[self.state.sort_key] == row.sort[self.state.sort_key]:
                self.rows_by_id[tid] = row  # same place
                self._measure(tid, row, 1)
                return
            self._unplace(tid, old)
        self.rows_by_id[tid] = row
        self._measure(tid, row, 1)
        self._place(tid, row)

    def _drop(self, tid: str) -> None:
        row = self.rows_by_id.pop(tid)
        self._measure(tid, row, -1)
        self._unplace(tid, row)

    def _place(self, tid: str, row: JobRow) -> None:
        if not self._match(tid):
            return
        self.work["rows_placed"] += 1
        key = self._sort_key(tid, row)
        i = bisect.bisect_left(self._keys, key)
        self._keys.insert(i, key)
        self.order.insert(len(self._keys) - 1 - i if self.state.reverse else i, tid)

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

    def _measure(self, tid: str, row: JobRow, sign: int) -> None:
        """Count (sign 1) or uncount (-1) the row's cell lengths, trend tag, loading state, live marker."""
        self.work["rows_measured"] += 1
        for key, (text, _) in row.cells.items():
            lengths = self._lengths[key]
            n = len(text)
            lengths[n] += sign
            if not lengths[n]:
                del lengths[n]
        if row.trend_tag is not None:
            kind = "loss" in row.trend_tag.lower()
            self._trend_kinds[kind] += sign
            if not self._trend_kinds[kind]:
                del self._trend_kinds[kind]
        if sign > 0:
            if row.sort["state"] == "loading":
                self.loading_ids.add(tid)
            else:
                self.loading_ids.discard(tid)
            live, update_time = row.sort["live"]
            if live:
                heapq.heappush(self._expiries, (update_time + LIVE_SECONDS, tid))
                if len(self._expiries) > 2 * len(self.rows_by_id) + 64:  # stale entries: keep it small
                    self._expiries = [(r.sort["updated"] + LIVE_SECONDS, t)
                                      for t, r in self.rows_by_id.items() if r.sort["live"][0]]
                    heapq.heapify(self._expiries)
        elif tid not in self.rows_by_id:
            self.loading_ids.discard(tid)

    def _update_widths(self) -> None:
        self.trend_header = header_of_kinds(set(self._trend_kinds))
        widths = {}
        for key, _, _, _ in COLUMNS:
            cell_width = max(self._lengths[key], default=0)
            widths[key] = max(len(self.header(key)) + (2 if key == self.state.sort_key else 0), cell_width)
        widths["id"] = min(widths["id"], MAX_ID_WIDTH)
        if widths != self.widths:
            self.widths = widths
            self._strips.clear()

    def _freshen(self, tid: str, now: float) -> bool:
        """Bring the row's "updated" and "live" cells to `now`; True if they changed."""
        row = self.rows_by_id.get(tid)
        if row is None or row.at == now:
            return False
        updated, live_cell, live = time_cells(row, now)
        if row.cells["updated"] == updated and row.cells["live"] == live_cell:
            row.at = now
            return False
        cells = {**row.cells, "updated": updated, "live": live_cell}
        sort = {**row.sort, "live": (live, row.sort["updated"])}
        self._set_row(tid, JobRow(cells, sort, row.trend_tag, now))
        self._update_widths()
        return True

    def _visible_ids(self) -> list[str]:
        top = max(0, int(self.scroll_y))
        return self.order[top:top + max(1, self.size.height - 1)]

    def _settle(self, keep: str | None) -> None:
        """Size from the rows; the cursor goes to the state's job if shown, else stays on `keep`."""
        total = sum(w + 2 for w in self.widths.values())
        self.virtual_size = Size(total, len(self.order) + 1)
        if self.order:
            wanted = self.state.cursor if self.state.cursor is not None and self.state.cursor in self.order else keep
            try:
                row = self.order.index(wanted) if wanted is not None else -1
            except ValueError:
                row = -1
            self.cursor_row = row if row >= 0 else min(self.cursor_row, len(self.order) - 1)
        else:
            self.cursor_row = 0
        if len(self._strips) > 4 * max(len(self.rows_by_id), 64):
            self._strips.clear()
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
            visible = self._visible_ids()
            keep = self.current_job
            if True in [self._freshen(tid, self._now) for tid in visible]:
                self._settle(keep)
        window = tuple(self._visible_ids())
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
        return strip.crop(scroll_x, scroll_x + width).adjust_cell_length(width, base)

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
        cells = self.rows_by_id[tid].cells
        cursor = row == self.cursor_row
        focused = self.has_focus
        key = (tid, tuple(cells.values()), cursor, focused, row % 2)
        strip = self._strips.get(key)
        if strip is None:
            line = base + (self._style("job-table--odd") if row % 2 else Style())
            if cursor:
                line = line + self._style("job-table--cursor")
            segments = []
            for column, _, _, right in COLUMNS:
                text, style = cells[column]
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
