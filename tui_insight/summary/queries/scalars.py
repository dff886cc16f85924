"""Scalar queries (compat §4.3): a tag's series, smoothing, x axes, and decimation for drawing.

Pure functions over a `JobView` snapshot and numpy arrays; nothing here draws or reads files.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

import numpy as np

from ..store.job_view import JobView

XAxis = Literal["step", "relative", "wall"]
X_AXES: tuple[XAxis, ...] = ("step", "relative", "wall")
MAX_SMOOTHING = 0.99  # the UI slider's top: at 1 the EMA would never move


@dataclass(frozen=True)
class ScalarSeries:
    """The kept points of one scalar tag, sorted by step."""

    train_id: str
    tag: str
    steps: np.ndarray  # int64
    wall_times: np.ndarray  # float64
    values: np.ndarray  # float64, NaN/Inf as written

    def __len__(self) -> int:
        return len(self.steps)


def scalar_series(view: JobView, tag: str) -> ScalarSeries | None:
    """The series of scalar `tag` (as written, without the `/scalar` suffix), or None if the job has none."""
    series = view.series("scalar", tag)
    if series is None:
        return None
    return ScalarSeries(view.train_id, tag, series.steps, series.wall_times, series.values)


def smooth(values: np.ndarray, weight: float) -> np.ndarray:
    """MindInsight's debiased exponential moving average (UI `formateSmoothData`).

    For each finite value v, in order: ema = w*ema + (1-w)*v, shown = ema / (1 - w**k), where k
    counts the finite values so far. Non-finite values are returned as they are and do not move
    the average. A series whose values are all identical, or shorter than 2, is not smoothed.
    `weight` is clamped to [0, 0.99]; weight 0 returns a copy.
    """
    values = np.asarray(values, dtype=np.float64)
    out = values.copy()
    w = min(max(float(weight), 0.0), MAX_SMOOTHING)
    if w == 0.0 or len(values) < 2 or bool(np.all(values == values[0])):
        return out
    finite = np.flatnonzero(np.isfinite(values))
    # A loop, because each point depends on the previous one; at most 1000 kept points per tag.
    ema = 0.0
    smoothed = np.empty(len(finite))
    for k, v in enumerate(values[finite].tolist(), start=1):
        ema = ema * w + (1.0 - w) * v
        smoothed[k - 1] = ema / (1.0 - w**k)
    out[finite] = smoothed
    return out


def x_values(series: ScalarSeries, axis: XAxis, origin: float | None) -> np.ndarray:
    """The x coordinate of each point (float64).

    "step": the step; "relative": seconds since `origin` (pass `view.first_wall_time`; None uses
    the series' first wall time); "wall": the wall time (seconds since the epoch).
    """
    if axis == "step":
        return series.steps.astype(np.float64)
    if axis == "relative":
        if origin is None:
            origin = float(series.wall_times[0]) if len(series.wall_times) else 0.0
        # inf - inf (NaN) or 1e308 - -1e308 (inf) in a damaged file's wall times: silently
        with np.errstate(invalid="ignore", over="ignore"):
            return series.wall_times - origin
    if axis == "wall":
        return series.wall_times.astype(np.float64, copy=True)
    raise ValueError(f"unknown x axis {axis!r}: expected one of {', '.join(X_AXES)}")


def decimate(x: np.ndarray, y: np.ndarray, columns: int) -> tuple[np.ndarray, np.ndarray]:
    """At most 2*columns points to draw the line y(x) on `columns` cells.

    The x range is cut into `columns` equal slots; in each slot the points with the smallest and
    the largest y are kept (so spikes survive), returned in x order. Points with a non-finite x
    or y are dropped (they cannot be drawn). Cost is O(n log n) in numpy, no loop per point.
    """
    x = np.asarray(x, dtype=np.float64)
    y = np.asarray(y, dtype=np.float64)
    drawable = np.isfinite(x) & np.isfinite(y)
    x, y = x[drawable], y[drawable]
    if len(x) and not bool(np.all(x[1:] >= x[:-1])):
        order = np.argsort(x, kind="stable")
        x, y = x[order], y[order]
    columns = max(int(columns), 1)
    if len(x) <= 2 * columns:
        return x, y
    span = x[-1] - x[0]
    slot = np.zeros(len(x), dtype=np.int64) if span <= 0 else \
        np.minimum(((x - x[0]) / span * columns).astype(np.int64), columns - 1)
    # Sorted by (slot, y): the first of each slot holds its min, the last its max.
    order = np.lexsort((y, slot))
    sorted_slot = slot[order]
    starts = np.flatnonzero(np.r_[True, sorted_slot[1:] != sorted_slot[:-1]])
    ends = np.r_[starts[1:], len(order)] - 1
    keep = np.unique(np.concatenate((order[starts], order[ends])))  # sorted: x order
    return x[keep], y[keep]


def threshold_mask(values: np.ndarray, above: float | None, below: float | None) -> np.ndarray:
    """True where a value is > `above` or < `below` (either bound may be None). NaN is never beyond."""
    values = np.asarray(values, dtype=np.float64)
    mask = np.zeros(values.shape, dtype=bool)
    with np.errstate(invalid="ignore"):
        if above is not None:
            mask |= values > above
        if below is not None:
            mask |= values < below
    return mask


def value_at(series: ScalarSeries, x: float, axis: XAxis, origin: float | None) -> int:
    """Index of the point whose x is nearest `x` (for a value cursor); -1 if the series is empty."""
    xs = x_values(series, axis, origin)
    if not len(xs):
        return -1
    with np.errstate(invalid="ignore"):  # (inf - inf: NaN, never the nearest)
        return int(np.argmin(np.abs(xs - float(x))))
