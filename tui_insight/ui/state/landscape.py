"""The loss-landscape view's state: which landscape, how it is drawn, the value cursor.

A landscape is named by its key (`summary.landscape.landscape_key`): `interval:1-5` or `final`,
so the same interval of several compared jobs is one choice. The cursor is a grid cell
`(column, row)`: column j reads x[j], row i reads y[i] (row 0 is the smallest y, drawn at the
bottom). `path_point` is set when the cursor was moved onto a checkpoint of the loss path
(`n`/`p`); any arrow clears it. Moves take the grid's size (and the path's cells) as
arguments, so everything here stays pure.
"""
from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any, Sequence

from .persist import get_bool, get_int, get_str

DRAWINGS = ("heat", "contour", "both")  # `c` cycles
MODES = ("map", "relief")  # `v` toggles
ANGLE_STEP = 15  # degrees per `[` / `]`
DEFAULT_ANGLE = 30
ELEVATION_LIMITS = (10, 80)
DEFAULT_ELEVATION = 35
JUMP = 5  # shift+arrows move the cursor this many cells

Cell = tuple[int, int]  # (column, row)


@dataclass(frozen=True)
class LandscapeState:
    selected: str | None = None  # the landscape key; None: the first listed
    drawing: str = "heat"
    mode: str = "map"
    angle: int = DEFAULT_ANGLE  # relief: azimuth in degrees, 0..345
    elevation: int = DEFAULT_ELEVATION  # relief: how far above the surface the eye is
    cursor: Cell | None = None  # None: hidden
    path_point: int | None = None  # the checkpoint the cursor was moved to, if any
    panel: bool = True  # the metadata panel is shown

    # -- the landscape --------------------------------------------------------------------------

    def settled(self, keys: Sequence[str]) -> "LandscapeState":
        """`selected` names one of `keys` (the first by default; None when there is none)."""
        selected = self.selected if self.selected in keys else (keys[0] if keys else None)
        if selected == self.selected:
            return self
        return replace(self, selected=selected, path_point=None)

    def select(self, key: str) -> "LandscapeState":
        if key == self.selected:
            return self
        return replace(self, selected=key, path_point=None)

    def select_by(self, keys: Sequence[str], direction: int) -> "LandscapeState":
        """The next (previous) landscape of the list, stopping at either end."""
        if not keys:
            return self
        i = keys.index(self.selected) if self.selected in keys else 0
        return self.select(keys[max(0, min(len(keys) - 1, i + direction))])

    # -- drawing --------------------------------------------------------------------------------

    def next_drawing(self) -> "LandscapeState":
        return replace(self, drawing=DRAWINGS[(DRAWINGS.index(self.drawing) + 1) % len(DRAWINGS)])

    def toggle_relief(self) -> "LandscapeState":
        return replace(self, mode="map" if self.mode == "relief" else "relief")

    def rotate(self, direction: int) -> "LandscapeState":
        return replace(self, angle=(self.angle + direction * ANGLE_STEP) % 360)

    def tilt(self, direction: int) -> "LandscapeState":
        lo, hi = ELEVATION_LIMITS
        return replace(self, elevation=max(lo, min(hi, self.elevation + direction * 5)))

    def toggle_panel(self) -> "LandscapeState":
        return replace(self, panel=not self.panel)

    # -- the cursor -----------------------------------------------------------------------------

    def fitted(self, columns: int, rows: int) -> "LandscapeState":
        """The cursor kept inside a grid of `columns` x `rows` (another landscape may be smaller)."""
        if self.cursor is None:
            return self
        if columns <= 0 or rows <= 0:
            return replace(self, cursor=None, path_point=None)
        cell = (min(self.cursor[0], columns - 1), min(self.cursor[1], rows - 1))
        return self if cell == self.cursor else replace(self, cursor=cell, path_point=None)

    def move(self, dx: int, dy: int, columns: int, rows: int) -> "LandscapeState":
        """`dx` cells right and `dy` up (towards larger y); a hidden cursor first shows up in the
        middle of the grid."""
        if columns <= 0 or rows <= 0:
            return self
        if self.cursor is None:
            return replace(self, cursor=(columns // 2, rows // 2), path_point=None)
        j = max(0, min(columns - 1, self.cursor[0] + dx))
        i = max(0, min(rows - 1, self.cursor[1] + dy))
        return replace(self, cursor=(j, i), path_point=None)

    def to_edge(self, columns: int, rows: int, end: bool) -> "LandscapeState":
        """The cursor to the first (last) column of its row."""
        if columns <= 0 or rows <= 0:
            return self
        row = self.cursor[1] if self.cursor is not None else rows // 2
        return replace(self, cursor=(columns - 1 if end else 0, row), path_point=None)

    def step_path(self, cells: Sequence[Cell], direction: int) -> "LandscapeState":
        """The cursor to the next (previous) checkpoint of the loss path, `cells` the grid cell of
        each checkpoint, first to last; the first press goes to the first (last) checkpoint."""
        if not cells:
            return self
        if self.path_point is None or not 0 <= self.path_point < len(cells):
            k = 0 if direction > 0 else len(cells) - 1
        else:
            k = max(0, min(len(cells) - 1, self.path_point + direction))
        return replace(self, cursor=(cells[k][0], cells[k][1]), path_point=k)

    def hidden(self) -> "LandscapeState":
        if self.cursor is None:
            return self
        return replace(self, cursor=None, path_point=None)

    # -- remembered -----------------------------------------------------------------------------

    def to_json(self) -> dict[str, Any]:
        return {
            "selected": self.selected,
            "drawing": self.drawing,
            "mode": self.mode,
            "angle": self.angle,
            "elevation": self.elevation,
            "cursor": list(self.cursor) if self.cursor is not None else None,
            "panel": self.panel,
        }

    @classmethod
    def from_json(cls, data: Any) -> "LandscapeState":
        if not isinstance(data, dict):
            return cls()
        selected = data.get("selected")
        cursor = data.get("cursor")
        cell = None
        if (isinstance(cursor, (list, tuple)) and len(cursor) == 2
                and all(isinstance(v, int) and not isinstance(v, bool) and v >= 0 for v in cursor)):
            cell = (cursor[0], cursor[1])
        angle = get_int(data, "angle", DEFAULT_ANGLE, 0, 359)
        return cls(
            selected=selected if isinstance(selected, str) else None,
            drawing=get_str(data, "drawing", "heat", DRAWINGS),
            mode=get_str(data, "mode", "map", MODES),
            angle=angle - angle % ANGLE_STEP,
            elevation=get_int(data, "elevation", DEFAULT_ELEVATION, *ELEVATION_LIMITS),
            cursor=cell,
            panel=get_bool(data, "panel", True),
        )
