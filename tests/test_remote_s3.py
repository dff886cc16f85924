"""Logs in object storage: the cache, the export and the UI over `s3://bucket/prefix` served by a
real S3 server (moto, on 127.0.0.1) through each S3 client (obstore and s3fs: `s3_client`),
against the same files read locally."""
from __future__ import annotations

import csv
from pathlib import Path

import numpy as np
import pytest
from s3help import s3_client, s3_server  # noqa: F401 (fixtures)

from tui_insight.cli import main
from tui_insight.summary.formats.writer import LineageWriter, SummaryWriter
from tui_insight.summary.sources.object_store import RECONNECTING, FsspecSource
from tui_insight.summary.store.cache import SummaryCache
from tui_insight.ui.widgets.progress import progress_text

pytestmark = pytest.mark.usefixtures("s3_client")  # both S3 clients


def write_steps(writer, steps, scale=0.5):
    for step in steps:
        writer.add_scalar("loss", step * scale)
        writer.add_scalar("acc", 1 - 1 / step)
        writer.add_histogram("w", np.linspace(0, 1, 50) * step)
        writer.record(step, wall_time=1000.0 + step)
    writer.flush()


def two_jobs(root: Path) -> SummaryWriter:
    write_steps(SummaryWriter(root / "a", timestamp=1), range(1, 31))
    lineage = LineageWriter(root / "a", timestamp=1)
    lineage.write_train(optimizer="Momentum", learning_rate=0.1)
    lineage.close()
    live = SummaryWriter(root / "exp" / "b", timestamp=2)
    write_steps(live, range(1, 11))
    return live


def series_of(cache):
    return {(tid, plugin, tag): (s.steps.tolist(), s.values.tolist() if plugin == "scalar" else len(s))
            for tid, view in cache.jobs.items() for (plugin, tag), s in view.tags.items()}


def test_the_cache_over_s3_gives_the_views_of_the_local_cache(tmp_path, s3_server):
    two_jobs(tmp_path)
    prefix = f"{s3_server.bucket()}/runs"
    s3_server.upload(tmp_path, prefix)
    local, remote = SummaryCache(str(tmp_path)), SummaryCache(FsspecSource(f"s3://{prefix}", s3_server.options))
    local.reload(), remote.reload()
    assert remote.error == "" and list(remote.jobs) == ["./a", "./exp/b"]
    assert series_of(remote) == series_of(local) and len(series_of(local)) == 6
    assert remote.job("./a").lineage.train == local.job("./a").lineage.train
    view = remote.job("./a")
    hist = view.series("histogram", "w")
    assert remote.payloads.histogram(view.locator(hist, 3)).buckets.shape[0] > 0


def test_live_rewritten_objects_and_a_dropped_connection(tmp_path, s3_server):
    live = two_jobs(tmp_path)
    prefix = f"{s3_server.bucket()}/runs"
    s3_server.upload(tmp_path, prefix)
    source = FsspecSource(f"s3://{prefix}", s3_server.options)
    cache = SummaryCache(source)
    cache.reload()
    write_steps(live, range(11, 21))
    s3_server.upload(tmp_path, prefix)  # the writer's job uploads the whole file again
    cache.reload()
    steps = cache.job("./exp/b").series("scalar", "loss").steps.tolist()
    assert steps == list(range(1, 21))  # the new steps; none lost, none doubled
    s3_server.stop()
    try:
        changes = cache.reload()  # the server is gone: what was read stays
        assert source.status == RECONNECTING and not changes and cache.error == ""
        assert list(cache.jobs) == ["./a", "./exp/b"]
        assert progress_text(cache, 30.0).startswith(f"[b yellow]reconnecting…[/] · s3://{prefix} · 2 jobs")
    finally:
        s3_server.start_again()
    write_steps(live, range(21, 26))
    s3_server.upload(tmp_path, prefix)
    cache.reload()
    assert source.status == "" and "reconnecting" not in progress_text(cache, 30.0)
    assert cache.job("./exp/b").series("scalar", "loss").steps.tolist() == list(range(1, 26))


def read_csv(path):
    with open(path, newline="", encoding="utf-8") as fh:
        return list(csv.reader(fh))


def test_export_csv_from_s3_writes_what_a_local_export_writes(tmp_path, s3_server, capsys):
    logs = tmp_path / "logs"
    two_jobs(logs).close()
    prefix = f"{s3_server.bucket()}/runs"
    s3_server.upload(logs, prefix)
    assert main([str(logs), "--export", "csv", "--out", str(tmp_path / "local")]) == 0
    assert main([f"s3://{prefix}", "--export", "csv", "--out", str(tmp_path / "s3"), *s3_server.cli_options]) == 0
    for name in ("scalars.csv", "histograms.csv"):
        rows = read_csv(tmp_path / "s3" / name)
        assert rows == read_csv(tmp_path / "local" / name) and len(rows) > 40


def test_a_missing_bucket_is_one_clear_line_and_status_2(tmp_path, s3_server, capsys):
    code = main(["s3://no-such-bucket-here/logs", "--export", "csv", "--out", str(tmp_path / "out"),
                 *s3_server.cli_options])
    err = capsys.readouterr().err
    assert code == 2
    assert err.strip().splitlines() == [err.strip()] and "s3://no-such-bucket-here/logs" in err
    assert "Traceback" not in err


def test_logdir_kinds(tmp_path, monkeypatch):
    from tui_insight.cli import remote_kind

    monkeypatch.chdir(tmp_path)
    assert remote_kind("s3://bucket/logs") == remote_kind("obs://b/p") == remote_kind("hdfs://nn:8020/x") == "url"
    assert remote_kind("user@host:/data/logs") == remote_kind("host:logs") == remote_kind("host:") == "ssh"
    assert remote_kind("/data/logs") is remote_kind("./a:b") is remote_kind("C:\\logs") is None
    (tmp_path / "run:1").mkdir()
    assert remote_kind("run:1") is None  # a local directory with a colon in its name


def test_obs_urls_read_the_s3_compatible_endpoint_named_in_the_environment(tmp_path, s3_server, monkeypatch):
    two_jobs(tmp_path)
    prefix = f"{s3_server.bucket()}/runs"
    s3_server.upload(tmp_path, prefix)
    monkeypatch.setenv("OBS_ENDPOINT", s3_server.endpoint)
    cache = SummaryCache(FsspecSource(f"obs://{prefix}", {"skip_instance_cache": True}))
    cache.reload()
    assert cache.error == "" and list(cache.jobs) == ["./a", "./exp/b"] and cache.logdir == f"obs://{prefix}"


def test_keys_with_empty_or_dot_parts_are_read_by_their_real_key(tmp_path, s3_server):
    """`runs//job/F` and `runs/./job/F` were listed as `runs/job/F` and unreadable; `dup/F` beside
    `dup//F` read one object twice and the other never. Each key is its own job, read once."""
    bucket = s3_server.bucket()
    fs = s3_server.fs()
    keys = {".//job": "runs//job", "././job": "runs/./job", "./dup": "runs/dup", "./dup/": "runs/dup/"}
    for i, (train_id, directory) in enumerate(keys.items()):
        local = tmp_path / str(i)
        write_steps(SummaryWriter(local, timestamp=1), range(1, 4 + i))  # 3, 4, 5, 6 steps: which is which
        (name,) = [p.name for p in local.iterdir()]
        fs.pipe_file(f"{bucket}/{directory}/{name}", (local / name).read_bytes())
    cache = SummaryCache(FsspecSource(f"s3://{bucket}/runs", s3_server.options))
    cache.reload()
    assert cache.error == "" and set(cache.jobs) == set(keys)
    for i, train_id in enumerate(keys):
        view = cache.job(train_id)
        assert view.state == "ok", (train_id, view.state)
        assert view.series("scalar", "loss").steps.tolist() == list(range(1, 4 + i)), train_id
    assert cache.problems == ()


def test_bad_sizes_and_mtimes_in_a_listing_are_counted_problems(tmp_path, s3_server, monkeypatch):
    """A backend's listing is read as given: a size or mtime that is no number leaves its file
    out, counted as a problem of its job, never an exception."""
    two_jobs(tmp_path)
    prefix = f"{s3_server.bucket()}/runs"
    s3_server.upload(tmp_path, prefix)
    source = FsspecSource(f"s3://{prefix}", s3_server.options)
    listed = source.fs.find

    def find(*args, **kwargs):
        found = listed(*args, **kwargs)
        for name, info in found.items():
            if "/exp/b/" in name:
                info["size"] = -5
            elif "lineage" in name:
                info["LastModified"] = float("nan")
        return found

    monkeypatch.setattr(source.fs, "find", find)
    cache = SummaryCache(source)
    cache.reload()
    assert cache.error == "" and set(cache.jobs) == {"./a"}
    assert not cache.job("./a").lineage_files
    problems = "\n".join(cache.problems)
    assert "./exp/b: 1 listed file(s) left out, bad size or mtime (first: " in problems and "size -5" in problems
    assert "./a: 1 listed file(s) left out" in problems and "mtime nan" in problems
