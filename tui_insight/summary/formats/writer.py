"""Writes valid MindSpore summary and lineage files: for tests, the demo and the benchmark.
(`TensorBoardWriter`, at the end, writes TensorBoard event files as torch and TF2 do.)

It lays records out the way MindSpore 2.10 does (compat §1.1, §4.4, §4.5): a version event
first, then one Event per recorded step holding every value of that step; histograms binned
like MindSpore's writer; images tiled NCHW into a grid and stored as PNG; tensors written
into `float_data` whatever their dtype. `write_raw` lets tests write anything, broken
records included.
"""
from __future__ import annotations

import io
import json
import math
import os
import time
from pathlib import Path
from typing import Any, Iterable, Mapping

import numpy as np

from ...proto import anf_ir_pb2, lineage_pb2, summary_pb2, tb_event_pb2
from .framing import frame

VERSION = "MindSpore.Event:1"

_NP_TO_DT = {
    np.dtype(np.bool_): anf_ir_pb2.DT_BOOL,
    np.dtype(np.int8): anf_ir_pb2.DT_INT8,
    np.dtype(np.int16): anf_ir_pb2.DT_INT16,
    np.dtype(np.int32): anf_ir_pb2.DT_INT32,
    np.dtype(np.int64): anf_ir_pb2.DT_INT64,
    np.dtype(np.uint8): anf_ir_pb2.DT_UINT8,
    np.dtype(np.uint16): anf_ir_pb2.DT_UINT16,
    np.dtype(np.uint32): anf_ir_pb2.DT_UINT32,
    np.dtype(np.uint64): anf_ir_pb2.DT_UINT64,
    np.dtype(np.float16): anf_ir_pb2.DT_FLOAT16,
    np.dtype(np.float32): anf_ir_pb2.DT_FLOAT32,
    np.dtype(np.float64): anf_ir_pb2.DT_FLOAT64,
}


def summary_file_name(timestamp: int, suffix: str = "_MS", host: str = "localhost", rank: int = 0) -> str:
    return f"events.out.events.summary.{timestamp}.{rank}.{host}{suffix}"


def histogram_bins(valid_count: int) -> int:
    """MindSpore's writer-side bin count for a histogram of `valid_count` finite values."""
    if valid_count == 0:
        return 1
    if valid_count <= 5:
        return 2
    if valid_count <= 10:
        return 3
    if valid_count <= 880:
        return valid_count // 10 + 1
    return 90


def fill_histogram(hist: summary_pb2.Summary.Histogram, values: np.ndarray) -> None:
    values = np.asarray(values, dtype=np.float64).ravel()
    finite = values[np.isfinite(values)]
    hist.nan_count = int(np.isnan(values).sum())
    hist.pos_inf_count = int(np.isposinf(values).sum())
    hist.neg_inf_count = int(np.isneginf(values).sum())
    hist.count = int(values.size)
    if finite.size:
        lo, hi = float(finite.min()), float(finite.max())
        hist.min, hist.max, hist.sum = lo, hi, float(finite.sum())
        if lo == hi:
            lo, hi = lo - 0.5, hi + 0.5
        counts, edges = np.histogram(finite, bins=histogram_bins(finite.size), range=(lo, hi))
        for left, right, count in zip(edges[:-1], edges[1:], counts):
            hist.buckets.add(left=float(left), width=float(right - left), count=int(count))


def fill_tensor(proto: anf_ir_pb2.TensorProto, array: Any) -> None:
    array = np.asarray(array)
    proto.dims.extend(array.shape)
    proto.data_type = _NP_TO_DT.get(array.dtype, anf_ir_pb2.DT_FLOAT32)
    proto.float_data.extend(array.astype(np.float32).ravel().tolist())


def _fill_floats(proto: anf_ir_pb2.TensorProto, array: np.ndarray) -> None:
    """A landscape tensor as MindSpore writes one: its shape, DT_FLOAT64, the numbers in `float_data`."""
    proto.dims.extend(array.shape)
    proto.data_type = anf_ir_pb2.DT_FLOAT64
    proto.float_data.extend(array.ravel().tolist())


def encode_image(array: np.ndarray) -> tuple[bytes, int, int]:
    """MindSpore's image encoding: NCHW (C 1 or 3) tiled into <= 8 columns, scaled to uint8, PNG."""
    from PIL import Image

    array = np.asarray(array, dtype=np.float64)
    if array.ndim == 3:
        array = array[None]
    n, c, h, w = array.shape
    if c == 1:
        array = np.repeat(array, 3, axis=1)
    cols = min(n, 8)
    rows = math.ceil(n / cols)
    grid = np.zeros((rows * h, cols * w, 3), dtype=np.float64)
    for i in range(n):
        r, col = divmod(i, cols)
        grid[r * h : (r + 1) * h, col * w : (col + 1) * w] = array[i].transpose(1, 2, 0)
    lo, hi = grid.min(), grid.max()
    if lo >= 0 and hi <= 1:
        grid = grid * 255
    else:
        grid = (grid - lo) * 255 / (hi - lo + 1)
    out = io.BytesIO()
    Image.fromarray(grid.astype(np.uint8), "RGB").save(out, format="PNG")
    return out.getvalue(), grid.shape[0], grid.shape[1]


class _RecordFile:
    def __init__(self, path: Path):
        self.path = Path(path)
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self._fh = open(self.path, "ab")

    def write_raw(self, data: bytes) -> None:
        """Bytes as they are: a framed record, or garbage for tests of broken files."""
        self._fh.write(data)

    def write_message(self, message: Any) -> None:
        self._fh.write(frame(message.SerializeToString()))

    def flush(self) -> None:
        self._fh.flush()

    def close(self) -> None:
        self._fh.close()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()


class SummaryWriter(_RecordFile):
    """A summary file: add values, then `record(step)` writes them as one event.
    `read_only_on_close`: `close` makes the file read-only (0400), as MindSpore's writer does
    (compat §1.1); off by default, so tests may append to or damage a file after writing it."""

    def __init__(self, directory: str | os.PathLike, timestamp: int | None = None, suffix: str = "_MS",
                 wall_time: float | None = None, read_only_on_close: bool = False):
        timestamp = int(time.time()) if timestamp is None else timestamp
        super().__init__(Path(directory) / summary_file_name(timestamp, suffix))
        self.read_only_on_close = read_only_on_close
        self._pending = summary_pb2.Summary()
        self.write_message(summary_pb2.Event(wall_time=wall_time or time.time(), step=0, version=VERSION))

    def add_scalar(self, tag: str, value: float) -> None:
        self._pending.value.add(tag=tag, scalar_value=float(value))

    def add_histogram(self, tag: str, values: Any) -> None:
        fill_histogram(self._pending.value.add(tag=tag).histogram, np.asarray(values))

    def add_tensor(self, tag: str, array: Any) -> None:
        fill_tensor(self._pending.value.add(tag=tag).tensor, array)

    def add_image(self, tag: str, array: Any = None, png: bytes | None = None,
                  width: int = 0, height: int = 0) -> None:
        if png is None:
            png, height, width = encode_image(array)
        self._pending.value.add(tag=tag, image=summary_pb2.Summary.Image(
            height=height, width=width, colorspace=3, encoded_image=png))

    def add_landscape(self, tag: str, x: Any, y: Any, z: Any, path: Any = None,
                      convergence: Any = None, metadata: Mapping[str, Any] | None = None) -> None:
        """A loss landscape as MindSpore's `SummaryLandscape` writes it (compat §2): axes `x` (n,)
        and `y` (m,), the loss grid `z` (m, n) with `z[i, j]` the loss at `(x[j], y[i])`; `path`
        (interval landscapes only) is `(intervals, xs, ys, losses)`, one of each per checkpoint;
        `convergence` is `(x, y, loss)`; `metadata` holds `decomposition` ("PCA"/"Random"),
        `unit` ("step"/"epoch") and `step_per_epoch`. Every number goes in `float_data`.
        MindSpore records each landscape as its own event at step 0: call `record(0)` after."""
        proto = self._pending.value.add(tag=tag).loss_landscape
        x, y = np.asarray(x, dtype=np.float64).ravel(), np.asarray(y, dtype=np.float64).ravel()
        z = np.asarray(z, dtype=np.float64).reshape(y.size, x.size)
        _fill_floats(proto.landscape.x, x)
        _fill_floats(proto.landscape.y, y)
        _fill_floats(proto.landscape.z, z)
        if path is not None:
            intervals, px, py, pz = path
            proto.loss_path.intervals.extend(int(i) for i in intervals)
            for target, values in ((proto.loss_path.points.x, px), (proto.loss_path.points.y, py),
                                   (proto.loss_path.points.z, pz)):
                _fill_floats(target, np.asarray(values, dtype=np.float64).ravel())
        if convergence is not None:
            cx, cy, cz = convergence
            for target, value in ((proto.convergence_point.x, cx), (proto.convergence_point.y, cy),
                                  (proto.convergence_point.z, cz)):
                _fill_floats(target, np.array([value], dtype=np.float64))
        meta = dict(metadata or {})
        proto.metadata.decomposition = str(meta.get("decomposition", "PCA"))
        proto.metadata.unit = str(meta.get("unit", "step"))
        proto.metadata.step_per_epoch = int(meta.get("step_per_epoch", 0))

    def close(self) -> None:
        super().close()
        if self.read_only_on_close:
            os.chmod(self.path, 0o400)

    def record(self, step: int, wall_time: float | None = None) -> None:
        event = summary_pb2.Event(wall_time=wall_time if wall_time is not None else time.time(), step=step)
        event.summary.CopyFrom(self._pending)
        self.write_message(event)
        self._pending = summary_pb2.Summary()

    def add_graph(self, graph: anf_ir_pb2.GraphProto, wall_time: float | None = None) -> None:
        """MindSpore writes the graph as its own event with step 0."""
        event = summary_pb2.Event(wall_time=wall_time or time.time(), step=0)
        event.graph_def.CopyFrom(graph)
        self.write_message(event)


class LineageWriter(_RecordFile):
    """A `_lineage` file: train, eval, dataset-graph and user-defined events (no version event)."""

    def __init__(self, directory: str | os.PathLike, timestamp: int | None = None):
        timestamp = int(time.time()) if timestamp is None else timestamp
        super().__init__(Path(directory) / summary_file_name(timestamp, "_lineage"))

    def _event(self) -> lineage_pb2.LineageEvent:
        return lineage_pb2.LineageEvent(wall_time=time.time())

    def write_train(self, *, optimizer: str | None = None, learning_rate: float | None = None,
                    loss_function: str | None = None, epoch: int | None = None,
                    parallel_mode: str | None = None, device_num: int | None = None,
                    batch_size: int | None = None, train_dataset_path: str | None = None,
                    train_dataset_size: int | None = None, network: str | None = None,
                    loss: float | None = None, model_path: str | None = None,
                    model_size: int | None = None) -> None:
        event = self._event()
        train = event.train_lineage
        _set(train.hyper_parameters, optimizer=optimizer, learning_rate=learning_rate,
             loss_function=loss_function, epoch=epoch, parallel_mode=parallel_mode,
             device_num=device_num, batch_size=batch_size)
        _set(train.train_dataset, train_dataset_path=train_dataset_path, train_dataset_size=train_dataset_size)
        _set(train.algorithm, network=network, loss=loss)
        _set(train.model, path=model_path, size=model_size)
        self.write_message(event)

    def write_eval(self, metric: Mapping[str, float], valid_dataset_path: str | None = None,
                   valid_dataset_size: int | None = None) -> None:
        event = self._event()
        event.evaluation_lineage.metric = json.dumps(dict(metric))
        _set(event.evaluation_lineage.valid_dataset, valid_dataset_path=valid_dataset_path,
             valid_dataset_size=valid_dataset_size)
        self.write_message(event)

    def write_user_defined(self, info: Mapping[str, Any]) -> None:
        """MindSpore's layout: one `user_info` element per key, one map entry each."""
        event = self._event()
        for key, value in info.items():
            element = event.user_defined_info.user_info.add()
            if isinstance(value, bool) or not isinstance(value, (int, float)):
                element.map_str[key] = str(value)
            elif isinstance(value, int):
                element.map_int32[key] = value
            else:
                element.map_double[key] = value
        self.write_message(event)

    def write_dataset_graph(self, graph: Mapping[str, Any]) -> None:
        """`graph` is a nested dict: op params, optional `operations` and `children` lists."""
        event = self._event()
        _fill_dataset_graph(event.dataset_graph, graph)
        self.write_message(event)


def _set(message: Any, **fields: Any) -> None:
    for name, value in fields.items():
        if value is not None:
            setattr(message, name, value)


def _fill_params(param: lineage_pb2.OperationParameter, values: Mapping[str, Any]) -> None:
    for key, value in values.items():
        if isinstance(value, bool):
            param.mapBool[key] = value
        elif isinstance(value, int):
            param.mapInt[key] = value
        elif isinstance(value, float):
            param.mapDouble[key] = value
        elif isinstance(value, (list, tuple)):
            param.mapStrList[key].strValue.extend("" if v is None else str(v) for v in value)
        else:
            param.mapStr[key] = "None" if value is None else str(value)


def _fill_dataset_graph(proto: lineage_pb2.DatasetGraph, graph: Mapping[str, Any]) -> None:
    params = {k: v for k, v in graph.items() if k not in ("children", "operations", "sampler")}
    _fill_params(proto.parameter, params)
    for op in graph.get("operations", []):
        operation = proto.operations.add()
        _fill_params(operation.operationParam, {k: v for k, v in op.items() if k not in ("size", "weights")})
        operation.size.extend(op.get("size", []))
        operation.weights.extend(op.get("weights", []))
    if "sampler" in graph:
        _fill_params(proto.sampler.operationParam, graph["sampler"])
    for child in graph.get("children", []):
        _fill_dataset_graph(proto.children.add(), child)


def write_pb_graph(path: str | os.PathLike, graph: anf_ir_pb2.GraphProto) -> None:
    """A `.pb` graph file: a bare ModelProto, no framing."""
    model = anf_ir_pb2.ModelProto(ir_version=1)
    model.graph.CopyFrom(graph)
    Path(path).write_bytes(model.SerializeToString())


def make_graph(nodes: Iterable[Mapping[str, Any]], parameters: Iterable[Mapping[str, Any]] = (),
               name: str = "graph") -> anf_ir_pb2.GraphProto:
    """A GraphProto from plain dicts: {name, op_type, scope, full_name, inputs: [names], shape}."""
    graph = anf_ir_pb2.GraphProto(name=name)
    for spec in nodes:
        node = graph.node.add(name=str(spec["name"]), op_type=spec.get("op_type", "Op"),
                              scope=spec.get("scope", ""), full_name=spec.get("full_name", ""))
        for inp in spec.get("inputs", []):
            control = isinstance(inp, tuple)
            node.input.add(name=inp[0] if control else inp,
                           type=anf_ir_pb2.InputProto.CONTROL_EDGE if control else anf_ir_pb2.InputProto.DATA_EDGE)
        shape = spec.get("shape")
        if shape is not None:
            node.output_type.data_type = anf_ir_pb2.DT_TENSOR
            node.output_type.tensor_type.elem_type = anf_ir_pb2.DT_FLOAT32
            for size in shape:
                node.output_type.tensor_type.shape.dim.add(size=size)
        for key, value in spec.get("attrs", {}).items():
            attr = node.attribute.add(name=key)
            if isinstance(value, int):
                attr.value.dtype, attr.value.int_val = anf_ir_pb2.DT_INT64, value
            else:
                attr.value.dtype, attr.value.str_val = anf_ir_pb2.DT_STRING, str(value)
    for spec in parameters:
        param = graph.parameters.add(name=spec["name"])
        param.type.data_type = anf_ir_pb2.DT_TENSOR
        param.type.tensor_type.elem_type = anf_ir_pb2.DT_FLOAT32
        for size in spec.get("shape", []):
            param.type.tensor_type.shape.dim.add(size=size)
    return graph


class TensorBoardWriter(_RecordFile):
    """A TensorBoard event file, `events.out.tfevents.<timestamp>.<host>`, written with our
    TensorBoard protos in the same framing: `simple_value` scalars and `histo` histograms as
    torch and tensorboardX write them, TF2-style text tensors (plugin metadata on a tag's first
    value only), PNG images, a GraphDef. One event per value, as those writers do."""

    def __init__(self, directory: str | os.PathLike, timestamp: int | None = None, host: str = "localhost",
                 wall_time: float | None = None):
        timestamp = int(time.time()) if timestamp is None else timestamp
        super().__init__(Path(directory) / f"events.out.tfevents.{timestamp}.{host}")
        self._described: set[str] = set()
        self.write_message(tb_event_pb2.Event(wall_time=wall_time or time.time(), file_version="brain.Event:2"))

    def _value(self, step: int, wall_time: float | None, **value: Any) -> None:
        event = tb_event_pb2.Event(wall_time=time.time() if wall_time is None else wall_time, step=step)
        event.summary.value.add(**value)
        self.write_message(event)

    def add_scalar(self, tag: str, value: float, step: int, wall_time: float | None = None) -> None:
        self._value(step, wall_time, tag=tag, simple_value=value)

    def add_histogram(self, tag: str, values: Any, step: int, wall_time: float | None = None) -> None:
        """`values` binned on TensorFlow's default edges (±1e-12 growing by 10%), as tensorboardX's
        `bins='tensorflow'` bins them: hundreds of buckets, empty ones left out but one at each end."""
        values = np.asarray(values, dtype=np.float64).ravel()
        positive = 1e-12 * 1.1 ** np.arange(int(math.log(1e20 / 1e-12, 1.1)) + 1)
        edges = np.concatenate((-positive[::-1], [0.0], positive, [np.finfo(np.float64).max]))
        counts = np.bincount(np.searchsorted(edges, values, side="left"), minlength=len(edges))[:len(edges)]
        filled = np.flatnonzero(counts)
        lo, hi = max(int(filled[0]) - 1, 0), min(int(filled[-1]) + 2, len(edges))
        histo = tb_event_pb2.HistogramProto(
            min=float(values.min()), max=float(values.max()), num=len(values), sum=float(values.sum()),
            sum_squares=float((values ** 2).sum()), bucket_limit=edges[lo:hi].tolist(),
            bucket=counts[lo:hi].astype(np.float64).tolist())
        self._value(step, wall_time, tag=tag, histo=histo)

    def add_image(self, tag: str, array: Any, step: int, wall_time: float | None = None) -> None:
        png, height, width = encode_image(np.asarray(array))
        image = tb_event_pb2.Summary.Image(height=height, width=width, colorspace=3, encoded_image_string=png)
        self._value(step, wall_time, tag=tag, image=image)

    def add_images(self, tag: str, batch: Any, step: int, wall_time: float | None = None,
                   max_outputs: int = 3) -> None:
        """An NCHW batch as TF2's `tf.summary.image` (and Keras) write it: one images-plugin
        string tensor [width, height, png, png, ...] of its first `max_outputs` images."""
        pngs = [encode_image(np.asarray(image)) for image in np.asarray(batch)[:max_outputs]]
        height, width = (pngs[0][1], pngs[0][2]) if pngs else (0, 0)
        strings = [str(width).encode(), str(height).encode(), *(png for png, _, _ in pngs)]
        tensor = tb_event_pb2.TensorProto(dtype=tb_event_pb2.DT_STRING, string_val=strings)
        tensor.tensor_shape.dim.add(size=len(strings))
        self._value(step, wall_time, **self._described_value(tag, "images", tensor=tensor))

    def add_text(self, tag: str, text: str, step: int, wall_time: float | None = None) -> None:
        tensor = tb_event_pb2.TensorProto(dtype=tb_event_pb2.DT_STRING, string_val=[text.encode()])
        self._value(step, wall_time, **self._described_value(tag, "text", tensor=tensor))

    def _described_value(self, tag: str, plugin: str, **value: Any) -> dict[str, Any]:
        """A value's fields, with its plugin named if it is the tag's first (as TF2 writes them)."""
        value["tag"] = tag
        if tag not in self._described:
            self._described.add(tag)
            value["metadata"] = tb_event_pb2.SummaryMetadata(
                plugin_data=tb_event_pb2.SummaryMetadata.PluginData(plugin_name=plugin))
        return value

    def add_graph(self, nodes: Iterable[tuple[str, str, Iterable[str]]], wall_time: float | None = None) -> None:
        """A GraphDef of (name, op, inputs) nodes; names carry their name scopes (`scope/sub/op`)."""
        graph = tb_event_pb2.GraphDef()
        for name, op, inputs in nodes:
            graph.node.add(name=name, op=op, input=list(inputs))
        self.write_message(tb_event_pb2.Event(wall_time=time.time() if wall_time is None else wall_time,
                                              graph_def=graph.SerializeToString()))
