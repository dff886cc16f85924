"""Parameter importance over runs' lineage, as MindInsight's optimizer module measures it.

MindInsight (`optimizer/utils/importances.py`, `lineagemgr/model.py` LineageTable) takes the
lineage of every run as a table, keeps the columns whose values are all numbers, and for each
target (`loss` and each `metric/<k>`) ranks the hyper-parameters (every other numeric column
except loss, the counts, device_num and model_size; user-defined ones included) by the absolute
Pearson correlation between parameter and target over the runs that have both values: 0 when
fewer than 3 runs have both, or when the correlation is undefined (a constant column).

Beside MindInsight's number this module gives the signed Pearson and Spearman's rank
correlation (average ranks for ties) and the number of runs used: with 3 runs a random seed
can score 0.93, so the sample size is part of the answer. One difference on purpose: a
non-finite value (inf) counts as missing, where MindInsight's pandas correlation turns NaN and
scores 0. numpy only; 1,000 runs take a few milliseconds.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Iterable, Sequence

import numpy as np

from .lineage import FIXED_COLUMNS, METRIC, USER_DEFINED, LineageRow

LOSS = "loss"
MIN_RUNS = 3  # MindInsight: no correlation from 2 runs or fewer
# Numeric columns that are not tuned: the targets' own loss, sizes and counts (MindInsight's list).
NOT_TUNABLE = frozenset({LOSS, "summary_dir", "device_num", "model_size", "test_dataset_count",
                         "train_dataset_count"})


@dataclass(frozen=True)
class Importance:
    """How one hyper-parameter goes with one target over the runs."""

    param: str
    importance: float  # MindInsight's: |Pearson|, 0 when it cannot be computed
    pearson: float | None  # signed; None when it cannot be computed
    spearman: float | None
    runs: int  # runs with both values
    reason: str = ""  # why there is no correlation: "too few runs (n=2)", "constant"

    @property
    def user_defined(self) -> bool:
        return self.param.startswith(USER_DEFINED)


@dataclass(frozen=True)
class TargetImportance:
    """The parameters' importance to one target, over the runs holding it."""

    target: str
    params: tuple[Importance, ...]  # most important first (MindInsight's order)
    runs: int  # runs with a value of the target


def _as_number(value: Any) -> float | None:
    """A value as MindInsight's table holds it: numbers as they are, "nan"/"inf" text as NaN;
    None when the value is not a number (which makes its whole column unusable)."""
    if isinstance(value, bool):
        return None
    if isinstance(value, (int, float)):
        return float(value)
    if isinstance(value, str) and value.lower() in ("nan", "inf"):
        return float("nan")
    return None


def numeric_columns(rows: Sequence[LineageRow], names: Iterable[str]) -> dict[str, np.ndarray]:
    """The columns of `names` whose present values are all numbers, as float arrays (NaN: missing
    or not finite). A column with text in it is left out, as MindInsight drops it."""
    out: dict[str, np.ndarray] = {}
    for name in names:
        values = np.full(len(rows), np.nan)
        usable = False
        for i, row in enumerate(rows):
            value = row.values.get(name)
            if value is None:
                continue
            number = _as_number(value)
            if number is None:
                break
            values[i] = number
            usable = True
        else:
            if usable:
                values[~np.isfinite(values)] = np.nan
                out[name] = values
    return out


def pearson(x: np.ndarray, y: np.ndarray) -> float | None:
    """Pearson's correlation of two equally long arrays without missing values; None when one
    of them is constant (or fewer than 2 values)."""
    if len(x) < 2:
        return None
    dx, dy = x - x.mean(), y - y.mean()
    denominator = float(np.sqrt(np.dot(dx, dx) * np.dot(dy, dy)))
    if denominator == 0.0 or not np.isfinite(denominator):
        return None
    return max(-1.0, min(1.0, float(np.dot(dx, dy)) / denominator))


def ranks(values: np.ndarray) -> np.ndarray:
    """1-based ranks, ties sharing their average rank (as scipy's rankdata 'average')."""
    order = np.argsort(values, kind="mergesort")
    ordered = values[order]
    starts_group = np.r_[True, ordered[1:] != ordered[:-1]]
    group = np.cumsum(starts_group) - 1
    starts = np.flatnonzero(starts_group)
    counts = np.diff(np.r_[starts, len(values)])
    average = starts + (counts - 1) / 2.0 + 1.0
    out = np.empty(len(values))
    out[order] = average[group]
    return out


def spearman(x: np.ndarray, y: np.ndarray) -> float | None:
    return pearson(ranks(x), ranks(y))


def importance(param: str, x: np.ndarray, y: np.ndarray) -> Importance:
    """One parameter against one target (arrays over the same runs, NaN missing)."""
    both = ~np.isnan(x) & ~np.isnan(y)
    n = int(both.sum())
    if n < MIN_RUNS:
        return Importance(param, 0.0, None, None, n, f"too few runs (n={n})")
    x, y = x[both], y[both]
    r = pearson(x, y)
    if r is None:
        return Importance(param, 0.0, None, None, n, "constant")
    return Importance(param, abs(r), r, spearman(x, y), n)


def targets(columns: Iterable[str]) -> list[str]:
    """The targets among numeric columns: loss first, then the metrics by name."""
    columns = list(columns)
    return ([LOSS] if LOSS in columns else []) + sorted(c for c in columns if c.startswith(METRIC))


def hyper_parameters(columns: Iterable[str]) -> list[str]:
    """The tunable numeric columns: not a target, not a count or size."""
    return [c for c in columns if not c.startswith(METRIC) and c not in NOT_TUNABLE]


def importances(rows: Sequence[LineageRow], columns: Iterable[str]) -> list[TargetImportance]:
    """For each target, every hyper-parameter ranked as MindInsight ranks them: importance
    descending, then MindInsight's own parameters before user-defined ones, then by name.

    `columns`: the lineage columns of the rows (`summary.lineage.columns(rows)`)."""
    rows = list(rows)
    candidates = [c for c in columns if c in FIXED_COLUMNS or c.startswith((METRIC, USER_DEFINED))]
    numbers = numeric_columns(rows, candidates)
    params = hyper_parameters(numbers)
    out = []
    for target in targets(numbers):
        y = numbers[target]
        found = [importance(param, numbers[param], y) for param in params]
        found.sort(key=lambda item: (-item.importance, item.user_defined, item.param))
        out.append(TargetImportance(target, tuple(found), int((~np.isnan(y)).sum())))
    return out


def scatter_points(rows: Sequence[LineageRow], param: str, target: str) -> list[tuple[str, float, float]]:
    """(summary_dir, parameter, target) of the runs that have both as finite numbers, by parameter
    then target then name: what a scatter of the pair draws."""
    points = []
    for row in rows:
        x, y = _as_number(row.values.get(param)), _as_number(row.values.get(target))
        if x is not None and y is not None and np.isfinite(x) and np.isfinite(y):
            points.append((row.summary_dir, x, y))
    points.sort(key=lambda p: (p[1], p[2], p[0]))
    return points
