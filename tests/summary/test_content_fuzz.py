"""Fuzzing the contents: correctly framed records whose protobuf payloads mix valid and invalid
fields (every value kind, any dtype and dims, any strings including invalid UTF-8 and markup,
random bytes in place of fields), graphs, lineage and `.pb` files, loaded through the cache and
read with every query the screens and the exporter use.

No exception escapes but the ones the queries document as a sentence for the UI (PayloadError,
GraphError, SliceError, ImageDecodeError), and memory stays under a bound. The framing layer
has its own fuzz test (test_fuzz.py).
"""
from __future__ import annotations

import math
import tempfile
import tracemalloc
from pathlib import Path

import numpy as np
from hostile_logs import field, png_bomb, small_png, varint
from hypothesis import HealthCheck, Phase, given, settings
from hypothesis import strategies as st

from tui_insight.export import export_snapshot
from tui_insight.proto import anf_ir_pb2, lineage_pb2, summary_pb2
from tui_insight.summary.queries import lineage
from tui_insight.summary.formats.framing import frame
from tui_insight.summary.formats.graph import GraphError, load_graph
from tui_insight.summary.formats.graph_build import build_graph
from tui_insight.summary.queries.dataset_pipeline import dataset_pipeline
from tui_insight.summary.formats.values import PayloadError
from tui_insight.summary.queries import landscape, scalars, tensors
from tui_insight.summary.queries.histograms import histogram_steps, rebin
from tui_insight.summary.store.cache import SummaryCache
from tui_insight.ui.presenters.graph import scope_sizes
from tui_insight.ui.widgets.halfblock import ImageDecodeError, decode_image
from tui_insight.ui.widgets.ridgeline import RidgeOptions, draw_ridgeline

EXAMPLES = 100  # each writes and reads a whole LOGDIR: ~0.1 s apiece, 0.3 s at most
# Derandomized: CI runs the same examples every time. No shrinking: a failure is reported as it
# was found (shrinking a whole LOGDIR takes minutes).
FUZZ = settings(max_examples=EXAMPLES, deadline=None, derandomize=True, database=None,
                phases=[Phase.explicit, Phase.generate],
                suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
PEAK_BYTES = 96 << 20  # what loading and every query of one example may allocate at once
SUMMARY = "events.summary.1700000000.host_MS"
DOCUMENTED = (PayloadError, GraphError, tensors.SliceError, ImageDecodeError)


HOSTILE_TEXT = ["", "[/]", "[@click=app.quit]x[/]", "esc\x1b[31m\u202e", "a/b/c", "a" * 300,
                "/".join(["s"] * 150), "loss", "trailing\\", "\x00"]
text = st.one_of(st.sampled_from(HOSTILE_TEXT), st.text(max_size=12))
# MindInsight refuses a whole graph for one node name with < > or ": such names are added to one
# graph in ten (`graph_proto`), or few graphs would be built.
graph_text = text.filter(lambda t: not set('<>"') & set(t))
raw_text = st.one_of(text.map(lambda s: s.encode("utf-8", "surrogatepass")),
                     st.binary(max_size=8))  # bytes: invalid UTF-8 too
anyfloat = st.one_of(st.floats(allow_nan=True, allow_infinity=True),
                     st.sampled_from([0.0, -0.0, 1e308, -1e308, 5e-324, math.nan, math.inf, -math.inf]))
dtype = st.sampled_from(sorted(anf_ir_pb2.DataType.values()))  # a closed enum: others only raw
int64 = st.one_of(st.integers(-2 ** 63, 2 ** 63 - 1), st.integers(-3, 40))
int32 = st.one_of(st.integers(-2 ** 31, 2 ** 31 - 1), st.integers(-3, 40))
dims = st.lists(st.one_of(st.integers(-3, 6), st.sampled_from([0, 2 ** 40, 10 ** 9])), max_size=6) | \
    st.sampled_from([[1] * 40, [1] * 70])


GOOD_PNG = small_png(5, 3)
BOMB = png_bomb(12_000, 12_000)
images = st.one_of(st.sampled_from([GOOD_PNG, GOOD_PNG[:40], BOMB, b"", b"\x89PNG\r\n\x1a\n"]),
                   st.builds(small_png, st.integers(1, 12), st.integers(1, 12)), st.binary(max_size=64))


@st.composite
def tensor_proto(draw) -> anf_ir_pb2.TensorProto:
    """Half of them hold as many values as their dims say, the others anything."""
    if draw(st.booleans()):
        shape = draw(st.lists(st.integers(0, 5), max_size=4))
        proto = anf_ir_pb2.TensorProto(dims=shape, data_type=draw(dtype))
        proto.float_data.extend(draw(st.lists(st.floats(width=32, allow_nan=True), min_size=math.prod(shape),
                                              max_size=math.prod(shape))))
        return proto
    proto = anf_ir_pb2.TensorProto(dims=draw(dims), data_type=draw(dtype))
    kind = draw(st.sampled_from(["float_data", "double_data", "int32_data", "int64_data", "uint64_data", None]))
    if kind is not None:
        count = draw(st.one_of(st.integers(0, 12), st.just(math.prod(d for d in proto.dims if 0 <= d < 10))))
        values = {"float_data": st.floats(width=32, allow_nan=True), "double_data": anyfloat,
                  "int32_data": int32, "int64_data": int64, "uint64_data": st.integers(0, 2 ** 64 - 1)}[kind]
        getattr(proto, kind).extend(draw(st.lists(values, min_size=min(count, 64), max_size=min(count, 64))))
    return proto


@st.composite
def histogram(draw) -> summary_pb2.Summary.Histogram:
    proto = summary_pb2.Summary.Histogram(min=draw(anyfloat), max=draw(anyfloat), nan_count=draw(int64),
                                          pos_inf_count=draw(int64), neg_inf_count=draw(int64),
                                          sum=draw(anyfloat), count=draw(int64))
    for left, width, count in draw(st.lists(st.tuples(anyfloat, anyfloat, int64), max_size=95)):
        proto.buckets.add(left=left, width=width, count=count)
    return proto


@st.composite
def landscape_proto(draw) -> summary_pb2.LossLandscape:
    proto = summary_pb2.LossLandscape()
    for point in (proto.landscape, proto.loss_path.points, proto.convergence_point):
        if draw(st.booleans()):
            point.x.CopyFrom(draw(tensor_proto()))
            point.y.CopyFrom(draw(tensor_proto()))
            point.z.CopyFrom(draw(tensor_proto()))
    proto.loss_path.intervals.extend(draw(st.lists(int32, max_size=4)))
    proto.metadata.decomposition = draw(text)
    proto.metadata.unit = draw(st.sampled_from(["step", "epoch", "", "parsec"]))
    proto.metadata.step_per_epoch = draw(int32)
    return proto


@st.composite
def summary_value(draw) -> bytes:
    """One Summary.Value: a raw tag, then a value of any kind, or random bytes."""
    kind = draw(st.sampled_from(["scalar", "scalar", "histogram", "histogram", "tensor", "tensor", "tensor",
                                 "image", "image", "landscape", "raw", "none"]))
    value = summary_pb2.Summary.Value()
    if kind == "scalar":
        value.scalar_value = draw(st.floats(width=32, allow_nan=True, allow_infinity=True))
    elif kind == "histogram":
        value.histogram.CopyFrom(draw(histogram()))
    elif kind == "tensor":
        value.tensor.CopyFrom(draw(tensor_proto()))
    elif kind == "image":
        value.image.CopyFrom(summary_pb2.Summary.Image(height=draw(int32), width=draw(int32),
                                                       colorspace=draw(int32), encoded_image=draw(images)))
    elif kind == "landscape":
        value.loss_landscape.CopyFrom(draw(landscape_proto()))
    body = value.SerializeToString()
    # A message field given twice merges: an unknown dtype, metadata that is not UTF-8.
    if kind == "tensor" and draw(st.booleans()):
        body += field(8, varint(2 << 3) + varint(draw(st.sampled_from([43, 99, 2 ** 31 - 1]))))
    if kind == "landscape" and draw(st.booleans()):
        body += field(10, field(3, field(1, draw(raw_text)) + field(2, draw(raw_text))))
    if kind == "raw":  # a field number of the oneof with bytes that may not parse as its type
        body = field(draw(st.sampled_from([3, 4, 8, 9, 10, 11])), draw(st.binary(max_size=24)))
    tag = draw(st.one_of(st.sampled_from([b"loss", b"acc", b"w"]), raw_text))
    return field(1, tag) + body


@st.composite
def type_proto(draw, depth: int = 0) -> anf_ir_pb2.TypeProto:
    proto = anf_ir_pb2.TypeProto(data_type=draw(dtype))
    if draw(st.booleans()):
        proto.tensor_type.elem_type = draw(dtype)
        for size in draw(st.lists(int64, max_size=4)):
            proto.tensor_type.shape.dim.add(size=size)
    elif depth < 3 and draw(st.booleans()):
        for _ in range(draw(st.integers(0, 2))):
            proto.sequence_type.elem_types.add().CopyFrom(draw(type_proto(depth + 1)))
    return proto


names = st.one_of(st.sampled_from(["1", "2", "3", "x", "Default/a", "Default/a/b", "w"]), graph_text)


@st.composite
def graph_proto(draw) -> anf_ir_pb2.GraphProto:
    graph = anf_ir_pb2.GraphProto(name=draw(text))
    for _ in range(draw(st.integers(0, 12))):
        node = graph.node.add(name=draw(names), op_type=draw(st.sampled_from(["Conv2D", "Load", "MakeTuple",
                                                                             "UpdateState", "ReLU", ""]) | graph_text),
                              scope=draw(st.sampled_from(["", "Default", "Default/a", "/".join(["d"] * 120)])
                                         | graph_text),
                              full_name=draw(st.sampled_from(["", "Default/a/ReLU-op1", "x[:scalar]"]) | names),
                              instance_name=draw(graph_text), output_i=draw(st.integers(0, 2 ** 64 - 1)))
        for src in draw(st.lists(names, max_size=4)):
            node.input.add(name=src, type=draw(st.sampled_from([0, 1])))
        if draw(st.booleans()):
            node.output_type.CopyFrom(draw(type_proto()))
        for _ in range(draw(st.integers(0, 2))):
            attr = node.attribute.add(name=draw(st.sampled_from(["input_is_dynamic_shape", "pad"]) | text))
            attr.value.dtype = draw(dtype)
            attr.value.bool_val = draw(st.booleans())
            attr.value.str_val = draw(text)
    if draw(st.integers(0, 9)) == 0:
        graph.node.add(name=draw(st.sampled_from(["<bad>", 'q"uote'])), op_type="ReLU")
    for _ in range(draw(st.integers(0, 3))):
        param = graph.parameters.add(name=draw(names))
        if draw(st.booleans()):
            param.type.CopyFrom(draw(type_proto()))
    for _ in range(draw(st.integers(0, 2))):
        const = graph.const_vals.add(key=draw(names))
        const.value.dtype = draw(dtype)
        if draw(st.booleans()):
            const.value.tensor_val.CopyFrom(draw(tensor_proto()))
    return graph


@st.composite
def raw_graph(draw) -> bytes:
    """A GraphProto's bytes, with nodes, parameters and consts whose names may be invalid UTF-8
    (appended fields of a repeated message add elements)."""
    out = draw(graph_proto()).SerializeToString()
    for _ in range(draw(st.integers(0, 3))):
        node = (field(2, draw(raw_text)) + field(3, draw(raw_text)) + field(4, draw(raw_text))
                + field(8, draw(raw_text)) + field(1, field(1, draw(raw_text))))
        out += field(1, node)
    if draw(st.booleans()):
        out += field(3, field(1, draw(raw_text))) + field(5, field(1, draw(raw_text)))
    return out


@st.composite
def event(draw) -> bytes:
    """An Event: a summary of several values, a graph, a version, random bytes as its payload
    field, or a summary with random bytes after its values."""
    head = summary_pb2.Event(wall_time=draw(anyfloat), step=draw(int64)).SerializeToString()
    kind = draw(st.sampled_from(["summary"] * 6 + ["graph", "graph", "version", "raw", "garbage"]))
    if kind == "summary":
        values = draw(st.lists(summary_value(), min_size=1, max_size=5))
        body = b"".join(field(1, v) for v in values)
        if draw(st.integers(0, 9)) == 0:
            body += draw(st.binary(max_size=16))
        return head + field(5, body)
    if kind == "graph":
        return head + field(4, draw(raw_graph()))
    if kind == "version":
        return head + field(3, draw(raw_text))
    if kind == "raw":
        return head + field(draw(st.sampled_from([4, 5, 6])), draw(st.binary(max_size=40)))
    return draw(st.binary(max_size=40))


@st.composite
def dataset_graph(draw, depth: int = 0) -> lineage_pb2.DatasetGraph:
    proto = lineage_pb2.DatasetGraph()
    param = proto.parameter
    param.mapStr[draw(text)] = draw(text)
    param.mapInt[draw(st.sampled_from(["batch_size", "count"]) | text)] = draw(int32)
    param.mapDouble[draw(text)] = draw(anyfloat)
    if draw(st.booleans()):
        op = proto.operations.add()
        op.operationParam.mapStr["tensor_op_name"] = draw(text)
        op.size.extend(draw(st.lists(int32, max_size=3)))
        op.weights.extend(draw(st.lists(st.floats(width=32, allow_nan=True), max_size=3)))
    if depth < 4:
        for _ in range(draw(st.integers(0, 2))):
            proto.children.add().CopyFrom(draw(dataset_graph(depth + 1)))
    return proto


@st.composite
def lineage_event(draw) -> bytes:
    event = lineage_pb2.LineageEvent(wall_time=draw(anyfloat))
    kind = draw(st.sampled_from(["train", "eval", "dataset", "user", "raw", "raw_strings"]))
    if kind == "train":
        hyper = event.train_lineage.hyper_parameters
        hyper.learning_rate = draw(st.floats(width=32, allow_nan=True))
        hyper.epoch, hyper.batch_size = draw(int32), draw(int32)
        hyper.optimizer = draw(text)
        event.train_lineage.algorithm.network = draw(text)
        event.train_lineage.algorithm.loss = draw(st.floats(width=32, allow_nan=True))
        event.train_lineage.train_dataset.train_dataset_path = draw(text)
        event.train_lineage.model.size = draw(int64)
    elif kind == "eval":
        event.evaluation_lineage.metric = draw(st.one_of(
            text, st.sampled_from(['{"acc": 0.5}', '{"acc": [1, {"x": null}]}', '{"a": ' + "[" * 3000 + "]" * 3000 + "}",
                                   '{"acc": NaN}', '[1, 2]', '{"acc": "[/]"}', "{"])))
    elif kind == "dataset":
        event.dataset_graph.CopyFrom(draw(dataset_graph()))
    elif kind == "user":
        info = event.user_defined_info.user_info.add()
        info.map_str[draw(text)] = draw(text)
        info.map_double[draw(text)] = draw(anyfloat)
        info.map_int32[draw(text)] = draw(int32)
    elif kind == "raw":
        return event.SerializeToString() + field(draw(st.integers(1, 9)), draw(st.binary(max_size=30)))
    else:  # strings that may be invalid UTF-8, in each kind of event (a oneof: the last one counts)
        entry = field(1, draw(raw_text)) + field(2, draw(raw_text))
        where = draw(st.sampled_from([
            field(6, field(1, field(1, draw(raw_text))) + field(3, field(1, draw(raw_text)))),  # optimizer, network
            field(7, field(2, draw(raw_text))),  # metric
            field(10, field(1, field(4, entry))),  # user_info map_str
            field(9, field(2, field(1, entry))),  # dataset graph parameter mapStr
        ]))
        return event.SerializeToString() + where
    return event.SerializeToString()


@st.composite
def logdir_contents(draw) -> dict:
    return {
        "events": draw(st.lists(event(), min_size=1, max_size=8)),
        "lineage": draw(st.lists(lineage_event(), max_size=4)),
        "pb": draw(st.one_of(st.none(), st.binary(max_size=60), raw_graph().map(lambda g: field(4, g)))),
        "slices": draw(st.lists(st.sampled_from(["[]", "[:]", "[0]", "[0,:]", "[:,:,:]", "[-1:1:-1, ::2]", "[9]", "x"])
                                | text, max_size=3)),
        "search": draw(st.sampled_from(["", "/", "relu", "op", "a"]) | text),
    }


def write_logdir(root: Path, contents: dict) -> None:
    job = root / "job"
    job.mkdir(parents=True)
    version = summary_pb2.Event(wall_time=1.0, version="MindSpore.Event:1").SerializeToString()
    (job / SUMMARY).write_bytes(b"".join(frame(payload) for payload in [version, *contents["events"]]))
    if contents["lineage"]:
        (job / "events.summary.1700000000.host_lineage").write_bytes(b"".join(map(frame, contents["lineage"])))
    if contents["pb"] is not None:
        (job / "graph.pb").write_bytes(contents["pb"])


# -- every query of the screens and the exporter ---------------------------------------------

def documented(call, *args, **kwargs):
    """`call(...)`, or None when it raised one of the exceptions the queries document."""
    try:
        return call(*args, **kwargs)
    except DOCUMENTED:
        return None


def query_everything(cache: SummaryCache, contents: dict, out: Path) -> None:
    for view in cache.jobs.values():
        assert isinstance(view.state, str)
        for plugin in ("scalar", "histogram", "tensor", "image", "loss_landscape"):
            assert all(isinstance(tag, str) for tag in view.tag_names(plugin))
        for tag in view.tag_names("scalar"):
            series = scalars.scalar_series(view, tag)
            smoothed = scalars.smooth(series.values, 0.6)
            for axis in scalars.X_AXES:
                x = scalars.x_values(series, axis, view.first_wall_time)
                scalars.decimate(x, smoothed, 40)
                if len(x):
                    scalars.value_at(series, float(x[len(x) // 2]), axis, view.first_wall_time)
            scalars.threshold_mask(series.values, 0.5, None)
        for tag in view.tag_names("histogram"):
            steps = documented(histogram_steps, cache, view, tag)
            if steps:
                ridge = rebin(steps)
                for mode in ("offset", "overlay"):
                    draw_ridgeline(ridge, RidgeOptions(mode=mode, cursor_step=0, cursor_bin=0), 60, 12)
        for tag in view.tag_names("tensor"):
            series = view.series("tensor", tag)
            for i in range(len(series)):
                tensor = documented(tensors.tensor_at, cache, view, tag, i)
                if tensor is None or tensor.array is None:
                    continue
                tensors.statistics(tensor.array)
                for text in [tensors.default_slice(tensor.dims), *contents["slices"]]:
                    found = documented(tensors.apply_slice, tensor.array, text)
                    if found is not None:
                        for value in np.asarray(found.data).ravel()[:20].tolist():
                            tensors.format_value(value, 7)
            steps = documented(tensors.tensor_histogram_steps, cache, view, tag)
            if steps:
                draw_ridgeline(rebin(steps), RidgeOptions(), 60, 12)
        for tag in view.tag_names("image"):
            series = view.series("image", tag)
            for i in range(len(series)):
                image = documented(cache.payloads.image, view.locator(series, i))
                if image is not None:
                    documented(decode_image, image.png)
        entries = landscape.list_landscapes(cache.payloads, view)
        shown = [documented(landscape.landscape_at, cache.payloads, view, e.tag, e.index) for e in entries if not e.error]
        landscape.shared_range([ls for ls in shown if ls is not None])
        landscape.lineage_metadata(view)
        for source in view.graphs.values():
            proto = documented(load_graph, source)
            for optimized in (False, True):
                graph = proto is not None and documented(build_graph, proto, optimized)
                if graph:
                    scope_sizes(graph)
                    for node in graph.children(""):
                        graph.children(node.name)
                    for node in list(graph)[:30]:
                        node.to_dict()
                        graph.ancestors(node.name)
                        graph.expand_path(node.name)
                    graph.search(contents["search"])
                    graph.search_tree(contents["search"])
        if view.lineage is not None:
            dataset_pipeline(view.lineage.dataset_graph)
    rows = lineage.model_rows(dict(cache.jobs))
    for column in lineage.columns(rows):
        lineage.sort_rows(rows, column)
    lineage.default_columns(rows)
    lineage.customized(rows)
    for all_steps in (False, True):
        export_snapshot(cache, out / f"export-{all_steps}", all_steps=all_steps)


@FUZZ
@given(logdir_contents())
def test_any_content_loads_and_every_query_answers(contents):
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp) / "logs"
        write_logdir(root, contents)
        tracemalloc.start()
        try:
            cache = SummaryCache(str(root))
            cache.reload()
            assert list(cache.jobs) == ["./job"] and cache.job("./job").loaded
            query_everything(cache, contents, Path(tmp))
            peak = tracemalloc.get_traced_memory()[1]
        finally:
            tracemalloc.stop()
    assert peak < PEAK_BYTES, f"{peak / 2 ** 20:.0f} MiB at the peak"



def test_every_hand_made_hostile_kind_exports_with_exit_status_0(tmp_path, capsys):
    """The hostile LOGDIR of hostile_logs.py (every kind above, special files included) through
    the command line: exit status 0, a warning per damaged job at most, never "internal error"."""
    from hostile_logs import write_hostile_logdir

    from tui_insight.cli import main

    root = tmp_path / "logs"
    root.mkdir()
    jobs = write_hostile_logdir(root)
    for extra in ([], ["--all-steps"]):
        out = tmp_path / f"out{len(extra)}"
        assert main([str(root), "--export", "csv", "--out", str(out), *extra]) == 0
        err = capsys.readouterr().err
        assert "internal error" not in err and "Traceback" not in err
        exported = (out / "jobs.csv").read_text()
        assert all(tid in exported for tid in jobs.values())
