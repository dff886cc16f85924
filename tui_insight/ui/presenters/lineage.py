"""What the lineage view shows: the rows and columns derived from the jobs (`LineageData`), the
cells of its two tables, the status line, the filter's message, the read-out under the panel,
and the panel's keys as the next `LineageState`, from the view's state and the rows the
`summary` queries made. Text from the files is shown literally."""
from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any, Collection, Iterable, Mapping, Sequence

import numpy as np

from rich.console import RenderableType
from rich.text import Text

from ...summary.queries.importance import TargetImportance, scatter_points
from ...summary.queries.lineage import (
    FLOAT_COLUMNS,
    INT_COLUMNS,
    METRIC,
    USER_DEFINED,
    Condition,
    LineageRow,
    Stage,
    columns,
    dataset_stages,
    filter_rows,
    model_rows,
    sort_rows,
    stage_columns,
    value_text,
    with_dataset_values,
    written_names,
)
from ...summary.queries.lineage_diff import unfilled_columns, varying_hparams
from ...summary.queries.parallel import CATEGORY, HIGH, LOW, Axis, axis_for, brush_of
from ..common.text import literal, markup, shown
from ..state.lineage import CHART, IMPORTANCE, KEY_COLUMN, MODEL, LineageState
from ..widgets.lineage_data import (
    Cell,
    ChartLook,
    ChartRuns,
    ScatterData,
    TableColumn,
    cell_text,
    entries,
    short_value,
)
from ..widgets.lineage_dataset import pipeline_detail

MARK_COLUMN = "dataset_mark"
FILTER_HINT = ("operators = != < > <= >= in not_in, ranges lr 0.01..0.1 · all must hold · \"quote\" text · "
               "enter: done · escape: clear")
# The help screen's note on the lineage keys (markup).
HELP_NOTE = ("[b]Filter[/b] (/): conditions on columns, all must hold, e.g.\n"
             "  learning_rate>=0.01 optimizer=Momentum metric/Accuracy>0.5\n"
             "  operators = != < <= > >=, and `summary_dir in ./a,./b`\n"
             "  ranges: lr 0.01..0.1 (>= and <=), epoch 3.., loss ..0.5\n"
             "[b]Columns[/b] (v): opens with learning rate, batch size, epoch, optimizer, loss,\n"
             "  metrics and the TensorBoard hyper-parameters the runs differ in (lr, bs, opt...\n"
             "  fill learning_rate, batch_size, optimizer); dataset paths and the rest are a\n"
             "  keypress away\n"
             "[b]Parallel coordinates[/b] (p): an axis per column (dataset lineage: per pipeline\n"
             "  parameter where jobs differ), a line per run coloured by a column (c: this axis).\n"
             "  ← → pick an axis, [ ] { } move the low/high end of its range: the range is the\n"
             "  filter (shown in the / box), runs outside it are faint; — is the missing-value tick\n"
             "[b]Importance[/b] (i): per target (loss, metric/<k>), MindInsight's |Pearson| over the\n"
             "  runs the filter shows, with Spearman and the runs used (fewer than 3: no number);\n"
             "  enter: the scatter of the pair, ← → walk its runs")
DATASET_SORT_NOTE = ("The dataset table follows the model table's order: sort by summary_dir or pipeline "
                     "here, or by any model column in the model table (t)")
SCATTER_KEYS = "← → runs · enter opens · space marks · backspace: the ranking"
Table = tuple[list[TableColumn], dict[str, list[Cell]]]


@dataclass(frozen=True)
class LineageData:
    """Every job with lineage (MindInsight's order, newest first) and what the view derives from
    them. The column lists are over every listed run, so that a filter takes no column away."""

    rows: list[LineageRow]
    by_id: dict[str, LineageRow]
    columns: list[str]  # the model table's columns
    varying: list[str]  # TensorBoard hyper-parameter columns the runs differ in: shown by default
    unfilled: list[str]  # columns no run has a value in: hidden by default
    stages: dict[str, list[Stage]]
    dataset_columns: list[str]  # dataset/<stage>.<param> of every pipeline

    @property
    def filter_columns(self) -> list[str]:
        """The columns a condition may name: the model columns and the dataset parameters."""
        return [*self.columns, *self.dataset_columns]


NO_ROWS = LineageData([], {}, [], [], [], {}, [])


def lineage_data(jobs: Mapping[str, Any]) -> LineageData:
    """The rows of `jobs` (train id: job view) that have lineage, with their pipelines' values."""
    found = model_rows(jobs)
    stages = dataset_stages(found)
    rows, dataset_columns = with_dataset_values(found, stages)
    return LineageData(rows, {row.summary_dir: row for row in rows}, columns(found), varying_hparams(found),
                       unfilled_columns(found), stages, dataset_columns)


def ordered_rows(rows: Sequence[LineageRow], conditions: Sequence[Condition], state: LineageState) -> list[LineageRow]:
    """The rows the filter keeps, in the state's order (missing values last)."""
    kept = filter_rows(rows, conditions) if conditions else list(rows)
    return sort_rows(kept, state.sort_column, state.descending) if state.sort_column is not None else kept


def is_numeric(column: str, rows: Sequence[LineageRow]) -> bool:
    """Right-justified: the numeric columns, and a user-defined one whose values are all numbers."""
    if column in INT_COLUMNS or column in FLOAT_COLUMNS or column.startswith(METRIC):
        return True
    if column.startswith(USER_DEFINED):
        values = [row.get(column) for row in rows if row.get(column) is not None]
        return bool(values) and all(isinstance(v, (int, float)) and not isinstance(v, bool) for v in values)
    return False


def model_table(rows: Sequence[LineageRow], names: Sequence[str]) -> Table:
    """The model table's columns and each run's cells."""
    columns = [TableColumn(name, shown(name), is_numeric(name, rows)) for name in names]
    return columns, {row.summary_dir: [cell_text(row.get(name), name) for name in names] for row in rows}


def dataset_table(rows: Sequence[LineageRow], stages: Mapping[str, list[Stage]]) -> Table:
    """One column per parameter of each pipeline stage (a group per stage); the columns where
    the runs do not differ are dim: where they differ is what the table is for."""
    pairs = stage_columns(stages[row.summary_dir] for row in rows)
    columns = [TableColumn(KEY_COLUMN, KEY_COLUMN), TableColumn(MARK_COLUMN, "pipeline")]
    columns += [TableColumn(f"{stage}.{param}", shown(param), group=shown(stage)) for stage, param in pairs]
    cells: dict[str, list[Cell]] = {}
    by_mark: dict[Any, list[Cell]] = {}  # the stage cells of each distinct pipeline
    for row in rows:
        mark = row.get(MARK_COLUMN)
        stage_cells = by_mark.get(mark) if mark is not None else None
        if stage_cells is None:
            by_name = {stage.name: stage for stage in stages[row.summary_dir]}
            stage_cells = []
            for stage, param in pairs:
                found = by_name.get(stage)
                text = value_text(found.params.get(param)) if found is not None else None
                stage_cells.append(shown(text) if text is not None else None)
            if mark is not None:
                by_mark[mark] = stage_cells
        cells[row.summary_dir] = [cell_text(row.summary_dir), cell_text(mark), *stage_cells]
    for i in range(2, len(columns)):
        if len({cells[tid][i] for tid in cells}) <= 1:
            for tid in cells:
                value = cells[tid][i]
                if isinstance(value, str):
                    cells[tid][i] = Text(value, style="dim")  # already shown(): no markup, no controls
    return columns, cells


def detail(tid: str | None, rows: Mapping[str, LineageRow], stages: Mapping[str, list[Stage]]) -> RenderableType:
    """Beside the dataset table: the whole pipeline of the run under the cursor."""
    if tid is None or tid not in rows:
        return "[dim]no job selected[/dim]"
    return pipeline_detail(tid, stages.get(tid, []), rows[tid].get(MARK_COLUMN))


def empty_text(has_rows: bool, loading: bool) -> str:
    """What an empty table says."""
    if has_rows:
        return "no job matches the filter (escape clears it)"
    return "loading…" if loading else "no job has lineage (no _lineage file in LOGDIR yet)"


def filter_error_text(error: str) -> str:
    return markup(f"{error} · the table keeps the last good filter")


def status_text(state: LineageState, jobs: int, rows: int, conditions: Sequence[Condition], shown_rows: int,
                marked: int, hidden: int, loading: bool) -> str:
    """The bottom line (markup): how many jobs have lineage, what the filter keeps, the order,
    the marks, the hidden columns."""
    parts = [f"[b]{rows}[/b] of {jobs} job{'s' if jobs != 1 else ''} with lineage"]
    if conditions:
        parts.append(f"[b]{shown_rows}[/b] shown by [i]{markup(' '.join(map(str, conditions)))}[/i]")
    parts.append(markup(state.sort_text()))
    if marked:
        parts.append(f"{marked} marked")
    if state.mode == MODEL and hidden:
        parts.append(f"{hidden} column{'s' if hidden != 1 else ''} hidden (v)")
    if loading and not rows:
        parts.append("[dim]loading…[/dim]")
    return " · ".join(parts)


# -- the panel: parallel coordinates, importance, scatter ----------------------------------------

def chart_runs(rows: Sequence[LineageRow], columns: Sequence[str], colour: str | None) -> ChartRuns:
    """The runs' places on the axes of `columns`, coloured by the column `colour` (None: none)."""
    wanted = [*columns, *([colour] if colour else [])]
    values = {c: [row.values.get(c) for row in rows] for c in wanted}
    axes = [axis_for(c, values[c]) for c in columns]
    colour_axis = axis_for(colour, values[colour]) if colour else None
    return ChartRuns.build([row.summary_dir for row in rows], axes, [values[c] for c in columns], colour_axis,
                           values[colour] if colour else [])


def picked_axis(runs: ChartRuns, state: LineageState) -> Axis | None:
    column = state.picked_axis([axis.column for axis in runs.axes])
    return next((axis for axis in runs.axes if axis.column == column), None)


def chart_look(runs: ChartRuns, state: LineageState, shown_ids: Collection[str],
               conditions: Sequence[Condition]) -> ChartLook:
    """The runs inside the filter, the picked axis, each axis's range, the highlighted run."""
    inside = bytes(tid in shown_ids for tid in runs.ids)
    axis = picked_axis(runs, state)
    picked = runs.axes.index(axis) if axis is not None else 0
    brushes = tuple(brush_of(a, conditions) for a in runs.axes)
    row = state.row
    highlight = runs.ids.index(row) if row in shown_ids and row in runs.ids else None
    return ChartLook(inside, picked, brushes, highlight)


def run_order(runs: ChartRuns, state: LineageState, shown_ids: Collection[str]) -> list[str]:
    """The runs inside the filter from the bottom of the picked axis to its top (↑ goes up)."""
    axis = picked_axis(runs, state)
    places = runs.positions[:, runs.axes.index(axis)] if axis is not None else np.zeros(len(runs.ids))
    order = [i for i, tid in enumerate(runs.ids) if tid in shown_ids]
    order.sort(key=lambda i: (-np.inf if np.isnan(places[i]) else places[i], i))
    return [runs.ids[i] for i in order]


def chart_command(state: LineageState, name: str, step: int, runs: ChartRuns, shown_ids: Collection[str],
                  known: Sequence[str]) -> LineageState:
    """A key of parallel coordinates (`ParallelChart`'s command `name`) as the next state: pick
    an axis, walk the runs, colour by the axis, move or clear an end of its range. A range
    that cannot be written into the filter raises `LineageQueryError`."""
    if name == "axis":
        return state.pick_axis([axis.column for axis in runs.axes], step)
    if name == "run":
        return state.step_run(run_order(runs, state, shown_ids), step)
    axis = picked_axis(runs, state)
    if axis is None:
        return state
    if name == "colour":
        return state.with_colour(axis.column)
    if name == "clear":
        return state.clear_brush(axis, known)
    return state.brush(axis, LOW if name == "low" else HIGH, step, known)


def range_error_text(axis: Axis | None, error: Exception) -> str:
    """Why a range step could not be written into the filter (markup)."""
    return markup(f"No range on {axis.column if axis else ''}: {error} (the filter must read first: /)")


def importance_command(state: LineageState, name: str, step: int,
                       ranking: Sequence[TargetImportance]) -> LineageState:
    """A key of the ranking as the next state: `param` moves the cursor (from the first line
    when the remembered pair is gone), `scatter` opens the scatter of the pair under it."""
    found = entries(ranking)
    if name == "param":
        if (state.target, state.param) not in found and found:
            state = replace(state, target=found[0][0], param=found[0][1])
        return state.move_importance(found, step)
    target, param = importance_cursor(ranking, state)
    if name == "scatter" and target is not None:
        return replace(state, target=target, param=param).toggle_scatter()
    return state


def importance_cursor(ranking: Sequence[TargetImportance], state: LineageState) -> tuple[str | None, str | None]:
    """The (target, parameter) under the cursor: the remembered one, else the first."""
    found = entries(ranking)
    current = (state.target, state.param)
    return current if current in found else (found[0] if found else (None, None))


def scatter_data(ranking: Sequence[TargetImportance], state: LineageState, shown: Sequence[LineageRow]) -> ScatterData:
    """The scatter of the pair under the ranking's cursor, over the runs the filter shows."""
    target, param = importance_cursor(ranking, state)
    if target is None or param is None:
        return ScatterData("", "", ())
    return ScatterData(param, target, tuple(scatter_points(shown, param, target)),
                       scatter_title(ranking, target, param))


def scatter_cursor(data: ScatterData, row: str | None) -> int | None:
    """The index of the highlighted run among the scatter's points (None: not one of them)."""
    return next((i for i, point in enumerate(data.points) if point[0] == row), None)


def scatter_command(state: LineageState, name: str, step: int, data: ScatterData) -> LineageState:
    """A key of the scatter as the next state: `point` walks its runs, `back` returns to the ranking."""
    if name == "point":
        return state.step_run([point[0] for point in data.points], step)
    return state.toggle_scatter() if name == "back" else state


def mark_note(tid: str, marked: bool, count: int) -> str:
    """What `space` says (markup): the run (un)marked, and how many are."""
    said = f"{markup(tid)} marked for comparison" if marked else f"{markup(tid)} unmarked"
    return f"{said} · {count} marked (c in the job list compares them)"


def _marked_note(tid: str, marked: Collection[str]) -> str:
    return " (marked)" if tid in marked else ""


def chart_readout(state: LineageState, axis: Axis | None, rows: Sequence[LineageRow], shown_ids: Collection[str],
                  conditions: Sequence[Condition], runs: int, colour: str | None, marked: Collection[str]) -> Text:
    """Under parallel coordinates: the picked axis (aliases written, range or extent), the
    highlighted run's value on it, how many runs are inside, the colour column."""
    if axis is None:
        return Text("no column to draw: v chooses the table's columns" if state.mode == MODEL
                    else "no dataset parameter to draw", style="dim")
    text = literal(axis.column, "bold")
    written = written_names(rows, axis.column)  # the aliases lined up in it (lr, opt)
    if written:
        text.append_text(literal(f" (written {', '.join(written)})", "dim"))
    brush = brush_of(axis, conditions)
    if brush.active:
        text.append("  range ", style="bold")
        text.append_text(literal(brush.text(), "bold"))
    elif axis.kind == CATEGORY:
        text.append(f"  {len(axis.categories)} values")
    elif not axis.empty:
        text.append(f"  {short_value(axis.low)} … {short_value(axis.high)}{' (log)' if axis.log else ''}")
    row = next((r for r in rows if r.summary_dir == state.row), None)
    if row is not None and row.summary_dir in shown_ids:
        value = row.values.get(axis.column)
        text.append(" · ▶ ")
        text.append_text(literal(f"{row.summary_dir} {short_value(value) if value is not None else '—'}"))
        text.append(_marked_note(row.summary_dir, marked))
    text.append(f" · {len(shown_ids)}/{runs} runs inside")
    if colour is not None:
        text.append(" · colour ", style="dim")
        text.append_text(literal(colour, "dim"))
    return text


def panel_readout(state: LineageState, runs: ChartRuns | None, data: LineageData, shown_rows: Sequence[LineageRow],
                  conditions: Sequence[Condition], ranking: Sequence[TargetImportance],
                  marked: Collection[str]) -> Text:
    """The line under the panel the state shows (`runs`: the chart's, when it is the chart)."""
    if state.panel == CHART and runs is not None:
        return chart_readout(state, picked_axis(runs, state), data.rows, {row.summary_dir for row in shown_rows},
                             conditions, len(runs.ids), runs.colour.column if runs.colour else None, marked)
    if state.panel == IMPORTANCE and state.scatter:
        scatter = scatter_data(ranking, state, shown_rows)
        point = next((p for p in scatter.points if p[0] == state.row), None)
        return scatter_readout(point, scatter.param, scatter.target, marked)
    if state.panel == IMPORTANCE:
        return importance_readout(len(shown_rows))
    return Text()


def scatter_title(ranking: Iterable[TargetImportance], target: str, param: str) -> str:
    """What the ranking says of the pair, over its scatter."""
    item = next(i for t in ranking if t.target == target for i in t.params if i.param == param)
    return item.reason or f"|Pearson| {item.importance:.3f} · Spearman {item.spearman:+.2f} · {item.runs} runs"


def scatter_readout(point: tuple[str, float, float] | None, param: str, target: str, marked: Collection[str]) -> Text:
    """Under the scatter: the highlighted run's two values, then the keys."""
    text = Text()
    if point is not None:
        text = Text.assemble(literal(point[0], "bold"), literal(f"  {param} {short_value(point[1])}"),
                             literal(f" · {target} {short_value(point[2])}"))
        text.append(_marked_note(point[0], marked))
    text.append(("  · " if text else "") + SCATTER_KEYS, style="dim")
    return text


def importance_readout(runs: int) -> Text:
    return Text(f"over the {runs} runs the filter shows · importance is MindInsight's |Pearson| "
                "(0 under 3 runs) · enter: scatter", style="dim")
