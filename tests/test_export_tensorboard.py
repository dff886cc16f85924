"""CSV snapshots of TensorBoard runs (issue 12): the same files, histograms.csv holding each
histogram's buckets as the file holds them, --all-steps reading the files with TensorBoard's
decoders. Logs: the real tensorboardX/tensorboard fixtures."""
import csv
import json
from collections import Counter

import numpy as np
import pytest
from fixture_paths import FIXTURES

from tui_insight.export import HEADERS, export_snapshot
from tui_insight.summary.formats.tensorboard import histogram_data, scan_file, value_at
from tui_insight.summary.store.cache import SummaryCache

TB = FIXTURES / "tensorboard"
MANIFEST = json.loads((FIXTURES / "tensorboard.manifest.json").read_text())


def read(path):
    with open(path, newline="", encoding="utf-8") as fh:
        return list(csv.DictReader(fh))


@pytest.fixture(scope="module")
def cache():
    c = SummaryCache(str(TB))
    c.reload()
    return c


@pytest.fixture(scope="module", params=[False, True], ids=["cached", "all-steps"])
def snapshot(request, cache, tmp_path_factory):
    out = tmp_path_factory.mktemp("tb") / "out"
    export_snapshot(cache, out, all_steps=request.param)
    return out


def test_jobs_and_scalars(snapshot):
    jobs = {row["train_id"]: row for row in read(snapshot / "jobs.csv")}
    assert list(read(snapshot / "jobs.csv")[0]) == HEADERS["jobs"]
    assert jobs["./restart"]["tensorboard_files"] == "2" and jobs["./restart"]["summary_files"] == "0"
    assert jobs["./damaged"]["state"] == "corrupt: 3 records"
    rows = [r for r in read(snapshot / "scalars.csv") if r["train_id"] == "./tensorboardx" and r["tag"] == "loss"]
    assert [(int(r["step"]), np.float32(r["value"])) for r in rows] == [  # float32s, shortest text
        (step, np.float32(value)) for step, value in MANIFEST["tensorboardx"]["scalars"]["loss"]]


def test_histograms_csv_holds_the_files_buckets(snapshot):
    rows = [r for r in read(snapshot / "histograms.csv") if r["train_id"] == "./tensorboardx"]
    per_step = Counter((r["tag"], int(r["step"])) for r in rows)
    path = TB / "tensorboardx" / "events.out.tfevents.1700000000.fixture"
    for offset, event in scan_file(path).events:
        for value in event.values:
            if value.plugin == "histogram":
                data = histogram_data(value_at(str(path), offset, value.index))
                assert per_step[(value.tag, event.step)] == len(data.buckets)  # 605+ for `weights`
    weights = [r for r in rows if r["tag"] == "weights" and r["step"] == "0"]
    assert len(weights) > 600 and sum(int(r["count"]) for r in weights) == 500


def test_tensors_and_images(snapshot):
    tensors = [r for r in read(snapshot / "tensors.csv") if r["tag"] == "activations"]
    assert [(r["step"], r["shape"], r["dtype"]) for r in tensors] == [("0", "2x3", "DT_FLOAT"), ("1", "2x3", "DT_FLOAT")]
    images = {(r["train_id"], r["tag"]): (r["width"], r["height"]) for r in read(snapshot / "images.csv")}
    assert images == {("./tensorboardx", "sample"): ("12", "8"), ("./tf2", "samples"): ("10", "6")}
    # tf.summary.image(max_outputs=2) wrote two images a step: a row for each, numbered
    per_step = Counter((r["step"], r["sample"]) for r in read(snapshot / "images.csv") if r["tag"] == "samples")
    count = MANIFEST["tf2"]["images"]["samples"]["count"]
    steps = {step for step, _ in per_step}
    assert count == 2 and steps and per_step == Counter({(s, str(n)): 1 for s in steps for n in range(count)})


def test_hparams_in_lineage_csv(snapshot):
    rows = {r["summary_dir"]: r for r in read(snapshot / "lineage.csv")}
    assert sorted(rows) == ["./keras_hparams/trial-1", "./tensorboardx/hparams_run"]
    assert rows["./tensorboardx/hparams_run"]["optimizer"] == "adam"
    assert rows["./keras_hparams/trial-1"]["metric/validation/epoch_accuracy"] == str(float(np.float32(0.8)))
