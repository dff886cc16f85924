"""Graph view (`5`): scope tree, node details, search, optimized view, graph picker, dataset
pipeline, messages, live updates. Expected answers come from MindInsight's truth file (fixture
jobs) or from the graphs the tests write themselves.

Most Pilot tests host the view alone in a small app (fast, and independent of the other views);
the snapshot tests and the help/palette test run it inside the real app.
"""
from __future__ import annotations

import asyncio
import gc
import os
from pathlib import Path
from typing import Any

import pytest
from rich.text import Text
from textual.app import App, ComposeResult
from textual.widgets import Footer, Input, OptionList, Static
from uihelp import MINDSPORE_LOGS, make_app, open_help, run_pilot, wait_for, wait_for_view

from tui_insight.summary import gc_policy
from tui_insight.summary.formats.graph import NAME_SCOPE, load_graph
from tui_insight.summary.formats.graph_build import build_graph
from tui_insight.summary.queries.dataset_pipeline import dataset_pipeline
from tui_insight.summary.formats.writer import LineageWriter, SummaryWriter, make_graph, write_pb_graph
from tui_insight.summary.store.cache import SummaryCache
from tui_insight.ui.app import InsightApp
from tui_insight.ui.screens.help import collect_bindings
from tui_insight.ui.views.graph import GraphPicker, GraphView
from tui_insight.ui.presenters.graph import scope_sizes
from tui_insight.ui.widgets.graph_tree import CHUNK, Branch, GraphTree, More, graph_label, pipeline_flow
from tui_insight.ui.widgets.node_detail import graph_node_rows, pipeline_rows

LENET = "./lenet_lr0.01"
GRAPH_JOBS = ["./lenet_lr0.01", "./lenet_lr0.1", "./resnetish_bs32"]
T0 = 1_700_000_000


# -- helpers ----------------------------------------------------------------------------------------

class Host(App):
    """The graph view alone, as the dashboard builds it."""

    CSS_PATH = InsightApp.CSS_PATH

    def __init__(self, cache: SummaryCache, train_ids: tuple[str, ...], saved: dict | None = None,
                 focus: bool = True):
        super().__init__()
        self.cache = cache
        self.train_ids = train_ids
        self.saved = saved
        self.focus = focus

    def compose(self) -> ComposeResult:
        view = GraphView(self.cache, self.train_ids, id="view-graph", saved=self.saved)
        yield view
        yield Footer()

    def on_mount(self) -> None:
        if self.focus:
            self.call_after_refresh(self.query_one(GraphView).focus_view)


def settled(view: GraphView) -> bool:
    """The view shows what it was asked for: a built graph, a message, or the pipeline."""
    state = view.state
    if state.mode == "pipeline" or state.graph is None:
        return True
    return view.shown_key == state.key and not view.loader.pending()


def detail_of(view: GraphView, name: str) -> bool:
    """The detail pane shows `name` fully (a scope's rows come from a worker)."""
    graph = view.graph_tree.graph
    return graph is not None and view.body.detail.subject == (id(graph), name)


def run_view(cache: SummaryCache, train_ids, body, size=(120, 36), **host: Any) -> Any:
    async def main():
        app = Host(cache, tuple(train_ids), **host)
        async with app.run_test(size=size) as pilot:
            view = app.query_one(GraphView)
            assert await wait_for(pilot, lambda: settled(view))
            await pilot.pause()
            return await body(pilot, view)

    return asyncio.run(main())


def loaded(path: Path) -> SummaryCache:
    cache = SummaryCache(str(path))
    cache.reload()
    return cache


def root_names(tree: GraphTree) -> list[str]:
    return [node.data for node in tree.root.children]


def detail_text(view: GraphView) -> str:
    return "\n".join(row.text.plain for row in view.body.detail.rows)


def on_screen(widget) -> str:
    """The lines a widget draws, as the terminal shows them."""
    return "\n".join(widget.render_line(y).text for y in range(widget.size.height))


def small_graph(name: str = "small", extra: int = 0):
    """Scopes, a parameter, six Conv2D siblings (an aggregation), a control edge, a gradient scope."""
    body = "Default/net-Net/body"
    nodes = [{"name": "1", "op_type": "Conv2D", "scope": f"{body}/stem", "full_name": f"{body}/stem/Conv2D-op1",
              "inputs": ["w0"], "shape": [4, 8, 16, 16], "attrs": {"pad_mode": "same", "group": 1}}]
    for i in range(6):
        nid = str(10 + i)
        nodes.append({"name": nid, "op_type": "Conv2D", "scope": f"{body}/convs",
                      "full_name": f"{body}/convs/Conv2D-op{nid}", "inputs": ["1"], "shape": [4, 8, 16, 16]})
    nodes.append({"name": "20", "op_type": "ReLU", "scope": body, "full_name": f"{body}/ReLU-op20",
                  "inputs": ["10", ("15",)], "shape": [4, 8, 16, 16]})
    nodes.append({"name": "30", "op_type": "Conv2DBackpropFilter", "scope": "Gradients/Default/net-Net/body/stem",
                  "full_name": "Gradients/Default/net-Net/body/stem/Conv2DBackpropFilter-op30", "inputs": ["20"],
                  "shape": [8, 3, 3, 3]})
    for i in range(extra):
        nid = str(100 + i)
        nodes.append({"name": nid, "op_type": "Add", "scope": body, "full_name": f"{body}/Extra{i}-op{nid}",
                      "inputs": ["20"], "shape": [1]})
    return make_graph(nodes, [{"name": "w0", "shape": [8, 3, 3, 3]}], name=name)


def wide_graph(count: int):
    """One scope holding `count` operators of distinct types (so none are aggregated)."""
    nodes = [{"name": str(i), "op_type": f"Op{i}", "scope": "Default/wide",
              "full_name": f"Default/wide/Op{i}-op{i}", "shape": [1]} for i in range(count)]
    return make_graph(nodes, name="wide")


def write_job(root: Path, name: str, graph=None, pb: dict[str, Any] | None = None,
              dataset_graph: dict | None = None) -> Path:
    job = root / name
    with SummaryWriter(job, timestamp=T0, wall_time=float(T0)) as writer:
        if graph is not None:
            writer.add_graph(graph, wall_time=float(T0))
        writer.add_scalar("loss", 1.0)
        writer.record(1, wall_time=T0 + 1.0)
    for file_name, proto in (pb or {}).items():
        if isinstance(proto, bytes):
            (job / file_name).write_bytes(proto)
        else:
            write_pb_graph(job / file_name, proto)
    if dataset_graph is not None:
        with LineageWriter(job, timestamp=T0) as lineage:
            lineage.write_dataset_graph(dataset_graph)
    return job


def truth_graph(truth, tid: str, optimized: bool = False) -> dict:
    tags = truth["jobs"][tid]["optimized_graph" if optimized else "graph"]
    assert len(tags) == 1
    return next(iter(tags.values()))


# -- pure parts -------------------------------------------------------------------------------------

def test_scope_sizes_count_every_node_below_each_scope():
    graph = build_graph(small_graph(extra=3))
    expected: dict[str, int] = {}
    for name in graph.names:
        if graph.node(name).is_scope:
            continue
        for scope in graph.ancestors(name):
            expected[scope] = expected.get(scope, 0) + 1
    sizes = scope_sizes(graph)
    for name in graph.names:
        if graph.node(name).is_scope:
            assert sizes.get(name, 0) == expected.get(name, 0), name
    # 7 Conv2D + ReLU + 3 extra + the copy of w0 by its one user under Default; the gradient op elsewhere
    assert sizes["Default"] == 12
    assert sizes["Gradients"] == 1


def test_tree_keeps_one_line_labels_and_splits_others():
    graph = build_graph(small_graph())
    tree = GraphTree()
    label = graph_label(graph.node("Default"), 3)
    assert tree.process_label(label) is label  # no copy: labels of big scopes are made by the thousand
    assert tree.process_label(Text("two\nlines")).plain == "two"  # Tree's own rule for anything else
    assert tree.process_label("[b]markup[/b]").plain == "markup"


def test_labels_show_counts_types_and_aggregations():
    graph = build_graph(small_graph())
    sizes = scope_sizes(graph)
    convs = [n for n in graph.children("Default/net-Net/body/convs") if n.type == "aggregation_scope"]
    assert len(convs) == 1
    label = graph_label(convs[0], sizes.get(convs[0].name, 0))
    assert label.plain.startswith("Conv2D[6]")  # MindInsight's name: Conv2D[6]_<i>
    assert label.plain == convs[0].name.rsplit("/", 1)[-1]
    assert graph_label(graph.node("Default"), sizes["Default"]).plain == f"Default ({sizes['Default']})"
    param = next(n for n in graph.children("Default/net-Net/body/stem") if n.type == "Parameter")
    assert graph_label(param, 0).plain == "w0  Parameter"
    relu = graph.node("Default/net-Net/body/ReLU-op20")
    assert graph_label(relu, 0).plain == "ReLU-op20"  # the type is already in the name


def test_detail_rows_list_inputs_and_outputs_with_shape_type_and_kind():
    graph = build_graph(small_graph())
    relu = graph.node("Default/net-Net/body/ReLU-op20")
    rows = graph_node_rows(graph, relu, scope_sizes(graph))
    text = "\n".join(row.text.plain for row in rows)
    assert rows[0].text.plain == relu.name
    assert "type      ReLU" in text
    assert "output    [4, 8, 16, 16]  DT_TENSOR[DT_FLOAT32]" in text
    targets = {row.target: row.text.plain for row in rows if row.target}
    assert set(targets) == set(relu.inputs) | set(relu.outputs)
    for name, edge in relu.inputs.items():
        assert edge.edge_type in targets[name]
        assert "[4, 8, 16, 16]" in targets[name] and "DT_TENSOR[DT_FLOAT32]" in targets[name]
    kinds = sorted(edge.edge_type for edge in relu.inputs.values())
    assert kinds == ["control", "data"]
    conv = graph.node("Default/net-Net/body/stem/Conv2D-op1")
    conv_text = "\n".join(r.text.plain for r in graph_node_rows(graph, conv))
    assert "pad_mode" in conv_text and "same" in conv_text and "group" in conv_text


LENET_LIKE_PIPELINE = {"op_type": "Batch", "batch_size": 16, "children": [
    {"op_type": "Map", "operations": [{"tensor_op_name": "Resize", "tensor_op_params": '{"size": [32, 32]}'}],
     "children": [{"op_type": "MnistDataset", "dataset_dir": "/data/mnist", "num_samples": 96,
                   "sampler": {"sampler_name": "SequentialSampler", "num_samples": 96}, "children": []}]}]}
ZIP_PIPELINE = {"op_type": "Batch", "batch_size": 4, "children": [
    {"op_type": "Zip", "children": [
        {"op_type": "Map", "children": [{"op_type": "ImageFolderDataset", "children": []}]},
        {"op_type": "GeneratorDataset", "children": []}]}]}


def test_pipeline_flow_runs_from_the_source_to_the_last_operation():
    flow = pipeline_flow(LENET_LIKE_PIPELINE)
    assert [step.op.op_type for step in flow] == ["MnistDataset", "Map", "Batch"]
    assert [step.number for step in flow] == [1, 2, 3]
    assert [s.op_type for s in dataset_pipeline(LENET_LIKE_PIPELINE)] == ["MnistDataset", "Map", "Batch"]
    assert flow[0].summary == "num_samples=96 dataset_dir=mnist SequentialSampler"
    assert flow[1].summary == "Resize"
    assert pipeline_flow({}) == [] and pipeline_flow(None) == []


def test_pipeline_flow_gives_each_input_of_a_zip_its_branch():
    flow = pipeline_flow(ZIP_PIPELINE)
    assert isinstance(flow[0], Branch) and isinstance(flow[1], Branch)
    assert flow[0].title == "input 1 of Zip"
    assert [s.op.op_type for s in flow[0].items] == ["ImageFolderDataset", "Map"]
    assert [s.op.op_type for s in flow[1].items] == ["GeneratorDataset"]
    assert [s.op.op_type for s in flow[2:]] == ["Zip", "Batch"]
    numbers = [s.number for s in [*flow[0].items, *flow[1].items, *flow[2:]]]
    assert sorted(numbers) == [1, 2, 3, 4, 5]
    assert [s.op_type for s in dataset_pipeline(ZIP_PIPELINE)] == ["ImageFolderDataset", "Map", "GeneratorDataset",
                                                                   "Zip", "Batch"]


def test_pipeline_rows_show_parameters_tensor_operations_and_sampler():
    steps = pipeline_flow(LENET_LIKE_PIPELINE)
    text = "\n".join(r.text.plain for r in pipeline_rows(steps[1]))
    assert "2. Map" in text and "Resize" in text
    assert "size  [32, 32]" in text  # decoded from the JSON text of tensor_op_params
    source = "\n".join(r.text.plain for r in pipeline_rows(steps[0]))
    assert "dataset_dir  /data/mnist" in source
    assert "sampler_name  SequentialSampler" in source


# -- the fixture graphs against MindInsight -------------------------------------------------------

@pytest.mark.parametrize("tid", GRAPH_JOBS)
def test_top_level_and_first_scope_match_mindinsight(fixture_cache, truth, tid):
    expected = truth_graph(truth, tid)

    async def body(pilot, view):
        tree = view.graph_tree
        assert [[n, tree.graph.node(n).type] for n in root_names(tree)] == \
               [[name, kind] for name, kind, _ in expected["top_level_names"]]
        assert tree.cursor_name == "Default"
        assert await wait_for(pilot, lambda: detail_of(view, "Default"))
        count = expected["top_level_names"][0][2]
        assert f"holds     {count} children" in detail_text(view)
        await pilot.press("right")  # expand the first scope
        first = expected["first_scope"]
        node = tree.tree_node(first["name"])
        assert node.is_expanded
        assert [c.data for c in node.children] == [n["name"] for n in first["nodes"]["nodes"]]
        hint = str(view.query_one("#graph-hint", Static).render())
        assert f"{len(tree.graph):,} nodes" in hint and "normal" in hint

    run_view(fixture_cache, [tid], body)


def test_optimized_view_matches_mindinsight_and_toggles_back(fixture_cache, truth):
    normal, optimized = truth_graph(truth, LENET), truth_graph(truth, LENET, optimized=True)

    async def body(pilot, view):
        await pilot.press("o")
        assert await wait_for(pilot, lambda: settled(view))
        await pilot.pause()
        assert view.graph_tree.graph.optimized
        assert root_names(view.graph_tree) == [n for n, _, _ in optimized["top_level_names"]]
        assert "optimized" in str(view.query_one("#graph-hint", Static).render())
        await pilot.press("right")
        assert [c.data for c in view.graph_tree.tree_node("Default").children] == \
               [n["name"] for n in optimized["first_scope"]["nodes"]["nodes"]]
        await pilot.press("o")  # back: built once, taken from the view's cache (no wait, no build)
        assert not view.graph_tree.graph.optimized and not view.loader.pending()
        assert root_names(view.graph_tree) == [n for n, _, _ in normal["top_level_names"]]
        assert view.graph_tree.tree_node("Default").is_expanded  # the open scope stays open

    run_view(fixture_cache, [LENET], body)


def test_search_opens_the_scopes_of_the_matches_and_steps_with_n(fixture_cache, truth):
    answer = truth_graph(truth, LENET)["search"]["conv"]["nodes"]
    leaves: list[str] = []

    def walk(items):
        for item in items:
            if item["nodes"]:
                walk(item["nodes"])
            elif item["type"] != NAME_SCOPE:
                leaves.append(item["name"])
    walk(answer)

    async def body(pilot, view):
        await pilot.press("slash")
        box = view.query_one("#graph-search", Input)
        assert box.display and box.has_focus
        for key in "convx":
            await pilot.press(key)
        await pilot.press("backspace")  # edits the box (not the view's "back after a jump")
        assert box.value == "conv"
        await pilot.press("enter")
        await pilot.pause()
        assert not box.display
        tree = view.graph_tree
        matches = view.matches
        assert set(leaves) <= set(matches)  # MindInsight's answer, as leaves of its ancestor tree
        assert all("conv" in m.rsplit("/", 1)[-1].lower() for m in matches)
        assert tree.cursor_name == matches[0]
        for name in matches:  # every match is visible: its scopes are open
            assert all(tree.tree_node(scope).is_expanded for scope in tree.graph.ancestors(name))
            assert name in tree.matches
        assert f"1/{len(matches)}" in str(view.query_one("#graph-hint", Static).render())
        await pilot.press("n")
        assert tree.cursor_name == matches[1]
        await pilot.press("N", "N")
        assert tree.cursor_name == matches[-1]  # wraps around
        await pilot.press("n")
        assert tree.cursor_name == matches[0]

    run_view(fixture_cache, [LENET], body)


def test_search_is_case_insensitive_and_only_in_the_last_segment(fixture_cache):
    async def body(pilot, view):
        view.run_search("CONV2D")
        upper = list(view.matches)
        view.run_search("conv2d")
        assert upper == view.matches and upper
        view.run_search("network")  # in the middle of many paths, the end of few
        assert view.matches and all("network" in m.rsplit("/", 1)[-1].lower() for m in view.matches)
        view.run_search("no-such-node")
        assert view.matches == []
        await pilot.pause()
        assert "no match" in str(view.query_one("#graph-hint", Static).render())
        await pilot.press("n")  # nothing to step through: a notice, no error
        assert view.graph_tree.cursor_name is not None

    run_view(fixture_cache, [LENET], body)


def test_a_search_typed_while_the_graph_builds_runs_when_it_is_shown(fixture_cache, monkeypatch):
    import threading

    from tui_insight.ui.views import graph as graph_screen

    release = threading.Event()
    real_build = graph_screen.build_source

    def slow_build(source, optimized, files=None, keep_in=None):
        release.wait(10)
        return real_build(source, optimized, files, keep_in)

    monkeypatch.setattr(graph_screen, "build_source", slow_build)

    async def main():
        app = Host(fixture_cache, (LENET,))
        async with app.run_test(size=(120, 36)) as pilot:
            view = app.query_one(GraphView)
            await pilot.pause()
            message = view.query_one("#graph-message", Static)
            assert "Building the graph" in str(message.render())
            assert view.graph_tree.display and view.graph_tree.has_focus  # the keyboard is where the tree will be
            await pilot.press("slash", "c", "o", "n", "v", "enter")
            assert "once the graph is built" in str(view.query_one("#graph-hint", Static).render())
            release.set()
            assert await wait_for(pilot, lambda: settled(view))
            await pilot.pause()
            assert not message.display
            assert view.matches and view.graph_tree.cursor_name == view.matches[0]
            assert f"1/{len(view.matches)}" in str(view.query_one("#graph-hint", Static).render())

    asyncio.run(main())


def test_escape_closes_the_box_then_clears_the_search(fixture_cache):
    async def body(pilot, view):
        view.run_search("conv")
        await pilot.press("slash")
        assert view.query_one("#graph-search", Input).display
        await pilot.press("escape")
        assert not view.query_one("#graph-search", Input).display
        assert view.graph_tree.has_focus and view.state.search == "conv"
        await pilot.press("escape")
        assert view.state.search == "" and view.matches == [] and not view.graph_tree.matches

    run_view(fixture_cache, [LENET], body)


def test_enter_on_an_input_jumps_to_it_and_backspace_returns(fixture_cache):
    async def body(pilot, view):
        tree = view.graph_tree
        view.run_search("Conv2D-op0")
        start = view.matches[0]
        await pilot.pause()
        assert tree.cursor_name == start
        await pilot.press("enter")  # on a leaf: the detail pane takes the keyboard
        assert view.body.detail.has_focus
        assert await wait_for(pilot, lambda: detail_of(view, start))
        rows = view.body.detail.rows
        first_input = next(i for i, row in enumerate(rows) if row.target and row.text.plain.startswith("←"))
        target = rows[first_input].target
        assert target in tree.graph.node(start).inputs
        assert view.body.detail.highlighted == first_input  # the cursor starts on the first input: enter jumps
        await pilot.press("enter")
        await pilot.pause()
        assert tree.cursor_name == target
        assert await wait_for(pilot, lambda: detail_of(view, target))
        await pilot.press("backspace")
        await pilot.pause()
        assert tree.cursor_name == start

    run_view(fixture_cache, [LENET], body)


def test_tree_keys_expand_collapse_and_move(fixture_cache):
    async def body(pilot, view):
        tree = view.graph_tree
        await pilot.press("right")
        default = tree.tree_node("Default")
        assert default.is_expanded
        await pilot.press("right")  # on an open scope: go to its first child
        assert tree.cursor_name == default.children[0].data
        await pilot.press("left")  # on a leaf: up to the parent
        assert tree.cursor_name == "Default"
        await pilot.press("left")
        assert not default.is_expanded
        await pilot.press("space")
        assert default.is_expanded
        await pilot.press("minus")
        assert not default.is_expanded

    run_view(fixture_cache, [LENET], body)


def test_dataset_pipeline_runs_from_the_source_to_batch(fixture_cache, truth):
    chain, level = [], truth["jobs"][LENET]["dataset_graph"]["dataset_graph"]
    while level:
        chain.append(level["op_type"])
        level = level["children"][0] if level["children"] else None
    chain.reverse()  # MindInsight's dict starts at the last operation

    async def body(pilot, view):
        tree = view.graph_tree
        await pilot.press("right", "down")
        here = tree.cursor_name
        await pilot.press("d")
        assert view.state.mode == "pipeline" and view.body.pipeline.display and not tree.display
        assert view.body.pipeline.has_focus
        assert [s.op.op_type for s in view.body.pipeline.steps] == chain == ["MnistDataset", "Map", "Map", "Batch"]
        assert "Dataset pipeline" in str(view.query_one("#graph-title", Static).render())
        assert "dataset_dir  /data/experiments/_dataset/mnist_synth" in detail_text(view)
        await pilot.press("down")  # the first Map: Resize, Rescale, HwcToChw on the images
        text = detail_text(view)
        assert "2. Map" in text and "Resize" in text and "Rescale" in text and "HwcToChw" in text
        assert "size  [32, 32]" in text and "rescale  0.003921568859368563" in text
        assert 'input_columns  ["image"]' in text
        await pilot.press("down")
        assert "3. Map" in detail_text(view) and "TypeCast" in detail_text(view)
        await pilot.press("slash")  # search is for the graph
        assert not view.query_one("#graph-search", Input).display
        await pilot.press("d")
        assert view.state.mode == "graph" and tree.display and tree.cursor_name == here

    run_view(fixture_cache, [LENET], body)


def test_a_job_without_graph_or_dataset_graph_says_so(fixture_cache):
    async def body(pilot, view):
        message = view.query_one("#graph-message", Static)
        assert message.display and not view.graph_tree.display
        assert "has no computational graph" in str(message.render())
        await pilot.press("slash", "n", "o", "g")  # nothing to search, step, toggle or pick: no error
        await pilot.press("escape")
        await pilot.press("d")
        assert "has no dataset graph" in str(message.render())

    run_view(fixture_cache, ["./edge_cases"], body)


# -- graphs written by the tests --------------------------------------------------------------------

def test_picker_chooses_between_the_summary_graph_and_pb_files(tmp_path):
    write_job(tmp_path, "job", graph=small_graph("in_summary"), pb={"exported.pb": wide_graph(3)})
    cache = loaded(tmp_path)
    tags = sorted(cache.job("./job").graphs)
    assert len(tags) == 2

    async def body(pilot, view):
        assert view.state.graph == ("./job", tags[0])  # MindInsight's default: the first tag
        await pilot.press("g")
        picker = view.app.screen
        assert isinstance(picker, GraphPicker)
        options = picker.query_one(OptionList)
        assert [str(options.get_option_at_index(i).prompt).split("  ")[0] for i in range(2)] == tags
        await pilot.press("down", "enter")
        assert await wait_for(pilot, lambda: settled(view))
        assert view.state.graph == ("./job", tags[1])
        expected = build_graph(load_graph(cache.job("./job").graphs[tags[1]]))
        assert root_names(view.graph_tree) == [n.name for n in expected.children("")]
        await pilot.press("g", "escape")  # cancel keeps the choice
        assert view.state.graph == ("./job", tags[1])

    run_view(cache, ["./job"], body)


def test_an_unreadable_graph_says_why(tmp_path):
    write_job(tmp_path, "job", pb={"broken.pb": b"\x0a\xff\xff\xff\xff garbage"})
    cache = loaded(tmp_path)

    async def body(pilot, view):
        message = str(view.query_one("#graph-message", Static).render())
        assert "cannot be read" in message  # what it says: presenters/test_graph_presenter.py
        assert not view.graph_tree.display
        await pilot.press("slash")
        assert not view.query_one("#graph-search", Input).display

    run_view(cache, ["./job"], body)


def test_a_big_scope_loads_in_chunks_and_search_reaches_past_them(tmp_path):
    count = 2 * CHUNK + 100
    write_job(tmp_path, "job", pb={"wide.pb": wide_graph(count)})
    cache = loaded(tmp_path)

    async def body(pilot, view):
        tree = view.graph_tree
        await pilot.press("right", "right", "right")  # open Default, go to its child wide, open it
        wide = tree.tree_node("Default/wide")
        assert wide.is_expanded
        assert len(wide.children) == CHUNK + 1 and isinstance(wide.children[-1].data, More)
        assert wide.children[-1].label.plain.startswith(f"… {count - CHUNK:,} more")
        tree.move_cursor(wide.children[-1])
        await pilot.press("enter")
        await pilot.pause()
        assert len(wide.children) == 2 * CHUNK + 1
        last = f"Default/wide/Op{count - 1}-op{count - 1}"
        view.run_search(f"op{count - 1}-")
        await pilot.pause()
        assert view.matches == [last] and tree.cursor_name == last
        assert not isinstance(wide.children[-1].data, More)  # loaded up to the match

    run_view(cache, ["./job"], body)


def test_a_graph_that_appears_or_changes_is_shown_keeping_open_scopes(tmp_path):
    job = write_job(tmp_path, "job")
    cache = loaded(tmp_path)

    async def body(pilot, view):
        assert "has no computational graph" in str(view.query_one("#graph-message", Static).render())
        write_pb_graph(job / "model.pb", small_graph())
        view.cache_changed(cache.reload())
        assert await wait_for(pilot, lambda: settled(view) and view.graph_tree.graph is not None)
        await pilot.pause()
        tree = view.graph_tree
        assert tree.display and tree.has_focus  # the keyboard moves from the message's pane to the tree
        relu = "Default/net-Net/body/ReLU-op20"
        tree.reveal(relu)
        await pilot.pause()
        old_graph = tree.graph
        write_pb_graph(job / "model.pb", small_graph(extra=2))  # rewritten: two more nodes
        stamp = os.stat(job / "model.pb").st_mtime + 5
        os.utime(job / "model.pb", (stamp, stamp))
        view.cache_changed(cache.reload())
        assert await wait_for(pilot, lambda: settled(view) and view.graph_tree.graph is not old_graph)
        await pilot.pause()
        assert len(tree.graph) == len(old_graph) + 2
        assert tree.cursor_name == relu
        assert all(tree.tree_node(s).is_expanded for s in tree.graph.ancestors(relu))

    run_view(cache, ["./job"], body)


def test_a_new_dataset_graph_replaces_the_pipeline_on_screen(tmp_path):
    job = write_job(tmp_path, "job", graph=small_graph(), dataset_graph=LENET_LIKE_PIPELINE)
    cache = loaded(tmp_path)

    async def body(pilot, view):
        await pilot.press("d", "down")
        assert [s.op.op_type for s in view.body.pipeline.steps] == ["MnistDataset", "Map", "Batch"]
        assert view.body.pipeline.cursor_node.data.op.op_type == "Map"
        bigger = {"op_type": "Repeat", "count": 2, "children": [LENET_LIKE_PIPELINE]}
        with LineageWriter(job, timestamp=T0 + 10) as lineage:  # a later lineage file starts afresh
            lineage.write_dataset_graph(bigger)
        changes = cache.reload()
        assert "./job" in changes.lineage
        view.cache_changed(changes)
        await pilot.pause()
        assert [s.op.op_type for s in view.body.pipeline.steps] == ["MnistDataset", "Map", "Batch", "Repeat"]
        assert view.body.pipeline.steps[-1].summary == "count=2"
        assert "4 operations" in str(view.query_one("#graph-title", Static).render())
        # The cursor stays on the same operation (Map), found by its place in the new dict.
        node = view.body.pipeline.cursor_node
        assert node.data.op.op_type == "Map" and "Resize" in detail_text(view)

    run_view(cache, ["./job"], body)


def test_comparison_picks_graphs_and_pipelines_of_each_job(tmp_path):
    write_job(tmp_path, "a", graph=small_graph("a"), dataset_graph=LENET_LIKE_PIPELINE)
    write_job(tmp_path, "b", pb={"b.pb": wide_graph(4)}, dataset_graph=ZIP_PIPELINE)
    cache = loaded(tmp_path)

    async def body(pilot, view):
        assert view.state.graph[0] == "./a"
        title = str(view.query_one("#graph-title", Static).render())
        assert "./a" in title and "graph 1/2" in title
        await pilot.press("g", "down", "enter")
        assert await wait_for(pilot, lambda: settled(view))
        assert view.state.graph == ("./b", "b.pb")
        await pilot.press("d")
        assert view.state.pipeline_job == "./b"  # the job of the graph on screen
        assert [s.op.op_type for s in view.body.pipeline.steps] == ["ImageFolderDataset", "Map", "GeneratorDataset",
                                                                "Zip", "Batch"]
        branch = view.body.pipeline.root.children[0]
        assert branch.data is None and branch.label.plain == "input 1 of Zip" and branch.is_expanded
        await pilot.press("g")
        await pilot.press("up", "enter")
        await pilot.pause()
        assert view.state.pipeline_job == "./a"
        assert [s.op.op_type for s in view.body.pipeline.steps] == ["MnistDataset", "Map", "Batch"]

    run_view(cache, ["./a", "./b"], body)


def test_names_from_files_are_shown_literally(tmp_path):
    """Node names, scopes, attribute values, graph tags and dataset parameters are text, never markup."""
    nodes = [
        {"name": "1", "op_type": "Conv2D", "scope": "Default/[bold red]x[/]",
         "full_name": "Default/[bold red]x[/]/Conv2D-op1", "shape": [1], "attrs": {"mode": "[i]v[/i]"}},
        {"name": "2", "op_type": "ReLU", "scope": "Default", "full_name": "Default/[bold red]y[b]-op2",
         "inputs": ["1"], "shape": [1]},
        {"name": "3", "op_type": "Add", "scope": "Default", "full_name": "Default/evil\x1b[31m-op3",
         "inputs": ["2"], "shape": [1]},
    ]
    pipeline = {"op_type": "[b]Batch[/b]", "batch_size": "[i]16[/i]", "children": []}
    write_job(tmp_path, "job", pb={"[red]g[b].pb": make_graph(nodes, name="m")}, dataset_graph=pipeline)
    cache = loaded(tmp_path)

    async def body(pilot, view):
        assert "[red]g[b].pb" in str(view.query_one("#graph-title", Static).render())
        await pilot.press("right")  # open Default
        await pilot.pause()
        lines = on_screen(view.graph_tree)
        assert "[bold red]x[" in lines and "[bold red]y[b]-op2" in lines
        assert "evil\\x1b[31m-op3" in lines and "\x1b" not in lines  # the escape character is shown, not sent
        view.run_search("[bold red]y")
        await pilot.pause()
        assert view.matches == ["Default/[bold red]y[b]-op2"]
        assert "search [bold red]y: 1/1" in str(view.query_one("#graph-hint", Static).render())
        assert await wait_for(pilot, lambda: detail_of(view, view.matches[0]))
        await pilot.pause()
        assert "Default/[bold red]y[b]-op2" in on_screen(view.body.detail)
        conv = "Default/[bold red]x[/]/Conv2D-op1"
        view.graph_tree.reveal(conv)
        assert await wait_for(pilot, lambda: detail_of(view, conv))
        await pilot.pause()
        assert 'mode  "[i]v[/i]"' in on_screen(view.body.detail)
        await pilot.press("d")
        await pilot.pause()
        assert "1. [b]Batch[/b]  batch_size=[i]16[/i]" in on_screen(view.body.pipeline)
        assert "batch_size  [i]16[/i]" in on_screen(view.body.detail)

    run_view(cache, ["./job"], body)


def test_the_view_opens_where_it_was_left(tmp_path):
    """Graph, open scopes, cursor and search are remembered (`to_json`) and put back."""
    write_job(tmp_path, "job", graph=small_graph("in_summary"), pb={"exported.pb": small_graph("exported", extra=2)})
    cache = loaded(tmp_path)
    tags = sorted(cache.job("./job").graphs)
    relu = "Default/net-Net/body/ReLU-op20"

    async def leave(pilot, view):
        await pilot.press("g", "down", "enter")
        assert await wait_for(pilot, lambda: settled(view))
        view.run_search("conv")
        await pilot.pause()
        view.graph_tree.reveal(relu)
        await pilot.pause()
        state = view.state
        assert state.graph == ("./job", tags[1]) and state.selected == relu  # the state follows the tree
        assert set(view.graph_tree.graph.ancestors(relu)) <= state.expanded
        await pilot.press("minus")  # collapse all: the state follows
        await pilot.pause()
        assert not view.state.expanded
        view.graph_tree.reveal(relu)
        await pilot.pause()
        return view.state.to_json()

    saved = run_view(cache, ["./job"], leave)

    async def come_back(pilot, view):
        tree = view.graph_tree
        assert view.state.graph == ("./job", tags[1])
        assert len(tree.graph) == len(build_graph(load_graph(cache.job("./job").graphs[tags[1]])))
        assert tree.cursor_name == relu
        assert all(tree.tree_node(scope).is_expanded for scope in tree.graph.ancestors(relu))
        assert tree.matches and "search conv:" in str(view.query_one("#graph-hint", Static).render())
        assert tree.has_focus

    run_view(cache, ["./job"], come_back, saved=saved)

    async def gone(pilot, view):  # what was remembered is no longer there: the defaults, no error
        assert view.state.graph == ("./job", tags[0]) and view.graph_tree.cursor_name == "Default"
        assert not any(node.is_expanded for node in view.graph_tree.root.children)

    run_view(cache, ["./job"], gone, saved={"graph": ["./job", "gone.pb"], "expanded": ["Default"],
                                            "selected": "Default/nowhere"})


def test_the_view_takes_the_keyboard_itself_once_its_tree_is_up(fixture_cache):
    async def body(pilot, view):
        assert view.graph_tree.has_focus  # nobody called focus_view: the view did when it was ready
        await pilot.press("right")
        assert view.graph_tree.tree_node("Default").is_expanded

    run_view(fixture_cache, [LENET], body, focus=False)


# -- inside the real app ----------------------------------------------------------------------------

async def open_graph_view(app: InsightApp, pilot, tid: str = LENET) -> GraphView:
    # The dashboard opens on scalars; the user presses 5.
    app.open_jobs((tid,))
    await pilot.pause()
    await pilot.press("5")
    assert await wait_for(pilot, lambda: bool(app.screen.query(GraphView)))
    view = app.screen.query_one(GraphView)
    assert await wait_for(pilot, lambda: settled(view))
    await pilot.pause()
    return view


def test_the_graph_is_kept_out_of_collections_while_the_view_holds_it(fixture_cache):
    """The view freezes what its build made (gc.freeze) and gives it back when it goes."""

    async def main():
        app = Host(fixture_cache, (LENET,))
        async with app.run_test(size=(120, 36)) as pilot:
            view = app.query_one(GraphView)
            assert await wait_for(pilot, lambda: settled(view) and view.graph_tree.graph is not None)
            frozen = gc.get_freeze_count()
            assert gc_policy.holds(view) and frozen > 0
            walked = {id(o) for generation in range(3) for o in gc.get_objects(generation=generation)}
            assert not any(id(node) in walked for node in view.graph_tree.graph)  # no collection walks them
            await view.remove()
            await pilot.pause()
            assert not gc_policy.holds(view)
            return gc_policy.holders()

    if asyncio.run(main()) == 0:  # (a build left running by an earlier test may hold its own)
        assert gc.get_freeze_count() == 0


def test_closing_the_dashboard_while_the_graph_builds_is_quiet(fixture_cache, monkeypatch):
    """The build finishes after its view is gone: nothing is shown, nothing raises, nothing stays frozen."""
    import threading

    from tui_insight.ui.views import graph as graph_screen

    release = threading.Event()
    real_build = graph_screen.build_source
    built = threading.Event()

    def held_build(source, optimized, files=None, keep_in=None):
        release.wait(10)
        try:
            return real_build(source, optimized, files, keep_in)
        finally:
            built.set()

    monkeypatch.setattr(graph_screen, "build_source", held_build)

    async def main():
        app = make_app(MINDSPORE_LOGS, keep_dashboards=0)  # closed is gone, not kept
        async with app.run_test(size=(120, 36)) as pilot:
            await pilot.pause()
            app.open_jobs((LENET,))
            await pilot.pause()
            await pilot.press("5")
            assert await wait_for(pilot, lambda: bool(app.screen.query(GraphView)))
            view = app.screen.query_one(GraphView)
            assert await wait_for(pilot, lambda: bool(view.loader.pending()))
            await pilot.press("escape")  # back to the job list: the dashboard and its views go
            await pilot.pause()
            assert not view.is_attached
            release.set()
            assert await wait_for(pilot, built.is_set)
            await pilot.pause(0.2)
            assert not gc_policy.holds(view)
            return type(app.screen).__name__

    assert asyncio.run(main()) == "JobsScreen"


def test_the_dashboard_builds_its_graph_in_the_background_so_5_shows_it_at_once(truth):
    async def main():
        app = make_app(MINDSPORE_LOGS, graph_prefetch_delay=0.05)
        async with app.run_test(size=(120, 36)) as pilot:
            await pilot.pause()
            app.open_jobs((LENET,))
            await pilot.pause()
            dashboard = app.screen
            assert await wait_for(pilot, lambda: bool(dashboard.query("#view-graph")))
            view = dashboard.query_one(GraphView)
            assert await wait_for(pilot, lambda: view.graph_tree.graph is not None)
            assert not view.display and dashboard.current == "scalars"  # built, still hidden
            assert app.focused is not None and view not in app.focused.ancestors_with_self
            await pilot.press("5")
            await pilot.pause()
            shown = view.display and view.graph_tree.display and not view.query_one("#graph-message").display
            rows = [node.data for node in view.graph_tree.root.children]
            return shown, rows, view.graph_tree.has_focus

    shown, rows, focused = asyncio.run(main())
    assert shown and focused
    assert rows == [name for name, _, _ in truth_graph(truth, LENET)["top_level_names"]]


def test_no_graph_no_background_build():
    async def main():
        app = make_app(MINDSPORE_LOGS, graph_prefetch_delay=0.01)
        async with app.run_test(size=(120, 36)) as pilot:
            await pilot.pause()
            app.open_jobs(("./edge_cases",))
            await pilot.pause(0.3)
            return bool(app.screen.query("#view-graph"))

    assert asyncio.run(main()) is False


def test_long_lived_holders_release_only_when_the_last_goes():
    first, second = object(), object()
    others = gc_policy.holders()
    with gc_policy.made_by(first):
        made = [[i] for i in range(100)]
    assert gc.isenabled()
    with gc_policy.made_by(second):
        pass
    assert gc_policy.holders() == others + 2 and gc.get_freeze_count() > 0
    gc_policy.release(first)
    gc_policy.release(first)  # twice: no effect
    assert not gc_policy.holds(first) and gc_policy.holds(second) and gc.get_freeze_count() > 0
    gc_policy.release(second)
    assert gc_policy.holders() == others
    if not others:
        assert gc.get_freeze_count() == 0
    assert made[99] == [99]


def test_keys_have_ids_and_reach_help_and_the_palette():
    app = make_app(MINDSPORE_LOGS)

    async def main():
        async with app.run_test(size=(120, 36)) as pilot:
            await open_graph_view(app, pilot)
            screen = app.screen
            groups = collect_bindings(screen, app.extra_binding_nodes(screen))
            ids = {binding.id for items in groups.values() for _, binding, _ in items}
            for name in ("search", "next_match", "previous_match", "optimized", "dataset", "pick", "back",
                         "jump", "expand", "collapse", "toggle", "collapse_all"):
                assert f"graph.{name}" in ids, name
            commands = [c.title for c in app.get_system_commands(screen)]
            assert "Graph: Search" in commands and "Graph: Dataset pipeline" in commands
            await pilot.press("question_mark")
            await pilot.pause()
            text = str(app.screen.query_one("#help-text", Static).render())
            assert "graph.optimized" in text and "Jump to input/output" in text

    asyncio.run(main())


async def _lenet_leaf(pilot):
    app = pilot.app
    view = await open_graph_view(app, pilot)
    await pilot.press("right", "down", "down")  # Default, then Depend-op0: a leaf with inputs and outputs
    assert await wait_for(pilot, lambda: detail_of(view, view.graph_tree.cursor_name))
    await pilot.pause()


async def _lenet_search(pilot):
    app = pilot.app
    view = await open_graph_view(app, pilot)
    await pilot.press("slash", "c", "o", "n", "v", "enter")
    assert await wait_for(pilot, lambda: detail_of(view, view.matches[0]))
    await pilot.pause()


async def _lenet_pipeline(pilot):
    view = await open_graph_view(pilot.app, pilot)
    await pilot.press("d", "down", "down")
    await pilot.pause()
    assert view.state.mode == "pipeline"


def test_snapshot_graph_leaf_80x24(snap_compare):
    assert snap_compare(make_app(MINDSPORE_LOGS), terminal_size=(80, 24), run_before=_lenet_leaf)


def test_snapshot_graph_search_160x48(snap_compare):
    assert snap_compare(make_app(MINDSPORE_LOGS), terminal_size=(160, 48), run_before=_lenet_search)


def test_snapshot_pipeline_80x24(snap_compare):
    assert snap_compare(make_app(MINDSPORE_LOGS), terminal_size=(80, 24), run_before=_lenet_pipeline)


def test_snapshot_pipeline_160x48(snap_compare):
    assert snap_compare(make_app(MINDSPORE_LOGS), terminal_size=(160, 48), run_before=_lenet_pipeline)


def test_a_graph_of_100000_nested_scopes_opens_searches_and_collapses(tmp_path):
    """Scopes past MAX_SCOPE_DEPTH are folded into one name (the status says so); the tree opens
    lazily, a search reveals the deepest node and collapsing goes back to the top."""
    from hostile_logs import write_deep_graph

    from tui_insight.summary.formats.graph_build import FOLDED_SLASH, MAX_SCOPE_DEPTH

    write_deep_graph(tmp_path / "job", depth=100_000)
    cache = loaded(tmp_path)

    async def body(pilot, view):
        tree = view.graph_tree
        assert root_names(tree)[:2] == ["Default", "s0"]
        hint = str(view.query_one("#graph-hint", Static).render())
        assert f"3 names nested past {MAX_SCOPE_DEPTH} scopes" in hint  # two operators, one parameter
        view.run_search("relu")
        assert await wait_for(pilot, lambda: tree.cursor_name is not None and "ReLU" in tree.cursor_name)
        leaf = tree.cursor_name
        assert leaf.endswith(f"s99999{FOLDED_SLASH}ReLU-op2") and leaf.count("/") == MAX_SCOPE_DEPTH - 1
        label = tree.cursor_node.label.plain
        assert len(label) < 300 and "…" in label  # a name 600,000 characters long, cut in the middle
        await pilot.press("minus")
        assert tree.cursor_name == "s0" and not tree.tree_node("s0").is_expanded
        await pilot.press("right", "right", "right", "right")  # open s0, go in, open s0/s1, go in
        assert tree.cursor_name == "s0/s1/s2"
        return True

    assert run_view(cache, ["./job"], body)


@pytest.mark.parametrize("size", [(80, 24), (160, 48)])
def test_the_dataset_pipeline_is_offered_only_to_a_job_that_has_one(tmp_path, size):
    write_job(tmp_path, "with", graph=small_graph("with"), dataset_graph=LENET_LIKE_PIPELINE)
    write_job(tmp_path, "without", graph=small_graph("without"))
    write_job(tmp_path, "bare")  # neither a graph nor a pipeline
    cache = loaded(tmp_path)
    seen = {}

    def hint_of(name):
        async def body(pilot, view):
            seen[name] = (str(view.query_one("#graph-hint", Static).render())
                          + str(view.query_one("#graph-message", Static).render()))
        return body

    for name in ("with", "without", "bare"):
        run_view(cache, [f"./{name}"], hint_of(name), size=size)
    assert "d dataset pipeline" in seen["with"]
    assert "dataset pipeline" not in seen["without"] and "dataset pipeline" not in seen["bare"]
    assert "no computational graph" in seen["bare"]


@pytest.mark.parametrize("size", [(80, 24), (160, 48)])
def test_k_shows_the_legend_of_node_and_edge_kinds_and_help_has_it(tmp_path, size):
    write_job(tmp_path, "job", graph=small_graph())
    app = make_app(tmp_path)

    async def body(pilot):
        assert await wait_for(pilot, lambda: "./job" in app.cache.jobs and app.cache.jobs["./job"].ready)
        app.open_jobs(("./job",), "graph")
        await wait_for_view(pilot, app, "GraphView")
        view = app.screen.query_one(GraphView)
        assert await wait_for(pilot, lambda: settled(view) and not view.body.detail_loader.pending())
        await pilot.pause()
        await pilot.press("k")
        await pilot.pause()
        detail = view.query_one("#node-detail", OptionList)
        shown_detail = "\n".join(str(detail.get_option_at_index(i).prompt) for i in range(detail.option_count))
        return shown_detail, await open_help(pilot)

    detail, help_text = run_pilot(app, body, size)
    for text in (detail, help_text):
        assert "Node kinds" in text and "Edge kinds" in text and "proxy edges" in text
    assert "Legend" in help_text


LONG_NAME = "Default/network-WithLossCell/_backbone-LeNet5/conv1-Conv2d/Conv2D-op1" * 3


def test_a_long_name_wraps_after_scope_separators_not_inside_a_name():
    from tui_insight.ui.widgets.node_detail import wrap_at_scopes

    lines = wrap_at_scopes(Text(LONG_NAME), 30).plain.split("\n")
    assert "".join(lines) == LONG_NAME and all(len(line) <= 30 for line in lines)
    assert all(line.endswith("/") or next_line.startswith("/") for line, next_line in zip(lines, lines[1:]))


@pytest.mark.parametrize("size", [(80, 24), (160, 48)])
def test_the_detail_pane_wraps_a_long_node_name_at_its_scopes(size):
    from textual.app import App

    from tui_insight.ui.widgets.node_detail import DetailRow, NodeDetail

    class Pane(App):
        def compose(self):
            yield NodeDetail(id="node-detail")

    async def body(pilot):
        detail = pilot.app.query_one(NodeDetail)
        detail.show_rows([DetailRow(Text(LONG_NAME, "bold"))])
        await pilot.pause()
        return str(detail.get_option_at_index(0).prompt).split("\n"), detail.scrollable_content_region.width

    lines, width = run_pilot(Pane(), body, size)
    assert "".join(lines) == LONG_NAME and len(lines) > 1 and all(len(line) <= width for line in lines)
    assert all(line.endswith("/") or next_line.startswith("/") for line, next_line in zip(lines, lines[1:]))


def scope_details(tmp_path, count: int, monkeypatch) -> tuple[list[str], bool]:
    """The messages the detail pane showed while the cursor went to the scope `Default/wide` of
    `count` operators, and whether its edges were shown by the time the key was handled."""
    from tui_insight.ui.widgets.node_detail import NodeDetail

    write_job(tmp_path, "job", pb={"wide.pb": wide_graph(count)})
    cache = loaded(tmp_path)
    messages: list[str] = []
    show_message = NodeDetail.show_message

    def recorded(self, text: str) -> None:
        messages.append(text)
        show_message(self, text)

    monkeypatch.setattr(NodeDetail, "show_message", recorded)

    async def body(pilot, view):
        await pilot.press("right")  # open Default: its child wide
        assert await wait_for(pilot, lambda: detail_of(view, "Default"))
        messages.clear()
        await pilot.press("down")
        at_once = detail_of(view, "Default/wide")
        assert await wait_for(pilot, lambda: detail_of(view, "Default/wide"))
        return messages, at_once

    return run_view(cache, ["./job"], body)


def test_a_small_scopes_edges_show_with_the_key(tmp_path, monkeypatch):
    messages, at_once = scope_details(tmp_path, 50, monkeypatch)
    assert at_once and not any("gathering" in text for text in messages)


def test_a_big_scopes_edges_are_gathered_by_the_loader(tmp_path, monkeypatch):
    from tui_insight.ui.widgets.graph_panes import INLINE_SCOPE_NODES

    messages, _ = scope_details(tmp_path, INLINE_SCOPE_NODES + 50, monkeypatch)
    assert any("gathering the edges" in text for text in messages)


def test_o_shows_the_other_setting_built_ahead_in_the_keys_own_frame():
    """A graph shown has its other setting built next, off the UI thread: the first frame after
    `o` already shows the optimized graph in the tree, no "building…" frame before it."""
    app = make_app(MINDSPORE_LOGS)
    seen: list = []  # what the tree showed at each paint after `o`

    async def body(pilot):
        app.open_jobs(("./lenet_lr0.01",), "graph")
        await wait_for_view(pilot, app, "GraphView")
        view = app.screen.query_one(GraphView)
        assert await wait_for(pilot, lambda: view.shown_key is not None and view.loader.pending() == 0)
        await pilot.pause(0.2)
        display = app._display

        def recorded(screen, renderable):
            if renderable is not None:
                seen.append(view.shown_key)
            return display(screen, renderable)

        app._display = recorded
        await pilot.press("o")
        await pilot.pause(0.3)

    run_pilot(app, body, size=(120, 36))
    assert seen and seen[0] is not None and seen[0][2] is True
