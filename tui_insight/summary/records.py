"""Framed records of summary and lineage files (compat §1.1).

    u64le length | u32le masked-crc32c(length bytes) | payload | u32le masked-crc32c(payload)

`scan_records` reads from a saved offset to the end of what is complete, checks both CRCs of
every record and never allocates more than the file holds. A bad header CRC means we cannot
trust the length, so we search forward for the next header that checks out (resync); a bad
payload CRC skips just that record. An incomplete last record is not an error: the scan stops
before it so the next reload can retry once the writer has finished it.
"""
from __future__ import annotations

import errno
import os
import stat
import struct
from dataclasses import dataclass, field
from typing import BinaryIO, Iterator

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
_SCALAR_TAG = 0x1D  # Value field 3 (float)


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
    kinds: tuple[str | None, ...]  # "scalar_value" or None (a value with no data)
    float_at: np.ndarray  # int64[number of scalar values]: offsets of the float32s
    float_of_value: tuple[int, ...]  # value index -> column in `float_at`, -1 for none

    @classmethod
    def make(cls, payload: bytes, event) -> "Layout | None":
        """The layout of `payload`, decoded by protobuf as `event`; None if it has none."""
        try:
            layout = cls._walk(payload)
        except (ValueError, IndexError, UnicodeDecodeError):
            return None
        if layout is None or event.WhichOneof("what") != "summary":
            return None
        # The walk must see what protobuf saw, number for number.
        values = event.summary.value
        if (tuple(v.tag for v in values) != layout.tags
                or tuple(v.WhichOneof("value") for v in values) != layout.kinds):
            return None
        rows = np.frombuffer(payload, dtype=np.uint8).reshape(1, -1)
        steps, walls, floats = layout.numbers(rows)
        if int(steps[0]) != event.step or walls[0].tobytes() != np.float64(event.wall_time).tobytes():
            return None
        expected = [values[i].scalar_value for i, col in enumerate(layout.float_of_value) if col >= 0]
        if np.asarray(expected, dtype=np.float64).tobytes() != floats[0].tobytes():
            return None
        return layout

    @classmethod
    def _walk(cls, data: bytes) -> "Layout | None":
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
                        elif field_key == _SCALAR_TAG and scalar_at < 0:
                            if pos + 4 > value_end:
                                return None
                            scalar_at = pos
                            mask[pos:pos + 4] = 0
                            pos += 4
                        else:
                            return None  # a histogram, tensor, image... or an unusual encoding
                    tags.append(tag or "")
                    if scalar_at >= 0:
                        kinds.append("scalar_value")
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

    def matches(self, rows: np.ndarray) -> np.ndarray:
        """Mask of `rows` (uint8[n, size]) that are this layout with other numbers."""
        return ~((rows ^ self.template) & self.mask).any(axis=1)

    def numbers(self, rows: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """(step int64[n], wall_time float64[n], scalars float64[n, k]) of matching `rows`."""
        n = len(rows)
        if self.wall_at >= 0:
            walls = np.ascontiguousarray(rows[:, self.wall_at:self.wall_at + 8]).view("<f8").reshape(n)
            walls = walls.astype(np.float64)
        else:
            walls = np.zeros(n, dtype=np.float64)
        steps = np.zeros(n, dtype=np.uint64)
        if self.step_at >= 0:
            raw = rows[:, self.step_at:self.step_at + self.step_len].astype(np.uint64)
            for j in range(self.step_len):
                steps |= (raw[:, j] & np.uint64(0x7F)) << np.uint64(7 * j)
        steps = steps.view(np.int64)
        if len(self.float_at):
            cols = self.float_at[:, None] + np.arange(4)
            floats = np.ascontiguousarray(rows[:, cols]).view("<f4").reshape(n, len(self.float_at))
            floats = floats.astype(np.float64)
        else:
            floats = np.zeros((n, 0), dtype=np.float64)
        return steps, walls, floats


class LayoutBook:
    """Layouts seen so far, by payload size (shared by the files of one cache: sweeps repeat them)."""

    MAX_LAYOUTS = 4096
    NEW_PER_SIZE = 3  # layouts tried per payload size and batch before the rest is decoded one by one

    def __init__(self) -> None:
        self.by_size: dict[int, list[Layout]] = {}
        self.count = 0

    def classify(self, payloads: list[bytes], decode) -> tuple[np.ndarray, list[Layout], dict[int, object]]:
        """(layout number per payload, -1 for none; the layouts; events decoded on the way).

        `decode(payload)` is protobuf's decoding (an Event, or None if it fails); it is called
        for the payloads used to make layouts, and what it returned is handed back by index.
        """
        which = np.full(len(payloads), -1, dtype=np.int64)
        used: list[Layout] = []
        number: dict[int, int] = {}  # id(layout) -> its index in `used`
        decoded: dict[int, object] = {}
        groups: dict[int, list[int]] = {}
        for i, payload in enumerate(payloads):
            groups.setdefault(len(payload), []).append(i)
        for size, members in groups.items():
            if size < 4 or len(members) < 2 and size not in self.by_size:
                continue  # a lone event of its size: one protobuf decode is as cheap
            index = np.asarray(members, dtype=np.int64)
            rows = np.frombuffer(b"".join([payloads[i] for i in members]), dtype=np.uint8).reshape(len(members), size)
            left = np.ones(len(members), dtype=bool)
            known = self.by_size.get(size, [])
            for layout in known:
                hit = left & layout.matches(rows)
                if hit.any():
                    if id(layout) not in number:
                        number[id(layout)] = len(used)
                        used.append(layout)
                    which[index[hit]] = number[id(layout)]
                    left &= ~hit
                if not left.any():
                    break
            tries = 0
            while left.any() and tries < self.NEW_PER_SIZE:
                tries += 1
                first = int(np.flatnonzero(left)[0])
                event = decode(payloads[members[first]])
                decoded[members[first]] = event
                left[first] = False
                layout = Layout.make(payloads[members[first]], event) if event is not None else None
                if layout is None:
                    continue
                if self.count >= self.MAX_LAYOUTS:
                    self.by_size.clear()
                    self.count = 0
                self.by_size.setdefault(size, []).append(layout)
                self.count += 1
                number[id(layout)] = len(used)
                used.append(layout)
                which[members[first]] = number[id(layout)]
                hit = left & layout.matches(rows)
                which[index[hit]] = number[id(layout)]
                left &= ~hit
        return which, used, decoded
