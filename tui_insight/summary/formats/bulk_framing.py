"""The same framed records as `framing.scan_records`, read by blocks of a few MB with little
Python per record (the store reads through it: a TensorBoard file holds a million 80-byte
records per 100 MB).
"""
from __future__ import annotations

import io
import os
import struct
from typing import BinaryIO, Iterator, Sequence

import google_crc32c
import numpy as np

from .framing import MASK_DELTA, U64, FOOTER_SIZE, HEADER_SIZE, MAX_PAYLOAD, ScanReport, resync, masked_crc

# -- bulk framing -------------------------------------------------------------------------------
#
# `scan_batches` reads what `scan_records` reads, block by block, with as little Python per
# record as it can: a training log repeats a cycle of record lengths (tag after tag, step after
# step), so once the walk has seen the cycle it guesses where the next records of the block
# start and checks the guess for all of them at once with numpy (a header is its length and
# the CRC of that length, so a guessed header is right when its 12 bytes are the expected
# ones). Where the guess fails the walk goes on record by record. Payload CRCs are checked per
# payload length, first all at once by one CRC-32C over the payloads each followed by its CRC
# (`_all_good`). Where that finds a damaged one, each is checked: CRC-32C is affine, so for
# rows of equal length crc(row) = crc(first row) xor the contributions of the bytes where the
# row differs from the first, read from a 256-entry table per byte position (only the few
# positions that vary, wall time, step and values, cost a numpy operation over all rows);
# long payloads one by one by google_crc32c.

BLOCK_SIZE = 4 << 20  # bytes read at once
MAX_CYCLE = 4096  # longest cycle of record lengths guessed (records of a step)
_GUESS_CHUNK = 1 << 16  # records checked per guess, at most
# ... and at first: a guess that held whole checks twice as many the next time; after one that
# broke, about twice the cycle's run between breaks. A cycle that breaks often (scalars of a
# few steps, then histograms of other lengths) costs its run's checks per guess, not a block's;
# the walk takes the records that broke it one by one and guesses the cycle again where a
# record of the length it broke at comes (without searching for it again).
_GUESS_FIRST = 256
_RESUME_WALK = 512  # records walked one by one, at most, waiting for a broken cycle to go on
_TABLE_MAX_LENGTH = 512  # payloads longer than this are CRC-checked one by one ...
_TABLE_MAX_VARYING = 48  # ... and so are rows differing from the first in more positions
_TABLE_MIN_ROWS = 8
# Payloads of one length are first checked all at once (`_all_good`) when a copy of them that
# holds their CRCs is made anyway, or when they are few bytes in all (a sweep's small files):
# gathering a copy of megabytes of rows only for that costs more than the per-row checks.
_ALL_GOOD_COPY_MAX = 1 << 20
_HEADER = struct.Struct("<QI")
_OPENING_MAX = 1 << 16  # record lengths of a file's opening kept for the next file's walk
_OPENING_FIRST = 64  # of which the next file checks this many first (a file of another layout stops there)
_header_words: dict[int, int] = {}  # payload length -> masked CRC of its header
_crc_tables: dict[tuple[int, int], np.ndarray] = {}  # (payload length, position) -> uint32[256]


def _header_word(length: int) -> int:
    word = _header_words.get(length)
    if word is None:
        word = masked_crc(U64.pack(length))
        if 0 < length <= MAX_PAYLOAD:  # the walk takes a length found here as a good one
            if len(_header_words) > 100_000:
                _header_words.clear()
            _header_words[length] = word
    return word


def _crc_table(length: int, at: int) -> np.ndarray:
    """What each value of the byte at `at` of a `length`-byte message xors into its CRC-32C."""
    table = _crc_tables.get((length, at))
    if table is None:
        zeros = bytearray(length)
        base = google_crc32c.value(bytes(zeros))
        basis = []
        for bit in range(8):
            zeros[at] = 1 << bit
            basis.append(google_crc32c.value(bytes(zeros)) ^ base)
        bits = (np.arange(256)[:, None] >> np.arange(8)) & 1
        table = np.bitwise_xor.reduce(bits.astype(np.uint32) * np.asarray(basis, dtype=np.uint32), axis=1)
        if len(_crc_tables) > 8192:
            _crc_tables.clear()
        _crc_tables[(length, at)] = table = table.astype(np.uint32)
    return table


_stacked: dict[tuple[int, bytes], tuple[np.ndarray, np.ndarray]] = {}  # (length, positions) -> `_stacked_tables`


def _stacked_tables(length: int, positions: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The `_crc_table`s of `positions` one after the other in one uint32 array, and where each
    starts in it (uint16: at most `_TABLE_MAX_VARYING` tables): a byte `b` at `positions[k]`
    contributes `flat[offsets[k] + b]`. Kept, as the next file of a sweep varies at the same
    positions."""
    key = (length, positions.tobytes())
    found = _stacked.get(key)
    if found is None:
        flat = np.concatenate([np.zeros(0, dtype=np.uint32), *(_crc_table(length, at) for at in positions.tolist())])
        if len(_stacked) > 256:
            _stacked.clear()
        found = _stacked[key] = (flat, np.arange(len(positions), dtype=np.uint16) * np.uint16(256))
    return found


def unaligned(array: np.ndarray, dtype: str) -> np.ndarray:
    """The bytes of `array` read as little-endian `dtype` at every offset: `view[i]` is the
    number whose bytes start at `array[i]` (so one index per number gathers a field)."""
    size = np.dtype(dtype).itemsize
    return np.ndarray(shape=(max(0, len(array) - size + 1),), dtype=dtype, buffer=array, strides=(1,))


def _mask(crc: np.ndarray) -> np.ndarray:
    """`masked_crc`'s rotation and offset over an array of uint32 CRCs."""
    return ((crc >> np.uint32(15)) | (crc << np.uint32(17))) + np.uint32(MASK_DELTA)


def strided(array: np.ndarray, starts: np.ndarray, size: int) -> np.ndarray | None:
    """uint8[len(starts), size], a view of the bytes at each start when they are evenly spaced
    (and do not overlap); else None."""
    count = len(starts)
    if count == 1:
        return array[int(starts[0]):int(starts[0]) + size].reshape(1, size)
    if count == 0:
        return None
    steps = starts[1:] - starts[:-1]  # (np.diff, without its Python: called a dozen times a job)
    stride = int(steps[0])
    if stride >= size and bool((steps == stride).all()):
        return np.lib.stride_tricks.as_strided(array[int(starts[0]):], shape=(count, size),
                                               strides=(stride, 1), writeable=False)
    return None


def _rows(data: bytes, array: np.ndarray, starts: np.ndarray, size: int) -> np.ndarray:
    """uint8[len(starts), size]: the bytes at each start; a view when they are evenly spaced."""
    view = strided(array, starts, size)
    if view is not None:
        return view
    return copied_rows(array, starts, size)


def copied_rows(array: np.ndarray, starts: np.ndarray, size: int) -> np.ndarray:
    """uint8[len(starts), size], a copy of the bytes at each start (each `start + size` within
    `array`): one index per row into overlapping items of `size` bytes, so numpy copies each
    row whole (a window of bytes per row copied byte by byte, twice as slow)."""
    items = np.ndarray(shape=(len(array) - size + 1,), dtype=np.dtype((np.void, size)), buffer=array, strides=(1,))
    return items[starts].view(np.uint8).reshape(len(starts), size)


def _gathered(array: np.ndarray, starts: np.ndarray, size: int) -> tuple[np.ndarray, np.ndarray]:
    """(uint8[len(starts), >= size]: a copy of each row and maybe a few bytes after it, the
    byte positions < `size` where a row differs from the first): rows widened to whole 8-byte
    words when the block holds them, so the rows are compared a word at a time; and to hold
    the 4 bytes after each payload (its stored CRC), which `_all_good` then checks in place."""
    wide = -(-(size + 4) // 8) * 8
    if int(starts.max()) + wide > len(array):  # (the last row's words would run past the block)
        rows = copied_rows(array, starts, size)
        return rows, np.flatnonzero(np.bitwise_or.reduce(rows ^ rows[0], axis=0))
    rows = copied_rows(array, starts, wide)
    words = rows.view(np.uint64)
    changes = words ^ words[0]
    # (16 rows folded at once: a reduce over rows of a few words is a loop per row)
    folds = len(changes) // 16
    seen = np.bitwise_or.reduce(changes[:folds * 16].reshape(folds, 16 * words.shape[1]), axis=0)
    seen = np.bitwise_or.reduce(np.concatenate([seen.reshape(16, -1) if folds else changes[:0], changes[folds * 16:]]), axis=0)
    return rows, np.flatnonzero(seen.view(np.uint8)[:size])


def _crc_ok(data: bytes, array: np.ndarray, starts: np.ndarray,
            size: int) -> tuple[np.ndarray, tuple[np.ndarray, np.ndarray] | None, np.ndarray | None]:
    """Which payloads of `size` bytes at `starts` carry the right masked CRC after them; and,
    when found on the way, (a payload, the byte positions where any other differs from it) and
    a copy of the payloads (uint8[len(starts), size]: `Payloads.rows` gives it again)."""
    stored = unaligned(array, "<u4")[starts + size]
    same: tuple[np.ndarray, np.ndarray] | None = None
    copied = rows = wide = None
    if size <= _TABLE_MAX_LENGTH and len(starts) >= _TABLE_MIN_ROWS:
        view = strided(array, starts, size)
        rows, varying = (view, _varying(array, starts, view)) if view is not None else _gathered(array, starts, size)
        if len(varying) <= _TABLE_MAX_VARYING:
            same = (rows[0, :size].copy(), varying)
            copied = rows[:, :size] if view is None else None
        if view is None and rows.shape[1] >= size + 4:
            wide = rows  # (a copy that holds the stored CRCs: checked in place)
    if len(starts) > 1 and (wide is not None or len(starts) * size <= _ALL_GOOD_COPY_MAX) and _all_good(
            array, starts, size, stored, wide):
        return np.ones(len(starts), dtype=bool), same, copied
    if same is not None and rows is not None:
        return _crc_by_tables(size, stored, rows, same), same, copied
    value = google_crc32c.value  # (masked for all rows at once)
    crcs = np.fromiter([value(data[s:s + size]) for s in starts.tolist()], dtype=np.uint32, count=len(starts))
    return _mask(crcs) == stored, None, None


_ONE_CALL = google_crc32c.implementation == "c"  # (the pure Python fallback takes bytes, one payload a call)
_good_crcs: dict[tuple[int, int, int], int] = {}  # (rows, width, payload length) -> `_all_good`'s CRC of good rows


def _all_good(array: np.ndarray, starts: np.ndarray, size: int, stored: np.ndarray, wide: np.ndarray | None) -> bool:
    """Whether every payload of `size` bytes at `starts` has the CRC `stored` (masked) after it,
    by one CRC-32C over them all: each payload followed by its CRC unmasked (and zeros up to
    the row's width) leaves the CRC's register in one state whatever the payload, so the rows
    of good payloads have the CRC of as many rows of zeros and their CRC (`_good_crcs`). A
    damaged payload changes the register by a nonzero amount that the bytes after it only
    move around: one damaged payload is always found; several cancel out as rarely as one
    damaged payload passes its own CRC (1 in 2**32). False: some payload may be damaged (the
    caller checks them one by one). `wide`: a copy of the rows widened past their CRCs
    (`_gathered`), written into; else the rows are copied here."""
    if not _ONE_CALL:
        return False
    if wide is None:
        wide = copied_rows(array, starts, size + 4)
    count, width = wide.shape
    x = stored - np.uint32(MASK_DELTA)  # (`masked_crc` undone: the CRCs themselves)
    wide[:, size:size + 4] = ((x << np.uint32(15)) | (x >> np.uint32(17))).astype("<u4").view(np.uint8).reshape(count, 4)
    wide[:, size + 4:] = 0
    key = (count, width, size)
    good = _good_crcs.get(key)
    if good is None:
        row = np.zeros(width, dtype=np.uint8)
        row[size:size + 4] = np.frombuffer(struct.pack("<I", google_crc32c.value(bytes(size))), dtype=np.uint8)
        if len(_good_crcs) > 1024:
            _good_crcs.clear()
        good = _good_crcs[key] = google_crc32c.value(np.tile(row, count))
    return google_crc32c.value(wide) == good


def _crc_by_tables(size: int, stored: np.ndarray, rows: np.ndarray, same: tuple[np.ndarray, np.ndarray]) -> np.ndarray:
    """Which of `rows` (uint8[n, >= size]: payloads of `size` bytes, all `reference` but at the
    byte positions `varying`: `same`) carry the right masked CRC (`stored`), each checked."""
    # crc(row) = crc(first row) ^ each varying byte's contribution there ^ its own: the
    # varying bytes of all rows gathered at once, each byte position's table a slice of
    # one array, so one `take` reads every contribution (a numpy call per position cost
    # 0.2 ms more on the 1,800 rows of a small sweep run).
    reference, varying = same
    flat, offsets = _stacked_tables(size, varying)
    # (uint8[k, n] -> table indices, as uint16: a quarter of intp's bytes to write, and
    # `take` widens them as it reads them; 106 against 131 us for 1,779 rows of 38)
    index = rows.T[varying].astype(np.uint16)
    index += offsets[:, None]
    # (over the first axis: each a whole row of n at once; over the second, numpy
    # reduces k numbers at a time, 4x slower)
    crc = np.bitwise_xor.reduce(flat.take(index), axis=0)
    crc ^= np.uint32(google_crc32c.value(reference.tobytes()) ^ int(crc[0]))
    return _mask(crc) == stored


def _varying(array: np.ndarray, starts: np.ndarray, rows: np.ndarray) -> np.ndarray:
    """The byte positions where some of `rows` (the payloads at `starts` of `array`) differs
    from the first. Evenly spaced payloads (a log of tags of one name length) are compared
    each with the next through the block itself, a whole stride at a time (a contiguous xor
    and a fold, no index per byte)."""
    count, size = rows.shape
    stride = int(starts[1] - starts[0]) if count > 16 else 0
    if not stride or rows.strides[0] != stride:
        return np.flatnonzero(np.bitwise_or.reduce(rows ^ rows[0], axis=0))
    first = int(starts[0])
    whole = min(count, (len(array) - first) // stride)  # rows whose whole stride is in the block
    region = array[first:first + whole * stride]
    changes = (region[stride:] ^ region[:-stride]).reshape(whole - 1, stride)  # row i + 1 against row i
    folds = (whole - 1) // 16
    seen = np.bitwise_or.reduce(changes[:folds * 16].reshape(folds, 16 * stride), axis=0).reshape(16, stride)
    seen = np.bitwise_or.reduce(np.concatenate([seen, changes[folds * 16:]]), axis=0)[:size]
    if whole < count:  # the last payload ends the block: against the first
        seen |= np.bitwise_or.reduce(rows[whole:] ^ rows[0], axis=0)
    return np.flatnonzero(seen)


def varint(data: bytes, pos: int, end: int, most: int = 10) -> tuple[int, int]:
    """(value, next position) of the protobuf varint at `pos`, for the layouts' checks of one
    record; ValueError if it runs past `end` or is longer than `most` bytes."""
    value = shift = 0
    while True:
        if pos >= end or shift >= 7 * most:
            raise ValueError("bad varint")
        byte = data[pos]
        value |= (byte & 0x7F) << shift
        pos += 1
        shift += 7
        if not byte & 0x80:
            return value, pos


def period_of(values: np.ndarray, limit: int = MAX_CYCLE) -> int:
    """The p <= `limit` for which `values` repeats its first p values, all different, over and
    over (values[i] == values[i + p]): each value's positions are then one slice, i::p. 0 if none.
    (A training loop writes its tags in the same order every step.)"""
    n = len(values)
    if not n:
        return 0
    for p in (np.flatnonzero(values[1:limit + 1] == values[0]) + 1)[:4].tolist():
        if len(set(values[:p].tolist())) == p and bool((values[p:] == values[:-p]).all()):
            return p
    if n <= limit and len(set(values.tolist())) == n:
        return n  # no value repeats (shorter than a cycle)
    return 0


class Payloads(Sequence[bytes]):
    """Payloads held in one buffer: `payloads[i]` is bytes, `rows` reads many at once."""

    def __init__(self, data: bytes, starts: np.ndarray, lengths: np.ndarray,
                 same: dict[int, tuple[np.ndarray, np.ndarray]] | None = None,
                 copied: dict[int, tuple[np.ndarray, np.ndarray]] | None = None,
                 groups: list[tuple[int, np.ndarray]] | None = None) -> None:
        self.data = data
        self.array = np.frombuffer(data, dtype=np.uint8)
        self.starts = starts  # int64: where each payload starts in `data`
        self.lengths = lengths  # int64
        # size -> (reference, varying): every payload of that size is `reference` outside the
        # byte positions `varying` (found by the framing's CRC check; spares the layouts a pass)
        self.same = same or {}
        # size -> (starts, their payloads' bytes): copies the CRC check made (`rows` gives them again)
        self.copied = copied or {}
        self._groups = groups  # `by_length`, when the framing grouped these very payloads

    def by_length(self) -> list[tuple[int, np.ndarray]]:
        """The payloads by length, shortest first: (length, their indices in order) each."""
        if self._groups is None:
            self._groups = [(length, group) for length, group, _ in length_groups(self.starts, self.lengths)]
        return self._groups

    @classmethod
    def of(cls, payloads: Sequence[bytes]) -> "Payloads":
        if isinstance(payloads, Payloads):
            return payloads
        lengths = np.fromiter(map(len, payloads), dtype=np.int64, count=len(payloads))
        starts = np.zeros(len(payloads), dtype=np.int64)
        np.cumsum(lengths[:-1], out=starts[1:])
        return cls(b"".join(payloads), starts, lengths)

    def __len__(self) -> int:
        return len(self.starts)

    def __getitem__(self, i):  # type: ignore[override]
        start = self.starts.item(i)
        return self.data[start:start + self.lengths.item(i)]

    def __iter__(self) -> Iterator[bytes]:
        data = self.data
        for start, length in zip(self.starts.tolist(), self.lengths.tolist()):
            yield data[start:start + length]

    def rows(self, indices: np.ndarray, size: int) -> np.ndarray:
        """uint8[len(indices), size] of the payloads at `indices`, all `size` bytes long."""
        starts = self.starts[indices]
        copied = self.copied.get(size)
        if copied is not None and len(copied[0]) == len(starts) and bool((copied[0] == starts).all()):
            return copied[1]
        return _rows(self.data, self.array, starts, size)


class RecordBatch(Sequence[tuple[int, bytes]]):
    """Good records of one block of a file, in file order: `batch[i]` is (offset, payload)."""

    def __init__(self, offsets: np.ndarray, payloads: Payloads) -> None:
        self.offsets = offsets  # int64: each record's offset in the file
        self.payloads = payloads

    def __len__(self) -> int:
        return len(self.offsets)

    def __getitem__(self, i):  # type: ignore[override]
        return self.offsets.item(i), self.payloads[i]

    def __iter__(self) -> Iterator[tuple[int, bytes]]:
        return zip(self.offsets.tolist(), self.payloads)


def length_groups(at: np.ndarray, lengths: np.ndarray) -> list[tuple[int, np.ndarray, np.ndarray]]:
    """The records at `at` (of `lengths`) by payload length: (length, their indices in file
    order, where their payloads start) for each length."""
    order = np.argsort(lengths, kind="stable")
    edges = np.flatnonzero(lengths[order][1:] != lengths[order][:-1]) + 1
    return [(int(lengths[group[0]]), group, at[group] + HEADER_SIZE) for group in np.split(order, edges)]


class Opening:
    """The record lengths at the start of the last file scanned from its start, as a guess of
    where the next file's records are: the runs of a sweep are written by one program, so their
    files repeat one sequence of lengths, and a walk placed by it reads a small file's records
    in one numpy pass instead of learning its cycle again. Only headers are placed by it: each
    guessed header is checked (its length and that length's CRC), then each payload's CRC, as
    for any record."""

    def __init__(self, lengths: np.ndarray) -> None:
        self.lengths = lengths  # int64
        spans = lengths + HEADER_SIZE + FOOTER_SIZE
        self.at = np.zeros(len(lengths), dtype=np.int64)  # where each record starts
        np.cumsum(spans[:-1], out=self.at[1:])
        sizes, inverse = np.unique(lengths, return_inverse=True)
        self.words = np.asarray([_header_word(int(n)) for n in sizes.tolist()], dtype=np.uint32)[inverse]
        self.ends = self.at + spans  # where each record ends
        self._groups: list[tuple[int, np.ndarray, np.ndarray]] | None = None

    def groups(self) -> list[tuple[int, np.ndarray, np.ndarray]]:
        """`length_groups` of the whole opening (a block it placed whole has these records)."""
        if self._groups is None:
            self._groups = length_groups(self.at, self.lengths)
        return self._groups

    @staticmethod
    def of(at: np.ndarray, lengths: np.ndarray, last: "Opening | None" = None) -> "Opening | None":
        """The opening of a block read from byte 0 whose records are `at`, `lengths` (as the walk
        found them); None unless they follow one another from byte 0 (an empty or oversized record
        skipped, or a bad header, leaves a gap a guess by lengths would not see). `last` itself
        when its lengths are these (the files of a sweep: nothing to build again)."""
        count = min(len(at), _OPENING_MAX)
        if count < 2 or at[0] != 0:
            return None
        at, lengths = at[:count], lengths[:count]
        if not (at[1:] == at[:-1] + lengths[:-1] + HEADER_SIZE + FOOTER_SIZE).all():
            return None
        if last is not None and np.array_equal(last.lengths, lengths):
            return last
        return Opening(lengths.copy())

    def place(self, array: np.ndarray, n: int) -> int:
        """How many records of the opening start `array` (`n` bytes, a file's first block), each
        header checked and each record whole in the block."""
        at, lengths, words = self.at, self.lengths, self.words
        count = int(np.searchsorted(self.ends, n, side="right"))
        placed = 0
        for end in (min(count, _OPENING_FIRST), count):  # a few first: another layout stops early
            if end <= placed:
                continue
            part = slice(placed, end)
            wrong = ((unaligned(array, "<u8")[at[part]] != lengths[part].view(np.uint64))
                     | (unaligned(array, "<u4")[at[part] + 8] != words[part]))
            bad = np.flatnonzero(wrong)
            if len(bad):
                return placed + int(bad[0])
            placed = end
        return placed


_opening: Opening | None = None  # the last file's (`scan_batches` from byte 0 keeps and reads it)


class _Walk:
    """Finds the records of one block: record by record, or by guessing the cycle of lengths."""

    def __init__(self, opening: Opening | None = None) -> None:
        self.opening = opening  # where the first block's records are likely to start (`Opening`)
        self.lengths: list[int] = []  # lengths of the last records walked or guessed (the cycle)
        self.next_guess = 8  # records to walk before guessing again
        self.guess_records = _GUESS_FIRST  # records the next guess checks
        self._last_cycle: tuple[tuple[int, ...], tuple] = ((), ())  # (lengths, `_cycle` of them)
        # A cycle a guess held for a while and then broke (scalars of a few steps, then histograms):
        # its lengths from where it broke. The walk guesses it again as soon as a record is of
        # its first length, without finding the cycle again (not in the records walked meanwhile).
        self.resume: tuple[int, ...] = ()
        self.run = 0  # records guessed since the cycle last broke
        self.placed = 0  # records of the last block placed by `opening` (its first block only)

    def block(self, data: bytes, base: int, size: int, report: ScanReport,
              notes: list[tuple[int, str]]) -> tuple[list[np.ndarray], list[np.ndarray], int, str, int]:
        """(chunks of record starts, chunks of lengths, where the walk stopped, why, length there).

        Why: "end" (the file is read), "tail" (an incomplete record), "block" (the next record
        is past the block: read on from there; length is its payload's), "header" (a bad header).
        """
        n = len(data)
        array = np.frombuffer(data, dtype=np.uint8)
        at_chunks: list[np.ndarray] = []
        length_chunks: list[np.ndarray] = []
        at: list[int] = []
        lengths: list[int] = []
        history = self.lengths
        words = _header_words  # good payload lengths -> their header's CRC
        unpack = _HEADER.unpack_from
        at_append, length_append = at.append, lengths.append
        remembered = 0  # lengths[:remembered] are in the history already
        p = 0
        opening, self.opening = self.opening, None
        self.placed = 0
        if opening is not None and base == 0:
            placed = self.placed = opening.place(array, n)
            if placed:
                at_chunks.append(opening.at[:placed])
                length_chunks.append(opening.lengths[:placed])
                self.lengths.extend(opening.lengths[max(0, placed - 2 * MAX_CYCLE):placed].tolist())
                p = int(opening.at[placed - 1] + opening.lengths[placed - 1]) + HEADER_SIZE + FOOTER_SIZE
        while True:
            # Record by record while the headers are the usual ones, up to the next guess.
            resume = self.resume[0] if self.resume else -1
            for _ in range(self.next_guess if resume < 0 else _RESUME_WALK):
                if p + HEADER_SIZE > n:
                    break
                length, word = unpack(data, p)
                if words.get(length) != word:
                    break
                if length == resume:  # a broken cycle goes on: guess it from here
                    resume = -2
                    break
                end = p + HEADER_SIZE + length + FOOTER_SIZE
                if end > n:
                    break
                at_append(p)
                length_append(length)
                p = end
            else:
                if resume >= 0:  # the broken cycle did not go on: look for a cycle again
                    self.resume = ()
                resume = -2
            if resume == -2:
                found_at, found_lengths = self._guess(array, p, n, lengths[remembered:])
                remembered = len(lengths)
                if len(found_at):
                    at_chunks += [np.asarray(at, dtype=np.int64), found_at]
                    length_chunks += [np.asarray(lengths, dtype=np.int64), found_lengths]
                    at.clear()
                    lengths.clear()
                    remembered = 0
                    p = int(found_at[-1] + found_lengths[-1]) + HEADER_SIZE + FOOTER_SIZE
                self.next_guess = 8 if len(found_at) >= 64 else min(2 * self.next_guess, 2 * MAX_CYCLE)
                continue
            # Anything unusual, by the rules of `scan_records`.
            remaining = size - base - p
            if remaining <= 0:
                why, length = "end", 0
                break
            if remaining < HEADER_SIZE:
                why, length = "tail", 0
                break
            if p + HEADER_SIZE > n:
                why, length = "block", 0
                break
            length, word = unpack(data, p)
            if word != _header_word(length):
                why = "header"
                break
            if length > remaining - HEADER_SIZE - FOOTER_SIZE:
                why = "tail"
                break
            if length == 0 or length > MAX_PAYLOAD:
                notes.append((base + p, f"{'empty' if length == 0 else 'oversized'} record at byte {base + p}"))
                report.bad_records += 1
                history.clear()
                self.resume = ()
                p += HEADER_SIZE + length + FOOTER_SIZE
                if p > n:
                    why, length = "block", 0
                    break
                continue
            if p + HEADER_SIZE + length + FOOTER_SIZE > n:
                why = "block"
                break
            at_append(p)  # a length seen for the first time
            length_append(length)
            p += HEADER_SIZE + length + FOOTER_SIZE
        report.end = base + p
        at_chunks.append(np.asarray(at, dtype=np.int64))
        length_chunks.append(np.asarray(lengths, dtype=np.int64))
        self._remember(lengths[remembered:])
        return at_chunks, length_chunks, p, why, length

    def _remember(self, lengths: list[int]) -> None:
        """Keep the last lengths seen: the cycle the next guess continues."""
        history = self.lengths
        history += lengths[-2 * MAX_CYCLE:]
        if len(history) > 4 * MAX_CYCLE:
            del history[:-2 * MAX_CYCLE]

    NEAR = 64  # records before the last searched first for its cycle (a step's tags)

    def _period(self, far: bool = True) -> tuple[int, bool]:
        """The shortest cycle the last record lengths repeat (seen twice), 0 if none; and
        whether it is steady: the last `NEAR` lengths (or twice the cycle) all repeat it. A
        steady cycle is preferred to a shorter one that is not: nine scalars of one length
        and a histogram repeat a cycle of ten, not the nine scalars' cycle of one, which would
        break at every histogram. Cycles longer than `NEAR` records are looked for only if
        `far` (the search costs a pass over the history: a walk that has just left a cycle,
        among histograms, skips it)."""
        h = self.lengths
        if len(h) < 2:
            return 0, False
        last = h[-1]
        most = min(len(h) // 2, MAX_CYCLE)
        tried = loose = 0
        for reach in (min(self.NEAR, most), most):
            if reach > self.NEAR and not far:
                break
            if reach > tried:
                try:  # (a length not in reach, as a histogram's often is: no copy)
                    h.index(last, len(h) - 1 - reach, len(h) - 1 - tried)
                except ValueError:
                    tried = reach
                    continue
            before = h[-2:-2 - reach:-1]  # the lengths before the last, nearest first
            at = tried - 1
            while True:  # each earlier record of the last one's length (list.index: C speed)
                try:
                    at = before.index(last, at + 1)
                except ValueError:
                    break
                period = at + 1
                # (the record before the last first: most candidates fail there, without a copy)
                if h[-2] == h[-2 - period] and h[-period:] == h[-2 * period:-period]:
                    window = min(len(h), max(2 * period, self.NEAR))
                    if h[-window + period:] == h[-window:-period]:
                        return period, True
                    loose = loose or period
            tried = reach
        return loose, False

    def _cycle(self, key: tuple[int, ...]) -> tuple[np.ndarray, np.ndarray, int, np.ndarray]:
        """The cycle's lengths `key` as an array, where each record starts within the cycle,
        the cycle's bytes, and each header's CRC word; kept while the cycle is the same."""
        period = len(key)
        if self._last_cycle[0] != key:
            cycle = np.asarray(key, dtype=np.int64)
            spans = cycle + HEADER_SIZE + FOOTER_SIZE
            within = np.zeros(period, dtype=np.int64)
            np.cumsum(spans[:-1], out=within[1:])
            words = np.asarray([_header_word(length) for length in key], dtype=np.uint32)
            self._last_cycle = (key, (cycle, within, int(spans.sum()), words))
        return self._last_cycle[1]

    def _guess(self, array: np.ndarray, p: int, n: int, walked: list[int]) -> tuple[np.ndarray, np.ndarray]:
        """The records from `p` on that continue the cycle, as far as their headers check out
        (`walked`: the lengths walked since the last guess, not yet remembered)."""
        self._remember(walked)
        empty = np.zeros(0, dtype=np.int64)
        # A broken cycle that goes on is guessed again, unless the lengths show a steady one.
        key, self.resume = self.resume, ()
        period, steady = self._period(far=not key and self.next_guess >= self.NEAR)
        if steady or not key:
            if not period:
                return empty, empty
            key = tuple(self.lengths[-period:])
        period = len(key)
        cycle, within, cycle_bytes, words = self._cycle(key)
        cycles = min((n - p) // cycle_bytes + 1, max(1, self.guess_records // period))
        at = (p + np.arange(cycles, dtype=np.int64)[:, None] * cycle_bytes + within).reshape(-1)
        lengths = np.broadcast_to(cycle, (cycles, period)).reshape(-1)
        fits = int(np.count_nonzero(at + lengths + HEADER_SIZE + FOOTER_SIZE <= n))
        if not fits:
            return empty, empty
        at, lengths = at[:fits], lengths[:fits]
        # A header is its length (u64) and that length's masked CRC (u32): two words per record.
        wrong = ((unaligned(array, "<u8")[at] != lengths.view(np.uint64))
                 | (unaligned(array, "<u4")[at + 8] != np.broadcast_to(words, (cycles, period)).reshape(-1)[:fits]))
        wrong = np.flatnonzero(wrong)
        good = int(wrong[0]) if len(wrong) else fits
        # A guess that held whole checks twice as many next time; one that broke, about twice
        # the cycle's run between its breaks.
        self.run += good
        if good == fits:
            self.guess_records = min(2 * self.guess_records, _GUESS_CHUNK)
        else:
            self.guess_records = min(2 * max(self.run, _GUESS_FIRST // 2), _GUESS_CHUNK)
            self.run = 0
        if 0 < good < fits:
            phase = good % period
            self.resume = key[phase:] + key[:phase]
        if good:
            self.lengths.extend(lengths[max(0, good - 2 * MAX_CYCLE):good].tolist())
        return at[:good], lengths[:good]


def _descriptor(fh: BinaryIO) -> int:
    """The descriptor of a plain file opened for reading (`_read_at` reads it), else -1: bytes
    in memory, or a file object of another kind (whose descriptor may not hold what it reads)."""
    if not isinstance(fh, (io.BufferedReader, io.FileIO)) or not hasattr(os, "pread"):
        return -1
    try:
        return fh.fileno()
    except (OSError, ValueError):
        return -1


def _read_at(fd: int, pos: int, want: int) -> bytes:
    """Up to `want` bytes at `pos` of the file `fd` (fewer at its end), read by the system
    straight into the bytes returned: through a file object, a block smaller than its 1 MB
    buffer (a sweep run's) was read into that buffer, then copied out (160 against 80 us for
    a sweep run's 0.93 MB)."""
    data = os.pread(fd, want, pos)
    if 0 < len(data) < want:  # (short of the end: a read some network file systems cut)
        parts, got = [data], len(data)
        while got < want and parts[-1]:
            parts.append(os.pread(fd, want - got, pos + got))
            got += len(parts[-1])
        data = b"".join(parts)
    return data


def _seek_read(fh: BinaryIO, pos: int, want: int) -> bytes:
    fh.seek(pos)
    return fh.read(want)


def scan_batches(fh: BinaryIO, start: int, size: int, report: ScanReport, max_records: int = 1 << 16,
                 max_bytes: int = BLOCK_SIZE) -> Iterator[RecordBatch]:
    """`scan_records` by blocks of about `max_bytes`: the same records and report, in batches
    of at most `max_records` (a record longer than a block is read in a block of its own)."""
    global _opening
    pos = start
    report.end = start
    walk = _Walk(_opening if start == 0 else None)
    want = max_bytes
    fd = _descriptor(fh)
    while pos < size:
        want = min(max(want, HEADER_SIZE), size - pos)
        data = _read_at(fd, pos, want) if fd >= 0 else _seek_read(fh, pos, want)
        if not data:
            break
        notes: list[tuple[int, str]] = []
        at_chunks, length_chunks, stop, why, next_length = walk.block(data, pos, size, report, notes)
        at = np.concatenate(at_chunks)
        lengths = np.concatenate(length_chunks)
        # A block whose records are all the opening's, and no other (a sweep's small files):
        # the opening stays, and its records' groups by length are known.
        whole = _opening is not None and walk.placed == len(at) == len(_opening.lengths)
        if pos == 0 and not notes and why != "header" and not whole:
            _opening = Opening.of(at, lengths, _opening) or _opening
        good = np.ones(len(at), dtype=bool)
        groups: list[tuple[int, np.ndarray, np.ndarray]] = []
        same: dict[int, tuple[np.ndarray, np.ndarray]] = {}
        copied: dict[int, tuple[np.ndarray, np.ndarray]] = {}
        if len(at):
            array = np.frombuffer(data, dtype=np.uint8)
            groups = _opening.groups() if whole and _opening is not None else length_groups(at, lengths)
            for length, group, starts in groups:
                good[group], found, rows = _crc_ok(data, array, starts, length)
                if found is not None:
                    same[length] = found
                if rows is not None:
                    copied[length] = (starts, rows)
        # (the CRC check's groups serve the layouts when these are the batch's payloads)
        by_length = [(length, group) for length, group, _ in groups] if len(at) <= max_records else None
        bad = np.flatnonzero(~good)
        if len(bad):
            by_length = None
            report.bad_records += len(bad)
            notes += [(pos + a, f"bad payload CRC at byte {pos + a}") for a in at[bad].tolist()]
            at, lengths = at[good], lengths[good]
        for _, text in sorted(notes):
            report.note(text)
        end = report.end
        for first in range(0, len(at), max_records):
            part = slice(first, first + max_records)
            batch = RecordBatch(pos + at[part], Payloads(data, at[part] + HEADER_SIZE, lengths[part], same, copied,
                                                         by_length))
            last = first + len(batch) - 1
            report.end = end if last == len(at) - 1 else pos + int(at[last] + lengths[last]) + HEADER_SIZE + FOOTER_SIZE
            yield batch
        report.end = end
        if why == "header":
            bad_at = pos + stop
            report.bad_records += 1
            report.note(f"bad header CRC at byte {bad_at}")
            walk.lengths.clear()
            walk.resume = ()
            nxt = resync(fh, bad_at + 1, size)
            if nxt is None:
                report.note(f"no valid record after byte {bad_at}; rest of file skipped")
                report.end = size
                return
            pos = report.end = nxt
            want = max_bytes
            continue
        if why != "block" or len(data) < want:
            break  # the end, an incomplete tail, or the file shrank under us
        pos = pos + stop
        want = max(max_bytes, HEADER_SIZE + next_length + FOOTER_SIZE)  # a long record: whole
    report.tail_bytes = size - report.end
