"""Built graphs kept between runs (issue 14): a kept build put back together answers every query
exactly as a fresh build does; damaged, foreign and stale entries are dropped and rebuilt."""
from __future__ import annotations

from pathlib import Path

import pytest

from tui_insight.summary.formats.graph import read_graph
from tui_insight.summary.formats.graph_build import build_graph
from tui_insight.summary.formats.writer import SummaryWriter, make_graph, write_pb_graph
from tui_insight.summary.store import graph_cache
from tui_insight.summary.store.cache import SummaryCache
from tui_insight.summary.store.disk_cache import DiskCache

TENSORBOARD_LOGS = Path(__file__).resolve().parents[1] / "fixtures" / "tensorboard"


def everything(graph) -> list:
    """What a user can ask a graph, node by node in its order (this works out every lazy part:
    scope edges, attributes, shapes, dynamic flags)."""
    out = [graph.problems, graph.optimized, graph.names]
    for node in graph:
        out.append((node.to_dict(), node.scope, node.full_name, node.node_id,
                    [child.name for child in graph.children(node.name)]))
    out.append([child.name for child in graph.children("")])
    out.append([graph.search(text) for text in ("conv", "relu", "op1", "weight", "[")])
    return out


def kept_and_back(graph, proto):
    return graph_cache.decode(graph_cache.encode(graph), proto)


def hand_made_graphs():
    """Graphs that take each step of the build: parameters copied into scopes, consts,
    aggregation (and of parameters, laid out apart), a node named like a scope, dynamic shapes,
    control edges, pass-through nodes (the optimized view removes them)."""
    yield "copies and consts", make_graph(
        [{"name": "1", "op_type": "Conv2D", "scope": "Default/net/conv", "inputs": ["x", "w"],
          "full_name": "Default/net/conv/Conv2D-op1", "shape": [1, 4, 8, 8]},
         {"name": "2", "op_type": "ReLU", "scope": "Default/net", "inputs": ["1"],
          "full_name": "Default/net/ReLU-op2", "shape": [1, 4, -1, 8]},
         {"name": "3", "op_type": "Load", "scope": "Default/net", "inputs": ["2"], "shape": [1]},
         {"name": "4", "op_type": "Mul", "scope": "Default/c", "inputs": ["3", ("1",)], "shape": [1, 2]}],
        [{"name": "x", "shape": [1, 3, 8, 8]}, {"name": "w", "shape": [4, 3, 3, 3]}])
    nodes = [{"name": "0", "op_type": "Input", "scope": "Default", "shape": [1]}]
    nodes += [{"name": str(i), "op_type": "ReLU", "scope": "Default/blk", "inputs": ["0"], "shape": [1]}
              for i in range(1, 13)]
    yield "aggregation", make_graph(nodes)
    params = [{"name": f"p{i}", "shape": [i + 1]} for i in range(5)]
    yield "parameter group", make_graph([{"name": "1", "op_type": "AddN", "scope": "Default/m",
                                          "inputs": [f"p{i}" for i in range(5)]}], params)
    yield "named like a scope", make_graph([
        {"name": "1", "op_type": "Conv2D", "scope": "Default", "full_name": "Default/a", "shape": [1]},
        {"name": "2", "op_type": "ReLU", "scope": "Default/a", "inputs": ["1"], "shape": [1]}])


@pytest.mark.parametrize("optimized", [False, True], ids=["normal", "optimized"])
def test_a_kept_build_answers_like_a_fresh_one_on_every_fixture_graph(fixture_cache, optimized):
    tb_cache = SummaryCache(str(TENSORBOARD_LOGS))
    tb_cache.reload()
    sources = [source for cache in (fixture_cache, tb_cache) for view in cache.jobs.values()
               for source in cache.job(view.train_id).graphs.values()]
    assert len(sources) >= 4  # three MindSpore jobs and a TensorBoard graph
    for source in sources:
        proto, _ = read_graph(source)
        fresh = build_graph(proto, optimized)
        kept = kept_and_back(build_graph(proto, optimized), proto)
        assert everything(kept) == everything(fresh), source.path


@pytest.mark.parametrize("optimized", [False, True], ids=["normal", "optimized"])
def test_a_kept_build_answers_like_a_fresh_one_on_graphs_taking_every_step(optimized):
    for name, proto in hand_made_graphs():
        fresh = build_graph(proto, optimized)
        assert everything(kept_and_back(build_graph(proto, optimized), proto)) == everything(fresh), name


def test_a_kept_build_of_a_folded_hostile_graph_keeps_its_problems(tmp_path):
    from hostile_logs import write_deep_graph

    write_deep_graph(tmp_path / "job", depth=500)
    cache = SummaryCache(str(tmp_path))
    cache.reload()
    proto, _ = read_graph(next(iter(cache.job("./job").graphs.values())))
    fresh = build_graph(proto)
    assert fresh.problems  # folded past the depth limit
    assert everything(kept_and_back(build_graph(proto), proto)) == everything(fresh)


def _job_with_graph(root: Path, proto) -> SummaryCache:
    with SummaryWriter(root / "run", timestamp=1_700_000_000) as writer:
        writer.add_graph(proto, wall_time=1_700_000_000.0)
        writer.add_scalar("loss", 1.0)
        writer.record(1, wall_time=1_700_000_001.0)
    cache = SummaryCache(str(root))
    cache.reload()
    return cache


def test_the_second_open_reads_the_kept_build_and_a_copy_of_the_file_finds_it_too(tmp_path):
    proto = next(graph for name, graph in hand_made_graphs() if name == "aggregation")
    cache = _job_with_graph(tmp_path / "logs", proto)
    source = next(iter(cache.job("./run").graphs.values()))
    keep = tmp_path / "cache"
    first = graph_cache.built_graph(source, False, root=keep, keep_over=0)
    kept = list((keep / "snapshots").glob("graph-*.snap"))
    assert len(kept) == 1
    read, data = read_graph(source)
    assert graph_cache.entry_path(keep, data, False) == kept[0]
    assert graph_cache.load(kept[0], read) is not None  # what the second open takes
    assert everything(graph_cache.built_graph(source, False, root=keep, keep_over=0)) == everything(first)
    # The optimized view is another entry; the same graph in another run's file is the same one.
    graph_cache.built_graph(source, True, root=keep, keep_over=0)
    other = _job_with_graph(tmp_path / "copy", proto)
    graph_cache.built_graph(next(iter(other.job("./run").graphs.values())), False, root=keep, keep_over=0)
    assert len(list((keep / "snapshots").glob("graph-*.snap"))) == 2
    # Kept builds are cache entries: counted in the size bound and cleaned up with the rest.
    assert DiskCache(keep).size() == sum(p.stat().st_size for p in (keep / "snapshots").iterdir())


def test_a_pb_graph_is_kept_too(tmp_path):
    proto = next(graph for name, graph in hand_made_graphs() if name == "parameter group")
    _job_with_graph(tmp_path / "logs", next(graph for name, graph in hand_made_graphs() if name == "aggregation"))
    write_pb_graph(tmp_path / "logs" / "run" / "model.pb", proto)
    cache = SummaryCache(str(tmp_path / "logs"))
    cache.reload()
    (source,) = [source for source in cache.job("./run").graphs.values() if source.kind == "pb"]
    fresh = everything(build_graph(proto))
    assert everything(graph_cache.built_graph(source, False, root=tmp_path / "cache", keep_over=0)) == fresh
    assert everything(graph_cache.built_graph(source, False, root=tmp_path / "cache", keep_over=0)) == fresh


@pytest.mark.parametrize("damage", ["flipped byte", "cut", "other format", "another graph"])
def test_a_bad_entry_is_dropped_and_the_graph_built_again(tmp_path, damage):
    proto = next(graph for name, graph in hand_made_graphs() if name == "copies and consts")
    cache = _job_with_graph(tmp_path / "logs", proto)
    source = next(iter(cache.job("./run").graphs.values()))
    keep = tmp_path / "cache"
    fresh = everything(graph_cache.built_graph(source, False, root=keep, keep_over=0))
    (path,) = (keep / "snapshots").glob("graph-*.snap")
    data = bytearray(path.read_bytes())
    if damage == "flipped byte":
        data[len(data) // 2] ^= 0x40
    elif damage == "cut":
        del data[len(data) // 2:]
    elif damage == "other format":
        data[8] += 1
    else:  # an entry of a bigger graph under this one's name: its proto indexes do not fit
        big = build_graph(next(g for n, g in hand_made_graphs() if n == "aggregation"))
        data = bytearray(graph_cache.encode(big))
    path.write_bytes(bytes(data))
    read, _ = read_graph(source)
    assert graph_cache.load(path, read) is None and not path.exists()
    assert everything(graph_cache.built_graph(source, False, root=keep, keep_over=0)) == fresh
    assert path.exists()  # kept again


def test_no_cache_directory_keeps_nothing(tmp_path):
    proto = next(graph for name, graph in hand_made_graphs() if name == "aggregation")
    cache = _job_with_graph(tmp_path / "logs", proto)
    source = next(iter(cache.job("./run").graphs.values()))
    assert everything(graph_cache.built_graph(source, False, root=None)) == everything(build_graph(proto))
    assert sorted(p.name for p in tmp_path.iterdir()) == ["logs"]


def test_a_graph_built_in_no_time_is_not_kept(tmp_path):
    proto = next(graph for name, graph in hand_made_graphs() if name == "aggregation")
    cache = _job_with_graph(tmp_path / "logs", proto)
    source = next(iter(cache.job("./run").graphs.values()))
    graph_cache.built_graph(source, False, root=tmp_path / "cache")  # milliseconds: rebuilt each time
    assert not list(tmp_path.glob("cache/snapshots/graph-*"))
