"""The lineage view over TensorBoard hyper-parameters as their writer named them: tensorboardX's
`add_hparams` with `lr`, `bs`, `opt` over several runs fills the model-lineage columns, the
hyper-parameters the runs differ in are shown by default whatever their names (the MindSpore
columns none of them fills are not), and parallel
coordinates (`p`) and importance (`i`) use them.
"""
from __future__ import annotations

from pathlib import Path

import pytest

from tui_insight.ui.views.lineage import LineageView
from uihelp import make_app, run_pilot, wait_for

SWEEP = {
    "r0": ({"lr": 0.001, "bs": 16, "opt": "adam", "dropout": 0.1, "seed": 7}, 0.70),
    "r1": ({"lr": 0.01, "bs": 32, "opt": "sgd", "dropout": 0.2, "seed": 7}, 0.80),
    "r2": ({"lr": 0.1, "bs": 64, "opt": "adam", "dropout": 0.3, "seed": 7}, 0.90),
}


@pytest.fixture
def sweep(tmp_path: Path) -> Path:
    from tensorboardX import SummaryWriter

    root = tmp_path / "logs"
    with SummaryWriter(str(root)) as writer:
        for name, (hparams, accuracy) in SWEEP.items():
            writer.add_hparams(hparams, {"hparam/accuracy": accuracy}, name=name, global_step=0)
    return root


def test_default_columns_chart_axes_and_importance_use_the_writers_names(sweep):
    app = make_app(sweep)

    async def body(pilot):
        await pilot.press("l")
        await pilot.pause()
        view = app.screen.query_one(LineageView)
        table = view.model_table
        assert await wait_for(pilot, lambda: len(table.cells) == 3)
        seen = {"columns": [c.key for c in table.columns], "cells": dict(table.cells),
                "status": str(view.query_one("#lineage-status").render())}
        await pilot.press("p")
        await pilot.pause()
        axes = view.chart().axes
        seen["axes"] = [(axis.column, axis.kind) for axis in axes]
        seen["readout"] = str(view.query_one("#lineage-readout").render())  # the first axis: optimizer
        await pilot.press("i")
        await pilot.pause()
        seen["importance"] = {t.target: [item.param for item in t.params] for t in view.importance_ranking()}
        return seen

    seen = run_pilot(app, body, (160, 48))
    # MindSpore's network, epoch and loss are empty in every run: not shown until asked for
    assert seen["columns"] == ["summary_dir", "optimizer", "learning_rate", "batch_size", "metric/hparam/accuracy",
                               "user_defined/dropout"]
    row = dict(zip(seen["columns"], seen["cells"]["./r1"]))
    assert (row["optimizer"], row["learning_rate"], row["batch_size"], row["user_defined/dropout"]) == \
        ("sgd", "0.01", "32", "0.2")
    # hidden: user_defined/seed (the same in every run) and 11 empty MindSpore columns
    assert "12 columns hidden (v)" in seen["status"]
    assert seen["readout"].startswith("optimizer (written opt)  2 values")  # which name was lined up
    axes = dict(seen["axes"])
    assert axes["optimizer"] == "category" and axes["learning_rate"] == "number"
    assert axes["batch_size"] == "number" and axes["user_defined/dropout"] == "number"
    assert set(seen["importance"]["metric/hparam/accuracy"]) >= {"learning_rate", "batch_size", "user_defined/dropout"}
