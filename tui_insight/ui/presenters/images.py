"""What the image view says: each card's title and subtitle, the status line and the sentence
in place of the grid, from the view's state and what each card is asked to show (`Shown`)."""
from __future__ import annotations

import math

import numpy as np

from ..common.text import markup
from ..state.images import ImagesState
from ..widgets.image_data import Shown
from ..widgets.image_fit import fit_cells


def pick_index(steps: np.ndarray, step: int | None) -> int:
    """The kept step a card shows for the chosen `step`: the last at or before it, else the first."""
    if not len(steps):
        return -1
    if step is None:
        return len(steps) - 1
    return max(0, int(np.searchsorted(steps, step, side="right")) - 1)


def steps_ahead(index: int, count: int) -> list[int]:
    """The kept steps (indices of `count`) a card showing `index` is decoded ahead for, nearest
    first: those `[`, `]`, `home` and `end` show next."""
    return [j for j in dict.fromkeys((index - 1, index + 1, 0, count - 1)) if 0 <= j < count and j != index]


def size_text(width: int, height: int) -> str:
    return f"{width}×{height}"


def card_title(tag: str, train_id: str, shown: Shown | None, colour: str | None = None) -> str:
    """`tag · sample 2/4` (the sample when the step holds several), and the job when runs are
    compared (`colour`: its colour): the tag first, as a narrow border cuts the end off."""
    title = markup(tag)
    if shown is not None and shown.samples > 1:
        title += f" · sample {shown.sample + 1}/{shown.samples}"
    if colour is not None:
        title = f"[{colour}]●[/] {title} · {markup(train_id)}"
    return title


def card_subtitle(shown: Shown, chosen: int | None, size: tuple[int, int] | None = None, grey: bool = False,
                  note: str = "") -> str:
    """`step 12 · 32×16 · 7/7`: most important first, as a narrow border cuts the end off
    (`chosen`: the step the user chose; `size`: the decoded image's, once known)."""
    parts = [f"step {shown.step}"]
    if chosen is not None and shown.step != chosen:
        parts[0] += f" (for {chosen})"
    if size is not None:
        parts.append(size_text(*size) + (" grey" if grey else "") + (f" ({note})" if note else ""))
    parts.append(f"{shown.index + 1}/{shown.count}")
    return " · ".join(parts)


def empty_message(state: ImagesState, loading: bool, jobs: int, cards: bool) -> str:
    """What shows in place of the grid ("" when cards show)."""
    if not state.tags.tags:
        if loading:
            return "no image tags yet: loading…"
        return "this job has no images" if jobs == 1 else "these jobs have no images"
    return state.tags.empty_reason() if not cards else ""


def status(state: ImagesState, steps: np.ndarray, most_samples: int) -> str:
    """The status line: the step shown of the kept `steps`, the sample, the adjustments, the layout."""
    parts = []
    if len(steps):
        if state.step is None:
            parts.append(f"step {int(steps[-1])} (newest)")
        else:
            parts.append(f"step {state.step} of {int(steps[0])}..{int(steps[-1])}")
    if most_samples > 1:
        parts.append(f"sample {state.shown_sample(most_samples) + 1} of up to {most_samples} (n/p)")
    if state.brightness:
        parts.append(f"brightness {state.brightness:+.1f}")
    if state.contrast != 1.0:
        parts.append(f"contrast ×{state.contrast:.2f}")
    parts.append(state.layout)
    if state.fullscreen:
        parts.append("full screen (f/esc)")
    return " · ".join(parts)


# -- the grid's shape -------------------------------------------------------------------------------

MIN_CARD_WIDTH = 24
MIN_CARD_HEIGHT = 8
BORDER = 2  # cells a card's border takes in each direction
UNKNOWN = (1, 1)  # the pixel size of a card not decoded yet: a square guess


def fitted_area(width: int, height: int, cols: int, rows: int) -> float:
    """Pixels an image would cover in `cols` x `rows` cells (two pixels a cell), scaled freely."""
    ratio = min(cols / width, 2 * rows / height)
    return width * height * ratio * ratio


def grid_shape(sizes: list[tuple[int, int]], width: int, height: int, group: int) -> tuple[int, int]:
    """(columns, row height) of the cards whose images are `sizes` pixels: the column count (a
    multiple of `group`, the compared jobs) that shows most pixels on screen."""
    most = max(group, min(len(sizes), width // MIN_CARD_WIDTH // group * group))
    best = (-1.0, group, max(MIN_CARD_HEIGHT, height))
    for columns in range(group, most + 1, group):
        rows = math.ceil(len(sizes) / columns)
        row_height = max(MIN_CARD_HEIGHT, height // rows)
        cell_w, cell_h = width // columns - BORDER, row_height - BORDER
        if cell_w < 1 or cell_h < 1:
            continue
        on_screen = max(1, min(rows, height // row_height)) * columns  # scrolled-off cards count less
        area = sum(fitted_area(w, h, cell_w, cell_h) for w, h in sizes[:on_screen])
        if area > best[0] * 1.05:  # a near tie goes to fewer columns: bigger single images
            best = (area, columns, row_height)
    return best[1], best[2]


def list_row_height(sizes: list[tuple[int, int]], cell_width: int, height: int) -> int:
    """The height of a row of the list layout: its tallest image at its width, not enlarged
    past whole multiples; two thirds of the grid while one is not decoded yet."""
    needed = MIN_CARD_HEIGHT
    for w, h in sizes:
        if (w, h) == UNKNOWN:
            return max(MIN_CARD_HEIGHT, height * 2 // 3)
        cols, pixel_rows = fit_cells(w, h, cell_width - BORDER, 10_000, upscale=False)
        scale_up = max(1, (cell_width - BORDER) // max(1, cols))
        needed = max(needed, math.ceil(pixel_rows * scale_up / 2) + BORDER)
    return max(MIN_CARD_HEIGHT, min(height, needed))


def rows_height(count: int, columns: int, rows: list[int]) -> int:
    """The height of `count` cards in `columns` on rows of `rows` heights (repeated when there are
    more rows, as CSS `grid-rows` does)."""
    lines = -(-count // max(1, columns))
    return sum(rows[i % len(rows)] for i in range(lines)) if rows else 0


def layout(sizes: list[tuple[int, int]], width: int, height: int, jobs: int, state: ImagesState) -> tuple[int, list[int]]:
    """(columns, row heights) that give the shown cards' images (`sizes`) the most room."""
    if state.fullscreen:
        return jobs, [height]
    if state.layout == "list":
        return jobs, [list_row_height(sizes[i:i + jobs], width // jobs, height) for i in range(0, len(sizes), jobs)]
    columns, row_height = grid_shape(sizes, width, height, jobs)
    return columns, [row_height]
