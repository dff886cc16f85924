"""Parallel coordinates over lineage rows: an axis per column, where each run sits on it, and
the brush, a range on an axis that is nothing but filter conditions on its column.

An axis is a number axis when every value it has is a number (bools are not), else a category
axis. A number axis spans the values' finite range, on a log scale when they are all positive,
span two decades or more and a log scale spreads them better (learning rates); a category axis
puts its values at evenly spaced ticks, in sort order. A missing value (or NaN) has no
position: the chart draws it on a separate "—" tick.

The brush of an axis is read from the filter's conditions on its column (`brush_of`) and turned
back into conditions (`with_brush`): `learning_rate>=0.01 learning_rate<=0.1` is a brush from
0.01 to 0.1, `optimizer in Adam,Momentum` keeps two ticks. Its ends step through the axis's
stops (`step_brush`): the distinct values when there are few, else evenly spaced round values.
Conditions a brush cannot show (`!=`, `not_in`) stay in the filter as they are.
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field, replace
from typing import Any, Iterable, Mapping, Sequence

import numpy as np

from .lineage import Condition, value_sort_key

NUMBER, CATEGORY = "number", "category"
LOW, HIGH = "low", "high"
MAX_STOPS = 24  # distinct values up to this many are the brush's stops; more: evenly spaced ones
LOG_SPAN = 100.0  # positive values spanning this ratio or more get a log axis
_NUMBER_OPS = frozenset({"ge", "gt", "le", "lt", "eq"})
_CATEGORY_OPS = frozenset({"eq", "in"})


def _is_number(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def _present(value: Any) -> bool:
    return value is not None and not (isinstance(value, float) and math.isnan(value))


def _key(value: Any) -> Any:
    """A dict key for any value (user-defined values can be dicts; True is not 1)."""
    if isinstance(value, (str, int, float)) and not isinstance(value, bool):
        return value
    return type(value).__name__, repr(value)


@dataclass(frozen=True)
class Axis:
    """One axis of the parallel-coordinates chart."""

    column: str
    kind: str  # NUMBER or CATEGORY
    categories: tuple[Any, ...] = ()  # category axis: its values, bottom tick first
    low: float = 0.0  # number axis: the finite range of its values
    high: float = 0.0
    log: bool = False
    integer: bool = False  # every value a whole number: stops are whole numbers too
    stops: tuple[Any, ...] = ()  # number axis: where brush ends stop, ascending, low..high
    missing: int = 0  # runs without a value (drawn on the "—" tick)
    index: Mapping[Any, int] = field(default_factory=dict, compare=False, repr=False)  # category -> tick

    @property
    def empty(self) -> bool:
        return not self.categories if self.kind == CATEGORY else not self.stops

    def position(self, value: Any) -> float:
        """Where `value` sits, 0 at the bottom and 1 at the top; NaN when it has no place."""
        if self.kind == CATEGORY:
            index = self.index.get(_key(value)) if _present(value) else None
            if index is None:
                return math.nan
            return index / (len(self.categories) - 1) if len(self.categories) > 1 else 0.5
        if not _is_number(value) or not math.isfinite(value):
            return math.nan
        return self.fraction(float(value))

    def fraction(self, value: float) -> float:
        """A number's place on a number axis (outside the range: beyond 0..1)."""
        if self.high <= self.low:
            return 0.5
        if self.log:
            if value <= 0:
                return -math.inf
            return (math.log(value) - math.log(self.low)) / (math.log(self.high) - math.log(self.low))
        return (value - self.low) / (self.high - self.low)

    def value_at(self, fraction: float) -> float:
        """The number at a place on a number axis (the inverse of `fraction`)."""
        if self.log:
            return math.exp(math.log(self.low) + fraction * (math.log(self.high) - math.log(self.low)))
        return self.low + fraction * (self.high - self.low)

    def positions(self, values: Iterable[Any]) -> np.ndarray:
        return np.array([self.position(v) for v in values], dtype=np.float64)


def axis_for(column: str, values: Sequence[Any]) -> Axis:
    """The axis of `column` for these values (one per run, None where missing)."""
    present = [v for v in values if _present(v)]
    missing = len(values) - len(present)
    if present and all(_is_number(v) for v in present):
        finite = sorted({float(v) if isinstance(v, float) else v for v in present if math.isfinite(v)})
        missing += sum(1 for v in present if not math.isfinite(v))
        if not finite:
            return Axis(column, NUMBER, missing=missing)
        low, high = float(finite[0]), float(finite[-1])
        integer = all(float(v).is_integer() for v in finite)
        log = low > 0 and high / low >= LOG_SPAN and _log_spreads_better(
            [v for v in present if math.isfinite(v)], low, high)
        axis = Axis(column, NUMBER, low=low, high=high, log=log, integer=integer, missing=missing)
        if len(finite) <= MAX_STOPS:
            stops = tuple(finite)
        else:
            stops = _even_stops(axis, finite[0], finite[-1])
        return replace(axis, stops=stops)
    unique = {_key(v): v for v in present}
    categories = tuple(sorted(unique.values(), key=value_sort_key))
    index = {_key(v): i for i, v in enumerate(categories)}
    return Axis(column, CATEGORY, categories=categories, missing=missing, index=index)


def _log_spreads_better(values: list[Any], low: float, high: float) -> bool:
    """A log scale puts the middle run nearer the middle of the axis than a linear one (values
    picked per decade, like learning rates), rather than squashing most runs at one end."""
    middle = float(np.median(np.asarray(values, dtype=np.float64)))
    linear = (middle - low) / (high - low)
    logarithmic = (math.log(middle) - math.log(low)) / (math.log(high) - math.log(low))
    return abs(logarithmic - 0.5) < abs(linear - 0.5)


def _even_stops(axis: Axis, first: Any, last: Any) -> tuple[Any, ...]:
    """MAX_STOPS evenly spaced round numbers (three significant digits; whole numbers on an
    integer axis) between the ends, which are kept exact so a brush can reach every value."""
    inner = []
    for t in np.linspace(0, 1, MAX_STOPS + 1)[1:-1]:
        value = axis.value_at(float(t))
        value = round(value) if axis.integer else float(f"{value:.3g}")
        if first < value < last:
            inner.append(value)
    return (first, *sorted(set(inner)), last)


# -- the brush --------------------------------------------------------------------------------

@dataclass(frozen=True)
class Brush:
    """A range on one axis. Number axis: `low`/`high` bounds (None: open), strict when typed
    as `>`/`<`. Category axis: `chosen`, the values kept (None: every value)."""

    low: Any = None
    high: Any = None
    low_strict: bool = False
    high_strict: bool = False
    chosen: tuple[Any, ...] | None = None

    @property
    def active(self) -> bool:
        return self.low is not None or self.high is not None or self.chosen is not None

    def text(self) -> str:
        """The range as a short label: `0.01 … 0.1`, `≥ 3`, `Adam, SGD`."""
        if self.chosen is not None:
            return ", ".join(str(v) for v in self.chosen)
        if self.low is not None and self.high is not None:
            return f"{self.low} … {self.high}"
        if self.low is not None:
            return f"{'>' if self.low_strict else '≥'} {self.low}"
        if self.high is not None:
            return f"{'<' if self.high_strict else '≤'} {self.high}"
        return "all"


def brushable(axis: Axis, condition: Condition) -> bool:
    """Whether `condition` is part of what a brush on `axis` shows."""
    if condition.column != axis.column:
        return False
    if axis.kind == NUMBER:
        return condition.op in _NUMBER_OPS and _is_number(condition.value)
    return condition.op in _CATEGORY_OPS


def brush_of(axis: Axis, conditions: Iterable[Condition]) -> Brush:
    """The brush the conditions on the axis's column make (the tightest bounds when several)."""
    brush = Brush()
    for condition in conditions:
        if not brushable(axis, condition):
            continue
        op, value = condition.op, condition.value
        if axis.kind == CATEGORY:
            values = (value,) if op == "eq" else tuple(value)
            kept = values if brush.chosen is None else tuple(v for v in brush.chosen if v in values)
            brush = replace(brush, chosen=tuple(dict.fromkeys(kept)))
            continue
        if op in ("ge", "gt", "eq") and (brush.low is None or value > brush.low
                                         or (value == brush.low and op == "gt")):
            brush = replace(brush, low=value, low_strict=op == "gt")
        if op in ("le", "lt", "eq") and (brush.high is None or value < brush.high
                                         or (value == brush.high and op == "lt")):
            brush = replace(brush, high=value, high_strict=op == "lt")
    return brush


def _next_stop(stops: Sequence[Any], value: Any, step: int) -> Any:
    if step > 0:
        return next((s for s in stops if s > value), stops[-1])
    return next((s for s in reversed(stops) if s < value), stops[0])


def step_brush(axis: Axis, brush: Brush, end: str, step: int) -> Brush:
    """Move one end (LOW or HIGH) of the brush to the next stop up (`step` > 0) or down. An end
    moved to the axis's own end is open again; the ends never cross."""
    if axis.empty or step == 0:
        return brush
    if axis.kind == CATEGORY:
        return _step_categories(axis, brush, end, step)
    stops = axis.stops
    low = brush.low if brush.low is not None else stops[0]
    high = brush.high if brush.high is not None else stops[-1]
    if end == LOW:
        value = min(_next_stop(stops, low, step), high)
        return replace(brush, low=None if value <= stops[0] else value, low_strict=False)
    value = max(_next_stop(stops, high, step), low)
    return replace(brush, high=None if value >= stops[-1] else value, high_strict=False)


def _step_categories(axis: Axis, brush: Brush, end: str, step: int) -> Brush:
    count = len(axis.categories)
    kept = [axis.index[_key(v)] for v in (brush.chosen or ()) if _key(v) in axis.index]
    first, last = (min(kept), max(kept)) if kept else (0, count - 1)
    if brush.chosen is not None and not kept:  # a typed value no run has: start from the whole axis
        first, last = 0, count - 1
    if end == LOW:
        first = max(0, min(first + (1 if step > 0 else -1), last))
    else:
        last = min(count - 1, max(last + (1 if step > 0 else -1), first))
    if first == 0 and last == count - 1:
        return Brush()
    return Brush(chosen=axis.categories[first:last + 1])


def brush_conditions(axis: Axis, brush: Brush) -> list[Condition]:
    """The filter conditions that are this brush."""
    column = axis.column
    if brush.chosen is not None:
        if len(brush.chosen) == 1:
            return [Condition(column, "eq", brush.chosen[0])]
        return [Condition(column, "in", tuple(brush.chosen))]
    out = []
    if brush.low is not None:
        out.append(Condition(column, "gt" if brush.low_strict else "ge", brush.low))
    if brush.high is not None:
        out.append(Condition(column, "lt" if brush.high_strict else "le", brush.high))
    return out


def with_brush(conditions: Sequence[Condition], axis: Axis, brush: Brush) -> list[Condition]:
    """`conditions` with those the axis's brush shows replaced by `brush` (where the first of
    them stood, or at the end); every other condition kept in its place."""
    out: list[Condition] = []
    placed = False
    new = brush_conditions(axis, brush)
    for condition in conditions:
        if brushable(axis, condition):
            if not placed:
                out.extend(new)
                placed = True
            continue
        out.append(condition)
    if not placed:
        out.extend(new)
    return out

