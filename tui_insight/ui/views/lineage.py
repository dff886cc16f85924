"""The lineage view (`l`): every job's model lineage in one table, and their dataset pipelines.

Model lineage: one row per job that has lineage (as MindInsight, jobs without lineage are not
listed), the columns of §6.2, MindInsight's default columns (`v` chooses). `s` sorts by the
column under the cursor (again: the other way; missing values stay last), `/` filters with
conditions (`learning_rate>=0.01 optimizer=Momentum metric/Accuracy>0.5`); a condition that
cannot be read is reported under the box and the table keeps the last good filter.

Dataset lineage (`t`): the same jobs, one column per parameter of each pipeline stage
(source first), so runs with different pipelines stand side by side; the pane beside it shows
the selected job's whole pipeline. Both tables follow the same filter and order.

The queries (rows, columns, conditions, sorting) are `summary.lineage`; this module only
formats and lays out. The cache's lineage is in memory, so rebuilding the rows on a change
reads no file.
"""
from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any, Mapping

from rich.markup import escape
from rich.text import Text
from textual import on
from textual.actions import SkipAction
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.events import Resize
from textual.widgets import ContentSwitcher, Input, Static, Tab, Tabs

from ...summary.cache import Changes
from ...summary.lineage import (
    FLOAT_COLUMNS,
    INT_COLUMNS,
    METRIC,
    USER_DEFINED,
    Condition,
    LineageQueryError,
    LineageRow,
    columns,
    default_columns,
    filter_rows,
    model_rows,
    parse_conditions,
    sort_rows,
)
from ..common.format import number
from .base import DataView, ViewSpec
from ..widgets.lineage_columns import LineageColumnsScreen
from ..widgets.lineage_dataset import Stage, pipeline_detail, pipeline_stages, stage_columns, value_text
from ..widgets.lineage_table import Cell, LineageTable, TableColumn
from ..common.focus import focus_now

if TYPE_CHECKING:
    from ..app import InsightApp

KEY_COLUMN = "summary_dir"  # always shown, first, fixed when scrolling sideways
MARK_COLUMN = "dataset_mark"
MODEL, DATASET = "model", "dataset"
PATH_WIDTH = 26  # dataset paths are cut at the front: their end tells them apart
NARROW = 110  # below this width the dataset detail goes under its table
FILTER_HINT = "operators = != < > <= >= in not_in · all must hold · \"quote\" text · enter: done · escape: clear"


def cell_text(value: Any, column: str = "") -> Cell:
    """A model-lineage value for a cell: numbers compact, long paths by their end (full values
    go to the export)."""
    if value is None:
        return None
    if isinstance(value, bool):
        return str(value)
    if isinstance(value, float):
        return number(value)
    if isinstance(value, (dict, list, tuple)):
        return json.dumps(value, sort_keys=True, default=str)
    text = str(value)
    if column.endswith("_path") and len(text) > PATH_WIDTH:
        return "…" + text[-(PATH_WIDTH - 1):]
    return text


def is_numeric(column: str, rows: list[LineageRow]) -> bool:
    if column in INT_COLUMNS or column in FLOAT_COLUMNS or column.startswith(METRIC):
        return True
    if column.startswith(USER_DEFINED):
        values = [row.get(column) for row in rows if row.get(column) is not None]
        return bool(values) and all(isinstance(v, (int, float)) and not isinstance(v, bool) for v in values)
    return False


class LineageView(DataView):
    SPEC = ViewSpec("lineage", "Lineage", "l", (), "all")
    HELP_GROUP = "Lineage"
    DEFAULT_CSS = """
    LineageView { layout: vertical; }
    LineageView #lineage-tabs { height: 2; }
    LineageView #lineage-filter-box { height: auto; display: none; }
    LineageView #lineage-filter-box.-shown { display: block; }
    LineageView #lineage-filter { height: 3; }
    LineageView #lineage-message { height: auto; max-height: 2; padding: 0 1; color: $foreground-muted; }
    LineageView #lineage-message.-error { color: $error; text-style: bold; }
    LineageView #lineage-modes { height: 1fr; }
    LineageView #lineage-dataset { height: 1fr; }
    LineageView #lineage-dataset-table { width: 1fr; height: 1fr; }
    LineageView #lineage-detail-scroll {
        width: 40%; max-width: 72; height: 1fr; border-left: solid $panel-lighten-2; padding: 0 1;
    }
    LineageView.-narrow #lineage-dataset { layout: vertical; }
    LineageView.-narrow #lineage-detail-scroll {
        width: 1fr; height: 40%; border-left: none; border-top: solid $panel-lighten-2;
    }
    LineageView #lineage-status { height: 1; padding: 0 1; background: $panel; }
    """
    BINDINGS = [
        Binding("enter", "open", "Open job", id="lineage.open"),
        Binding("slash", "filter", "Filter", id="lineage.filter"),
        Binding("s", "sort", "Sort by column", id="lineage.sort"),
        Binding("S", "sort_reverse", "Reverse sort", show=False, id="lineage.sort_reverse"),
        Binding("o", "sort_clear", "Newest first", show=False, id="lineage.sort_clear"),
        Binding("v", "choose_columns", "Columns", id="lineage.columns"),
        Binding("t", "switch_mode", "Model/dataset", id="lineage.mode"),
        Binding("escape", "clear_filter", "Clear filter", show=False, id="lineage.clear_filter"),
    ]

    app: "InsightApp"

    def __init__(self, cache, train_ids: tuple[str, ...], **kwargs: Any):
        super().__init__(cache, train_ids, **kwargs)
        self.mode = MODEL
        self.rows: list[LineageRow] = []  # every job with lineage, MindInsight's order (newest first)
        self.rows_by_id: dict[str, LineageRow] = {}
        self.shown: list[LineageRow] = []  # after filter and sort
        self.all_columns: list[str] = []
        self.defaults: list[str] = []
        self.chosen: set[str] | None = None  # the user's pick with `v`, None: MindInsight's defaults
        self.known_when_chosen: set[str] = set()  # columns that existed when the user picked
        self.filter_text = ""
        self.conditions: list[Condition] = []  # the last filter that could be read
        self.filter_error = ""
        self.sort_column: str | None = None  # None: MindInsight's order
        self.sort_descending = False
        self.stages: dict[str, list[Stage]] = {}

    # -- layout ---------------------------------------------------------------------------

    def compose(self) -> ComposeResult:
        yield Tabs(Tab("Model lineage", id="tab-model"), Tab("Dataset lineage", id="tab-dataset"),
                   id="lineage-tabs")
        with Vertical(id="lineage-filter-box"):
            yield Input(placeholder="filter: learning_rate>=0.01 optimizer=Momentum metric/Accuracy>0.5",
                        id="lineage-filter")
            yield Static(FILTER_HINT, id="lineage-message")
        with ContentSwitcher(initial="lineage-model", id="lineage-modes"):
            yield LineageTable(id="lineage-model")
            with Horizontal(id="lineage-dataset"):
                yield LineageTable(id="lineage-dataset-table")
                with VerticalScroll(id="lineage-detail-scroll"):
                    yield Static("", id="lineage-detail")
        yield Static("", id="lineage-status")

    def on_mount(self) -> None:
        self.query_one(Tabs).can_focus = False
        self.query_one("#lineage-detail-scroll", VerticalScroll).can_focus = True
        self.refresh_rows()
        self.call_after_refresh(self.ready_for_keys)  # interim: the view takes the keys when ready

    def on_resize(self, event: Resize) -> None:
        self.set_class(event.size.width < NARROW, "-narrow")

    @property
    def model_table(self) -> LineageTable:
        return self.query_one("#lineage-model", LineageTable)

    @property
    def dataset_table(self) -> LineageTable:
        return self.query_one("#lineage-dataset-table", LineageTable)

    @property
    def active_table(self) -> LineageTable:
        return self.model_table if self.mode == MODEL else self.dataset_table

    def focus_view(self) -> None:
        focus_now(self.active_table)

    # -- rows and columns ---------------------------------------------------------------------

    def _jobs(self) -> Mapping[str, Any]:
        views = self.cache.jobs
        return {tid: views[tid] for tid in self.train_ids if tid in views}

    def refresh_rows(self) -> None:
        """Rebuild the rows from the cache (lineage is in memory); keep filter, sort, cursors."""
        self.rows = model_rows(self._jobs())
        self.rows_by_id = {row.summary_dir: row for row in self.rows}
        self.all_columns = columns(self.rows)
        self.defaults = default_columns(self.rows)
        # Jobs with equal dataset graphs share a dataset_mark: read each distinct pipeline once.
        by_mark: dict[Any, list[Stage]] = {}
        self.stages = {}
        for row in self.rows:
            mark = row.get(MARK_COLUMN)
            if mark is None or mark not in by_mark:
                stages = pipeline_stages(row.dataset_graph)
                if mark is not None:
                    by_mark[mark] = stages
            self.stages[row.summary_dir] = by_mark.get(mark) if mark is not None else stages
        if self.filter_text:
            self._read_filter(self.filter_text)
        self.shown = self._ordered_rows()
        self._fill_model_table()
        self._fill_dataset_table()
        self._apply_order()

    def visible_columns(self) -> list[str]:
        shown = []
        for column in self.all_columns:
            if column == KEY_COLUMN:
                shown.append(column)
            elif self.chosen is not None and column in self.known_when_chosen:
                if column in self.chosen:
                    shown.append(column)
            elif column in self.defaults:  # MindInsight's defaults, and new columns' defaults
                shown.append(column)
        return shown

    def _fill_model_table(self) -> None:
        names = self.visible_columns()
        table_columns = [TableColumn(name, name, is_numeric(name, self.rows)) for name in names]
        cells = {row.summary_dir: [cell_text(row.get(name), name) for name in names] for row in self.rows}
        self.model_table.set_table(table_columns, cells, [row.summary_dir for row in self.shown])

    def _fill_dataset_table(self) -> None:
        pairs = stage_columns(self.stages[row.summary_dir] for row in self.rows)
        table_columns = [TableColumn(KEY_COLUMN, KEY_COLUMN), TableColumn(MARK_COLUMN, "pipeline")]
        table_columns += [TableColumn(f"{stage}.{param}", param, group=stage) for stage, param in pairs]
        cells: dict[str, list[Cell]] = {}
        by_mark: dict[Any, list[Cell]] = {}  # the stage cells of each distinct pipeline
        for row in self.rows:
            mark = row.get(MARK_COLUMN)
            stage_cells = by_mark.get(mark) if mark is not None else None
            if stage_cells is None:
                by_name = {stage.name: stage for stage in self.stages[row.summary_dir]}
                stage_cells = []
                for stage, param in pairs:
                    found = by_name.get(stage)
                    stage_cells.append(value_text(found.params.get(param)) if found is not None else None)
                if mark is not None:
                    by_mark[mark] = stage_cells
            cells[row.summary_dir] = [row.summary_dir, cell_text(mark), *stage_cells]
        # Columns where the jobs differ are what the table is for: the others are drawn dim.
        for i in range(2, len(table_columns)):
            if len({cells[tid][i] for tid in cells}) <= 1:
                for tid in cells:
                    value = cells[tid][i]
                    if value is not None:
                        cells[tid][i] = Text(value, style="dim")
        self.dataset_table.set_table(table_columns, cells, [row.summary_dir for row in self.shown])

    def _ordered_rows(self) -> list[LineageRow]:
        """The rows the filter keeps, in the chosen order (summary.lineage queries)."""
        shown = filter_rows(self.rows, self.conditions) if self.conditions else list(self.rows)
        if self.sort_column is not None:
            shown = sort_rows(shown, self.sort_column, self.sort_descending)
        return shown

    def _apply_order(self) -> None:
        """Show the filtered, sorted rows in both tables."""
        self.shown = self._ordered_rows()
        order = [row.summary_dir for row in self.shown]
        if self.rows:
            empty = "no job matches the filter (escape clears it)"
        elif self.cache.progress.loading:
            empty = "loading…"
        else:
            empty = "no job has lineage (no _lineage file in LOGDIR yet)"
        for table in (self.model_table, self.dataset_table):
            table.empty_text = empty
            table.set_sort(self.sort_column, self.sort_descending)
            table.set_order(order)
        self._update_detail()
        self._update_status()

    def _update_detail(self) -> None:
        tid = self.dataset_table.current_row_key
        detail = self.query_one("#lineage-detail", Static)
        if tid is None or tid not in self.rows_by_id:
            detail.update("[dim]no job selected[/dim]")
            return
        detail.update(pipeline_detail(tid, self.stages.get(tid, []), self.rows_by_id[tid].get(MARK_COLUMN)))

    def _update_status(self) -> None:
        total = len(self.cache.jobs)
        with_lineage = len(self.rows)
        parts = [f"[b]{with_lineage}[/b] of {total} job{'s' if total != 1 else ''} with lineage"]
        if self.conditions:
            parts.append(f"[b]{len(self.shown)}[/b] shown by [i]{escape(' '.join(map(str, self.conditions)))}[/i]")
        if self.sort_column is not None:
            arrow = "▼" if self.sort_descending else "▲"
            parts.append(f"sorted by {escape(self.sort_column)} {arrow}")
        else:
            parts.append("newest first")
        if self.mode == MODEL:
            hidden = len(self.all_columns) - len(self.visible_columns())
            if hidden:
                parts.append(f"{hidden} column{'s' if hidden != 1 else ''} hidden (v)")
        if self.cache.progress.loading and not self.rows:
            parts.append("[dim]loading…[/dim]")
        self.query_one("#lineage-status", Static).update(" · ".join(parts))

    # -- live updates ---------------------------------------------------------------------

    def cache_changed(self, changes: Changes) -> None:
        if changes.lineage or changes.added or changes.removed:
            self.refresh_rows()
        elif not self.rows:
            self._apply_order()  # "loading…" turns into "no job has lineage"
        else:
            self._update_status()

    # -- filter ---------------------------------------------------------------------------

    def _read_filter(self, text: str) -> bool:
        """Parse `text`; keep the last good conditions and say why when it cannot be read."""
        message = self.query_one("#lineage-message", Static)
        try:
            conditions = parse_conditions(text, self.all_columns)
        except LineageQueryError as exc:
            self.filter_error = str(exc)
            message.update(escape(f"{exc} · the table keeps the last good filter"))
            message.add_class("-error")
            return False
        self.filter_error = ""
        self.conditions = conditions
        message.update(FILTER_HINT)
        message.remove_class("-error")
        return True

    def action_filter(self) -> None:
        self.query_one("#lineage-filter-box").add_class("-shown")
        focus_now(self.query_one("#lineage-filter", Input))

    @on(Input.Changed, "#lineage-filter")
    def _filter_changed(self, event: Input.Changed) -> None:
        event.stop()
        self.filter_text = event.value
        if self._read_filter(event.value):
            self._apply_order()

    @on(Input.Submitted, "#lineage-filter")
    def _filter_done(self, event: Input.Submitted) -> None:
        event.stop()
        if not event.value.strip():
            self.query_one("#lineage-filter-box").remove_class("-shown")
        focus_now(self.active_table)

    def action_clear_filter(self) -> None:
        box = self.query_one("#lineage-filter-box")
        if not box.has_class("-shown") and not self.filter_text:
            raise SkipAction()  # escape then goes back (the app's binding)
        self.query_one("#lineage-filter", Input).value = ""
        self.filter_text = ""
        self._read_filter("")
        box.remove_class("-shown")
        focus_now(self.active_table)
        self._apply_order()

    # -- sort -----------------------------------------------------------------------------

    def _sort_by(self, column: str | None, descending: bool | None = None) -> None:
        if column is None:
            return
        if column not in self.all_columns:
            self.notify("The dataset table follows the model table's order: sort by summary_dir or pipeline "
                        "here, or by any model column in the model table (t)", severity="warning")
            return
        if descending is None:
            descending = not self.sort_descending if column == self.sort_column else False
        self.sort_column, self.sort_descending = column, descending
        self._apply_order()

    def action_sort(self) -> None:
        self._sort_by(self.active_table.current_column_key)

    def action_sort_reverse(self) -> None:
        if self.sort_column is None:
            self._sort_by(self.active_table.current_column_key, descending=True)
        else:
            self._sort_by(self.sort_column, not self.sort_descending)

    def action_sort_clear(self) -> None:
        self.sort_column, self.sort_descending = None, False
        self._apply_order()

    @on(LineageTable.HeaderSelected)
    def _header_selected(self, event: LineageTable.HeaderSelected) -> None:
        event.stop()
        self._sort_by(event.column_key)

    # -- columns, modes, opening a job ------------------------------------------------------

    def action_choose_columns(self) -> None:
        choosable = [c for c in self.all_columns if c != KEY_COLUMN]
        shown = set(self.visible_columns())
        defaults = [c for c in self.defaults if c != KEY_COLUMN]

        def chosen(result: list[str] | None) -> None:
            if result is None:
                return
            self.chosen = set(result)
            self.known_when_chosen = set(choosable)
            self._fill_model_table()
            self._apply_order()

        self.app.push_screen(LineageColumnsScreen(choosable, shown, defaults), chosen)

    def action_switch_mode(self) -> None:
        self.show_mode(DATASET if self.mode == MODEL else MODEL)

    def show_mode(self, mode: str) -> None:
        keep = self.active_table.current_row_key
        self.mode = mode
        self.query_one(ContentSwitcher).current = "lineage-model" if mode == MODEL else "lineage-dataset"
        self.query_one(Tabs).active = f"tab-{mode}"
        self.active_table.move_to(row_key=keep)
        focus_now(self.active_table)
        self._update_status()

    @on(Tabs.TabActivated, "#lineage-tabs")
    def _tab_activated(self, event: Tabs.TabActivated) -> None:
        event.stop()
        mode = str(event.tab.id).removeprefix("tab-") if event.tab else MODEL
        if mode != self.mode:
            self.show_mode(mode)

    @on(LineageTable.CursorMoved, "#lineage-dataset-table")
    def _dataset_cursor(self, event: LineageTable.CursorMoved) -> None:
        event.stop()
        self._update_detail()

    def action_open(self) -> None:
        tid = self.active_table.current_row_key
        if tid is None:
            self.notify("No job with lineage to open", severity="warning")
            return
        if tid not in self.cache.jobs:
            self.notify(f"{tid} is no longer in LOGDIR", severity="warning")
            return
        self.app.open_jobs((tid,))

    # -- export ---------------------------------------------------------------------------

    def export_scope(self) -> dict[str, Any]:
        return {"train_ids": [row.summary_dir for row in self.shown], "plugins": {"lineage"}}

    def describe_export(self) -> str:
        n = len(self.shown)
        return f"lineage of the {n} shown job{'s' if n != 1 else ''}"

