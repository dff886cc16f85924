"""The text view's state: the tag shown, the order of its steps and how a text is shown.

The view lists every step of one text tag (TensorBoard's `text` plugin) with its text; `[` and
`]` move to the previous or next tag, `o` turns the order (newest first by default), `m` shows
the texts as written instead of rendered as markdown (TensorBoard renders them, tables included).
"""
from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any, Sequence

from .persist import get_bool


@dataclass(frozen=True)
class TextState:
    tag: str | None = None  # the tag shown; None: the first there is
    newest_first: bool = True
    raw: bool = False  # the texts as written; False: rendered as markdown, as TensorBoard does

    def settled(self, tags: Sequence[str]) -> "TextState":
        """The state for the tags there are now: a tag that went gives way to the first one."""
        if self.tag in tags:
            return self
        return replace(self, tag=tags[0] if tags else None)

    def next_tag(self, tags: Sequence[str], direction: int) -> "TextState":
        """The tag after (direction > 0) or before the current one, wrapping around."""
        if not tags:
            return self
        i = tags.index(self.tag) if self.tag in tags else -1 if direction > 0 else 0
        return replace(self, tag=tags[(i + direction) % len(tags)])

    def toggle_order(self) -> "TextState":
        return replace(self, newest_first=not self.newest_first)

    def toggle_raw(self) -> "TextState":
        return replace(self, raw=not self.raw)

    def ordered(self, steps: Sequence[Any]) -> list[Any]:
        """`steps` (in step order) in the order the view lists them."""
        return list(reversed(steps)) if self.newest_first else list(steps)

    def to_json(self) -> dict[str, Any]:
        return {"tag": self.tag, "newest_first": self.newest_first, "raw": self.raw}

    @classmethod
    def from_json(cls, data: Any) -> "TextState":
        if not isinstance(data, dict):
            return cls()
        tag = data.get("tag")
        return cls(tag=tag if isinstance(tag, str) else None, newest_first=get_bool(data, "newest_first", True),
                   raw=get_bool(data, "raw", False))
