"""Rows of one CSV file of an all-steps export, gathered per tag in one temporary file.

A job's values arrive in read order, every tag interleaved; the CSV wants them tag by tag.
Each value's rows (CSV text) are held per tag until `BUDGET` characters are held, then written
as one chunk per tag to the spill file, with the numbers the restart rules need (read order,
step, file rank) in front. `tags()` then gives each tag's values back, its chunks read and
joined: memory holds what is pending plus one tag's values, and one file is open per CSV file
whatever the number of tags.
"""
from __future__ import annotations

import os
from collections.abc import Iterator
from typing import IO

import numpy as np

BUDGET = 8 << 20  # characters of rows held before they are written to the spill file
_PER_VALUE = 64  # what a pending value costs beyond its text, in the budget's units
_PER_TAG = 256  # ... and a tag with pending values
_COLUMNS = 5  # seq, step, rank, characters, rows


class TagValues:
    """One tag's values, in read order: their numbers and their rows' text, end to end."""

    __slots__ = ("numbers", "text")

    def __init__(self, numbers: np.ndarray, text: str):
        self.numbers = numbers  # a row per value: _COLUMNS
        self.text = text

    def __len__(self) -> int:
        return len(self.numbers)

    @property
    def seqs(self) -> np.ndarray:
        return self.numbers[:, 0]

    @property
    def steps(self) -> np.ndarray:
        return self.numbers[:, 1]

    @property
    def ranks(self) -> np.ndarray:
        return self.numbers[:, 2]

    @property
    def ends(self) -> np.ndarray:
        """Where each value's text ends in `text`."""
        return np.cumsum(self.numbers[:, 3])

    @property
    def rows(self) -> np.ndarray:
        """How many CSV rows each value's text holds."""
        return self.numbers[:, 4]


class TagSpill:
    """The values of one CSV file, spilled per tag to `handle` (a temporary binary file)."""

    def __init__(self, handle: IO[bytes]):
        self.handle = handle
        self._clear()

    def _clear(self) -> None:
        self.handle.seek(0)
        self.handle.truncate()
        self.ids: dict[str, int] = {}  # tag -> its number
        self.pending: dict[int, tuple[list[int], list[str]]] = {}  # tag number -> numbers, texts
        self.held = 0
        self.chunks: list[tuple[int, int, int, int]] = []  # (tag number, offset, values, text bytes)

    def add(self, tag: str, seq: int, step: int, rank: int, text: str, rows: int) -> None:
        """One value of `tag`: its `rows` CSV rows as `text`."""
        number = self.ids.get(tag)
        if number is None:
            number = self.ids[tag] = len(self.ids)
        held = self.pending.get(number)
        if held is None:
            held = self.pending[number] = ([], [])
            self.held += _PER_TAG
        held[0].extend((seq, step, rank, len(text), rows))
        held[1].append(text)
        self.held += len(text) + _PER_VALUE
        if self.held >= BUDGET:
            self._spill()

    def add_many(self, tag: str, numbers: np.ndarray, text: str) -> None:
        """Values of `tag` at once: `numbers` a row each (seq, step, rank, characters of its rows
        in `text`, rows), `text` their rows end to end."""
        number = self.ids.get(tag)
        if number is None:
            number = self.ids[tag] = len(self.ids)
        held = self.pending.get(number)
        if held is None:
            held = self.pending[number] = ([], [])
            self.held += _PER_TAG
        held[0].extend(numbers.ravel().tolist())
        held[1].append(text)
        self.held += len(text) + _PER_VALUE * len(numbers)
        if self.held >= BUDGET:
            self._spill()

    def _spill(self) -> None:
        handle = self.handle
        handle.seek(0, os.SEEK_END)
        offset = handle.tell()
        for number, (numbers, texts) in self.pending.items():
            blob = np.array(numbers, dtype=np.int64).tobytes() + "".join(texts).encode("utf-8", "surrogatepass")
            handle.write(blob)
            self.chunks.append((number, offset, len(numbers) // _COLUMNS, len(blob) - 8 * len(numbers)))
            offset += len(blob)
        self.pending = {}
        self.held = 0

    def tags(self) -> Iterator[tuple[str, TagValues]]:
        """Each tag (sorted) and its values; the spill is empty afterwards, ready for the next job."""
        by_number: dict[int, list[tuple[int, int, int, int]]] = {}
        for chunk in self.chunks:
            by_number.setdefault(chunk[0], []).append(chunk)
        if self.chunks:
            self.handle.flush()
        for tag in sorted(self.ids):
            number = self.ids[tag]
            parts = [self._read(chunk) for chunk in by_number.get(number, ())]
            held = self.pending.get(number)
            if held is not None:
                parts.append((np.array(held[0], dtype=np.int64).reshape(-1, _COLUMNS), "".join(held[1])))
            yield tag, _joined(parts)
        self._clear()

    def _read(self, chunk: tuple[int, int, int, int]) -> tuple[np.ndarray, str]:
        _, offset, values, text_bytes = chunk
        data = os.pread(self.handle.fileno(), 8 * _COLUMNS * values + text_bytes, offset)
        numbers = np.frombuffer(data, dtype=np.int64, count=_COLUMNS * values).reshape(-1, _COLUMNS)
        return numbers, data[8 * _COLUMNS * values:].decode("utf-8", "surrogatepass")


def _joined(parts: list[tuple[np.ndarray, str]]) -> TagValues:
    if len(parts) == 1:
        return TagValues(*parts[0])
    return TagValues(np.concatenate([p[0] for p in parts]), "".join(p[1] for p in parts))
