"""A braille scatter of one hyper-parameter against one target, a run labelled at the cursor.

Each run is a 2 x 2 block of braille dots; axes are linear, or log for values spread over
decades (as the parallel-coordinates axes, `summary.parallel.axis_for`). The run under the
cursor is a `◆` with its name and both values beside it. Text from files goes through `shown()`.
"""
from __future__ import annotations

from typing import Any

import numpy as np
from rich.style import Style
from textual.binding import Binding
from textual.strip import Strip

from ...summary.queries.parallel import axis_for
from ..common.palette import DEFAULT_COLOURS, packed
from ..common.text import shown
from .braille import BLANK, cell_bits
from .commands import CommandKeys
from .heatmap import BOLD, DIM, Canvas
from .lineage_data import ScatterData, short_value
from .themed import ThemedChart

CURSOR = "◆"


def draw_scatter(data: ScatterData, cursor: int | None, width: int, height: int, *, no_color: bool = False,
                 dark: bool = True, base: Style | None = None, point: str = DEFAULT_COLOURS.primary) -> list[Strip]:
    """The points in `point` (the theme's primary), the cursor's in black or white, whichever reads."""
    canvas = Canvas(max(0, width), max(0, height))
    title = shown(f"{data.param} → {data.target}") + (f"  {data.title}" if data.title else "")
    canvas.text(0, 0, title[:width], attr=BOLD)
    if not data.points or width < 20 or height < 6:
        text = "no run has both values" if not data.points else "too small to draw"
        canvas.text(height // 2, max(0, (width - len(text)) // 2), text[:width], attr=DIM)
        return canvas.strips(base, no_color)
    xs = [p[1] for p in data.points]
    ys = [p[2] for p in data.points]
    x_axis, y_axis = axis_for(data.param, xs), axis_for(data.target, ys)
    y_labels = (short_value(y_axis.high), short_value(y_axis.low))
    left = max(len(t) for t in y_labels) + 1
    top, bottom = 1, height - 3  # plot rows; then the x labels and the x axis name
    columns, rows = width - left, bottom - top + 1
    fx = np.array([x_axis.fraction(x) for x in xs])
    fy = np.array([y_axis.fraction(y) for y in ys])
    px = left * 2 + 1 + np.rint(np.clip(fx, 0, 1) * (columns * 2 - 5)).astype(np.int64)  # a dot clear of the edges
    py = top * 4 + np.rint((1 - np.clip(fy, 0, 1)) * (rows * 4 - 2)).astype(np.int64)
    dots = np.zeros((height * 4, width * 2), dtype=bool)
    for dx in (0, 1):
        for dy in (0, 1):
            dots[py + dy, px + dx] = True
    bits = cell_bits(dots)
    lit = bits > 0
    canvas.chars[lit] = BLANK + bits[lit]
    canvas.fg[lit] = packed(point)
    for row in range(top, bottom + 1):
        canvas.text(row, left - 1, "│", attr=DIM)
    canvas.text(bottom + 1, left - 1, "└" + "─" * (columns), attr=DIM)
    canvas.text(top, 0, y_labels[0].rjust(left - 1), attr=DIM)
    canvas.text(bottom, 0, y_labels[1].rjust(left - 1), attr=DIM)
    low, high = short_value(x_axis.low), short_value(x_axis.high)
    name = shown(data.param) + (" (log)" if x_axis.log else "")
    canvas.text(height - 1, left, low, attr=DIM)
    canvas.text(height - 1, max(left + len(low) + 1, (width - len(name)) // 2), name, attr=DIM)
    canvas.text(height - 1, width - len(high), high, attr=DIM)
    if cursor is not None and 0 <= cursor < len(data.points):
        run, x, y = data.points[cursor]
        col, row = int(px[cursor] // 2), int(py[cursor] // 4)
        canvas.text(row, col, CURSOR, 0xFFFFFF if dark else 0x000000, attr=BOLD)
        label = shown(f"{run}  {short_value(x)}, {short_value(y)}")
        start = col + 2 if col + 2 + len(label) <= width else max(left, col - 1 - len(label))
        canvas.text(row, start, label[:width - start], attr=BOLD)
    return canvas.strips(base, no_color)


class ScatterPlot(CommandKeys, ThemedChart, can_focus=True):
    """The scatter of the pair under the importance cursor; its keys ask the view (`Command`)."""

    HELP_GROUP = "Importance scatter"
    DEFAULT_CLASSES = "focus-tint"  # app.tcss: the faint tint of the focused chart
    DEFAULT_CSS = """
    ScatterPlot { height: 1fr; width: 1fr; }
    """
    BINDINGS = [
        Binding("left", "command('point', -1)", "Previous run", show=False, id="lineage.scatter_left"),
        Binding("right", "command('point', 1)", "Next run", show=False, id="lineage.scatter_right"),
        Binding("enter", "command('open', 0)", "Open run", id="lineage.scatter_open"),
        Binding("backspace", "command('back', 0)", "Back to the ranking", id="lineage.scatter_back"),
        Binding("escape", "command('back', 0)", "Back to the ranking", show=False, id="lineage.scatter_escape"),
    ]

    def __init__(self, **kwargs: Any):
        super().__init__(**kwargs)
        self.data = ScatterData("", "", ())
        self.cursor: int | None = None
        self._drawn: tuple[tuple, list[Strip]] | None = None

    def set_scatter(self, data: ScatterData, cursor: int | None) -> None:
        if data != self.data or cursor != self.cursor:
            self.data, self.cursor = data, cursor
            self.refresh()

    def render_line(self, y: int) -> Strip:
        size = self.content_size
        no_color = bool(getattr(self.app, "no_color", False))
        dark = self.app.current_theme.dark if self.app.current_theme else True
        point = self.theme_colours().primary
        key = (self.data, self.cursor, size.width, size.height, no_color, dark, point)
        if self._drawn is None or self._drawn[0] != key:
            self._drawn = (key, draw_scatter(self.data, self.cursor, size.width, size.height, no_color=no_color,
                                             dark=dark, base=self.rich_style, point=point))
        strips = self._drawn[1]
        return strips[y] if 0 <= y < len(strips) else Strip.blank(size.width, self.rich_style)
