"""Tensor, image and histogram payloads, decoded from the file when asked for.

The cache keeps only where a payload is (file, record offset, position in the event, and which
kind of file: a summary file or a TensorBoard event file), so memory does not grow with tensor
size. Decoded payloads sit in a small LRU bounded in bytes. TensorBoard payloads are decoded by
`tensorboard.py`'s decoders into the same objects (`values.py`), so every query reads both kinds alike.
"""
from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Iterable, Iterator
from typing import TYPE_CHECKING, Any, Callable

from google.protobuf.message import DecodeError

from ...proto import summary_pb2
from .. import limits
from .framing import prefetch_records, read_record_at, read_records_at
from .routed import Problem
from .values import (
    HistogramData,
    ImageData,
    Locator,
    PayloadError,
    TensorData,
    TextData,
    histogram_from_proto,
    histograms_from_protos,
    histograms_in_events,
    image_from_proto,
    tensor_from_proto,
)

if TYPE_CHECKING:
    from ...proto import tb_event_pb2


class PayloadStore:
    """Decodes payloads on demand; a thread-safe LRU bounded by `max_bytes`."""

    def __init__(self, max_bytes: int = limits.PAYLOAD_CACHE_BYTES, source=None):
        self.max_bytes = max_bytes
        self.source = source  # where the files are read from (`source.Source`; None: this machine)
        self._items: OrderedDict[tuple[str, Locator, int], Any] = OrderedDict()
        self._bytes = 0
        self._lock = threading.Lock()

    @property
    def cached_bytes(self) -> int:
        return self._bytes

    def decoded(self, kind: str, loc: Locator, build: Callable[[Any], Any],
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

    def histograms(self, locs: list[Locator]) -> list[HistogramData | PayloadError]:
        """The histogram at each of `locs`, or the PayloadError saying why it cannot be read:
        each record read once however many of them it holds (MindSpore writes a step's
        histograms in one event), a file's records through one open file, and not kept in the
        LRU (what an export reads once). Those decoded already are taken from it. The records'
        histograms are decoded together (`_decode_histograms`), a few MB of records at a time."""
        with self._lock:
            found: list[Any] = [self._items.get(("histogram", loc, 0)) for loc in locs]
        wanted = sorted((i for i, item in enumerate(found) if item is None), key=lambda i: (locs[i].path, locs[i].offset))
        held: list[tuple[int, bytes]] = []  # (index into locs, its record's payload), not decoded yet
        records = size = 0
        for chunk in _by_records(wanted, locs):
            self.prefetch("histogram", [locs[i] for i in chunk])  # remote: a few records a request
            read: dict[tuple[str, int], Any] = {}
            for i, payload in zip(chunk, read_payloads([locs[i] for i in chunk], self.source, read)):
                if isinstance(payload, PayloadError):
                    found[i] = payload
                else:
                    held.append((i, payload))
            records += len(read)
            size += sum(len(payload) for payload in read.values() if isinstance(payload, bytes))
            if records >= DECODED_TOGETHER or size >= DECODED_BYTES:
                _decode_histograms(found, locs, held)
                held, records, size = [], 0, 0
        _decode_histograms(found, locs, held)
        return found

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


def value_decoder(plugin: str, kind: str, sample: int = 0) -> Callable[[Any], Any]:
    """How a `Summary.Value` of `plugin` ("tensor", "histogram", "image" or "text") in a `kind`
    file ("summary" or "tensorboard") is decoded: what the store keeps and every export writes.
    `sample` picks one image of a TensorBoard images-plugin value (MindSpore's hold one).
    The decoder raises PayloadError for a value that cannot be read."""
    if kind == "tensorboard":
        from . import tensorboard  # (here: read once a TensorBoard file is found)

        if plugin == "text":
            text = _tensorboard("text_data")
            return lambda v: TextData(text(v), tensorboard.text_cells(v))
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
    from . import tensorboard  # (here: read once a TensorBoard file is found)

    def build(value):
        decoded = tensorboard.image_samples(value)
        images = [(i, d) for i, d in enumerate(decoded) if not isinstance(d, Problem)]
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
    from . import tensorboard  # (here: read once a TensorBoard file is found)

    def build(value):
        data = getattr(tensorboard, decoder)(value, *args)
        if isinstance(data, Problem):
            raise PayloadError(str(data))
        return data
    return build


def read_value(loc: Locator, source=None) -> summary_pb2.Summary.Value | tb_event_pb2.Summary.Value:
    """The value `loc` points at: a MindSpore `Summary.Value`, or TensorBoard's for a "tensorboard" locator."""
    if loc.kind == "tensorboard":
        from . import tensorboard  # (here: read once a TensorBoard file is found)

        value = tensorboard.value_at(loc.path, loc.offset, loc.index, source)
        if isinstance(value, Problem):
            raise PayloadError(str(value))
        return value
    try:
        event = summary_pb2.Event.FromString(read_record_at(loc.path, loc.offset, source))
        return event.summary.value[loc.index]
    except (OSError, ValueError, DecodeError, IndexError) as exc:
        raise PayloadError(f"cannot read the value any more: {exc}") from exc


PREFETCH_RECORDS = 16  # records fetched together from a remote source by `histograms`
# Records whose histograms `histograms` decodes at once (memory: the records, their buckets a
# few times; TensorBoard's 10 KB histogram events: 1,000 at once held 57 MB more at the
# tensorboard bench run's export), and their bytes at most.
DECODED_TOGETHER = 128
DECODED_BYTES = 32 << 20


def read_payloads(locs: list[Locator], source=None, read: dict | None = None) -> list[bytes | PayloadError]:
    """The payload of each of `locs`' records, or the PayloadError saying why it cannot be read
    (as `read_value` says it): each record read once, a file's through one open file
    (`framing.read_records_at`). `read` (given: filled) maps each record (path, offset) to
    what was read of it."""
    read = {} if read is None else read
    by_path: dict[str, list[int]] = {}
    for loc in locs:
        if (loc.path, loc.offset) not in read:
            read[loc.path, loc.offset] = None
            by_path.setdefault(loc.path, []).append(loc.offset)
    for path, offsets in by_path.items():
        for offset, payload in zip(offsets, read_records_at(path, offsets, source)):
            read[path, offset] = payload if isinstance(payload, bytes) else \
                PayloadError(f"cannot read the value any more: {payload}")
    return [read[loc.path, loc.offset] for loc in locs]


def _decode_histograms(found: list, locs: list[Locator], held: list[tuple[int, bytes]]) -> None:
    """found[i] for each (i, its record's payload) of `held`: the histogram of locs[i], or the
    PayloadError saying why not. Read from the events' bytes where they are written plainly
    (`tensorboard.histograms_in_events`, `values.histograms_in_events`), all at once; the other
    events parsed by protobuf, as `read_value` parses them, and converted together
    (`tensorboard.histograms_data`, `histograms_from_protos`)."""
    if not held:
        return
    parsed: dict[tuple[int, str], Any] = {}  # by the payload's id and kind: its event's values, or the PayloadError
    for kind in ("tensorboard", "summary"):
        mine = [(i, payload) for i, payload in held if locs[i].kind == kind]
        if not mine:
            continue
        if kind == "tensorboard":
            from . import tensorboard  # (here: read once a TensorBoard file is found)

            quick: list[Any] = tensorboard.histograms_in_events([(payload, locs[i].index) for i, payload in mine])
        else:
            quick = histograms_in_events([(payload, locs[i].index) for i, payload in mine])
        slow: list[tuple[int, Any]] = []
        for (i, payload), data in zip(mine, quick):
            if data is not None:
                found[i] = data
                continue
            value = _value_in(payload, locs[i], parsed)
            if isinstance(value, PayloadError):
                found[i] = value
            else:
                slow.append((i, value))
        if not slow:
            continue
        if kind == "tensorboard":
            decoded: list[Any] = tensorboard.histograms_data([value for _, value in slow])
            for (i, _), data in zip(slow, decoded):
                found[i] = PayloadError(str(data)) if isinstance(data, Problem) else data
        else:
            for (i, _), data in zip(slow, histograms_from_protos([value.histogram for _, value in slow])):
                found[i] = data


def _value_in(payload: bytes, loc: Locator, parsed: dict[tuple[int, str], Any]) -> Any:
    """The value `loc` points at in its record's `payload`, parsed by protobuf as `read_value`
    parses it (each payload once: `parsed`), or the PayloadError it raises."""
    key = (id(payload), loc.kind)
    values = parsed.get(key)
    if values is None:
        protos: Any = summary_pb2
        if loc.kind == "tensorboard":
            from ...proto import tb_event_pb2 as protos  # (here: read once a TensorBoard file is found)
        try:
            values = parsed[key] = protos.Event.FromString(payload).summary.value
        except DecodeError as exc:
            values = parsed[key] = PayloadError(f"cannot read the value any more: {exc}")
    if isinstance(values, PayloadError):
        return values
    try:
        return values[loc.index]
    except IndexError as exc:
        return PayloadError(f"cannot read the value any more: {exc}")


def _by_records(order: list[int], locs: list[Locator]) -> Iterator[list[int]]:
    """`order` (indices into `locs`, in file order) in runs of at most PREFETCH_RECORDS records."""
    chunk: list[int] = []
    records: set[tuple[str, int]] = set()
    for i in order:
        record = (locs[i].path, locs[i].offset)
        if record not in records and len(records) == PREFETCH_RECORDS:
            yield chunk
            chunk, records = [], set()
        records.add(record)
        chunk.append(i)
    if chunk:
        yield chunk
