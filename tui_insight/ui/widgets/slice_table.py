"""A virtual table of a tensor slice: only the cells on screen are formatted and drawn.

The slice is a 0-, 1- or 2-D array of at most 100,000 values. The table is a `ScrollView`
whose `render_line` builds the visible part of one row from the array (no widget per cell):
the header line (original column indices) stays on top and the row labels (original row
indices) stay on the left while the values scroll. NaN and infinities are written out
("nan", "inf", "-inf") and coloured each in their own way; numbers are cut to the column
width (as precise as fits) and the cursor's cell is read out in full by the owner.
"""
from __future__ import annotations

import math
from collections import OrderedDict
from dataclasses import dataclass
from typing import Any

import numpy as np
from rich.segment import Segment
from rich.style import Style
from textual.binding import Binding
from textual.geometry import Size
from textual.scroll_view import ScrollView
from textual.strip import Strip

from ...summary.queries.tensors import format_value
from ..messages import LatestMessage
from ..state.tensors import DEFAULT_COLUMN_WIDTH, MAX_COLUMN_WIDTH, MIN_COLUMN_WIDTH

__all__ = ["SliceTable", "column_width_for", "DEFAULT_COLUMN_WIDTH", "MAX_COLUMN_WIDTH", "MIN_COLUMN_WIDTH"]

ROW_CACHE = 512  # rendered rows kept (a few screens)


def column_width_for(data: np.ndarray) -> int:
    """A column width that shows the slice's values well: integers in full, others to 10 cells."""
    values = np.asarray(data, dtype=np.float64).ravel()
    finite = values[np.isfinite(values)]
    widest_word = 5 if (values.size > finite.size) else 1  # " -inf"
    if finite.size and np.all(finite == np.round(finite)) and float(np.abs(finite).max()) < 1e9:
        digits = len(str(int(np.abs(finite).max()))) + (1 if (finite < 0).any() else 0)
        return max(MIN_COLUMN_WIDTH, digits + 1, widest_word)
    return DEFAULT_COLUMN_WIDTH


class SliceTable(ScrollView, can_focus=True):
    """The values of a tensor slice, with the original indices of its rows and columns."""

    HELP_GROUP = "Tensor table"
    COMPONENT_CLASSES = {
        "slice-table--header", "slice-table--label", "slice-table--cursor", "slice-table--nan",
        "slice-table--posinf", "slice-table--neginf",
    }
    DEFAULT_CSS = """
    SliceTable { height: 1fr; background: $surface; }
    SliceTable > .slice-table--header { color: $text-muted; text-style: bold; background: $panel; }
    SliceTable > .slice-table--label { color: $text-muted; background: $panel; }
    SliceTable > .slice-table--cursor { background: $block-cursor-blurred-background; }
    SliceTable:focus > .slice-table--cursor { background: $accent; color: $text; text-style: bold; }
    SliceTable > .slice-table--nan { color: $secondary; text-style: bold italic; }
    SliceTable > .slice-table--posinf { color: $error; text-style: bold; }
    SliceTable > .slice-table--neginf { color: $primary; text-style: bold; }
    """
    BINDINGS = [
        Binding("up", "move(-1, 0)", "Cell up", show=False, id="tensors.cell_up"),
        Binding("down", "move(1, 0)", "Cell down", show=False, id="tensors.cell_down"),
        Binding("left", "move(0, -1)", "Cell left", show=False, id="tensors.cell_left"),
        Binding("right", "move(0, 1)", "Cell right", show=False, id="tensors.cell_right"),
        Binding("pageup", "page(-1)", "Page up", show=False, id="tensors.page_up"),
        Binding("pagedown", "page(1)", "Page down", show=False, id="tensors.page_down"),
        Binding("ctrl+pageup,shift+pageup", "page_sideways(-1)", "Page left", show=False, id="tensors.page_left"),
        Binding("ctrl+pagedown,shift+pagedown", "page_sideways(1)", "Page right", show=False,
                id="tensors.page_right"),
        Binding("home", "row_end(0)", "First column", show=False, id="tensors.first_column"),
        Binding("end", "row_end(1)", "Last column", show=False, id="tensors.last_column"),
        Binding("ctrl+home", "corner(0)", "First cell", show=False, id="tensors.first_cell"),
        Binding("ctrl+end", "corner(1)", "Last cell", show=False, id="tensors.last_cell"),
    ]

    @dataclass
    class CellMoved(LatestMessage):
        """The cursor moved to another cell (or the data under it changed)."""

        table: "SliceTable"

    def __init__(self, **kwargs: Any):
        super().__init__(**kwargs)
        self.data = np.zeros((0, 0))
        self.row_index = np.zeros(0, dtype=np.int64)
        self.col_index = np.zeros(0, dtype=np.int64)
        self.shape_kind = 2  # how many free axes the slice has: 0, 1 or 2
        self.column_width = DEFAULT_COLUMN_WIDTH
        self.integers = False
        self.cursor = (0, 0)  # (row, column) in the slice
        self._rows: OrderedDict[tuple, Strip] = OrderedDict()
        self._style_cache: tuple[bool, dict[str, Style]] | None = None
        self._width_cache: tuple[tuple, int] | None = None
        self._label_width = 0
        self.rendered_rows = 0  # rows formatted (not taken from the cache): tests check laziness

    # -- what the owner calls -----------------------------------------------------------------

    def set_slice(self, data: np.ndarray, row_index: np.ndarray, col_index: np.ndarray,
                  column_width: int | None = None, cursor: tuple[int, int] | None = None,
                  integers: bool = False) -> None:
        """Show a new slice. Without `cursor` the cursor and scroll stay where they were
        (clamped to the new shape): stepping through steps does not move the user. With one, the
        cursor goes there and the table scrolls as little as shows it. `integers`: the tensor's
        type is an integer type, so whole values are written without ".0"."""
        self.integers = integers
        data = np.asarray(data, dtype=np.float64)
        self.shape_kind = data.ndim
        if data.ndim == 0:
            data = data.reshape(1, 1)
        elif data.ndim == 1:  # one free axis: a column, its indices down the left
            data = data.reshape(-1, 1)
            row_index, col_index = np.asarray(row_index), np.zeros(0, dtype=np.int64)
        self.data = data
        self.row_index = np.asarray(row_index, dtype=np.int64)
        self.col_index = np.asarray(col_index, dtype=np.int64)
        self._label_width = self._measure_labels()
        if column_width is not None:
            self.column_width = max(MIN_COLUMN_WIDTH, min(MAX_COLUMN_WIDTH, column_width))
        rows, cols = data.shape
        wanted = self.cursor if cursor is None else cursor
        self.cursor = (max(0, min(wanted[0], rows - 1)), max(0, min(wanted[1], cols - 1)))
        self._layout_changed()
        if cursor is not None:  # once the new size is known
            self.call_after_refresh(self._scroll_to_cursor)
        self.post_message(self.CellMoved(self))

    def set_column_width(self, width: int) -> None:
        width = max(MIN_COLUMN_WIDTH, min(MAX_COLUMN_WIDTH, int(width)))
        if width != self.column_width:
            self.column_width = width
            self._layout_changed()
            self._scroll_to_cursor()

    @property
    def label_width(self) -> int:
        """Width of the row labels (original row indices) plus their separator."""
        return self._label_width

    def _measure_labels(self) -> int:
        if self.shape_kind == 0:
            return 0
        biggest = int(np.abs(self.row_index).max()) if len(self.row_index) else 0
        return len(str(biggest)) + 2

    def _view_width(self) -> int:
        """Width inside the scrollbars (looked up once per size, not once per line)."""
        key = (self.size, self.virtual_size)
        if self._width_cache is None or self._width_cache[0] != key:
            self._width_cache = (key, self.scrollable_content_region.width)
        return self._width_cache[1]

    @property
    def cursor_value(self) -> float | None:
        rows, cols = self.data.shape
        r, c = self.cursor
        if not (0 <= r < rows and 0 <= c < cols):
            return None
        return float(self.data[r, c])

    @property
    def cursor_indices(self) -> tuple[int, ...]:
        """The original indices of the cursor's cell along the free axes."""
        r, c = self.cursor
        out: list[int] = []
        if self.shape_kind >= 1 and r < len(self.row_index):
            out.append(int(self.row_index[r]))
        if self.shape_kind == 2 and c < len(self.col_index):
            out.append(int(self.col_index[c]))
        return tuple(out)

    # -- layout ---------------------------------------------------------------------------------

    def _layout_changed(self) -> None:
        self._rows.clear()
        rows, cols = self.data.shape
        self.virtual_size = Size(self.label_width + cols * self.column_width, rows + 1)
        self.refresh()

    def _data_width(self) -> int:
        return max(1, self._view_width() - self.label_width)

    def _page_rows(self) -> int:
        return max(1, self.scrollable_content_region.height - 1)

    def _scroll_to_cursor(self) -> None:
        r, c = self.cursor
        x, y = self.scroll_offset
        page = self._page_rows()
        if r < y:
            y = r
        elif r >= y + page:
            y = r - page + 1
        cw = self.column_width
        left, right = c * cw, (c + 1) * cw
        width = self._data_width()
        if left < x:
            x = left
        elif right > x + width:
            x = right - width
        if (x, y) != tuple(self.scroll_offset):
            self.scroll_to(x, y, animate=False, immediate=True)

    def _move_to(self, r: int, c: int) -> None:
        rows, cols = self.data.shape
        r = max(0, min(rows - 1, r))
        c = max(0, min(cols - 1, c))
        if (r, c) == self.cursor:
            return
        old = self.cursor
        self.cursor = (r, c)
        self._forget_row(old[0])
        self._forget_row(r)
        self._scroll_to_cursor()
        self.refresh()
        self.post_message(self.CellMoved(self))

    def _forget_row(self, r: int) -> None:
        for key in [k for k in self._rows if k[0] == r]:
            del self._rows[key]

    # -- actions --------------------------------------------------------------------------------

    def action_move(self, rows: int, cols: int) -> None:
        self._move_to(self.cursor[0] + rows, self.cursor[1] + cols)

    def action_page(self, direction: int) -> None:
        page = self._page_rows()
        r = self.cursor[0] + direction * page
        x, y = self.scroll_offset
        self.scroll_to(x, max(0, y + direction * page), animate=False, immediate=True)
        self._move_to(r, self.cursor[1])
        self.refresh()

    def action_page_sideways(self, direction: int) -> None:
        per_page = max(1, self._data_width() // self.column_width)
        self._move_to(self.cursor[0], self.cursor[1] + direction * per_page)

    def action_row_end(self, last: int) -> None:
        self._move_to(self.cursor[0], self.data.shape[1] - 1 if last else 0)

    def action_corner(self, last: int) -> None:
        rows, cols = self.data.shape
        self._move_to(rows - 1 if last else 0, cols - 1 if last else 0)

    # -- drawing --------------------------------------------------------------------------------

    def render_line(self, y: int) -> Strip:
        width = self._view_width()
        scroll_x, scroll_y = self.scroll_offset
        base = self._styles()["base"]
        if y == 0:
            return self._header(scroll_x, width).apply_style(base)
        r = scroll_y + y - 1
        if r >= self.data.shape[0] or not self.data.size:
            return Strip.blank(width, base)
        return self._row(r, scroll_x, width).apply_style(base)

    def _visible_columns(self, scroll_x: int, width: int) -> tuple[int, int, int]:
        """First and end column on screen, and where the first one starts on screen."""
        cw = self.column_width
        data_width = max(1, width - self.label_width)
        first = scroll_x // cw
        end = min(self.data.shape[1], (scroll_x + data_width + cw - 1) // cw)
        return first, end, first * cw - scroll_x

    def _header(self, scroll_x: int, width: int) -> Strip:
        header = self.get_component_rich_style("slice-table--header")
        label_width = self.label_width
        if self.shape_kind == 0:
            return Strip([Segment("value".ljust(width), header)], width)
        corner = "r\\c" if self.shape_kind == 2 and label_width >= 4 else ""
        segments = [Segment(corner.rjust(label_width - 1) + " ", header)]
        first, end, offset = self._visible_columns(scroll_x, width)
        cw = self.column_width
        if self.shape_kind == 1:
            cells = ("value" if cw > 5 else "").rjust(cw - 1) + " "
        else:
            cells = "".join(str(int(i)).rjust(cw - 1)[-(cw - 1):] + " " for i in self.col_index[first:end])
        body = Strip([Segment(cells, header)]).crop(-offset, -offset + width - label_width)
        return Strip.join([Strip(segments), body]).adjust_cell_length(width, header)

    def _row(self, r: int, scroll_x: int, width: int) -> Strip:
        first, end, offset = self._visible_columns(scroll_x, width)
        cursor_col = self.cursor[1] if self.cursor[0] == r else -1
        key = (r, first, end, offset, width, self.column_width, cursor_col, self.has_focus)
        cached = self._rows.get(key)
        if cached is not None:
            self._rows.move_to_end(key)
            return cached
        self.rendered_rows += 1
        styles = self._styles()
        cursor_style = styles["cursor"]
        cw = self.column_width
        segments: list[Segment] = []
        label_width = self.label_width
        if label_width:
            label = styles["label"]
            index = str(int(self.row_index[r])) if r < len(self.row_index) else ""
            segments.append(Segment(index.rjust(label_width - 2) + " │", label))
        cells: list[Segment] = []
        plain: list[str] = []
        integers = self.integers
        for c, value in zip(range(first, end), self.data[r, first:end].tolist()):
            text = format_value(value, cw - 1)
            if integers and text.endswith(".0") and value.is_integer():
                text = text[:-2]
            special = styles.get(text) if not math.isfinite(value) else None
            cell = " " + text.rjust(cw - 1)
            if c == cursor_col or special is not None:
                if plain:
                    cells.append(Segment("".join(plain)))
                    plain = []
                style = cursor_style + special if (c == cursor_col and special is not None) else \
                    (cursor_style if c == cursor_col else special)
                cells.append(Segment(cell, style))
            else:
                plain.append(cell)
        if plain:
            cells.append(Segment("".join(plain)))
        body = Strip(cells).crop(-offset, -offset + width - label_width)
        strip = Strip.join([Strip(segments), body]).adjust_cell_length(width)
        self._rows[key] = strip
        if len(self._rows) > ROW_CACHE:
            self._rows.popitem(last=False)
        return strip

    def _styles(self) -> dict[str, Style]:
        """The component styles, looked up once per focus state and theme (not per row)."""
        key = self.has_focus
        if self._style_cache is None or self._style_cache[0] != key:
            self._style_cache = (key, {
                "nan": self.get_component_rich_style("slice-table--nan"),
                "inf": self.get_component_rich_style("slice-table--posinf"),
                "-inf": self.get_component_rich_style("slice-table--neginf"),
                "cursor": self.get_component_rich_style("slice-table--cursor"),
                "label": self.get_component_rich_style("slice-table--label"),
                "base": self.rich_style,
            })
        return self._style_cache[1]

    def on_focus(self) -> None:
        self.refresh()  # rows are cached with the focus they were drawn with

    def on_blur(self) -> None:
        self.refresh()

    def notify_style_update(self) -> None:
        super().notify_style_update()
        self._rows.clear()
        self._style_cache = None
