"""Text boxes reached by a key (`/`, `d`) and left with enter or escape.

`ReturningInput`: enter gives the keyboard back to the widget that had it before the box
(`open`), at once. Textual delivers `Input.Submitted` after the keys already received, so with
the focus moved only by the screen's Submitted handler, `/lenet⏎⏎2` typed ahead, pasted, or sent
in one burst over SSH put the second enter and the `2` into the box instead of the job list.
Keys already queued for the box when it gave the keyboard away are not typed into it either:
they go to the bindings of the widget that has it now. A change of its text that is already
out of date when it is handled (keys typed since) goes no further than the box.

`OnDemandInput` is also out of the tab order: tab and shift+tab move between the panes a user
reads (lists, charts, tables); landing in a text box on the way would swallow the next letter
keys as text.
"""
from __future__ import annotations

from typing import Any

from textual import events
from textual.widget import Widget
from textual.widgets import Input

from ..common.focus import focus_now


class ReturningInput(Input):
    def __init__(self, *args: Any, returns: bool = True, **kwargs: Any) -> None:
        """`returns=False`: a box whose enter may be refused (a slice that does not fit) keeps the
        keyboard; its Submitted handler moves it."""
        super().__init__(*args, **kwargs)
        self._returns = returns
        self._came_from: Widget | None = None

    def open(self) -> None:
        """Take the keyboard (the view's key for this box calls it), remembering who had it."""
        focused = self.screen.focused
        if focused is not self:
            self._came_from = focused
        focus_now(self)

    async def action_submit(self) -> None:
        # Runs while the enter key is handled, before the next key is dispatched: the keyboard is
        # back where it was first, then the screen's Submitted handler may move it elsewhere.
        came_from = self._came_from if self._returns else None
        if came_from is not None and came_from.is_attached and came_from.focusable:
            focus_now(came_from)
        await super().action_submit()

    async def on_key(self, event: events.Key) -> None:
        # Enter is answered here, in the box's own queue: as a binding it would run only once it
        # had bubbled up to the app, after the keys queued behind it were typed into the box. A
        # key queued before the keyboard went away is not typed in: it goes on up, to the bindings
        # of the widget that has the keyboard now (`/lenet⏎j`: `j` moves the list's cursor).
        if self.screen.focused is not self:  # (`has_focus` follows only once the Blur is handled)
            event.prevent_default()
        elif event.key == "enter":
            event.stop()
            event.prevent_default()
            await self.action_submit()


    def on_input_changed(self, event: Input.Changed) -> None:
        # A change that is no longer the box's text (keys typed since, in one burst) is not handed
        # on: a view that answered it would write the old text back into the box, which is a
        # change of its own, and the two would chase each other for ever.
        if event.input is self and event.value != self.value:
            event.stop()


class OnDemandInput(ReturningInput):
    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.can_focus = False

    def open(self) -> None:
        self.can_focus = True
        super().open()

    def on_blur(self, event: events.Blur) -> None:
        self.can_focus = False
