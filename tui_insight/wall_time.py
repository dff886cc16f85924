"""Wall times from files shown as dates: one rule for any float64.

A wall time is whatever float64 a writer put in the file: seconds since the epoch, but also
nanoseconds (`time.time_ns()`), 1e300, NaN or infinity from a damaged or hostile file. The
platform turns only some of them into a date (`time_t` and the C library's year bounds), and
raises on the others (`OverflowError`, `OSError`, `ValueError`). Here a wall time is a local
date in years 1 to 9999 (what `datetime` holds) or it is "out of range"; 0 means none was
written ("-"). It imports nothing of the package, so every layer may use it.
"""
from __future__ import annotations

import math
from datetime import datetime

OUT_OF_RANGE = "out of range"
NO_TIME = "-"
# Wall times that are a date in every time zone: 0001-01-02 to 9999-12-30 UTC (a day inside
# `datetime`'s years 1 to 9999, for local time's offset). NaN is outside (comparisons are false).
EARLIEST = -62135596800.0 + 86400
LATEST = 253402300799.0 - 86400


def is_date(wall_time: float) -> bool:
    """Whether `wall_time` (any float64) is a date shown in every time zone."""
    return EARLIEST <= wall_time <= LATEST


def local_datetime(wall_time: float) -> datetime | None:
    """`wall_time` (seconds since the epoch) as a local datetime; None where it is no date."""
    try:
        seconds = float(wall_time)
        if not math.isfinite(seconds):
            return None
        return datetime.fromtimestamp(seconds)
    except (OverflowError, OSError, ValueError, TypeError):
        return None


def wall_text(wall_time: float | None, pattern: str = "%Y-%m-%d %H:%M:%S") -> str:
    """`wall_time` as local time in `pattern` (strftime); "-" for none, "out of range" for a
    number that is no date."""
    if wall_time is None or wall_time == 0:
        return NO_TIME
    when = local_datetime(wall_time)
    return OUT_OF_RANGE if when is None else when.strftime(pattern)
