"""Profiles: finding them, reading them against the truth file's op-type rows (real MindSpore 2.10
output), the derived steps and shapes, the export rows, and bad input (never a raise)."""
from __future__ import annotations

import json
import math
import os
import shutil
from pathlib import Path

import numpy as np
import pytest
from fixture_paths import EXTRAS_LOGS, FIXTURES

from tui_insight.summary.formats.profiler import OpType, find_profiles, load_profile, load_timeline
from tui_insight.summary.formats.profiler_calls import Calls, parse_execute_timestamps, step_count
from tui_insight.summary.queries.profiler import (
    OP_COLUMNS,
    OP_TYPE_COLUMNS,
    profile_op_rows,
    profile_op_type_rows,
    profile_rows,
    step_times,
    top_types,
)

TRUTH = json.loads((FIXTURES / "mindspore_extras.truth.json").read_text())["profiles"]
PROFILED = ["./profiled", "./profiled_legacy", "./profiled_pynative"]


def job_dir(train_id: str) -> Path:
    return EXTRAS_LOGS / train_id[2:]


def the_profile(train_id: str, **kwargs):
    refs = find_profiles(str(job_dir(train_id)))
    assert len(refs) == 1
    return load_profile(refs[0], **kwargs)


def copy_job(tmp_path: Path, train_id: str = "./profiled_legacy") -> tuple[Path, Path]:
    """A copy of a fixture profile: (job dir, FRAMEWORK dir)."""
    target = tmp_path / train_id[2:]
    shutil.copytree(job_dir(train_id), target, ignore=shutil.ignore_patterns("*.ckpt", "events.*"))
    profile = next(target.glob("*_ascend_ms"))
    return target, profile / "FRAMEWORK"


# -- differential: op-type rows as written --------------------------------------------------------

@pytest.mark.parametrize("train_id", PROFILED)
def test_op_types_match_the_truth(train_id):
    profile = the_profile(train_id)
    assert profile.problems == ()
    truth = TRUTH[train_id]
    ours = {t.op_type: t for t in profile.op_types}
    assert set(ours) == {row["op_type"] for row in truth["op_types"]}
    for row in truth["op_types"]:
        t = ours[row["op_type"]]
        assert t.occurrences == int(row["type_occurrences"])
        assert t.per_step == float(row["execution_frequency(per-step)"])
        assert t.total_ms == float(row["total_compute_time"])
        assert t.avg_ms == float(row["avg_time(ms)"])
        assert t.share == float(row["percent"])  # a fraction, kept as one
    assert len(profile.operators) == truth["ops"]
    assert max(profile.operators, key=lambda o: o.total_ms).name == truth["top_op"]
    assert math.isclose(sum(t.share for t in profile.op_types), 1.0, rel_tol=1e-3)


@pytest.mark.parametrize("train_id", PROFILED)
def test_operators_agree_with_their_calls_and_types(train_id):
    profile = the_profile(train_id)
    for op in profile.operators:
        starts, durations = profile.calls.of(op.full_name)
        assert len(starts) == op.occurrences
        assert math.isclose(float(durations.sum()), op.total_ms, rel_tol=1e-3, abs_tol=1e-5)
        assert np.all(np.diff(starts) >= 0)
    types = {t.op_type: t for t in profile.op_types}
    for op_type, t in types.items():
        ops = [o for o in profile.operators if o.op_type == op_type]
        assert sum(o.occurrences for o in ops) == t.occurrences


def test_scopes_and_names():
    profile = the_profile("./profiled")
    conv = next(o for o in profile.operators if o.name == "Conv2D-op0")
    assert conv.scope == "Default/network-WithLossCell/_backbone-Net/conv-Conv2d"
    matmuls = [o for o in profile.operators if o.name == "MatMul-op0"]
    assert len(matmuls) == 2 and len({o.full_name for o in matmuls}) == 2  # names are not keys
    pynative = the_profile("./profiled_pynative")
    assert next(o for o in pynative.operators if o.full_name == "MatMul").scope == ""


def test_find_profiles_newest_first_and_none(tmp_path):
    assert find_profiles(str(tmp_path)) == []
    for name in ("vm_1_20260101000000000_ascend_ms", "vm_2_20260301000000000_ascend_ms"):
        shutil.copytree(next(job_dir("./profiled").glob("*_ascend_ms")), tmp_path / name)
    refs = find_profiles(str(tmp_path))
    assert [Path(r.path).name for r in refs] == ["vm_2_20260301000000000_ascend_ms",
                                                "vm_1_20260101000000000_ascend_ms"]
    assert refs[0].name == "vm_2_20260301000000000_ascend_ms"
    # the profile directory itself is a job too
    own = find_profiles(refs[0].path)
    assert len(own) == 1 and own[0].path == refs[0].path


def test_legacy_layout(tmp_path):
    """MindInsight's older layout: `profiler/` with `profiler_info_<dev>.json` and flat files."""
    source = next(job_dir("./profiled_legacy").glob("*_ascend_ms")) / "FRAMEWORK"
    flat = tmp_path / "job" / "profiler"
    shutil.copytree(source, flat)
    (flat / "profiler_info_0.json").write_text("{}")
    gpu = tmp_path / "job" / "profiler_gpu"
    gpu.mkdir()
    (gpu / "profiler_info_3.json").write_text("{}")
    (gpu / "gpu_op_type_info_3.csv").write_text(
        "op_type,type_occurrences,total_time,proportion,avg_time\nMatMul,4,2000.0,0.8,500.0\n")
    (gpu / "gpu_op_detail_info_3.csv").write_text(
        "op_side,op_type,op_name,op_full_name,op_occurrences,op_total_time,op_avg_time,proportion,"
        "cuda_activity_cost_time,cuda_activity_call_count\n"
        "Device,MatMul,MatMul-op1,Default/MatMul-op1,4,2000.0,500.0,0.8,1.0,4\n")
    refs = {Path(r.path).name: r for r in find_profiles(str(tmp_path / "job"))}
    assert set(refs) == {"profiler", "profiler_gpu"}
    cpu = load_profile(refs["profiler"])
    assert cpu.problems == () and len(cpu.op_types) == 10 and cpu.memory is not None
    assert cpu.timeline is None  # MindInsight's layout has no trace_view.json
    g = load_profile(refs["profiler_gpu"])
    assert refs["profiler_gpu"].target == "gpu" and refs["profiler_gpu"].name == "profiler_gpu · device 3"
    assert g.op_types[0].total_ms == 2.0 and g.op_types[0].avg_ms == 0.5  # us -> ms
    assert g.operators[0].full_name == "Default/MatMul-op1" and g.operators[0].total_ms == 2.0
    assert not any("missing" in p and "timestamp" in p for p in g.problems)


# -- steps, shapes, memory, timeline ----------------------------------------------------------------

@pytest.mark.parametrize("train_id,steps", [("./profiled", 4), ("./profiled_legacy", 16), ("./profiled_pynative", 4)])
def test_steps_from_the_kth_call(train_id, steps):
    profile = the_profile(train_id)
    times = step_times(profile.calls)
    assert len(times) == steps and step_count(profile.calls) == steps
    assert times.unplaced == ()
    assert math.isclose(float(times.busy_ms.sum()), float(profile.calls.durations.sum()), rel_tol=1e-9)
    assert np.all(times.span_ms >= times.busy_ms - 1e-6)  # one thread: the span holds the op time
    assert np.all(np.diff(times.starts) > 0)
    assert times.span_ms[0] == times.span_ms.max()  # the first step compiles the graph


def test_steps_with_ops_called_several_times_per_step():
    calls = Calls(("a", "b", "c", "d"), np.array([0, 2, 6, 7, 9]),
                  np.array([0, 100, 10, 20, 110, 120, 50, 30, 130], dtype=np.int64) * 1_000_000,
                  np.array([1, 1, 1, 1, 1, 1, 1, 1, 1], dtype=float))
    times = step_times(calls)  # most ops run twice: two steps; b runs twice per step
    assert list(times.steps) == [1, 2]
    assert list(times.busy_ms) == [4.0, 4.0]
    assert list(times.span_ms) == [31.0, 31.0]
    assert times.unplaced == ("c",)  # one call, two steps: cannot be placed


def test_shapes_matched_call_by_call():
    profile = the_profile("./profiled")
    assert profile.shapes.by_call
    forward, backward = sorted((o for o in profile.operators if o.name == "MatMul-op0"), key=lambda o: o.full_name)
    assert profile.shapes.of(backward) == (("[8, 4]; [4, 256]; NoShape; NoShape", 4),)
    assert profile.shapes.of(forward) == (("[8, 256]; [4, 256]; NoShape; NoShape", 4),)
    pynative = the_profile("./profiled_pynative")
    conv = next(o for o in pynative.operators if o.name == "Conv2D-op0")
    assert pynative.shapes.of(conv) == (("[8, 1, 8, 8]; [4, 1, 3, 3]", 4),)


def test_memory_record():
    profile = the_profile("./profiled_legacy")
    memory = profile.memory
    assert memory is not None and len(memory) == 420
    index, peak = memory.peak()
    assert peak == int(memory.allocated.max()) and memory.allocated[index] == peak
    assert np.all(memory.reserved >= memory.allocated)
    assert the_profile("./profiled").memory is None


def test_timeline_tracks():
    timeline = the_profile("./profiled").timeline
    labels = [t.label for t in timeline.tracks]
    assert labels[0] == "CPU OP · Thread 0"
    assert labels[1:] == [f"Scope Layer · Thread {i}" for i in range(6)]
    assert timeline.span_count == 158
    top = timeline.tracks[1]
    assert top.spans[0].name == "Default" and top.spans[0].duration_us == pytest.approx(17617.652)
    assert timeline.start_us <= min(t.starts[0] for t in timeline.tracks)


def test_top_types_and_other():
    types = [OpType(f"T{i}", 1, 1.0, float(i), float(i), i / 300) for i in range(25)]
    top = top_types(types, 20)
    assert len(top) == 21 and top[0].op_type == "T24" and top[-1].op_type == "other"
    assert top[-1].total_ms == sum(range(5)) and top[-1].occurrences == 5
    assert top_types(types[:3]) == sorted(types[:3], key=lambda t: -t.total_ms)


# -- export rows ------------------------------------------------------------------------------------

def test_export_rows():
    profile = the_profile("./profiled")
    ops = profile_op_rows("./profiled", profile)
    assert len(ops) == 15 and list(ops[0]) == list(OP_COLUMNS)
    assert ops[0]["op_name"] == "Conv2D-op0" and ops[0]["share"] == 0.322536
    types = profile_op_type_rows("./profiled", profile)
    assert [list(r) for r in types[:1]] == [list(OP_TYPE_COLUMNS)]
    assert types[0]["op_type"] == "MatMul" and types[0]["total_ms"] == 36.0842
    all_ops, all_types, problems = profile_rows("./profiled", str(job_dir("./profiled")))
    assert all_ops == ops and all_types == types and problems == []
    assert profile_rows("./x", "/nonexistent/dir") == ([], [], [])


# -- bad input --------------------------------------------------------------------------------------

def test_truncated_csv(tmp_path):
    job, framework = copy_job(tmp_path)
    detail = framework / "cpu_op_detail_info_0.csv"
    data = detail.read_bytes()
    detail.write_bytes(data[: len(data) - 40])  # the last row cut in the middle
    types = framework / "cpu_op_type_info_0.csv"
    types.write_bytes(types.read_bytes()[:-30])
    profile = load_profile(find_profiles(str(job))[0])
    assert len(profile.operators) == 14
    assert len(profile.op_types) == 9
    assert any("cpu_op_detail_info_0.csv: line 16 cut short" in p for p in profile.problems)
    assert any("cpu_op_type_info_0.csv" in p and "cut short" in p for p in profile.problems)


def test_truncated_timestamps_and_framework(tmp_path):
    job, framework = copy_job(tmp_path)
    stamps = framework / "cpu_op_execute_timestamp_0.txt"
    stamps.write_bytes(stamps.read_bytes()[:-25])
    fw = framework / "cpu_framework_0.txt"
    fw.write_bytes(fw.read_bytes()[:-10])
    profile = load_profile(find_profiles(str(job))[0])
    assert any("cpu_op_execute_timestamp_0.txt: the last line is cut short" in p for p in profile.problems)
    assert 230 < len(profile.calls) < 240
    assert any("cpu_framework_0.txt" in p for p in profile.all_problems())
    assert profile.shapes is not None and profile.shapes.by_op  # matched by name instead


def test_missing_files(tmp_path):
    job, framework = copy_job(tmp_path)
    (framework / "cpu_op_type_info_0.csv").unlink()
    (framework / "cpu_framework_0.txt").unlink()
    profile = load_profile(find_profiles(str(job))[0])
    assert "FRAMEWORK/cpu_op_type_info_0.csv: missing" in profile.problems
    assert "op types summed from the operators" in profile.problems
    assert profile.op_types_derived
    truth = {row["op_type"]: row for row in TRUTH["./profiled_legacy"]["op_types"]}
    for t in profile.op_types:  # summed from the operators, they agree with the lost file
        assert t.occurrences == int(truth[t.op_type]["type_occurrences"])
        assert t.per_step == float(truth[t.op_type]["execution_frequency(per-step)"])
        assert t.total_ms == pytest.approx(float(truth[t.op_type]["total_compute_time"]), rel=1e-4)
    assert any("cpu_framework_0.txt: missing" in p for p in profile.all_problems())
    for name in os.listdir(framework):
        (framework / name).unlink()
    empty = load_profile(find_profiles(str(job))[0])
    assert empty.operators == () and len(empty.problems) >= 3


def test_broken_trace(tmp_path):
    job, _ = copy_job(tmp_path)
    trace = next(job.glob("*_ascend_ms")) / "ASCEND_PROFILER_OUTPUT" / "trace_view.json"
    trace.write_bytes(trace.read_bytes()[:5000])
    profile = load_profile(find_profiles(str(job))[0])
    assert profile.timeline is not None and profile.timeline.tracks == ()
    assert any("trace_view.json: does not parse" in p for p in profile.all_problems())
    assert len(profile.operators) == 15  # the rest reads as before
    trace.write_text('{"traceEvents": [{"ph": "X", "ts": "x"}, 3, {"ph": "X", "name": "a", "ts": 1, "dur": 2}]}')
    timeline = load_timeline(find_profiles(str(job))[0])
    assert timeline.span_count == 1 and "2 unreadable events skipped" in timeline.problems[0]
    trace.unlink()
    assert "ASCEND_PROFILER_OUTPUT/trace_view.json: missing" in load_timeline(find_profiles(str(job))[0]).problems


def test_garbage_never_raises(tmp_path):
    job, framework = copy_job(tmp_path)
    for name in os.listdir(framework):
        (framework / name).write_bytes(b"\xff\x00garbage;;\n,,,\n" * 3)
    profile = load_profile(find_profiles(str(job))[0])
    assert profile.operators == () and profile.problems
    calls = parse_execute_timestamps("a;b;1,x,0 2,3,0\n", "f", problems := [])
    assert calls.starts.tolist() == [2] and problems == [
        "f: 1 call left out (a start or duration that is not a number, negative or too large)"]


# -- opening in steps, and the fast paths against the plain ones --------------------------------------

@pytest.mark.parametrize("train_id", PROFILED)
def test_opening_in_steps_gives_the_same_profile(train_id):
    from tui_insight.summary.formats.profiler import load_calls, load_shapes, with_calls
    ref = find_profiles(str(job_dir(train_id)))[0]
    whole = load_profile(ref, timeline=False)
    first = load_profile(ref, calls=False, shapes=False, timeline=False)
    assert not first.calls_read and len(first.calls) == 0 and first.operators == whole.operators
    calls, problems = load_calls(ref)
    full = with_calls(first, calls, problems)
    assert full.calls_read and full.problems == whole.problems
    assert full.calls.names == whole.calls.names
    assert np.array_equal(full.calls.starts, whole.calls.starts)
    assert np.array_equal(full.calls.durations, whole.calls.durations)
    assert load_shapes(ref, full) == whole.shapes


def test_fast_number_parsing_matches_python():
    from tui_insight.summary.formats.profiler_calls import _parse_entries, _parse_entries_fast
    rng = np.random.default_rng(3)
    starts = rng.integers(0, 8_999_999_999_999_999_999, 2000, dtype=np.int64)
    texts = [f"{d:.6g}" for d in rng.exponential(1.0, 2000)] + ["0.5", ".5", "5.", "12", "0", "123456.789012"]
    body = " ".join(f"{s},{t},0" for s, t in zip(starts, texts))
    ts, durations = _parse_entries_fast(body)
    assert np.array_equal(ts, starts[: len(ts)])
    assert [float(t) for t in texts[: len(ts)]] == durations.tolist()  # bit for bit
    for odd in ("1,1e-05,0", "1,-1,0", "1,1.2.3,0", "x,1,0", "1,,0", "9999999999999999999,1,0"):
        assert _parse_entries_fast(odd) is None
    assert _parse_entries("1,1e-05,0")[1].tolist() == [1e-05]  # the plain way reads what the fast one cannot
    assert _parse_entries("x,1,0")[0].tolist() == [-1]  # left out by the caller, and counted


def test_memory_fast_path_matches_the_csv_path():
    from tui_insight.summary.formats.profiler import _memory_fast, parse_memory
    framework = next(job_dir("./profiled_legacy").glob("*_ascend_ms")) / "FRAMEWORK"
    text = (framework / "cpu_ms_memory_record_0.txt").read_text()
    fast = _memory_fast(text)
    assert fast is not None and fast.shape == (420, 4)
    slow = parse_memory(text.replace("Timestamp(ns)", "Timestamp (ns)x"), "m", problems := [])  # not the usual header
    assert problems == [] and np.array_equal(slow.times, fast[:, 0]) and np.array_equal(slow.active, fast[:, 3])
    assert _memory_fast(text[:-5]) is None  # cut: the CSV path names the line
    cut = parse_memory(text[:-5], "m", problems := [])
    assert len(cut) == 419 and "cut short" in problems[0]
