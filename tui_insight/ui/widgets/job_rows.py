"""The job list's rows: what each cell of a job's row says, and what the row sorts by.

A row keeps the text of its cells (the columns' widths need every row's) and what its sort
values come from; styles and sort values are worked out when a row is drawn or sorted. A
descending order inverts the sort value, not the list: rows that tie stay in name order, and
jobs without a value (no headline yet, NaN) come last either way.
"""
from __future__ import annotations

import math
import operator
import weakref
from functools import lru_cache
from typing import Any, Iterable

from rich.style import Style

from ...summary.queries.health import JobHealth, age_next
from ...summary.store.job_view import JobView
from ..common.format import relative_time
from ..common.palette import job_colour
from ..common.text import shown
from ..state.job_columns import COLUMNS, SORTABLE, state_glyph
from ...summary.queries.sparkline import sparkline

SPARK_WIDTH = 10
PLUGINS = ("scalar", "histogram", "tensor", "image")
MAX_ID_WIDTH = 48
MAX_HEADLINE_WIDTH = 16  # the headline column's header: a long tag name is cut

Cell = tuple[str, str]  # text, style
parse_style = lru_cache(maxsize=256)(Style.parse)


def headline_header(chosen: str | None, tags: Iterable[str]) -> str:
    """The headline column's header: the chosen tag, else the jobs' default tag when they share
    one, else "headline"."""
    names = set(tags) if chosen is None else {chosen}
    name = shown(next(iter(names))) if len(names) == 1 else "headline"
    return name if len(name) <= MAX_HEADLINE_WIDTH else name[: MAX_HEADLINE_WIDTH - 1] + "…"


def _order_value(value: float | None, reverse: bool = False) -> tuple[int, float]:
    """A number as a sort key: finite values in order (`reverse`: largest first), then NaN, inf
    and missing ones."""
    if value is None or not math.isfinite(value):
        return (1, 0.0)
    return (0, -value if reverse else value)


class Descending:
    """A sort value that orders the other way (`JobRow.sort_value` with reverse)."""

    __slots__ = ("value",)

    def __init__(self, value: Any):
        self.value = value

    def __lt__(self, other: "Descending") -> bool:
        return other.value < self.value

    def __gt__(self, other: "Descending") -> bool:
        return other.value > self.value

    def __le__(self, other: "Descending") -> bool:
        return other.value <= self.value

    def __ge__(self, other: "Descending") -> bool:
        return other.value >= self.value

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Descending) and other.value == self.value

    def __hash__(self) -> int:
        return hash(self.value)


def state_style(state: str) -> str:
    if state == "ok":
        return "green"
    if state in ("growing", "reconnecting…"):
        return "yellow"
    if state == "loading":
        return "dim"
    return "bold red"


TEXT_KEYS = tuple(c.key for c in COLUMNS if c.key != "trend")  # the cells a row keeps the text of
_TEXT_AT = {key: i for i, key in enumerate(TEXT_KEYS)}
_TEXTS = operator.itemgetter(*TEXT_KEYS)  # a row's cells -> their texts in TEXT_KEYS order, in one call
CLOCK_KEYS = ("health", "live", "since", "updated")  # the cells the clock alone moves
_CLOCK_AT = tuple(_TEXT_AT[key] for key in CLOCK_KEYS)


class JobRow:
    """A job's row. Thousands are built at a warm start and few are seen: a row keeps the text of
    its cells (the columns' widths need every row's) and what its sort values come from, in as
    few objects as it can (the garbage collector walks every object that stays); the cells'
    styles and the sort values are worked out when a row is drawn or sorted."""

    __slots__ = ("train_id", "texts", "health", "mark", "step", "files", "tags", "at", "until", "built_from",
                 "_trend_width")

    def __init__(self, train_id: str, texts: tuple[str, ...], health: JobHealth, mark: int | None, step: int,
                 files: int, tags: int, at: float, built_from: weakref.ref | None = None):
        self.train_id = train_id
        self.texts = texts  # in TEXT_KEYS order
        self.health = health  # the headline and what the clock cells are computed from
        self.mark = mark  # its place in the marking order (its colour), None: not marked
        self.step, self.files, self.tags = step, files, tags  # the last step (-1: none), file and tag counts
        self.at = at  # the clock its clock cells were computed at
        self.until = at  # its clock cells read the same from `at` to this clock (`clock_texts_until`)
        # The view it was built from (None: a placeholder), weakly: a view holds the job's series
        # until the cache drops them, and the list must not keep them alive.
        self.built_from = built_from
        self._trend_width = -1

    def is_from(self, view: JobView) -> bool:
        return self.built_from is not None and self.built_from() is view

    def text(self, key: str) -> str:
        return self.texts[_TEXT_AT[key]]

    def style(self, key: str, text: str) -> str:
        if key == "mark":
            return f"bold {job_colour(self.mark)}" if self.mark is not None else ""
        if key == "state":
            return state_style(self.health.state)
        if key == "live":
            return "bold green" if text else ""
        if key == "health":
            return "bold red" if text else ""
        return ""

    @property
    def cells(self) -> dict[str, Cell]:
        """Every column's cell but the trend's (`trend`): text and style."""
        return {key: (text, self.style(key, text)) for key, text in zip(TEXT_KEYS, self.texts)}

    def sort_value(self, key: str, reverse: bool = False) -> Any:
        """What the row sorts by in column `key` (`reverse`: for a descending order)."""
        health = self.health
        if key in ("value", "best", "change", "speed"):
            digest = health.digest
            if digest is None:
                return _order_value(None)
            best = health.best()
            number = (digest.last_value if key == "value" else (best[0] if best else None) if key == "best"
                      else digest.recent_change if key == "change" else digest.steps_per_second)
            return _order_value(number, reverse)
        if key == "id":
            value: Any = self.train_id
        elif key == "state":
            value = health.state
        elif key == "step":
            value = self.step
        elif key == "updated":
            value = health.update_time
        elif key == "files":
            value = self.files
        elif key == "tags":
            value = self.tags
        elif key == "live":
            value = (health.live(self.at), health.update_time)
        elif key == "health":
            badges = health.badges(self.at)
            value = (len(badges), badges)
        else:
            raise KeyError(key)
        return Descending(value) if reverse else value

    @property
    def sort(self) -> dict[str, Any]:
        return {key: self.sort_value(key) for key in SORTABLE}

    def spark(self) -> tuple[float, ...]:
        digest = self.health.digest
        return digest.spark if digest is not None else ()

    def trend(self) -> Cell:
        """The sparkline cell, drawn only when the row is on screen (its width is `trend_width`,
        known without drawing it)."""
        return sparkline(self.spark(), SPARK_WIDTH), "cyan"

    @property
    def trend_width(self) -> int:
        """The sparkline's length: a character per finite point of the digest's spark (as many
        as the cell is wide at most, as `sparkline` draws them)."""
        if self._trend_width < 0:
            spark = self.spark()
            self._trend_width = (sum(map(math.isfinite, spark)) if len(spark) <= SPARK_WIDTH
                                 else len(self.trend()[0]))
        return self._trend_width


def clock_texts(health: JobHealth, now: float) -> tuple[str, str, str, str]:
    """The text of the cells that move with the clock alone at `now`, in CLOCK_KEYS order."""
    text, _, live = health.clock_cells(now)
    return (text["health"], "● live" if live else "", text["since"],
            relative_time(health.update_time, now) if health.loaded else "-")


def clock_texts_until(health: JobHealth, now: float) -> float:
    """Until when `clock_texts(health, t)` reads as at `now` (for `now <= t`), or a moment before:
    the next whole second, minute, hour or day of its relative times ("5s ago" changes each
    second, "3m ago" each minute), or the next change of its badges or live marker."""
    when = health.next_change(now)
    until = math.inf if when is None else when
    if health.loaded and health.update_time:
        until = min(until, health.update_time + age_next(max(0.0, now - health.update_time)))
    if health.live(now):
        since = health.since_step(now)
        if since is not None:
            until = min(until, now + age_next(since) - since)
    return until


def job_row(view: JobView, now: float, mark_index: int | None, headline: str | None = None,
            health: JobHealth | None = None) -> JobRow:
    """The row of `view` at `now`; `headline`: the tag the health columns show (None: the job's
    loss); `health`: `JobHealth.of(view, headline)` when the caller has it already."""
    if health is None:
        health = JobHealth.of(view, headline)  # reads digests only: the job's details may not be in memory
    tag_counts = view.tag_counts
    counts = tuple(tag_counts.get(p, 0) for p in PLUGINS)
    last = view.last_step
    files = (len(view.summary_files) + len(view.tensorboard_files), len(view.lineage_files), len(view.graph_files),
             len(view.profile_dirs))
    metric = health.metric_cells()
    badges, live, since, updated = clock_texts(health, now)
    cells = {"mark": "●" if mark_index is not None else " ", "id": shown(view.train_id),
             "state": state_text(health.state, len(view.not_shown)), "health": badges, "live": live,
             "value": metric["value"], "best": metric["best"], "change": metric["change"], "speed": metric["speed"],
             "since": since, "step": str(last) if last is not None else "-", "updated": updated,
             "files": "%d/%d/%d/%d" % files, "tags": "%d/%d/%d/%d" % counts}
    texts = _TEXTS(cells)
    return JobRow(view.train_id, texts, health, mark_index, last if last is not None else -1, sum(files),
                  sum(counts), now, weakref.ref(view))


def state_text(state: str, not_shown: int) -> str:
    """The state cell: the state's glyph (`state_glyph`; the status line says the state whole),
    and `*N` when the job holds N things no view shows (kinds of data, tags over a limit:
    `JobView.not_shown`)."""
    glyph = state_glyph(state)
    return f"{glyph}*{not_shown}" if not_shown else glyph
