"""A ridgeline of histograms over steps: the chart of the histogram view and of tensor histograms.

Two modes, as in MindInsight ("Top"/"Front") and TensorBoard ("offset"/"overlay"):
- offset: one filled ridge per step, later steps lower and in front, each ridge placed on the
  vertical axis by its step (or relative/wall time); older ridges fade towards the background.
  Drawn on a framebuffer of 1/8-cell rows, reduced to lower-block characters with two colours
  per cell, so ridges overlap smoothly.
- overlay: every step's outline on one baseline, in braille dots; the newest is brightest and
  drawn last.

Everything is numpy over (steps x columns) arrays and the text is built from runs of equal
cells, so 50 steps x 30 bins draw in a few milliseconds. The drawn strips are kept until the
data key, options, size or colours change.

A value/step cursor (`up`/`down` over ridges, `left`/`right` over buckets) reads out the step,
the bucket range and its count; the NaN/Inf counts of each step are written beside its ridge.
The bindings get their ids from the view that uses the chart: subclass `RidgelineChart` with
`BINDINGS = ridgeline_bindings("histograms")`.

Colours come from the theme (`ThemeColours`, read by `ThemedChart`): the series is the job's
colour or `$primary`, the ridge and bucket under the cursor `$accent`, NaN/Inf counts `$error`.
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

import numpy as np
from rich.color import Color
from rich.segment import Segment
from rich.style import Style
from rich.text import Text
from textual.binding import Binding, BindingType
from textual.strip import Strip

from ...summary.queries.histograms import Ridgeline
from ..common.format import clock_time, duration, number, short_time
from ..common.palette import DEFAULT_COLOURS, hex_to_rgb, mix, snap_256, two_shades_256
from ..state.histograms import BIN_JUMP, MODES, RidgeCursor  # noqa: F401 (MODES: for the views)
from .themed import CursorChart

LOWER_BLOCKS = " ▁▂▃▄▅▆▇█"  # LOWER_BLOCKS[k]: the lower k eighths of a cell
SUB = 8  # framebuffer rows per cell in offset mode
EDGE = 2  # thickness of a ridge's bright outline, in framebuffer rows
AXIS_ROWS = 2  # tick line and tick labels under the plot
MIN_PLOT_WIDTH = 10


@dataclass(frozen=True)
class RidgeOptions:
    mode: str = "offset"  # "offset" or "overlay"
    axis: str = "step"  # "step", "relative" or "wall": where ridges sit and how they are labelled
    origin: float = 0.0  # the job's first wall time, for "relative"
    colour: str = DEFAULT_COLOURS.primary
    highlight: str = DEFAULT_COLOURS.accent  # the ridge, label and bucket under the cursor
    nonfinite: str = DEFAULT_COLOURS.error  # NaN/Inf counts
    cursor_step: int | None = None  # index of the ridge under the cursor
    cursor_bin: int | None = None  # bucket under the cursor
    true_colour: bool = True  # False: the terminal shows 256 colours or fewer (`limited_colours`)


# -- labels ---------------------------------------------------------------------------------

def step_label(ridge: Ridgeline, i: int, axis: str, origin: float) -> str:
    """How ridge i is named on the step axis."""
    if axis == "relative":
        return duration(float(ridge.wall_times[i]) - origin)
    if axis == "wall":
        return short_time(float(ridge.wall_times[i]))
    step = int(ridge.steps[i])
    return str(step) if abs(step) < 10**8 else f"{step:.2e}".replace("e+", "e")


def axis_values(ridge: Ridgeline, axis: str) -> np.ndarray:
    """Where each ridge sits on the step axis."""
    if axis == "step":
        return ridge.steps.astype(np.float64)
    return ridge.wall_times.astype(np.float64)


def nonfinite_text(nan: int, pos: int, neg: int) -> str:
    """`nan3 +inf1 -inf2` (only the kinds present), "" if none."""
    parts = []
    if nan:
        parts.append(f"nan{nan}")
    if pos:
        parts.append(f"+inf{pos}")
    if neg:
        parts.append(f"-inf{neg}")
    return " ".join(parts)


def nice_ticks(lo: float, hi: float, max_ticks: int) -> list[float]:
    """Round values (1, 2, 2.5 or 5 x 10^k apart) inside [lo, hi], at most `max_ticks` intervals apart."""
    if not (math.isfinite(lo) and math.isfinite(hi)) or hi <= lo or max_ticks < 1:
        return []
    raw = (hi - lo) / max(max_ticks, 1)
    power = 10.0 ** math.floor(math.log10(raw)) if math.isfinite(raw) and raw > 0 else 0.0
    if not power > 0:  # a span past float64's largest or below its smallest steps: no round ticks
        return []
    for mult in (1, 2, 2.5, 5, 10):
        step = mult * power
        if (hi - lo) / step <= max_ticks:
            break
    first = math.ceil(lo / step - 1e-9)
    last = math.floor(hi / step + 1e-9)
    return [k * step for k in range(first, last + 1)]


def tick_label(value: float, spacing: float) -> str:
    """A tick value with as many decimals as the tick spacing needs."""
    if not math.isfinite(value):
        return "nan" if math.isnan(value) else ("inf" if value > 0 else "-inf")
    if not (math.isfinite(spacing) and spacing > 0):  # ends near float64's: the span overflows
        spacing = abs(value) or 1.0
    if value == 0 or abs(value) < spacing * 1e-6:
        return "0"
    if abs(value) >= 1e5 or spacing < 1e-4:
        text = f"{value:.2e}"
        mantissa, exponent = text.split("e")
        mantissa = mantissa.rstrip("0").rstrip(".")
        return f"{mantissa}e{int(exponent)}"
    decimals = max(0, -math.floor(math.log10(spacing) + 1e-9) + (1 if spacing / 10 ** math.floor(
        math.log10(spacing) + 1e-9) == 2.5 else 0))
    return f"{value:.{decimals}f}"


def column_values(ridge: Ridgeline, columns: int) -> np.ndarray:
    """The value at the centre of each plot column."""
    lo, hi = float(ridge.edges[0]), float(ridge.edges[-1])
    return lo + (np.arange(columns) + 0.5) * ((hi - lo) / columns)


def bin_column(ridge: Ridgeline, b: int, columns: int) -> int:
    """The plot column of the centre of bucket b."""
    lo, hi = float(ridge.edges[0]), float(ridge.edges[-1])
    centre = (float(ridge.edges[b]) + float(ridge.edges[b + 1])) / 2
    if hi <= lo:
        return columns // 2
    return max(0, min(columns - 1, int((centre - lo) / (hi - lo) * columns)))


def interpolated(ridge: Ridgeline, columns: int) -> np.ndarray:
    """(steps, columns) counts, linear between bucket centres (where MindInsight puts its points)."""
    counts = ridge.counts.astype(np.float64)
    if ridge.bins == 1:
        return np.repeat(counts, columns, axis=1)
    centres = (ridge.edges[:-1] + ridge.edges[1:]) / 2
    x = column_values(ridge, columns)
    right = np.clip(np.searchsorted(centres, x), 1, ridge.bins - 1)
    left = right - 1
    span = centres[right] - centres[left]
    t = np.clip((x - centres[left]) / np.where(span > 0, span, 1.0), 0.0, 1.0)
    return counts[:, left] * (1 - t) + counts[:, right] * t


# -- drawing --------------------------------------------------------------------------------

_BRAILLE = [" "] + [chr(0x2800 + i) for i in range(1, 256)]
_BRAILLE_BITS = np.array([[0x01, 0x08], [0x02, 0x10], [0x04, 0x20], [0x40, 0x80]], dtype=np.int64)


def _rgb(colour: str) -> tuple[int, int, int]:
    return hex_to_rgb(colour)


FADE_LEVELS = 12  # shades between the newest and the oldest step: neighbours share one, runs get longer


@lru_cache(maxsize=4096)
def _pair_style(fg: tuple[int, int, int], bg: tuple[int, int, int]) -> Style:
    return Style(color=Color.from_rgb(*fg), bgcolor=Color.from_rgb(*bg))


@lru_cache(maxsize=1024)
def _solid_style(fg: tuple[int, int, int]) -> Style:
    return Style(color=Color.from_rgb(*fg))


class _Palette:
    """Colours of the framebuffer: ridge i draws ids 2i (fill) and 2i+1 (outline), -1 is the
    background. `shade` maps ids to colour ids: steps are faded in FADE_LEVELS shades by age,
    the ridge under the cursor has its own colour."""

    def __init__(self, n: int, options: RidgeOptions, background: str, no_color: bool):
        self.background = _rgb(background)
        # 256 colours, offset: a fade by age collapses to one or two of them and the ridges to a
        # solid block; neighbours alternate between two fills under outlines of the job's colour.
        limited = not (options.true_colour or no_color) and options.mode == "offset"
        levels = 2 if limited else min(n, FADE_LEVELS)
        age = (n - 1 - np.arange(n)) / (n - 1) if n > 1 else np.zeros(n)  # 0 newest, 1 oldest
        level = np.rint(age * (levels - 1)).astype(np.int64)
        if limited:
            level = (n - 1 - np.arange(n)) % 2
        if options.cursor_step is not None and 0 <= options.cursor_step < n:
            level[options.cursor_step] = levels  # its own colour
        self.shade = np.empty(2 * n + 1, dtype=np.int64)  # index id + 1
        self.shade[0] = -1
        self.shade[1::2] = 2 * level
        self.shade[2::2] = 2 * level + 1
        fade = 0.78 if options.mode == "overlay" else 0.7
        colours: list[tuple[int, int, int] | None] = []
        for lv in range(levels + 1):
            under_cursor = lv == levels
            base = options.highlight if under_cursor else options.colour
            a = 0.0 if under_cursor else (lv / (levels - 1) if levels > 1 else 0.0)
            colours.append(None if no_color else mix(base, background, 0.5 + 0.35 * a))  # fill
            colours.append(_rgb(base) if under_cursor else mix(base, background, fade * a))  # outline
        if limited:
            fills, outline = two_shades_256(options.colour, background), snap_256(_rgb(options.colour))
            colours[:4] = [fills[0], outline, fills[1], outline]
        self.colours = colours

    def ids(self, framebuffer_ids: np.ndarray) -> np.ndarray:
        return self.shade[framebuffer_ids + 1]

    def colour(self, ident: int) -> tuple[int, int, int] | None:
        return self.colours[ident] if ident >= 0 else None

    def style(self, fg: int, bg: int) -> Style:
        """A lower block: colour id `fg` below, `bg` above (-1: the chart's background)."""
        return _pair_style(self.colour(fg) or self.background, self.colour(bg) or self.background)

    def solid(self, ident: int) -> Style:
        return _solid_style(self.colours[ident])


def _runs(codes: np.ndarray) -> tuple[list[int], list[int]]:
    """Starts and ends of the runs of equal values of a 1-D array."""
    cuts = np.flatnonzero(codes[1:] != codes[:-1]) + 1
    starts = [0, *cuts.tolist()]
    return starts, [*cuts.tolist(), len(codes)]


def _offset_cells(ridge: Ridgeline, rows: int, columns: int,
                  positions: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Offset mode: per cell (rows from the top) the block height k and fg/bg framebuffer ids,
    and the cell row of each ridge's baseline. Framebuffer rows count from the bottom."""
    n = len(ridge.steps)
    height = rows * SUB
    peak = max(float(SUB), height * 0.3, height / (1 + (n - 1) / 3)) if n > 1 else float(height)
    peak = min(peak, float(height))
    # Baselines on cell boundaries: a ridge never starts inside a cell, which two colours per
    # cell could not show; ridges closer than a row share one.
    baselines = np.round(positions * (height - peak) / SUB).astype(np.int64) * SUB
    values = interpolated(ridge, columns)
    top_count = float(ridge.counts.max()) if ridge.counts.size else 0.0
    scale = peak / top_count if top_count > 0 else 0.0
    tops = np.rint(values * scale).astype(np.int64)
    tops = np.where((values > 0) & (tops == 0), 1, tops)  # a non-empty bucket stays visible
    fb = np.full((height, columns), -1, dtype=np.int64)
    for i in range(n):  # oldest first: later ridges cover earlier ones
        b = int(baselines[i])
        t = b + tops[i]
        hi = min(height, int(t.max()) if len(t) else b)
        if hi <= b:
            continue
        yy = np.arange(b, hi)[:, None]
        window = fb[b:hi]
        inside = yy < t[None, :]
        window[inside] = 2 * i
        window[inside & (yy >= (t - EDGE)[None, :])] = 2 * i + 1
    # Cell row r from the top holds framebuffer rows of cell (rows-1-r) from the bottom. The cell
    # shows the run at its top as background and what lies just under that run as a lower block.
    sub = fb.reshape(rows, SUB, columns)[::-1]  # [cell row from top, sub row from bottom, column]
    top = sub[:, SUB - 1, :]
    same = sub[:, ::-1, :] == top[:, None, :]
    k = SUB - np.cumprod(same, axis=1).sum(axis=1)
    below = np.take_along_axis(sub, np.maximum(k - 1, 0)[:, None, :], axis=1)[:, 0, :]
    fg = np.where(k > 0, below, top)
    base_rows = rows - 1 - np.minimum(baselines // SUB, rows - 1)
    return k, fg, top, base_rows


def _offset_rows(k: np.ndarray, fg: np.ndarray, bg: np.ndarray, palette: _Palette,
                 cursor_col: int | None, dim: Style, on) -> list[list[Segment]]:
    ids = len(palette.colours) + 1
    codes = (k * ids + (fg + 1)) * ids + (bg + 1)
    empty = (k == 0) & (bg < 0)
    if cursor_col is not None:
        codes[:, cursor_col] = np.where(empty[:, cursor_col], -1, codes[:, cursor_col])
    cells: dict[int, tuple[str, Style | None]] = {-1: ("┊", on(dim))}
    out = []
    for r in range(codes.shape[0]):
        row = codes[r]
        starts, ends = _runs(row)
        segments = []
        for start, end, code in zip(starts, ends, row[starts].tolist()):
            cell = cells.get(code)
            if cell is None:
                kk, rest = divmod(code, ids * ids)
                f, b = divmod(rest, ids)
                f, b = f - 1, b - 1
                if kk == 0:
                    colour = palette.colour(b)
                    cell = ("█", on(palette.solid(b))) if colour is not None else (" ", on(None))
                else:
                    cell = (LOWER_BLOCKS[kk], on(palette.style(f, b)))
                cells[code] = cell
            segments.append(Segment(cell[0] * (end - start), cell[1]))
        out.append(segments)
    return out


def _overlay_cells(ridge: Ridgeline, options: RidgeOptions, rows: int,
                   columns: int) -> tuple[np.ndarray, np.ndarray, float]:
    """Overlay mode: per cell (rows from the top) the braille dots of every step, the id of the
    newest ridge drawn there (the cursor's first), and the count at the top of the plot."""
    n = len(ridge.steps)
    dots_y, dots_x = rows * 4, columns * 2
    values = interpolated(ridge, dots_x)
    top_count = float(ridge.counts.max()) if ridge.counts.size else 0.0  # the highest bucket
    scale = (dots_y - 1) / top_count if top_count > 0 else 0.0
    level = np.rint(values * scale).astype(np.int64)  # dot row from the bottom
    prev = np.concatenate((level[:, :1], level[:, :-1]), axis=1)
    low, high = np.minimum(level, prev), np.maximum(level, prev)  # joins steep neighbours
    # The union of every step's dots: +1 where a column's run starts, -1 past its end, summed up.
    col = np.broadcast_to(np.arange(dots_x), low.shape)
    marks = np.bincount((low * dots_x + col).ravel(), minlength=(dots_y + 1) * dots_x) \
        - np.bincount(((high + 1) * dots_x + col).ravel(), minlength=(dots_y + 1) * dots_x)
    dots = (np.cumsum(marks.reshape(dots_y + 1, dots_x)[:-1], axis=0) > 0)[::-1]
    codes = (dots.reshape(rows, 4, columns, 2) * _BRAILLE_BITS[None, :, None, :]).sum(axis=(1, 3))
    # Which step colours a cell: the newest one passing through it (the cursor's above all).
    cell_low = np.minimum(low[:, 0::2], low[:, 1::2]) // 4
    cell_high = np.maximum(high[:, 0::2], high[:, 1::2]) // 4
    r = np.arange(rows)[None, :, None]
    cover = (r >= cell_low[:, None, :]) & (r <= cell_high[:, None, :])  # (steps, rows from bottom, columns)
    rank = np.arange(n)
    if options.cursor_step is not None and 0 <= options.cursor_step < n:
        rank = np.where(rank == options.cursor_step, n, rank)
    best = np.where(cover, rank[:, None, None], -1).max(axis=0)[::-1]
    by_rank = np.full(n + 2, -1)
    by_rank[rank] = 2 * np.arange(n) + 1
    owner = np.where(codes > 0, by_rank[best], -1)
    return codes, owner, top_count


def _overlay_rows(codes: np.ndarray, owner: np.ndarray, palette: _Palette, on) -> list[list[Segment]]:
    out = []
    for r in range(codes.shape[0]):
        text = "".join([_BRAILLE[c] for c in codes[r].tolist()])
        row = owner[r]
        starts, ends = _runs(row)
        out.append([Segment(text[s:e], on(palette.solid(o) if o >= 0 else None))
                    for s, e, o in zip(starts, ends, row[starts].tolist())])
    return out


def draw_ridgeline(ridge: Ridgeline | None, options: RidgeOptions, width: int, height: int,
                   background: str = "#000000", no_color: bool = False, message: str = "",
                   base: Style | None = None) -> list[Strip]:
    """The chart as `height` strips of `width` cells; every style is laid over `base` (the
    widget's own colours: line-API strips carry them themselves)."""
    width, height = max(width, 1), max(height, 1)

    def on(style: Style) -> Style:
        laid = style if base is None else base + style
        # NO_COLOR: no colour at all, so none can carry what the glyphs and bold do not.
        return laid.without_color if no_color else laid

    dim = Style(dim=True)
    if ridge is None or not len(ridge.steps) or width < 16 or height < 4:
        text = message or ("no data" if ridge is None or not len(ridge.steps) else "too small to draw")
        return _centred(text, width, height, on(dim), base)
    problem = undrawable(ridge)
    if problem:
        return _centred(problem, width, height, on(dim), base)
    n = len(ridge.steps)
    palette = _Palette(n, options, background, no_color)
    plot_rows = height - AXIS_ROWS
    overlay = options.mode == "overlay"
    cursor = options.cursor_step if options.cursor_step is not None and 0 <= options.cursor_step < n else None

    # Margins: step labels (offset) or counts (overlay) on the left, NaN/Inf counts on the right.
    labels = [step_label(ridge, i, options.axis, options.origin) for i in range(n)]
    nonfinite = [nonfinite_text(int(a), int(b), int(c)) for a, b, c in
                 zip(ridge.nan_counts, ridge.pos_inf_counts, ridge.neg_inf_counts)]
    left_width = 8 if overlay else min(10, max(len(s) for s in labels)) + 1
    right_width = 0
    if any(nonfinite):
        longest = max(len(s) for s in nonfinite) + (max(len(s) for s in labels) + 1 if overlay else 0)
        right_width = min(longest + 1, width // 3)
    columns = width - left_width - right_width
    if columns < MIN_PLOT_WIDTH:
        left_width = right_width = 0
        columns = width

    left_text: dict[int, str] = {}
    right_text: dict[int, tuple[str, bool]] = {}  # row -> text, under the cursor
    if overlay:
        codes, owner, top_count = _overlay_cells(ridge, options, plot_rows, columns)
        left_text = {plot_rows - 1: "0", 0: _count_label(top_count)}
        if plot_rows >= 6:
            mid = plot_rows // 2  # the count at the top dot of that cell row
            left_text[mid] = _count_label(top_count * (plot_rows * 4 - 1 - mid * 4) / (plot_rows * 4 - 1))
        listed = [i for i in range(n - 1, -1, -1) if nonfinite[i]]  # newest first
        for r, i in enumerate(listed[:plot_rows]):
            if r == plot_rows - 1 and len(listed) > plot_rows:
                right_text[r] = (f"+{len(listed) - r} more steps", False)
            else:
                right_text[r] = (f"{labels[i]} {nonfinite[i]}", i == cursor)
        body = _overlay_rows(codes, palette.ids(owner), palette, on)
    else:
        k, fg, bg, base_rows = _offset_cells(ridge, plot_rows, columns, _positions(ridge, options.axis))
        taken: list[int] = []
        gap = 2 if n > plot_rows // 2 else 1
        order = ([cursor] if cursor is not None else []) + [n - 1, 0] + list(range(n - 2, 0, -1))
        for i in order:
            row = int(base_rows[i])
            if all(abs(row - t) >= gap for t in taken):
                taken.append(row)
                left_text[row] = labels[i]
        sums: dict[int, list[int]] = {}  # row -> nan, +inf, -inf of the ridges whose baseline is there
        for i in range(n):
            if nonfinite[i]:
                acc = sums.setdefault(int(base_rows[i]), [0, 0, 0, 0])
                acc[0] += int(ridge.nan_counts[i])
                acc[1] += int(ridge.pos_inf_counts[i])
                acc[2] += int(ridge.neg_inf_counts[i])
                acc[3] |= i == cursor
        right_text = {row: (nonfinite_text(a, b, c), bool(mark)) for row, (a, b, c, mark) in sums.items()}
        cursor_col = bin_column(ridge, options.cursor_bin, columns) \
            if cursor is not None and options.cursor_bin is not None and 0 <= options.cursor_bin < ridge.bins else None
        body = _offset_rows(k, palette.ids(fg), palette.ids(bg), palette, cursor_col, dim, on)

    strips: list[Strip] = []
    highlight = on(Style(color=options.highlight, bold=True))
    warn = on(Style(color=options.nonfinite))
    dim = on(dim)
    cursor_label = labels[cursor] if cursor is not None and not overlay else None
    for r in range(plot_rows):
        segments: list[Segment] = []
        if left_width:
            label = left_text.get(r, "")
            style = highlight if label and label == cursor_label else dim
            segments.append(Segment(label[: left_width - 1].rjust(left_width - 1) + " ", style))
        segments.extend(body[r])
        if right_width:
            text, marked = right_text.get(r, ("", False))
            segments.append(Segment((" " + text)[:right_width].ljust(right_width), highlight if marked else warn))
        strips.append(Strip(segments, width))
    strips.extend(_x_axis(ridge, options if cursor is not None else RidgeOptions(), left_width, columns,
                          right_width, dim, highlight, base))
    return strips


def undrawable(ridge: Ridgeline) -> str:
    """Why `ridge` cannot be drawn, or "". `rebin` never makes such a ridgeline; a chart says so
    rather than raise if one comes from elsewhere."""
    edges, counts = ridge.edges, ridge.counts
    if len(edges) < 2 or counts.shape != (len(ridge.steps), len(edges) - 1):
        return "cannot draw: the buckets do not match the steps"
    if not np.all(np.isfinite(edges)) or np.any(np.diff(edges) < 0):
        return "cannot draw: bucket edges are not finite and sorted"
    if counts.size and (counts.min() < 0 or not np.all(np.isfinite(counts))):
        return "cannot draw: negative bucket counts"
    return ""


def _positions(ridge: Ridgeline, axis: str) -> np.ndarray:
    """Each ridge's height above the front one, 0..1: the newest (front) at 0, the oldest at 1."""
    n = len(ridge.steps)
    if n == 1:
        return np.zeros(1)
    v = axis_values(ridge, axis)
    span = float(v.max() - v.min()) if np.all(np.isfinite(v)) else 0.0
    if span <= 0:
        return (n - 1 - np.arange(n)) / (n - 1)
    return (float(v.max()) - v) / span


def _count_label(count: float) -> str:
    if count >= 1e6:
        mantissa, exponent = f"{count:.1e}".split("e")
        return f"{mantissa}e{int(exponent)}"
    return f"{count:.0f}" if count >= 10 or count == int(count) else f"{count:.1f}"


def _centred(text: str, width: int, height: int, style: Style | None, blank: Style | None) -> list[Strip]:
    strips = [Strip.blank(width, blank)] * height
    strips[height // 2] = Strip([Segment(text[:width].center(width), style)], width)
    return strips


def _x_axis(ridge: Ridgeline, options: RidgeOptions, left: int, columns: int, right: int,
            dim: Style, highlight: Style, plain: Style | None) -> list[Strip]:
    """The tick line and the tick labels of the value axis, with the cursor's bucket marked."""
    lo, hi = float(ridge.edges[0]), float(ridge.edges[-1])
    ticks = nice_ticks(lo, hi, max(2, columns // 12))
    spacing = ticks[1] - ticks[0] if len(ticks) > 1 else (hi - lo)
    line = ["─"] * columns
    labels = [" "] * columns
    last_end = -2
    for t in ticks:
        col = int(round((t - lo) / (hi - lo) * columns - 0.5)) if hi > lo else columns // 2
        if not 0 <= col < columns:
            continue
        line[col] = "┬"
        text = tick_label(t, spacing)
        start = max(0, min(columns - len(text), col - len(text) // 2))
        if start <= last_end + 1:
            continue
        labels[start:start + len(text)] = list(text)
        last_end = start + len(text) - 1
    tick_segments: list[Segment] = [Segment(" " * left, plain)] if left else []
    cursor = options.cursor_bin
    if cursor is not None and 0 <= cursor < ridge.bins and hi > lo:
        a = int(math.floor((ridge.edges[cursor] - lo) / (hi - lo) * columns))
        b = int(math.ceil((ridge.edges[cursor + 1] - lo) / (hi - lo) * columns))
        a = max(0, min(columns - 1, a))
        b = max(a + 1, min(columns, b))
        marked = ["━"] * (b - a)
        centre = bin_column(ridge, cursor, columns)
        if a <= centre < b:
            marked[centre - a] = "▲"
        tick_segments += [Segment("".join(line[:a]), dim), Segment("".join(marked), highlight),
                          Segment("".join(line[b:]), dim)]
    else:
        tick_segments.append(Segment("".join(line), dim))
    label_segments: list[Segment] = [Segment(" " * left, plain)] if left else []
    label_segments.append(Segment("".join(labels), dim))
    if right:
        tick_segments.append(Segment(" " * right, plain))
        label_segments.append(Segment(" " * right, plain))
    width = left + columns + right
    return [Strip(tick_segments, width), Strip(label_segments, width)]


# -- read-out -------------------------------------------------------------------------------

def ridge_readout(ridge: Ridgeline, i: int, b: int | None, origin: float, error: str = DEFAULT_COLOURS.error) -> Text:
    """What the cursor points at: step (with its times), bucket range and count, NaN/Inf counts."""
    text = Text()
    if not 0 <= i < len(ridge.steps):
        return text
    wall = float(ridge.wall_times[i])
    text.append(f"step {int(ridge.steps[i])}", style="bold")
    text.append(f" +{duration(wall - origin)} {clock_time(wall)}", style="dim")
    if b is not None and 0 <= b < ridge.bins:
        left, right = float(ridge.edges[b]), float(ridge.edges[b + 1])
        text.append(f" │ bucket {b + 1}/{ridge.bins} [{number(left)}, {number(right)}) ")
        text.append(f"count {int(ridge.counts[i, b])}", style="bold")
    bad = nonfinite_text(int(ridge.nan_counts[i]), int(ridge.pos_inf_counts[i]), int(ridge.neg_inf_counts[i]))
    text.append(" │ ")
    text.append(bad or "no nan/inf", style=error if bad else "dim")
    problem = ridge.problems[i] if i < len(ridge.problems) else ""
    if problem:
        text.append(" │ ")
        text.append(problem, style=error)
    return text


# -- the widget -----------------------------------------------------------------------------

TRUE_COLOUR_HINT = "256 colours: export COLORTERM=truecolor (ssh: SendEnv COLORTERM)"  # said first: lines are cut


def limited_colours(app: Any) -> bool:
    """Whether the terminal shows no true colour (Rich's colour system for it: COLORTERM was not
    set, as over ssh unless forwarded), so the ridgelines take their 256-colour palette."""
    return app.console.color_system not in ("truecolor", None)


def ridgeline_bindings(view_id: str) -> list[BindingType]:
    """The cursor keys of a ridgeline chart, with ids of the view that shows it."""
    return [
        Binding("up", "cursor_step(-1)", "Older step", show=False, id=f"{view_id}.cursor_older"),
        Binding("down", "cursor_step(1)", "Newer step", show=False, id=f"{view_id}.cursor_newer"),
        Binding("left", "cursor_bin(-1)", "Bucket left", show=False, id=f"{view_id}.cursor_left"),
        Binding("right", "cursor_bin(1)", "Bucket right", show=False, id=f"{view_id}.cursor_right"),
        Binding("shift+left", f"cursor_bin(-{BIN_JUMP})", "Bucket jump left", show=False,
                id=f"{view_id}.jump_left"),
        Binding("shift+right", f"cursor_bin({BIN_JUMP})", "Bucket jump right", show=False,
                id=f"{view_id}.jump_right"),
        Binding("home", "cursor_end(0)", "Oldest step", show=False, id=f"{view_id}.cursor_oldest"),
        Binding("end", "cursor_end(1)", "Newest step", show=False, id=f"{view_id}.cursor_newest"),
    ]


class RidgelineChart(CursorChart):
    """One ridgeline. The owner hands it a `Ridgeline` under a key (`set_data`), how to draw it
    (`set_style`) and, if it keeps the cursor itself, where the cursor is (`set_cursor`).

    The cursor (`RidgeCursor`) is kept by step number, so it stays on the same step when new
    steps arrive; the rest of the cursor's scaffolding is `CursorChart`'s.
    """

    class CursorMoved(CursorChart.CursorMoved):
        """A ridgeline's cursor moved (or the data under it changed)."""

    def __init__(self, chart_id: str, title: str, colour: str | None = None, **kwargs: Any):
        super().__init__(title, colour, **kwargs)
        self.chart_id = chart_id
        self.ridge: Ridgeline | None = None
        self.mode = "offset"
        self.axis = "step"
        self.origin = 0.0
        self._drawn: tuple[Any, list[Strip]] | None = None

    # -- what the owner calls -----------------------------------------------------------------

    def set_data(self, key: Any, ridge: Ridgeline | None, message: str = "") -> None:
        """New data (or a message instead of data). Nothing happens if `key` did not change."""
        if key == self.key and message == self.message:
            return
        self.key, self.ridge, self.message = key, ridge, message
        if ridge is not None:
            self.cursor = self.cursor.fitted(ridge.bins)
        self._moved()

    def set_style(self, mode: str, axis: str, origin: float) -> None:
        if (mode, axis, origin) != (self.mode, self.axis, self.origin):
            self.mode, self.axis, self.origin = mode, axis, origin
            self._describe()
            self.refresh()

    def set_cursor(self, cursor: RidgeCursor) -> None:
        """Put the cursor at `cursor` (redrawn and announced only if it moved)."""
        super().set_cursor(cursor.fitted(self.ridge.bins) if self.ridge is not None else cursor)

    @property
    def cursor_step_value(self) -> int | None:
        """The step under the cursor, None if the cursor is hidden."""
        return self.cursor.step

    @property
    def cursor_bin(self) -> int | None:
        return self.cursor.bucket

    @property
    def cursor_index(self) -> int | None:
        """The ridge under the cursor (nearest kept step), or None if the cursor is off."""
        return self.cursor.index(self.ridge.steps.tolist()) if self.ridge is not None else None

    def options(self) -> RidgeOptions:
        colours = self.theme_colours()
        return RidgeOptions(self.mode, self.axis, self.origin, self.series_colour(colours), colours.accent,
                            colours.error, self.cursor_index, self.cursor.bucket if self.cursor.shown else None,
                            not limited_colours(self.app))

    def readout(self) -> Text:
        i = self.cursor_index
        if self.ridge is None or i is None:
            return Text("")
        return ridge_readout(self.ridge, i, self.cursor.bucket, self.origin, self.theme_colours().error)

    # -- cursor ---------------------------------------------------------------------------------

    def _shape(self) -> tuple[Any, int]:
        ridge = self.ridge
        return (ridge.steps, ridge.bins) if ridge is not None else ((), 0)

    def _moved(self) -> None:
        self._describe()
        super()._moved()

    def action_cursor_bin(self, move: int) -> None:
        self.cursor_to(self.cursor.move_bucket(*self._shape(), move))

    # -- drawing --------------------------------------------------------------------------------

    def _describe(self) -> None:
        ridge = self.ridge
        if ridge is None:
            self.border_subtitle = ""
            return
        n = len(ridge.steps)
        bad = int((ridge.nan_counts > 0).sum() + 0) if n else 0
        parts = [f"{n} step{'s' if n != 1 else ''}", f"{ridge.bins} bins", self.mode]
        if bad or (n and (ridge.pos_inf_counts.any() or ridge.neg_inf_counts.any())):
            steps_bad = int(((ridge.nan_counts + ridge.pos_inf_counts + ridge.neg_inf_counts) > 0).sum())
            parts.append(f"nan/inf in {steps_bad}")
        damaged = sum(1 for problem in ridge.problems if problem)
        if damaged:
            parts.append(f"damaged in {damaged} step{'s' if damaged != 1 else ''}")  # the read-out says how
        self.border_subtitle = " · ".join(parts)

    def strips(self) -> list[Strip]:
        size = self.content_size
        background = self.background_colour()
        options = self.options()
        cache_key = (self.key, self.message, options, size.width, size.height, background, self.app.no_color)
        if self._drawn is not None and self._drawn[0] == cache_key:
            return self._drawn[1]
        strips = draw_ridgeline(self.ridge, options, size.width, size.height, background, self.app.no_color,
                                self.message, base=self.rich_style)
        self.draws += 1
        self._drawn = (cache_key, strips)
        return strips

    def render_line(self, y: int) -> Strip:
        strips = self.strips()
        if 0 <= y < len(strips):
            return strips[y]
        return Strip.blank(self.content_size.width)
