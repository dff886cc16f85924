"""A loss landscape drawn in the terminal: a heat map with half blocks, contour lines, the loss
path and a value cursor; or the surface in relief (a wireframe seen from a chosen angle).

Heat map: the grid is sampled bilinearly at two pixels per cell row (`▀`, top pixel in the
foreground colour, bottom pixel in the background colour), coloured by the theme's gradient from
`$primary` (low loss) to `$warning` (high loss) with the lightness rising from dark to light, so the
order reads by lightness alone in any theme (`colour_map.gradient`), larger y at the top. Grid nodes map linearly onto the area:
the first node at the left (bottom) edge, the last at the right (top) edge. A colour bar with
loss values sits on the right. Contour lines are braille dots (2x4 per cell) where the band of
`levels` evenly spaced loss levels changes. Without colour (NO_COLOR) each cell is a character
of a shade ramp, darker for lower loss. The convergence mark is `$error`, NaN cells the theme's
muted foreground (`ThemedChart` reads them).

Everything is drawn into a cell canvas (code point, foreground, background, attributes as
numpy arrays) and turned into strips by runs of one style, so a 256x256 grid drawn at 160x48
costs a few milliseconds (`bench/bench_landscape.py`).
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field, replace
from typing import Any, Sequence

import numpy as np
from rich.color import Color, ColorTriplet, ColorType
from rich.segment import Segment
from rich.style import Style
from rich.text import Text
from textual.strip import Strip

from ...summary.queries.landscape import Landscape
from ..common.palette import DEFAULT_COLOURS, packed
from .colour_map import gradient
from .braille import cell_bits, segment_dots
from .ridgeline import nice_ticks, tick_label
from .themed import ThemedChart

UPPER_HALF = "▀"
RAMP = " .:-=+*#%@"  # NO_COLOR: lower loss is lighter ink (fewer marks)
PATH_DOT = "•"
CONVERGENCE = "◆"
CURSOR = "╋"
BOLD, REVERSE, DIM = 1, 2, 4
LUT = gradient(DEFAULT_COLOURS.primary, DEFAULT_COLOURS.warning)  # 256 packed 0xRRGGBB colours, low loss first


def _contrast(packed: np.ndarray) -> np.ndarray:
    """Black or white, whichever reads better on each packed colour."""
    r, g, b = (packed >> 16) & 0xFF, (packed >> 8) & 0xFF, packed & 0xFF
    return np.where(0.299 * r + 0.587 * g + 0.114 * b > 140, 0x000000, 0xFFFFFF)


# -- options and geometry ---------------------------------------------------------------------

@dataclass(frozen=True)
class HeatOptions:
    drawing: str = "heat"  # "heat", "contour" or "both"
    value_range: tuple[float, float] | None = None  # the colour scale (shared when compared); None: the grid's
    levels: int = 8  # contour levels
    cursor: tuple[int, int] | None = None  # grid cell (column j, row i)
    path_point: int | None = None  # the highlighted checkpoint
    no_color: bool = False
    colour_bar: bool = True
    axes: bool = True
    background: int = 0x000000
    low: str = DEFAULT_COLOURS.primary  # the colour map's ends, darkened and lightened (`gradient`)
    high: str = DEFAULT_COLOURS.warning
    mark: str = DEFAULT_COLOURS.error  # the convergence point
    nan: str = DEFAULT_COLOURS.muted  # cells whose loss is NaN


@dataclass(frozen=True)
class MapGeometry:
    """Where the map is in the drawing, in cells, and how grid coordinates map onto it."""

    left: int
    top: int
    columns: int
    rows: int
    x_axis: np.ndarray = field(repr=False, default_factory=lambda: np.zeros(1))
    y_axis: np.ndarray = field(repr=False, default_factory=lambda: np.zeros(1))

    def grid_position(self, x: float, y: float) -> tuple[float, float]:
        """Fractional grid indices (gx along x, gy along y) of the point (x, y)."""
        return _fraction(self.x_axis, x), _fraction(self.y_axis, y)

    def cell_of_index(self, gx: float, gy: float) -> tuple[int, int] | None:
        """The drawing cell (column, row) of fractional grid indices; None outside the map."""
        n, m = len(self.x_axis), len(self.y_axis)
        fx = 0.5 if n < 2 else gx / (n - 1)
        fy = 0.5 if m < 2 else gy / (m - 1)
        if not (-1e-9 <= fx <= 1 + 1e-9 and -1e-9 <= fy <= 1 + 1e-9) or self.columns <= 0 or self.rows <= 0:
            return None
        col = min(self.columns - 1, max(0, int(fx * self.columns)))
        pixel = (1 - fy) * 2 * self.rows
        row = min(self.rows - 1, max(0, int(pixel / 2)))
        return self.left + col, self.top + row

    def cell_of(self, x: float, y: float) -> tuple[int, int] | None:
        return self.cell_of_index(*self.grid_position(x, y))

    def cell_of_node(self, j: int, i: int) -> tuple[int, int] | None:
        return self.cell_of_index(float(j), float(i))


def _fraction(axis: np.ndarray, value: float) -> float:
    """`value`'s fractional index on a monotonic axis (linear beyond the ends)."""
    axis = np.asarray(axis, dtype=np.float64)
    n = len(axis)
    if n < 2 or not math.isfinite(value):
        return 0.0 if math.isfinite(value) else math.nan
    if axis[-1] < axis[0]:
        return (n - 1) - _fraction(axis[::-1], value)
    with np.errstate(over="ignore", invalid="ignore"):  # axes at float64's ends: inf or NaN, drawn as such
        if value <= axis[0]:
            span = axis[1] - axis[0]
            return (value - axis[0]) / span if span else 0.0
        if value >= axis[-1]:
            span = axis[-1] - axis[-2]
            return (n - 1) + ((value - axis[-1]) / span if span else 0.0)
    return float(np.interp(value, axis, np.arange(n, dtype=np.float64)))


def sample(z: np.ndarray, rows: int, columns: int) -> np.ndarray:
    """The grid bilinearly sampled at `rows` x `columns` pixel centres, row 0 the largest y."""
    m, n = z.shape
    if rows <= 0 or columns <= 0 or m == 0 or n == 0:
        return np.zeros((max(rows, 0), max(columns, 0)))
    gx = (np.arange(columns) + 0.5) / columns * (n - 1) if n > 1 else np.zeros(columns)
    gy = (1 - (np.arange(rows) + 0.5) / rows) * (m - 1) if m > 1 else np.zeros(rows)
    j0 = np.minimum(np.floor(gx).astype(np.int64), max(n - 2, 0))
    i0 = np.minimum(np.floor(gy).astype(np.int64), max(m - 2, 0))
    wx = (gx - j0)[None, :]
    wy = (gy - i0)[:, None]
    j1 = np.minimum(j0 + 1, n - 1)
    i1 = np.minimum(i0 + 1, m - 1)
    with np.errstate(invalid="ignore", over="ignore"):  # infinite losses: inf or NaN, drawn as such
        top = z[i0[:, None], j0[None, :]] * (1 - wx) + z[i0[:, None], j1[None, :]] * wx
        bottom = z[i1[:, None], j0[None, :]] * (1 - wx) + z[i1[:, None], j1[None, :]] * wx
        return top * (1 - wy) + bottom * wy


def normalised(values: np.ndarray, value_range: tuple[float, float]) -> np.ndarray:
    lo, hi = value_range
    span = hi - lo if hi > lo else 1.0
    with np.errstate(invalid="ignore"):
        return np.clip((values - lo) / span, 0.0, 1.0)


def lut_colours(values: np.ndarray, value_range: tuple[float, float], lut: np.ndarray = LUT,
                nan: int = packed(DEFAULT_COLOURS.muted)) -> np.ndarray:
    """Each value's packed colour on `lut` (low first) over `value_range`; `nan` where it is not finite."""
    t = normalised(values, value_range)
    finite = np.isfinite(t)
    index = np.where(finite, np.rint(np.where(finite, t, 0) * (len(lut) - 1)), 0).astype(np.int64)
    return np.where(finite, lut[index], nan)


def options_lut(options: "HeatOptions | ReliefOptions") -> tuple[np.ndarray, int]:
    """The colour map and the NaN colour the options ask for."""
    return gradient(options.low, options.high), packed(options.nan)


def bands(values: np.ndarray, value_range: tuple[float, float], levels: int) -> np.ndarray:
    """The band of each value among `levels` evenly spaced levels inside the range (-1: NaN)."""
    t = normalised(values, value_range)
    finite = np.isfinite(t)
    band = np.floor(np.where(finite, t, 0) * (levels + 1)).astype(np.int64)
    return np.where(finite, np.minimum(band, levels), -1)


def contour_levels(value_range: tuple[float, float], levels: int) -> list[float]:
    lo, hi = value_range
    return [lo + (hi - lo) * (k + 1) / (levels + 1) for k in range(levels)]


# -- the canvas -------------------------------------------------------------------------------

class Canvas:
    """Cells of a drawing: code point, foreground and background (packed RGB, -1 none), attributes."""

    def __init__(self, width: int, height: int):
        self.width, self.height = width, height
        self.chars = np.full((height, width), ord(" "), dtype=np.uint32)
        self.fg = np.full((height, width), -1, dtype=np.int64)
        self.bg = np.full((height, width), -1, dtype=np.int64)
        self.attr = np.zeros((height, width), dtype=np.int64)

    def text(self, row: int, col: int, text: str, fg: int = -1, bg: int | None = None, attr: int = 0) -> None:
        if not 0 <= row < self.height:
            return
        for k, ch in enumerate(text):
            c = col + k
            if 0 <= c < self.width:
                self.chars[row, c] = ord(ch)
                self.fg[row, c] = fg
                if bg is not None:
                    self.bg[row, c] = bg
                self.attr[row, c] = attr

    def strips(self, base: Style | None = None, no_color: bool = False) -> list[Strip]:
        if not self.width:  # a pane squeezed to no columns: its rows are empty
            return [Strip([], 0) for _ in range(self.height)]
        if no_color:
            fg = np.full_like(self.fg, -1)
            bg = np.full_like(self.bg, -1)
        else:
            fg, bg = self.fg, self.bg
        keys = ((fg + 1) << 28) | ((bg + 1) << 3) | self.attr
        styles: dict[int, Style] = {}
        out = []
        for r in range(self.height):
            row_keys = keys[r]
            line = self.chars[r].tobytes().decode("utf-32-le")
            cuts = (np.flatnonzero(row_keys[1:] != row_keys[:-1]) + 1).tolist()
            starts = [0] + cuts
            ends = cuts + [self.width]
            segments = []
            for a, b in zip(starts, ends):
                key = int(row_keys[a])
                style = styles.get(key)
                if style is None:
                    style = styles[key] = _style(key, base)
                segments.append(Segment(line[a:b], style))
            out.append(Strip(segments, self.width))
        return out


_STYLE_CACHE: dict[tuple[int, Any], Style] = {}
_COLOURS: dict[int, Color] = {}
_TRUECOLOR = ColorType.TRUECOLOR
_new = tuple.__new__  # Color and ColorTriplet are named tuples: built directly, thousands per frame


def _colour(packed: int) -> Color:
    colour = _COLOURS.get(packed)
    if colour is None:
        if len(_COLOURS) > 65536:
            _COLOURS.clear()
        triplet = _new(ColorTriplet, (packed >> 16, (packed >> 8) & 0xFF, packed & 0xFF))
        colour = _COLOURS[packed] = _new(Color, ("#%06x" % packed, _TRUECOLOR, None, triplet))
    return colour


def _style(key: int, base: Style | None) -> Style:
    cached = _STYLE_CACHE.get((key, base))
    if cached is not None:
        return cached
    fg = (key >> 28) - 1
    bg = ((key >> 3) & ((1 << 25) - 1)) - 1
    attr = key & 7
    style = Style.from_color(None if fg < 0 else _colour(fg), None if bg < 0 else _colour(bg))
    if attr:
        style += Style(bold=bool(attr & BOLD) or None, reverse=bool(attr & REVERSE) or None,
                       dim=bool(attr & DIM) or None)
    if base is not None:
        style = base + style
    if len(_STYLE_CACHE) > 65536:
        _STYLE_CACHE.clear()
    _STYLE_CACHE[(key, base)] = style
    return style


# -- the heat map -----------------------------------------------------------------------------

@dataclass
class HeatPicture:
    strips: list[Strip]
    geometry: MapGeometry
    value_range: tuple[float, float] | None


def colour_range(ls: Landscape, asked: tuple[float, float] | None) -> tuple[float, float]:
    """The losses the colours span: those asked for (one scale for compared jobs), else the
    grid's finite ones; cut to +-1e300 where the span would overflow (losses near float64's ends)."""
    lo, hi = asked or ls.finite_range() or (0.0, 1.0)
    if not math.isfinite(hi - lo):
        lo, hi = max(lo, -1e300), min(hi, 1e300)
    return lo, hi


def _label_width(values: Sequence[str]) -> int:
    return max((len(v) for v in values), default=1)


def _ticks(lo: float, hi: float, count: int) -> list[tuple[float, str]]:
    ticks = nice_ticks(min(lo, hi), max(lo, hi), max(1, count))
    if len(ticks) < 2:
        return [(lo, tick_label(lo, abs(hi - lo) or 1.0)), (hi, tick_label(hi, abs(hi - lo) or 1.0))] if hi != lo \
            else [(lo, f"{lo:.4g}")]
    spacing = ticks[1] - ticks[0]
    return [(t, tick_label(t, spacing)) for t in ticks]


def draw_heatmap(ls: Landscape | None, width: int, height: int, options: HeatOptions = HeatOptions(),
                 message: str = "", base: Style | None = None) -> HeatPicture:
    """The landscape drawn in `width` x `height` cells (see the module doc)."""
    width, height = max(0, width), max(0, height)
    canvas = Canvas(width, height)
    empty = HeatPicture([], MapGeometry(0, 0, 0, 0), None)
    if ls is None or ls.z.size == 0 or width < 8 or height < 3:
        text = message or ("" if ls is None else "nothing to draw")
        if text and height and width:
            canvas.text(height // 2, max(0, (width - len(text)) // 2), text[:width], attr=DIM)
        empty.strips = canvas.strips(base, options.no_color)
        return empty
    value_range = colour_range(ls, options.value_range)
    x_axis, y_axis = np.asarray(ls.x, dtype=np.float64), np.asarray(ls.y, dtype=np.float64)
    # y labels on the left, the colour bar on the right, x labels below
    y_ticks = _ticks(float(np.nanmin(y_axis)), float(np.nanmax(y_axis)), max(1, (height - 1) // 3)) if options.axes else []
    left = (_label_width([t for _, t in y_ticks]) + 1) if y_ticks else 0
    bar_ticks = _ticks(value_range[0], value_range[1], max(1, (height - 1) // 3))
    bar = (4 + _label_width([t for _, t in bar_ticks])) if options.colour_bar and width >= 40 else 0
    rows = height - (1 if options.axes else 0)
    columns = width - left - bar - (1 if bar else 0)
    if columns < 4 or rows < 2:
        left, bar, rows, columns = 0, 0, height, width
    geometry = MapGeometry(left, 0, columns, rows, x_axis, y_axis)
    pixels = sample(np.asarray(ls.z, dtype=np.float64), rows * 2, columns)
    _heat(canvas, geometry, pixels, value_range, options)
    if options.drawing in ("contour", "both"):
        fine = sample(np.asarray(ls.z, dtype=np.float64), rows * 4, columns * 2)
        _contours(canvas, geometry, pixels, fine, value_range, options)
    _path(canvas, geometry, ls, options)
    _cursor(canvas, geometry, options)
    if options.axes and geometry.left:
        _y_axis(canvas, geometry, y_ticks)
        _x_axis(canvas, geometry, x_axis)
    if bar:
        _colour_bar(canvas, geometry, value_range, bar_ticks, options, bar)
    return HeatPicture(canvas.strips(base, options.no_color), geometry, value_range)


def _cell_means(pixels: np.ndarray) -> np.ndarray:
    with np.errstate(invalid="ignore", over="ignore"):
        return (pixels[0::2] + pixels[1::2]) / 2


def _heat(canvas: Canvas, g: MapGeometry, pixels: np.ndarray, value_range, options: HeatOptions) -> None:
    area = (slice(g.top, g.top + g.rows), slice(g.left, g.left + g.columns))
    if options.no_color:
        if options.drawing == "contour":
            return
        t = normalised(_cell_means(pixels), value_range)
        finite = np.isfinite(t)
        index = np.where(finite, np.rint(np.where(finite, t, 0) * (len(RAMP) - 1)), 0).astype(np.int64)
        codes = np.array([ord(c) for c in RAMP], dtype=np.uint32)[index]
        canvas.chars[area] = np.where(finite, codes, ord("?"))
        return
    if options.drawing == "contour":
        canvas.bg[area] = options.background
        return
    colours = lut_colours(pixels, value_range, *options_lut(options))
    canvas.chars[area] = ord(UPPER_HALF)
    canvas.fg[area] = colours[0::2]
    canvas.bg[area] = colours[1::2]


def _contours(canvas: Canvas, g: MapGeometry, pixels: np.ndarray, fine: np.ndarray, value_range,
              options: HeatOptions) -> None:
    band = bands(fine, value_range, options.levels)
    on = np.zeros(band.shape, dtype=bool)
    on[:, :-1] |= band[:, :-1] != band[:, 1:]
    on[:-1, :] |= band[:-1, :] != band[1:, :]
    bits = cell_bits(on)
    lines = bits > 0
    area = (slice(g.top, g.top + g.rows), slice(g.left, g.left + g.columns))
    chars = canvas.chars[area]
    chars[lines] = 0x2800 + bits[lines]
    canvas.chars[area] = chars
    if options.no_color:
        return
    means = _cell_means(pixels)
    cell_colours = lut_colours(means, value_range, *options_lut(options))
    fg, bg = canvas.fg[area], canvas.bg[area]
    if options.drawing == "both":
        fg[lines] = _contrast(cell_colours)[lines]
        bg[lines] = cell_colours[lines]
    else:
        fg[lines] = cell_colours[lines]
    canvas.fg[area], canvas.bg[area] = fg, bg


def _under(canvas: Canvas, row: int, col: int, options: HeatOptions) -> tuple[int, int]:
    """(foreground, background) for a mark drawn in a map cell: on the cell's colour."""
    if options.drawing == "contour" or options.no_color:
        return 0xFFFFFF if options.background < 0x808080 else 0x000000, options.background
    bg = int(canvas.bg[row, col])  # a half-block cell keeps its bottom pixel's colour
    if bg < 0:
        bg = options.background
    return int(_contrast(np.array([bg]))[0]), bg


def path_cells(g: MapGeometry, ls: Landscape) -> list[tuple[int, int] | None]:
    """The drawing cell of each checkpoint of the loss path (None: outside the map)."""
    if ls.path is None:
        return []
    return [g.cell_of(float(x), float(y)) for x, y in zip(ls.path.x, ls.path.y)]


def _line(a: tuple[int, int], b: tuple[int, int]) -> list[tuple[int, int]]:
    """The cells strictly between `a` and `b` on the straight line joining them."""
    (c0, r0), (c1, r1) = a, b
    cols, rows, _ = segment_dots([c0], [r0], [c1], [r1])
    return list(zip(cols[1:-1].tolist(), rows[1:-1].tolist()))


def _path(canvas: Canvas, g: MapGeometry, ls: Landscape, options: HeatOptions) -> None:
    cells = path_cells(g, ls)
    marks = set()
    for a, b in zip(cells, cells[1:]):
        if a is None or b is None:
            continue
        for col, row in _line(a, b):
            fg, bg = _under(canvas, row, col, options)
            canvas.text(row, col, PATH_DOT, fg, bg)
    conv = g.cell_of(*ls.convergence[:2])
    if conv is not None:
        col, row = conv
        fg, bg = _under(canvas, row, col, options)
        canvas.text(row, col, CONVERGENCE, packed(options.mark) if not options.no_color else -1, bg, BOLD)
        marks.add(conv)
    for k, cell in enumerate(cells):
        if cell is None:
            continue
        label = str(k + 1)
        col, row = cell
        if cell in marks:  # beside the convergence mark (or another number) rather than over it
            col += 1
        attr = BOLD | (REVERSE if options.path_point == k else 0)
        canvas.text(row, col, label, 0x000000, 0xFFFFFF, attr)
        marks.add((col, row))


def _cursor(canvas: Canvas, g: MapGeometry, options: HeatOptions) -> None:
    if options.cursor is None:
        return
    cell = g.cell_of_node(*options.cursor)
    if cell is None:
        return
    col, row = cell
    if canvas.chars[row, col] in (ord(UPPER_HALF), ord(" ")) or 0x2800 <= canvas.chars[row, col] <= 0x28FF \
            or chr(canvas.chars[row, col]) in RAMP:
        fg, bg = _under(canvas, row, col, options)
        canvas.text(row, col, CURSOR, fg, bg, BOLD)
    else:
        canvas.attr[row, col] |= REVERSE


def _y_axis(canvas: Canvas, g: MapGeometry, ticks: list[tuple[float, str]]) -> None:
    used: set[int] = set()
    for value, label in ticks:
        cell = g.cell_of(float(g.x_axis[0]) if len(g.x_axis) else 0.0, value)
        if cell is None:
            continue
        row = cell[1]
        if row in used:
            continue
        used.add(row)
        canvas.text(row, max(0, g.left - 1 - len(label)), label, attr=DIM)


def _x_axis(canvas: Canvas, g: MapGeometry, x_axis: np.ndarray) -> None:
    row = g.top + g.rows
    lo, hi = float(np.nanmin(x_axis)), float(np.nanmax(x_axis))
    taken = -1
    for value, label in _ticks(lo, hi, max(1, g.columns // 10)):
        cell = g.cell_of(value, float(g.y_axis[0]) if len(g.y_axis) else 0.0)
        if cell is None:
            continue
        start = max(g.left, min(g.left + g.columns - len(label), cell[0] - len(label) // 2))
        if start <= taken:
            continue
        canvas.text(row, start, label, attr=DIM)
        taken = start + len(label)


def _colour_bar(canvas: Canvas, g: MapGeometry, value_range, ticks, options: HeatOptions, bar: int) -> None:
    col = g.left + g.columns + 1
    lo, hi = value_range
    pixels = np.linspace(hi, lo, g.rows * 2)[:, None]  # top: the highest loss
    if options.no_color:
        t = normalised(_cell_means(pixels), value_range)[:, 0]
        for r in range(g.rows):
            ch = RAMP[int(round(t[r] * (len(RAMP) - 1)))]
            canvas.text(g.top + r, col, ch * 2 if ch != " " else "  ")
    else:
        colours = lut_colours(pixels, value_range, *options_lut(options))
        for r in range(g.rows):
            canvas.text(g.top + r, col, UPPER_HALF * 2, int(colours[2 * r, 0]), int(colours[2 * r + 1, 0]))
    span = hi - lo if hi > lo else 1.0
    used: set[int] = set()
    for value, label in ticks:
        frac = (hi - value) / span
        row = g.top + min(g.rows - 1, max(0, int(frac * g.rows)))
        if row in used:
            continue
        used.add(row)
        canvas.text(row, col + 3, label[: bar - 4], attr=DIM)


# -- the relief -------------------------------------------------------------------------------

@dataclass(frozen=True)
class ReliefOptions:
    angle: int = 30
    elevation: int = 35
    value_range: tuple[float, float] | None = None
    no_color: bool = False
    lines: int = 24  # grid lines drawn in each direction at most
    cursor: tuple[int, int] | None = None
    low: str = DEFAULT_COLOURS.primary  # the colour map's ends, as the heat map's
    high: str = DEFAULT_COLOURS.warning
    nan: str = DEFAULT_COLOURS.muted


def project(ls: Landscape, options: ReliefOptions, width: int, height: int):
    """Screen positions (in braille dots) and depth of the grid nodes seen from the options' angle.

    Returns (sx, sy, depth), each shaped like the grid; x, y are normalised to [-1, 1] and the
    loss to [0, 1] of the value range.
    """
    m, n = ls.z.shape
    gx = np.linspace(-1, 1, n) if n > 1 else np.zeros(1)
    gy = np.linspace(-1, 1, m) if m > 1 else np.zeros(1)
    X, Y = np.meshgrid(gx, gy)
    value_range = colour_range(ls, options.value_range)
    Z = np.nan_to_num(normalised(np.asarray(ls.z, dtype=np.float64), value_range), nan=0.0)
    a, e = math.radians(options.angle), math.radians(options.elevation)
    xr = X * math.cos(a) - Y * math.sin(a)
    yr = X * math.sin(a) + Y * math.cos(a)
    up = Z * 1.2 * math.cos(e) + yr * math.sin(e)
    depth = yr * math.cos(e) - Z * math.sin(e)
    dots_w, dots_h = width * 2, height * 4
    # fit: xr in [-1.42, 1.42], up in [-1.42 sin e, 1.2 cos e + 1.42 sin e]
    up_lo = -1.42 * math.sin(e)
    up_hi = 1.2 * math.cos(e) + 1.42 * math.sin(e)
    scale = min((dots_w - 1) / 2.84, (dots_h - 1) / max(up_hi - up_lo, 1e-9))
    sx = (dots_w - 1) / 2 + xr * scale
    sy = (dots_h - 1) - (up - up_lo) * scale - ((dots_h - 1) - (up_hi - up_lo) * scale) / 2
    return sx, sy, depth


def draw_relief(ls: Landscape | None, width: int, height: int, options: ReliefOptions = ReliefOptions(),
                message: str = "", base: Style | None = None) -> list[Strip]:
    """The surface as a wireframe of at most `lines` grid lines each way, far lines first so
    nearer ones take the cells they share; coloured by loss."""
    canvas = Canvas(max(0, width), max(0, height))
    if ls is None or ls.z.size == 0 or width < 8 or height < 4:
        text = message or ("" if ls is None else "nothing to draw")
        if text and height and width:
            canvas.text(height // 2, max(0, (width - len(text)) // 2), text[:width], attr=DIM)
        return canvas.strips(base, options.no_color)
    rows = height - 1
    sx, sy, depth = project(ls, options, width, rows)
    m, n = ls.z.shape
    value_range = colour_range(ls, options.value_range)
    colours = lut_colours(np.asarray(ls.z, dtype=np.float64), value_range, *options_lut(options))
    pick_i = np.unique(np.linspace(0, m - 1, min(m, options.lines)).round().astype(int))
    pick_j = np.unique(np.linspace(0, n - 1, min(n, options.lines)).round().astype(int))
    dots = np.zeros((rows * 4, width * 2), dtype=bool)
    cell_colour = np.full((rows, width), -1, dtype=np.int64)
    segments = []  # (depth, x0, y0, x1, y1, colour)
    for i in pick_i:
        for j0, j1 in zip(pick_j[:-1], pick_j[1:]):
            segments.append((i, j0, i, j1))
    for j in pick_j:
        for i0, i1 in zip(pick_i[:-1], pick_i[1:]):
            segments.append((i0, j, i1, j))
    if not segments:  # one node
        segments.append((0, 0, 0, 0))
    seg = np.array(segments, dtype=np.int64)
    x0, y0 = sx[seg[:, 0], seg[:, 1]], sy[seg[:, 0], seg[:, 1]]
    x1, y1 = sx[seg[:, 2], seg[:, 3]], sy[seg[:, 2], seg[:, 3]]
    d = (depth[seg[:, 0], seg[:, 1]] + depth[seg[:, 2], seg[:, 3]]) / 2
    colour = colours[seg[:, 0], seg[:, 1]]
    order = np.argsort(-d, kind="stable")  # far first: nearer segments are written later and win
    x0, y0, x1, y1, d, colour = x0[order], y0[order], x1[order], y1[order], d[order], colour[order]
    lengths = (np.maximum(np.abs(x1 - x0), np.abs(y1 - y0)).astype(np.int64) + 1)
    owner = np.repeat(np.arange(len(lengths)), lengths + 1)
    starts = np.cumsum(lengths + 1) - (lengths + 1)
    t = (np.arange(owner.size) - starts[owner]) / lengths[owner]
    px = np.clip(np.rint(x0[owner] + (x1[owner] - x0[owner]) * t).astype(np.int64), 0, width * 2 - 1)
    py = np.clip(np.rint(y0[owner] + (y1[owner] - y0[owner]) * t).astype(np.int64), 0, rows * 4 - 1)
    dots[py, px] = True
    cell_colour[py // 4, px // 2] = colour[owner]  # numpy keeps the last write: the nearest segment
    bits = cell_bits(dots)
    lit = bits > 0
    canvas.chars[:rows][lit] = 0x2800 + bits[lit]
    if not options.no_color:
        canvas.fg[:rows][lit] = cell_colour[lit]
    # the loss path and the convergence point, where they are on the surface
    if ls.path is not None:
        for k, (x, y, z) in enumerate(zip(ls.path.x, ls.path.y, ls.path.z)):
            cell = _relief_cell(ls, options, sx, sy, x, y)
            if cell is not None:
                canvas.text(cell[1], cell[0], str(k + 1), 0x000000, 0xFFFFFF, BOLD)
    if options.cursor is not None:
        j, i = options.cursor
        if 0 <= i < m and 0 <= j < n:
            col, row = int(sx[i, j] // 2), int(sy[i, j] // 4)
            if 0 <= row < rows and 0 <= col < width:
                canvas.text(row, col, CURSOR, 0xFFFFFF, -1, BOLD | REVERSE)
    label = f"azimuth {options.angle}°  elevation {options.elevation}°  [ ] rotate  {{ }} tilt"
    canvas.text(height - 1, 0, label[:width], attr=DIM)
    return canvas.strips(base, options.no_color)


def _relief_cell(ls: Landscape, options: ReliefOptions, sx, sy, x: float, y: float) -> tuple[int, int] | None:
    gx, gy = _fraction(ls.x, float(x)), _fraction(ls.y, float(y))
    m, n = ls.z.shape
    if not (0 <= gx <= n - 1 and 0 <= gy <= m - 1):
        return None
    j, i = int(round(gx)), int(round(gy))
    return int(sx[i, j] // 2), int(sy[i, j] // 4)


# -- the widget -------------------------------------------------------------------------------

class LandscapeMap(ThemedChart):
    """One landscape (or a message): drawn as a heat map or in relief, per `set_options`.

    The drawn strips are kept until the landscape, the options, the size or the colour
    mode change.
    """

    DEFAULT_CSS = """
    LandscapeMap { height: 1fr; width: 1fr; }
    """

    def __init__(self, landscape: Landscape | None = None, message: str = "", **kwargs: Any):
        super().__init__(**kwargs)
        self.landscape = landscape
        self.message = message
        self.options: HeatOptions | ReliefOptions = HeatOptions()
        self.geometry = MapGeometry(0, 0, 0, 0)
        self.draws = 0
        self._drawn: tuple[tuple, list[Strip]] | None = None

    def set_landscape(self, landscape: Landscape | None, message: str = "") -> None:
        if landscape is self.landscape and message == self.message:
            return
        self.landscape, self.message = landscape, message
        self.refresh()

    def set_options(self, options: HeatOptions | ReliefOptions) -> None:
        if options != self.options:
            self.options = options
            self.refresh()

    def strips(self) -> list[Strip]:
        size = self.content_size
        no_color = bool(getattr(self.app, "no_color", False))
        colours = self.theme_colours()
        options = replace(self.options, low=colours.primary, high=colours.warning, nan=colours.muted)
        if isinstance(options, HeatOptions):
            options = replace(options, mark=colours.error, background=packed(self.background_colour()))
        key = (id(self.landscape), self.message, options, size.width, size.height, no_color)
        if self._drawn is not None and self._drawn[0] == key:
            return self._drawn[1]
        if isinstance(options, ReliefOptions):
            strips = draw_relief(self.landscape, size.width, size.height, replace(options, no_color=no_color),
                                 self.message, base=self.rich_style)
            self.geometry = MapGeometry(0, 0, 0, 0)
        else:
            picture = draw_heatmap(self.landscape, size.width, size.height,
                                   replace(options, no_color=no_color),
                                   self.message, base=self.rich_style)
            strips, self.geometry = picture.strips, picture.geometry
        self.draws += 1
        self._drawn = (key, strips)
        return strips

    def render_line(self, y: int) -> Strip:
        strips = self.strips()
        if 0 <= y < len(strips):
            return strips[y]
        return Strip.blank(self.content_size.width, self.rich_style)


def legend(value_range: tuple[float, float] | None, levels: int, drawing: str) -> Text:
    """One line under the map: the scale's ends and, with contours, the spacing of the levels."""
    if value_range is None:
        return Text("")
    lo, hi = value_range
    parts = [f"loss {lo:.6g} … {hi:.6g}"]
    if drawing != "heat" and levels:
        parts.append(f"{levels} contour levels every {(hi - lo) / (levels + 1):.3g}")
    return Text(" · ".join(parts), style="dim")
