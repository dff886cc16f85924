"""What the lineage view shows: the cells of its two tables, the status line, the filter's
message and the read-out under the panel, from the view's `LineageState` and the rows the
`summary` queries made. Text from the files is shown literally."""
from __future__ import annotations

from typing import Any, Collection, Iterable, Mapping, Sequence

from rich.console import RenderableType
from rich.text import Text

from ...summary.queries.importance import TargetImportance
from ...summary.queries.lineage import (
    FLOAT_COLUMNS,
    INT_COLUMNS,
    METRIC,
    USER_DEFINED,
    Condition,
    LineageRow,
    Stage,
    stage_columns,
    value_text,
    written_names,
)
from ...summary.queries.parallel import CATEGORY, Axis, brush_of
from ..common.text import literal, markup, shown
from ..state.lineage import KEY_COLUMN, MODEL, LineageState
from ..widgets.lineage_cells import Cell, TableColumn, cell_text, short_value
from ..widgets.lineage_dataset import pipeline_detail

MARK_COLUMN = "dataset_mark"
FILTER_HINT = ("operators = != < > <= >= in not_in, ranges lr 0.01..0.1 · all must hold · \"quote\" text · "
               "enter: done · escape: clear")
SCATTER_KEYS = "← → runs · enter opens · space marks · backspace: the ranking"
Table = tuple[list[TableColumn], dict[str, list[Cell]]]


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
