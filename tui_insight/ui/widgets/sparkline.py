"""A one-line sparkline of a series, as text (for table cells), and which tag a job's trend draws."""
from __future__ import annotations

from typing import Iterable

import numpy as np

from ...summary.digest import bucket_means

BARS = "▁▂▃▄▅▆▇█"


def trend_tag(scalar_tags: Iterable[str]) -> str | None:
    """The tag a job's trend shows: its loss (the first tag whose name contains "loss", any case),
    else its first tag; None when it has none. `scalar_tags` in first-seen order."""
    first = None
    for tag in scalar_tags:
        if "loss" in tag.lower():
            return tag
        if first is None:
            first = tag
    return first


def sparkline(values: np.ndarray, width: int = 10) -> str:
    """`width` block characters: the mean of each slice of the finite values, scaled to min..max."""
    values = np.asarray(values, dtype=np.float64)
    values = values[np.isfinite(values)]
    if values.size == 0:
        return ""
    values = bucket_means(values, width)
    lo, hi = float(values.min()), float(values.max())
    if hi == lo:
        return BARS[3] * len(values)
    levels = np.round((values - lo) / (hi - lo) * (len(BARS) - 1)).astype(np.int64)
    return "".join(BARS[i] for i in levels)
