"""The scalar view's state: tags, smoothing, x-axis, zoom, value cursor, layout, per-chart settings.

Zoom, x-axis and smoothing apply to every chart (their x-axes are linked). Threshold and log-y
belong to one chart (`ChartSettings`, keyed by chart id: the tag, or `OVERLAY` for the combined
chart), as in MindInsight. The value cursor belongs to the active chart (the focused one, or the
one shown full screen). The summary table under the charts marks the best run of each tag, by
the direction `summary.best` reads from the tag's name unless the user chose another (`best`).
Transitions that need the data (where the points are, what the whole
range is) take it as an argument, so everything here stays pure.
"""
from __future__ import annotations

import bisect
import math
import re
from dataclasses import dataclass, field, replace
from typing import Any, Sequence

from ...summary.queries.best import DIRECTIONS, HIGHER, LOWER, Direction, direction
from ...summary.queries.scalars import X_AXES
from ..common.format import number
from .persist import get_bool, get_dict, get_float, get_int, get_range, get_str
from .tags import TagSelection

SMOOTHING_STEPS = (0.0, 0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 0.95, 0.99)
OVERLAY = "__overlay__"  # chart id of the combined chart
CURSOR_JUMP = 20  # a jump of the cursor is 1/CURSOR_JUMP of the visible range
MAX_ZOOM_STACK = 50
NO_DIRECTION = "none"  # a tag the user said has no best (remembered as such: its name may say otherwise)

Range = tuple[float, float]


def smoothing_step(smoothing: float, direction: int) -> float:
    """The smoothing `direction` steps up (> 0) or down `SMOOTHING_STEPS` from `smoothing`."""
    steps = SMOOTHING_STEPS
    i = min(range(len(steps)), key=lambda k: abs(steps[k] - smoothing))
    return steps[max(0, min(len(steps) - 1, i + direction))]


def next_x_axis(axis: str) -> str:
    """The x-axis after `axis` (step, relative, wall, step...)."""
    return X_AXES[(X_AXES.index(axis) + 1) % len(X_AXES)] if axis in X_AXES else X_AXES[0]  # type: ignore[arg-type]


def moved_cursor(cursor_x: float | None, xs: Sequence[float], move: int, x_range: Range | None) -> float | None:
    """Where a value cursor at `cursor_x` goes over `xs` (the chart's distinct x in view, sorted).

    ±1 goes to the next point; any other move jumps by 1/CURSOR_JUMP of the visible range
    (`x_range`, else all of `xs`), to the nearest point. The first move puts it on the first
    (or, leftwards, the last) point. No points: it stays.
    """
    xs = [float(x) for x in xs]
    if not xs:
        return cursor_x
    if cursor_x is None:
        return xs[-1] if move < 0 else xs[0]
    if abs(move) == 1:
        i = bisect.bisect_left(xs, cursor_x)
        if move > 0:
            i = i + 1 if i < len(xs) and xs[i] == cursor_x else i
        else:
            i = i - 1
        return xs[max(0, min(len(xs) - 1, i))]
    lo, hi = x_range if x_range is not None else (xs[0], xs[-1])
    target = cursor_x + math.copysign((hi - lo) / CURSOR_JUMP, move)
    return min(xs, key=lambda x: abs(x - target))


def parse_threshold(text: str) -> tuple[float | None, float | None]:
    """`> 2.5`, `< 0.1`, `<0.1 >2.5` or a bare number (= above). Raises ValueError with a message."""
    text = text.strip()
    if not text:
        return None, None
    above = below = None
    rest = text
    for op, value in re.findall(r"([<>])\s*([^\s<>]+)", text):
        number_value = _number(value)
        if op == ">":
            above = number_value
        else:
            below = number_value
        rest = rest.replace(op, " ", 1).replace(value, " ", 1)
    if above is None and below is None:
        above = _number(text)
    elif rest.strip():
        raise ValueError(f"cannot read {rest.strip()!r}: write > 2.5, < 0.1 or both")
    return above, below


def _number(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise ValueError(f"{text!r} is not a number") from None
    if not math.isfinite(value):
        raise ValueError("the threshold must be a finite number")
    return value


def describe_threshold(above: float | None, below: float | None) -> str:
    parts = []
    if below is not None:
        parts.append(f"< {number(below)}")
    if above is not None:
        parts.append(f"> {number(above)}")
    return " or ".join(parts)


@dataclass(frozen=True)
class ChartSettings:
    """What one chart has of its own: a threshold (points beyond it highlighted) and log-y."""

    above: float | None = None
    below: float | None = None
    log_y: bool = False

    @property
    def threshold(self) -> tuple[float | None, float | None]:
        return self.above, self.below

    @property
    def has_threshold(self) -> bool:
        return self.above is not None or self.below is not None

    def to_json(self) -> dict[str, Any]:
        return {"above": self.above, "below": self.below, "log_y": self.log_y}

    @classmethod
    def from_json(cls, data: Any) -> "ChartSettings":
        if not isinstance(data, dict):
            return cls()
        return cls(get_float(data, "above", None), get_float(data, "below", None), get_bool(data, "log_y", False))


DEFAULT_CHART = ChartSettings()


@dataclass(frozen=True)
class ScalarsState:
    tags: TagSelection = field(default_factory=TagSelection)
    smoothing: float = 0.0
    x_axis: str = "step"
    x_range: Range | None = None  # the zoom; None: everything
    zoom_stack: tuple[Range | None, ...] = ()  # the ranges `zoom_back` returns to, newest last
    zoom_anchor: float | None = None  # first end of a `z` range being chosen
    cursor_x: float | None = None
    overlay: bool = False  # every visible tag in one chart
    normalise: bool = False  # in that chart, each series scaled to 0..1
    fullscreen: str | None = None  # the chart id shown alone
    active_chart: str | None = None  # the chart the cursor and `t`/`y` act on
    charts: tuple[tuple[str, ChartSettings], ...] = ()  # per chart, sorted by id; defaults left out
    summary: bool = True  # the summary table under the charts
    best: tuple[tuple[str, str], ...] = ()  # tag -> "lower"/"higher"/NO_DIRECTION where the user chose; sorted
    # The ranks of one training (a rank group's dashboard): 0 the mean line over the min–max
    # band, k the band and rank k-1's own line over it, ranks + 1 every rank's line (`r`).
    rank_view: int = 0

    # -- derived --------------------------------------------------------------------------------

    def chart_ids(self) -> tuple[str, ...]:
        """The charts to draw, in order: one per visible tag, or the combined one."""
        tags = self.tags.visible()
        if not tags:
            return ()
        return (OVERLAY,) if self.overlay else tags

    def chart_tags(self, chart_id: str) -> tuple[str, ...]:
        """The tags drawn in `chart_id`."""
        return self.tags.visible() if chart_id == OVERLAY else (chart_id,)

    def target(self) -> str | None:
        """The chart the cursor, `t` and `y` act on: the full-screen one, else the active one."""
        return self.fullscreen or self.active_chart

    def settings(self, chart_id: str | None) -> ChartSettings:
        for cid, settings in self.charts:
            if cid == chart_id:
                return settings
        return DEFAULT_CHART

    def normalised(self, chart_id: str) -> bool:
        """The combined chart of three or more tags (or two, asked for) draws each scaled to 0..1."""
        n = len(self.chart_tags(chart_id))
        return chart_id == OVERLAY and (n > 2 or (self.normalise and n > 1))

    def two_axes(self, chart_id: str) -> bool:
        return chart_id == OVERLAY and len(self.chart_tags(chart_id)) == 2 and not self.normalise

    # -- tags and layout --------------------------------------------------------------------------

    def _settled(self) -> "ScalarsState":
        """Full screen and active chart only name charts that are drawn."""
        ids = self.chart_ids()
        fullscreen = self.fullscreen if self.fullscreen in ids else None
        active = self.active_chart if self.active_chart in ids else (ids[0] if ids else None)
        if fullscreen == self.fullscreen and active == self.active_chart:
            return self
        return replace(self, fullscreen=fullscreen, active_chart=active)

    def with_tags(self, selection: TagSelection) -> "ScalarsState":
        if selection == self.tags:
            return self
        return replace(self, tags=selection)._settled()

    def with_active(self, chart_id: str | None) -> "ScalarsState":
        if chart_id == self.active_chart or chart_id not in self.chart_ids():
            return self
        return replace(self, active_chart=chart_id)

    def toggle_overlay(self) -> "ScalarsState":
        """One chart for every visible tag, or back to one chart per tag (needs two tags)."""
        if not self.overlay and len(self.tags.visible()) < 2:
            return self
        return replace(self, overlay=not self.overlay, fullscreen=None, active_chart=None)._settled()

    def toggle_normalise(self) -> "ScalarsState":
        return replace(self, normalise=not self.normalise)

    def toggle_fullscreen(self, chart_id: str | None = None) -> "ScalarsState":
        """Show `chart_id` (default: the active chart) alone, or leave full screen."""
        if self.fullscreen is not None:
            return replace(self, fullscreen=None)
        return self.with_fullscreen(chart_id or self.active_chart)

    def with_fullscreen(self, chart_id: str | None) -> "ScalarsState":
        """Show `chart_id` alone (it becomes the active chart)."""
        if chart_id not in self.chart_ids() or chart_id == self.fullscreen:
            return self
        return replace(self, fullscreen=chart_id, active_chart=chart_id)

    # -- smoothing and axes ---------------------------------------------------------------------

    def smooth(self, direction: int) -> "ScalarsState":
        return replace(self, smoothing=smoothing_step(self.smoothing, direction))

    def next_x_axis(self) -> str:
        return next_x_axis(self.x_axis)

    def cycle_x(self, cursor_at: float | None = None) -> "ScalarsState":
        """The next x-axis. The zoom was in the old axis' units: it starts afresh. The value cursor
        stays on its point: `cursor_at` is that point's x on the next axis (None: no cursor)."""
        return replace(self, x_axis=self.next_x_axis(), x_range=None, zoom_stack=(), zoom_anchor=None,
                       cursor_x=cursor_at if self.cursor_x is not None else None)

    # -- per-chart settings -----------------------------------------------------------------------

    def with_settings(self, chart_id: str, settings: ChartSettings) -> "ScalarsState":
        charts = dict(self.charts)
        if settings == DEFAULT_CHART:
            charts.pop(chart_id, None)
        else:
            charts[chart_id] = settings
        return replace(self, charts=tuple(sorted(charts.items())))

    def with_threshold(self, chart_id: str, above: float | None, below: float | None) -> "ScalarsState":
        return self.with_settings(chart_id, replace(self.settings(chart_id), above=above, below=below))

    def toggle_log_y(self, chart_id: str) -> "ScalarsState":
        settings = self.settings(chart_id)
        return self.with_settings(chart_id, replace(settings, log_y=not settings.log_y))

    def toggle_log_y_all(self, chart_ids: Sequence[str] | None = None) -> "ScalarsState":
        """Log-y on every chart (default: the drawn ones), or off on all if all have it."""
        ids = tuple(self.chart_ids() if chart_ids is None else chart_ids)
        if not ids:
            return self
        on = not all(self.settings(cid).log_y for cid in ids)
        state = self
        for cid in ids:
            state = state.with_settings(cid, replace(state.settings(cid), log_y=on))
        return state

    # -- value cursor -----------------------------------------------------------------------------

    def with_cursor(self, x: float | None) -> "ScalarsState":
        return self if x == self.cursor_x else replace(self, cursor_x=x)

    def move_cursor(self, xs: Sequence[float], move: int) -> "ScalarsState":
        """Move the cursor over `xs` (the active chart's distinct x in view, sorted).

        ±1 goes to the next point; any other move jumps by 1/CURSOR_JUMP of the visible range,
        to the nearest point. The first move puts it on the first (or, leftwards, the last) point.
        """
        return self.with_cursor(moved_cursor(self.cursor_x, xs, move, self.x_range))

    # -- zoom -----------------------------------------------------------------------------------

    def zoom_to(self, lo: float, hi: float) -> "ScalarsState":
        """Show x in [lo, hi]; the range shown before goes on the back stack."""
        if not (math.isfinite(lo) and math.isfinite(hi)) or lo >= hi or (lo, hi) == self.x_range:
            return self
        stack = (self.zoom_stack + (self.x_range,))[-MAX_ZOOM_STACK:]
        return replace(self, x_range=(float(lo), float(hi)), zoom_stack=stack)

    def zoom_by(self, factor: float, whole: Range | None) -> "ScalarsState":
        """Zoom in (`factor` < 1) or out around the cursor, or the middle. `whole`: the range
        shown when not zoomed (from the data)."""
        current = self.x_range or whole
        if current is None:
            return self
        lo, hi = current
        centre = self.cursor_x if self.cursor_x is not None and lo <= self.cursor_x <= hi else (lo + hi) / 2
        half = (hi - lo) * factor / 2
        if self.x_axis == "step" and half < 1:
            half = 1.0
        return self.zoom_to(centre - half, centre + half)

    def pan(self, fraction: float, whole: Range | None) -> "ScalarsState":
        current = self.x_range or whole
        if current is None:
            return self
        lo, hi = current
        shift = (hi - lo) * fraction
        return self.zoom_to(lo + shift, hi + shift)

    def mark_zoom(self, xs: Sequence[float] = ()) -> "ScalarsState":
        """`z`: the first press marks one end at the cursor, the second zooms to the range between.
        Without a cursor the first press places one on the point of `xs` (the active chart's
        distinct x in view, sorted) nearest the middle, and marks it."""
        if self.cursor_x is None:
            if not len(xs):
                return self
            lo, hi = self.x_range if self.x_range is not None else (xs[0], xs[-1])
            middle = min(xs, key=lambda x: abs(x - (lo + hi) / 2))
            return replace(self, cursor_x=float(middle), zoom_anchor=float(middle))
        if self.zoom_anchor is None:
            return replace(self, zoom_anchor=self.cursor_x)
        lo, hi = sorted((self.zoom_anchor, self.cursor_x))
        state = replace(self, zoom_anchor=None)
        return state if lo == hi else state.zoom_to(lo, hi)

    def cancel_anchor(self) -> "ScalarsState":
        return self if self.zoom_anchor is None else replace(self, zoom_anchor=None)

    def zoom_back(self) -> "ScalarsState":
        if not self.zoom_stack:
            return self
        return replace(self, x_range=self.zoom_stack[-1], zoom_stack=self.zoom_stack[:-1])

    def zoom_reset(self) -> "ScalarsState":
        return replace(self, x_range=None, zoom_stack=(), zoom_anchor=None)

    # -- summary table ----------------------------------------------------------------------------

    def toggle_summary(self) -> "ScalarsState":
        return replace(self, summary=not self.summary)

    def best_direction(self, tag: str) -> Direction | None:
        """Which values of `tag` are best: the user's choice, else what its name says."""
        for name, way in self.best:
            if name == tag:
                return None if way == NO_DIRECTION else way  # type: ignore[return-value]
        return direction(tag)

    def with_best(self, tag: str, way: Direction | None) -> "ScalarsState":
        best = dict(self.best)
        if way == direction(tag):
            best.pop(tag, None)  # the name's own direction: nothing to remember
        else:
            best[tag] = way or NO_DIRECTION
        return replace(self, best=tuple(sorted(best.items())))

    def cycle_best(self, tag: str) -> "ScalarsState":
        """`b`: best is lower, then higher, then no best at all, then lower again."""
        order: tuple[Direction | None, ...] = (LOWER, HIGHER, None)
        return self.with_best(tag, order[(order.index(self.best_direction(tag)) + 1) % len(order)])

    def flip_best(self, tags: Sequence[str]) -> "ScalarsState":
        """`B`: lower becomes higher and higher lower on every tag of `tags` (no direction stays none)."""
        state = self
        for tag in tags:
            way = state.best_direction(tag)
            if way is not None:
                state = state.with_best(tag, HIGHER if way == LOWER else LOWER)
        return state

    def next_rank_view(self, ranks: int) -> "ScalarsState":
        """`r` on a rank group's charts: the band, then each rank over it, then every rank's line."""
        return replace(self, rank_view=(self.rank_view + 1) % (ranks + 2)) if ranks > 0 else self

    def with_ranks(self, ranks: int) -> "ScalarsState":
        """The `r` choice kept where it names one of `ranks` ranks (or every rank's line), else
        back to the band: a remembered choice of another number of ranks names none of these."""
        return self if self.rank_view <= ranks + 1 else replace(self, rank_view=0)

    # -- remembered -------------------------------------------------------------------------------

    def to_json(self) -> dict[str, Any]:
        """Tags, smoothing, axis, zoom, per-chart settings, layout and the ranks' view `r` chose
        (not the cursor)."""
        return {
            "tags": self.tags.to_json(),
            "smoothing": self.smoothing,
            "x_axis": self.x_axis,
            "x_range": list(self.x_range) if self.x_range is not None else None,
            "zoom_stack": [list(r) if r is not None else None for r in self.zoom_stack],
            "overlay": self.overlay,
            "normalise": self.normalise,
            "charts": {cid: settings.to_json() for cid, settings in self.charts},
            "summary": self.summary,
            "best": dict(self.best),
            "rank_view": self.rank_view,
        }

    @classmethod
    def from_json(cls, data: Any) -> "ScalarsState":
        if not isinstance(data, dict):
            return cls()
        smoothing = get_float(data, "smoothing", 0.0, 0.0, max(SMOOTHING_STEPS)) or 0.0
        x_range = get_range(data, "x_range")
        stack_data = data.get("zoom_stack")
        stack: list[Range | None] = []
        if x_range is not None and isinstance(stack_data, list):
            for item in stack_data[-MAX_ZOOM_STACK:]:
                stack.append(get_range({"r": item}, "r"))
        charts = {}
        for cid, value in get_dict(data, "charts").items():
            settings = ChartSettings.from_json(value)
            if isinstance(cid, str) and settings != DEFAULT_CHART:
                charts[cid] = settings
        best = {tag: way for tag, way in get_dict(data, "best").items()
                if isinstance(tag, str) and way in (*DIRECTIONS, NO_DIRECTION)}
        return cls(
            tags=TagSelection.from_json(get_dict(data, "tags")),
            smoothing=min(SMOOTHING_STEPS, key=lambda s: abs(s - smoothing)),
            x_axis=get_str(data, "x_axis", "step", X_AXES),
            x_range=x_range,
            zoom_stack=tuple(stack),
            overlay=get_bool(data, "overlay", False),
            normalise=get_bool(data, "normalise", False),
            charts=tuple(sorted(charts.items())),
            summary=get_bool(data, "summary", True),
            best=tuple(sorted(best.items())),
            rank_view=get_int(data, "rank_view", 0, 0),
        )
