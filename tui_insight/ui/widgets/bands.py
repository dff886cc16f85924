"""A distribution over steps, as TensorBoard's distributions dashboard draws it: nested shaded
bands between the values at its basis points (0–100%, 6.68–93.32%, 15.87–84.13%,
30.85–69.15%: ±∞, ±1.5, ±1, ±0.5 standard deviations of a normal) and the median as a line.

Drawn with plotext in braille on the scalar chart's frame, ticks and legend (`widgets/chart.py`):
the bands are filled (`fill_band`) piece by piece between neighbouring rows of
`Distribution.values`, each piece in the shade of the innermost band holding it. A step cursor (left/right) stands as a vertical line and
the line under the chart reads the nine values at its step (`percentile_readout`).

Colours come from the theme (`ThemeColours`, read by `ThemedChart`): the bands are the job's
colour or `$primary` faded towards the background, the median `$warning`, the cursor `$accent`.
"""
from __future__ import annotations

import time
from dataclasses import dataclass, replace
from typing import Any

import numpy as np
import plotext as plt
from rich.segment import Segment
from rich.style import Style
from rich.text import Text
from textual.binding import Binding, BindingType
from textual.strip import Strip

from ...summary.queries.distributions import BASIS_POINTS, Distribution
from .. import _textual_compat
from ..common.format import clock_time, compact, duration
from ..common.palette import DEFAULT_COLOURS, hex_to_rgb, mix
from .chart import (
    Y_AXIS_COLUMNS,
    ChartImage,
    ChartOptions,
    ansi_lines,
    fill_band,
    legend_line,
    x_ticks,
)
from .themed import CursorChart, theme_background

# The bands as (lower, upper) rows of `Distribution.values`, outer first: TensorBoard's nesting.
BANDS = ((0, 8), (1, 7), (2, 6), (3, 5))
# What is filled: the seven pieces between neighbouring rows, each in the shade of the innermost
# band holding it, so no cell is filled twice (the cost of a fill is its area).
PIECES = ((0, 1, 0), (1, 2, 1), (2, 3, 2), (3, 5, 3), (5, 6, 2), (6, 7, 1), (7, 8, 0))  # (lower, upper, band)
MEDIAN = 4
# How far each band fades towards the background, outer first: the inner bands are the brighter.
BAND_FADES = (0.78, 0.6, 0.4, 0.2)
BAND_LABELS = ("min–max", "7–93%", "16–84%", "31–69%")  # short: the legend fits 80 columns
HINT = "←/→ step · home/end oldest/newest · d ridgelines"


def bp_label(bp: int) -> str:
    """A basis point as the read-out names it: min, max, median, else its percentage."""
    return {0: "min", 5000: "median", 10000: "max"}.get(bp, f"{bp / 100:g}%")


def band_colours(colour: str, background: str) -> list[tuple[int, int, int]]:
    """The fill of each band, outer first: `colour` faded towards `background`."""
    return [mix(colour, background, fade) for fade in BAND_FADES]


def x_values(dist: Distribution, axis: str, origin: float) -> np.ndarray:
    """Where each step sits on the x axis: its step, its time since `origin`, or its wall time."""
    if axis == "relative":
        return dist.wall_times - origin
    if axis == "wall":
        return dist.wall_times.astype(np.float64)
    return dist.steps.astype(np.float64)


@dataclass(frozen=True)
class BandOptions:
    axis: str = "step"  # "step", "relative" or "wall"
    origin: float = 0.0  # the job's first wall time, for "relative"
    colour: str = DEFAULT_COLOURS.primary
    cursor: int | None = None  # index of the step under the cursor
    median: str = DEFAULT_COLOURS.warning  # apart from the bands' shades of `colour`
    cursor_colour: str = DEFAULT_COLOURS.accent  # as the ridgeline's cursor


def legend(colour: str, background: str, no_color: bool, median: str = DEFAULT_COLOURS.warning) -> ChartOptions:
    """The legend line: each band's swatch and range, then the median's."""
    shades = band_colours(colour, background)
    entries = tuple(("#%02x%02x%02x" % rgb, label) for rgb, label in zip(shades, BAND_LABELS))
    symbols = ("⠒", "⠒", "⠒", "⠒", "•") if no_color else ()  # lines, not fills (`draw_plot`)
    return ChartOptions(legend=(*entries, (median, "median")), legend_symbols=symbols)


def x_range(dist: Distribution, options: BandOptions) -> tuple[float, float] | None:
    """The x axis's ends: the drawable steps' first and last x (None: none is drawable)."""
    x = x_values(dist, options.axis, options.origin)
    x = x[np.isfinite(x) & np.isfinite(dist.values).all(axis=1)]
    if not len(x):
        return None
    lo, hi = float(x.min()), float(x.max())
    return (lo - 0.5, hi + 0.5) if lo == hi else (lo, hi)


def draw_bands(dist: Distribution | None, options: BandOptions, width: int, height: int,
               background: str = "#000000", no_color: bool = False, message: str = "") -> ChartImage:
    """The chart on `width` x `height` cells, its last line the legend, the cursor on it (pure
    but for plotext's figure, which it clears first)."""
    image = draw_plot(dist, replace(options, cursor=None), width, height, background, no_color, message)
    return with_cursor(image, dist, options, no_color) if dist is not None and not message else image


def with_cursor(image: ChartImage, dist: Distribution, options: BandOptions, no_color: bool = False) -> ChartImage:
    """`image` (drawn without a cursor) with the cursor's step as a vertical line over the plot.
    Laid over the drawn text, so moving the cursor does not draw the bands again: the column is
    where plotext puts x on the plot's cells between its frame's corners."""
    limits = x_range(dist, options)
    if options.cursor is None or not 0 <= options.cursor < len(dist) or limits is None or not image.lines:
        return image
    x = float(x_values(dist, options.axis, options.origin)[options.cursor])
    lo, hi = limits
    top = "".join(seg.text for seg in image.lines[0])
    left, right = top.find("┌"), top.find("┐")
    if not (np.isfinite(x) and lo <= x <= hi) or left < 0 or right <= left + 1:
        return image
    column = left + 1 + int((x - lo) / (hi - lo) * (right - left - 2) + 0.5)
    style = Style() if no_color else Style(color=options.cursor_colour, bold=True)
    lines = []
    for line in image.lines:
        text = "".join(seg.text for seg in line)
        inside = len(text) > column and text[left:left + 1] in ("│", "┤")  # the plot's rows, not its frame
        lines.append(_replaced(line, column, Segment("│", style)) if inside else line)
    return ChartImage(lines, image.width)


def _replaced(line: list[Segment], column: int, cell: Segment) -> list[Segment]:
    """`line` with the one-cell character at `column` replaced by `cell`."""
    out: list[Segment] = []
    at = 0
    for seg in line:
        end = at + len(seg.text)
        if at <= column < end:
            before, after = seg.text[:column - at], seg.text[column - at + 1:]
            out += [Segment(before, seg.style)] if before else []
            out.append(cell)
            out += [Segment(after, seg.style)] if after else []
        else:
            out.append(seg)
        at = end
    return out


def draw_plot(dist: Distribution | None, options: BandOptions, width: int, height: int,
              background: str = "#000000", no_color: bool = False, message: str = "") -> ChartImage:
    """The bands, the median, frame, ticks and legend on `width` x `height` cells (no cursor)."""
    width, height = max(width, 12), max(height, 4)
    tail = [legend_line(legend(options.colour, background, no_color, options.median), width, no_color)]
    plot_height = height - 1
    if dist is None or message:
        return ChartImage(_message(message or "loading…", width, plot_height) + tail, width)
    x = x_values(dist, options.axis, options.origin)
    finite = np.isfinite(x) & np.isfinite(dist.values).all(axis=1)
    if not finite.any():
        return ChartImage(_message("no finite values to draw", width, plot_height) + tail, width)
    x, values = x[finite], dist.values[finite]
    lo, hi = x_range(dist, options) or (0.0, 1.0)
    columns = max(8, width - Y_AXIS_COLUMNS)
    fig = plt.figure
    fig.clear()
    plt.terminal.limit(False, False)  # the chart's cells bound it, not the process's terminal
    fig.theme("colorless")
    fig.plot_size(width, max(plot_height, 2))
    shades = band_colours(options.colour, background)
    for low, high, band in PIECES if not no_color else ():
        fill_band(fig, x, values[:, low], values[:, high], plt.pixel(foreground=shades[band]), columns)
    # Without colour the fills would be one block: each basis point's line instead, the median dotted.
    rows = [*(i for i in range(len(BASIS_POINTS)) if i != MEDIAN), MEDIAN] if no_color else [MEDIAN]
    median = plt.pixel() if no_color else plt.pixel(foreground=hex_to_rgb(options.median))
    for row in rows:
        marker = "•" if no_color and row == MEDIAN else "braille"
        line = fig.signal(x.tolist(), values[:, row].tolist(), marker=plt.marker(marker, median))
        if len(x) > 1 and marker == "braille":
            line.lines()
        _textual_compat.add_signal(fig, line)
    fig.ruler("x").lim(lo, hi)
    fig.ruler("x").ticks(*x_ticks(lo, hi, options.axis, width))
    plot = ansi_lines(fig.build().string(colorless=no_color))[:plot_height]
    return ChartImage(plot + [[] for _ in range(plot_height - len(plot))] + tail, width)


def _message(text: str, width: int, height: int) -> list[list[Segment]]:
    lines: list[list[Segment]] = [[] for _ in range(height)]
    lines[height // 2] = [Segment(text.center(width), Style(dim=True))]
    return lines


def short_number(value: float) -> str:
    """A read-out's value to four significant digits: the nine fit two lines of 80 columns
    (the exports have them whole)."""
    return compact(value, digits=4, exponent_digits=3, small=1e-3, large=1e5)


def percentile_readout(dist: Distribution, index: int, axis: str = "step", origin: float = 0.0) -> Text:
    """The step at `index`, its time, and its value at each basis point, on one line."""
    step, wall = int(dist.steps[index]), float(dist.wall_times[index])
    when = duration(wall - origin) if axis == "relative" else clock_time(wall)
    text = Text.assemble((f"step {step}", "bold"), (f" · {when}", "dim"))
    for bp, value in zip(dist.basis_points, dist.values[index]):
        text.append(" │ " if bp == 0 else " · ", "dim")
        text.append(f"{bp_label(bp)} ", "dim")
        text.append(short_number(float(value)), "bold" if bp == 5000 else "")
    return text


def bands_bindings(view_id: str) -> list[BindingType]:
    """The step cursor's keys of a bands chart, with ids of the view that shows it."""
    return [
        Binding("left", "cursor_step(-1)", "Older step", show=False, id=f"{view_id}.bands_older"),
        Binding("right", "cursor_step(1)", "Newer step", show=False, id=f"{view_id}.bands_newer"),
        Binding("shift+left", "cursor_step(-10)", "10 steps older", show=False, id=f"{view_id}.bands_older_10"),
        Binding("shift+right", "cursor_step(10)", "10 steps newer", show=False, id=f"{view_id}.bands_newer_10"),
        Binding("home", "cursor_end(0)", "Oldest step", show=False, id=f"{view_id}.bands_oldest"),
        Binding("end", "cursor_end(1)", "Newest step", show=False, id=f"{view_id}.bands_newest"),
    ]


class BandsChart(CursorChart):
    """One distribution chart. The owner hands it a `Distribution` under a key (`set_data`), the
    step axis (`set_style`) and, if it keeps the cursor itself, where the cursor is (`set_cursor`).
    The cursor is a `RidgeCursor` (its step; the bucket is the ridgeline's), so a view showing
    the same tag as a ridgeline and as bands keeps one cursor for both."""

    class CursorMoved(CursorChart.CursorMoved):
        """A distribution chart's cursor moved (or the data under it changed)."""

    def __init__(self, title: str, colour: str | None = None, **kwargs: Any):
        super().__init__(title, colour, **kwargs)
        self.dist: Distribution | None = None
        self.axis, self.origin = "step", 0.0
        self._drawn: tuple[Any, int | None, ChartImage, ChartImage] | None = None  # key, cursor, plot, with cursor
        self.draw_seconds = 0.0  # CPU time of the last drawing (the bench reads it)

    # -- what the owner calls -----------------------------------------------------------------

    def set_data(self, key: Any, dist: Distribution | None, message: str = "") -> None:
        if key == self.key and message == self.message:
            return
        self.key, self.dist, self.message = key, dist, message
        n = len(dist) if dist is not None else 0
        self.border_subtitle = f"{n} step{'s' if n != 1 else ''} · distribution" if dist is not None else ""
        self._moved()

    def set_style(self, axis: str, origin: float) -> None:
        if (axis, origin) != (self.axis, self.origin):
            self.axis, self.origin = axis, origin
            self.refresh()

    @property
    def cursor_index(self) -> int | None:
        return self.cursor.index(self._steps()) if self.dist is not None else None

    def readout(self) -> Text:
        i = self.cursor_index
        if self.dist is None or i is None:
            return Text("")
        return percentile_readout(self.dist, i, self.axis, self.origin)

    # -- cursor ---------------------------------------------------------------------------------

    def _steps(self) -> list[int]:
        return self.dist.steps.tolist() if self.dist is not None else []

    def _shape(self) -> tuple[Any, int]:
        return self._steps(), 0

    # -- drawing --------------------------------------------------------------------------------

    def image(self) -> ChartImage:
        size = self.content_size
        background = theme_background(self)
        colours = self.theme_colours()
        options = BandOptions(self.axis, self.origin, self.series_colour(colours), self.cursor_index, colours.warning,
                              colours.accent)
        no_color = self.app.no_color
        cache_key = (self.key, self.message, replace(options, cursor=None), size.width, size.height, background,
                     no_color)
        if self._drawn is not None and self._drawn[0] == cache_key and self._drawn[1] == options.cursor:
            return self._drawn[3]
        started = time.thread_time()
        if self._drawn is not None and self._drawn[0] == cache_key:  # only the cursor moved
            plot = self._drawn[2]
        else:
            plot = draw_plot(self.dist, options, size.width, size.height, background, no_color, self.message)
        image = with_cursor(plot, self.dist, options, no_color) if self.dist is not None and not self.message else plot
        self.draw_seconds = time.thread_time() - started
        self.draws += 1
        self._drawn = (cache_key, options.cursor, plot, image)
        return image

    def render_line(self, y: int) -> Strip:
        image = self.image()
        segments = image.lines[y] if 0 <= y < len(image.lines) else []
        return Strip(segments).adjust_cell_length(self.content_size.width).apply_style(self.rich_style)
