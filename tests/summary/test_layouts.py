"""Events read in bulk by their repeated layout give exactly what one-by-one decoding gives."""
import math
import struct

import numpy as np
import pytest

from tui_insight.proto import summary_pb2
from tui_insight.summary.formats.framing import frame
from tui_insight.summary.formats.layouts import Layout, LayoutBook
from tui_insight.summary.formats.mixed_layouts import MixedBook
from tui_insight.summary.formats.writer import SummaryWriter
from tui_insight.summary.store.cache import SummaryCache


def scalar_event(step, wall, values):
    event = summary_pb2.Event(wall_time=wall, step=step)
    for tag, value in values:
        event.summary.value.add(tag=tag, scalar_value=value)
    return event


def load(logdir, bulk, monkeypatch):
    with monkeypatch.context() as m:
        if not bulk:
            m.setattr(LayoutBook, "NEW_PER_SIZE", 0)
            m.setattr(MixedBook, "enabled", False)
        cache = SummaryCache(str(logdir))
        cache.reload()
    return cache


def assert_same(a, b):
    assert list(a.jobs) == list(b.jobs)
    for tid, va in a.jobs.items():
        vb = b.job(tid)
        assert list(va.tags) == list(vb.tags), tid  # first-seen order too
        assert va.file_status == vb.file_status
        assert va.first_wall_time == vb.first_wall_time or (math.isnan(va.first_wall_time)
                                                            and math.isnan(vb.first_wall_time))
        for key, sa in va.tags.items():
            sb = vb.tags[key]
            assert sa.seen == sb.seen, key
            for name, col in sa.columns.items():
                assert col.dtype == sb.columns[name].dtype, (key, name)
                assert col.tobytes() == sb.columns[name].tobytes(), (key, name)


def test_mixed_events_bulk_equals_one_by_one(tmp_path, monkeypatch):
    rng = np.random.default_rng(1)
    writer = SummaryWriter(tmp_path / "run", timestamp=1_700_000_000, wall_time=1_700_000_000.0)
    special = [0.0, -0.0, float("nan"), float("inf"), -float("inf"), 1e-45, 3.4e38]
    steps = [0, 1, 2, 127, 128, 16383, 16384, 2**40, -1, -(2**62), 5, 5, 3]  # replays, restarts, negatives
    for n in range(600):
        step = steps[n % len(steps)] if n < 2 * len(steps) else n * 7
        names = ["loss", "acc"] if n % 50 else ["loss", "acc", "lr"]  # another layout now and then
        for i, name in enumerate(names):
            writer.add_scalar(name, special[(n + i) % len(special)] if n % 3 == 0 else rng.normal())
        if n % 40 == 0:
            writer.add_histogram("w", rng.normal(size=100))
        if n % 90 == 0:
            writer._pending.value.add(tag="empty")  # a value with no data
        wall = 0.0 if n == 17 else float("nan") if n == 33 else 1_700_000_000.0 + n
        writer.record(step, wall_time=wall)
    writer.close()
    # Same length, other tags: bytes must decide, not sizes.
    with open(writer.path, "ab") as fh:
        for n in range(20):
            fh.write(frame(scalar_event(1000 + n, 5.0, [("lossX", 1.0), ("acc", 2.0)]).SerializeToString()))
            fh.write(frame(scalar_event(1000 + n, 5.0, [("lossY", 1.0), ("acc", 2.0)]).SerializeToString()))
            fh.write(frame(b"\x01garbage that is not an event"))
    bulk = load(tmp_path, True, monkeypatch)
    assert bulk._layout_book.count >= 3  # the bulk path was taken
    assert_same(bulk, load(tmp_path, False, monkeypatch))


@pytest.mark.parametrize("names", [[f"metric/m{i}" for i in range(10)],  # numbers evenly spaced in an event
                                   ["loss", *(f"m/{'x' * i}" for i in range(1, 11))]])  # not
def test_many_scalars_an_event_read_in_bulk_as_one_by_one(tmp_path, monkeypatch, names):
    """More than eight scalars an event are read through the events' rows (a view of each
    number's bytes in every row), here with histogram events between them (rows not evenly
    spaced in the block) and special floats and steps of one to three varint bytes."""
    rng = np.random.default_rng(3)
    special = [0.0, -0.0, float("nan"), float("inf"), -float("inf"), 1e-45, 3.4e38, -2.5]
    writer = SummaryWriter(tmp_path / "run", timestamp=1_700_000_000, wall_time=1_700_000_000.0)
    for n, step in enumerate([*range(1, 200), 16384, 16385, 2**20]):
        for i, name in enumerate(names):
            writer.add_scalar(name, special[(n + i) % len(special)] if n % 4 == 0 else rng.normal())
        if n % 7 == 0:
            writer.add_histogram("w", rng.normal(size=50))
        writer.record(step, wall_time=1_700_000_000.0 + n / 3)
    writer.close()
    bulk = load(tmp_path, True, monkeypatch)
    assert bulk._layout_book.count >= 2  # the bulk path was taken
    assert_same(bulk, load(tmp_path, False, monkeypatch))
    first = bulk.job("./run").series("scalar", names[1]).values[0]  # the first step's: -0.0
    assert first == 0.0 and np.signbit(first)


def test_each_tag_holds_its_own_values_not_a_view_of_its_layouts_block(tmp_path, monkeypatch):
    """The scalars of a layout's events are read as one table (a column a tag); each tag's
    series holds its own values, contiguous (the table is not kept alive by any of them, and
    one tag's values are not another's)."""
    run = tmp_path / "run"
    writer = SummaryWriter(run, timestamp=1_700_000_000, wall_time=1_700_000_000.0)
    for step in range(1, 401):
        for i in range(3):
            writer.add_scalar(f"m{i}", step * 10.0 + i)
        writer.record(step, wall_time=1_700_000_000.0 + step)
    writer.close()
    cache = load(tmp_path, True, monkeypatch)
    values = [cache.job("./run").series("scalar", f"m{i}").values for i in range(3)]
    for i, column in enumerate(values):
        assert column.flags.c_contiguous and column.base is None
        assert column.tolist() == [step * 10.0 + i for step in range(1, 401)]


def test_many_jobs_share_layouts_and_stay_apart(tmp_path, monkeypatch):
    for j in range(5):
        writer = SummaryWriter(tmp_path / f"run{j}", timestamp=1_700_000_000 + j)
        for step in range(1, 300):
            writer.add_scalar("loss", 1.0 / step + j)
            writer.add_scalar("acc", j * 0.1)
            writer.record(step, wall_time=1000.0 + step)
        writer.close()
    bulk = load(tmp_path, True, monkeypatch)
    assert_same(bulk, load(tmp_path, False, monkeypatch))
    assert bulk.job("./run3").series("scalar", "acc").values[0] == np.float32(0.3)


def test_layout_of_a_scalar_event_and_what_it_refuses():
    event = scalar_event(300, 12.5, [("a", 1.5), ("bb", -2.0)])
    payload = event.SerializeToString()
    layout = Layout.make(payload, event)
    assert layout is not None and layout.tags == ("a", "bb") and layout.step_len == 2
    other = scalar_event(301, 13.5, [("a", 7.0), ("bb", 8.0)]).SerializeToString()
    rows = np.frombuffer(payload + other, dtype=np.uint8).reshape(2, -1)
    assert layout.matches(rows).all()
    steps, walls, floats = layout.numbers(rows)
    assert steps.tolist() == [300, 301] and walls.tolist() == [12.5, 13.5]
    gathered = layout.numbers_at(rows.reshape(-1), np.asarray([0, len(payload)]))
    assert all(a.tobytes() == b.tobytes() for a, b in zip(gathered, (steps, walls, floats)))
    assert floats.tolist() == [[1.5, -2.0], [7.0, 8.0]]
    # A step whose varint is one byte shorter + a longer tag: same size, not this layout.
    shifted = scalar_event(3, 12.5, [("aa", 1.5), ("bb", -2.0)]).SerializeToString()
    assert len(shifted) == len(payload)
    assert not layout.matches(np.frombuffer(shifted, dtype=np.uint8).reshape(1, -1)).any()
    # Histograms, versions and graphs have no layout.
    hist = summary_pb2.Event(step=1)
    hist.summary.value.add(tag="h").histogram.count = 3
    assert Layout.make(hist.SerializeToString(), hist) is None
    version = summary_pb2.Event(wall_time=1.0, version="v")
    assert Layout.make(version.SerializeToString(), version) is None


@pytest.mark.parametrize("flip", range(0, 40, 3))
def test_a_bit_flip_in_fixed_bytes_is_not_matched(flip):
    event = scalar_event(300, 12.5, [("loss", 1.5), ("acc", -2.0)])
    payload = event.SerializeToString()
    layout = Layout.make(payload, event)
    changed = bytearray(payload)
    at = flip % len(payload)
    changed[at] ^= 0x40
    row = np.frombuffer(bytes(changed), dtype=np.uint8).reshape(1, -1)
    variable = layout.mask[at] != 0xFF
    if layout.mask[at] & 0x40:
        assert not layout.matches(row).any()
    elif variable:
        assert layout.matches(row).all()  # a number changed: still the layout
        decoded = summary_pb2.Event.FromString(bytes(changed))
        steps, walls, floats = layout.numbers(row)
        assert int(steps[0]) == decoded.step
        assert struct.pack("<d", walls[0]) == struct.pack("<d", decoded.wall_time)


# -- TensorBoard events (one value per event, as tensorboardX and torch write them) -------------

def tb_decode(payload):
    from google.protobuf.message import DecodeError

    from tui_insight.proto import tb_event_pb2
    try:
        return tb_event_pb2.Event.FromString(payload)
    except DecodeError:
        return None


def tb_payloads(directory, tags, steps, histogram_every=0):
    """The payloads of a tensorboardX log, as the cache's framing reads them."""
    import io

    from tensorboardX import SummaryWriter as TBWriter

    from tui_insight.summary.formats.bulk_framing import scan_batches
    from tui_insight.summary.formats.framing import ScanReport

    special = [0.0, -0.0, float("nan"), float("inf"), 1e-45, 3.4e38]
    with TBWriter(str(directory), max_queue=10_000, flush_secs=3600) as writer:
        for step in steps:
            for i, tag in enumerate(tags):
                number = special[(step + i) % len(special)] if step % 7 == 0 else 1.0 / (1 + step + i)
                writer.add_scalar(tag, number, step, walltime=1.7e9 + step * 0.25)
            if histogram_every and step % histogram_every == 0:
                writer.add_histogram("weights", np.arange(10.0) * step, step, walltime=1.7e9 + step * 0.25)
    (path,) = directory.glob("*tfevents*")
    data = path.read_bytes()
    batches = list(scan_batches(io.BytesIO(data), 0, len(data), ScanReport()))
    assert len(batches) == 1
    return batches[0].payloads


def test_tensorboard_layouts_read_what_tensorboard_reads(tmp_path):
    from tui_insight.summary.formats.tensorboard import TagPlugins, read_event

    tags = ["loss", "accuracy", "lr", "train/a_much_longer_tag_name"]
    payloads = tb_payloads(tmp_path, tags, [*range(0, 140), 16383, 16384, 2**40], histogram_every=50)
    book = LayoutBook(dialect="tensorboard")
    which, layouts, decoded = book.classify(payloads, tb_decode)
    assert all(layout.kinds == ("simple_value",) for layout in layouts)
    plugins = TagPlugins()
    bulk = histograms = 0
    for i, payload in enumerate(payloads):
        event = read_event(payload, plugins)
        histograms += any(value.plugin == "histogram" for value in event.values)
        if which[i] < 0:
            continue
        bulk += 1
        layout = layouts[which[i]]
        steps, walls, floats = layout.numbers(payloads.rows(np.asarray([i]), layout.size))
        gathered = layout.numbers_at(payloads.array, payloads.starts[[i]])  # the cache's way: only the bytes read
        assert all(a.tobytes() == b.tobytes() for a, b in zip(gathered, (steps, walls, floats)))
        (value,), (number,) = event.values, event.numbers
        assert layout.tags == (value.tag,)
        assert int(steps[0]) == event.step and walls[0].tobytes() == np.float64(event.wall_time).tobytes()
        assert floats[0, layout.float_of_value[0]].tobytes() == np.float64(number).tobytes()
    # Every scalar event but the first of each tag and step length went in bulk; histograms did
    # not, nor were they decoded to learn that (the bytes say so).
    assert bulk >= len(payloads) - len(decoded) - histograms - 1 and len(decoded) <= 4 * len(tags)
    assert histograms and not any(v.HasField("histo") for event in decoded.values() for v in event.summary.value)


def test_fifty_tags_of_one_size_are_fifty_layouts_not_protobuf(tmp_path):
    tags = [f"train/layer_{i:02d}/grad_norm" for i in range(50)]
    payloads = tb_payloads(tmp_path, tags, range(1, 101))
    book = LayoutBook(dialect="tensorboard")
    which, layouts, decoded = book.classify(payloads, tb_decode)
    assert len(layouts) == 50 and sorted(t for layout in layouts for t in layout.tags) == sorted(tags)
    assert len(decoded) <= 51  # one per tag (and the file version)
    assert np.count_nonzero(which >= 0) == 50 * 100
    # The next batch of the same run: all known, nothing decoded.
    which, layouts, decoded = book.classify(payloads, tb_decode)
    assert not decoded and np.count_nonzero(which >= 0) == 50 * 100


def test_a_value_with_plugin_metadata_has_no_layout():
    from tui_insight.proto import tb_event_pb2

    event = tb_event_pb2.Event(wall_time=1.0, step=3)
    value = event.summary.value.add(tag="loss", simple_value=0.5)
    payload = event.SerializeToString()
    assert Layout.make(payload, event, "tensorboard").tags == ("loss",)
    assert Layout.make(payload, event) is None  # field 2 is no MindSpore scalar
    value.metadata.plugin_data.plugin_name = "scalars"
    assert Layout.make(event.SerializeToString(), event, "tensorboard") is None


def test_a_row_sharing_a_layouts_telling_bytes_is_still_checked_whole():
    """Layouts "ab" and "cd" are told apart by one byte; events of tag "ad" share "ab"'s, and
    must not be read as "ab" (neither with the framing's `same` hint nor without it)."""
    import io

    from tui_insight.summary.formats.bulk_framing import scan_batches
    from tui_insight.summary.formats.framing import ScanReport

    def batch(tags):
        data = b"".join(frame(scalar_event(100 + n, 1.0 + n, [(tag, float(n))]).SerializeToString())
                        for n in range(30) for tag in tags)
        (found,) = scan_batches(io.BytesIO(data), 0, len(data), ScanReport())
        return found.payloads

    def decode(payload):
        return summary_pb2.Event.FromString(payload)

    for payloads_of in (batch, lambda tags: list(batch(tags))):
        book = LayoutBook()
        book.classify(payloads_of(["ab", "cd"]), decode)
        payloads = payloads_of(["ab", "ad", "cd"])
        which, layouts, _ = book.classify(payloads, decode)
        assert (which >= 0).all()
        for i, payload in enumerate(payloads):
            assert layouts[which[i]].tags == (decode(payload).summary.value[0].tag,)


# -- layouts found by the cycle of a training loop's tags ---------------------------------------

def test_period_of():
    from tui_insight.summary.formats.bulk_framing import period_of

    assert period_of(np.array([3, 1, 2] * 5 + [3, 1])) == 3
    assert period_of(np.array([4, 4, 4])) == 1
    assert period_of(np.array([1, 2, 3])) == 3  # no repeat yet: each value once
    assert period_of(np.array([1, 2, 1, 3, 1, 2, 1, 3])) == 0  # a value twice in the cycle: no slice per value
    assert period_of(np.array([1, 2, 3, 1, 2, 4])) == 0
    assert period_of(np.array([], dtype=np.int64)) == 0


def cyclic_payloads(tags, steps, swaps=(), strays=()):
    """The payloads of a tensorboardX-like log of one scalar per event (MindSpore's protos with
    `simple_value`'s field: the layouts only see bytes), tags in the same order every step but
    at `swaps` (rows whose tags trade places) and with stray tags inserted at `strays`."""
    import io

    from tui_insight.proto import tb_event_pb2
    from tui_insight.summary.formats.bulk_framing import scan_batches
    from tui_insight.summary.formats.framing import ScanReport

    events = []
    for step in range(steps):
        for t, tag in enumerate(tags):
            events.append((tag, step, 1.0 / (1 + step + t)))
    for i in swaps:
        events[i], events[i + 1] = (events[i + 1][0], *events[i][1:]), (events[i][0], *events[i + 1][1:])
    for i in sorted(strays, reverse=True):
        events.insert(i, ("stray/" + tags[0][6:], events[i][1], 0.5))
    data = []
    for tag, step, number in events:
        event = tb_event_pb2.Event(wall_time=1.7e9 + step, step=step)
        event.summary.value.add(tag=tag, simple_value=number)
        data.append(frame(event.SerializeToString()))
    data = b"".join(data)
    (batch,) = scan_batches(io.BytesIO(data), 0, len(data), ScanReport())
    return batch.payloads, events


@pytest.mark.parametrize("swaps, strays", [((), ()), ((5000, 7001), ()), ((), (4100, 6000)), ((4500,), (4700,))])
def test_a_broken_cycle_is_still_classified_row_by_row(swaps, strays):
    """Rows are guessed from the cycle of the first ones and checked; where the cycle breaks
    (tags trading places, a stray tag) the rows are looked up, never taken for the cycle's."""
    tags = [f"train/{i:02d}/loss" for i in range(12)]  # all of one length: one layout index
    payloads, events = cyclic_payloads(tags, 700, swaps, strays)
    book = LayoutBook(dialect="tensorboard")
    book.classify(payloads, tb_decode)  # every tag and step length known: the next read guesses
    which, layouts, decoded = book.classify(payloads, tb_decode)
    assert not decoded and (which >= 0).all()
    for i in [*swaps, *(s + 1 for s in swaps), *strays, 0, 4095, len(events) - 1]:
        assert layouts[which[i]].tags == (events[i][0],)
    # What the guess decided is what each layout says of the whole row.
    for number, layout in enumerate(layouts):
        rows = payloads.rows(np.flatnonzero(which == number), layout.size)
        assert layout.matches(rows).all()
        assert layout.matches(rows, same=payloads.same[layout.size]).all()
    others = payloads.rows(np.flatnonzero(which != 0), layouts[0].size)
    assert not layouts[0].matches(others).any() and not layouts[0].matches(others, same=payloads.same[layouts[0].size]).any()


def test_numbers_of_many_events_at_once_are_each_events(tmp_path):
    """`numbers_at` for many rows (the cache's way) reads what `numbers` reads row by row,
    special floats and step lengths included."""
    tags = ["loss", "a/much/longer/tag"]
    payloads = tb_payloads(tmp_path, tags, [*range(0, 300), 16384, 2**35])
    book = LayoutBook(dialect="tensorboard")
    which, layouts, _ = book.classify(payloads, tb_decode)
    for number, layout in enumerate(layouts):
        rows = np.flatnonzero(which == number)
        together = layout.numbers_at(payloads.array, payloads.starts[rows])
        one_by_one = [layout.numbers(payloads.rows(np.asarray([i]), layout.size)) for i in rows.tolist()]
        for j, part in enumerate(together):
            assert part.tobytes() == np.concatenate([numbers[j] for numbers in one_by_one]).tobytes()


def test_a_tensorboard_log_loads_in_bulk_as_one_by_one(tmp_path, monkeypatch):
    """Tags in a cycle (split per layout by slices), a tag every few steps breaking it (split by
    sorting), more than one batch and merge: the cache holds what one-by-one decoding gives."""
    from tensorboardX import SummaryWriter as TBWriter

    from tui_insight.summary.store import loader as loader_module

    monkeypatch.setattr(loader_module, "_BATCH_BYTES", 1 << 14)
    monkeypatch.setattr(loader_module, "_MERGE_VALUES", 3000)
    with TBWriter(str(tmp_path / "run"), max_queue=10_000, flush_secs=3600) as writer:
        for step in range(400):
            for i in range(6):
                writer.add_scalar(f"train/{i}/loss", 1.0 / (1 + step + i), step, walltime=1.7e9 + step)
            if step % 7 == 3:  # of the train tags' length (sorted apart from them), and not
                writer.add_scalar("valid/0/loss", step / 400, step, walltime=1.7e9 + step)
                writer.add_scalar("eval/accuracy", step / 400, step, walltime=1.7e9 + step)
    assert_same(load(tmp_path, True, monkeypatch), load(tmp_path, False, monkeypatch))
