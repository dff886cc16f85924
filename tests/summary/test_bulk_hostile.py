"""Hostile inputs against the bulk path's shortcuts: the cache loading a file through the bulk
framing and the event layouts holds exactly what a plain record-by-record, event-by-event read
holds (every tag, value and its bits, bad-record and tail counts, problems, hparams)."""
from __future__ import annotations

import io
import math
import struct

import numpy as np
import pytest

from tui_insight.proto import summary_pb2, tb_event_pb2
from tui_insight.summary import cache as cache_module
from tui_insight.summary.cache import SummaryCache
from tui_insight.summary.records import (LayoutBook, Payloads, RecordBatch, ScanReport, frame, scan_batches,
                                         scan_records)

SUMMARY = "events.summary.1700000000.host_MS"
TFEVENTS = "events.out.tfevents.1700000000.host"


def plain_batches(fh, start, size, report, max_records=1 << 16, max_bytes=0):
    """`scan_batches` as the plain walk: every record by `scan_records`, in one batch."""
    records = list(scan_records(fh, start, size, report))
    if records:
        offsets = np.asarray([offset for offset, _ in records], dtype=np.int64)
        yield RecordBatch(offsets, Payloads.of([payload for _, payload in records]))


def load(logdir, bulk: bool, monkeypatch):
    with monkeypatch.context() as m:
        if not bulk:
            m.setattr(LayoutBook, "NEW_PER_SIZE", 0)
            m.setattr(cache_module, "scan_batches", plain_batches)
        cache = SummaryCache(str(logdir))
        cache.reload()
    return cache


def view_of(cache):
    """Everything a job view holds that the reading decides, with floats as their bits."""
    out = {}
    for tid, job in cache.jobs.items():
        full = cache.job(tid)
        tags = {}
        for key, series in full.tags.items():
            tags[key] = (series.seen, {name: (col.dtype.str, col.tobytes()) for name, col in series.columns.items()})
        first = job.first_wall_time
        out[tid] = (list(full.tags), tags, [(f.name, f.records, f.bad_records, f.tail_bytes) for f in full.file_status],
                    full.problems, struct.pack("<d", first) if first is not None else None,
                    full.lineage.hparams if full.lineage is not None else None)
    return out


def assert_bulk_reads_alike(logdir, monkeypatch, min_layouts: int = 1):
    bulk = load(logdir, True, monkeypatch)
    assert bulk._layout_book.count + bulk._tb_layout_book.count >= min_layouts  # the bulk path was taken
    assert view_of(bulk) == view_of(load(logdir, False, monkeypatch))
    return bulk


def event(step, wall, values, proto=summary_pb2):
    e = proto.Event(wall_time=wall, step=step)
    for tag, value in values:
        v = e.summary.value.add(tag=tag)
        if value is not None:
            setattr(v, "scalar_value" if proto is summary_pb2 else "simple_value", value)
    return e.SerializeToString()


def write(path, payloads):
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(b"".join(frame(p) for p in payloads))


def with_step_bytes(payload: bytes, step_bytes: bytes) -> bytes:
    """`payload` (an Event written with step -1: a ten-byte varint) with other step bytes."""
    at = payload.index(b"\x10" + b"\xff" * 9 + b"\x01") + 1
    return payload[:at] + step_bytes + payload[at + 10:]


def test_a_ten_byte_step_whose_last_byte_overflows_reads_as_protobuf_reads_it(tmp_path, monkeypatch):
    """A ten-byte step varint has one bit left in its last byte; protobuf drops the others. The
    layout fixes only the continuation bits, so rows with any last byte below 0x80 match it."""
    payloads = []
    for n in range(200):
        payload = event(-1, 1000.0 + n, [("loss", float(n)), ("acc", 0.5)])
        last = [0x01, 0x03, 0x7F, 0x02, 0x00, 0x40][n % 6]
        payloads.append(with_step_bytes(payload, bytes([0x80 | (n & 0x7F)] + [0xFF] * 8 + [last])))
    write(tmp_path / "run" / SUMMARY, payloads)
    bulk = assert_bulk_reads_alike(tmp_path, monkeypatch)
    steps = bulk.job("./run").tags[("scalar", "loss")].steps
    assert {int(s) < 0 for s in steps} == {True, False}  # both signs: the top bit is read


def test_a_tensorboard_value_without_data_of_an_hparams_tag_is_routed_as_one_by_one(tmp_path, monkeypatch):
    """TensorBoard routes a value without data by its tag's plugin, first named in an earlier
    event's metadata: a value of an "hparams" tag goes to the hparams reader even when bare.
    The layout of [loss = x, "hp" without data] must not skip it."""
    first = tb_event_pb2.Event(wall_time=1.0, step=0)
    first.summary.value.add(tag="hp").metadata.plugin_data.plugin_name = "hparams"
    payloads = [first.SerializeToString()]
    for n in range(1, 100):
        payloads.append(event(n, 2.0 + n, [("loss", n / 3), ("hp", None)], tb_event_pb2))
        payloads.append(event(n, 2.0 + n, [("acc", n / 7)], tb_event_pb2))  # read in bulk
    write(tmp_path / "run" / TFEVENTS, payloads)
    assert_bulk_reads_alike(tmp_path, monkeypatch)


FLOAT_BITS = [0x7F800001, 0xFF800001, 0x7FC00000, 0xFFFFFFFF, 0x7FBFFFFF, 0x00000001, 0x80000000, 0x7F800000,
              0x3F800000]  # signalling and quiet NaNs with payloads, a denormal, -0.0, inf, 1.0
WALL_BITS = [0x7FF0000000000001, 0xFFF8000000000000, 0x7FF8DEADBEEF0000, 0x0000000000000001, 0x41D954FC40000000]


@pytest.mark.filterwarnings("error::RuntimeWarning:tui_insight.summary.records")  # nothing said on stderr
def test_nan_payloads_and_special_bits_read_alike(tmp_path, monkeypatch):
    """Scalars and wall times with any bit pattern (signalling NaNs, NaN payloads) read with
    the same bits in bulk (float32 -> float64 by numpy) as by protobuf (float32 -> double)."""
    payloads = []
    for n in range(120):
        scalar = struct.unpack("<f", struct.pack("<I", FLOAT_BITS[n % len(FLOAT_BITS)]))[0]
        wall = struct.unpack("<d", struct.pack("<Q", WALL_BITS[n % len(WALL_BITS)]))[0]
        payloads.append(event(n, wall, [("loss", 0.0), ("acc", 1.0)]))
        # the float bits as written (Python's float() of a float32 signalling NaN would quiet it)
        at = payloads[-1].index(b"\x1d\x00\x00\x00\x00") + 1
        payloads[-1] = payloads[-1][:at] + struct.pack("<I", FLOAT_BITS[n % len(FLOAT_BITS)]) + payloads[-1][at + 4:]
    write(tmp_path / "run" / SUMMARY, payloads)
    bulk = assert_bulk_reads_alike(tmp_path, monkeypatch)
    assert math.isnan(bulk.job("./run").tags[("scalar", "loss")].columns["value"][0])
