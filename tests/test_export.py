"""CSV snapshots: exact files and headers, rows against the cache and the raw file contents."""
import csv
import os
import subprocess
import sys
import time
from collections import Counter
from pathlib import Path

import numpy as np
import pytest
from fixture_paths import MINDSPORE_LOGS

from tui_insight.export import HEADERS, ExportError, export_snapshot, fmt_float32, fmt_float32_many
from tui_insight.summary.formats.writer import SummaryWriter
from tui_insight.summary.store.cache import SummaryCache

FILES = ["custom_scalars.csv", "described.csv", "distributions.csv", "histograms.csv", "images.csv", "jobs.csv", "landscapes.csv", "lineage.csv",
         "pr_curves.csv", "problems.csv", "profile_cluster.csv", "profile_op_types.csv", "profile_ops.csv", "scalars.csv", "tensors.csv",
         "text.csv"]


def read(path: Path) -> list[dict]:
    with open(path, newline="", encoding="utf-8") as fh:
        return list(csv.DictReader(fh))


def split_tag(full):
    tag, plugin = full.rsplit("/", 1)
    return plugin, tag


@pytest.fixture(scope="module")
def snapshot(tmp_path_factory, fixture_cache):
    out = tmp_path_factory.mktemp("snap") / "out"
    export_snapshot(fixture_cache, out)
    return out


@pytest.fixture(scope="module")
def full_snapshot(tmp_path_factory, fixture_cache):
    out = tmp_path_factory.mktemp("full") / "out"
    export_snapshot(fixture_cache, out, all_steps=True)
    return out


def test_exactly_thirteen_files_with_headers(snapshot):
    assert sorted(os.listdir(snapshot)) == FILES
    for name, header in HEADERS.items():
        with open(snapshot / f"{name}.csv", encoding="utf-8") as fh:
            assert fh.readline().rstrip("\n") == ",".join(header)


def test_jobs_rows(snapshot, truth):
    rows = {r["train_id"]: r for r in read(snapshot / "jobs.csv")}
    assert sorted(rows) == sorted(truth["jobs"])
    for train_id, job in truth["jobs"].items():
        assert int(rows[train_id]["records"]) == sum(f["records"] for f in job["raw"]["files"])
        assert int(rows[train_id]["summary_files"]) == job["listing"]["summary_files"]
    assert rows["./damaged_truncated"]["state"] == "growing"


def test_scalar_rows_are_what_the_cache_holds(snapshot, fixture_cache):
    rows = read(snapshot / "scalars.csv")
    counts = Counter((r["train_id"], r["tag"]) for r in rows)
    for train_id, view in fixture_cache.jobs.items():
        for tag in view.tag_names("scalar"):
            assert counts[(train_id, tag)] == len(view.series("scalar", tag)), (train_id, tag)
    keys = [(r["train_id"], r["tag"], int(r["step"])) for r in rows]
    assert keys == sorted(keys)


def test_scalar_values_and_non_finite_text(snapshot, truth):
    rows = [r for r in read(snapshot / "scalars.csv") if r["train_id"] == "./edge_cases" and r["tag"] == "edge/nan_inf"]
    expected = truth["jobs"]["./edge_cases"]["scalars"]["edge/nan_inf/scalar"]
    assert [int(r["step"]) for r in rows] == [p[0] for p in expected]
    texts = {r["value"] for r in rows}
    assert {"nan", "inf", "-inf"} <= texts
    for row, (_, value, wall) in zip(rows, expected):
        if value is not None:
            assert float(row["value"]) == pytest.approx(value, rel=1e-6)
        assert float(row["wall_time"]) == pytest.approx(wall, abs=1e-6)


def test_lenet_loss_tag_is_as_written(snapshot):
    tags = {r["tag"] for r in read(snapshot / "scalars.csv") if r["train_id"] == "./lenet_lr0.01"}
    assert "loss/auto" in tags and not any(t.endswith("/scalar") for t in tags)


def test_histogram_rows_are_the_buckets_as_written(snapshot, truth):
    rows = read(snapshot / "histograms.csv")
    raw = truth["jobs"]["./"]["raw"]["histograms"]["root/w/histogram"]
    ours = [r for r in rows if r["train_id"] == "./" and r["tag"] == "root/w"]
    by_step = {}
    for item in raw:
        by_step[item["step"]] = item["buckets"]  # the last value written for a step wins
    assert len(ours) == sum(len(b) for b in by_step.values())
    first = [r for r in ours if int(r["step"]) == min(by_step)]
    expected = sorted(by_step[min(by_step)])
    assert [(float(r["left"]), float(r["width"]), int(r["count"])) for r in first] == pytest.approx(
        [tuple(b) for b in expected])


def test_image_rows(snapshot, truth):
    rows = read(snapshot / "images.csv")
    for train_id, job in truth["jobs"].items():
        for full, image in job["images"].items():
            _, tag = split_tag(full)
            ours = [r for r in rows if r["train_id"] == train_id and r["tag"] == tag]
            meta = {m["step"]: m for m in image["metadatas"]}
            for r in ours:
                if int(r["step"]) in meta:
                    assert int(r["width"]) == meta[int(r["step"])]["width"]
                    assert int(r["height"]) == meta[int(r["step"])]["height"]


def test_tensor_rows(snapshot, truth):
    rows = read(snapshot / "tensors.csv")
    ours = {(r["tag"], int(r["step"])): r for r in rows if r["train_id"] == "./lenet_lr0.01"}
    stats = truth["jobs"]["./lenet_lr0.01"]["tensors"]["custom/t3d/tensor"]["stats"]
    for item in stats:
        row = ours[("custom/t3d", item["step"])]
        value = item["value"]
        assert row["dtype"] == value["data_type"]
        assert row["shape"] == "x".join(map(str, value["dims"]))
        s = value["statistics"]
        assert int(row["count"]) == s["overall_count"]
        assert float(row["max"]) == pytest.approx(s["overall_max"], rel=1e-6)
        assert float(row["avg"]) == pytest.approx(s["overall_avg"], rel=1e-6)
    nan_rows = [r for r in rows if r["train_id"] == "./edge_cases" and r["tag"] == "edge/tensor_nan_inf"]
    assert nan_rows and all(int(r["nan_count"]) > 0 for r in nan_rows)


def test_lineage_rows(snapshot, truth):
    rows = {r["summary_dir"]: r for r in read(snapshot / "lineage.csv")}
    expected = {o["summary_dir"]: o["model_lineage"] for o in truth["lineage"]["all"]["object"]}
    assert sorted(rows) == sorted(expected)
    with open(snapshot / "lineage.csv", encoding="utf-8") as fh:
        header = fh.readline().rstrip("\n").split(",")
    assert header[0] == "summary_dir"
    assert "metric/Accuracy" in header and "user_defined/seed" in header
    for summary_dir, model in expected.items():
        assert float(rows[summary_dir]["learning_rate"]) == pytest.approx(model["learning_rate"])
        assert float(rows[summary_dir]["metric/Accuracy"]) == pytest.approx(model["metric"]["Accuracy"])
        assert rows[summary_dir]["optimizer"] == model["optimizer"]
        assert rows[summary_dir]["test_dataset_path"] == (model["test_dataset_path"] or "")


def test_all_steps_holds_every_step_written_as_mindinsight_keeps_it(full_snapshot, truth):
    """One row per step written; a step written twice, or again by a resumed run in a newer
    file, holds the value MindInsight serves (compat §3.8: `edge/resume`)."""
    rows = read(full_snapshot / "scalars.csv")
    counts = Counter((r["train_id"], r["tag"]) for r in rows)
    for train_id, job in truth["jobs"].items():
        for full, raw in job["raw"]["tags"].items():
            plugin, tag = split_tag(full)
            if plugin == "scalar":
                assert counts[(train_id, tag)] == raw["distinct_steps"], (train_id, tag)
    served = truth["jobs"]["./edge_cases"]["scalars"]["edge/resume/scalar"]
    mine = [(int(r["step"]), float(r["value"])) for r in rows if r["tag"] == "edge/resume"]
    assert mine == [(step, pytest.approx(value)) for step, value, _ in served]
    assert [v for s, v in mine if s >= 20] == [100.0 + s for s in range(20, 41)]
    limits_loss = [int(r["step"]) for r in rows if r["train_id"] == "./limits" and r["tag"] == "limits/loss"]
    assert limits_loss == sorted(limits_loss) and len(limits_loss) == 1500
    images = Counter((r["train_id"], r["tag"]) for r in read(full_snapshot / "images.csv"))
    assert images[("./limits", "limits/img")] == truth["jobs"]["./limits"]["raw"]["tags"]["limits/img/image"]["values_written"]


def test_refuses_inside_logdir(fixture_cache):
    with pytest.raises(ExportError, match="inside the log directory"):
        export_snapshot(fixture_cache, MINDSPORE_LOGS / "snap")


def test_refuses_non_empty_out_without_force(tmp_path):
    SummaryWriter(tmp_path / "logs", timestamp=1).close()
    cache = SummaryCache(str(tmp_path / "logs"))
    cache.reload()
    out = tmp_path / "out"
    out.mkdir()
    (out / "mine.txt").write_text("keep me")
    with pytest.raises(ExportError, match="--force"):
        export_snapshot(cache, out)
    assert os.listdir(out) == ["mine.txt"]
    export_snapshot(cache, out, force=True)
    assert "jobs.csv" in os.listdir(out)


def test_lineage_only_export(tmp_path, fixture_cache):
    out = tmp_path / "out"
    export_snapshot(fixture_cache, out, train_ids=["./lenet_lr0.1", "./resnetish_bs32"], plugins={"lineage"})
    assert sorted(r["summary_dir"] for r in read(out / "lineage.csv")) == ["./lenet_lr0.1", "./resnetish_bs32"]
    assert read(out / "scalars.csv") == [] and read(out / "histograms.csv") == []


def test_narrowed_export_for_one_view(tmp_path, fixture_cache):
    out = tmp_path / "out"
    export_snapshot(fixture_cache, out, train_ids=["./lenet_lr0.01"], plugins={"scalar"})
    assert {r["train_id"] for r in read(out / "scalars.csv")} == {"./lenet_lr0.01"}
    assert read(out / "histograms.csv") == [] and read(out / "lineage.csv") == []


# -- the command line -----------------------------------------------------------------------

def run_cli(*args, cwd=None):
    return subprocess.run([sys.executable, "-m", "tui_insight", *args], capture_output=True, text=True,
                          cwd=cwd, timeout=120)


def test_cli_export_end_to_end(tmp_path):
    before = sorted((p, p.stat().st_mtime) for p in MINDSPORE_LOGS.rglob("*"))
    result = run_cli(str(MINDSPORE_LOGS), "--export", "csv", "--out", str(tmp_path / "snap"))
    assert result.returncode == 0, result.stderr
    assert sorted(os.listdir(tmp_path / "snap")) == FILES
    assert "wrote 16 files" in result.stdout
    cut = next((MINDSPORE_LOGS / "damaged_truncated").iterdir()).stat().st_mtime
    state = "truncated" if time.time() - cut > 600 else "growing"  # the fixture's age decides
    assert f"./damaged_truncated: {state} (its last record is incomplete" in result.stderr
    assert sorted((p, p.stat().st_mtime) for p in MINDSPORE_LOGS.rglob("*")) == before
    again = run_cli(str(MINDSPORE_LOGS), "--export", "csv", "--out", str(tmp_path / "snap"))
    assert again.returncode == 2 and "--force" in again.stderr


@pytest.mark.parametrize("args,message", [
    (["/no/such/dir", "--export", "csv", "--out", "x"], "does not exist"),
    (["--export", "csv"], "--export needs --out"),
    (["."], None),
])
def test_cli_errors_are_one_line(args, message, tmp_path):
    if message is None:  # a file given as LOGDIR
        (tmp_path / "f").write_text("x")
        args, message = [str(tmp_path / "f"), "--export", "csv", "--out", str(tmp_path / "o")], "not a directory"
    result = run_cli(*args)
    assert result.returncode == 2
    assert message in result.stderr
    assert "Traceback" not in result.stderr and len(result.stderr.strip().splitlines()) == 1


def test_cli_version_and_help():
    from tui_insight import __version__

    assert run_cli("--version").stdout.strip() == f"tui-insight {__version__}"
    help_text = run_cli("--help").stdout
    for option in ("--demo", "--reload-interval", "--theme", "--export", "--out", "--all-steps", "--force", "--version"):
        assert option in help_text


@pytest.mark.parametrize("all_steps", [False, True])
def test_streaming_export_is_the_same_files_job_by_job(tmp_path, fixture_cache, all_steps):
    from tui_insight.export import export_streaming

    whole = tmp_path / "whole"
    export_snapshot(fixture_cache, whole, all_steps=all_steps)
    cache = SummaryCache(str(MINDSPORE_LOGS), clock=fixture_cache.clock)
    loaded_at_once = []
    done = []

    def on_job(view):
        loaded_at_once.append(sum(v.loaded for v in cache.jobs.values()))

    streamed = tmp_path / "streamed"
    export_streaming(cache, streamed, all_steps=all_steps, on_job=on_job, progress=lambda d, t: done.append((d, t)))
    for name in FILES:
        assert (streamed / name).read_bytes() == (whole / name).read_bytes(), name
    assert max(loaded_at_once) == 1  # one job held at a time
    assert not any(v.loaded for v in cache.jobs.values()) and not any(v.tags for v in cache.jobs.values())
    assert done[-1] == (len(fixture_cache.jobs), len(fixture_cache.jobs))


def test_cli_export_shows_progress(tmp_path):
    result = run_cli(str(MINDSPORE_LOGS), "--export", "csv", "--out", str(tmp_path / "snap"))
    assert result.returncode == 0, result.stderr
    total = len(SummaryCache(str(MINDSPORE_LOGS)).discover_jobs())
    assert f"exported {total}/{total} jobs" in result.stderr


def test_landscapes_and_profiles_are_exported_as_mindinsight_and_the_profiler_wrote_them(tmp_path):
    """landscapes.csv: every grid point of every landscape with the loss MindInsight serves; the
    profile CSVs: the op types as the profiler wrote them (`percent` a fraction, times in ms)."""
    import json

    from fixture_paths import EXTRAS_LOGS, FIXTURES

    from tui_insight.summary.store.cache import SummaryCache

    truth = json.loads((FIXTURES / "mindspore_extras.truth.json").read_text())
    cache = SummaryCache(str(EXTRAS_LOGS))
    cache.reload()
    export_snapshot(cache, tmp_path / "out")
    grid = [r for r in read(tmp_path / "out" / "landscapes.csv") if r["kind"] == "grid"]
    assert {r["train_id"] for r in grid} == set(truth["landscapes"])
    for train_id, served in truth["landscapes"].items():
        landscapes = [item["landscape"] for item in served["intervals"]] + [served["final"]]
        expected = sorted(z for ls in landscapes for row in ls["points"]["z"] for z in row)
        mine = sorted(float(r["loss"]) for r in grid if r["train_id"] == train_id)
        assert mine == pytest.approx(expected, rel=1e-6), train_id
    types = read(tmp_path / "out" / "profile_op_types.csv")
    assert {r["train_id"] for r in types} == set(truth["profiles"])
    for train_id, written in truth["profiles"].items():
        mine = {r["op_type"]: r for r in types if r["train_id"] == train_id}
        assert sorted(mine) == sorted(t["op_type"] for t in written["op_types"])
        for t in written["op_types"]:
            assert float(mine[t["op_type"]]["total_ms"]) == pytest.approx(float(t["total_compute_time"]))
            assert float(mine[t["op_type"]]["share"]) == pytest.approx(float(t["percent"]))
    ops = read(tmp_path / "out" / "profile_ops.csv")
    for train_id, written in truth["profiles"].items():
        assert len([r for r in ops if r["train_id"] == train_id]) == written["ops"]


def test_cluster_csv_of_several_ranks_profiles(tmp_path):
    from fixture_paths import RANKS_LOGS

    from tui_insight.summary.formats.profiler import find_profiles, load_profile
    from tui_insight.summary.queries.profiler_cluster import cluster, rank_refs

    result = run_cli(str(RANKS_LOGS), "--export", "csv", "--out", str(tmp_path / "snap"))
    assert result.returncode == 0, result.stderr
    rows = read(tmp_path / "snap" / "profile_cluster.csv")
    refs = [(f"./{d.name}", ref) for d in sorted(RANKS_LOGS.iterdir()) for ref in find_profiles(str(d))]
    table = cluster([(rank, tid, load_profile(ref, shapes=False, timeline=False)) for rank, tid, ref in rank_refs(refs)])
    steps = [r for r in rows if r["op_type"] == "(step)"]
    assert [(r["rank"], r["train_id"]) for r in steps] == [(str(i), f"./rank_{i}") for i in range(4)]
    assert {r["slowest_rank"] for r in steps} == {str(table.slowest[0])}
    for t in table.types:
        mine = [r for r in rows if r["op_type"] == t.op_type]
        assert [float(r["ms"]) for r in mine] == pytest.approx(list(t.times_ms))
        assert {r["slowest_rank"] for r in mine} == {str(t.slowest_rank)}
    assert {r["group"] for r in rows} == {"."}


def test_no_cluster_rows_for_profiles_of_one_rank(tmp_path):
    from fixture_paths import EXTRAS_LOGS

    cache = SummaryCache(str(EXTRAS_LOGS))  # three sibling jobs profiled, each as rank 0
    cache.reload()
    export_snapshot(cache, tmp_path / "out")
    assert len({r["train_id"] for r in read(tmp_path / "out" / "profile_op_types.csv")}) == 3
    assert read(tmp_path / "out" / "profile_cluster.csv") == []


def test_float32_text_of_a_column_is_each_value_s_text():
    """The scalar column is formatted at once; each cell must read as fmt_float32 of its value."""
    rng = np.random.default_rng(3)
    values = np.concatenate([
        (rng.standard_normal(2000) * 10.0 ** rng.integers(-40, 38, 2000)).astype(np.float32),
        np.array([0.1, -0.0, 0.0, 1e16, 1e-5, 123456789, 3.4028235e38, 1.4e-45, np.nan, np.inf, -np.inf],
                 dtype=np.float32)]).astype(np.float64)
    assert fmt_float32_many(values) == [fmt_float32(v) for v in values.tolist()]
    assert fmt_float32_many(np.array([0.1, 1e-45, np.nan]))[0] == "0.1"


def test_a_csv_export_imports_what_the_jobs_hold(tmp_path):
    # The all-steps reader (it brings TensorBoard's formats), the described queries and the
    # custom scalar layouts' protobuf are imported for the exports and jobs that need them.
    lazy = ["tui_insight.summary.store.every_step", "tui_insight.summary.queries.described",
            "tui_insight.proto.tb_custom_scalar_pb2", "tui_insight.summary.formats.tensorboard"]
    code = ("import sys; from tui_insight import cli; status = cli.main(sys.argv[1:]); "
            f"print([name in sys.modules for name in {lazy!r}]); sys.exit(status)")
    for extra, imported in (([], [False] * 4), (["--all-steps"], [True, False, False, True])):
        done = subprocess.run([sys.executable, "-c", code, str(MINDSPORE_LOGS), "--export", "csv", "--out",
                               str(tmp_path / f"out{len(extra)}"), *extra], capture_output=True, timeout=300)
        assert done.returncode == 0, done.stderr.decode()
        assert done.stdout.decode().splitlines()[-1] == str(imported)


@pytest.mark.parametrize("kind", ["csv", "parquet"])
def test_lineage_without_lineage_is_its_header_and_imports_no_lineage_query(tmp_path, kind):
    writer = SummaryWriter(tmp_path / "logs" / "run", timestamp=1)
    writer.add_scalar("loss", 0.5)
    writer.record(1)
    writer.close()
    code = ("import sys; from tui_insight import cli; status = cli.main(sys.argv[1:]); "
            "print('tui_insight.summary.queries.lineage' in sys.modules); sys.exit(status)")
    for logs, imported in ((tmp_path / "logs", False), (MINDSPORE_LOGS, True)):
        out = tmp_path / f"out{imported}"
        done = subprocess.run([sys.executable, "-c", code, str(logs), "--export", kind, "--out", str(out)],
                              capture_output=True, timeout=300)
        assert done.returncode == 0, done.stderr.decode()
        assert done.stdout.decode().splitlines()[-1] == str(imported)
    from tui_insight.summary.queries.lineage import columns
    if kind == "csv":
        assert (tmp_path / "outFalse" / "lineage.csv").read_text() == ",".join(columns([])) + "\n"
    else:
        import pyarrow.parquet as pq
        assert pq.read_table(tmp_path / "outFalse" / "lineage.parquet").column_names == columns([])
