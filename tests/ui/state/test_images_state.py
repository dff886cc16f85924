"""Unit tests of the image view's state (no app): the step, brightness, contrast, layout, full screen."""
from __future__ import annotations

import json

import numpy as np

from tui_insight.ui.state.images import ImagesState
from tui_insight.ui.state.tags import TagSelection

STEPS = (1, 3, 5, 12)


def state_with(tags=("alpha", "beta", "gamma"), **kwargs) -> ImagesState:
    return ImagesState(**kwargs).with_tags(TagSelection().with_tags(tags))


def test_brackets_move_through_kept_steps_and_stop_at_the_ends():
    state = ImagesState()
    assert state.following
    back = state.step_by(STEPS, -1)
    assert back.step == 5 and not back.following
    assert back.step_by(STEPS, -1).step == 3
    assert back.step_by(STEPS, 1).step == 12
    assert state.step_by(STEPS, 1) is state  # following the newest: nothing after it
    first = state.first_step(STEPS)
    assert first.step == 1 and first.step_by(STEPS, -1) is first
    assert first.follow_newest().following
    assert state.step_by((), -1) is state and state.first_step(()) is state


def test_a_chosen_step_between_kept_steps_moves_to_its_neighbours():
    state = ImagesState(step=4)  # no image at 4 (another job's step, or gone since)
    assert state.step_by(STEPS, -1).step == 3
    assert state.step_by(STEPS, 1).step == 5
    assert ImagesState(step=4).step_by(np.array(STEPS), 1).step == 5  # the view passes numpy steps


def test_brightness_and_contrast_move_in_steps_within_limits_and_reset():
    state = ImagesState().brighter(1)
    assert state.brightness == 0.1 and state.adjusted
    assert ImagesState().brighter(-1).brighter(-1).brightness == -0.2
    bright = ImagesState()
    for _ in range(20):
        bright = bright.brighter(1)
    assert bright.brightness == 1.0
    contrast = ImagesState().more_contrast(1)
    assert contrast.contrast == 1.25
    assert contrast.more_contrast(-1).contrast == 1.0  # back to exactly 1
    most = ImagesState()
    for _ in range(30):
        most = most.more_contrast(1)
    assert most.contrast == 5.0
    assert state.more_contrast(1).reset_adjust() == ImagesState()


def test_layout_and_full_screen():
    state = state_with()
    assert state.toggle_layout().layout == "list" and state.toggle_layout().toggle_layout().layout == "grid"
    full = state.toggle_fullscreen("beta")
    assert full.fullscreen == "beta" and full.shown_tags() == ("beta",)
    assert full.toggle_fullscreen(None).fullscreen is None
    assert state.toggle_fullscreen("nope") is state
    assert state.shown_tags() == ("alpha", "beta", "gamma")
    # deselecting the full-screen tag leaves full screen
    assert full.with_tags(full.tags.toggle("beta")).fullscreen is None
    assert full.with_tags(full.tags.toggle("alpha")).fullscreen == "beta"


def test_empty_reasons_come_from_the_tag_selection():
    state = state_with()
    assert state.with_tags(state.tags.select_all()).tags.empty_reason().startswith("no tag selected")
    assert state.with_tags(state.tags.with_filter("xyz")).tags.empty_reason() == "no tag matches /xyz/ (esc clears)"


def test_round_trip_through_json_and_junk_is_ignored():
    state = state_with().step_by(STEPS, -1).brighter(1).more_contrast(1).toggle_layout().toggle_fullscreen("gamma")
    state = state.with_tags(state.tags.toggle("alpha"))
    data = json.loads(json.dumps(state.to_json()))
    back = ImagesState.from_json(data)
    assert (back.step, back.brightness, back.contrast, back.layout, back.fullscreen) == \
        (5, 0.1, 1.25, "list", "gamma")
    back = back.with_tags(back.tags.with_tags(("alpha", "beta", "gamma")))
    assert back == state
    for junk in (None, "x", {"step": "5", "brightness": 7, "contrast": -1, "layout": "mosaic",
                             "fullscreen": 3, "tags": []}, {"step": True, "contrast": float("nan")}):
        assert ImagesState.from_json(junk) == ImagesState()
    # a full-screen tag that no longer exists is dropped once the tags are known
    gone = ImagesState.from_json({"fullscreen": "gone"})
    assert gone.with_tags(TagSelection().with_tags(("alpha",))).fullscreen is None


def test_n_and_p_move_through_the_samples_of_a_step_and_stop_at_the_ends():
    state = ImagesState()
    assert state.sample == 0 and state.shown_sample(4) == 0
    second = state.sample_by(4, 1)
    assert second.sample == 1 and second.shown_sample(4) == 1
    last = second.sample_by(4, 1).sample_by(4, 1)
    assert last.sample == 3 and last.sample_by(4, 1) is last  # no fifth of four
    assert last.sample_by(4, -1).sample == 2
    assert state.sample_by(4, -1) is state  # nothing before the first
    assert state.sample_by(1, 1) is state and state.sample_by(0, 1) is state  # one image a step, or none


def test_a_step_with_fewer_samples_shows_its_last_and_the_choice_stays():
    state = ImagesState(sample=3)
    assert state.shown_sample(4) == 3 and state.shown_sample(2) == 1 and state.shown_sample(1) == 0
    assert state.shown_sample(0) == 0
    assert state.step_by(STEPS, -1).sample == 3  # another step: the same sample of its batch
    # from the last sample a step with two holds, back goes to the first
    assert state.sample_by(2, -1).sample == 0
    assert state.sample_by(2, 1) is state


def test_the_sample_is_remembered_and_junk_is_ignored():
    state = ImagesState().sample_by(4, 1).sample_by(4, 1)
    assert ImagesState.from_json(json.loads(json.dumps(state.to_json()))).sample == 2
    for junk in ({"sample": -1}, {"sample": "2"}, {"sample": True}, {"sample": None}):
        assert ImagesState.from_json(junk).sample == 0
