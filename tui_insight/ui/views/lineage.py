"""The lineage view (`l`): every job's model lineage in one table, and their dataset pipelines.

Model lineage: one row per job that has lineage (as MindInsight, jobs without lineage are not
listed), the columns of §6.2. It opens with what runs are compared by (network, optimizer,
learning rate, epoch, batch size, loss, every metric, and the TensorBoard hyper-parameters in
which the listed runs differ, whatever their names); the long dataset paths and the rest wait
for `v`. `s` sorts by the column under the cursor (again: the other way; missing values stay
last), `/` filters with conditions (`learning_rate>=0.01 optimizer=Momentum metric/Accuracy>0.5`);
a condition that cannot be read is reported under the box and the table keeps the last good filter.

Dataset lineage (`t`): the same jobs, one column per parameter of each pipeline stage
(source first), so runs with different pipelines stand side by side; the pane beside it shows
the selected job's whole pipeline. Both tables follow the same filter and order.

Above the table, `p` shows parallel coordinates (one axis per column of the table, or per
dataset parameter where the jobs differ, one line per run) and `i` the parameter importance
(`summary.importance`; `enter` on a parameter: its scatter against the target). On the chart
`←`/`→` pick an axis and `[` `]` `{` `}` move the ends of a range on it: that range is written
into the filter as conditions (`learning_rate>=0.01 learning_rate<=0.1`), so the chart and the
table are one filter, runs outside it are faint, and a typed filter (`lr 0.01..0.1`) is drawn
as the range. `↑`/`↓` walk the runs along the picked axis (the table's cursor follows), `enter`
opens a run and `space` marks it for comparison, as in the job list.

What the user set (tab, columns, order, filter, cursor, panel) is one `LineageState` in one
reactive; `watch_state` redraws what changed and hands it to the workspace. The queries (rows,
columns, conditions, sorting, axes, brushes, importance) are `summary`'s; this module only
formats and lays out. Text from the files (summary dirs, user-defined values, dataset
parameters) is shown literally.
"""
from __future__ import annotations

from dataclasses import replace
from typing import TYPE_CHECKING, Any, Mapping

import numpy as np
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

from ...summary.queries.lineage import Condition, LineageQueryError, LineageRow, Stage, columns, dataset_axes, dataset_stages, filter_rows, model_rows, parse_conditions, sort_rows, with_dataset_values
from ...summary.queries.importance import TargetImportance, importances
from ...summary.queries.lineage_diff import unfilled_columns, varying_hparams
from ...summary.queries.parallel import HIGH, LOW, Axis
from ...summary.store.job_view import Changes
from ..common.focus import focus_now
from ..common.text import markup
from ..presenters import lineage as present
from ..presenters.lineage import FILTER_HINT
from ..state.lineage import CHART, DATASET, IMPORTANCE, KEY_COLUMN, MODEL, NO_PANEL, LineageState, default_columns
from ..widgets.commands import CommandKeys
from ..widgets.importance_table import ImportanceTable
from ..widgets.lineage_columns import LineageColumnsScreen
from ..widgets.lineage_data import entries
from ..widgets.lineage_table import LineageTable
from ..widgets.on_demand_input import ReturningInput
from ..widgets.parallel_coords import ChartRuns, ParallelChart
from ..widgets.scatter import ScatterData, ScatterPlot
from .base import DataView, ViewSpec

if TYPE_CHECKING:
    from ..app import InsightApp

NARROW = 110  # below this width the dataset detail goes under its table


class LineageView(DataView):
    SPEC = ViewSpec("lineage", "Lineage", "l", (), "all")
    HELP_GROUP = "Lineage"
    HELP_NOTE = present.HELP_NOTE
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
    LineageView #lineage-panel { height: 3fr; display: none; border-bottom: solid $panel-lighten-2; }
    LineageView.-panel #lineage-panel { display: block; }
    LineageView.-panel #lineage-modes { height: 2fr; }
    LineageView.-panel #lineage-message { display: none; }
    LineageView.-panel #lineage-message.-error { display: block; }
    LineageView #lineage-panel > .lineage-panel-part { display: none; }
    LineageView #lineage-panel > .lineage-panel-part.-shown { display: block; }
    LineageView #lineage-readout { height: 1; padding: 0 1; color: $foreground-muted; text-wrap: nowrap;
                                   text-overflow: ellipsis; }
    """
    BINDINGS = [
        Binding("enter", "open", "Open job", id="lineage.open"),
        Binding("slash", "filter", "Filter", id="lineage.filter"),
        Binding("s", "sort", "Sort by column", id="lineage.sort"),
        Binding("S", "sort_reverse", "Reverse sort", show=False, id="lineage.sort_reverse"),
        Binding("o", "sort_clear", "Newest first", show=False, id="lineage.sort_clear"),
        Binding("v", "choose_columns", "Columns", id="lineage.columns"),
        Binding("t", "switch_mode", "Model/dataset", id="lineage.mode"),
        Binding("p", "panel('chart')", "Parallel coords", id="lineage.chart"),
        Binding("i", "panel('importance')", "Importance", id="lineage.importance"),
        Binding("space", "toggle_mark", "Mark", show=False, id="lineage.mark"),
        Binding("escape", "clear_filter", "Clear filter", show=False, id="lineage.clear_filter"),
    ]

    state: reactive[LineageState] = reactive(LineageState, init=False)

    app: "InsightApp"

    def __init__(self, cache, train_ids: tuple[str, ...], **kwargs: Any):
        super().__init__(cache, train_ids, **kwargs)
        self.set_reactive(LineageView.state, LineageState.from_json(self.saved))
        # Derived from the cache and the state (never remembered):
        self.rows: list[LineageRow] = []  # every job with lineage, MindInsight's order (newest first)
        self.rows_version = 0  # counts rebuilds of the rows: what the panel's data was built from
        self.rows_by_id: dict[str, LineageRow] = {}
        self.shown: list[LineageRow] = []  # after filter and sort
        self.all_columns: list[str] = []
        self.varying: list[str] = []  # TensorBoard hyper-parameter columns the runs differ in: shown by default
        self.unfilled: list[str] = []  # columns no run has a value in: hidden by default
        self.conditions: list[Condition] = []  # the last filter that could be read
        self.filter_error = ""
        self.stages: dict[str, list[Stage]] = {}
        self._detail_shown: tuple[str | None, int] | None = None  # the job whose pipeline the detail shows
        self.dataset_columns: list[str] = []  # dataset/<stage>.<param> of every pipeline
        # The panel's data, rebuilt when what it depends on changes (see chart() and importance_ranking()):
        self._chart_key: tuple | None = None
        self.chart_runs = ChartRuns((), (), np.zeros((0, 0)))
        self.ranking: list[TargetImportance] = []
        self._ranking_key: tuple | None = None

    # -- layout ---------------------------------------------------------------------------

    def compose(self) -> ComposeResult:
        mode = self.state.mode
        yield Tabs(Tab("Model lineage", id="tab-model"), Tab("Dataset lineage", id="tab-dataset"),
                   id="lineage-tabs", active=f"tab-{mode}")
        with Vertical(id="lineage-filter-box", classes="-shown" if self.state.filter else ""):
            yield ReturningInput(self.state.filter,
                                 placeholder="filter: learning_rate>=0.01 optimizer=Momentum metric/Accuracy>0.5",
                                 id="lineage-filter")
            yield Static(FILTER_HINT, id="lineage-message")
        with Vertical(id="lineage-panel"):
            yield ParallelChart(id="lineage-chart", classes="lineage-panel-part")
            yield ImportanceTable(id="lineage-importance", classes="lineage-panel-part")
            yield ScatterPlot(id="lineage-scatter", classes="lineage-panel-part")
            yield Static("", id="lineage-readout")
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
        if not tables:
            return None
        return self.panel_widget() or self.active_table

    def panel_widget(self) -> Widget | None:
        """The part of the panel that is shown (None: no panel)."""
        state = self.state
        if state.panel == CHART:
            return self.query_one(ParallelChart)
        if state.panel == IMPORTANCE:
            return self.query_one(ScatterPlot) if state.scatter else self.query_one(ImportanceTable)
        return None

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
            self.refresh_bindings()  # `v` (the model table's columns) only on the model tab
            keep = (self.model_table if old.mode == MODEL else self.dataset_table).current_row_key
            table_has_keys = self.panel_widget() is None  # else the panel keeps them
            self.query_one(ContentSwitcher).current = "lineage-model" if new.mode == MODEL else "lineage-dataset"
            self.query_one(Tabs).active = f"tab-{new.mode}"
            self.active_table.move_to(row_key=keep)
            if table_has_keys:
                focus_now(self.active_table)
        if order_changed:
            self._apply_order()
        elif new.mode != old.mode:
            self._update_status()
        if new.filter != old.filter:
            self._show_filter_text(new.filter)
        if new.row != old.row:
            for table in (self.model_table, self.dataset_table):
                if new.row is not None and table.current_row_key != new.row:
                    table.move_to(row_key=new.row)
        if (new.panel, new.scatter) != (old.panel, old.scatter):
            self._show_panel(focus=True)
        else:
            self._update_panel()
        self.remember(new)

    # -- rows and columns ---------------------------------------------------------------------

    def _jobs(self) -> Mapping[str, Any]:
        views = self.cache.jobs
        return {tid: views[tid] for tid in self.train_ids if tid in views}

    def refresh_rows(self) -> None:
        """Rebuild the rows from the cache (lineage is in memory); keep filter, sort, cursors."""
        self.rows = model_rows(self._jobs())
        self.rows_version += 1
        self.rows_by_id = {row.summary_dir: row for row in self.rows}
        self.all_columns = columns(self.rows)
        # Over every listed run, so that a filter takes no column away:
        self.varying, self.unfilled = varying_hparams(self.rows), unfilled_columns(self.rows)
        self.stages = dataset_stages(self.rows)
        self.rows, self.dataset_columns = with_dataset_values(self.rows, self.stages)
        self.rows_by_id = {row.summary_dir: row for row in self.rows}
        self._read_filter(self.state.filter)
        self.shown = self._ordered_rows()
        self._fill_model_table()
        self._fill_dataset_table()
        self._apply_order()
        state = self.state
        if state.row in self.rows_by_id:  # the remembered cursor, once its job is there
            self.model_table.move_to(row_key=state.row, column_key=state.column)
            self.dataset_table.move_to(row_key=state.row)
        self._show_panel()

    @property
    def filter_columns(self) -> list[str]:
        """The columns a condition may name: the model columns and the dataset parameters."""
        return [*self.all_columns, *self.dataset_columns]

    def visible_columns(self) -> list[str]:
        return self.state.visible_columns(self.all_columns, self.varying, self.unfilled)

    def _fill_model_table(self) -> None:
        self.model_table.set_table(*present.model_table(self.rows, self.visible_columns()),
                                   [row.summary_dir for row in self.shown])

    def _fill_dataset_table(self) -> None:
        self.dataset_table.set_table(*present.dataset_table(self.rows, self.stages),
                                     [row.summary_dir for row in self.shown])

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
        empty = present.empty_text(bool(self.rows), self.cache.progress.loading)
        for table in (self.model_table, self.dataset_table):
            table.empty_text = empty
            table.set_sort(self.state.sort_column, self.state.descending)
            table.set_order(order)
        self._update_detail()
        self._update_status()

    def _update_detail(self) -> None:
        tid = self.dataset_table.current_row_key
        if (tid, self.rows_version) == self._detail_shown:
            return  # the same job's pipeline: no new text, no new layout (a brush step redraws often)
        self._detail_shown = (tid, self.rows_version)
        self.query_one("#lineage-detail", Static).update(present.detail(tid, self.rows_by_id, self.stages))

    def _update_status(self) -> None:
        marked = sum(1 for tid in self.app.marked if tid in self.rows_by_id)
        hidden = len(self.all_columns) - len(self.visible_columns())
        self.query_one("#lineage-status", Static).update(present.status_text(
            self.state, len(self.cache.jobs), len(self.rows), self.conditions, len(self.shown), marked, hidden,
            self.cache.progress.loading), layout=False)  # one line

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
            conditions = parse_conditions(text, self.filter_columns)
        except LineageQueryError as exc:
            self.filter_error = str(exc)
            message.update(present.filter_error_text(str(exc)))
            message.add_class("-error")
            return False
        self.conditions = conditions
        if self.filter_error or message.has_class("-error"):
            message.update(FILTER_HINT)
            message.remove_class("-error")
        self.filter_error = ""
        return True

    def action_filter(self) -> None:
        self.query_one("#lineage-filter-box").add_class("-shown")
        self.query_one("#lineage-filter", ReturningInput).open()

    @on(Input.Changed, "#lineage-filter")
    def _filter_changed(self, event: Input.Changed) -> None:
        event.stop()
        self.state = self.state.with_filter(event.value)

    @on(Input.Submitted, "#lineage-filter")
    def _filter_done(self, event: Input.Submitted) -> None:
        event.stop()
        if not event.value.strip():
            self.query_one("#lineage-filter-box").remove_class("-shown")
        focus_now(self.panel_widget() or self.active_table)

    def _show_filter_text(self, text: str) -> None:
        """A brush step wrote the filter: the box shows it (typing there changes it back)."""
        box = self.query_one("#lineage-filter", Input)
        if box.value != text:
            box.value = text
        if text:
            self.query_one("#lineage-filter-box").add_class("-shown")

    def action_clear_filter(self) -> None:
        box = self.query_one("#lineage-filter-box")
        if not box.has_class("-shown") and not self.state.filter:
            if self.state.panel != NO_PANEL:  # then the panel closes, then escape goes back
                self.state = self.state.toggle_panel(self.state.panel)
                return
            raise SkipAction()  # escape then goes back (the app's binding)
        self.query_one("#lineage-filter", Input).value = ""
        box.remove_class("-shown")
        focus_now(self.panel_widget() or self.active_table)
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
        if column is not None and self._can_sort(column):
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

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        """`v` chooses the model table's columns: offered only while that table shows."""
        if action == "choose_columns" and self.state.mode != MODEL:
            return False
        return super().check_action(action, parameters)

    def action_choose_columns(self) -> None:
        choosable = [c for c in self.all_columns if c != KEY_COLUMN]
        shown_now = set(self.visible_columns())
        defaults = [c for c in default_columns(self.all_columns, self.varying, self.unfilled) if c != KEY_COLUMN]

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

    def current_run(self) -> str | None:
        """The run the keys act on: the highlighted one of a panel (a run the filter shows), else
        the table's cursor row."""
        row = self.state.row
        if self.state.panel != NO_PANEL and row is not None and any(r.summary_dir == row for r in self.shown):
            return row
        return self.active_table.current_row_key

    def action_open(self) -> None:
        self._open(self.current_run())

    def _open(self, tid: str | None) -> None:
        if tid is None:
            self.notify("No job with lineage to open", severity="warning")
            return
        if tid not in self.cache.jobs:
            self.notify(f"{markup(tid)} is no longer in LOGDIR", severity="warning")
            return
        self.app.open_jobs((tid,))

    def action_toggle_mark(self) -> None:
        """`space`: mark the run for comparison (the job list's marks: `c` there compares them)."""
        tid = self.current_run()
        if tid is None:
            return
        marked = self.app.marked
        if tid in marked:
            marked.remove(tid)
            said = f"{markup(tid)} unmarked"
        else:
            marked.append(tid)
            said = f"{markup(tid)} marked for comparison"
        count = len(marked)
        self.notify(f"{said} · {count} marked (c in the job list compares them)", timeout=3)
        self._update_status()
        self._update_readout()

    # -- the panel: parallel coordinates, importance, scatter --------------------------------

    def action_panel(self, panel: str) -> None:
        self.state = self.state.toggle_panel(panel)

    def _show_panel(self, focus: bool = False) -> None:
        """Show the part of the panel the state names (or none) and draw it; with `focus`, the
        keyboard goes to it (or back to the table when the panel closes)."""
        shown_part = self.panel_widget()
        self.set_class(shown_part is not None, "-panel")
        for part in self.query(".lineage-panel-part"):
            part.set_class(part is shown_part, "-shown")
        self._update_panel()
        if focus:
            focus_now(shown_part or self.active_table)

    def _update_panel(self) -> None:
        if self.state.panel == CHART:
            self._update_chart()
        elif self.state.panel == IMPORTANCE:
            self._update_importance()
        else:
            return
        self._update_readout()

    # The chart ---------------------------------------------------------------------------------

    def axis_columns(self) -> list[str]:
        """The chart's axes: the table's columns; in dataset lineage the pipeline parameters
        where the jobs differ (all of them when none does)."""
        if self.state.mode == MODEL:
            return [c for c in self.visible_columns() if c != KEY_COLUMN]
        return dataset_axes(self.rows, self.dataset_columns)

    def chart(self) -> ChartRuns:
        """The runs' places on the axes, rebuilt when the rows, the axes or the colour change."""
        columns = self.axis_columns()
        colour = self.state.colour_column(self.filter_columns)
        key = (self.rows_version, tuple(columns), colour)
        if key != self._chart_key:
            self.chart_runs = present.chart_runs(self.rows, columns, colour)
            self._chart_key = key
        return self.chart_runs

    def picked_axis(self) -> Axis | None:
        return present.picked_axis(self.chart(), self.state)

    def _update_chart(self) -> None:
        look = present.chart_look(self.chart(), self.state, self.shown_ids(), self.conditions)
        self.query_one(ParallelChart).set_chart(self.chart_runs, look)

    def shown_ids(self) -> set[str]:
        return {row.summary_dir for row in self.shown}

    def run_order(self) -> list[str]:
        """The runs inside the filter from the bottom of the picked axis to its top (↑ goes up)."""
        return present.run_order(self.chart(), self.state, self.shown_ids())

    def _chart_command(self, name: str, step: int) -> None:
        state = self.state
        if name == "axis":
            self.state = state.pick_axis([axis.column for axis in self.chart().axes], step)
            return
        if name == "run":
            self.state = state.step_run(self.run_order(), step)
            return
        axis = self.picked_axis()
        if axis is None:
            return
        if name == "colour":
            self.state = state.with_colour(axis.column)
            return
        try:
            if name == "clear":
                self.state = state.clear_brush(axis, self.filter_columns)
            else:
                self.state = state.brush(axis, LOW if name == "low" else HIGH, step, self.filter_columns)
        except LineageQueryError as exc:
            self.notify(markup(f"No range on {axis.column}: {exc} (the filter must read first: /)"),
                        severity="warning")

    # Importance and the scatter -----------------------------------------------------------------

    def importance_ranking(self) -> list[TargetImportance]:
        """Importance over the runs the filter shows (recomputed when they change)."""
        key = (self.rows_version, tuple(row.summary_dir for row in self.shown))
        if key != self._ranking_key:
            self.ranking = importances(self.shown, self.all_columns)
            self._ranking_key = key
        return self.ranking

    def importance_cursor(self) -> tuple[str | None, str | None]:
        """The (target, parameter) under the cursor: the remembered one, else the first."""
        return present.importance_cursor(self.importance_ranking(), self.state)

    def scatter_data(self) -> ScatterData:
        return present.scatter_data(self.importance_ranking(), self.state, self.shown)

    def _update_importance(self) -> None:
        ranking = self.importance_ranking()
        cursor = self.importance_cursor()
        self.query_one(ImportanceTable).set_ranking(ranking, cursor, len(self.shown))
        if self.state.scatter:
            data = self.scatter_data()
            ids = [point[0] for point in data.points]
            self.query_one(ScatterPlot).set_scatter(data, ids.index(self.state.row) if self.state.row in ids else None)

    def _importance_command(self, name: str, step: int) -> None:
        if name == "param":
            found = entries(self.importance_ranking())
            start = self.state
            if (start.target, start.param) not in found and found:  # the first line is where the cursor is
                start = replace(start, target=found[0][0], param=found[0][1])
            self.state = start.move_importance(found, step)
        elif name == "scatter" and self.importance_cursor()[0] is not None:
            target, param = self.importance_cursor()
            self.state = replace(self.state, target=target, param=param).toggle_scatter()

    def _scatter_command(self, name: str, step: int) -> None:
        ids = [point[0] for point in self.scatter_data().points]
        if name == "point":
            self.state = self.state.step_run(ids, step)
        elif name == "open":
            self._open(self.state.row if self.state.row in ids else None)
        elif name == "back":
            self.state = self.state.toggle_scatter()

    @on(CommandKeys.Command)
    def _command(self, event: CommandKeys.Command) -> None:
        event.stop()
        handlers: dict[type[Widget], Any] = {ParallelChart: self._chart_command, ImportanceTable: self._importance_command,
                    ScatterPlot: self._scatter_command}
        handler = handlers.get(type(event.widget))
        if handler is not None:
            handler(event.name, event.step)

    # The read-out under the panel ------------------------------------------------------------------

    def _update_readout(self) -> None:
        state = self.state
        text = Text()
        if state.panel == CHART:
            runs = self.chart()
            text = present.chart_readout(state, self.picked_axis(), self.rows, self.shown_ids(),
                                         self.conditions, len(runs.ids), runs.colour.column if runs.colour else None,
                                         self.app.marked)
        elif state.panel == IMPORTANCE and state.scatter:
            data = self.scatter_data()
            point = next((p for p in data.points if p[0] == state.row), None)
            text = present.scatter_readout(point, data.param, data.target, self.app.marked)
        elif state.panel == IMPORTANCE:
            text = present.importance_readout(len(self.shown))
        self.query_one("#lineage-readout", Static).update(text, layout=False)  # one line

    # -- export ---------------------------------------------------------------------------

    def export_scope(self) -> dict[str, Any]:
        return {"train_ids": [row.summary_dir for row in self.shown], "plugins": {"lineage"}}

    def describe_export(self) -> str:
        n = len(self.shown)
        return f"lineage of the {n} shown job{'s' if n != 1 else ''}"
