"""Parallel coordinates: one vertical axis per lineage column, one braille line per run.

The runs' places on the axes (`ChartRuns`, from `summary.parallel`) are rasterised once per
size into braille dots (`segment_dots`); what a key changes (which runs are inside the filter,
the picked axis, the brushes, the highlighted run) only re-colours those dots, so a brush step
over 1,000 runs x 12 axes redraws in a few tens of milliseconds (`bench/bench_lineage.py`).

Lines are coloured by a column (the theme's gradient from `$primary` to `$warning`, as the
heat maps', colour bar on the right), brushes are `$accent`; runs outside the filter are faint. Number axes are labelled with their ends, category axes with a tick per value; a run
without a value ends on the "—" row right under the lines (their labels under it). A brushed range is a thick stretch of its
axis with its ends labelled. When the axes do not fit, a window of them around the picked one
is drawn (`◂`/`▸` say more are there). Text from files is drawn through `shown()`.
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import numpy as np
from rich.style import Style
from textual.binding import Binding
from textual.strip import Strip

from ...summary.queries.parallel import CATEGORY, Axis, Brush
from ..common.palette import DEFAULT_COLOURS, ThemeColours, packed
from .colour_map import gradient
from ..common.text import shown
from .braille import BLANK, cell_bits, segment_dots
from .commands import CommandKeys
from .heatmap import BOLD, DIM, REVERSE, UPPER_HALF, Canvas, lut_colours
from .lineage_data import ChartLook, ChartRuns, short_value
from .themed import ThemedChart

MIN_SPACING = 5  # cells between two axes at the least
BAR_WIDTH = 11  # the colour bar: two cells of colour and its labels
MISSING = "—"
COLOUR_LEVELS = 16  # steps of the colour map the lines are drawn in


def axis_title(column: str) -> str:
    """A column's name over its axis: its last part (metric/Accuracy: Accuracy)."""
    return shown(column.rsplit("/", 1)[-1])


@dataclass(frozen=True)
class Layout:
    """Rows: 0 the axis titles, 1 the labels of the axes' top ends, `top`..`bottom` the lines,
    `missing_row` the runs without a value, `under` the labels of the bottom ends. Labels have
    rows of their own: drawn on the lines' rows they would hide them. The "—" row comes right
    under the lines, so the lines that end there cross no labels; without a run to draw there,
    the labels come right under the lines instead (and the last row stays blank)."""

    first: int  # the first axis drawn
    columns: tuple[int, ...]  # the cell column of each axis drawn
    top: int  # the first row of the plot
    bottom: int  # its last row
    missing_row: int
    under: int
    bar: int  # the colour bar's first column (0: none)


def layout(n_axes: int, picked: int, width: int, height: int, bar: bool, missing: bool = False) -> Layout | None:
    """`missing`: some run has no value for an axis (a "—" row is drawn)."""
    bar_left = width - BAR_WIDTH if bar and width >= 50 else 0
    plot_width = bar_left or width
    if n_axes == 0 or plot_width < 8 or height < 7:
        return None
    room = max(4, min(9, plot_width // (n_axes + 1)))  # labels right of the last axis
    left, right = 1, plot_width - room - 1
    fits = max(1, (right - left) // MIN_SPACING + 1)
    count = min(n_axes, fits)
    first = min(max(0, picked - count // 2), n_axes - count)
    columns: tuple[int, ...]
    if count == 1:
        columns = ((left + right) // 2,)
    else:
        columns = tuple(left + round(i * (right - left) / (count - 1)) for i in range(count))
    bottom = height - 3
    missing_row, under = (bottom + 1, bottom + 2) if missing else (bottom + 2, bottom + 1)
    return Layout(first, columns, 2, bottom, missing_row, under, bar_left)


def chart_layout(runs: ChartRuns, look: ChartLook, width: int, height: int, no_color: bool = False) -> Layout | None:
    """The layout `draw_parallel` draws `runs` in."""
    return layout(len(runs.axes), look.picked, width, height, runs.colour is not None and not no_color,
                  any(axis.missing for axis in runs.axes))


@dataclass
class _Raster:
    """The dots of every run's line at one size, runs in drawing order (lowest colour first, so
    the highest ends on top): each dot as an index into the flat dot grid and into the flat cell
    grid, and the run it belongs to (int32: what a redraw reads is half as much)."""

    dot: np.ndarray
    cell: np.ndarray
    run: np.ndarray
    starts: np.ndarray  # per run: the index of its first dot
    ends: np.ndarray
    every_bits: np.ndarray | None = None  # the braille bits of every line's dots (a faint cell's)


def _rasterise(runs: ChartRuns, lay: Layout, width: int) -> _Raster:
    count = len(lay.columns)
    positions = runs.positions[:, lay.first:lay.first + count]
    n = len(runs.ids)
    span = (lay.bottom - lay.top + 1) * 4 - 1
    y = np.where(np.isnan(positions), lay.missing_row * 4 + 1,
                 lay.top * 4 + np.rint((1 - np.clip(np.nan_to_num(positions, nan=0.0), 0, 1)) * span))
    shade = runs.shade if runs.shade is not None else np.zeros(n)
    order = np.lexsort((np.arange(n), np.nan_to_num(shade, nan=-1.0)))  # drawn first: lowest colour
    if count < 2 or n == 0:
        empty = np.zeros(0, dtype=np.int32)
        return _Raster(empty, empty, empty, np.zeros(n, dtype=np.int64), np.zeros(n, dtype=np.int64))
    xs = np.array(lay.columns, dtype=np.float64) * 2
    x0 = np.tile(xs[:-1] + 1, n)
    x1 = np.tile(xs[1:], n)
    y0 = y[order][:, :-1].ravel()
    y1 = y[order][:, 1:].ravel()
    x, dot_y, segment = segment_dots(x0, y0, x1, y1)
    run = order[segment // (count - 1)].astype(np.int32)
    per_rank = np.bincount(segment // (count - 1), minlength=n)
    rank_starts = np.cumsum(per_rank) - per_rank
    starts, ends = np.empty(n, dtype=np.int64), np.empty(n, dtype=np.int64)
    starts[order], ends[order] = rank_starts, rank_starts + per_rank
    dot = (dot_y * (width * 2) + x).astype(np.int32)
    cell = ((dot_y // 4) * width + x // 2).astype(np.int32)
    return _Raster(dot, cell, run, starts, ends)


def draw_parallel(runs: ChartRuns, look: ChartLook, width: int, height: int, *, no_color: bool = False,
                  dark: bool = True, base: Style | None = None, raster: dict | None = None,
                  colours: ThemeColours = DEFAULT_COLOURS) -> list[Strip]:
    """The chart in `width` x `height` cells. `raster`: a dict the caller keeps, where the dots
    of the last size are kept between draws. `colours`: the theme's (lines run from primary to
    warning, a run with no value of the colour column is muted, brushes are accent)."""
    canvas = Canvas(max(0, width), max(0, height))
    lay = chart_layout(runs, look, width, height, no_color)
    if lay is None or not runs.ids:
        text = ("no column to draw: v chooses the columns" if not runs.axes else
                "no run to draw" if not runs.ids else "too small to draw")
        canvas.text(height // 2, max(0, (width - len(text)) // 2), text[:width], attr=DIM)
        return canvas.strips(base, no_color)
    key = (id(runs), lay, width)
    if raster is not None and raster.get("key") == key:
        dots = raster["dots"]
    else:
        dots = _rasterise(runs, lay, width)
        if raster is not None:
            raster.clear()
            raster.update(key=key, dots=dots, runs=runs)  # runs kept: its id stays unique
    lut = gradient(colours.primary, colours.warning)
    _lines(canvas, runs, look, dots, width, height, dark, lut, packed(colours.muted))
    _axes(canvas, runs, look, lay, packed(colours.accent))
    if lay.bar:
        _colour_bar(canvas, runs, lay, lut)
    return canvas.strips(base, no_color)


def _lines(canvas: Canvas, runs: ChartRuns, look: ChartLook, dots: _Raster, width: int, height: int,
           dark: bool, lut: np.ndarray, no_value: int) -> None:
    n = len(runs.ids)
    inside = np.frombuffer(look.inside, dtype=np.uint8).astype(bool) if len(look.inside) == n \
        else np.ones(n, dtype=bool)
    shape = (height * 4, width * 2)  # every dot of the raster is inside (it was made for this layout)
    lit = inside[dots.run]
    lit_dots, lit_runs = dots.dot[lit], dots.run[lit]
    bright = np.zeros(shape[0] * shape[1], dtype=bool)
    bright[lit_dots] = True
    if dots.every_bits is None:  # a cell without a bright dot shows all its (faint) dots: the same each draw
        every = np.zeros(shape[0] * shape[1], dtype=bool)
        every[dots.dot] = True
        dots.every_bits = cell_bits(every.reshape(shape))
    shade = runs.shade if runs.shade is not None else np.full(n, np.nan)
    # COLOUR_LEVELS steps of the colour map: neighbouring cells share a style more often (fewer segments)
    levels = np.round(np.nan_to_num(shade) * (COLOUR_LEVELS - 1)) / (COLOUR_LEVELS - 1)
    run_colour = np.where(np.isnan(shade), no_value, lut_colours(levels, (0.0, 1.0), lut))
    flat_colour = np.full(height * width, -1, dtype=np.int64)
    flat_colour[dots.cell[lit]] = run_colour[lit_runs]  # the last drawn (highest) wins
    cell_colour = flat_colour.reshape(height, width)
    bright_bits, faint_bits = cell_bits(bright.reshape(shape)), dots.every_bits
    on = bright_bits > 0
    only_faint = ~on & (faint_bits > 0)
    # Blank cells share the faint style: a row then breaks into segments only at lit cells.
    canvas.fg[~on] = 0x3C3C3C if dark else 0xCCCCCC
    canvas.attr[~on] = DIM
    canvas.chars[on] = BLANK + bright_bits[on]
    canvas.fg[on] = cell_colour[on]
    canvas.chars[only_faint] = BLANK + faint_bits[only_faint]
    if look.highlight is not None and 0 <= look.highlight < n:
        start, end = int(dots.starts[look.highlight]), int(dots.ends[look.highlight])
        mine = np.zeros(shape[0] * shape[1], dtype=bool)
        mine[dots.dot[start:end]] = True
        bits = cell_bits(mine.reshape(shape))
        mark = bits > 0
        canvas.chars[mark] = BLANK + (bits[mark] | bright_bits[mark])
        canvas.fg[mark] = 0xFFFFFF if dark else 0x000000
        canvas.attr[mark] = BOLD


def _axes(canvas: Canvas, runs: ChartRuns, look: ChartLook, lay: Layout, brush_colour: int) -> None:
    count = len(lay.columns)
    rows = lay.bottom - lay.top + 1
    for i, col in enumerate(lay.columns):
        k = lay.first + i
        axis = runs.axes[k]
        brush = look.brushes[k] if k < len(look.brushes) else Brush()
        picked = k == look.picked
        room = (lay.columns[i + 1] - col - 1) if i + 1 < count else (lay.bar or canvas.width) - col - 1
        canvas.chars[lay.top:lay.bottom + 1, col] = ord("│")
        canvas.fg[lay.top:lay.bottom + 1, col] = -1
        canvas.attr[lay.top:lay.bottom + 1, col] = 0 if picked else DIM
        if brush.active:
            _brush_marks(canvas, axis, brush, lay, col, rows, brush_colour)
        if axis.missing:
            canvas.text(lay.missing_row, col, MISSING, attr=0 if picked else DIM)
        _ticks(canvas, axis, brush, lay, col, max(0, room - 1), brush_colour)
        title = axis_title(axis.column)
        width = max(1, (lay.columns[i + 1] - col - 1) if i + 1 < count else room + 1)
        if len(title) > width:
            title = title[:max(1, width - 1)] + "…"
        canvas.text(0, col, title, attr=(BOLD | REVERSE) if picked else BOLD)
    if lay.first > 0:
        canvas.text(0, 0, "◂", attr=BOLD)
    if lay.first + count < len(runs.axes):
        canvas.text(0, (lay.bar or canvas.width) - 1, "▸", attr=BOLD)


def _row_of(lay: Layout, fraction: float) -> int:
    rows = lay.bottom - lay.top + 1
    return lay.top + min(rows - 1, max(0, int(round((1 - fraction) * (rows - 1)))))


def _brush_marks(canvas: Canvas, axis: Axis, brush: Brush, lay: Layout, col: int, rows: int,
                 brush_colour: int) -> None:
    if axis.kind == CATEGORY:
        for value in brush.chosen or ():
            fraction = axis.position(value)
            if not math.isnan(fraction):
                canvas.text(_row_of(lay, fraction), col, "┃", brush_colour, attr=BOLD)
        return
    low = 0.0 if brush.low is None else axis.fraction(float(brush.low))
    high = 1.0 if brush.high is None else axis.fraction(float(brush.high))
    if high < low or high < 0 or low > 1:
        return
    for row in range(_row_of(lay, min(1.0, high)), _row_of(lay, max(0.0, low)) + 1):
        canvas.text(row, col, "┃", brush_colour, attr=BOLD)


def _ticks(canvas: Canvas, axis: Axis, brush: Brush, lay: Layout, col: int, room: int, brush_colour: int) -> None:
    """Labels right of the axis, in the rows above and under the lines: the ends of a number axis
    (or of its brush, in the brush's colour), the top and bottom values of a category axis. A
    category between them is labelled on its own row only where no line passes there."""
    if room < 1 or axis.empty:
        return
    above, under = lay.top - 1, lay.under
    if axis.kind == CATEGORY:
        chosen = set(map(repr, brush.chosen or ()))
        used: set[int] = set()
        for value in sorted(axis.categories, key=lambda v: -axis.position(v)):
            row = _row_of(lay, axis.position(value))
            row = above if row == lay.top and above not in used else under if row == lay.bottom else row
            text = _fit(short_value(value), room)
            if row in used or lay.top <= row <= lay.bottom and not _free(canvas, row, col + 1, len(text)):
                continue
            used.add(row)
            picked = repr(value) in chosen
            canvas.text(row, col + 1, text, brush_colour if picked else -1, attr=BOLD if picked else DIM)
        return
    if axis.high > axis.low:
        labels = {above: (short_value(axis.high), -1, DIM), under: (short_value(axis.low), -1, DIM)}
    else:  # one value: its runs are in the middle; it is named above them
        labels = {above: (short_value(axis.low), -1, DIM)}
    if brush.high is not None:
        labels[above] = (short_value(brush.high), brush_colour, BOLD)
    if brush.low is not None:
        labels[under] = (short_value(brush.low), brush_colour, BOLD)
    for row, (text, fg, attr) in labels.items():
        canvas.text(row, col + 1, _fit(text, room), fg, attr=attr)


def _fit(text: str, room: int) -> str:
    """`text` in `room` cells, its end elided (…) when cut."""
    return text if len(text) <= room else text[:max(0, room - 1)] + "…"


def _free(canvas: Canvas, row: int, col: int, length: int) -> bool:
    """Whether the cells are blank (no line drawn through them)."""
    return bool(np.all(canvas.chars[row, col:col + length] <= BLANK))


def _colour_bar(canvas: Canvas, runs: ChartRuns, lay: Layout, lut: np.ndarray) -> None:
    axis = runs.colour
    if axis is None:
        return
    col = lay.bar + 1
    rows = lay.bottom - lay.top + 1
    pixels = np.linspace(1.0, 0.0, rows * 2)[:, None]
    colours = lut_colours(pixels, (0.0, 1.0), lut)
    for r in range(rows):
        canvas.text(lay.top + r, col, UPPER_HALF * 2, int(colours[2 * r, 0]), int(colours[2 * r + 1, 0]))
    title = axis_title(axis.column)
    canvas.text(0, lay.bar, ("■ " + title)[:BAR_WIDTH], attr=BOLD)
    room = BAR_WIDTH - 4
    if axis.kind == CATEGORY:
        ends = (axis.categories[-1], axis.categories[0]) if axis.categories else ("", "")
    else:
        ends = (axis.high, axis.low)
    canvas.text(lay.top, col + 3, short_value(ends[0])[:room], attr=DIM)
    canvas.text(lay.bottom, col + 3, short_value(ends[1])[:room], attr=DIM)
    if axis.log:
        canvas.text(lay.top + rows // 2, col + 3, "log", attr=DIM)


class ParallelChart(CommandKeys, ThemedChart, can_focus=True):
    """The chart, drawn from `set_chart` (runs, look); its keys ask the view (`Command`)."""

    HELP_GROUP = "Parallel coordinates"
    DEFAULT_CLASSES = "focus-tint"  # app.tcss: the faint tint of the focused chart
    DEFAULT_CSS = """
    ParallelChart { height: 1fr; width: 1fr; }
    """
    BINDINGS = [
        Binding("left", "command('axis', -1)", "Previous axis", show=False, id="lineage.chart_axis_left"),
        Binding("right", "command('axis', 1)", "Next axis", show=False, id="lineage.chart_axis_right"),
        Binding("up", "command('run', 1)", "Run above", show=False, id="lineage.chart_run_up"),
        Binding("down", "command('run', -1)", "Run below", show=False, id="lineage.chart_run_down"),
        Binding("left_square_bracket", "command('low', -1)", "Range low end down", id="lineage.brush_low_down"),
        Binding("right_square_bracket", "command('low', 1)", "Range low end up", id="lineage.brush_low_up"),
        Binding("left_curly_bracket", "command('high', -1)", "Range high end down", show=False,
                id="lineage.brush_high_down"),
        Binding("right_curly_bracket", "command('high', 1)", "Range high end up", show=False,
                id="lineage.brush_high_up"),
        Binding("backspace", "command('clear', 0)", "Clear the range", show=False, id="lineage.brush_clear"),
        Binding("c", "command('colour', 0)", "Colour by axis", id="lineage.chart_colour"),
    ]

    def __init__(self, **kwargs: Any):
        super().__init__(**kwargs)
        self.runs = ChartRuns((), (), np.zeros((0, 0)))
        self.look = ChartLook()
        self.draws = 0
        self._raster: dict = {}
        self._drawn: tuple[ChartRuns, tuple, list[Strip]] | None = None

    def set_chart(self, runs: ChartRuns, look: ChartLook) -> None:
        if runs is not self.runs or look != self.look:
            self.runs, self.look = runs, look
            self.refresh()

    def strips(self) -> list[Strip]:
        size = self.content_size
        no_color = bool(getattr(self.app, "no_color", False))
        dark = self.app.current_theme.dark if self.app.current_theme else True
        colours = self.theme_colours()
        key = (self.look, size.width, size.height, no_color, dark, colours)
        if self._drawn is not None and self._drawn[0] is self.runs and self._drawn[1] == key:
            return self._drawn[2]
        strips = draw_parallel(self.runs, self.look, size.width, size.height, no_color=no_color, dark=dark,
                               base=self.rich_style, raster=self._raster, colours=colours)
        self.draws += 1
        self._drawn = (self.runs, key, strips)
        return strips

    def render_line(self, y: int) -> Strip:
        strips = self.strips()
        if 0 <= y < len(strips):
            return strips[y]
        return Strip.blank(self.content_size.width, self.rich_style)
