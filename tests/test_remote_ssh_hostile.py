"""`SshSource` against hostile hosts: a real sshd (tests/sshd.py) whose sessions find the test's
own `find`, `ls` or `head` first on PATH (crafted listings, answers without end, no answer), and
BusyBox for names a newline splits. What the host sends is bounded and checked; a bad answer is a
counted problem or one file's error, never an exception, and never a wait without end."""
from __future__ import annotations

import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import pytest
from sshd import sshd_or_fail

from tui_insight.summary.formats.writer import SummaryWriter
from tui_insight.summary.sources.local import SourceError
from tui_insight.summary.sources.ssh import RECONNECTING, SshError, SshSource
from tui_insight.summary.sources.remote_limits import NOISE_BYTES, RequestLimits
from tui_insight.summary.store.cache import SummaryCache

SMALL = RequestLimits(max_listing=64 << 10, timeout=30)  # a test-sized cap (requests on a busy machine: 30 s)
HASTY = RequestLimits(max_listing=64 << 10, timeout=1.5)  # and a short wait, for hosts that never answer


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    sshd = sshd_or_fail(tmp_path_factory.mktemp("sshd"))
    yield sshd
    sshd.stop()


@pytest.fixture
def hostile(server, tmp_path):
    """The hostile host's client config; its tools are cleared after the test."""
    yield server.hostile_config(tmp_path / "hostile_config")
    server.clear_hostile_tools()


def two_jobs(root: Path) -> dict[str, Path]:
    """Two jobs of ten steps each, written by our writer: {train id: its summary file}."""
    files = {}
    for name in ("a", "b"):
        with SummaryWriter(root / name, timestamp=1) as writer:
            for step in range(1, 11):
                writer.add_scalar("loss", 1.0 / step)
                writer.record(step)
        files[f"./{name}"] = next((root / name).iterdir())
    return files


def crafted_find(server, records: list[bytes]) -> None:
    """A `find` that claims GNU's `-printf` and answers the listing with `records`."""
    body = b"".join(record + b"\0" for record in records)
    data = server.hostile_bin / "listing"
    data.write_bytes(body)
    server.hostile_tool("find", f'case "$*" in *"-maxdepth 0"*) exit 0;; esac\nexec cat {data}\n')


def record(path: Path, root: Path, size=None, mtime=None, inode=None) -> bytes:
    st = path.stat()
    fields = (size if size is not None else str(st.st_size), mtime if mtime is not None else f"{st.st_mtime:.6f}",
              inode if inode is not None else str(st.st_ino), str(path.relative_to(root)))
    return " ".join(fields).encode()


def test_bad_listing_fields_are_counted_problems_and_the_good_files_load(server, hostile, tmp_path):
    """nan/inf/1e400 mtimes, negative and hex sizes: `float(mtime)` took them and building the
    file's stat raised, so the loader stopped and the job list said `loading 0/2` for ever."""
    root = tmp_path / "logs"
    files = two_jobs(root)
    extra = root / "a" / "events.summary.2"
    extra.write_bytes(files["./a"].read_bytes())
    bad = [record(extra, root, mtime=m) for m in ("nan", "inf", "1e400")]
    bad += [record(extra, root, size=s) for s in ("-5", "0x10")]
    crafted_find(server, [record(files["./a"], root), *bad, record(files["./b"], root, mtime="nan"),
                          b"1 2 3 ", b"1 2 3 ../../etc/passwd", b"garbage"])
    source = SshSource(server.target(root), ["-F", str(hostile)], limits=SMALL)
    try:
        cache = SummaryCache(source)
        cache.reload()
        assert cache.progress.jobs_loaded == cache.progress.jobs_found == 1
        assert cache.job("./a").series("scalar", "loss").steps.tolist() == list(range(1, 11))
        assert extra.name not in cache.job("./a").summary_files
        problems = "\n".join(cache.problems)
        assert "./a: 5 listed file(s) left out, bad size or mtime (first: events.summary.2: mtime 'nan')" in problems
        assert "./b: 1 listed file(s) left out" in problems
        assert "./: 2 listed record(s) left out, no usable file name" in problems  # `1 2 3 `, `../../etc/passwd`
        assert "(first: garbage: size 'garbage')" in problems
    finally:
        source.close()


def test_the_job_list_finishes_loading_over_a_listing_with_bad_fields(server, hostile, tmp_path):
    from ui.uihelp import run_pilot, wait_for

    from tui_insight.ui.app import InsightApp
    from tui_insight.ui.widgets.progress import ProgressLine

    root = tmp_path / "logs"
    files = two_jobs(root)
    crafted_find(server, [record(files["./a"], root, mtime="nan"), record(files["./b"], root, size="0x10"),
                          record(files["./b"], root)])
    source = SshSource(server.target(root), ["-F", str(hostile)], limits=SMALL)
    app = InsightApp(SummaryCache(source), start_loading=True, reload_interval=0, logdir_label="LOGDIR")

    async def body(pilot):
        def line() -> str:
            return str(app.screen.query_one(ProgressLine).render())

        await wait_for(pilot, lambda: "loading" not in line())
        return line()

    try:
        shown = run_pilot(app, body)
    finally:
        source.close()
    assert "loading" not in shown and "1 job ·" in shown and "2 problems in LOGDIR" in shown, shown


def test_a_listing_that_streams_without_end_stops_at_its_cap_and_keeps_what_came(server, hostile, tmp_path):
    """Spooled without bound, a runaway listing filled 11 GB in 40 s; now it stops at the cap."""
    root = tmp_path / "logs"
    files = two_jobs(root)
    data = server.hostile_bin / "first"
    data.write_bytes(record(files["./a"], root) + b"\0")
    server.hostile_tool("find", f'case "$*" in *"-maxdepth 0"*) exit 0;; esac\n'
                                f'cat {data}; while :; do printf "1 2 3 x/y\\0"; done\n')
    source = SshSource(server.target(root), ["-F", str(hostile)], limits=SMALL)
    try:
        found = source.discover({})
        assert list(found.jobs) == ["./a"]
        assert any("stopped at its size cap" in p for p in found.problems), found.problems
    finally:
        source.close()


def test_a_listing_that_never_answers_fails_within_its_timeout(server, hostile, tmp_path):
    """A remote command that never answered held a reload for 600 s."""
    root = tmp_path / "logs"
    two_jobs(root)
    server.hostile_tool("find", "exec sleep 600\n")
    source = SshSource(server.target(root), ["-F", str(hostile)], limits=HASTY)
    try:
        cache = SummaryCache(source)
        cache.reload()
        assert "no answer in 2 s" in cache.error and not cache.jobs
    finally:
        source.close()


def test_a_read_that_never_answers_is_that_files_error_and_the_next_listing_reconnects(server, hostile, tmp_path):
    root = tmp_path / "logs"
    two_jobs(root)
    (root / "a" / "notes.txt").write_bytes(b"0123456789" * 10)  # listed, not fetched with the listing
    source = SshSource(server.target(root), ["-F", str(hostile)], limits=SMALL)
    try:
        assert set(source.discover({}).jobs) == {"./a", "./b"}  # the real tools
        source.limits = HASTY
        server.hostile_tool("ls", "exec sleep 600\n")  # the read script's size check
        path = source.root + "/a/notes.txt"
        with pytest.raises(OSError, match=r"no answer in \d+ s"):
            source.read(path, 0, 10)
        assert source.status == RECONNECTING
        server.clear_hostile_tools()
        assert set(source.discover({}).jobs) == {"./a", "./b"} and source.status == ""
        with pytest.raises(OSError, match=r"no answer in \d+ s"):
            server.hostile_tool("ls", "exec sleep 600\n")
            with source.open_range(path, 0, 10) as stream:
                stream.read()
        server.clear_hostile_tools()
        source.discover({})
        assert source.read(path, 0, 10) == b"0123456789"
    finally:
        source.close()


def test_a_read_answering_more_than_asked_is_that_files_error(server, hostile, tmp_path):
    root = tmp_path / "logs"
    two_jobs(root)
    (root / "a" / "notes.txt").write_bytes(b"0123456789" * 10)  # listed, not fetched with the listing
    source = SshSource(server.target(root), ["-F", str(hostile)], limits=SMALL)
    try:
        source.discover({})
        server.hostile_tool("head", "exec cat /dev/zero\n")  # every range's bytes, without end
        path = source.root + "/a/notes.txt"
        with pytest.raises(OSError, match="answered more than"):
            source.read(path, 0, 10)
        with pytest.raises(OSError, match="answered more than the 10 bytes asked for"):
            with source.open_range(path, 0, 10) as stream:
                stream.read()
    finally:
        source.close()


def test_names_holding_a_newline_survive_and_busybox_shows_no_phantom_job(server, tmp_path):
    """BusyBox's `stat` lines split a name holding a newline: `run.summary.1\\nx` was listed as
    `run.summary.1` at the root, a phantom job `./`."""
    root = tmp_path / "logs"
    (root / "job").mkdir(parents=True)
    (root / "job" / "events.summary.1\nx").write_bytes(b"")
    (root / "line\nbreak").mkdir()
    (root / "line\nbreak" / "events.summary.2").write_bytes(b"")
    (root / "job" / "model.pb\nold").write_bytes(b"")  # no graph: its first line was one, at the root
    (root / "model.pb\nold").write_bytes(b"")
    for port in (server.port, server.busybox_port):
        config = server.write_client_config(tmp_path / f"config{port}", server.key, port=port)
        source = SshSource(server.target(root), ["-F", str(config)])
        try:
            found = source.discover({})
        finally:
            source.close()
        assert set(found.jobs) == {"./job", "./line\nbreak"}, port
        assert found.jobs["./job"].summary_files == ["events.summary.1\nx"]
        assert found.jobs["./job"].graph_files == [] and "./" not in found.jobs


def test_the_walk_does_not_follow_links_into_proc_sys_dev_or_above_logdir(server, tmp_path):
    """Over ssh `find -L` followed a link to / (the whole machine) or /proc (every process's cwd)."""
    root = tmp_path / "logs"
    (root / "run").mkdir(parents=True)
    (root / "run" / "events.summary.1").write_bytes(b"")
    for name in ("proc", "sys", "dev"):
        os.symlink(f"/{name}", root / name)
    os.symlink("/", root / "slash")
    os.symlink(tmp_path, root / "up")
    for port in (server.port, server.busybox_port):
        config = server.write_client_config(tmp_path / f"config{port}", server.key, port=port)
        source = SshSource(server.target(root), ["-F", str(config)], limits=RequestLimits(timeout=20))
        try:
            found = source.discover({})
            assert set(found.jobs) == {"./run"}, port
            assert source.listdir(source.root) == ["run"]  # nothing listed under the links
            assert {"./slash: not walked (a link to a directory holding LOGDIR)",
                    "./up: not walked (a link to a directory holding LOGDIR)"} <= set(found.problems), port
        finally:
            source.close()


def test_a_remote_error_carrying_an_escape_sequence_is_printed_escaped(server, hostile, tmp_path):
    """The host's stderr line and a read's `E <reason>` are kept as sent and escaped where printed."""
    root = tmp_path / "logs"
    two_jobs(root)
    server.hostile_tool("session", "printf 'evil \\033]52;c;cHduZWQ=\\007 \\033[2J \\377\\n' >&2; exit 3\n")
    with pytest.raises(SshError, match="\x1b]52;c;cHduZWQ=\x07"):
        SshSource(server.target(root), ["-F", str(hostile)], limits=SMALL).discover({})
    done = subprocess.run([sys.executable, "-m", "tui_insight", server.target(root), "--ssh-config", str(hostile),
                           "--summary"], capture_output=True, timeout=60, env={**os.environ, "TERM": "dumb"})
    assert done.returncode == 2
    assert b"\x1b" not in done.stderr and b"\x07" not in done.stderr
    assert b"evil \\x1b]52;c;cHduZWQ=\\x07 \\x1b[2J \\xff" in done.stderr, done.stderr  # a byte not UTF-8 too


def test_a_reads_reason_carrying_an_escape_sequence_is_kept_and_printed_escaped(server, hostile, tmp_path):
    """A host that answers every read with `E <reason>` of its own: the file's error carries the
    reason as sent; `--summary` prints it escaped."""
    root = tmp_path / "logs"
    two_jobs(root)
    (root / "a" / "notes.txt").write_bytes(b"0123456789" * 10)  # listed, not fetched with the listing
    server.hostile_tool("session", """script=$(cat)
case "$script" in
  *"r() {"*) printf 'TUI-INSIGHT-SSH-1\\n'
             printf '%s\\n' "$script" | grep -c "^r '" | { read n; while [ "$n" -gt 0 ]; do
               printf 'E \\033]0;owned\\007\\n'; n=$((n - 1)); done; };;
  *) printf '%s\\n' "$script" | /bin/sh -s;;
esac
""")
    source = SshSource(server.target(root), ["-F", str(hostile)], limits=SMALL)
    try:
        source.discover({})
        with pytest.raises(OSError, match="^\x1b]0;owned\x07: "):
            source.read(source.root + "/a/notes.txt", 0, 10)
    finally:
        source.close()
    for how in (["--summary"], ["--export", "csv", "--out", str(tmp_path / "out")]):
        done = subprocess.run([sys.executable, "-m", "tui_insight", server.target(root), "--ssh-config", str(hostile),
                               *how], capture_output=True, timeout=60)
        assert b"\x1b" not in done.stdout + done.stderr and b"\x07" not in done.stdout + done.stderr, how
        assert b"\\x1b]0;owned\\x07" in done.stdout + done.stderr, (how, done.stdout, done.stderr)


def test_a_walk_past_its_bound_on_directories_stops_and_says_so(server, tmp_path):
    """Over ssh `find -L` walked to depth 18 with no bound: a link to / (on LOGDIR's filesystem)
    walked the whole machine. The listing stops at `max_walk_dirs` directories, with a note."""
    root = tmp_path / "logs"
    for i in range(30):
        (root / f"run{i:02}").mkdir(parents=True)
        (root / f"run{i:02}" / "events.summary.1").write_bytes(b"")
    for port in (server.port, server.busybox_port):
        config = server.write_client_config(tmp_path / f"config{port}", server.key, port=port)
        source = SshSource(server.target(root), ["-F", str(config)])
        try:
            assert len(source.discover({}).jobs) == 30 and source.discover({}).problems == []
            source.max_walk_dirs = 10
            found = source.discover({})
        finally:
            source.close()
        assert len(found.jobs) < 30, port
        assert "the walk stopped after 10 directories: jobs in the others are not listed" in found.problems, port


def test_the_timeout_is_an_option_and_a_bad_setting_is_one_line(server, hostile, tmp_path):
    root = tmp_path / "logs"
    two_jobs(root)
    server.hostile_tool("find", "exec sleep 600\n")
    command = [sys.executable, "-m", "tui_insight", server.target(root), "--ssh-config", str(hostile), "--summary"]
    done = subprocess.run([*command, "--ssh-timeout", "1"], capture_output=True, timeout=60)
    assert done.returncode == 2 and b"no answer in 1 s" in done.stderr, done.stderr
    done = subprocess.run(command, capture_output=True, timeout=60, env={**os.environ, "TUI_INSIGHT_SSH_TIMEOUT": "1"})
    assert done.returncode == 2 and b"no answer in 1 s" in done.stderr, done.stderr
    for bad in (["--ssh-timeout", "nan"], ["--ssh-timeout", "-1"]):
        done = subprocess.run([*command, *bad], capture_output=True, timeout=60)
        assert done.returncode == 2 and done.stderr.count(b"\n") == 1 and b"not a number of seconds" in done.stderr
    done = subprocess.run(command, capture_output=True, timeout=60, env={**os.environ, "TUI_INSIGHT_SSH_MAX_LISTING": "lots"})
    assert done.returncode == 2 and b"TUI_INSIGHT_SSH_MAX_LISTING='lots' is not a size" in done.stderr, done.stderr


@pytest.mark.parametrize("header", ["D \\302\\262", "D 99999999", "X 1", "D -1"])  # ², more than asked
def test_a_read_whose_header_is_no_answer_is_that_files_error(server, hostile, tmp_path, header):
    root = tmp_path / "logs"
    two_jobs(root)
    (root / "a" / "notes.txt").write_bytes(b"0123456789" * 10)  # listed, not fetched with the listing
    source = SshSource(server.target(root), ["-F", str(hostile)], limits=SMALL)
    try:
        source.discover({})
        server.hostile_tool("session", f"""script=$(cat)
case "$script" in
  *"r() {{"*) printf 'TUI-INSIGHT-SSH-1\\n{header}\\n0123456789';;
  *) printf '%s\\n' "$script" | /bin/sh -s;;
esac
""")
        path = source.root + "/a/notes.txt"
        with pytest.raises(OSError):
            source.read(path, 0, 10)
        source.discover({})
        with pytest.raises(OSError):
            with source.open_range(path, 0, 10) as stream:
                stream.read()
    finally:
        source.close()


def test_a_file_replaced_by_a_longer_one_is_read_from_its_start(server, tmp_path):
    """The listing carries each file's inode: a file replaced under its name (a new inode), even
    by a longer one, is another file, not the old one grown."""
    root = tmp_path / "logs"
    with SummaryWriter(root / "run", timestamp=1) as writer:
        for step in range(1, 11):
            writer.add_scalar("loss", 1.0)
            writer.record(step)
    (path,) = (root / "run").iterdir()
    source = SshSource(server.target(root), server.ssh_options())
    try:
        cache = SummaryCache(source)
        cache.reload()
        assert cache.job("./run").series("scalar", "loss").steps.tolist() == list(range(1, 11))
        with SummaryWriter(tmp_path / "new", timestamp=1) as writer:
            for step in range(101, 131):
                writer.add_scalar("loss", 2.0)
                writer.record(step)
        (new,) = (tmp_path / "new").iterdir()
        os.replace(new, path)  # the same name, a new inode, more bytes
        cache.reload()
        series = cache.job("./run").series("scalar", "loss")
        assert series.steps.tolist() == list(range(101, 131)) and set(series.values.tolist()) == {2.0}
    finally:
        source.close()


def test_an_export_prints_a_listing_problem_naming_bytes_not_utf8_escaped(server, hostile, tmp_path):
    root = tmp_path / "logs"
    files = two_jobs(root)
    crafted_find(server, [record(files["./a"], root), record(files["./b"], root),
                          b"1 nan 3 a/\xff\x1b[2J.summary.9"])
    done = subprocess.run([sys.executable, "-m", "tui_insight", server.target(root), "--ssh-config", str(hostile),
                           "--export", "csv", "--out", str(tmp_path / "out")], capture_output=True, timeout=60)
    assert done.returncode == 0, done.stderr
    assert b"./a: 1 listed file(s) left out, bad size or mtime (first: \\xff\\x1b[2J.summary.9: mtime 'nan')" \
        in done.stderr, done.stderr
    assert (tmp_path / "out" / "jobs.csv").exists()


def test_the_listing_cap_is_an_option_and_a_listing_past_it_says_so(server, tmp_path):
    root = tmp_path / "logs"
    for i in range(60):
        (root / f"run{i:02}").mkdir(parents=True)
        (root / f"run{i:02}" / "events.summary.1").write_bytes(b"")
    command = [sys.executable, "-m", "tui_insight", server.target(root), "--ssh-config", str(server.client_config),
               "--summary"]
    done = subprocess.run([*command, "--ssh-max-listing", "1k"], capture_output=True, timeout=60)
    assert b"the listing stopped at its size cap (--ssh-max-listing)" in done.stderr, done.stderr
    shown_jobs = done.stdout.count(b"./run")
    assert 0 < shown_jobs < 60, done.stdout
    done = subprocess.run(command, capture_output=True, timeout=60)
    assert b"size cap" not in done.stderr and done.stdout.count(b"./run") == 60, done.stderr


def test_a_listing_answered_with_something_else_keeps_the_jobs_listed_before(server, hostile, tmp_path):
    root = tmp_path / "logs"
    two_jobs(root)
    source = SshSource(server.target(root), ["-F", str(hostile)], limits=SMALL)
    try:
        cache = SummaryCache(source)
        cache.reload()
        assert set(cache.jobs) == {"./a", "./b"}
        server.hostile_tool("session", 'cat >/dev/null; printf "TUI-INSIGHT-SSH-1\\nnot a listing\\n"\n')
        cache.reload()
        assert set(cache.jobs) == {"./a", "./b"} and source.status == RECONNECTING and cache.error == ""
        server.clear_hostile_tools()
        cache.reload()
        assert set(cache.jobs) == {"./a", "./b"} and source.status == ""
    finally:
        source.close()
    server.hostile_tool("session", 'cat >/dev/null; printf "TUI-INSIGHT-SSH-1\\nnot a listing\\n"\n')
    first = SshSource(server.target(root), ["-F", str(hostile)], limits=SMALL)
    try:
        with pytest.raises(SshError, match="not a listing"):  # a first listing: the host's error
            first.discover({})
    finally:
        first.close()


def spooled_bytes() -> int:
    """Bytes this process holds in ssh spools (the anonymous files ssh's answers land in) now."""
    total = 0
    for fd in os.listdir("/proc/self/fd"):
        try:
            if "tui-insight-ssh" in os.readlink(f"/proc/self/fd/{fd}"):
                total += os.fstat(int(fd)).st_size
        except OSError:
            pass  # closed meanwhile
    return total


def test_a_session_started_ahead_spools_no_more_than_a_logins_noise_while_it_waits(server, hostile, tmp_path):
    """The session started ahead of the next request waits, idle, for its script; one whose host
    streams at once (a runaway ForceCommand) is stopped at a login's noise, however long the
    wait, and the next request still gets its answer from a session of its own."""
    root = tmp_path / "logs"
    two_jobs(root)
    source = SshSource(server.target(root), ["-F", str(hostile)], limits=SMALL)
    try:
        server.hostile_tool("eager", "exec cat /dev/zero\n")  # every session streams at once
        with pytest.raises(SourceError):
            source.discover({})  # zeros, bounded by the cap; a session is started beside it
        time.sleep(1.0)  # idle, as between two reloads: /dev/zero over ssh fills gigabytes in that time
        assert spooled_bytes() <= NOISE_BYTES + 1
        server.clear_hostile_tools()
        assert list(source.discover({}).jobs) == ["./a", "./b"]
    finally:
        source.close()


def held_error_files() -> dict[str, int]:
    """The unnamed temporary files this process holds now (where ssh's stderr lands), by fd and
    name: their sizes. (Others in the process hold such files too: moto, in-process for the S3
    tests, keeps its objects in them after its server stopped.)"""
    held = {}
    for fd in os.listdir("/proc/self/fd"):
        try:
            link = os.readlink(f"/proc/self/fd/{fd}")
            if link.startswith(tempfile.gettempdir()) and link.endswith("(deleted)"):
                held[f"{fd} {link}"] = os.fstat(int(fd)).st_size
        except OSError:
            pass  # closed meanwhile
    return held


def test_a_session_started_ahead_keeps_no_more_than_a_logins_noise_of_errors_while_it_waits(server, hostile, tmp_path):
    """The same bound for what the waiting session writes on its standard error."""
    root = tmp_path / "logs"
    two_jobs(root)
    already = held_error_files()  # what the process held before: not this source's
    source = SshSource(server.target(root), ["-F", str(hostile)], limits=SMALL)
    try:
        server.hostile_tool("eager", "exec cat /dev/zero >&2\n")  # every session streams errors at once
        with pytest.raises(SourceError):
            source.discover({})  # its own errors past a login's noise end it; a session is started beside it
        time.sleep(1.0)  # idle, as between two reloads
        held = {name: size for name, size in held_error_files().items() if name not in already}
        assert sum(held.values()) <= NOISE_BYTES + 1, held
    finally:
        source.close()


def test_a_host_that_answers_before_its_script_gets_no_session_started_ahead(server, hostile, tmp_path):
    """The session started ahead of the next request waits, idle, for its script; a host whose
    sessions stream at once (a runaway ForceCommand) filled its spool without bound between
    reloads. Once one has answered unasked, the host gets no more of them."""
    root = tmp_path / "logs"
    two_jobs(root)
    source = SshSource(server.target(root), ["-F", str(hostile)], limits=SMALL)
    try:
        assert list(source.discover({}).jobs) == ["./a", "./b"]  # a sane host: a session waits ahead
        server.hostile_tool("eager", "exec cat /dev/zero\n")  # every session from now on streams at once
        for _ in range(3):
            try:
                source.discover({})  # the first takes the sane session; the next ones' sessions stream
            except SourceError:
                pass  # a listing of zeros: that host's error, bounded by the cap
            time.sleep(0.3)  # idle, as between two reloads
        assert spooled_bytes() <= NOISE_BYTES + 1  # at most one session, stopped past a login's noise
    finally:
        source.close()
