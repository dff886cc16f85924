"""The PR curves view's state: the tag (class) shown, the step and the threshold under the cursor.

`[` `]` move the step back and on, home goes to the first step and end to the newest, which
the view then follows as training writes more (`step` None). `n` `p` move to the next or
previous tag; left and right move the cursor along the curve, one threshold at a time (shift:
ten). The cursor is a threshold index, kept when the step changes; at first it stands at the
middle threshold (0.5 on TensorBoard's evenly spread thresholds), cut to the drawn curve.
"""
from __future__ import annotations

from bisect import bisect_right
from dataclasses import dataclass, replace
from typing import Any, Sequence

from .persist import get_int


@dataclass(frozen=True)
class PrCurvesState:
    tag: str | None = None  # the tag shown; None: the first there is
    step: int | None = None  # the step shown; None: the newest, followed as it grows
    cursor: int | None = None  # the threshold index under the cursor; None: the middle one

    def settled(self, tags: Sequence[str]) -> "PrCurvesState":
        """The state for the tags there are now: a tag that went gives way to the first one."""
        if self.tag in tags:
            return self
        return replace(self, tag=tags[0] if tags else None)

    def next_tag(self, tags: Sequence[str], direction: int) -> "PrCurvesState":
        """The tag after (direction > 0) or before the current one, wrapping around."""
        if not tags:
            return self
        i = tags.index(self.tag) if self.tag in tags else -1 if direction > 0 else 0
        return replace(self, tag=tags[(i + direction) % len(tags)])

    def shown_step(self, steps: Sequence[int]) -> int | None:
        """The step drawn among `steps` (sorted): the chosen one, else the last before it, else the first."""
        if not steps:
            return None
        if self.step is None:
            return steps[-1]
        i = bisect_right(steps, self.step)
        return steps[max(i - 1, 0)]

    def step_by(self, steps: Sequence[int], delta: int) -> "PrCurvesState":
        """`delta` steps back (< 0) or on among `steps` (sorted); past the newest, follow it."""
        shown = self.shown_step(steps)
        if shown is None:
            return self
        i = min(max(steps.index(shown) + delta, 0), len(steps) - 1)
        return replace(self, step=None if i == len(steps) - 1 else steps[i])

    def first_step(self, steps: Sequence[int]) -> "PrCurvesState":
        return replace(self, step=steps[0]) if len(steps) > 1 else replace(self, step=None)

    def newest_step(self) -> "PrCurvesState":
        return replace(self, step=None)

    def cursor_by(self, total: int, drawn: int, delta: int) -> "PrCurvesState":
        """The cursor `delta` thresholds on (or back) along a curve of `total` thresholds of which
        the first `drawn` are drawn."""
        return replace(self, cursor=min(max(self.cursor_in(total, drawn) + delta, 0), max(drawn - 1, 0)))

    def cursor_in(self, total: int, drawn: int) -> int:
        """The cursor's threshold index on a curve of `total` thresholds, the first `drawn` drawn."""
        cursor = total // 2 if self.cursor is None else self.cursor
        return min(max(cursor, 0), max(drawn - 1, 0))

    def to_json(self) -> dict[str, Any]:
        return {"tag": self.tag, "step": self.step, "cursor": self.cursor}

    @classmethod
    def from_json(cls, data: Any) -> "PrCurvesState":
        if not isinstance(data, dict):
            return cls()
        tag, step = data.get("tag"), data.get("step")
        return cls(tag=tag if isinstance(tag, str) else None,
                   step=step if isinstance(step, int) and not isinstance(step, bool) else None,
                   cursor=get_int(data, "cursor", None, lo=0))
