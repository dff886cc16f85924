"""What a profile's tables answer: step counts and times, the top operator types, and the rows
`--export` and the API write."""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Sequence

import numpy as np

from ..formats.profiler import OTHER, TOP_TYPES, OpType, Profile, find_profiles, load_profile
from ..formats.profiler_calls import Calls, step_count
from . import export_columns

# -- derived ----------------------------------------------------------------------------------------

@dataclass(frozen=True)
class StepTimes:
    """Per step k (1-based): its first call's start, last call's end, the wall span and the summed
    op time, from the k-th call of each op. `unplaced`: ops whose call count is not a multiple of
    the step count (left out)."""

    steps: np.ndarray  # 1..n
    starts: np.ndarray  # ns
    ends: np.ndarray  # ns
    span_ms: np.ndarray
    busy_ms: np.ndarray
    unplaced: tuple[str, ...] = ()

    def __len__(self) -> int:
        return int(self.steps.size)


def step_times(calls: Calls) -> StepTimes:
    n = step_count(calls)
    empty = np.zeros(0)
    if not n:
        return StepTimes(empty.astype(np.int64), empty.astype(np.int64), empty.astype(np.int64), empty, empty)
    counts = np.diff(calls.offsets)
    placed = (counts > 0) & (counts % n == 0)
    unplaced = tuple(name for name, c, ok in zip(calls.names, counts, placed) if not ok and c)
    step = np.empty(len(calls), dtype=np.int64)
    keep = np.zeros(len(calls), dtype=bool)
    for i in np.nonzero(placed)[0]:
        lo, hi = int(calls.offsets[i]), int(calls.offsets[i + 1])
        per = (hi - lo) // n
        step[lo:hi] = np.arange(hi - lo) // per
        keep[lo:hi] = True
    s, starts, durs = step[keep], calls.starts[keep], calls.durations[keep]
    ends = starts + np.round(durs * 1e6).astype(np.int64)
    first = np.full(n, np.iinfo(np.int64).max, dtype=np.int64)
    last = np.full(n, np.iinfo(np.int64).min, dtype=np.int64)
    np.minimum.at(first, s, starts)
    np.maximum.at(last, s, ends)
    busy = np.bincount(s, weights=durs, minlength=n)
    return StepTimes(np.arange(1, n + 1), first, last, (last - first) / 1e6, busy, unplaced)


def top_types(op_types: Sequence[OpType], limit: int = TOP_TYPES) -> list[OpType]:
    """The `limit` types of the largest share, then one "other" row summing the rest."""
    ranked = sorted(op_types, key=lambda t: (-t.total_ms, t.op_type))
    if len(ranked) <= limit:
        return ranked
    rest = ranked[limit:]
    count = sum(t.occurrences for t in rest)
    total = sum(t.total_ms for t in rest)
    return ranked[:limit] + [OpType(OTHER, count, float("nan"), total, total / count if count else 0.0,
                                    sum(t.share for t in rest))]


# -- export rows ------------------------------------------------------------------------------------

OP_COLUMNS = export_columns.OP_COLUMNS
OP_TYPE_COLUMNS = export_columns.OP_TYPE_COLUMNS


def profile_op_rows(train_id: str, profile: Profile) -> list[dict[str, Any]]:
    """Rows of `profile_ops.csv`: one per operator (columns `OP_COLUMNS`), largest total first."""
    name = profile.ref.name
    ops = sorted(profile.operators, key=lambda o: (-o.total_ms, o.full_name))
    return [{"train_id": train_id, "profile": name, "op_name": o.name, "full_op_name": o.full_name,
             "op_type": o.op_type, "scope": o.scope, "occurrences": o.occurrences, "total_ms": o.total_ms,
             "avg_ms": o.avg_ms, "share": o.share} for o in ops]


def profile_op_type_rows(train_id: str, profile: Profile) -> list[dict[str, Any]]:
    """Rows of `profile_op_types.csv`: one per op type (columns `OP_TYPE_COLUMNS`), as written
    (`share` a fraction, times ms; `per_step` empty when unknown)."""
    name = profile.ref.name
    types = sorted(profile.op_types, key=lambda t: (-t.total_ms, t.op_type))
    return [{"train_id": train_id, "profile": name, "op_type": t.op_type, "occurrences": t.occurrences,
             "per_step": "" if t.per_step != t.per_step else t.per_step, "total_ms": t.total_ms,
             "avg_ms": t.avg_ms, "share": t.share} for t in types]


def profile_rows(train_id: str, job_dir: str, source: Any = None) -> tuple[list[dict[str, Any]], list[dict[str, Any]], list[str]]:
    """For export: (op rows, op-type rows, problems) of every profile of a job (newest first);
    `source`: the cache's, read through when remote."""
    ops: list[dict[str, Any]] = []
    types: list[dict[str, Any]] = []
    problems: list[str] = []
    for ref in find_profiles(job_dir, source):
        profile = load_profile(ref, calls=False, shapes=False, timeline=False)
        ops += profile_op_rows(train_id, profile)
        types += profile_op_type_rows(train_id, profile)
        problems += [f"{train_id} {ref.name}: {p}" for p in profile.problems]
    return ops, types, problems
