"""The described view's state: which kinds it lists.

The view describes what a terminal cannot draw (TensorBoard's audio, mesh and projector
dashboards); `s` cycles through every kind, audio only, meshes only and embeddings only.
"""
from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any

SECTIONS = ("all", "audio", "mesh", "projector")


@dataclass(frozen=True)
class DescribedState:
    section: str = "all"  # one of SECTIONS

    def next_section(self) -> "DescribedState":
        return replace(self, section=SECTIONS[(SECTIONS.index(self.section) + 1) % len(SECTIONS)])

    def shows(self, kind: str) -> bool:
        return self.section in ("all", kind)

    def to_json(self) -> dict[str, Any]:
        return {"section": self.section}

    @classmethod
    def from_json(cls, data: Any) -> "DescribedState":
        section = data.get("section") if isinstance(data, dict) else None
        return cls(section=section if section in SECTIONS else "all")
