"""Focus that takes effect before the next key is handled."""
from __future__ import annotations

from textual.widget import NoScreen, Widget


def focus_now(widget: Widget) -> Widget:
    """Give `widget` the keyboard at once.

    `Widget.focus()` only queues the change behind the keys already received, so `/loss` typed
    quickly, pasted, or sent in one burst over SSH would deliver `loss` to the old focus, where
    `l` opens lineage and `e` exports. `Screen.set_focus` takes effect before the next key.
    """
    try:
        screen = widget.screen
        screen.set_focus(widget)
        if screen.focused is widget:
            return widget
    except NoScreen:  # not on a screen yet: fall back to the queued focus
        pass
    return widget.focus()
