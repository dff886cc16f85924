"""A distribution over steps, as TensorBoard's distributions dashboard draws it: nested shaded
bands between the values at its basis points (0–100%, 6.68–93.32%, 15.87–84.13%,
30.85–69.15%: ±∞, ±1.5, ±1, ±0.5 standard deviations of a normal) and the median as a line.

Drawn with plotext in braille on the scalar chart's frame, ticks and legend (`widgets/chart.py`):
each band is `fill_band` between two rows of `Distribution.values`, outer first, so an inner
band is painted over the outer ones. A step cursor (left/right) stands as a vertical line and
the line under the chart reads the nine values at its step (`percentile_readout`).
"""
from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Any, ClassVar

import numpy as np
import plotext as plt
from rich.segment import Segment
from rich.style import Style
from rich.text import Text
from textual.binding import Binding, BindingType
from textual.message import Message
from textual.strip import Strip
from textual.widget import Widget

from ...summary.queries.distributions import Distribution
from .. import _textual_compat
from ..common.format import clock_time, duration, number
from ..common.palette import hex_to_rgb, mix
from ..state.histograms import RidgeCursor
from .chart import (
    Y_AXIS_COLUMNS,
    ChartImage,
    ChartOptions,
    ansi_lines,
    fill_band,
    legend_line,
    x_ticks,
)

# The bands as (lower, upper) rows of `Distribution.values`, outer first: TensorBoard's nesting.
BANDS = ((0, 8), (1, 7), (2, 6), (3, 5))
MEDIAN = 4
# How far each band fades towards the background, outer first: the inner bands are the brighter.
BAND_FADES = (0.78, 0.6, 0.4, 0.2)
MEDIAN_COLOUR = "#F0E442"  # palette yellow: apart from every job colour's shades
CURSOR_COLOUR = "#E69F00"  # palette orange, as the ridgeline's cursor
BAND_LABELS = ("0–100%", "6.7–93.3%", "15.9–84.1%", "30.9–69.1%")
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
    colour: str = "#56B4E9"
    cursor: int | None = None  # index of the step under the cursor


def legend(colour: str, background: str, no_color: bool) -> ChartOptions:
    """The legend line: each band's swatch and range, then the median's."""
    shades = band_colours(colour, background)
    entries = tuple(("#%02x%02x%02x" % rgb, label) for rgb, label in zip(shades, BAND_LABELS))
    symbols = ("░", "▒", "▓", "█", "─") if no_color else ()
    return ChartOptions(legend=(*entries, (MEDIAN_COLOUR, "median")), legend_symbols=symbols)


def draw_bands(dist: Distribution | None, options: BandOptions, width: int, height: int,
               background: str = "#000000", no_color: bool = False, message: str = "") -> ChartImage:
    """The chart on `width` x `height` cells, its last line the legend (pure but for plotext's
    figure, which it clears first)."""
    width, height = max(width, 12), max(height, 4)
    tail = [legend_line(legend(options.colour, background, no_color), width)]
    plot_height = height - 1
    if dist is None or message:
        return ChartImage(_message(message or "loading…", width, plot_height) + tail, width)
    x = x_values(dist, options.axis, options.origin)
    finite = np.isfinite(x) & np.isfinite(dist.values).all(axis=1)
    if not finite.any():
        return ChartImage(_message("no finite values to draw", width, plot_height) + tail, width)
    x, values = x[finite], dist.values[finite]
    lo, hi = float(x.min()), float(x.max())
    if lo == hi:
        lo, hi = lo - 0.5, hi + 0.5
    columns = max(8, width - Y_AXIS_COLUMNS)
    fig = plt.figure
    fig.clear()
    plt.terminal.limit(False, False)  # the chart's cells bound it, not the process's terminal
    fig.theme("colorless")
    fig.plot_size(width, max(plot_height, 2))
    shades = band_colours(options.colour, background)
    for (low, high), shade in zip(BANDS, shades):
        pixel = plt.pixel() if no_color else plt.pixel(foreground=shade)
        fill_band(fig, x, values[:, low], values[:, high], pixel, columns)
    median = plt.pixel() if no_color else plt.pixel(foreground=hex_to_rgb(MEDIAN_COLOUR))
    line = fig.signal(x.tolist(), values[:, MEDIAN].tolist(), marker=plt.marker("braille", median))
    if len(x) > 1:
        line.lines()
    _textual_compat.add_signal(fig, line)
    if options.cursor is not None and 0 <= options.cursor < len(dist):
        cursor_x = x_values(dist, options.axis, options.origin)[options.cursor]
        if np.isfinite(cursor_x) and lo <= cursor_x <= hi:  # over the bands: a line under them is hidden
            pixel = plt.pixel() if no_color else plt.pixel(foreground=hex_to_rgb(CURSOR_COLOUR))
            edge = fig.signal([float(cursor_x)] * 2, [float(values.min()), float(values.max())],
                              marker=plt.marker("braille", pixel)).lines()
            _textual_compat.add_signal(fig, edge)
    fig.ruler("x").lim(lo, hi)
    fig.ruler("x").ticks(*x_ticks(lo, hi, options.axis, width))
    plot = ansi_lines(fig.build().string(colorless=no_color))[:plot_height]
    return ChartImage(plot + [[] for _ in range(plot_height - len(plot))] + tail, width)


def _message(text: str, width: int, height: int) -> list[list[Segment]]:
    lines: list[list[Segment]] = [[] for _ in range(height)]
    lines[height // 2] = [Segment(text.center(width), Style(dim=True))]
    return lines


def percentile_readout(dist: Distribution, index: int, axis: str = "step", origin: float = 0.0) -> Text:
    """The step at `index`, its time, and its value at each basis point, on one line."""
    step, wall = int(dist.steps[index]), float(dist.wall_times[index])
    when = duration(wall - origin) if axis == "relative" else clock_time(wall)
    text = Text.assemble((f"step {step}", "bold"), (f" · {when}", "dim"))
    for bp, value in zip(dist.basis_points, dist.values[index]):
        text.append(" │ " if bp == 0 else " · ", "dim")
        text.append(f"{bp_label(bp)} ", "dim")
        text.append(number(float(value)), "bold" if bp == 5000 else "")
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


class BandsChart(Widget, can_focus=True):
    """One distribution chart. The owner hands it a `Distribution` under a key (`set_data`), the
    step axis (`set_style`) and, if it keeps the cursor itself, where the cursor is (`set_cursor`):
    the cursor keys hand the new cursor to `cursor_to`, which owners keeping cursors override.
    The cursor is a `RidgeCursor` (its step; the bucket is the ridgeline's), so a view showing
    the same tag as a ridgeline and as bands keeps one cursor for both."""

    DEFAULT_CSS = """
    BandsChart { border: round $panel-lighten-2; height: 16; padding: 0; }
    BandsChart:focus { border: round $accent; }
    """
    BINDINGS: ClassVar[list[BindingType]] = []  # subclasses: bands_bindings("<view id>")

    class CursorMoved(Message):
        """The cursor moved (or the data under it changed): the owner updates its read-out."""

        def __init__(self, chart: "BandsChart") -> None:
            super().__init__()
            self.chart = chart

    def __init__(self, title: str, colour: str = "#56B4E9", **kwargs: Any):
        super().__init__(**kwargs)
        self.border_title = title  # markup: the owner escapes text from files
        self.key: Any = None
        self.dist: Distribution | None = None
        self.message = "loading…"
        self.axis, self.origin, self.colour = "step", 0.0, colour
        self.cursor = RidgeCursor()
        self._drawn: tuple[Any, ChartImage] | None = None
        self.draws = 0
        self.draw_seconds = 0.0  # CPU time of the last drawing (the bench reads it)

    # -- what the owner calls -----------------------------------------------------------------

    def set_data(self, key: Any, dist: Distribution | None, message: str = "") -> None:
        if key == self.key and message == self.message:
            return
        self.key, self.dist, self.message = key, dist, message
        n = len(dist) if dist is not None else 0
        self.border_subtitle = f"{n} step{'s' if n != 1 else ''} · distribution" if dist is not None else ""
        self.refresh()
        self.post_message(self.CursorMoved(self))

    def set_style(self, axis: str, origin: float) -> None:
        if (axis, origin) != (self.axis, self.origin):
            self.axis, self.origin = axis, origin
            self.refresh()

    def set_cursor(self, cursor: RidgeCursor) -> None:
        if cursor != self.cursor:
            self.cursor = cursor
            self.refresh()
            self.post_message(self.CursorMoved(self))

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

    def cursor_to(self, cursor: RidgeCursor) -> None:
        """Where a cursor key asks the cursor to go. Override to keep cursors elsewhere."""
        self.set_cursor(cursor)

    def action_cursor_step(self, move: int) -> None:
        self.cursor_to(self.cursor.move_step(self._steps(), 0, move))

    def action_cursor_end(self, newest: int) -> None:
        self.cursor_to(self.cursor.to_end(self._steps(), 0, bool(newest)))

    def hide_cursor(self) -> bool:
        if not self.cursor.shown:
            return False
        self.cursor_to(self.cursor.hidden())
        return True

    # -- drawing --------------------------------------------------------------------------------

    def image(self) -> ChartImage:
        size = self.content_size
        theme = self.app.current_theme
        background = str(theme.background or "")
        if not background.startswith("#") or len(background) != 7:
            background = "#000000" if theme.dark else "#ffffff"
        options = BandOptions(self.axis, self.origin, self.colour, self.cursor_index)
        cache_key = (self.key, self.message, options, size.width, size.height, background, self.app.no_color)
        if self._drawn is not None and self._drawn[0] == cache_key:
            return self._drawn[1]
        started = time.thread_time()
        image = draw_bands(self.dist, options, size.width, size.height, background, self.app.no_color,
                           self.message)
        self.draw_seconds = time.thread_time() - started
        self.draws += 1
        self._drawn = (cache_key, image)
        return image

    def render_line(self, y: int) -> Strip:
        image = self.image()
        segments = image.lines[y] if 0 <= y < len(image.lines) else []
        return Strip(segments).adjust_cell_length(self.content_size.width).apply_style(self.rich_style)
