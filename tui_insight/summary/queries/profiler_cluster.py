"""The profiler across ranks (MindInsight's cluster view): per rank its step time (or its total op
time when a profile has no steps), and per op type the time on each rank with the spread between
the fastest and the slowest rank. Pure functions over loaded `Profile`s; no files opened here.

A rank is named by the path: the nearest `rank_N` / `device_N` component of the profile's
directory (relative to nothing: the job's own path counts), else the profile's device suffix
(`cpu_op_type_info_<N>.csv`, which MindSpore sets to the rank id). Two profiles of one rank: the
newest is kept (`find_profiles` lists newest first).
"""
from __future__ import annotations

import math
import os
import re
from dataclasses import dataclass
from typing import Any, Sequence

import numpy as np

from ..formats.profiler import Profile, ProfileRef
from . import export_columns
from .profiler import step_times

RANK_DIR_RE = re.compile(r"^(?:rank|device)_?(\d+)$")


def rank_of(ref: ProfileRef) -> int | None:
    """The rank a profile belongs to: the nearest `rank_N`/`device_N` directory above its files,
    else its device suffix when that is a number."""
    parts = os.path.normpath(ref.path).replace("\\", "/").split("/")
    for part in reversed(parts):
        match = RANK_DIR_RE.match(part)
        if match:
            return int(match.group(1))
    return int(ref.device) if ref.device.isdigit() else None


def rank_refs(refs: Sequence[tuple[str, ProfileRef]]) -> list[tuple[int, str, ProfileRef]]:
    """(rank, train id, profile) of the profiles that name a rank, one per rank (the first listed,
    i.e. the newest), by rank. Fewer than two ranks: no cluster, an empty list."""
    chosen: dict[int, tuple[str, ProfileRef]] = {}
    for train_id, ref in refs:
        rank = rank_of(ref)
        if rank is not None and rank not in chosen:
            chosen[rank] = (train_id, ref)
    if len(chosen) < 2:
        return []
    return [(rank, *chosen[rank]) for rank in sorted(chosen)]


@dataclass(frozen=True)
class RankTime:
    """One rank's times in a cluster's profiles."""

    rank: int
    train_id: str
    profile: str  # the profile's name as the picker shows it
    steps: int  # 0: no steps could be told (the time is then the total op time)
    step_ms: float  # mean wall time per step after the first (compilation); nan: unknown
    first_step_ms: float  # nan: unknown
    total_ms: float  # summed op time
    slowest_op: str  # the op type of the largest total time on this rank ("" if none)
    problems: tuple[str, ...] = ()


@dataclass(frozen=True)
class TypeSpread:
    """One op type across ranks: its total time on each rank (nan where the rank ran none)."""

    op_type: str
    times_ms: tuple[float, ...]  # in `Cluster.ranks` order
    min_ms: float
    max_ms: float
    spread_ms: float  # max - min
    slowest_rank: int
    fastest_rank: int

    @property
    def spread_share(self) -> float:
        """The spread as a fraction of the fastest rank's time (nan when that is 0)."""
        return self.spread_ms / self.min_ms if self.min_ms > 0 else math.nan


@dataclass(frozen=True)
class Cluster:
    """The ranks of a cluster compared: their times and the op types' spread."""

    ranks: tuple[RankTime, ...]
    types: tuple[TypeSpread, ...]  # largest spread first
    by_steps: bool  # every rank has steps: step times are compared (else total op times)

    def time_ms(self, rank: RankTime) -> float:
        """What ranks are compared by: the step time when every rank has one, else the total op
        time (one measure for all ranks, so they stay comparable)."""
        return rank.step_ms if self.by_steps else rank.total_ms

    @property
    def slowest(self) -> tuple[int, ...]:
        """Ranks from slowest to fastest by `time_ms`."""
        return tuple(r.rank for r in sorted(self.ranks, key=lambda r: (-_or_zero(self.time_ms(r)), r.rank)))

    @property
    def spread_ms(self) -> float:
        """Slowest minus fastest rank's time."""
        times = [t for t in map(self.time_ms, self.ranks) if t == t]
        return max(times) - min(times) if times else math.nan


def _or_zero(value: float) -> float:
    return value if value == value else 0.0


def rank_time(rank: int, train_id: str, profile: Profile) -> RankTime:
    """One rank's times. Steps need the profile's calls (`load_profile(calls=True)`); without
    them, or when no step can be told, the step time is nan and the total op time stands."""
    steps = step_times(profile.calls) if profile.calls_read else None
    n = len(steps) if steps is not None else 0
    step_ms = first = math.nan
    if steps is not None and n:
        first = float(steps.span_ms[0])
        step_ms = float(np.mean(steps.span_ms[1:])) if n > 1 else first
    slowest = max(profile.op_types, key=lambda t: (t.total_ms, t.op_type), default=None)
    return RankTime(rank, train_id, profile.ref.name, n, step_ms, first, profile.total_ms,
                    slowest.op_type if slowest else "", profile.problems)


def cluster(profiles: Sequence[tuple[int, str, Profile]]) -> Cluster:
    """The cluster table of (rank, train id, profile), one per rank."""
    ordered = sorted(profiles, key=lambda item: item[0])
    ranks = tuple(rank_time(rank, tid, p) for rank, tid, p in ordered)
    names = sorted({t.op_type for _, _, p in ordered for t in p.op_types})
    per_rank = [{t.op_type: t.total_ms for t in p.op_types} for _, _, p in ordered]
    types = []
    for name in names:
        times = tuple(float(totals.get(name, math.nan)) for totals in per_rank)
        ran = [(t, r.rank) for t, r in zip(times, ranks) if t == t]
        low, high = min(ran), max(ran, key=lambda x: (x[0], -x[1]))
        types.append(TypeSpread(name, times, low[0], high[0], high[0] - low[0], high[1], low[1]))
    types.sort(key=lambda t: (-t.spread_ms, -t.max_ms, t.op_type))
    by_steps = bool(ranks) and all(r.steps for r in ranks)
    return Cluster(ranks, tuple(types), by_steps)


# -- export rows ------------------------------------------------------------------------------------

CLUSTER_COLUMNS = export_columns.CLUSTER_COLUMNS


def cluster_rows(group: str, result: Cluster) -> list[dict[str, Any]]:
    """Rows of `profile_cluster.csv` (columns `CLUSTER_COLUMNS`), one per (op type, rank): first
    each rank's time (`op_type` "(step)" when step times are compared, "(total)" for total op
    times), then the op types, largest spread first; min/max/spread and the slowest and fastest
    rank repeated on each of a type's rows. A rank that ran none of a type has no row for it.
    Long rather than one column per rank, so clusters of different sizes share one file."""
    times = tuple(map(result.time_ms, result.ranks))
    label = "(step)" if result.by_steps else "(total)"
    known = [(t, r.rank) for t, r in zip(times, result.ranks) if t == t]
    rows: list[dict[str, Any]] = []

    def add(op_type: str, values: Sequence[float], low: float, high: float, slow: int, fast: int) -> None:
        for value, r in zip(values, result.ranks):
            if value == value:
                rows.append(dict(zip(CLUSTER_COLUMNS, (group, op_type, r.rank, r.train_id, value, low, high,
                                                       high - low, slow, fast))))

    if known:
        (low, fast), (high, slow) = min(known), max(known, key=lambda x: (x[0], -x[1]))
        add(label, times, low, high, slow, fast)
    for t in result.types:
        add(t.op_type, t.times_ms, t.min_ms, t.max_ms, t.slowest_rank, t.fastest_rank)
    return rows


# -- which jobs are one training's ranks ------------------------------------------------------------

def _rank_root(path: str) -> str | None:
    """The directory above the nearest `rank_N`/`device_N` component of `path` (None: none)."""
    parts = os.path.normpath(path).replace("\\", "/").split("/")
    for i in range(len(parts) - 1, -1, -1):
        if RANK_DIR_RE.match(parts[i]):
            return "/".join(parts[:i]) or "/"
    return None


def rank_jobs(job_paths: dict[str, str], train_id: str) -> list[str]:
    """The train ids that are ranks of the same training as `train_id` (itself included), from
    their paths: the jobs under the parent of its `rank_N`/`device_N` directory, else its
    siblings (the parent of its own directory). `job_paths`: train id -> directory."""
    path = job_paths.get(train_id)
    if path is None:
        return []
    root = _rank_root(path)
    if root is None:
        parent = os.path.dirname(os.path.normpath(path))
        return sorted(tid for tid, p in job_paths.items() if os.path.dirname(os.path.normpath(p)) == parent)
    prefix = root.rstrip("/") + "/"
    return sorted(tid for tid, p in job_paths.items()
                  if os.path.normpath(p).replace("\\", "/").startswith(prefix) and _rank_root(p) == root)


def rank_groups(job_paths: dict[str, str]) -> list[list[str]]:
    """The jobs grouped into trainings whose ranks they may be (`rank_jobs` of each), groups of
    two or more only, each sorted, in the order of their first train id."""
    seen: set[str] = set()
    groups = []
    for tid in sorted(job_paths):
        if tid in seen:
            continue
        group = rank_jobs(job_paths, tid)
        seen.update(group)
        if len(group) > 1:
            groups.append(group)
    return groups
