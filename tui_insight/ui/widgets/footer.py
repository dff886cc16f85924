"""The key footer, rebuilt once per burst of binding changes.

Textual's Footer schedules a full recompose (~35 key widgets, each styled) for every bindings
change, and switching views publishes several in a row (focus leaves, focus arrives, the view
refreshes its keys): opening the graph view rebuilt the footer four times while the graph was
being built. Here changes that arrive before a pending rebuild has read the bindings join it;
one that arrives after schedules one more, so the footer always ends on the current keys. And a
rebuild that would show the same keys (focus moving between widgets of one view, or into a
text box whose own keys are hidden) is skipped.
"""
from __future__ import annotations

from textual.app import ComposeResult
from textual.screen import Screen
from textual.widgets import Footer


class InsightFooter(Footer):
    """A Footer that coalesces rebuilds (see the module doc)."""

    def __init__(self, *args, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        self._rebuild_pending = False  # a recompose is scheduled and has not finished
        self._changed_meanwhile = False  # bindings changed after the pending one was scheduled
        self._composed: tuple | None = None  # what the last rebuild showed (see _shown)

    def bindings_changed(self, screen: Screen) -> None:
        if self._rebuild_pending:
            self._changed_meanwhile = True
            return
        self._rebuild_pending = True
        self._changed_meanwhile = False
        super().bindings_changed(screen)  # schedules the recompose (or nothing, when unfocused)
        self.call_after_refresh(self._rebuilt, screen)  # runs after the recompose

    def compose(self) -> ComposeResult:
        self._changed_meanwhile = False  # this build reads the bindings as they are now
        self._composed = self._shown()
        yield from super().compose()

    async def recompose(self) -> None:
        if self.children and self._shown() == self._composed:
            return  # the same keys as shown (focus moved between widgets with the same keys)
        await super().recompose()

    def _shown(self) -> tuple | None:
        """What the footer would show: the shown bindings as displayed, and the palette key."""
        if not self.is_attached:
            return None
        app, active = self.app, self.screen.active_bindings
        keys = tuple((b.key, app.get_key_display(b), b.description, b.action, b.group, enabled, tooltip)
                     for _node, b, enabled, tooltip in active.values() if b.show)
        palette = active.get(app.COMMAND_PALETTE_BINDING)
        return keys, self.show_command_palette, palette[1:] if palette else None

    def _rebuilt(self, screen: Screen) -> None:
        self._rebuild_pending = False
        if self._changed_meanwhile:
            self.bindings_changed(screen)
