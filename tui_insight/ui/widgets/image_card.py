"""The image view's cards and their grid.

`ImageCard`: one image of one job and tag, drawn with half blocks, its labels on the border. It
shows only what the view gives it (`want`, then pixels or a message); when it is first drawn it
asks for its pixels (`Wanted`), so only what is on screen is decoded. Its arrow keys ask the view
to move the keyboard to a neighbouring card (`Move`): the view knows the grid's columns.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from textual.binding import Binding
from textual.message import Message
from textual.strip import Strip

from .halfblock import HalfBlockImage
from .image_data import Shown
from .view_grid import ViewGrid


class ImageCard(HalfBlockImage):
    """One image of one job and tag, with its labels on the border; asks for its pixels when drawn."""

    HELP_GROUP = "Images"
    can_focus = True
    DEFAULT_CSS = """
    ImageCard { border: round $panel-lighten-2; height: 100%; width: 1fr; padding: 0; }
    ImageCard:focus { border: round $accent; }
    """
    BINDINGS = [
        Binding("left", "move(-1, 0)", "Image left", show=False, id="images.left"),
        Binding("right", "move(1, 0)", "Image right", show=False, id="images.right"),
        Binding("up", "move(0, -1)", "Image above", show=False, id="images.up"),
        Binding("down", "move(0, 1)", "Image below", show=False, id="images.down"),
    ]

    @dataclass
    class Wanted(Message):
        """A card was drawn and has no pixels for what it should show."""

        card: "ImageCard"

    def __init__(self, train_id: str, tag: str, **kwargs: Any):
        super().__init__(message="", **kwargs)
        self.train_id = train_id
        self.tag = tag
        self.shown: Shown | None = None  # what the view wants on this card
        self.asked = False  # a Wanted message was sent for `shown`

    @property
    def key(self) -> tuple[str, str]:
        return self.train_id, self.tag

    def want(self, shown: Shown | None) -> None:
        if shown != self.shown:
            self.shown = shown
            self.asked = False
            self.refresh()

    def render_line(self, y: int) -> Strip:
        if not self.asked and self.shown is not None:
            self.asked = True  # drawn means on screen: now its pixels are worth decoding
            self.post_message(self.Wanted(self))
        return super().render_line(y)

    @dataclass
    class Move(Message):
        """An arrow key on a card: the view moves the keyboard `dx` cards across, `dy` down."""

        card: "ImageCard"
        dx: int
        dy: int

    def action_move(self, dx: int, dy: int) -> None:
        self.post_message(self.Move(self, dx, dy))


class ImageGrid(ViewGrid):
    """The scrollable grid of cards; tells the view when its size changes."""

    DEFAULT_CSS = """
    ImageGrid { layout: grid; grid-size: 1; grid-rows: 12; overflow-y: auto; height: 1fr; }
    """
