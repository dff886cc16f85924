"""Unit tests of `ScalarsState`: the scalar view's settings as pure transitions (no app)."""
from __future__ import annotations

import json

import pytest

from tui_insight.ui.state.scalars import (OVERLAY, SMOOTHING_STEPS, ChartSettings, ScalarsState,
                                          describe_threshold, parse_threshold)
from tui_insight.ui.state.tags import TagSelection

TAGS = ("acc", "loss", "lr")
XS_WIDE = tuple(float(x) for x in range(0, 41, 5))  # x of the points drawn: 0, 5, ..., 40


def state(**kwargs) -> ScalarsState:
    return ScalarsState(tags=TagSelection().with_tags(TAGS), **kwargs)._settled()


# -- charts, layout --------------------------------------------------------------------------------

def test_one_chart_per_visible_tag_or_one_combined_chart():
    s = state()
    assert s.chart_ids() == TAGS and s.active_chart == "acc"
    s = s.toggle_overlay()
    assert s.chart_ids() == (OVERLAY,) and s.active_chart == OVERLAY
    assert s.chart_tags(OVERLAY) == TAGS and s.normalised(OVERLAY)  # three tags: scaled to 0..1
    s = s.with_tags(s.tags.with_filter("loss|lr"))
    assert s.two_axes(OVERLAY) and not s.normalised(OVERLAY)
    assert s.toggle_normalise().normalised(OVERLAY)
    assert s.toggle_overlay().chart_ids() == ("loss", "lr")


def test_overlay_needs_two_tags():
    s = state().with_tags(state().tags.with_filter("loss"))
    assert s.toggle_overlay() is s


def test_deselecting_the_active_or_full_screen_chart_moves_on():
    s = state().with_active("loss").toggle_fullscreen()
    assert s.fullscreen == "loss"
    s = s.with_tags(s.tags.toggle("loss"))
    assert s.fullscreen is None and s.active_chart == "acc"
    assert s.with_active("nope").active_chart == "acc"


def test_full_screen_takes_the_given_chart_and_leaves():
    s = state().toggle_fullscreen("lr")
    assert (s.fullscreen, s.active_chart, s.target()) == ("lr", "lr", "lr")
    assert s.with_fullscreen("loss").fullscreen == "loss"
    assert s.toggle_fullscreen().fullscreen is None


# -- smoothing and axes --------------------------------------------------------------------------------

def test_smoothing_steps_up_and_down_within_bounds():
    s = state()
    assert s.smooth(1).smooth(1).smooth(1).smoothing == 0.3
    assert s.smooth(-1).smoothing == 0.0
    top = s
    for _ in range(20):
        top = top.smooth(1)
    assert top.smoothing == SMOOTHING_STEPS[-1]


def test_cycling_the_x_axis_forgets_the_zoom_and_keeps_the_cursor_on_its_point():
    s = state().with_cursor(5.0).zoom_to(2, 8).mark_zoom()
    s2 = s.cycle_x(cursor_at=10.0)  # the point at step 5 sits at 10 s on the relative axis
    assert s2.x_axis == "relative"
    assert (s2.x_range, s2.zoom_stack, s2.zoom_anchor, s2.cursor_x) == (None, (), None, 10.0)
    assert s2.cycle_x().cycle_x().x_axis == "step"
    assert state().cycle_x(cursor_at=10.0).cursor_x is None  # no cursor before: none after


# -- per-chart threshold and log-y -------------------------------------------------------------------------

def test_a_threshold_belongs_to_its_chart():
    s = state().with_threshold("loss", 2.31, None)
    assert s.settings("loss").threshold == (2.31, None)
    assert s.settings("acc") == ChartSettings() and s.settings("lr") == ChartSettings()
    assert s.with_threshold("loss", None, None).charts == ()  # cleared: back to the default


def test_log_y_toggles_one_chart_or_all():
    s = state().toggle_log_y("lr")
    assert [s.settings(t).log_y for t in TAGS] == [False, False, True]
    s = s.toggle_log_y_all()  # not all on: all on
    assert [s.settings(t).log_y for t in TAGS] == [True, True, True]
    s = s.toggle_log_y_all()  # all on: all off
    assert s.charts == ()
    assert s.toggle_log_y("lr").toggle_log_y("lr").charts == ()


def test_threshold_and_log_y_live_together():
    s = state().with_threshold("loss", None, 0.1).toggle_log_y("loss")
    assert s.settings("loss") == ChartSettings(None, 0.1, True)
    assert s.with_threshold("loss", None, None).settings("loss") == ChartSettings(log_y=True)


def test_parse_threshold():
    assert parse_threshold("> 2.5") == (2.5, None)
    assert parse_threshold("<0.1 >2") == (2.0, 0.1)
    assert parse_threshold("3") == (3.0, None)
    assert parse_threshold("") == (None, None)
    for bad in ("abc", "> nan", "> 1 <", "> 0.8 x"):
        with pytest.raises(ValueError):
            parse_threshold(bad)
    assert describe_threshold(2.0, 0.1) == "< 0.1 or > 2"


# -- value cursor -------------------------------------------------------------------------------------------

XS = [float(x) for x in range(1, 41)]


def test_cursor_starts_at_an_end_and_steps_point_by_point():
    s = state()
    assert s.move_cursor(XS, 1).cursor_x == 1.0
    assert s.move_cursor(XS, -1).cursor_x == 40.0
    s = s.move_cursor(XS, 1).move_cursor(XS, 1).move_cursor(XS, 1)
    assert s.cursor_x == 3.0
    assert s.move_cursor(XS, -1).cursor_x == 2.0
    assert state().with_cursor(40.0).move_cursor(XS, 1).cursor_x == 40.0  # stays at the end
    assert s.move_cursor([], 1) is s


def test_cursor_jump_is_a_twentieth_of_the_visible_range():
    s = state().with_cursor(3.0)
    assert s.move_cursor(XS, 20).cursor_x == 5.0  # 39/20 ≈ 1.95 further, snapped to a point
    zoomed = s.zoom_to(0, 400)
    assert zoomed.move_cursor(XS, 20).cursor_x == 23.0
    assert s.move_cursor(XS, -20).cursor_x == 1.0


# -- zoom ----------------------------------------------------------------------------------------------------

def test_zoom_to_a_marked_range_then_back_and_reset():
    s = state().with_cursor(5.0).mark_zoom()
    assert s.zoom_anchor == 5.0 and s.x_range is None
    s = s.with_cursor(15.0).mark_zoom()
    assert s.x_range == (5.0, 15.0) and s.zoom_anchor is None and s.zoom_stack == (None,)
    s = s.zoom_by(0.5, whole=(1.0, 40.0))  # around the cursor at 15
    assert s.x_range == (12.5, 17.5)
    s = s.pan(0.25, whole=(1.0, 40.0))
    assert s.x_range == (13.75, 18.75)
    s = s.zoom_back()
    assert s.x_range == (12.5, 17.5)
    s = s.zoom_back().zoom_back()
    assert s.x_range is None and s.zoom_back() is s
    assert s.zoom_to(1, 2).zoom_to(1, 3).zoom_reset().zoom_stack == ()


def test_z_without_a_cursor_places_one_in_the_middle_and_starts_a_range_there():
    s = state().mark_zoom(XS_WIDE)
    assert s.cursor_x == 20.0 and s.zoom_anchor == 20.0 and s.x_range is None
    s = s.move_cursor(XS_WIDE, 1).move_cursor(XS_WIDE, 1).mark_zoom(XS_WIDE)
    assert s.x_range == (20.0, 30.0)  # the second z zooms, as with a cursor placed by hand
    zoomed = state().zoom_to(0.0, 10.0).mark_zoom(XS_WIDE)
    assert zoomed.cursor_x == 5.0  # the middle of what is shown
    assert state().mark_zoom(()) == state()  # nothing drawn: nothing to mark


def test_zoom_by_keeps_a_step_wide():
    tiny = state().zoom_to(10.0, 10.5).zoom_by(0.5, None)
    assert tiny.x_range == (9.25, 11.25)  # at least one step either side of the centre
    s = state()
    assert s.zoom_by(0.5, None) is s  # nothing drawn: nothing to zoom


def test_a_marked_range_of_one_point_does_not_zoom_and_escape_drops_the_mark():
    s = state().with_cursor(5.0).mark_zoom()
    assert s.mark_zoom().x_range is None and s.mark_zoom().zoom_anchor is None
    assert s.cancel_anchor().zoom_anchor is None


def test_bad_zoom_ranges_are_ignored():
    s = state()
    assert s.zoom_to(5, 5) is s and s.zoom_to(6, 5) is s and s.zoom_to(float("nan"), 1) is s


# -- remembered ---------------------------------------------------------------------------------------------

def test_to_json_and_back_keeps_the_settings_but_not_the_cursor():
    s = (state().smooth(1).smooth(1).cycle_x().zoom_to(2.0, 9.0).zoom_to(3.0, 4.0)
         .with_threshold("loss", 2.31, None).toggle_log_y("lr").with_tags(state().tags.toggle("acc").with_filter("l"))
         .with_cursor(3.5))
    data = json.loads(json.dumps(s.to_json()))
    back = ScalarsState.from_json(data)
    assert back.smoothing == 0.2 and back.x_axis == "relative"
    assert back.x_range == (3.0, 4.0) and back.zoom_stack == (None, (2.0, 9.0))
    assert back.settings("loss").threshold == (2.31, None) and back.settings("lr").log_y
    assert back.tags.deselected == {"acc"} and back.tags.filter == "l"
    assert back.cursor_x is None
    again = back.with_tags(back.tags.with_tags(TAGS))
    assert again.tags.visible() == ("loss", "lr")


def test_overlay_is_remembered():
    back = ScalarsState.from_json(json.loads(json.dumps(state().toggle_overlay().toggle_normalise().to_json())))
    assert back.overlay and back.normalise


def test_the_ranks_view_r_chose_is_remembered_while_it_names_one_of_the_ranks():
    chose = ScalarsState().next_rank_view(4).next_rank_view(4).next_rank_view(4)  # rank 2 over the band
    back = ScalarsState.from_json(json.loads(json.dumps(chose.to_json())))
    assert back.rank_view == 3
    assert back.with_ranks(4) is back and back.with_ranks(2) is back  # 2 ranks: 3 is every rank's line
    assert back.with_ranks(1).rank_view == 0  # another group, fewer ranks: back to the band


@pytest.mark.parametrize("data", [
    None, [], "x", {"smoothing": "lots"}, {"smoothing": 7}, {"x_axis": "time"}, {"x_range": [5, 1]},
    {"x_range": [1, "b"]}, {"zoom_stack": [[1, 2]]}, {"charts": {"loss": {"above": "x", "log_y": 1}}},
    {"charts": ["loss"]}, {"tags": {"deselected": [1, None]}}, {"overlay": "yes"}, {"rank_view": -1},
    {"rank_view": "2"}, {"rank_view": 1.5}, {"rank_view": True},
])
def test_from_json_never_raises_and_falls_back_to_defaults(data):
    s = ScalarsState.from_json(data)
    assert s.smoothing in SMOOTHING_STEPS and s.x_axis in ("step", "relative", "wall")
    assert s.x_range is None and s.zoom_stack == () and s.charts == ()
    assert s.overlay is False and s.tags.deselected == frozenset() and s.rank_view == 0


def test_settings_of_tags_that_are_gone_do_no_harm():
    s = ScalarsState.from_json({"charts": {"gone": {"log_y": True}}, "x_range": [1e9, 2e9]})
    s = s.with_tags(s.tags.with_tags(TAGS))
    assert s.chart_ids() == TAGS and s.settings("gone").log_y
    assert s.settings("loss") == ChartSettings()


def test_r_cycles_the_band_each_rank_over_it_then_every_ranks_line():
    state = ScalarsState()
    seen = []
    for _ in range(6):
        seen.append(state.rank_view)
        state = state.next_rank_view(4)
    assert seen == [0, 1, 2, 3, 4, 5] and state.rank_view == 0
    assert ScalarsState().next_rank_view(0) == ScalarsState()
