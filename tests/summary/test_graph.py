"""Graph model (compat §5, §4.7): differential tests against MindInsight's answers, and unit
tests on graphs written with our writer."""
from __future__ import annotations

import os
from pathlib import Path

import pytest

from tui_insight.proto import anf_ir_pb2
from tui_insight.summary.formats.graph import GraphError, load_graph
from tui_insight.summary.formats.graph_build import build_graph
from tui_insight.summary.queries.dataset_pipeline import dataset_pipeline, dataset_tree
from tui_insight.summary.formats.writer import SummaryWriter, make_graph, write_pb_graph
from tui_insight.summary.store.cache import SummaryCache
from tui_insight.summary.store.job_view import GraphSource

GRAPH_JOBS = ["./lenet_lr0.01", "./lenet_lr0.1", "./resnetish_bs32"]
MODES = [(False, "graph", ""), (True, "optimized_graph", " (optimized)")]


# -- differential: what MindInsight 2.3.1 served --------------------------------------------------

@pytest.fixture(scope="module")
def fixture_graphs(fixture_cache):
    """{(train_id, optimized): (tag, Graph)} for the jobs that have a graph."""
    out = {}
    for tid in GRAPH_JOBS:
        view = fixture_cache.job(tid)
        assert len(view.graphs) == 1
        tag, source = next(iter(view.graphs.items()))
        proto = load_graph(source)
        for optimized, _, _ in MODES:
            out[(tid, optimized)] = (tag, build_graph(proto, optimized=optimized))
    return out


def _truth_graph(truth, tid, optimized, tag):
    for opt, plugin, suffix in MODES:
        if opt == optimized:
            return truth["jobs"][tid][plugin][tag + suffix]
    raise AssertionError


@pytest.mark.parametrize("optimized", [False, True], ids=["normal", "optimized"])
@pytest.mark.parametrize("tid", GRAPH_JOBS)
def test_top_level_matches_mindinsight(fixture_graphs, truth, tid, optimized):
    tag, graph = fixture_graphs[(tid, optimized)]
    expected = _truth_graph(truth, tid, optimized, tag)
    top = graph.children("")
    assert [[n.name, n.type, n.subnode_count] for n in top] == expected["top_level_names"]
    # Whole node dicts: attrs, inherited input/output edges with shapes and types, proxies.
    assert [n.to_dict() for n in top] == expected["top_level"]["nodes"]


@pytest.mark.parametrize("optimized", [False, True], ids=["normal", "optimized"])
@pytest.mark.parametrize("tid", GRAPH_JOBS)
def test_first_scope_matches_mindinsight(fixture_graphs, truth, tid, optimized):
    tag, graph = fixture_graphs[(tid, optimized)]
    expected = _truth_graph(truth, tid, optimized, tag)["first_scope"]
    children = graph.children(expected["name"])
    assert [n.to_dict() for n in children] == expected["nodes"]["nodes"]
    assert graph.node(expected["name"]).subnode_count == len(children)


@pytest.mark.parametrize("optimized", [False, True], ids=["normal", "optimized"])
@pytest.mark.parametrize("tid", GRAPH_JOBS)
def test_search_matches_mindinsight(fixture_graphs, truth, tid, optimized):
    tag, graph = fixture_graphs[(tid, optimized)]
    searches = _truth_graph(truth, tid, optimized, tag)["search"]
    assert set(searches) == {"conv", "Default"}
    for pattern, answer in searches.items():
        assert graph.search_tree(pattern) == answer["nodes"], pattern
        # Every leaf of MindInsight's tree is one of our matches.
        leaves = set()

        def walk(items):
            for item in items:
                if item["nodes"]:
                    walk(item["nodes"])
                else:
                    leaves.add(item["name"])
        walk(answer["nodes"])
        assert leaves <= set(graph.search(pattern))


@pytest.mark.parametrize("optimized", [False, True], ids=["normal", "optimized"])
@pytest.mark.parametrize("tid", GRAPH_JOBS)
def test_single_node_matches_mindinsight(fixture_graphs, truth, tid, optimized):
    tag, graph = fixture_graphs[(tid, optimized)]
    expected = _truth_graph(truth, tid, optimized, tag)["single_node"]
    levels = graph.expand_path(expected["name"])
    # Rebuild MindInsight's nested {nodes, scope_name, children} answer from our levels.
    answer: dict = {}
    cursor = answer
    for scope, nodes in levels:
        cursor.update({"nodes": [n.to_dict() for n in nodes], "scope_name": scope, "children": {}})
        cursor = cursor["children"]
    assert answer == expected["result"]


def test_graph_tags_and_jobs_without_graph(fixture_cache, truth):
    for tid, job in truth["jobs"].items():
        ours = set(fixture_cache.job(tid).graphs)
        assert ours == set(job["graph"])
        assert {t + " (optimized)" for t in ours} == set(job["optimized_graph"])


# -- differential: dataset pipelines ---------------------------------------------------------------

def _truth_order(node):
    """Independent walk of MindInsight's dict: op types, sources first."""
    out = []
    for child in node.get("children", []):
        out.extend(_truth_order(child))
    out.append(node.get("op_type"))
    return out


def test_dataset_pipeline_matches_mindinsight(fixture_cache, truth):
    checked = 0
    for tid, job in truth["jobs"].items():
        view = fixture_cache.job(tid)
        ours = dataset_pipeline(view.lineage.dataset_graph if view.lineage else {})
        expected = job["dataset_graph"].get("dataset_graph", {})
        if not expected:
            assert ours == []
            continue
        checked += 1
        assert job["dataset_graph"]["summary_dir"] == tid
        assert [op.op_type for op in ours] == _truth_order(expected)
        assert ours[-1].depth == 0 and ours[0].depth == len(ours) - 1  # a chain here
        # Each level's parameters, operations and sampler as MindInsight served them.
        level, truth_levels = expected, []
        while level:
            truth_levels.append(level)
            level = level["children"][0] if level.get("children") else None
        for op, want in zip(reversed(ours), truth_levels):
            assert op.params == {k: v for k, v in want.items()
                                 if k not in ("op_type", "children", "operations", "sampler")}
            assert list(op.operations) == want.get("operations", [])
            assert op.sampler == want.get("sampler")
    assert checked == 3


def test_dataset_tree_branches_and_empty():
    graph = {"op_type": "Zip", "children": [
        {"op_type": "Batch", "batch_size": 2, "children": [
            {"op_type": "ImageFolderDataset", "sampler": {"sampler_name": "RandomSampler"}, "children": []}]},
        {"op_type": "GeneratorDataset", "children": []}]}
    tree = dataset_tree(graph)
    assert tree is not None and tree.op_type == "Zip" and len(tree.children) == 2
    assert [(op.op_type, op.depth) for op in dataset_pipeline(graph)] == [
        ("ImageFolderDataset", 2), ("Batch", 1), ("GeneratorDataset", 1), ("Zip", 0)]
    assert dataset_pipeline(graph)[1].params == {"batch_size": 2}
    assert dataset_pipeline(graph)[0].sampler == {"sampler_name": "RandomSampler"}
    assert dataset_pipeline({}) == [] and dataset_tree(None) is None


def test_a_dataset_graph_with_parts_of_the_wrong_type_keeps_the_rest():
    """Lineage files are anyone's: the content fuzz wrote `operations` as a number."""
    graph = {"op_type": "Batch", "operations": 1.5, "sampler": "x", "children": [
        {"op_type": "Map", "operations": [{"tensor_op_name": "Decode"}, 3], "children": 2.0}, "not a dict"]}
    assert [(op.op_type, op.operations, op.sampler) for op in dataset_pipeline(graph)] == [
        ("Map", ({"tensor_op_name": "Decode"},), None), ("Batch", (), None)]
    assert dataset_tree(7.0) is None  # type: ignore[arg-type]


# -- loading ------------------------------------------------------------------------------------

def _small_graph():
    return make_graph(
        [{"name": "1", "op_type": "Conv2D", "scope": "Default/net/conv", "inputs": ["x", "w"],
          "full_name": "Default/net/conv/Conv2D-op1", "shape": [1, 4, 8, 8]},
         {"name": "2", "op_type": "ReLU", "scope": "Default/net", "inputs": ["1"],
          "full_name": "Default/net/ReLU-op2", "shape": [1, 4, 8, 8]}],
        [{"name": "x", "shape": [1, 3, 8, 8]}, {"name": "w", "shape": [4, 3, 3, 3]}])


def test_load_from_summary_and_pb(tmp_path):
    with SummaryWriter(tmp_path / "run", timestamp=1_700_000_000) as writer:
        writer.add_graph(_small_graph())
        writer.add_scalar("loss", 1.0)
        writer.record(1)
    write_pb_graph(tmp_path / "run" / "model.pb", _small_graph())
    cache = SummaryCache(str(tmp_path))
    cache.reload()
    view = cache.job("./run")
    kinds = {source.kind for source in view.graphs.values()}
    assert kinds == {"summary", "pb"}
    for source in view.graphs.values():
        graph = build_graph(load_graph(source))
        assert graph.node("Default/net/ReLU-op2").inputs["Default/net/conv/Conv2D-op1"].shape == [[1, 4, 8, 8]]


def test_load_errors_are_graph_errors(tmp_path):
    pb = tmp_path / "bad.pb"
    pb.write_bytes(b"\xff\xff\xff\xff not a model")
    with pytest.raises(GraphError, match="bad.pb"):
        load_graph(GraphSource("bad.pb", "pb", str(pb), 0, 0, 0.0))
    with pytest.raises(GraphError, match="cannot read"):
        load_graph(GraphSource("gone.pb", "pb", str(tmp_path / "gone.pb"), 0, 0, 0.0))
    with SummaryWriter(tmp_path, timestamp=1_700_000_000) as writer:
        writer.add_graph(_small_graph())
    path = writer.path
    size = os.path.getsize(path)
    source = GraphSource("t", "summary", str(path), 0, 0, 0.0)
    with pytest.raises(GraphError):
        load_graph(source)  # offset 0 is the version event, not a graph
    os.truncate(path, size - 10)
    with pytest.raises(GraphError):
        load_graph(GraphSource("t", "summary", str(path), size // 2, 0, 0.0))


@pytest.mark.parametrize("bad", ["a<b", "a>b", 'say "x"'])
def test_forbidden_characters_reject_the_graph(bad):
    proto = make_graph([{"name": "1", "op_type": "Add", "full_name": f"Default/{bad}"}])
    with pytest.raises(GraphError, match="MindInsight rejects"):
        build_graph(proto)
    params = make_graph([{"name": "1", "op_type": "Add", "inputs": [bad]}], [{"name": bad}])
    with pytest.raises(GraphError):
        build_graph(params)


# -- build rules (§5.1) ------------------------------------------------------------------------------

def test_names_ids_and_summary_ops():
    proto = make_graph([
        {"name": "7", "op_type": "Add", "scope": "Default/s"},  # no full_name: <scope>/<type>-op<id>
        {"name": "Default/s/op8", "op_type": "Mul", "scope": "Default/s", "inputs": ["7"]},
        {"name": "9", "op_type": "ScalarSummary", "scope": "Default", "full_name": "Default/loss[:Scalar]",
         "inputs": ["Default/s/op8"]},
    ])
    graph = build_graph(proto)
    assert "Default/s/Add-op7" in graph and "Default/s/Mul-op8" in graph
    assert "Default/ScalarSummary-op9" in graph  # summary ops get the plain name
    assert list(graph.node("Default/ScalarSummary-op9").inputs) == ["Default/s/Mul-op8"]
    assert list(graph.node("Default/s/Add-op7").outputs) == ["Default/s/Mul-op8"]


def test_edges_types_shapes_and_unknown_inputs():
    proto = make_graph([
        {"name": "1", "op_type": "Cast", "scope": "Default", "shape": [2, 3]},
        {"name": "2", "op_type": "Depend", "scope": "Default", "inputs": ["1", ("nowhere",), ("1",)]},
    ])
    graph = build_graph(proto)
    depend = graph.node("Default/Depend-op2")
    assert list(depend.inputs) == ["Default/Cast-op1"]  # the unknown input is dropped
    edge = depend.inputs["Default/Cast-op1"]
    assert edge.edge_type == "control"  # the later duplicate wins, as in MindInsight's dict
    assert edge.shape == [[2, 3]] and edge.data_type == "DT_TENSOR[DT_FLOAT32]"
    assert edge.to_dict() == {"shape": [[2, 3]], "edge_type": "control", "independent_layout": False,
                              "data_type": "DT_TENSOR[DT_FLOAT32]"}
    assert graph.node("Default/Cast-op1").output_data_type == "DT_TENSOR[DT_FLOAT32]"


def test_attributes_text_format_and_size_limit():
    proto = make_graph([{"name": "1", "op_type": "Conv2D", "scope": "Default",
                         "attrs": {"group": 1, "pad_mode": "same", "big": "x" * 2000}}])
    node = build_graph(proto).node("Default/Conv2D-op1")
    assert node.attr == {"group": "dtype: DT_INT64\nint_val: 1\n",
                         "pad_mode": "dtype: DT_STRING\nstr_val: \"same\"\n"}  # "big" is over 1024 bytes


def test_parameters_are_copied_into_each_consumer_scope():
    proto = make_graph(
        [{"name": "1", "op_type": "MatMul", "scope": "Default/fc1", "inputs": ["w"]},
         {"name": "2", "op_type": "MatMul", "scope": "Default/fc2", "inputs": ["w", "1"]}],
        [{"name": "w", "shape": [4, 4]}, {"name": "unused", "shape": [1]}])
    graph = build_graph(proto)
    assert "w" not in graph and "unused" not in graph
    for scope in ("Default/fc1", "Default/fc2"):
        copy = graph.node(f"{scope}/w")
        assert copy.type == "Parameter" and copy.scope == scope
        assert copy.attr == {"type": "DT_TENSOR[DT_FLOAT32]", "shape": "[[4, 4]]"}
        assert list(copy.outputs) == [f"{scope}/MatMul-op{scope[-1]}"]
    # The copy replaces the parameter at the end of the inputs, as in MindInsight.
    assert list(graph.node("Default/fc2/MatMul-op2").inputs) == ["Default/fc1/MatMul-op1", "Default/fc2/w"]


def test_consts_are_copied_and_big_values_summarised():
    proto = make_graph([{"name": "1", "op_type": "Add", "scope": "Default/a", "inputs": ["c1", "c2"]}])
    small = proto.const_vals.add(key="c1")
    small.value.dtype, small.value.int_val = anf_ir_pb2.DT_INT64, 3
    big = proto.const_vals.add(key="c2")
    big.value.dtype = anf_ir_pb2.DT_TENSOR
    big.value.tensor_val.dims.extend([400])
    big.value.tensor_val.float_data.extend([0.5] * 400)
    graph = build_graph(proto)
    assert graph.node("Default/a/c1").attr == {"c1": "dtype: DT_INT64\nint_val: 3\n"}
    assert graph.node("Default/a/c2").attr == {"c2": "dtype: DT_TENSOR"}
    assert graph.node("Default/a/c2").output_shape == ((400,),)
    # Consts never show in a scope's edges.
    assert graph.node("Default").inputs == {} and graph.node("Default/a").subnode_count == 3


def _siblings(count, op_type="ReLU", scope="Default/blk"):
    nodes = [{"name": "0", "op_type": "Input", "scope": "Default", "shape": [1]}]
    nodes += [{"name": str(i), "op_type": op_type, "scope": scope, "inputs": ["0"], "shape": [1]}
              for i in range(1, count + 1)]
    return make_graph(nodes)


def test_aggregation_of_five_same_type_siblings():
    graph = build_graph(_siblings(5))
    group = graph.node("Default/blk/ReLU[5]_0")
    assert group.type == "aggregation_scope" and group.subnode_count == 5
    assert [n.name for n in graph.children("Default/blk/ReLU[5]_0")] == [
        f"Default/blk/ReLU[5]_0/ReLU-op{i}" for i in range(1, 6)]
    assert set(group.inputs) == {"Default/Input-op0"}  # inherited from its members
    assert set(graph.node("Default/Input-op0").outputs) == {
        f"Default/blk/ReLU[5]_0/ReLU-op{i}" for i in range(1, 6)}
    assert [n.name for n in graph.children("Default/blk")] == ["Default/blk/ReLU[5]_0"]
    # Four are not enough; the optimized view needs ten.
    assert "Default/blk/ReLU[4]_0" not in build_graph(_siblings(4))
    assert "Default/blk/ReLU[9]_0" not in build_graph(_siblings(9), optimized=True)
    assert "Default/blk/ReLU[10]_0" in build_graph(_siblings(10), optimized=True)


def test_parameter_aggregation_is_laid_out_apart():
    params = [{"name": f"p{i}", "shape": [i + 1]} for i in range(5)]
    proto = make_graph([{"name": "1", "op_type": "AddN", "scope": "Default/m",
                         "inputs": [f"p{i}" for i in range(5)]}], params)
    graph = build_graph(proto)
    group = graph.node("Default/m/Parameter[5]_0")
    assert group.independent_layout and group.proxy_outputs == {"Default/m/AddN-op1": "data"}
    add = graph.node("Default/m/AddN-op1")
    assert add.proxy_inputs == {"Default/m/Parameter[5]_0": "data"}
    assert all(edge.independent_layout for edge in add.inputs.values())
    member = graph.node("Default/m/Parameter[5]_0/p3")
    assert member.independent_layout and member.proxy_outputs == {"Default/m/AddN-op1": "data"}
    assert member.outputs["Default/m/AddN-op1"].shape == [[4]]


def test_name_scopes_inherit_only_edges_that_leave_them():
    proto = make_graph([
        {"name": "1", "op_type": "Conv2D", "scope": "Default/a/b", "shape": [1, 2]},
        {"name": "2", "op_type": "ReLU", "scope": "Default/a/b", "inputs": ["1"], "shape": [1, 2]},
        {"name": "3", "op_type": "Mul", "scope": "Default/c", "inputs": ["2"], "shape": [1, 2]},
        {"name": "4", "op_type": "Grad", "scope": "Gradients/a", "inputs": ["3", ("1",)], "shape": [1, 2]},
    ])
    graph = build_graph(proto)
    assert [(n.name, n.type, n.subnode_count) for n in graph.children("")] == [
        ("Default", "name_scope", 2), ("Gradients", "name_scope", 1)]
    scope_ab = graph.node("Default/a/b")
    assert scope_ab.scope == "Default/a" and scope_ab.inputs == {}
    assert set(scope_ab.outputs) == {"Default/c/Mul-op3", "Gradients/a/Grad-op4"}
    assert scope_ab.outputs["Gradients/a/Grad-op4"].edge_type == "control"
    assert set(graph.node("Default").outputs) == {"Gradients/a/Grad-op4"}
    assert set(graph.node("Gradients").inputs) == {"Default/c/Mul-op3", "Default/a/b/Conv2D-op1"}
    assert graph.ancestors("Default/a/b/ReLU-op2") == ["Default", "Default/a", "Default/a/b"]
    assert graph.ancestors("Default") == []


def test_node_named_like_a_scope_is_renamed():
    proto = make_graph([
        {"name": "1", "op_type": "Add", "scope": "Default", "full_name": "Default/blk"},
        {"name": "2", "op_type": "Mul", "scope": "Default/blk", "inputs": ["1"]},
    ])
    graph = build_graph(proto)
    assert graph.node("Default/blk").type == "name_scope"
    assert graph.node("Default/(blk)").type == "Add"
    assert list(graph.node("Default/blk/Mul-op2").inputs) == ["Default/(blk)"]


def test_dynamic_shapes():
    proto = make_graph([
        {"name": "1", "op_type": "Shape", "scope": "Default", "shape": [-1, 3]},
        {"name": "2", "op_type": "Add", "scope": "Default", "inputs": ["1"], "shape": [4]},
        {"name": "3", "op_type": "Mul", "scope": "Default", "shape": [4]},
    ])
    proto.node[2].attribute.add(name="output_is_dynamic_shape").value.bool_val = True
    graph = build_graph(proto)
    assert graph.node("Default/Shape-op1").is_dynamic_shape_node
    assert graph.node("Default/Add-op2").is_dynamic_shape_node
    assert graph.node("Default/Mul-op3").is_dynamic_shape_node
    assert not build_graph(_small_graph()).node("Default/net/ReLU-op2").is_dynamic_shape_node


def test_dynamic_flag_sticks_when_the_edge_is_bypassed():
    # MindInsight flags a node when a dynamic edge is added; the optimized view then removes
    # the Load, but the flag stays.
    proto = make_graph([
        {"name": "1", "op_type": "Cast", "scope": "Default", "shape": [4]},
        {"name": "2", "op_type": "Load", "scope": "Default", "inputs": ["1"], "shape": [-1]},
        {"name": "3", "op_type": "Add", "scope": "Default", "inputs": ["2"], "shape": [4]},
    ])
    graph = build_graph(proto, optimized=True)
    add = graph.node("Default/Add-op3")
    assert list(add.inputs) == ["Default/Cast-op1"] and add.inputs["Default/Cast-op1"].shape == [[4]]
    assert add.is_dynamic_shape_node
    assert not graph.node("Default/Cast-op1").is_dynamic_shape_node


def test_unknown_names_raise_key_error_with_message():
    graph = build_graph(_small_graph())
    with pytest.raises(KeyError, match="no node 'Nope'"):
        graph.node("Nope")
    with pytest.raises(KeyError):
        graph.children("Nope")
    with pytest.raises(KeyError):
        graph.ancestors("Nope")


# -- search (§5.3) ------------------------------------------------------------------------------------

def test_search_rules():
    graph = build_graph(_small_graph())
    assert graph.search("CONV") == ["Default/net/conv/Conv2D-op1", "Default/net/conv"]
    assert graph.search("net") == ["Default/net"]  # "net" inside a scope is not the last segment
    assert graph.search("relu-op2") == ["Default/net/ReLU-op2"]
    assert graph.search("") == [] and graph.search("/") == []
    assert graph.search("t/conv") == ["Default/net/conv"]


def test_search_tree_pages():
    graph = build_graph(_siblings(3, op_type="Conv"))
    tree = graph.search_tree("conv", offset=1, limit=2)
    assert tree == [{"name": "Default", "type": "name_scope", "is_dynamic_shape_node": False, "nodes": [
        {"name": "Default/blk", "type": "name_scope", "is_dynamic_shape_node": False, "nodes": [
            {"name": "Default/blk/Conv-op3", "type": "Conv", "is_dynamic_shape_node": False, "nodes": []}]}]}]


# -- optimized view (§5.2) -----------------------------------------------------------------------------

def test_optimized_view_skips_and_rewires():
    proto = make_graph([
        {"name": "1", "op_type": "Load", "scope": "Default", "full_name": "Default/Load-op1", "inputs": ["w"]},
        {"name": "2", "op_type": "MatMul", "scope": "Default/fc", "full_name": "Default/fc/MatMul-op2",
         "inputs": ["1"], "shape": [2, 2]},
        {"name": "3", "op_type": "MatMulGrad", "scope": "Gradients/fc", "full_name": "Gradients/fc/MatMulGrad-op3",
         "inputs": ["2"]},
        {"name": "4", "op_type": "ApplyMomentum", "scope": "Default/optimizer-Momentum",
         "full_name": "Default/optimizer-Momentum/ApplyMomentum-op4", "inputs": ["w"]},
        {"name": "5", "op_type": "Lonely", "scope": "Default", "full_name": "Default/Lonely-op5"},
    ], [{"name": "w", "shape": [2, 2]}])
    normal = build_graph(proto)
    assert "Gradients" in normal and "Default/Load-op1" in normal and "Default/Lonely-op5" in normal
    graph = build_graph(proto, optimized=True)
    assert graph.optimized
    assert [n.name for n in graph.children("")] == ["Default"]
    assert "Default/Load-op1" not in graph and "Default/Lonely-op5" not in graph
    assert "Default/optimizer-Momentum" not in graph
    assert list(graph.node("Default/fc/MatMul-op2").inputs) == ["Default/fc/w"]  # straight from the parameter


def test_optimized_view_collapses_single_type_scopes():
    nodes = [{"name": "0", "op_type": "Input", "scope": "Default", "shape": [1]}]
    nodes += [{"name": str(i), "op_type": "Dense", "scope": "Default/net/fc-Dense", "inputs": ["0"], "shape": [1]}
              for i in (1, 2)]
    graph = build_graph(make_graph(nodes), optimized=True)
    assert "Default/net/fc-Dense" not in graph
    assert {n.name for n in graph.children("Default/net")} == {"Default/net/Dense-op1", "Default/net/Dense-op2"}
    assert "Default/net/fc-Dense" in build_graph(make_graph(nodes))


# -- speed -------------------------------------------------------------------------------------------

def _large_graph(blocks):
    nodes, params = [], []
    types = ["Conv2D", "BatchNorm", "ReLU", "Add", "MatMul", "Cast", "Reshape"]
    i = 0
    for b in range(blocks):
        for layer in range(5):
            scope = f"Default/network/block{b}-Block/layer{layer}-Layer"
            params.append({"name": f"block{b}.layer{layer}.weight", "shape": [16, 16, 3, 3]})
            for k in range(10):
                op = types[(k + layer) % len(types)]
                inputs = [str(i - 1)] if i else []
                if k == 0:
                    inputs.append(f"block{b}.layer{layer}.weight")
                if i > 20 and k % 3 == 0:
                    inputs.append(str(i - 7))
                nodes.append({"name": str(i), "op_type": op, "scope": scope, "full_name": f"{scope}/{op}-op{i}",
                              "inputs": inputs, "shape": [32, 16, 8, 8], "attrs": {"format": "NCHW"}})
                i += 1
    return make_graph(nodes, params)


def test_large_graph():
    """A 50,000-operator graph builds and answers; its speed is measured by bench/bench_queries.py."""
    proto = _large_graph(1000)  # 50,000 operators, 5,000 parameters
    assert len(proto.node) == 50_000
    graph = build_graph(proto)
    hits = graph.search("conv")
    top = [n.to_dict() for n in graph.children("")]
    assert len(hits) == 6000 and top[0]["subnode_count"] == 1


def test_graph_file_in_fixture_is_decodable(fixture_cache):
    for tid in GRAPH_JOBS:
        for source in fixture_cache.job(tid).graphs.values():
            assert Path(source.path).exists()
            assert len(load_graph(source).node) > 50


# -- hostile graphs (issue 15) ------------------------------------------------------------------

def test_a_graph_of_100000_nested_scopes_builds_and_answers_every_query(tmp_path):
    """Node names are full paths, so 10^5 nested scopes would be 10^5 names of up to 10^5 levels:
    the levels past MAX_SCOPE_DEPTH are folded into the last one, which the graph says."""
    import time
    import tracemalloc

    from hostile_logs import write_deep_graph

    from tui_insight.summary.formats.graph_build import FOLDED_SLASH, MAX_SCOPE_DEPTH

    write_deep_graph(tmp_path / "job", depth=100_000)
    cache = SummaryCache(str(tmp_path))
    cache.reload()
    proto = load_graph(next(iter(cache.job("./job").graphs.values())))
    for optimized in (False, True):
        tracemalloc.start()
        started = time.perf_counter()
        try:
            graph = build_graph(proto, optimized=optimized)
            peak = tracemalloc.get_traced_memory()[1]
        finally:
            tracemalloc.stop()
        assert time.perf_counter() - started < 5 and peak < 64 << 20, (optimized, peak)
        assert graph.problems and f"nested past {MAX_SCOPE_DEPTH} scopes" in graph.problems[0]
        assert [n.name for n in graph.children("")][:2] == ["Default", "s0"]
        relu = graph.search("relu")
        assert len(relu) == 1 and relu[0].endswith(f"s99999{FOLDED_SLASH}ReLU-op2")
        chain = graph.ancestors(relu[0]) + relu
        assert len(chain) == MAX_SCOPE_DEPTH and relu[0].count("/") == MAX_SCOPE_DEPTH - 1
        parent = ""
        for name in chain:  # down the chain, one level at a time, as the tree expands it
            assert name in [node.name for node in graph.children(parent)]
            parent = name
        assert len(graph.expand_path(relu[0])) == MAX_SCOPE_DEPTH
        tree = graph.search_tree("relu")
        levels = 0
        while tree:
            levels, tree = levels + 1, tree[0]["nodes"]
        assert levels == MAX_SCOPE_DEPTH
        graph.node(relu[0]).to_dict()
    # the parameter named 10^5 levels deep is folded too, and its copy sits with its user
    weights = [n for n in graph.names if n.endswith("weight")]
    assert len(weights) == 1 and weights[0].count("/") == 2 * MAX_SCOPE_DEPTH - 2
    assert weights[0] in graph.node(graph.search("add-op3")[0]).inputs


def test_operators_in_each_others_scope_do_not_loop():
    graph = build_graph(make_graph([
        {"name": "1", "op_type": "ReLU", "scope": "b", "full_name": "a"},
        {"name": "2", "op_type": "ReLU", "scope": "a", "full_name": "b"},
        {"name": "3", "op_type": "Add", "scope": "Default", "full_name": "Default/Add-op3"},
    ]))
    assert graph.ancestors("a") == ["b"] and graph.ancestors("b") == ["a"]
    assert [n.name for n in graph.children("")] == ["Default"]


def test_names_that_are_not_utf8_are_text():
    """protobuf hands over a string that is not UTF-8 as bytes: every name becomes text, with the
    bytes shown (`\\xff`)."""
    from hostile_logs import field

    node = field(2, b"7") + field(3, b"Re\xffLU") + field(4, b"Default/\xfe") + field(8, b"Default/\xfe/x\xff")
    node += field(1, field(1, b"w\xff")) + field(1, field(1, b"c\xfe"))
    raw = field(1, node) + field(3, field(1, b"w\xff")) + field(5, field(1, b"c\xfe"))
    graph = build_graph(anf_ir_pb2.GraphProto.FromString(raw))
    names = graph.names
    assert all(isinstance(name, str) for name in names)
    assert "Default/\\xfe/x\\xff" in names and "Default/\\xfe/c\\xfe" in names
    op = graph.node("Default/\\xfe/x\\xff")
    assert op.type == "Re\\xffLU" and "Default/\\xfe/w\\xff" in op.inputs
    assert graph.search("x\\xff") == ["Default/\\xfe/x\\xff"]


def test_every_node_of_a_tensorboard_graph_answers_its_details():
    """TensorFlow constants are operators typed `Const`: their attributes and shapes are read
    from the graph's operators, not from MindSpore's const values (which they are not)."""
    tensorboard_logs = Path(__file__).resolve().parents[1] / "fixtures" / "tensorboard"
    cache = SummaryCache(str(tensorboard_logs))
    cache.reload()
    sources = [source for view in cache.jobs.values() for source in cache.job(view.train_id).graphs.values()]
    assert sources
    for source in sources:
        graph = build_graph(load_graph(source))
        consts = [node for node in graph if node.type == "Const"]
        assert consts, "the fixture's TensorFlow graph has constants"
        assert all(isinstance(node.to_dict()["attr"], dict) for node in graph)
