"""The lineage widgets' plain data, without Textual: a table's cells and columns, the runs of
parallel coordinates, a scatter's points, a short value. The presenters build them; the
widgets (`lineage_table.py`, `parallel_coords.py`, `scatter.py`) draw them."""
from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any, Sequence, Union

import numpy as np

from rich.text import Text

from ..common.format import number
from ...summary.queries.importance import TargetImportance
from ...summary.queries.parallel import Axis, Brush
from ..common.text import shown

Cell = Union[str, Text, None]  # None: a missing value, drawn as a dim "-"
PATH_WIDTH = 26  # dataset paths are cut at the front: their end tells them apart


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


@dataclass(frozen=True)
class TableColumn:
    key: str
    label: str
    numeric: bool = False  # right-justified
    group: str = ""  # a label over a run of columns (a second header line), e.g. a pipeline stage



def short_value(value: Any) -> str:
    """An axis value as a short label: 0.001, 2.46, 128, Adam."""
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return shown(str(value))
    if isinstance(value, int) or float(value).is_integer() and abs(value) < 1e6:
        return str(int(value))
    return f"{value:.3g}"


@dataclass(frozen=True)
class ChartRuns:
    """What the chart draws, built when the rows, the axes or the colour column change."""

    ids: tuple[str, ...]  # the runs (summary_dir), in row order
    axes: tuple[Axis, ...]
    positions: np.ndarray  # (runs, axes): 0 at the bottom, 1 at the top, NaN: no value
    colour: Axis | None = None  # the column the lines are coloured by
    shade: np.ndarray | None = None  # (runs,): place on the colour axis, NaN: none

    @classmethod
    def build(cls, ids: Sequence[str], axes: Sequence[Axis], values: Sequence[Sequence[Any]],
              colour: Axis | None = None, colour_values: Sequence[Any] = ()) -> "ChartRuns":
        """`values[k]`: the values of axis k, one per run."""
        positions = np.column_stack([axis.positions(v) for axis, v in zip(axes, values)]) if axes \
            else np.zeros((len(ids), 0))
        shade = colour.positions(colour_values) if colour is not None else None
        return cls(tuple(ids), tuple(axes), positions, colour, shade)


@dataclass(frozen=True)
class ChartLook:
    """What a key changes: the runs inside the filter, the picked axis, the brushes (one per
    axis), the highlighted run."""

    inside: bytes = b""  # one byte per run: 1 inside the filter (hashable, so drawings are kept)
    picked: int = 0
    brushes: tuple[Brush, ...] = ()
    highlight: int | None = None


@dataclass(frozen=True)
class ScatterData:
    param: str
    target: str
    points: tuple[tuple[str, float, float], ...]  # (run, parameter, target), by parameter
    title: str = ""  # what the ranking said of the pair (|Pearson|, Spearman, runs)


def entries(targets: Sequence[TargetImportance]) -> list[tuple[str, str]]:
    """The (target, parameter) lines the cursor moves over, in the order shown."""
    return [(target.target, item.param) for target in targets for item in target.params]
