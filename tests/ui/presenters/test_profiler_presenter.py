"""What the profiler view shows (status, tabs, op types, an op's detail, steps, memory, the
timeline's read-out), from the fixture profiles read as the view reads them: no app, no Pilot."""
from __future__ import annotations

import pytest
from fixture_paths import EXTRAS_LOGS

from tui_insight.summary.formats import profiler as data
from tui_insight.summary.queries.profiler import step_times
from tui_insight.ui.presenters import profiler as present
from tui_insight.ui.state.profiler import ProfilerState
from tui_insight.ui.views.profiler_reading import find_refs


def flat(text) -> str:
    return " ".join(str(text).split())


def read(job: str, **parts: bool):
    from tui_insight.summary.store.cache import SummaryCache
    cache = SummaryCache(str(EXTRAS_LOGS))
    cache.reload()
    refs = find_refs(cache, (job,))
    return refs, data.load_profile(refs[0][1], **parts)


@pytest.fixture(scope="module")
def legacy():
    return read("./profiled_legacy")


def test_status_and_tabs_name_the_profile_its_size_and_the_sections(legacy):
    refs, profile = legacy
    status = present.status_text(refs[0], len(refs), profile, single_job=True, reading=False)
    assert "vm_7957_20261123084417051_ascend_ms" in status and "15 ops · 240 calls" in status
    assert "(p: pick)" not in status and not status.endswith("reading…")
    assert present.status_text(refs[0], 2, None, single_job=False, reading=True).endswith(
        "2 profiles (p: pick) · reading…")
    assert present.status_text(None, 0, None, True, False) == "Profiler"
    tabs = present.tabs_text(["types", "ops", "steps", "memory", "timeline"], "ops")
    assert str(tabs).startswith("Operator types │ Operators │ Steps │ Memory │ Timeline")
    assert any("reverse" in str(span.style) for span in tabs.spans if tabs.plain[span.start:span.end] == "Operators")


def test_op_types_are_bars_with_their_share_and_calls_per_step(legacy):
    lines = [line for line in str(present.types_text(legacy[1], 100)).splitlines() if "/step" in line]
    assert [line.split()[0] for line in lines][:3] == ["Conv2D", "MatMul", "Conv2DBackpropFilter"]
    assert "48.77%" in lines[0] and "3/step" in lines[1]


def test_an_op_s_detail_has_its_calls_and_its_input_shapes(legacy):
    _, profile = legacy
    op = next(o for o in profile.operators if o.full_name.endswith("Grad_MatMul/MatMul-op1"))
    text = flat(present.op_detail(op, profile, profile.shapes, 100))
    assert text.startswith(op.full_name) and f"{op.occurrences} calls" in text
    assert "Calls over time" in text and "Input shapes: [8, 4]; [8, 256]; NoShape; NoShape ×16" in text
    assert flat(present.op_detail(op, profile, None, 100)).endswith("Input shapes: reading…")


def test_steps_mark_the_compilation_and_memory_its_peak(legacy):
    _, profile = legacy
    text = flat(present.steps_text(step_times(profile.calls), 100))
    assert "16 steps" in text and " ".join(present.STEP_NOTE.split()) in text
    assert "step 1 (compilation): 11.61 ms" in text and "steps 2–16: mean" in text
    assert str(present.steps_text(None, 100)) == "reading the execute timestamps…"
    memory = str(present.memory_text(profile.memory, 100, no_color=False))
    assert "Memory over time (420 samples)" in memory and "▲ peak 27.5 KiB" in memory
    assert "reserved: 1.0 GiB (off this scale)" in memory
    assert str(present.memory_text(None, 100, no_color=False)) == "no memory record in this profile"


def test_the_timeline_reads_the_selected_span_or_the_window():
    _, profile = read("./profiled")
    timeline = profile.timeline
    assert timeline is not None and timeline.tracks
    state = ProfilerState()
    span = state.selected_span(timeline)
    text = str(present.span_text(state, timeline))
    if span is not None:
        assert text.startswith(span.name) and f"{span.duration_us / 1000:.4g} ms" in text
    else:
        assert text.startswith(present.TIMELINE_KEYS) and f"{timeline.span_count} spans" in text
    assert str(present.span_text(state, None)) == ""


def test_problems_name_what_could_not_be_read(legacy):
    _, profile = legacy
    assert present.problems(profile, profile.shapes, None, "types") == ()
    assert present.problems(None, None, None, "types") == ()
    broken = data.Timeline(problems=("trace_view.json: does not parse",))
    assert present.problems(profile, None, broken, "timeline") == ("trace_view.json: does not parse",)
    assert present.problems(profile, None, broken, "ops") == ()
