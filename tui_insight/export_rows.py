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

Scalars (float32 in the files) are written as their shortest float32 digits, and those are
found by numpy (`float32_texts`): for p = 1, 2, ... 9 digits, the nearest p-digit decimal and
whether it reads back as the value, each step one correctly rounded float64 operation on exact
numbers; the texts are laid out by a pattern per (sign, digits, exponent). What that arithmetic
cannot decide exactly goes through Python as before: a value near a rounding tie, zeros,
values past 1e13 or under 1e-13 (10**k inexact), NaN and infinities. (The nearest p-digit
decimal is the shortest text's even at a power of two, whose lower gap is half the upper:
checked for every float32 power of two.)
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


def float32_codes(values: np.ndarray) -> Coded:
    """The shortest float32 text of each value (cast to float32), as `repr` writes that text read
    as a float (`export.fmt_float32`), coded."""
    with np.errstate(over="ignore", invalid="ignore"):  # (past float32's range: inf, as fmt_float32)
        bits = np.ascontiguousarray(values, dtype=np.float32).view(np.int32)
    distinct, codes = np.unique(bits, return_inverse=True)
    return float32_texts(distinct.view(np.float32)), codes


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


_DIGITS = 9  # a float32's shortest text has at most 9 significant digits
_CONSTANTS = b"0123456789.e+-\0"  # a row's alphabet: its digits (right-aligned), then these
_ZERO, _POINT, _E, _PLUS, _MINUS, _NUL = (_DIGITS + _CONSTANTS.index(c) for c in b"0.e+-\0")
_TIE = 1e-6  # |scaled value - n.5| under this: rint's nearest p-digit decimal is not certain


def float32_texts(values: np.ndarray) -> np.ndarray:
    """`fmt_float32` of each float32 of `values`, as numpy byte strings (module docstring)."""
    if len(values) > ROWS * 16:  # a block at a time: the index matrix stays in the CPU's caches
        parts = [_float32_texts(values[i:i + ROWS * 16]) for i in range(0, len(values), ROWS * 16)]
        return np.concatenate([p.astype(f"S{max(p.dtype.itemsize for p in parts)}") for p in parts])
    return _float32_texts(values)


def _float32_texts(values: np.ndarray) -> np.ndarray:
    with np.errstate(invalid="ignore"):
        a = np.abs(values).astype(np.float64)
        rows = np.flatnonzero((a >= 1e-13) & (a < 1e13))
    a = a[rows]
    e = np.floor(np.log10(a)).astype(np.int64)  # the first digit's power of ten (or one less)
    m = np.zeros(len(rows), dtype=np.int64)
    digits = np.zeros(len(rows), dtype=np.int64)  # p where m was found (0: not found)
    left = np.arange(len(rows))
    target = values[rows]
    for places in range(1, _DIGITS + 1):
        k = places - 1 - e[left]  # a * 10**k has p digits before the point; 10**|k| exact (|k| <= 22)
        scale = 10.0 ** np.abs(k)
        up = k >= 0
        scaled = np.where(up, a[left] * scale, a[left] / scale)
        nearest = np.rint(scaled)
        sure = np.abs(scaled - np.floor(scaled) - 0.5) >= _TIE
        back = np.where(up, nearest / scale, nearest * scale)  # the decimal, correctly rounded
        sure &= (back.view(np.uint64) & ((1 << 29) - 1)) != (1 << 28)  # on a float32 tie: rounded twice
        ok = sure & (back.astype(np.float32) == target[left])
        m[left[ok]] = nearest[ok]
        digits[left[ok]] = places
        left = left[sure & ~ok]
        if not len(left):
            break
    found = digits > 0
    rows, m, e = rows[found], m[found], e[found]
    over = m >= 10 ** digits[found]  # rounded up to 10**p (9.7 at 1 digit): 1 at the next power
    m //= np.where(over, 10, 1)
    e += over
    p = np.zeros(len(rows), dtype=np.int64)
    alphabet = np.empty((len(rows), _DIGITS + len(_CONSTANTS)), dtype=np.uint8)
    for j in range(_DIGITS):
        power = 10 ** (_DIGITS - 1 - j)
        alphabet[:, j] = m // power % 10 + ord("0")
        p += m >= power
    alphabet[:, _DIGITS:] = np.frombuffer(_CONSTANTS, dtype=np.uint8)
    kinds, kind = np.unique((e + 64) * 32 + p * 2 + np.signbit(values[rows]), return_inverse=True)
    patterns = [_pattern(int(k) & 1, int(k) // 2 % 16, int(k) // 32 - 64) for k in kinds.tolist()]
    width = max(map(len, patterns), default=1)
    table = np.full((len(patterns), width), _NUL, dtype=np.intp)
    for i, pattern in enumerate(patterns):
        table[i, :len(pattern)] = pattern
    index = table[kind.ravel()] + (np.arange(len(rows)) * alphabet.shape[1])[:, None]
    quick = alphabet.ravel()[index].view(f"S{width}").ravel()
    if len(rows) == len(values):
        return quick
    slow = np.ones(len(values), dtype=bool)
    slow[rows] = False
    others = _texts(repr(v) for v in values[slow].astype(str).astype(np.float64).tolist())
    out = np.empty(len(values), dtype=f"S{max(width, others.dtype.itemsize)}")
    out[rows], out[slow] = quick, others
    return out


def _pattern(negative: int, p: int, e: int) -> list[int]:
    """Where each character of `repr` of a number of `p` significant digits, the first at 10**e,
    is in its row's alphabet: positional from 1e-4 to under 1e16, else d.ddde+XX."""
    out = [_MINUS] if negative else []
    digits = list(range(_DIGITS - p, _DIGITS))
    if -4 <= e < 16:
        if e >= p - 1:
            return out + digits + [_ZERO] * (e - p + 1) + [_POINT, _ZERO]
        if e >= 0:
            return out + digits[:e + 1] + [_POINT] + digits[e + 1:]
        return out + [_ZERO, _POINT] + [_ZERO] * (-e - 1) + digits
    out += digits[:1] + ([_POINT] + digits[1:] if p > 1 else [])
    return out + [_E, _MINUS if e < 0 else _PLUS] + [_ZERO + int(c) for c in f"{abs(e):02d}"]
