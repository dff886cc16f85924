"""Framed records of summary and lineage files (compat §1.1).

    u64le length | u32le masked-crc32c(length bytes) | payload | u32le masked-crc32c(payload)

`scan_records` reads from a saved offset to the end of what is complete, checks both CRCs of
every record and never allocates more than the file holds. A bad header CRC means we cannot
trust the length, so we search forward for the next header that checks out (resync); a bad
payload CRC skips just that record. An incomplete last record is not an error: the scan stops
before it so the next reload can retry once the writer has finished it. `scan_records` is the
plain walk, the reference the bulk scan (`bulk_framing.scan_batches`) is tested against; one
record is read back by its offset (`read_record_at`) when a payload is decoded on demand, and
many of a file through one open file (`read_records_at`) when an export decodes them all.
"""
from __future__ import annotations

import errno
import os
import stat
import struct
from dataclasses import dataclass, field
from typing import BinaryIO, Iterable, Iterator

import google_crc32c
import numpy as np

HEADER_SIZE = 12
FOOTER_SIZE = 4
# MindInsight skips payloads above this (MAX_EVENT_STRING) and so do we.
MAX_PAYLOAD = 500_000_000
# How far past a bad header we look for the next good one before giving up on the file.
RESYNC_WINDOW = 64 << 20

U64 = struct.Struct("<Q")
_U32 = struct.Struct("<I")
MASK_DELTA = 0xA282EAD8


def masked_crc(data: bytes) -> int:
    """TFRecord-style masked CRC-32C: rotate right by 15, add a constant."""
    crc = google_crc32c.value(data)
    return ((((crc >> 15) | (crc << 17)) & 0xFFFFFFFF) + MASK_DELTA) & 0xFFFFFFFF


def frame(payload: bytes) -> bytes:
    """One record, as a writer lays it out."""
    header = U64.pack(len(payload))
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
            nxt = resync(fh, pos + 1, size)
            if nxt is None:
                report.note(f"no valid record after byte {pos}; rest of file skipped")
                report.end = size
                return
            pos = nxt
            report.end = pos
            fh.seek(pos)
            continue
        length = U64.unpack_from(header)[0]
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


def resync(fh: BinaryIO, start: int, size: int) -> int | None:
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
            length = U64.unpack_from(header)[0]
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
            spans.append((path, offset, offset + HEADER_SIZE + U64.unpack_from(header)[0] + FOOTER_SIZE))
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


def read_records_at(path: str, offsets: Iterable[int], source=None) -> list[bytes | OSError | ValueError]:
    """`read_record_at` of each of `offsets` of `path`: each record's payload, or the error
    `read_record_at` raises for it. A local file is opened once and read by `pread`s of runs of
    records: records that follow one another closely (a step's histogram events, each of a tag)
    are read at once, each record's header telling where it ends (its length: a record not
    wholly read is read again by itself)."""
    offsets = list(offsets)
    if source is not None and not source.is_local:
        out: list[bytes | OSError | ValueError] = []
        for offset in offsets:
            try:
                out.append(read_record_at(path, offset, source))
            except (OSError, ValueError) as exc:
                out.append(exc)
        return out
    try:
        fh = open_regular(path, buffering=0)
    except OSError as exc:
        return [exc] * len(offsets)
    found: dict[int, bytes | OSError | ValueError] = {}
    with fh:
        fd = fh.fileno()
        try:
            size = os.fstat(fd).st_size
        except OSError as exc:
            return [exc] * len(offsets)
        ordered = sorted(set(offsets))
        guess = 4096  # bytes past a record's start read for it: the longest record so far
        i = 0
        while i < len(ordered):
            j = i  # the run: records starting at most `_RUN_GAP` past the end guessed of the one before
            while j + 1 < len(ordered) and ordered[j + 1] - ordered[j] <= guess + _RUN_GAP \
                    and ordered[j + 1] - ordered[i] < _RUN_MOST:
                j += 1
            start = ordered[i]
            try:
                block = os.pread(fd, ordered[j] - start + guess, start)
            except OSError as exc:
                block = b""
                for offset in ordered[i:j + 1]:
                    found[offset] = exc
            for offset in ordered[i:j + 1]:
                if offset in found:
                    continue
                at = offset - start
                try:
                    length = _record_length(block[at:at + HEADER_SIZE], path, offset, size)
                    end = at + HEADER_SIZE + length
                    if end + FOOTER_SIZE <= len(block):
                        found[offset] = _record_payload(block[at + HEADER_SIZE:end], block[end:end + FOOTER_SIZE],
                                                        length, path, offset)
                    else:  # (longer than guessed: read by itself)
                        rest = os.pread(fd, length + FOOTER_SIZE, offset + HEADER_SIZE)
                        found[offset] = _record_payload(rest[:length], rest[length:], length, path, offset)
                    guess = max(guess, min(HEADER_SIZE + length + FOOTER_SIZE, _RUN_MOST))
                except (OSError, ValueError) as exc:
                    found[offset] = exc
            i = j + 1
    return [found[offset] for offset in offsets]


_RUN_GAP = 1 << 14  # bytes between records read in one `pread` at most (read and dropped)
_RUN_MOST = 1 << 20  # bytes a run of records starts within, at most


def _record_length(header: bytes, path: str, offset: int, size: int) -> int:
    if len(header) < HEADER_SIZE or not _header_ok(header):
        raise ValueError(f"no record at byte {offset} of {path} any more")
    length = U64.unpack_from(header)[0]
    if offset + HEADER_SIZE + length + FOOTER_SIZE > size:
        raise ValueError(f"the record at byte {offset} of {path} is cut short")
    return length


def _record_payload(payload: bytes, footer: bytes, length: int, path: str, offset: int) -> bytes:
    if len(payload) < length or len(footer) < FOOTER_SIZE or _U32.unpack(footer)[0] != masked_crc(payload):
        raise ValueError(f"the record at byte {offset} of {path} changed")
    return payload
