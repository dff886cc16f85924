"""Reading remembered state back without trusting it: every getter falls back to a default.

`data` is what the workspace file held for a state, and may be any JSON value: a getter given
something that is not a dict gives its default too.
"""
from __future__ import annotations

import math
from typing import Any, Iterable, TypeVar, overload

T = TypeVar("T")


def get_field(data: Any, key: str, default: Any = None) -> Any:
    """`data[key]`, or `default` when `data` is no dict or lacks the key."""
    return data.get(key, default) if isinstance(data, dict) else default


def get_bool(data: dict[str, Any], key: str, default: bool) -> bool:
    value = get_field(data, key, default)
    return value if isinstance(value, bool) else default


def get_str(data: dict[str, Any], key: str, default: str, choices: Iterable[str] | None = None) -> str:
    value = get_field(data, key, default)
    if not isinstance(value, str):
        return default
    if choices is not None and value not in tuple(choices):
        return default
    return value


# A number's default is what comes back when the value is unusable: with a number for a
# default, the result is never None (the overloads say so to the type checker).
@overload
def get_float(data: dict[str, Any], key: str, default: float, lo: float = ..., hi: float = ...) -> float: ...
@overload
def get_float(data: dict[str, Any], key: str, default: None, lo: float = ..., hi: float = ...) -> float | None: ...
def get_float(data: dict[str, Any], key: str, default: float | None,
              lo: float = -math.inf, hi: float = math.inf) -> float | None:
    value = get_field(data, key, default)
    if value is None or isinstance(value, bool) or not isinstance(value, (int, float)):
        return default
    value = float(value)
    if not math.isfinite(value) or not lo <= value <= hi:
        return default
    return value


@overload
def get_int(data: dict[str, Any], key: str, default: int, lo: int = ..., hi: int = ...) -> int: ...
@overload
def get_int(data: dict[str, Any], key: str, default: None, lo: int = ..., hi: int = ...) -> int | None: ...
def get_int(data: dict[str, Any], key: str, default: int | None, lo: int = -(2 ** 63), hi: int = 2 ** 63) -> int | None:
    value = get_field(data, key, default)
    if value is None or isinstance(value, bool) or not isinstance(value, int):
        return default
    return value if lo <= value <= hi else default


def get_strs(data: dict[str, Any], key: str) -> tuple[str, ...]:
    """A list of strings (anything else in it is dropped)."""
    value = get_field(data, key, None)
    if not isinstance(value, (list, tuple)):
        return ()
    return tuple(v for v in value if isinstance(v, str))


def get_range(data: dict[str, Any], key: str) -> tuple[float, float] | None:
    """A finite (lo, hi) pair with lo < hi, else None."""
    value = get_field(data, key, None)
    if not isinstance(value, (list, tuple)) or len(value) != 2:
        return None
    lo, hi = value
    if any(isinstance(v, bool) or not isinstance(v, (int, float)) for v in (lo, hi)):
        return None
    lo, hi = float(lo), float(hi)
    if not (math.isfinite(lo) and math.isfinite(hi)) or lo >= hi:
        return None
    return lo, hi


def get_dict(data: dict[str, Any], key: str) -> dict[str, Any]:
    value = get_field(data, key, None)
    return value if isinstance(value, dict) else {}
