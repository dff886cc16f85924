"""Fuzzing the reader: random bytes, truncation at every offset, bit flips.

No exception escapes, no read asks for more bytes than the file holds, and whatever is
returned is a record that was really written.
"""
import io
import os

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tui_insight.proto import summary_pb2
from tui_insight.summary.formats.framing import ScanReport, frame, scan_records
from tui_insight.summary.store.cache import SummaryCache

FUZZ = settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])


class BoundedFile(io.BytesIO):
    """A file that fails the test if asked for more bytes than it holds."""

    def read(self, n=-1):
        assert n is None or n < 0 or n <= len(self.getbuffer()), f"asked for {n} bytes of {len(self.getbuffer())}"
        return super().read(n)


def scan(data: bytes):
    report = ScanReport()
    records = list(scan_records(BoundedFile(data), 0, len(data), report))
    assert 0 <= report.end <= len(data)
    assert report.tail_bytes == len(data) - report.end
    return records, report


payloads = st.lists(st.binary(min_size=1, max_size=300), min_size=1, max_size=8)


@FUZZ
@given(st.binary(max_size=4000))
def test_random_bytes(data):
    records, _ = scan(data)
    for offset, payload in records:
        assert offset + len(payload) + 16 <= len(data)


@FUZZ
@given(payloads, st.data())
def test_truncation_at_any_offset(items, data):
    stream = b"".join(frame(p) for p in items)
    cut = data.draw(st.integers(0, len(stream)))
    records, report = scan(stream[:cut])
    got = [p for _, p in records]
    assert got == items[: len(got)]
    assert report.bad_records == 0
    whole = sum(len(frame(p)) for p in got)
    assert report.end == whole


@FUZZ
@given(payloads, st.data())
def test_bit_flips(items, data):
    stream = bytearray(b"".join(frame(p) for p in items))
    for _ in range(data.draw(st.integers(1, 4))):
        bit = data.draw(st.integers(0, len(stream) * 8 - 1))
        stream[bit // 8] ^= 1 << (bit % 8)
    records, report = scan(bytes(stream))
    # What survives is an in-order subsequence of what was written.
    remaining = iter(items)
    for _, payload in records:
        assert any(payload == item for item in remaining)


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.binary(max_size=3000), st.booleans())
def test_cache_survives_any_file(tmp_path, data, with_good_prefix):
    for name in os.listdir(tmp_path):
        os.remove(tmp_path / name)
    prefix = b""
    if with_good_prefix:
        event = summary_pb2.Event(wall_time=1.0, step=1)
        event.summary.value.add(tag="loss", scalar_value=1.0)
        prefix = frame(event.SerializeToString())
    (tmp_path / "events.summary.1_MS").write_bytes(prefix + data)
    cache = SummaryCache(str(tmp_path))
    cache.reload()
    view = cache.job("./")
    assert view.state.split(":")[0] in {"ok", "growing", "corrupt"} or (
        view.state == "unreadable: not a summary file" and not with_good_prefix)
    if with_good_prefix:
        steps = view.series("scalar", "loss").steps.tolist()
        assert steps.count(1) == 1  # the good record before the garbage is kept
