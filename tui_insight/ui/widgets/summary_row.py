"""One row of the scalar summary table, as plain data (no Textual): what presenters build."""
from __future__ import annotations

from dataclasses import dataclass

from ...summary.queries.best import Direction
from ...summary.store.digest import TagDigest


@dataclass(frozen=True)
class SummaryRow:
    tag: str
    train_id: str
    colour: str  # the run's colour
    digest: TagDigest | None  # None: the run has no value of the tag yet
    cursor: tuple[int, float] | None  # (step, value) of the point at the value cursor
    way: Direction | None  # which values are better
    best: bool = False  # the best run of its tag
