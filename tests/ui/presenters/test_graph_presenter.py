"""What the graph view says (title, hint, messages, picker lines), from graphs written by the
writer and built as the view builds them: plain unit tests, no app, no Pilot."""
from __future__ import annotations

from dataclasses import replace
from pathlib import Path

from rich.text import Text
from uihelp import T0

from tui_insight.summary.formats.writer import SummaryWriter, make_graph, write_pb_graph
from tui_insight.summary.store.cache import SummaryCache
from tui_insight.ui.presenters import graph as present
from tui_insight.ui.presenters.graph import build_source
from tui_insight.ui.state.graph import GraphState

NODES = [{"name": "1", "op_type": "Conv2D", "scope": "Default/net", "full_name": "Default/net/Conv2D-op1",
          "shape": [1]},
         {"name": "2", "op_type": "ReLU", "scope": "Default/net", "full_name": "Default/net/ReLU-op2",
          "inputs": ["1"], "shape": [1]}]


def job_with_graphs(root: Path, pb: dict[str, object]) -> SummaryCache:
    job = root / "job"
    with SummaryWriter(job, timestamp=T0, wall_time=float(T0)) as writer:
        writer.add_graph(make_graph(NODES, name="in_summary"), wall_time=float(T0))
        writer.add_scalar("loss", 1.0)
        writer.record(1, wall_time=T0 + 1.0)
    for name, proto in pb.items():
        if isinstance(proto, bytes):
            (job / name).write_bytes(proto)
        else:
            write_pb_graph(job / name, proto)
    cache = SummaryCache(str(root))
    cache.reload()
    return cache


def entries_of(cache: SummaryCache) -> list[present.GraphEntry]:
    job = cache.job("./job")
    return [("./job", tag, job.graphs[tag]) for tag in sorted(job.graphs)]


def test_the_title_names_the_graph_its_source_and_which_of_several_and_the_hint_its_size(tmp_path):
    cache = job_with_graphs(tmp_path, {"[red]g[b].pb": make_graph(NODES, name="m")})
    entries = entries_of(cache)
    index = next(i for i, e in enumerate(entries) if e[1] == "[red]g[b].pb")
    tid, tag, source = entries[index]
    state = GraphState().with_graph((tid, tag))
    built = build_source(source, False)
    title, hint = present.graph_status(state, entries, source, built, 0, compare=False, has_pipeline=False)
    assert title == f"[b]Graph[/b]  \\[red]g\\[b].pb  [dim]{present.source_text(source)} · graph {index + 1}/2 (g)[/dim]"
    assert hint == f"{len(built.graph):,} nodes · normal (o: optimized) · / search"
    building = present.graph_status(state.toggle_optimized(), entries, source, None, 0, True, True)
    assert building[0].startswith("[b]Graph[/b]  ./job · ")
    assert building[1] == "building… · [b]optimized[/b] (o) · / search · d dataset pipeline"


def test_the_hint_counts_the_matches_of_a_search(tmp_path):
    cache = job_with_graphs(tmp_path, {})
    entries = entries_of(cache)
    state = GraphState().choose_graph([(t, g) for t, g, _ in entries])
    built = build_source(entries[0][2], False)
    searching = state.with_search("relu")
    assert present.graph_status(searching, entries, entries[0][2], None, 0, False, False)[1].endswith(
        "search [b]relu[/b]: once the graph is built")
    assert present.graph_status(searching, entries, entries[0][2], built, 1, False, False)[1].endswith(
        "search [b]relu[/b]: 1/1 (n/N)")
    assert present.graph_status(state.with_search("nothing"), entries, entries[0][2], built, 0, False, False)[1] \
        .endswith("search [b]nothing[/b]: no match")


def test_an_unreadable_graph_says_why_and_a_missing_one_that_it_is_gone(tmp_path):
    cache = job_with_graphs(tmp_path, {"broken.pb": b"\x0a\xff\xff\xff\xff garbage"})
    entries = entries_of(cache)
    tid, tag, source = next(e for e in entries if e[1] == "broken.pb")
    built = build_source(source, False)
    said = present.error_text((tid, tag, False), built)
    assert said.startswith("[b]The graph broken.pb of ./job cannot be read.[/b]\n\n") and "broken.pb:" in said
    state = GraphState().with_graph(("./job", "gone.pb"))
    assert present.no_graph_text(state, ["./job"], ["./job"], False, True, False) == \
        "The graph gone.pb is no longer in ./job."


def test_no_graph_says_why_and_offers_the_pipeline_when_there_is_one():
    state = GraphState()
    assert present.no_graph_text(state, ["./a"], [], False, False, False) == "./a: no longer in LOGDIR."
    assert present.no_graph_text(state, ["./a"], ["./a"], True, False, False) == "Loading the job…"
    said = present.no_graph_text(state, ["./a"], ["./a"], False, False, True)
    assert "has no computational graph" in said and said.endswith("Press [b]d[/b] for the dataset pipeline.")
    assert present.graph_status(state, [], None, None, 0, False, True) == \
        ("[b]Graph[/b]  [dim]none[/dim]", "[dim]d: dataset pipeline[/dim]")
    assert "has no dataset graph" in present.no_pipeline_text(["./a"], None)


def test_the_pipeline_title_counts_its_operations_and_offers_the_other_jobs():
    state = GraphState().with_pipeline_job("./a")
    assert present.pipeline_status(state, 4, 1) == ("[b]Dataset pipeline[/b]  ./a  [dim]4 operations[/dim]",
                                                     "[dim]d: back to the graph[/dim]")
    assert present.pipeline_status(state, 1, 2)[0].endswith("[dim]1 operation[/dim]")
    assert present.pipeline_status(state, 0, 2)[1] == "[dim]d: back to the graph · g: another job[/dim]"


def test_the_picker_lists_each_graph_with_where_it_comes_from(tmp_path):
    cache = job_with_graphs(tmp_path, {"exported.pb": make_graph(NODES, name="m")})
    entries = entries_of(cache)
    labels = [str(label) for label in present.graph_labels(entries, compare=False)]
    assert [label.split("  ")[0] for label in labels] == [tag for _, tag, _ in entries]
    assert [label.split("  ")[1] for label in labels] == [present.source_text(s) for *_, s in entries]
    assert str(present.graph_labels(entries, compare=True)[0]).startswith("./job  ")


def test_the_first_graph_is_chosen_unless_the_chosen_one_is_still_there(tmp_path):
    cache = job_with_graphs(tmp_path, {"a.pb": make_graph(NODES, name="m")})
    jobs = list(cache.jobs.values())
    first = present.default_graph(GraphState(), jobs)
    assert first.graph == ("./job", sorted(cache.job("./job").graphs)[0])
    assert present.chosen_source(first, cache.job) == cache.job("./job").graphs[first.graph[1]]
    kept = GraphState().with_graph(("./job", "a.pb"))
    assert present.default_graph(kept, jobs) == kept
    gone = GraphState().with_graph(("./job", "gone.pb"))
    assert present.default_graph(gone, jobs).graph == first.graph
    assert present.chosen_source(gone, cache.job) is None
    assert present.chosen_source(GraphState(), cache.job) is None
    assert present.default_graph(gone, []).graph is None  # no job loading: nothing to wait for
    assert present.no_graph_message(gone, ["./job"], jobs) == "The graph gone.pb is no longer in ./job."
    assert present.no_graph_message(gone, ["./job"], []) == "./job: no longer in LOGDIR."


def test_g_offers_the_graphs_or_the_pipelines_and_says_why_not(tmp_path):
    cache = job_with_graphs(tmp_path, {"a.pb": make_graph(NODES, name="m")})
    entries = present.graph_entries(list(cache.jobs.values()))
    assert entries == entries_of(cache)
    state = GraphState().with_graph(("./job", entries[1][1]))
    pick = present.pick(state, entries, [], compare=False)
    assert isinstance(pick, present.Pick)
    assert (pick.title, pick.current) == ("Show the graph", 1)
    assert pick.choices == [("./job", tag) for _, tag, _ in entries]
    assert [label.plain for label in pick.labels] == [label.plain for label in present.graph_labels(entries, False)]
    assert present.pick(state, entries[:1], [], False) == "This job has only one graph"
    assert present.pick(state, [], [], False) == "No graph here"
    piped = replace(state, mode="pipeline", pipeline_job="./b")
    pick = present.pick(piped, entries, ["./a", "./b"], False)
    assert isinstance(pick, present.Pick)
    assert (pick.title, pick.current, pick.choices) == ("Dataset pipeline of", 1, ["./a", "./b"])
    assert [label.plain for label in pick.labels] == ["./a", "./b"]
    assert present.pick(piped, entries, ["./a"], False) == "Only one job with a dataset pipeline here"
    assert present.pick(piped, entries, [], False) == "No dataset pipeline here"


def test_no_match_says_the_search_as_typed_or_how_to_search():
    assert Text.from_markup(present.no_match_text("[b]x")).plain == "No node name matches '[b]x'"
    assert present.no_match_text("") == "No search: press / to search node names"
