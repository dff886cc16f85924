"""Several LOGDIRs in one session (issue 29): a local directory, a real ssh host (sshd on
127.0.0.1) and another local directory read as one, jobs named by their source; a host that does
not answer named on stderr while the others are reported; a host killed mid-session showing
`reconnecting…` while the local jobs go on; brace expansion for shells without it."""
from __future__ import annotations

import json
import os
import signal
import socket
from pathlib import Path

import pytest
from s3help import s3_server  # noqa: F401 (a fixture)
from sshd import ALIAS, sshd_or_fail
from uihelp import make_app, run_pilot, write_run

from tui_insight import cli
from tui_insight.summary.sources.location import expand_braces
from tui_insight.summary.sources.multi import MultiSource, unique_labels
from tui_insight.summary.sources.ssh import SshSource
from tui_insight.summary.store.cache import SummaryCache
from tui_insight.summary.formats.writer import SummaryWriter
from tui_insight.ui.widgets.job_table import JobTable


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    sshd = sshd_or_fail(tmp_path_factory.mktemp("sshd"))
    yield sshd
    sshd.stop()


def logs(root: Path, *runs: str) -> Path:
    for run in runs:
        write_run(root, run, steps=5, tags=("loss",))
    return root


def test_braces_expand_as_a_shell_with_brace_expansion_does():
    assert expand_braces("node{1..3}:/logs") == ["node1:/logs", "node2:/logs", "node3:/logs"]
    assert expand_braces("{a,b}/x{08..10}") == ["a/x08", "a/x09", "a/x10", "b/x08", "b/x09", "b/x10"]
    assert expand_braces("run{3..1}") == ["run3", "run2", "run1"]
    assert expand_braces("{a,{b,c}}") == ["a", "b", "c"]
    assert expand_braces("plain/{x}") == ["plain/{x}"]  # no comma, no range: a literal brace


def test_each_source_is_named_by_its_host_bucket_or_directory_and_names_stay_apart():
    assert unique_labels(["me@node1:/logs", "node2:runs", "s3://bucket/runs", "/data/logs", "./other/logs"]) == [
        "node1", "node2", "bucket", "logs", "logs#2"]


def test_a_local_dir_an_ssh_host_and_another_dir_read_as_one_named_by_source(server, tmp_path, capsys):
    here = logs(tmp_path / "here", "run_a", "exp/rank_0")
    there = logs(tmp_path / "there", "run_b")
    other = logs(tmp_path / "other", "run_c")
    status = cli.main([str(here), server.target(there), str(other), "--ssh-config", str(server.client_config),
                       "--summary", "--json"])
    out, err = capsys.readouterr()
    assert status == 0, err
    jobs = {job["train_id"] for job in json.loads(out)}
    assert jobs == {"here:./run_a", "here:./exp/rank_0", f"{ALIAS}:./run_b", "other:./run_c"}


def test_a_bucket_an_ssh_host_and_a_local_dir_in_one_session_read_what_each_holds(server, s3_server, tmp_path,
                                                                                      capsys):
    """Any mix: the bucket's jobs are named by the bucket, and their numbers are the files' (the
    export of the three equals the export of each alone, job by job)."""
    here = logs(tmp_path / "here", "run_a")
    there = logs(tmp_path / "there", "run_b")
    uploaded = logs(tmp_path / "up", "run_c")
    bucket = s3_server.bucket()
    s3_server.upload(uploaded, f"{bucket}/runs")
    status = cli.main([str(here), server.target(there), f"s3://{bucket}/runs", "--ssh-config",
                       str(server.client_config), *s3_server.cli_options, "--export", "csv",
                       "--out", str(tmp_path / "all")])
    assert status == 0, capsys.readouterr().err
    assert cli.main([str(uploaded), "--export", "csv", "--out", str(tmp_path / "alone")]) == 0
    together = (tmp_path / "all" / "scalars.csv").read_text().splitlines()
    alone = (tmp_path / "alone" / "scalars.csv").read_text().splitlines()
    from_bucket = [line.replace(f"{bucket}:./", "./", 1) for line in together if line.startswith(f"{bucket}:")]
    assert from_bucket and from_bucket == alone[1:]
    assert any(line.startswith("here:./run_a") for line in together)
    assert any(line.startswith(f"{ALIAS}:./run_b") for line in together)


def test_the_export_of_several_logdirs_names_each_job_by_its_source(server, tmp_path, capsys):
    here = logs(tmp_path / "here", "run_a")
    there = logs(tmp_path / "there", "run_b")
    out_dir = tmp_path / "snapshot"
    status = cli.main([str(here), server.target(there), "--ssh-config", str(server.client_config),
                       "--export", "csv", "--out", str(out_dir)])
    assert status == 0, capsys.readouterr().err
    text = (out_dir / "scalars.csv").read_text()
    assert "here:./run_a" in text and f"{ALIAS}:./run_b" in text


def closed_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]  # closed once the socket is: nothing listens there


def test_a_host_that_does_not_answer_is_named_and_the_others_are_reported_with_exit_2(server, tmp_path, capsys):
    here = logs(tmp_path / "here", "run_a")
    config = server.write_client_config(tmp_path / "down.conf", server.key, closed_port())
    status = cli.main([str(here), server.target(tmp_path / "gone"), "--ssh-config", str(config), "--summary"])
    out, err = capsys.readouterr()
    assert status == 2
    assert "here:./run_a" in out
    assert ALIAS in err and "refused" in err.lower()


def test_none_readable_is_an_error_naming_each(tmp_path, capsys):
    status = cli.main([str(tmp_path / "a"), str(tmp_path / "b"), "--summary"])
    err = capsys.readouterr().err
    assert status == 2 and "none of the LOGDIRs" in err and str(tmp_path / "a") in err and str(tmp_path / "b") in err


def test_a_host_killed_mid_session_says_reconnecting_while_the_local_jobs_go_on(tmp_path):
    (tmp_path / "sshd").mkdir()
    server = sshd_or_fail(tmp_path / "sshd")  # its own: this test kills it
    here = tmp_path / "here"
    writer = SummaryWriter(here / "live", timestamp=1)
    for step in range(1, 4):
        writer.add_scalar("loss", 1.0 / step)
        writer.record(step)
    writer.flush()
    there = logs(tmp_path / "there", "run_b")
    remote = SshSource(server.target(there), server.ssh_options())
    source = MultiSource([str(here), remote], ["here", ALIAS])
    cache = SummaryCache(source)
    try:
        cache.reload()
        assert set(cache.jobs) == {"here:./live", f"{ALIAS}:./run_b"}
        server.stop()  # the host goes away, and with it the connection
        os.kill(remote.master_pid, signal.SIGKILL)
        for step in range(4, 7):
            writer.add_scalar("loss", 1.0 / step)
            writer.record(step)
        writer.flush()
        cache.reload()
        assert cache.job("here:./live").series("scalar", "loss").steps.tolist() == [1, 2, 3, 4, 5, 6]
        assert f"{ALIAS}:./run_b" in cache.jobs  # kept as last read
        assert source.status == f"{ALIAS}: reconnecting…" and source.failing == [ALIAS]
    finally:
        writer.close()
        source.close()
        server.stop()


@pytest.mark.parametrize("size", [(80, 24), (160, 48)], ids=["80x24", "160x48"])
def test_the_job_list_shows_every_sources_jobs_named_by_source(server, tmp_path, size):
    here = logs(tmp_path / "here", "run_a")
    there = logs(tmp_path / "there", "run_b")
    source = MultiSource([str(here), SshSource(server.target(there), server.ssh_options())], ["here", ALIAS])
    app = make_app(source)

    async def body(pilot):
        await pilot.pause()
        return sorted(app.screen.query_one(JobTable).order)

    try:
        assert run_pilot(app, body, size=size) == sorted(["here:./run_a", f"{ALIAS}:./run_b"])
    finally:
        source.close()


def test_the_python_api_opens_several_logdirs_as_one(server, tmp_path):
    import tui_insight

    here = logs(tmp_path / "here", "run_a")
    there = logs(tmp_path / "there", "run_b")
    with tui_insight.open([here, server.target(there)], ssh_options=server.ssh_options()) as logdir:
        jobs = logdir.jobs(output="table")
        assert sorted(jobs.columns["job"]) == ["here:./run_a", f"{ALIAS}:./run_b"]
    with pytest.raises(tui_insight.api.LogdirNotFound):
        tui_insight.open([here, tmp_path / "missing"])


def test_a_job_given_by_its_source_on_the_command_line_is_found():
    from tui_insight.ui.app import train_id_of

    assert train_id_of("node1:exp/rank_0/", labelled=True) == "node1:./exp/rank_0"
    assert train_id_of("node1:./exp", labelled=True) == "node1:./exp"
    assert train_id_of("a:b") == "./a:b"  # one LOGDIR: a colon is part of the directory's name


def test_ranks_of_one_training_on_two_hosts_and_here_are_one_group_with_its_straggler_and_diverging_rank(
        server, tmp_path, capsys):
    """Ranks 0-1 on host node1, rank 2 on node2 (its loss jumps), rank 3 here (it stopped at
    step 60): two sshd on two ports under two host aliases, one group of four ranks."""
    import time

    from health_logs import write_scalars
    from rank_logs import rank_loss

    (tmp_path / "sshd2").mkdir()
    second = sshd_or_fail(tmp_path / "sshd2")
    try:
        config = tmp_path / "ssh_config"
        config.write_text(server.client_config.read_text().replace(f"Host {ALIAS}", "Host node1")
                          + second.client_config.read_text().replace(f"Host {ALIAS}", "Host node2"))
        last = time.time() - 7200
        homes = {0: "node1", 1: "node1", 2: "node2", 3: "here"}
        for rank, home in homes.items():
            loss = rank_loss(rank)
            if rank == 2:
                loss[-30:] += 0.2
            if rank == 3:
                loss = loss[:60]
            write_scalars(tmp_path / home, f"exp/rank_{rank}", {"loss": loss}, last, interval=0.5)
        status = cli.main([f"{server.user}@node1:{tmp_path / 'node1'}", f"{second.user}@node2:{tmp_path / 'node2'}",
                           str(tmp_path / "here"), "--ssh-config", str(config), "--summary", "--json"])
        out, err = capsys.readouterr()
        assert status == 1, err  # a diverging rank fails the summary, as a diverging run does
        (group,) = json.loads(out)
        assert group["kind"] == "group" and group["train_id"] == "./exp/rank_*"
        assert [(r["rank"], r["train_id"], r["badges"]) for r in group["ranks"]] == [
            (0, "node1:./exp/rank_0", []), (1, "node1:./exp/rank_1", []),
            (2, "node2:./exp/rank_2", ["rank diverging"]), (3, "here:./exp/rank_3", ["straggler"])]
    finally:
        second.stop()


def test_a_host_whose_listing_never_answers_holds_up_no_other(server, tmp_path, monkeypatch):
    """The host's `find` sleeps: the local jobs come within the discovery's time, the host is
    one problem line naming it, and its listing, once it answers, is taken at the next one."""
    from tui_insight.summary.sources import multi

    monkeypatch.setattr(multi, "DISCOVER_SECONDS", 1.0)
    here = logs(tmp_path / "here", "run_a")
    there = logs(tmp_path / "there", "run_b")
    hung = server.hostile_config(tmp_path / "hostile_config")
    server.hostile_tool("find", "exec sleep 600\n")
    source = MultiSource([str(here), SshSource(server.target(there), ["-F", str(hung)])], ["here", ALIAS])
    try:
        cache = SummaryCache(source)
        cache.reload()
        assert set(cache.jobs) == {"here:./run_a"}
        assert cache.job("here:./run_a").series("scalar", "loss").steps.tolist() == [1, 2, 3, 4, 5]
        found = source.discover({})
        assert any(problem.startswith(f"{ALIAS} (") and "no answer in 1 s" in problem for problem in found.problems)
        assert source.failing == [ALIAS]
    finally:
        server.clear_hostile_tools()
        source.close()
