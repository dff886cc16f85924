"""Histograms read from their events' bytes (`histogram_bytes`, `PayloadStore.histograms`, issue
30): every event, written plainly or not, gives what protobuf's parse of it gives, histogram for
histogram and error for error, as `PayloadStore.histogram` reads each one alone; the plainly
written ones without protobuf. Records are read back from one open file
(`framing.read_records_at`) as `read_record_at` reads each."""
from __future__ import annotations

import math
import os
import struct

import numpy as np
import pytest

from tui_insight.proto import summary_pb2, tb_event_pb2
from tui_insight.summary.formats import payloads
from tui_insight.summary.formats.framing import frame, read_record_at, read_records_at
from tui_insight.summary.formats.payloads import PayloadStore
from tui_insight.summary.formats.values import HistogramData, Locator, PayloadError


def _varint(value: int) -> bytes:
    value &= (1 << 64) - 1
    out = bytearray()
    while value >= 0x80:
        out.append(value & 0x7F | 0x80)
        value >>= 7
    return bytes(out + bytes([value]))


def _field(key: int, body: bytes) -> bytes:
    """A length-delimited field."""
    return bytes([key]) + _varint(len(body)) + body


def _double(key: int, value: float) -> bytes:
    return bytes([key]) + struct.pack("<d", value)


def _event(summary: bytes, step: int = 3, extra: bytes = b"") -> bytes:
    return _double(0x09, 1.7e9) + bytes([0x10]) + _varint(step) + _field(0x2A, summary) + extra


def _write(path, payloads_: list[bytes]) -> list[int]:
    """The records of `payloads_` written to `path`, framed; their offsets."""
    offsets, at = [], 0
    with open(path, "wb") as fh:
        for payload in payloads_:
            offsets.append(at)
            record = frame(payload)
            fh.write(record)
            at += len(record)
    return offsets


def _same(a, b) -> bool:
    if isinstance(a, PayloadError) or isinstance(b, PayloadError):
        return type(a) is type(b) and str(a) == str(b)
    assert isinstance(a, HistogramData) and isinstance(b, HistogramData)
    return (a.buckets.shape == b.buckets.shape and a.buckets.tobytes() == b.buckets.tobytes()
            and (a.nan_count, a.pos_inf_count, a.neg_inf_count, a.problem)
            == (b.nan_count, b.pos_inf_count, b.neg_inf_count, b.problem)
            and np.array([a.min, a.max]).tobytes() == np.array([b.min, b.max]).tobytes())


def _check_against_one_by_one(path, events: list[tuple[bytes, list[int]]], kind: str) -> list:
    """Each (payload, value indices) of `events` written to `path`; the store's bulk read of every
    index of every event against its reads one at a time (protobuf's parse of each event)."""
    offsets = _write(path, [payload for payload, _ in events])
    locs = [Locator(str(path), offset, index, kind) for offset, (_, indices) in zip(offsets, events) for index in indices]
    one_by_one = []
    for loc in locs:
        store = PayloadStore()
        try:
            one_by_one.append(store.histogram(loc))
        except PayloadError as exc:
            one_by_one.append(exc)
    together = PayloadStore().histograms(locs)
    assert len(together) == len(locs)
    assert [i for i, (a, b) in enumerate(zip(together, one_by_one)) if not _same(a, b)] == []
    return together


# -- TensorBoard ----------------------------------------------------------------------------

def _histo(low: float, high: float, limits, counts, extra: bytes = b"") -> bytes:
    return (_double(0x09, low) + _double(0x11, high) + _double(0x19, float(len(counts))) + _double(0x21, 1.5)
            + _double(0x29, 2.5) + _field(0x32, np.asarray(limits, "<f8").tobytes())
            + _field(0x3A, np.asarray(counts, "<f8").tobytes()) + extra)


def _tb_value(histo: bytes, tag: bytes = b"w", extra: bytes = b"") -> bytes:
    return _field(0x0A, tag) + _field(0x2A, histo) + extra


def _tensorboard_events() -> list[tuple[bytes, list[int]]]:
    rng = np.random.default_rng(30)
    events = []
    for k in range(60):  # written as torch and tensorboardX write them (protobuf's own bytes)
        n = int(rng.integers(0, 40))
        limits = np.sort(rng.standard_normal(n)) * rng.choice([1.0, 1e300])
        counts = rng.choice([0.0, 0.0, 1.0, 2.0, 7.0], n)
        if k % 7 == 3 and n:
            counts[rng.integers(0, n)] = rng.choice([np.nan, np.inf, -1.0, 2.0 ** 60])
        event = tb_event_pb2.Event(wall_time=1.7e9 + k, step=k)
        value = event.summary.value.add(tag=f"t{k % 5}")
        value.histo.min = float(limits[0] - 1) if n and k % 11 else float(rng.choice([np.nan, -np.inf, 0.0]))
        value.histo.max = float(limits[-1] + 1) if n else 0.0
        value.histo.bucket_limit.extend(limits.tolist())
        value.histo.bucket.extend(counts.tolist())
        events.append((event.SerializeToString(), [0]))
    plain = _histo(-1.0, 3.0, [0.0, 1.0, 2.0, 3.0], [1.0, 0.0, 4.0, 2.0])
    scalar = _field(0x0A, b"loss") + bytes([0x15]) + struct.pack("<f", 0.5)
    unpacked = b"".join(_double(0x31, x) for x in (0.0, 1.0)) + b"".join(_double(0x39, x) for x in (2.0, 3.0))
    events += [
        (_event(_field(0x0A, _tb_value(plain))), [0, 1]),  # (index 1: past the values)
        (_event(_field(0x0A, scalar) + _field(0x0A, _tb_value(plain)) + _field(0x0A, _tb_value(plain))), [1, 2, 0]),
        (_event(_field(0x0A, _tb_value(_histo(0.5, 9.0, [1.0, 2.0], [3.0, 4.0])[18:] + _double(0x11, 7.0)
                                       + _double(0x09, -2.0) + _double(0x09, -3.0)))), [0]),  # any order; last wins
        (_event(_field(0x0A, _tb_value(_histo(0.0, 1.0, [], []) + unpacked))), [0]),  # unpacked doubles
        (_event(_field(0x0A, _tb_value(_histo(0.0, 1.0, [1.0, 2.0], [1.0, 1.0]) + _field(0x32, bytes(16))))),
         [0]),  # limits packed twice: one array
        (_event(_field(0x0A, _tb_value(plain, extra=_field(0x4A, _field(0x0A, _field(0x0A, b"histograms")))))), [0]),
        (_event(_field(0x0A, _tb_value(plain, extra=bytes([0x15]) + bytes(4)))), [0]),  # then a simple_value
        (_event(_field(0x0A, bytes([0x15]) + bytes(4) + _tb_value(plain))), [0]),  # a simple_value, then histo
        (_event(_field(0x0A, _tb_value(plain, extra=_field(0x2A, _double(0x09, 5.0))))), [0]),  # histo twice: merged
        (_event(_field(0x0A, _tb_value(plain + bytes([0x40, 1])))), [0]),  # a field HistogramProto does not have
        (_event(_field(0x0A, _tb_value(plain[:-3]))), [0]),  # cut short: not a message
        (_event(_field(0x0A, _tb_value(_histo(0.0, 1.0, [1.0, 2.0], [])[:-2] + _field(0x3A, bytes(20))))), [0]),  # 2.5 doubles
        (_event(_field(0x0A, _tb_value(_histo(0.0, 1.0, [1.0, 2.0], [1.0])))), [0]),  # limits and buckets differ
        (_event(_field(0x0A, _tb_value(plain)), step=-4), [0]),  # a negative step: 10 varint bytes
        (_event(_field(0x0A, _tb_value(plain)), extra=_field(0x1A, b"brain.Event:2")), [0]),  # another `what`, last
        (_event(_field(0x0A, _tb_value(plain)), extra=_field(0x2A, _field(0x0A, _tb_value(_histo(0.0, 1.0, [1.0], [1.0]))))),
         [0, 1]),  # two summaries, merged
        (_event(_field(0x0A, _tb_value(plain)) + b"\x12\x00"), [0]),  # a field Summary does not have
        (_double(0x09, 1.0) + bytes([0x10, 1]), [0]),  # no summary
        (_event(_field(0x0A, _tb_value(_histo(0.0, 0.0, [1.0, 2.0], [0.0, 0.0])))), [0]),  # no bucket filled
    ]
    return events


def test_tensorboard_histograms_read_from_the_bytes_are_protobuf_s(tmp_path):
    found = _check_against_one_by_one(tmp_path / "events.out.tfevents.1.host", _tensorboard_events(), "tensorboard")
    assert sum(isinstance(item, HistogramData) and len(item.buckets) > 1 and not item.problem for item in found) > 30
    assert sum(isinstance(item, HistogramData) and bool(item.problem) for item in found) > 3
    assert sum(isinstance(item, PayloadError) for item in found) >= 3


# -- MindSpore ------------------------------------------------------------------------------

def _bucket(left: float, width: float, count: int) -> bytes:
    return _field(0x0A, _double(0x09, left) + _double(0x11, width) + bytes([0x18]) + _varint(count))


def _ms_histogram(buckets: bytes, tail: bytes | None = None) -> bytes:
    if tail is None:  # as MindSpore writes it
        tail = (bytes([0x10, 0, 0x18, 0, 0x20, 0]) + _double(0x29, 3.0) + _double(0x31, -1.0) + _double(0x39, 4.0)
                + bytes([0x40]) + _varint(12))
    return buckets + tail


def _ms_value(body: bytes, tag: bytes = b"w") -> bytes:
    return _field(0x0A, _field(0x0A, tag) + _field(0x4A, body))


def _mindspore_events() -> list[tuple[bytes, list[int]]]:
    rng = np.random.default_rng(15)
    events = []
    for k in range(40):  # written as MindSpore writes them (protobuf's own bytes)
        event = summary_pb2.Event(wall_time=1.7e9 + k, step=k)
        for j in range(5):
            if j == 2:
                event.summary.value.add(tag="loss", scalar_value=float(k))
                continue
            histogram = event.summary.value.add(tag=f"h{j}").histogram
            edges = np.sort(rng.standard_normal(int(rng.integers(0, 30))))
            for left in edges.tolist():
                histogram.buckets.add(left=left, width=float(rng.uniform(0, 2)), count=int(rng.integers(0, 5000)))
            histogram.nan_count, histogram.max, histogram.min = k % 3, float(k), -float(k)
            histogram.count = len(edges)
        events.append((event.SerializeToString(), [0, 1, 2, 3, 4, 5]))
    two = _bucket(0.0, 1.0, 3) + _bucket(1.0, 1.0, 2 ** 40)
    plain = _ms_histogram(two)
    image = _field(0x0A, _field(0x0A, b"img") + _field(0x22, bytes([0x08, 1, 0x10, 1])))
    broken_image = _field(0x0A, _field(0x0A, b"img") + _field(0x22, bytes([0x08])))
    events += [
        (_event(_ms_value(plain) + _ms_value(_ms_histogram(b""))), [0, 1]),
        (_event(_ms_value(_ms_histogram(_field(0x0A, bytes([0x18, 3]) + _double(0x09, 1.5)) + two))), [0]),  # order
        (_event(_ms_value(_ms_histogram(_field(0x0A, _double(0x09, 1.5) + bytes([0x70, 1]))))), [0]),  # unknown
        (_event(_ms_value(_ms_histogram(_field(0x0A, _double(0x09, 1.5) + _field(0x7A, bytes(200)))))), [0]),  # long
        (_event(_ms_value(_ms_histogram(two, bytes([0x10, 1, 0x10, 2]) + _double(0x31, -2.0) + _double(0x31, -5.0)))),
         [0]),  # fields given twice: the last
        (_event(_ms_value(_ms_histogram(two, bytes([0x10]) + _varint(-1)))), [0]),  # negative NaN count
        (_event(_ms_value(_ms_histogram(two, bytes([0x10]) + b"\xff" * 9 + b"\x02"))), [0]),  # past 64 bits
        (_event(_ms_value(_ms_histogram(two, bytes([0x48, 1])))), [0]),  # a field Histogram does not have
        (_event(_ms_value(_ms_histogram(two, bytes([0x10, 1]) + _bucket(2.0, 1.0, 1)))), [0]),  # a bucket after them
        (_event(_ms_value(_ms_histogram(b"".join(_bucket(float(i), 1.0, 1) for i in range(95))))), [0]),  # many
        (_event(_ms_value(_ms_histogram(_bucket(2.0, 1.0, 1) + _bucket(1.0, 1.0, 1)))), [0]),  # unsorted
        (_event(_ms_value(_ms_histogram(_bucket(math.nan, 1.0, 1) + _bucket(1.0, -1.0, 1)))), [0]),  # dropped
        (_event(_ms_value(plain) + image), [0, 1]),  # an image in the event
        (_event(_ms_value(plain) + broken_image), [0]),  # one protobuf cannot read: nor the event
        (_event(_ms_value(_ms_histogram(two[:-3], b"")) + _ms_value(plain)), [0, 1]),  # a bucket past its histogram
        (_event(_field(0x0A, _field(0x0A, b"loss") + bytes([0x1D]) + bytes(4)) + _ms_value(plain)), [0, 1]),
        (_event(_ms_value(plain), extra=_field(0x1A, b"v")), [0]),  # another `what` after the summary
        (_event(_ms_value(plain), extra=_field(0x2A, _ms_value(_ms_histogram(_bucket(5.0, 1.0, 1))))), [0, 1]),  # merged
        (_event(_ms_value(plain[:-4])), [0]),  # cut short inside its tail
        (_event(_ms_value(_ms_histogram(two[:-3]))), [0]),  # a bucket cut short
    ]
    return events


def test_mindspore_histograms_read_from_the_bytes_are_protobuf_s(tmp_path):
    found = _check_against_one_by_one(tmp_path / "events.out.events.summary.1.host_MS", _mindspore_events(),
                                      "summary")
    assert sum(isinstance(item, HistogramData) and len(item.buckets) > 1 and not item.problem for item in found) > 100
    assert sum(isinstance(item, HistogramData) and bool(item.problem) for item in found) >= 2
    assert sum(isinstance(item, PayloadError) for item in found) >= 2


@pytest.mark.parametrize("kind", ["tensorboard", "summary"])
def test_histograms_written_plainly_are_read_without_protobuf(tmp_path, monkeypatch, kind):
    events = (_tensorboard_events() if kind == "tensorboard" else _mindspore_events())[:40]
    offsets = _write(tmp_path / "run", [payload for payload, _ in events])
    locs = [Locator(str(tmp_path / "run"), offset, 0, kind) for offset in offsets]
    parsed = []
    value_in = payloads._value_in
    monkeypatch.setattr(payloads, "_value_in", lambda *args: parsed.append(args) or value_in(*args))
    found = PayloadStore().histograms(locs)
    # (TensorBoard: the histograms the checks change are converted from protobuf's parse)
    assert all(isinstance(item, HistogramData) for item in found)
    assert len(parsed) == sum(bool(item.problem) for item in found) < 10


# -- records read back ----------------------------------------------------------------------

def test_records_read_through_one_open_file_are_read_record_at_s(tmp_path):
    rng = np.random.default_rng(4)
    sizes = [100, 100, 120, 9000, 100, 300_000, 50, 50, 5000, 100]
    path = tmp_path / "records"
    offsets = _write(path, [rng.bytes(size) for size in sizes])
    with open(path, "r+b") as fh:  # a payload damaged amid its run
        fh.seek(offsets[4] + 20)
        fh.write(b"\xff\x00")
    end = os.path.getsize(path)
    asked = [*offsets, offsets[2] + 1, end, end + 100, offsets[1], offsets[0], offsets[8]]

    def one(offset):
        try:
            return read_record_at(str(path), offset)
        except (OSError, ValueError) as exc:
            return f"{type(exc).__name__}: {exc}"

    expected = [one(offset) for offset in asked]
    found = [item if isinstance(item, bytes) else f"{type(item).__name__}: {item}"
             for item in read_records_at(str(path), asked)]
    assert found == expected
    assert sum(isinstance(item, bytes) for item in found) == len(sizes) - 1 + 3
    missing = read_records_at(str(tmp_path / "gone"), [0, 12])
    assert [type(item) for item in missing] == [FileNotFoundError, FileNotFoundError]
