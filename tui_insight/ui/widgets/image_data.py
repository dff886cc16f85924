"""The image cards' plain data, without Textual: what a card is asked to show (`Shown`). The
image presenter builds it; `image_card.py` shows it."""
from __future__ import annotations

from dataclasses import dataclass

from ...summary.formats.values import Locator


@dataclass(frozen=True)
class Shown:
    """What a card is asked to show: which step of which series, where its payload is, and
    which of the step's images."""

    step: int
    index: int  # among the series' kept steps
    count: int  # kept steps of the series
    locator: Locator
    sample: int = 0  # which of the step's images
    samples: int = 1  # how many the step holds

    @property
    def key(self) -> tuple[Locator, int]:
        """What its pixels are decoded and kept under."""
        return self.locator, self.sample
