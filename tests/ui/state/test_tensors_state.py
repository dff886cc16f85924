"""The tensor view's state: slices checked against the shape, steps, per-tensor places, widths,
histogram settings and what the workspace remembers. Plain unit tests: no app, no Pilot."""
from __future__ import annotations

import json

import pytest

from tui_insight.ui.state.tensors import (
    DEFAULT_COLUMN_WIDTH, MAX_COLUMN_WIDTH, MIN_COLUMN_WIDTH, TensorPlace, TensorsState, checked_slice,
    dims_text, nearest_index,
)

A = ("./a", "conv1.weight")
B = ("./a", "fc.bias")
T4 = (2, 3, 4, 5)
STEPS = [1, 2, 3, 4, 5]


def chosen(key=A) -> TensorsState:
    return TensorsState().choose(key)


# -- slices ---------------------------------------------------------------------------------

def test_a_slice_is_checked_against_the_shape_and_stored_normalised():
    state = chosen().with_slice("[1, -1, 1:3, ::2]", T4)
    assert state.place().slice == "[1,-1,1:3,::2]"
    assert state.slice_for(T4) == "[1,-1,1:3,::2]"
    assert state.slice_error == ""


def test_the_default_slice_follows_the_shape():
    state = chosen()
    assert state.slice_for(T4) == "[0,0,:,:]"
    assert state.slice_for((7,)) == "[:]"
    typed = state.with_slice("[0, 0, :, :]", T4)  # the default typed out stays the default
    assert typed.place().slice == "" and typed.slice_for((3, 3, 2, 2)) == "[0,0,:,:]"


@pytest.mark.parametrize("bad, why", [
    ("[0,0,:]", "expected 4 dimensions"),
    ("[0,5,:,:]", "out of range"),
    ("[:,:,:,0]", "at most 2"),
    ("[0,0,a,:]", "not an integer"),
    ("0,0,:,:", "brackets"),
    ("", "empty"),
    ("[0,0,1:2:0,:]", "cannot be 0"),
])
def test_a_bad_slice_keeps_the_last_good_one_and_says_why(bad, why):
    good = chosen().with_slice("[1,2,:,1:3]", T4)
    state = good.with_slice(bad, T4)
    assert why in state.slice_error
    assert state.place() == good.place()  # the last good slice stays
    assert state.slice_for(T4) == "[1,2,:,1:3]"
    fixed = state.with_slice("[0,0,0,:]", T4)
    assert fixed.slice_error == "" and fixed.slice_for(T4) == "[0,0,0,:]"


def test_a_slice_over_the_value_limit_is_refused():
    state = chosen((A[0], "big")).with_slice("[:,:]", (1000, 1000))
    assert "1,000,000 values" in state.slice_error and state.place().slice == ""
    assert checked_slice("[0:100,:]", (1000, 1000)) == "[0:100,:]"


def test_no_values_to_slice_says_why():
    state = chosen().with_slice("[0,0]", None, "holds 5 values")
    assert state.slice_error == "no values to slice: holds 5 values"
    assert TensorsState().with_slice("[0]", (3,)).slice_error == "no tensor shown"


def test_a_slice_that_no_longer_fits_gives_way_to_the_default():
    state = chosen().with_slice("[1,2,:,:]", T4).with_cursor((3, 2))
    assert state.fit_slice(T4) is state
    refit = state.fit_slice((3, 4))
    assert refit.place().slice == "" and refit.place().cursor == (0, 0)
    assert refit.slice_error.startswith("[1,2,:,:] does not fit 3x4 (") and refit.slice_error.endswith("default slice")


def test_reset_and_clear():
    state = chosen().with_slice("[1,2,:,:]", T4).with_slice("[9]", T4)
    assert state.slice_error
    assert state.clear_slice_error().slice_error == "" and state.clear_slice_error().place().slice == "[1,2,:,:]"
    reset = state.reset_slice()
    assert reset.place().slice == "" and reset.slice_error == ""


def test_dims_text():
    assert dims_text((2, 3, 4)) == "2x3x4" and dims_text(()) == "scalar"


# -- steps ----------------------------------------------------------------------------------

def test_a_tensor_opens_on_its_newest_step_and_follows_new_ones():
    state = chosen()
    assert state.following
    assert state.step_index(STEPS) == 4
    assert state.step_index(STEPS + [6, 7]) == 6  # new steps: still the newest
    assert state.step_index([]) is None


def test_steps_move_and_an_older_step_stays_when_new_ones_arrive():
    state = chosen().step_prev(STEPS)
    assert state.place().step == 4 and not state.following
    assert state.step_index(STEPS + [6, 7]) == 3  # step 4 stays on screen
    first = state.step_first(STEPS)
    assert first.place().step == 1 and first.step_prev(STEPS) == first  # no step before the first
    assert first.step_next(STEPS).place().step == 2
    assert state.step_last().following
    assert state.step_next(STEPS).following  # reaching the last step follows again
    assert state.step_at(STEPS, 2).place().step == 3
    assert state.step_at(STEPS, 99).following and state.step_at(STEPS, -5).place().step == 1
    assert chosen().step_next([]) == chosen() and chosen().step_first([]) == chosen()


def test_a_dropped_step_is_shown_as_the_nearest_kept_one():
    state = chosen().step_at([10, 20, 30, 40], 1)  # step 20
    assert state.step_index([10, 25, 40]) == 1
    assert state.step_index([10, 30, 40]) == 0  # a tie: the older
    assert state.step_index([30, 40]) == 0
    assert nearest_index([1, 5, 9], 8) == 2 and nearest_index([1, 5, 9], 100) == 2 and nearest_index([1, 5, 9], -3) == 0


# -- per tensor -----------------------------------------------------------------------------

def test_each_tensor_keeps_its_slice_step_width_and_cell():
    a = chosen(A).with_slice("[1,2,:,:]", T4).step_first(STEPS).narrower(10).with_cursor((2, 3))
    b = a.choose(B)
    assert b.place() == TensorPlace() and b.following and b.slice_for((6,)) == "[:]"
    b = b.with_slice("[2:4]", (6,)).wider(10)
    back = b.choose(A)
    assert back.place() == TensorPlace("[1,2,:,:]", 1, 8, (2, 3))
    assert back.choose(B).place() == TensorPlace("[2:4]", None, 12, (0, 0))
    assert a.choose(A) is a


def test_choosing_another_tensor_clears_the_slice_error():
    state = chosen(A).with_slice("[x]", T4)
    assert state.slice_error and state.choose(B).slice_error == ""


def test_places_at_their_defaults_are_not_kept():
    state = chosen(A).with_cursor((1, 1)).with_cursor((0, 0))
    assert state.places == ()


# -- the table ------------------------------------------------------------------------------

def test_column_width_from_the_values_until_chosen_then_clamped():
    state = chosen()
    assert state.column_width(7) == 7 and state.column_width(99) == MAX_COLUMN_WIDTH
    narrower = state.narrower(10).narrower(10)
    assert narrower.column_width(5) == 6  # chosen: the values no longer decide
    wider = narrower.wider(10).wider(10).wider(10)
    assert wider.column_width(5) == 12
    for _ in range(20):
        state = state.narrower(DEFAULT_COLUMN_WIDTH)
    assert state.column_width(10) == MIN_COLUMN_WIDTH
    for _ in range(20):
        state = state.wider(DEFAULT_COLUMN_WIDTH)
    assert state.column_width(10) == MAX_COLUMN_WIDTH


def test_cursor_is_never_negative():
    assert chosen().with_cursor((-3, 2)).place().cursor == (0, 2)


# -- the histogram --------------------------------------------------------------------------

def test_histogram_mode_and_its_settings():
    state = chosen().toggle_histogram()
    assert state.histogram and not state.toggle_histogram().histogram
    assert state.next_mode().mode == "overlay" and state.next_mode().next_mode().mode == "offset"
    assert [state.next_axis().axis, state.next_axis().next_axis().axis,
            state.next_axis().next_axis().next_axis().axis] == ["relative", "wall", "step"]


def test_filter():
    state = chosen().with_filter("conv")
    assert state.filter == "conv" and state.with_filter("conv") is state


# -- remembered ---------------------------------------------------------------------------

def test_round_trip_through_json():
    state = (chosen(A).with_slice("[1,2,:,:]", T4).step_first(STEPS).wider(10).with_cursor((4, 1))
             .choose(B).with_slice("[1:3]", (6,)).toggle_histogram().next_mode().next_axis().with_filter("fc")
             .with_slice("[bad", (6,)))
    data = json.loads(json.dumps(state.to_json()))
    back = TensorsState.from_json(data)
    assert back == TensorsState(**{**state.__dict__, "slice_error": ""})  # the error is not remembered
    assert back.current == B and back.place(A) == TensorPlace("[1,2,:,:]", 1, 12, (4, 1))
    assert data["tags"] == {"filter": "fc"}  # where `--tags` puts a filter


@pytest.mark.parametrize("data", [
    None, [], "x", {"current": "a"}, {"current": [1, 2]}, {"places": "x"}, {"places": [1, {"job": 1}]},
    {"mode": "sideways", "axis": 3, "histogram": "yes", "tags": []},
    {"places": [{"job": "./a", "tag": "t", "slice": 5, "step": "x", "width": 999, "cursor": [-1, "a"]}]},
])
def test_from_json_never_raises_and_falls_back_to_defaults(data):
    state = TensorsState.from_json(data)
    assert state.mode in ("offset", "overlay") and state.axis in ("step", "relative", "wall")
    assert state.places == () and state.current is None and state.histogram is False


def test_from_json_keeps_what_is_valid_of_a_place():
    data = {"current": ["./a", "t"], "places": [{"job": "./a", "tag": "t", "slice": "[0,:]", "step": 7,
                                                  "width": 99, "cursor": [1]}]}
    state = TensorsState.from_json(data)
    assert state.current == ("./a", "t") and state.place() == TensorPlace("[0,:]", 7, None, (0, 0))


def test_a_remembered_slice_is_only_a_wish_until_the_shape_is_known():
    state = TensorsState.from_json({"current": ["./a", "t"], "places": [{"job": "./a", "tag": "t",
                                                                          "slice": "[0,0,0,0,0]"}]})
    fitted = state.fit_slice((3, 4))
    assert fitted.slice_for((3, 4)) == "[:,:]" and "does not fit" in fitted.slice_error


def test_resolve_takes_the_first_tensor_unless_the_chosen_one_may_still_come():
    keys = [("./a", "t1"), ("./a", "t2")]
    assert TensorsState().resolve(keys, loading=True).current == ("./a", "t1")
    chosen = TensorsState().choose(("./a", "t2"))
    assert chosen.resolve(keys, loading=False) is chosen
    gone = TensorsState().choose(("./a", "gone"))
    assert gone.resolve(keys, loading=True) is gone  # its job is still being read
    assert gone.resolve(keys, loading=False).current == ("./a", "t1")
    assert gone.resolve([], loading=False) is gone
