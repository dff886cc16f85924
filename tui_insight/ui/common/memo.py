"""`Memo`: one value kept with the key it was computed from, so that a view redraws often
without computing again what did not change (a chart's runs, a ranking, a table's rows)."""
from __future__ import annotations

from typing import Callable, Generic, Hashable, TypeVar

T = TypeVar("T")
_NOTHING = object()


class Memo(Generic[T]):
    """`get(key, make)`: the kept value while `key` equals the last one, else `make()` kept."""

    def __init__(self) -> None:
        self._key: object = _NOTHING
        self._value: T | None = None

    def get(self, key: Hashable, make: Callable[[], T]) -> T:
        if self._key is _NOTHING or key != self._key:
            self._value = make()
            self._key = key
        return self._value  # type: ignore[return-value]  # set above whenever the key is new
