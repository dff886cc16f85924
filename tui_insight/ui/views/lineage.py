"""The lineage view (`l`): every job's model lineage in one table (`v` columns, `s` sort, `/`
filter by conditions), and their dataset pipelines (`t`), one column per stage parameter with
the selected job's whole pipeline beside it; both tables follow one filter and order. Above
them `p` shows parallel coordinates, whose brushed ranges are written into the filter, and `i`
the parameter importance (`enter`: a pair's scatter); `enter` opens a run, `space` marks it.

What the user set is one `LineageState` in one reactive; `watch_state` redraws what changed and
hands it to the workspace. The rows, cells, read-outs and the panel's keys as transitions are
the presenter's (`presenters/lineage.py`), the panes are widgets (`widgets/lineage_panes.py`):
this module binds the keys, asks the cache and hands the presenter's output to the widgets.
Text from the files is shown literally.
"""
from __future__ import annotations

from typing import TYPE_CHECKING, Any

from textual import on
from textual.actions import SkipAction
from textual.app import ComposeResult
from textual.binding import Binding
from textual.reactive import reactive
from textual.widget import Widget
from textual.widgets import Input, Static, Tab, Tabs

from ...summary.queries.importance import TargetImportance, importances
from ...summary.queries.lineage import Condition, LineageQueryError, LineageRow, dataset_axes, parse_conditions
from ...summary.store.job_view import Changes
from ..common.focus import focus_now
from ..common.memo import Memo
from ..common.text import markup
from ..presenters import lineage as present
from ..state.lineage import CHART, DATASET, IMPORTANCE, KEY_COLUMN, MODEL, NO_PANEL, LineageState, default_columns
from ..widgets.commands import CommandKeys
from ..widgets.importance_table import ImportanceTable
from ..widgets.lineage_columns import LineageColumnsScreen
from ..widgets.lineage_data import ChartRuns, ScatterData
from ..widgets.lineage_panes import LineageDatasetPane, LineageFilterBox, LineageModes, LineagePanel
from ..widgets.lineage_table import LineageTable
from ..widgets.parallel_coords import ParallelChart
from ..widgets.scatter import ScatterPlot
from .base import DataView, ViewSpec

if TYPE_CHECKING:
    from ..app import InsightApp



class LineageView(DataView):
    SPEC = ViewSpec("lineage", "Lineage", "l", (), "all")
    HELP_GROUP = "Lineage"
    HELP_NOTE = present.HELP_NOTE
    DEFAULT_CSS = """
    LineageView { layout: vertical; }
    LineageView #lineage-tabs { height: 2; }
    LineageView #lineage-modes { height: 1fr; }
    LineageView #lineage-status { height: 1; padding: 0 1; background: $panel; }
    LineageView #lineage-panel { height: 3fr; display: none; border-bottom: solid $panel-lighten-2; }
    LineageView.-panel #lineage-panel { display: block; }
    LineageView.-panel #lineage-modes { height: 2fr; }
    LineageView.-panel #lineage-message { display: none; }
    LineageView.-panel #lineage-message.-error { display: block; }
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
        self.data = present.NO_ROWS
        self.rows_version = 0  # counts rebuilds of `data`: what the panel's memos were built from
        self.shown: list[LineageRow] = []  # after filter and sort
        self.conditions: list[Condition] = []  # the last filter that could be read
        self._chart: Memo[ChartRuns] = Memo()
        self._ranking: Memo[list[TargetImportance]] = Memo()

    # -- layout ---------------------------------------------------------------------------

    def compose(self) -> ComposeResult:
        mode = self.state.mode
        yield Tabs(Tab("Model lineage", id="tab-model"), Tab("Dataset lineage", id="tab-dataset"),
                   id="lineage-tabs", active=f"tab-{mode}")
        yield LineageFilterBox(self.state.filter, "filter: learning_rate>=0.01 optimizer=Momentum metric/Accuracy>0.5",
                               present.FILTER_HINT, id="lineage-filter-box")
        yield LineagePanel(id="lineage-panel")
        yield LineageModes(mode, id="lineage-modes")
        yield Static("", id="lineage-status")

    def on_mount(self) -> None:
        self.query_one(Tabs).can_focus = False
        self.refresh_rows()
        self.ready_for_keys()

    @property
    def model_table(self) -> LineageTable:
        return self.query_one(LineageModes).table(MODEL)

    @property
    def dataset_table(self) -> LineageTable:
        return self.query_one(LineageModes).table(DATASET)

    @property
    def active_table(self) -> LineageTable:
        return self.query_one(LineageModes).table(self.state.mode)

    @property
    def filter_box(self) -> LineageFilterBox:
        return self.query_one(LineageFilterBox)

    def first_focus(self) -> Widget | None:
        if not self.query(LineageTable):  # none before compose
            return None
        return self.panel_widget() or self.active_table

    def panel_widget(self) -> Widget | None:
        """The part of the panel that is shown (None: no panel)."""
        return self.query_one(LineagePanel).part(self.state.panel, self.state.scatter)

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
            shown = self.query_one(LineageModes).show(old.mode, new.mode)
            self.query_one(Tabs).active = f"tab-{new.mode}"
            if self.panel_widget() is None:  # else the panel keeps the keys
                focus_now(shown)
        if order_changed:
            self._apply_order()
        elif new.mode != old.mode:
            self._update_status()
        if new.filter != old.filter:
            self.filter_box.show_text(new.filter)  # a brush step wrote it: the box shows it
        if new.row != old.row and new.row is not None:
            self.query_one(LineageModes).move_to(new.row)
        if (new.panel, new.scatter) != (old.panel, old.scatter):
            self._show_panel(focus=True)
        else:
            self._update_panel()
        self.remember(new)

    # -- rows and columns ---------------------------------------------------------------------

    def refresh_rows(self) -> None:
        """Rebuild the rows from the cache (lineage is in memory); keep filter, sort, cursors."""
        views = self.cache.jobs
        self.data = present.lineage_data({tid: views[tid] for tid in self.train_ids if tid in views})
        self.rows_version += 1
        self._read_filter(self.state.filter)
        self.shown = present.ordered_rows(self.data.rows, self.conditions, self.state)
        self._fill_model_table()
        self.dataset_table.set_table(*present.dataset_table(self.data.rows, self.data.stages),
                                     [row.summary_dir for row in self.shown])
        self._apply_order()
        state = self.state
        if state.row in self.data.by_id:  # the remembered cursor, once its job is there
            self.model_table.move_to(row_key=state.row, column_key=state.column)
            self.dataset_table.move_to(row_key=state.row)
        self._show_panel()

    def visible_columns(self) -> list[str]:
        return self.state.visible_columns(self.data.columns, self.data.varying, self.data.unfilled)

    def _fill_model_table(self) -> None:
        self.model_table.set_table(*present.model_table(self.data.rows, self.visible_columns()),
                                   [row.summary_dir for row in self.shown])

    def _apply_order(self) -> None:
        """Show the filtered, sorted rows in both tables."""
        self.shown = present.ordered_rows(self.data.rows, self.conditions, self.state)
        self.query_one(LineageModes).set_order([row.summary_dir for row in self.shown], present.empty_text(
            bool(self.data.rows), self.cache.progress.loading), self.state.sort_column, self.state.descending)
        self._update_detail()
        self._update_status()

    def _update_detail(self) -> None:
        tid = self.dataset_table.current_row_key
        self.query_one(LineageDatasetPane).show_detail(
            (tid, self.rows_version), lambda: present.detail(tid, self.data.by_id, self.data.stages))

    def _update_status(self) -> None:
        marked = sum(1 for tid in self.app.marked if tid in self.data.by_id)
        hidden = len(self.data.columns) - len(self.visible_columns())
        self.query_one("#lineage-status", Static).update(present.status_text(
            self.state, len(self.cache.jobs), len(self.data.rows), self.conditions, len(self.shown), marked, hidden,
            self.cache.progress.loading), layout=False)  # one line

    # -- live updates ---------------------------------------------------------------------

    def cache_changed(self, changes: Changes) -> None:
        if changes.lineage or changes.added or changes.removed:
            self.refresh_rows()
        elif not self.data.rows:
            self._apply_order()  # "loading…" turns into "no job has lineage"
        else:
            self._update_status()

    def marks_changed(self) -> None:
        if self._keys_ready:  # (composed and filled)
            self._update_status()
            if self.state.panel != NO_PANEL:
                self._update_readout()

    # -- filter ---------------------------------------------------------------------------

    def _read_filter(self, text: str) -> bool:
        """Parse `text`; keep the last good conditions and say why when it cannot be read."""
        try:
            conditions = parse_conditions(text, self.data.filter_columns)
        except LineageQueryError as exc:
            self.filter_box.show_error(present.filter_error_text(str(exc)))
            return False
        self.conditions = conditions
        self.filter_box.show_error(None)
        return True

    def action_filter(self) -> None:
        self.filter_box.open()

    @on(Input.Changed, "#lineage-filter")
    def _filter_changed(self, event: Input.Changed) -> None:
        event.stop()
        self.state = self.state.with_filter(event.value)

    @on(Input.Submitted, "#lineage-filter")
    def _filter_done(self, event: Input.Submitted) -> None:
        event.stop()
        if not event.value.strip():
            self.filter_box.close()
        focus_now(self.panel_widget() or self.active_table)

    def action_clear_filter(self) -> None:
        if not self.filter_box.has_class("-shown") and not self.state.filter:
            if self.state.panel != NO_PANEL:  # then the panel closes, then escape goes back
                self.state = self.state.toggle_panel(self.state.panel)
                return
            raise SkipAction()  # escape then goes back (the app's binding)
        self.filter_box.close(clear=True)
        focus_now(self.panel_widget() or self.active_table)
        self.state = self.state.with_filter("")

    # -- sort -----------------------------------------------------------------------------

    def _can_sort(self, column: str | None) -> bool:
        if column is None:
            return False
        if column not in self.data.columns:
            self.notify(present.DATASET_SORT_NOTE, severity="warning")
        return column in self.data.columns

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
        data = self.data
        choosable = [c for c in data.columns if c != KEY_COLUMN]
        defaults = [c for c in default_columns(data.columns, data.varying, data.unfilled) if c != KEY_COLUMN]

        def chosen(result: list[str] | None) -> None:
            if result is not None:
                self.state = self.state.with_columns(result, choosable)

        self.app.push_screen(LineageColumnsScreen(choosable, set(self.visible_columns()), defaults), chosen)

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
        return row if self.state.panel != NO_PANEL and row in self.shown_ids() else self.active_table.current_row_key

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
        else:
            marked.append(tid)
        self.notify(present.mark_note(tid, tid in marked, len(marked)), timeout=3)
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
        self.query_one(LineagePanel).show_part(shown_part)
        self._update_panel()
        if focus:
            focus_now(shown_part or self.active_table)

    def _update_panel(self) -> None:
        state = self.state
        if state.panel == CHART:
            runs = self.chart()
            self.query_one(ParallelChart).set_chart(runs, present.chart_look(runs, state, self.shown_ids(),
                                                                             self.conditions))
        elif state.panel == IMPORTANCE:
            ranking = self.importance_ranking()
            self.query_one(ImportanceTable).set_ranking(ranking, present.importance_cursor(ranking, state),
                                                        len(self.shown))
            if state.scatter:
                data = self.scatter_data()
                self.query_one(ScatterPlot).set_scatter(data, present.scatter_cursor(data, state.row))
        else:
            return
        self._update_readout()

    def _update_readout(self) -> None:
        state = self.state
        self.query_one(LineagePanel).set_readout(present.panel_readout(
            state, self.chart() if state.panel == CHART else None, self.data, self.shown, self.conditions,
            self.importance_ranking() if state.panel == IMPORTANCE else [], self.app.marked))

    def axis_columns(self) -> list[str]:
        """The chart's axes: the table's columns; in dataset lineage the pipeline parameters
        where the jobs differ (all of them when none does)."""
        if self.state.mode == MODEL:
            return [c for c in self.visible_columns() if c != KEY_COLUMN]
        return dataset_axes(self.data.rows, self.data.dataset_columns)

    def chart(self) -> ChartRuns:
        """The runs' places on the axes, rebuilt when the rows, the axes or the colour change."""
        columns = self.axis_columns()
        colour = self.state.colour_column(self.data.filter_columns)
        return self._chart.get((self.rows_version, tuple(columns), colour),
                               lambda: present.chart_runs(self.data.rows, columns, colour))

    def shown_ids(self) -> set[str]:
        return {row.summary_dir for row in self.shown}

    def importance_ranking(self) -> list[TargetImportance]:
        """Importance over the runs the filter shows (recomputed when they change)."""
        return self._ranking.get((self.rows_version, tuple(row.summary_dir for row in self.shown)),
                                 lambda: importances(self.shown, self.data.columns))

    def scatter_data(self) -> ScatterData:
        return present.scatter_data(self.importance_ranking(), self.state, self.shown)

    @on(CommandKeys.Command)
    def _command(self, event: CommandKeys.Command) -> None:
        """The panel's keys: each part's command as the next state (the presenter's transitions)."""
        event.stop()
        name, step, state = event.name, event.step, self.state
        if isinstance(event.widget, ParallelChart):
            try:
                self.state = present.chart_command(state, name, step, self.chart(), self.shown_ids(),
                                                   self.data.filter_columns)
            except LineageQueryError as exc:
                self.notify(present.range_error_text(present.picked_axis(self.chart(), state), exc),
                            severity="warning")
        elif isinstance(event.widget, ImportanceTable):
            self.state = present.importance_command(state, name, step, self.importance_ranking())
        elif isinstance(event.widget, ScatterPlot) and name == "open":
            self._open(state.row if present.scatter_cursor(self.scatter_data(), state.row) is not None else None)
        elif isinstance(event.widget, ScatterPlot):
            self.state = present.scatter_command(state, name, step, self.scatter_data())

    # -- export ---------------------------------------------------------------------------

    def export_scope(self) -> dict[str, Any]:
        return {"train_ids": [row.summary_dir for row in self.shown], "plugins": {"lineage"}}

    def describe_export(self) -> str:
        n = len(self.shown)
        return f"lineage of the {n} shown job{'s' if n != 1 else ''}"
