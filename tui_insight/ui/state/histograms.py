"""The histogram view's state: tags, offset/overlay, bands, step axis, full screen, active chart, cursors.

A chart is one tag of one job (`ChartKey`: train id, tag). Each chart has its own step/bucket
cursor (`RidgeCursor`), kept by step number so it stays on the same step when new steps arrive.
Cursor moves need the chart's data (its kept steps, its bucket count): they take it as an
argument, so everything here stays pure. `RidgeCursor` is also the cursor of the ridgeline
widget (`widgets/ridgeline.py`), which the tensor view uses on its own, and of the distribution
chart (`widgets/bands.py`), which reads only its step: a chart keeps its step across `d`.
"""
from __future__ import annotations

import bisect
from dataclasses import dataclass, field, replace
from typing import Any, Callable, Sequence

from ...summary.queries.scalars import X_AXES
from .persist import get_bool, get_dict, get_str
from .tags import TagSelection

MODES = ("offset", "overlay")
STEP_AXES = X_AXES
BIN_JUMP = 5  # shift+left/right move the cursor by this many buckets

ChartKey = tuple[str, str]  # (train id, tag)


@dataclass(frozen=True)
class RidgeCursor:
    """Where a ridgeline's cursor is: a step number and a bucket; `step` None: hidden."""

    step: int | None = None
    bucket: int | None = None

    @property
    def shown(self) -> bool:
        return self.step is not None

    def index(self, steps: Sequence[int]) -> int | None:
        """The kept step under the cursor (the nearest one; the newer on a tie), or None if hidden."""
        if self.step is None or not len(steps):
            return None
        i = bisect.bisect_left(steps, self.step)
        if i >= len(steps):
            return len(steps) - 1
        if i > 0 and steps[i] != self.step and self.step - steps[i - 1] < steps[i] - self.step:
            return i - 1
        return i

    def fitted(self, bins: int) -> "RidgeCursor":
        """The bucket kept inside `bins` buckets (new data may have fewer)."""
        if self.bucket is None or not bins or self.bucket < bins:
            return self
        return replace(self, bucket=bins - 1)

    def _started(self, steps: Sequence[int], bins: int) -> "RidgeCursor | None":
        """Shown on the newest step and the middle bucket (keeping a bucket it had), or None if
        there is nothing to point at."""
        if not len(steps):
            return None
        return RidgeCursor(int(steps[-1]), bins // 2 if self.bucket is None else min(self.bucket, max(0, bins - 1)))

    def move_step(self, steps: Sequence[int], bins: int, move: int) -> "RidgeCursor":
        """`move` kept steps newer (older if negative); a hidden cursor first shows up on the newest."""
        if self.step is None:
            return self._started(steps, bins) or self
        i = self.index(steps)
        if i is None:
            return self
        return replace(self, step=int(steps[max(0, min(len(steps) - 1, i + move))]))

    def move_bucket(self, steps: Sequence[int], bins: int, move: int) -> "RidgeCursor":
        """`move` buckets right (left if negative), within the buckets; a hidden cursor first shows up."""
        if self.step is None:
            return self._started(steps, bins) or self
        if not bins:
            return self
        return replace(self, bucket=max(0, min(bins - 1, (self.bucket or 0) + move)))

    def to_end(self, steps: Sequence[int], bins: int, newest: bool) -> "RidgeCursor":
        """On the newest (or oldest) kept step, showing the cursor if it was hidden."""
        started = self if self.step is not None else self._started(steps, bins)
        if started is None or not len(steps):
            return self
        return replace(started, step=int(steps[-1 if newest else 0]))

    def hidden(self) -> "RidgeCursor":
        """Hidden; the bucket is kept for when it shows again."""
        return self if self.step is None else replace(self, step=None)

    def to_json(self) -> list[int | None]:
        return [self.step, self.bucket]

    @classmethod
    def from_json(cls, data: Any) -> "RidgeCursor":
        if not isinstance(data, (list, tuple)) or len(data) != 2:
            return cls()
        step, bucket = (v if isinstance(v, int) and not isinstance(v, bool) else None for v in data)
        if step is None:
            return cls()
        return cls(step, bucket if bucket is not None and bucket >= 0 else None)


HIDDEN = RidgeCursor()


@dataclass(frozen=True)
class HistogramsState:
    tags: TagSelection = field(default_factory=TagSelection)
    mode: str = "offset"  # "offset" (ridges one above the other) or "overlay" (outlines on one baseline)
    axis: str = "step"  # where ridges sit: "step", "relative" or "wall" time
    bands: bool = False  # distributions (percentile bands over steps) instead of ridgelines
    fullscreen: ChartKey | None = None  # the chart shown alone
    active: ChartKey | None = None  # the chart whose cursor the read-out shows (the focused one)
    cursors: tuple[tuple[ChartKey, RidgeCursor], ...] = ()  # per chart, sorted; hidden ones left out

    # -- derived --------------------------------------------------------------------------------

    def chart_keys(self, jobs: Sequence[str], has: Callable[[str, str], bool]) -> tuple[ChartKey, ...]:
        """The charts to draw: tag by tag, each of `jobs` (in that order) that has the tag."""
        return tuple((tid, tag) for tag in self.tags.visible() for tid in jobs if has(tid, tag))

    def cursor(self, key: ChartKey | None) -> RidgeCursor:
        for k, cursor in self.cursors:
            if k == key:
                return cursor
        return HIDDEN

    def target(self) -> ChartKey | None:
        """The chart the keys act on: the one shown full screen, else the active one."""
        return self.fullscreen or self.active

    def empty_reason(self) -> str:
        """Why no chart is drawn although there are tags ("" when one is)."""
        return self.tags.empty_reason()

    # -- transitions ------------------------------------------------------------------------------

    def with_tags(self, selection: TagSelection) -> "HistogramsState":
        if selection == self.tags:
            return self
        visible = set(selection.visible())
        fullscreen = self.fullscreen if self.fullscreen and self.fullscreen[1] in visible else None
        return replace(self, tags=selection, fullscreen=fullscreen)

    def settled(self, keys: Sequence[ChartKey]) -> "HistogramsState":
        """Full screen and active chart only name charts that are drawn (`keys`); the active
        chart defaults to the first."""
        fullscreen = self.fullscreen if self.fullscreen in keys else None
        active = self.active if self.active in keys else (keys[0] if keys else None)
        if (fullscreen, active) == (self.fullscreen, self.active):
            return self
        return replace(self, fullscreen=fullscreen, active=active)

    def with_active(self, key: ChartKey | None) -> "HistogramsState":
        return self if key == self.active else replace(self, active=key)

    def next_mode(self) -> "HistogramsState":
        return replace(self, mode=MODES[(MODES.index(self.mode) + 1) % len(MODES)])

    def toggle_bands(self) -> "HistogramsState":
        """Distributions instead of ridgelines, or back; the cursors stay on their steps."""
        return replace(self, bands=not self.bands)

    def next_axis(self) -> "HistogramsState":
        return replace(self, axis=STEP_AXES[(STEP_AXES.index(self.axis) + 1) % len(STEP_AXES)])

    def toggle_fullscreen(self, key: ChartKey | None = None) -> "HistogramsState":
        """Show `key` (default: the active chart) alone, or leave full screen."""
        if self.fullscreen is not None:
            return replace(self, fullscreen=None)
        key = key or self.active
        if key is None:
            return self
        return replace(self, fullscreen=key, active=key)

    def with_cursor(self, key: ChartKey, cursor: RidgeCursor) -> "HistogramsState":
        """The cursor of chart `key` (a hidden one keeps its bucket for when it shows again)."""
        if cursor == self.cursor(key):
            return self
        others = [(k, c) for k, c in self.cursors if k != key]
        if cursor != HIDDEN:
            others.append((key, cursor))
        return replace(self, cursors=tuple(sorted(others)))

    # -- remembered -----------------------------------------------------------------------------

    def to_json(self) -> dict[str, Any]:
        return {
            "tags": self.tags.to_json(),
            "mode": self.mode,
            "axis": self.axis,
            "bands": self.bands,
            "fullscreen": list(self.fullscreen) if self.fullscreen else None,
            "active": list(self.active) if self.active else None,
            "cursors": [[tid, tag, *cursor.to_json()] for (tid, tag), cursor in self.cursors],
        }

    @classmethod
    def from_json(cls, data: Any) -> "HistogramsState":
        if not isinstance(data, dict):
            return cls()
        cursors = []
        raw = data.get("cursors")
        for item in raw if isinstance(raw, list) else ():
            if isinstance(item, list) and len(item) == 4 and all(isinstance(v, str) for v in item[:2]):
                cursor = RidgeCursor.from_json(item[2:])
                if cursor != HIDDEN:
                    cursors.append(((item[0], item[1]), cursor))
        return cls(
            tags=TagSelection.from_json(get_dict(data, "tags")),
            mode=get_str(data, "mode", "offset", MODES),
            axis=get_str(data, "axis", "step", STEP_AXES),
            bands=get_bool(data, "bands", False),
            fullscreen=_key(data.get("fullscreen")),
            active=_key(data.get("active")),
            cursors=tuple(sorted(dict(cursors).items())),
        )


def _key(value: Any) -> ChartKey | None:
    if isinstance(value, (list, tuple)) and len(value) == 2 and all(isinstance(v, str) for v in value):
        return value[0], value[1]
    return None
