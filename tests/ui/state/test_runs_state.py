"""Unit tests of `RunsState`: which runs of a comparison the dashboard shows, and its panels."""
from __future__ import annotations

import json

from tui_insight.ui.state.runs import RunsState

RUNS = ("./run_b", "./run_a", "./other")  # in the order compared: not sorted


def test_every_run_is_shown_at_first_in_the_order_compared():
    state = RunsState.of(RUNS)
    assert state.compared == RUNS and state.visible() == RUNS
    assert not state.panel and not state.diff
    assert state.describe() == "3 of 3 runs shown"


def test_toggling_a_run_hides_it_and_shows_it_again():
    state = RunsState.of(RUNS).toggle("./run_a")
    assert state.visible() == ("./run_b", "./other")
    assert state.toggle("./run_a").visible() == RUNS
    assert state.toggle("./not_compared") is state


def test_a_digit_toggles_the_run_of_that_number():
    state = RunsState.of(RUNS)
    assert state.toggle_number(3).visible() == ("./run_b", "./run_a")
    assert state.toggle_number(1).toggle_number(1).visible() == RUNS
    assert state.toggle_number(0) is state and state.toggle_number(4) is state


def test_the_name_filter_narrows_the_runs_shown():
    state = RunsState.of(RUNS).with_filter("run_")
    assert state.visible() == ("./run_b", "./run_a")
    assert state.with_filter("^./run_[a]$").visible() == ("./run_a",)
    assert state.with_filter("(").visible() == ()  # not a regex: a plain substring, found nowhere
    assert state.toggle("./run_b").visible() == ("./run_a",)  # filter and toggles both apply


def test_no_run_shown_says_why():
    assert "no run matches /zzz/" in RunsState.of(RUNS).with_filter("zzz").describe()
    hidden = RunsState.of(RUNS)
    for tid in RUNS:
        hidden = hidden.toggle(tid)
    assert hidden.visible() == () and "switched off" in hidden.describe()


def test_a_selection_over_other_runs_is_refused():
    state = RunsState.of(RUNS)
    other = RunsState.of(("./x", "./y")).runs.toggle("./x")
    assert state.with_runs(other) is state
    assert state.with_runs(state.runs.toggle("./other")).visible() == ("./run_b", "./run_a")


def test_panels_open_and_close():
    state = RunsState.of(RUNS).toggle_panel().toggle_diff()
    assert state.panel and state.diff
    assert not state.toggle_panel().panel and not state.toggle_diff().diff


def test_remembered_hidden_runs_filter_and_panels_come_back():
    state = RunsState.of(RUNS).toggle("./run_a").with_filter("run").toggle_diff()
    data = json.loads(json.dumps(state.to_json()))
    back = RunsState.of(RUNS, data)
    assert back == state and back.visible() == ("./run_b",)


def test_damaged_remembered_state_falls_back_to_defaults():
    for data in (None, [], {"runs": "x", "panel": "yes", "diff": 1}, {"runs": {"deselected": [1, None], "filter": 3}}):
        state = RunsState.of(RUNS, data)
        assert state.visible() == RUNS and not state.panel and not state.diff
