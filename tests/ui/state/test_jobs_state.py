"""JobListState: the job list's filter, order, marks and cursor, without an app."""
from __future__ import annotations

import json

from tui_insight.ui.state.jobs import JobListState


def test_marks_keep_their_order_and_toggle():
    state = JobListState().toggle_mark("./c").toggle_mark("./a")
    assert state.marked == ("./c", "./a")
    assert state.toggle_mark("./c").marked == ("./a",)
    assert state.toggle_mark("./c").toggle_mark("./c").marked == ("./a", "./c")  # marked again: last
    assert state.unmark_all().marked == ()
    assert state.without({"./a", "./x"}).marked == ("./c",)
    assert state.with_marked(["./b", "./b", "./a"]).marked == ("./b", "./a")


def test_compare_opens_the_marked_jobs_that_exist_in_marking_order():
    state = JobListState(marked=("./c", "./gone", "./a"))
    assert state.compare(["./a", "./b", "./c"]) == ("./c", "./a")
    assert JobListState().compare(["./a"]) == ()


def test_the_column_cursor_sort_reverse_and_by_a_column():
    assert (JobListState().sort_key, JobListState().reverse) == ("health", True)  # most badges first
    state = JobListState(sort_key="id", reverse=False)
    moved = state.with_column("change")
    assert moved.cursor_column == "change" and moved.sort_key == "id" and state.cursor_column == "id"
    assert moved.sort_here().sort_key == "change" and not moved.sort_here().reverse
    assert moved.with_column("trend") is moved  # not a sortable column
    assert state.with_cursor("./b").sort_by("step").cursor is None  # a new order shows the top
    assert state.sort_reverse().reverse
    assert state.sort_by("updated") == JobListState(sort_key="updated", reverse=False, column="updated",
                                                    sort_chosen=True)
    assert state.sort_by("step").reverse  # the most steps first
    assert not state.sort_by("step").sort_by("step").reverse  # again: the other way
    assert state.sort_by("step", reverse=False).sort_by("step", reverse=False).reverse is False
    assert state.sort_by("trend") is state  # not a sortable column


def test_filter_and_cursor():
    state = JobListState()
    assert state.with_filter("") is state and state.with_filter("lenet").filter == "lenet"
    assert state.with_cursor("./a").cursor == "./a" and state.with_cursor(None) is state


def test_json_round_trip():
    state = JobListState(filter="lr", sort_key="updated", reverse=True, marked=("./b", "./a"), cursor="./b",
                         headline="eval/acc", column="best", sort_chosen=True)
    assert JobListState.from_json(json.loads(json.dumps(state.to_json()))) == state


def test_only_a_chosen_order_is_remembered_so_a_new_default_reaches_the_rest():
    untouched = JobListState().with_filter("lr").toggle_mark("./a")
    assert "sort_key" not in untouched.to_json()
    assert JobListState.from_json(untouched.to_json()) == untouched
    chosen = untouched.sort_by("id")
    back = JobListState.from_json(json.loads(json.dumps(chosen.to_json())))
    assert (back.sort_key, back.reverse, back.sort_chosen) == ("id", False, True)
    assert back.sort_reverse().sort_chosen


def test_a_workspace_written_before_the_health_default_gets_it_unless_it_chose_another_order():
    old_default = {"filter": "", "sort_key": "id", "reverse": False, "marked": ["./a"]}
    state = JobListState.from_json(old_default)
    assert (state.sort_key, state.reverse, state.sort_chosen) == ("health", True, False)
    assert state.marked == ("./a",)  # the rest is kept
    chosen = JobListState.from_json({"sort_key": "updated", "reverse": True})
    assert (chosen.sort_key, chosen.reverse, chosen.sort_chosen) == ("updated", True, True)
    assert JobListState.from_json({"sort_key": "id", "reverse": True}).sort_key == "id"  # not the old default


def test_the_headline_is_chosen_and_back_to_each_jobs_default():
    state = JobListState()
    assert state.headline is None and state.with_headline(None) is state
    assert state.with_headline("acc").headline == "acc"
    assert state.with_headline("acc").with_headline(None) == state
    assert JobListState.from_json({"headline": 3}).headline is None


def test_from_json_never_raises_and_falls_back_to_defaults():
    for junk in (None, 3, [], {"sort_key": "trend", "reverse": "yes", "marked": "./a", "cursor": 5, "filter": 1}):
        assert JobListState.from_json(junk) == JobListState()
    assert JobListState.from_json({"marked": ["./a", 1, "./a", "./b"]}).marked == ("./a", "./b")


def test_rank_groups_expand_and_fold_and_are_remembered():
    state = JobListState().expand("./exp/rank_*")
    assert state.expanded == ("./exp/rank_*",)
    assert state.expand("./exp/rank_*", True) is state  # already shown
    assert state.expand("./b/device_*").expand("./exp/rank_*").expanded == ("./b/device_*",)
    back = JobListState.from_json(json.loads(json.dumps(state.to_json())))
    assert back.expanded == ("./exp/rank_*",)
    assert JobListState.from_json({"expanded": ["./a", 3, "./a"]}).expanded == ("./a",)


def test_a_groups_ranks_are_marked_together_and_unmarked_together():
    state = JobListState().toggle_mark("./r_1/rank_1").toggle_marks(["./r/rank_0", "./r_1/rank_1", "./r/rank_2"])
    assert state.marked == ("./r_1/rank_1", "./r/rank_0", "./r/rank_2")
    assert state.toggle_marks(["./r/rank_0", "./r/rank_2"]).marked == ("./r_1/rank_1",)
