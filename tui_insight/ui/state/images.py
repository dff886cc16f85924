"""The image view's state: tags, the chosen step and sample, brightness, contrast, grid/list, full screen.

The chosen step applies to every card: a card shows its kept step at or before it (the first
kept step if it has none before). With no chosen step (`step` None) the cards follow the
newest step as the job grows. Stepping moves through the kept steps of the cards on screen,
which the view passes in (`steps`, sorted), so everything here stays pure.

The chosen sample applies to every card too: a step may hold several images (TF2's and Keras'
`tf.summary.image`), and each card shows that one of its step's images, or its last when its
step holds fewer. Browsing moves up to the most samples a card on screen holds (the view
passes that count in); the sample stays as the step changes, so the same sample of a batch can
be followed through training.
"""
from __future__ import annotations

import bisect
from dataclasses import dataclass, field, replace
from typing import Any, Sequence

from .persist import get_dict, get_float, get_int, get_str
from .tags import TagSelection

LAYOUTS = ("grid", "list")  # list: one tag per row
BRIGHTNESS_STEP = 0.1
BRIGHTNESS_LIMIT = 1.0
CONTRAST_FACTOR = 1.25
CONTRAST_LIMITS = (0.2, 5.0)


@dataclass(frozen=True)
class ImagesState:
    tags: TagSelection = field(default_factory=TagSelection)
    step: int | None = None  # the chosen step; None: follow the newest
    sample: int = 0  # the chosen image of a step's samples (0: the first)
    brightness: float = 0.0  # added, as a fraction of full scale
    contrast: float = 1.0  # around mid-grey
    layout: str = "grid"
    fullscreen: str | None = None  # the tag shown alone (every compared job of it)

    # -- derived --------------------------------------------------------------------------------

    def shown_tags(self) -> tuple[str, ...]:
        """The tags whose cards are on screen: the full-screen one, else every visible tag."""
        return (self.fullscreen,) if self.fullscreen else self.tags.visible()

    @property
    def following(self) -> bool:
        return self.step is None

    @property
    def adjusted(self) -> bool:
        return self.brightness != 0.0 or self.contrast != 1.0

    # -- tags and layout --------------------------------------------------------------------------

    def with_tags(self, selection: TagSelection) -> "ImagesState":
        if selection == self.tags:
            return self
        fullscreen = self.fullscreen if self.fullscreen in selection.visible() else None
        return replace(self, tags=selection, fullscreen=fullscreen)

    def toggle_layout(self) -> "ImagesState":
        return replace(self, layout=LAYOUTS[(LAYOUTS.index(self.layout) + 1) % len(LAYOUTS)])

    def toggle_fullscreen(self, tag: str | None) -> "ImagesState":
        """Show `tag` alone (if it is visible), or leave full screen."""
        if self.fullscreen is not None:
            return replace(self, fullscreen=None)
        if tag is None or tag not in self.tags.visible():
            return self
        return replace(self, fullscreen=tag)

    # -- the step ---------------------------------------------------------------------------------

    def step_by(self, steps: Sequence[int], direction: int) -> "ImagesState":
        """The kept step before (direction < 0) or after the current one; the same state at either end."""
        if not len(steps):
            return self
        current = int(steps[-1]) if self.step is None else self.step
        if direction < 0:
            i = bisect.bisect_left(steps, current) - 1
        else:
            i = bisect.bisect_right(steps, current)
        if not 0 <= i < len(steps):
            return self
        return replace(self, step=int(steps[i]))

    def first_step(self, steps: Sequence[int]) -> "ImagesState":
        return replace(self, step=int(steps[0])) if len(steps) else self

    def follow_newest(self) -> "ImagesState":
        return self if self.step is None else replace(self, step=None)

    # -- the sample of a step -------------------------------------------------------------------------

    def shown_sample(self, samples: int) -> int:
        """The sample a card shows when its step holds `samples` images: the chosen one, else its last."""
        return max(0, min(self.sample, samples - 1))

    def sample_by(self, samples: int, direction: int) -> "ImagesState":
        """The sample after (direction > 0) or before the one shown, among `samples` (the most a
        card on screen holds); the same state at either end."""
        i = self.shown_sample(samples) + direction
        if not 0 <= i < samples:
            return self
        return replace(self, sample=i)

    # -- brightness and contrast ------------------------------------------------------------------

    def brighter(self, direction: int) -> "ImagesState":
        value = round(self.brightness + direction * BRIGHTNESS_STEP, 2)
        return replace(self, brightness=max(-BRIGHTNESS_LIMIT, min(BRIGHTNESS_LIMIT, value)))

    def more_contrast(self, direction: int) -> "ImagesState":
        value = round(self.contrast * (CONTRAST_FACTOR if direction > 0 else 1 / CONTRAST_FACTOR), 4)
        if abs(value - 1.0) < 1e-3:
            value = 1.0
        return replace(self, contrast=max(CONTRAST_LIMITS[0], min(CONTRAST_LIMITS[1], value)))

    def reset_adjust(self) -> "ImagesState":
        return replace(self, brightness=0.0, contrast=1.0)

    # -- remembered -----------------------------------------------------------------------------

    def to_json(self) -> dict[str, Any]:
        return {
            "tags": self.tags.to_json(),
            "step": self.step,
            "sample": self.sample,
            "brightness": self.brightness,
            "contrast": self.contrast,
            "layout": self.layout,
            "fullscreen": self.fullscreen,
        }

    @classmethod
    def from_json(cls, data: Any) -> "ImagesState":
        if not isinstance(data, dict):
            return cls()
        fullscreen = data.get("fullscreen")
        return cls(
            tags=TagSelection.from_json(get_dict(data, "tags")),
            step=get_int(data, "step", None),
            sample=get_int(data, "sample", 0, 0) or 0,
            brightness=get_float(data, "brightness", 0.0, -BRIGHTNESS_LIMIT, BRIGHTNESS_LIMIT),
            contrast=get_float(data, "contrast", 1.0, *CONTRAST_LIMITS),
            layout=get_str(data, "layout", "grid", LAYOUTS),
            fullscreen=fullscreen if isinstance(fullscreen, str) else None,
        )
