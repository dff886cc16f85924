"""The public API (`tui_insight.open`): against MindInsight's values for the fixture logs, the CSV
export of the same logs, tbparse on logs written by tensorboardX, and a real sshd."""
from __future__ import annotations

import csv
import json
import os
import re
import subprocess
import sys
import textwrap
from pathlib import Path

import numpy as np
import pytest
from fixture_paths import MINDSPORE_LOGS, REPO
from s3help import s3_server  # noqa: F401 (a fixture)

import tui_insight
from tui_insight import api
from tui_insight.export import export_streaming
from tui_insight.summary.store.cache import SummaryCache


@pytest.fixture(scope="module")
def logs():
    with tui_insight.open(MINDSPORE_LOGS) as opened:
        yield opened


def read_csv(path: Path) -> list[dict]:
    with open(path, newline="", encoding="utf-8") as fh:
        return list(csv.DictReader(fh))


def test_scalars_are_the_values_mindinsight_serves(logs, truth):
    frame = logs.scalars()
    assert list(frame.columns) == list(api.SCALAR_COLUMNS)
    for train_id, job in truth["jobs"].items():
        for full, points in job["scalars"].items():
            tag = full.rsplit("/", 1)[0]
            rows = frame[(frame.job == train_id) & (frame.tag == tag)].set_index("step")
            if len(points) < 1000:  # kept whole by both (a longer tag is sampled, each its own way)
                assert rows.index.tolist() == [p[0] for p in points], (train_id, tag)
            shared = [p for p in points if p[0] in rows.index]
            assert shared, (train_id, tag)
            expected = np.array([np.nan if p[1] is None else p[1] for p in shared], dtype=np.float64)
            mine = rows.loc[[p[0] for p in shared], "value"].to_numpy()
            finite = np.isfinite(expected)
            assert np.array_equal(mine[finite], expected[finite]), (train_id, tag)
            assert rows.loc[[p[0] for p in shared], "wall_time"].tolist() == pytest.approx([p[2] for p in shared], abs=1e-6)


@pytest.mark.parametrize("all_steps", [False, True])
def test_scalars_are_the_csv_exports_rows(logs, tmp_path, all_steps):
    export_streaming(SummaryCache(MINDSPORE_LOGS), tmp_path / "out", all_steps=all_steps)
    expected = [(r["train_id"], r["tag"], int(r["step"]), float(r["value"])) for r in read_csv(tmp_path / "out" / "scalars.csv")]
    frame = logs.scalars(all_steps=all_steps)
    got = [(j, t, int(s), np.float32(v)) for j, t, s, v in zip(frame.job, frame.tag, frame.step, frame.value)]
    assert len(got) == len(expected)
    for mine, theirs in zip(got, expected):
        assert mine[:3] == theirs[:3]
        assert mine[3] == np.float32(theirs[3]) or (np.isnan(mine[3]) and np.isnan(theirs[3]))


def test_job_and_tag_patterns_narrow_the_table(logs):
    frame = logs.scalars(jobs="lenet_*", tags=["loss*", "*acc*"])
    assert set(frame.job) == {"./lenet_lr0.01", "./lenet_lr0.1"}
    assert set(frame.tag) == {"loss/auto", "custom/acc_proxy"}


def test_histograms_are_the_buckets_as_written(logs, truth):
    frame = logs.histograms(jobs="./", tags="root/w")
    by_step = {}
    for item in truth["jobs"]["./"]["raw"]["histograms"]["root/w/histogram"]:
        by_step[item["step"]] = sorted(item["buckets"])  # the last value written for a step wins
    assert sorted(set(frame.step)) == sorted(by_step)
    for step, buckets in by_step.items():
        got = frame[frame.step == step][["left", "width", "count"]].to_numpy().ravel()
        assert got.tolist() == pytest.approx(np.array(buckets, dtype=np.float64).ravel().tolist())


def test_tensors_are_arrays_as_mindinsight_serves_them(logs, truth):
    frame = logs.tensors(jobs="lenet_lr0.01", tags="custom/t3d")
    served = truth["jobs"]["./lenet_lr0.01"]["tensors"]["custom/t3d/tensor"]
    row = frame[frame.step == served["chosen_step"]].iloc[0]
    array = row["array"]
    assert isinstance(array, np.ndarray) and array.shape == row["shape"]
    assert array[0].ravel().tolist() == pytest.approx(np.array(served["data"][0]["value"]["data"]).ravel().tolist())


def test_images_are_the_png_bytes_written(logs, truth):
    import hashlib

    frame = logs.images(jobs="lenet_lr0.01", tags="custom/img_nchw")
    last = truth["jobs"]["./lenet_lr0.01"]["images"]["custom/img_nchw/image"]["last_image"]
    png = frame[frame.step == last["step"]].iloc[0].png
    assert png[:8].hex() == last["magic"] and hashlib.sha256(png).hexdigest() == last["sha256"]


def test_lineage_is_mindinsights_model_lineage(logs, truth):
    frame = logs.lineage()
    served = truth["lineage"]["all"]["object"]
    assert sorted(frame.summary_dir) == sorted(o["summary_dir"] for o in served)
    for obj in served:
        row = frame[frame.summary_dir == obj["summary_dir"]].iloc[0]
        model = obj["model_lineage"]
        for key in ("learning_rate", "epoch", "batch_size", "network", "optimizer", "loss_function", "loss"):
            assert row[key] == pytest.approx(model[key]) if isinstance(model[key], float) else row[key] == model[key]
        for name, value in model["metric"].items():
            assert row[f"metric/{name}"] == pytest.approx(value)
        for name, value in model["user_defined"].items():
            assert row[f"user_defined/{name}"] == value


def test_lineage_filter_is_the_lineage_views_language(logs):
    rates = logs.lineage()["learning_rate"]
    top = rates.max()
    frame = logs.lineage(f"learning_rate>={top}")
    assert frame.learning_rate.tolist() == [top]
    with pytest.raises(api.BadFilter, match="unknown column 'nosuch'"):
        logs.lineage("nosuch>1")


def test_health_records_are_the_summary_json(logs):
    done = subprocess.run([sys.executable, "-m", "tui_insight", str(MINDSPORE_LOGS), "--summary", "--json"],
                          capture_output=True, text=True, timeout=120, cwd=REPO)
    printed = {row["train_id"]: row for row in json.loads(done.stdout)}
    records = {row["job"]: row for row in logs.health()}
    assert sorted(records) == sorted(printed)
    for job, record in records.items():
        for key in ("state", "badges", "metric", "last", "best", "best_step", "last_step", "not_shown", "problems"):
            assert record[key] == printed[job][key], (job, key)
    frame = logs.jobs()
    assert frame.set_index("job").loc["./damaged_truncated", "state"] == printed["./damaged_truncated"]["state"]


def test_without_pandas_tables_are_numpy_and_say_which_extra(logs, monkeypatch):
    monkeypatch.setitem(sys.modules, "pandas", None)  # as when pandas is not installed
    with pytest.warns(UserWarning, match=re.escape("pip install 'tui-insight[pandas]'")):
        table = logs.scalars(jobs="lenet_lr0.01", tags="loss/auto")
    assert isinstance(table, api.Table) and table["step"].dtype == np.int64
    assert table.records()[0].keys() == set(api.SCALAR_COLUMNS)
    with pytest.raises(api.MissingExtra, match=re.escape("tui-insight[pandas]")):
        logs.scalars(output="pandas")


def test_arrow_output_has_the_same_columns(logs):
    table = logs.scalars(jobs="lenet_lr0.01", output="arrow")
    assert table.column_names == list(api.SCALAR_COLUMNS)
    assert table.num_rows == len(logs.scalars(jobs="lenet_lr0.01"))


def test_a_missing_logdir_is_a_documented_error(tmp_path):
    with pytest.raises(api.LogdirNotFound, match="No such file or directory"):
        tui_insight.open(tmp_path / "nothing here")


def test_import_tui_insight_stays_cheap_and_open_is_there():
    code = "import sys, tui_insight; print('numpy' in sys.modules); print(callable(tui_insight.open))"
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60, cwd=REPO)
    assert done.stdout.split() == ["False", "True"], done.stderr


# -- TensorBoard logs, against tbparse ------------------------------------------------------

@pytest.fixture(scope="module")
def tensorboard_logs(tmp_path_factory) -> Path:
    """Two tensorboardX runs: one long (past the 1,000 steps kept), one restarted (purge_step)."""
    from tensorboardX import SummaryWriter

    root = tmp_path_factory.mktemp("tb")
    with SummaryWriter(str(root / "long")) as writer:
        for step in range(1500):
            writer.add_scalar("loss", 1.0 / (step + 1), step)
            writer.add_scalar("acc/top1", step / 1500, step)
    with SummaryWriter(str(root / "restarted"), filename_suffix=".a") as writer:
        for step in range(100):
            writer.add_scalar("loss", float(step), step)
    with SummaryWriter(str(root / "restarted"), purge_step=60, filename_suffix=".b") as writer:
        for step in range(60, 120):
            writer.add_scalar("loss", step + 0.5, step)
    return root


def test_every_step_is_what_tbparse_reads(tensorboard_logs):
    from tbparse import SummaryReader

    theirs = SummaryReader(str(tensorboard_logs), extra_columns={"dir_name"}).scalars
    # tbparse reads each file on its own: a purge_step does not drop the first file's steps
    # 60..99, both are listed (first file first). Where both keep a step: the newer file's value.
    theirs = theirs.assign(job="./" + theirs.dir_name).drop_duplicates(["job", "tag", "step"], keep="last")
    theirs = theirs.sort_values(["job", "tag", "step"], kind="stable")
    with tui_insight.open(tensorboard_logs) as logs:
        mine = logs.scalars(all_steps=True)
    assert mine[["job", "tag", "step"]].to_numpy().tolist() == theirs[["job", "tag", "step"]].to_numpy().tolist()
    assert mine.value.to_numpy() == pytest.approx(theirs.value.to_numpy(), rel=1e-7)
    restarted = mine[mine.job == "./restarted"]
    assert restarted.value.tolist()[59:61] == [59.0, 60.5]  # the purged steps are the second run's


def test_sampled_scalars_keep_a_thousand_steps_of_a_tag(tensorboard_logs):
    with tui_insight.open(tensorboard_logs) as logs:
        sampled = logs.scalars(jobs="long", tags="loss")
        every = logs.scalars(jobs="long", tags="loss", all_steps=True)
    assert len(sampled) == 1000 and len(every) == 1500
    assert set(sampled.step) < set(every.step)


# -- the README's example ----------------------------------------------------------------------

def test_the_readme_example_runs():
    readme = (REPO / "README.md").read_text(encoding="utf-8")
    section = readme.split("## Use it from Python", 1)[1]
    example = re.search(r"```python\n(.*?)```", section, re.S).group(1)
    code = example.replace("./logs", str(MINDSPORE_LOGS))
    done = subprocess.run([sys.executable, "-c", textwrap.dedent(code)], capture_output=True, text=True,
                          timeout=120, cwd=REPO)
    assert done.returncode == 0, done.stderr[-3000:]
    assert "lenet_lr0.01" in done.stdout


# -- over ssh ---------------------------------------------------------------------------------

def test_over_ssh_the_tables_are_the_local_ones(tmp_path_factory):
    from sshd import sshd_or_fail

    server = sshd_or_fail(tmp_path_factory.mktemp("sshd"))
    try:
        with tui_insight.open(server.target(MINDSPORE_LOGS), ssh_options=server.ssh_options()) as remote:
            far = remote.scalars(all_steps=True)
            far_lineage = remote.lineage()
        with tui_insight.open(MINDSPORE_LOGS) as local:
            near = local.scalars(all_steps=True)
            near_lineage = local.lineage()
    finally:
        server.stop()
    assert far.equals(near)
    assert far_lineage.summary_dir.tolist() == near_lineage.summary_dir.tolist()


def test_jobs_from_the_disk_cache_are_the_same(private_home):
    with tui_insight.open(MINDSPORE_LOGS, disk_cache=True) as logs:
        first = logs.health()
    snapshots = list((private_home / "xdg_cache_home" / "tui-insight" / "snapshots").glob("*.snap"))
    assert len(snapshots) >= len(first)  # a snapshot per job: the next open reads those
    with tui_insight.open(MINDSPORE_LOGS, disk_cache=True) as logs:
        again = logs.health()
    assert [(r["job"], r["state"], r["last"], r["last_step"]) for r in again] == \
        [(r["job"], r["state"], r["last"], r["last_step"]) for r in first]


# -- over S3 (moto) ---------------------------------------------------------------------------

def test_over_s3_the_tables_are_the_local_ones_and_a_missing_bucket_is_remote_error(request):
    server = request.getfixturevalue("s3_server")  # tests/s3help.py's moto server
    prefix = f"{server.bucket()}/runs"
    server.upload(MINDSPORE_LOGS / "lenet_lr0.01", f"{prefix}/lenet_lr0.01")
    with tui_insight.open(f"s3://{prefix}", storage_options=server.options) as remote:
        far = remote.scalars(all_steps=True)
        far_histograms = remote.histograms()
    with tui_insight.open(MINDSPORE_LOGS) as local:
        near = local.scalars(jobs="lenet_lr0.01", all_steps=True)
        near_histograms = local.histograms(jobs="lenet_lr0.01")
    assert far.equals(near) and far_histograms.equals(near_histograms) and len(far) > 40
    with pytest.raises(api.RemoteError, match="s3://no-such-bucket-here/logs"):
        tui_insight.open("s3://no-such-bucket-here/logs", storage_options=server.options)


def test_a_job_named_with_bytes_not_utf8_is_the_csv_exports_id(tmp_path):
    """Ids are str with the undecodable bytes as surrogate escapes (`os.fsdecode`): encoded back
    with `os.fsencode` they are the bytes `--export csv` writes. Arrow, whose strings are UTF-8,
    gets such a byte as the text `\\xNN` (as the screens show it)."""
    from export_help import write_job

    write_job(tmp_path / "logs", b"run\xff\xfe")
    write_job(tmp_path / "logs", "plain")
    export_streaming(SummaryCache(tmp_path / "logs"), tmp_path / "out")
    csv_ids = {line.split(b",")[0] for line in (tmp_path / "out" / "scalars.csv").read_bytes().splitlines()[1:]}
    with tui_insight.open(tmp_path / "logs") as logs:
        assert [os.fsencode(tid) for tid in logs.job_ids()] == sorted(csv_ids) == [b"./plain", b"./run\xff\xfe"]
        frame = logs.scalars()
        assert {os.fsencode(job) for job in frame.job} == csv_ids
        assert frame[frame.job == os.fsdecode(b"./run\xff\xfe")].value.tolist() == [1.0, 2.0, 3.0]
        assert [row["job"] for row in logs.health()] == logs.job_ids()
        arrow = logs.scalars(output="arrow")
    assert set(arrow.column("job").to_pylist()) == {"./plain", "./run\\xff\\xfe"}


def test_final_metrics_come_from_digests_and_warm_from_the_disk_cache_alone(private_home, tmp_path):
    from export_help import write_job

    for i in range(5):
        write_job(tmp_path / "sweep", f"run_{i}", steps=4 + i, tags=("loss", "acc"))
    with tui_insight.open(tmp_path / "sweep", disk_cache=True) as logs:
        final = logs.final(tags="loss")
        assert logs.series_bytes == 0  # digests only: each job's series went once its digests were made
        every = logs.scalars(tags="loss")
    assert final.job.tolist() == [f"./run_{i}" for i in range(5)] and set(final.tag) == {"loss"}
    last = every.groupby("job", observed=True).last()
    assert final.last.tolist() == last.value.tolist()
    assert final.last_step.tolist() == last.step.tolist() == [4 + i for i in range(5)]
    assert final["min"].tolist() == every.groupby("job", observed=True).value.min().tolist()
    with tui_insight.open(tmp_path / "sweep", disk_cache=True) as logs:
        again = logs.final(tags="loss")
        assert logs.bytes_read == 0  # listed from the disk cache's headers: no event file read
        assert logs.series_bytes == 0
        assert [r["last"] for r in logs.health()] == final.last.tolist()
    assert again.equals(final)
