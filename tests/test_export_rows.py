"""CSV rows of numbers built in bulk (`export_rows`): each text as `repr` / `str` / the csv
writer makes it, and histograms.csv read in bulk as one step at a time reads it."""
import csv
import io
import os
import struct

import numpy as np
import pytest
from tensorboardX import SummaryWriter as TbWriter

from tui_insight import export
from tui_insight.export import export_snapshot, fmt_float32
from tui_insight.export_rows import (ROWS, SMALL, float32_codes, float32_texts, float_codes, grouped_blocks, int_codes,
                                    rows_blocks, rows_bytes, shortest_texts)
from tui_insight.summary.formats.values import Locator, PayloadError
from tui_insight.summary.formats.writer import SummaryWriter
from tui_insight.summary.queries import histograms
from tui_insight.summary.store.cache import SummaryCache

# Where a naive format (%g, %.17g, str of a float32, numpy's) is not repr's text.
AWKWARD = [1e16, 1e-05, 1e-4, 9999999999999998.0, 1e22, -0.0, 0.0, float("nan"), float("inf"), float("-inf"),
           float(np.float32(0.1)), 0.1, 2.0 ** 63, 2.0 ** 53 + 2, 123456789012345678.0, 5e-324,
           1.7976931348623157e308, -2.5e-07, 1.5, 100.0, 3.0]


def texts(coded) -> list[str]:
    table, codes = coded
    return [t.decode() for t in table[codes].tolist()]


def nan_with_payload(payload: int) -> float:
    return struct.unpack("<d", struct.pack("<q", 0x7FF8000000000000 | payload))[0]


def test_float_texts_are_repr_s():
    rng = np.random.default_rng(30)
    values = np.concatenate([AWKWARD, [nan_with_payload(7), -float("nan")],
                             rng.integers(0, 2 ** 64, 5000, dtype=np.uint64).view(np.float64),
                             rng.standard_normal(3000).astype(np.float32).astype(np.float64),
                             np.round(rng.standard_normal(3000) * 1e4), AWKWARD])
    assert texts(float_codes(values)) == [repr(v) for v in values.tolist()]
    with np.errstate(invalid="ignore"):  # (NaNs with payloads)
        single = values[~(np.abs(values) > 3e38)].astype(np.float32)  # float32 columns are widened
    assert texts(float_codes(single)) == [repr(v) for v in single.tolist()]


# float32s where the numpy path could go wrong: shortest texts that carry (9.96 -> 10), 1 to 9
# digits, the positional / exponent boundaries, powers of two, the edges of the fast range,
# halfway decimals (0.5 at the last digit), subnormals, and whatever Python alone formats.
AWKWARD32 = [9.96, 0.97, 9.7, 99999.99, 999999.94, 1e-4, 9.9999997e-05, 1e-5, 1.2345e-4, 0.1, 0.5, 1.0, 2.0, 3.0,
             0.25, 2.0 ** -20, 2.0 ** 40, 1e-13, 9.9999e-14, 1e13, 9.999e12, 1.5e16, 1e16, 9.999999e15, 123456789.0,
             16777217.0, 1.0000001, 0.30000001, -0.1, -3.25e10, 0.0, -0.0, 1e-45, 1.1754944e-38, 3.4028235e38,
             float("nan"), float("inf"), float("-inf"), 1.0 / 3.0, 2.5, 0.125, 1234.5, 7e-10]


def test_float32_texts_are_fmt_float32_s():
    rng = np.random.default_rng(32)
    values = np.concatenate([np.array(AWKWARD32, dtype=np.float32),
                             rng.integers(0, 2 ** 32, 20000, dtype=np.uint64).astype(np.uint32).view(np.float32),
                             (rng.standard_normal(20000) * np.exp(rng.uniform(-35, 35, 20000))).astype(np.float32),
                             (np.arange(0, 1 << 23, 97, dtype=np.uint32) | 0x3F800000).view(np.float32),
                             (np.arange(1, 255, dtype=np.uint32) << 23).view(np.float32),  # every power of two
                             -(np.arange(1, 255, dtype=np.uint32) << 23).view(np.float32),
                             np.round(rng.uniform(-1000, 1000, 20000), 2).astype(np.float32)])
    with np.errstate(all="raise"):  # no warning from the numpy path either
        got = [t.decode() for t in float32_texts(values).tolist()]
    assert got == [fmt_float32(v) for v in values.tolist()]
    with np.errstate(invalid="ignore"):  # (signalling NaNs among the random bits)
        wide = values.astype(np.float64)
    assert texts(float32_codes(np.concatenate([wide, [1e39, -1e300]]))) == got + ["inf", "-inf"]


def around(values: np.ndarray) -> np.ndarray:
    """`values`, their neighbours on both sides, and the negatives of all."""
    with np.errstate(over="ignore"):
        found = np.concatenate([values, np.nextafter(values, np.inf), np.nextafter(values, 0)])
    return np.concatenate([found, -found])


def test_shortest_texts_are_repr_s_where_orjson_spells_otherwise():
    # orjson's texts are repr's digits, spelt otherwise: a one-digit exponent, positional
    # float64s from 1e-5 (repr: 1e-4), float32s from 1e-6 to under 1e13 (repr: 1e-4, 1e16), null.
    rng = np.random.default_rng(31)
    wide = np.concatenate([around(np.array([10.0 ** k for k in range(-323, 309)] + [2.0 ** k for k in range(-1074, 1024)])),
                           AWKWARD, rng.integers(0, 2 ** 64, 50000, dtype=np.uint64).view(np.float64),
                           rng.uniform(1, 10, 20000) * 10.0 ** rng.integers(-12, 20, 20000)])
    assert [t.decode() for t in shortest_texts(wide).tolist()] == [repr(v) for v in wide.tolist()]
    with np.errstate(over="ignore", invalid="ignore"):
        narrow = np.concatenate([around(np.array([10.0 ** k for k in range(-45, 39)] + [2.0 ** k for k in range(-149, 128)],
                                                 dtype=np.float32)), np.array(AWKWARD32, dtype=np.float32),
                                 (rng.uniform(1, 10, 20000) * 10.0 ** rng.integers(-8, 17, 20000)).astype(np.float32)])
    assert [t.decode() for t in shortest_texts(narrow).tolist()] == [fmt_float32(v) for v in narrow.tolist()]
    for odd in (wide, narrow):  # the same values among many ordinary ones (respelt apart from them)
        values = np.concatenate([rng.uniform(-10, 10, 4 * len(odd)).astype(odd.dtype), odd])
        rng.shuffle(values)
        spell = repr if odd.dtype == np.float64 else fmt_float32
        assert [t.decode() for t in shortest_texts(values).tolist()] == [spell(v) for v in values.tolist()]
    whole = np.array([0, 7, -1, 10 ** 15, 2 ** 63 - 1, -(2 ** 63)], dtype=np.int64)
    assert [t.decode() for t in shortest_texts(whole).tolist()] == [str(v) for v in whole.tolist()]
    assert shortest_texts(np.zeros(0)).tolist() == []


def test_float32_texts_of_more_than_a_block():
    values = (np.arange(ROWS * 16 + 5, dtype=np.float32) * np.float32(0.37)) - 1e4
    values[-1] = 1.5e-30  # a wider text in the last block only
    assert [t.decode() for t in float32_texts(values).tolist()] == [fmt_float32(v) for v in values.tolist()]


def test_values_repeating_every_period_and_one_that_does_not():
    step = np.array(AWKWARD)
    repeated = np.tile(step, 40)
    assert texts(float_codes(repeated, period=len(step))) == [repr(v) for v in repeated.tolist()]
    changed = repeated.copy()
    changed[-1] = 0.30000000000000004
    assert texts(float_codes(changed, period=len(step)))[-1] == "0.30000000000000004"
    signed = repeated.copy()
    signed[len(step) + 5] = 0.0  # -0.0 at every other step: equal as floats, not as text
    assert texts(float_codes(signed, period=len(step))) == [repr(v) for v in signed.tolist()]


def test_integer_texts_are_str_s():
    for values in ([0, 1, 9, 10, SMALL - 1], [0, SMALL, -1, 2 ** 62, -(2 ** 63), 2 ** 63 - 1, 7]):
        array = np.array(values, dtype=np.int64)
        assert texts(int_codes(array)) == [str(v) for v in values]


def csv_rows(rows: list[list]) -> bytes:
    buffer = io.StringIO()
    csv.writer(buffer, lineterminator="\n").writerows(rows)
    return buffer.getvalue().encode()


def test_rows_are_what_the_csv_writer_writes_across_blocks():
    rng = np.random.default_rng(1)
    count = ROWS * 2 + 17
    lefts = rng.standard_normal(count) * 10.0 ** rng.integers(-8, 20, count)
    counts = rng.integers(0, 10 ** 9, count)
    prefix = csv_rows([["./run, \"quoted\" é", "w/x"]])[:-1] + b","
    data, lengths = rows_bytes(prefix, [float_codes(lefts), int_codes(counts)])
    expected = csv_rows([["./run, \"quoted\" é", "w/x", repr(v), str(n)] for v, n in zip(lefts.tolist(), counts.tolist())])
    assert data == expected
    assert lengths.tolist() == [len(line) + 1 for line in expected.split(b"\n")[:-1]]
    assert rows_bytes(b"a\x00b,", [int_codes(np.array([5, 6]))])[0] == b"a\x00b,5\na\x00b,6\n"  # a NUL in a name kept
    empty = rows_bytes(b"a,", [float_codes(np.empty(0)), int_codes(np.empty(0, dtype=np.int64))])
    assert empty[0] == b"" and len(empty[1]) == 0


@pytest.mark.parametrize(("texts", "columns", "repeats"), [(6, 2, 50), (5000, 3, 4), (5000, 4, 4), (5000, 3, 1)])
def test_rows_grouped_by_their_first_field_are_rows_blocks_s(texts, columns, repeats):
    # Tails (the fields after the first) that repeat `repeats` times, made of `columns` columns
    # of `texts` texts each: numbered by a table, by one sort of their numbers (a wider
    # radix), by a sort and a search (wider still); and tails that do not repeat.
    rng = np.random.default_rng(6)
    distinct = texts * 2
    tails = [rng.integers(0, texts, distinct) for _ in range(columns)]
    order = rng.integers(0, distinct, distinct * repeats) if repeats > 1 else np.arange(distinct)
    coded = [float_codes(rng.standard_normal(texts) * 10.0 ** rng.integers(-8, 20, texts)) for _ in range(columns)]
    runs = np.sort(rng.integers(0, 50, len(order)))  # the first field: the same along runs of rows
    heads = (np.array([f"{n},{1700000000 + n / 4!r}".encode() for n in range(50)], dtype="S"), runs)
    fields = [heads, *((table, codes[tail[order]]) for (table, codes), tail in zip(coded, tails))]
    prefix = csv_rows([["./run, \"quoted\" é", "w/x"]])[:-1] + b","
    parts = grouped_blocks(prefix, fields)
    assert b"".join(parts) == b"".join(rows_blocks(prefix, fields))
    assert (len(parts) == len(np.unique(runs))) == (repeats > 1)  # a part a run where tails repeat


def histogram_rows(cache: SummaryCache) -> list[list[str]]:
    """histograms.csv's rows made from each step's payload, one at a time, by the csv writer."""
    rows = []
    for train_id, view in sorted(cache.jobs.items()):
        for tag in view.tag_names("histogram"):
            series = view.series("histogram", tag)
            for i in range(len(series)):
                buckets = cache.payloads.histogram(view.locator(series, i)).buckets
                rows += [[train_id, tag, str(int(series.steps[i])), repr(float(series.wall_times[i])), repr(left),
                          repr(width), str(int(count))] for left, width, count in buckets.tolist()]
    return rows


@pytest.mark.parametrize("at_once", [3, 1024])
def test_histograms_csv_is_each_step_s_buckets(tmp_path, monkeypatch, at_once):
    monkeypatch.setattr(histograms, "READ_TOGETHER", at_once)  # several tags a batch, or a tag over batches
    rng = np.random.default_rng(4)
    mindspore = SummaryWriter(tmp_path / "logs" / "ms", timestamp=1, wall_time=1.0)
    tb = TbWriter(str(tmp_path / "logs" / "tb"))
    for step in range(1, 6):
        for k, tag in enumerate(("w", "b", "g")):  # one event holds a step's three histograms
            mindspore.add_histogram(tag, np.concatenate([rng.standard_normal(200) * 10.0 ** (4 * k - 6), [-0.0, 1e16]]))
        mindspore.record(step, wall_time=1700000000.25 + step)
        tb.add_histogram("wide", np.concatenate([rng.standard_normal(300) * 1e-5, [1e16, -3e-7]]), step, bins="tensorflow")
        tb.add_histogram("narrow", rng.standard_normal(50), step)
    mindspore.close()
    tb.close()
    cache = SummaryCache(str(tmp_path / "logs"))
    cache.reload()
    export_snapshot(cache, tmp_path / "out")
    with open(tmp_path / "out" / "histograms.csv", newline="", encoding="utf-8") as fh:
        written = list(csv.reader(fh))[1:]
    expected = histogram_rows(cache)
    assert len(expected) > 1000 and {row[0] for row in expected} == {"./ms", "./tb"}
    assert written == expected


def test_bulk_payload_reads_give_each_value_or_why_not(tmp_path):
    writer = SummaryWriter(tmp_path / "logs" / "job", timestamp=1, wall_time=1.0)
    for step in (1, 2):
        writer.add_histogram("a", np.arange(10.0) * step)
        writer.add_histogram("b", np.arange(5.0) - step)
        writer.record(step)
    writer.close()
    cache = SummaryCache(str(tmp_path / "logs"))
    cache.reload()
    view = cache.jobs["./job"]
    locs = [view.locator(view.series("histogram", tag), i) for tag in ("b", "a") for i in (1, 0)]
    one_by_one = [cache.payloads.histogram(loc).buckets for loc in locs]
    cache.payloads.clear()
    broken = [Locator(locs[0].path, locs[0].offset, 9), Locator(locs[0].path, locs[0].offset + 1, 0)]
    found = cache.payloads.histograms([*locs, *broken])
    assert all(np.array_equal(a.buckets, b) for a, b in zip(found, one_by_one))
    assert [type(item) for item in found[len(locs):]] == [PayloadError, PayloadError]
    assert "cannot read the value any more" in str(found[-1])


def test_a_name_not_utf8_is_written_with_its_bytes_as_in_every_other_file(tmp_path):
    directory = tmp_path / "logs" / os.fsdecode(b"run\xff\xfe")
    writer = SummaryWriter(directory, timestamp=1, wall_time=1.0)
    writer.add_scalar("loss", 0.5)
    writer.add_histogram("w\u00e9", np.arange(10.0))
    writer.record(1)
    writer.close()
    cache = SummaryCache(str(tmp_path / "logs"))
    cache.reload()
    export_snapshot(cache, tmp_path / "out")
    scalar = (tmp_path / "out" / "scalars.csv").read_bytes().splitlines()[1]
    rows = (tmp_path / "out" / "histograms.csv").read_bytes().splitlines()[1:]
    assert scalar.startswith(b"./run\xff\xfe,loss,1,")
    assert rows and all(row.startswith(b"./run\xff\xfe," + "w\u00e9,1,".encode()) for row in rows)


@pytest.mark.parametrize(("odd", "together"), [("with\0nul", 1 << 16), ("quoted, \"name\"", 1 << 16),
                                               ("quoted, \"name\"", 90)])
def test_scalars_csv_is_every_tag_s_rows_as_the_csv_writer_writes_them(tmp_path, monkeypatch, odd, together):
    # Tags' rows are built together (all three, or two then one), names as a coded column; a
    # name holding a NUL (the padding of a coded column) has its tag's rows built alone.
    monkeypatch.setattr(export, "SCALARS_TOGETHER", together)
    writer = SummaryWriter(tmp_path / "logs" / "run", timestamp=1)
    rng = np.random.default_rng(5)
    values = {tag: (rng.standard_normal(40) * 10.0 ** rng.integers(-6, 8, 40)).astype(np.float32)
              for tag in ("a", odd, "z")}
    for step in range(40):
        for tag, series in values.items():
            writer.add_scalar(tag, float(series[step]))
        writer.record(step * 3, wall_time=1700000000.0 + step / 7)
    writer.close()
    cache = SummaryCache(str(tmp_path / "logs"))
    cache.reload()
    export_snapshot(cache, tmp_path / "out")
    expected = io.StringIO()
    rows = csv.writer(expected, lineterminator="\n")
    rows.writerow(["train_id", "tag", "step", "wall_time", "value"])
    for tag in sorted(values):
        for step in range(40):
            rows.writerow(["./run", tag, step * 3, repr(1700000000.0 + step / 7), fmt_float32(float(values[tag][step]))])
    assert (tmp_path / "out" / "scalars.csv").read_text(encoding="utf-8") == expected.getvalue()
