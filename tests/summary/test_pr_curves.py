"""PR curves (TensorBoard's pr_curves plugin) read from logs written by tensorboardX's
`add_pr_curve` and by tensorboard's own protos (`tf.summary` pr_curve's format, built as
tensorboard's `pr_curve/summary.py` builds it), checked against TensorBoard's own numbers
(`PrCurvesPlugin._make_pr_entry` on the tensor TensorBoard's loader reads)."""
from __future__ import annotations

import csv
import glob

import numpy as np
import pytest
from tensorboard.backend.event_processing.event_file_loader import EventFileLoader
from tensorboard.compat.proto import event_pb2, summary_pb2
from tensorboard.plugins.pr_curve import metadata as pr_metadata
from tensorboard.plugins.pr_curve.pr_curves_plugin import PrCurvesPlugin
from tensorboard.summary.writer.event_file_writer import EventFileWriter
from tensorboard.util import tensor_util
from tensorboardX import SummaryWriter

from tui_insight.export import export_snapshot
from tui_insight.summary.store.cache import SummaryCache, wait_loaded

STEPS = 4


def labelled(step: int, seed: int):
    rng = np.random.default_rng(seed * 100 + step)
    labels = rng.integers(0, 2, 200)
    predictions = np.clip(labels * 0.35 + rng.random(200) * 0.65, 0, 1)
    return labels, predictions


def write_tensorboardx(run, seed: int = 0) -> None:
    writer = SummaryWriter(str(run))
    for step in range(STEPS):
        labels, predictions = labelled(step, seed)
        writer.add_pr_curve("pr/cat", labels, predictions, step, num_thresholds=51)
        writer.add_pr_curve("pr/dog", 1 - labels, 1 - predictions, step)
        writer.add_scalar("loss", 1.0 / (step + 1), step)
    writer.close()


def tensorboard_pr_summary(name: str, labels, predictions, num_thresholds: int = 201) -> summary_pb2.Summary:
    """What `tensorboard.plugins.pr_curve.summary.pb` builds, without TensorFlow: its counts
    (the same numpy lines) in a float32 [6, n] tensor under its metadata, tag `<name>/pr_curves`."""
    bucket_indices = np.int32(np.floor(predictions * (num_thresholds - 1)))
    float_labels = labels.astype(float)
    tp_buckets, _ = np.histogram(bucket_indices, bins=num_thresholds, range=(0, num_thresholds - 1),
                                 weights=float_labels)
    fp_buckets, _ = np.histogram(bucket_indices, bins=num_thresholds, range=(0, num_thresholds - 1),
                                 weights=1.0 - float_labels)
    tp = np.cumsum(tp_buckets[::-1])[::-1]
    fp = np.cumsum(fp_buckets[::-1])[::-1]
    tn, fn = fp[0] - fp, tp[0] - tp
    precision = tp / np.maximum(1e-7, tp + fp)
    recall = tp / np.maximum(1e-7, tp + fn)
    data = np.float32(np.stack((tp, fp, tn, fn, precision, recall)))
    summary = summary_pb2.Summary()
    summary.value.add(tag=f"{name}/pr_curves", tensor=tensor_util.make_tensor_proto(data),
                      metadata=pr_metadata.create_summary_metadata(name, "", num_thresholds))
    return summary


def write_tensorboard(run) -> None:
    writer = EventFileWriter(str(run))
    for step in range(STEPS):
        labels, predictions = labelled(step, 7)
        writer.add_event(event_pb2.Event(step=step, wall_time=1_700_000_000.0 + step,
                                         summary=tensorboard_pr_summary("roc", labels, predictions)))
    writer.close()


def tensorboard_entries(run) -> dict[str, list[dict]]:
    """TensorBoard's PR curve entries of a run, per tag, by step."""
    entries: dict[str, list[dict]] = {}
    for path in sorted(glob.glob(str(run / "*tfevents*"))):
        for event in EventFileLoader(path).Load():
            for value in event.summary.value:
                if value.metadata.plugin_data.plugin_name == pr_metadata.PLUGIN_NAME:
                    array = tensor_util.make_ndarray(value.tensor)
                    entries.setdefault(value.tag, []).append(
                        PrCurvesPlugin._make_pr_entry(None, event.step, event.wall_time, array))
    return entries


def loaded(logs) -> SummaryCache:
    cache = SummaryCache(str(logs))
    cache.start(interval=0)
    assert wait_loaded(cache)
    cache.stop()
    return cache


def assert_as_tensorboard_draws(cache, train_id, run):
    view = cache.job(train_id)
    expected = tensorboard_entries(run)
    assert sorted(view.tag_names("pr_curve")) == sorted(expected)
    for tag, entries in expected.items():
        series = view.series("pr_curve", tag)
        assert series.steps.tolist() == [e["step"] for e in entries]
        for i, entry in enumerate(entries):
            curve = cache.payloads.pr_curve(view.locator(series, i))
            assert curve.precision.tolist() == entry["precision"]
            assert curve.recall.tolist() == entry["recall"]
            assert curve.thresholds[:curve.end].tolist() == entry["thresholds"]
            assert curve.row("tp")[:curve.end].astype(int).tolist() == entry["true_positives"]
            assert curve.row("fn")[:curve.end].astype(int).tolist() == entry["false_negatives"]
    return view


@pytest.mark.parametrize("writer", [write_tensorboardx, write_tensorboard])
def test_pr_curves_read_as_tensorboard_draws_them_and_leave_the_not_shown_account(tmp_path, writer):
    run = tmp_path / "logs" / "run"
    writer(run)
    cache = loaded(tmp_path / "logs")
    view = assert_as_tensorboard_draws(cache, "./run", run)
    assert view.tag_names("other") == []
    assert view.not_shown.kinds == ()
    assert not any("pr_curves" in p for p in view.problems)


def test_the_area_is_the_trapezoid_area_of_precision_over_recall(tmp_path):
    run = tmp_path / "logs" / "run"
    write_tensorboard(run)
    cache = loaded(tmp_path / "logs")
    view = cache.job("./run")
    series = view.series("pr_curve", "roc/pr_curves")
    entry = tensorboard_entries(run)["roc/pr_curves"][0]
    curve = cache.payloads.pr_curve(view.locator(series, 0))
    recall, precision = entry["recall"][::-1], entry["precision"][::-1]  # recall grows
    assert curve.area == pytest.approx(float(np.trapezoid(precision, recall)), rel=1e-12)
    assert 0.5 < curve.area < 1.0


def test_export_writes_every_threshold_of_every_step(tmp_path):
    run = tmp_path / "logs" / "run"
    write_tensorboardx(run)
    cache = loaded(tmp_path / "logs")
    export_snapshot(cache, tmp_path / "out")
    with open(tmp_path / "out" / "pr_curves.csv", newline="") as handle:
        rows = list(csv.reader(handle))
    assert rows[0] == ["train_id", "tag", "step", "wall_time", "threshold", "tp", "fp", "tn", "fn",
                       "precision", "recall"]
    cat = [r for r in rows[1:] if r[1] == "pr/cat"]
    assert len(cat) == STEPS * 51 and len([r for r in rows[1:] if r[1] == "pr/dog"]) == STEPS * 127
    entry = tensorboard_entries(run)["pr/cat"][2]
    step2 = [r for r in cat if r[2] == "2"]
    assert [float(r[4]) for r in step2] == pytest.approx(np.linspace(0, 1, 51).tolist())
    assert [int(r[5]) for r in step2][:len(entry["true_positives"])] == entry["true_positives"]
    assert [float(r[9]) for r in step2][:len(entry["precision"])] == pytest.approx(entry["precision"], rel=1e-6)
    assert [float(r[10]) for r in step2][:len(entry["recall"])] == pytest.approx(entry["recall"], rel=1e-6)


def test_a_tensor_of_another_shape_is_a_problem_and_the_rest_is_kept(tmp_path):
    run = tmp_path / "logs" / "run"
    writer = EventFileWriter(str(run))
    summary = summary_pb2.Summary()
    summary.value.add(tag="bad", tensor=tensor_util.make_tensor_proto(np.float32(np.ones((3, 4)))),
                      metadata=pr_metadata.create_summary_metadata("bad", "", 4))
    writer.add_event(event_pb2.Event(step=0, wall_time=1_700_000_000.0, summary=summary))
    labels, predictions = labelled(0, 1)
    writer.add_event(event_pb2.Event(step=0, wall_time=1_700_000_000.0,
                                     summary=tensorboard_pr_summary("good", labels, predictions)))
    writer.close()
    cache = loaded(tmp_path / "logs")
    view = cache.job("./run")
    good = view.series("pr_curve", "good/pr_curves")
    assert len(cache.payloads.pr_curve(view.locator(good, 0)).recall) > 1
    from tui_insight.summary.formats.values import PayloadError
    with pytest.raises(PayloadError, match=r"shape \[3, 4\] is no PR curve"):
        cache.payloads.pr_curve(view.locator(view.series("pr_curve", "bad"), 0))
