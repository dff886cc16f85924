"""Tensor, image and histogram payloads, decoded from the file when asked for.

The cache keeps only where a payload is (file, record offset, position in the event, and which
kind of file: a summary file or a TensorBoard event file), so memory does not grow with tensor
size. Decoded payloads sit in a small LRU bounded in bytes. TensorBoard payloads are decoded by
`tensorboard.py`'s decoders into the same objects, so every query reads both kinds alike.
"""
from __future__ import annotations

import math
import threading
from collections import OrderedDict
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any, Callable

import numpy as np
from google.protobuf.message import DecodeError

from ...proto import anf_ir_pb2, summary_pb2
from .. import limits
from .framing import prefetch_records, read_record_at


@dataclass(frozen=True)
class Locator:
    path: str
    offset: int  # record offset in the file
    index: int  # position of the value in the event's summary
    kind: str = "summary"  # "summary" or "tensorboard": which protos the record is decoded with


class PayloadError(Exception):
    """A payload that cannot be read any more; the message says why, for the UI."""


@dataclass(frozen=True)
class TensorData:
    dims: tuple[int, ...]
    dtype: str  # "DT_FLOAT32"
    array: np.ndarray | None  # float64 with NaN/Inf as written, shaped by dims; None: see reason
    reason: str = ""  # why there is no array

    @property
    def nbytes(self) -> int:
        return 0 if self.array is None else self.array.nbytes


@dataclass(frozen=True)
class HistogramData:
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
    width: int
    height: int
    colorspace: int
    png: bytes

    @property
    def nbytes(self) -> int:
        return len(self.png) + 64


def dtype_name(value: int) -> str:
    try:
        return anf_ir_pb2.DataType.Name(value)
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
    buckets = np.array([(b.left, b.width, b.count) for b in proto.buckets], dtype=np.float64).reshape(-1, 3)
    left, width, count = buckets[:, 0], buckets[:, 1], buckets[:, 2]
    bad = np.zeros(len(buckets), dtype=bool)
    why = []
    with np.errstate(invalid="ignore", over="ignore"):
        for words, test in _BAD_BUCKETS:
            hit = test(left, width, count) & ~bad
            if hit.any():
                why.append(words)
                bad |= hit
    problem = ""
    if bad.any():
        dropped = int(bad.sum())
        problem = f"{dropped} bucket{'s' if dropped != 1 else ''} dropped: {', '.join(why)}"
        buckets = buckets[~bad]
    buckets = buckets[np.argsort(buckets[:, 0], kind="stable")]
    nonfinite = [proto.nan_count, proto.pos_inf_count, proto.neg_inf_count]
    if min(nonfinite) < 0:
        problem = "; ".join(filter(None, [problem, "negative NaN/Inf counts read as 0"]))
        nonfinite = [max(n, 0) for n in nonfinite]
    return HistogramData(buckets, *nonfinite, proto.min, proto.max, problem)


class PayloadStore:
    """Decodes payloads on demand; a thread-safe LRU bounded by `max_bytes`."""

    def __init__(self, max_bytes: int = limits.PAYLOAD_CACHE_BYTES, source=None):
        self.max_bytes = max_bytes
        self.source = source  # where the files are read from (`source.Source`; None: this machine)
        self._items: OrderedDict[tuple[str, Locator], Any] = OrderedDict()
        self._bytes = 0
        self._lock = threading.Lock()

    @property
    def cached_bytes(self) -> int:
        return self._bytes

    def decoded(self, kind: str, loc: Locator, build: Callable[[summary_pb2.Summary.Value], Any],
                part: int = 0) -> Any:
        """The payload at `loc` turned into an object by `build` (which has an `nbytes`), kept in
        the byte-bounded LRU under (kind, loc, part): `part` tells apart the images of one value.
        Every kind of payload shares the one budget."""
        key = (kind, loc, part)
        with self._lock:
            if key in self._items:
                self._items.move_to_end(key)
                return self._items[key]
        item = build(read_value(loc, self.source))
        with self._lock:
            if key not in self._items:
                self._items[key] = item
                self._bytes += item.nbytes
                while self._bytes > self.max_bytes and len(self._items) > 1:
                    _, old = self._items.popitem(last=False)
                    self._bytes -= old.nbytes
        return item

    def prefetch(self, kind: str, locs: Iterable[Locator]) -> None:
        """The payloads of `locs` not decoded yet are about to be asked for (`kind`, as the
        method that will): a remote source fetches their records at once, not one request each."""
        if self.source is None or self.source.is_local:
            return
        with self._lock:
            records = [(loc.path, loc.offset) for loc in locs if (kind, loc, 0) not in self._items]
        if records:
            prefetch_records(records, self.source)

    def tensor(self, loc: Locator) -> TensorData:
        return self.decoded("tensor", loc, value_decoder("tensor", loc.kind))

    def histogram(self, loc: Locator) -> HistogramData:
        return self.decoded("histogram", loc, value_decoder("histogram", loc.kind))

    def image(self, loc: Locator, sample: int = 0) -> ImageData:
        """Image `sample` of the value at `loc` (a TensorBoard images-plugin tensor holds several;
        `JobView.samples` says how many). PayloadError when there is no such image or it cannot
        be read."""
        if loc.kind != "tensorboard" and sample != 0:
            raise PayloadError(f"no image {sample + 1}: a MindSpore image value holds one")
        return self.decoded("image", loc, value_decoder("image", loc.kind, sample), sample)

    def images(self, loc: Locator, samples: int) -> list[ImageData | PayloadError]:
        """Every image of the value at `loc`, `samples` of them (`JobView.samples`), in order: one
        that cannot be read is its PayloadError, the others are kept. What an export of every
        sample of a step calls."""
        out: list[ImageData | PayloadError] = []
        for sample in range(samples):
            try:
                out.append(self.image(loc, sample))
            except PayloadError as exc:
                out.append(exc)
        return out

    def text(self, loc: Locator) -> TextData:
        """A TensorBoard text value (only TensorBoard files hold text)."""
        return self.decoded("text", loc, value_decoder("text", "tensorboard"))

    def pr_curve(self, loc: Locator):
        """A TensorBoard PR curve (`pr_curves.PrCurveData`; only TensorBoard files hold them)."""
        return self.decoded("pr_curve", loc, value_decoder("pr_curve", "tensorboard"))

    def forget(self, paths: set[str]) -> None:
        """Drop what was decoded from the files at `paths` (read again from their starts)."""
        with self._lock:
            for key in [key for key in self._items if key[1].path in paths]:
                self._bytes -= self._items.pop(key).nbytes

    def clear(self) -> None:
        with self._lock:
            self._items.clear()
            self._bytes = 0


def image_from_proto(proto: summary_pb2.Summary.Image) -> ImageData:
    return ImageData(proto.width, proto.height, proto.colorspace, proto.encoded_image)


def value_decoder(plugin: str, kind: str, sample: int = 0) -> Callable[[Any], Any]:
    """How a `Summary.Value` of `plugin` ("tensor", "histogram", "image" or "text") in a `kind`
    file ("summary" or "tensorboard") is decoded: what the store keeps and every export writes.
    `sample` picks one image of a TensorBoard images-plugin value (MindSpore's hold one).
    The decoder raises PayloadError for a value that cannot be read."""
    if kind == "tensorboard":
        if plugin == "text":
            from .tensorboard import text_cells
            text = _tensorboard("text_data")
            return lambda v: TextData(text(v), text_cells(v))
        if plugin == "image":
            return _tensorboard("image_data", sample)
        return _tensorboard(f"{plugin}_data")
    return _SUMMARY_DECODERS[plugin]


def samples_decoder(kind: str) -> Callable[[Any], list[tuple[int, ImageData]]]:
    """Every image of an image value in a `kind` file, numbered by sample: what the export
    writes (TensorBoard's images plugin holds several a step, MindSpore's value one). A sample
    that cannot be decoded is left out; PayloadError when none can be."""
    if kind != "tensorboard":
        one = _SUMMARY_DECODERS["image"]
        return lambda v: [(0, one(v))]
    from . import tensorboard  # it builds on this module's data types

    def build(value):
        decoded = tensorboard.image_samples(value)
        images = [(i, d) for i, d in enumerate(decoded) if not isinstance(d, tensorboard.Problem)]
        if not images:
            raise PayloadError(str(decoded[0]))
        return images
    return build


_SUMMARY_DECODERS: dict[str, Callable[[Any], Any]] = {
    "tensor": lambda v: tensor_from_proto(v.tensor),
    "histogram": lambda v: histogram_from_proto(v.histogram),
    "image": lambda v: image_from_proto(v.image),
}


def _tensorboard(decoder: str, *args: Any) -> Callable[[Any], Any]:
    """`tensorboard.<decoder>(value, *args)` as a payload builder: its Problems raised as PayloadError."""
    from . import tensorboard  # it builds on this module's data types

    def build(value):
        data = getattr(tensorboard, decoder)(value, *args)
        if isinstance(data, tensorboard.Problem):
            raise PayloadError(str(data))
        return data
    return build


def read_value(loc: Locator, source=None) -> summary_pb2.Summary.Value:
    """The value `loc` points at: a MindSpore `Summary.Value`, or TensorBoard's for a "tensorboard" locator."""
    if loc.kind == "tensorboard":
        from . import tensorboard

        value = tensorboard.value_at(loc.path, loc.offset, loc.index, source)
        if isinstance(value, tensorboard.Problem):
            raise PayloadError(str(value))
        return value
    try:
        event = summary_pb2.Event.FromString(read_record_at(loc.path, loc.offset, source))
        return event.summary.value[loc.index]
    except (OSError, ValueError, DecodeError, IndexError) as exc:
        raise PayloadError(f"cannot read the value any more: {exc}") from exc
