"""Small sweeps of runs for the memory budget, disk cache and process pool tests."""
from __future__ import annotations

import time
from pathlib import Path

import numpy as np

from tui_insight.summary.formats.writer import SummaryWriter
from tui_insight.summary.store.cache import SummaryCache

STEPS = 2500  # more than twice the scalar limit: the series are sampled, candidates and kept steps differ


def write_run(directory: Path, seed: int, steps: int = STEPS, first: int = 1) -> SummaryWriter:
    """A run of two scalar tags and a histogram every 100 steps; the writer stays open (append more)."""
    writer = SummaryWriter(directory, timestamp=1_700_000_000, wall_time=1_700_000_000.0)
    append(writer, seed, range(first, first + steps))
    return writer


def append(writer: SummaryWriter, seed: int, steps) -> None:
    rng = np.random.default_rng(seed)
    for step in steps:
        writer.add_scalar("loss", float(1.0 / step + 0.01 * rng.standard_normal()))
        writer.add_scalar("acc", float(seed + step / 10_000))
        if step % 100 == 0:
            writer.add_histogram("weights", rng.normal(size=50) * step)
        writer.record(step, wall_time=1_700_000_000.0 + step)
    writer.flush()


def write_sweep(root: Path, runs: int, steps: int = STEPS) -> list[str]:
    """`runs` finished runs under root/run_00 ...; their train ids."""
    for i in range(runs):
        write_run(root / f"run_{i:02d}", i, steps).close()
    return [f"./run_{i:02d}" for i in range(runs)]


def contents(view) -> dict:
    """Everything a job's details hold, as plain values: every series' kept steps and candidates."""
    return {key: ({name: col.tolist() for name, col in series.columns.items()},
                  {name: col.tolist() for name, col in series.candidates.items()},
                  series.width, series.seen)
            for key, series in view.tags.items()}


def row(view) -> tuple:
    """What the job list shows of a job."""
    return (view.state, view.records, dict(view.digests), dict(view.tag_counts), view.last_step,
            view.first_wall_time, tuple(view.graphs))


def wait_until(predicate, timeout: float = 30.0) -> bool:
    """Poll `predicate` until it holds (work done on the cache's own thread)."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if predicate():
            return True
        time.sleep(0.01)
    return predicate()


def loaded_reference(root: Path) -> SummaryCache:
    """The same logs read plainly: no budget to speak of, no disk cache, no pool."""
    cache = SummaryCache(str(root))
    cache.reload()
    return cache
