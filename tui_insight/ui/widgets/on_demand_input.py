"""A text box out of the tab order: reached by its key (`/`, `d`), left with enter or escape.

Tab and shift+tab move between the panes a user reads (lists, charts, tables); landing in a
text box on the way would swallow the next letter keys as text.
"""
from __future__ import annotations

from typing import Any

from textual import events
from textual.widgets import Input

from ..common.focus import focus_now


class OnDemandInput(Input):
    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.can_focus = False

    def open(self) -> None:
        """Take the keyboard (the view's key for this box calls it)."""
        self.can_focus = True
        focus_now(self)

    def on_blur(self, event: events.Blur) -> None:
        self.can_focus = False
