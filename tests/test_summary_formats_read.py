"""`--summary` imports a format's decoder only when it finds a file of that format (issue 30): a
MindSpore LOGDIR is read without TensorBoard's decoder, and a LOGDIR holding both formats, in
jobs of their own and in one job, reads both in one run. Each run is a fresh process, so what
it imports is its own."""
from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import numpy as np
from tensorboardX import SummaryWriter as TensorBoardWriter

from tui_insight.summary.formats.writer import SummaryWriter

T0 = 1_700_000_000.0
# The summary as JSON, whether the TensorBoard decoder was imported on the way, whether OpenSSL
# was (`hashlib`), and which protos.
RUN = """
import contextlib, io, json, sys
from tui_insight import cli
out = io.StringIO()
with contextlib.redirect_stdout(out):
    status = cli.main([sys.argv[1], "--summary", "--json", "--no-cache"])
print(json.dumps({"status": status, "rows": json.loads(out.getvalue()),
                  "tensorboard": "tui_insight.summary.formats.tensorboard" in sys.modules,
                  "openssl": "_hashlib" in sys.modules,
                  "protos": sorted(m.rsplit(".", 1)[-1] for m in sys.modules if m.startswith("tui_insight.proto."))}))
"""


def summary(logdir: Path) -> dict:
    result = subprocess.run([sys.executable, "-c", RUN, str(logdir)], capture_output=True, text=True, timeout=120)
    assert result.returncode == 0 and "Traceback" not in result.stderr, result.stderr
    return json.loads(result.stdout)


def write_mindspore(directory: Path, steps: int = 40) -> None:
    """Scalars and a histogram every step: events the bulk paths read."""
    rng = np.random.default_rng(3)
    with SummaryWriter(directory, timestamp=int(T0), wall_time=T0) as writer:
        for step in range(1, steps + 1):
            writer.add_scalar("loss", 1.0 / step)
            writer.add_histogram("fc.weight", rng.normal(size=100))
            writer.record(step, wall_time=T0 + step)


def write_tensorboard(directory: Path, steps: int = 30) -> None:
    with TensorBoardWriter(str(directory)) as writer:
        for step in range(1, steps + 1):
            writer.add_scalar("loss", 2.0 / step, step, walltime=T0 + step)
            writer.add_histogram("fc.weight", np.arange(10.0) * step, step, walltime=T0 + step)


def rows_by_job(result: dict) -> dict[str, dict]:
    return {row["train_id"]: row for row in result["rows"]}


def test_a_mindspore_logdir_is_read_without_the_tensorboard_decoder(tmp_path):
    write_mindspore(tmp_path / "logs" / "ms")
    result = summary(tmp_path / "logs")
    row = rows_by_job(result)["./ms"]
    assert result["status"] == 0
    assert row["last_step"] == 40 and row["last"] == np.float32(1 / 40)
    assert result["tensorboard"] is False
    assert result["protos"] == ["anf_ir_pb2", "summary_pb2"]  # (no TensorBoard or lineage protos either)
    assert result["openssl"] is False  # (the workspace's name is hashed by CPython's own SHA-256)


def test_a_logdir_of_both_formats_reads_both_in_one_summary(tmp_path):
    logs = tmp_path / "logs"
    write_mindspore(logs / "ms")
    write_tensorboard(logs / "tb")
    write_mindspore(logs / "both", steps=20)  # a job holding both formats' files
    write_tensorboard(logs / "both", steps=25)
    result = summary(logs)
    rows = rows_by_job(result)
    assert result["status"] == 0 and sorted(rows) == ["./both", "./ms", "./tb"]
    assert rows["./ms"]["last_step"] == 40 and rows["./ms"]["last"] == np.float32(1 / 40)
    assert rows["./tb"]["last_step"] == 30 and rows["./tb"]["last"] == np.float32(2 / 30)
    assert rows["./both"]["last_step"] == 25
    assert result["tensorboard"] is True and "tb_event_pb2" in result["protos"]
