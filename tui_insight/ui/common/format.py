"""Short texts for the UI: relative times, sizes, numbers."""
from __future__ import annotations

import math

from ...summary.queries.health import age, compact  # the job list's and `--summary`'s short numbers and times
from ...wall_time import OUT_OF_RANGE, wall_text


def relative_time(then: float, now: float) -> str:
    """`12s ago`, `3m ago`, `5h ago`, `2d ago`; `-` for no time."""
    if not then:
        return "-"
    return f"{age(max(0.0, now - then))} ago"


def count(n: int, noun: str, plural: str | None = None) -> str:
    """`1 job`, `2 jobs`, `0 jobs`: a number and its noun, singular only for one."""
    return f"{n:,} {noun if n == 1 else (plural or noun + 's')}"


def value_text(value) -> str:
    """A value from a file for a read-out: numbers (and texts that are one, such as MindInsight's
    `7.000000e-02`) as `number` writes them, everything else as it is."""
    if isinstance(value, bool) or value is None:
        return str(value)
    if isinstance(value, (int, float)):
        return number(value)
    try:
        return number(float(str(value)))
    except ValueError:
        return str(value)


def megabytes(n: int) -> str:
    return f"{n / 1e6:.1f} MB"


def number(value: float) -> str:
    """A value for a read-out: compact, NaN and infinities spelled out."""
    if value is None:
        return "-"
    return compact(float(value), digits=6, exponent_digits=4, small=1e-4, large=1e6)


def clock_time(wall_time: float) -> str:
    """A wall time as local `YYYY-MM-DD HH:MM:SS`, or "out of range" (see `tui_insight.wall_time`)."""
    return wall_text(wall_time)


def short_time(wall_time: float) -> str:
    """A wall time as local `HH:MM:SS` (the read-out's date is in the job list), or "out of range"."""
    return wall_text(wall_time, "%H:%M:%S")


# Durations past this many seconds (over 3,000 years) come from wall times that are no date.
LONGEST_DURATION = 1e11


def duration(seconds: float) -> str:
    """Relative time since a job's start: `1h02m`, `3m05s`, `12.5s`; "-" for none; "out of
    range" for NaN, infinities and past `LONGEST_DURATION` (wall times that are no date)."""
    if seconds is None:
        return "-"
    if not math.isfinite(seconds) or abs(seconds) > LONGEST_DURATION:
        return OUT_OF_RANGE
    sign = "-" if seconds < 0 else ""
    seconds = abs(seconds)
    if seconds < 60:
        return f"{sign}{seconds:.1f}s"
    if seconds < 3600:
        return f"{sign}{int(seconds // 60)}m{int(seconds % 60):02d}s"
    return f"{sign}{int(seconds // 3600)}h{int(seconds % 3600 // 60):02d}m"


def clipped(text: str, limit: int = 400) -> str:
    """`text`, its middle cut out if it is longer than `limit` (a name a hostile file made
    megabytes long would cost every redraw that much)."""
    if len(text) <= limit:
        return text
    half = (limit - 1) // 2
    return f"{text[:half]}…{text[len(text) - half:]}"
