"""The profiler view's state: op table order, filter, cursor, sections, profile choice, the
timeline's window and span selection, and what the workspace keeps (pure: no Textual)."""
from __future__ import annotations

import numpy as np
import pytest

from tui_insight.summary.formats.profiler import Operator, Span, Timeline, Track
from tui_insight.ui.state.profiler import COLUMN_IDS, SECTIONS, ProfilerState, nearest_span

OPS = [
    Operator("MatMul", "MatMul-op0", "Default/fc/MatMul-op0", 4, 14.4, 3.6, 0.18),
    Operator("MatMul", "MatMul-op0", "Gradients/Default/fc/Grad_MatMul/MatMul-op0", 4, 10.5, 2.6, 0.13),
    Operator("Conv2D", "Conv2D-op0", "Default/conv/Conv2D-op0", 4, 25.1, 6.3, 0.32),
    Operator("ReLU", "ReLU", "ReLU", 8, 0.1, 0.0125, 0.001),
]


def names(rows):
    return [o.full_name for o in rows]


def test_default_order_is_total_time_descending():
    rows = ProfilerState().ops(OPS)
    assert names(rows) == ["Default/conv/Conv2D-op0", "Default/fc/MatMul-op0",
                           "Gradients/Default/fc/Grad_MatMul/MatMul-op0", "ReLU"]


@pytest.mark.parametrize("column", COLUMN_IDS)
def test_every_column_sorts_both_ways(column):
    state = ProfilerState().sorted_by(column) if column != "total" else ProfilerState()
    flipped = state.sorted_by(column)
    assert state.sort == flipped.sort == column and flipped.descending != state.descending
    assert names(flipped.ops(OPS)) == list(reversed(names(state.ops(OPS))))


def test_sort_cycles_and_numbers_start_largest():
    state = ProfilerState()
    state = state.next_sort()
    assert (state.sort, state.descending) == ("avg", True)
    state = state.next_sort(-1).next_sort(-1)
    assert (state.sort, state.descending) == ("calls", True)
    name = ProfilerState().sorted_by("name")
    assert (name.sort, name.descending) == ("name", False)
    assert names(name.ops(OPS))[0] == "Default/conv/Conv2D-op0"
    assert ProfilerState().sorted_by("nope") == ProfilerState()


def test_filter_by_name_type_scope_substring_or_regex():
    assert names(ProfilerState(filter="grad_").ops(OPS)) == ["Gradients/Default/fc/Grad_MatMul/MatMul-op0"]
    assert len(ProfilerState(filter="matmul").ops(OPS)) == 2
    assert names(ProfilerState(filter="^relu$").ops(OPS)) == ["ReLU"]  # a regex
    assert names(ProfilerState(filter="conv").ops(OPS)) == ["Default/conv/Conv2D-op0"]  # scope and type
    assert len(ProfilerState(filter="[").ops(OPS)) == 0  # not a regex: a substring
    assert ProfilerState(filter="(").ops(OPS) == []


def test_cursor_moves_by_full_name_and_stays_on_its_op():
    state = ProfilerState()
    rows = state.ops(OPS)
    assert state.cursor_index(rows) == 0
    state = state.move_cursor(rows, 2)
    assert state.cursor == "Gradients/Default/fc/Grad_MatMul/MatMul-op0"
    resorted = state.sorted_by("name")
    assert resorted.ops(OPS)[resorted.cursor_index(resorted.ops(OPS))].full_name == state.cursor
    assert state.move_cursor(rows, 99).cursor == "ReLU"
    assert state.move_cursor(rows, -99).cursor == rows[0].full_name
    assert state.cursor_to_end(rows, True).cursor == "ReLU"
    assert ProfilerState().cursor_index([]) is None
    assert ProfilerState().move_cursor([], 1) == ProfilerState()
    assert state.toggle_detail().detail and not state.toggle_detail().toggle_detail().detail


def test_sections_skip_what_the_profile_lacks():
    without_memory = [s for s in SECTIONS if s != "memory"]
    state = ProfilerState(section="steps")
    assert state.next_section(without_memory).section == "timeline"
    assert state.next_section(SECTIONS).section == "memory"
    assert ProfilerState(section="timeline").next_section(without_memory).section == "types"
    assert ProfilerState(section="types").next_section(without_memory, -1).section == "timeline"
    assert ProfilerState(section="memory").settled(without_memory).section == "types"
    assert ProfilerState().with_section("bogus") == ProfilerState()


def test_choosing_a_profile_resets_what_belongs_to_the_old_one():
    state = ProfilerState(cursor="x", detail=True, window=(0.5, 0.25), track=2, span=3, sort="name")
    new = state.with_profile("/p#0")
    assert new.profile == "/p#0" and new.cursor is None and not new.detail
    assert new.window == (0.0, 1.0) and new.span is None and new.sort == "name"
    assert state.with_profile(None) is state


def timeline() -> Timeline:
    def track(name, items):
        spans = tuple(Span(n, s, d) for s, d, n in items)
        starts = np.array([s for s, _, _ in items], dtype=float)
        return Track("P", name, spans, starts, starts + np.array([d for _, d, _ in items], dtype=float))
    return Timeline((track("a", [(0, 10, "x"), (20, 10, "y"), (80, 20, "z")]),
                     track("b", [(0, 50, "w"), (60, 40, "v")])), 0.0, 100.0)


def test_zoom_and_pan_stay_inside():
    state = ProfilerState().zoom(2)
    assert state.window == (0.25, 0.5)
    assert state.zoom(0.1).window == (0.0, 1.0)
    assert state.pan(10).window == (0.5, 0.5)
    assert state.pan(-10).window == (0.0, 0.5)
    assert ProfilerState().zoom(2, centre=0.0).window == (0.0, 0.5)
    deep = ProfilerState()
    for _ in range(60):
        deep = deep.zoom(2)
    assert deep.window[1] >= 1e-6 and 0 <= deep.window[0] <= 1 - deep.window[1]
    assert state.reset_window().window == (0.0, 1.0)


def test_span_selection_rows_and_follow():
    tl = timeline()
    state = ProfilerState().select_span(tl, 1)
    assert (state.track, state.span) == (0, 0)
    assert state.selected_span(tl).name == "x"
    state = state.select_span(tl, 1).select_span(tl, 1).select_span(tl, 1)
    assert state.selected_span(tl).name == "z"
    down = state.select_track(tl, 1)
    assert (down.track, down.selected_span(tl).name) == (1, "v")  # the span at the same time
    assert down.select_track(tl, 5).track == 1
    zoomed = ProfilerState(window=(0.0, 0.1)).select_span(tl, 1).select_span(tl, 1).select_span(tl, 1)
    assert zoomed.selected_span(tl).name == "z" and zoomed.window[0] <= 0.8 <= sum(zoomed.window)
    fitted = zoomed.zoom_to_span(tl)
    assert fitted.window[0] <= 0.8 and fitted.window[0] + fitted.window[1] >= 0.99
    assert ProfilerState().select_span(Timeline(), 1) == ProfilerState()
    assert nearest_span(tl.tracks[0], 15) in (0, 1) and nearest_span(tl.tracks[0], 25) == 1


def test_json_round_trip_and_bad_input():
    state = ProfilerState(profile="/x#0", section="ops", sort="name", descending=False, filter="mat",
                          cursor="a/b", detail=True, window=(0.25, 0.5), track=2, span=7)
    assert ProfilerState.from_json(state.to_json()) == state
    assert ProfilerState.from_json(None) == ProfilerState()
    assert ProfilerState.from_json({"section": "nope", "sort": 3, "window": [2, -1], "track": -4,
                                    "span": "x", "profile": 5}) == ProfilerState(window=(1 - 1e-6, 1e-6))
    assert ProfilerState.from_json({"window": [0.9, 0.5]}).window == (0.5, 0.5)
