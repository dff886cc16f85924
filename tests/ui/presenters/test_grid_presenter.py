"""The shape of a grid of charts, which of its cells are on screen, and paging through them:
plain unit tests, no app, no Pilot."""
from __future__ import annotations

import pytest

from tui_insight.ui.presenters.grid import grid_shape, on_screen, paged


@pytest.mark.parametrize(("size", "count", "fullscreen", "shape"), [
    ((120, 40), 1, False, (1, 40)),   # one chart fills the grid
    ((130, 40), 4, False, (2, 20)),   # two columns of at least 60, two rows a screen
    ((130, 40), 9, False, (2, 16)),   # more rows: part of the third shows
    ((50, 20), 9, False, (1, 12)),    # never under 12 rows high
    ((130, 40), 9, True, (1, 40)),    # full screen
])
def test_grid_shape(size, count, fullscreen, shape):
    assert grid_shape(*size, count, fullscreen, min_width=60, min_height=12) == shape


def test_on_screen_are_the_rows_in_part_or_whole_inside_the_scrolled_window():
    # 7 cells, 2 a row, rows 10 tall: rows 0..3 span 0-10, 10-20, 20-30, 30-40
    assert on_screen(7, 2, 10, 0, 15) == [0, 1, 2, 3]
    assert on_screen(7, 2, 10, 10, 10) == [2, 3]
    assert on_screen(7, 2, 10, 25, 30) == [4, 5, 6]


def test_paging_stops_at_either_end():
    assert paged(0, 10, 1, 4) == 4
    assert paged(8, 10, 1, 4) == 9
    assert paged(2, 10, -1, 4) == 0
