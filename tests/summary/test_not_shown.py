"""What a job holds that no view shows (issue 22): kinds without a view and tags over the limits,
counted in `JobView.not_shown`, a note each in `JobView.problems`, kept through the disk cache
and the loading processes; projector embeddings found, a projector config alone a job."""
from __future__ import annotations

import os
import shutil

import numpy as np
import pytest
from s3help import s3_server  # noqa: F401 (a fixture)
from sshd import sshd_or_fail
from tensorboardX import SummaryWriter as TBWriter
from tensorboardX.proto.summary_pb2 import Summary, SummaryMetadata
from tensorboardX.proto.tensor_pb2 import TensorProto
from unshown_logs import (
    EMBEDDING_SHAPE,
    MANY_TAGS,
    UNSHOWN,
    write_many_tags,
    write_unshown,
)

from tui_insight.proto import summary_pb2
from tui_insight.summary import limits
from tui_insight.summary.formats.writer import SummaryWriter
from tui_insight.summary.sources.discovery import discover
from tui_insight.summary.sources.object_store import FsspecSource
from tui_insight.summary.sources.ssh import SshSource
from tui_insight.summary.store.cache import SummaryCache
from tui_insight.summary.store.disk_cache import DiskCache
from tui_insight.summary.store.not_shown import MAX_KINDS, NOTHING

OVER = MANY_TAGS - limits.MAX_TAGS


@pytest.fixture(scope="module")
def logs(tmp_path_factory):
    logdir = tmp_path_factory.mktemp("unshown")
    write_unshown(logdir)
    write_many_tags(logdir)
    return logdir


def loaded(logdir, **kwargs) -> SummaryCache:
    """A cache of `logdir` (a local directory, or a remote source) after one reload."""
    cache = SummaryCache(str(logdir) if isinstance(logdir, os.PathLike) else logdir, **kwargs)
    try:
        cache.reload()
    finally:
        cache.stop()
    return cache


def account(view) -> tuple:
    return ({k.kind: k.count for k in view.not_shown.kinds},
            {(e.plugin, e.limit): e.count for e in view.not_shown.left_out})


def test_every_kind_no_view_shows_is_counted_with_a_note_each(logs):
    cache = loaded(logs)
    run = cache.job("./run")
    assert account(run) == (UNSHOWN, {})
    assert run.not_shown.brief() == "audio 1 tag, mesh 2, embeddings 1 tensor"
    notes = [p for p in run.problems if p.startswith("not shown: ")]
    assert len(notes) == len(UNSHOWN) == len(run.problems)  # one line a kind, not one a tag
    assert "not shown: mesh data, 2 tags, described, not drawn (cube_1, cube_2)" in notes
    assert f"not shown: embeddings data, 1 tensor, described, not drawn (feat:00000 {EMBEDDING_SHAPE[0]}x{EMBEDDING_SHAPE[1]})" in notes


def test_tags_over_the_tag_limit_are_counted(logs):
    many = loaded(logs).job("./many")
    assert many.tag_count("scalar") == limits.MAX_TAGS
    assert account(many) == ({}, {("scalar", limits.MAX_TAGS): OVER})
    assert many.not_shown.brief() == f"{OVER} tags over the {limits.MAX_TAGS} limit"
    note = f"not shown: {OVER} scalar tags over the limit of {limits.MAX_TAGS} (the earliest seen left out)"
    assert many.problems == (note,)


def test_tensor_tags_over_their_own_limit_are_counted_by_plugin(tmp_path):
    cap = limits.MAX_TAGS_PER_PLUGIN["tensor"]
    with SummaryWriter(tmp_path / "job") as writer:
        for step in range(2):
            for i in range(cap + 2):
                writer.add_tensor(f"t{i}", np.arange(4.0) + step)
            writer.record(step)
    view = loaded(tmp_path).job("./job")
    assert view.tag_count("tensor") == cap
    assert account(view) == ({}, {("tensor", cap): 2})
    assert view.not_shown.brief() == f"2 tensor tags over the {cap} limit"


def test_a_warm_start_lists_what_is_not_shown_from_the_disk_cache(logs, tmp_path):
    first = loaded(logs, disk_cache=DiskCache(tmp_path / "cache"))
    warm = loaded(logs, disk_cache=DiskCache(tmp_path / "cache"))
    assert warm.progress.bytes_read == 0  # listed from the cache, nothing read again
    for train_id in ("./run", "./many"):
        assert account(warm.job(train_id)) == account(first.job(train_id)) != ({}, {})
        assert warm.job(train_id).problems == first.job(train_id).problems


def test_loading_processes_hand_back_what_is_not_shown(logs, tmp_path):
    for i in range(8):  # a pool reads passes of at least 8 jobs
        shutil.copytree(logs / "run", tmp_path / f"run{i}")
    plain, pooled = loaded(tmp_path), loaded(tmp_path, workers=2)
    assert set(pooled.jobs) == set(plain.jobs) and len(plain.jobs) == 8
    for train_id, view in plain.jobs.items():
        assert account(pooled.job(train_id)) == account(view) == (UNSHOWN, {})
        assert pooled.job(train_id).problems == view.problems


def test_a_projector_config_alone_makes_a_job_with_its_embeddings(tmp_path):
    run = tmp_path / "emb"
    (run / "00000" / "feat").mkdir(parents=True)
    (run / "00000" / "feat" / "tensors.tsv").write_text("".join("1\t2\t3\n" for _ in range(7)))
    (tmp_path / "outside.tsv").write_text("1\t2\n")
    (run / "projector_config.pbtxt").write_text(
        'embeddings {\ntensor_name: "feat:00000"\ntensor_path: "00000/feat/tensors.tsv"\n}\n'
        'embeddings {\ntensor_name: "words"\ntensor_path: "w.bin"\ntensor_shape: 100\ntensor_shape: 16\n}\n'
        'embeddings {\ntensor_name: "away"\ntensor_path: "../outside.tsv"\n}\n')
    assert list(discover(str(tmp_path)).jobs) == ["./emb"]
    view = loaded(tmp_path).job("./emb")
    assert view.state == "ok"
    (kind,) = view.not_shown.kinds
    # shapes: counted from a TSV inside the job, as written in the config, never read outside it
    assert (kind.kind, kind.count, kind.examples) == ("embeddings", 3, ("feat:00000 7x3", "words 100x16", "away"))


def test_a_projector_config_that_grows_is_read_again(tmp_path):
    run = tmp_path / "emb"
    run.mkdir()
    config = run / "projector_config.pbtxt"
    config.write_text('embeddings {\ntensor_name: "a"\n}\n')
    cache = SummaryCache(str(tmp_path))
    cache.reload()
    assert [k.count for k in cache.job("./emb").not_shown.kinds] == [1]
    with config.open("a") as fh:
        fh.write('embeddings {\ntensor_name: "b"\n}\n')
    cache.reload()
    assert [k.examples for k in cache.job("./emb").not_shown.kinds] == [("a", "b")]


def test_a_file_naming_hundreds_of_plugins_gets_a_bounded_account(tmp_path):
    writer = TBWriter(str(tmp_path / "odd"))
    for i in range(300):
        metadata = SummaryMetadata(plugin_data=SummaryMetadata.PluginData(plugin_name=f"plugin{i}" + "x" * 200))
        value = Summary.Value(tag=f"tag{i}", metadata=metadata, tensor=TensorProto(dtype=1, float_val=[1.0]))
        writer._get_file_writer().add_summary(Summary(value=[value]), 0)
    writer.close()
    view = loaded(tmp_path).job("./odd")
    kinds = view.not_shown.kinds
    assert len(kinds) == MAX_KINDS + 1 and kinds[-1].kind == "other plugins"
    assert sum(k.count for k in kinds) == 300 and kinds[-1].count == 300 - MAX_KINDS
    assert max(len(p) for p in view.problems) < 400  # names cut short


def test_over_s3_the_account_is_the_local_one(logs, s3_server):  # noqa: F811 (a fixture)
    prefix = f"{s3_server.bucket()}/runs"
    s3_server.upload(logs, prefix)
    local, remote = loaded(logs), loaded(FsspecSource(f"s3://{prefix}", s3_server.options))
    assert remote.error == "" and set(remote.jobs) == {"./run", "./many"}
    for train_id in remote.jobs:
        assert remote.job(train_id).not_shown == local.job(train_id).not_shown != NOTHING


def test_graph_files_over_the_graph_limit_are_counted(tmp_path):
    cap = limits.MAX_TAGS_PER_PLUGIN["graph"]
    (tmp_path / "job").mkdir()
    for i in range(cap + 2):
        (tmp_path / "job" / f"g{i:02d}.pb").write_bytes(b"")
    view = loaded(tmp_path).job("./job")
    assert len(view.graphs) == cap
    assert account(view) == ({}, {("graph", cap): 2})
    assert view.not_shown.brief() == f"2 graphs over the {cap} limit"
    assert view.problems == (f"not shown: 2 graphs over the limit of {cap} (the earliest seen left out)",)


def test_histogram_steps_over_the_bucket_limit_are_counted(tmp_path):
    with SummaryWriter(tmp_path / "job") as writer:
        for step, buckets in enumerate([10, limits.MAX_HISTOGRAM_BUCKETS + 10, 20, limits.MAX_HISTOGRAM_BUCKETS + 1]):
            event = summary_pb2.Event(wall_time=1.0 + step, step=step)
            histogram = event.summary.value.add(tag="w").histogram
            for i in range(buckets):
                histogram.buckets.add(left=float(i), width=1.0, count=1)
            histogram.min, histogram.max = 0.0, float(buckets)
            writer.write_message(event)
    view = loaded(tmp_path).job("./job")
    assert view.series("histogram", "w").steps.tolist() == [0, 2]  # as MindInsight, the wide ones left out
    assert account(view) == ({f"histograms over {limits.MAX_HISTOGRAM_BUCKETS} buckets": 2}, {})
    assert view.not_shown.brief() == f"histograms over {limits.MAX_HISTOGRAM_BUCKETS} buckets 2 steps"
    assert view.problems == (f"not shown: histograms over {limits.MAX_HISTOGRAM_BUCKETS} buckets data, 2 steps (w)",)


def test_a_projector_config_of_garbage_says_so_and_keeps_the_rest(tmp_path):
    job = tmp_path / "odd"
    job.mkdir()
    (job / "projector_config.pbtxt").write_bytes(b"\x1b]52;c;bad\xff{embeddings {{{" * 1000)
    view = loaded(tmp_path).job("./odd")
    assert view.state == "ok" and not view.not_shown
    assert view.problems == ("projector_config.pbtxt: no embeddings read from it",)


def test_over_ssh_the_account_is_the_local_one(logs, tmp_path):
    (tmp_path / "sshd").mkdir()
    server = sshd_or_fail(tmp_path / "sshd")
    try:
        source = SshSource(server.target(logs), server.ssh_options())
        try:
            local, remote = loaded(logs), loaded(source)
            assert remote.error == "" and set(remote.jobs) == {"./run", "./many"}
            for train_id in remote.jobs:
                assert remote.job(train_id).not_shown == local.job(train_id).not_shown != NOTHING
        finally:
            source.close()
    finally:
        server.stop()
