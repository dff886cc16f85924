"""A read-only table that draws only the rows and columns that fit, for the lineage view.

Textual's `DataTable` measures every cell of every added row, so re-ordering or filtering
1,000 rows by rebuilding it takes half a second. Here the owner hands over all cells once
(`set_table`) and then only an order of row keys (`set_order`): sorting and filtering cost a
list assignment, and a frame renders the visible rows only. The first `fixed` columns stay in
place when the table scrolls sideways; the header stays in place when it scrolls down.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Iterable, Mapping, Sequence

from rich.cells import cell_len
from rich.segment import Segment
from rich.style import Style
from rich.text import Text
from textual import events
from textual.binding import Binding
from textual.geometry import Region, Size
from textual.message import Message
from textual.scroll_view import ScrollView
from textual.strip import Strip

from ..messages import LatestMessage
from .lineage_data import Cell, TableColumn, cell_text  # noqa: F401 (cell_text: for the views)

MAX_COLUMN_WIDTH = 40  # longer cells are cut with "…"
PADDING = 1  # blank cells on each side of a column


def _cell_width(cell: Cell) -> int:
    if cell is None:
        return 1
    if isinstance(cell, Text):
        return cell.cell_len
    return cell_len(cell)


class LineageTable(ScrollView, can_focus=True):
    """Rows keyed by a string (the train id), a cell cursor, a sortable header."""

    HELP_GROUP = "Lineage table"

    DEFAULT_CSS = """
    LineageTable { background: $surface; color: $foreground; height: 1fr; }
    LineageTable:focus { background-tint: $foreground 5%; }
    LineageTable > .lineage-table--header { text-style: bold; background: $panel; color: $foreground; }
    LineageTable > .lineage-table--fixed { text-style: bold; }
    LineageTable > .lineage-table--even-row { background: $surface-lighten-1 50%; }
    LineageTable > .lineage-table--cursor-row { background: $block-cursor-blurred-background 40%; }
    LineageTable > .lineage-table--cursor {
        background: $block-cursor-blurred-background; color: $block-cursor-blurred-foreground;
    }
    LineageTable:focus > .lineage-table--cursor {
        background: $block-cursor-background; color: $block-cursor-foreground; text-style: bold;
    }
    LineageTable > .lineage-table--missing { color: $foreground-muted; }
    LineageTable > .lineage-table--empty { color: $foreground-muted; }
    """
    COMPONENT_CLASSES = {
        "lineage-table--header", "lineage-table--fixed", "lineage-table--even-row",
        "lineage-table--cursor-row", "lineage-table--cursor", "lineage-table--missing", "lineage-table--empty",
    }
    BINDINGS = [
        Binding("up", "cursor(0, -1)", "Up", show=False, id="lineage.cursor_up"),
        Binding("down", "cursor(0, 1)", "Down", show=False, id="lineage.cursor_down"),
        Binding("left", "cursor(-1, 0)", "Left", show=False, id="lineage.cursor_left"),
        Binding("right", "cursor(1, 0)", "Right", show=False, id="lineage.cursor_right"),
        Binding("pageup", "page(-1)", "Page up", show=False, id="lineage.page_up"),
        Binding("pagedown", "page(1)", "Page down", show=False, id="lineage.page_down"),
        Binding("home", "edge(-1)", "First row", show=False, id="lineage.first_row"),
        Binding("end", "edge(1)", "Last row", show=False, id="lineage.last_row"),
        Binding("ctrl+left", "column_edge(-1)", "First column", show=False, id="lineage.first_column"),
        Binding("ctrl+right", "column_edge(1)", "Last column", show=False, id="lineage.last_column"),
    ]

    @dataclass
    class CursorMoved(LatestMessage):
        """The cursor is on another cell; `user`: moved by a key or a click (not by new rows,
        another order or `move_to`)."""

        table: "LineageTable"
        row_key: str | None
        column_key: str | None
        user: bool = False

        @property
        def control(self) -> "LineageTable":
            return self.table

        def can_replace(self, message: Message) -> bool:
            # A move by the user is not folded into one by the program (its owner acts on it).
            return super().can_replace(message) and (self.user <= getattr(message, "user", False))

    @dataclass
    class HeaderSelected(Message):
        table: "LineageTable"
        column_key: str

        @property
        def control(self) -> "LineageTable":
            return self.table

    def __init__(self, *, fixed: int = 1, empty_text: str = "nothing to show", **kwargs):
        super().__init__(**kwargs)
        self.fixed = fixed
        self.empty_text = empty_text
        self.columns: list[TableColumn] = []
        self.cells: dict[str, Sequence[Cell]] = {}
        self.order: list[str] = []
        self.widths: list[int] = []
        self.header_height = 1
        self._styles: dict[str, Style] | None = None
        self.cursor_row = 0
        self.cursor_column = 0
        self.sort_column: str | None = None
        self.sort_descending = False

    # -- what the owner calls ----------------------------------------------------------------

    def set_table(self, columns: Sequence[TableColumn], cells: Mapping[str, Sequence[Cell]],
                  order: Iterable[str], keep_widths: bool = False) -> None:
        """New columns and cells (one sequence per row key, in column order), shown in `order`.

        Column widths fit every row given, not only those shown, so they do not jump as a
        filter narrows the rows. The cursor stays on the same row and column keys if they remain.
        `keep_widths`: new values of the same rows and columns (a live run) never narrow a column:
        a table whose width changes lays the screen out again.
        """
        same_table = ([c.key for c in columns] == [c.key for c in self.columns]
                      and cells.keys() == self.cells.keys())
        keep_row, keep_column = self.current_row_key, self.current_column_key
        self.columns = list(columns)
        self.cells = dict(cells)
        self.header_height = 2 if any(column.group for column in self.columns) else 1
        widths = [cell_len(column.label) + 2 for column in self.columns]  # room for the sort arrow
        if keep_widths and same_table:
            widths = [max(a, b) for a, b in zip(widths, self.widths)]
        for row in self.cells.values():
            for i, cell in enumerate(row):
                width = _cell_width(cell)
                if width > widths[i]:
                    widths[i] = width
        self.widths = [min(w, MAX_COLUMN_WIDTH) for w in widths]
        keys = [column.key for column in self.columns]
        if keep_column in keys:
            self.cursor_column = keys.index(keep_column)
        self._apply_order(list(order), keep_row)

    def set_order(self, order: Iterable[str]) -> None:
        """Show the rows of `order` (keys given to `set_table`), top to bottom."""
        self._apply_order(list(order), self.current_row_key)

    def set_sort(self, column_key: str | None, descending: bool) -> None:
        """Which column the header marks as sorted (the owner sorts)."""
        self.sort_column, self.sort_descending = column_key, descending
        self.refresh()

    @property
    def current_row_key(self) -> str | None:
        if 0 <= self.cursor_row < len(self.order):
            return self.order[self.cursor_row]
        return None

    @property
    def current_column_key(self) -> str | None:
        if 0 <= self.cursor_column < len(self.columns):
            return self.columns[self.cursor_column].key
        return None

    def move_to(self, row_key: str | None = None, column_key: str | None = None) -> None:
        if row_key is not None and row_key in self.order:
            self.cursor_row = self.order.index(row_key)
        keys = [column.key for column in self.columns]
        if column_key is not None and column_key in keys:
            self.cursor_column = keys.index(column_key)
        self._cursor_changed()

    # -- internals ------------------------------------------------------------------------

    def _apply_order(self, order: list[str], keep_row: str | None) -> None:
        old_row = self.cursor_row
        self.order = [key for key in order if key in self.cells]
        if keep_row is not None and keep_row in self.cells and keep_row in self.order:
            self.cursor_row = self.order.index(keep_row)
        else:
            self.cursor_row = min(max(old_row, 0), max(len(self.order) - 1, 0))
        self.cursor_column = min(self.cursor_column, max(len(self.columns) - 1, 0))
        self.virtual_size = Size(self._total_width, len(self.order) + self.header_height)
        self._cursor_changed()

    @property
    def _total_width(self) -> int:
        return sum(w + 2 * PADDING for w in self.widths)

    @property
    def _fixed_width(self) -> int:
        return sum(w + 2 * PADDING for w in self.widths[: self.fixed])

    def _column_x(self, index: int) -> int:
        return sum(w + 2 * PADDING for w in self.widths[:index])

    def _window(self, room: int) -> tuple[int, int, bool]:
        """The scrolled part's columns shown whole in `room` cells from `scroll_x`: (start, end)
        in the scrolled part's cells, and whether columns past `end` are left out. A column cut
        at the edge would read as another value (a cut "32" reads "3"): it is left out whole."""
        left = int(self.scroll_x)
        bounds = [0]
        for w in self.widths[self.fixed:]:
            bounds.append(bounds[-1] + w + 2 * PADDING)
        start = next((b for b in bounds if b >= left), bounds[-1])
        # (a column may lose its right padding at the edge, not a character of its own)
        end = max((b for b in bounds if b - PADDING <= start + room), default=start)
        return start, end, end < bounds[-1]

    def column_x(self, column_key: str) -> int:
        """Where column `column_key` starts in the table's content (0: the left edge, unscrolled)."""
        keys = [column.key for column in self.columns]
        return self._column_x(keys.index(column_key))

    def header_labels(self) -> list[str]:
        """What the header says over each column, the sort arrow included."""
        return [str(cell) for cell in self._header_cells()]

    def _cursor_changed(self, user: bool = False) -> None:
        self.scroll_to_cursor()
        self.refresh()
        self.post_message(self.CursorMoved(self, self.current_row_key, self.current_column_key, user))

    def scroll_to_cursor(self) -> None:
        if not self.order:
            return
        body_height = max(self.scrollable_content_region.height - self.header_height, 1)
        y = self.scroll_y
        if self.cursor_row < y:
            y = self.cursor_row
        elif self.cursor_row >= y + body_height:
            y = self.cursor_row - body_height + 1
        x = self.scroll_x
        if self.cursor_column >= self.fixed:
            width = self.scrollable_content_region.width - self._fixed_width
            left = self._column_x(self.cursor_column) - self._fixed_width
            right = left + self.widths[self.cursor_column] + 2 * PADDING
            if left < x:
                x = left
            elif right > x + width:
                x = min(left, right - width)
        self.scroll_to(x=x, y=y, animate=False, force=True)

    def _page_height(self) -> int:
        return max(self.scrollable_content_region.height - self.header_height - 1, 1)

    # -- keys and mouse -------------------------------------------------------------------

    def action_cursor(self, dx: int, dy: int) -> None:
        if not self.order:
            return
        self.cursor_row = min(max(self.cursor_row + dy, 0), len(self.order) - 1)
        self.cursor_column = min(max(self.cursor_column + dx, 0), max(len(self.columns) - 1, 0))
        self._cursor_changed(user=True)

    def action_page(self, direction: int) -> None:
        self.action_cursor(0, direction * self._page_height())

    def action_edge(self, direction: int) -> None:
        self.action_cursor(0, direction * len(self.order))

    def action_column_edge(self, direction: int) -> None:
        self.action_cursor(direction * len(self.columns), 0)

    def _column_at(self, x: int) -> int | None:
        """The index of the column under column `x` of the widget (fixed columns do not scroll)."""
        left, right, _ = self._window(max(self.scrollable_content_region.width - self._fixed_width, 0))
        if x >= self._fixed_width + right - left:
            return None  # the room past the last whole column
        content_x = x if x < self._fixed_width else x + left
        start = 0
        for i, width in enumerate(self.widths):
            end = start + width + 2 * PADDING
            if start <= content_x < end:
                return i
            start = end
        return None

    def on_click(self, event: events.Click) -> None:
        column = self._column_at(event.x)
        if event.y < self.header_height:
            if column is not None:
                self.post_message(self.HeaderSelected(self, self.columns[column].key))
            return
        row = int(self.scroll_y) + event.y - self.header_height
        if 0 <= row < len(self.order):
            self.cursor_row = row
            if column is not None:
                self.cursor_column = column
            self._cursor_changed(user=True)

    # -- drawing --------------------------------------------------------------------------

    def render_lines(self, crop: Region) -> list[Strip]:
        self._styles = None  # styles are looked up once per frame, not once per line
        return super().render_lines(crop)

    def notify_style_update(self) -> None:
        self._styles = None
        super().notify_style_update()

    def _style(self, name: str) -> Style:
        """"base", or the base plus component `name` (fixed/missing: their foreground only)."""
        styles = self._styles
        if styles is None:
            base = self.rich_style
            styles = {"base": base}
            for component in ("header", "even-row", "cursor-row", "cursor", "empty"):
                styles[component] = base + self.get_component_rich_style(f"lineage-table--{component}")
            for component in ("fixed", "missing"):
                styles[component] = _foreground(self.get_component_rich_style(f"lineage-table--{component}"))
            cursor = self.get_component_rich_style("lineage-table--cursor")
            styles["cursor-on-row"] = styles["cursor-row"] + cursor
            self._styles = styles
        return styles[name]

    def render_line(self, y: int) -> Strip:
        width = self.scrollable_content_region.width
        base = self._style("base")
        if not self.columns:
            return Strip.blank(width, base)
        if y < self.header_height:
            if y == 0 and self.header_height == 2:
                return self._group_line(width)
            return self._compose_line(self._header_cells(), width, None, header=True)
        row = int(self.scroll_y) + y - self.header_height
        if row >= len(self.order):
            if row == 0 and not self.order:
                style = self._style("empty")
                return Strip([Segment(f" {self.empty_text}"[:width].ljust(width), style)], width)
            return Strip.blank(width, base)
        return self._compose_line(self.cells[self.order[row]], width, row)

    def _header_cells(self) -> list[Cell]:
        out: list[Cell] = []
        for column in self.columns:
            label = column.label
            if column.key == self.sort_column:
                label += " ▼" if self.sort_descending else " ▲"
            out.append(label)
        return out

    def _group_line(self, width: int) -> Strip:
        """The labels over runs of columns of one group; a label stays in view while any
        column of its run is."""
        style = self._style("header")
        fixed_width = self._fixed_width
        room = max(width - fixed_width, 0)
        left, right, _ = self._window(room)
        fixed_segments: list[Segment] = []
        moving_segments: list[Segment] = []
        x = 0  # where the run starts: in the fixed part, then in the scrolled part
        i = 0
        while i < len(self.columns):
            group = self.columns[i].group
            j = i + 1
            while j < len(self.columns) and self.columns[j].group == group and (j < self.fixed) == (i < self.fixed):
                j += 1
            run = sum(w + 2 * PADDING for w in self.widths[i:j])
            if i < self.fixed:
                fixed_segments.append(Segment(_fit(group, run), style))
            else:
                start, end = max(x, left), min(x + run, right)
                if end > start:
                    moving_segments.append(Segment(_fit(group, end - start), style))
                x += run
            i = j
        segments = fixed_segments + list(Segment.divide(moving_segments, [room]))[0]
        return Strip(Segment.adjust_line_length(segments, width, style), width)

    def _join(self, fixed_segments: list[Segment], moving_segments: list[Segment], width: int,
              line_style: Style) -> Strip:
        """The fixed columns, then the others scrolled sideways, cut or padded to `width`."""
        room = max(width - self._fixed_width, 0)
        left, right, more = self._window(room)
        parts = list(Segment.divide(moving_segments, [left, right]))
        visible = parts[1] if len(parts) > 1 else []
        line = Segment.adjust_line_length(fixed_segments + visible, width, line_style)
        if more and right - PADDING - left < room:  # columns to the right: said where the edge is blank
            line = [*Segment.divide(line, [width - 1])][0] + [Segment("›", line_style)]
        return Strip(line, width)

    def _compose_line(self, cells: Sequence[Cell], width: int, row: int | None, header: bool = False) -> Strip:
        if header:
            line_style = self._style("header")
        elif row is not None and row == self.cursor_row:
            line_style = self._style("cursor-row")
        elif row is not None and row % 2 == 1:
            line_style = self._style("even-row")
        else:
            line_style = self._style("base")
        fixed_style = self._style("fixed")
        cursor_style = self._style("cursor-on-row")
        missing_style = self._style("missing")
        fixed_segments: list[Segment] = []
        moving_segments: list[Segment] = []
        for i, column in enumerate(self.columns):
            cell = cells[i] if i < len(cells) else None
            if row is not None and row == self.cursor_row and i == self.cursor_column:
                style = cursor_style
            elif i < self.fixed:
                style = line_style + fixed_style
            else:
                style = line_style
            target = fixed_segments if i < self.fixed else moving_segments
            target.extend(self._cell_segments(cell, self.widths[i], column.numeric and not header, style,
                                              missing_style))
        return self._join(fixed_segments, moving_segments, width, line_style)

    @staticmethod
    def _cell_segments(cell: Cell, width: int, right: bool, style: Style, missing_style: Style) -> list[Segment]:
        pad = " " * PADDING
        if cell is None:
            dash = "-".rjust(width) if right else "-".ljust(width)
            return [Segment(pad, style), Segment(dash, style + missing_style), Segment(pad, style)]
        if isinstance(cell, Text):
            text = cell.copy()
            text.truncate(width, overflow="ellipsis")
            text.align("right" if right else "left", width)
            segments = [Segment(pad, style)]
            for segment in text.render(_CONSOLE):
                segments.append(Segment(segment.text, style + segment.style if segment.style else style))
            segments.append(Segment(pad, style))
            return segments
        plain = str(cell)
        if cell_len(plain) > width:
            cut = Text(plain)
            cut.truncate(width, overflow="ellipsis")
            plain = cut.plain
        padding = " " * max(width - cell_len(plain), 0)
        return [Segment(pad + (padding + plain if right else plain + padding) + pad, style)]


def _foreground(style: Style) -> Style:
    """A component style without its background, to lay over the row's (zebra, cursor row)."""
    return Style(color=style.color, bold=style.bold, dim=style.dim, italic=style.italic)


def _fit(label: str, width: int) -> str:
    """` label` cut or padded to `width` cells."""
    text = Text(f" {label}" if label else "")
    text.truncate(width, overflow="ellipsis", pad=True)
    return text.plain


def _console():
    from rich.console import Console

    return Console(width=1000, color_system=None, legacy_windows=False, force_terminal=False)


_CONSOLE = _console()
