"""Bulk framing (`scan_batches`) reads exactly what the record-by-record scan (`scan_records`)
reads: the same offsets and payloads and the same report, on real files written by MindSpore's
format and by tensorboardX, on damaged copies of them and from any start and end."""
import io
import struct
import tempfile
from pathlib import Path

import numpy as np
import pytest
from fixture_paths import FIXTURES
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tui_insight.proto import summary_pb2
from tui_insight.summary.formats.bulk_framing import Payloads, scan_batches
from tui_insight.summary.formats.framing import ScanReport, frame, masked_crc, open_regular, scan_records

PROPERTY = settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
REAL_FILES = sorted(p for p in FIXTURES.rglob("*") if p.is_file()
                    and ("tfevents" in p.name or ".summary." in p.name))


class BoundedFile(io.BytesIO):
    """A file that fails the test if asked for more bytes than it holds."""

    def read(self, n=-1):
        assert n is None or n < 0 or n <= len(self.getbuffer()), f"asked for {n} bytes of {len(self.getbuffer())}"
        return super().read(n)


def by_records(data: bytes, start: int = 0):
    report = ScanReport()
    return list(scan_records(io.BytesIO(data), start, len(data), report)), report


def by_batches(data: bytes, start: int = 0, max_bytes: int = 1 << 22, max_records: int = 1 << 16):
    report = ScanReport()
    records = []
    for batch in scan_batches(BoundedFile(data), start, len(data), report, max_records, max_bytes):
        assert 0 < len(batch) <= max_records
        records += list(batch)
        assert [batch[i] for i in range(len(batch))] == list(batch)[:len(batch)]
    return records, report


def assert_same(data: bytes, start: int = 0, **kwargs):
    expected = by_records(data, start)
    assert by_batches(data, start, **kwargs) == expected
    return expected


def cyclic_log(tags: int, steps: int, tag_lengths_vary: bool = True) -> bytes:
    """One scalar per event, tag after tag, step after step (as tensorboardX writes)."""
    out = []
    for step in range(steps):
        for t in range(tags):
            event = summary_pb2.Event(wall_time=1.7e9 + step * 0.37, step=step)
            name = f"tag{'x' * (t % 3) if tag_lengths_vary else ''}/{t}"
            event.summary.value.add(tag=name, scalar_value=1.0 / (step + t + 1))
            out.append(frame(event.SerializeToString()))
    return b"".join(out)


def interrupted_log(tags: int, steps: int, every: int) -> bytes:
    """A cycle of scalar events broken every `every` steps by a few records of other lengths
    (histograms), one of them as long as the cycle's first (and so at times where the cycle
    may go on, at times not), as a training loop writes histograms now and then."""
    out: list[bytes] = []
    for step in range(steps):
        for t in range(tags):
            event = summary_pb2.Event(wall_time=1.7e9 + step * 0.37, step=step)
            event.summary.value.add(tag=f"tag{'x' * (t % 3)}/{t}", scalar_value=1.0 / (step + t + 1))
            out.append(event.SerializeToString())
        if step % every == every - 1:
            out += [bytes([step % 256]) * (300 + 37 * step % 500), b"h" * len(out[0]), bytes(range(256)) * 3]
    return b"".join(frame(payload) for payload in out)


CYCLIC = cyclic_log(7, 60)
SAME_LENGTHS = cyclic_log(5, 300, tag_lengths_vary=False)
INTERRUPTED = interrupted_log(7, 200, 9)
INTERRUPTED_ONE_LENGTH = interrupted_log(1, 900, 40)


@pytest.mark.parametrize("path", REAL_FILES, ids=lambda p: str(p.relative_to(FIXTURES)))
@pytest.mark.parametrize("max_bytes", [64, 4096, 1 << 22])
def test_real_files_read_alike(path, max_bytes):
    records, _ = assert_same(path.read_bytes(), max_bytes=max_bytes, max_records=50)
    assert records or path.stat().st_size < 64


@pytest.mark.parametrize("buffering", [0, 1 << 20])
@pytest.mark.parametrize("max_bytes", [300, 1 << 22])
def test_files_on_disk_read_alike_from_any_start_and_position(tmp_path, buffering, max_bytes):
    """A file opened for reading is read at each block's offset (whatever its position), and
    as far as the size given: what is written after is not read."""
    path = tmp_path / "events"
    path.write_bytes(INTERRUPTED + b"\x00" * 5)  # (an incomplete tail)
    for start in (0, len(frame(b"")) + 700):
        expected = by_records(INTERRUPTED + b"\x00" * 5, start)
        with open_regular(str(path), buffering=buffering) as fh:
            fh.seek(123)
            report = ScanReport()
            records = [r for batch in scan_batches(fh, start, len(INTERRUPTED) + 5, report, max_bytes=max_bytes)
                       for r in batch]
        assert (records, report) == expected and report.tail_bytes == 5
    with open_regular(str(path)) as fh:
        path.write_bytes(INTERRUPTED + CYCLIC)  # grown meanwhile: read up to the size given
        report = ScanReport()
        records = [r for batch in scan_batches(fh, 0, len(INTERRUPTED), report, max_bytes=max_bytes) for r in batch]
    assert (records, report) == by_records(INTERRUPTED)


@pytest.mark.parametrize("data", [CYCLIC, SAME_LENGTHS, INTERRUPTED, INTERRUPTED_ONE_LENGTH],
                         ids=["lengths cycle", "one length", "cycle broken now and then", "one length broken"])
@pytest.mark.parametrize("max_bytes", [200, 1000, 1 << 16])
def test_cyclic_logs_read_alike(data, max_bytes):
    records, report = assert_same(data, max_bytes=max_bytes)
    assert report.bad_records == 0 and report.end == len(data) and len(records) > 400


def damaged(data: bytes, draw) -> bytes:
    """`data` with a few bit flips, garbage inserted or records cut out, and maybe a cut tail."""
    out = bytearray(data)
    for _ in range(draw(st.integers(0, 4))):
        kind = draw(st.sampled_from(["flip", "garbage", "cut"]))
        at = draw(st.integers(0, max(0, len(out) - 1)))
        if kind == "flip" and out:
            out[at] ^= 1 << draw(st.integers(0, 7))
        elif kind == "garbage":
            out[at:at] = draw(st.binary(min_size=1, max_size=40))
        else:
            del out[at:at + draw(st.integers(1, 60))]
    end = draw(st.integers(0, len(out)))
    return bytes(out[:end]) if draw(st.booleans()) else bytes(out)


@PROPERTY
@given(st.data())
def test_damaged_cyclic_logs_read_alike(data):
    source = data.draw(st.sampled_from([CYCLIC, SAME_LENGTHS, INTERRUPTED, INTERRUPTED_ONE_LENGTH]))
    stream = damaged(source, data.draw)
    start = data.draw(st.sampled_from([0, data.draw(st.integers(0, len(stream)))]))
    assert_same(stream, start, max_bytes=data.draw(st.sampled_from([100, 700, 5000, 1 << 20])),
                max_records=data.draw(st.sampled_from([1, 7, 1 << 16])))


@PROPERTY
@given(st.data())
def test_damaged_real_files_read_alike(data):
    path = data.draw(st.sampled_from(REAL_FILES))
    stream = damaged(path.read_bytes(), data.draw)
    assert_same(stream, max_bytes=data.draw(st.sampled_from([64, 999, 1 << 20])))


@PROPERTY
@given(st.lists(st.binary(min_size=0, max_size=120), max_size=30), st.data())
def test_random_records_and_cuts_read_alike(payloads, data):
    stream = b"".join(frame(p) for p in payloads)
    cut = data.draw(st.integers(0, len(stream)))
    assert_same(stream[:cut], max_bytes=data.draw(st.integers(12, 300)))


def test_oversized_and_empty_records_and_a_lost_header():
    header = struct.pack("<Q", 600_000_000)
    oversized = header + struct.pack("<I", masked_crc(header))
    stream = CYCLIC[:3000] + frame(b"") + CYCLIC[3000:6000]
    bad = bytearray(stream)
    bad[3000 + 20] ^= 0x10  # a payload CRC fails ...
    bad[40] ^= 0x01  # ... and a header: resync
    for data in (stream, bytes(bad), stream + oversized + b"x" * 100):
        records, report = assert_same(data, max_bytes=512)
        assert records
    _, report = by_records(bytes(bad))
    assert report.bad_records >= 3 and any("header" in p for p in report.problems)


# A file on disk read by blocks reads as the same bytes scanned record by record.
ON_DISK = INTERRUPTED * 30  # 2.8 MB


def by_batches_on_disk(data: bytes, start: int, max_bytes: int) -> tuple[list, ScanReport]:
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "events.summary.1"
        path.write_bytes(data)
        report = ScanReport()
        with open(path, "rb", buffering=1 << 20) as fh:
            records = [record for batch in scan_batches(fh, start, len(data), report, max_bytes=max_bytes)
                       for record in batch]
    return records, report


@PROPERTY
@given(st.data())
def test_damaged_files_on_disk_read_alike_from_any_start(data):
    stream = damaged(ON_DISK, data.draw)
    start = data.draw(st.sampled_from([0, 4096 * 3, data.draw(st.integers(0, len(stream)))]))
    max_bytes = data.draw(st.sampled_from([1 << 20, 1_500_000, 1 << 22]))
    assert by_batches_on_disk(stream, start, max_bytes) == by_records(stream, start)


def test_a_record_longer_than_a_block_is_read_whole():
    stream = frame(b"a" * 10) + frame(b"b" * 100_000) + frame(b"c" * 10)
    records, report = assert_same(stream, max_bytes=1000)
    assert [len(p) for _, p in records] == [10, 100_000, 10] and report.tail_bytes == 0


@pytest.mark.parametrize("size", [13, 16, 17, 190])
def test_payloads_of_one_length_all_alike_or_not_are_each_crc_checked(size):
    # 40 payloads of `size` bytes, all the same or each its own first byte, with records of
    # another length between some (so not evenly spaced); the last one ends the stream (a
    # payload of 17 bytes leaves no room for a whole last 8-byte word before the end).
    for first in (lambda i: b"s", lambda i: bytes([i])):
        records = [frame(first(i) + b"v" * (size - 1)) + (frame(b"x" * 5) if i % 3 == 0 else b"") for i in range(40)]
        stream = b"".join(records)
        assert assert_same(stream)[1].bad_records == 0
        assert_same_is_exact(stream, 1 << 20)
        for at in (len(records[0]) - 6, len(stream) - 6):  # a payload byte of the first and of the last
            bad = bytearray(stream)
            bad[at] ^= 0x10
            assert assert_same(bytes(bad))[1].bad_records == 1


@pytest.mark.parametrize("varying", [47, 48, 49])
def test_payloads_varying_in_as_many_positions_as_the_tables_take_are_each_crc_checked(varying):
    """Rows of one length varying in up to 48 positions are checked by the tables of those
    positions (their indices are 16-bit: the last table's must fit); more, one by one."""
    rng = np.random.default_rng(varying)
    base = bytes(range(200))
    payloads = []
    for _ in range(64):
        row = bytearray(base)
        row[:varying] = rng.integers(0, 256, size=varying, dtype=np.uint8).tobytes()
        payloads.append(bytes(row))
    stream = b"".join(frame(p) + frame(b"x" * 5) for p in payloads)  # (not evenly spaced)
    assert assert_same(stream)[1].bad_records == 0
    for row in (0, 31, 63):
        for at in (varying - 1, 150):  # a byte of the last varying position, and a fixed one
            bad = bytearray(stream)
            bad[row * (len(payloads[0]) + 16 + 21) + 12 + at] ^= 0x80
            assert assert_same(bytes(bad))[1].bad_records == 1


@pytest.mark.parametrize("size", [40, 190, 4266])
@pytest.mark.parametrize("spaced", [True, False])
def test_payloads_of_a_length_are_found_bad_however_many_and_however_alike(size, spaced):
    """Payloads of one length are first checked together (one CRC over all of them): any that
    is damaged, or whose stored CRC is, is still found, one or several, damaged alike or not;
    evenly spaced or not, short (checked by tables) or long."""
    rng = np.random.default_rng(size)
    payloads = [rng.integers(0, 256, size=size, dtype=np.uint8).tobytes() for _ in range(48)]
    records = [frame(p) + (b"" if spaced or i % 4 else frame(b"x" * 9)) for i, p in enumerate(payloads)]
    starts = np.cumsum([0] + [len(r) for r in records])[:-1]
    stream = b"".join(records)
    assert assert_same(stream)[1].bad_records == 0
    payload_at, crc_at = 12 + size // 2, 12 + size  # a payload byte, and its stored CRC's first byte
    for damage in ([(3, payload_at)], [(3, crc_at)], [(3, payload_at), (40, payload_at)],
                   [(0, payload_at), (1, payload_at), (47, crc_at)], [(i, payload_at) for i in range(48)]):
        bad = bytearray(stream)
        for row, at in damage:
            bad[starts[row] + at] ^= 0x04
        records_read, report = assert_same(bytes(bad))
        assert report.bad_records == len(damage)
        assert [p for _, p in records_read if len(p) == size] == [p for i, p in enumerate(payloads)
                                                                 if i not in {row for row, _ in damage}]


# -- what the framing tells the layouts ---------------------------------------------------------

@pytest.mark.parametrize("max_records", [7, 1 << 16])
@pytest.mark.parametrize("damaged", [False, True])
def test_a_batchs_payloads_by_length_are_its_own(sweep_runs, max_records, damaged):
    """The CRC check's groups by length are handed to the layouts with the batch's payloads:
    the batch's own, also after a run placed by the last one, with a bad record left out, or
    split into batches of `max_records`."""
    first, second, _ = sweep_runs
    data = bytearray(second)
    if damaged:
        data[record_starts(second)[100] + 20] ^= 0x01
    assert_same(first)
    for batch in scan_batches(io.BytesIO(bytes(data)), 0, len(data), ScanReport(), max_records, 1 << 22):
        payloads = batch.payloads
        own = Payloads(payloads.data, payloads.starts, payloads.lengths).by_length()
        assert [(n, g.tolist()) for n, g in payloads.by_length()] == [(n, g.tolist()) for n, g in own]
        assert all((payloads.lengths[g] == n).all() for n, g in own) and sum(len(g) for _, g in own) == len(payloads)


def assert_same_is_exact(data: bytes, max_bytes: int, exact: bool = True) -> int:
    """Every batch's `Payloads.same`: each payload of a size is the reference outside the varying
    positions; with `exact` and no bad records (they count too), the reference is one of them
    and each varying position does vary. Returns (sizes checked, bad records)."""
    report = ScanReport()
    found = []
    for batch in scan_batches(io.BytesIO(data), 0, len(data), report, max_bytes=max_bytes):
        payloads = batch.payloads
        for size, (reference, varying) in payloads.same.items():
            rows = [bytes(p) for p in payloads if len(p) == size]
            differs = set()
            for row in rows:
                differs.update(i for i in range(size) if row[i] != reference[i])
            assert differs <= set(varying.tolist())
            found.append((differs == set(varying.tolist()), reference.tobytes() in rows))
    if exact and not report.bad_records:
        assert all(varies and seen for varies, seen in found)
    return len(found), report.bad_records


@pytest.mark.parametrize("max_bytes", [700, 5000, 1 << 20])
def test_the_varying_positions_of_evenly_spaced_and_cyclic_payloads_are_exact(max_bytes):
    # SAME_LENGTHS: evenly spaced payloads (found by comparing the block with itself one stride on)
    assert assert_same_is_exact(SAME_LENGTHS, max_bytes)[1] == assert_same_is_exact(CYCLIC, max_bytes)[1] == 0
    for path in REAL_FILES:
        assert_same_is_exact(path.read_bytes(), max_bytes)


@PROPERTY
@given(st.data())
def test_the_varying_positions_of_damaged_logs_hold(data):
    source = data.draw(st.sampled_from([CYCLIC, SAME_LENGTHS, *(p.read_bytes() for p in REAL_FILES if "tfevents" in p.name)]))
    assert_same_is_exact(damaged(source, data.draw), data.draw(st.sampled_from([300, 4096, 1 << 20])), exact=False)


@pytest.mark.parametrize("damaged_at", [None, 7])
def test_the_rows_of_a_size_are_those_payloads_bytes(damaged_at):
    """`Payloads.rows` gives the bytes of the payloads asked for: all of a size (those the CRC
    check copied, not evenly spaced: handed on, not copied again), some of them, and the good
    ones of a size one of whose records was bad (not among the batch's payloads)."""
    records = [frame(bytes([i]) + b"v" * 19) + (frame(b"x" * 5) if i % 3 == 0 else b"") for i in range(40)]
    stream = bytearray(b"".join(records))
    if damaged_at is not None:
        stream[sum(map(len, records[:damaged_at])) + 14] ^= 0x01  # a payload byte of the 8th of 20 bytes
    report = ScanReport()
    for batch in scan_batches(io.BytesIO(bytes(stream)), 0, len(stream), report):
        payloads = batch.payloads
        members = np.flatnonzero(payloads.lengths == 20)
        assert len(members) == 40 - (damaged_at is not None)
        for chosen in (members, members[::2], members[1:]):
            assert [bytes(row) for row in payloads.rows(chosen, 20)] == [payloads[i] for i in chosen.tolist()]
        if damaged_at is None:
            assert payloads.rows(members, 20) is payloads.rows(members, 20)  # (the check's copy)
    assert report.bad_records == (damaged_at is not None)


# -- a file's opening placed by the last file's (a sweep's runs repeat one sequence of lengths) --


def sweep_run(directory, steps: int = 300, tags: int = 4, seed: int = 0) -> bytes:
    """A run of a sweep as our writer writes it: scalars every step, histograms every 20."""
    import numpy as np

    from tui_insight.summary.formats.writer import SummaryWriter

    rng = np.random.default_rng(seed)
    writer = SummaryWriter(directory, timestamp=1_700_000_000, wall_time=1_700_000_000.0)
    for step in range(1, steps + 1):
        for t in range(tags):
            writer.add_scalar(f"metric/m{t}", float(rng.standard_normal()))
        if step % 20 == 0:
            writer.add_histogram("weights/layer0", rng.normal(size=500))
        writer.record(step, wall_time=1_700_000_000.0 + step)
    writer.close()
    return writer.path.read_bytes()


@pytest.fixture(scope="module")
def sweep_runs(tmp_path_factory):
    """Two runs of one program (the same lengths, other values) and one of other tags."""
    base = tmp_path_factory.mktemp("sweep")
    return (sweep_run(base / "a", seed=1), sweep_run(base / "b", seed=2),
            sweep_run(base / "c", tags=3, seed=3))


def record_starts(data: bytes) -> list[int]:
    return [offset for offset, _ in by_records(data)[0]]


def test_a_run_after_another_of_its_sweep_reads_alike(sweep_runs):
    first, second, other = sweep_runs
    for before, data in ((first, second), (second, first), (other, first), (first, other)):
        assert_same(before)  # (its opening is the one the next scan starts from)
        records, report = assert_same(data)
        assert report.bad_records == 0 and len(records) == 301


@pytest.mark.parametrize("what", ["payload", "crc", "length", "header crc"])
def test_a_damaged_record_where_the_last_run_had_a_good_one_is_found(sweep_runs, what):
    """The last run's lengths place the records of the next only by their headers: each payload
    is still checked against its CRC, and a header that is not the expected one stops the guess."""
    first, second, _ = sweep_runs
    at = record_starts(second)[150]  # a step of scalars: its length is the last run's there
    length = struct.unpack_from("<Q", second, at)[0]
    offset = {"payload": at + 12 + length // 2, "crc": at + 12 + length, "length": at, "header crc": at + 9}[what]
    damaged = bytearray(second)
    damaged[offset] ^= 0x04
    assert_same(first)
    records, report = assert_same(bytes(damaged))
    assert report.bad_records >= 1
    assert at not in [offset for offset, _ in records]
    if what in ("payload", "crc"):  # the records around it are read as ever
        assert len(records) == 300


def test_a_later_block_with_as_many_records_as_the_opening_is_checked_as_its_own(sweep_runs):
    """A block from a file's start whose records are all the last run's opening reuses that
    opening's records by length; a later block of the file holding as many records of other
    lengths, one of them damaged, is grouped and checked as its own."""
    first = sweep_runs[0]
    count = len(record_starts(first))
    others = [frame(bytes([i % 251]) * (40 + i % 3)) for i in range(count)]
    damaged = bytearray(others[count // 2])
    damaged[20] ^= 0x10
    others[count // 2] = bytes(damaged)
    data = first + b"".join(others)
    assert_same(first)
    records, report = assert_same(data, max_bytes=len(first))
    assert report.bad_records == 1 and len(records) == 2 * count - 1


@given(cut=st.integers(min_value=0, max_value=1 << 20), flips=st.lists(st.integers(min_value=0), max_size=3))
@settings(PROPERTY)
def test_cut_or_damaged_runs_after_a_whole_one_read_alike(sweep_runs, cut, flips):
    first, second, _ = sweep_runs
    damaged = bytearray(second[:cut % (len(second) + 1)])
    for flip in flips:
        if damaged:
            damaged[flip % len(damaged)] ^= 1 << (flip % 8)
    assert_same(first)
    assert_same(bytes(damaged))
    assert_same(bytes(damaged), max_bytes=4096)
