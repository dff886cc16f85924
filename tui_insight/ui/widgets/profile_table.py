"""The profiler's op table: a virtual list (only the rows on screen are formatted), so 5,000 ops
sort and scroll at once. The rows and the cursor belong to the view's state: the table says
where the user moved (`Moved`) or what they chose (`Chosen`), and draws what it is given.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Sequence

from rich.segment import Segment
from rich.style import Style
from rich.text import Text
from textual.binding import Binding
from textual.message import Message
from textual.strip import Strip
from textual.widget import Widget

from ...summary.formats.profiler import Operator
from ..messages import LatestMessage
from ..common.text import shown
from ..state.profiler import OP_COLUMNS
from .profile_charts import fmt_ms

NUMBER_WIDTH = {"calls": 7, "total": 10, "avg": 10, "share": 7}


def cell(op: Operator, column: str) -> str:
    if column == "name":
        return op.name
    if column == "type":
        return op.op_type
    if column == "scope":
        return op.scope or "—"
    if column == "calls":
        return str(op.occurrences)
    if column == "total":
        return fmt_ms(op.total_ms)
    if column == "avg":
        return fmt_ms(op.avg_ms)
    return f"{op.share * 100:.2f}%"


def widths(width: int, rows: Sequence[Operator]) -> dict[str, int]:
    """Column widths for `width` cells: numbers fixed, name and type as long as their longest
    (up to a limit), the scope gets what is left."""
    out = dict(NUMBER_WIDTH)
    sample = rows[:500]
    out["name"] = max(6, min(36, max((len(o.name) for o in sample), default=4)))
    out["type"] = max(6, min(24, max((len(o.op_type) for o in sample), default=4)))
    rest = width - sum(out.values()) - len(OP_COLUMNS)
    if rest < 10:  # narrow: shrink name and type before the scope vanishes
        cut = 10 - rest
        out["name"] = max(8, out["name"] - cut // 2)
        out["type"] = max(6, out["type"] - (cut - cut // 2))
        rest = width - sum(out.values()) - len(OP_COLUMNS)
    out["scope"] = max(3, rest)
    return out


def fit(text: str, width: int, right: bool = False) -> str:
    text = shown(text)
    if len(text) > width:
        return ("…" + text[-(width - 1):]) if right else text[: width - 1] + "…"
    return text.rjust(width) if right else text.ljust(width)


class OpTable(Widget, can_focus=True):
    """Header line and one line per op; the cursor row reversed."""

    HELP_GROUP = "Profiler"
    DEFAULT_CLASSES = "focus-tint"  # app.tcss: the faint tint of the focused chart
    DEFAULT_CSS = """
    OpTable { height: 1fr; }
    """
    BINDINGS = [
        Binding("up", "move(-1)", "Up", show=False, id="profiler.table_up"),
        Binding("down", "move(1)", "Down", show=False, id="profiler.table_down"),
        Binding("pageup", "page(-1)", "Page up", show=False, id="profiler.table_page_up"),
        Binding("pagedown", "page(1)", "Page down", show=False, id="profiler.table_page_down"),
        Binding("home", "end(False)", "First", show=False, id="profiler.table_first"),
        Binding("end", "end(True)", "Last", show=False, id="profiler.table_last"),
        Binding("enter", "choose", "Op detail", id="profiler.detail"),
    ]

    @dataclass
    class Moved(LatestMessage):
        table: "OpTable"
        index: int

    @dataclass
    class Chosen(Message):
        table: "OpTable"
        index: int

    def __init__(self, **kwargs) -> None:
        super().__init__(**kwargs)
        self.rows: Sequence[Operator] = ()
        self.cursor: int | None = None
        self.sort = ("total", True)
        self.top = 0

    def show(self, rows: Sequence[Operator], cursor: int | None, sort: tuple[str, bool]) -> None:
        self.rows, self.cursor, self.sort = rows, cursor, sort
        self._scroll_to_cursor()
        self.refresh()

    @property
    def body_height(self) -> int:
        return max(1, self.size.height - 1)

    def _scroll_to_cursor(self) -> None:
        height = self.body_height
        self.top = max(0, min(self.top, max(0, len(self.rows) - height)))
        if self.cursor is None:
            return
        if self.cursor < self.top:
            self.top = self.cursor
        elif self.cursor >= self.top + height:
            self.top = self.cursor - height + 1

    def on_resize(self) -> None:
        self._scroll_to_cursor()
        self.refresh()

    # -- keys -------------------------------------------------------------------------------------

    def _moved(self, index: int) -> None:
        if self.rows:
            self.post_message(self.Moved(self, max(0, min(len(self.rows) - 1, index))))

    def action_move(self, move: int) -> None:
        self._moved((self.cursor or 0) + move if self.cursor is not None else 0)

    def action_page(self, move: int) -> None:
        self._moved((self.cursor or 0) + move * self.body_height)

    def action_end(self, last: bool) -> None:
        self._moved(len(self.rows) - 1 if last else 0)

    def action_choose(self) -> None:
        if self.cursor is not None and self.rows:
            self.post_message(self.Chosen(self, self.cursor))

    def on_click(self, event) -> None:
        y = event.y - 1
        if y >= 0 and self.top + y < len(self.rows):
            self._moved(self.top + y)

    def on_mouse_scroll_down(self, event) -> None:
        event.stop()
        self.top = min(max(0, len(self.rows) - self.body_height), self.top + 3)
        self.refresh()

    def on_mouse_scroll_up(self, event) -> None:
        event.stop()
        self.top = max(0, self.top - 3)
        self.refresh()

    # -- drawing ----------------------------------------------------------------------------------

    def header(self, width: int) -> Text:
        w = widths(width, self.rows)
        text = Text(style="bold")
        column, descending = self.sort
        for cid, title in OP_COLUMNS:
            label = title + ((" ▼" if descending else " ▲") if cid == column else "")
            text.append(fit(label, w[cid], right=cid in NUMBER_WIDTH) + " ",
                        style="bold underline" if cid == column else "bold")
        return text

    def line(self, index: int, width: int) -> str:
        w = widths(width, self.rows)
        op = self.rows[index]
        return "".join(fit(cell(op, cid), w[cid], right=cid in NUMBER_WIDTH or cid == "scope") + " "
                       for cid, _ in OP_COLUMNS)

    def render_line(self, y: int) -> Strip:
        width = self.size.width
        if y == 0:
            segments = list(self.header(width).render(self.app.console))
            return Strip(segments).crop_extend(0, width, self.rich_style)
        index = self.top + y - 1
        if index >= len(self.rows):
            if not self.rows and y == 1:
                return Strip([Segment("no op matches the filter", Style(dim=True))]).extend_cell_length(
                    width, self.rich_style)
            return Strip.blank(width, self.rich_style)
        style = self.rich_style
        if index == self.cursor:
            style = style + Style(reverse=True)
        return Strip([Segment(self.line(index, width), style)]).crop_extend(0, width, self.rich_style)
