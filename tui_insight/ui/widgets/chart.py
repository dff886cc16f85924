"""A line chart drawn with plotext, fed series decimated to the chart's width.

Each trace is cut to the visible x-range and decimated with numpy (min and max per column,
`summary.scalars.decimate`), so drawing costs the same for 100 or 100,000 steps. The drawn
text is kept until the chart's data key, options, size or theme change: a chart that did not
change is not drawn again.
"""
from __future__ import annotations

import math
import time
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import plotext as plt
from rich.text import Text
from textual.widget import Widget

from ...summary.scalars import decimate
from ..format import duration
from ..palette import hex_to_rgb, mix

FAINT = 0.62  # how far raw series under a smoothed one fade towards the background
Y_AXIS_COLUMNS = 10  # roughly what plotext's tick labels and frame take from the width


@dataclass(frozen=True, eq=False)
class Trace:
    x: np.ndarray
    y: np.ndarray
    colour: str  # "#rrggbb"
    kind: str = "line"  # "line", "faint" (raw under smoothed) or "points" (threshold hits)
    right: bool = False  # against the right y-axis
    marker: str = "braille"


@dataclass(frozen=True)
class ChartOptions:
    x_axis: str = "step"  # "step", "relative" or "wall": only how ticks read
    x_range: tuple[float, float] | None = None
    log_y: bool = False
    cursor_x: float | None = None
    hlines: tuple[float, ...] = ()  # threshold lines
    legend: tuple[tuple[str, str], ...] = ()  # (colour, label)
    note: str = ""  # said after the legend: "smoothed 0.6", "normalised", axes of a two-axis chart


def _visible(x: np.ndarray, y: np.ndarray, lo: float, hi: float) -> tuple[np.ndarray, np.ndarray]:
    """Points in [lo, hi], plus one neighbour on each side so lines reach the edges."""
    inside = (x >= lo) & (x <= hi)
    keep = inside.copy()
    keep[1:] |= inside[:-1]
    keep[:-1] |= inside[1:]
    return x[keep], y[keep]


def nice_ticks(lo: float, hi: float, n: int, integer: bool = False) -> list[float]:
    """About `n` round tick positions in [lo, hi] (1, 2 or 5 times a power of ten apart)."""
    raw = (hi - lo) / max(n - 1, 1)
    if raw <= 0 or not math.isfinite(raw):
        return [lo]
    magnitude = 10 ** math.floor(math.log10(raw))
    step = next(m * magnitude for m in (1, 2, 5, 10) if raw <= m * magnitude)
    if integer:
        step = max(step, 1.0)
    start = math.ceil(lo / step) * step
    return [float(v) for v in np.arange(start, hi + step * 1e-9, step)]


def x_ticks(lo: float, hi: float, axis: str, width: int) -> tuple[list[float], list[str]]:
    """Tick positions and labels: round steps, or times."""
    n = max(2, min(7, width // 12))
    if axis == "step":
        positions = nice_ticks(lo, hi, n, integer=True)
        labels = [f"{p:.0f}" if abs(p) < 1e7 else f"{p:.3g}" for p in positions]
        return positions, labels
    positions = list(np.linspace(lo, hi, n))
    if axis == "relative":
        labels = [duration(p) for p in positions]
    else:
        fmt = "%H:%M:%S" if hi - lo < 86400 else "%m-%d %H:%M"
        labels = [time.strftime(fmt, time.localtime(p)) if math.isfinite(p) else "" for p in positions]
    return positions, labels


def x_limits(traces: list[Trace], options: ChartOptions) -> tuple[float, float] | None:
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


def legend_text(options: ChartOptions, width: int) -> Text:
    text = Text(no_wrap=True, overflow="ellipsis")
    for colour, label in options.legend:
        text.append("● ", style=colour)
        text.append(label + "  ")
    if options.note:
        text.append(options.note, style="dim")
    text.truncate(width, overflow="ellipsis")
    return text


def draw_chart(traces: list[Trace], options: ChartOptions, width: int, height: int,
               background: str = "#000000", no_color: bool = False) -> Text:
    """The chart as styled text of `width` x `height` cells (last line: the legend)."""
    width, height = max(width, 12), max(height, 4)
    legend = legend_text(options, width) if (options.legend or options.note) else None
    plot_height = height - (1 if legend is not None else 0)
    limits = x_limits(traces, options)
    if limits is None:
        body = Text("\n" * (plot_height // 2) + "no data".center(width), style="dim")
        return Text("\n").join([body, legend]) if legend is not None else body
    lo, hi = limits
    columns = max(8, width - Y_AXIS_COLUMNS)
    fig = plt.figure
    fig.clear()
    fig.theme("colorless")
    fig.plot_size(width, plot_height)
    drawn = False
    for trace in traces:
        x, y = np.asarray(trace.x, dtype=np.float64), np.asarray(trace.y, dtype=np.float64)
        ok = np.isfinite(x) & np.isfinite(y)
        if options.log_y:
            ok &= y > 0
        x, y = _visible(x[ok], y[ok], lo, hi)
        if not len(x):
            continue
        if trace.kind != "points" and len(x) > 2 * columns:
            x, y = decimate(x, y, columns)
        colour = mix(trace.colour, background, FAINT) if trace.kind == "faint" else hex_to_rgb(trace.colour)
        pixel = plt.pixel() if no_color else plt.pixel(foreground=colour)
        symbol = "●" if trace.kind == "points" else trace.marker
        signal = fig.signal(np.asarray(x).tolist(), np.asarray(y).tolist(), marker=plt.marker(symbol, pixel),
                            yside="right" if trace.right else "left")
        if trace.kind != "points":
            signal.lines()
        _add(fig, signal)
        drawn = True
    if not drawn:
        body = Text("\n" * (plot_height // 2) + "nothing to draw here".center(width), style="dim")
        return Text("\n").join([body, legend]) if legend is not None else body
    for value in options.hlines:
        if not options.log_y or value > 0:
            line = fig.signal([lo, hi], [value, value], marker=plt.marker("braille", plt.pixel()))
            _add(fig, line.lines())
    if options.cursor_x is not None and lo <= options.cursor_x <= hi:
        fig.line(options.cursor_x, orientation="vertical", pixel=plt.pixel())
    fig.ruler("x").lim(lo, hi)
    fig.ruler("x").ticks(*x_ticks(lo, hi, options.x_axis, width))
    if options.log_y:
        fig.ruler("y").scale("log")
    body = Text.from_ansi(fig.build().string(colorless=no_color), no_wrap=True)
    body.rstrip()
    return Text("\n").join([body, legend]) if legend is not None else body


def _add(fig: Any, signal: Any) -> None:
    """Register a signal. Bypasses `draw`, which scans every point for colours we set ourselves."""
    signals = getattr(fig, "_signals", None)
    if signals is not None and hasattr(signals, "_add"):
        signals._add(signal)
    else:  # a plotext without the shortcut
        fig.draw(signal)


class ScalarChart(Widget, can_focus=True):
    """One chart of the scalar view. The view hands it traces and options under a key."""

    DEFAULT_CSS = """
    ScalarChart { border: round $panel-lighten-2; height: 14; padding: 0; }
    ScalarChart:focus { border: round $accent; }
    """

    def __init__(self, chart_id: str, title: str, **kwargs: Any):
        super().__init__(**kwargs)
        self.chart_id = chart_id
        self.border_title = title
        self.key: Any = None
        self.traces: list[Trace] = []
        self.options = ChartOptions()
        self._drawn: tuple[Any, Text] | None = None
        self.draws = 0  # how many times it was really drawn (tests check live redraws)

    def set_chart(self, key: Any, traces: list[Trace], options: ChartOptions) -> bool:
        """Take new content; redraw only if `key` or the options changed. True if it will redraw."""
        if key == self.key and options == self.options:
            return False
        self.key, self.traces, self.options = key, traces, options
        self.refresh()
        return True

    def render(self) -> Text:
        size = self.content_size
        theme = self.app.current_theme
        cache_key = (self.key, self.options, size.width, size.height, theme.name, self.app.no_color)
        if self._drawn is not None and self._drawn[0] == cache_key:
            return self._drawn[1]
        background = theme.background or ("#000000" if theme.dark else "#ffffff")
        if not str(background).startswith("#") or len(str(background)) != 7:
            background = "#000000" if theme.dark else "#ffffff"
        text = draw_chart(self.traces, self.options, size.width, size.height, background, self.app.no_color)
        self.draws += 1
        self._drawn = (cache_key, text)
        return text
