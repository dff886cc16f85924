"""Every number of a profile is checked where it is read: any value in any cell of a copy of a
real MindSpore profile (`tests/fixtures/mindspore_extras`), or in any field of a trace event, is
a counted problem of that profile at worst, with every other row, call and event kept."""
from __future__ import annotations

import contextlib
import csv
import io
import json
import shutil
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest
from fixture_paths import EXTRAS_LOGS
from hypothesis import given, settings
from hypothesis import strategies as st

from tui_insight.export import export_snapshot
from tui_insight.summary.formats.profiler import find_profiles, load_profile, load_timeline
from tui_insight.summary.queries.profiler import profile_rows
from tui_insight.summary.store.cache import SummaryCache

ODD_NUMBERS = ["inf", "-inf", "nan", "1e400", "-1e400", "-1", "-0.5", "1e308", "99999999999999999999",
               "9223372036854775807", "１２", "²", "", " ", "0x10", "1_0", "True", "null", "[1]", "1e-400"]
cell_values = st.one_of(st.sampled_from(ODD_NUMBERS), st.text(max_size=12),
                        st.floats().map(repr), st.integers().map(str))
json_values = st.recursive(st.none() | st.booleans() | st.floats() | st.integers() | st.text(max_size=8),
                           lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=4), inner, max_size=3),
                           max_leaves=6)
SETTINGS = settings(max_examples=60, deadline=None)


@pytest.fixture(scope="module")
def original(tmp_path_factory) -> Path:
    """A copy of the profiled fixture job with every kind of file (its memory record too)."""
    target = tmp_path_factory.mktemp("profile") / "profiled_legacy"
    shutil.copytree(EXTRAS_LOGS / "profiled_legacy", target, ignore=shutil.ignore_patterns("*.ckpt", "events.*"))
    return target


@contextlib.contextmanager
def fresh_copy(original: Path) -> Iterator[Path]:
    """The job copied again: each example changes its own."""
    with tempfile.TemporaryDirectory() as directory:
        target = Path(directory) / "job"
        shutil.copytree(original, target)
        yield target


@pytest.fixture
def job(original) -> Iterator[Path]:
    with fresh_copy(original) as target:
        yield target


def framework(job: Path) -> Path:
    return next(job.glob("*_ascend_ms")) / "FRAMEWORK"


def with_cell(path: Path, line: int, column: int, value: str) -> None:
    rows = list(csv.reader(io.StringIO(path.read_text())))
    line = 1 + line % (len(rows) - 1)  # a body row
    rows[line][column % len(rows[line])] = value
    out = io.StringIO()
    csv.writer(out, lineterminator="\n").writerows(rows)
    path.write_text(out.getvalue())


@pytest.mark.parametrize("name,rows", [("cpu_op_detail_info_0.csv", "operators"),
                                       ("cpu_op_type_info_0.csv", "op_types")])
@SETTINGS
@given(line=st.integers(0, 100), column=st.integers(0, 20), value=cell_values)
def test_any_value_in_an_op_table_cell_costs_at_most_its_row(original, name, rows, line, column, value):
    with fresh_copy(original) as job:
        an_op_table_cell(job, name, rows, line, column, value)


def an_op_table_cell(job, name, rows, line, column, value):
    before = len(getattr(load_profile(find_profiles(str(job))[0]), rows))
    with_cell(framework(job) / name, line, column, value)
    profile = load_profile(find_profiles(str(job))[0])
    kept = len(getattr(profile, rows))
    assert kept in (before, before - 1)
    if kept < before:
        assert any(name in p and "left out" in p or "not numbers" in p for p in profile.problems)
    for item in getattr(profile, rows):
        assert item.occurrences >= 0 and item.total_ms >= 0 and item.avg_ms >= 0 and item.share >= 0
    ops, types, _ = profile_rows("./job", str(job))  # what the export writes
    assert len(ops) == len(profile.operators) and len(types) == len(profile.op_types)


@SETTINGS
@given(line=st.integers(0, 500), column=st.integers(0, 3), value=cell_values)
def test_any_value_in_a_memory_record_cell_costs_at_most_its_sample(original, line, column, value):
    with fresh_copy(original) as job:
        a_memory_cell(job, line, column, value)


def a_memory_cell(job, line, column, value):
    path = framework(job) / "cpu_ms_memory_record_0.txt"
    before = len(load_profile(find_profiles(str(job))[0], calls=False, shapes=False, timeline=False).memory)
    with_cell(path, line, column, value)
    memory = load_profile(find_profiles(str(job))[0], calls=False, shapes=False, timeline=False).memory
    assert memory is not None and len(memory) in (before, before - 1)
    assert all(min(col.tolist(), default=0) >= 0 for col in (memory.times, memory.allocated, memory.reserved))


@SETTINGS
@given(line=st.integers(0, 100), entry=st.integers(0, 1000), field=st.integers(0, 1),
       value=cell_values.map(lambda v: "".join(c for c in v if c not in " ,;\n\r\t\x0b\x0c\x1c\x1d\x1e\x85\u2028\u2029")))
def test_any_value_in_a_call_costs_at_most_that_call(original, line, entry, field, value):
    with fresh_copy(original) as job:
        a_call(job, line, entry, field, value)


def a_call(job, line, entry, field, value):
    path = framework(job) / "cpu_op_execute_timestamp_0.txt"
    before = len(load_profile(find_profiles(str(job))[0]).calls)
    lines = path.read_text().splitlines()
    line %= len(lines)
    name, kind, body = lines[line].split(";", 2)
    entries = [e.split(",") for e in body.split()]
    entries[entry % len(entries)][field] = value  # (every line of the fixture holds calls)
    lines[line] = f"{name};{kind};" + " ".join(",".join(e) for e in entries)
    path.write_text("\n".join(lines) + "\n")
    profile = load_profile(find_profiles(str(job))[0])
    assert len(profile.calls) in (before, before - 1)
    assert (profile.calls.starts >= 0).all() and (profile.calls.durations >= 0).all()


@SETTINGS
@given(event=st.integers(0, 1000), key=st.sampled_from(["pid", "tid", "ts", "dur", "name", "args", "ph"]),
       value=json_values)
def test_any_value_in_a_trace_event_costs_at_most_that_event(original, event, key, value):
    with fresh_copy(original) as job:
        a_trace_event(job, event, key, value)


def a_trace_event(job, event, key, value):
    trace = next(job.glob("*_ascend_ms")) / "ASCEND_PROFILER_OUTPUT" / "trace_view.json"
    ref = find_profiles(str(job))[0]
    before = load_timeline(ref).span_count
    events = json.loads(trace.read_text())
    spans = [e for e in events if e.get("ph") == "X"]
    spans[event % len(spans)][key] = value
    trace.write_text(json.dumps(events))
    timeline = load_timeline(ref)
    assert timeline.span_count in (before, before - 1) and timeline.tracks
    if timeline.span_count < before and key != "ph":  # (another "ph": another kind of event, no span)
        assert timeline.problems == (f"{trace.relative_to(ref.path)}: 1 unreadable event skipped",)


def test_a_trace_event_whose_pid_is_a_list_leaves_the_rest_of_the_timeline(job):
    trace = next(job.glob("*_ascend_ms")) / "ASCEND_PROFILER_OUTPUT" / "trace_view.json"
    ref = find_profiles(str(job))[0]
    before = load_timeline(ref)
    events = json.loads(trace.read_text())
    events.append({"ph": "X", "name": "odd", "pid": [2], "tid": 0, "ts": "1", "dur": "1"})
    events.append({"ph": "M", "name": "process_name", "pid": {"a": 1}, "args": {"name": "x"}})
    trace.write_text(json.dumps(events))
    timeline = load_timeline(ref)
    assert timeline.span_count == before.span_count and [t.label for t in timeline.tracks] == [
        t.label for t in before.tracks]
    assert timeline.problems == ("ASCEND_PROFILER_OUTPUT/trace_view.json: 2 unreadable events skipped",)


def test_an_infinite_cell_costs_its_row_not_the_export(job, tmp_path):
    path = framework(job) / "cpu_op_type_info_0.csv"
    with_cell(path, 0, 1, "inf")  # type_occurrences of the first row
    with_cell(framework(job) / "cpu_op_detail_info_0.csv", 0, 4, "1e400")  # op_occurrences
    cache = SummaryCache(str(job.parent))
    cache.reload()
    report = export_snapshot(cache, tmp_path / "out")  # (the job is in a directory of its own)
    written = {p.name: p.read_text().count("\n") for p in (tmp_path / "out").rglob("*.csv")}
    assert written["profile_op_types.csv"] == 1 + 10 - 1 and written["profile_ops.csv"] == 1 + 15 - 1
    problems = [problem for _, problem in report.problems]  # each also a row of problems.csv
    assert any("type_occurrences 'inf' is not a finite number" in p for p in problems)
    assert any("op_occurrences '1e400' is not a finite number" in p for p in problems)
    assert all(p in (tmp_path / "out" / "problems.csv").read_text() for p in problems)


def test_a_bare_carriage_return_in_a_cell_costs_its_line_not_the_table(job):
    """The csv module refuses a line holding an unquoted carriage return; the rest is kept."""
    an_op_table_cell(job, "cpu_op_detail_info_0.csv", "operators", 0, 0, "\r")
    problems = load_profile(find_profiles(str(job))[0]).problems
    assert any("line 2 left out" in p for p in problems)
