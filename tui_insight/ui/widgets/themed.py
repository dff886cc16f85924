"""Charts that draw in the theme's colours, and the scaffolding of the cursor charts.

`ThemedChart` gives a chart one component class per colour role (`chart--accent` is `$accent`,
…); `theme_colours()` reads them as a `ThemeColours`, which the chart hands to its pure drawing
function and keeps in its drawing's cache key. Textual clears the component styles when the
theme changes (the palette, `--theme`), so the next paint draws in the new theme's colours.

`CursorChart` is what the ridgeline and the distribution bands share: the frame, the data under
a key, a `RidgeCursor`, the `CursorMoved` message and the cursor actions.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, ClassVar

from rich.style import Style
from textual.binding import BindingType
from textual.widget import Widget

from ..messages import LatestMessage
from ..common.palette import DEFAULT_COLOURS, ThemeColours
from ..state.histograms import RidgeCursor

ROLES = ("primary", "accent", "warning", "error", "secondary", "muted")
_FALLBACK = DEFAULT_COLOURS


def style_hex(style: Style, fallback: str) -> str:
    """The foreground of `style` as "#rrggbb"; `fallback` when it has none. A colour of an ANSI
    theme (a terminal's palette entry, no RGB of its own) is read as Rich's default terminal shows it."""
    colour = style.color
    if colour is None or colour.is_default:
        return fallback
    return colour.get_truecolor().hex


def theme_background(widget: Widget) -> str:
    """The theme's background as "#rrggbb": black or white for a theme of ANSI colours (no RGB)."""
    theme = widget.app.current_theme
    background = str(theme.background or "")
    if background.startswith("#") and len(background) == 7:
        return background
    return "#000000" if theme.dark else "#ffffff"


def widget_background(widget: Widget) -> str:
    """The colour behind `widget` as "#rrggbb" (what partly filled cells paint explicitly)."""
    _, background = widget.background_colors
    if background.a > 0 and background.ansi is None:
        return background.hex[:7]
    return "#000000" if widget.app.current_theme.dark else "#ffffff"


class ThemedChart(Widget):
    """A widget whose drawing takes colours from the theme, one component class per role."""

    COMPONENT_CLASSES: ClassVar[set[str]] = {f"chart--{role}" for role in ROLES}
    DEFAULT_CSS = """
    ThemedChart > .chart--primary { color: $primary; }
    ThemedChart > .chart--accent { color: $accent; }
    ThemedChart > .chart--warning { color: $warning; }
    ThemedChart > .chart--error { color: $error; }
    ThemedChart > .chart--secondary { color: $secondary; }
    ThemedChart > .chart--muted { color: $foreground-muted; }
    """

    _colours: tuple[ThemeColours, str] | None = None  # the theme's colours and the background, until restyled

    def notify_style_update(self) -> None:
        # Textual calls this when the CSS applies anew (a theme picked): the colours are read again.
        self._colours = None
        super().notify_style_update()

    def _read_colours(self) -> tuple[ThemeColours, str]:
        if self._colours is None:
            try:
                colours = ThemeColours(**{role: style_hex(self.get_component_rich_style(f"chart--{role}"),
                                                          getattr(_FALLBACK, role)) for role in ROLES})
            except KeyError:  # not styled yet (asked before it is mounted): the defaults, not kept
                return _FALLBACK, "#000000"
            self._colours = (colours, widget_background(self))
        return self._colours

    def theme_colours(self) -> ThemeColours:
        """The theme's colours by role (read once per styling: a chart asks on every line)."""
        return self._read_colours()[0]

    def background_colour(self) -> str:
        """The colour behind the chart as "#rrggbb", which partly filled cells paint explicitly."""
        return self._read_colours()[1]


class CursorChart(ThemedChart, can_focus=True):
    """A chart of one tag's steps with a step cursor, fed by its owner.

    The owner hands it data under a key (`set_data`) and, if it keeps the cursor itself, where the
    cursor is (`set_cursor`). The cursor keys compute the new cursor and hand it to `cursor_to`,
    which by default moves the chart's own cursor; an owner that keeps cursors in its state
    overrides `cursor_to` and answers with `set_cursor`. Subclasses declare their own
    `CursorMoved` (a subclass of this one), so an owner showing both kinds tells them apart.
    """

    DEFAULT_CSS = """
    CursorChart { border: round $panel-lighten-2; height: 16; padding: 0; }
    CursorChart:focus { border: round $accent; }
    """
    BINDINGS: ClassVar[list[BindingType]] = []  # subclasses: their kind's bindings with the view's ids

    @dataclass
    class CursorMoved(LatestMessage):
        """The cursor moved (or the data under it changed): the owner updates its read-out."""

        chart: "CursorChart"

    def __init__(self, title: str, colour: str | None = None, **kwargs: Any):
        super().__init__(**kwargs)
        self.border_title = title  # markup: the owner escapes text from files (`common.text.markup`)
        self.key: Any = None
        self.message = "loading…"
        self.colour = colour  # None: the theme's primary
        self.cursor = RidgeCursor()
        self.draws = 0

    def series_colour(self, colours: ThemeColours) -> str:
        return self.colour or colours.primary

    def _shape(self) -> tuple[Any, int]:
        """The steps and the number of buckets under the cursor."""
        raise NotImplementedError

    def _moved(self) -> None:
        self.refresh()
        self.post_message(self.CursorMoved(self))

    def cursor_to(self, cursor: RidgeCursor) -> None:
        """Where a cursor key asks the cursor to go. Override to keep cursors elsewhere."""
        self.set_cursor(cursor)

    def set_cursor(self, cursor: RidgeCursor) -> None:
        """Put the cursor at `cursor` (redrawn and announced only if it moved)."""
        if cursor != self.cursor:
            self.cursor = cursor
            self._moved()

    def action_cursor_step(self, move: int) -> None:
        self.cursor_to(self.cursor.move_step(*self._shape(), move))

    def action_cursor_end(self, newest: int) -> None:
        self.cursor_to(self.cursor.to_end(*self._shape(), bool(newest)))

    def hide_cursor(self) -> bool:
        """Hide the cursor; False if it was not shown."""
        if not self.cursor.shown:
            return False
        self.cursor_to(self.cursor.hidden())
        return True
