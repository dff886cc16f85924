"""The described view's state: which kinds it lists.

The view describes what a terminal cannot draw (TensorBoard's audio, mesh and projector
dashboards); `s` cycles through every kind, audio only, meshes only and embeddings only; `n`
`p` choose the embedding point whose nearest neighbours are listed, `[` `]` the embedding.
"""
from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any

SECTIONS = ("all", "audio", "mesh", "projector")


@dataclass(frozen=True)
class DescribedState:
    section: str = "all"  # one of SECTIONS
    embedding: int = 0  # the embedding whose neighbours are listed (its place in the projector config)
    point: int = 0  # the point they are nearest to

    def move_point(self, direction: int, points: int) -> "DescribedState":
        """The next (direction > 0) or previous point of `points`, wrapping around."""
        return replace(self, point=(self.point + direction) % points) if points > 0 else self

    def move_embedding(self, direction: int, embeddings: int) -> "DescribedState":
        """The next or previous embedding of `embeddings` (its first point)."""
        if embeddings <= 0:
            return self
        return replace(self, embedding=(self.embedding + direction) % embeddings, point=0)

    def next_section(self) -> "DescribedState":
        return replace(self, section=SECTIONS[(SECTIONS.index(self.section) + 1) % len(SECTIONS)])

    def shows(self, kind: str) -> bool:
        return self.section in ("all", kind)

    def to_json(self) -> dict[str, Any]:
        return {"section": self.section, "embedding": self.embedding, "point": self.point}

    @classmethod
    def from_json(cls, data: Any) -> "DescribedState":
        if not isinstance(data, dict):
            return cls()
        section = data.get("section")
        embedding, point = data.get("embedding"), data.get("point")
        return cls(section=section if section in SECTIONS else "all",
                   embedding=embedding if type(embedding) is int and embedding >= 0 else 0,
                   point=point if type(point) is int and point >= 0 else 0)
