"""The scrollable grid of charts or cards in the scalar, histogram and image views.

The view decides how many columns fit (`layout_grid`), so the grid tells it when its size
changes. Each view subclasses it only for its CSS (row height, what the cells are).
"""
from __future__ import annotations

from textual.events import Resize
from textual.widget import Widget


class ViewGrid(Widget):
    """Calls `layout_grid()` on the nearest ancestor that has one whenever its size changes."""

    def on_resize(self, event: Resize) -> None:
        for ancestor in self.ancestors:
            layout_grid = getattr(ancestor, "layout_grid", None)
            if layout_grid is not None:
                layout_grid()
                return
