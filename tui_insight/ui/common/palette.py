"""Colours of charts: the series' fixed palette and the roles a theme gives.

Series (one per job or tag, `SERIES_COLOURS`) keep the Okabe-Ito palette, readable by
colour-blind users, whatever the theme: a Textual theme names one colour per role (primary,
accent, warning, error…), not a list of eight distinct qualitative colours, and a comparison of
eight jobs needs eight. A job keeps its colour by its position among the compared jobs (the
order they were marked), so the same job has the same colour in every chart and legend.

Everything else a chart draws takes the theme's colour for its role (`ThemeColours`): the
cursor is `$accent`, NaN/Inf `$error`, a median `$warning`, a lone series `$primary`; heat maps
run from `$primary` to `$warning` (`widgets/colour_map.gradient`). Widgets read them from their component classes
(`widgets/themed.py`), so a theme picked in the palette or with `--theme` recolours them too.
`DEFAULT_COLOURS` are the insight-dark theme's, for drawing without an app.
"""
from __future__ import annotations

from dataclasses import dataclass


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


@dataclass(frozen=True)
class ThemeColours:
    """The theme's colours a chart draws with, by role, as "#rrggbb"."""

    primary: str = "#56B4E9"  # a chart's series when no job's colour is asked for
    accent: str = "#E69F00"  # the cursor and what it stands on
    warning: str = "#F0E442"  # a median, a warning written on a chart; a heat map's high end
    error: str = "#D55E00"  # NaN and ±Inf
    secondary: str = "#CC79A7"  # a third mark beside error and primary (NaN in tables)
    muted: str = "#888888"  # runs or cells with no value


DEFAULT_COLOURS = ThemeColours()  # drawing without an app (tests, benches): the insight-dark theme's


def job_colour(index: int) -> str:
    return SERIES_COLOURS[index % len(SERIES_COLOURS)]


def hex_to_rgb(colour: str) -> tuple[int, int, int]:
    colour = colour.lstrip("#")
    return int(colour[0:2], 16), int(colour[2:4], 16), int(colour[4:6], 16)


def packed(colour: str) -> int:
    """"#rrggbb" as the integer 0xRRGGBB the canvases of heat maps and charts hold."""
    r, g, b = hex_to_rgb(colour)
    return (r << 16) | (g << 8) | b


def contrast(colour: str) -> str:
    """Black or white, whichever reads better on `colour`."""
    r, g, b = hex_to_rgb(colour)
    return "#000000" if (0.299 * r + 0.587 * g + 0.114 * b) > 140 else "#ffffff"


def mix(colour: str, background: str, amount: float) -> tuple[int, int, int]:
    """`colour` faded towards `background` by `amount` (0 keeps it, 1 gives the background)."""
    fg, bg = hex_to_rgb(colour), hex_to_rgb(background)
    return tuple(round(f + (b - f) * amount) for f, b in zip(fg, bg))  # type: ignore[return-value]


def snap_256(rgb: tuple[int, int, int]) -> tuple[int, int, int]:
    """The colour of the xterm 256-colour palette a terminal without true colour shows for `rgb`."""
    from rich.color import Color, ColorSystem

    triplet = Color.from_rgb(*rgb).downgrade(ColorSystem.EIGHT_BIT).get_truecolor()
    return triplet.red, triplet.green, triplet.blue


def two_shades_256(colour: str, background: str) -> tuple[tuple[int, int, int], tuple[int, int, int]]:
    """Two 256-palette shades of `colour` towards `background`, apart from each other, from
    `colour`'s own and from the background's; two greys when its shades collapse (a dark colour)."""
    taken = {snap_256(hex_to_rgb(colour)), snap_256(hex_to_rgb(background))}
    found: list[tuple[int, int, int]] = []
    for amount in (0.35, 0.5, 0.6, 0.7, 0.8):
        shade = snap_256(mix(colour, background, amount))
        if shade not in taken:
            taken.add(shade)
            found.append(shade)
        if len(found) == 2:
            return found[0], found[1]
    dark = sum(hex_to_rgb(background)) < 384
    return ((0x6C, 0x6C, 0x6C), (0x44, 0x44, 0x44)) if dark else ((0xB2, 0xB2, 0xB2), (0x8A, 0x8A, 0x8A))
