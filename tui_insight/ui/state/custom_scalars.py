"""The custom scalars view's state: the category shown, smoothing, x-axis, log y, the value cursor
and the chart it belongs to.

One category is shown at a time (`n` `p` move to the next or previous, wrapping); at first the
first category the writer did not fold (`closed`), else the first. Smoothing, x-axis and log y
apply to every chart of the category; the value cursor belongs to the active chart (the focused
one, by its index in the category) and goes when the category or the x-axis changes. The
smoothing steps, x-axes and cursor moves are the scalar view's (`state/scalars.py`).
"""
from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any, Sequence

from ...summary.queries.scalars import X_AXES
from .persist import get_bool, get_float, get_str
from .scalars import SMOOTHING_STEPS, moved_cursor, next_x_axis, smoothing_step


@dataclass(frozen=True)
class CustomScalarsState:
    category: str | None = None  # the category's title; None: none yet
    smoothing: float = 0.0
    x_axis: str = "step"
    log_y: bool = False
    cursor_x: float | None = None
    active: int = 0  # the index of the chart the cursor belongs to, in the category

    def settled(self, titles: Sequence[str], folded: Sequence[str] = ()) -> "CustomScalarsState":
        """The state for the categories there are now: a category that went (or none chosen yet)
        gives way to the first one not folded, else the first."""
        if self.category in titles:
            return self
        opened = [title for title in titles if title not in folded] or list(titles)
        first = opened[0] if opened else None
        return replace(self, category=first, cursor_x=None, active=0)

    def next_category(self, titles: Sequence[str], direction: int) -> "CustomScalarsState":
        """The category after (direction > 0) or before the current one, wrapping around."""
        if not titles:
            return self
        i = titles.index(self.category) if self.category in titles else (-1 if direction > 0 else 0)
        title = titles[(i + direction) % len(titles)]
        return self if title == self.category else replace(self, category=title, cursor_x=None, active=0)

    def smooth(self, direction: int) -> "CustomScalarsState":
        return replace(self, smoothing=smoothing_step(self.smoothing, direction))

    def cycle_x(self) -> "CustomScalarsState":
        """The next x-axis; the cursor was in the old axis' units: it goes."""
        return replace(self, x_axis=next_x_axis(self.x_axis), cursor_x=None)

    def toggle_log_y(self) -> "CustomScalarsState":
        return replace(self, log_y=not self.log_y)

    def with_active(self, index: int) -> "CustomScalarsState":
        """The chart at `index` takes the cursor (at the same x, if it has a point there)."""
        return self if index == self.active else replace(self, active=index)

    def move_cursor(self, xs: Sequence[float], move: int) -> "CustomScalarsState":
        """The cursor moved over `xs`, the active chart's distinct x, sorted (as the scalar view's)."""
        cursor = moved_cursor(self.cursor_x, xs, move, None)
        return self if cursor == self.cursor_x else replace(self, cursor_x=cursor)

    def clear_cursor(self) -> "CustomScalarsState":
        return self if self.cursor_x is None else replace(self, cursor_x=None)

    def to_json(self) -> dict[str, Any]:
        """The category, smoothing, axis and log y (not the cursor)."""
        return {"category": self.category, "smoothing": self.smoothing, "x_axis": self.x_axis, "log_y": self.log_y}

    @classmethod
    def from_json(cls, data: Any) -> "CustomScalarsState":
        if not isinstance(data, dict):
            return cls()
        category = data.get("category")
        smoothing = get_float(data, "smoothing", 0.0, 0.0, max(SMOOTHING_STEPS)) or 0.0
        return cls(category=category if isinstance(category, str) else None,
                   smoothing=min(SMOOTHING_STEPS, key=lambda s: abs(s - smoothing)),
                   x_axis=get_str(data, "x_axis", "step", X_AXES),
                   log_y=get_bool(data, "log_y", False))
