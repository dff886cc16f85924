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


def test_histograms_read_together_are_each_as_histogram_data_reads_it():
    # `histograms_data` converts the sound `histo`s together by numpy and leaves every other
    # value to `histogram_data`: sound, empty, hostile (NaN, infinite, negative, unordered,
    # limits and buckets not as many) and other values, together and one at a time.
    from tui_insight.proto import tb_event_pb2
    from tui_insight.summary.formats.routed import Problem
    from tui_insight.summary.formats.tensorboard import histograms_data

    rng = np.random.default_rng(30)
    specials = [np.nan, np.inf, -np.inf, -1.0, 0.0, -0.0, 2.0 ** 60, 1e308, -1e308, 5e-324]
    values = []
    for _ in range(2000):
        n = int(rng.integers(0, 12))
        value = tb_event_pb2.Summary.Value(tag="t")
        limits, counts = np.sort(rng.normal(size=n)) * rng.choice([1, 1e300]), rng.choice([0, 0, 1, 2, 3.5], n)
        if rng.random() < 0.3 and n:
            counts[rng.integers(0, n)] = rng.choice(specials)
        if rng.random() < 0.2 and n:
            limits[rng.integers(0, n)] = rng.choice(specials)
        if rng.random() < 0.1:
            rng.shuffle(limits)
        value.histo.bucket_limit.extend(limits.tolist())
        value.histo.bucket.extend(counts.tolist() + ([1.0] if rng.random() < 0.05 else []))
        known = limits[~np.isnan(limits)]  # (one limit, made NaN: no NaN-slice warning)
        low, high = (known.min() - 1, known.max() + 1) if known.size else (0.0, 0.0)
        value.histo.min = float(low if rng.random() < 0.8 else rng.choice([np.nan, np.inf, 1e308]))
        value.histo.max = float(high if rng.random() < 0.8 else rng.choice([np.nan, -np.inf, -1e308]))
        values.append(value if rng.random() > 0.03 else tb_event_pb2.Summary.Value(tag="x", simple_value=1.0))

    def same(a, b) -> bool:
        if isinstance(a, Problem) or isinstance(b, Problem):
            return type(a) is type(b) and str(a) == str(b)
        return a.buckets.shape == b.buckets.shape and a.buckets.tobytes() == b.buckets.tobytes() and \
            np.array([a.min, a.max]).tobytes() == np.array([b.min, b.max]).tobytes() and \
            (a.nan_count, a.pos_inf_count, a.neg_inf_count, a.problem) == \
            (b.nan_count, b.pos_inf_count, b.neg_inf_count, b.problem)

    each = [histogram_data(value) for value in values]
    assert sum(not isinstance(d, Problem) and not d.problem and len(d.buckets) > 1 for d in each) > 500
    assert sum(not isinstance(d, Problem) and bool(d.problem) for d in each) > 100
    for size in (len(values), 7, 1):
        together = [d for at in range(0, len(values), size) for d in histograms_data(values[at:at + size])]
        assert [i for i, (a, b) in enumerate(zip(each, together)) if not same(a, b)] == []
