"""CSV rows of numbers built a block at a time by numpy, not a Python string a row (issue 30).

A block's rows share their first fields (`prefix`: train_id and tag, quoted already); every other
field is a coded column: a table of texts (numpy byte strings, `S`, padded with NULs to the
widest) and each row's index into it. The fields are laid side by side in a byte matrix, a
comma after each field and a newline after the last, and the padding is deleted from the
matrix's bytes: the fields end to end, as the csv writer writes them (numbers are never quoted).

Floats are written as `repr` writes them and integers as `str` does, each distinct value
formatted once: a TensorBoard histogram's edges and widths are the same numbers at every step,
counts are small integers met again and again. Distinct means the same bits, so -0.0 and 0.0,
and NaNs, keep their own text.

The texts of an array of numbers are made by orjson in one call (`shortest_texts`): the
shortest digits that read back as the value (Ryu), as repr's, and for a float32 the shortest
that read back as the float32 (scalars are float32 in the files: `export.fmt_float32`, 0.1,
not 0.10000000149011612). Only orjson's spelling differs, fixed on the texts of the values
where it can (few as a rule), in one text at once: repr writes an exponent of two digits at
least (1e-07, orjson 1e-7), is positional from 1e-4 (orjson: float64 from 1e-5, float32 from
1e-6) to under 1e16 (orjson's float32: 1e13), and writes nan, inf and -inf (orjson: null).
"""
from __future__ import annotations

import re

import numpy as np
import orjson

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
        return shortest_texts(bits[:period].view(np.float64)), np.tile(np.arange(period), len(bits) // period)
    distinct, codes = _distinct(bits)
    return shortest_texts(distinct.view(np.float64)), codes


def float32_codes(values: np.ndarray) -> Coded:
    """The shortest float32 text of each value (cast to float32), as `repr` writes that text read
    as a float (`export.fmt_float32`), coded."""
    with np.errstate(over="ignore", invalid="ignore"):  # (past float32's range: inf, as fmt_float32)
        bits = np.ascontiguousarray(values, dtype=np.float32).view(np.int32)
    distinct, codes = _distinct(bits)
    return shortest_texts(distinct.view(np.float32)), codes


def int_codes(values: np.ndarray) -> Coded:
    """`str` of each integer of `values` (an int64 array), coded."""
    if len(values) and 0 <= values.min() and values.max() < SMALL:
        if not _small:
            _small.append(shortest_texts(np.arange(SMALL, dtype=np.int64)))
        return _small[0], values
    distinct, codes = _distinct(np.ascontiguousarray(values, dtype=np.int64))
    return shortest_texts(distinct), codes


def _distinct(values: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The distinct values and each value's index among them: `np.unique` with `return_inverse`,
    by a sort and a search (half its time on a histogram's edges, which repeat: its argsort of
    every value is the cost). Sorted, but for values all distinct (a histogram whose bins move
    every step): those as they are, each its own index, without the search."""
    ordered = np.sort(values)
    if not len(ordered):
        return ordered, np.zeros(0, dtype=np.intp)
    first = np.concatenate(([True], ordered[1:] != ordered[:-1]))
    if first.all():
        return values, np.arange(len(values))
    distinct = ordered[first]
    return distinct, np.searchsorted(distinct, values)


def float32_texts(values: np.ndarray) -> np.ndarray:
    """`fmt_float32` of each float32 of `values`, as numpy byte strings."""
    return shortest_texts(np.asarray(values, dtype=np.float32))


# orjson's spelling where repr's differs, each text between two commas. Which apply where is
# checked against repr and fmt_float32 (tests/test_export_rows.py: every power of two and ten,
# their neighbours, random bit patterns). An exponent of one digit (1e-7 -> 1e-07; positive
# exponents have two) is met often, by bytes.replace; the others are rare, by a pattern (each
# match costs Python's expansion of the template, on Python 3.11).
_SHORT_EXPONENTS = [(b"e-%d," % digit, b"e-0%d," % digit) for digit in range(1, 10)]
_SIX_PLACES = re.compile(rb",(-?)0\.00000([1-9])(\d*)")  # float32 0.0000012 -> 1.2e-06
_FIVE_PLACES = re.compile(rb",(-?)0\.0000([1-9])(\d*)")  # 0.000012 -> 1.2e-05
_WIDE = re.compile(rb",(-?)([1-9])(?:\.(\d+))?e\+1([345])(?=,)")  # float32 1.5e+13 -> 15000000000000.0


def shortest_texts(values: np.ndarray) -> np.ndarray:
    """Each number of `values` (float64, float32 or int64) as `repr` writes it (float32: its
    shortest float32 digits, as `fmt_float32`), as numpy byte strings (module docstring).
    orjson's texts stand as they are where its spelling is repr's, from 1e-3 to under 1e12 (a
    decade of margin each side); only the others, few as a rule, are respelt (`_respelt`)."""
    if not len(values):
        return np.zeros(0, dtype="S1")
    values = np.ascontiguousarray(values)
    if values.dtype.kind != "f":
        return np.array(orjson.dumps(values, option=orjson.OPT_SERIALIZE_NUMPY)[1:-1].split(b","), dtype="S")
    with np.errstate(invalid="ignore"):
        size = np.abs(values)
        odd = np.flatnonzero(~((size >= 1e-3) & (size < 1e12)) & (size != 0))  # (NaN: odd)
    if 2 * len(odd) > len(values):
        return np.array(_respelt(values), dtype="S")
    texts = orjson.dumps(values, option=orjson.OPT_SERIALIZE_NUMPY)[1:-1].split(b",")
    for i, text in zip(odd.tolist(), _respelt(values[odd]) if len(odd) else []):
        texts[i] = text
    return np.array(texts, dtype="S")


def _respelt(values: np.ndarray) -> list[bytes]:
    """orjson's texts of floats spelt as repr spells them, fixed on the whole text at once."""
    blob = b"," + orjson.dumps(values, option=orjson.OPT_SERIALIZE_NUMPY)[1:-1] + b","
    if b"e-" in blob:
        for short, wide in _SHORT_EXPONENTS:
            blob = blob.replace(short, wide)
    if b"0.0000" in blob:
        if values.dtype == np.float32:
            blob = _SIX_PLACES.sub(rb",\1\2.\3e-06", blob)
        blob = _FIVE_PLACES.sub(rb",\1\2.\3e-05", blob).replace(b".e-0", b"e-0")  # (one digit: no point)
    if values.dtype == np.float32 and b"e+1" in blob:
        blob = _WIDE.sub(_positional, blob)
    texts = blob[1:-1].split(b",")
    if b"null" in blob:  # orjson's text of nan, inf and -inf
        for i in np.flatnonzero(~np.isfinite(values)).tolist():
            value = values[i]
            texts[i] = b"nan" if np.isnan(value) else b"inf" if value > 0 else b"-inf"
    return texts


def _positional(match: re.Match[bytes]) -> bytes:
    """A float32's text of exponent 13 to 15 as repr writes it: its digits, then zeros, then .0."""
    sign, first, rest, exponent = match.groups()
    return b"," + sign + (first + (rest or b"")).ljust(int(b"1" + exponent) + 1, b"0") + b".0"


def rows_bytes(prefix: bytes, columns: list[Coded]) -> tuple[bytes, np.ndarray]:
    """The CSV rows `prefix` + each row's fields (`columns`, of one length, no NULs in their
    texts) joined by commas, each ended by a newline; and each row's length in bytes."""
    count = len(columns[0][1]) if columns else 0
    if not count:
        return b"", np.zeros(0, dtype=np.int64)
    lengths = np.full(count, len(prefix) + len(columns), dtype=np.int64)
    for texts, codes in columns:  # (each text's length: its bytes before the padding)
        lengths += np.count_nonzero(texts.view(np.uint8).reshape(len(texts), -1), axis=1)[codes]
    return rows_data(prefix, columns), lengths


def rows_data(prefix: bytes, columns: list[Coded]) -> bytes:
    """`rows_bytes`' rows alone."""
    return b"".join(rows_blocks(prefix, columns))


def rows_blocks(prefix: bytes, columns: list[Coded]) -> list[bytes | bytearray]:
    """`rows_data` in blocks of `ROWS` rows, to be written one after another. Each field is a
    fixed-size item of a row (a structured dtype over the block's byte matrix) taken from its
    table at once; the padding is deleted by one C pass over the block's bytes (`translate` of
    the bytearray under the matrix), but for a prefix holding a NUL (a name): kept, by a mask."""
    count = len(columns[0][1]) if columns else 0
    if not count:
        return []
    widths = [texts.dtype.itemsize for texts, _ in columns]
    offsets = np.cumsum([len(prefix), *(width + 1 for width in widths[:-1])]).tolist()
    size = len(prefix) + sum(widths) + len(columns)  # each field and the comma or newline after it
    buffer = bytearray(min(ROWS, count) * size)
    block = np.frombuffer(buffer, dtype=np.uint8).reshape(-1, size)
    block[:, :len(prefix)] = np.frombuffer(prefix, dtype=np.uint8)
    for at, width in zip(offsets, widths):
        block[:, at + width] = _COMMA
    block[:, -1] = _NEWLINE
    fields = block.view(np.dtype({"names": [f"f{i}" for i in range(len(widths))], "itemsize": size,
                                  "formats": [f"V{width}" for width in widths], "offsets": offsets})).reshape(-1)
    tables = [texts.view(f"V{width}") for (texts, _), width in zip(columns, widths)]
    kept = np.ones_like(block, dtype=bool) if b"\0" in prefix else None
    parts: list[bytes | bytearray] = []
    for start in range(0, count, ROWS):
        stop = min(start + ROWS, count)
        for i, (table, (_, codes)) in enumerate(zip(tables, columns)):
            np.take(table, codes[start:stop], out=fields[f"f{i}"][:stop - start], mode="clip")  # (clip: unbuffered)
        if kept is not None:
            mask = np.not_equal(block[:stop - start], 0, out=kept[:stop - start])
            mask[:, :len(prefix)] = True
            parts.append(block[:stop - start][mask].tobytes())
        elif stop - start == len(block):
            parts.append(buffer.translate(None, b"\0"))
        else:  # (the last block, shorter)
            parts.append(block[:stop - start].tobytes().translate(None, b"\0"))
    return parts


def grouped_blocks(prefix: bytes, columns: list[Coded]) -> list[bytes | bytearray]:
    """`rows_blocks` of columns whose first field is the same along runs of rows (a histogram's
    step and wall time at each of its buckets) and whose other fields repeat together (the same
    bucket at many steps): each distinct tail of fields laid out once (`rows_blocks`), and each
    run of rows joined from those tails by `bytes.join`, its first field the separator. Where
    the tails do not repeat (half of them distinct or more), `rows_blocks` lays them all out."""
    count = len(columns[0][1]) if len(columns) > 1 else 0
    if not count or b"\0" in prefix:
        return rows_blocks(prefix, columns)
    found = _tails(columns[1:], count)
    if found is None or 2 * len(found[1][0]) > count:
        return rows_blocks(prefix, columns)
    tails, used = found
    laid = b"".join(rows_blocks(b"", [(texts, codes) for (texts, _), codes in zip(columns[1:], used)]))
    rows = np.array(laid.splitlines(keepends=True), dtype=object)[tails].tolist()  # (numbers: no other line breaks)
    heads, runs = columns[0]
    starts = np.flatnonzero(np.concatenate(([True], runs[1:] != runs[:-1])))
    ends = [*starts[1:].tolist(), count]
    texts = heads.tolist()
    return [(prefix + texts[head] + b",").join([b"", *rows[start:end]])
            for head, start, end in zip(runs[starts].tolist(), starts.tolist(), ends)]


def _tails(columns: list[Coded], count: int) -> tuple[np.ndarray, list[np.ndarray]] | None:
    """Each row's tail (its fields of `columns` together) as an index into the distinct tails,
    and the codes of each column's text in each distinct tail; None where a column alone has
    half as many distinct texts as rows or more (the tails would not repeat). A tail is a
    number of mixed radix (each column's texts used), numbered by one sort."""
    digits = []
    radix = 1
    for texts, codes in columns:
        kept, local = _numbered(codes, len(texts))  # (the texts used: not all of a shared table)
        radix *= len(kept)
        if 2 * len(kept) > count or radix >= 1 << 62:
            return None
        digits.append((kept, local))
    key = np.zeros(count, dtype=np.int64)
    for kept, local in digits:
        key *= len(kept)
        key += local
    if radix <= 2 * count + 4096:
        distinct, tail = _numbered(key, radix)
    elif radix < 1 << 43 and count < 1 << 20:
        distinct, tail = _ranked(key)
    else:
        distinct, tail = _distinct(key)
    used = []
    for kept, _ in reversed(digits):
        distinct, digit = np.divmod(distinct, len(kept))
        used.append(kept[digit])
    return tail, used[::-1]


def _ranked(values: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """`_distinct` of integers 0 <= value < 2**43, fewer than 2**20 of them: each value sorted
    with its index in its low bits (one sort of int64s, not a sort and a binary search each)."""
    order = np.sort((values << 20) | np.arange(len(values)))
    ordered = order >> 20
    first = np.concatenate(([True], ordered[1:] != ordered[:-1]))
    ranks = np.empty(len(values), dtype=np.intp)
    ranks[order & ((1 << 20) - 1)] = np.cumsum(first) - 1
    return ordered[first], ranks


def _numbered(values: np.ndarray, size: int) -> tuple[np.ndarray, np.ndarray]:
    """`_distinct` of integers 0 <= value < `size`, by marking a table of `size`, not sorting."""
    seen = np.zeros(size, dtype=bool)
    seen[values] = True
    return np.flatnonzero(seen), (np.cumsum(seen, dtype=np.intp) - 1)[values]
