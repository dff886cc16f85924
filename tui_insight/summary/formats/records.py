"""Framed records of summary and lineage files (compat §1.1).

    u64le length | u32le masked-crc32c(length bytes) | payload | u32le masked-crc32c(payload)

`scan_records` reads from a saved offset to the end of what is complete, checks both CRCs of
every record and never allocates more than the file holds. A bad header CRC means we cannot
trust the length, so we search forward for the next header that checks out (resync); a bad
payload CRC skips just that record. An incomplete last record is not an error: the scan stops
before it so the next reload can retry once the writer has finished it.

`scan_batches` reads the same records by blocks of a few MB with little Python per record (the
cache reads through it: a TensorBoard file holds a million 80-byte records per 100 MB);
`scan_records` is the plain walk, the reference the bulk scan is tested against. `LayoutBook`
then reads the numbers of repeated scalar events, MindSpore's or TensorBoard's, in bulk.
"""
from __future__ import annotations

import errno
import os
import stat
import struct
from dataclasses import dataclass, field
from functools import cached_property
from typing import BinaryIO, Iterable, Iterator, NamedTuple, Sequence

import google_crc32c
import numpy as np

HEADER_SIZE = 12
FOOTER_SIZE = 4
# MindInsight skips payloads above this (MAX_EVENT_STRING) and so do we.
MAX_PAYLOAD = 500_000_000
# How far past a bad header we look for the next good one before giving up on the file.
RESYNC_WINDOW = 64 << 20

_U64 = struct.Struct("<Q")
_U32 = struct.Struct("<I")
_MASK_DELTA = 0xA282EAD8


def masked_crc(data: bytes) -> int:
    """TFRecord-style masked CRC-32C: rotate right by 15, add a constant."""
    crc = google_crc32c.value(data)
    return ((((crc >> 15) | (crc << 17)) & 0xFFFFFFFF) + _MASK_DELTA) & 0xFFFFFFFF


def frame(payload: bytes) -> bytes:
    """One record, as a writer lays it out."""
    header = _U64.pack(len(payload))
    return header + _U32.pack(masked_crc(header)) + payload + _U32.pack(masked_crc(payload))


@dataclass
class ScanReport:
    """What one scan found besides the good records."""

    end: int = 0  # offset just past the last complete record: where the next scan starts
    bad_records: int = 0  # records skipped for a bad CRC, an empty or oversized payload
    tail_bytes: int = 0  # bytes of an incomplete last record left for the next scan
    problems: list[str] = field(default_factory=list)  # short human-readable notes

    def note(self, text: str) -> None:
        if len(self.problems) < 20:
            self.problems.append(text)


def _header_ok(header: bytes) -> bool:
    return _U32.unpack_from(header, 8)[0] == masked_crc(header[:8])


def scan_records(fh: BinaryIO, start: int, size: int, report: ScanReport) -> Iterator[tuple[int, bytes]]:
    """Yield (offset, payload) for each good record in fh[start:size].

    `size` is the file size seen by the caller's stat; bytes past it are left for later so a
    scan is a consistent view even while a writer appends. `report` is filled as we go.
    """
    pos = start
    report.end = start
    fh.seek(pos)
    while pos < size:
        remaining = size - pos
        if remaining < HEADER_SIZE:
            break  # an incomplete header: a writer is mid-record, or the file was cut
        header = fh.read(HEADER_SIZE)
        if len(header) < HEADER_SIZE:
            break  # the file shrank under us; the next reload sees it
        if not _header_ok(header):
            report.bad_records += 1
            report.note(f"bad header CRC at byte {pos}")
            nxt = _resync(fh, pos + 1, size)
            if nxt is None:
                report.note(f"no valid record after byte {pos}; rest of file skipped")
                report.end = size
                return
            pos = nxt
            report.end = pos
            fh.seek(pos)
            continue
        length = _U64.unpack_from(header)[0]
        if length > remaining - HEADER_SIZE - FOOTER_SIZE:
            break  # runs past what is written: an incomplete tail, never allocated
        if length == 0 or length > MAX_PAYLOAD:
            report.bad_records += 1
            report.note(f"{'empty' if length == 0 else 'oversized'} record at byte {pos}")
            pos += HEADER_SIZE + length + FOOTER_SIZE
            report.end = pos
            fh.seek(pos)
            continue
        payload = fh.read(length)
        footer = fh.read(FOOTER_SIZE)
        if len(payload) < length or len(footer) < FOOTER_SIZE:
            break
        record_at = pos
        pos += HEADER_SIZE + length + FOOTER_SIZE
        report.end = pos
        if _U32.unpack(footer)[0] != masked_crc(payload):
            report.bad_records += 1
            report.note(f"bad payload CRC at byte {record_at}")
            continue
        yield record_at, payload
    report.tail_bytes = size - report.end


def _resync(fh: BinaryIO, start: int, size: int) -> int | None:
    """The first offset >= start holding a header whose CRC checks out and whose record fits.

    numpy finds the offsets whose length field is plausible (1 .. 2^32-1: its upper four
    bytes are zero, its lower four are not) so the CRC is computed only there.
    """
    limit = min(size, start + RESYNC_WINDOW)
    chunk_size = 1 << 20
    pos = start
    while pos + HEADER_SIZE <= limit:
        fh.seek(pos)
        chunk = fh.read(min(chunk_size + HEADER_SIZE - 1, limit - pos))
        a = np.frombuffer(chunk, dtype=np.uint8)
        n = len(a) - HEADER_SIZE + 1
        if n <= 0:
            return None
        upper_zero = (a[4:4 + n] | a[5:5 + n] | a[6:6 + n] | a[7:7 + n]) == 0
        lower_set = (a[0:n] | a[1:1 + n] | a[2:2 + n] | a[3:3 + n]) != 0
        for i in np.flatnonzero(upper_zero & lower_set).tolist():
            header = chunk[i : i + HEADER_SIZE]
            length = _U64.unpack_from(header)[0]
            if length <= size - (pos + i) - HEADER_SIZE - FOOTER_SIZE and _header_ok(header):
                return pos + i
        pos += n
    return None


# -- bulk framing -------------------------------------------------------------------------------
#
# `scan_batches` reads what `scan_records` reads, block by block, with as little Python per
# record as it can: a training log repeats a cycle of record lengths (tag after tag, step after
# step), so once the walk has seen the cycle it guesses where the next records of the block
# start and checks the guess for all of them at once with numpy (a header is its length and
# the CRC of that length, so a guessed header is right when its 12 bytes are the expected
# ones). Where the guess fails the walk goes on record by record. Payload CRCs are checked per
# payload length: CRC-32C is affine, so for rows of equal length crc(row) = crc(first row) xor
# the contributions of the bytes where the row differs from the first, read from a 256-entry
# table per byte position; only the few positions that vary (wall time, step, values) cost a
# numpy operation over all rows. Long payloads are checked one by one by google_crc32c.

BLOCK_SIZE = 4 << 20  # bytes read at once
MAX_CYCLE = 4096  # longest cycle of record lengths guessed (records of a step)
_GUESS_CHUNK = 1 << 16  # records checked per guess
_TABLE_MAX_LENGTH = 512  # payloads longer than this are CRC-checked one by one ...
_TABLE_MAX_VARYING = 48  # ... and so are rows differing from the first in more positions
_TABLE_MIN_ROWS = 8
_HEADER = struct.Struct("<QI")
_header_words: dict[int, int] = {}  # payload length -> masked CRC of its header
_crc_tables: dict[tuple[int, int], np.ndarray] = {}  # (payload length, position) -> uint32[256]


def _header_word(length: int) -> int:
    word = _header_words.get(length)
    if word is None:
        word = masked_crc(_U64.pack(length))
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


def _unaligned(array: np.ndarray, dtype: str) -> np.ndarray:
    """The bytes of `array` read as little-endian `dtype` at every offset: `view[i]` is the
    number whose bytes start at `array[i]` (so one index per number gathers a field)."""
    size = np.dtype(dtype).itemsize
    return np.ndarray(shape=(max(0, len(array) - size + 1),), dtype=dtype, buffer=array, strides=(1,))


def _mask(crc: np.ndarray) -> np.ndarray:
    """`masked_crc`'s rotation and offset over an array of uint32 CRCs."""
    return ((crc >> np.uint32(15)) | (crc << np.uint32(17))) + np.uint32(_MASK_DELTA)


def _strided(array: np.ndarray, starts: np.ndarray, size: int) -> np.ndarray | None:
    """uint8[len(starts), size], a view of the bytes at each start when they are evenly spaced
    (and do not overlap); else None."""
    count = len(starts)
    if count == 1:
        return array[int(starts[0]):int(starts[0]) + size].reshape(1, size)
    if count == 0:
        return None
    steps = np.diff(starts)
    stride = int(steps[0])
    if stride >= size and (steps == stride).all():
        return np.lib.stride_tricks.as_strided(array[int(starts[0]):], shape=(count, size),
                                               strides=(stride, 1), writeable=False)
    return None


def _rows(data: bytes, array: np.ndarray, starts: np.ndarray, size: int) -> np.ndarray:
    """uint8[len(starts), size]: the bytes at each start; a view when they are evenly spaced."""
    view = _strided(array, starts, size)
    if view is not None:
        return view
    count = len(starts)
    if size < 1024:  # a row copy each, by one index per row into overlapping windows
        return np.lib.stride_tricks.sliding_window_view(array, size)[starts]
    return np.frombuffer(b"".join([data[s:s + size] for s in starts.tolist()]), dtype=np.uint8).reshape(count, size)


def _crc_ok(data: bytes, array: np.ndarray, starts: np.ndarray,
            size: int) -> tuple[np.ndarray, tuple[np.ndarray, np.ndarray] | None]:
    """Which payloads of `size` bytes at `starts` carry the right masked CRC after them; and,
    when found on the way, (a payload, the byte positions where any other differs from it)."""
    stored = _unaligned(array, "<u4")[starts + size]
    if size <= _TABLE_MAX_LENGTH and len(starts) >= _TABLE_MIN_ROWS:
        rows = _rows(data, array, starts, size)
        varying = _varying(array, starts, rows)
        if len(varying) <= _TABLE_MAX_VARYING:
            # crc(row) = crc(first row) ^ each varying byte's contribution there ^ its own.
            reference = rows[0]
            tables = [_crc_table(size, at) for at in varying.tolist()]
            base = google_crc32c.value(reference.tobytes())
            for table, at in zip(tables, varying.tolist()):
                base ^= int(table[reference[at]])
            crc = np.full(len(starts), base, dtype=np.uint32)
            for table, at in zip(tables, varying.tolist()):
                crc ^= table[rows[:, at]]
            return _mask(crc) == stored, (reference.copy(), varying)
    crcs = [masked_crc(data[s:s + size]) for s in starts.tolist()]
    return np.asarray(crcs, dtype=np.uint32) == stored, None


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
                 same: dict[int, tuple[np.ndarray, np.ndarray]] | None = None) -> None:
        self.data = data
        self.array = np.frombuffer(data, dtype=np.uint8)
        self.starts = starts  # int64: where each payload starts in `data`
        self.lengths = lengths  # int64
        # size -> (reference, varying): every payload of that size is `reference` outside the
        # byte positions `varying` (found by the framing's CRC check; spares the layouts a pass)
        self.same = same or {}

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
        return _rows(self.data, self.array, self.starts[indices], size)


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


class _Walk:
    """Finds the records of one block: record by record, or by guessing the cycle of lengths."""

    def __init__(self) -> None:
        self.lengths: list[int] = []  # lengths of the last records walked or guessed (the cycle)
        self.next_guess = 8  # records to walk before guessing again

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
        while True:
            # Record by record while the headers are the usual ones, up to the next guess.
            for _ in range(self.next_guess):
                if p + HEADER_SIZE > n:
                    break
                length, word = unpack(data, p)
                if words.get(length) != word:
                    break
                end = p + HEADER_SIZE + length + FOOTER_SIZE
                if end > n:
                    break
                at_append(p)
                length_append(length)
                p = end
            else:
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

    def _period(self) -> int:
        """The shortest cycle the last record lengths repeat (seen twice), 0 if none."""
        h = self.lengths
        if len(h) < 2:
            return 0
        last = h[-1]
        for period in range(1, min(len(h) // 2, MAX_CYCLE) + 1):
            if h[-1 - period] == last and h[-period:] == h[-2 * period:-period]:
                return period
        return 0

    def _guess(self, array: np.ndarray, p: int, n: int, walked: list[int]) -> tuple[np.ndarray, np.ndarray]:
        """The records from `p` on that continue the cycle, as far as their headers check out
        (`walked`: the lengths walked since the last guess, not yet remembered)."""
        self._remember(walked)
        period = self._period()
        empty = np.zeros(0, dtype=np.int64)
        if not period:
            return empty, empty
        cycle = np.asarray(self.lengths[-period:], dtype=np.int64)
        spans = cycle + HEADER_SIZE + FOOTER_SIZE
        cycle_bytes = int(spans.sum())
        within = np.zeros(period, dtype=np.int64)
        np.cumsum(spans[:-1], out=within[1:])
        cycles = min((n - p) // cycle_bytes + 1, max(1, _GUESS_CHUNK // period))
        at = (p + np.arange(cycles, dtype=np.int64)[:, None] * cycle_bytes + within).reshape(-1)
        lengths = np.tile(cycle, cycles)
        fits = int(np.count_nonzero(at + lengths + HEADER_SIZE + FOOTER_SIZE <= n))
        if not fits:
            return empty, empty
        at, lengths = at[:fits], lengths[:fits]
        # A header is its length (u64) and that length's masked CRC (u32): two words per record.
        words = np.asarray([_header_word(n_) for n_ in cycle.tolist()], dtype=np.uint32)
        wrong = ((_unaligned(array, "<u8")[at] != lengths.view(np.uint64))
                 | (_unaligned(array, "<u4")[at + 8] != np.tile(words, cycles)[:fits]))
        wrong = np.flatnonzero(wrong)
        good = int(wrong[0]) if len(wrong) else fits
        if good:
            self.lengths.extend(lengths[max(0, good - 2 * MAX_CYCLE):good].tolist())
        return at[:good], lengths[:good]


def scan_batches(fh: BinaryIO, start: int, size: int, report: ScanReport, max_records: int = 1 << 16,
                 max_bytes: int = BLOCK_SIZE) -> Iterator[RecordBatch]:
    """`scan_records` by blocks of about `max_bytes`: the same records and report, in batches
    of at most `max_records` (a record longer than a block is read in a block of its own)."""
    pos = start
    report.end = start
    walk = _Walk()
    want = max_bytes
    while pos < size:
        fh.seek(pos)
        want = min(max(want, HEADER_SIZE), size - pos)
        data = fh.read(want)
        if not data:
            break
        notes: list[tuple[int, str]] = []
        at_chunks, length_chunks, stop, why, next_length = walk.block(data, pos, size, report, notes)
        at = np.concatenate(at_chunks)
        lengths = np.concatenate(length_chunks)
        good = np.ones(len(at), dtype=bool)
        same: dict[int, tuple[np.ndarray, np.ndarray]] = {}
        if len(at):
            array = np.frombuffer(data, dtype=np.uint8)
            order = np.argsort(lengths, kind="stable")
            sizes = lengths[order]
            edges = np.flatnonzero(np.diff(sizes)) + 1
            for group in np.split(order, edges):
                length = int(lengths[group[0]])
                good[group], found = _crc_ok(data, array, at[group] + HEADER_SIZE, length)
                if found is not None:
                    same[length] = found
        bad = np.flatnonzero(~good)
        if len(bad):
            report.bad_records += len(bad)
            notes += [(pos + a, f"bad payload CRC at byte {pos + a}") for a in at[bad].tolist()]
            at, lengths = at[good], lengths[good]
        for _, text in sorted(notes):
            report.note(text)
        end = report.end
        for first in range(0, len(at), max_records):
            part = slice(first, first + max_records)
            batch = RecordBatch(pos + at[part], Payloads(data, at[part] + HEADER_SIZE, lengths[part], same))
            last = first + len(batch) - 1
            report.end = end if last == len(at) - 1 else pos + int(at[last] + lengths[last]) + HEADER_SIZE + FOOTER_SIZE
            yield batch
        report.end = end
        if why == "header":
            bad_at = pos + stop
            report.bad_records += 1
            report.note(f"bad header CRC at byte {bad_at}")
            walk.lengths.clear()
            nxt = _resync(fh, bad_at + 1, size)
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


def open_regular(path: str, buffering: int = -1) -> BinaryIO:
    """`open(path, "rb")` for a regular file only: a FIFO put where a log file was would block
    the reader, a device never ends. Raises OSError."""
    fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0))  # a FIFO opens without a writer
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            raise OSError(errno.EINVAL, "not a regular file", path)
        return os.fdopen(fd, "rb", buffering=buffering)
    except BaseException:
        os.close(fd)
        raise


def prefetch_records(records: Iterable[tuple[str, int]], source) -> None:
    """The records at each (path, offset) of a remote `source`, about to be read one by one
    (`read_record_at`), fetched in two requests: the blocks of their headers, then the rest of
    each record as its header says. One by one, each cost a request or two."""
    records = list(records)
    source.prefetch([(path, offset, offset + HEADER_SIZE) for path, offset in records])
    spans = []
    for path, offset in records:
        try:
            header = source.read(path, offset, offset + HEADER_SIZE)  # held now, as a rule
        except OSError:
            continue  # its read says so
        if len(header) == HEADER_SIZE and _header_ok(header):
            spans.append((path, offset, offset + HEADER_SIZE + _U64.unpack_from(header)[0] + FOOTER_SIZE))
    source.prefetch(spans)


def read_record_at(path: str, offset: int, source=None) -> bytes:
    """The payload of the record at `offset` (for payloads decoded on demand); read through
    `source` (a `source.Source`) when the file is remote.

    Raises OSError or ValueError when the record is no longer there as it was.
    """
    if source is not None and not source.is_local:
        size = source.stat(path).st_size
        header = source.read(path, offset, offset + HEADER_SIZE)
        length = _record_length(header, path, offset, size)
        rest = source.read(path, offset + HEADER_SIZE, offset + HEADER_SIZE + length + FOOTER_SIZE)
        return _record_payload(rest[:length], rest[length:], length, path, offset)
    with open_regular(path) as fh:
        fh.seek(offset)
        length = _record_length(fh.read(HEADER_SIZE), path, offset, os.fstat(fh.fileno()).st_size)
        payload = fh.read(length)
        return _record_payload(payload, fh.read(FOOTER_SIZE), length, path, offset)


def _record_length(header: bytes, path: str, offset: int, size: int) -> int:
    if len(header) < HEADER_SIZE or not _header_ok(header):
        raise ValueError(f"no record at byte {offset} of {path} any more")
    length = _U64.unpack_from(header)[0]
    if offset + HEADER_SIZE + length + FOOTER_SIZE > size:
        raise ValueError(f"the record at byte {offset} of {path} is cut short")
    return length


def _record_payload(payload: bytes, footer: bytes, length: int, path: str, offset: int) -> bytes:
    if len(payload) < length or len(footer) < FOOTER_SIZE or _U32.unpack(footer)[0] != masked_crc(payload):
        raise ValueError(f"the record at byte {offset} of {path} changed")
    return payload


# -- repeated event layouts -------------------------------------------------------------------
#
# A training loop writes the same tags in the same order every step, so most events of a file
# are byte for byte the same apart from their wall time, step and scalar values. A `Layout` is
# such an event's bytes with those fields marked variable: every payload of the same length
# whose fixed bytes match is that event with other numbers, and numpy reads a whole batch of
# them at once instead of protobuf decoding each and Python visiting each value.
#
# Only scalar-only summary events get a layout (values holding just a tag and a scalar).
# A layout is made from one payload the protobuf decoder accepted, and checked against what it
# decoded, so a matching payload decodes to exactly what protobuf would give.

_WALL_TAG, _STEP_TAG, _SUMMARY_TAG = 0x09, 0x10, 0x2A  # Event fields 1 (double), 2 (varint), 5 (message)
_VALUE_TAG = 0x0A  # Summary field 1 (message), and Value field 1 (string)


class Dialect(NamedTuple):
    """Where an event's scalar sits: the key of the float field of `Summary.Value`, and its name."""

    scalar_key: int
    scalar_field: str


# Both write Event fields 1, 2, 5 and Summary.Value's tag (field 1) alike; the float differs:
# MindSpore's `scalar_value` is field 3, TensorBoard's `simple_value` field 2.
DIALECTS = {"mindspore": Dialect(0x1D, "scalar_value"), "tensorboard": Dialect(0x15, "simple_value")}


def _varint(data: bytes, pos: int, end: int) -> tuple[int, int]:
    """(value, next position) of the varint at `pos`; ValueError if it runs past `end`."""
    value = shift = 0
    while True:
        if pos >= end or shift > 63:
            raise ValueError("bad varint")
        byte = data[pos]
        value |= (byte & 0x7F) << shift
        pos += 1
        shift += 7
        if not byte & 0x80:
            return value, pos


@dataclass(frozen=True)
class Layout:
    """The fixed bytes of a scalar-only summary event and where its numbers sit."""

    size: int
    template: np.ndarray  # uint8[size]: the bytes of the event it was made from
    mask: np.ndarray  # uint8[size]: bits that must equal the template's
    wall_at: int  # offset of wall_time (8 bytes), -1 if the field is absent (0.0)
    step_at: int  # offset of the step varint, -1 if absent (0)
    step_len: int
    tags: tuple[str, ...]  # every value's tag, in order
    kinds: tuple[str | None, ...]  # the dialect's scalar field ("scalar_value") or None (no data)
    float_at: np.ndarray  # int64[number of scalar values]: offsets of the float32s
    float_of_value: tuple[int, ...]  # value index -> column in `float_at`, -1 for none

    @classmethod
    def make(cls, payload: bytes, event, dialect: str = "mindspore") -> "Layout | None":
        """The layout of `payload`, decoded by protobuf as `event` (of `dialect`'s protos);
        None if it has none."""
        scalar_key, scalar_field = DIALECTS[dialect]
        try:
            layout = cls._walk(payload, scalar_key, scalar_field)
        except (ValueError, IndexError, UnicodeDecodeError):
            return None
        if layout is None or event.WhichOneof("what") != "summary":
            return None
        if dialect == "tensorboard" and None in layout.kinds:
            return None  # TensorBoard routes a value without data by its tag's plugin, named in an earlier event
        # The walk must see what protobuf saw, number for number.
        values = event.summary.value
        if (tuple(v.tag for v in values) != layout.tags
                or tuple(v.WhichOneof("value") for v in values) != layout.kinds):
            return None
        rows = np.frombuffer(payload, dtype=np.uint8).reshape(1, -1)
        steps, walls, floats = layout.numbers(rows)
        if int(steps[0]) != event.step or walls[0].tobytes() != np.float64(event.wall_time).tobytes():
            return None
        expected = [getattr(values[i], scalar_field) for i, col in enumerate(layout.float_of_value) if col >= 0]
        if np.asarray(expected, dtype=np.float64).tobytes() != floats[0].tobytes():
            return None
        return layout

    @classmethod
    def _walk(cls, data: bytes, scalar_key: int, scalar_field: str) -> "Layout | None":
        size = len(data)
        mask = np.full(size, 0xFF, dtype=np.uint8)
        wall_at = step_at = -1
        step_len = 0
        summary_seen = False
        tags: list[str] = []
        kinds: list[str | None] = []
        float_at: list[int] = []
        float_of_value: list[int] = []
        pos = 0
        while pos < size:
            key = data[pos]
            pos += 1
            if key == _WALL_TAG and wall_at < 0:
                if pos + 8 > size:
                    return None
                wall_at = pos
                mask[pos:pos + 8] = 0
                pos += 8
            elif key == _STEP_TAG and step_at < 0:
                start = pos
                _, pos = _varint(data, pos, size)
                step_at, step_len = start, pos - start
                mask[start:pos] = 0x80  # only the continuation bits are fixed
            elif key == _SUMMARY_TAG and not summary_seen:
                summary_seen = True
                length, pos = _varint(data, pos, size)
                end = pos + length
                if end > size:
                    return None
                while pos < end:
                    if data[pos] != _VALUE_TAG:
                        return None
                    length, pos = _varint(data, pos + 1, end)
                    value_end = pos + length
                    if value_end > end:
                        return None
                    tag, scalar_at = None, -1
                    while pos < value_end:
                        field_key = data[pos]
                        pos += 1
                        if field_key == _VALUE_TAG and tag is None:
                            length, pos = _varint(data, pos, value_end)
                            if pos + length > value_end:
                                return None
                            tag = data[pos:pos + length].decode("utf-8")
                            pos += length
                        elif field_key == scalar_key and scalar_at < 0:
                            if pos + 4 > value_end:
                                return None
                            scalar_at = pos
                            mask[pos:pos + 4] = 0
                            pos += 4
                        else:
                            return None  # a histogram, tensor, image... or an unusual encoding
                    tags.append(tag or "")
                    if scalar_at >= 0:
                        kinds.append(scalar_field)
                        float_of_value.append(len(float_at))
                        float_at.append(scalar_at)
                    else:
                        kinds.append(None)
                        float_of_value.append(-1)
            else:
                return None  # version, graph_def, a repeated field...
        if not summary_seen:
            return None
        template = np.frombuffer(data, dtype=np.uint8).copy()
        return cls(size, template, mask, wall_at, step_at, step_len, tuple(tags), tuple(kinds),
                   np.asarray(float_at, dtype=np.int64), tuple(float_of_value))

    def matches(self, rows: np.ndarray, at: np.ndarray | None = None,
                same: tuple[np.ndarray, np.ndarray] | None = None) -> np.ndarray:
        """Mask of `rows` (uint8[n, size]), or of `rows[at]`, that are this layout with other
        numbers. `same` is `Payloads.same` of the rows' size, if known: every row is its
        reference outside its varying positions, so only those are compared row by row."""
        if same is not None:
            reference, varying = same
            differ = (reference ^ self.template) & self.mask
            differ[varying] = 0
            if differ.any():
                return np.zeros(len(rows) if at is None else len(at), dtype=bool)
            cols = varying[self.mask[varying] != 0]
            part = rows[:, cols] if at is None else rows[at[:, None], cols]
            return ~((part ^ self.template[cols]) & self.mask[cols]).any(axis=1)
        return ~(((rows if at is None else rows[at]) ^ self.template) & self.mask).any(axis=1)

    @cached_property
    def geometry(self) -> tuple:
        """Where the numbers sit: layouts of the same geometry (TensorBoard tags of the same
        length) read their numbers from the same offsets, so one `numbers` call serves them all."""
        return (self.size, self.wall_at, self.step_at, self.step_len, self.float_at.tobytes())

    def numbers(self, rows: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """(step int64[n], wall_time float64[n], scalars float64[n, k]) of matching `rows`."""
        return _read_numbers(rows, self.wall_at, self.step_at, self.step_len, self.float_at)

    @cached_property
    def _columns(self) -> tuple[np.ndarray, int, int, np.ndarray]:
        """The byte positions `numbers` reads, and where wall, step and floats sit among them."""
        cols: list[int] = []
        wall_at = step_at = -1
        if self.wall_at >= 0:
            wall_at = len(cols)
            cols += range(self.wall_at, self.wall_at + 8)
        if self.step_at >= 0:
            step_at = len(cols)
            cols += range(self.step_at, self.step_at + self.step_len)
        float_at = []
        for at in self.float_at.tolist():
            float_at.append(len(cols))
            cols += range(at, at + 4)
        return np.asarray(cols, dtype=np.int64), wall_at, step_at, np.asarray(float_at, dtype=np.int64)

    def numbers_at(self, array: np.ndarray, starts: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """`numbers` of the payloads at `starts` of `array` (ascending: the reads then go
        forward through the block). A few numbers per event (TensorBoard's: one float) are
        gathered as what they are, one index per number; many (a MindSpore event's 50 floats)
        through the bytes of the rows: a view when the payloads are evenly spaced."""
        if len(self.float_at) > 8:
            view = _strided(array, starts, self.size)
            if view is not None:
                return self.numbers(view)
            cols, wall_at, step_at, float_at = self._columns
            return _read_numbers(array[starts[:, None] + cols], wall_at, step_at, self.step_len, float_at)
        n = len(starts)
        walls = _unaligned(array, "<f8")[starts + self.wall_at] if self.wall_at >= 0 else np.zeros(n)
        if self.step_at >= 0:
            at = starts + self.step_at
            steps = (array[at] & np.uint8(0x7F)).astype(np.uint64)
            for j in range(1, self.step_len):
                steps |= (array[at + j] & np.uint8(0x7F)).astype(np.uint64) << np.uint64(7 * j)
            steps = steps.view(np.int64)
        else:
            steps = np.zeros(n, dtype=np.int64)
        floats = _widened(_unaligned(array, "<f4")[starts[:, None] + self.float_at])
        return steps, walls, floats


def _read_numbers(rows: np.ndarray, wall_at: int, step_at: int, step_len: int,
                  float_at: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(step int64[n], wall_time float64[n], scalars float64[n, k]) from the bytes `rows` (n rows)
    holding a float64 at `wall_at`, a varint of `step_len` bytes at `step_at`, float32s at `float_at`."""
    n = len(rows)
    if wall_at >= 0:
        walls = np.ascontiguousarray(rows[:, wall_at:wall_at + 8]).view("<f8").reshape(n)
    else:
        walls = np.zeros(n, dtype=np.float64)
    if step_at >= 0:
        raw = rows[:, step_at:step_at + step_len].astype(np.uint64)
        steps = raw[:, 0] & np.uint64(0x7F)
        for j in range(1, step_len):
            steps |= (raw[:, j] & np.uint64(0x7F)) << np.uint64(7 * j)
        steps = steps.view(np.int64)
    else:
        steps = np.zeros(n, dtype=np.int64)
    k = len(float_at)
    if k == 1:  # one value per event (TensorBoard): a slice, no index array
        at = int(float_at[0])
        floats = _widened(np.ascontiguousarray(rows[:, at:at + 4]).view("<f4"))
    elif k:
        cols = float_at[:, None] + np.arange(4)
        floats = _widened(np.ascontiguousarray(rows[:, cols]).view("<f4").reshape(n, k))
    else:
        floats = np.zeros((n, 0), dtype=np.float64)
    return steps, walls, floats


def _widened(floats: np.ndarray) -> np.ndarray:
    """float32s as float64, as protobuf widens them (a signalling NaN quieted, without numpy's
    "invalid value" warning on stderr)."""
    with np.errstate(invalid="ignore"):
        return floats.astype(np.float64)


def _odd_multiplier(i: int) -> int:
    """The i-th of a fixed series of odd 64-bit numbers that look random (splitmix64)."""
    z = (0x9E3779B97F4A7C15 * (i + 1)) & 0xFFFFFFFFFFFFFFFF
    z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & 0xFFFFFFFFFFFFFFFF
    z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & 0xFFFFFFFFFFFFFFFF
    return (z ^ (z >> 31)) | 1


class _LayoutIndex:
    """Layouts of one payload size and mask, found for many rows at once: a row's key is a hash
    of the few fixed bytes that tell these layouts apart, looked up among the layouts' keys,
    and the layout found is checked against the whole row, eight bytes at a time."""

    def __init__(self, layouts: list[Layout]) -> None:
        self.layouts = layouts
        self.mask = layouts[0].mask
        size = len(self.mask)
        self.width = -(-size // 8) * 8  # rows padded to whole words
        templates = np.zeros((len(layouts), self.width), dtype=np.uint8)
        templates[:, :size] = np.stack([layout.template & self.mask for layout in layouts])
        mask = np.zeros(self.width, dtype=np.uint8)
        mask[:size] = self.mask
        self.word_templates = templates.view("<u8")
        self.templates = templates[:, :size]
        self.word_mask = mask.view("<u8")
        differ = np.flatnonzero((templates != templates[0]).any(axis=0))
        # The most telling bytes first, as few as make every layout's key its own. (Plain Python
        # sets and multipliers: numpy's unique and random cost a module import on a first load.)
        distinct = [len(set(templates[:, c].tolist())) for c in differ.tolist()]
        differ = differ[np.argsort(distinct, kind="stable")[::-1]]
        keys = np.zeros(len(layouts), dtype=np.uint64)
        weights: list[int] = []
        while len(weights) < len(differ) and len(set(keys.tolist())) < len(layouts):
            weights.append(_odd_multiplier(len(weights)))
            keys += templates[:, differ[len(weights) - 1]].astype(np.uint64) * np.uint64(weights[-1])
        self.columns, self.weights = differ[:len(weights)].tolist(), np.asarray(weights, dtype=np.uint64)
        self.order = np.argsort(keys, kind="stable")
        self.keys = keys[self.order]

    PROBE = 1024  # rows whose layouts are looked up to see if they repeat in a cycle

    def find(self, rows: np.ndarray, same: tuple[np.ndarray, np.ndarray] | None = None) -> np.ndarray:
        """Per row of `rows` (uint8[n, size]), the index in `layouts` of its layout, or -1.
        `same` is `Payloads.same` of the rows' size, if known.

        When the first rows' layouts repeat in a cycle (a training loop's tags), the cycle is
        taken as every row's guess and only checked; rows where it fails are looked up."""
        if len(rows) >= 4 * self.PROBE and len(self.layouts) > 1:
            head = self._check(rows[:self.PROBE], self._candidates(rows[:self.PROBE]), same)
            period = period_of(head, self.PROBE // 2)
            if period and bool((head[:period] >= 0).all()):
                found = self._check(rows, np.resize(head[:period], len(rows)), same)
                missed = np.flatnonzero(found < 0)
                if len(missed):
                    found[missed] = self._check(rows[missed], self._candidates(rows[missed]), same)
                return found
        return self._check(rows, self._candidates(rows), same)

    def _candidates(self, rows: np.ndarray) -> np.ndarray:
        """Per row, the layout whose key its key is (-1 for none), to be checked."""
        if not self.columns:
            return np.zeros(len(rows), dtype=np.int64)
        key = np.zeros(len(rows), dtype=np.uint64)
        for column, weight in zip(self.columns, self.weights):
            key += (rows[:, column] & self.mask[column]).astype(np.uint64) * weight
        at = np.minimum(np.searchsorted(self.keys, key), len(self.keys) - 1)
        return np.where(self.keys[at] == key, self.order[at], -1)

    def _check(self, rows: np.ndarray, found: np.ndarray, same: tuple[np.ndarray, np.ndarray] | None) -> np.ndarray:
        """`found` (a layout per row, -1 for none; changed in place) with -1 where the row's
        fixed bytes are not its layout's."""
        count, size = rows.shape
        if same is not None:
            # Outside `varying` every row is `reference`: one comparison per layout there ...
            reference, varying = same
            outside = np.ones(size, dtype=bool)
            outside[varying] = False
            fits = ~((self.templates[:, outside] ^ (reference[outside] & self.mask[outside])).any(axis=1))
            layout_of = np.maximum(found, 0)
            ok = fits[layout_of]
            # ... and the few varying positions with fixed bits (a tag's letters, a step's length) row by row.
            cols = varying[self.mask[varying] != 0]
            if 0 < len(cols) <= 8:  # packed into one word per row, compared with its layout's
                words = np.zeros((count, 8), dtype=np.uint8)
                words[:, :len(cols)] = rows[:, cols] & self.mask[cols]
                expected = np.zeros((len(self.layouts), 8), dtype=np.uint8)
                expected[:, :len(cols)] = self.templates[:, cols]
                ok &= words.view("<u8").reshape(count) == expected.view("<u8").reshape(-1)[layout_of]
            elif len(cols):
                ok &= ((rows[:, cols] & self.mask[cols]) == self.templates[:, cols][layout_of]).all(axis=1)
            found[~ok] = -1
            return found
        if self.width > 128:  # long rows: a few layouts, each checked over its rows
            for k in np.flatnonzero(np.bincount(found[found >= 0], minlength=len(self.layouts))).tolist():
                which = np.flatnonzero(found == k)
                if len(which) == count:
                    found[~self.layouts[k].matches(rows)] = -1
                else:
                    found[which[~self.layouts[k].matches(rows[which])]] = -1
            return found
        # Short rows (one value per event): possibly many layouts, all checked at once by words.
        padded = np.zeros((count, self.width), dtype=np.uint8)
        padded[:, :size] = rows
        words = padded.view("<u8")
        templates = self.word_templates[np.maximum(found, 0)]
        wrong = np.zeros(count, dtype=np.uint64)
        for j, mask in enumerate(self.word_mask.tolist()):
            if mask:
                wrong |= (words[:, j] & np.uint64(mask)) ^ templates[:, j]
        found[wrong != 0] = -1
        return found


class LayoutBook:
    """Layouts seen so far, by payload size (shared by the files of one cache: sweeps repeat them).

    `dialect` names the protos of the events: "mindspore" (summary_pb2) or "tensorboard"
    (tb_event_pb2), whose scalar values are `scalar_value` and `simple_value`.
    """

    MAX_LAYOUTS = 4096
    NEW_PER_SIZE = 3  # new layouts that may fail per payload size and batch before the rest is decoded one by one
    PAYING_MATCHES = 4  # a new layout matching this many more events earns another try (50 tags: 50 layouts)
    MAX_NEW_PER_SIZE = 128
    WINDOW_BYTES = 64 << 10  # new layouts are matched against this much of the rows left (a few cycles of tags)

    def __init__(self, dialect: str = "mindspore") -> None:
        if dialect not in DIALECTS:
            raise ValueError(f"unknown event dialect {dialect!r}")
        self.dialect = dialect
        self.by_size: dict[int, list[Layout]] = {}
        self.count = 0
        self._indexes: dict[int, list[_LayoutIndex]] = {}  # by size; rebuilt when a layout is added

    def classify(self, payloads: Sequence[bytes], decode) -> tuple[np.ndarray, list[Layout], dict[int, object]]:
        """(layout number per payload, -1 for none; the layouts; events decoded on the way).

        `payloads` is a list of bytes or a batch's `Payloads` (rows read without copies).
        `decode(payload)` is protobuf's decoding (an Event, or None if it fails); it is called
        for the payloads used to make layouts, and what it returned is handed back by index.
        """
        payloads = Payloads.of(payloads)
        which = np.full(len(payloads), -1, dtype=np.int64)
        used: list[Layout] = []
        number: dict[int, int] = {}  # id(layout) -> its index in `used`

        def number_of(layout: Layout) -> int:
            if id(layout) not in number:
                number[id(layout)] = len(used)
                used.append(layout)
            return number[id(layout)]

        decoded: dict[int, object] = {}
        if not len(payloads):
            return which, used, decoded
        lengths = payloads.lengths
        order = np.argsort(lengths, kind="stable")
        for members in np.split(order, np.flatnonzero(np.diff(lengths[order])) + 1):
            size = int(lengths[members[0]])
            if size < 4 or len(members) < 2 and size not in self.by_size:
                continue  # a lone event of its size: one protobuf decode is as cheap
            rows = payloads.rows(members, size)
            left = np.ones(len(members), dtype=bool)
            budget, tries = self.NEW_PER_SIZE, 0
            while True:
                # The known layouts, for all rows at once ...
                for index in self._indexes_of(size):
                    at = np.flatnonzero(left)
                    if not len(at):
                        break
                    found = index.find(rows if len(at) == len(members) else rows[at], payloads.same.get(size))
                    hit = found >= 0
                    if hit.any():
                        numbers = np.full(len(index.layouts), -1, dtype=np.int64)
                        for k in np.flatnonzero(np.bincount(found[hit], minlength=len(index.layouts))).tolist():
                            numbers[k] = number_of(index.layouts[k])
                        which[members[at[hit]]] = numbers[found[hit]]
                        left[at[hit]] = False
                if budget <= 0 or tries >= self.MAX_NEW_PER_SIZE or not left.any():
                    break
                # ... then new layouts from the first rows left, each matched against those rows
                # only (a training loop's tags all show up in a window of a few cycles).
                window = np.flatnonzero(left)[:max(64, self.WINDOW_BYTES // size)]
                open_ = np.ones(len(window), dtype=bool)
                made = False
                while budget > 0 and tries < self.MAX_NEW_PER_SIZE and open_.any():
                    budget -= 1
                    tries += 1
                    first = int(np.argmax(open_))
                    i = int(members[window[first]])
                    payload = payloads[i]
                    event = decoded[i] = decode(payload)
                    open_[first] = left[window[first]] = False
                    layout = Layout.make(payload, event, self.dialect) if event is not None else None
                    if layout is None:
                        continue
                    self._add(size, layout)
                    made = True
                    which[i] = number_of(layout)
                    rest = np.flatnonzero(open_)
                    hit = rest[layout.matches(rows, window[rest], payloads.same.get(size))]
                    which[members[window[hit]]] = which[i]
                    open_[hit] = left[window[hit]] = False
                    if len(hit) >= self.PAYING_MATCHES:
                        budget += 1
                if not made:
                    break
        return which, used, decoded

    def _add(self, size: int, layout: Layout) -> None:
        if self.count >= self.MAX_LAYOUTS:
            self.by_size.clear()
            self._indexes.clear()
            self.count = 0
        self.by_size.setdefault(size, []).append(layout)
        self._indexes.pop(size, None)
        self.count += 1

    def _indexes_of(self, size: int) -> list[_LayoutIndex]:
        indexes = self._indexes.get(size)
        if indexes is None:
            by_mask: dict[bytes, list[Layout]] = {}
            for layout in self.by_size.get(size, []):
                by_mask.setdefault(layout.mask.tobytes(), []).append(layout)
            indexes = self._indexes[size] = [_LayoutIndex(group) for group in by_mask.values()]
        return indexes
