"""Where the shown step is among the kept steps, as a one-line slider (the tensor view's)."""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from rich.segment import Segment
from rich.style import Style
from textual.events import Click
from textual.strip import Strip
from textual.widget import Widget

from ..messages import LatestMessage
from ..common.palette import SERIES_COLOURS


class StepSlider(Widget):
    """Where the shown step is among the kept steps: `◀ ━━━●──── ▶`. A click picks a step."""

    DEFAULT_CSS = """
    StepSlider { height: 1; width: 1fr; }
    """

    @dataclass
    class Picked(LatestMessage):
        index: int

    def __init__(self, **kwargs: Any):
        super().__init__(**kwargs)
        self.index = 0
        self.count = 0

    def show(self, index: int, count: int) -> None:
        if (index, count) != (self.index, self.count):
            self.index, self.count = index, count
            self.refresh()

    def _track(self) -> int:
        return max(1, self.content_size.width - 4)

    def render_line(self, y: int) -> Strip:
        width = self.content_size.width
        base = self.rich_style
        if y != 0 or self.count == 0 or width < 6:
            return Strip.blank(width, base)
        track = self._track()
        knob = round(self.index / (self.count - 1) * (track - 1)) if self.count > 1 else 0
        accent = Style(color=SERIES_COLOURS[1], bold=True)
        segments = [Segment("◀ ", Style(dim=self.index == 0)), Segment("━" * knob, accent), Segment("●", accent),
                    Segment("─" * (track - knob - 1), Style(dim=True)),
                    Segment(" ▶", Style(dim=self.index == self.count - 1))]
        return Strip(segments, width).apply_style(base)

    def on_click(self, event: Click) -> None:
        if self.count < 2:
            return
        x = event.x - 2
        track = self._track()
        if 0 <= x < track:
            self.post_message(self.Picked(round(x / max(track - 1, 1) * (self.count - 1))))
        elif x < 0:
            self.post_message(self.Picked(max(0, self.index - 1)))
        else:
            self.post_message(self.Picked(min(self.count - 1, self.index + 1)))
