"""`tui-insight LOGDIR --summary [--json]`: the job list's health table printed once, and its exit
status (1 on a NaN or diverging badge, 0 otherwise, 2 for errors)."""
from __future__ import annotations

import json
import math
import os
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pytest

from health_logs import cut_short, falling, write_scalars
from tui_insight import cli
from tui_insight.workspace import Workspace

OLD = time.time() - 7200  # every run ended two hours ago: none is live


@pytest.fixture
def healthy(tmp_path: Path) -> Path:
    root = tmp_path / "logs"
    write_scalars(root, "run_a", {"loss": falling(100), "acc": 1 - falling(100) / 2}, OLD, interval=0.5)
    write_scalars(root, "run_b", {"acc": np.linspace(0.1, 0.9, 30)}, OLD)  # no loss: no headline
    return root


def summary(capsys, *args) -> tuple[int, str, str]:
    status = cli.main([*map(str, args), "--summary"])
    out, err = capsys.readouterr()
    return status, out, err


def test_the_text_table_has_a_row_per_job_and_exit_0_when_healthy(healthy, capsys):
    status, out, err = summary(capsys, healthy)
    lines = out.splitlines()
    assert status == 0
    assert lines[0].split() == ["job", "state", "health", "live", "metric", "last", "best@step", "trend", "Δ10%",
                                "steps/s", "since", "last", "step", "updated"]
    a = lines[1].split()
    loss = falling(100).astype(np.float32)
    assert a[:6] == ["./run_a", "ok", "finished", "loss", f"{loss[-1]:.4g}", f"{loss.min():.4g}@100"]
    assert len(a[6]) == 10 and a[7].startswith("-")  # the trend, the change over the last 10% of steps
    assert a[8:] == ["2", "100", "2h", "ago"]  # steps/s, last step, updated
    assert lines[2].split() == ["./run_b", "ok", "finished", "-", "-", "-", "30", "2h", "ago"]
    assert "read 2/2 jobs" in err


def test_a_nan_exits_1_and_json_says_why(healthy, capsys):
    loss = falling(100)
    loss[40] = math.nan
    write_scalars(healthy, "run_nan", {"loss": loss}, OLD)
    status, out, _ = summary(capsys, healthy, "--json")
    rows = {row["train_id"]: row for row in json.loads(out)}
    assert status == 1
    assert rows["./run_nan"]["badges"] == ["NaN"] and rows["./run_a"]["badges"] == []
    a = rows["./run_a"]
    assert a["metric"] == "loss" and a["lower_is_better"] is True and a["best_step"] == 100
    assert a["steps_per_second"] == pytest.approx(2.0) and a["last_step"] == 100 and a["live"] is False
    assert a["seconds_since_last_step"] is None  # only while live
    assert rows["./run_b"]["metric"] is None and rows["./run_b"]["last"] is None


def test_a_diverging_loss_exits_1_a_stalled_or_truncated_job_does_not(tmp_path, capsys):
    root = tmp_path / "logs"
    up = falling(100)
    up[-10:] = 1.0
    write_scalars(root, "up", {"loss": up}, OLD)
    status, out, _ = summary(capsys, root)
    assert status == 1 and "diverging" in out.splitlines()[1]
    (root / "up" / next((root / "up").iterdir()).name).unlink()
    now = time.time()
    write_scalars(root, "stuck", {"loss": falling(50)}, now - 30, interval=1.0)  # live, 30 intervals late
    cut_short(write_scalars(root, "cut", {"loss": falling(50)}, OLD), OLD)
    status, out, _ = summary(capsys, root, "--json")
    assert status == 0 and [row["badges"] for row in json.loads(out)] == [["truncated"], ["stalled"]]


def test_the_metric_chosen_in_the_app_is_the_summarys_headline(healthy, capsys):
    workspace, _ = Workspace.open(str(healthy))  # the test session's private state directory
    workspace.remember("app", "jobs", {"headline": "acc"})
    assert workspace.save() == ""
    status, out, _ = summary(capsys, healthy)
    lines = out.splitlines()
    assert status == 0 and lines[0] == "headline metric: acc (chosen with m in the app)"
    assert lines[2].split()[:4] == ["./run_a", "ok", "finished", "acc"] and lines[3].split()[:4] == ["./run_b", "ok", "finished", "acc"]


def test_metric_overrides_the_headline_chosen_in_the_app(healthy, capsys):
    workspace, _ = Workspace.open(str(healthy))
    workspace.remember("app", "jobs", {"headline": "acc"})
    assert workspace.save() == ""
    status, out, _ = summary(capsys, healthy, "--metric", "loss")
    lines = out.splitlines()
    assert status == 0 and lines[0] == "headline metric: loss (--metric)"
    assert lines[2].split()[:4] == ["./run_a", "ok", "finished", "loss"]
    status, out, _ = summary(capsys, healthy, "--json", "--metric", "acc")
    assert {row["metric"] for row in json.loads(out)} == {"acc"}


@pytest.mark.parametrize("args, message", [
    (["/no/such/dir", "--summary"], "does not exist"),
    ([".", "--json"], "--json and --metric go with --summary"),
    ([".", "--metric", "loss"], "--json and --metric go with --summary"),
    ([".", "--summary", "--export", "csv", "--out", "x"], "--summary prints a table"),
])
def test_errors_exit_2_with_one_line(args, message, capsys):
    assert cli.main(args) == 2
    err = capsys.readouterr().err
    assert message in err and len(err.strip().splitlines()) == 1


def test_the_installed_command_exits_with_the_status(healthy):
    loss = falling(100)
    loss[3] = math.inf
    write_scalars(healthy, "run_inf", {"loss": loss}, OLD)
    result = subprocess.run([sys.executable, "-m", "tui_insight", str(healthy), "--summary"],
                            capture_output=True, text=True, timeout=60)
    assert result.returncode == 1, result.stderr
    assert result.stdout.splitlines()[3].split()[:3] == ["./run_inf", "ok", "NaN"]
    assert "read 3/3 jobs" in result.stderr and "Traceback" not in result.stderr


def test_a_job_is_not_stalled_by_the_time_the_others_took_to_read(tmp_path):
    """Steps every 0.5 s, the last just before the read; reading every job took 10 s (a big
    LOGDIR over ssh): the job's newest step seen may be that old without the job having stalled."""
    from io import StringIO

    from tui_insight import health_report

    root = tmp_path / "logs"
    start = time.time()
    write_scalars(root, "fast", {"loss": falling(50)}, start - 0.5, interval=0.5)
    ticks = iter([start, start + 10.0])  # before and after the read
    out = StringIO()
    status = health_report.run(str(root), as_json=True, out=out, err=StringIO(), clock=lambda: next(ticks, start + 10.0))
    row = json.loads(out.getvalue())[0]
    assert status == 0 and row["live"] is True and row["badges"] == []
    assert row["seconds_since_last_step"] == pytest.approx(10.5, abs=0.01)


def test_the_program_ends_once_its_whole_output_reached_a_pipe(healthy, capsys):
    """The program ends its process as soon as a headless run is done (no interpreter teardown):
    stdout block-buffered into a pipe still carries the whole JSON, and the status is the run's."""
    loss = falling(100)
    loss[3] = math.nan
    for n in range(40):  # an output of several buffers
        write_scalars(healthy, f"run_{n:02d}_with_a_long_name_to_fill_the_buffer", {"loss": loss}, OLD)
    env = {key: value for key, value in os.environ.items() if key != "PYTHONUNBUFFERED"}
    result = subprocess.run([sys.executable, "-m", "tui_insight", str(healthy), "--summary", "--json"],
                            capture_output=True, text=True, timeout=60, env=env)
    status, out, _ = summary(capsys, healthy, "--json")
    assert (result.returncode, status) == (1, 1), result.stderr
    assert len(result.stdout) > 2 * 8192
    assert json.loads(result.stdout) == json.loads(out)
