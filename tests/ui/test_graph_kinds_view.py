"""The graph view's picker lists TensorBoard's op graphs, Keras graphs and tagged run metadata
beside the run graph, each opening in the same tree (issue 26), at 80x24 and 160x48."""
from __future__ import annotations

import pytest
from tb_graph_logs import write_graph_kinds
from test_graph_view import loaded, root_names, run_view, settled
from textual.widgets import OptionList, Static
from uihelp import wait_for

from tui_insight.summary.formats.graph import load_graph
from tui_insight.summary.formats.graph_build import build_graph
from tui_insight.ui.views.graph import GraphPicker


@pytest.mark.parametrize("size", [(80, 24), (160, 48)], ids=["80x24", "160x48"])
def test_the_picker_opens_each_kind_of_graph(tmp_path, size):
    write_graph_kinds(tmp_path / "run")
    cache = loaded(tmp_path)
    graphs = cache.job("./run").graphs
    tags = sorted(graphs)
    assert tags == ["f_trace", "keras", "partitions"]

    async def body(pilot, view):
        seen = {}
        for position, tag in enumerate(tags):
            await pilot.press("g")
            picker = view.app.screen
            assert isinstance(picker, GraphPicker)
            options = picker.query_one(OptionList)
            prompts = [str(options.get_option_at_index(i).prompt) for i in range(options.option_count)]
            seen["prompts"] = prompts
            await pilot.press("home", *["down"] * position, "enter")
            assert await wait_for(pilot, lambda tag=tag: view.state.graph == ("./run", tag) and settled(view))
            expected = build_graph(load_graph(graphs[tag]))
            assert root_names(view.graph_tree) == [n.name for n in expected.children("")]
            seen[tag] = str(view.query_one("#graph-title", Static).render())
        return seen

    seen = run_view(cache, ["./run"], body, size=size)
    assert [p.split("  ")[0] for p in seen["prompts"]] == tags
    assert any("traced op graph" in p for p in seen["prompts"]) and any("Keras model" in p for p in seen["prompts"])
    assert "graph 2/3" in seen["keras"]
