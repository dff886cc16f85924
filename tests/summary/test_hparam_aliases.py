"""TensorBoard hyper-parameters as their writer named them: aliases (`lr`, `bs`, `opt`) lined up
with MindSpore's lineage columns where that is unambiguous, the other names kept as
`user_defined/<name>`, and the columns the runs differ in found for the lineage table's defaults,
parallel coordinates and importance. Logs written by tensorboardX's `add_hparams` (its own
example's names) and by the repo's MindSpore lineage writer.
"""
from __future__ import annotations

import numpy as np
import pytest

from tui_insight.summary.queries.lineage import columns, filter_rows, model_rows, parse_conditions, written_names
from tui_insight.summary.formats.lineage_aliases import alias_column, hparam_columns, typed_column
from tui_insight.summary.formats.writer import LineageWriter
from tui_insight.summary.queries.importance import importances, pearson
from tui_insight.summary.queries.lineage_diff import unfilled_columns, varying_hparams
from tui_insight.summary.queries.parallel import CATEGORY, NUMBER, axis_for
from tui_insight.summary.store.cache import SummaryCache

T0 = 1_700_000_000
# (lr, bs, opt, dropout, seed) -> accuracy, per run: tensorboardX's example names, a constant seed
SWEEP = {
    "r0": ({"lr": 0.001, "bs": 16, "opt": "adam", "dropout": 0.1, "seed": 7}, 0.70),
    "r1": ({"lr": 0.01, "bs": 32, "opt": "sgd", "dropout": 0.2, "seed": 7}, 0.80),
    "r2": ({"lr": 0.1, "bs": 64, "opt": "adam", "dropout": 0.3, "seed": 7}, 0.90),
    "r3": ({"lr": 0.05, "bs": 32, "opt": "sgd", "dropout": 0.1, "seed": 7}, 0.85),
}


def write_hparams(logdir, runs: dict[str, tuple[dict, float]]) -> None:
    """One tensorboardX writer, `add_hparams` once per run (each its own directory, as it writes them)."""
    from tensorboardX import SummaryWriter

    with SummaryWriter(str(logdir)) as writer:
        for name, (hparams, accuracy) in runs.items():
            writer.add_hparams(hparams, {"hparam/accuracy": accuracy}, name=name, global_step=0)


def rows_of(logdir) -> dict:
    cache = SummaryCache(str(logdir))
    cache.reload()
    return {row.summary_dir: row for row in model_rows(cache.jobs)}


@pytest.fixture(scope="module")
def sweep(tmp_path_factory):
    logdir = tmp_path_factory.mktemp("sweep")
    write_hparams(logdir, SWEEP)
    return rows_of(logdir)


def test_tensorboardx_example_names_line_up_with_lineage_columns(sweep):
    assert sorted(sweep) == ["./r0", "./r1", "./r2", "./r3"]
    for name, (hparams, accuracy) in SWEEP.items():
        row = sweep[f"./{name}"]
        assert row.get("learning_rate") == hparams["lr"]
        assert row.get("batch_size") == hparams["bs"] and isinstance(row.get("batch_size"), int)
        assert row.get("optimizer") == hparams["opt"]
        assert dict(row.user_defined) == {"dropout": hparams["dropout"], "seed": hparams["seed"]}
        assert row.get("metric/hparam/accuracy") == pytest.approx(accuracy)
        assert dict(row.hparams) == {"learning_rate": "lr", "batch_size": "bs", "optimizer": "opt",
                                     "user_defined/dropout": "dropout", "user_defined/seed": "seed"}


def test_the_hparam_columns_the_runs_differ_in_whatever_their_names(sweep):
    rows = list(sweep.values())
    assert varying_hparams(rows) == ["optimizer", "learning_rate", "batch_size", "user_defined/dropout"]
    assert varying_hparams(rows[:1]) == []  # one run differs in nothing
    same_opt = [sweep["./r0"], sweep["./r2"]]  # both adam, batch sizes differ
    assert varying_hparams(same_opt) == ["learning_rate", "batch_size", "user_defined/dropout"]
    # MindSpore's columns that no TensorBoard run fills (the table hides them until asked for)
    assert unfilled_columns(rows) == ["loss_function", "train_dataset_path", "train_dataset_count",
                                      "test_dataset_path", "test_dataset_count", "network", "epoch",
                                      "device_num", "loss", "model_size"]
    assert unfilled_columns([]) == []
    # the names the writer used where the column has another (what the chart's readout says)
    assert written_names(rows, "learning_rate") == ["lr"] and written_names(rows, "optimizer") == ["opt"]
    assert written_names(rows, "user_defined/dropout") == [] and written_names(rows, "network") == []


def test_parallel_coordinates_axes_over_the_aliased_columns(sweep):
    rows = [sweep[f"./r{i}"] for i in range(4)]
    optimizer = axis_for("optimizer", [row.get("optimizer") for row in rows])
    assert optimizer.kind == CATEGORY and optimizer.categories == ("adam", "sgd")  # text: categorical
    lr = axis_for("learning_rate", [row.get("learning_rate") for row in rows])
    assert lr.kind == NUMBER and (lr.low, lr.high) == (0.001, 0.1)
    places = lr.positions([row.get("learning_rate") for row in rows])
    assert list(np.argsort(places)) == [0, 1, 3, 2]  # r0 < r1 < r3 < r2
    dropout = axis_for("user_defined/dropout", [row.get("user_defined/dropout") for row in rows])
    assert dropout.kind == NUMBER and dropout.stops == (0.1, 0.2, 0.3)
    # the brush is the filter, and the filter reads the writer's names too
    assert [r.summary_dir for r in filter_rows(rows, parse_conditions("opt=adam lr 0.01..0.1"))] == ["./r2"]


def test_importance_ranks_the_aliased_and_own_named_columns(sweep):
    rows = list(sweep.values())
    (target,) = importances(rows, columns(rows))
    assert target.target == "metric/hparam/accuracy" and target.runs == 4
    found = {item.param: item for item in target.params}
    assert set(found) == {"learning_rate", "batch_size", "user_defined/dropout", "user_defined/seed"}
    accuracy = np.array([row.get("metric/hparam/accuracy") for row in rows])
    for param in ("learning_rate", "batch_size", "user_defined/dropout"):
        x = np.array([row.get(param) for row in rows], dtype=float)
        assert found[param].importance == pytest.approx(abs(pearson(x, accuracy))) and found[param].runs == 4
    assert found["user_defined/seed"].reason == "constant"  # the same in every run
    assert "optimizer" not in found  # text: left out as MindSpore's optimizer is


def test_two_aliases_of_one_column_in_a_run_fill_nothing(tmp_path):
    write_hparams(tmp_path, {
        "both": ({"lr": 0.1, "learning-rate": 0.2, "bs": 8}, 0.5),
        "own_name_wins": ({"learning_rate": 0.3, "lr": 0.4}, 0.5),
        "wrong_type": ({"bs": "auto", "opt": 3, "LearningRate": 0.5}, 0.5),
    })
    rows = rows_of(tmp_path)
    both = rows["./both"]
    assert both.get("learning_rate") is None and both.get("batch_size") == 8
    assert dict(both.user_defined) == {"lr": 0.1, "learning-rate": 0.2}
    own = rows["./own_name_wins"]
    assert own.get("learning_rate") == 0.3 and dict(own.user_defined) == {"lr": 0.4}
    wrong = rows["./wrong_type"]
    assert wrong.get("batch_size") is None and wrong.get("optimizer") is None
    assert wrong.get("learning_rate") == 0.5  # any spelling: lowercased, without _ - . and spaces
    assert dict(wrong.user_defined) == {"bs": "auto", "opt": 3}


def test_mindspore_and_tensorboard_runs_share_the_learning_rate_column(tmp_path):
    ms = LineageWriter(tmp_path / "mindspore_run", timestamp=T0)
    ms.write_train(optimizer="Momentum", learning_rate=0.5, batch_size=32, epoch=2)
    ms.close()
    write_hparams(tmp_path / "tb", {"run": ({"lr": 0.25, "epochs": 3, "optim": "adam"}, 0.5)})
    # a job with both: its MindSpore lineage fills the column, the hyper-parameter keeps its name
    both = LineageWriter(tmp_path / "tb" / "run", timestamp=T0)
    both.write_train(learning_rate=0.125)
    both.close()
    write_hparams(tmp_path / "tb2", {"run": ({"lr": 0.25, "epochs": 3, "optim": "adam"}, 0.5)})
    rows = rows_of(tmp_path)
    assert rows["./mindspore_run"].get("learning_rate") == 0.5
    tb = rows["./tb2/run"]
    assert (tb.get("learning_rate"), tb.get("epoch"), tb.get("optimizer")) == (0.25, 3, "adam")
    mixed = rows["./tb/run"]
    assert mixed.get("learning_rate") == 0.125 and mixed.get("user_defined/lr") == 0.25
    assert mixed.get("epoch") == 3  # columns MindSpore left empty still take the aliases
    assert varying_hparams([rows["./mindspore_run"], tb]) == ["optimizer", "learning_rate", "epoch"]


def test_the_alias_rule():
    assert alias_column("LR") == alias_column("learning-rate") == alias_column("learningRate") == "learning_rate"
    assert alias_column("batch") == alias_column("bs") == "batch_size" and alias_column("dropout") is None
    fits = lambda name, column: True  # noqa: E731
    assert hparam_columns(["lr", "bs", "opt", "dropout"], fits) == {"lr": "learning_rate", "bs": "batch_size",
                                                                    "opt": "optimizer"}
    assert hparam_columns(["lr", "LR"], fits) == {}  # two of one column: neither
    assert hparam_columns(["lr", "learning_rate"], fits) == {"learning_rate": "learning_rate"}
    assert hparam_columns(["lr"], lambda name, column: False) == {}
    # the filter reads the same table, and words that name a column but no hyper-parameter
    assert typed_column("opt") == "optimizer" and typed_column("dir") == "summary_dir"
    assert alias_column("dir") is None
