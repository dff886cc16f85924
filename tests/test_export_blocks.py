"""A CSV export's big blocks of rows (a histogram tag of 4,096 buckets or more, 16,384 scalar
rows) are laid out and written by a thread while the next are read: the files hold every row,
in order, as the Python API reads the same job."""
from __future__ import annotations

import csv
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

import tui_insight
from tui_insight.summary.formats.writer import SummaryWriter


@pytest.fixture(scope="module")
def exported(tmp_path_factory) -> tuple[Path, Path]:
    logdir = tmp_path_factory.mktemp("blocks") / "logs"
    writer = SummaryWriter(logdir / "j", timestamp=1, wall_time=1.0)
    rng = np.random.default_rng(0)
    for step in range(1, 301):  # 3 histogram tags of 4,500 buckets, 18,000 scalar rows
        for tag in range(3):
            writer.add_histogram(f"h{tag}", rng.normal(size=1000) * (tag + 1))
        for tag in range(60):
            writer.add_scalar(f"s{tag:02d}", rng.normal())
        writer.record(step, wall_time=1000.0 + step / 7)
    writer.close()
    out = logdir.parent / "out"
    done = subprocess.run([sys.executable, "-m", "tui_insight", str(logdir), "--export", "csv", "--out", str(out)],
                          capture_output=True, timeout=300)
    assert done.returncode == 0, done.stderr.decode()
    return logdir, out


def rows(path: Path) -> list[list[str]]:
    with open(path, encoding="utf-8", newline="") as handle:
        return list(csv.reader(handle))[1:]


def test_every_histogram_bucket_is_written_in_order_as_the_api_reads_it(exported):
    logdir, out = exported
    with tui_insight.open(logdir) as logs:
        table = logs.histograms()
    assert len(table) == 13_500
    expected = [[job, tag, str(step), repr(wall), repr(left), repr(width), str(count)] for job, tag, step, wall, left,
                width, count in table[["job", "tag", "step", "wall_time", "left", "width", "count"]].itertuples(index=False)]
    assert rows(out / "histograms.csv") == expected


def test_every_scalar_row_is_written_in_order_as_the_api_reads_it(exported):
    logdir, out = exported
    with tui_insight.open(logdir) as logs:
        table = logs.scalars()
    written = rows(out / "scalars.csv")
    assert [row[:3] for row in written] == [[job, tag, str(step)] for job, tag, step in
                                            table[["job", "tag", "step"]].itertuples(index=False)]
    assert [float(row[3]) for row in written] == table["wall_time"].tolist()
    assert np.array([float(row[4]) for row in written], dtype=np.float32).tolist() == \
        table["value"].astype(np.float32).tolist()
