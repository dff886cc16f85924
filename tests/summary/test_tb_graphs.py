"""TensorBoard's graphs beside the run graph (issue 26): traced op graphs, the Keras conceptual
graph and tagged run metadata, read from a run written with tensorboard's own protos and
checked against what TensorBoard's graph plugin makes of them (`graph_util.merge_graph_defs`,
`keras_util.keras_model_to_graph_def`)."""
from __future__ import annotations

import json

import pytest
from tb_graph_logs import KERAS_MODEL, PARTITION, WALL, graph_def, traced, write_graph_kinds
from tensorboard.compat.proto import event_pb2
from tensorboard.plugins.graph import graph_util, keras_util
from tensorboard.summary.writer.event_file_writer import EventFileWriter

from tui_insight.summary.formats import tb_graphs
from tui_insight.summary.formats.graph import GraphError, load_graph
from tui_insight.summary.formats.graph_build import build_graph
from tui_insight.summary.store.cache import SummaryCache


@pytest.fixture(scope="module")
def run_view(tmp_path_factory):
    root = tmp_path_factory.mktemp("graph-kinds")
    write_graph_kinds(root / "run")
    cache = SummaryCache(str(root))
    cache.reload()
    return cache.job("./run")


def leaves(graph) -> dict[str, set[str]]:
    """Each operation of a built graph (not a scope) -> the names of its inputs."""
    return {node.name: set(node.inputs) for node in graph if not node.is_scope}


def tensorboards(graph_def) -> dict[str, set[str]]:
    """TensorBoard's GraphDef as the same mapping: inputs without output index or control mark.
    (TensorBoard's merge prefixes a control input `^y` as `graph_2/^y`, which names no node; ours
    writes `^graph_2/y`, the control edge kept: the mark is dropped wherever it stands.)"""
    return {node.name: {name.replace("^", "").split(":")[0] for name in node.input} for node in graph_def.node}


def test_each_graph_is_listed_beside_the_run_graph_and_a_profile_is_counted(run_view):
    kinds = {tag: source.kind for tag, source in run_view.graphs.items()}
    assert kinds == {"f_trace": "op graph", "keras": "keras", "partitions": "run metadata"}
    assert [k.kind for k in run_view.not_shown.kinds] == ["graph_tagged_run_metadata"]
    assert run_view.not_shown.kinds[0].examples == ("step1",)
    assert run_view.tag_names("scalar") == ["loss"]


def test_a_traced_op_graph_is_tensorboards_merge_of_its_functions(run_view):
    graph = build_graph(load_graph(run_view.graphs["f_trace"]))
    merged = graph_util.merge_graph_defs([f.pre_optimization_graph for f in traced().function_graphs])
    assert leaves(graph) == tensorboards(merged)
    assert {n.name for n in graph.children("")} == {"graph_1", "graph_2"}


def test_the_keras_graph_is_tensorboards_graph_of_layers(run_view):
    graph = build_graph(load_graph(run_view.graphs["keras"]))
    theirs = keras_util.keras_model_to_graph_def(KERAS_MODEL)
    assert leaves(graph) == tensorboards(theirs)
    types = {node.name: node.type for node in graph if not node.is_scope}
    assert types["classifier/head/logits"] == "Dense"  # the layer's Keras class
    assert {node.name: node.attr["keras_class"].s.decode() for node in theirs.node} == types


def test_tagged_run_metadata_shows_its_partition_graphs(run_view):
    graph = build_graph(load_graph(run_view.graphs["partitions"]))
    assert leaves(graph) == tensorboards(PARTITION)


@pytest.mark.parametrize("config", [
    b"{not json", b"[]", json.dumps({"config": {"layers": [{"class_name": "Dense"}]}}).encode(),
    json.dumps({"class_name": "Functional", "config": {"name": "m", "layers": [], "input_layers": [["a", 0, 0]],
                                                          "output_layers": []}}).encode(),
])
def test_a_broken_keras_config_is_a_problem_not_an_exception(config):
    found = tb_graphs.keras_graph(config)
    assert isinstance(found, tb_graphs.Problem) and "Keras model config cannot be read" in str(found)


def test_a_damaged_run_metadata_says_why():
    assert "cannot be decoded" in str(tb_graphs.run_metadata_graph(b"\xff\xff", tagged=False))
    assert "holds no graph" in str(tb_graphs.run_metadata_graph(b"", tagged=False))


def test_a_graph_value_gone_from_its_record_is_a_graph_error(run_view):
    source = run_view.graphs["keras"]
    moved = type(source)(**{**source.__dict__, "index": 5})
    with pytest.raises(GraphError, match="no such value"):
        load_graph(moved)


def test_the_run_graph_stays_beside_the_other_graphs(tmp_path):
    write_graph_kinds(tmp_path / "run")
    writer = EventFileWriter(str(tmp_path / "run"))  # a second event file: the run's GraphDef
    run_graph = graph_def([("input", "Placeholder", []), ("net/relu", "Relu", ["input"])])
    writer.add_event(event_pb2.Event(step=0, wall_time=WALL + 10, graph_def=run_graph.SerializeToString()))
    writer.close()
    cache = SummaryCache(str(tmp_path))
    cache.reload()
    graphs = cache.job("./run").graphs
    kinds = sorted(source.kind for source in graphs.values())
    assert kinds == ["keras", "op graph", "run metadata", "tensorboard"]
    (run_tag,) = [tag for tag, source in graphs.items() if source.kind == "tensorboard"]
    assert leaves(build_graph(load_graph(graphs[run_tag]))) == {"input": set(), "net/relu": {"input"}}
    keras = build_graph(load_graph(graphs["keras"]))
    assert sorted(leaves(keras)) == ["classifier/head/logits", "classifier/head/probabilities",
                                     "classifier/hidden", "classifier/pixels"]
