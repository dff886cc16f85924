"""Ranks of one training grouped, and the ranks that lag behind or leave the others' band.

Pure functions of train ids and `JobView`s (digests only: they work on jobs whose series were
dropped, and in `--summary`, which keeps none). The job list, `--summary` and the group's
dashboard share them.

The rules (the job list's help says the same):
- A rank: a path component `rank_N`, `rank-N` or `device_N` (any case). Jobs whose ids are the
  same but for that component (the last such one) are ranks of one training: a group, keyed by
  the path before and after it, without the source a job id may start with (`host:./exp/rank_0`
  and `./exp/rank_1` are one group): a group may span hosts. One rank alone is no group.
- Or a profiler's rank id (`JobView.profile_rank`: the `<N>` of `profiler_info_<N>.json` and of
  its `cpu_op_*_<N>` files) for jobs without such a component: the jobs right under one parent
  (`./exp/a`, `./exp/b`; sources left out as above) whose profiles name ranks form a group
  named `./exp/*`, when they are two or more and no rank comes twice (two jobs of rank 0 are two
  trainings, or reruns: no group, each stays a job of its own).
- The path wins when both say a rank: a `rank_N` job is grouped and numbered by its path, as
  the profiler's cross-rank view names it; a profile naming another rank is told on its
  group's line (`disagreements`), not used.
- A rank's latest step: its newest step of any tag (`JobView.last_step`); its speed: the
  headline's steps per second.
- `straggler`: a rank whose latest step is more than STRAGGLER_FRACTION (10%, `--straggler`,
  `straggler = 0.1` in config.toml) of the group's median latest step behind that median.
- `rank diverging`: a rank whose headline's trend ends (the mean of its last tenth of kept
  steps, `TagDigest.spark[-1]`) on the worse side of the other ranks' band (their min–max of the
  same) by more than DIVERGE_BAND times the band's width (at least DIVERGE_FLOOR of its size:
  ranks that log one all-reduced loss have a band of width 0). It needs at least three ranks
  with the headline (two others make a band) and DIVERGE_MIN_STEPS kept steps in each; a
  straggler is judged as a straggler only (its trend ends at earlier steps than the others').
- A group's badges: every badge of any of its ranks (its health is the worst of its ranks'),
  and `straggler` and `rank diverging` when a rank has them.
"""
from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Iterable, Mapping, Sequence

import numpy as np

from .health import DIVERGE_MIN_STEPS, default_headline, lower_is_better

STRAGGLER_FRACTION = 0.1
DIVERGE_BAND = 2.0
DIVERGE_FLOOR = 0.01
RANK_BADGES = ("rank diverging", "straggler")
FAILING = ("rank diverging",)  # `--summary` exits with status 1 for these, as for a diverging run

_RANK = re.compile(r"^(rank|device)([_-])(\d+)$", re.IGNORECASE)
_SOURCE = re.compile(r"^[^/]*:(?=\.?/)")  # `host:` or `node1:` before `./` or `/`


@dataclass(frozen=True, slots=True)
class RankGroup:
    """The ranks of one training: `name` is the members' path with the rank's number as `*`
    (`./exp/rank_*`), or the parent's path and `/*` when profiler rank ids group them."""

    key: tuple[str, str]  # (the path before the rank component, the path after it), no source
    name: str
    members: tuple[str, ...]  # train ids, by rank number
    ranks: tuple[int, ...]  # each member's rank number
    by: str = "path"  # what names the ranks: "path" (a rank component) or "profiler" (rank ids)


def split_source(train_id: str) -> tuple[str, str]:
    """(source, path) of a job id: `node1:./exp/rank_0` -> (`node1`, `./exp/rank_0`); no source: ``."""
    match = _SOURCE.match(train_id)
    if match is None:
        return "", train_id
    return train_id[:match.end() - 1], train_id[match.end():]


def rank_of(train_id: str) -> tuple[tuple[str, str], str, int] | None:
    """(group key, group name, rank number) of a job id with a rank component, else None."""
    source, path = split_source(train_id)
    parts = path.split("/")
    for at in range(len(parts) - 1, -1, -1):
        match = _RANK.match(parts[at])
        if match is not None:
            before, after = "/".join(parts[:at]), "/".join(parts[at + 1:])
            word, sep = match.group(1), match.group(2)
            name = "/".join(p for p in (before, f"{word}{sep}*", after) if p)
            return (before, after), name, int(match.group(3))
    return None


def profile_ranks(views: Iterable) -> dict[str, int]:
    """Train id -> the rank its profiles name, of the `views` (`JobView`s) that have one."""
    return {view.train_id: view.profile_rank for view in views if getattr(view, "profile_rank", None) is not None}


def _parent(train_id: str) -> str | None:
    """The parent path of a job id, without its source (None: the job is LOGDIR itself)."""
    path = split_source(train_id)[1].rstrip("/")
    parent, sep, _ = path.rpartition("/")
    return parent if sep and path not in (".", "") else None


def group_ranks(train_ids: Iterable[str], by_profiler: Mapping[str, int] | None = None) -> list[RankGroup]:
    """The groups of two ranks or more among `train_ids`, in the order their first member comes;
    `by_profiler`: train id -> the rank its profiles name (`profile_ranks`)."""
    found: dict[tuple[str, tuple[str, str]], list[tuple[int, str, str]]] = {}
    profiled = by_profiler or {}
    for train_id in train_ids:
        rank = rank_of(train_id)
        if rank is not None:
            found.setdefault(("path", rank[0]), []).append((rank[2], train_id, rank[1]))
        elif train_id in profiled and (parent := _parent(train_id)) is not None:
            found.setdefault(("profiler", (parent, "")), []).append((profiled[train_id], train_id, f"{parent}/*"))
    groups = []
    for (by, key), members in found.items():
        numbers = [m[0] for m in members]
        if len(members) < 2 or (by == "profiler" and len(set(numbers)) < len(numbers)):
            continue
        members.sort(key=lambda m: (m[0], m[1]))
        groups.append(RankGroup(key, members[0][2], tuple(m[1] for m in members), tuple(m[0] for m in members), by))
    return groups


def disagreements(group: RankGroup, by_profiler: Mapping[str, int]) -> list[tuple[str, int, int]]:
    """(train id, the path's rank, the profiler's) of the ranks of a path group whose profiles
    name another rank (the path wins: see the module doc)."""
    if group.by != "path":
        return []
    return [(tid, number, by_profiler[tid]) for tid, number in zip(group.members, group.ranks)
            if by_profiler.get(tid, number) != number]


def group_of(groups: Sequence[RankGroup]) -> dict[str, RankGroup]:
    """Train id -> its group, for the members of `groups`."""
    return {member: group for group in groups for member in group.members}


@dataclass(frozen=True, slots=True)
class RankHealth:
    """One rank's place in its group."""

    train_id: str
    last_step: int | None
    steps_per_second: float | None
    badges: tuple[str, ...]  # of RANK_BADGES, in that order


def stragglers(last_steps: Mapping[str, int | None], fraction: float = STRAGGLER_FRACTION) -> set[str]:
    """The ranks more than `fraction` of the median latest step behind it (ranks without a step
    are not counted in the median, and are stragglers when the others have steps)."""
    known = [step for step in last_steps.values() if step is not None]
    if len(known) < 2:
        return set()
    import statistics  # (here: rank groups only, and it takes ~2 ms to import)

    median = statistics.median(known)
    return {tid for tid, step in last_steps.items()
            if step is None or median - step > fraction * abs(median)}


def diverging(ends: Mapping[str, float], lower: bool = True) -> set[str]:
    """The ranks whose trend's end (`ends`: train id -> `spark[-1]`) is worse than the others'
    band by more than DIVERGE_BAND times its width (see the module doc)."""
    if len(ends) < 3:
        return set()
    found = set()
    for tid, end in ends.items():
        others = [v for other, v in ends.items() if other != tid]
        lo, hi = min(others), max(others)
        margin = DIVERGE_BAND * max(hi - lo, DIVERGE_FLOOR * max(abs(lo), abs(hi)))
        if (end - hi if lower else lo - end) > margin:
            found.add(tid)
    return found


def rank_health(views: Sequence, chosen: str | None = None,
                fraction: float = STRAGGLER_FRACTION) -> dict[str, RankHealth]:
    """Train id -> `RankHealth` of each of a group's loaded `views` (`JobView`s, or anything with
    `train_id`, `digests`, `last_step`, `loaded`); `chosen`: the headline (None: each one's loss)."""
    loaded = [view for view in views if view.loaded]
    late = stragglers({view.train_id: view.last_step for view in loaded}, fraction)
    ends: dict[str, float] = {}
    lower = True
    speeds: dict[str, float | None] = {}
    for view in loaded:
        tag = chosen if chosen is not None else default_headline(view.digests)
        digest = view.digests.get(tag) if tag is not None else None
        speeds[view.train_id] = digest.steps_per_second if digest is not None else None
        if digest is not None and tag is not None and digest.spark and digest.count >= DIVERGE_MIN_STEPS \
                and view.train_id not in late:
            ends[view.train_id] = digest.spark[-1]
            lower = lower_is_better(tag)
    apart = diverging(ends, lower)
    return {view.train_id: RankHealth(
        view.train_id, view.last_step, speeds[view.train_id],
        tuple(b for b, has in zip(RANK_BADGES, (view.train_id in apart, view.train_id in late)) if has))
        for view in loaded}


def group_badges(member_badges: Iterable[Sequence[str]], order: Sequence[str]) -> tuple[str, ...]:
    """The worst of the ranks': every badge any has, in `order` (health's BADGES, then RANK_BADGES)."""
    seen = {badge for badges in member_badges for badge in badges}
    return tuple(b for b in order if b in seen)


def band(series: Sequence[tuple[np.ndarray, np.ndarray]]) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """(steps, mean, min, max) across ranks at each step any rank logged, from each rank's
    (steps, values); values that are not finite are left out (a step where no rank has a finite
    value is left out too). What a group's dashboard draws: the mean line over the min–max band."""
    steps = [np.asarray(s, dtype=np.int64) for s, _ in series]
    values = [np.asarray(v, dtype=np.float64) for _, v in series]
    if not steps:
        empty = np.zeros(0)
        return np.zeros(0, dtype=np.int64), empty, empty, empty
    all_steps, all_values = np.concatenate(steps), np.concatenate(values)
    finite = np.isfinite(all_values)
    all_steps, all_values = all_steps[finite], all_values[finite]
    order = np.argsort(all_steps, kind="stable")
    all_steps, all_values = all_steps[order], all_values[order]
    if not len(all_steps):
        empty = np.zeros(0)
        return np.zeros(0, dtype=np.int64), empty, empty, empty
    unique, start = np.unique(all_steps, return_index=True)
    counts = np.diff(np.append(start, len(all_steps)))
    return (unique, np.add.reduceat(all_values, start) / counts, np.minimum.reduceat(all_values, start),
            np.maximum.reduceat(all_values, start))


def one_group(train_ids: Sequence[str], by_profiler: Mapping[str, int] | None = None) -> RankGroup | None:
    """The group that `train_ids` are exactly the ranks of (two or more), else None."""
    groups = group_ranks(train_ids, by_profiler)
    if len(groups) == 1 and len(groups[0].members) == len(train_ids) >= 2:
        return groups[0]
    return None
