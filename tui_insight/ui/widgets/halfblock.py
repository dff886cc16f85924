"""Images drawn with the upper half block '▀': one cell is one pixel wide and two pixels tall.

The cell's foreground colour is the top pixel and its background the bottom pixel, in true
colour, or in the nearest colour of the xterm 256-colour palette when the terminal has no true
colour. The pipeline, each step a plain function so it can be tested and timed:

    decode_image(bytes)  -> DecodedImage (RGB uint8; any mode Pillow reads, grey included)
    fit_cells(...)       -> the cell size that fits the pane and keeps the aspect ratio
    scale(...)           -> pixels at that size (box filter down, whole multiples up)
    adjust(...)          -> brightness and contrast (numpy)
    halfblock_strips(...) -> one Textual `Strip` per cell row

`decode_image` is slow for large images: call it in a thread worker, never in the UI thread.
A MindSpore batch (NCHW) arrives already tiled into a grid inside one PNG: it is just the image.
"""
from __future__ import annotations

import io
from dataclasses import dataclass
from typing import Any

import numpy as np
from rich.color import Color, ColorType
from rich.color_triplet import ColorTriplet
from rich.segment import Segment
from rich.style import Style
from rich.text import Text
from textual.strip import Strip
from textual.widget import Widget

from ...summary import gc_policy
from .image_fit import fit_cells, fit_pixels

UPPER_HALF = "▀"
MAX_DECODED_SIDE = 1024  # larger images are reduced once when decoded: no terminal shows more
# Images with more pixels are refused from their declared size, before any is decoded: a small
# file can declare a huge image (a decompression bomb). MindSpore's tiled batches stay far below.
MAX_IMAGE_PIXELS = 32_000_000
_PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"
_CUBE = np.array([0, 95, 135, 175, 215, 255], dtype=np.int32)  # xterm 256: levels of the 6x6x6 cube


class ImageDecodeError(Exception):
    """The bytes are not an image Pillow can read; the message says why, for the UI."""


@dataclass(frozen=True, eq=False)
class DecodedImage:
    pixels: np.ndarray  # (h, w, 3) uint8, possibly reduced from the original size
    width: int  # size of the encoded image
    height: int
    grey: bool  # one channel in the file (MindSpore writes grey images as equal R, G, B)

    @property
    def nbytes(self) -> int:
        return self.pixels.nbytes


def decode_image(data: bytes, max_side: int = MAX_DECODED_SIDE) -> DecodedImage:
    """Decode a PNG (or any format Pillow reads) to RGB; raises `ImageDecodeError`."""
    from PIL import Image

    if not data:
        raise ImageDecodeError("the image is empty (0 bytes)")
    _check_size(png_size(data))  # before Pillow, which warns on stderr about very large images
    try:
        with Image.open(io.BytesIO(data)) as im:
            _check_size(im.size)  # other formats: the size in their header, still before decoding
            im.load()
            mode = im.mode
            grey = mode in ("1", "L", "LA", "I", "I;16", "I;16B", "I;16L", "F")
            if mode in ("I", "I;16", "I;16B", "I;16L", "F"):
                rgb = _wide_grey_to_rgb(np.asarray(im))
            else:
                if mode == "RGBA" or mode == "LA" or (mode == "P" and "transparency" in im.info):
                    im = _flatten_alpha(im)
                rgb = np.asarray(im.convert("RGB"))
            width, height = im.size
    except ImageDecodeError:
        raise
    except Exception as exc:  # Pillow raises many kinds: all mean "not a readable image"
        raise ImageDecodeError(_decode_problem(data, exc)) from None
    if max(width, height) > max_side:
        cols, rows = fit_pixels(width, height, max_side, max_side)
        rgb = scale(rgb, cols, rows)
    return DecodedImage(np.ascontiguousarray(rgb, dtype=np.uint8), width, height, grey)


def png_size(data: bytes) -> tuple[int, int] | None:
    """(width, height) from a PNG's header, None if `data` does not start like a PNG."""
    if len(data) < 24 or data[:8] != _PNG_SIGNATURE or data[12:16] != b"IHDR":
        return None
    return int.from_bytes(data[16:20], "big"), int.from_bytes(data[20:24], "big")


def _check_size(size: tuple[int, int] | None) -> None:
    if size is None:
        return
    width, height = size
    if width * height > MAX_IMAGE_PIXELS:
        raise ImageDecodeError(f"{width}×{height} is {width * height:,} pixels: images over "
                               f"{MAX_IMAGE_PIXELS:,} pixels are not decoded")


def _flatten_alpha(im: Any) -> Any:
    """Transparent pixels over black, as an image viewer on a dark page would show them."""
    from PIL import Image

    rgba = im.convert("RGBA")
    black = Image.new("RGBA", rgba.size, (0, 0, 0, 255))
    return Image.alpha_composite(black, rgba)


def _wide_grey_to_rgb(values: np.ndarray) -> np.ndarray:
    """16-bit, 32-bit or float grey scaled to 0..255 by its range."""
    values = np.asarray(values, dtype=np.float64)
    finite = values[np.isfinite(values)]
    lo, hi = (float(finite.min()), float(finite.max())) if finite.size else (0.0, 0.0)
    grey = np.zeros(values.shape, dtype=np.uint8) if hi <= lo else \
        np.clip((np.nan_to_num(values, nan=lo) - lo) * (255.0 / (hi - lo)), 0, 255).astype(np.uint8)
    return np.repeat(grey[..., None], 3, axis=2)


def _decode_problem(data: bytes, exc: Exception) -> str:
    head = data[:8].hex(" ")
    if data[:8] != _PNG_SIGNATURE and "identify" in str(exc):
        return f"not an image ({len(data):,} bytes starting {head})"
    return f"{exc} ({len(data):,} bytes)"


def scale(pixels: np.ndarray, cols: int, rows: int) -> np.ndarray:
    """`pixels` resized to `cols` x `rows`: averaged when shrinking, repeated when enlarging."""
    h, w = pixels.shape[:2]
    if (w, h) == (cols, rows):
        return pixels
    if cols % w == 0 and rows % h == 0 and cols >= w and rows >= h:
        return np.repeat(np.repeat(pixels, rows // h, axis=0), cols // w, axis=1)
    from PIL import Image

    resample = Image.Resampling.BOX if cols <= w and rows <= h else Image.Resampling.NEAREST
    return np.asarray(Image.fromarray(pixels, "RGB").resize((cols, rows), resample))


def adjust(pixels: np.ndarray, brightness: float = 0.0, contrast: float = 1.0) -> np.ndarray:
    """Contrast scales around mid-grey, then brightness adds a fraction of full scale."""
    if brightness == 0.0 and contrast == 1.0:
        return pixels
    lut = np.arange(256, dtype=np.float32)
    lut = (lut - 127.5) * np.float32(contrast) + 127.5 + np.float32(brightness) * 255
    lut = np.clip(np.rint(lut), 0, 255).astype(np.uint8)
    return lut[pixels]  # a lookup table: one pass over the pixels whatever the formula


# -- colours ----------------------------------------------------------------------------------

def _nearest_level_table() -> np.ndarray:
    values = np.arange(256)[:, None]
    return np.abs(values - _CUBE[None, :]).argmin(axis=1).astype(np.int32)


_LEVEL_OF = _nearest_level_table()


def quantize_256(pixels: np.ndarray) -> np.ndarray:
    """The index (16..255) of the nearest xterm colour of each pixel: cube or grey ramp."""
    p = pixels.astype(np.int32)
    levels = _LEVEL_OF[p]  # (h, w, 3) cube level per channel
    cube = _CUBE[levels]
    cube_index = 16 + 36 * levels[..., 0] + 6 * levels[..., 1] + levels[..., 2]
    mean = p.sum(axis=2) // 3
    grey_step = np.clip((mean - 3) // 10, 0, 23)  # ramp 8, 18, ..., 238
    grey = (8 + 10 * grey_step)[..., None]
    cube_err = ((p - cube) ** 2).sum(axis=2)
    grey_err = ((p - grey) ** 2).sum(axis=2)
    return np.where(grey_err < cube_err, 232 + grey_step, cube_index)


_STYLES: dict[int, Style] = {}  # (top, bottom) colour pair -> Style, shared by every image
_MAX_STYLES = 200_000
_NO_PIXEL = -1


_COLOURS: dict[int, Color] = {}  # 24-bit colours already made
_PALETTE = [Color(f"color({i})", ColorType.EIGHT_BIT, number=i) for i in range(256)]
_TRUECOLOR = ColorType.TRUECOLOR
_new = tuple.__new__  # Color and ColorTriplet are named tuples: built directly, thousands per frame


def _colour(value: int, truecolor: bool) -> Color:
    if not truecolor:
        return _PALETTE[value]
    colour = _COLOURS.get(value)
    if colour is None:
        if len(_COLOURS) > _MAX_STYLES:
            _COLOURS.clear()
        triplet = _new(ColorTriplet, (value >> 16, (value >> 8) & 0xFF, value & 0xFF))
        colour = _COLOURS[value] = _new(Color, ("#%06x" % value, _TRUECOLOR, None, triplet))
    return colour


def _style(key: int, top: int, bottom: int, truecolor: bool) -> Style:
    style = _STYLES.get(key)
    if style is None:
        if len(_STYLES) > _MAX_STYLES:
            _STYLES.clear()
        bg = None if bottom == _NO_PIXEL else _colour(bottom, truecolor)
        style = _STYLES[key] = Style.from_color(_colour(top, truecolor), bg)
    return style


def halfblock_strips(pixels: np.ndarray, truecolor: bool = True, background: Style | None = None) -> list[Strip]:
    """One strip per pair of pixel rows; under an odd last row shows `background`."""
    h, w = pixels.shape[:2]
    if h == 0 or w == 0:
        return []
    if truecolor:
        p = pixels.astype(np.int64)
        packed = (p[..., 0] << 16) | (p[..., 1] << 8) | p[..., 2]
        shift = 25  # keys: top << 25 | (bottom + 1), bottom -1 for "no pixel"
    else:
        packed = quantize_256(pixels).astype(np.int64)
        shift = 9
    tops = packed[0::2]
    bottoms = np.full_like(tops, _NO_PIXEL)
    bottoms[: h // 2] = packed[1::2]
    keys = (tops << shift) | (bottoms + 1)
    strips = []
    with gc_policy.paused():  # thousands of small objects: collections would cost more than the drawing
        for key_row, top_row, bottom_row in zip(keys.tolist(), tops.tolist(), bottoms.tolist()):
            segments = []
            run_key, run = key_row[0], 0
            for x, key in enumerate(key_row):
                if key != run_key:
                    segments.append(Segment(UPPER_HALF * run,
                                            _style(run_key, top_row[x - 1], bottom_row[x - 1], truecolor)))
                    run_key, run = key, 0
                run += 1
            segments.append(Segment(UPPER_HALF * run, _style(run_key, top_row[-1], bottom_row[-1], truecolor)))
            strips.append(Strip(segments, w))
    if h % 2 and background is not None:
        strips[-1] = strips[-1].apply_style(background)  # bottom halves of the last row: background
    return strips


def render_image(image: DecodedImage, max_cols: int, max_rows: int, brightness: float = 0.0,
                 contrast: float = 1.0, truecolor: bool = True, background: Style | None = None) -> list[Strip]:
    """The whole pipeline after decoding: fit, scale, adjust, draw (what the widget does)."""
    cols, rows = fit_cells(image.width, image.height, max_cols, max_rows)
    if cols == 0:
        return []
    # The decoded pixels may be a reduced copy: fit the size of the original, scale the copy.
    return halfblock_strips(adjust(scale(image.pixels, cols, rows), brightness, contrast), truecolor, background)


def colour_system_is_truecolor(app: Any) -> bool:
    """Whether the app's console draws 24-bit colour (else the 256-colour palette is used)."""
    console = getattr(app, "console", None)
    return getattr(console, "color_system", None) == "truecolor"


# -- the widget -------------------------------------------------------------------------------

class HalfBlockImage(Widget):
    """An image fitted into the widget's content area and centred; or a message in its place.

    `set_image(image)` shows a decoded image, `set_message(text)` a message instead (a PNG that
    does not decode, no data yet). `set_adjust(brightness, contrast)` changes how it is drawn.
    The drawn strips are kept until the image, the size, the adjustment or the colour system
    change.
    """

    DEFAULT_CSS = """
    HalfBlockImage { height: 1fr; width: 1fr; }
    HalfBlockImage .halfblock--message { color: $text-muted; }
    """
    COMPONENT_CLASSES = {"halfblock--message"}

    def __init__(self, image: DecodedImage | None = None, message: str = "", **kwargs: Any):
        super().__init__(**kwargs)
        self.image = image
        self.message = message
        self.brightness = 0.0
        self.contrast = 1.0
        self._drawn: tuple[tuple, list[Strip]] | None = None

    def set_image(self, image: DecodedImage | None, message: str = "") -> None:
        if image is self.image and message == self.message:
            return
        self.image, self.message = image, message
        self._drawn = None
        self.refresh()

    def set_message(self, message: str) -> None:
        self.set_image(None, message)

    def set_adjust(self, brightness: float, contrast: float) -> None:
        if (brightness, contrast) != (self.brightness, self.contrast):
            self.brightness, self.contrast = brightness, contrast
            self.refresh()

    @property
    def drawn_size(self) -> tuple[int, int]:
        """(columns, rows) the image takes at the current size; (0, 0) without an image."""
        if self.image is None:
            return 0, 0
        size = self.content_region.size if self.is_mounted else self.size
        cols, pixel_rows = fit_cells(self.image.width, self.image.height, size.width, size.height)
        return cols, (pixel_rows + 1) // 2

    def strips(self) -> list[Strip]:
        """The lines the widget draws at its current size (kept until something changes)."""
        width, height = self.content_region.size
        truecolor = colour_system_is_truecolor(self.app)
        key = (id(self.image), self.message, width, height, self.brightness, self.contrast, truecolor)
        if self._drawn is not None and self._drawn[0] == key:
            return self._drawn[1]
        if self.image is not None:
            body = render_image(self.image, width, height, self.brightness, self.contrast, truecolor,
                                self.rich_style)
        else:
            body = self._message_strips(width)
        strips = _centre(body, width, height, self.rich_style)
        self._drawn = (key, strips)
        return strips

    def _message_strips(self, width: int) -> list[Strip]:
        if not self.message or width <= 0:
            return []
        style = self.get_component_rich_style("halfblock--message")
        lines = Text(self.message, style=style).wrap(self.app.console, width)
        for line in lines:
            line.rstrip()
        return [Strip(line.render(self.app.console)).apply_style(self.rich_style)  # centred by the caller
                for line in lines]

    def render_line(self, y: int) -> Strip:
        strips = self.strips()
        if 0 <= y < len(strips):
            return strips[y]
        return Strip.blank(self.content_region.width, self.rich_style)


def _centre(body: list[Strip], width: int, height: int, style: Style) -> list[Strip]:
    """`body` centred in `width` x `height`, cut to fit, padded with blank cells in `style`."""
    body = body[:height]
    top = (height - len(body)) // 2
    blank = Strip.blank(width, style)
    out = [blank] * top
    for strip in body:
        strip = strip.crop(0, width)
        left = (width - strip.cell_length) // 2
        pad_right = width - left - strip.cell_length
        segments = []
        if left:
            segments.append(Segment(" " * left, style))
        segments.extend(strip)
        if pad_right:
            segments.append(Segment(" " * pad_right, style))
        out.append(Strip(segments, width))
    out.extend([blank] * (height - len(out)))
    return out
