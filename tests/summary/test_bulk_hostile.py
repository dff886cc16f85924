"""Hostile inputs against the bulk path's shortcuts: the cache loading a file through the bulk
framing and the event layouts holds exactly what a plain record-by-record, event-by-event read
holds (every tag, value and its bits, bad-record and tail counts, problems, hparams)."""
from __future__ import annotations

import io
import math
import os
import struct

import numpy as np
import pytest
from google.protobuf.message import DecodeError
from hypothesis import HealthCheck, Phase, given, settings
from hypothesis import strategies as st

from read_views import view_of

from tui_insight.proto import summary_pb2, tb_event_pb2
from tui_insight.summary.formats.bulk_framing import Payloads, RecordBatch, scan_batches
from tui_insight.summary.formats.framing import FOOTER_SIZE, ScanReport, frame, masked_crc, scan_records
from tui_insight.summary.formats.layouts import DIALECTS, LayoutBook
from tui_insight.summary.formats.mixed_layouts import MixedBook
from tui_insight.summary.store import loader as loader_module
from tui_insight.summary.store.cache import SummaryCache

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
            m.setattr(MixedBook, "enabled", False)
            m.setattr(loader_module, "scan_batches", plain_batches)
        cache = SummaryCache(str(logdir))
        cache.reload()
    return cache



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


def tf2_event(step, wall, values, named: bool) -> bytes:
    """Scalars as TF2 writes them: float32 tensors of shape [], the plugin named if `named`."""
    e = tb_event_pb2.Event(wall_time=wall, step=step)
    for tag, number in values:
        v = e.summary.value.add(tag=tag)
        v.tensor.dtype = tb_event_pb2.DT_FLOAT
        v.tensor.tensor_shape.SetInParent()
        if int(wall) % 2:
            v.tensor.tensor_content = struct.pack("<f", number)
        else:
            v.tensor.float_val.append(number)
        if named:
            v.metadata.plugin_data.plugin_name = "scalars"
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


@pytest.mark.filterwarnings("error::RuntimeWarning:tui_insight.summary.formats")  # nothing said on stderr
def test_nan_payloads_and_special_bits_read_alike(tmp_path, monkeypatch):
    """Scalars and wall times with any bit pattern (signalling NaNs, NaN payloads) read with
    the same bits in bulk (float32 -> float64 by numpy) as by protobuf (float32 -> double)."""
    payloads = []
    for n in range(120):
        wall = struct.unpack("<d", struct.pack("<Q", WALL_BITS[n % len(WALL_BITS)]))[0]
        payloads.append(event(n, wall, [("loss", 0.0), ("acc", 1.0)]))
        # the float bits as written (Python's float() of a float32 signalling NaN would quiet it)
        at = payloads[-1].index(b"\x1d\x00\x00\x00\x00") + 1
        payloads[-1] = payloads[-1][:at] + struct.pack("<I", FLOAT_BITS[n % len(FLOAT_BITS)]) + payloads[-1][at + 4:]
    write(tmp_path / "run" / SUMMARY, payloads)
    bulk = assert_bulk_reads_alike(tmp_path, monkeypatch)
    assert math.isnan(bulk.job("./run").tags[("scalar", "loss")].columns["value"][0])


# -- random training logs with hostile edits, framed right or wrong ---------------------------

# HOSTILE_EXAMPLES=5000 searches further, with new examples each run.
PROPERTY = settings(max_examples=int(os.environ.get("HOSTILE_EXAMPLES", "40")), deadline=None,
                    derandomize="HOSTILE_EXAMPLES" not in os.environ, database=None,
                    phases=[Phase.explicit, Phase.generate],
                    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
TAGS = ["loss", "acc", "lr", "hp", "x/1", "x/22", "", "lossX"]
steps = st.one_of(st.integers(0, 300), st.sampled_from([-1, -(2 ** 63), 2 ** 63 - 1, 127, 128, 2 ** 35]))
walls = st.one_of(st.floats(1e9, 2e9), st.sampled_from([0.0, -0.0, math.nan, math.inf, -1.0]))
scalars = st.one_of(st.floats(width=32, allow_nan=True), st.sampled_from([None]))


@st.composite
def training_log(draw, tensorboard: bool) -> list[bytes]:
    """A loop writing the same tags in the same order every step (one event per tag, or all in
    one), with stray events, other kinds of values, and payloads edited and framed anew."""
    proto = tb_event_pb2 if tensorboard else summary_pb2
    tags = draw(st.lists(st.sampled_from(TAGS), min_size=1, max_size=12))  # > 8 in one event: read another way
    together = draw(st.booleans())
    tf2 = tensorboard and draw(st.booleans())  # scalars as TF2's tensors, named "scalars" on the first step
    histograms = tensorboard and draw(st.booleans())  # torch's add_histogram every few steps
    first_step = draw(steps)
    payloads = []
    if tensorboard and draw(st.booleans()):
        first = tb_event_pb2.Event(wall_time=1.0, step=0)
        first.summary.value.add(tag="hp").metadata.plugin_data.plugin_name = draw(st.sampled_from(["hparams", "scalars"]))
        payloads.append(first.SerializeToString())
    for n in range(draw(st.integers(1, int(os.environ.get("HOSTILE_STEPS", "120"))))):
        step, wall = first_step + n if first_step < 2 ** 62 else first_step, 1.7e9 + n
        values = [(tag, 1.0 / (n + i + 1)) for i, tag in enumerate(tags)]
        if tf2:
            payloads += [tf2_event(step, wall, [value], named=n == 0) for value in values]
        elif together:
            payloads.append(event(step, wall, values, proto))
        else:
            payloads += [event(step, wall, [value], proto) for value in values]
        if histograms and n % 3 == 0:
            e = tb_event_pb2.Event(wall_time=wall, step=step)
            buckets = draw(st.integers(0, 40))
            e.summary.value.add(tag="h/w", histo=tb_event_pb2.HistogramProto(
                min=-1.0, max=1.0, num=n, sum=0.5, sum_squares=2.0, bucket_limit=[i / 7 for i in range(buckets)],
                bucket=[float(i * n % 5) for i in range(buckets)]))
            payloads.append(e.SerializeToString())
        if draw(st.integers(0, 15)) == 0:  # a stray event: odd numbers, values without data, other kinds
            kind = draw(st.sampled_from(["values", "histogram", "restart", "empty"]))
            if kind == "values":
                payloads.append(event(draw(steps), draw(walls), draw(st.lists(st.tuples(st.sampled_from(TAGS), scalars),
                                                                               max_size=3)), proto))
            elif kind == "histogram":
                e = proto.Event(wall_time=wall, step=step)
                value = e.summary.value.add(tag=tags[0])
                (value.histo if tensorboard else value.histogram).min = 1.0
                payloads.append(e.SerializeToString())
            elif kind == "restart" and tensorboard:
                payloads.append(tb_event_pb2.Event(step=draw(steps), session_log=tb_event_pb2.SessionLog(status=1))
                                .SerializeToString())
            else:
                payloads.append(proto.Event(wall_time=wall, step=step).SerializeToString())
    for _ in range(draw(st.integers(0, 6))):  # edits of a payload, framed anew (its CRCs are right)
        i = draw(st.integers(0, len(payloads) - 1))
        edited = bytearray(payloads[i])
        at = draw(st.integers(0, len(edited) - 1))
        kind = draw(st.sampled_from(["flip", "set", "insert", "delete"]))
        if kind == "flip":
            edited[at] ^= 1 << draw(st.integers(0, 7))
        elif kind == "set":
            edited[at] = draw(st.sampled_from([0x00, 0x7F, 0x80, 0xFF, 0x0A, 0x1D, 0x15, 0x10, 0x09, 0x2A]))
        elif kind == "insert":
            edited[at:at] = draw(st.binary(min_size=1, max_size=3))
        else:
            del edited[at:at + draw(st.integers(1, 3))]
        payloads[i] = bytes(edited)
    return payloads


@PROPERTY
@given(st.data())
def test_random_training_logs_with_edits_read_alike(tmp_path_factory, data):
    tensorboard = data.draw(st.booleans())
    payloads = data.draw(training_log(tensorboard))
    stream = b"".join(frame(p) for p in payloads)
    if data.draw(st.booleans()):  # framing damage too: a flipped bit, a cut tail
        stream = bytearray(stream)
        stream[data.draw(st.integers(0, len(stream) - 1))] ^= 1 << data.draw(st.integers(0, 7))
        stream = bytes(stream[:data.draw(st.integers(len(stream) // 2, len(stream)))])
    logdir = tmp_path_factory.mktemp("log")
    (logdir / "run").mkdir()
    (logdir / "run" / (TFEVENTS if tensorboard else SUMMARY)).write_bytes(stream)
    with pytest.MonkeyPatch.context() as monkeypatch:
        monkeypatch.setattr(loader_module, "_BATCH_BYTES", data.draw(st.sampled_from([256, 2048, 1 << 20])))
        monkeypatch.setattr(loader_module, "_MERGE_VALUES", data.draw(st.sampled_from([50, 1 << 18])))
        bulk = load(logdir, True, monkeypatch)
        assert view_of(bulk) == view_of(load(logdir, False, monkeypatch))


@pytest.mark.parametrize("variant", ["short", "long", "noise"])
@pytest.mark.parametrize("tensorboard", [True, False], ids=["tensorboard", "mindspore"])
def test_rows_like_the_cycles_layout_on_its_telling_bytes_are_not_taken_for_it(tmp_path, monkeypatch, tensorboard,
                                                                                variant):
    """12 tags of one length told apart by two digits; over 4,096 rows left, the layouts of the
    first rows' cycle are every row's guess. Rows where the cycle expects "train/03/loss" hold
    tags with the same digits and other letters (one letter: one more varying position; many:
    more than the eight packed in a word), and a step whose varint is one byte longer, the size
    kept by a shorter tag. Rows are checked against the framing's `same` hint ("short"), or
    without it: rows past 512 bytes ("long"), or random rows of the same size ("noise")."""
    proto = tb_event_pb2 if tensorboard else summary_pb2
    prefix = {"short": "", "long": "t" * 500, "noise": "n" * 30}[variant]  # 70 bytes: random rows vary in more than 48
    tags = [f"{prefix}train/{i:02d}/loss" for i in range(12)]
    hostile = {3003: "train/03/lxss", 4803: "qwert/03/abcd", 5403: "train/03/lxss", 8403: "Xrain/03/los"}  # t == 3, past the rows probed for the cycle
    payloads = []
    for step in range(128, 900):  # steps of two varint bytes: all rows of one size
        for t, tag in enumerate(tags):
            odd = hostile.get(len(payloads)) if t == 3 else None
            payloads.append(event(step + (20_000 if odd == "Xrain/03/los" else 0), 1.7e9 + step,
                                  [(prefix + odd if odd else tag, 1.0 / (1 + step + t))], proto))
    if variant == "noise":
        rng = np.random.default_rng(7)
        payloads[7000:7000] = [rng.bytes(len(payloads[0])) for _ in range(3)]  # past the rows probed
    write(tmp_path / "run" / (TFEVENTS if tensorboard else SUMMARY), payloads)
    with monkeypatch.context() as m:
        m.setattr(loader_module, "_BATCH_BYTES", 8 << 20)  # one batch
        bulk = assert_bulk_reads_alike(tmp_path, m, min_layouts=12)
    assert {prefix + tag for tag in hostile.values()} <= {tag for _, tag in bulk.job("./run").tags}


# -- framing: the file as stat saw it is not the file as read ---------------------------------

class GrownFile(io.BytesIO):
    """A file read by a scan told it is `size` bytes: fails the test on a read past `size`."""

    def __init__(self, data: bytes, size: int) -> None:
        super().__init__(data)
        self.size = size

    def read(self, n=-1):
        assert n is not None and 0 <= n and self.tell() + n <= self.size, f"read {n} at {self.tell()} of {self.size}"
        return super().read(n)


@PROPERTY
@given(st.data())
def test_a_file_that_grew_or_shrank_since_its_stat_is_scanned_alike(data):
    """A writer appends after the stat (the scans must stop at the size they were given, reading
    nothing past it), or the file was cut after it (reads come back short)."""
    tags = data.draw(st.lists(st.sampled_from(TAGS), min_size=1, max_size=4))
    stream = b"".join(frame(event(n, 1.7e9 + n, [(tag, float(n))])) for n in range(60) for tag in tags)
    stream += frame(b"") + frame(b"\x00" * data.draw(st.integers(1, 3000)))  # an empty record, an odd length
    stream = stream * 2
    size = data.draw(st.integers(0, len(stream)))
    grew = data.draw(st.booleans())  # else: the file holds less than `size`
    held = stream if grew else stream[:data.draw(st.integers(0, size))]
    max_bytes = data.draw(st.sampled_from([64, 700, 4096, 1 << 20]))

    reference = ScanReport()
    expected = list(scan_records(GrownFile(held, size), 0, size, reference))
    report = ScanReport()
    found = [record for batch in scan_batches(GrownFile(held, size), 0, size, report, max_bytes=max_bytes)
             for record in batch]
    assert found == expected and report == reference


def oversized_header(length: int) -> bytes:
    header = struct.pack("<Q", length)
    return header + struct.pack("<I", masked_crc(header))


@pytest.mark.parametrize("max_bytes", [4096, 1 << 22])
def test_an_oversized_record_held_whole_is_skipped_alike(tmp_path, max_bytes):
    """A record one byte over the payload limit, all of it in the file (sparse: nothing is
    read), is skipped as one bad record and the records after it are read; a length near 2^64
    at the end is an incomplete tail."""
    from tui_insight.summary.formats.framing import MAX_PAYLOAD, open_regular

    records = b"".join(frame(event(n, 1.0 + n, [("loss", float(n))])) for n in range(50))
    path = tmp_path / SUMMARY
    with open(path, "wb") as fh:
        fh.write(records + oversized_header(MAX_PAYLOAD + 1))
        fh.seek(MAX_PAYLOAD + 1 + FOOTER_SIZE, io.SEEK_CUR)  # a hole
        fh.write(records + oversized_header(2 ** 64 - 1) + b"x" * 30)
    size = path.stat().st_size
    reference = ScanReport()
    with open_regular(str(path)) as fh:
        expected = list(scan_records(fh, 0, size, reference))
    report = ScanReport()
    with open_regular(str(path)) as fh:
        found = [record for batch in scan_batches(fh, 0, size, report, max_bytes=max_bytes) for record in batch]
    assert found == expected and report == reference
    assert len(found) == 100 and report.bad_records == 1 and report.tail_bytes == 12 + 30


def test_events_of_the_other_dialect_read_alike(tmp_path, monkeypatch):
    """MindSpore's scalar events in a TensorBoard file (its field 3 is no float there) and
    TensorBoard's in a summary file (field 2), next to files of their own dialect that teach
    both layout books the same tags: each file is read by its own protos, in bulk as plainly."""
    for name, proto in [(SUMMARY, summary_pb2), (TFEVENTS, tb_event_pb2)]:
        other = tb_event_pb2 if proto is summary_pb2 else summary_pb2
        write(tmp_path / "own" / name, [event(n, 1.0 + n, [("loss", n / 2)], proto) for n in range(100)])
        write(tmp_path / "other" / name, [event(n, 1.0 + n, [("loss", n / 2)], other) for n in range(100)])
    bulk = assert_bulk_reads_alike(tmp_path, monkeypatch, min_layouts=2)
    assert len(bulk.job("./own").tags[("scalar", "loss")]) == 100


def cycle_log(proto, tags, steps) -> list[bytes]:
    return [event(step, 1.7e9 + step * 0.5, [(tag, 1.0 / (1 + step + t))], proto)
            for step in steps for t, tag in enumerate(tags)]


CYCLE_TAGS = [f"train/{i:02d}/loss" for i in range(12)]
CYCLE_LOGS = {proto: cycle_log(proto, CYCLE_TAGS, range(128, 830)) for proto in (summary_pb2, tb_event_pb2)}


def assert_classified_as_protobuf_decodes(payloads, proto, dialect):
    """Every payload a layout was found for is what protobuf decodes, number for number."""
    def decode(payload):
        try:
            return proto.Event.FromString(payload)
        except DecodeError:
            return None

    stream = b"".join(frame(p) for p in payloads)
    (batch,) = scan_batches(io.BytesIO(stream), 0, len(stream), ScanReport(), max_bytes=len(stream))
    book = LayoutBook(dialect)
    book.classify(batch.payloads, decode)  # learn the layouts: the next call guesses by the cycle
    which, layouts, _ = book.classify(batch.payloads, decode)
    for number, layout in enumerate(layouts):
        rows = np.flatnonzero(which == number)
        steps_, walls_, floats = layout.numbers_at(batch.payloads.array, batch.payloads.starts[rows])
        for j, i in enumerate(rows.tolist()):
            e = decode(payloads[i])
            assert e is not None and e.WhichOneof("what") == "summary", i
            values = e.summary.value
            assert tuple(v.tag for v in values) == layout.tags and tuple(v.WhichOneof("value") for v in values) == layout.kinds
            assert int(steps_[j]) == e.step and struct.pack("<d", walls_[j]) == struct.pack("<d", e.wall_time), i
            expected = [getattr(v, DIALECTS[dialect].scalar_field) for v in values if v.WhichOneof("value")]
            assert np.asarray(expected, dtype=np.float64).tobytes() == floats[j].tobytes(), i
    return int(np.count_nonzero(which >= 0))


@settings(PROPERTY, max_examples=int(os.environ.get("HOSTILE_EXAMPLES", "15")))  # 8,424 rows each
@given(st.data())
def test_edited_rows_of_a_long_cycle_are_read_as_protobuf_reads_them(data):
    """Rows of a 12-tag cycle past the rows probed for it, edited in place (the size kept: no
    hint from the framing's lengths), are taken for a layout only if protobuf reads them so."""
    tensorboard = data.draw(st.booleans())
    proto = tb_event_pb2 if tensorboard else summary_pb2
    payloads = list(CYCLE_LOGS[proto])
    for _ in range(data.draw(st.integers(1, 12))):
        i = data.draw(st.integers(2800, len(payloads) - 1))
        edited = bytearray(payloads[i])
        at = data.draw(st.integers(0, len(edited) - 1))
        if data.draw(st.booleans()):
            edited[at] ^= 1 << data.draw(st.integers(0, 7))
        else:
            edited[at] = data.draw(st.sampled_from([0x00, 0x30, 0x39, 0x7F, 0x80, 0xFF, 0x0A, 0x1D, 0x15, 0x10]))
        payloads[i] = bytes(edited)
    dialect = "tensorboard" if tensorboard else "mindspore"
    assert assert_classified_as_protobuf_decodes(payloads, proto, dialect) > len(payloads) - 100


@pytest.mark.parametrize("tensorboard", [True, False], ids=["tensorboard", "mindspore"])
def test_layouts_forgotten_and_tags_evicted_meanwhile_read_alike(tmp_path, monkeypatch, tensorboard):
    """More layouts than the book keeps (it starts over in the middle of a batch) and more tags
    than a job keeps (the first seen are evicted, later values of theirs ignored), over
    several batches and merges and two files of one job."""
    from tui_insight.summary import limits

    proto = tb_event_pb2 if tensorboard else summary_pb2
    tags = [f"tag/{i}" for i in range(30)]
    name = TFEVENTS if tensorboard else "events.summary.1700000000.host_MS"
    write(tmp_path / "run" / name, cycle_log(proto, tags[:20], range(60)))
    write(tmp_path / "run" / name.replace("1700000000", "1700000001"), cycle_log(proto, tags[10:], range(60, 120)))
    monkeypatch.setattr(LayoutBook, "MAX_LAYOUTS", 7)
    monkeypatch.setattr(limits, "MAX_TAGS", 12)
    monkeypatch.setattr(loader_module, "_BATCH_BYTES", 4096)
    monkeypatch.setattr(loader_module, "_MERGE_VALUES", 300)
    bulk = assert_bulk_reads_alike(tmp_path, monkeypatch)
    assert len(bulk.job("./run").tags) == 12


@PROPERTY
@given(st.data())
def test_a_log_read_while_written_reads_alike(tmp_path_factory, data):
    """Read, appended to (a record cut in two by the first read, maybe), read on: the reload
    starts at the saved offset, with the layouts the first read taught."""
    tensorboard = data.draw(st.booleans())
    stream = b"".join(frame(p) for p in data.draw(training_log(tensorboard)))
    cuts = sorted(data.draw(st.lists(st.integers(0, len(stream)), min_size=1, max_size=3)))
    views = []
    for bulk in (True, False):
        logdir = tmp_path_factory.mktemp("log")
        path = logdir / "run" / (TFEVENTS if tensorboard else SUMMARY)
        path.parent.mkdir()
        with pytest.MonkeyPatch.context() as monkeypatch:
            monkeypatch.setattr(loader_module, "_BATCH_BYTES", 1024)
            if not bulk:
                monkeypatch.setattr(LayoutBook, "NEW_PER_SIZE", 0)
                monkeypatch.setattr(MixedBook, "enabled", False)
                monkeypatch.setattr(loader_module, "scan_batches", plain_batches)
            cache = SummaryCache(str(logdir))
            for cut in [*cuts, len(stream)]:
                path.write_bytes(stream[:cut])
                cache.reload()
            views.append(view_of(cache))
    assert views[0] == views[1]


class LoggedFile(io.BytesIO):
    """A file that notes each read as (offset, bytes asked)."""

    def __init__(self, data: bytes) -> None:
        super().__init__(data)
        self.reads: list[tuple[int, int]] = []

    def read(self, n=-1):
        self.reads.append((self.tell(), n))
        return super().read(n)


def test_a_record_longer_than_a_block_after_others_is_read_in_one_go():
    """The block after a record that runs past it holds that record whole: read once, not once
    at the block size and again at its own."""
    small = b"".join(frame(event(n, 1.0, [("loss", 1.0)])) for n in range(40))
    big = frame(b"b" * 100_000)
    stream = small + big + small
    fh = LoggedFile(stream)
    records = [record for batch in scan_batches(fh, 0, len(stream), ScanReport(), max_bytes=1000) for record in batch]
    assert records == list(scan_records(io.BytesIO(stream), 0, len(stream), ScanReport()))
    at_big = [n for offset, n in fh.reads if offset == len(small)]
    assert at_big == [len(big)], fh.reads


@pytest.mark.parametrize("walls", [[0.0, -0.0], [-0.0, 0.0], [5.0, 0.0, -0.0], [math.nan, -0.0]])
def test_the_first_wall_time_of_zeros_of_either_sign_is_the_first_read(tmp_path, monkeypatch, walls):
    """One by one the job's first wall time is the first smallest one read: 0.0 then -0.0
    keeps 0.0 (they compare equal), whatever numpy's min of them says."""
    write(tmp_path / "run" / SUMMARY, [event(n, walls[n % len(walls)], [("loss", 1.0)]) for n in range(40)])
    assert_bulk_reads_alike(tmp_path, monkeypatch)
