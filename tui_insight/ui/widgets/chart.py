"""A line chart drawn with plotext, fed series decimated to the chart's width.

Each trace is cut to the visible x-range and decimated with numpy (min and max per column,
`summary.scalars.decimate`), so drawing costs the same for 100 or 100,000 steps. The drawn
text is kept until the chart's data key, options, size or theme change: a chart that did not
change is not drawn again.

Series keep the colours their traces carry (a job's, `common.palette`); the rest follows the
theme: faint lines and bands fade towards its background, a warning written on the chart is
`$warning` (`ThemedChart`).
"""
from __future__ import annotations

import math
import re
import time
from dataclasses import dataclass, field, replace
from typing import Any

import numpy as np
import plotext as plt
from rich.cells import cell_len
from rich.color import Color
from rich.segment import Segment
from rich.style import Style
from textual.geometry import Region
from textual.reactive import reactive
from textual.strip import Strip

from ...summary.queries.scalars import decimate
from ...wall_time import OUT_OF_RANGE, wall_text
from .. import _textual_compat
from ..common.format import duration
from ..common.names import apart
from ..common.palette import DEFAULT_COLOURS, hex_to_rgb, mix
from ..common.text import markup, shown
from .chart_data import ChartOptions, Trace, log_y_problem, x_limits
from .themed import ThemedChart, theme_background

FAINT = 0.62  # how far raw series under a smoothed one fade towards the background
BAND_FADE = 0.72  # how far a band fades towards the background: the lines over it stay apart
Y_AXIS_COLUMNS = 10  # roughly what plotext's tick labels and frame take from the width


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
    if axis == "fraction":  # a share in [0, 1] (recall)
        positions = nice_ticks(lo, hi, n)
        return positions, [f"{p:g}" for p in positions]
    positions = list(np.linspace(lo, hi, n))
    if axis == "relative":
        labels = [duration(p) for p in positions]
    else:
        labels = [wall_label(p, hi - lo) for p in positions]
    return positions, labels


def wall_label(t: float, span: float) -> str:
    """A wall-time tick: to the tenth of a second for short runs, the date for long ones."""
    if not math.isfinite(t):
        return ""
    if span >= 86400:
        return wall_text(t, "%m-%d %H:%M")
    label = wall_text(t, "%H:%M:%S")
    if span < 30 and label != OUT_OF_RANGE:
        label += f".{int((t % 1) * 10)}"
    return label


@dataclass
class ChartImage:
    """A drawn chart: one list of segments per line."""

    lines: list[list[Segment]]
    width: int

    @property
    def plain(self) -> str:
        return "\n".join("".join(seg.text for seg in line) for line in self.lines)


_SGR = re.compile(r"\x1b\[([0-9;]*)m")
_STYLES: dict[str, Style | None] = {}


def _sgr_style(params: str) -> Style | None:
    """The style one SGR escape of plotext's output sets (None for a reset)."""
    if params in _STYLES:
        return _STYLES[params]
    style: Style | None = None
    codes = [int(c) for c in params.split(";") if c]
    i = 0
    while i < len(codes):
        code = codes[i]
        if code in (38, 48) and i + 1 < len(codes):
            if codes[i + 1] == 2 and i + 4 < len(codes):
                color = Color.from_rgb(*codes[i + 2:i + 5])
                i += 5
            elif codes[i + 1] == 5 and i + 2 < len(codes):
                color = Color.from_ansi(codes[i + 2])
                i += 3
            else:
                break
            part: Style | None = Style(color=color) if code == 38 else Style(bgcolor=color)
        else:
            part = Style(bold=True) if code == 1 else None
            i += 1
        if part is not None:
            style = part if style is None else style + part
    _STYLES[params] = style
    return style


def ansi_lines(ansi: str) -> list[list[Segment]]:
    """plotext's ANSI output as segments per line (much faster than a general ANSI decoder)."""
    lines = []
    for row in ansi.split("\n"):
        segments: list[Segment] = []
        style: Style | None = None
        pos = 0
        for match in _SGR.finditer(row):
            if match.start() > pos:
                segments.append(Segment(row[pos:match.start()], style))
            params = match.group(1)
            new = _sgr_style(params) if params not in ("", "0") else None
            style = None if new is None else (new if style is None else style + new)
            pos = match.end()
        if pos < len(row):
            segments.append(Segment(row[pos:], style))
        lines.append(segments)
    return lines


LEGEND_ENTRY_EXTRA = 4  # cells of an entry besides its label: "● " before, two spaces after


def legend_labels(labels: list[str], width: int) -> list[str]:
    """The labels as drawn: whole if they fit in `width`, else each in an equal share, cut in
    the middle past any start they share, so runs differing at the end stay apart."""
    if sum(cell_len(label) + LEGEND_ENTRY_EXTRA for label in labels) <= width:
        return labels
    share = max(3, width // max(1, len(labels)) - LEGEND_ENTRY_EXTRA)
    return apart(labels, share)


def legend_line(options: ChartOptions, width: int, no_color: bool = False) -> list[Segment]:
    """The legend: each entry's symbol in its colour (NO_COLOR: no colour, its marker tells it)."""
    segments: list[Segment] = []
    labels = legend_labels([shown(label) for _, label in options.legend], width)
    for i, ((colour, _), label) in enumerate(zip(options.legend, labels)):
        symbol = options.legend_symbols[i] if i < len(options.legend_symbols) else "●"
        segments.append(Segment(symbol + " ", None if no_color else Style(color=colour)))
        segments.append(Segment(label + "  "))
    if options.note:
        segments.append(Segment(shown(options.note), Style(dim=True)))
    return list(Strip(segments).crop(0, width))


def _message(text: str, width: int, height: int) -> list[list[Segment]]:
    lines: list[list[Segment]] = [[] for _ in range(max(height, 1))]
    lines[len(lines) // 2] = [Segment(text.center(width), Style(dim=True))]
    return lines


NAN_MARK, POS_INF_MARK, NEG_INF_MARK = "×", "▲", "▼"  # non-finite steps, at the plot's edges
MAX_PIECES = 32  # a line broken by more non-finite steps than this is drawn bridged (markers still show)


def non_finite(traces: list[Trace], lo: float, hi: float) -> dict[str, list[tuple[Trace, np.ndarray]]]:
    """The steps of raw series whose value is NaN, +Inf or -Inf, inside [lo, hi], by marker."""
    found: dict[str, list[tuple[Trace, np.ndarray]]] = {}
    for trace in traces:
        if trace.kind not in ("line", "faint"):
            continue
        x, y = np.asarray(trace.x, dtype=np.float64), np.asarray(trace.y, dtype=np.float64)
        inside = np.isfinite(x) & (x >= lo) & (x <= hi)
        for mark, where in ((NAN_MARK, np.isnan(y)), (POS_INF_MARK, np.isposinf(y)), (NEG_INF_MARK, np.isneginf(y))):
            hits = x[inside & where]
            if len(hits):
                found.setdefault(mark, []).append((trace, hits))
    return found


def _non_finite_note(found: dict[str, list[tuple[Trace, np.ndarray]]]) -> str:
    names = {NAN_MARK: "NaN", POS_INF_MARK: "+Inf", NEG_INF_MARK: "-Inf"}
    parts = []
    for mark in (NAN_MARK, POS_INF_MARK, NEG_INF_MARK):
        if mark in found:
            count = len(np.unique(np.concatenate([hits for _, hits in found[mark]])))
            parts.append(f"{mark} {names[mark]} at {count} step{'s' if count != 1 else ''}")
    return ", ".join(parts)


def _pieces(x: np.ndarray, y: np.ndarray, gaps: np.ndarray) -> list[tuple[np.ndarray, np.ndarray]]:
    """The line cut where a non-finite step (x in `gaps`, sorted) lies between two points."""
    if not len(gaps) or len(x) < 2:
        return [(x, y)]
    side = np.searchsorted(gaps, x, side="left")
    cuts = np.flatnonzero(side[1:] != side[:-1]) + 1
    if not len(cuts) or len(cuts) >= MAX_PIECES:
        return [(x, y)]
    return list(zip(np.split(x, cuts), np.split(y, cuts)))


def draw_chart(traces: list[Trace], options: ChartOptions, width: int, height: int,
               background: str = "#000000", no_color: bool = False,
               warning: str = DEFAULT_COLOURS.warning) -> ChartImage:
    """The chart drawn on `width` x `height` cells (its last line is the legend, if any).

    NaN and ±Inf steps of a series are not bridged: the line breaks there and a marker
    (× NaN at the top, ▲ +Inf at the top, ▼ -Inf at the bottom) stands at that x, named in the
    legend. Log y on data with values ≤ 0 draws linear and says why on the chart's first line.
    """
    width, height = max(width, 12), max(height, 4)
    limits = x_limits(traces, options)
    found = non_finite(traces, *limits) if limits is not None else {}
    marks_note = _non_finite_note(found)
    if marks_note:
        options = replace(options, note=" · ".join(n for n in (options.note, marks_note) if n))
    legend = legend_line(options, width, no_color) if (options.legend or options.note) else None
    plot_height = height - (1 if legend is not None else 0)
    tail = [legend] if legend is not None else []
    head: list[list[Segment]] = []
    log_y = options.log_y
    if log_y:
        problem = log_y_problem(traces)
        if problem:
            log_y = False
            head = [list(Strip([Segment(f" {problem} (drawn linear)", Style(color=None if no_color else warning, bold=True))])
                         .crop(0, width))]
            plot_height -= 1
    if limits is None:
        return ChartImage(head + _message("no data", width, plot_height) + tail, width)
    lo, hi = limits
    columns = max(8, width - Y_AXIS_COLUMNS)
    fig = plt.figure
    fig.clear()
    # The chart's cells, not the process's terminal, bound its size: a headless run (tests, a
    # screenshot) has no terminal or an 80-column one, and plotext would cut wider charts to it.
    plt.terminal.limit(False, False)
    fig.theme("colorless")
    fig.plot_size(width, max(plot_height, 2))
    drawn = False
    y_span: dict[bool, list[float]] = {False: [], True: []}  # per side: the drawn y range
    # Threshold hits ("points") go on top of the threshold lines, drawn just before them: a hit
    # on the line's own row would otherwise be painted over by it.
    # Bands go first, under every line.
    bands = [trace for trace in traces if trace.kind == "band"]
    for trace in bands:
        drawn = _draw_band(fig, trace, options, lo, hi, log_y, columns, background, no_color, y_span) or drawn
    lines = [trace for trace in traces if trace.kind not in ("points", "band")]
    for index, trace in enumerate([*lines, *(trace for trace in traces if trace.kind == "points")]):
        if index == len(lines):
            _draw_hlines(fig, options.hlines, lo, hi, log_y)
        x, y = np.asarray(trace.x, dtype=np.float64), np.asarray(trace.y, dtype=np.float64)
        ok = np.isfinite(x) & np.isfinite(y)
        gaps = np.sort(x[np.isfinite(x) & ~np.isfinite(y)]) if trace.kind != "points" else np.empty(0)
        if log_y:
            ok &= y > 0
        if not ok.all():
            x, y = x[ok], y[ok]
        if options.x_range is not None:
            x, y = _visible(x, y, lo, hi)
        if not len(x):
            continue
        # A smoothed line has no spikes to keep: one point per column is enough.
        slots = columns // 2 if trace.kind == "smoothed" else columns
        if trace.kind != "points" and len(x) > 2 * slots:
            x, y = decimate(x, y, slots)
        colour = mix(trace.colour, background, FAINT) if trace.kind == "faint" else hex_to_rgb(trace.colour)
        pixel = plt.pixel() if no_color else plt.pixel(foreground=colour)
        symbol = "●" if trace.kind == "points" else trace.marker
        side = "right" if trace.right else "left"
        for px, py in _pieces(x, y, gaps):
            signal = fig.signal(px.tolist(), py.tolist(), marker=plt.marker(symbol, pixel), yside=side)
            if trace.kind != "points" and len(px) > 1:
                signal.lines()
            _add(fig, signal)
        if trace.kind != "points":
            y_span[trace.right] += [float(y.min()), float(y.max())]
        drawn = True
    if len(lines) + len(bands) == len(traces):
        _draw_hlines(fig, options.hlines, lo, hi, log_y)
    for mark, hits in found.items():
        for trace, xs in hits:
            span = y_span[trace.right] or ([1.0, 10.0] if log_y else [0.0, 1.0])
            edge = min(span) if mark == NEG_INF_MARK else max(span)
            pixel = plt.pixel() if no_color else plt.pixel(foreground=hex_to_rgb(trace.colour))
            signal = fig.signal(xs.tolist(), [edge] * len(xs), marker=plt.marker(mark, pixel),
                                yside="right" if trace.right else "left")
            _add(fig, signal)
            drawn = True
    if not drawn:
        return ChartImage(head + _message("nothing to draw here", width, plot_height) + tail, width)
    if options.cursor_x is not None and lo <= options.cursor_x <= hi:
        fig.line(options.cursor_x, orientation="vertical", pixel=plt.pixel())
    fig.ruler("x").lim(lo, hi)
    fig.ruler("x").ticks(*x_ticks(lo, hi, options.x_axis, width))
    if log_y:
        for right, span in y_span.items():
            # plotext pads a flat line's range by 1 each side, below 0 for values under 2, where no
            # log is: a flat line is drawn on a linear axis, where it looks the same.
            if span and max(span) - min(span) > 1e-6 * max(span):
                fig.ruler("y", "right" if right else "left").scale("log")
    plot = ansi_lines(fig.build().string(colorless=no_color))[:plot_height]
    return ChartImage(head + plot + [[] for _ in range(plot_height - len(plot))] + tail, width)


def fill_band(fig: Any, x: np.ndarray, lower: np.ndarray, upper: np.ndarray, pixel: Any, slots: int) -> bool:
    """Fill the area between two y series over shared (sorted) x on a plotext figure, in braille.

    A stem is drawn from lower to upper at each x; more points than `slots` are reduced to the
    envelope of each of `slots` equal x slots (lowest lower, highest upper), so the band keeps its
    extremes and costs the same for 100 or 100,000 points. Non-finite points are left out.
    False when no point is left to draw.
    """
    x, lower, upper = (np.asarray(a, dtype=np.float64) for a in (x, lower, upper))
    ok = np.isfinite(x) & np.isfinite(lower) & np.isfinite(upper)
    x, lower, upper = x[ok], lower[ok], upper[ok]
    if not len(x):
        return False
    slots = max(int(slots), 1)
    if len(x) > slots and x[-1] > x[0]:
        slot = np.minimum(((x - x[0]) / (x[-1] - x[0]) * slots).astype(np.int64), slots - 1)
        starts = np.flatnonzero(np.r_[True, slot[1:] != slot[:-1]])
        x = (np.minimum.reduceat(x, starts) + np.maximum.reduceat(x, starts)) / 2
        lower, upper = np.minimum.reduceat(lower, starts), np.maximum.reduceat(upper, starts)
    marker = plt.marker("braille", pixel)
    top = fig.signal(x.tolist(), upper.tolist(), marker=marker).density("full", scope="fill")
    top.fill(fig.signal(x.tolist(), lower.tolist(), marker=marker))
    if len(x) > 1:
        top.lines()
    _add(fig, top)
    return True


def _draw_hlines(fig: Any, values: tuple[float, ...], lo: float, hi: float, log_y: bool) -> None:
    """The threshold lines across [lo, hi] (on a log axis, those above 0)."""
    for value in values:
        if not log_y or value > 0:
            line = fig.signal([lo, hi], [value, value], marker=plt.marker("braille", plt.pixel()))
            _add(fig, line.lines())


def _add(fig: Any, signal: Any) -> None:
    """Register a signal, bypassing `draw`'s colour scan where plotext allows (see the compat module)."""
    _textual_compat.add_signal(fig, signal)


def _draw_band(fig: Any, trace: Trace, options: ChartOptions, lo: float, hi: float, log_y: bool, columns: int,
               background: str, no_color: bool, y_span: dict[bool, list[float]]) -> bool:
    """A "band" trace filled between its lower (`y`) and `upper` series; False if nothing is left."""
    if trace.upper is None:
        return False
    x, lower, upper = (np.asarray(a, dtype=np.float64) for a in (trace.x, trace.y, trace.upper))
    ok = np.isfinite(x) & np.isfinite(lower) & np.isfinite(upper)
    if log_y:
        ok &= (lower > 0) & (upper > 0)
    if options.x_range is not None:
        ok &= (x >= lo) & (x <= hi)
    x, lower, upper = x[ok], lower[ok], upper[ok]
    if not len(x):
        return False
    order = np.argsort(x, kind="stable")
    x, lower, upper = x[order], lower[order], upper[order]
    if no_color:  # no shade tells a fill from the line over it: the band's two edges, dotted
        for edge in (lower, upper):
            _add(fig, fig.signal(x.tolist(), edge.tolist(), marker=plt.marker("·", plt.pixel())))
    else:
        pixel = plt.pixel(foreground=mix(trace.colour, background, BAND_FADE))
        fill_band(fig, x, np.minimum(lower, upper), np.maximum(lower, upper), pixel, columns)
    y_span[trace.right] += [float(min(lower.min(), upper.min())), float(max(lower.max(), upper.max()))]
    return True


@dataclass(frozen=True)
class ChartPlot:
    """What a chart draws. Equal when key and options are: the traces are derived from the key
    (the data versions and settings they were built from), so they are not compared."""

    key: Any = None
    options: ChartOptions = ChartOptions()
    traces: tuple[Trace, ...] = field(default=(), compare=False)


class ScalarChart(ThemedChart, can_focus=True):
    """One chart of the scalar view. The view binds its `plot`; an equal plot does not redraw."""

    DEFAULT_CSS = """
    ScalarChart { border: round $panel-lighten-2; height: 14; padding: 0; }
    ScalarChart:focus { border: round $accent; }
    """

    plot: reactive[ChartPlot] = reactive(ChartPlot, layout=False)

    def __init__(self, chart_id: str, title: str, **kwargs: Any):
        super().__init__(**kwargs)
        self.chart_id = chart_id
        self.title = ""
        self.set_title(title)
        self._drawn: tuple[Any, ChartImage] | None = None
        self.draws = 0  # how many times it was really drawn (tests check live redraws)
        # What the last drawing (and painting it) took of this thread's CPU: live redraws are paced
        # by it (CPU, not wall time, so a busy machine does not slow them down).
        self.draw_seconds = 0.0
        self.drawn_at = 0.0  # time.monotonic() of the last drawing
        self._line_style: Style | None = None  # the widget's style during a paint

    def set_title(self, title: str) -> None:
        """The border title: text from the logs, shown literally."""
        if title != self.title:
            self.title = title
            self.border_title = markup(title)

    @property
    def traces(self) -> tuple[Trace, ...]:
        return self.plot.traces

    @property
    def options(self) -> ChartOptions:
        return self.plot.options

    def image(self) -> ChartImage:
        """The chart as drawn at its current size (drawn again only when something changed)."""
        size = self.content_size
        background, warning = theme_background(self), self.theme_colours().warning
        cache_key = (self.plot, self.plot.traces, size.width, size.height, background, warning, self.app.no_color)
        if self._drawn is not None and self._drawn[0] == cache_key:
            return self._drawn[1]
        started = time.thread_time()
        image = draw_chart(list(self.plot.traces), self.plot.options, size.width, size.height, background,
                           self.app.no_color, warning)
        self.draw_seconds = time.thread_time() - started
        self.drawn_at = time.monotonic()
        self.draws += 1
        self._drawn = (cache_key, image)
        return image

    def render_lines(self, crop: Region) -> list[Strip]:
        # The widget's style once per paint, not once per line (it walks up the DOM).
        self._line_style = self.rich_style
        draws, started = self.draws, time.thread_time()
        try:
            return super().render_lines(crop)
        finally:
            self._line_style = None
            if self.draws != draws:  # what a new drawing really costs: drawn, then its lines painted
                self.draw_seconds = time.thread_time() - started

    def render_line(self, y: int) -> Strip:
        image = self.image()
        width = self.content_size.width
        segments = image.lines[y] if 0 <= y < len(image.lines) else []
        style = self._line_style or self.rich_style
        return Strip(segments).adjust_cell_length(width).apply_style(style)
