"""Unit tests of the histogram view's state (no app): tags, mode, step axis, full screen, cursors."""
from __future__ import annotations

import json

import numpy as np

from tui_insight.ui.state.histograms import HIDDEN, HistogramsState, RidgeCursor
from tui_insight.ui.state.tags import TagSelection

STEPS = (10, 20, 40, 80)
BINS = 30
JOBS = ("./a", "./b")


def state_with(tags=("b", "w"), **kwargs) -> HistogramsState:
    return HistogramsState(**kwargs).with_tags(TagSelection().with_tags(tags))


def keys(state, has=lambda tid, tag: True):
    return state.chart_keys(JOBS, has)


# -- the cursor ---------------------------------------------------------------------------------

def test_first_cursor_key_shows_the_cursor_on_the_newest_step_and_middle_bucket():
    for move in (HIDDEN.move_step(STEPS, BINS, -1), HIDDEN.move_step(STEPS, BINS, 1),
                 HIDDEN.move_bucket(STEPS, BINS, -5)):
        assert move == RidgeCursor(80, 15)
    assert HIDDEN.move_step((), BINS, 1) == HIDDEN  # nothing to point at


def test_cursor_moves_over_kept_steps_and_buckets_and_stops_at_the_ends():
    cursor = RidgeCursor(80, 15)
    cursor = cursor.move_step(STEPS, BINS, -1).move_step(STEPS, BINS, -1)
    assert cursor.step == 20 and cursor.index(STEPS) == 1
    assert cursor.move_step(STEPS, BINS, -5).step == 10
    assert cursor.move_bucket(STEPS, BINS, -1).bucket == 14
    assert cursor.move_bucket(STEPS, BINS, 100).bucket == BINS - 1
    assert cursor.move_bucket(STEPS, BINS, -100).bucket == 0
    assert cursor.to_end(STEPS, BINS, newest=False).step == 10
    assert cursor.to_end(STEPS, BINS, newest=True).step == 80
    assert HIDDEN.to_end(STEPS, BINS, newest=False) == RidgeCursor(10, 15)


def test_cursor_stays_on_its_step_when_steps_arrive_and_picks_the_nearest_when_it_is_gone():
    cursor = RidgeCursor(20, 3)
    assert cursor.index(STEPS + (160,)) == 1
    assert RidgeCursor(29, 0).index(STEPS) == 1  # 20 is nearer than 40
    assert RidgeCursor(31, 0).index(STEPS) == 2
    assert RidgeCursor(30, 0).index(STEPS) == 2  # a tie goes to the newer
    assert RidgeCursor(999, 0).index(STEPS) == 3 and RidgeCursor(-5, 0).index(STEPS) == 0
    assert RidgeCursor(20, 3).index(np.array(STEPS)) == 1  # the chart's steps are a numpy array
    assert HIDDEN.index(STEPS) is None


def test_hiding_keeps_the_bucket_and_fitting_clamps_it():
    cursor = RidgeCursor(40, 25)
    hidden = cursor.hidden()
    assert not hidden.shown and hidden.bucket == 25
    assert hidden.move_step(STEPS, BINS, 1) == RidgeCursor(80, 25)  # shows again on its bucket
    assert cursor.fitted(10).bucket == 9 and cursor.fitted(30) is cursor


# -- the state ------------------------------------------------------------------------------------

def test_charts_are_tag_by_tag_for_each_job_that_has_the_tag():
    state = state_with()
    assert keys(state) == (("./a", "b"), ("./b", "b"), ("./a", "w"), ("./b", "w"))
    assert keys(state, lambda tid, tag: tid == "./a" or tag == "w") == (("./a", "b"), ("./a", "w"), ("./b", "w"))
    state = state.with_tags(state.tags.toggle("b"))
    assert keys(state) == (("./a", "w"), ("./b", "w"))


def test_mode_and_step_axis_cycle():
    state = HistogramsState()
    assert state.next_mode().mode == "overlay" and state.next_mode().next_mode().mode == "offset"
    assert [state.next_axis().axis, state.next_axis().next_axis().axis,
            state.next_axis().next_axis().next_axis().axis] == ["relative", "wall", "step"]


def test_settled_names_only_drawn_charts_and_full_screen_follows_the_active_chart():
    state = state_with().settled(keys(state_with()))
    assert state.active == ("./a", "b") and state.fullscreen is None
    state = state.with_active(("./b", "w")).toggle_fullscreen()
    assert state.fullscreen == ("./b", "w") == state.target()
    assert state.toggle_fullscreen().fullscreen is None
    assert state.toggle_fullscreen().active == ("./b", "w")
    # deselecting the tag shown full screen leaves full screen; the active chart moves to one drawn
    state = state.with_tags(state.tags.toggle("w"))
    assert state.fullscreen is None
    state = state.settled(keys(state))
    assert state.active == ("./a", "b")
    assert HistogramsState().toggle_fullscreen() == HistogramsState()  # no chart: nothing to show


def test_cursors_belong_to_their_chart():
    state = state_with()
    state = state.with_cursor(("./a", "w"), RidgeCursor(20, 4)).with_cursor(("./b", "w"), RidgeCursor(80, 1))
    assert state.cursor(("./a", "w")) == RidgeCursor(20, 4)
    assert state.cursor(("./a", "b")) == HIDDEN
    assert state.with_cursor(("./a", "w"), HIDDEN).cursor(("./a", "w")) == HIDDEN
    assert state.with_cursor(("./a", "w"), RidgeCursor(20, 4)) is state


def test_empty_reason_says_what_to_do():
    state = state_with()
    assert state.empty_reason() == ""
    assert "no tag selected" in state.with_tags(state.tags.select_all()).empty_reason()
    assert "a selects all" in state.with_tags(state.tags.select_all()).empty_reason()
    assert "no tag matches /xyz/" in state.with_tags(state.tags.with_filter("xyz")).empty_reason()


def test_round_trip_through_json():
    state = state_with().with_tags(state_with().tags.toggle("b").with_filter("w|b"))
    state = state.next_mode().next_axis().with_active(("./b", "w")).toggle_fullscreen()
    state = state.with_cursor(("./b", "w"), RidgeCursor(40, 7))
    data = json.loads(json.dumps(state.to_json()))
    back = HistogramsState.from_json(data).with_tags(TagSelection.from_json(data["tags"]).with_tags(("b", "w")))
    assert back.mode == "overlay" and back.axis == "relative"
    assert back.fullscreen == ("./b", "w") and back.active == ("./b", "w")
    assert back.cursor(("./b", "w")) == RidgeCursor(40, 7)
    assert back.tags.selected == {"w"} and back.tags.filter == "w|b"


def test_from_json_never_raises_and_falls_back_to_defaults():
    for junk in (None, [], "x", {"mode": "sideways", "axis": 3, "fullscreen": ["only one"], "active": 5,
                                  "cursors": [["./a", "w", "x", None], ["./a"], 7, ["./a", "w", None, 3]],
                                  "tags": "no"}):
        state = HistogramsState.from_json(junk)
        assert (state.mode, state.axis, state.fullscreen, state.active, state.cursors) == \
            ("offset", "step", None, None, ())
    restored = HistogramsState.from_json({"cursors": [["./a", "w", 5, -2], ["./a", "b", 3, True]]})
    assert restored.cursor(("./a", "w")) == RidgeCursor(5, None)
    assert restored.cursor(("./a", "b")) == RidgeCursor(3, None)
    # a remembered chart that no longer exists is dropped once the charts are known
    gone = HistogramsState.from_json({"fullscreen": ["./gone", "w"], "active": ["./gone", "w"]})
    gone = gone.with_tags(TagSelection().with_tags(("w",)))
    assert gone.settled((("./a", "w"),)).fullscreen is None
    assert gone.settled((("./a", "w"),)).active == ("./a", "w")
