"""The value types every format decodes payloads into, and MindSpore's proto converters.

Tensors, histograms, images and texts of both formats end as these objects, so every query reads
them alike; `tensorboard.py` builds them from its own protos and `payloads.py` stores them.
"""
from __future__ import annotations

import math
import struct
from dataclasses import dataclass
from itertools import chain
from operator import attrgetter

import numpy as np

from ...proto import anf_ir_pb2, summary_pb2
from .. import limits
from .bulk_framing import unaligned


@dataclass(frozen=True)
class Locator:
    """Where a payload value is: its record in a file and its index in the event."""

    path: str
    offset: int  # record offset in the file
    index: int  # position of the value in the event's summary
    kind: str = "summary"  # "summary" or "tensorboard": which protos the record is decoded with


class PayloadError(Exception):
    """A payload that cannot be read any more; the message says why, for the UI."""


@dataclass(frozen=True)
class TensorData:
    """A decoded tensor: its dims and dtype, and its values unless a reason says why not."""

    dims: tuple[int, ...]
    dtype: str  # "DT_FLOAT32"
    array: np.ndarray | None  # float64 with NaN/Inf as written, shaped by dims; None: see reason
    reason: str = ""  # why there is no array

    @property
    def nbytes(self) -> int:
        return 0 if self.array is None else self.array.nbytes


@dataclass(frozen=True)
class HistogramData:
    """A decoded histogram: its buckets and counts."""

    buckets: np.ndarray  # (n, 3): left, width, count, sorted by left; every number finite, none negative but left
    nan_count: int
    pos_inf_count: int
    neg_inf_count: int
    min: float
    max: float
    problem: str = ""  # what was left out of a damaged histogram ("2 buckets dropped: negative count")

    @property
    def nbytes(self) -> int:
        return self.buckets.nbytes + 64


@dataclass(frozen=True)
class TextData:
    """A TensorBoard text-plugin value as text (a matrix: rows of tab-separated cells)."""

    text: str
    cells: tuple[tuple[str, ...], ...] = ()  # a vector or matrix of strings: rows of cells (TensorBoard's table)

    @property
    def nbytes(self) -> int:
        return len(self.text) + sum(len(cell) + 8 for row in self.cells for cell in row) + 64


@dataclass(frozen=True)
class ImageData:
    """A decoded image: its size, colour space and PNG bytes."""

    width: int
    height: int
    colorspace: int
    png: bytes

    @property
    def nbytes(self) -> int:
        return len(self.png) + 64


def dtype_name(value: int) -> str:
    try:
        return anf_ir_pb2.DataType.Name(anf_ir_pb2.DataType.ValueType(value))
    except ValueError:
        return "DT_UNDEFINED"  # a type newer than our proto, as MindInsight shows it


MAX_TENSOR_DIMS = 32  # numpy takes 64; no model writes more than a handful


def tensor_from_proto(proto: anf_ir_pb2.TensorProto) -> TensorData:
    dims = tuple(int(d) for d in proto.dims)
    dtype = dtype_name(proto.data_type)
    # The shape is checked before numpy sees it: a hostile or broken record could hold negative
    # dims, a product past int64, or more dims than numpy can reshape to.
    shown = "x".join(map(str, dims[:8])) + ("x…" if len(dims) > 8 else "")
    if len(dims) > MAX_TENSOR_DIMS:
        return TensorData(dims, dtype, None, f"{len(dims)} dimensions (at most {MAX_TENSOR_DIMS} are read)")
    if any(d < 0 for d in dims):
        return TensorData(dims, dtype, None, f"dims {shown} are negative: not a shape")
    count = math.prod(dims)  # a Python int: no overflow
    if count > limits.MAX_TENSOR_ELEMENTS:
        return TensorData(dims, dtype, None, f"{count:,} elements: over the limit of "
                          f"{limits.MAX_TENSOR_ELEMENTS:,}, only shape and type are kept")
    if math.prod(d for d in dims if d) * 8 > np.iinfo(np.intp).max:  # numpy cannot shape even 0 float64s so
        return TensorData(dims, dtype, None, f"dims {shown} are too large to be a shape")
    # MindSpore writes every element to float_data; read the other arrays too (MindInsight
    # shows those tensors as empty).
    for field_name in ("float_data", "double_data", "int32_data", "int64_data", "uint64_data"):
        data = getattr(proto, field_name)
        if len(data):
            array = np.array(data, dtype=np.float64)
            break
    else:
        array = np.empty(0)
    if array.size != count:
        return TensorData(dims, dtype, None, f"holds {array.size} values for shape "
                          f"{'x'.join(map(str, dims)) or 'scalar'} ({count} expected)")
    return TensorData(dims, dtype, array.reshape(dims))


MAX_BUCKET_COUNT = 2 ** 53  # counts past this are not exact in float64, where re-binning sums them

# Buckets a histogram cannot hold, each with the words that name it (checked in this order).
_BAD_BUCKETS = (
    ("non-finite edge", lambda left, width, count: ~(np.isfinite(left) & np.isfinite(width)
                                                     & np.isfinite(left + width))),
    ("negative width", lambda left, width, count: width < 0),
    ("negative count", lambda left, width, count: count < 0),
    ("count past 2**53", lambda left, width, count: count > MAX_BUCKET_COUNT),
)


def histogram_from_proto(proto: summary_pb2.Summary.Histogram) -> HistogramData:
    """The buckets sorted by left edge (MindInsight's load-time normalisation). A hostile or
    broken writer's buckets that no histogram holds (non-finite edges, negative widths or counts)
    are left out, and negative NaN/Inf counts read as 0; `problem` says what was left out."""
    fields = map(_BUCKET_FIELDS, proto.buckets)  # (left, width, count) each, read in C: no frame a bucket
    buckets = np.fromiter(chain.from_iterable(fields), np.float64, count=3 * len(proto.buckets)).reshape(-1, 3)
    return histogram_from_buckets(buckets, proto.nan_count, proto.pos_inf_count, proto.neg_inf_count,
                                  proto.min, proto.max)


_BUCKET_FIELDS = attrgetter("left", "width", "count")
_BUCKET, _LEFT, _WIDTH, _COUNT = 0x0A, 0x09, 0x11, 0x18  # Histogram.buckets; Bucket's fields (proto keys)


def histograms_from_protos(protos: list[summary_pb2.Summary.Histogram]) -> list[HistogramData]:
    """`histogram_from_proto` of each, the buckets read by numpy from the messages' bytes, all
    at once (`_buckets_read`): a bucket's fields one at a time cost 0.3 us each in Python (26 ms
    for 1,000 histograms of 90 buckets). A histogram whose bytes hold anything else, or not as
    many buckets as the message says, is read by `histogram_from_proto`."""
    blobs = [proto.SerializeToString() for proto in protos]
    sizes = np.fromiter(map(len, blobs), dtype=np.int64, count=len(blobs))
    ends = np.cumsum(sizes)
    data = np.frombuffer(b"".join([*blobs, bytes(_PAD)]), dtype=np.uint8)  # (padded: reads past an end stay inside)
    fields, bounds, spoiled, _ = _buckets_read(data, ends - sizes, ends)
    out = []
    for k, proto in enumerate(protos):
        nan, pos_inf, neg_inf = proto.nan_count, proto.pos_inf_count, proto.neg_inf_count
        if bounds[k + 1] - bounds[k] != len(proto.buckets) or spoiled[k] or min(nan, pos_inf, neg_inf) < 0:
            out.append(histogram_from_proto(proto))  # (what it drops or sorts, and says why)
        else:
            out.append(HistogramData(fields[bounds[k]:bounds[k + 1]].copy(), nan, pos_inf, neg_inf, proto.min, proto.max))
    return out


def histograms_in_events(events: list[tuple[bytes, int]]) -> list[HistogramData | None]:
    """`histogram_from_proto` of the histogram of value `index` of each (event payload, index)
    of `events`, read from the bytes of the events written plainly
    (`histogram_bytes.mindspore_bodies`), every histogram of such an event checked as its
    buckets are read, all at once (`_buckets_read`); None for the others (and a histogram the
    checks change), which the caller parses with protobuf (`histograms_from_protos`)."""
    from .histogram_bytes import mindspore_bodies  # (here: an export's, not a load's)

    out: list[HistogramData | None] = [None] * len(events)
    walked: dict[int, list[tuple[int, int] | None] | None] = {}  # by the payload's id: its bodies
    payloads: list[bytes] = []
    spans: list[tuple[int, int]] = []  # (payload, the first of its bodies in `begins`)
    begins: list[int] = []
    finishes: list[int] = []
    offset = 0
    for payload, _ in events:
        if id(payload) in walked:
            continue
        bodies = walked[id(payload)] = mindspore_bodies(payload)
        if bodies is None:
            continue
        spans.append((id(payload), len(begins)))
        for body in bodies:
            if body is not None:
                begins.append(offset + body[0])
                finishes.append(offset + body[1])
        payloads.append(payload)
        offset += len(payload)
    if not begins:
        return out
    data = np.frombuffer(b"".join([*payloads, bytes(_PAD)]), dtype=np.uint8)
    ends = np.array(finishes, dtype=np.int64)
    fields, bounds, spoiled, after = _buckets_read(data, np.array(begins, dtype=np.int64), ends)
    tails = [_tail(data, at, end) for at, end in zip(after.tolist(), finishes)]
    numbered: dict[int, list[int]] = {}  # by the payload's id: each value's histogram among all, -1 for none
    for key, first in spans:
        count = sum(body is not None for body in walked[key] or ())
        if not spoiled[first:first + count].any() and all(tails[first:first + count]):  # (every one read as written)
            numbered[key] = (np.cumsum([body is not None for body in walked[key] or ()]) - 1 + first).tolist()
            numbered[key] = [k if body is not None else -1 for k, body in zip(numbered[key], walked[key] or ())]
    for i, (payload, index) in enumerate(events):
        ks = numbered.get(id(payload))
        k = ks[index] if ks is not None and 0 <= index < len(ks) else -1
        if k < 0:
            continue
        nan, pos_inf, neg_inf, high, low = tails[k]  # type: ignore[misc]
        if min(nan, pos_inf, neg_inf) >= 0:
            out[i] = HistogramData(fields[bounds[k]:bounds[k + 1]].copy(), nan, pos_inf, neg_inf, low, high)
    return out


_PAD = 160  # bytes after the bodies: a bucket's fields read past its body's end stay inside


_STEPS_MOST = limits.MAX_HISTOGRAM_BUCKETS + 1  # buckets walked per histogram at most (then: protobuf's)


def _buckets_read(data: np.ndarray, begins: np.ndarray, ends: np.ndarray
                  ) -> tuple[np.ndarray, list[int], np.ndarray, np.ndarray]:
    """The buckets of the histogram bodies `begins` to `ends` in `data` (padded: `_PAD` bytes
    past the last end), all at once: float64 (left, width, count) rows of every histogram, end to
    end; each histogram's first row (and one past the last); whether a histogram is spoiled (a
    bucket holding anything but left, width and count in that order, any of them left out,
    proto3's zero; or what the checks of `histogram_from_buckets` would change); and where its
    buckets end (the fields after them start). The walk takes the bucket messages at the start
    of each body, each of a one-byte length, a bucket index at a time for every histogram."""
    count = len(begins)
    at = begins.copy()
    steps: list[tuple[np.ndarray, np.ndarray]] = []  # (histograms, their i-th bucket's start) per bucket index i
    walking = np.flatnonzero(at < ends)
    for _ in range(_STEPS_MOST):
        if not len(walking):
            break
        here = at[walking]
        good = (data[here] == _BUCKET) & (data[here + 1] < 0x80)  # (a bucket is at most 31 bytes)
        if not good.all():
            walking, here = walking[good], here[good]
        steps.append((walking, here))
        at[walking] = here = here + 2 + data[here + 1]
        walking = walking[here < ends[walking]]
    spoiled = np.zeros(count, dtype=bool)
    spoiled[walking] = True  # (more buckets than the walk takes)
    spoiled |= at > ends
    # The buckets by histogram, then bucket: the i-th of histogram k is row bounds[k] + i.
    buckets = np.zeros(count, dtype=np.int64)
    for walked, _ in steps:
        buckets[walked] += 1
    first = np.cumsum(buckets) - buckets
    start = np.empty(int(buckets.sum()), dtype=np.int64)
    for i, (walked, here) in enumerate(steps):
        start[first[walked] + i] = here
    owner = np.repeat(np.arange(count), buckets)
    bounds = [0, *np.cumsum(buckets).tolist()]
    end = start + 2 + data[start + 1].astype(np.int64)
    fields = np.zeros((len(start), 3))
    doubles = unaligned(data, "<f8")  # (the double at every byte: one index a field, no index a byte)
    q = start + 2
    for column, key in ((0, _LEFT), (1, _WIDTH)):
        has = (q < end) & (data[q] == key)
        if has.all():  # (as writers write them: every bucket holds it)
            fields[:, column] = doubles[q + 1]
            q += 9
        else:
            fields[has, column] = doubles[q[has] + 1]
            q = q + 9 * has
    has = (q < end) & (data[q] == _COUNT)
    counts = np.zeros(len(start), dtype=np.uint64)
    q = q + has
    going = np.flatnonzero(has)  # the buckets whose count's varint goes on (up to 10 bytes)
    for shift in range(0, 70, 7):
        byte = data[q[going]].astype(np.uint64)
        counts[going] |= (byte & np.uint64(0x7F)) << np.uint64(shift)
        q[going] += 1
        going = going[byte >= 0x80]
        if not len(going):
            break
    fields[:, 2] = counts.view(np.int64)
    spoiled[owner[q != end]] = True  # a bucket not ending where its fields did
    left, width, number = fields[:, 0], fields[:, 1], fields[:, 2]
    with np.errstate(invalid="ignore", over="ignore"):  # (as `histogram_from_buckets`: its checks, all at once)
        unsound = ~np.isfinite(left + width) | (width < 0) | (number < 0) | (number > MAX_BUCKET_COUNT)
    spoiled[owner[unsound]] = True
    unsorted = (left[1:] < left[:-1]) & (owner[1:] == owner[:-1])
    spoiled[owner[1:][unsorted]] = True
    return fields, bounds, spoiled, at


# Histogram's fields after its buckets: nan_count, pos_inf_count, neg_inf_count (2-4, varints);
# max, min, sum (5-7, doubles); count (8, varint): the position of each in `_tail`'s answer.
_TAIL_VARINTS = {0x10: 0, 0x18: 1, 0x20: 2, 0x40: -1}
_TAIL_DOUBLES = {0x29: 3, 0x31: 4, 0x39: -1}
_DOUBLE = struct.Struct("<d").unpack_from


def _tail(data: np.ndarray, at: int, end: int) -> list | None:
    """[nan_count, pos_inf_count, neg_inf_count, max, min] of the fields of a histogram from
    `at` (its buckets' end) to `end`, as protobuf reads them (a field given twice: the last);
    None where they hold anything else (a bucket after them, a field of another kind)."""
    found: list = [0, 0, 0, 0.0, 0.0, None]
    raw = data[at:end].tobytes()
    pos, size = 0, len(raw)
    while pos < size:
        key = raw[pos]
        if key in _TAIL_DOUBLES and pos + 9 <= size:
            found[_TAIL_DOUBLES[key]] = _DOUBLE(raw, pos + 1)[0]
            pos += 9
        elif key in _TAIL_VARINTS:
            value = shift = 0
            pos += 1
            while pos < size and shift < 63 and raw[pos] >= 0x80:
                value |= (raw[pos] & 0x7F) << shift
                pos += 1
                shift += 7
            if pos >= size or raw[pos] > (1 if shift == 63 else 0x7F):
                return None  # (runs past the end, or past 64 bits: protobuf's to say)
            value |= raw[pos] << shift
            pos += 1
            found[_TAIL_VARINTS[key]] = value - (1 << 64) if value >> 63 else value  # (int64)
        else:
            return None
    return found[:5]


def histogram_from_buckets(buckets: np.ndarray, nan: int, pos_inf: int, neg_inf: int, low: float,
                           high: float) -> HistogramData:
    """`histogram_from_proto` of (n, 3) float64 (left, width, count) `buckets` and the other fields."""
    left, width, count = buckets[:, 0], buckets[:, 1], buckets[:, 2]
    problem = ""
    with np.errstate(invalid="ignore", over="ignore"):
        # A finite left + width has both finite: one test for the common, sound histogram.
        sound = not len(buckets) or bool(np.isfinite(left + width).all() and width.min() >= 0 and count.min() >= 0
                                         and count.max() <= MAX_BUCKET_COUNT)
        if not sound:
            bad = np.zeros(len(buckets), dtype=bool)
            why = []
            for words, test in _BAD_BUCKETS:
                hit = test(left, width, count) & ~bad
                if hit.any():
                    why.append(words)
                    bad |= hit
            if bad.any():
                dropped = int(bad.sum())
                problem = f"{dropped} bucket{'s' if dropped != 1 else ''} dropped: {', '.join(why)}"
                buckets = buckets[~bad]
    if len(buckets) > 1 and not bool((buckets[1:, 0] >= buckets[:-1, 0]).all()):  # (sorted already: as it is)
        buckets = buckets[np.argsort(buckets[:, 0], kind="stable")]
    if min(nan, pos_inf, neg_inf) < 0:
        problem = "; ".join(filter(None, [problem, "negative NaN/Inf counts read as 0"]))
        nan, pos_inf, neg_inf = max(nan, 0), max(pos_inf, 0), max(neg_inf, 0)
    return HistogramData(buckets, nan, pos_inf, neg_inf, low, high, problem)


def image_from_proto(proto: summary_pb2.Summary.Image) -> ImageData:
    return ImageData(proto.width, proto.height, proto.colorspace, proto.encoded_image)
