"""Runs for the run-health tests (job list badges, `--summary`), written with our writer: chosen
values at chosen wall times, the file's mtime set, so a fake clock decides what is live."""
from __future__ import annotations

import os
from pathlib import Path

import numpy as np

from tui_insight.summary.formats.writer import SummaryWriter

T0 = 1_700_000_000.0


def falling(n: int) -> np.ndarray:
    """A loss that falls fast, then flattens out above 0.2."""
    return 0.2 + np.exp(-np.arange(n) / (n / 5))


def write_scalars(root: Path, name: str, values: dict[str, np.ndarray], last_wall: float, interval: float = 1.0,
                  mtime: float | None = None, stride: int = 1) -> Path:
    """`root/name`: every tag of `values` at steps stride, 2*stride, ..., one logged step every
    `interval` seconds, the last at `last_wall`; the file's mtime is `mtime` (default `last_wall`)."""
    directory = root / name
    n = len(next(iter(values.values())))
    with SummaryWriter(directory, timestamp=int(T0), wall_time=T0) as writer:
        for i in range(n):
            for tag, column in values.items():
                writer.add_scalar(tag, float(column[i]))
            writer.record(stride * (i + 1), wall_time=last_wall - interval * (n - 1 - i))
    stamp = last_wall if mtime is None else mtime
    for path in directory.iterdir():
        os.utime(path, (stamp, stamp))
    return directory


def cut_short(directory: Path, mtime: float) -> None:
    """Cut the last record of the run's file in the middle, and date the file `mtime`."""
    path = next(directory.iterdir())
    path.write_bytes(path.read_bytes()[:-7])
    os.utime(path, (mtime, mtime))
