"""Keys that a drawing widget hands to its view: the widget stays thin, the view owns the state.

A widget mixes in `CommandKeys` and binds keys to `command('<name>', <step>)`; the view handles
`CommandKeys.Command` (`event.widget` says which widget asked).
"""
from __future__ import annotations

from dataclasses import dataclass

from textual.message import Message
from textual.widget import Widget


class CommandKeys:
    @dataclass
    class Command(Message):
        """A key of `widget`: a command name (`axis`, `low`, `scatter`, ...) and a step."""

        widget: Widget
        name: str
        step: int

        @property
        def control(self) -> Widget:
            return self.widget

    def action_command(self, name: str, step: int) -> None:
        self.post_message(CommandKeys.Command(self, name, step))  # type: ignore[attr-defined, arg-type]
