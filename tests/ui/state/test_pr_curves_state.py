"""The PR curves view's state: tag, step and threshold cursor, pure transitions."""
from __future__ import annotations

from tui_insight.ui.state.pr_curves import PrCurvesState

STEPS = [0, 10, 20, 30]


def test_the_newest_step_is_followed_until_a_step_is_chosen():
    state = PrCurvesState()
    assert state.shown_step(STEPS) == 30
    assert state.shown_step([*STEPS, 40]) == 40  # training wrote more: still the newest
    back = state.step_by(STEPS, -1)
    assert back.step == 20 and back.shown_step([*STEPS, 40]) == 20
    assert back.step_by(STEPS, 1).step is None  # on to the newest: following again


def test_steps_stop_at_the_ends_and_home_end_jump():
    state = PrCurvesState().first_step(STEPS)
    assert state.shown_step(STEPS) == 0
    assert state.step_by(STEPS, -1).shown_step(STEPS) == 0
    assert state.step_by(STEPS, 99).step is None
    assert state.newest_step().shown_step(STEPS) == 30
    assert PrCurvesState().step_by([], 1) == PrCurvesState()


def test_a_chosen_step_a_job_lacks_shows_its_last_step_before_it():
    state = PrCurvesState(step=25)
    assert state.shown_step(STEPS) == 20
    assert state.shown_step([30, 40]) == 30  # none before it: the first
    assert state.shown_step([]) is None


def test_tags_wrap_and_a_gone_tag_gives_way_to_the_first():
    tags = ["cat", "dog"]
    state = PrCurvesState().settled(tags)
    assert state.tag == "cat"
    assert state.next_tag(tags, 1).tag == "dog" and state.next_tag(tags, -1).tag == "dog"
    assert PrCurvesState(tag="eel").settled(tags).tag == "cat"
    assert PrCurvesState(tag="eel").settled([]).tag is None


def test_the_cursor_starts_at_the_middle_threshold_and_stays_on_the_drawn_curve():
    state = PrCurvesState()
    assert state.cursor_in(201, 201) == 100  # threshold 0.5
    assert state.cursor_in(201, 80) == 79  # the curve ends before the middle
    moved = state.cursor_by(201, 201, 10)
    assert moved.cursor == 110
    assert moved.cursor_by(201, 201, 500).cursor == 200
    assert moved.cursor_by(201, 201, -500).cursor == 0
    assert moved.cursor_by(201, 120, 50).cursor == 119


def test_json_round_trip():
    state = PrCurvesState(tag="cat", step=20, cursor=7)
    assert PrCurvesState.from_json(state.to_json()) == state
    assert PrCurvesState.from_json({"tag": 3, "step": True, "cursor": -2}) == PrCurvesState()
