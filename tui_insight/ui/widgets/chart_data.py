"""What a chart draws, as plain data: its traces and options (no Textual), so presenters build
them without a terminal and `chart.py` draws them."""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np


@dataclass(frozen=True, eq=False)
class Trace:
    x: np.ndarray
    y: np.ndarray
    colour: str  # "#rrggbb"
    kind: str = "line"  # "line", "smoothed", "faint" (raw under smoothed), "points" (threshold hits) or "band"
    right: bool = False  # against the right y-axis
    marker: str = "braille"
    upper: np.ndarray | None = None  # a "band": the area from `y` (lower) up to this, shaded

    @classmethod
    def band(cls, x: np.ndarray, lower: np.ndarray, upper: np.ndarray, colour: str, right: bool = False) -> "Trace":
        """A shaded band between two series over shared x, drawn under the lines."""
        return cls(x, lower, colour, "band", right, upper=upper)


@dataclass(frozen=True)
class ChartOptions:
    x_axis: str = "step"  # "step", "relative", "wall" or "fraction": only how ticks read
    x_range: tuple[float, float] | None = None
    log_y: bool = False
    cursor_x: float | None = None
    hlines: tuple[float, ...] = ()  # threshold lines
    legend: tuple[tuple[str, str], ...] = ()  # (colour, label)
    legend_symbols: tuple[str, ...] = ()  # without colour (NO_COLOR): each entry's marker
    note: str = ""  # said after the legend: "smoothed 0.6", "normalised", axes of a two-axis chart


def log_y_problem(traces: list[Trace]) -> str:
    """Why the chart cannot draw a log y-axis ("" when it can): values that are not > 0."""
    values = [np.asarray(t.y, dtype=np.float64) for t in traces if t.kind in ("line", "faint")]
    values = [v[np.isfinite(v)] for v in values]
    total = sum(len(v) for v in values)
    bad = sum(int(np.count_nonzero(v <= 0)) for v in values)
    return f"log y needs values > 0: {bad} of {total} are ≤ 0" if bad else ""


def x_limits(traces: list[Trace], options: ChartOptions) -> tuple[float, float] | None:
    """The x range a chart shows: its zoom, else its traces' finite x (widened when one point)."""
    if options.x_range is not None:
        lo, hi = options.x_range
    else:
        xs = [t.x[np.isfinite(t.x)] for t in traces if len(t.x)]
        xs = [x for x in xs if len(x)]
        if not xs:
            return None
        lo, hi = float(min(x.min() for x in xs)), float(max(x.max() for x in xs))
    if lo == hi:
        lo, hi = lo - 0.5, hi + 0.5
    return lo, hi
