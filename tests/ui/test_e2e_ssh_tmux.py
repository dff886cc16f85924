"""End to end: the program in a real terminal (tmux) on logs on another host, `user@host:/path`
through the system ssh to a real sshd on 127.0.0.1 (tests/sshd.py): the jobs listed, a job's
charts, and the server dropping the connection mid-run: `reconnecting…` in the status line, then
the next reload reconnects and the steps written meanwhile arrive."""
from __future__ import annotations

import os
import shutil
import signal
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest
from sshd import sshd_or_fail
from test_e2e_tmux import Tmux, app_command
from test_remote_ssh import write_steps

from tui_insight.summary.formats.writer import SummaryWriter

REPO = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    sshd = sshd_or_fail(tmp_path_factory.mktemp("sshd"))
    yield sshd
    sshd.stop()


def drop_connections(server) -> None:
    """The server side of every ssh connection to the test's sshd goes (as when the network or
    the host drops it): its per-connection processes are killed, the listener stays."""
    children = subprocess.run(["pgrep", "-P", str(server.process.pid)], capture_output=True, text=True).stdout.split()
    assert children, "no ssh connection to drop"
    for pid in children:
        os.kill(int(pid), signal.SIGKILL)


@pytest.fixture
def short_dir():
    """A temp dir with a short path: the status line shows the whole location before its news."""
    path = Path(tempfile.mkdtemp(prefix="tis-", dir="/tmp"))
    yield path
    shutil.rmtree(path, ignore_errors=True)


def test_the_ui_over_ssh_in_tmux(tmp_path, short_dir, server):
    logs = short_dir / "logs"
    SummaryWriter(logs / "exp" / "a", timestamp=1).close()
    writer = SummaryWriter(logs / "exp" / "b", timestamp=1)
    write_steps(writer, range(1, 6))
    target = server.target(logs)
    command = app_command(tmp_path, [sys.executable, "-m", "tui_insight"], target,
                          "--ssh-config", str(server.client_config), "--reload-interval", "2", cwd=REPO)
    term = Tmux()
    try:
        term.start(command)
        term.wait_for("2 jobs", "./exp/b", f"{target} ·", "0.2@5")
        # (by name: under load ./exp/a may be listed after ./exp/b, the cursor staying on its row)
        term.keys("/", "b", "Enter")
        term.wait_for("./exp/b", absent=("./exp/a",))
        term.keys("Enter")  # ./exp/b's charts, read over ssh
        term.wait_for("loss", "1 Scalars", "0.2 @5")
        term.keys("Escape")  # back to the job list and its status line
        term.wait_for("‹health ▼›", "2 jobs")

        drop_connections(server)
        write_steps(writer, range(6, 11))
        term.wait_for("reconnecting…")  # said until the next reload gets through
        term.wait_for("2 jobs", "0.1@10", absent=("reconnecting…",))  # reconnected: the new steps arrived
        term.keys("q")
        term.wait_for("EXITED-0")
    finally:
        term.kill()
        writer.close()
