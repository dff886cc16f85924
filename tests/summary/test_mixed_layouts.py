"""MindSpore events of scalars and histograms read in bulk (`mixed_layouts.MixedBook`): the
cache holds exactly what the one-event path (protobuf, event by event) holds, every
histogram encoding the walk does not take goes that path, and it is the path for few events."""
from __future__ import annotations

import struct

import numpy as np
import pytest
from google.protobuf.message import DecodeError
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from read_views import view_of

from tui_insight.proto import summary_pb2
from tui_insight.summary.formats.framing import frame
from tui_insight.summary.formats.layouts import LayoutBook
from tui_insight.summary.formats.mindspore import MindSporeRouter
from tui_insight.summary.formats.mixed_layouts import MixedBook
from tui_insight.summary.formats.values import PayloadError
from tui_insight.summary.formats.writer import SummaryWriter
from tui_insight.summary.queries.histograms import histogram_steps
from tui_insight.summary.store import loader as loader_module
from tui_insight.summary.store.cache import SummaryCache

SUMMARY = "events.summary.1700000000.host_MS"


def load(logdir, bulk: bool, batch_bytes: int | None = None):
    with pytest.MonkeyPatch.context() as m:
        if not bulk:
            m.setattr(LayoutBook, "NEW_PER_SIZE", 0)
            m.setattr(MixedBook, "enabled", False)
        if batch_bytes:
            m.setattr(loader_module, "_BATCH_BYTES", batch_bytes)
        cache = SummaryCache(str(logdir))
        cache.reload()
    return cache



def routed_events(logdir, bulk: bool = True) -> tuple[SummaryCache, int]:
    """The cache, and how many events went the one-event path (routed by protobuf's values)."""
    calls = [0]
    route = MindSporeRouter.route

    def counting(self, event):
        calls[0] += 1
        return route(self, event)

    with pytest.MonkeyPatch.context() as m:
        m.setattr(MindSporeRouter, "route", counting)
        cache = load(logdir, bulk)
    return cache, calls[0]


def write_collector_run(directory, steps: int = 300) -> None:
    """Scalars and histograms every step, as MindSpore's SummaryCollector records them, with
    what such a run may hold now and then: a histogram of more than 90 buckets (left out), of
    none, of NaNs and infinities, a tag without data, an image, a negative step, a wall time
    that is no date."""
    rng = np.random.default_rng(7)
    writer = SummaryWriter(directory, timestamp=1_700_000_000, wall_time=1_700_000_000.0)
    for step in range(1, steps + 1):
        writer.add_scalar("loss", float(rng.normal()))
        writer.add_scalar("lr", 0.1 / step)
        for layer in range(3):
            writer.add_histogram(f"conv{layer}.weight", rng.normal(size=50 + 40 * layer + step % 7))
        if step % 17 == 0:
            wide = writer._pending.value.add(tag="fc.weight").histogram
            for i in range(91 + step % 3):  # 91..93 buckets: over MindInsight's limit
                wide.buckets.add(left=float(i), width=1.0, count=i)
        if step % 23 == 0:
            writer.add_histogram("fc.bias", np.array([np.nan, np.inf, -np.inf, 1.0]))
        if step % 29 == 0:
            writer.add_histogram("fc.bias", np.array([]))
        if step % 31 == 0:
            writer._pending.value.add(tag="empty")
        if step % 37 == 0:
            writer.add_image("input", np.zeros((1, 3, 4, 4)))
        wall = float("nan") if step == 50 else 1_700_000_000.0 + step
        writer.record(-5 if step == 60 else step, wall_time=wall)
    writer.close()


def test_a_collector_run_loads_in_bulk_as_one_by_one(tmp_path):
    write_collector_run(tmp_path / "run")
    bulk, routed = routed_events(tmp_path)
    one_by_one, routed_all = routed_events(tmp_path, bulk=False)
    assert view_of(bulk) == view_of(one_by_one)
    assert routed_all > 300 and routed < routed_all // 4  # most events took the bulk path
    view = bulk.job("./run")
    assert len(view.series("histogram", "conv0.weight")) == 50  # the kept steps of 300
    assert view.not_shown.kinds  # the wide histograms are counted as left out
    steps = histogram_steps(bulk, view, "conv2.weight")  # decoded when asked for
    assert steps[-1].step == 300 and steps[-1].data.buckets[:, 2].sum() == 130 + 300 % 7


def test_small_batches_cut_the_run_anywhere_and_read_alike(tmp_path):
    write_collector_run(tmp_path / "run", steps=60)
    assert view_of(load(tmp_path, True, batch_bytes=3000)) == view_of(load(tmp_path, False))


# -- histograms as bytes: every encoding protobuf takes, and some it does not ------------------

def varint(n: int) -> bytes:
    out = bytearray()
    while True:
        out.append((n & 0x7F) | (0x80 if n > 0x7F else 0))
        n >>= 7
        if not n:
            return bytes(out)


def field(number: int, wire: int, payload: bytes) -> bytes:
    key = varint(number << 3 | wire)
    return key + (varint(len(payload)) + payload if wire == 2 else payload)


def bucket(left: float, count: int) -> bytes:
    return (field(1, 1, struct.pack("<d", left)) + field(2, 1, struct.pack("<d", 1.0))
            + field(3, 0, varint(count)))


def tail(count: int) -> bytes:
    return (field(2, 0, b"\x00") + field(3, 0, b"\x00") + field(4, 0, b"\x00") + field(5, 1, struct.pack("<d", 9.0))
            + field(6, 1, struct.pack("<d", 0.0)) + field(7, 1, struct.pack("<d", 4.0)) + field(8, 0, varint(count)))


HISTOGRAMS = {
    "plain": lambda n: b"".join(field(1, 2, bucket(i, i * 50)) for i in range(n % 90 + 1)) + tail(n),
    "exactly 90 buckets": lambda n: b"".join(field(1, 2, bucket(i, 1)) for i in range(90)) + tail(90),
    "91 buckets": lambda n: b"".join(field(1, 2, bucket(i, 1)) for i in range(91)) + tail(91),
    "no tail": lambda n: b"".join(field(1, 2, bucket(i, 3)) for i in range(5)),
    "empty": lambda n: b"",
    "tail only": lambda n: tail(0),
    "a bucket after the tail": lambda n: field(1, 2, bucket(0, 1)) + tail(2) + field(1, 2, bucket(1, 1)),
    "tail fields twice": lambda n: field(1, 2, bucket(0, 1)) + tail(1) + tail(1),
    "a 91st bucket after the tail twice": lambda n: (b"".join(field(1, 2, bucket(i, 1)) for i in range(90)) + tail(90)
                                                     + tail(90) + field(1, 2, bucket(90, 1))),
    "a long bucket": lambda n: field(1, 2, bucket(0, 1) + field(15, 2, b"x" * 200)) + tail(1),
    "an unknown field": lambda n: field(1, 2, bucket(0, 1)) + field(20, 0, b"\x01") + tail(1),
    "a negative count": lambda n: field(1, 2, bucket(0, 1)) + field(8, 0, varint((1 << 64) - 3)),
    "a count of 2**62": lambda n: field(1, 2, bucket(0, 1)) + field(8, 0, varint(1 << 62)),
    "a bucket cut short": lambda n: field(1, 2, bucket(0, 1))[:-3] + tail(1),
    "a length past the end": lambda n: b"\x0a\x7f" + bucket(0, 1),
}


def event(step: int, histogram: bytes, wall: float = 1_700_000_000.0) -> bytes:
    values = [field(1, 2, field(1, 2, b"loss") + field(3, 5, struct.pack("<f", step * 0.5))),
              field(1, 2, field(1, 2, b"w") + field(9, 2, histogram)),
              field(1, 2, field(1, 2, b"acc") + field(3, 5, struct.pack("<f", 1.0)))]
    return field(1, 1, struct.pack("<d", wall + step)) + field(2, 0, varint(step)) + field(5, 2, b"".join(values))


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(kinds=st.lists(st.sampled_from(sorted(HISTOGRAMS)), min_size=1, max_size=40), runs=st.integers(1, 30))
def test_every_histogram_encoding_reads_as_protobuf_reads_it(tmp_path_factory, kinds, runs):
    logdir = tmp_path_factory.mktemp("log")
    payloads = []
    for n, kind in enumerate(kinds):
        payloads += [event(n * runs + r, HISTOGRAMS[kind](n * runs + r)) for r in range(runs)]
    (logdir / "run").mkdir()
    (logdir / "run" / SUMMARY).write_bytes(b"".join(frame(p) for p in payloads))
    assert view_of(load(logdir, True)) == view_of(load(logdir, False))


def test_a_run_of_plain_histograms_takes_the_bulk_path(tmp_path):
    (tmp_path / "run").mkdir()
    stream = b"".join(frame(event(n, HISTOGRAMS["plain"](n))) for n in range(400))
    (tmp_path / "run" / SUMMARY).write_bytes(stream)
    bulk, routed = routed_events(tmp_path)
    assert routed <= 8
    assert view_of(bulk) == view_of(load(tmp_path, False))


@pytest.mark.parametrize("kind", ["exactly 90 buckets", "no tail", "empty"])
def test_histograms_the_walk_takes_take_the_bulk_path(tmp_path, kind):
    """Buckets up to the most, and a body of buckets only, whose walk runs on into the next
    value ('acc': its key and short length look like a bucket's) and must stop at the body's
    end, take the bulk path and read as protobuf reads them."""
    (tmp_path / "run").mkdir()
    stream = b"".join(frame(event(n, HISTOGRAMS[kind](n))) for n in range(400))
    (tmp_path / "run" / SUMMARY).write_bytes(stream)
    bulk, routed = routed_events(tmp_path)
    assert routed <= 8
    assert view_of(bulk) == view_of(load(tmp_path, False))


def test_events_of_one_size_whose_histograms_end_otherwise_are_walked(tmp_path):
    """Evenly spaced events of one size whose histograms hold the bucket and tail bytes of the
    first are taken at once. One whose count's varint or a bucket's length continues otherwise
    (protobuf refuses those: a bad record), whose tail holds a field the walk does not know,
    whose bucket's length takes two bytes or whose bucket has another key goes the one-event
    path."""
    buckets = [field(1, 2, bucket(i, 200)) for i in range(5)]
    plain = b"".join(buckets) + tail(300)
    assert plain[-2:] == b"\xac\x02"
    long_length = b"\x0a\x94\x00" + bucket(0, 1) + b"".join(buckets[1:]) + tail(300)  # (20 in two bytes)
    histograms = {7: plain[:-2] + b"\x2c\x82", 13: plain.replace(tail(300)[:3], b"\x10\x00\x48", 1),
                  17: long_length, 18: plain[:1] + bytes([plain[1] | 0x80]) + plain[2:], 19: b"\x12" + plain[1:]}
    payloads = [event(step, histograms.get(step % 20, plain)) for step in range(200, 400)]
    assert len({len(p) for p in payloads}) == 1
    (tmp_path / "run").mkdir()
    (tmp_path / "run" / SUMMARY).write_bytes(b"".join(frame(p) for p in payloads))
    bulk, routed = routed_events(tmp_path)
    assert 30 <= routed <= 38  # (protobuf refuses the varints that continue otherwise)
    assert view_of(bulk) == view_of(load(tmp_path, False))


def test_buckets_protobuf_refuses_fail_as_a_payload_and_keep_the_events_scalars(tmp_path):
    """The walk counts buckets without reading them: a bucket holding a bad field (a writer's
    bug: the record's CRC is right) is found when the histogram is decoded, as a payload error,
    and the event's scalars are kept (the one-event path drops the event)."""
    broken = field(1, 2, b"\x0f\x00") + tail(1)  # a bucket holding a field of wire type 7
    with pytest.raises(DecodeError):
        summary_pb2.Summary.Histogram.FromString(broken)
    (tmp_path / "run").mkdir()
    stream = b"".join(frame(event(n, HISTOGRAMS["plain"](n) if n != 20 else broken)) for n in range(40))
    (tmp_path / "run" / SUMMARY).write_bytes(stream)
    cache = load(tmp_path, True)
    view = cache.job("./run")
    assert 20 in view.series("scalar", "loss").steps.tolist()
    series = view.series("histogram", "w")
    assert series.steps.tolist() == list(range(40))
    assert cache.payloads.histogram(view.locator(series, 19)).buckets[:, 2].sum() == sum(i * 50 for i in range(20))
    with pytest.raises(PayloadError):
        cache.payloads.histogram(view.locator(series, 20))


def test_a_batch_of_many_small_histograms_reads_alike(tmp_path):
    """60,000 histograms in one batch (walked in parts: bounded memory) of 0 to 90 empty buckets
    (their lengths one byte or two), and every 500th event one of 91 (left out, one by one)."""
    rng = np.random.default_rng(5)

    def small_event(step: int) -> bytes:
        values = [field(1, 2, field(1, 2, b"loss") + field(3, 5, struct.pack("<f", step)))]
        values += [field(1, 2, field(1, 2, b"h%d" % h) + field(9, 2, field(1, 2, b"") * (
            91 if step % 500 == 0 and h == 3 else int(rng.integers(0, 91))))) for h in range(20)]
        return field(1, 1, struct.pack("<d", 1e9 + step)) + field(2, 0, varint(step)) + field(5, 2, b"".join(values))

    (tmp_path / "run").mkdir()
    (tmp_path / "run" / SUMMARY).write_bytes(b"".join(frame(small_event(n)) for n in range(3000)))
    bulk, routed = routed_events(tmp_path)
    assert routed <= 16
    assert view_of(bulk) == view_of(load(tmp_path, False))
    assert bulk.job("./run").not_shown.kinds  # the histograms of over 90 buckets are left out


def two_histograms(step: int, first: bytes, second: bytes, tag: bytes = b"loss") -> bytes:
    values = [field(1, 2, field(1, 2, tag) + field(3, 5, struct.pack("<f", step * 0.5))),
              field(1, 2, field(1, 2, b"w") + field(9, 2, first)),
              field(1, 2, field(1, 2, b"v") + field(9, 2, second))]
    return field(1, 1, struct.pack("<d", 1_700_000_000.0 + step)) + field(2, 0, varint(step)) + field(5, 2, b"".join(values))


def test_events_of_one_size_laid_out_otherwise_read_as_protobuf_reads_them(tmp_path):
    """A batch of events of one size laid out as one read before is matched all at once
    (`_match_alike`); events of that size laid out otherwise must not be taken for it: a byte
    moved from one histogram to the other (both lengths differ), another tag of the same
    length, no step (step 0), a step one varint byte longer (past 127)."""
    def counts(*big: int) -> bytes:
        return b"".join(field(1, 2, bucket(i, 200 if i in big else 1)) for i in range(5)) + tail(5)

    payloads = []
    for step in range(0, 300):
        first, second = (counts(0), counts()) if step % 10 == 3 else (counts(), counts(0))
        payloads.append(two_histograms(step, first, second, b"lost" if step % 7 == 5 else b"loss"))
    (tmp_path / "run").mkdir()
    (tmp_path / "run" / SUMMARY).write_bytes(b"".join(frame(p) for p in payloads))
    bulk, routed = routed_events(tmp_path)
    assert routed < 30  # (most events in bulk)
    assert view_of(bulk) == view_of(load(tmp_path, False))
    view = bulk.job("./run")
    assert view.series("scalar", "lost").steps.tolist() == list(range(5, 300, 7))
    assert len(view.series("scalar", "loss").steps) == 300 - len(range(5, 300, 7))


def test_scalar_events_of_a_size_histogram_events_had_take_the_bulk_path_soon(tmp_path, monkeypatch):
    """A size whose events held histograms batch after batch is not walked for scalar-only
    layouts in every batch, but looked at again: scalar-only events of that size coming later
    take the bulk path within a few batches."""
    histogram = b"".join(field(1, 2, bucket(i, 1)) for i in range(5)) + tail(5)
    size = len(event(200, histogram))

    def scalars(step: int, pad: int) -> bytes:  # (the last tag `pad` long)
        values = [field(1, 2, field(1, 2, b"s%02d" % k if k < 8 else b"t" * pad) + field(3, 5, struct.pack("<f", step)))
                  for k in range(9)]
        return field(1, 1, struct.pack("<d", 1_700_000_000.0 + step)) + field(2, 0, varint(step)) + field(
            5, 2, b"".join(values))

    pad = next(n for n in range(1, 100) if len(scalars(300, n)) == size)

    payloads = [event(step, histogram) for step in range(200, 260)] + [scalars(step, pad) for step in range(260, 460)]
    assert {len(p) for p in payloads} == {size}
    (tmp_path / "run").mkdir()
    (tmp_path / "run" / SUMMARY).write_bytes(b"".join(frame(p) for p in payloads))
    monkeypatch.setattr(loader_module, "_BATCH_BYTES", 5 * (size + 16))  # five events a batch
    bulk, routed = routed_events(tmp_path)
    assert routed <= 8 * 5 + 8  # the scalar events of 8 batches at most, one by one
    assert view_of(bulk) == view_of(load(tmp_path, False))


def test_a_sweeps_few_events_of_a_size_are_matched_alike_once_its_runs_met_enough(tmp_path, monkeypatch):
    """A sweep's runs each hold a few histogram events of a size (6 of steps under 128, their
    step a byte shorter than the 4 after): counted over the runs one load reads, a size met
    `_ALIKE_MIN_ROWS` times is matched alike (one event's shape, checked byte for byte) instead
    of walked piece by piece and bucket by bucket in every run. Events too short to be of the
    layout are never walked; an event of that size with another tag is not taken for it."""
    from tui_insight.summary.formats import mixed_layouts

    def scalars(step: int) -> bytes:
        values = [field(1, 2, field(1, 2, b"loss") + field(3, 5, struct.pack("<f", step * 0.5))),
                  field(1, 2, field(1, 2, b"acc") + field(3, 5, struct.pack("<f", 1.0)))]
        return field(1, 1, struct.pack("<d", 1_700_000_000.0 + step)) + field(2, 0, varint(step)) + field(
            5, 2, b"".join(values))

    runs = 12
    for run in range(runs):
        payloads = [field(1, 1, struct.pack("<d", 1_700_000_000.0))]  # (a bare event: too short)
        for step in range(1, 201):
            histogram = b"".join(field(1, 2, bucket(i, 1 + (step + run) % 50)) for i in range(8)) + tail(step)
            payloads.append(event(step, histogram) if step % 20 == 0 else scalars(step))
            if run == runs - 1 and step == 60:  # (the size of step 40's event, another tag)
                payloads[-1] = payloads[-1].replace(b"\x0a\x04loss", b"\x0a\x04lost")
        (tmp_path / f"run{run:02d}").mkdir()
        (tmp_path / f"run{run:02d}" / SUMMARY).write_bytes(b"".join(frame(p) for p in payloads))
    walked = [0]
    walk = mixed_layouts._buckets_fit

    def counting(array, at, end):
        walked[0] += len(at)
        return walk(array, at, end)

    monkeypatch.setattr(mixed_layouts, "_buckets_fit", counting)
    bulk = load(tmp_path, True)
    assert 0 < walked[0] <= 50  # the first runs' histograms (42; 123 without the rule)
    assert view_of(bulk) == view_of(load(tmp_path, False))
    assert bulk.job(f"./run{runs - 1:02d}").series("scalar", "lost").steps.tolist() == [60]
