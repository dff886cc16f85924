"""The shape of a grid of charts (scalars, custom scalars, histograms): how many columns, how
tall a row, for the cells the grid has."""
from __future__ import annotations

import math


def grid_shape(width: int, height: int, count: int, fullscreen: bool = False, *, min_width: int,
               min_height: int) -> tuple[int, int]:
    """(columns, row height) of a grid of `count` charts on `width` x `height` cells: as many
    columns of at least `min_width` as fit, two rows a screen (more: a part of the third shows
    that more follow), rows at least `min_height`; full screen, one chart filling it."""
    if fullscreen:
        return 1, height
    columns = max(1, min(count, width // min_width))
    rows = math.ceil(count / columns)
    row_height = max(min_height, height // max(1, min(rows, 2)))
    if rows > 2:  # leave room to see that more charts follow
        row_height = max(min_height, min(row_height, height * 2 // 5))
    return columns, row_height


def on_screen(count: int, columns: int, row_height: int, top: float, height: int) -> list[int]:
    """Which of `count` cells (laid out `columns` a row, rows `row_height` tall) a grid scrolled
    to `top` and `height` cells tall shows, in part or whole."""
    bottom = top + height
    return [i for i in range(count) if (i // columns) * row_height < bottom and (i // columns + 1) * row_height > top]


def paged(index: int, count: int, direction: int, step: int) -> int:
    """The cell `step` cells from `index` in `direction` (1 or -1), kept inside the `count` cells."""
    return max(0, min(count - 1, index + direction * step))
