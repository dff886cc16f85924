"""Text charts of the profiler view: horizontal bars (op types), columns (steps) and a memory
chart. Pure functions from numbers to `rich.text.Text` lines: the view puts them in `Static`s.

Every chart also reads without colour: bars are blocks, the marked column (the compilation step,
the memory peak) has its own character and a label.
"""
from __future__ import annotations

import math
from typing import Sequence

import numpy as np
from rich.text import Text

from ..common.palette import SERIES_COLOURS
from ..common.text import literal

EIGHTHS = " ▏▎▍▌▋▊▉█"
UPPER = " ▁▂▃▄▅▆▇█"


def hbar(fraction: float, width: int) -> str:
    """A bar `fraction` of `width` cells long, to an eighth of a cell."""
    if not (fraction > 0) or width <= 0:
        return ""
    eighths = int(round(min(1.0, fraction) * width * 8))
    full, rest = divmod(eighths, 8)
    return "█" * full + (EIGHTHS[rest] if rest else "")


def fmt_ms(value: float) -> str:
    """Milliseconds compactly: `36.08`, `0.0099`, `1.2e+04`."""
    if value is None or not math.isfinite(value):
        return "-"
    if value == 0:
        return "0"
    if abs(value) >= 1e5 or abs(value) < 1e-4:
        return f"{value:.2e}"
    if abs(value) >= 100:
        return f"{value:.1f}"
    return f"{value:.4g}"


def fmt_bytes(value: float) -> str:
    for unit, size in (("GiB", 1 << 30), ("MiB", 1 << 20), ("KiB", 1 << 10)):
        if abs(value) >= size:
            return f"{value / size:.1f} {unit}"
    return f"{int(value)} B"


def share_bars(rows: Sequence[tuple[str, float, str]], width: int, colour: str = SERIES_COLOURS[0],
               label_width: int | None = None, selected: int | None = None) -> Text:
    """One line per row: label, a bar of its share (a fraction of the whole, 0..1, bars scaled
    to the largest) and the text `right` after it (tab-separated columns: the last ones are
    dropped where the line would not fit)."""
    text = Text()
    if not rows:
        return text
    label_width = label_width or min(26, max(len(label) for label, _, _ in rows))
    room = width - label_width - 4 - 3  # what the text after the bar may take on one line
    rows = [(label, share, _fit_columns(right, room)) for label, share, right in rows]
    right_width = max(len(right) for _, _, right in rows)
    bar_width = max(4, width - label_width - right_width - 3)
    top = max((share for _, share, _ in rows), default=0.0) or 1.0
    for i, (label, share, right) in enumerate(rows):
        shown = label if len(label) <= label_width else label[: label_width - 1] + "…"
        style = "reverse" if i == selected else ""
        text.append_text(literal(shown.ljust(label_width), style))
        text.append(" ")
        bar = hbar(share / top, bar_width)
        text.append(bar, style=colour)
        text.append(" " * (bar_width - len(bar) + 1))
        text.append(right.rjust(right_width), style="dim" if i != selected else "reverse")
        if i < len(rows) - 1:
            text.append("\n")
    return text


def _fit_columns(text: str, width: int) -> str:
    """The tab-separated columns of `text` joined by two spaces, as many leading ones as fit in
    `width` (a narrow terminal drops the last columns instead of wrapping the line)."""
    parts = text.split("\t")
    shown = parts[0]
    for part in parts[1:]:
        if len(shown) + 2 + len(part) > width:
            break
        shown += "  " + part
    return shown


def bucket(values: np.ndarray, columns: int, how: str = "max") -> tuple[np.ndarray, np.ndarray]:
    """`values` in at most `columns` groups: (value per group, index of its first element)."""
    n = values.size
    if n <= columns:
        return values.astype(np.float64), np.arange(n)
    edges = np.linspace(0, n, columns + 1).astype(np.int64)
    reduce = np.maximum if how == "max" else np.add
    grouped = reduce.reduceat(values.astype(np.float64), edges[:-1])
    return grouped, edges[:-1]


def column_chart(values: np.ndarray, width: int, height: int, *, colour: str = SERIES_COLOURS[0],
                 marked: int | None = None, marked_colour: str = SERIES_COLOURS[3],
                 unit=fmt_ms, x_first: int = 1, x_name: str = "step", selected: int | None = None) -> Text:
    """Vertical bars of `values` (one column per value, or per group of values when there are
    more than fit: the group's largest), a y scale on the left, x labels below. `marked`: a value
    drawn in its own colour with `▒` (the compilation step); `selected`: a value drawn reversed."""
    values = np.asarray(values, dtype=np.float64)
    text = Text()
    if not values.size or width < 12 or height < 3:
        return text
    top = float(np.nanmax(values)) if np.isfinite(values).any() else 0.0
    top = top if top > 0 else 1.0
    labels = [unit(top), unit(top / 2), "0"]
    axis_width = max(len(s) for s in labels) + 1
    plot_width = max(1, width - axis_width - 1)
    per = max(1, min(3, plot_width // values.size)) if values.size <= plot_width else 1
    columns = plot_width // per
    grouped, first = bucket(values, columns)
    rows = height - 1
    marked_col = None
    if marked is not None and values.size:
        marked_col = int(np.searchsorted(first, marked, side="right")) - 1
    selected_col = None
    if selected is not None and values.size:
        selected_col = int(np.searchsorted(first, selected, side="right")) - 1
    levels = np.nan_to_num(grouped / top * rows * 8, nan=0.0)
    for r in range(rows):
        floor = (rows - 1 - r) * 8
        if r == 0:
            label = labels[0]
        elif r == rows // 2:
            label = labels[1]
        elif r == rows - 1:
            label = labels[2]
        else:
            label = ""
        text.append(label.rjust(axis_width - 1) + " ┤" if label else " " * axis_width + "│", style="dim")
        for c in range(grouped.size):
            fill = int(max(0, min(8, levels[c] - floor)))
            ch = UPPER[fill]
            style = colour
            if c == marked_col:
                ch, style = ("▒" if fill else " "), marked_colour
            if c == selected_col:
                style = f"reverse {style}"
                ch = ch if ch != " " else " "
            text.append(ch * per, style=style)
        text.append("\n")
    axis = " " * axis_width + "└" + "─" * (grouped.size * per)
    text.append(axis + "\n", style="dim")
    last = x_first + values.size - 1
    left, right = f"{x_name} {x_first}", str(last)
    gap = max(1, axis_width + 1 + grouped.size * per - len(left) - len(right))
    text.append(left + " " * gap + right, style="dim")
    return text


def line_chart(series: Sequence[tuple[str, np.ndarray, str, str]], width: int, height: int, *,
               peak: tuple[int, float] | None = None, unit=fmt_bytes, x_labels: tuple[str, str] = ("", "")) -> Text:
    """Several series over the same samples (`name, values, colour, marker`): the first as an area,
    the others with their marker in their colour where their value falls (a column per group of samples: the group's
    largest); `peak` (sample index, value) is marked `▲` with its value. A legend line ends it."""
    text = Text()
    if not series or width < 16 or height < 4:
        return text
    top = max(float(np.max(v)) if v.size else 0.0 for _, v, _, _ in series) or 1.0
    labels = [unit(top), unit(top / 2), unit(0)]
    axis_width = max(len(s) for s in labels) + 1
    plot_width = max(1, width - axis_width - 1)
    rows = height - 3
    grid: list[list[tuple[str, str]]] = [[(" ", "")] * plot_width for _ in range(rows)]
    n = series[0][1].size
    for k, (name, values, colour, marker) in enumerate(series):
        grouped, first = bucket(values, plot_width)
        for c in range(grouped.size):
            r = max(0, min(rows - 1, rows - 1 - int(round(grouped[c] / top * (rows - 1)))))
            if k == 0:  # the first series is an area: filled from the bottom up to its value
                for below in range(r, rows):
                    grid[below][c] = ("█", colour)
            else:
                grid[r][c] = (marker, colour)
    peak_note = ""
    if peak is not None and n:
        index, value = peak
        columns = min(plot_width, n)
        c = min(columns - 1, int(index * columns / n)) if n > plot_width else index
        r = rows - 1 - int(round(value / top * (rows - 1)))
        grid[max(0, min(rows - 1, r))][c] = ("▲", "bold")
        peak_note = f"▲ peak {unit(value)}"
    for r in range(rows):
        label = labels[0] if r == 0 else labels[1] if r == rows // 2 else labels[2] if r == rows - 1 else ""
        text.append(label.rjust(axis_width - 1) + " ┤" if label else " " * axis_width + "│", style="dim")
        for ch, style in grid[r]:
            text.append(ch, style=style)
        text.append("\n")
    text.append(" " * axis_width + "└" + "─" * plot_width + "\n", style="dim")
    left, right = x_labels
    text.append(" " * (axis_width + 1) + left + " " * max(1, plot_width - len(left) - len(right)) + right + "\n",
                style="dim")
    for i, (name, _, colour, marker) in enumerate(series):
        text.append(("   " if i else " " * (axis_width + 1)))
        text.append("█" if i == 0 else marker, style=colour)
        text.append(f" {name}")
    if peak_note:
        text.append("   " + peak_note, style="bold")
    return text
