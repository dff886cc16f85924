"""What sets compared runs apart: the model-lineage columns whose values are not all the same,
and among them the ones TensorBoard hyper-parameters filled (the lineage table shows those by
default, whatever their names); and the columns no run has a value in (it hides those).

The rows are the lineage table's (`lineage.model_rows`: hyper-parameters, dataset, metrics and
user-defined values flattened to columns), so a difference reads as it does in the table.
"""
from __future__ import annotations

from typing import Any, Mapping, Sequence

from .lineage import LineageRow, columns, model_rows

SKIPPED = ("summary_dir",)  # differs between any two runs: it names them


def lineage_rows(jobs: Mapping[str, Any], train_ids: Sequence[str]) -> list[LineageRow]:
    """The lineage rows of the jobs of `train_ids` that have lineage, in the order of `train_ids`.

    `jobs` is `SummaryCache.jobs` (train id -> JobView)."""
    wanted = {tid: jobs[tid] for tid in train_ids if tid in jobs}
    by_id = {row.summary_dir: row for row in model_rows(wanted)}
    return [by_id[tid] for tid in train_ids if tid in by_id]


def _same(value: Any) -> Any:
    """What two values are compared by: a missing value (None, NaN) equals another missing one,
    and True is not 1."""
    if value is None or (isinstance(value, float) and value != value):
        return None
    return (type(value) is bool, value)


def differing_columns(rows: Sequence[LineageRow]) -> list[str]:
    """The columns (in the lineage table's order) in which the rows do not all hold the same
    value, a missing value counting as one; none for fewer than two rows."""
    if len(rows) < 2:
        return []
    out = []
    for column in columns(rows):
        if column in SKIPPED:
            continue
        first = _same(rows[0].get(column))
        if any(_same(row.get(column)) != first for row in rows[1:]):
            out.append(column)
    return out


def varying_hparams(rows: Sequence[LineageRow]) -> list[str]:
    """The columns a TensorBoard session's hyper-parameters filled in any of the rows (its own
    names, aliases lined up with a lineage column, `user_defined/<name>`) in which the rows
    differ, in table order; none for fewer than two rows."""
    filled = {column for row in rows for column in row.hparams}
    return [column for column in differing_columns(rows) if column in filled]


def unfilled_columns(rows: Sequence[LineageRow]) -> list[str]:
    """The columns (in table order) no row has a value in (MindSpore's `network` or `loss` over
    TensorBoard runs); none when there is no row."""
    if not rows:
        return []
    return [column for column in columns(rows)
            if column not in SKIPPED and all(_same(row.get(column)) is None for row in rows)]
