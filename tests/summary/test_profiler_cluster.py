"""The profiler across ranks, on four ranks' profiles written by MindSpore 2.10 on CPU
(`mindspore_ranks/`, see `make_ranks_profile.py`): ranks from paths and file names, step times,
the op-type spread, the export rows."""
from __future__ import annotations

import csv
import io
import math
import shutil
from pathlib import Path

from fixture_paths import RANKS_LOGS

from tui_insight.summary.formats.profiler import find_profiles, load_profile
from tui_insight.summary.queries.profiler_cluster import (
    CLUSTER_COLUMNS,
    cluster,
    cluster_rows,
    rank_groups,
    rank_jobs,
    rank_of,
    rank_refs,
)

RANKS = RANKS_LOGS


def type_rows(path: Path) -> dict[str, float]:
    """op type -> total_compute_time, read straight from a `cpu_op_type_info_N.csv`."""
    (name,) = path.glob("*/FRAMEWORK/cpu_op_type_info_*.csv")
    return {row["op_type"]: float(row["total_compute_time"]) for row in csv.DictReader(io.StringIO(name.read_text()))}


def refs_of(root: Path) -> list:
    return [(f"./{d.name}", ref) for d in sorted(root.iterdir()) for ref in find_profiles(str(d))]


def loaded(root: Path, calls: bool = True):
    return [(rank, tid, load_profile(ref, calls=calls, shapes=False, timeline=False))
            for rank, tid, ref in rank_refs(refs_of(root))]


def test_ranks_come_from_the_rank_directories():
    chosen = rank_refs(refs_of(RANKS))
    assert [(rank, tid) for rank, tid, _ in chosen] == [(i, f"./rank_{i}") for i in range(4)]


def test_rank_from_the_file_suffix_when_the_path_names_none(tmp_path):
    for i in (1, 2):
        shutil.copytree(RANKS / f"rank_{i}", tmp_path / f"job{i}")
    chosen = rank_refs(refs_of(tmp_path))
    assert [(rank, tid) for rank, tid, _ in chosen] == [(1, "./job1"), (2, "./job2")]
    assert rank_of(find_profiles(str(tmp_path / "job1"))[0]) == 1


def test_device_directories_name_ranks_and_one_rank_is_no_cluster(tmp_path):
    shutil.copytree(RANKS / "rank_3", tmp_path / "device_7")
    (ref,) = find_profiles(str(tmp_path / "device_7"))
    assert rank_of(ref) == 7
    assert rank_refs(refs_of(tmp_path)) == []


def test_op_type_times_per_rank_and_their_spread():
    result = cluster(loaded(RANKS))
    written = [type_rows(RANKS / f"rank_{i}") for i in range(4)]
    assert {t.op_type for t in result.types} == set(written[0])
    for t in result.types:
        times = [w[t.op_type] for w in written]
        assert t.times_ms == tuple(times)
        assert t.min_ms == min(times) and t.max_ms == max(times)
        assert math.isclose(t.spread_ms, max(times) - min(times))
        assert t.slowest_rank == times.index(max(times))
        assert t.fastest_rank == times.index(min(times))
    spreads = [t.spread_ms for t in result.types]
    assert spreads == sorted(spreads, reverse=True)


def test_step_times_per_rank_and_the_slowest_ranks():
    result = cluster(loaded(RANKS))
    assert result.by_steps
    assert [r.steps for r in result.ranks] == [6] * 4
    times = {r.rank: r.step_ms for r in result.ranks}
    assert list(result.slowest) == sorted(times, key=lambda k: -times[k])
    assert math.isclose(result.spread_ms, max(times.values()) - min(times.values()))
    for r in result.ranks:
        assert r.slowest_op == "MatMul"  # the MLP's time is in its matmuls on every rank
        assert r.first_step_ms > r.step_ms  # the first step compiles


def test_without_calls_total_op_times_are_compared():
    result = cluster(loaded(RANKS, calls=False))
    assert not result.by_steps
    assert all(r.steps == 0 and math.isnan(r.step_ms) for r in result.ranks)
    totals = {r.rank: r.total_ms for r in result.ranks}
    assert result.slowest[0] == max(totals, key=lambda k: totals[k])
    rows = [row for row in cluster_rows(".", result) if row["op_type"] == "(total)"]
    assert {row["rank"]: row["ms"] for row in rows} == totals


def test_a_type_one_rank_did_not_run_is_an_empty_cell(tmp_path):
    for i in (0, 1):
        shutil.copytree(RANKS / f"rank_{i}", tmp_path / f"rank_{i}")
    (path,) = (tmp_path / "rank_1").glob("*/FRAMEWORK/cpu_op_type_info_1.csv")
    path.write_text("\n".join(line for line in path.read_text().splitlines() if not line.startswith("ReLU,")) + "\n")
    result = cluster(loaded(tmp_path, calls=False))
    (relu,) = [t for t in result.types if t.op_type == "ReLU"]
    assert math.isnan(relu.times_ms[1]) and relu.spread_ms == 0.0 and relu.slowest_rank == 0
    relu_rows = [row for row in cluster_rows(".", result) if row["op_type"] == "ReLU"]
    assert [row["rank"] for row in relu_rows] == [0]
    assert all(tuple(row) == CLUSTER_COLUMNS for row in cluster_rows(".", result))


def test_export_rows_follow_the_table():
    result = cluster(loaded(RANKS))
    rows = cluster_rows("grp", result)
    steps = [row for row in rows if row["op_type"] == "(step)"]
    assert [row["rank"] for row in steps] == [0, 1, 2, 3]
    assert {row["slowest_rank"] for row in steps} == {result.slowest[0]}
    matmul = [row for row in rows if row["op_type"] == "MatMul"]
    assert [row["ms"] for row in matmul] == list(result.types[0].times_ms)
    assert all(row["group"] == "grp" and row["spread_ms"] == row["max_ms"] - row["min_ms"] for row in rows)


def test_ranks_are_grouped_by_the_directory_above_them():
    paths = {"./a/rank_0": "/l/a/rank_0", "./a/rank_1": "/l/a/rank_1", "./b/device_0": "/l/b/device_0",
             "./b/device_1/x": "/l/b/device_1/x", "./c": "/l/c", "./d": "/l/d"}
    assert rank_jobs(paths, "./a/rank_1") == ["./a/rank_0", "./a/rank_1"]
    assert rank_jobs(paths, "./b/device_0") == ["./b/device_0", "./b/device_1/x"]
    assert rank_jobs(paths, "./c") == ["./c", "./d"]  # no rank directory: the siblings
    assert rank_groups(paths) == [["./a/rank_0", "./a/rank_1"], ["./b/device_0", "./b/device_1/x"], ["./c", "./d"]]
