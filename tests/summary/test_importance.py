"""Parameter importance (issue 11) against MindInsight's optimizer module on the fixture runs,
and its pure functions on runs written with our writer."""
from __future__ import annotations

import math

import numpy as np
import pytest

from tui_insight.summary.queries.lineage import LineageRow, columns, model_rows
from tui_insight.summary.formats.writer import LineageWriter
from tui_insight.summary.queries.importance import (
    importance,
    importances,
    numeric_columns,
    pearson,
    ranks,
    scatter_points,
    spearman,
)
from tui_insight.summary.store.cache import SummaryCache


@pytest.fixture(scope="module")
def fixture_ranking(fixture_cache):
    rows = model_rows(fixture_cache.jobs)
    return {target.target: target for target in importances(rows, columns(rows))}


def by_param(target) -> dict:
    return {item.param: item for item in target.params}


def test_mindinsights_numbers_on_the_fixture_runs(fixture_ranking):
    # MindInsight 2.3.1's optimizer (`/optimizer/targets/search`) over the three fixture runs with
    # lineage: target "[M]Loss" (the evaluation loss, our metric/Loss) ranks learning_rate 0.8185,
    # epoch 0.7685, batch_size 0.1699, each |Pearson| over the runs with both values.
    loss = by_param(fixture_ranking["metric/Loss"])
    assert loss["learning_rate"].importance == pytest.approx(0.8185, abs=5e-5)
    assert loss["epoch"].importance == pytest.approx(0.7685, abs=5e-5)
    assert loss["batch_size"].importance == pytest.approx(0.1699, abs=5e-5)
    assert all(loss[p].runs == 3 and not loss[p].reason for p in ("learning_rate", "epoch", "batch_size"))
    assert loss["learning_rate"].pearson < 0  # signed beside it: the loss falls as the rate rises
    # Ranked as MindInsight ranks: importance descending, its own parameters before user-defined
    # ones at equal importance, then by name; parameters without a correlation score 0, last.
    order = [item.param for item in fixture_ranking["metric/Loss"].params]
    assert order == ["learning_rate", "epoch", "user_defined/seed", "batch_size", "user_defined/blocks",
                     "user_defined/dropout"]


def test_the_train_loss_and_every_metric_are_targets_and_text_columns_are_not_parameters(fixture_ranking):
    assert list(fixture_ranking) == ["loss", "metric/Accuracy", "metric/Loss"]
    params = set(by_param(fixture_ranking["loss"]))
    # Numbers only (optimizer, network, user_defined/note are text; MindInsight drops them), and
    # not the counts, sizes or device number MindInsight does not tune.
    assert params == {"learning_rate", "epoch", "batch_size", "user_defined/seed", "user_defined/dropout",
                      "user_defined/blocks"}
    loss = by_param(fixture_ranking["loss"])
    assert loss["learning_rate"].importance == pytest.approx(0.81525, abs=5e-5)  # the train loss: another target


def test_with_three_runs_a_random_seed_looks_important_and_says_how_few_runs(fixture_ranking):
    seed = by_param(fixture_ranking["metric/Accuracy"])["user_defined/seed"]
    assert seed.importance == pytest.approx(0.933, abs=5e-4) and seed.runs == 3
    dropout = by_param(fixture_ranking["metric/Accuracy"])["user_defined/dropout"]  # two runs have one
    assert (dropout.importance, dropout.pearson, dropout.runs, dropout.reason) == (0.0, None, 2, "too few runs (n=2)")


def test_pearson_spearman_and_ranks():
    x = np.array([1.0, 2.0, 3.0, 4.0, 5.0])
    assert pearson(x, 2 * x + 1) == pytest.approx(1.0)
    assert pearson(x, -x) == pytest.approx(-1.0)
    assert pearson(x, np.full(5, 3.0)) is None  # constant: undefined
    assert ranks(np.array([10.0, 30.0, 20.0, 20.0])).tolist() == [1.0, 4.0, 2.5, 2.5]  # ties share
    y = x ** 3  # monotonic, not linear: Spearman 1, Pearson less
    assert spearman(x, y) == pytest.approx(1.0) and pearson(x, y) < 0.99
    # Spearman is Pearson of the (average) ranks, by hand: ranks x 1..4, y 1, 2.5, 2.5, 4
    assert spearman(np.array([1.0, 2, 3, 4]), np.array([5.0, 7, 7, 9])) == pytest.approx(
        pearson(np.array([1.0, 2, 3, 4]), np.array([1.0, 2.5, 2.5, 4])))


def test_importance_counts_the_runs_with_both_values():
    nan = math.nan
    x = np.array([1.0, 2.0, nan, 4.0, 5.0])
    y = np.array([2.0, nan, 6.0, 8.0, 10.5])
    found = importance("p", x, y)
    assert found.runs == 3 and found.importance == pytest.approx(abs(pearson(np.array([1.0, 4, 5]),
                                                                              np.array([2.0, 8, 10.5]))))
    assert importance("p", np.array([1.0, 2.0]), np.array([1.0, 3.0])).reason == "too few runs (n=2)"
    same = importance("p", np.array([3.0, 3.0, 3.0]), np.array([1.0, 2.0, 4.0]))
    assert (same.importance, same.pearson, same.reason) == (0.0, None, "constant")


def _row(name: str, **values) -> LineageRow:
    return LineageRow(name, values, {}, {}, {})


def test_columns_with_text_are_left_out_and_nan_text_is_missing():
    rows = [_row("./a", learning_rate=0.1, **{"user_defined/x": 1, "user_defined/t": "a"}),
            _row("./b", learning_rate=None, **{"user_defined/x": "nan", "user_defined/t": 2}),
            _row("./c", learning_rate=0.3, **{"user_defined/x": float("inf")})]
    found = numeric_columns(rows, ["learning_rate", "user_defined/x", "user_defined/t", "epoch"])
    assert set(found) == {"learning_rate", "user_defined/x"}  # text in t; epoch has no value at all
    assert np.isnan(found["learning_rate"][1])
    assert found["user_defined/x"][0] == 1 and np.isnan(found["user_defined/x"][1:]).all()


def test_ranking_of_written_runs(tmp_path):
    # lr drives the metric, the seed does not; one run without evaluation
    for i, (lr, seed, acc) in enumerate([(0.1, 5, 0.9), (0.01, 1, 0.7), (0.05, 9, 0.8), (0.001, 4, 0.6),
                                         (0.2, 2, None)]):
        with LineageWriter(tmp_path / f"r{i}", timestamp=1_700_000_000 + i) as writer:
            writer.write_train(learning_rate=lr, epoch=3, loss=1 - lr)
            if acc is not None:
                writer.write_eval({"Accuracy": acc})
            writer.write_user_defined({"seed": seed, "note": "text"})
    cache = SummaryCache(str(tmp_path))
    cache.reload()
    rows = model_rows(cache.jobs)
    ranking = {t.target: t for t in importances(rows, columns(rows))}
    accuracy = ranking["metric/Accuracy"]
    assert accuracy.runs == 4
    assert [item.param for item in accuracy.params] == ["learning_rate", "user_defined/seed", "epoch"]
    assert accuracy.params[0].runs == 4 and accuracy.params[0].spearman == pytest.approx(1.0)
    assert accuracy.params[-1].reason == "constant"  # every run trained 3 epochs
    points = scatter_points(rows, "learning_rate", "metric/Accuracy")
    assert [p[0] for p in points] == ["./r3", "./r1", "./r2", "./r0"]  # by learning rate; ./r4 has no metric
