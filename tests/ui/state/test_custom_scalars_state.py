"""The custom scalars view's state, without a terminal: the category shown (the first one the
writer did not fold, kept while it exists), next/previous wrapping, smoothing, x-axis and the
value cursor with the scalar view's steps, and what the workspace keeps."""
from __future__ import annotations

from tui_insight.ui.state.custom_scalars import CustomScalarsState
from tui_insight.ui.state.scalars import SMOOTHING_STEPS

TITLES = ["Losses", "Bounds", "Nothing"]


def test_it_settles_on_the_first_category_the_writer_did_not_fold():
    assert CustomScalarsState().settled(TITLES).category == "Losses"
    assert CustomScalarsState().settled(TITLES, folded=["Losses"]).category == "Bounds"
    assert CustomScalarsState().settled(TITLES, folded=TITLES).category == "Losses"  # all folded: the first
    assert CustomScalarsState().settled([]).category is None


def test_a_chosen_category_stays_while_it_exists_and_gives_way_when_it_goes():
    state = CustomScalarsState(category="Bounds", cursor_x=3.0, active=1)
    assert state.settled(TITLES) is state
    gone = state.settled(["Losses"])
    assert (gone.category, gone.cursor_x, gone.active) == ("Losses", None, 0)


def test_next_and_previous_category_wrap_and_drop_the_cursor():
    state = CustomScalarsState(category="Nothing", cursor_x=5.0, active=2)
    after = state.next_category(TITLES, 1)
    assert (after.category, after.cursor_x, after.active) == ("Losses", None, 0)
    assert state.next_category(TITLES, -1).category == "Bounds"
    assert CustomScalarsState().next_category(TITLES, -1).category == "Nothing"
    assert state.next_category([], 1) is state
    assert CustomScalarsState(category="Losses").next_category(["Losses"], 1).category == "Losses"


def test_smoothing_steps_are_the_scalar_views_and_stop_at_the_ends():
    state = CustomScalarsState()
    for expected in SMOOTHING_STEPS[1:4]:
        state = state.smooth(1)
        assert state.smoothing == expected
    assert CustomScalarsState().smooth(-1).smoothing == 0.0
    assert CustomScalarsState(smoothing=SMOOTHING_STEPS[-1]).smooth(1).smoothing == SMOOTHING_STEPS[-1]


def test_the_x_axis_cycles_and_drops_the_cursor_in_the_old_units():
    state = CustomScalarsState(cursor_x=10.0)
    axes = []
    for _ in range(3):
        state = state.cycle_x()
        axes.append(state.x_axis)
        assert state.cursor_x is None
    assert axes == ["relative", "wall", "step"]


def test_the_cursor_moves_over_the_charts_points():
    xs = [0.0, 10.0, 20.0, 30.0]
    state = CustomScalarsState().move_cursor(xs, 1)
    assert state.cursor_x == 0.0
    assert state.move_cursor(xs, 1).move_cursor(xs, 1).cursor_x == 20.0
    assert CustomScalarsState().move_cursor(xs, -1).cursor_x == 30.0
    assert CustomScalarsState(cursor_x=30.0).move_cursor(xs, 1).cursor_x == 30.0  # stays at the end
    assert CustomScalarsState(cursor_x=0.0).move_cursor(xs, 20).cursor_x == 0.0  # a jump of 1/20: the nearest
    assert CustomScalarsState().move_cursor([], 1).cursor_x is None
    assert CustomScalarsState(cursor_x=10.0).clear_cursor().cursor_x is None


def test_the_workspace_keeps_category_smoothing_axis_and_log_y_not_the_cursor():
    state = CustomScalarsState(category="Bounds", smoothing=0.6, x_axis="wall", log_y=True, cursor_x=4.0, active=1)
    back = CustomScalarsState.from_json(state.to_json())
    assert back == CustomScalarsState(category="Bounds", smoothing=0.6, x_axis="wall", log_y=True)
    assert CustomScalarsState.from_json({"category": 3, "smoothing": 0.63, "x_axis": "sideways"}) == \
        CustomScalarsState(smoothing=0.6)
    assert CustomScalarsState.from_json(None) == CustomScalarsState()
