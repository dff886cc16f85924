"""Unit tests of the landscape view's state (no app): choice, drawing, relief, cursor, path."""
from __future__ import annotations

import json

from tui_insight.ui.state.landscape import (
    ANGLE_STEP, DEFAULT_ANGLE, DRAWINGS, ELEVATION_LIMITS, LandscapeState,
)

KEYS = ("interval:1-5", "interval:6-8", "final")


def test_settled_picks_the_first_landscape_and_keeps_a_valid_choice():
    assert LandscapeState().settled(KEYS).selected == "interval:1-5"
    state = LandscapeState(selected="final")
    assert state.settled(KEYS) is state
    assert LandscapeState(selected="interval:9-9").settled(KEYS).selected == "interval:1-5"
    assert LandscapeState(selected="final").settled(()).selected is None


def test_select_by_stops_at_either_end_and_forgets_the_checkpoint():
    state = LandscapeState(selected="interval:6-8", cursor=(1, 1), path_point=2)
    nxt = state.select_by(KEYS, 1)
    assert nxt.selected == "final" and nxt.path_point is None and nxt.cursor == (1, 1)
    assert nxt.select_by(KEYS, 1).selected == "final"
    assert state.select_by(KEYS, -5).selected == "interval:1-5"
    assert state.select_by((), 1) is state


def test_c_cycles_heat_contour_both_and_v_toggles_relief():
    state = LandscapeState()
    seen = []
    for _ in DRAWINGS:
        seen.append(state.drawing)
        state = state.next_drawing()
    assert seen == ["heat", "contour", "both"] and state.drawing == "heat"
    assert LandscapeState().toggle_relief().mode == "relief"
    assert LandscapeState().toggle_relief().toggle_relief().mode == "map"


def test_rotation_wraps_and_tilt_is_bounded():
    state = LandscapeState()
    assert state.rotate(1).angle == DEFAULT_ANGLE + ANGLE_STEP
    assert LandscapeState(angle=0).rotate(-1).angle == 360 - ANGLE_STEP
    high = state
    for _ in range(50):
        high = high.tilt(1)
    assert high.elevation == ELEVATION_LIMITS[1]
    low = state
    for _ in range(50):
        low = low.tilt(-1)
    assert low.elevation == ELEVATION_LIMITS[0]


def test_cursor_shows_in_the_middle_then_moves_within_the_grid():
    state = LandscapeState().move(1, 0, 5, 7)
    assert state.cursor == (2, 3)
    state = state.move(10, -10, 5, 7)
    assert state.cursor == (4, 0)
    assert state.to_edge(5, 7, end=False).cursor == (0, 0)
    assert state.hidden().cursor is None
    assert LandscapeState().move(1, 1, 0, 0).cursor is None  # nothing to point at


def test_fitted_keeps_the_cursor_inside_a_smaller_grid():
    state = LandscapeState(cursor=(9, 9), path_point=1)
    fitted = state.fitted(5, 5)
    assert fitted.cursor == (4, 4) and fitted.path_point is None
    assert LandscapeState(cursor=(1, 1)).fitted(5, 5).cursor == (1, 1)
    assert state.fitted(0, 0).cursor is None


def test_path_steps_go_through_the_checkpoints_and_arrows_leave_the_path():
    cells = [(3, 3), (4, 1), (2, 1), (1, 2)]
    state = LandscapeState().step_path(cells, 1)
    assert (state.cursor, state.path_point) == ((3, 3), 0)
    state = state.step_path(cells, 1).step_path(cells, 1)
    assert (state.cursor, state.path_point) == ((2, 1), 2)
    assert state.step_path(cells, 5).path_point == 3
    assert LandscapeState().step_path(cells, -1).path_point == 3  # `p` starts at the last
    moved = state.move(1, 0, 5, 5)
    assert moved.path_point is None and moved.cursor == (3, 1)
    assert LandscapeState().step_path([], 1) == LandscapeState()


def test_json_round_trip_and_bad_input():
    state = LandscapeState(selected="final", drawing="both", mode="relief", angle=75, elevation=50,
                           cursor=(2, 3), path_point=1, panel=False)
    back = LandscapeState.from_json(json.loads(json.dumps(state.to_json())))
    assert back == LandscapeState(selected="final", drawing="both", mode="relief", angle=75, elevation=50,
                                  cursor=(2, 3), panel=False)  # the checkpoint is not remembered
    assert LandscapeState.from_json(None) == LandscapeState()
    bad = LandscapeState.from_json({"selected": 3, "drawing": "x", "mode": 1, "angle": 999, "elevation": 0,
                                    "cursor": [-1, "a"], "panel": "no"})
    assert bad == LandscapeState()
    assert LandscapeState.from_json({"angle": 37}).angle == 30  # kept on the rotation steps
    assert LandscapeState.from_json({"cursor": [True, 1]}).cursor is None
