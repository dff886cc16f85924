"""LineageState: the lineage view's tab, columns, order, filter and cursor, without an app."""
from __future__ import annotations

import json

from tui_insight.summary.queries.lineage import FIXED_COLUMNS
from tui_insight.ui.state.lineage import DATASET, MODEL, LineageState, default_columns

ALL = [*FIXED_COLUMNS, "metric/Accuracy", "metric/Loss", "user_defined/seed"]


def test_it_opens_with_the_settings_runs_are_compared_by_and_every_metric():
    shown = LineageState().visible_columns(ALL)
    assert shown == ["summary_dir", "network", "optimizer", "learning_rate", "epoch", "batch_size", "loss",
                     "metric/Accuracy", "metric/Loss"]
    assert "train_dataset_path" not in shown and "test_dataset_path" not in shown  # long: until asked for
    assert default_columns(ALL) == shown


def test_a_pick_holds_for_the_columns_there_were_and_new_columns_follow_the_defaults():
    state = LineageState().with_columns(["train_dataset_path", "optimizer"], [c for c in ALL if c != "summary_dir"])
    assert state.visible_columns(ALL) == ["summary_dir", "train_dataset_path", "optimizer"]
    later = [*ALL, "metric/F1", "user_defined/note"]  # a new metric is shown, a new user value is not
    assert state.visible_columns(later) == ["summary_dir", "train_dataset_path", "optimizer", "metric/F1"]


def test_sort_by_a_column_then_the_other_way_then_newest_first():
    state = LineageState().sort_by("loss")
    assert (state.sort_column, state.descending, state.sort_text()) == ("loss", False, "sorted by loss ▲")
    state = state.sort_by("loss")
    assert state.descending and state.sort_text() == "sorted by loss ▼"
    assert not state.sort_by("epoch").descending  # another column starts ascending
    cleared = state.sort_clear()
    assert cleared.sort_column is None and cleared.sort_text() == "newest first"


def test_reverse_sorts_by_the_given_column_descending_when_unsorted():
    assert LineageState().sort_reverse("epoch") == LineageState(sort_column="epoch", descending=True)
    assert LineageState().sort_reverse(None) == LineageState()
    state = LineageState(sort_column="loss", descending=True).sort_reverse("epoch")
    assert (state.sort_column, state.descending) == ("loss", False)  # the current order, the other way


def test_mode_filter_and_cursor_transitions():
    state = LineageState()
    assert state.toggle_mode().mode == DATASET and state.toggle_mode().toggle_mode().mode == MODEL
    assert state.with_mode("nonsense").mode == MODEL
    assert state.with_filter("") is state and state.with_filter("loss<1").filter == "loss<1"
    moved = state.with_cursor("./a", "loss")
    assert (moved.row, moved.column) == ("./a", "loss")
    assert moved.with_cursor("./b").column == "loss"  # the dataset table keeps the model column
    assert moved.with_cursor("./a", "loss") is moved


def test_json_round_trip():
    state = (LineageState().with_columns(["loss"], ["loss", "epoch"]).sort_by("loss").sort_by("loss")
             .with_filter("optimizer=Adam").with_mode(DATASET).with_cursor("./a", "loss"))
    data = json.loads(json.dumps(state.to_json()))
    assert LineageState.from_json(data) == state
    assert LineageState.from_json(LineageState().to_json()) == LineageState()


def test_from_json_never_raises_and_falls_back_to_defaults():
    for junk in (None, [], "x", {"mode": 3, "chosen": "loss", "sort_column": 7, "descending": "yes", "row": 1},
                 {"filter": ["a"], "known": [1, 2], "column": {}}):
        assert LineageState.from_json(junk) == LineageState()
    kept = LineageState.from_json({"chosen": ["loss", 3], "known": ["loss", None], "sort_column": "x",
                                   "descending": 1})
    assert kept.chosen == ("loss",) and kept.known == ("loss",) and kept.sort_column == "x" and not kept.descending


def test_tensorboard_hparam_columns_the_runs_differ_in_are_shown_by_default():
    columns = [*ALL, "user_defined/dropout", "user_defined/lr"]
    varying = ["learning_rate", "user_defined/dropout"]  # lineage_diff.varying_hparams
    shown = LineageState().visible_columns(columns, varying)
    assert shown == ["summary_dir", "network", "optimizer", "learning_rate", "epoch", "batch_size", "loss",
                     "metric/Accuracy", "metric/Loss", "user_defined/dropout"]
    assert default_columns(columns, varying) == shown
    assert "user_defined/lr" not in shown and "user_defined/seed" not in shown  # the same in every run
    assert "user_defined/dropout" not in LineageState().visible_columns(columns)  # no run differs
    # a pick holds for the columns there were; a hyper-parameter that appears later follows the defaults
    picked = LineageState().with_columns(["optimizer"], [c for c in columns if c != "summary_dir"])
    assert picked.visible_columns(columns, varying) == ["summary_dir", "optimizer"]
    later = [*columns, "user_defined/momentum"]
    assert picked.visible_columns(later, [*varying, "user_defined/momentum"]) == \
        ["summary_dir", "optimizer", "user_defined/momentum"]


def test_columns_no_run_has_a_value_in_are_hidden_by_default():
    unfilled = ["network", "epoch", "loss", "summary_dir"]  # lineage_diff.unfilled_columns
    shown = LineageState().visible_columns(ALL, (), unfilled)
    assert shown == ["summary_dir", "optimizer", "learning_rate", "batch_size", "metric/Accuracy", "metric/Loss"]
    assert default_columns(ALL, (), unfilled) == shown
    picked = LineageState().with_columns(["network"], [c for c in ALL if c != "summary_dir"])
    assert picked.visible_columns(ALL, (), unfilled) == ["summary_dir", "network"]  # asked for: shown
