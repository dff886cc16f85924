"""`summary.lineage_diff`: the lineage columns that differ between runs, on the fixture runs."""
from __future__ import annotations

from tui_insight.summary.queries.lineage import LineageRow
from tui_insight.summary.queries.lineage_diff import differing_columns, lineage_rows

LENETS = ("./lenet_lr0.01", "./lenet_lr0.1")
# Read off the fixture logs: both LeNet5 with Momentum, same loss function, device count, model
# size and model name; everything else differs (the seed, the dataset, the note "high lr" on one).
LENET_DIFF = ["train_dataset_path", "train_dataset_count", "test_dataset_path", "test_dataset_count",
              "learning_rate", "epoch", "batch_size", "loss", "dataset_mark", "metric/Accuracy", "metric/Loss",
              "user_defined/dataset", "user_defined/dropout", "user_defined/note", "user_defined/seed"]


def test_rows_come_in_the_order_asked_and_jobs_without_lineage_are_left_out(fixture_cache):
    rows = lineage_rows(fixture_cache.jobs, ("./resnetish_bs32", "./edge_cases", "./lenet_lr0.1", "./gone"))
    assert [row.summary_dir for row in rows] == ["./resnetish_bs32", "./lenet_lr0.1"]


def test_the_columns_where_the_two_lenets_differ(fixture_cache):
    assert differing_columns(lineage_rows(fixture_cache.jobs, LENETS)) == LENET_DIFF


def test_a_third_run_adds_the_columns_it_differs_in(fixture_cache):
    rows = lineage_rows(fixture_cache.jobs, (*LENETS, "./resnetish_bs32"))
    found = differing_columns(rows)
    assert set(found) - set(LENET_DIFF) == {"network", "optimizer", "model_size", "user_defined/blocks",
                                            "user_defined/model_name"}
    assert "loss_function" not in found and "device_num" not in found and "summary_dir" not in found


def test_missing_values_are_equal_and_a_flag_is_not_a_number():
    def row(name, **values):
        return LineageRow(name, {"summary_dir": name, **values}, {}, {}, {})

    rows = [row("./a", epoch=None, loss=float("nan"), device_num=1, learning_rate=0.1),
            row("./b", epoch=None, loss=None, device_num=True, learning_rate=0.1)]
    assert differing_columns(rows) == ["device_num"]
    assert differing_columns(rows[:1]) == []
