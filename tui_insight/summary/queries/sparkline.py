"""A one-line sparkline of a series, as text: the job list's and `--summary`'s trend of a job's
headline metric (`health.py`)."""
from __future__ import annotations

import math

import numpy as np

from ..store.digest import bucket_means

BARS = "▁▂▃▄▅▆▇█"


def sparkline(values: np.ndarray | tuple[float, ...], width: int = 10) -> str:
    """`width` block characters: the mean of each slice of the finite values, scaled to min..max."""
    if not (isinstance(values, tuple) and len(values) <= width):  # a digest's spark is ready as it is
        array = np.asarray(values, dtype=np.float64)
        values = tuple(bucket_means(array[np.isfinite(array)], width).tolist())
    finite = [v for v in values if math.isfinite(v)]
    if not finite:
        return ""
    lo, hi = min(finite), max(finite)
    if hi == lo:
        return BARS[3] * len(finite)
    return "".join(BARS[round((v - lo) / (hi - lo) * (len(BARS) - 1))] for v in finite)
