"""CSV rows of numbers built a block at a time by numpy, not a Python string a row (issue 30).

A block's rows share their first fields (`prefix`: train_id and tag, quoted already); every other
field is a coded column: a table of texts (numpy byte strings, `S`, padded with NULs to the
widest) and each row's index into it. The fields are laid side by side in a byte matrix, a
comma after each field and a newline after the last, and one boolean take drops the padding:
the fields end to end, as the csv writer writes them (numbers are never quoted).

Floats are written as `repr` writes them and integers as `str` does, each distinct value
formatted once by Python: a TensorBoard histogram's edges and widths are the same numbers at
every step, counts are small integers met again and again. Distinct means the same bits, so
-0.0 and 0.0, and NaNs, keep their own text.
"""
from __future__ import annotations

import numpy as np

Coded = tuple[np.ndarray, np.ndarray]  # texts (`S`), and each row's index into them
ROWS = 1 << 12  # rows laid out at a time (the byte matrix stays in the CPU's cache)
SMALL = 1 << 12  # integers 0 <= n < SMALL are taken from one table, made once
_COMMA, _NEWLINE = ord(","), ord("\n")
_small: list[np.ndarray] = []


def float_codes(values: np.ndarray, period: int = 0) -> Coded:
    """`repr` of each float64 (or float32, widened) of `values`, coded. With `period`, values
    that repeat every `period` (a histogram's edges at every step) are seen as such in one pass."""
    bits = np.ascontiguousarray(values, dtype=np.float64).view(np.int64)
    if period and len(bits) % period == 0 and len(bits) > period \
            and (bits.reshape(-1, period) == bits[:period]).all():
        texts = _texts(map(repr, bits[:period].view(np.float64).tolist()))
        return texts, np.tile(np.arange(period), len(bits) // period)
    distinct, codes = np.unique(bits, return_inverse=True)
    return _texts(map(repr, distinct.view(np.float64).tolist())), codes


def int_codes(values: np.ndarray) -> Coded:
    """`str` of each integer of `values` (an int64 array), coded."""
    if len(values) and 0 <= values.min() and values.max() < SMALL:
        if not _small:
            _small.append(_texts(map(str, range(SMALL))))
        return _small[0], values
    distinct, codes = np.unique(values, return_inverse=True)
    return _texts(map(str, distinct.tolist())), codes


def _texts(texts) -> np.ndarray:
    return np.array(list(texts), dtype="S")


def rows_bytes(prefix: bytes, columns: list[Coded]) -> tuple[bytes, np.ndarray]:
    """The CSV rows `prefix` + each row's fields (`columns`, of one length, no NULs in their
    texts) joined by commas, each ended by a newline; and each row's length in bytes."""
    count = len(columns[0][1]) if columns else 0
    if not count:
        return b"", np.zeros(0, dtype=np.int64)
    lengths = np.full(count, len(prefix) + len(columns), dtype=np.int64)
    for texts, codes in columns:  # (each text's length: its bytes before the padding)
        lengths += np.count_nonzero(texts.view(np.uint8).reshape(len(texts), -1), axis=1)[codes]
    widths = [texts.dtype.itemsize for texts, _ in columns]
    size = len(prefix) + sum(widths) + len(columns)  # each field and the comma or newline after it
    parts: list[bytes] = []
    block = np.zeros((min(ROWS, count), size), dtype=np.uint8)
    block[:, :len(prefix)] = np.frombuffer(prefix, dtype=np.uint8)
    at = len(prefix)
    for width in widths:
        block[:, at + width] = _COMMA
        at += width + 1
    block[:, -1] = _NEWLINE
    kept = np.empty_like(block, dtype=bool)
    for start in range(0, count, ROWS):
        stop = min(start + ROWS, count)
        rows = block[:stop - start]
        at = len(prefix)
        for (texts, codes), width in zip(columns, widths):
            np.take(texts.view(np.uint8).reshape(-1, width), codes[start:stop], axis=0, out=rows[:, at:at + width])
            at += width + 1
        mask = np.not_equal(rows, 0, out=kept[:stop - start])
        mask[:, :len(prefix)] = True  # (a name may hold a NUL)
        parts.append(rows[mask].tobytes())
    return b"".join(parts), lengths
