"""Logs written by `torch.utils.tensorboard`, through the cache (issue 12).

torch is large and not a test extra: this module is skipped without it. To run it:
`pip install torch`, or without touching the environment
`pip install --target /tmp/torchlib torch` and
`PYTHONPATH=/tmp/torchlib python -m pytest tests/summary/test_torch_tensorboard.py`.
"""
from __future__ import annotations

import numpy as np
import pytest

from tui_insight.summary.formats.graph import load_graph
from tui_insight.summary.formats.graph_build import build_graph
from tui_insight.summary.queries.lineage import model_rows
from tui_insight.summary.store.cache import SummaryCache

torch = pytest.importorskip("torch")
tensorboard = pytest.importorskip("torch.utils.tensorboard")

T0 = 1_700_000_000.0


class Net(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.fc1 = torch.nn.Linear(4, 3)
        self.fc2 = torch.nn.Linear(3, 2)

    def forward(self, x):
        return self.fc2(torch.relu(self.fc1(x)))


def test_a_torch_run_reads_like_any_other(tmp_path):
    rng = np.random.default_rng(0)
    weights = [rng.normal(size=1000) for _ in range(3)]
    with tensorboard.SummaryWriter(str(tmp_path / "run")) as writer:
        writer.add_graph(Net(), torch.zeros(1, 4))
        for step in range(10):
            writer.add_scalar("loss", 1.0 / (step + 1), step, walltime=T0 + step)
        for step, values in enumerate(weights):
            writer.add_histogram("fc1.weight", values, step, walltime=T0 + step)
        writer.add_image("input", rng.random((3, 8, 12)), 0, walltime=T0)
        writer.add_text("notes", "hello *torch*", 0, walltime=T0)
        writer.add_hparams({"lr": 0.1, "optimizer": "sgd"}, {"hparam/acc": 0.9}, run_name="hp")
    cache = SummaryCache(str(tmp_path))
    cache.reload()
    view = cache.job("./run")
    assert view.state == "ok" and view.tensorboard_files
    loss = view.series("scalar", "loss")
    assert loss.steps.tolist() == list(range(10))
    assert loss.values.tolist() == [float(np.float32(1.0 / (s + 1))) for s in range(10)]
    histogram = view.series("histogram", "fc1.weight")
    for i, values in enumerate(weights):
        data = cache.payloads.histogram(view.locator(histogram, i))
        assert len(data.buckets) > 90 and data.buckets[:, 2].sum() == len(values)
        assert data.min == values.min() and data.max == values.max()
    image = cache.payloads.image(view.locator(view.series("image", "input"), 0))
    assert (image.width, image.height) == (12, 8)
    # torch stores text under `<tag>/text_summary`
    assert cache.payloads.text(view.locator(view.series("text", "notes/text_summary"), 0)).text == "hello *torch*"
    (source,) = view.graphs.values()
    graph = build_graph(load_graph(source))
    assert "Net" in [n.name for n in graph.children("")]
    (row,) = model_rows(cache.jobs)
    assert row.summary_dir == "./run/hp"
    assert row.get("user_defined/lr") == 0.1 and row.get("optimizer") == "sgd"
    assert row.get("metric/hparam/acc") == float(np.float32(0.9))


def test_purge_step_drops_what_a_restart_writes_again(tmp_path):
    with tensorboard.SummaryWriter(str(tmp_path / "run"), filename_suffix=".a") as writer:
        for step in range(10):
            writer.add_scalar("loss", float(step), step, walltime=T0 + step)
            writer.add_scalar("acc", float(step) / 10, step, walltime=T0 + step)
    with tensorboard.SummaryWriter(str(tmp_path / "run"), purge_step=5, filename_suffix=".b") as writer:
        for step in range(5, 8):
            writer.add_scalar("loss", 100.0 + step, step, walltime=T0 + 100 + step)
    cache = SummaryCache(str(tmp_path))
    cache.reload()
    view = cache.job("./run")
    assert len(view.tensorboard_files) == 2
    assert view.series("scalar", "loss").values.tolist() == [0, 1, 2, 3, 4, 105, 106, 107]
    assert view.series("scalar", "acc").steps.tolist() == [0, 1, 2, 3, 4]
