"""The lineage view (`l`): every job's model lineage in one table, and their dataset pipelines.

Model lineage: one row per job that has lineage (as MindInsight, jobs without lineage are not
listed), the columns of §6.2. It opens with what runs are compared by (network, optimizer,
learning rate, epoch, batch size, loss, every metric); the long dataset paths and the rest wait
for `v`. `s` sorts by the column under the cursor (again: the other way; missing values stay
last), `/` filters with conditions (`learning_rate>=0.01 optimizer=Momentum metric/Accuracy>0.5`);
a condition that cannot be read is reported under the box and the table keeps the last good filter.

Dataset lineage (`t`): the same jobs, one column per parameter of each pipeline stage
(source first), so runs with different pipelines stand side by side; the pane beside it shows
the selected job's whole pipeline. Both tables follow the same filter and order.

What the user set (tab, columns, order, filter, cursor) is one `LineageState` in one reactive;
`watch_state` redraws what changed and hands it to the workspace. The queries (rows, columns,
conditions, sorting) are `summary.lineage`; this module only formats and lays out. Text from
the files (summary dirs, user-defined values, dataset parameters) is shown literally.
"""
from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any, Mapping

from rich.text import Text
from textual import on
from textual.actions import SkipAction
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.events import Resize
from textual.reactive import reactive
from textual.widget import Widget
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
    filter_rows,
    model_rows,
    parse_conditions,
    sort_rows,
)
from ..common.focus import focus_now
from ..common.format import number
from ..common.text import markup, shown
from ..state.lineage import DATASET, KEY_COLUMN, MODEL, LineageState, default_columns
from ..widgets.lineage_columns import LineageColumnsScreen
from ..widgets.lineage_dataset import Stage, pipeline_detail, pipeline_stages, stage_columns, value_text
from ..widgets.lineage_table import Cell, LineageTable, TableColumn
from .base import DataView, ViewSpec

if TYPE_CHECKING:
    from ..app import InsightApp

MARK_COLUMN = "dataset_mark"
PATH_WIDTH = 26  # dataset paths are cut at the front: their end tells them apart
NARROW = 110  # below this width the dataset detail goes under its table
FILTER_HINT = "operators = != < > <= >= in not_in · all must hold · \"quote\" text · enter: done · escape: clear"


def cell_text(value: Any, column: str = "") -> Cell:
    """A model-lineage value for a cell: numbers compact, long paths by their end (full values
    go to the export); control characters shown escaped."""
    if value is None:
        return None
    if isinstance(value, bool):
        return str(value)
    if isinstance(value, float):
        return number(value)
    if isinstance(value, (dict, list, tuple)):
        return shown(json.dumps(value, sort_keys=True, default=str))
    text = shown(str(value))
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
    HELP_NOTE = ("[b]Filter[/b] (/): conditions on columns, all must hold, e.g.\n"
                 "  learning_rate>=0.01 optimizer=Momentum metric/Accuracy>0.5\n"
                 "  operators = != < <= > >=, and `summary_dir in ./a,./b`\n"
                 "[b]Columns[/b] (v): opens with learning rate, batch size, epoch, optimizer, loss and\n"
                 "  metrics; dataset paths and the rest are a keypress away")
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

    state: reactive[LineageState] = reactive(LineageState, init=False)

    app: "InsightApp"

    def __init__(self, cache, train_ids: tuple[str, ...], **kwargs: Any):
        super().__init__(cache, train_ids, **kwargs)
        self.set_reactive(LineageView.state, LineageState.from_json(self.saved))
        # Derived from the cache and the state (never remembered):
        self.rows: list[LineageRow] = []  # every job with lineage, MindInsight's order (newest first)
        self.rows_by_id: dict[str, LineageRow] = {}
        self.shown: list[LineageRow] = []  # after filter and sort
        self.all_columns: list[str] = []
        self.conditions: list[Condition] = []  # the last filter that could be read
        self.filter_error = ""
        self.stages: dict[str, list[Stage]] = {}

    # -- layout ---------------------------------------------------------------------------

    def compose(self) -> ComposeResult:
        mode = self.state.mode
        yield Tabs(Tab("Model lineage", id="tab-model"), Tab("Dataset lineage", id="tab-dataset"),
                   id="lineage-tabs", active=f"tab-{mode}")
        with Vertical(id="lineage-filter-box", classes="-shown" if self.state.filter else ""):
            yield Input(self.state.filter,
                        placeholder="filter: learning_rate>=0.01 optimizer=Momentum metric/Accuracy>0.5",
                        id="lineage-filter")
            yield Static(FILTER_HINT, id="lineage-message")
        with ContentSwitcher(initial="lineage-model" if mode == MODEL else "lineage-dataset", id="lineage-modes"):
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
        self.ready_for_keys()

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
        return self.model_table if self.state.mode == MODEL else self.dataset_table

    def first_focus(self) -> Widget | None:
        tables = self.query(LineageTable)  # none before compose
        return self.active_table if tables else None

    # -- the state ------------------------------------------------------------------------------

    def watch_state(self, old: LineageState, new: LineageState) -> None:
        """The one place that redraws from the state: what changed between `old` and `new`."""
        order_changed = (new.sort_column, new.descending) != (old.sort_column, old.descending)
        if (new.chosen, new.known) != (old.chosen, old.known):
            self._fill_model_table()
            order_changed = True
        if new.filter != old.filter:
            order_changed = self._read_filter(new.filter) or order_changed
        if new.mode != old.mode:
            keep = (self.model_table if old.mode == MODEL else self.dataset_table).current_row_key
            self.query_one(ContentSwitcher).current = "lineage-model" if new.mode == MODEL else "lineage-dataset"
            self.query_one(Tabs).active = f"tab-{new.mode}"
            self.active_table.move_to(row_key=keep)
            focus_now(self.active_table)
        if order_changed:
            self._apply_order()
        elif new.mode != old.mode:
            self._update_status()
        self.remember(new)

    # -- rows and columns ---------------------------------------------------------------------

    def _jobs(self) -> Mapping[str, Any]:
        views = self.cache.jobs
        return {tid: views[tid] for tid in self.train_ids if tid in views}

    def refresh_rows(self) -> None:
        """Rebuild the rows from the cache (lineage is in memory); keep filter, sort, cursors."""
        self.rows = model_rows(self._jobs())
        self.rows_by_id = {row.summary_dir: row for row in self.rows}
        self.all_columns = columns(self.rows)
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
        self._read_filter(self.state.filter)
        self.shown = self._ordered_rows()
        self._fill_model_table()
        self._fill_dataset_table()
        self._apply_order()
        state = self.state
        if state.row in self.rows_by_id:  # the remembered cursor, once its job is there
            self.model_table.move_to(row_key=state.row, column_key=state.column)
            self.dataset_table.move_to(row_key=state.row)

    def visible_columns(self) -> list[str]:
        return self.state.visible_columns(self.all_columns)

    def _fill_model_table(self) -> None:
        names = self.visible_columns()
        table_columns = [TableColumn(name, shown(name), is_numeric(name, self.rows)) for name in names]
        cells = {row.summary_dir: [cell_text(row.get(name), name) for name in names] for row in self.rows}
        self.model_table.set_table(table_columns, cells, [row.summary_dir for row in self.shown])

    def _fill_dataset_table(self) -> None:
        pairs = stage_columns(self.stages[row.summary_dir] for row in self.rows)
        table_columns = [TableColumn(KEY_COLUMN, KEY_COLUMN), TableColumn(MARK_COLUMN, "pipeline")]
        table_columns += [TableColumn(f"{stage}.{param}", shown(param), group=shown(stage)) for stage, param in pairs]
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
                    text = value_text(found.params.get(param)) if found is not None else None
                    stage_cells.append(shown(text) if text is not None else None)
                if mark is not None:
                    by_mark[mark] = stage_cells
            cells[row.summary_dir] = [cell_text(row.summary_dir), cell_text(mark), *stage_cells]
        # Columns where the jobs differ are what the table is for: the others are drawn dim.
        for i in range(2, len(table_columns)):
            if len({cells[tid][i] for tid in cells}) <= 1:
                for tid in cells:
                    value = cells[tid][i]
                    if value is not None:
                        cells[tid][i] = Text(value, style="dim")  # already shown(): no markup, no controls
        self.dataset_table.set_table(table_columns, cells, [row.summary_dir for row in self.shown])

    def _ordered_rows(self) -> list[LineageRow]:
        """The rows the filter keeps, in the chosen order (summary.lineage queries)."""
        shown_rows = filter_rows(self.rows, self.conditions) if self.conditions else list(self.rows)
        if self.state.sort_column is not None:
            shown_rows = sort_rows(shown_rows, self.state.sort_column, self.state.descending)
        return shown_rows

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
            table.set_sort(self.state.sort_column, self.state.descending)
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
            parts.append(f"[b]{len(self.shown)}[/b] shown by [i]{markup(' '.join(map(str, self.conditions)))}[/i]")
        parts.append(markup(self.state.sort_text()))
        if self.state.mode == MODEL:
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
            message.update(markup(f"{exc} · the table keeps the last good filter"))
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
        self.state = self.state.with_filter(event.value)

    @on(Input.Submitted, "#lineage-filter")
    def _filter_done(self, event: Input.Submitted) -> None:
        event.stop()
        if not event.value.strip():
            self.query_one("#lineage-filter-box").remove_class("-shown")
        focus_now(self.active_table)

    def action_clear_filter(self) -> None:
        box = self.query_one("#lineage-filter-box")
        if not box.has_class("-shown") and not self.state.filter:
            raise SkipAction()  # escape then goes back (the app's binding)
        self.query_one("#lineage-filter", Input).value = ""
        box.remove_class("-shown")
        focus_now(self.active_table)
        self.state = self.state.with_filter("")

    # -- sort -----------------------------------------------------------------------------

    def _can_sort(self, column: str | None) -> bool:
        if column is None:
            return False
        if column not in self.all_columns:
            self.notify("The dataset table follows the model table's order: sort by summary_dir or pipeline "
                        "here, or by any model column in the model table (t)", severity="warning")
            return False
        return True

    def action_sort(self) -> None:
        column = self.active_table.current_column_key
        if self._can_sort(column):
            self.state = self.state.sort_by(column)

    def action_sort_reverse(self) -> None:
        column = self.active_table.current_column_key
        if self.state.sort_column is not None or self._can_sort(column):
            self.state = self.state.sort_reverse(column)

    def action_sort_clear(self) -> None:
        self.state = self.state.sort_clear()

    @on(LineageTable.HeaderSelected)
    def _header_selected(self, event: LineageTable.HeaderSelected) -> None:
        event.stop()
        if self._can_sort(event.column_key):
            self.state = self.state.sort_by(event.column_key)

    # -- columns, modes, cursor, opening a job -------------------------------------------------

    def action_choose_columns(self) -> None:
        choosable = [c for c in self.all_columns if c != KEY_COLUMN]
        shown_now = set(self.visible_columns())
        defaults = [c for c in default_columns(self.all_columns) if c != KEY_COLUMN]

        def chosen(result: list[str] | None) -> None:
            if result is not None:
                self.state = self.state.with_columns(result, choosable)

        self.app.push_screen(LineageColumnsScreen(choosable, shown_now, defaults), chosen)

    def action_switch_mode(self) -> None:
        self.state = self.state.toggle_mode()

    def show_mode(self, mode: str) -> None:
        self.state = self.state.with_mode(mode)

    @on(Tabs.TabActivated, "#lineage-tabs")
    def _tab_activated(self, event: Tabs.TabActivated) -> None:
        event.stop()
        mode = str(event.tab.id).removeprefix("tab-") if event.tab else MODEL
        self.state = self.state.with_mode(DATASET if mode == DATASET else MODEL)

    @on(LineageTable.CursorMoved)
    def _cursor_moved(self, event: LineageTable.CursorMoved) -> None:
        event.stop()
        if event.table is self.dataset_table:
            self._update_detail()
        if event.user:
            column = event.column_key if event.table is self.model_table else None
            self.state = self.state.with_cursor(event.row_key, column)

    def action_open(self) -> None:
        tid = self.active_table.current_row_key
        if tid is None:
            self.notify("No job with lineage to open", severity="warning")
            return
        if tid not in self.cache.jobs:
            self.notify(f"{markup(tid)} is no longer in LOGDIR", severity="warning")
            return
        self.app.open_jobs((tid,))

    # -- export ---------------------------------------------------------------------------

    def export_scope(self) -> dict[str, Any]:
        return {"train_ids": [row.summary_dir for row in self.shown], "plugins": {"lineage"}}

    def describe_export(self) -> str:
        n = len(self.shown)
        return f"lineage of the {n} shown job{'s' if n != 1 else ''}"
