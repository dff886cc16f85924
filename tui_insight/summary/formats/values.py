"""The value types every format decodes payloads into, and MindSpore's proto converters.

Tensors, histograms, images and texts of both formats end as these objects, so every query reads
them alike; `tensorboard.py` builds them from its own protos and `payloads.py` stores them.
"""
from __future__ import annotations

import math
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
    at once: a bucket's fields one at a time cost 0.3 us each in Python (26 ms for 1,000
    histograms of 90 buckets). The walk takes the bucket messages at the start of each message's
    bytes, each holding left, width and count in that order, any of them left out (proto3's
    zero); a histogram whose bytes hold anything else, or not as many buckets as the message
    says, is read by `histogram_from_proto`."""
    blobs = [proto.SerializeToString() for proto in protos]
    sizes = np.array([len(blob) for blob in blobs], dtype=np.int64)
    data = np.frombuffer(b"".join(blobs) + bytes(16), dtype=np.uint8)  # (padded: reads past an end stay inside)
    ends = np.cumsum(sizes)
    at = ends - sizes  # each histogram's next bucket
    wanted = np.array([len(proto.buckets) for proto in protos], dtype=np.int64)
    starts: list[np.ndarray] = []  # bucket starts, a bucket index at a time (every histogram's i-th)
    walking = np.flatnonzero(wanted > 0)
    for i in range(int(wanted.max(initial=0))):
        walking = walking[wanted[walking] > i]
        here = at[walking]
        good = (data[here] == _BUCKET) & (data[here + 1] < 0x80)  # (a bucket is at most 31 bytes)
        walking, here = walking[good], here[good]
        starts.append(here)
        at[walking] = here + 2 + data[here + 1]
    # By position is by histogram, then bucket (the histograms' bytes are end to end).
    start = np.sort(np.concatenate(starts), kind="stable") if starts else np.zeros(0, dtype=np.int64)
    owner = np.searchsorted(ends, start, side="right")
    end = start + 2 + data[start + 1].astype(np.int64)
    fields = np.zeros((len(start), 3))
    doubles = unaligned(data, "<f8")  # (the double at every byte: one index a field, no index a byte)
    q = start + 2
    for column, key in ((0, _LEFT), (1, _WIDTH)):
        has = (q < end) & (data[q] == key)
        fields[has, column] = doubles[q[has] + 1]
        q = q + 9 * has
    has = (q < end) & (data[q] == _COUNT)
    count = np.zeros(len(start), dtype=np.uint64)
    q = q + has
    going = np.flatnonzero(has)  # the buckets whose count's varint goes on (up to 10 bytes)
    for shift in range(0, 70, 7):
        byte = data[q[going]].astype(np.uint64)
        count[going] |= (byte & np.uint64(0x7F)) << np.uint64(shift)
        q[going] += 1
        going = going[byte >= 0x80]
        if not len(going):
            break
    fields[:, 2] = count.view(np.int64)
    spoiled = np.bincount(owner[q != end], minlength=len(protos))  # a bucket not ending where its fields did
    left, width, counts = fields[:, 0], fields[:, 1], fields[:, 2]
    with np.errstate(invalid="ignore", over="ignore"):  # (as `histogram_from_buckets`: its checks, all at once)
        unsound = ~np.isfinite(left + width) | (width < 0) | (counts < 0) | (counts > MAX_BUCKET_COUNT)
    spoiled += np.bincount(owner[unsound], minlength=len(protos))
    unsorted = (left[1:] < left[:-1]) & (owner[1:] == owner[:-1])
    spoiled += np.bincount(owner[1:][unsorted], minlength=len(protos))
    bounds = np.concatenate(([0], np.cumsum(np.bincount(owner, minlength=len(protos))))).tolist()
    out = []
    for k, proto in enumerate(protos):
        nan, pos_inf, neg_inf = proto.nan_count, proto.pos_inf_count, proto.neg_inf_count
        if bounds[k + 1] - bounds[k] != wanted[k] or spoiled[k] or min(nan, pos_inf, neg_inf) < 0:
            out.append(histogram_from_proto(proto))  # (what it drops or sorts, and says why)
        else:
            out.append(HistogramData(fields[bounds[k]:bounds[k + 1]].copy(), nan, pos_inf, neg_inf, proto.min, proto.max))
    return out


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
