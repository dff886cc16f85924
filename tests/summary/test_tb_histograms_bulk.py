"""TensorBoard events holding histograms read in bulk (`mixed_layouts.MixedBook("tensorboard")`,
issue 30): the cache holds exactly what the plain read (record by record, protobuf event by
event) holds, every body protobuf reads otherwise or refuses goes the one-event path, and the
histograms of a training loop are not routed one by one."""
from __future__ import annotations

import struct

import numpy as np
import pytest
from google.protobuf.message import DecodeError
from tensorboardX import SummaryWriter as TBXWriter

from read_views import view_of

from tui_insight.proto import tb_event_pb2
from tui_insight.summary.formats.bulk_framing import Payloads, RecordBatch
from tui_insight.summary.formats.framing import ScanReport, frame, scan_records
from tui_insight.summary.formats.layouts import LayoutBook
from tui_insight.summary.formats.mixed_layouts import MixedBook
from tui_insight.summary.formats.tensorboard import TensorBoardRouter, histogram_data
from tui_insight.summary.formats.writer import TensorBoardWriter
from tui_insight.summary.store import loader as loader_module
from tui_insight.summary.store.cache import SummaryCache

TFEVENTS = "events.out.tfevents.1700000000.host"
T0 = 1_700_000_000.0


def plain_batches(fh, start, size, report, max_records=1 << 16, max_bytes=0):
    """`scan_batches` as the plain walk: every record by `scan_records`, in one batch."""
    records = list(scan_records(fh, start, size, report))
    if records:
        offsets = np.asarray([offset for offset, _ in records], dtype=np.int64)
        yield RecordBatch(offsets, Payloads.of([payload for _, payload in records]))


def load(logdir, bulk: bool, batch_bytes: int | None = None) -> tuple[SummaryCache, int]:
    """The cache, and how many events were routed one by one."""
    calls = [0]
    route = TensorBoardRouter.route

    def counting(self, event):
        calls[0] += 1
        return route(self, event)

    with pytest.MonkeyPatch.context() as m:
        m.setattr(TensorBoardRouter, "route", counting)
        if not bulk:
            m.setattr(LayoutBook, "NEW_PER_SIZE", 0)
            m.setattr(MixedBook, "enabled", False)
            m.setattr(loader_module, "scan_batches", plain_batches)
        if batch_bytes:
            m.setattr(loader_module, "_BATCH_BYTES", batch_bytes)
        cache = SummaryCache(str(logdir))
        cache.reload()
    return cache, calls[0]



def assert_reads_alike(logdir, batch_bytes: int | None = None) -> tuple[SummaryCache, int]:
    bulk, routed = load(logdir, True, batch_bytes)
    assert view_of(bulk) == view_of(load(logdir, False)[0])
    return bulk, routed


def write_training_run(directory, steps: int = 300, purge_at: int | None = None) -> None:
    """As tensorboardX (torch's writer's protos, proto3: a step of 0 is left out) writes a
    training loop: scalars every step, histograms of several tags every few steps."""
    rng = np.random.default_rng(3)
    with TBXWriter(str(directory), max_queue=100_000, flush_secs=3600) as writer:
        for step in range(steps):
            writer.add_scalar("loss", 1.0 / (step + 1), step, walltime=T0 + step)
            if step % 3 == 0:
                for layer in range(4):
                    bins = "tensorflow" if layer % 2 else "auto"
                    writer.add_histogram(f"layer{layer}/weight", rng.normal(size=200 + step), step,
                                         bins=bins, walltime=T0 + step)
    if purge_at is not None:  # the run restarted: TensorBoard drops the steps from purge_at on
        with TBXWriter(str(directory), purge_step=purge_at, max_queue=100_000, flush_secs=3600) as writer:
            for step in range(purge_at, purge_at + 60):
                writer.add_scalar("loss", -1.0 / (step + 1), step, walltime=T0 + 1000 + step)
                writer.add_histogram("layer0/weight", rng.normal(size=100), step, walltime=T0 + 1000 + step)


def test_a_training_run_of_histograms_loads_in_bulk_as_one_by_one(tmp_path):
    write_training_run(tmp_path / "run")
    bulk, routed = assert_reads_alike(tmp_path)
    plain_routed = load(tmp_path, False)[1]
    assert plain_routed >= 400  # (every histogram event, one by one)
    assert routed <= 12  # the file's first event and a few each layout is made from
    view = bulk.job("./run")
    series = view.series("histogram", "layer1/weight")
    assert series.seen == 100 and set(series.steps.tolist()) <= set(range(0, 300, 3))  # (kept: a sample of 50)
    histogram = bulk.payloads.histogram(view.locator(series, 0))
    assert histogram.buckets[:, 2].sum() == 200  # read back from the record the locator names


@pytest.mark.parametrize("batch_bytes", [1 << 12, 1 << 14, 1 << 16])
def test_batches_cut_anywhere_read_alike(tmp_path, batch_bytes):
    write_training_run(tmp_path / "run", steps=120)
    assert_reads_alike(tmp_path, batch_bytes)


def test_a_restart_among_histograms_drops_the_later_steps_as_one_by_one(tmp_path):
    write_training_run(tmp_path / "run", steps=200, purge_at=150)
    bulk, _ = assert_reads_alike(tmp_path)
    steps = bulk.job("./run").series("histogram", "layer0/weight").steps.tolist()
    assert set(steps) <= {*range(0, 150, 3), *range(150, 210)} and steps[-1] == 209
    assert bulk.job("./run").series("scalar", "loss").values[-1] < 0  # the restarted run's


def key(field: int, wire: int) -> bytes:
    return bytes([field << 3 | wire])


def varint(n: int) -> bytes:
    out = bytearray()
    while True:
        out.append(n & 0x7F | (0x80 if n > 0x7F else 0))
        n >>= 7
        if not n:
            return bytes(out)


def packed(field: int, numbers, extra: bytes = b"") -> bytes:
    body = struct.pack(f"<{len(numbers)}d", *numbers) + extra
    return key(field, 2) + varint(len(body)) + body


def plain_body(n: int) -> bytes:
    """A HistogramProto as writers write it: five doubles, then the limits and counts, packed."""
    head = b"".join(key(f, 1) + struct.pack("<d", x) for f, x in zip(range(1, 6), (-1.0, 1.0, n, 0.5, 2.0)))
    return head + packed(6, [-0.5, 0.0, 1.0]) + packed(7, [1.0, n, 2.0])


# Bodies that are no plain HistogramProto: protobuf reads some (the bulk walk leaves them to
# it) and refuses others (a bad record either way).
BODIES = {
    "plain": plain_body(7),
    "packed length not whole doubles": packed(6, [1.0], b"\x00\x00\x00"),
    "limits unpacked": b"".join(key(6, 1) + struct.pack("<d", x) for x in (1.0, 2.0)) + packed(7, [1.0, 2.0]),
    "an unknown field": plain_body(3) + key(15, 0) + varint(5),
    "a varint where a double is": key(1, 0) + varint(3) + packed(7, [1.0]),
    "a long length varint": key(6, 2) + b"\x88\x80\x00" + struct.pack("<d", 1.0),
    "fields in another order": packed(7, [1.0, 2.0]) + packed(6, [0.0, 1.0]) + key(3, 1) + struct.pack("<d", 3.0),
    "empty": b"",
    "a length past the end": key(6, 2) + varint(64) + struct.pack("<d", 1.0),
    "a truncated double": plain_body(1)[:-3],
    "many fields": b"".join(key(1, 1) + struct.pack("<d", x) for x in range(12)),
}


def histo_event(step: int, body: bytes, tag: str = "w") -> bytes:
    value = key(1, 2) + varint(len(tag)) + tag.encode() + key(5, 2) + varint(len(body)) + body
    summary = key(1, 2) + varint(len(value)) + value
    event = key(1, 1) + struct.pack("<d", T0 + step) + (key(2, 0) + varint(step) if step else b"")
    return event + key(5, 2) + varint(len(summary)) + summary


def protobuf_reads(body: bytes) -> bool:
    try:
        tb_event_pb2.HistogramProto.FromString(body)
    except DecodeError:
        return False
    return True


def test_the_bodies_are_what_they_say():
    refused = {"packed length not whole doubles", "a length past the end", "a truncated double"}
    assert {name for name, body in BODIES.items() if not protobuf_reads(body)} == refused


@pytest.mark.parametrize("name", [name for name in BODIES if name != "plain"])
def test_a_body_among_plain_ones_reads_as_protobuf_reads_it(tmp_path, name):
    """Plain histograms teach the layout; an odd body among them (the record's CRC right) is
    refused where protobuf refuses it and read where protobuf reads it, the others kept."""
    payloads = [histo_event(n, BODIES[name] if n % 50 == 25 else plain_body(n)) for n in range(300)]
    (tmp_path / "run").mkdir()
    (tmp_path / "run" / TFEVENTS).write_bytes(b"".join(frame(p) for p in payloads))
    bulk, routed = assert_reads_alike(tmp_path)
    view = bulk.job("./run")
    odd = list(range(25, 300, 50))
    assert view.series("histogram", "w").seen == (300 if protobuf_reads(BODIES[name]) else 300 - len(odd))
    assert routed <= len(odd) + 6  # the plain ones in bulk
    assert view.file_status[0].bad_records == (0 if protobuf_reads(BODIES[name]) else len(odd))


def test_a_histogram_read_back_is_protobufs(tmp_path):
    with TensorBoardWriter(tmp_path / "run", timestamp=1_700_000_000) as writer:
        rng = np.random.default_rng(1)
        for step in range(40):  # (under the 50 steps a histogram tag keeps)
            writer.add_histogram("w", rng.normal(size=300), step, T0 + step)
    bulk, routed = load(tmp_path, True)
    assert routed <= 6
    view = bulk.job("./run")
    series = view.series("histogram", "w")
    assert series.steps.tolist() == list(range(40))
    with open(next((tmp_path / "run").iterdir()), "rb") as fh:
        events = [tb_event_pb2.Event.FromString(p) for _, p in scan_records(fh, 0, 1 << 30, ScanReport())]
    expected = histogram_data(events[1 + 37].summary.value[0])
    got = bulk.payloads.histogram(view.locator(series, 37))
    assert got.buckets.tobytes() == expected.buckets.tobytes()


def test_histograms_of_one_size_are_not_decoded_to_look_for_scalar_layouts(tmp_path):
    """The scalar layouts' book leaves events whose bytes hold no scalar-only layout to the
    other paths without decoding them (a 10 KB histogram event costs a protobuf decode)."""
    with TensorBoardWriter(tmp_path / "run", timestamp=1_700_000_000) as writer:
        for step in range(1, 60):
            writer.add_scalar("loss", 1.0 / step, step, T0 + step)
            writer.add_histogram("w", np.arange(100.0), step, T0 + step)  # each event of one size
    with open(next((tmp_path / "run").iterdir()), "rb") as fh:
        payloads = [p for _, p in scan_records(fh, 0, 1 << 30, ScanReport())]
    decoded_sizes = []

    def decode(payload):
        decoded_sizes.append(len(payload))
        return tb_event_pb2.Event.FromString(payload)

    which, layouts, _ = LayoutBook("tensorboard").classify(payloads, decode)
    histogram_size = len(payloads[2])
    assert sum(len(p) == histogram_size for p in payloads) == 59
    assert histogram_size not in decoded_sizes
    assert int(np.count_nonzero(which >= 0)) >= 57  # the scalars in bulk


def tf2_scalar_event(step: int, tag: str, number: float, plugin: str = "", content: bool = True) -> bytes:
    """A scalar as TF2's `tf.summary.scalar` writes it: a float32 tensor of shape [] (its
    bytes as tensor_content; or, as tensorboard's `scalar_pb` writes it, one float_val), the
    plugin named on the value if `plugin`."""
    event = tb_event_pb2.Event(wall_time=T0 + step, step=step)
    value = event.summary.value.add(tag=tag)
    value.tensor.dtype = tb_event_pb2.DT_FLOAT
    value.tensor.tensor_shape.SetInParent()
    if content:
        value.tensor.tensor_content = struct.pack("<f", number)
    else:
        value.tensor.float_val.append(number)
    if plugin:
        value.metadata.plugin_data.plugin_name = plugin
    return event.SerializeToString()


def write_tf2_run(path, steps: int = 400) -> None:
    """Tags named "scalars" on their first value (one later on), one never named (a tensor tag),
    one named "text" (its numbers are no scalars), both encodings, special numbers. Tags are
    named in the first batch: the rows of their layouts are taken apart there."""
    special = [float("nan"), float("inf"), -0.0, 1e-45, 3.4e38]
    payloads = [tb_event_pb2.Event(wall_time=T0, file_version="brain.Event:2").SerializeToString()]
    for step in range(steps):
        number = special[step % 5] if step % 11 == 0 else 1.0 / (step + 1)
        payloads.append(tf2_scalar_event(step, "epoch_loss", number, "scalars" if step == 0 else ""))
        payloads.append(tf2_scalar_event(step, "epoch_acc", -number, "scalars" if step == 0 else "", content=False))
        payloads.append(tf2_scalar_event(step, "late_named", number, "scalars" if step == 150 else ""))
        payloads.append(tf2_scalar_event(step, "a_tensor", number))
        payloads.append(tf2_scalar_event(step, "as_text", number, "text" if step == 0 else ""))
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(b"".join(frame(p) for p in payloads))


@pytest.mark.parametrize("batch_bytes", [None, 1 << 13])
def test_tf2_scalar_tensors_load_in_bulk_as_one_by_one(tmp_path, batch_bytes):
    write_tf2_run(tmp_path / "run" / TFEVENTS)
    bulk, routed = assert_reads_alike(tmp_path, batch_bytes)
    plain_routed = load(tmp_path, False, batch_bytes)[1]
    assert plain_routed == 2001
    # The tags of plugin "scalars" in bulk from the event naming them on; the others one by one.
    assert routed < 2001 - 2 * 380 - 240
    view = bulk.job("./run")
    assert view.series("scalar", "epoch_loss").seen == 400 and view.series("scalar", "epoch_acc").seen == 400
    assert view.series("tensor", "a_tensor").seen == 400 and ("scalar", "a_tensor") not in view.tags
    assert view.series("tensor", "late_named").seen == 150 and view.series("scalar", "late_named").seen == 250


def test_a_scalar_tensor_of_other_bytes_is_read_one_by_one(tmp_path):
    """A DT_DOUBLE scalar, a shape of [1], a float_val unpacked: no layout, read as protobuf reads them."""
    payloads = [tf2_scalar_event(0, "loss", 1.0, "scalars")]
    for step in range(1, 300):
        event = tb_event_pb2.Event.FromString(tf2_scalar_event(step, "loss", 1.0 / step))
        tensor = event.summary.value[0].tensor
        if step % 3 == 1:
            tensor.dtype, tensor.tensor_content = tb_event_pb2.DT_DOUBLE, struct.pack("<d", step / 7)
        elif step % 3 == 2:
            tensor.tensor_shape.dim.add(size=1)
        payloads.append(event.SerializeToString())
    (tmp_path / "run").mkdir()
    (tmp_path / "run" / TFEVENTS).write_bytes(b"".join(frame(p) for p in payloads))
    bulk, routed = assert_reads_alike(tmp_path)
    assert bulk.job("./run").series("scalar", "loss").seen == 300
    assert routed >= 200  # (the DT_DOUBLE and [1]-shaped ones)
