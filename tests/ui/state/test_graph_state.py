"""Unit tests of `GraphState`, the graph view's settings and position (no app, no Pilot)."""
from __future__ import annotations

import json

from tui_insight.ui.state.graph import REMEMBERED_SCOPES, GraphState, visible_order

A = ("./a", "graph_0")
B = ("./b", "model.pb")


def test_the_chosen_graph_stays_while_it_exists_else_the_first():
    s = GraphState().choose_graph([A, B])
    assert s.graph == A and s.key == ("./a", "graph_0", False)
    s = s.with_graph(B)
    assert s.choose_graph([A, B]) is s  # still there: same object, nothing to redraw
    assert s.choose_graph([A]).graph == A  # gone: the first
    assert s.choose_graph([]).graph is None and GraphState().key is None


def test_another_graph_opens_closed_at_the_top_and_keeps_the_search():
    s = GraphState(graph=A).expand("Default").select("Default/conv").jump("Default/relu").with_search("conv")
    t = s.with_graph(B)
    assert t.graph == B and t.expanded == frozenset() and t.selected is None and t.history == ()
    assert t.search == "conv" and t.match == -1
    assert s.with_graph(A) is s


def test_optimized_keeps_the_open_scopes_and_the_cursor():
    s = GraphState(graph=A).expand("Default").select("Default/conv").with_search("conv").step_match(1, 5)
    t = s.toggle_optimized()
    assert t.optimized and t.key == ("./a", "graph_0", True)
    assert t.expanded == {"Default"} and t.selected == "Default/conv"
    assert t.search == "conv" and t.match == -1  # the matches of the other graph are other nodes
    assert not t.toggle_optimized().optimized


def test_pipeline_goes_to_the_graphs_job_else_the_first_with_one_and_back():
    s = GraphState(graph=B)
    p = s.toggle_pipeline(["./a", "./b"], "./a")
    assert p.mode == "pipeline" and p.pipeline_job == "./b"  # the job of the graph on screen
    assert p.toggle_pipeline(["./a", "./b"]).mode == "graph"
    assert GraphState(graph=B).toggle_pipeline(["./a"], "./b").pipeline_job == "./a"
    assert GraphState().toggle_pipeline([], "./a").pipeline_job == "./a"  # none: says so for the first job
    chosen = p.toggle_pipeline([]).with_pipeline_job("./a")
    assert chosen.toggle_pipeline(["./a", "./b"]).pipeline_job == "./a"  # the job picked with g stays
    assert p.with_pipeline_job("./b") is p


def test_open_scopes_are_mirrored_one_by_one():
    s = GraphState().expand("Default").expand("Default/net").expand("Default")
    assert s.expanded == {"Default", "Default/net"}
    assert s.collapse("Default").expanded == {"Default/net"}  # the tree keeps a child's own flag
    assert s.collapse("Gradients") is s
    assert visible_order({"Default/net/a", "Gradients", "Default"}) == ["Default", "Gradients", "Default/net/a"]


def test_jumps_are_remembered_for_backspace():
    s = GraphState().select("x")
    t = s.jump("y").jump("z")
    assert t.selected == "z" and t.history == ("x", "y")
    assert t.back().selected == "y" and t.back().back().selected == "x"
    assert t.back().back().back() == t.back().back()  # nothing left: the same state
    assert GraphState().jump("y").history == ()  # from nowhere: nothing to come back to
    assert s.jump("x") is s


def test_selecting_another_node_puts_the_detail_cursor_back_on_its_first_input():
    s = GraphState().select("x").with_detail_row(7)
    assert s.detail_row == 7 and s.select("x").detail_row == 7
    assert s.select("y").detail_row == -1 and s.jump("y").detail_row == -1


def test_search_steps_through_matches_and_wraps_around():
    s = GraphState().with_search("  conv ")
    assert s.search == "conv" and s.match == 0  # the cursor goes to the first match
    assert s.match_label(3) == "1/3"
    assert [s.step_match(1, 3).match, s.step_match(-1, 3).match] == [1, 2]
    assert s.step_match(1, 3).step_match(1, 3).step_match(1, 3).match == 0
    assert s.step_match(1, 0) is s
    far = GraphState(search="conv", match=-1)
    assert far.step_match(1, 4).match == 0 and far.step_match(-1, 4).match == 3  # n: first, N: last
    assert far.match_label(4) == "4"
    assert GraphState(search="conv", match=9).step_match(1, 4).match == 0  # fewer matches after a rebuild
    cleared = s.clear_search()
    assert cleared.search == "" and cleared.match == -1 and cleared.clear_search() is cleared
    assert GraphState().with_search("").match == -1


def test_remembered_graph_optimized_scopes_selection_and_search():
    s = (GraphState(graph=B).toggle_optimized().expand("Default").expand("Default/net")
         .select("Default/net/conv").with_search("conv").toggle_pipeline(["./b"]))
    data = json.loads(json.dumps(s.to_json()))
    assert data == {"graph": ["./b", "model.pb"], "optimized": True, "expanded": ["Default", "Default/net"],
                    "selected": "Default/net/conv", "search": "conv"}
    back = GraphState.from_json(data)
    assert (back.graph, back.optimized, back.expanded, back.selected, back.search) == \
           (B, True, s.expanded, "Default/net/conv", "conv")
    assert back.mode == "graph" and back.match == -1  # opens on the graph, the cursor on the remembered node


def test_remembered_scopes_are_bounded_parents_first():
    names = [f"Default/s{i:03}" for i in range(REMEMBERED_SCOPES + 50)]
    s = GraphState(expanded=frozenset([*names, "Default"]))
    kept = s.to_json()["expanded"]
    assert len(kept) == REMEMBERED_SCOPES and kept[0] == "Default"
    assert len(GraphState.from_json({"expanded": names * 2}).expanded) <= REMEMBERED_SCOPES


def test_a_bad_remembered_state_gives_the_defaults():
    for data in ({}, {"graph": "x"}, {"graph": ["only one"]}, {"graph": ["a", 3]}, {"graph": ["a", "b", "c"]},
                 {"optimized": "yes", "expanded": "Default", "selected": 3, "search": None}, [], None):
        s = GraphState.from_json(data)  # type: ignore[arg-type]
        assert s.graph is None and not s.optimized and s.expanded == frozenset()
        assert s.selected is None and s.search == ""
    assert GraphState.from_json({"expanded": ["Default", 3, None]}).expanded == {"Default"}
