"""What a job list row needs of a scalar tag, in a few numbers: a `TagDigest`.

A job's full series are details, built when the job is opened and dropped again under the memory
budget; the job list, the run-health columns and the exporter's summaries read digests, which
every `JobView` carries for all its scalar tags whether its details are in memory or not.
A digest is about 30 numbers, so 5,000 jobs of 10 tags cost a few MB.
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any, Iterable

import numpy as np

from .series import Series

SPARK_POINTS = 10  # the bucket means kept for sparklines: the job table's trend cell, exactly
RECENT_FRACTION = 0.1  # "the change over the last 10% of steps"


@dataclass(frozen=True)
class TagDigest:
    """One scalar tag of one job, summarised from its kept steps (NaN and inf values are skipped
    by min/max; `last_value` is the newest step's value as written)."""

    count: int  # steps kept (at most the scalar limit)
    seen: int  # values ever read
    first_step: int
    last_step: int
    first_wall: float
    last_wall: float
    last_value: float
    min_value: float  # NaN when no value is finite
    min_step: int
    max_value: float
    max_step: int
    recent_change: float  # last value minus the value at the start of the last 10% of steps
    spark: tuple[float, ...]  # up to SPARK_POINTS bucket means of the finite values, in step order
    nonfinite: int = 0  # NaN/inf values among every value read, kept or not (`Series.nonfinite`)
    step_interval: float | None = None  # usual seconds between two logged steps (`step_interval`)

    @property
    def steps_per_second(self) -> float | None:
        """Training speed over the kept steps; None without two distinct wall times."""
        seconds = self.last_wall - self.first_wall
        if not math.isfinite(seconds) or seconds <= 0 or self.last_step <= self.first_step:  # (math: a float, not an array)
            return None
        return (self.last_step - self.first_step) / seconds

    def best(self, lower_is_better: bool) -> tuple[float, int]:
        """(value, step) of the best value."""
        return (self.min_value, self.min_step) if lower_is_better else (self.max_value, self.max_step)


def digest(series: Series) -> TagDigest | None:
    """The digest of a scalar series; None when it has no steps. Infinities and NaN in values or
    wall times give NaN where they meet (inf - inf), silently: numpy's warning would be printed
    by `--summary` and `--export` (the app swallows it)."""
    with np.errstate(invalid="ignore", over="ignore"):
        return _digest(series, {})


def digests(series: Iterable[tuple[str, Series]]) -> dict[str, TagDigest]:
    """tag -> `digest` of each (tag, series) that has steps. The tags of one event layout share
    their step and wall-time arrays: what depends on those alone is worked out once for them,
    and the values of those whose values are all finite are digested together, a row each."""
    items = list(series)
    layouts: dict[tuple, list[int]] = {}  # (ids of the shared columns, steps) -> positions in `items`
    for at, (_, one) in enumerate(items):
        if len(one) > SPARK_POINTS and one.values.dtype == np.float64:
            layouts.setdefault((id(one.steps), id(one.wall_times), len(one)), []).append(at)
    found: dict[str, TagDigest] = {}
    shared: dict[tuple, Any] = {}  # keyed by the ids of arrays `series` holds (alive meanwhile)
    with np.errstate(invalid="ignore", over="ignore"):
        together: dict[int, TagDigest] = {}
        for members in layouts.values():
            if len(members) > 1:
                together.update(_digests_together(items, members, shared))
        for at, (tag, one) in enumerate(items):
            made = together[at] if at in together else _digest(one, shared)
            if made is not None:
                found[tag] = made
    return found


def _digests_together(items: list[tuple[str, Series]], members: list[int],
                      shared: dict[tuple, Any]) -> dict[int, TagDigest]:
    """`_digest` of the series at `members` of `items` (more than `SPARK_POINTS` steps, the same
    step and wall-time arrays) whose values are all finite, by position; numpy works on their
    values as the rows of one array (a call per tag cost ~20 us each, a job's 10 tags 0.2 ms)."""
    table = np.stack([items[at][1].values for at in members])
    finite = np.isfinite(table).all(axis=1)
    if not finite.all():  # (those are digested one by one: NaN and inf skipped)
        members = [at for at, ok in zip(members, finite.tolist()) if ok]
        table = table[finite]
    if not members:
        return {}
    first_series = items[members[0]][1]
    steps, walls, n = first_series.steps, first_series.wall_times, len(first_series)
    first, last, start, first_wall, last_wall, interval = _common(steps, walls, n, shared)
    rows = np.arange(len(members))
    lo, hi = table.argmin(axis=1), table.argmax(axis=1)
    slices = _slices(n, SPARK_POINTS, shared)
    sparks = (np.add.reduceat(table, slices[0], axis=1) / slices[1]).tolist()
    lasts, recent = table[:, -1], table[:, -1] - table[:, start]
    made = {}
    for row, (at, min_value, min_step, max_value, max_step, last_value, change) in enumerate(zip(
            members, table[rows, lo].tolist(), steps[lo].tolist(), table[rows, hi].tolist(), steps[hi].tolist(),
            lasts.tolist(), recent.tolist())):
        series = items[at][1]
        made[at] = TagDigest(
            count=n, seen=series.seen, first_step=first, last_step=last, first_wall=first_wall, last_wall=last_wall,
            last_value=last_value, min_value=min_value, min_step=min_step, max_value=max_value, max_step=max_step,
            recent_change=change, spark=tuple(sparks[row]), nonfinite=series.nonfinite, step_interval=interval)
    return made


def _common(steps: np.ndarray, walls: np.ndarray, n: int, shared: dict[tuple, Any]) -> tuple:
    """What the step and wall-time columns alone give a digest, kept in `shared` by their ids."""
    key = (id(steps), id(walls), n)
    common = shared.get(key)
    if common is None:
        first, last = int(steps[0]), int(steps[-1])
        since = last - (last - first) * RECENT_FRACTION
        start = min(int(np.searchsorted(steps, since, side="left")), n - 1)
        common = shared[key] = (first, last, start, float(walls[0]), float(walls[-1]), step_interval(steps, walls))
    return common


def _digest(series: Series, shared: dict[tuple, Any]) -> TagDigest | None:
    n = len(series)
    if n == 0:
        return None
    steps, walls, values = series.steps, series.wall_times, series.values
    finite = np.isfinite(values)
    if finite.all():  # (no copies)
        fvalues, fsteps = values, steps
        lo, hi = int(np.argmin(fvalues)), int(np.argmax(fvalues))
        min_value, min_step = float(fvalues[lo]), int(fsteps[lo])
        max_value, max_step = float(fvalues[hi]), int(fsteps[hi])
    elif finite.any():
        fvalues, fsteps = values[finite], steps[finite]
        lo, hi = int(np.argmin(fvalues)), int(np.argmax(fvalues))
        min_value, min_step = float(fvalues[lo]), int(fsteps[lo])
        max_value, max_step = float(fvalues[hi]), int(fsteps[hi])
    else:
        fvalues = values[:0]
        min_value = max_value = float("nan")
        min_step = max_step = int(steps[-1])
    first, last, start, first_wall, last_wall, interval = _common(steps, walls, n, shared)
    recent_change = float(values[-1] - values[start]) if n > 1 else 0.0
    return TagDigest(
        count=n, seen=series.seen, first_step=first, last_step=last,
        first_wall=first_wall, last_wall=last_wall, last_value=float(values[-1]),
        min_value=min_value, min_step=min_step, max_value=max_value, max_step=max_step,
        recent_change=recent_change, spark=tuple(bucket_means(fvalues, SPARK_POINTS, shared).tolist()),
        # Counted as values were merged (sampling drops some); the kept ones, should the series
        # have been rebuilt without that count.
        nonfinite=max(series.nonfinite, n - int(np.count_nonzero(finite))),
        step_interval=interval,
    )


def step_interval(steps: np.ndarray, walls: np.ndarray) -> float | None:
    """The usual seconds between two logged steps: the median seconds per step between kept steps
    times the logging stride (the gcd of their step gaps: the kept steps may be a sample of the
    logged ones, and a run may log every 10th step). None without two gaps that took time."""
    if len(steps) < 3:
        return None
    gaps, seconds = np.diff(steps), np.diff(walls)
    took = np.isfinite(seconds) & (seconds > 0)
    if not took.any():
        return None
    return _median(seconds[took] / gaps[took]) * int(np.gcd.reduce(gaps))


def _median(values: np.ndarray) -> float:
    """`np.median` of finite `values`, by a sort (np.median imports numpy.ma: 6 ms of a cold start)."""
    ordered = np.sort(values)
    half = len(ordered) // 2
    return float(ordered[half]) if len(ordered) % 2 else float((ordered[half - 1] + ordered[half]) / 2)


def bucket_means(values: np.ndarray, n: int, shared: dict[tuple, Any] | None = None) -> np.ndarray:
    """The means of `n` equal slices of `values` (the values themselves when there are <= n).
    `shared`: the slices' edges kept there for the next values of the same size."""
    if values.size <= n:
        return values
    slices = _slices(values.size, n, shared)
    return np.add.reduceat(values, slices[0]) / slices[1]


def _slices(size: int, n: int, shared: dict[tuple, Any] | None) -> tuple[np.ndarray, np.ndarray]:
    """Where each of `n` equal slices of `size` values starts, and its length (kept in `shared`)."""
    slices = shared.get((size, n)) if shared is not None else None
    if slices is None:
        edges = np.linspace(0, size, n + 1).astype(np.int64)
        slices = (edges[:-1], np.diff(edges))
        if shared is not None:
            shared[(size, n)] = slices
    return slices
