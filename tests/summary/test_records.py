"""Framed records: CRCs, incomplete tails, damaged records, resync, bounded allocation."""
import io
import os
import struct

import pytest
from fixture_paths import MINDSPORE_LOGS

from tui_insight.summary.formats.framing import ScanReport, frame, masked_crc, read_record_at, scan_records


def scan(data: bytes, start: int = 0):
    report = ScanReport()
    records = list(scan_records(io.BytesIO(data), start, len(data), report))
    return records, report


def test_masked_crc_matches_mindspore_files():
    """The first record of a real MindSpore file checks out with the masked CRC (not the plain one)."""
    path = next(MINDSPORE_LOGS.glob("*_MS"))
    data = path.read_bytes()
    length = struct.unpack_from("<Q", data)[0]
    assert struct.unpack_from("<I", data, 8)[0] == masked_crc(data[:8])
    payload = data[12:12 + length]
    assert struct.unpack_from("<I", data, 12 + length)[0] == masked_crc(payload)


def test_frames_round_trip_with_offsets():
    payloads = [b"a", b"bb" * 100, b"\x00" * 7]
    data = b"".join(frame(p) for p in payloads)
    records, report = scan(data)
    assert [p for _, p in records] == payloads
    assert [o for o, _ in records] == [0, 17, 17 + 216]
    assert report.end == len(data) and report.tail_bytes == 0 and report.bad_records == 0


def test_scan_resumes_from_saved_offset():
    data = frame(b"one") + frame(b"two")
    _, first = scan(frame(b"one"))
    records, _ = scan(data, first.end)
    assert [p for _, p in records] == [b"two"]


@pytest.mark.parametrize("cut", range(1, 16 + 5))
def test_incomplete_tail_is_left_for_later(cut):
    whole = frame(b"first") + frame(b"hello")
    data = whole[: len(frame(b"first")) + cut] if cut < 21 else whole
    records, report = scan(data)
    assert [p for _, p in records] == [b"first"]
    assert report.end == len(frame(b"first"))
    assert report.tail_bytes == cut
    assert report.bad_records == 0


def test_bad_payload_crc_skips_only_that_record():
    bad = bytearray(frame(b"payload"))
    bad[14] ^= 0x01  # flip a bit inside the payload
    records, report = scan(frame(b"a") + bytes(bad) + frame(b"c"))
    assert [p for _, p in records] == [b"a", b"c"]
    assert report.bad_records == 1
    assert "payload CRC" in report.problems[0]


def test_bad_header_resyncs_to_next_record():
    bad = bytearray(frame(b"payload"))
    bad[0] ^= 0x40  # the length is now wrong and its CRC does not match
    records, report = scan(frame(b"a") + bytes(bad) + frame(b"c") + frame(b"d"))
    assert [p for _, p in records] == [b"a", b"c", b"d"]
    assert report.bad_records == 1


def test_garbage_after_good_records_is_skipped_not_fatal():
    records, report = scan(frame(b"a") + os.urandom(5000))
    assert [p for _, p in records] == [b"a"]
    assert report.bad_records >= 1 or report.tail_bytes > 0


def test_huge_length_is_never_allocated():
    header = struct.pack("<Q", 1 << 40)
    data = header + struct.pack("<I", masked_crc(header)) + b"xx"
    records, report = scan(data)
    assert records == [] and report.tail_bytes == len(data)  # treated as an unfinished record


def test_zero_length_record_counts_as_bad():
    records, report = scan(frame(b"") + frame(b"ok"))
    assert [p for _, p in records] == [b"ok"] and report.bad_records == 1


def test_read_record_at(tmp_path):
    path = tmp_path / "f"
    path.write_bytes(frame(b"one") + frame(b"two"))
    assert read_record_at(str(path), len(frame(b"one"))) == b"two"
    with pytest.raises(ValueError):
        read_record_at(str(path), 3)
    path.write_bytes(frame(b"one")[:-2])
    with pytest.raises(ValueError):
        read_record_at(str(path), 0)
