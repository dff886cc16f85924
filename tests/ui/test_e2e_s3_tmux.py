"""End to end: the program in a real terminal (tmux) on logs in object storage, `s3://...`
served by a real S3 server (moto on 127.0.0.1): the jobs listed, the location in the status line,
a job's charts."""
from __future__ import annotations

import sys
from pathlib import Path

from s3help import FAKE_CREDENTIALS, s3_server  # noqa: F401 (a fixture)
from test_e2e_tmux import Tmux, app_command
from test_remote_s3 import two_jobs

REPO = Path(__file__).resolve().parents[2]


def test_the_ui_on_s3_in_tmux(tmp_path, s3_server):
    two_jobs(tmp_path / "logs")
    prefix = f"{s3_server.bucket()}/runs"
    s3_server.upload(tmp_path / "logs", prefix)
    command = app_command(tmp_path, [sys.executable, "-m", "tui_insight"], f"s3://{prefix}", *s3_server.cli_options,
                          env=FAKE_CREDENTIALS, cwd=REPO)
    term = Tmux()
    try:
        term.start(command)
        term.wait_for("2 jobs", "./exp/b", f"s3://{prefix} ·", "reload every 30s")
        term.keys("Down", "Enter")  # ./exp/b's charts
        term.wait_for("loss", "1 Scalars")
        term.keys("q")
        term.wait_for("EXITED-0")
    finally:
        term.kill()
