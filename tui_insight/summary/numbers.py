"""Numbers read from files, checked where they are read.

A CSV cell, a JSON value or a text field that is not the number it has to be raises `BadNumber`
(a ValueError) saying what it is, for the reader to count as a problem of its file and go on
with the next row. Python's `float` takes "inf", "nan" and "1e400" (infinity), and `int(float(x))`
of those raises OverflowError or ValueError: a number is usable only when it is finite and in
the range its meaning allows (no negative durations, counts or sizes; an int64 where one is stored).
"""
from __future__ import annotations

import math

INT64_MAX = (1 << 63) - 1


class BadNumber(ValueError):
    """A value that is not the number it has to be; the message names it, for the user."""


def _shown(value: object) -> str:
    text = repr(value)
    return text if len(text) <= 24 else text[:21] + "..."


def finite(value: object, what: str = "value", minimum: float | None = None) -> float:
    """`value` (a number, or its text) as a finite float, at least `minimum` when given."""
    if isinstance(value, bool):
        raise BadNumber(f"{what} {_shown(value)} is not a number")
    try:
        number = float(value)  # type: ignore[arg-type]
    except (TypeError, ValueError, OverflowError):
        raise BadNumber(f"{what} {_shown(value)} is not a number") from None
    if not math.isfinite(number):
        raise BadNumber(f"{what} {_shown(value)} is not a finite number")
    if minimum is not None and number < minimum:
        raise BadNumber(f"{what} {_shown(value)} is below {minimum:g}")
    return number


def whole(value: object, what: str = "value", minimum: int = 0, maximum: int = INT64_MAX) -> int:
    """`value` as an int in [minimum, maximum]: integer text ("12"), or a finite number written
    otherwise ("12.0", "1e3": its integer part)."""
    if isinstance(value, int) and not isinstance(value, bool):
        number = value
    elif isinstance(value, str):
        try:
            number = int(value)
        except ValueError:
            number = int(finite(value, what))
    else:
        number = int(finite(value, what))
    if not minimum <= number <= maximum:
        raise BadNumber(f"{what} {_shown(value)} is out of range")
    return number
