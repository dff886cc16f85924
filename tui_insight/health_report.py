"""`tui-insight LOGDIR --summary`: the job list's health table, printed once, for scripts and CI logs.

Every job is read through the same cache as the app, one at a time (only its digests are kept, so
memory stays small however many jobs there are), with a progress line on stderr. The headline
metric is `--metric TAG`, else the one chosen in the app for this LOGDIR (`m`, remembered in the
workspace), else each job's loss. Exit status: 1 when a job has a NaN or diverging badge, 0 otherwise (2 for errors,
from the CLI). With `--json`, a list of one object per job; numbers that are not finite are null
(the `NaN` badge says so). What a job holds that no view shows (`JobView.not_shown`) is listed
under the table, a line per job; in JSON, each job's `not_shown` entries and `problems` lines.

Ranks of one training (`queries/ranks.py`) are a group row (`./exp/rank_*`, its badges the worst
of its ranks') followed by its ranks' rows, indented, each with its `straggler` or `rank diverging`
badge; a line per group under the table says who lags and who diverges. A `rank diverging` badge
exits 1 as a `diverging` one does. In JSON, a group is one object (`"kind": "group"`) in place of
its ranks, with a `ranks` list of their objects; other jobs are `"kind": "job"`.
"""
from __future__ import annotations

import json
import math
import shutil
import sys
import textwrap
import time
from dataclasses import replace
from types import MappingProxyType
from typing import Any, Callable, TextIO

from .escape import shown
from .summary.queries import health, ranks
from .summary.queries.health import JobHealth
from .summary.store.cache import SummaryCache
from .summary.store.job_view import JobView
from .summary.queries.sparkline import sparkline

HEADERS = ("job", "state", "health", "live", "metric", "last", "best@step", "trend", "Δ10%", "steps/s", "since",
           "last step", "updated")
RIGHT = {"last", "best@step", "Δ10%", "steps/s", "since", "last step", "updated"}
# On a terminal narrower than the table, columns go in this order (the job list's priorities):
# the job, its health and the headline's value, best and trend stay. A column empty for every
# job (`since` of finished runs) goes first, except health's: no badge is worth seeing.
DROP_ORDER = ("updated", "last step", "since", "steps/s", "live", "metric", "Δ10%", "state")


def read_jobs(cache: SummaryCache, progress: Callable[[int, int], None] | None = None) -> list[JobView]:
    """Every job of the cache, read one at a time and kept without its series (digests only)."""
    train_ids = cache.discover_jobs()
    views = []
    for done, train_id in enumerate(train_ids, 1):
        view = cache.load_job(train_id)
        if view is not None:
            views.append(replace(view, tags=MappingProxyType({}), graphs=MappingProxyType({}), detailed=False))
            cache.forget(train_id)
        if progress is not None:
            progress(done, len(train_ids))
    return views


def row(view: JobView, job: JobHealth, now: float) -> dict[str, str]:
    """The text of one job's row, by header."""
    cells = job.cells(now)
    digest = job.digest
    return {
        "job": view.train_id, "state": view.state, "health": " ".join(job.badges(now)),
        "live": "live" if job.live(now) else "finished" if job.finished(now) else "", "metric": job.tag or "-",
        "last": cells["value"],
        "best@step": cells["best"], "trend": sparkline(digest.spark) if digest is not None else "",
        "Δ10%": cells["change"], "steps/s": cells["speed"], "since": cells["since"],
        "last step": str(view.last_step) if view.last_step is not None else "-",
        "updated": f"{health.age(max(0.0, now - view.update_time))} ago" if view.update_time else "-",
    }


def text_table(rows: list[dict[str, str]], width: int | None = None) -> str:
    """Aligned columns, two spaces apart; the control characters of job names escaped. With
    `width` (a terminal's), columns that do not fit are left out (`DROP_ORDER`) and a last
    line names them; without, every column (a file or a pipe)."""
    rows = [{key: shown(value) for key, value in r.items()} for r in rows]
    widths = {h: max([len(h), *(len(r[h]) for r in rows)]) for h in HEADERS}
    headers = list(HEADERS)
    left_out: list[str] = []
    if width is not None:
        headers = [h for h in headers if h not in DROP_ORDER or not rows or any(r[h] not in ("", "-") for r in rows)]
        for h in DROP_ORDER:
            if sum(widths[k] for k in headers) + 2 * (len(headers) - 1) <= width:
                break
            if h in headers:
                headers.remove(h)
                left_out.append(h)
    lines = []
    for cells in [dict(zip(HEADERS, HEADERS)), *rows]:
        parts = [cells[h].rjust(widths[h]) if h in RIGHT else cells[h].ljust(widths[h]) for h in headers]
        lines.append("  ".join(parts).rstrip())
    if left_out and width is not None:
        lines.append(textwrap.fill(f"(not shown at this width: {', '.join(left_out)}; --json has them)", width))
    return "\n".join(lines)


def not_shown_lines(views: list[JobView]) -> list[str]:
    """"not shown:" and a line per job holding what no view shows (none: no lines)."""
    from .escape import shown

    holding = [view for view in views if view.not_shown]
    if not holding:
        return []
    width = max(len(shown(view.train_id)) for view in holding)
    return ["not shown:", *(f"  {shown(view.train_id).ljust(width)}  {shown(view.not_shown.brief())}"
                            for view in holding)]


def json_row(view: JobView, job: JobHealth, now: float) -> dict[str, Any]:
    digest = job.digest
    best = job.best()
    since = job.since_step(now)
    live = job.live(now)
    return {
        "train_id": view.train_id,
        "state": view.state,
        "badges": list(job.badges(now)),
        "live": live,
        "finished": job.finished(now),
        "closed": job.closed,  # its writer closed it (MindSpore: read-only files); null: the format cannot tell
        "metric": job.tag,
        "last": _number(digest.last_value) if digest else None,
        "best": _number(best[0]) if best else None,
        "best_step": best[1] if best and math.isfinite(best[0]) else None,
        "lower_is_better": job.lower,
        "change_last_10pct": _number(digest.recent_change) if digest else None,
        "steps_per_second": _number(digest.steps_per_second) if digest else None,
        "seconds_since_last_step": round(since, 3) if since is not None and live else None,
        "last_step": view.last_step,
        "update_time": view.update_time or None,
        "not_shown": view.not_shown.as_records(),  # what no view shows: kinds, tags over the limits
        "problems": list(view.problems),  # what could not be read, and a line per not_shown entry
    }


def group_row(group: ranks.RankGroup, badges: tuple[str, ...], members: list[dict[str, str]]) -> dict[str, str]:
    """The text of a group's row: its name and size, the worst of its ranks' badges."""
    steps = [int(m["last step"]) for m in members if m["last step"].isdigit()]
    return {**dict.fromkeys(HEADERS, ""), "job": f"{group.name} ({len(group.members)} ranks)",
            "health": " ".join(badges), "live": "live" if any(m["live"] == "live" for m in members) else "",
            "metric": members[0]["metric"] if members else "", "last step": str(max(steps)) if steps else "-"}


def group_line(group: ranks.RankGroup, of_ranks: dict[str, ranks.RankHealth]) -> str:
    """One line on a group: its median latest step, its stragglers and its diverging ranks."""
    steps = [r.last_step for r in of_ranks.values() if r.last_step is not None]
    import statistics  # (here: rank groups only, and it takes ~2 ms to import)

    median = f"median step {statistics.median(steps):g}" if steps else "no step yet"
    parts = [f"  {shown(group.name)}: {len(group.members)} ranks, {median}"]
    for badge in ranks.RANK_BADGES:
        named = [f"{shown(r.train_id)} (step {r.last_step if r.last_step is not None else '-'})"
                 for r in of_ranks.values() if badge in r.badges]
        if named:
            parts.append(f"{badge}: {', '.join(named)}")
    return "; ".join(parts)


def _number(value: float | None) -> float | None:
    return value if value is not None and math.isfinite(value) else None


def run(logdir: str, as_json: bool = False, out: TextIO | None = None, err: TextIO | None = None,
        clock: Callable[[], float] = time.time, metric: str | None = None, source=None,
        straggler: float | None = None) -> int:
    """Print the table (or JSON) of `logdir` to `out` (stdout), progress and warnings to `err`
    (stderr); the exit status (see the module doc). `source`: where it is read from (remote);
    `straggler`: the fraction behind its group's median step that makes a rank a straggler."""
    from .escape import shown  # messages carry names, and remote hosts' text
    from .workspace import Workspace

    out, err = out or sys.stdout, err or sys.stderr
    workspace, problem = Workspace.open(logdir)
    if problem:
        print(f"tui-insight: warning: {shown(problem)}", file=err)
    chosen = workspace.get("app", "jobs").get("headline")
    chosen = metric if metric else chosen if isinstance(chosen, str) else None
    cache = SummaryCache(source if source is not None else logdir, clock=clock)
    cache.discover_jobs()
    if cache.error:
        print(f"tui-insight: error: {shown(cache.error)}", file=err)
        return 2
    for warning in cache.problems:
        print(f"tui-insight: warning: {shown(warning)}", file=err)
    started = clock()
    views = read_jobs(cache, _progress(err))
    now = clock()
    # A job read at the start of a long load shows steps that old: not "stalled" for that.
    jobs = [(view, JobHealth.of(view, chosen, seen_within=max(0.0, now - started))) for view in views]
    groups = ranks.group_ranks((view.train_id for view in views), ranks.profile_ranks(views))
    by_id = {view.train_id: (view, job) for view, job in jobs}
    fraction = ranks.STRAGGLER_FRACTION if straggler is None else straggler
    of_group = {group.name: ranks.rank_health([by_id[m][0] for m in group.members], chosen, fraction)
                for group in groups}
    rank_badges = {tid: r.badges for of_ranks in of_group.values() for tid, r in of_ranks.items()}

    def badges_of(tid: str) -> tuple[str, ...]:
        return by_id[tid][1].badges(now) + rank_badges.get(tid, ())

    member_of = ranks.group_of(groups)
    order = (*health.BADGES, *ranks.RANK_BADGES)
    # Each job once, a group's ranks after its row, at the place of its first rank.
    entries: list[tuple[ranks.RankGroup | None, str]] = []
    emitted: set[str] = set()
    for view, _ in jobs:
        group = member_of.get(view.train_id)
        if group is None:
            entries.append((None, view.train_id))
        elif group.name not in emitted:
            emitted.add(group.name)
            entries.append((group, group.members[0]))
    if as_json:
        listed: list[dict[str, Any]] = []
        for group, tid in entries:
            if group is None:
                listed.append({"kind": "job", **json_row(*by_id[tid], now), "badges": list(badges_of(tid))})
                continue
            members = []
            for member, number in zip(group.members, group.ranks):
                rank = of_group[group.name][member]
                members.append({"kind": "rank", "rank": number, **json_row(*by_id[member], now),
                                "badges": list(badges_of(member)),
                                "steps_per_second": _number(rank.steps_per_second)})
            listed.append({"kind": "group", "train_id": group.name, "group_key": list(group.key), "grouped_by": group.by,
                           "badges": list(ranks.group_badges((m["badges"] for m in members), order)),
                           "live": any(m["live"] for m in members),
                           "median_last_step": _median([m["last_step"] for m in members]),
                           "straggler_fraction": fraction, "ranks": members})
        json.dump(listed, out, indent=1, allow_nan=False)
        out.write("\n")
    else:
        if chosen is not None:
            how = "--metric" if metric else "chosen with m in the app"
            print(f"headline metric: {shown(chosen)} ({how})", file=out)
        width = shutil.get_terminal_size().columns if out.isatty() else None
        rows = []
        for group, tid in entries:
            if group is None:
                rows.append({**row(*by_id[tid], now), "health": " ".join(badges_of(tid))})
                continue
            members = [{**row(*by_id[m], now), "health": " ".join(badges_of(m))} for m in group.members]
            rows.append(group_row(group, ranks.group_badges((badges_of(m) for m in group.members), order), members))
            rows += [{**m, "job": "  " + m["job"]} for m in members]
        print(text_table(rows, width), file=out)
        if groups:
            print("rank groups:", file=out)
            for group in groups:
                print(group_line(group, of_group[group.name]), file=out)
        for line in not_shown_lines(views):
            print(line, file=out)
    failing = any(b in health.FAILING or b in ranks.FAILING for tid in by_id for b in badges_of(tid))
    return 1 if failing else 0


def _median(steps: list[int | None]) -> float | None:
    import statistics  # (here: rank groups only, and it takes ~2 ms to import)

    known = [s for s in steps if s is not None]
    return statistics.median(known) if known else None


def _progress(err: TextIO) -> Callable[[int, int], None]:
    """`read N/M jobs` on stderr: rewritten in place on a terminal (10 a second), a line a second
    in a log."""
    tty = err.isatty()
    shown_at = [0.0]

    def show(done: int, total: int) -> None:
        now = time.monotonic()
        if done < total and now - shown_at[0] < (0.1 if tty else 1.0):
            return
        shown_at[0] = now
        text = f"read {done}/{total} jobs"
        if tty:
            err.write(f"\r{text}" + ("\n" if done == total else ""))
        else:
            err.write(text + "\n")
        err.flush()

    return show
