"""Reading TensorBoard event files (issue 12): the fixtures in tests/fixtures/tensorboard/, written
by the real tensorboardX and tensorboard writers (tests/fixtures/make_tensorboard.py), compared
with what those writers were given (tests/fixtures/tensorboard.manifest.json)."""
from __future__ import annotations

import io
import json
from pathlib import Path

import numpy as np
import pytest
from fixture_paths import FIXTURES
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from PIL import Image

from tui_insight.proto import anf_ir_pb2, tb_event_pb2, tb_hparams_pb2
from tui_insight.summary.formats import tensorboard as tb
from tui_insight.summary.formats.graph_build import build_graph
from tui_insight.summary.formats.values import HistogramData, ImageData, TensorData
from tui_insight.summary.store.series import Series

LOGS = FIXTURES / "tensorboard"
MANIFEST = json.loads((FIXTURES / "tensorboard.manifest.json").read_text())


def event_file(job: str) -> Path:
    (path,) = sorted((LOGS / job).glob("*tfevents*"))
    return path


def read(job: str, plugins: tb.TagPlugins | None = None) -> tuple[Path, tb.TBScan]:
    path = event_file(job)
    return path, tb.scan_file(path, plugins)


def values(scan: tb.TBScan, plugin: str, tag: str) -> list[tuple[int, int, tb.RoutedValue]]:
    """(step, record offset, value) of `tag` under `plugin`, in file order."""
    return [(event.step, offset, value) for offset, event in scan.events for value in event.values
            if value.plugin == plugin and value.tag == tag]


def scalars(scan: tb.TBScan, tag: str) -> list[list[float]]:
    return [[event.step, number] for _, event in scan.events for value, number in zip(event.values, event.numbers)
            if value.plugin == "scalar" and value.tag == tag]


def payload(path: Path, offset: int, value: tb.RoutedValue):
    found = tb.value_at(str(path), offset, value.index)
    assert not isinstance(found, tb.Problem), found
    return found


def f32(pairs: list[list[float]]) -> list[list[float]]:
    """simple_value is a float32: what a reader gets back of the numbers written."""
    return [[step, float(np.float32(value))] for step, value in pairs]


def test_tensorboard_files_are_told_by_name():
    assert tb.is_tensorboard_file("events.out.tfevents.1700000000.host")
    assert tb.is_tensorboard_file("events.out.tfevents.1700000000.host.1234.0.v2")
    assert not tb.is_tensorboard_file("events.out.events.summary.1700000000.0.host_MS")
    names = [p.name for p in (LOGS / "restart").glob("*tfevents*")]
    assert sorted(names, key=tb.sort_key) == ["events.out.tfevents.1700000300.fixture",
                                               "events.out.tfevents.1700000400.fixture"]


def test_simple_value_scalars_with_steps_and_wall_times():
    _, scan = read("tensorboardx")
    written = MANIFEST["tensorboardx"]["scalars"]
    for tag in ("loss", "accuracy", "lr"):  # lr carries metadata with a display name and no plugin
        assert scalars(scan, tag) == f32(written[tag]), tag
    walls = [event.wall_time for _, event in scan.events if any(v.tag == "loss" for v in event.values)]
    assert walls == [MANIFEST["t0"] + step for step in range(20)]
    assert scan.bad == 0


def test_add_scalars_writes_one_run_per_key():
    written = MANIFEST["tensorboardx"]["add_scalars"]
    for sub in ("train", "val"):
        _, scan = read(f"tensorboardx/loss_split/{sub}")
        assert scalars(scan, "loss_split") == f32(written[f"loss_split/{sub}"])


def test_tf2_scalar_tensors_are_routed_by_the_plugin_of_their_first_value():
    path, scan = read("tf2")
    assert scalars(scan, "epoch_loss") == f32(MANIFEST["tf2"]["scalars"]["epoch_loss"])
    # The file names the plugin once per tag, as TF2 writes it: the rest is remembered.
    with open(path, "rb") as fh:
        data = fh.read()
    raw = [tb_event_pb2.Event.FromString(p) for _, p in _records(data)]
    with_metadata = [v.tag for e in raw for v in e.summary.value if v.HasField("metadata")]
    assert sorted(with_metadata) == ["dense/kernel", "epoch_loss", "notes", "samples"]
    # Without the memory, the later values are plain tensors.
    forgetful = [tb.read_event(p, tb.TagPlugins()) for _, p in _records(data)]
    later = [v.plugin for e in forgetful[2:] for v in e.values if v.tag == "epoch_loss"]
    assert later == ["tensor"] * 4


def test_tag_plugins_keep_the_first_plugin_per_job():
    plugins = tb.TagPlugins()
    read("tf2", plugins)
    assert plugins.get("epoch_loss") == "scalars"
    assert plugins.get("dense/kernel") == "histograms"
    assert plugins.get("samples") == "images" and plugins.get("notes") == "text"
    assert plugins.get("activations") == ""  # written without metadata: a plain tensor
    assert plugins.plugin("epoch_loss", "text") == "scalars"  # a later, different name is ignored


def _records(data: bytes):
    from tui_insight.summary.formats.framing import ScanReport, scan_records

    yield from scan_records(io.BytesIO(data), 0, len(data), ScanReport())


def _default_tensorflow_edges() -> np.ndarray:
    """TensorFlow's default histogram edges, which tensorboardX uses for bins='tensorflow'."""
    v, positive = 1e-12, []
    while v < 1e20:
        positive.append(v)
        v *= 1.1
    return np.array([-x for x in positive[::-1]] + [0.0] + positive)


def _expected_buckets(data: np.ndarray, bins) -> np.ndarray:
    """TensorBoard's reading of what tensorboardX wrote for np.histogram(data, bins): empty end
    buckets dropped, the first left edge the data's min, the last right edge its max."""
    counts, edges = np.histogram(data, bins=bins)
    filled = np.flatnonzero(counts)
    a, b = filled[0], filled[-1]
    left = np.concatenate(([data.min()], edges[a + 1:b + 1]))
    right = np.concatenate((edges[a + 1:b + 1], [data.max()]))
    return np.column_stack((left, right - left, counts[a:b + 1]))


@pytest.mark.parametrize("tag", ["weights", "bias", "constant"])
def test_histo_buckets_are_tensorboards_reading_of_numpys_histogram(tag):
    path, scan = read("tensorboardx")
    written = MANIFEST["tensorboardx"]["histograms"][tag]
    bins = _default_tensorflow_edges() if written["bins"] == "tensorflow" else written["bins"]
    found = values(scan, "histogram", tag)
    assert [step for step, _, _ in found] == [0, 1, 2]
    for (step, offset, value), data in zip(found, written["values"]):
        data = np.array(data)
        histogram = tb.histogram_data(payload(path, offset, value))
        assert isinstance(histogram, HistogramData) and histogram.problem == ""
        expected = _expected_buckets(data, bins)
        assert histogram.buckets.shape == expected.shape
        np.testing.assert_allclose(histogram.buckets[:, :2], expected[:, :2], rtol=0, atol=1e-12)
        assert histogram.buckets[:, 2].tolist() == expected[:, 2].tolist()
        assert (histogram.min, histogram.max) == (data.min(), data.max())
        if tag == "weights":  # TensorFlow's edges: every bucket between min and max, all kept
            assert len(histogram.buckets) > 600
        if tag == "constant":  # one value written 50 times: one bucket of width 0
            assert histogram.buckets.tolist() == [[0.25, 0.0, 50.0]]


def test_tf2_histogram_tensors_hold_left_right_count_rows():
    path, scan = read("tf2")
    written = MANIFEST["tf2"]["histograms"]["dense/kernel"]
    found = values(scan, "histogram", "dense/kernel")
    assert len(found) == 3
    for (step, offset, value), data in zip(found, written["values"]):
        data = np.array(data)
        histogram = tb.histogram_data(payload(path, offset, value))
        assert len(histogram.buckets) == written["buckets"]
        counts, edges = np.histogram(data, bins=written["buckets"])  # equal buckets over [min, max]
        assert histogram.buckets[:, 2].tolist() == counts.tolist()
        np.testing.assert_allclose(histogram.buckets[:, 0], edges[:-1], rtol=1e-12)
        np.testing.assert_allclose(histogram.buckets[:, 0] + histogram.buckets[:, 1], edges[1:], rtol=1e-12)
        assert (histogram.min, histogram.max) == pytest.approx((data.min(), data.max()))


def test_images_decode_to_the_pixels_written():
    path, scan = read("tensorboardx")
    found = values(scan, "image", "sample")
    assert [step for step, _, _ in found] == [0, 1]
    for (step, offset, value), array in zip(found, MANIFEST["tensorboardx"]["images"]["sample"]):
        image = tb.image_data(payload(path, offset, value))
        assert (image.width, image.height) == (12, 8)
        pixels = np.array(Image.open(io.BytesIO(image.png)))
        assert pixels.tolist() == np.array(array, dtype=np.uint8).transpose(1, 2, 0).tolist()  # CHW as written


def test_images_plugin_tensors_hold_several_samples():
    path, scan = read("tf2")
    written = MANIFEST["tf2"]["images"]["samples"]
    found = values(scan, "image", "samples")
    assert len(found) == 2
    for _, offset, value in found:
        proto = payload(path, offset, value)
        assert tb.image_count(proto) == written["count"]
        first, second = (tb.image_data(proto, k) for k in range(2))
        assert (first.width, first.height) == (written["width"], written["height"])
        assert first.png.startswith(b"\x89PNG") and first.png != second.png
        assert Image.open(io.BytesIO(second.png)).size == (written["width"], written["height"])
        assert isinstance(tb.image_data(proto, 2), tb.Problem)


def test_text():
    path, scan = read("tensorboardx")
    found = values(scan, "text", "notes/text_summary")  # tensorboardX adds the suffix
    assert [tb.text_data(payload(path, o, v)) for _, o, v in found] == MANIFEST["tensorboardx"]["text"]["notes"]
    path, scan = read("tf2")
    found = values(scan, "text", "notes")
    assert [tb.text_data(payload(path, o, v)) for _, o, v in found] == MANIFEST["tf2"]["text"]["notes"]


def test_plain_tensors_keep_shape_and_type():
    path, scan = read("tf2")
    for tag, dtype in (("activations", "DT_FLOAT"), ("half", "DT_HALF")):
        found = values(scan, "tensor", tag)
        assert len(found) == 2
        for k, (_, offset, value) in enumerate(found):
            data = tb.tensor_data(payload(path, offset, value))
            assert isinstance(data, TensorData) and data.dtype == dtype and data.reason == ""
            written = MANIFEST["tf2"]["tensors"][tag]
            expected = np.array(written[k] if tag == "activations" else written)
            assert data.dims == expected.shape
            np.testing.assert_allclose(data.array, expected, rtol=1e-6)


def test_add_hparams_becomes_a_lineage_row():
    path, scan = read("tensorboardx/hparams_run")
    records = [tb.hparams_data(payload(path, o, v)) for _, o, v in
               (item for tag in ("_hparams_/experiment", "_hparams_/session_start_info", "_hparams_/session_end_info")
                for item in values(scan, "hparams", tag))]
    assert [r.kind for r in records] == ["experiment", "session_start", "session_end"]
    assert records[2].status == "success"
    last = {tag: scalars(scan, tag)[-1][1] for tag in ("hparam/accuracy", "hparam/loss")}
    columns = tb.hparams_columns(records, lambda group, tag: last.get(tag) if group == "" else None)
    written = MANIFEST["tensorboardx"]["hparams"]
    assert columns == {**written["hparams"],  # numbers come back as floats (google.protobuf.Value)
                       **{f"metric/{k}": float(np.float32(v)) for k, v in written["metrics"].items()}}


def test_keras_hparams_metrics_live_in_a_group_below_the_session():
    path, scan = read("keras_hparams")
    (experiment,) = [tb.hparams_data(payload(path, o, v)) for _, o, v in values(scan, "hparams", "_hparams_/experiment")]
    path, scan = read("keras_hparams/trial-1")
    (start,) = [tb.hparams_data(payload(path, o, v)) for _, o, v in
                values(scan, "hparams", "_hparams_/session_start_info")]
    _, validation = read("keras_hparams/trial-1/validation")
    accuracy = scalars(validation, "epoch_accuracy")
    assert [v for _, v in accuracy] == [float(np.float32(v)) for v in MANIFEST["keras_hparams"]["validation/epoch_accuracy"]]
    columns = tb.hparams_columns([experiment, start], lambda group, tag: accuracy[-1][1] if
                                 (group, tag) == ("validation", "epoch_accuracy") else None)
    assert columns == {"units": 32.0, "optimizer": "sgd", "metric/validation/epoch_accuracy": accuracy[-1][1]}


def test_graph_def_becomes_the_graph_modules_input():
    path, scan = read("tensorboardx")
    (offset,) = [offset for offset, event in scan.events if event.graph]
    proto = tb.graph_at(str(path), offset)
    graph = build_graph(proto)
    written = MANIFEST["tensorboardx"]["graph"]
    assert {node["name"]: node["op"] for node in written} == {
        n.name: n.type for n in graph if n.type not in ("name_scope", "aggregation_scope")}
    assert [n.name for n in graph.children("")] == ["input_1", "Identity", "sequential", "loss"]
    mean = graph.node("loss/value")
    assert mean.inputs["sequential/dense/Relu"].edge_type == "control"  # "^sequential/dense/Relu"
    assert mean.inputs["sequential/dense_1/Softmax"].edge_type == "data"
    assert "sequential/split" in graph.node("sequential/dense_1/MatMul").inputs  # "sequential/split:1"


def test_other_plugins_are_listed_with_their_names():
    _, scan = read("tensorboardx")
    others = {v.tag: v.written for _, e in scan.events for v in e.values if v.plugin == "other"}
    # add_graph writes step statistics beside the GraphDef: a profile of the run graph, no graph
    profile = {v.tag: v.data for _, e in scan.events for v in e.values if v.written == "graph_tagged_run_metadata"}
    assert profile == {"profiler": False}
    assert {tag: written for tag, written in others.items() if tag not in profile} == MANIFEST["tensorboardx"]["other"]


def test_a_damaged_file_keeps_every_readable_record_and_counts_the_rest():
    path, scan = read("damaged")
    written = MANIFEST["damaged"]
    steps = [step for step, _ in scalars(scan, "loss")]
    lost = {written["bad_payload_crc_step"], written["bad_header_step"]}
    assert steps == [s for s in range(written["steps_written"]) if s not in lost]
    assert scan.report.bad_records == 2  # one bad payload CRC, one bad header CRC
    assert len(scan.problems) == written["not_an_event"] and "not a TensorBoard event" in str(scan.problems[0])
    assert scan.report.tail_bytes == written["tail_bytes"]
    assert scan.bad == 3


def _offer(series: Series, step: int, value: float, fid: int, ranks: np.ndarray) -> Series:
    batch = {"step": np.array([step]), "wall_time": np.array([0.0]), "fid": np.array([fid], dtype=np.int32),
             "value": np.array([value])}
    return series.merge(batch, ranks)


def _tensorboard_rule(events: list[tb.RoutedEvent]) -> dict[str, list[list[float]]]:
    """TensorBoard's: a step not after a tag's last drops that tag's kept steps >= it (the data
    server's reservoir preemption); a SessionLog START drops every tag's steps >= its step
    (EventAccumulator's purge, what `purge_step` writes)."""
    kept: dict[str, list[list[float]]] = {}
    for event in events:
        if event.restart:
            for tag in kept:
                kept[tag] = [p for p in kept[tag] if p[0] < event.step]
        for value, number in zip(event.values, event.numbers):
            rows = [p for p in kept.get(value.tag, []) if p[0] < event.step]
            kept[value.tag] = rows + [[event.step, number]]
    return kept


def test_restart_rules_ours_and_tensorboards():
    """Compat §3.8 (ours, MindInsight's) against TensorBoard's on a torch-style restart: a second
    file resumes at step 5 with `purge_step=5` and rewrites `loss` only.

    They agree on the tag written again: steps 0-4 from the first file, 5-7 from the second.
    They differ on the tag not written again: TensorBoard purges `acc` 5-9 at the SessionLog
    START; ours keeps them (our rule drops a tag's later steps only when that tag is rewritten)."""
    files = sorted((LOGS / "restart").glob("*tfevents*"), key=lambda p: tb.sort_key(p.name))
    plugins = tb.TagPlugins()
    events = [(fid, event) for fid, path in enumerate(files) for _, event in tb.scan_file(path, plugins).events]
    assert [e.step for _, e in events if e.restart] == [MANIFEST["restart"]["purge_step"]]
    ranks = np.arange(len(files))
    ours: dict[str, Series] = {}
    for fid, event in events:
        for value, number in zip(event.values, event.numbers):
            series = ours.get(value.tag) or Series.empty(1000, ("value",))
            ours[value.tag] = _offer(series, event.step, number, fid, ranks)
    theirs = _tensorboard_rule([e for _, e in events])
    first, second = MANIFEST["restart"]["first"], MANIFEST["restart"]["second"]
    loss = first["loss"][:5] + second["loss"]
    assert np.column_stack((ours["loss"].steps, ours["loss"].values)).tolist() == loss
    assert theirs["loss"] == loss
    assert np.column_stack((ours["acc"].steps, ours["acc"].values)).tolist() == f32(first["acc"])
    assert theirs["acc"] == f32(first["acc"][:5])


# -- bad input: a Problem, never an exception ---------------------------------------------------

def _value(**fields) -> tb_event_pb2.Summary.Value:
    return tb_event_pb2.Summary.Value(tag="t", **fields)


def _tensor(dtype, dims, **fields) -> tb_event_pb2.TensorProto:
    shape = tb_event_pb2.TensorShapeProto(dim=[tb_event_pb2.TensorShapeProto.Dim(size=d) for d in dims])
    return tb_event_pb2.TensorProto(dtype=dtype, tensor_shape=shape, **fields)


def test_bad_records_and_values_are_problems():
    assert isinstance(tb.read_event(b"\xff\xff\xff", tb.TagPlugins()), tb.Problem)
    scalars_plugin = tb_event_pb2.SummaryMetadata(plugin_data={"plugin_name": "scalars"})
    event = tb_event_pb2.Event(step=3, summary={"value": [
        _value(tensor=_tensor(tb_event_pb2.DT_FLOAT, [3], float_val=[1, 2, 3]), metadata=scalars_plugin),
        tb_event_pb2.Summary.Value(tag="ok", simple_value=1.5)]})
    read = tb.read_event(event.SerializeToString(), tb.TagPlugins())
    assert [v.tag for v in read.values] == ["ok"] and "holds 3 numbers" in str(read.problems[0])
    broken = [
        tb.histogram_data(_value(simple_value=1.0)),
        tb.histogram_data(_value(tensor=_tensor(tb_event_pb2.DT_DOUBLE, [2, 2], double_val=[1, 2, 3, 4]))),
        tb.tensor_data(_value(tensor=_tensor(tb_event_pb2.DT_FLOAT, [2], tensor_content=b"12345"))),
        tb.tensor_data(_value(tensor=_tensor(tb_event_pb2.DT_COMPLEX64, [1], scomplex_val=[1, 2]))),
        tb.tensor_data(_value(tensor=tb_event_pb2.TensorProto(dtype=1, tensor_shape={"unknown_rank": True}))),
        tb.text_data(_value(tensor=_tensor(tb_event_pb2.DT_FLOAT, [1], float_val=[1]))),
        tb.image_data(_value(image={"encoded_image_string": b"not an image"})),
        tb.image_data(_value(tensor=_tensor(tb_event_pb2.DT_STRING, [2], string_val=[b"1", b"1"]))),
        tb.hparams_data(_value(metadata={"plugin_data": {"plugin_name": "hparams", "content": b"\xff\xff"}})),
        tb.hparams_data(_value(metadata={"plugin_data": {"plugin_name": "hparams", "content": b""}})),
        tb.graph_proto(b"\xff\xff\xff"),
        tb.value_at(str(event_file("damaged")), 1, 0),
        tb.graph_at(str(event_file("damaged")), 0),
    ]
    assert all(isinstance(p, tb.Problem) and str(p) for p in broken), broken


def test_broken_histograms_keep_what_they_can_and_say_what_they_dropped():
    histo = tb_event_pb2.HistogramProto(min=-1, max=3, bucket_limit=[0, 1, 2, 3, 4],
                                        bucket=[0, 2, float("nan"), 5])
    data = tb.histogram_data(_value(histo=histo))
    # The empty first bucket goes; the next starts at min; bucket 3 is (2, 3], the last, ending at max.
    assert data.buckets.tolist() == [[-1.0, 2.0, 2.0], [2.0, 1.0, 5.0]]
    assert "bucket limits for 4 buckets" in data.problem and "NaN count" in data.problem
    rows = _tensor(tb_event_pb2.DT_DOUBLE, [2, 3], double_val=[0, 1, 4, 2, 1, -3])  # a negative width
    data = tb.histogram_data(_value(tensor=rows))
    assert data.buckets.tolist() == [[0.0, 1.0, 4.0]] and "negative width" in data.problem


def test_tensor_shapes_are_checked_before_numpy_sees_them():
    huge = tb.tensor_data(_value(tensor=_tensor(tb_event_pb2.DT_FLOAT, [10 ** 6, 10 ** 6], float_val=[1.0])))
    assert huge.array is None and "over the limit" in huge.reason
    negative = tb.tensor_data(_value(tensor=_tensor(tb_event_pb2.DT_FLOAT, [-2, -3], float_val=[1.0])))
    assert negative.array is None and "negative" in negative.reason
    too_many = tb.tensor_data(_value(tensor=_tensor(tb_event_pb2.DT_INT32, [2], int_val=[1, 2, 3])))
    assert too_many.array is None and "holds 3 values" in too_many.reason
    # TensorFlow's compact form: fewer numbers than elements repeat the last one.
    compact = tb.tensor_data(_value(tensor=_tensor(tb_event_pb2.DT_INT32, [2, 2], int_val=[7, 9])))
    assert compact.array.tolist() == [[7, 9], [9, 9]]
    bf16 = tb.tensor_data(_value(tensor=_tensor(tb_event_pb2.DT_BFLOAT16, [2], half_val=[0x3FC0, 0xC000])))
    assert bf16.array.tolist() == [1.5, -2.0] and bf16.dtype == "DT_BFLOAT16"


def test_tensors_past_the_element_limit_are_not_copied(monkeypatch):
    from tui_insight.summary import limits

    monkeypatch.setattr(limits, "MAX_TENSOR_ELEMENTS", 4)
    five = _value(tensor=_tensor(tb_event_pb2.DT_FLOAT, [5], float_val=[1, 2, 3, 4, 5]))
    assert "over the limit" in str(tb.tensor_data(five))  # more numbers than the limit: a Problem
    shaped = tb.tensor_data(_value(tensor=_tensor(tb_event_pb2.DT_FLOAT, [5], float_val=[1])))
    assert shaped.array is None and "over the limit" in shaped.reason  # shape and type kept


def test_gif_images_become_png(monkeypatch):
    frames = [Image.new("RGB", (5, 4), color) for color in ("red", "blue")]
    out = io.BytesIO()
    frames[0].save(out, format="GIF", save_all=True, append_images=frames[1:])
    image = tb.image_data(_value(image={"encoded_image_string": out.getvalue(), "colorspace": 3}))
    assert image.png.startswith(b"\x89PNG") and (image.width, image.height) == (5, 4)
    assert Image.open(io.BytesIO(image.png)).convert("RGB").getpixel((0, 0)) == (255, 0, 0)  # the first frame
    monkeypatch.setattr(tb, "MAX_CONVERTED_PIXELS", 19)
    too_big = tb.image_data(_value(image={"encoded_image_string": out.getvalue()}))
    assert "5x4 image: over 19 pixels" in str(too_big)


def _fixture_payloads() -> list[bytes]:
    out = []
    for path in sorted(LOGS.rglob("*tfevents*")):
        out.extend(payload for _, payload in _records(path.read_bytes()))
    return out


PAYLOADS = _fixture_payloads()
DECODERS = ((tb.histogram_data, HistogramData), (tb.image_data, ImageData), (tb.tensor_data, TensorData),
            (tb.text_data, str), (tb.text_cells, tuple), (tb.hparams_data, tb.HParams))


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.sampled_from(PAYLOADS), st.lists(st.tuples(st.integers(0, 10 ** 6), st.integers(1, 255)), max_size=4))
def test_damaged_payloads_never_raise(payload, flips):
    """Every value of a fixture event with bytes flipped goes through every decoder without an
    exception: each returns its result or a Problem."""
    data = bytearray(payload)
    for at, mask in flips:
        data[at % len(data)] ^= mask
    event = tb.read_event(bytes(data), tb.TagPlugins())
    if isinstance(event, tb.Problem):
        return
    try:
        proto = tb_event_pb2.Event.FromString(bytes(data))
    except Exception:
        return
    for value in proto.summary.value:
        for decode, kind in DECODERS:
            assert isinstance(decode(value), (kind, tb.Problem))
    if proto.WhichOneof("what") == "graph_def":
        assert isinstance(tb.graph_proto(proto.graph_def), (anf_ir_pb2.GraphProto, tb.Problem))


def test_hparams_values_of_every_kind():
    start = tb_hparams_pb2.HParamsPluginData(session_start_info={"group_name": "g", "start_time_secs": 5.0})
    hparams = start.session_start_info.hparams
    hparams.add(key=b"n").value.number_value = 2
    hparams.add(key=b"s").value.string_value = "x"
    hparams.add(key=b"b").value.bool_value = False
    hparams.add(key=b"l").value.list_value.values.add().number_value = 1
    hparams.add(key=b"none").value.null_value = 0
    hparams.add(key=b"\xffbad").value.number_value = 1  # a key that is not UTF-8
    record = tb.hparams_data(_value(metadata={"plugin_data": {"plugin_name": "hparams",
                                                               "content": start.SerializeToString()}}))
    assert record.hparams == {"n": 2.0, "s": "x", "b": False, "l": "[1.0]", "none": None, "\\xffbad": 1.0}
    assert (record.group, record.time) == ("g", 5.0)
