"""`SshSource` against a real OpenSSH server on 127.0.0.1 (tests/sshd.py): the "remote" logs are
temp dirs on this machine reached through ssh, so every answer can be checked against reading the
same files locally (`LocalSource`, a local `SummaryCache`)."""
from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

import numpy as np
import pytest
from fixture_paths import MINDSPORE_LOGS, fixtures_written_at
from sshd import ALIAS, sshd_or_fail

from tui_insight.summary.formats.writer import SummaryWriter
from tui_insight.summary.sources.local import LocalSource
from tui_insight.summary.sources.ssh import RECONNECTING, ConnectionLost, SshError, SshSource, parse_target
from tui_insight.summary.store.cache import SummaryCache

ODD = "it's a \"$HOME\" run `x` \\ *"  # quotes, $, backquotes, a backslash, a glob and spaces


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    sshd = sshd_or_fail(tmp_path_factory.mktemp("sshd"))
    yield sshd
    sshd.stop()


@pytest.fixture(scope="module")
def logs(tmp_path_factory) -> Path:
    """The fixture logs plus a job under a hostile name, a hidden and a too-deep directory."""
    root = tmp_path_factory.mktemp("remote") / "logs"
    shutil.copytree(MINDSPORE_LOGS, root)
    odd = root / ODD
    odd.mkdir()
    (odd / "events.summary.7.host_MS").write_bytes(bytes(range(256)) * 40)
    (root / ".git").mkdir()
    (root / ".git" / "x.summary.1").write_bytes(b"hidden")
    deep = root.joinpath(*[f"d{i}" for i in range(14)])
    deep.mkdir(parents=True)
    (deep / "deep.summary.1").write_bytes(b"too deep")
    return root


@pytest.fixture
def source(server, logs):
    src = SshSource(server.target(logs), server.ssh_options())
    yield src
    src.close()


def relative_jobs(discovery, root: str) -> dict:
    return {tid: (os.path.relpath(job.path, root), job.summary_files, job.lineage_files, job.graph_files,
                  job.profile_dirs) for tid, job in discovery.jobs.items()}


def test_jobs_are_the_ones_local_discovery_finds(source, logs):
    local = LocalSource(str(logs))
    expected = relative_jobs(local.discover({}), local.root)
    got = relative_jobs(source.discover({}), source.root)
    assert got == expected
    assert f"./{ODD}" in got and "./.git" not in got
    assert not any(tid.endswith("d13") for tid in got)  # deeper than MAX_DEPTH: not a job


def test_a_relative_path_is_relative_to_the_remote_home(server, logs):
    relative = os.path.relpath(logs, os.path.expanduser("~"))  # the sshd runs as this user, on this machine
    src = SshSource(f"{server.user}@{ALIAS}:{relative}", server.ssh_options())
    try:
        local = LocalSource(str(logs))
        assert relative_jobs(src.discover({}), src.root) == relative_jobs(local.discover({}), local.root)
        job = src.discover({}).jobs["./lenet_lr0.1"]
        name = job.summary_files[0]
        assert not job.path.startswith("/")
        assert src.read(f"{job.path}/{name}") == (logs / "lenet_lr0.1" / name).read_bytes()
    finally:
        src.close()


def test_busybox_tools_list_and_read_the_same(server, logs, tmp_path):
    assert server.busybox_port is not None  # sshd_or_fail saw busybox
    config = server.write_client_config(tmp_path / "config", server.key, port=server.busybox_port)
    src = SshSource(server.target(logs), server.ssh_options(config))
    try:
        local = LocalSource(str(logs))
        assert relative_jobs(src.discover({}), src.root) == relative_jobs(local.discover({}), local.root)
        path = logs / ODD / "events.summary.7.host_MS"
        assert src.stat(str(path)).st_size == path.stat().st_size
        assert src.read_ranges([(str(path), 250, 262), (str(path), 10200, None)]) == \
            [path.read_bytes()[250:262], path.read_bytes()[10200:]]
        assert src.read_ranges([(str(path), 0, 9000)]) == [path.read_bytes()[:9000]]  # `head -c` alone
    finally:
        src.close()


def test_stat_and_listdir_answer_from_the_listing(source, logs):
    source.discover({})
    sent = source.round_trips
    for path in logs.rglob("*.summary.*"):
        if ".git" in path.parts or "d13" in path.parts:
            continue
        st = source.stat(str(path))
        assert (st.st_size, int(st.st_mtime)) == (path.stat().st_size, int(path.stat().st_mtime))
    assert ODD in source.listdir(str(logs))
    with pytest.raises(FileNotFoundError):
        source.stat(str(logs / "no such file"))
    assert source.round_trips == sent


def test_ranges_are_the_bytes_of_the_file(source, logs):
    path = logs / ODD / "events.summary.7.host_MS"
    data = path.read_bytes()
    source.discover({})
    assert source.read(str(path)) == data
    assert source.read(str(path), 250, 262) == data[250:262]  # crosses 0xff -> 0x00: binary-safe
    assert source.read(str(path), len(data) - 5, len(data) + 100) == data[-5:]  # capped at the end
    assert source.read_ranges([(str(path), 0, None)]) == [data]  # from the start: `head -c` alone
    with source.open_range(str(path), 1000, 2000) as fh:
        fh.seek(1500)
        assert fh.read(4) == data[1500:1504] and fh.tell() == 1504
    sent = source.round_trips
    batch = source.read_ranges([(str(path), 0, 3), (str(logs / "missing"), 0, 9), (str(path), 9000, None),
                                (str(path), 10, 10)])
    assert source.round_trips == sent + 1  # one request for all of them
    assert batch[0] == data[:3] and batch[2] == data[9000:] and batch[3] == b""
    assert isinstance(batch[1], OSError) and "No such file" in str(batch[1])


def assert_one_line(error: BaseException, *words: str) -> None:
    text = str(error)
    assert "\n" not in text and len(text) <= 300, text
    assert all(word in text for word in words), text


def test_unreachable_port_is_one_line(server, logs, tmp_path):
    with socket_closed() as port:
        config = server.write_client_config(tmp_path / "config", server.key, port=port)
        src = SshSource(server.target(logs), server.ssh_options(config))
        with pytest.raises(SshError) as caught:
            src.discover({})
        src.close()
    assert_one_line(caught.value, "127.0.0.1", f"port {port}", "Connection refused")


def test_refused_key_is_one_line_without_a_prompt(server, logs, tmp_path):
    config = server.write_client_config(tmp_path / "config", server.other_key)
    src = SshSource(server.target(logs), server.ssh_options(config))
    with pytest.raises(SshError) as caught:
        src.discover({})
    src.close()
    assert_one_line(caught.value, "Permission denied (publickey)")


def test_missing_path_is_one_line_from_the_cache(server, tmp_path):
    target = server.target(tmp_path / "not here")
    src = SshSource(target, server.ssh_options())
    with pytest.raises(SshError) as caught:
        src.discover({})
    assert_one_line(caught.value, "No such file or directory")
    master = src.master_pid  # the host was reached: the connection stays for the next try
    cache = SummaryCache(src)
    cache.reload()
    assert src.master_pid == master is not None  # the same connection, not a second one
    src.close()
    wait_gone(master)  # and none is left behind
    assert cache.error == f"cannot read {target}: No such file or directory" and not cache.jobs


class socket_closed:
    """A port on 127.0.0.1 that nothing listens on (bound, never listening, while in use)."""

    def __enter__(self) -> int:
        import socket
        self.sock = socket.socket()
        self.sock.bind(("127.0.0.1", 0))
        return self.sock.getsockname()[1]

    def __exit__(self, *exc) -> None:
        self.sock.close()


def test_parse_target():
    assert parse_target("me@host:/var/logs/") == ("me@host", "/var/logs")
    assert parse_target("host:runs") == ("host", "runs")  # relative to the remote home
    assert parse_target("host:~/runs") == ("host", "runs")
    assert parse_target("host:") == ("host", ".")
    assert parse_target("me@[::1]:/x") == ("me@::1", "/x")
    assert parse_target("host:-o") == ("host", "./-o")  # never an option of a remote tool
    for bad in ("-oProxyCommand=x:y", ":path", "no-colon"):
        with pytest.raises(ValueError):
            parse_target(bad)


def views(cache: SummaryCache) -> dict:
    """Everything a user sees of each job, by id: states, counts, every series' steps and values."""
    out = {}
    for train_id, view in cache.jobs.items():
        series = {}
        for plugin in ("scalar", "histogram", "tensor", "image"):
            for tag in view.tag_names(plugin):
                s = view.series(plugin, tag)
                series[plugin, tag] = (s.steps.tolist(), [repr(v) for v in s.values.tolist()]) \
                    if plugin == "scalar" else s.steps.tolist()
        out[train_id] = (view.state, view.records, view.bad_records, view.tail_bytes, sorted(view.graphs), series)
    return out


def test_cache_over_ssh_shows_what_a_local_cache_shows(source, logs):
    written = fixtures_written_at(logs)
    local = SummaryCache(str(logs), clock=lambda: written)
    local.reload()
    remote = SummaryCache(source, clock=lambda: written)
    remote.reload()
    expected, got = views(local), views(remote)
    assert set(got) == set(expected)
    for train_id in expected:
        assert got[train_id] == expected[train_id], train_id


def write_steps(writer: SummaryWriter, steps) -> None:
    for step in steps:
        writer.add_scalar("loss", 1.0 / step)
        writer.record(step)
    writer.flush()


def test_live_writer_and_a_dropped_connection(server, tmp_path):
    root = tmp_path / "live"
    writer = SummaryWriter(root / "run", timestamp=1)
    write_steps(writer, range(1, 11))
    source = SshSource(server.target(root), server.ssh_options())
    try:
        cache = SummaryCache(source)
        cache.reload()
        assert cache.job("./run").series("scalar", "loss").steps.tolist() == list(range(1, 11))
        write_steps(writer, range(11, 21))
        cache.reload()
        assert cache.job("./run").series("scalar", "loss").steps.tolist() == list(range(1, 21))

        first = source.master_pid
        os.kill(first, signal.SIGKILL)  # the connection drops between reloads
        wait_gone(first)
        write_steps(writer, range(21, 31))
        cache.reload()
        assert source.status == RECONNECTING
        assert cache.job("./run").series("scalar", "loss").steps.tolist() == list(range(1, 21))  # kept

        cache.reload()  # a new master, then only the bytes appended since the saved offset
        assert source.status == "" and source.master_pid not in (None, first)
        assert cache.job("./run").series("scalar", "loss").steps.tolist() == list(range(1, 31))
    finally:
        source.close()
        writer.close()


def test_a_read_after_the_connection_dropped_is_that_files_error(server, tmp_path):
    root = tmp_path / "live"
    writer = SummaryWriter(root, timestamp=1)
    write_steps(writer, range(1, 4))
    other = root / "profile.json"  # not a job file: not fetched with the listing
    other.write_text("{}")
    source = SshSource(server.target(root), server.ssh_options())
    try:
        source.discover({})
        pid = source.master_pid
        os.kill(pid, signal.SIGKILL)
        wait_gone(pid)
        with pytest.raises(ConnectionLost) as caught:
            source.read(str(other))
        assert_one_line(caught.value, "reconnecting")
        assert source.status == RECONNECTING
        with pytest.raises(ConnectionLost):  # the rest of this reload fails at once: no new master yet
            source.read_ranges([(str(writer.path), 0, 5)])
        source.discover({})
        assert source.status == "" and source.read(str(other)) == b"{}"
        assert source.master_pid != pid
    finally:
        source.close()
        writer.close()


def test_a_reload_of_many_live_jobs_is_two_round_trips(server, tmp_path):
    writers = [SummaryWriter(tmp_path / f"run{i}", timestamp=1) for i in range(20)]
    try:
        for writer in writers:
            write_steps(writer, [1, 2])
        source = SshSource(server.target(tmp_path), server.ssh_options())
        cache = SummaryCache(source)
        cache.reload()
        for writer in writers:
            write_steps(writer, [3])
        sent = source.round_trips
        cache.reload()  # the listing, then every appended range in one request
        assert source.round_trips - sent == 2
        assert all(cache.job(f"./run{i}").series("scalar", "loss").steps.tolist() == [1, 2, 3] for i in range(20))
        sent = source.round_trips
        cache.reload()  # nothing changed: the listing alone
        assert source.round_trips - sent == 1
        source.close()
    finally:
        for writer in writers:
            writer.close()


def test_a_long_stream_is_the_files_bytes_and_keeps_what_a_seek_back_wants(server, tmp_path):
    from tui_insight.summary.sources.ssh import STREAM_KEEP

    data = os.urandom(STREAM_KEEP * 5 // 2)
    (tmp_path / "run").mkdir()
    path = tmp_path / "run" / "events.summary.1.host_MS"
    path.write_bytes(data)
    source = SshSource(server.target(tmp_path), server.ssh_options())
    try:
        source.discover({})  # too big to come with the listing: streamed
        with source.open_range(str(path), 100, len(data)) as fh:
            assert fh.read(1000) == data[100:1100]
            while fh.tell() < 2 * STREAM_KEEP:
                at = fh.tell()
                assert fh.read(3 << 20) == data[at:at + (3 << 20)]  # across the pipe's chunks
            back = fh.tell() - STREAM_KEEP // 2
            fh.seek(back)  # the scanner's seek back: still held
            assert fh.read(5000) == data[back:back + 5000]
            assert fh.read() == data[back + 5000:]
            fh.seek(100)  # further back than is kept
            with pytest.raises(OSError, match="no longer held"):
                fh.read(10)
    finally:
        source.close()


def _spools() -> list[int]:
    """Descriptors of this process open on a spool of `SshSource`'s streams: an anonymous
    in-memory file, or the unlinked temporary file made where there is none."""
    found = []
    for fd in os.listdir("/proc/self/fd"):
        try:
            target = os.readlink(f"/proc/self/fd/{fd}")
            if target.startswith("/memfd:tui-insight-ssh") or (
                    "/tui-insight-ssh-" in target and target.endswith(" (deleted)")):
                found.append(int(fd))
        except OSError:
            pass  # the directory's own descriptor, gone already
    return found


def big_random_file(directory: Path) -> tuple[Path, bytes]:
    """48 MB of random bytes: far more than the pipes and the channel window hold."""
    path = directory / "big.summary.1"
    data = os.urandom(48 << 20)
    path.write_bytes(data)
    return path, data


@pytest.mark.parametrize("spool", ["in memory", "unlinked temporary file"])
def test_a_stream_arrives_with_no_thread_draining_it_and_what_is_far_behind_is_given_back(
        server, tmp_path, monkeypatch, spool):
    """ssh writes a streamed range into a file in memory (or, on a system without one, an
    unlinked temporary file), not into a pipe a thread of ours must drain (and take the GIL from
    the parser to do it): the whole range arrives while nobody reads and no thread runs; the
    pages behind what a seek back may still want are freed."""
    from tui_insight.summary.sources.ssh import STREAM_KEEP

    if spool != "in memory":
        monkeypatch.delattr(os, "memfd_create")

    path, data = big_random_file(tmp_path)
    source = SshSource(server.target(tmp_path), server.ssh_options())
    try:
        source.discover({})
        threads = threading.active_count()
        with source.open_range(str(path), 0, len(data)) as fh:
            assert threading.active_count() == threads
            deadline = time.monotonic() + 60
            while True:  # arriving, unread (beside it: the next request's spare session, `_spools` empty)
                [spool] = [fd for fd in _spools() if os.fstat(fd).st_size >= len(data)] or [None]
                if spool is not None:
                    break
                assert time.monotonic() < deadline, "the stream stalled while nobody read it"
                time.sleep(0.01)
            assert fh.read(40 << 20) == data[:40 << 20]
            held = os.fstat(spool).st_blocks * 512
            assert held <= len(data) - (40 << 20) + STREAM_KEEP + (8 << 20)
            assert fh.read() == data[40 << 20:]
    finally:
        source.close()
    assert _spools() == []


def test_a_stream_cut_by_a_dropped_connection_ends_early_and_says_so(server, tmp_path):
    path, data = big_random_file(tmp_path)
    source = SshSource(server.target(tmp_path), server.ssh_options())
    try:
        source.discover({})
        fh = source.open_range(str(path), 1000, len(data))
        fh.seek(1000)
        assert fh.read(1 << 20) == data[1000:1000 + (1 << 20)]
        os.kill(source.master_pid, signal.SIGKILL)
        rest = fh.read()  # what arrived before the connection went, then the end
        at = 1000 + (1 << 20)
        assert len(rest) < len(data) - at and rest == data[at:at + len(rest)]
        with pytest.raises(ConnectionLost):
            fh.close()
        assert source.status == RECONNECTING
    finally:
        source.close()


def test_a_load_does_not_wait_for_the_masters_pid(server, logs, tmp_path, monkeypatch):
    """The pid of a master just started (`ssh -O check`) is asked for beside the requests that
    follow, not before them: here that answer is held back until the load is done."""
    release = tmp_path / "release"
    wrapper = tmp_path / "bin" / "ssh"
    wrapper.parent.mkdir()
    wrapper.write_text(f"""#!/bin/sh
case " $* " in *" -O check "*) while [ ! -e '{release}' ]; do sleep 0.05; done;; esac
exec '{shutil.which("ssh")}' "$@"
""")
    wrapper.chmod(0o755)
    monkeypatch.setenv("PATH", f"{wrapper.parent}{os.pathsep}{os.environ['PATH']}")
    source = SshSource(server.target(logs), server.ssh_options())
    try:
        cache = SummaryCache(source)
        cache.reload()  # the listing starts the master, then every file is read through it
        assert cache.error == "" and cache.jobs and all(job.loaded for job in cache.jobs.values())
        release.touch()
        assert source.master_pid is not None
    finally:
        release.touch()
        source.close()


def test_the_next_requests_session_is_started_ahead_and_close_ends_it(server, logs, tmp_path):
    """After a request, the next one's `ssh HOST sh -s` is already started, waiting for its
    script: the ssh client's start, the session's round trip and the remote login shell's start
    (its startup files) are behind the request that takes it, not in its way."""
    config = server.write_client_config(tmp_path / "config", server.key)

    def waiting() -> list[int]:  # requests' sessions through the master (not the master, not `-O check`)
        found = []
        for pid in processes_naming(str(config)):
            try:
                args = Path(f"/proc/{pid}/cmdline").read_bytes().split(b"\0")
            except OSError:
                continue
            if b"ControlMaster=no" in args and args[-2:] == [b"sh -s", b""]:
                found.append(pid)
        return found

    def one_waiting() -> int:
        deadline = time.monotonic() + 30
        while len(waiting()) != 1:
            assert time.monotonic() < deadline, f"sessions waiting: {waiting()}"
            time.sleep(0.02)
        return waiting()[0]

    path = logs / ODD / "events.summary.7.host_MS"
    source = SshSource(server.target(logs), server.ssh_options(config))
    try:
        source.discover({})
        spare = one_waiting()
        assert source.read_ranges([(str(path), 0, None)]) == [path.read_bytes()]
        assert spare not in waiting() and one_waiting() != spare  # it answered; the next one waits
    finally:
        source.close()
    assert_none_left(config)


def test_close_stops_the_master(server, logs):
    source = SshSource(server.target(logs), server.ssh_options())
    source.discover({})
    pid = source.master_pid
    assert pid is not None
    source.close()
    wait_gone(pid)


def wait_gone(pid: int, timeout: float = 10.0) -> None:
    """Until process `pid` has exited (a killed master is reaped by init, not by us)."""
    deadline = time.monotonic() + timeout
    while True:
        try:
            os.kill(pid, 0)
        except ProcessLookupError:
            return
        try:  # a zombie still answers kill(0): it is gone all the same
            if Path(f"/proc/{pid}/stat").read_text().split(") ", 1)[1].startswith("Z"):
                return
        except (OSError, IndexError):
            return
        assert time.monotonic() < deadline, f"process {pid} is still running"
        time.sleep(0.02)


def run_cli(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "tui_insight", *args], capture_output=True, text=True, timeout=120,
                          cwd=Path(__file__).resolve().parents[1])


def test_export_over_ssh_writes_locally_and_a_refused_key_exits_2(server, logs, tmp_path):
    done = run_cli(server.target(logs), "--ssh-config", str(server.client_config),
                   "--export", "csv", "--out", str(tmp_path / "out"))
    assert done.returncode == 0, done.stderr
    assert "./lenet_lr0.01" in (tmp_path / "out" / "jobs.csv").read_text()

    refused = server.write_client_config(tmp_path / "refused", server.other_key)
    done = run_cli(server.target(logs), "--ssh-config", str(refused), "--export", "csv", "--out", str(tmp_path / "x"))
    assert done.returncode == 2
    assert done.stderr.count("\n") == 1 and "Permission denied (publickey)" in done.stderr, done.stderr


def users_master_config(server, path: Path, key: Path, sockets: Path) -> Path:
    """A client config as a user with their own ControlMaster has it (sockets in `sockets`)."""
    server.write_client_config(path, key)
    with path.open("a") as fh:
        fh.write(f"  ControlMaster auto\n  ControlPath {sockets}/%C\n  ControlPersist 120\n")
    return path


@pytest.fixture
def users_master(server, tmp_path):
    """A master the user opened by hand (`ssh -fN`) with their config: the config's path."""
    sockets = Path(tempfile.mkdtemp(prefix="um-", dir="/tmp"))  # a socket path must be short
    config = users_master_config(server, tmp_path / "users", server.key, sockets)
    subprocess.run(["ssh", "-F", str(config), "-o", "BatchMode=yes", "-f", "-N", ALIAS], check=True, timeout=60,
                   stdin=subprocess.DEVNULL, capture_output=True)
    yield config, sockets
    subprocess.run(["ssh", "-F", str(config), "-O", "exit", ALIAS], capture_output=True, timeout=60)
    shutil.rmtree(sockets, ignore_errors=True)


def master_running(config: Path) -> bool:
    return subprocess.run(["ssh", "-F", str(config), "-O", "check", ALIAS], capture_output=True,
                          timeout=60).returncode == 0


def test_the_users_own_master_carries_every_request_and_stays(server, logs, users_master, tmp_path):
    """A host that asks for a one-time password: the user logs in by hand once, their config's
    master keeps the connection, and a key alone is refused. Here the key tui-insight is given is
    one the server refuses: only the user's master can carry its requests."""
    config, sockets = users_master
    refused = users_master_config(server, tmp_path / "refused", server.other_key, sockets)
    source = SshSource(server.target(logs), ["-F", str(refused)])
    jobs = relative_jobs(source.discover({}), str(logs))
    assert "./lenet_lr0.01" in jobs
    path = str(next((logs / "lenet_lr0.01").glob("*summary*")))
    with source.open_range(path, 0, 1000) as stream:
        assert stream.read() == Path(path).read_bytes()[:1000]
    source.close()
    assert master_running(config)  # theirs: left running

    done = run_cli(server.target(logs), "--ssh-config", str(refused), "--export", "csv", "--out", str(tmp_path / "out"))
    assert done.returncode == 0, done.stderr
    assert "./lenet_lr0.01" in (tmp_path / "out" / "jobs.csv").read_text()
    assert master_running(config)


def test_when_the_users_master_goes_a_master_of_our_own_takes_over(server, logs, users_master):
    config, sockets = users_master
    source = SshSource(server.target(logs), ["-F", str(config)])
    assert "./lenet_lr0.01" in relative_jobs(source.discover({}), str(logs))
    assert source.master_pid is None  # theirs carries it
    subprocess.run(["ssh", "-F", str(config), "-O", "exit", ALIAS], check=True, capture_output=True, timeout=60)
    assert "./lenet_lr0.01" in relative_jobs(source.discover({}), str(logs))
    pid = source.master_pid
    assert pid is not None and not master_running(config)  # ours, in a directory of our own
    source.close()
    wait_gone(pid)


# The program in a fresh interpreter, an audit hook noting (in order) the processes it starts and
# the modules it imports; `STOP_AT` set: importing that module is interrupted (Ctrl-C meanwhile).
TRACED = """
import json, os, runpy, sys
log = open(os.environ["TRACE_LOG"], "a")
stop_at = os.environ.get("STOP_AT")
def hook(event, args):
    if event == "subprocess.Popen":
        log.write(json.dumps(["run", list(map(str, args[1]))]) + "\\n")
    elif event == "import" and args[0] in ("numpy", "textual"):
        log.write(json.dumps(["import", args[0]]) + "\\n")
        if args[0] == stop_at:
            raise KeyboardInterrupt
    log.flush()
sys.addaudithook(hook)
sys.argv[0] = "tui-insight"
runpy.run_module("tui_insight", run_name="__main__")
"""


def run_traced(tmp_path: Path, *args: str, stop_at: str = "") -> tuple[subprocess.CompletedProcess, list]:
    trace = tmp_path / "trace.jsonl"
    env = {**os.environ, "TRACE_LOG": str(trace), "STOP_AT": stop_at}
    done = subprocess.run([sys.executable, "-c", TRACED, *args], capture_output=True, text=True, timeout=120,
                          cwd=Path(__file__).resolve().parents[1], env=env)
    events = [tuple(json.loads(line)) for line in trace.read_text().splitlines()] if trace.exists() else []
    return done, events


def first(events: list, wanted) -> int:
    return next(i for i, event in enumerate(events) if wanted(event))


def is_early_master(event) -> bool:
    return event[0] == "run" and event[1][0] == "ssh" and "-N" in event[1]


def processes_naming(text: str) -> list[int]:
    """Processes whose command line holds `text` (an ssh config only this test uses)."""
    found = []
    for name in os.listdir("/proc"):
        try:
            if name.isdigit() and text.encode() in Path(f"/proc/{name}/cmdline").read_bytes():
                found.append(int(name))  # a zombie's command line is empty: it is not counted
        except OSError:
            pass
    return found


def assert_none_left(config: Path, timeout: float = 10.0) -> None:
    """No ssh of this config runs (once those ending have ended: `ssh -O exit` returns as the master
    starts going; an ssh still connecting becomes a master in the background, another pid)."""
    deadline = time.monotonic() + timeout
    while processes_naming(str(config)):
        assert time.monotonic() < deadline, f"still running: {processes_naming(str(config))}"
        time.sleep(0.02)


def accepted(server) -> int:
    return server.log.read_text().count("Accepted publickey")


def test_the_connection_starts_before_the_heavy_imports_and_is_the_one_used(server, logs, tmp_path):
    config = server.write_client_config(tmp_path / "config", server.key)
    before = accepted(server)
    done, events = run_traced(tmp_path, server.target(logs), "--ssh-config", str(config),
                              "--export", "csv", "--out", str(tmp_path / "out"))
    assert done.returncode == 0, done.stderr
    assert "./lenet_lr0.01" in (tmp_path / "out" / "jobs.csv").read_text()
    assert first(events, is_early_master) < first(events, lambda e: e == ("import", "numpy"))
    assert accepted(server) == before + 1  # one handshake: every request went through that master
    assert_none_left(config)


def test_the_masters_pid_is_asked_for_once_the_first_request_is_on_its_way(server, logs, tmp_path):
    """`ssh -O check` (the pid of the master started early) is started after the listing's own
    ssh, not before it: the first request does not wait for a third process to start."""
    done, events = run_traced(tmp_path, server.target(logs), "--ssh-config", str(server.client_config), "--summary")
    assert done.returncode in (0, 1), done.stderr  # 1: a job has a failing badge
    is_request = lambda e: e[0] == "run" and e[1][-1] == "sh -s"  # noqa: E731
    is_check = lambda e: e[0] == "run" and "-O" in e[1] and e[1][e[1].index("-O") + 1] == "check"  # noqa: E731
    assert first(events, is_early_master) < first(events, is_request) < first(events, is_check)


@pytest.mark.parametrize("stop_at", ["numpy", "textual"])  # before the source exists; the UI's import
def test_the_ui_interrupted_while_importing_leaves_no_connection(server, logs, tmp_path, stop_at):
    config = server.write_client_config(tmp_path / "config", server.key)
    done, events = run_traced(tmp_path, server.target(logs), "--ssh-config", str(config), stop_at=stop_at)
    assert done.returncode == 130, done.stderr
    assert first(events, is_early_master) < first(events, lambda e: e == ("import", stop_at))
    assert_none_left(config)


def test_an_unreachable_host_started_early_is_one_line_and_exit_2(server, logs, tmp_path):
    with socket_closed() as port:
        config = server.write_client_config(tmp_path / "config", server.key, port=port)
        done, events = run_traced(tmp_path, server.target(logs), "--ssh-config", str(config),
                                  "--export", "csv", "--out", str(tmp_path / "out"))
    assert any(is_early_master(event) for event in events)
    assert done.returncode == 2
    assert done.stderr.count("\n") == 1 and f"port {port}: Connection refused" in done.stderr, done.stderr
    assert not (tmp_path / "out").exists()
    assert_none_left(config)


@pytest.fixture(scope="module")
def spread_histograms(tmp_path_factory) -> Path:
    """40 histograms spread over a 41 MB file (a 256 KB tensor a step: larger than what a listing
    fetches with it), and a local export of them."""
    from tui_insight.export import export_snapshot

    root = tmp_path_factory.mktemp("spread")
    rng = np.random.default_rng(3)
    writer = SummaryWriter(root / "logs" / "run", timestamp=1)
    for step in range(1, 161):
        writer.add_scalar("loss", 1.0 / step)
        writer.add_tensor("big", rng.standard_normal(64_000).astype(np.float32))
        if step % 4 == 0:
            writer.add_histogram("weights", rng.standard_normal(500))
        writer.record(step)
    writer.close()
    local = SummaryCache(str(root / "logs"))
    local.reload()
    export_snapshot(local, root / "local", plugins={"histogram"})
    return root


def requests_of(server, root: Path, work) -> tuple[object, int]:
    """What `work(cache)` gives over ssh, and how many requests it sent after the first load."""
    source = SshSource(server.target(root / "logs"), server.ssh_options())
    try:
        cache = SummaryCache(source)
        cache.reload()
        sent = source.round_trips
        result = work(cache)
        return result, source.round_trips - sent
    finally:
        source.close()


def test_an_export_fetches_the_payloads_of_many_steps_together(server, spread_histograms, tmp_path):
    """Decoded one by one, each histogram cost a request or two (a block each); the export asks
    for the next 16 steps' records together (their headers, then the rest: two requests). What
    it writes is what a local export writes."""
    from tui_insight.export import export_snapshot

    root = spread_histograms
    _, requests = requests_of(server, root, lambda cache: export_snapshot(cache, tmp_path / "remote",
                                                                          plugins={"histogram"}))
    assert (tmp_path / "remote" / "histograms.csv").read_text() == (root / "local" / "histograms.csv").read_text()
    assert len((root / "local" / "histograms.csv").read_text().splitlines()) > 40 * 10
    assert requests <= 6, requests  # two for each 16 steps; one by one: 79


def test_the_histogram_view_reads_its_steps_in_two_requests(server, spread_histograms):
    from tui_insight.summary.queries.histograms import histogram_steps

    steps, requests = requests_of(server, spread_histograms,
                                  lambda cache: histogram_steps(cache, cache.job("./run"), "weights"))
    assert [s.step for s in steps] == list(range(4, 161, 4))
    assert requests == 2, requests  # the headers' blocks, then the rest of each record


def test_the_tensor_ridgeline_reads_its_steps_in_two_requests(server, spread_histograms):
    from tui_insight.summary.queries.tensors import tensor_histogram_steps

    steps, requests = requests_of(server, spread_histograms,
                                  lambda cache: tensor_histogram_steps(cache, cache.job("./run"), "big"))
    assert len(steps) == 20 and steps[-1].step == 160  # the 20 kept (sampled over the run)
    assert requests == 2, requests


# -- the cipher of our own master ---------------------------------------------------------------------

DEFAULT_CIPHERS = "chacha20-poly1305@openssh.com,aes128-ctr,aes192-ctr,aes256-ctr,aes128-gcm@openssh.com,aes256-gcm@openssh.com"


def test_aes_gcm_goes_first_only_over_openssh_defaults_on_a_cpu_with_aes():
    from tui_insight.summary.sources.ssh_connection import aes_first, cpu_has_aes

    assert aes_first(DEFAULT_CIPHERS, DEFAULT_CIPHERS, True) == [
        "-o", "Ciphers=aes128-gcm@openssh.com,aes256-gcm@openssh.com,chacha20-poly1305@openssh.com,"
              "aes128-ctr,aes192-ctr,aes256-ctr"]
    assert aes_first(DEFAULT_CIPHERS, DEFAULT_CIPHERS, False) == []  # no AES instructions: ChaCha20 is faster
    assert aes_first("chacha20-poly1305@openssh.com", DEFAULT_CIPHERS, True) == []  # the user's choice
    assert aes_first("aes128-ctr,chacha20-poly1305@openssh.com", "aes128-ctr,chacha20-poly1305@openssh.com",
                     True) == []  # no AES-GCM to put first
    assert cpu_has_aes("processor\t: 0\nflags\t\t: fpu sse2 aes avx\n")
    assert cpu_has_aes("Features\t: fp asimd aes pmull sha1\n")
    assert not cpu_has_aes("flags\t\t: fpu sse2 avx\n") and not cpu_has_aes("")


def test_our_master_offers_aes_gcm_first_unless_the_users_config_names_ciphers(server, tmp_path):
    from tui_insight.summary.sources.ssh_connection import SshConnection, cpu_has_aes

    with open("/proc/cpuinfo") as cpuinfo:
        has_aes = cpu_has_aes(cpuinfo.read())
    own = SshConnection(server.target("/logs"), server.ssh_options())
    chosen = tmp_path / "ssh_config"
    chosen.write_text(server.client_config.read_text() + "  Ciphers chacha20-poly1305@openssh.com\n")
    theirs = SshConnection(server.target("/logs"), server.ssh_options(chosen))
    try:
        offered = [arg for arg in own.command("yes") if arg.startswith("Ciphers=")]
        assert offered == (["Ciphers=aes128-gcm@openssh.com,aes256-gcm@openssh.com,chacha20-poly1305@openssh.com,"
                            "aes128-ctr,aes192-ctr,aes256-ctr"] if has_aes else [])
        assert not [arg for arg in theirs.command("yes") if arg.startswith("Ciphers=")]
    finally:
        own.close()
        theirs.close()


@pytest.mark.parametrize("offered, negotiated", [
    (None, "aes128-gcm@openssh.com"),
    ("chacha20-poly1305@openssh.com", "chacha20-poly1305@openssh.com"),  # a host without AES-GCM
])
def test_a_host_reads_the_same_bytes_whichever_cipher_it_offers(logs, tmp_path, offered, negotiated):
    from sshd import Sshd

    from tui_insight.summary.sources.ssh_connection import cpu_has_aes

    with open("/proc/cpuinfo") as cpuinfo:
        if not cpu_has_aes(cpuinfo.read()):
            negotiated = "chacha20-poly1305@openssh.com"  # OpenSSH's default first
    host = Sshd(tmp_path, settings=("LogLevel DEBUG1", *([f"Ciphers {offered}"] if offered else [])))
    host.start()
    src = SshSource(host.target(logs), host.ssh_options())
    try:
        name = next(p for p in sorted(logs.rglob("*summary*")) if p.is_file() and p.stat().st_size > 100)
        assert src.read(str(name)) == name.read_bytes()
    finally:
        src.close()
        host.stop()
    assert f"kex: client->server cipher: {negotiated} " in host.log.read_text()


def test_a_source_that_holds_its_streams_exports_the_payloads_with_no_request(server, spread_histograms, tmp_path):
    """`hold_streams` (the command line's, for --export): the range the load streamed is held,
    so the export's payload reads that follow need no request; the app's sources give it back."""
    from tui_insight.export import export_snapshot

    root = spread_histograms
    source = SshSource(server.target(root / "logs"), server.ssh_options(), hold_streams=True)
    try:
        cache = SummaryCache(source)
        cache.reload()
        sent = source.round_trips
        export_snapshot(cache, tmp_path / "remote", plugins={"histogram"})
        assert source.round_trips == sent
    finally:
        source.close()
    assert (tmp_path / "remote" / "histograms.csv").read_text() == (root / "local" / "histograms.csv").read_text()
    assert _spools() == []
