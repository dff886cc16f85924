"""Ranks of one training for the rank-group tests, written with our writer: `rank_N` summary dirs
under one parent, as MindSpore's data-parallel recipes lay them out; or jobs of any name whose
ranks only their profiles say (MindSpore's own, copied from `mindspore_ranks/`)."""
from __future__ import annotations

import shutil
import time
from pathlib import Path

import numpy as np
from fixture_paths import RANKS_LOGS
from health_logs import falling, write_scalars

from tui_insight.summary.formats.writer import SummaryWriter

RANKS = 4
STEPS = 100


def rank_loss(rank: int, n: int = STEPS) -> np.ndarray:
    """Each rank's loss: the same fall, a hundredth apart (each rank sees its own batches)."""
    return falling(n) + 0.01 * rank


def write_finished_group(root: Path, last_wall: float, jump: int | None = None, short: int | None = None,
                         parent: str = "exp") -> list[Path]:
    """`root/parent/rank_0..3`, every rank done at `last_wall`; rank `jump`'s loss rises by 0.2
    over its last 30 steps (not enough for its own `diverging`); rank `short` stopped at step 60."""
    paths = []
    for rank in range(RANKS):
        loss = rank_loss(rank)
        if rank == jump:
            loss[-30:] += 0.2
        if rank == short:
            loss = loss[:60]
        paths.append(write_scalars(root, f"{parent}/rank_{rank}", {"loss": loss}, last_wall, interval=0.5))
    return paths


def copy_profile(rank: int, job: Path) -> Path:
    """MindSpore's profile of rank `rank` (`mindspore_ranks/rank_<rank>/*_ascend_ms`, whose
    `FRAMEWORK/cpu_op_*_<rank>` files name the rank) copied into the job directory `job`."""
    (source,) = (RANKS_LOGS / f"rank_{rank}").glob("*_ascend_ms")
    return Path(shutil.copytree(source, job / source.name))


def write_profiled_group(root: Path, last_wall: float, names: dict[str, int], parent: str = "exp") -> list[Path]:
    """`root/parent/<name>` for each name -> rank of `names`: that rank's loss (`rank_loss`) and
    MindSpore's profile of that rank; no `rank_N` in the paths."""
    paths = []
    for name, rank in names.items():
        job = write_scalars(root, f"{parent}/{name}", {"loss": rank_loss(rank)}, last_wall, interval=0.5)
        copy_profile(rank, job)
        paths.append(job)
    return paths


class LiveRanks:
    """Four ranks being written now: each `steps(n)` call logs n more steps of every rank not
    stopped (`stop(rank)`), one a second back from now, and flushes; the writers stay open
    (a MindSpore writer still running leaves its files writable)."""

    def __init__(self, root: Path, parent: str = "live") -> None:
        self.writers = [SummaryWriter(root / parent / f"rank_{rank}", timestamp=int(time.time()))
                        for rank in range(RANKS)]
        self.done = [0] * RANKS
        self.stopped: set[int] = set()

    def steps(self, n: int) -> None:
        now = time.time()
        for rank, writer in enumerate(self.writers):
            if rank in self.stopped:
                continue
            for i in range(n):
                step = self.done[rank] + i + 1
                writer.add_scalar("loss", float(1.0 / step + 0.01 * rank))
                writer.record(step, wall_time=now - (n - 1 - i) * 0.1)
            self.done[rank] += n
            writer.flush()

    def stop(self, rank: int) -> None:
        self.stopped.add(rank)

    def close(self) -> None:
        for writer in self.writers:
            writer.close()
