"""Rank groups in the job list: one row per training whose ranks are jobs (`queries/ranks.py`),
its ranks below it, indented, when it is expanded (`+`/`-`).

A group row stands where its first rank sorts (by health, most badges first: its worst rank),
says the worst of its ranks (their badges, `straggler` and `rank diverging` with them; a state
other than ok if one has it; live if one is), the mean of their last values, the slowest rank's
steps/s and the furthest step. Its id in the table is `GROUP_MARK` + the group's name: no job
id holds a NUL. Pure: rows in, rows out; the table draws them.
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Iterable, Mapping, Sequence

from ...summary.queries import health, ranks
from ...summary.queries.health import compact
from ...summary.store.digest import TagDigest
from .job_rows import TEXT_KEYS, JobRow

GROUP_MARK = "\0"
ORDER = (*health.BADGES, *ranks.RANK_BADGES)


def group_id(group: ranks.RankGroup) -> str:
    return GROUP_MARK + group.name


def is_group(row_id: str) -> bool:
    return row_id.startswith(GROUP_MARK)


class GroupRow(JobRow):
    """A group's row: the mean of its ranks' trends as its sparkline."""

    __slots__ = ("group", "mean_spark")

    def __init__(self, group: ranks.RankGroup, texts: tuple[str, ...], worst: JobRow, spark: tuple[float, ...],
                 at: float):
        super().__init__(group_id(group), texts, worst.health, None, worst.step, 0, 0, at)
        self.group = group
        self.mean_spark = spark

    def spark(self) -> tuple[float, ...]:
        return self.mean_spark


@dataclass(frozen=True)
class _Rank:
    """What `ranks.rank_health` reads of a job, from its row (rows keep the headline's digest)."""

    train_id: str
    digests: Mapping[str, TagDigest]
    last_step: int | None
    loaded: bool


def mean_spark(sparks: Iterable[tuple[float, ...]]) -> tuple[float, ...]:
    """The point-by-point mean of the sparks as long as the shortest (the ranks' trends)."""
    sparks = [s for s in sparks if s]
    if not sparks:
        return ()
    n = min(len(s) for s in sparks)
    return tuple(math.fsum(s[i] for s in sparks) / len(sparks) for i in range(n))


def build_group(group: ranks.RankGroup, rows: Mapping[str, JobRow], expanded: bool, now: float,
                fraction: float = ranks.STRAGGLER_FRACTION) -> tuple[GroupRow, dict[str, tuple[str, ...]]] | None:
    """The group's row and each rank's badges of `ranks.RANK_BADGES` (None: none of its ranks
    has a row)."""
    members = [rows[tid] for tid in group.members if tid in rows]
    if not members:
        return None
    views = [_Rank(r.train_id, {r.health.tag: r.health.digest} if r.health.tag and r.health.digest else {},
                   r.step if r.step >= 0 else None, r.health.loaded and r.health.state != "loading")
             for r in members]
    tags = [r.health.tag for r in members if r.health.tag]
    found = ranks.rank_health(views, tags[0] if tags else None, fraction)
    extra = {tid: r.badges for tid, r in found.items() if r.badges}
    badges = ranks.group_badges([(*r.health.badges(now), *extra.get(r.train_id, ())) for r in members], ORDER)
    problem = [r for r in members if r.health.state not in ("ok", "growing", "loading")]
    worst = problem[0] if problem else max(members, key=lambda r: len(r.health.badges(now)))
    digests = [r.health.digest for r in members if r.health.digest is not None]
    values = [d.last_value for d in digests if math.isfinite(d.last_value)]
    speeds = [s for s in (d.steps_per_second for d in digests) if s is not None]
    steps = [r.step for r in members if r.step >= 0]
    newest = max(members, key=lambda r: r.health.update_time)
    cells = {
        "mark": " ", "id": f"{'-' if expanded else '+'} {group.name} ({len(members)} ranks)",
        "state": worst.text("state"),
        "health": " ".join(b for b in badges if b not in health.STATE_BADGES),
        "live": next((r.text("live") for r in members if r.text("live")), ""),
        "value": compact(math.fsum(values) / len(values)) if values else "-",
        "best": "", "change": "", "speed": compact(min(speeds)) if speeds else "", "since": "",
        "step": str(max(steps)) if steps else "-", "updated": newest.text("updated"), "files": "", "tags": "",
    }
    texts = tuple(cells[key] for key in TEXT_KEYS)
    return GroupRow(group, texts, worst, mean_spark(d.spark for d in digests), now), extra


def grouped_order(sorted_ids: Sequence[str], member_of: Mapping[str, ranks.RankGroup],
                  expanded: Iterable[str]) -> list[str]:
    """The rows shown, top to bottom: `sorted_ids` (the jobs the filter shows, sorted) with each
    group's ranks replaced by the group's row where its first one sorts, and its ranks that are
    shown below it, in rank order, when its name is in `expanded`."""
    if not member_of:
        return list(sorted_ids)
    open_ = set(expanded)
    shown = set(sorted_ids)
    out: list[str] = []
    done: set[str] = set()
    for tid in sorted_ids:
        group = member_of.get(tid)
        if group is None:
            out.append(tid)
        elif group.name not in done:
            done.add(group.name)
            out.append(group_id(group))
            if group.name in open_:
                out += [m for m in group.members if m in shown]
    return out
