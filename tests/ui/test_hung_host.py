"""A host hanging mid-read holds up nobody (issue 29): two real sshd under the aliases node1 and
node2; node1's sessions stall every read while a flag file is there (its sshd alive, its `sh`
waiting before it runs the read, as a hung mount's `tail` would), node2 is healthy. node1's jobs
say `reconnecting…` and keep what was read while node2's new steps show in the job list and in
`--summary`; once node1 answers again its jobs catch up. Reads are streamed (no prefetch with
the listing, as for a file bigger than `ssh.PREFETCH_BYTES`), so the stall is in the cache's read."""
from __future__ import annotations

import json
import os
import signal
import subprocess
import time
from pathlib import Path

import pytest
from sshd import ALIAS, sshd_or_fail
from uihelp import make_app, run_pilot, wait_for

from tui_insight import cli
from tui_insight.summary.formats.writer import SummaryWriter
from tui_insight.summary.sources import multi, ssh
from tui_insight.summary.sources.multi import MultiSource
from tui_insight.summary.sources.remote_limits import RequestLimits
from tui_insight.summary.sources.ssh import SshSource
from tui_insight.ui.widgets.job_table import JobTable
from tui_insight.ui.widgets.progress import ProgressLine

RECONNECTING = "reconnecting…"


@pytest.fixture
def hosts(tmp_path, monkeypatch):
    """(node1's server, node2's server, the client config naming them); node1's reads stall while
    `stall` (its flag) exists."""
    monkeypatch.setattr(ssh, "PREFETCH_BYTES", 0)  # every read is the cache's own, streamed
    monkeypatch.setattr(multi, "STALL_SECONDS", 1.0)
    (tmp_path / "sshd1").mkdir()
    (tmp_path / "sshd2").mkdir()
    first = sshd_or_fail(tmp_path / "sshd1")
    second = sshd_or_fail(tmp_path / "sshd2")
    flag = tmp_path / "stall"
    # The hostile port runs this with the request's script on stdin: a read ("r 'path' ...")
    # waits while the flag is there, then runs (so the test ends it by removing the flag); with
    # `slow` there, a read's answer comes 32 bytes every 0.3 s (a slow link: moving, never silent).
    answer = tmp_path / "answer"
    first.hostile_tool("session", f'script=$(cat)\nif printf "%s\\n" "$script" | grep -q "^r \'"; then\n'
                                  f'  while [ -e "{flag}" ]; do sleep 0.05; done\n'
                                  f'  if [ -e "{tmp_path / "slow"}" ]; then\n'
                                  f'    printf "%s\\n" "$script" | /bin/sh -s > "{answer}"\n'
                                  f'    size=$(wc -c < "{answer}"); at=0\n'
                                  f'    while [ $at -lt $size ]; do dd if="{answer}" bs=32 skip=$((at / 32)) count=1 '
                                  '2>/dev/null; at=$((at + 32)); sleep 0.3; done\n'
                                  '    exit 0\n  fi\nfi\n'
                                  'printf "%s\\n" "$script" | /bin/sh -s\n')
    config = tmp_path / "ssh_config"
    config.write_text(first.hostile_config(tmp_path / "c1").read_text().replace(f"Host {ALIAS}", "Host node1")
                      + second.client_config.read_text().replace(f"Host {ALIAS}", "Host node2"))
    try:
        yield first, second, config, flag
    finally:
        flag.unlink(missing_ok=True)
        first.stop()
        second.stop()


def live_run(root: Path) -> SummaryWriter:
    writer = SummaryWriter(root / "run", timestamp=1)
    append(writer, range(1, 4))
    return writer


def append(writer: SummaryWriter, steps) -> None:
    for step in steps:
        writer.add_scalar("loss", 1.0 / step)
        writer.record(step)
    writer.flush()


@pytest.mark.parametrize("size", [(80, 24), (160, 48)], ids=["80x24", "160x48"])
def test_a_host_hanging_mid_read_says_reconnecting_while_the_other_hosts_new_steps_show(hosts, tmp_path, size):
    first, second, config, flag = hosts
    one, two = live_run(tmp_path / "one"), live_run(tmp_path / "two")
    # node1's stalled read outlasts the test (no timeout of its own): it ends when node1 answers.
    patient = RequestLimits(timeout=600)
    source = MultiSource([SshSource(f"{first.user}@node1:{tmp_path / 'one'}", ["-F", str(config)], limits=patient),
                          SshSource(f"{second.user}@node2:{tmp_path / 'two'}", ["-F", str(config)])],
                         ["node1", "node2"])
    app = make_app(source, start_loading=True, reload_interval=0.2)

    async def body(pilot):
        table = app.screen.query_one(JobTable)

        def row(train_id):
            return table.rows_by_id.get(train_id)

        def shows(train_id, step, state=None):
            r = row(train_id)
            return r is not None and r.step == step and (state is None or r.health.state == state)

        assert await wait_for(pilot, lambda: shows("node1:./run", 3) and shows("node2:./run", 3))
        flag.touch()  # node1's reads hang from now on
        append(one, range(4, 7))
        append(two, range(4, 7))
        assert await wait_for(pilot, lambda: shows("node1:./run", 3, RECONNECTING), timeout=60)
        assert await wait_for(pilot, lambda: shows("node2:./run", 6, "ok"), timeout=60)
        assert app.cache.job("node1:./run").last_step == 3  # kept as last read
        assert source.failing == ["node1"] and source.status == f"node1: {RECONNECTING}"
        progress = app.screen.query_one(ProgressLine)

        def shown() -> str:  # what fits the line; the line catches up with the source within a tick
            return str(progress.render())[:progress.content_region.width]

        assert await wait_for(pilot, lambda: f"node1: {RECONNECTING}" in shown(), timeout=10), shown()
        append(two, range(7, 9))  # node2 goes on updating while node1 still hangs
        assert await wait_for(pilot, lambda: shows("node2:./run", 8, "ok"), timeout=60)
        assert row("node1:./run").health.state == RECONNECTING
        flag.unlink()  # node1 answers again: its jobs catch up
        assert await wait_for(pilot, lambda: shows("node1:./run", 6, "ok"), timeout=60)
        assert await wait_for(pilot, lambda: source.failing == [], timeout=60)
        return source.failing

    try:
        assert run_pilot(app, body, size=size) == []
    finally:
        for writer in (one, two):
            writer.close()
        source.close()


def test_summary_names_the_host_hanging_mid_read_and_reports_the_others_with_exit_2(hosts, tmp_path, capsys):
    first, second, config, flag = hosts
    one, two = live_run(tmp_path / "one"), live_run(tmp_path / "two")
    try:
        append(two, range(4, 7))
        flag.touch()
        status = cli.main([f"{first.user}@node1:{tmp_path / 'one'}", f"{second.user}@node2:{tmp_path / 'two'}",
                           "--ssh-config", str(config), "--summary", "--json"])
    finally:
        one.close()
        two.close()
    out, err = capsys.readouterr()
    assert status == 2, err
    jobs = {job["train_id"]: job for job in json.loads(out)}
    assert jobs["node2:./run"]["last_step"] == 6 and jobs["node2:./run"]["state"] == "ok"
    assert jobs["node1:./run"]["state"] == RECONNECTING
    assert any(line.startswith("tui-insight: warning: node1 (") and RECONNECTING in line for line in err.splitlines())
    assert "node2 (" not in err


def test_a_remote_job_evicted_and_opened_again_gets_its_details_back_from_its_lane(hosts, tmp_path):
    """Details brought back for a screen (`hold`) are read on the job's lane too, never on the
    scheduler: the same path a hung host's job would take."""
    from tui_insight.summary.store.cache import SummaryCache

    _, second, config, _ = hosts
    two = live_run(tmp_path / "two")
    here = live_run(tmp_path / "here")
    source = MultiSource([str(tmp_path / "here"), SshSource(f"{second.user}@node2:{tmp_path / 'two'}",
                                                            ["-F", str(config)])], ["here", "node2"])
    try:
        cache = SummaryCache(source, memory_budget=0)  # nothing kept that nobody holds
        cache.reload()
        assert not cache.job("node2:./run").detailed and cache.job("node2:./run").last_step == 3
        view = cache.details("node2:./run", timeout=60)
        assert view is not None and view.detailed
        assert view.series("scalar", "loss").steps.tolist() == [1, 2, 3]
    finally:
        two.close()
        here.close()
        source.close()


def connection_processes(server) -> list[int]:
    """The sshd processes serving the server's connections (its listener's descendants)."""
    found, parents = [], [server.process.pid]
    while parents:
        children = subprocess.run(["pgrep", "-P", ",".join(map(str, parents))], capture_output=True,
                                  text=True).stdout.split()
        parents = [int(pid) for pid in children]
        found += [pid for pid in parents if _name(pid) == "sshd"]
    return found


def _name(pid: int) -> str:
    try:
        return Path(f"/proc/{pid}/comm").read_text().strip()
    except OSError:
        return ""


def signal_all(pids: list[int], signum: int) -> None:
    for pid in pids:
        try:
            os.kill(pid, signum)
        except ProcessLookupError:  # a session that ended meanwhile
            pass


def test_a_host_whose_sshd_is_stopped_says_reconnecting_while_the_other_goes_on(hosts, tmp_path):
    """node1's sshd serving the session is stopped (SIGSTOP): its next listing and reads never
    answer. node2's new steps are read meanwhile; once node1's sshd goes on, so do its jobs."""
    from tui_insight.summary.store.cache import SummaryCache

    first, second, config, _ = hosts
    one, two = live_run(tmp_path / "one"), live_run(tmp_path / "two")
    source = MultiSource([SshSource(f"{first.user}@node1:{tmp_path / 'one'}", ["-F", str(config)]),
                          SshSource(f"{second.user}@node2:{tmp_path / 'two'}", ["-F", str(config)])],
                         ["node1", "node2"])
    cache = SummaryCache(source)
    stopped: list[int] = []

    def until(condition) -> bool:  # the loading thread's work, waited for (a bound on failing, not a timing)
        for _ in range(1200):
            if condition():
                return True
            time.sleep(0.05)
        return condition()

    try:
        cache.reload()
        assert cache.job("node1:./run").last_step == 3 and cache.job("node2:./run").last_step == 3
        stopped = connection_processes(first)
        assert stopped, "no connection to node1 to stop"
        signal_all(stopped, signal.SIGSTOP)
        append(one, range(4, 7))
        append(two, range(4, 7))
        cache.start(0.2)
        assert until(lambda: cache.job("node1:./run").state == RECONNECTING)
        assert until(lambda: cache.job("node2:./run").last_step == 6)
        assert cache.job("node1:./run").last_step == 3 and "node1" in source.failing
        signal_all(stopped, signal.SIGCONT)
        stopped = []
        ok = until(lambda: cache.job("node1:./run").last_step == 6 and cache.job("node1:./run").state == "ok")
        assert ok, (cache.job("node1:./run"), source.status, source.failing, [lane.busy for lane in source.lanes])
    finally:
        signal_all(stopped, signal.SIGCONT)
        cache.stop()
        one.close()
        two.close()
        source.close()


def test_a_slow_host_whose_bytes_keep_coming_is_waited_for_not_called_reconnecting(hosts, tmp_path, capsys):
    """node1 answers a read 32 bytes every 0.3 s, for longer than STALL_SECONDS in all: a slow
    link, not a hung host (the bytes arriving are its signs of life). --summary reports it whole."""
    first, second, config, _ = hosts
    one, two = live_run(tmp_path / "one"), live_run(tmp_path / "two")
    (tmp_path / "slow").touch()
    try:
        status = cli.main([f"{first.user}@node1:{tmp_path / 'one'}", f"{second.user}@node2:{tmp_path / 'two'}",
                           "--ssh-config", str(config), "--summary", "--json"])
    finally:
        one.close()
        two.close()
    out, err = capsys.readouterr()
    assert status == 0, err
    jobs = {job["train_id"]: job for job in json.loads(out)}
    assert jobs["node1:./run"]["last_step"] == 3 and jobs["node1:./run"]["state"] == "ok"
