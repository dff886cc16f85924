"""A heat map's colours: a gradient between two theme colours, its order read in lightness.

Here and not in `common.palette` because it reads colours through Textual (`textual.color`'s
Lab conversions), and `common` stays free of Textual for the presenters."""
from __future__ import annotations

from functools import lru_cache

import numpy as np


GRADIENT_LIGHTNESS = (22.0, 90.0)  # CIE L* of a heat map's low and high ends


@lru_cache(maxsize=32)
def gradient(low: str, high: str, size: int = 256) -> np.ndarray:
    """`size` packed 0xRRGGBB colours from `low`'s hue to `high`'s, interpolated in CIE Lab with
    the lightness rising from dark to light whatever the two colours are: a heat map's order reads
    in its lightness alone (as viridis does), on a dark theme or a light one."""
    from textual.color import Color, Lab, lab_to_rgb, rgb_to_lab

    a, b = rgb_to_lab(Color.parse(low)), rgb_to_lab(Color.parse(high))
    start, end = GRADIENT_LIGHTNESS
    out = np.empty(size, dtype=np.int64)
    for i, t in enumerate(np.linspace(0.0, 1.0, size)):
        lab = Lab(start + (end - start) * t, a.a + (b.a - a.a) * t, a.b + (b.b - a.b) * t)
        r, g, b_ = (min(255, max(0, v)) for v in lab_to_rgb(lab).rgb)  # out of sRGB's gamut: its edge
        out[i] = (r << 16) | (g << 8) | b_
    out.flags.writeable = False  # shared by every caller (cached)
    return out
