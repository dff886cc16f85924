"""Colours of series and jobs: the Okabe-Ito palette, readable by colour-blind users.

A job keeps its colour by its position among the compared jobs (the order they were marked),
so the same job has the same colour in every chart and legend of a comparison.
"""
from __future__ import annotations

SERIES_COLOURS = (
    "#0072B2",  # blue
    "#E69F00",  # orange
    "#009E73",  # bluish green
    "#D55E00",  # vermillion
    "#56B4E9",  # sky blue
    "#CC79A7",  # reddish purple
    "#F0E442",  # yellow
    "#999999",  # grey
)
# Without colour (NO_COLOR) series are told apart by their marker instead.
SERIES_MARKERS = ("braille", "•", "+", "x", "*", "o", "#", "%")


def job_colour(index: int) -> str:
    return SERIES_COLOURS[index % len(SERIES_COLOURS)]


def hex_to_rgb(colour: str) -> tuple[int, int, int]:
    colour = colour.lstrip("#")
    return int(colour[0:2], 16), int(colour[2:4], 16), int(colour[4:6], 16)


def mix(colour: str, background: str, amount: float) -> tuple[int, int, int]:
    """`colour` faded towards `background` by `amount` (0 keeps it, 1 gives the background)."""
    fg, bg = hex_to_rgb(colour), hex_to_rgb(background)
    return tuple(round(f + (b - f) * amount) for f, b in zip(fg, bg))  # type: ignore[return-value]
