"""Braille dots: 2 x 4 dots per cell (U+2800 + bits), rasterised with numpy.

Drawings work on a boolean dot grid (`rows * 4` x `columns * 2`), with lines rasterised for many
segments at once (`segment_dots`), and turn it into one code point per cell (`cells`).
"""
from __future__ import annotations

import numpy as np
from numpy.typing import ArrayLike

BLANK = 0x2800
_BITS = ((0x01, 0x08), (0x02, 0x10), (0x04, 0x20), (0x40, 0x80))  # [dot row][dot column] of a cell


def cell_bits(dots: np.ndarray) -> np.ndarray:
    """The braille bits (0..255) of each cell of a (rows * 4, columns * 2) dot grid."""
    rows, columns = dots.shape[0] // 4, dots.shape[1] // 2
    bits = np.zeros((rows, columns), dtype=np.uint32)
    for dot_row in range(4):
        for dot_column in range(2):
            bits |= dots[dot_row:rows * 4:4, dot_column:columns * 2:2].astype(np.uint32) * _BITS[dot_row][dot_column]
    return bits


def segment_dots(x0: ArrayLike, y0: ArrayLike, x1: ArrayLike, y1: ArrayLike) -> tuple[np.ndarray, ...]:
    """The dots of many straight segments at once: (x, y, segment index) of every dot, each
    segment drawn with one dot per step along its longer side (no gaps), in segment order."""
    x0, y0, x1, y1 = (np.asarray(a, dtype=np.float64) for a in (x0, y0, x1, y1))
    steps = np.maximum(np.abs(x1 - x0), np.abs(y1 - y0)).astype(np.int64) + 1  # dots per segment
    owner = np.repeat(np.arange(len(steps)), steps)
    starts = np.cumsum(steps) - steps
    t = (np.arange(owner.size) - starts[owner]) / np.maximum(steps - 1, 1)[owner]
    x = np.rint(x0[owner] + (x1 - x0)[owner] * t).astype(np.int64)
    y = np.rint(y0[owner] + (y1 - y0)[owner] * t).astype(np.int64)
    return x, y, owner
