"""Run health: a job's headline metric and the badges a user would otherwise miss.

Pure functions of a `TagDigest`, a clock value and the job's state (no file, no UI), shared by
the job list and `tui-insight LOGDIR --summary`. They read digests only, never series, so they
work the same on jobs whose details were dropped from memory.

The rules (the job list's help says the same):
- headline: the scalar tag named `loss` or ending in `/loss`, else the first tag whose name
  contains "loss", else none; the user may choose any tag instead (`m`).
- better: as `best.direction` says (higher for names with a word acc, accuracy, f1, auc,
  precision or recall in them, lower for losses); lower for names that say neither.
- `NaN`: a NaN or infinite value anywhere in the headline's values read (sampling keeps no
  count of what it drops, so this is counted as values are merged, `Series.nonfinite`).
- `diverging`: a real rise, never a value of 0 or noise: the trend's last point (the mean of the
  last tenth of the kept steps) is worse than its best point by over DIVERGE_SHARE of the trend's
  whole range (a loss that gave back over half of what it gained, or that only ever rose), and
  by over DIVERGE_NOISE times the run's noise (how far its raw values reach beyond the trend);
  not before DIVERGE_MIN_STEPS kept steps. Differences only: a loss that converges to exactly
  0, or below it, is judged the same way.
- `finished`: the run ended. Either its writer closed it where the format shows it: MindSpore
  leaves every summary file read-only on close (§1.1; seen where files' modes are, on this
  machine); TensorBoard writers (torch, tensorboardX, tf.summary) leave nothing on close. Or its
  files have not grown for the finish window, after which it is presumed done:
  FINISH_INTERVALS of its usual step interval, at least FINISH_FLOOR_SECONDS, plus
  TENSORBOARD_FLUSH_SECONDS for TensorBoard files (their writers hold steps in memory and write
  them every 120 s by default). A finished run is not live and never `stalled`; finishing is
  never announced.
  Files that last changed a finish window or more after the headline's last step, by their
  own clock, were copied or synced after the run ended (`cp` and `scp` without `-p` give them
  the time of the copy): a writer changes its files as it logs. Such a run is finished too.
- live: not finished (a file changed within the finish window, and no close seen).
- `stalled`: stopped while it looked alive: live, and the headline's next step is overdue by
  STALL_INTERVALS times its usual step interval (`TagDigest.step_interval`, by the step's own
  wall time; plus TENSORBOARD_FLUSH_SECONDS for TensorBoard files), before the window presumes
  it done. Announced (a notification; the bell only when asked, `--bell-stalled`) only where a
  clean close would have shown: a job whose summary files are still writable. Elsewhere
  (TensorBoard files, remote logs) a run that stopped looks like one that ended until the
  window passes: the badge is shown, not announced.
- Both windows wait one `seen_within` more: how long a new step may take to reach this program (the
  reload interval: logs over ssh or in object storage are polled). Without it a job logging a
  step every 0.5 s, polled every 3 s, was "stalled" between every two polls.
- Clocks: steps' wall times and files' mtimes are the writing host's clock, which may be ahead
  of or behind this one (logs over ssh). "Since the last step" is read on the files' own
  timeline: from the step to the files' last change by their clock, then from that change to
  now by this clock (`changed_at`: when the cache saw the change; on a first load, the mtime,
  but never later than then). The finish window is timed from `changed_at` too.
- `corrupt`, `truncated`: from the job's state.
"""
from __future__ import annotations

import heapq
import math
import weakref
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Iterable, Mapping

from ..store.digest import TagDigest
from .best import HIGHER, direction

FINISH_FLOOR_SECONDS = 120.0
FINISH_INTERVALS = 20.0
TENSORBOARD_FLUSH_SECONDS = 120.0  # torch's and tensorboardX's default `flush_secs`
STALL_INTERVALS = 5.0
DIVERGE_SHARE = 0.5
DIVERGE_NOISE = 2.0
DIVERGE_MIN_STEPS = 20
BADGES = ("NaN", "diverging", "stalled", "corrupt", "truncated")
FAILING = ("NaN", "diverging")  # `--summary` exits with status 1 when a job has one of these
RINGING = ("NaN", "diverging")  # the badges that ring the bell by default (`--bell`)
STATE_BADGES = ("corrupt", "truncated")  # the job list's state column already says these


def default_headline(tags: Iterable[str]) -> str | None:
    """`loss` or a tag ending in `/loss`, else the first tag with "loss" in its name (any case);
    None when there is none. `tags` in first-seen order."""
    fallback = None
    for tag in tags:
        if tag == "loss" or tag.endswith("/loss"):
            return tag
        if fallback is None and "loss" in tag.lower():
            fallback = tag
    return fallback


@lru_cache(maxsize=1024)
def lower_is_better(tag: str) -> bool:
    """False for accuracy-like names (`best.direction`), else True (also for names that say neither)."""
    return direction(tag) != HIGHER


def finish_window(digest: TagDigest | None, buffered: bool = False) -> float:
    """How long a job's files may go without growing before it is presumed done (see above);
    `buffered`: it has TensorBoard files, whose writers write every TENSORBOARD_FLUSH_SECONDS."""
    interval = digest.step_interval if digest is not None and digest.step_interval else 0.0
    return max(FINISH_FLOOR_SECONDS, FINISH_INTERVALS * interval) + (TENSORBOARD_FLUSH_SECONDS if buffered else 0.0)


def live_until(changed_at: float, digest: TagDigest | None, seen_within: float = 0.0,
               closed: bool | None = None, buffered: bool = False) -> float:
    """When the job is finished if nothing changes (0 for a job never updated, or closed by its
    writer); `changed_at`: when its files last changed, by this clock; `seen_within`: how long a
    change may take to be seen (the reload interval)."""
    if not changed_at or closed:
        return 0.0
    return changed_at + finish_window(digest, buffered) + seen_within


def copied_after_end(digest: TagDigest | None, update_time: float, buffered: bool = False) -> bool:
    """Whether the files last changed a finish window or more after the headline's last step,
    both by the files' own clock: a copy made after the run ended, not a writer at work."""
    if digest is None or not math.isfinite(digest.last_wall) or not update_time:
        return False
    return update_time - digest.last_wall >= finish_window(digest, buffered)


def stalls_at(digest: TagDigest | None, skew: float = 0.0, seen_within: float = 0.0,
              buffered: bool = False) -> float | None:
    """When, by this clock, the headline counts as stalled if no new step comes (None: it
    cannot stall). `skew`: how far the files' clock is ahead of this one; `seen_within`: how
    long a new step may take to be seen (the reload interval); `buffered`: TensorBoard files."""
    if digest is None or not digest.step_interval or not math.isfinite(digest.last_wall):
        return None
    flush = TENSORBOARD_FLUSH_SECONDS if buffered else 0.0
    return digest.last_wall - skew + STALL_INTERVALS * digest.step_interval + flush + seen_within


def has_nan(digest: TagDigest) -> bool:
    return digest.nonfinite > 0


def is_diverging(digest: TagDigest, lower: bool) -> bool:
    """A real rise of the trend from its best point (see above): against the trend's range and
    the run's noise, never against the best value's own size (a best of 0 made any value "worse")."""
    spark = digest.spark
    if digest.count < DIVERGE_MIN_STEPS or len(spark) < 2:
        return False
    top, bottom = max(spark), min(spark)
    span = top - bottom
    rise = spark[-1] - bottom if lower else top - spark[-1]
    # How far the raw values reach beyond the trend's bucket means, on average on each side.
    noise = max(0.0, (digest.max_value - digest.min_value) - span) / 2 if math.isfinite(digest.max_value) else 0.0
    return span > 0 and rise > DIVERGE_SHARE * span and rise > DIVERGE_NOISE * noise


def badges(digest: TagDigest | None, now: float, state: str, update_time: float,
           lower: bool = True, changed_at: float | None = None, seen_within: float = 0.0,
           closed: bool | None = None, buffered: bool = False) -> tuple[str, ...]:
    """The job's badges at `now`, in BADGES order: from its headline's digest (None: the job
    has no headline), its state and when its files last changed (`update_time` by their clock,
    `changed_at` by this one; None: the clocks agree); `seen_within`: the reload interval;
    `closed`: its writer closed it (None: the format cannot tell); `buffered`: TensorBoard files."""
    return with_stall(lasting_badges(digest, state, lower),
                      stalled(digest, now, update_time, changed_at, seen_within, closed, buffered))


def lasting_badges(digest: TagDigest | None, state: str, lower: bool = True) -> tuple[str, ...]:
    """The badges the clock does not change (all but "stalled"), in BADGES order."""
    found = []
    if digest is not None:
        if has_nan(digest):
            found.append("NaN")
        if is_diverging(digest, lower):
            found.append("diverging")
    kind = state.split(":")[0]
    if kind in STATE_BADGES:
        found.append(kind)
    return tuple(found)


def stalled(digest: TagDigest | None, now: float, update_time: float, changed_at: float | None = None,
            seen_within: float = 0.0, closed: bool | None = None, buffered: bool = False) -> bool:
    """Whether the headline counts as stalled at `now` (see `badges` for the arguments)."""
    changed_at = update_time if changed_at is None else changed_at
    stall = stalls_at(digest, update_time - changed_at, seen_within, buffered)
    return stall is not None and now >= stall and now < live_until(changed_at, digest, seen_within, closed, buffered)


def with_stall(lasting: tuple[str, ...], stall: bool) -> tuple[str, ...]:
    """`lasting` badges with "stalled" in its place (after NaN and diverging) when `stall`."""
    if not stall:
        return lasting
    at = sum(1 for b in lasting if b in ("NaN", "diverging"))
    return (*lasting[:at], "stalled", *lasting[at:])


@dataclass(frozen=True, slots=True)
class JobHealth:
    """One job's headline and what decides its badges; `badges(now)` and the cells follow the clock.

    Slotted, and its clock's times worked out once (`_clock_times`, the one place that computes
    them): the job list makes one for each of thousands of jobs at a warm start, and asks each
    its badges, whether it is live and its next change a few times."""

    train_id: str
    tag: str | None  # the headline metric (None: the job has none)
    digest: TagDigest | None  # its digest (None: no headline, or the chosen tag is not in this job)
    lower: bool
    state: str
    update_time: float  # the files' last change, by their clock
    loaded: bool = True
    changed_at: float | None = None  # the same change by this clock (None: the clocks agree)
    seen_within: float = 0.0  # how long a new step may take to reach this program (the reload interval)
    closed: bool | None = None  # its writer closed every summary file (None: the format or source cannot tell)
    buffered: bool = False  # it has TensorBoard files (their writers write every TENSORBOARD_FLUSH_SECONDS)
    # Worked out once (`__post_init__`): the badges the clock does not change (all but
    # "stalled"); when the job stops being live; when it counts as stalled (None: it cannot); and
    # from when on the clock changes nothing (most jobs of a sweep that ended).
    lasting: tuple[str, ...] = field(init=False, repr=False, compare=False)
    live_end: float = field(init=False, repr=False, compare=False)
    stall_at: float | None = field(init=False, repr=False, compare=False)
    quiet_from: float = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        live_end, stall = self._clock_times()
        object.__setattr__(self, "lasting", lasting_badges(self.digest, self.state, self.lower) if self.loaded else ())
        object.__setattr__(self, "live_end", live_end)
        object.__setattr__(self, "stall_at", stall)
        object.__setattr__(self, "quiet_from", live_end if stall is None else max(live_end, stall))

    def _clock_times(self) -> tuple[float, float | None]:
        """When the job stops being live if nothing changes, and when it counts as stalled (never,
        once its writer closed it or its files were copied after it ended)."""
        ended = self.closed or copied_after_end(self.digest, self.update_time, self.buffered)
        return (live_until(self._changed, self.digest, self.seen_within, ended, self.buffered),
                None if ended else stalls_at(self.digest, self.skew, self.seen_within, self.buffered))

    @classmethod
    def of(cls, view, chosen: str | None = None, seen_within: float = 0.0) -> "JobHealth":
        """The health of a `JobView` (or anything with `train_id`, `digests`, `state`,
        `update_time`, `loaded`, maybe `changed_at`) with the headline `chosen` by the user
        (None: the default); `seen_within`: the reload interval (0: loaded once)."""
        tag = chosen if chosen is not None else default_headline(view.digests)
        digest = view.digests.get(tag) if tag is not None else None
        return cls(view.train_id, tag, digest, lower_is_better(tag) if tag else True, view.state,
                   view.update_time, view.loaded, getattr(view, "changed_at", None) or None, seen_within,
                   getattr(view, "closed", None), bool(getattr(view, "tensorboard_files", ())))

    @property
    def _changed(self) -> float:
        return self.update_time if self.changed_at is None else self.changed_at

    @property
    def skew(self) -> float:
        """How far the files' clock is ahead of this one (as far as the cache could tell)."""
        return self.update_time - self._changed

    def badges(self, now: float) -> tuple[str, ...]:
        if not self.loaded:
            return ()
        if now >= self.quiet_from:
            return self.lasting
        # (as `stalled` says, from the same times)
        return with_stall(self.lasting, self.stall_at is not None and self.stall_at <= now < self.live_end)

    def live(self, now: float) -> bool:
        return now < self.live_end

    def finished(self, now: float) -> bool:
        """Closed by its writer, or presumed done after the finish window (a job that was read)."""
        return self.loaded and bool(self.update_time) and not self.live(now)

    def announces(self, badge: str) -> bool:
        """Whether `badge` appearing is news to announce: "stalled" only where a clean close would
        have shown (the job's summary files are still writable); every other badge."""
        return badge != "stalled" or self.closed is False

    def since_step(self, now: float) -> float | None:
        """Seconds since the headline's last step (by its wall time, on the files' timeline), or None."""
        if self.digest is None or not math.isfinite(self.digest.last_wall):
            return None
        return max(0.0, now + self.skew - self.digest.last_wall)

    def next_change(self, now: float) -> float | None:
        """The next time after `now` when the clock alone changes `live` or the badges."""
        if now >= self.quiet_from:
            return None
        later = [t for t in (self.live_end, self.stall_at) if t is not None and t > now]
        return min(later) if later else None

    def best(self) -> tuple[float, int] | None:
        return self.digest.best(self.lower) if self.digest is not None else None

    def metric_cells(self) -> dict[str, str]:
        """The text of the headline's columns that only new data changes: its last value, best
        value and its step, change over the last 10% of steps, steps per second."""
        d = self.digest
        if d is None:
            return {"value": "-", "best": "-", "change": "", "speed": ""}
        best, step = d.best(self.lower)
        speed = d.steps_per_second
        return {
            "value": compact(d.last_value),
            "best": f"{compact(best)}@{step}" if math.isfinite(best) else "-",
            "change": signed(d.recent_change) if d.count > 1 else "",
            "speed": compact(speed) if speed is not None else "",
        }

    def clock_cells(self, now: float) -> tuple[dict[str, str], tuple[str, ...], bool]:
        """The text of the columns the clock alone changes ("health": the badges but the state's,
        "since": while live, the time since the headline's last step), the badges, and whether
        the job is live."""
        badges = self.badges(now)
        live = self.live(now)
        since = self.since_step(now) if live else None
        return ({"health": " ".join(b for b in badges if b not in STATE_BADGES) if badges else "",
                 "since": age(since) if since is not None else ""}, badges, live)

    def cells(self, now: float) -> dict[str, str]:
        """The text of every health column at `now`."""
        return {**self.metric_cells(), **self.clock_cells(now)[0]}


def compact(value: float, digits: int = 4, exponent_digits: int = 2, small: float = 1e-3,
            large: float = 1e5) -> str:
    """A number in a few characters (at most 9 by default: 0.2135, 1234, 1.23e-05); NaN and
    infinities spelled out; under `small` or from `large` on, in exponent notation."""
    if math.isnan(value):
        return "nan"
    if math.isinf(value):
        return "inf" if value > 0 else "-inf"
    if value != 0 and (abs(value) >= large or abs(value) < small):
        return format(value, _EXPONENT.get(exponent_digits) or f".{exponent_digits}e")
    return format(value, _GENERAL.get(digits) or f".{digits}g")


# Format specs made once: the job list formats four numbers a row, for thousands of rows.
_GENERAL = {digits: f".{digits}g" for digits in range(1, 10)}
_EXPONENT = {digits: f".{digits}e" for digits in range(1, 10)}


def signed(value: float) -> str:
    """A change, with its sign and 3 digits: +0.0134, -1.20e-04, 0."""
    if value == 0:
        return "0"
    text = compact(value, 3)
    return text if text.startswith("-") or math.isnan(value) else "+" + text


def age(seconds: float) -> str:
    """A short duration: 12s, 3m, 5h, 2d."""
    if seconds < 60:
        return f"{int(seconds)}s"
    if seconds < 3600:
        return f"{int(seconds // 60)}m"
    if seconds < 86400:
        return f"{int(seconds // 3600)}h"
    return f"{int(seconds // 86400)}d"


def age_next(seconds: float) -> float:
    """The first duration after `seconds` whose `age` reads differently: the next whole second
    under a minute, the next whole minute under an hour, and so on."""
    unit = 1.0 if seconds < 60 else 60.0 if seconds < 3600 else 3600.0 if seconds < 86400 else 86400.0
    return (seconds // unit + 1) * unit


def notice(health: JobHealth, new: Iterable[str], now: float) -> str:
    """One sentence about badges that just appeared on a job (a notification)."""
    tag = health.tag or "the headline"
    parts = []
    for badge in new:
        if badge == "NaN":
            parts.append(f"a NaN or infinite value in {tag}")
        elif badge == "diverging":
            parts.append(f"{tag} is diverging (back up over {DIVERGE_SHARE:.0%} of its range from its best)")
        elif badge == "stalled":
            since = health.since_step(now)
            parts.append(f"stalled: no new step of {tag} for {age(since or 0)}")
        else:
            parts.append(health.state)
    return f"{health.train_id}: " + "; ".join(parts)


class HealthBook:
    """The `JobHealth` of each job's latest view, computed once per view (a new view is a new
    version of the job) and headline: the job list's row and `BadgeWatch` share it.
    `seen_within`: the reload interval of the cache the views come from (0: loaded once)."""

    def __init__(self, seen_within: float = 0.0) -> None:
        self.seen_within = seen_within
        # train id -> (a weak reference to the view, chosen, health): a view holds the job's
        # series until the cache drops them; the book must not keep them alive.
        self._known: dict[str, tuple[weakref.ref, str | None, JobHealth]] = {}

    def of(self, view, chosen: str | None = None) -> JobHealth:
        """`JobHealth.of(view, chosen)`, the same object while the job's view is the same one."""
        known = self._known.get(view.train_id)
        if known is not None and known[0]() is view and known[1] == chosen:
            return known[2]
        health = JobHealth.of(view, chosen, self.seen_within)
        self._known[view.train_id] = (weakref.ref(view), chosen, health)
        return health

    def forget(self, train_id: str) -> None:
        self._known.pop(train_id, None)


class BadgeWatch:
    """Which badges each job has, to tell when one appears while the app runs.

    A job's first loaded view only sets what it has (a job that had NaN when the app started is
    shown, not announced); later views and the clock (`tick`: a live job stalls) report badges
    that were not there before. `book`: the health of each view, shared with the job list."""

    def __init__(self, book: HealthBook | None = None) -> None:
        self.book = book if book is not None else HealthBook()
        self._badges: dict[str, tuple[str, ...]] = {}
        # When the clock alone may next change a job's badges (`JobHealth.next_change`), and those
        # times in a heap (entries no longer in `_due` are skipped): a tick looks only at the jobs
        # whose time came, not at every live job every second.
        self._due: dict[str, float] = {}
        self._deadlines: list[tuple[float, str]] = []

    def reset(self, views: Mapping, chosen: str | None, now: float) -> None:
        """Start again from what `views` show (the headline changed: nothing is news)."""
        self._badges.clear()
        self._due.clear()
        self._deadlines.clear()
        self.update(views, views, chosen, now)

    def update(self, views: Mapping, train_ids: Iterable[str], chosen: str | None,
               now: float) -> list[tuple[JobHealth, tuple[str, ...]]]:
        """(health, badges that appeared) of the jobs `train_ids` that gained a badge."""
        news = []
        for tid in train_ids:
            view = views.get(tid)
            if view is None:
                self._badges.pop(tid, None)
                self._due.pop(tid, None)
                self.book.forget(tid)
                continue
            if not view.loaded:
                continue
            news += self._check(self.book.of(view, chosen), now)
        return news

    def tick(self, views: Mapping, chosen: str | None, now: float) -> list[tuple[JobHealth, tuple[str, ...]]]:
        """Badges the clock brought (only the jobs whose next change came are looked at)."""
        due, deadlines = [], self._deadlines
        while deadlines and deadlines[0][0] <= now:
            when, tid = heapq.heappop(deadlines)
            if self._due.get(tid) == when:
                del self._due[tid]
                due.append(tid)
        return self.update(views, due, chosen, now)

    def next_deadline(self) -> float | None:
        """The earliest time `tick` may find news (it may find none: a job looked at since); None:
        no badge can come from the clock alone."""
        return self._deadlines[0][0] if self._deadlines else None

    def _check(self, health: JobHealth, now: float) -> list[tuple[JobHealth, tuple[str, ...]]]:
        tid = health.train_id
        found = health.badges(now)
        before = self._badges.get(tid)
        self._badges[tid] = found
        when = health.next_change(now)
        if when is None:
            self._due.pop(tid, None)
        elif self._due.get(tid) != when:
            self._due[tid] = when
            heapq.heappush(self._deadlines, (when, tid))
            if len(self._deadlines) > 2 * len(self._due) + 64:  # stale entries: keep it small
                self._deadlines = [(w, t) for t, w in self._due.items()]
                heapq.heapify(self._deadlines)
        if before is None or not found:  # a job's first view: what it has is not news
            return []
        new = tuple(b for b in found if b not in before and health.announces(b))
        return [(health, new)] if new else []
