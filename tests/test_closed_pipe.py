"""A reader that closes the program's stdout early (`tui-insight LOGDIR --summary | head -2`) ends
it quietly: status 0 and nothing on stderr, as POSIX tools end on a closed pipe. Run as the real
process with a real pipe whose read end is closed before the program writes. (`--help` ends
quietly through argparse, which drops an OSError of its output.)"""
from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from fixture_paths import MINDSPORE_LOGS, REPO


def run_into_closed_pipe(*args: str) -> subprocess.CompletedProcess:
    """`python -m tui_insight ARGS` with stdout a pipe nobody reads: its read end is closed as
    the program starts, so its first write to stdout meets a closed pipe."""
    read_end, write_end = os.pipe()
    os.close(read_end)
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    env.pop("TUI_INSIGHT_DEBUG", None)
    try:
        return subprocess.run([sys.executable, "-m", "tui_insight", *args], stdout=write_end,
                              stderr=subprocess.PIPE, env=env, timeout=120, check=False)
    finally:
        os.close(write_end)


def complaints(done: subprocess.CompletedProcess) -> list[str]:
    """The lines on stderr that are not `--summary`'s progress ("read 3/8 jobs")."""
    return [line for line in done.stderr.decode().splitlines() if not line.startswith("read ")]


def three_runs(tmp_path: Path) -> Path:
    """Three runs of 30 steps of a loss."""
    from health_logs import falling, write_scalars

    root = tmp_path / "logs"
    for i in range(3):
        write_scalars(root, f"run_{i}", {"loss": falling(30)}, 1_700_000_000.0)
    return root


@pytest.mark.parametrize("args", [
    pytest.param((str(MINDSPORE_LOGS), "--summary"), id="summary"),
    pytest.param((str(MINDSPORE_LOGS), "--summary", "--json"), id="summary-json"),
])
def test_a_closed_stdout_ends_quietly_with_status_0(args):
    done = run_into_closed_pipe(*args)
    assert (done.returncode, complaints(done)) == (0, [])


def test_export_to_a_closed_stdout_still_writes_every_file_and_ends_quietly(tmp_path):
    out = tmp_path / "snapshot"
    done = run_into_closed_pipe(str(three_runs(tmp_path)), "--export", "csv", "--out", str(out))
    assert done.returncode == 0
    assert not [line for line in complaints(done) if not line.startswith("exported ")]
    assert (out / "scalars.csv").read_text().count("\n") == 1 + 3 * 30

