"""TensorBoard event files through the cache (issue 12): discovery, every kind of value, both
kinds of file in one job, the restart rule, a damaged file, hparams as lineage rows, graphs,
text, the disk cache. Logs: the real tensorboardX/tensorboard fixtures and files written with
our `TensorBoardWriter` (our TB protos in the records framing)."""
from __future__ import annotations

import json
import os
import shutil
from collections import Counter

import numpy as np
import pytest
from fixture_paths import FIXTURES

from tui_insight.summary.formats.graph import load_graph
from tui_insight.summary.formats.graph_build import build_graph
from tui_insight.summary.queries.lineage import model_rows
from tui_insight.summary.formats.writer import SummaryWriter, TensorBoardWriter
from tui_insight.summary.sources.discovery import discover
from tui_insight.summary.store.cache import SummaryCache, wait_loaded
from tui_insight.summary.store.disk_cache import DiskCache

TB = FIXTURES / "tensorboard"
MANIFEST = json.loads((FIXTURES / "tensorboard.manifest.json").read_text())
T0 = 1_700_000_000.0


@pytest.fixture(scope="module")
def cache() -> SummaryCache:
    c = SummaryCache(str(TB))
    c.start(interval=0)
    assert wait_loaded(c)
    c.stop()
    return c


def values(view, tag):
    series = view.series("scalar", tag)
    return list(zip(series.steps.tolist(), series.values.tolist()))


def f32(pairs):
    return [(step, float(np.float32(value))) for step, value in pairs]


def test_tfevents_files_make_jobs_at_any_depth():
    jobs = discover(str(TB)).jobs
    assert sorted(jobs) == ["./damaged", "./keras_hparams", "./keras_hparams/trial-1",
                            "./keras_hparams/trial-1/validation", "./restart", "./tensorboardx",
                            "./tensorboardx/hparams_run", "./tensorboardx/loss_split/train",
                            "./tensorboardx/loss_split/val", "./tf2"]
    assert jobs["./restart"].tensorboard_files == ["events.out.tfevents.1700000300.fixture",
                                                   "events.out.tfevents.1700000400.fixture"]
    assert all(not job.summary_files for job in jobs.values())


def test_every_kind_of_value_of_tensorboardx(cache):
    view = cache.job("./tensorboardx")
    written = MANIFEST["tensorboardx"]
    assert view.state == "ok"
    for tag, pairs in written["scalars"].items():
        assert values(view, tag) == f32(pairs)
    for tag, hist in written["histograms"].items():
        series = view.series("histogram", tag)
        assert series.steps.tolist() == list(range(len(hist["values"])))
        for i, data in enumerate(hist["values"]):
            got = cache.payloads.histogram(view.locator(series, i))
            assert got.buckets[:, 2].sum() == len(data)  # every value, in every bucket
            assert got.min == min(data) and got.max == max(data)
    weights = cache.payloads.histogram(view.locator(view.series("histogram", "weights"), 0))
    assert len(weights.buckets) > 600  # kept: MindSpore's 90-bucket limit is MindSpore's only
    texts = view.series("text", "notes/text_summary")
    assert [cache.payloads.text(view.locator(texts, i)).text for i in range(len(texts))] == written["text"]["notes"]
    image = cache.payloads.image(view.locator(view.series("image", "sample"), 0))
    sample = np.array(written["images"]["sample"][0])
    assert (image.height, image.width) == sample.shape[1:] and image.png.startswith(b"\x89PNG")
    for tag, curve in written["pr_curves"].items():  # add_pr_curve_raw's rows, as written
        got = cache.payloads.pr_curve(view.locator(view.series("pr_curve", tag), 0))
        for name, numbers in curve.items():
            assert got.row(name).tolist() == pytest.approx(numbers)
    # audio is listed, and the job says it is not shown (the described view describes it): a note per kind
    assert sorted(view.tag_names("other")) == sorted(written["other"])
    # add_graph's step statistics beside the graph (a profile of the run graph): counted too
    others = {**written["other"], "profiler": "graph_tagged_run_metadata"}
    kinds = Counter(others.values())
    assert {(k.kind, k.count) for k in view.not_shown.kinds} == set(kinds.items())
    assert sorted(view.problems) == sorted(f"not shown: {kind} data, {n} tag{'s' if n > 1 else ''}"
                                           + (", described, not drawn" if kind in ("audio", "mesh") else "") + " ("
                                           + ", ".join(t for t, k in others.items() if k == kind) + ")"
                                           for kind, n in kinds.items())


def test_tf2_tensor_summaries_are_routed_by_the_plugin_of_their_first_value(cache):
    view = cache.job("./tf2")
    written = MANIFEST["tf2"]
    assert values(view, "epoch_loss") == f32(written["scalars"]["epoch_loss"])
    assert len(view.series("histogram", "dense/kernel")) == 3  # later values carry no metadata
    notes = view.series("text", "notes")
    assert [cache.payloads.text(view.locator(notes, i)).text for i in range(len(notes))] == written["text"]["notes"]
    activations = view.series("tensor", "activations")
    got = [cache.payloads.tensor(view.locator(activations, i)).array.tolist() for i in range(2)]
    assert got == written["tensors"]["activations"]
    assert view.tag_names("image") == ["samples"]


def test_restart_drops_the_later_steps_read_before_it(cache):
    view = cache.job("./restart")
    written = MANIFEST["restart"]
    purge = written["purge_step"]
    first, second = written["first"], written["second"]
    # loss: our rule and TensorBoard's agree: steps 0-4 of the first file, then the second's
    assert values(view, "loss") == f32([p for p in first["loss"] if p[0] < purge] + second["loss"])
    # acc was not written again: the SessionLog START dropped its steps >= 5 (TensorBoard's rule;
    # MindSpore's alone would keep them, having no value that goes back)
    assert values(view, "acc") == f32([p for p in first["acc"] if p[0] < purge])


def test_a_damaged_file_is_counted_and_the_rest_kept(cache):
    view = cache.job("./damaged")
    written = MANIFEST["damaged"]
    lost = {written["bad_payload_crc_step"], written["bad_header_step"]}
    assert [s for s, _ in values(view, "loss")] == [s for s in range(written["steps_written"]) if s not in lost]
    assert view.bad_records == len(lost) + written["not_an_event"]
    assert view.state == "corrupt: 3 records"


def test_hparams_sessions_become_lineage_rows(cache):
    rows = {row.summary_dir: row for row in model_rows(cache.jobs)}
    assert sorted(rows) == ["./keras_hparams/trial-1", "./tensorboardx/hparams_run"]
    tbx = MANIFEST["tensorboardx"]["hparams"]
    row = rows["./tensorboardx/hparams_run"]
    # optimizer, batch_size and lr (learning_rate's alias) are model-lineage columns; augment is not
    assert (row.get("optimizer"), row.get("batch_size")) == (tbx["hparams"]["optimizer"], tbx["hparams"]["batch_size"])
    assert row.get("learning_rate") == tbx["hparams"]["lr"]  # an alias lined up with its column
    assert dict(row.user_defined) == {"augment": tbx["hparams"]["augment"]}
    assert {k: float(np.float32(v)) for k, v in tbx["metrics"].items()} == dict(row.metric)
    keras = rows["./keras_hparams/trial-1"]  # experiment above it, metric in trial-1/validation
    assert keras.get("optimizer") == "sgd" and dict(keras.user_defined) == {"units": 32.0}
    assert dict(keras.metric) == {"validation/epoch_accuracy": float(np.float32(0.8))}
    assert row.get("metric/hparam/loss") == float(np.float32(0.31)) and row.get("user_defined/augment") is True
    assert dict(row.hparams) == {"optimizer": "optimizer", "batch_size": "batch_size", "learning_rate": "lr",
                                 "user_defined/augment": "augment"}


def test_a_graph_def_is_a_tree_by_name_scope(cache):
    view = cache.job("./tensorboardx")
    (source,) = view.graphs.values()
    assert source.kind == "tensorboard"
    graph = build_graph(load_graph(source))
    written = {node["name"]: node["op"] for node in MANIFEST["tensorboardx"]["graph"]}
    assert {n.name: n.type for n in graph if n.type not in ("name_scope", "aggregation_scope")} == written
    assert [n.name for n in graph.children("sequential")] == ["sequential/split", "sequential/dense",
                                                              "sequential/dense_1"]


def test_a_directory_with_both_kinds_is_one_job(tmp_path):
    run = tmp_path / "logs" / "run"
    with SummaryWriter(run, timestamp=int(T0), wall_time=T0) as writer:
        for step in range(1, 4):
            writer.add_scalar("ms_loss", 1.0 / step)
            writer.record(step, wall_time=T0 + step)
    with TensorBoardWriter(run, timestamp=int(T0), wall_time=T0) as writer:
        for step in range(1, 4):
            writer.add_scalar("tb_loss", 2.0 / step, step, T0 + step)
            writer.add_text("notes", f"step {step}", step, T0 + step)
    cache = SummaryCache(str(tmp_path / "logs"))
    cache.reload()
    (view,) = cache.jobs.values()
    assert len(view.summary_files) == 1 and len(view.tensorboard_files) == 1 and len(view.file_status) == 2
    assert values(view, "ms_loss") == f32([(s, 1.0 / s) for s in range(1, 4)])
    assert values(view, "tb_loss") == f32([(s, 2.0 / s) for s in range(1, 4)])
    assert view.tag_names("text") == ["notes"] and view.state == "ok"


def test_tag_plugins_survive_the_disk_cache(tmp_path):
    """TF2 names a tag's plugin on its first value only: values appended after a restore from
    the disk cache are still text, not tensors without a plugin."""
    logs, store = tmp_path / "logs", DiskCache(tmp_path / "store")
    run = logs / "run"
    writer = TensorBoardWriter(run, timestamp=int(T0), wall_time=T0)
    for step in range(3):
        writer.add_text("notes", f"step {step}", step, T0 + step)
    writer.flush()
    first = SummaryCache(str(logs), disk_cache=store)
    first.reload()
    assert len(first.job("./run").series("text", "notes")) == 3
    for step in range(3, 5):
        writer.add_text("notes", f"step {step}", step, T0 + step)
    writer.close()
    again = SummaryCache(str(logs), disk_cache=store)
    again.reload()
    view = again.job("./run")
    assert view.file_status[0].records == 6
    assert again.progress.bytes_read < os.path.getsize(writer.path) / 2  # restored, then read on
    notes = view.series("text", "notes")
    assert notes.steps.tolist() == [0, 1, 2, 3, 4] and not view.tag_names("tensor")
    assert again.payloads.text(view.locator(notes, 4)).text == "step 4"


def test_hparams_lineage_survives_the_disk_cache(tmp_path):
    logs, store = tmp_path / "logs", DiskCache(tmp_path / "store")
    shutil.copytree(TB / "tensorboardx" / "hparams_run", logs / "hparams_run")
    SummaryCache(str(logs), disk_cache=store).reload()
    again = SummaryCache(str(logs), disk_cache=store, memory_budget=0)  # listed from the header only
    again.reload()
    assert not again.job("./hparams_run").detailed
    (row,) = model_rows(again.jobs)
    assert row.get("optimizer") == "adam" and row.get("metric/hparam/accuracy") is not None


def test_a_tensorboard_file_that_grows_is_read_from_where_it_stopped(tmp_path):
    run = tmp_path / "logs" / "run"
    writer = TensorBoardWriter(run, timestamp=int(T0), wall_time=T0)
    writer.add_scalar("loss", 1.0, 0, T0)
    writer.flush()
    cache = SummaryCache(str(tmp_path / "logs"))
    cache.reload()
    size = os.path.getsize(writer.path)
    writer.add_scalar("loss", 0.5, 1, T0 + 1)
    writer.close()
    changes = cache.reload()
    view = cache.job("./run")
    assert values(view, "loss") == [(0, 1.0), (1, 0.5)]
    assert ("scalar", "loss") in changes.updated["./run"] and view.file_status[0].size > size


def test_random_bytes_under_a_tfevents_name_are_not_an_event_file(tmp_path):
    run = tmp_path / "logs" / "run"
    run.mkdir(parents=True)
    (run / "events.out.tfevents.1700000000.host").write_bytes(np.random.default_rng(1).bytes(4096))
    cache = SummaryCache(str(tmp_path / "logs"))
    cache.reload()
    assert cache.job("./run").state == "unreadable: not a TensorBoard event file"


def test_loading_processes_read_tensorboard_jobs_as_this_process_does(cache):
    """The fixtures' 10 jobs are a first load for the pool: what the workers send back (their
    snapshots, hparams and file kinds included) is what reading here gives."""
    pooled = SummaryCache(str(TB), workers=2)
    try:
        pooled.reload()
    finally:
        pooled.stop()
    assert set(pooled.jobs) == set(cache.jobs)
    for train_id, view in cache.jobs.items():
        other = pooled.job(train_id)
        assert (other.state, other.tag_counts, other.problems) == (view.state, view.tag_counts, view.problems)
        assert {key: s.steps.tolist() for key, s in other.tags.items()} == {
            key: s.steps.tolist() for key, s in view.tags.items()}
    assert [r.summary_dir for r in model_rows(pooled.jobs)] == [r.summary_dir for r in model_rows(cache.jobs)]
