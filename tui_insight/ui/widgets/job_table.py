"""The table of jobs: one row per job, updated cell by cell as the cache changes."""
from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any, Callable, Iterable, Mapping

from rich.text import Text
from textual.widgets import DataTable

from ...summary.cache import JobView
from ..format import relative_time
from ..palette import job_colour
from .sparkline import sparkline

LIVE_SECONDS = 60.0  # a job whose files changed this recently is being written
SPARK_WIDTH = 10
PLUGINS = ("scalar", "histogram", "tensor", "image")

# (key, header, sortable)
COLUMNS: tuple[tuple[str, str, bool], ...] = (
    ("mark", " ", False),
    ("id", "job", True),
    ("state", "state", True),
    ("live", "live", True),
    ("step", "last step", True),
    ("updated", "updated", True),
    ("trend", "trend", False),
    ("files", "files s/l/g", True),
    ("tags", "tags s/h/t/i", True),
)
SORTABLE = tuple(key for key, _, sortable in COLUMNS if sortable)
COLUMN_WIDTHS = {"mark": 1, "updated": 8, "trend": SPARK_WIDTH, "live": 6}


def compile_filter(text: str) -> Callable[[str], bool]:
    """A match function for the `/` filter: a regex if `text` is one, else a plain substring."""
    if not text:
        return lambda _: True
    try:
        pattern = re.compile(text, re.IGNORECASE)
        return lambda s: pattern.search(s) is not None
    except re.error:
        lowered = text.lower()
        return lambda s: lowered in s.lower()


def first_scalar_values(view: JobView):
    for (plugin, _tag), series in view.tags.items():  # first-seen order
        if plugin == "scalar" and len(series):
            return series.values
    return None


def state_text(state: str) -> Text:
    if state == "ok":
        style = "green"
    elif state == "growing":
        style = "yellow"
    elif state == "loading":
        style = "dim"
    else:
        style = "bold red"
    return Text(state, style=style)


@dataclass
class JobRow:
    cells: dict[str, Any]
    sort: dict[str, Any]
    plain: dict[str, str]  # what each cell says, to skip updates that change nothing


def job_row(view: JobView, now: float, mark_index: int | None) -> JobRow:
    counts = [len(view.tag_names(p)) for p in PLUGINS]
    last = view.last_step
    live = bool(view.update_time) and now - view.update_time < LIVE_SECONDS
    values = first_scalar_values(view)
    spark = sparkline(values, SPARK_WIDTH) if values is not None else ""
    files = (len(view.summary_files), len(view.lineage_files), len(view.graph_files))
    updated = relative_time(view.update_time, now) if view.loaded else "-"
    mark = Text("●", style=f"bold {job_colour(mark_index)}") if mark_index is not None else Text(" ")
    cells = {
        "mark": mark,
        "id": view.train_id,
        "state": state_text(view.state),
        "files": "/".join(str(n) for n in files),
        "tags": "/".join(str(n) for n in counts),
        "step": Text(str(last) if last is not None else "-", justify="right"),
        "updated": Text(updated, justify="right"),
        "trend": Text(spark, style="cyan"),
        "live": Text("● live", style="bold green") if live else Text(""),
    }
    plain = {k: (v.plain if isinstance(v, Text) else str(v)) + (str(v.style) if isinstance(v, Text) else "")
             for k, v in cells.items()}
    sort = {
        "id": view.train_id,
        "state": view.state,
        "files": sum(files),
        "tags": sum(counts),
        "step": last if last is not None else -1,
        "updated": view.update_time,
        "live": (live, view.update_time),
    }
    return JobRow(cells, sort, plain)


class JobTable(DataTable):
    """Every job of the cache, filtered and sorted; keeps the cursor on the same job."""

    DEFAULT_CSS = """
    JobTable { height: 1fr; }
    """

    def __init__(self, **kwargs: Any):
        super().__init__(cursor_type="row", zebra_stripes=True, **kwargs)
        self.rows_by_id: dict[str, JobRow] = {}
        self.order: list[str] = []  # train ids shown, top to bottom
        self.filter_text = ""
        self.sort_key = "id"
        self.sort_reverse = False
        self.marked: list[str] = []

    def on_mount(self) -> None:
        self._ensure_columns()

    def _ensure_columns(self) -> None:
        """Columns are added on first use, whichever of mount and the first fill comes first."""
        if not self.columns:
            for key, header, _ in COLUMNS:
                self.add_column(header, key=key, width=COLUMN_WIDTHS.get(key))
            self._label_sorted_column()

    # -- what the owner calls ---------------------------------------------------------------

    @property
    def current_job(self) -> str | None:
        if not self.order or self.cursor_row < 0 or self.cursor_row >= len(self.order):
            return None
        return self.order[self.cursor_row]

    def refresh_jobs(self, views: Mapping[str, JobView], now: float, train_ids: Iterable[str] | None = None) -> None:
        """Recompute the rows of `train_ids` (all jobs if None), drop vanished jobs, redraw."""
        self._ensure_columns()
        if train_ids is None:
            self.rows_by_id = {}
            train_ids = views.keys()
        for tid in list(self.rows_by_id):
            if tid not in views:
                del self.rows_by_id[tid]
        changed = set()
        for tid in train_ids:
            view = views.get(tid)
            if view is None:
                continue
            row = job_row(view, now, self._mark_index(tid))
            old = self.rows_by_id.get(tid)
            if old is None or old.plain != row.plain or old.sort != row.sort:
                self.rows_by_id[tid] = row
                changed.add(tid)
        self._sync(changed)

    def set_filter(self, text: str) -> None:
        self.filter_text = text
        self._sync(set())

    def set_sort(self, key: str, reverse: bool | None = None) -> None:
        if key not in SORTABLE:
            return
        if reverse is None:
            reverse = not self.sort_reverse if key == self.sort_key else False
        self.sort_key, self.sort_reverse = key, reverse
        self._label_sorted_column()
        self._sync(set())

    def set_marked(self, marked: list[str], views: Mapping[str, JobView], now: float) -> None:
        self.marked = list(marked)
        self.refresh_jobs(views, now, list(self.rows_by_id))

    # -- internals --------------------------------------------------------------------------

    def _mark_index(self, tid: str) -> int | None:
        return self.marked.index(tid) if tid in self.marked else None

    def _visible_order(self) -> list[str]:
        match = compile_filter(self.filter_text)
        ids = [tid for tid in self.rows_by_id if match(tid)]
        key = self.sort_key
        ids.sort(key=lambda tid: (self.rows_by_id[tid].sort[key], tid), reverse=self.sort_reverse)
        return ids

    def _sync(self, changed: set[str]) -> None:
        order = self._visible_order()
        if order == self.order and self.row_count == len(order):
            for tid in changed:
                if tid in self.rows_by_id and tid in order:
                    for key, value in self.rows_by_id[tid].cells.items():
                        self.update_cell(tid, key, value)
            return
        keep = self.current_job
        old_row = self.cursor_row
        self.clear()
        self.order = order
        for tid in order:
            cells = self.rows_by_id[tid].cells
            self.add_row(*(cells[key] for key, _, _ in COLUMNS), key=tid)
        if order:
            row = order.index(keep) if keep in order else min(max(old_row, 0), len(order) - 1)
            self.move_cursor(row=row, animate=False)

    def _label_sorted_column(self) -> None:
        for key, header, _ in COLUMNS:
            column = self.columns.get(key)  # type: ignore[call-overload]
            if column is None:
                continue
            arrow = (" ▼" if self.sort_reverse else " ▲") if key == self.sort_key else ""
            column.label = Text(header + arrow)
        self.refresh()
