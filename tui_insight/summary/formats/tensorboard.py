"""TensorBoard event files (`*tfevents*`): what each record holds, and its payloads on demand.

TensorBoard files are framed like summary files (`framing.scan_records` reads them); their
payloads are TensorFlow `Event`s (proto/tensorboard/tb_event.proto, wire-compatible, no
TensorFlow needed). `TensorBoardRouter` turns one decoded event into a `RoutedEvent`
(`routed.py`), the neutral form MindSpore's router makes too: the step, the wall time and, per
value, its plugin, its tag and either the number (scalars) or where the payload is (the value's
index in the event; the record offset is the caller's). Payloads are decoded later, only when
shown, by the functions further down, from the `Summary.Value` that `value_at` reads back.

Plugins. A value's plugin is named in its `SummaryMetadata`, which TF2 writers put on a tag's
first value only. `TagPlugins` (one per job) remembers the first plugin seen for each tag and
routes the tag's later values by it, as TensorBoard does. What each kind of value becomes:

    simple_value                         -> scalar   (tensorboardX, torch, TF1)
    tensor, plugin "scalars"             -> scalar   (TF2, Keras: one number, read at once)
    histo                                -> histogram (HistogramProto: bucket_limit/bucket)
    tensor, plugin "histograms"          -> histogram ([k, 3]: left, right, count)
    image                                -> image    (Summary.Image, PNG)
    tensor, plugin "images"              -> image    ([2 + n] strings: width, height, images)
    tensor, plugin "text"                -> text     (strings)
    tensor, plugin "pr_curves"           -> pr_curve ([6, n]: tp, fp, tn, fn, precision, recall)
    plugin "hparams" (tensor or nothing) -> hparams  (HParamsPluginData in the metadata, read into `data`)
    tensor, no plugin                    -> tensor
    audio, other plugins (mesh, graph_keras_model, ...) -> other
    plugin "custom_scalars"              -> the job's layout (custom_scalars.py, in `data`), not a tag
    Event.graph_def                      -> graph    (RoutedEvent.graph: read with `graph_at`)
    Event.session_log START              -> RoutedEvent.restart
    Event.tagged_run_metadata            -> other, written "graph_tagged_run_metadata", index -1,
                                            `data`: whether it holds a graph (tb_graphs.py)
    plugins graph_run_metadata(_graph), graph_keras_model -> other: graphs (tb_graphs.py)

Files of a run are read in name order (TensorBoard's; `events.out.tfevents.<10-digit time>`
sorts by time). Nothing here raises on bad input: what cannot be read is a `Problem`, returned
for the caller to count and show, and everything else of the record or value is kept.
"""
from __future__ import annotations

import io
import json
import math
import os
import struct
from dataclasses import dataclass, replace
from types import SimpleNamespace
from typing import Any, Callable, Iterable, cast

import numpy as np
from google.protobuf.message import DecodeError

from ...proto import anf_ir_pb2, tb_event_pb2, tb_hparams_pb2
from .. import limits
from ..text import text_of
from . import tb_graphs
from .custom_scalars import PLUGIN as CUSTOM_SCALARS
from .custom_scalars import layout_of
from .file_names import is_tensorboard_file  # noqa: F401 (the decoder names its files too)
from .file_names import tensorboard_sort_key as sort_key  # noqa: F401
from .framing import ScanReport, read_record_at, scan_records
from .histogram_bytes import tensorboard_histo
from .pr_curves import PrCurveData, pr_curve_of
from .routed import PLUGINS, Problem, RoutedEvent, RoutedValue
from .values import MAX_BUCKET_COUNT, HistogramData, ImageData, TensorData, histogram_from_buckets, tensor_from_proto

# TensorBoard's plugin names -> ours; any other named plugin is "other".
_PLUGIN_OF_NAME = {"scalars": "scalar", "histograms": "histogram", "images": "image", "text": "text",
                   "pr_curves": "pr_curve", "hparams": "hparams"}
_NAME_OF_PLUGIN = {**{ours: name for name, ours in _PLUGIN_OF_NAME.items()}, "other": "other"}
# Values that are not tensors, by their oneof field (whatever their plugin, as TensorBoard reads them).
_PLUGIN_OF_FIELD = {"histo": "histogram", "image": "image", "audio": "other",
                    "obsolete_old_style_histogram": "other"}
_OTHER_FIELDS = {"audio": "audio", "obsolete_old_style_histogram": "histogram (old style)"}  # their names
_PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"
MAX_CONVERTED_PIXELS = 32_000_000  # a GIF or JPEG past this is not converted (the image view's own limit)


class TagPlugins:
    """The plugin each tag was first written with (TF2 writes a tag's metadata once). One per job:
    the first file of a run names the plugins of the values in the files after it."""

    MAX_TAGS = 100_000  # a hostile file cannot grow this without bound; later tags go unnamed

    def __init__(self) -> None:
        self._names: dict[str, str] = {}

    def __len__(self) -> int:
        return len(self._names)

    def get(self, tag: str) -> str:
        """The plugin name first seen for `tag` ("" if none yet)."""
        return self._names.get(tag, "")

    def plugin(self, tag: str, written: str) -> str:
        """The plugin name `tag` is routed by: the first seen, or `written` if it is the first."""
        known = self._names.get(tag)
        if known is not None:
            return known
        if written and len(self._names) < self.MAX_TAGS:
            self._names[tag] = written
        return written


def _parsed(message_type, data: bytes, problem: str):
    """`data` parsed as a `message_type`, or a Problem saying `problem` and why."""
    try:
        return message_type.FromString(data)
    except DecodeError as exc:
        return Problem(f"{problem} ({exc})")


# -- records --------------------------------------------------------------------------------

def read_event(payload: bytes, plugins: TagPlugins) -> RoutedEvent | Problem:
    """The routable content of one record's payload; a Problem if it is not an Event at all.

    Events without a summary or graph (file_version, session_log, run metadata) have no values.
    """
    event = _parsed(tb_event_pb2.Event, payload, "not a TensorBoard event")
    if isinstance(event, Problem):
        return event
    return event_of(event, plugins)


def decode_event(payload: bytes) -> tb_event_pb2.Event | None:
    """The payload parsed as an Event, None if it is not one (what `layouts.LayoutBook` decodes with)."""
    try:
        return tb_event_pb2.Event.FromString(payload)
    except DecodeError:
        return None


def is_restart(event: tb_event_pb2.Event) -> bool:
    """A SessionLog START: the run restarted at `event.step` (see `RoutedEvent.restart`)."""
    return event.WhichOneof("what") == "session_log" and event.session_log.status == tb_event_pb2.START


def plugin_names(keys: Iterable[tuple[str, str]]) -> TagPlugins:
    """TagPlugins rebuilt from what the tags became ((our plugin, tag) pairs, e.g. a cache
    snapshot's): the first-value metadata is not read again when reading goes on from one."""
    plugins = TagPlugins()
    for plugin, tag in keys:
        name = _NAME_OF_PLUGIN.get(plugin)
        if name:
            plugins.plugin(tag, name)
    return plugins


class TensorBoardRouter:
    """TensorBoard's router: a job's events in read order, each tag routed by the plugin its
    first value named (`TagPlugins`)."""

    decode = staticmethod(decode_event)

    def __init__(self, plugins: TagPlugins | None = None):
        self.plugins = TagPlugins() if plugins is None else plugins

    def route(self, event: tb_event_pb2.Event) -> RoutedEvent:
        return event_of(event, self.plugins)


def event_of(event: tb_event_pb2.Event, plugins: TagPlugins) -> RoutedEvent:
    """The routable content of a parsed Event (`read_event` without the parsing)."""
    kind = event.WhichOneof("what")
    if kind == "graph_def":
        return RoutedEvent(event.step, event.wall_time, graph=True)
    if kind == "session_log" and event.session_log.status == tb_event_pb2.START:
        return RoutedEvent(event.step, event.wall_time, restart=True)
    if kind == "tagged_run_metadata":  # a step's RunMetadata: a graph, or a profile of the run graph
        tagged = tb_graphs.tagged_run_metadata(event)
        if isinstance(tagged, Problem):
            return RoutedEvent(event.step, event.wall_time, problems=(tagged,))
        graph = RoutedValue("other", tagged[0], -1, written=tb_graphs.TAGGED_RUN_METADATA, data=tagged[1])
        return RoutedEvent(event.step, event.wall_time, (graph,), (None,))
    if kind != "summary":
        return RoutedEvent(event.step, event.wall_time)
    values: list[RoutedValue] = []
    numbers: list[float | None] = []
    problems: list[Problem] = []
    for index, value in enumerate(event.summary.value):
        routed = _route(value, index, plugins)
        if isinstance(routed, Problem):
            problems.append(routed)
        elif routed is not None:
            values.append(routed[0])
            numbers.append(routed[1])
    return RoutedEvent(event.step, event.wall_time, tuple(values), tuple(numbers), problems=tuple(problems))


def _route(value: tb_event_pb2.Summary.Value, index: int, plugins: TagPlugins
           ) -> tuple[RoutedValue, float | None] | Problem | None:
    """The value routed, with its number if it is a scalar; a Problem; None for no data."""
    tag = text_of(value.tag)
    written = text_of(value.metadata.plugin_data.plugin_name) if value.HasField("metadata") else ""
    name = plugins.plugin(tag, written)
    field = value.WhichOneof("value")
    if field == "simple_value":  # the common case; TensorBoard too reads it whatever the plugin
        return RoutedValue("scalar", tag, index), value.simple_value
    if field == "tensor" or field is None:  # routed by the plugin
        plugin = _PLUGIN_OF_NAME.get(name, "other") if name else "tensor"
        if field is None and plugin != "hparams":
            return None  # a value without data (hparams keep theirs in the metadata)
    else:  # histo, image, audio: by the field, as TensorBoard does
        plugin, name = _PLUGIN_OF_FIELD[field], _OTHER_FIELDS.get(field, name)
    if plugin == "scalar":
        number = _scalar_of(value.tensor)
        if isinstance(number, Problem):
            return Problem(f"{tag}: {number}")
        return RoutedValue("scalar", tag, index), number
    if plugin == "image":
        return RoutedValue(plugin, tag, index, samples=image_count(value)), None
    if plugin == "hparams":  # metadata only: a record of the job's lineage, not a tag's step
        return RoutedValue(plugin, tag, index, data=hparams_data(value)), None
    if plugin == "other" and name == CUSTOM_SCALARS:  # the job's layout, not a tag's step
        return RoutedValue(plugin, tag, index, written=name, data=layout_of(value)), None
    return RoutedValue(plugin, tag, index, written=name if plugin == "other" else ""), None


def _scalar_of(tensor: tb_event_pb2.TensorProto) -> float | Problem:
    """The one number of a TF2 scalar summary."""
    numbers = _numbers(tensor)
    if isinstance(numbers, Problem):
        return numbers
    if numbers.size != 1:
        return Problem(f"a scalar summary holds {numbers.size} numbers")
    return float(numbers[0])


@dataclass
class TBScan:
    """Everything `scan_file` read: (record offset, event) in file order, and what went wrong."""

    events: list[tuple[int, RoutedEvent]]
    report: ScanReport  # framing: bad CRCs, an incomplete tail
    problems: list[Problem]  # records that are no Event, values that could not be read

    @property
    def bad(self) -> int:
        """Records and values left out: bad framing or CRC, undecodable events or values."""
        return self.report.bad_records + len(self.problems)


def scan_file(path: str | os.PathLike, plugins: TagPlugins | None = None) -> TBScan:
    """Every event of one file (for tests, tools and benchmarks; the cache reads incrementally)."""
    plugins = TagPlugins() if plugins is None else plugins
    report = ScanReport()
    events: list[tuple[int, RoutedEvent]] = []
    problems: list[Problem] = []
    with open(path, "rb", buffering=1 << 20) as fh:
        for offset, payload in scan_records(fh, 0, os.fstat(fh.fileno()).st_size, report):
            event = read_event(payload, plugins)
            if isinstance(event, Problem):
                problems.append(Problem(f"record at byte {offset}: {event}"))
                continue
            problems.extend(event.problems)
            events.append((offset, event))
    return TBScan(events, report, problems)


# -- payloads, on demand ----------------------------------------------------------------------

def value_at(path: str, offset: int, index: int, source=None) -> tb_event_pb2.Summary.Value | Problem:
    """The value at `index` of the event in the record at `offset` of `path` (read through
    `source`, a `source.Source`, when the file is remote)."""
    try:
        event = tb_event_pb2.Event.FromString(read_record_at(path, offset, source))
        return event.summary.value[index]
    except (OSError, ValueError, DecodeError, IndexError) as exc:
        return Problem(f"cannot read the value any more: {exc}")


def graph_at(path: str, offset: int, source=None) -> anf_ir_pb2.GraphProto | Problem:
    """The graph of the record at `offset` of `path`, as the graph module builds graphs from."""
    try:
        record = read_record_at(path, offset, source)
    except (OSError, ValueError) as exc:
        return Problem(f"cannot read the graph any more: {exc}")
    return graph_of_record(record, offset)


def graph_of_record(record: bytes, offset: int) -> anf_ir_pb2.GraphProto | Problem:
    """The graph of an event record's bytes (read from byte `offset`)."""
    try:
        event = tb_event_pb2.Event.FromString(record)
    except DecodeError as exc:
        return Problem(f"cannot read the graph any more: {exc}")
    if event.WhichOneof("what") != "graph_def":
        return Problem(f"the record at byte {offset} holds no graph any more")
    return graph_proto(event.graph_def)


def histogram_data(value: tb_event_pb2.Summary.Value) -> HistogramData | Problem:
    """A `histo` or a TF2 `[k, 3]` histogram tensor as (left, width, count) buckets.

    `histo` is converted as TensorBoard converts it: empty buckets at both ends are dropped,
    the first kept bucket starts at `min`, the last ends at `max`, and bucket i spans
    (bucket_limit[i-1], bucket_limit[i]]. Every bucket is kept, however many (tensorboardX and
    torch write 600+); the screen re-bins them. The checks of MindSpore histograms apply too.
    """
    field = value.WhichOneof("value")
    if field == "histo":
        histo = value.histo
        edges, counts = np.array(histo.bucket_limit, dtype=np.float64), np.array(histo.bucket, dtype=np.float64)
        problems = []
        if len(edges) != len(counts):
            problems.append(f"{len(edges)} bucket limits for {len(counts)} buckets: the extra ones dropped")
            n = min(len(edges), len(counts))
            edges, counts = edges[:n], counts[:n]
        filled = np.flatnonzero(counts > 0)
        if not len(filled):
            left = right = counts = np.empty(0)
        else:
            start, end = int(filled[0]), int(filled[-1])
            inner = edges[start:end]  # bucket_limit[i] is the right edge of bucket i
            left = np.concatenate(([histo.min], inner))
            right = np.concatenate((inner, [histo.max]))
            counts = counts[start:end + 1]
        return _histogram(left, right, counts, problems)
    if field == "tensor":
        numbers = _numbers(value.tensor)
        if isinstance(numbers, Problem):
            return numbers
        dims = _dims(value.tensor)
        if isinstance(dims, Problem):
            return dims
        if len(dims) != 2 or dims[1] != 3 or numbers.size != dims[0] * 3:
            return Problem(f"a histogram tensor of shape {'x'.join(map(str, dims)) or 'scalar'} "
                           f"holding {numbers.size} numbers (k x 3 expected)")
        rows = numbers.astype(np.float64).reshape(-1, 3)
        return _histogram(rows[:, 0], rows[:, 1], rows[:, 2], [])
    return Problem(f"not a histogram: {field or 'no data'}")


def histograms_data(values: list[tb_event_pb2.Summary.Value]) -> list[HistogramData | Problem]:
    """`histogram_data` of each value, the sound `histo`s (as many limits as buckets, every
    kept bucket finite, of width and count 0 or more, counts at most 2**53: what the checks let
    through as it is) converted all at once by numpy (`_histos`). Any other value is
    `histogram_data`'s."""
    out: list[HistogramData | Problem | None] = [None] * len(values)
    taken: list[int] = []
    histos = []
    for i, value in enumerate(values):
        histo = value.histo if value.WhichOneof("value") == "histo" else None
        if histo is not None and len(histo.bucket_limit) == len(histo.bucket):
            taken.append(i)
            histos.append(histo)
        else:
            out[i] = histogram_data(value)
    if taken:
        edges = [np.array(histo.bucket_limit, dtype=np.float64) for histo in histos]
        counts = [np.array(histo.bucket, dtype=np.float64) for histo in histos]
        for i, data in zip(taken, _histos([h.min for h in histos], [h.max for h in histos], edges, counts)):
            out[i] = data if data is not None else histogram_data(values[i])
    return cast("list[HistogramData | Problem]", out)


def histograms_in_events(events: list[tuple[bytes, int]]) -> list[HistogramData | Problem | None]:
    """`histogram_data` of value `index` of each (event payload, index) of `events`, read from
    the bytes of the events written plainly (`histogram_bytes.tensorboard_histo`) and converted
    together (`_histos`); None for the others (and a `histo` the checks change), which the
    caller parses with protobuf (`histograms_data`)."""
    out: list[HistogramData | Problem | None] = [None] * len(events)
    taken: list[int] = []
    lows: list[float] = []
    highs: list[float] = []
    edges: list[np.ndarray] = []
    counts: list[np.ndarray] = []
    for i, (payload, index) in enumerate(events):
        found = tensorboard_histo(payload, index)
        if found is not None and found[3] == found[5]:
            low, high, limits_at, n, counts_at, _ = found
            taken.append(i)
            lows.append(low)
            highs.append(high)
            edges.append(np.frombuffer(payload, "<f8", n, limits_at))
            counts.append(np.frombuffer(payload, "<f8", n, counts_at))
    if taken:
        for i, data in zip(taken, _histos(lows, highs, edges, counts)):
            out[i] = data
    return out


def _histos(lows: list[float], highs: list[float], edges: list[np.ndarray], counts: list[np.ndarray]
            ) -> list[HistogramData | None]:
    """`histogram_data` of `histo`s of as many limits (`edges`) as buckets (`counts`), with
    their `lows` and `highs` (min, max), together; None for one the checks would change (for
    `histogram_data` to convert). Each histogram's kept buckets are copied from its arrays by
    slices (no array of every bucket gathered by index); the widths and the checks are computed
    for all at once. 1,000 of tensorboardX's histograms (580 buckets kept each): ~10 ms."""
    firsts, kept_list = [], []
    for count in counts:
        filled = np.flatnonzero(count > 0)
        first = int(filled[0]) if len(filled) else 0
        firsts.append(first)
        kept_list.append(int(filled[-1]) - first + 1 if len(filled) else 0)  # first to last filled
    kept = np.array(kept_list, dtype=np.int64)
    starts = np.cumsum(kept) - kept  # each histogram's first bucket among the kept ones
    buckets = np.empty((int(kept.sum()), 3))
    left, width, number = buckets[:, 0], buckets[:, 1], buckets[:, 2]
    for edge, count, start, first, n in zip(edges, counts, starts.tolist(), firsts, kept_list):
        if n:  # (bucket i spans limit[i-1] to limit[i]: the first starts at min, the last ends at max)
            number[start:start + n] = count[first:first + n]
            left[start + 1:start + n] = width[start:start + n - 1] = edge[first:first + n - 1]
    some = kept > 0
    left[starts[some]] = np.array(lows)[some]
    width[(starts + kept - 1)[some]] = np.array(highs)[some]
    with np.errstate(invalid="ignore", over="ignore"):
        np.subtract(width, left, out=width)  # (the rights, then the widths)
        sound = bool(np.isfinite(left + width).all() and (width >= 0).all() and (number >= 0).all()
                     and (number <= MAX_BUCKET_COUNT).all())
        if not sound:  # (In order: a bucket's left is the right of the one before it, so widths >= 0 order them.)
            bad = ~(np.isfinite(left + width) & (width >= 0) & (number >= 0) & (number <= MAX_BUCKET_COUNT))
            unsound = np.bincount(np.repeat(np.arange(len(kept)), kept), weights=bad, minlength=len(kept)) > 0
    out: list[HistogramData | None] = []
    for k, (start, n) in enumerate(zip(starts.tolist(), kept_list)):
        if not n:
            out.append(HistogramData(buckets[start:start], 0, 0, 0, 0.0, 0.0))
        elif not sound and unsound[k]:
            out.append(None)  # (what `histogram_data` drops and says)
        else:
            out.append(HistogramData(buckets[start:start + n], 0, 0, 0, lows[k], highs[k]))
    return out


def _histogram(left: np.ndarray, right: np.ndarray, counts: np.ndarray, problems: list[str]) -> HistogramData:
    nan = np.isnan(counts)
    if nan.any():  # MindSpore counts are integers: the checks below do not look for NaN
        problems.append(f"{int(nan.sum())} bucket{'s' if nan.sum() != 1 else ''} dropped: NaN count")
        left, right, counts = left[~nan], right[~nan], counts[~nan]
    with np.errstate(invalid="ignore", over="ignore"):
        width = right - left
    # The histogram checks of values.py, on our buckets (min and max: the outer edges).
    data = histogram_from_buckets(np.stack([left, width, counts], axis=1).astype(np.float64, copy=False), 0, 0, 0,
                                  float(left[0]) if len(left) else 0.0, float(right[-1]) if len(right) else 0.0)
    problem = "; ".join(filter(None, [*problems, data.problem]))
    return replace(data, problem=problem) if problem != data.problem else data


def image_data(value: tb_event_pb2.Summary.Value, sample: int = 0) -> ImageData | Problem:
    """The image of a `Summary.Image`, or sample `sample` of an images-plugin string tensor
    ([width, height, image, image, ...]), as PNG with its size. Other formats (the GIFs of
    tensorboardX's add_video, JPEG) are converted to PNG, first frame only."""
    field = value.WhichOneof("value")
    if field == "image":
        encoded, colorspace = value.image.encoded_image_string, value.image.colorspace
    elif field == "tensor":
        strings = value.tensor.string_val
        if len(strings) < 3:
            return Problem(f"an image tensor holds {len(strings)} strings (width, height and images expected)")
        if not 0 <= sample < len(strings) - 2:
            return Problem(f"no image {sample + 1}: the tensor holds {len(strings) - 2}")
        encoded, colorspace = strings[2 + sample], 0
    else:
        return Problem(f"not an image: {field or 'no data'}")
    size = _png_size(encoded)
    if size is None:
        converted = _to_png(encoded)
        if isinstance(converted, Problem):
            return converted
        encoded, size = converted
    width, height = size
    return ImageData(width, height, colorspace, bytes(encoded))


def image_samples(value: tb_event_pb2.Summary.Value) -> list[ImageData | Problem]:
    """Every image of the value, in order (`image_data` of each sample): the one of a
    `Summary.Image`, each of an images-plugin tensor. One that cannot be decoded is its Problem,
    the others are kept; a value holding none gives one Problem saying so."""
    count = image_count(value)
    return [image_data(value, sample) for sample in range(count)] if count else [image_data(value)]


def image_count(value: tb_event_pb2.Summary.Value) -> int:
    """How many images the value holds (an images-plugin tensor may hold several)."""
    if value.WhichOneof("value") == "tensor":
        return max(len(value.tensor.string_val) - 2, 0)
    return 1 if value.WhichOneof("value") == "image" else 0


def _png_size(data: bytes) -> tuple[int, int] | None:
    """(width, height) from a PNG's header; None if `data` is not a PNG."""
    if len(data) < 24 or not data.startswith(_PNG_SIGNATURE) or data[12:16] != b"IHDR":
        return None
    width, height = struct.unpack(">II", data[16:24])
    return (width, height) if width and height else None


def _to_png(data: bytes) -> tuple[bytes, tuple[int, int]] | Problem:
    from PIL import Image

    try:
        with Image.open(io.BytesIO(data)) as image:  # reads the header only
            if image.width * image.height > MAX_CONVERTED_PIXELS:
                return Problem(f"a {image.width}x{image.height} image: over {MAX_CONVERTED_PIXELS:,} pixels, "
                               "not decoded")
            image.seek(0)
            out = io.BytesIO()
            image.convert("RGBA" if "A" in image.getbands() else "RGB").save(out, format="PNG")
            return out.getvalue(), image.size
    except Exception as exc:  # Pillow raises many kinds on broken or hostile data
        return Problem(f"the image cannot be decoded ({type(exc).__name__}: {exc})")


def tensor_data(value: tb_event_pb2.Summary.Value) -> TensorData | Problem:
    """A numeric tensor as float64 numbers shaped by its dims. The shape is checked as a
    MindSpore tensor's is (`values.tensor_from_proto`: too many dims, negative dims, over
    the element limit give a TensorData without an array and the reason)."""
    if value.WhichOneof("value") != "tensor":
        return Problem(f"not a tensor: {value.WhichOneof('value') or 'no data'}")
    tensor = value.tensor
    dims = _dims(tensor)
    if isinstance(dims, Problem):
        return dims
    numbers = _numbers(tensor)
    if isinstance(numbers, Problem):
        return numbers
    if numbers.size > limits.MAX_TENSOR_ELEMENTS:  # never copied: a tensor this big keeps no data
        return Problem(f"{numbers.size:,} numbers: over the limit of {limits.MAX_TENSOR_ELEMENTS:,}")
    count = math.prod(dims)
    # TensorFlow's compact form: fewer numbers than elements repeat the last (none: zeros).
    if numbers.size < count <= limits.MAX_TENSOR_ELEMENTS and min(dims, default=0) >= 0:
        numbers = np.pad(numbers, (0, count - numbers.size), mode="edge") if numbers.size else np.zeros(count)
    data = tensor_from_proto(cast(Any, SimpleNamespace(  # the fields tensor_from_proto reads
        dims=dims, data_type=0, float_data=(), double_data=numbers, int32_data=(), int64_data=(),
        uint64_data=())))
    return replace(data, dtype=dtype_name(tensor.dtype))


def pr_curve_data(value: tb_event_pb2.Summary.Value) -> PrCurveData | Problem:
    """A pr_curves-plugin tensor ([6, thresholds]) as a PR curve."""
    data = tensor_data(value)
    if isinstance(data, Problem):
        return data
    curve = pr_curve_of(data.array, data.reason)
    return Problem(curve) if isinstance(curve, str) else curve


def dtype_name(value: int) -> str:
    try:
        return tb_event_pb2.DataType.Name(tb_event_pb2.DataType.ValueType(value))
    except ValueError:
        return f"DT_{value}"  # a type newer than our proto


def _dims(tensor: tb_event_pb2.TensorProto) -> tuple[int, ...] | Problem:
    if tensor.tensor_shape.unknown_rank:
        return Problem("a tensor of unknown rank")
    return tuple(int(d.size) for d in tensor.tensor_shape.dim)


# dtype -> (numpy type of tensor_content, the repeated field holding the values otherwise).
_NUMERIC: dict[int, tuple[str, str]] = {
    tb_event_pb2.DT_FLOAT: ("<f4", "float_val"),
    tb_event_pb2.DT_DOUBLE: ("<f8", "double_val"),
    tb_event_pb2.DT_INT32: ("<i4", "int_val"),
    tb_event_pb2.DT_INT16: ("<i2", "int_val"),
    tb_event_pb2.DT_INT8: ("i1", "int_val"),
    tb_event_pb2.DT_UINT8: ("u1", "int_val"),
    tb_event_pb2.DT_UINT16: ("<u2", "int_val"),
    tb_event_pb2.DT_INT64: ("<i8", "int64_val"),
    tb_event_pb2.DT_UINT32: ("<u4", "uint32_val"),
    tb_event_pb2.DT_UINT64: ("<u8", "uint64_val"),
    tb_event_pb2.DT_BOOL: ("?", "bool_val"),
    tb_event_pb2.DT_HALF: ("<f2", "half_val"),
    tb_event_pb2.DT_BFLOAT16: ("<u2", "half_val"),  # the upper half of a float32
}

_FIELD_TYPE = {"float_val": np.float32, "double_val": np.float64, "int_val": np.int32, "int64_val": np.int64,
               "uint32_val": np.uint32, "uint64_val": np.uint64, "bool_val": np.bool_, "half_val": np.int32}


def _numbers(tensor: tb_event_pb2.TensorProto) -> np.ndarray | Problem:
    """The numbers of a numeric tensor, flat, as written (not yet shaped)."""
    dtype = tensor.dtype
    if dtype not in _NUMERIC:
        return Problem(f"a {dtype_name(dtype)} tensor holds no numbers we read")
    np_type, field = _NUMERIC[dtype]
    content = tensor.tensor_content
    if content:
        size = np.dtype(np_type).itemsize
        if len(content) % size:
            return Problem(f"{len(content)} bytes of tensor content are not whole {dtype_name(dtype)} values")
        numbers = np.frombuffer(content, dtype=np_type)
    else:
        # Read in the field's own type (protobuf keeps its range), then cast: int_val holds
        # int8..uint16, half_val the 16-bit patterns of halves and bfloat16s.
        raw: np.ndarray = np.array(getattr(tensor, field), dtype=_FIELD_TYPE[field])
        numbers = raw.astype(np.uint16).view(np_type) if field == "half_val" else raw.astype(np_type)
    if dtype == tb_event_pb2.DT_BFLOAT16:
        numbers = (numbers.astype(np.uint32) << 16).view(np.float32)
    return numbers


def text_data(value: tb_event_pb2.Summary.Value) -> str | Problem:
    """A text-plugin string tensor as text: one string as it is, a vector one per line, a
    matrix one row per line with its cells separated by tabs (TensorBoard draws a table)."""
    if value.WhichOneof("value") != "tensor":
        return Problem(f"not text: {value.WhichOneof('value') or 'no data'}")
    tensor = value.tensor
    if tensor.dtype != tb_event_pb2.DT_STRING:
        return Problem(f"a {dtype_name(tensor.dtype)} tensor is not text")
    dims = _dims(tensor)
    if isinstance(dims, Problem):
        return dims
    strings = [text_of(s) for s in tensor.string_val]
    if len(dims) == 2 and dims[0] * dims[1] == len(strings) and dims[1] > 0:
        return "\n".join("\t".join(strings[r * dims[1]:(r + 1) * dims[1]]) for r in range(dims[0]))
    return "\n".join(strings)


def text_cells(value: tb_event_pb2.Summary.Value) -> tuple[tuple[str, ...], ...]:
    """A text-plugin vector or matrix of strings as TensorBoard draws it, rows of cells (a vector:
    a cell a row; more dimensions: the first matrix, as TensorBoard reduces them); () for one
    string (tensorboardX's `add_text` writes a vector of one: it is markdown, as one cell's
    text is) or a value `text_data` cannot read."""
    tensor = value.tensor
    if value.WhichOneof("value") != "tensor" or tensor.dtype != tb_event_pb2.DT_STRING:
        return ()
    dims = _dims(tensor)
    if isinstance(dims, Problem) or len(tensor.string_val) < 2 or math.prod(dims) != len(tensor.string_val):
        return ()
    strings = [text_of(s) for s in tensor.string_val]
    if len(dims) == 1:
        return tuple((s,) for s in strings)
    rows, cols = dims[-2], dims[-1]
    return tuple(tuple(strings[r * cols:(r + 1) * cols]) for r in range(rows))


# -- hparams ----------------------------------------------------------------------------------

@dataclass(frozen=True)
class HParams:
    """One hparams-plugin record: what `add_hparams` or Keras' hparams callback wrote."""

    kind: str  # "experiment", "session_start" or "session_end"
    hparams: dict[str, Any]  # session_start: name -> number, text or bool
    metrics: tuple[tuple[str, str], ...] = ()  # experiment: (group, tag) of each metric's scalar
    group: str = ""  # session_start: the session group
    status: str = ""  # session_end: "success", "failure", "running" or "unknown"
    time: float = 0.0  # when the experiment was made or the session started or ended (s)


_STATUS = {0: "unknown", 1: "success", 2: "failure", 3: "running"}


def hparams_data(value: tb_event_pb2.Summary.Value) -> HParams | Problem:
    """The hparams record in a value's plugin metadata."""
    data = _parsed(tb_hparams_pb2.HParamsPluginData, value.metadata.plugin_data.content,
                   "hparams data cannot be decoded")
    if isinstance(data, Problem):
        return data
    kind = data.WhichOneof("data")
    if kind == "experiment":
        metrics = tuple((text_of(m.name.group), text_of(m.name.tag)) for m in data.experiment.metric_infos)
        return HParams("experiment", {}, metrics, time=data.experiment.time_created_secs)
    if kind == "session_start_info":
        start = data.session_start_info
        values = {text_of(entry.key): _plain(entry.value) for entry in start.hparams}
        return HParams("session_start", values, group=text_of(start.group_name), time=start.start_time_secs)
    if kind == "session_end_info":
        end = data.session_end_info
        return HParams("session_end", {}, status=_STATUS.get(end.status, "unknown"), time=end.end_time_secs)
    return Problem("hparams data holds no experiment or session")


def _plain(value) -> Any:
    """A google.protobuf.Value as a number, text, bool or None; a list or struct as JSON text."""
    kind = value.WhichOneof("kind")
    if kind == "number_value":
        return value.number_value
    if kind == "string_value":
        return value.string_value
    if kind == "bool_value":
        return value.bool_value
    if kind in ("list_value", "struct_value"):
        from google.protobuf import json_format  # (here: hparams of lists only, and it takes ~1 ms to import)

        return json.dumps(json_format.MessageToDict(value), separators=(",", ":"))
    return None


METRIC = "metric/"


def hparams_columns(records: Iterable[HParams], metric_value: Callable[[str, str], float | None]) -> dict[str, Any]:
    """The lineage columns of one session: each hyper-parameter under its own name, then each
    metric of the experiment as `metric/<tag>` (`metric/<group>/<tag>` for a group other than
    the session's own directory), valued `metric_value(group, tag)`: the caller's last value of
    that scalar, None if it has none. Later records win, as a later session start would."""
    columns: dict[str, Any] = {}
    metrics: dict[tuple[str, str], None] = {}
    for record in records:
        columns.update(record.hparams)
        metrics.update(dict.fromkeys(record.metrics))
    for group, tag in metrics:
        columns[METRIC + (f"{group}/{tag}" if group else tag)] = metric_value(group, tag)
    return columns


# -- graphs -----------------------------------------------------------------------------------

def graph_proto(graph_def: bytes) -> anf_ir_pb2.GraphProto | Problem:
    """A TensorFlow GraphDef as the graph module's input: each node under its full name (its
    name scopes make the tree), its op type, and its inputs (`^x` is a control edge, `x:1` the
    second output of x). Nodes are numbered in file order; inputs naming no node are dropped,
    and a name written twice keeps its first node."""
    graph = _parsed(tb_event_pb2.GraphDef, graph_def, "the graph cannot be decoded")
    if isinstance(graph, Problem):
        return graph
    nodes: dict[str, tb_event_pb2.NodeDef] = {}  # name -> its first node, in file order
    for node in graph.node:
        nodes.setdefault(text_of(node.name), node)
    nodes.pop("", None)
    ids = {name: str(number) for number, name in enumerate(nodes, 1)}
    out = anf_ir_pb2.GraphProto(name="tensorboard")
    for name, node in nodes.items():
        proto = out.node.add(name=ids[name], op_type=text_of(node.op) or "?", full_name=name,
                             scope=name.rpartition("/")[0])
        for source in node.input:
            source = text_of(source)
            control = source.startswith("^")
            source = source[1:] if control else source
            base, colon, output = source.rpartition(":")
            if colon and output.isdigit():
                source = base
            if source in ids:
                proto.input.add(name=ids[source], type=anf_ir_pb2.InputProto.CONTROL_EDGE if control
                                else anf_ir_pb2.InputProto.DATA_EDGE)
    return out


__all__ = ["PLUGINS", "Problem", "RoutedValue", "RoutedEvent", "TagPlugins", "TensorBoardRouter", "TBScan", "HParams",
           "is_tensorboard_file", "sort_key", "read_event", "decode_event", "event_of", "is_restart", "plugin_names", "scan_file", "value_at", "graph_at",
           "histogram_data", "image_data", "image_samples", "image_count", "tensor_data", "text_data", "text_cells", "pr_curve_data", "hparams_data",
           "hparams_columns", "graph_proto", "dtype_name"]
