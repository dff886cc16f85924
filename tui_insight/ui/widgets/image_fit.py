"""How big an image is drawn in terminal cells (one cell: 1 x 2 pixels), as plain functions
(no Textual): what the half-block widget and the image presenter both need."""
from __future__ import annotations


def fit_pixels(width: int, height: int, max_w: int, max_h: int) -> tuple[int, int]:
    ratio = min(max_w / width, max_h / height)
    return max(1, min(max_w, round(width * ratio))), max(1, min(max_h, round(height * ratio)))


def fit_cells(width: int, height: int, max_cols: int, max_rows: int, upscale: bool = True) -> tuple[int, int]:
    """(columns, pixel rows) of a `width` x `height` image fitted into `max_cols` x `max_rows` cells.

    A cell holds 1 x 2 pixels. Shrinking keeps the aspect ratio; enlarging uses whole
    multiples only, so every source pixel stays the same size (small images stay sharp).
    """
    if width <= 0 or height <= 0 or max_cols <= 0 or max_rows <= 0:
        return 0, 0
    max_h = 2 * max_rows
    ratio = min(max_cols / width, max_h / height)
    if ratio >= 1:
        factor = int(ratio) if upscale else 1
        return width * factor, height * factor
    return fit_pixels(width, height, max_cols, max_h)
