"""The profiler view's state: which profile, which section, the op table's order, filter and
cursor, the op shown in detail, and the timeline's window and selected span.

Everything here is pure: functions that need the profile's data (the op list, the timeline's
tracks) take it as an argument. Ops are named by their full name (scope path and name), which
is their key: op names alone repeat (the forward and backward `MatMul-op0`).
"""
from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any, Callable, Sequence

import numpy as np

from ...summary.formats.profiler import Operator, Timeline
from ..common.filters import compile_filter
from .persist import get_bool, get_int, get_str

SECTIONS = ("types", "ops", "steps", "memory", "timeline")
SECTION_TITLES = {"types": "Operator types", "ops": "Operators", "steps": "Steps", "memory": "Memory",
                  "timeline": "Timeline"}
# the op table's columns: (id, title, key of an Operator for sorting, descending first)
OP_COLUMNS: tuple[tuple[str, str], ...] = (
    ("name", "name"), ("type", "type"), ("scope", "scope"), ("calls", "calls"),
    ("total", "total ms"), ("avg", "avg ms"), ("share", "share"),
)
COLUMN_IDS = tuple(c for c, _ in OP_COLUMNS)
NUMERIC = {"calls", "total", "avg", "share"}
MIN_WINDOW = 1e-6  # the narrowest timeline window, as a fraction of the whole
ZOOM = 2.0
PAN = 0.25  # a pan moves the window by this fraction of its width


def sort_key(column: str) -> Callable[[Operator], Any]:
    return {
        "name": lambda o: (o.name.lower(), o.full_name),
        "type": lambda o: (o.op_type.lower(), o.full_name),
        "scope": lambda o: (o.scope.lower(), o.name.lower()),
        "calls": lambda o: (o.occurrences, o.full_name),
        "total": lambda o: (o.total_ms, o.full_name),
        "avg": lambda o: (o.avg_ms, o.full_name),
        "share": lambda o: (o.share, o.full_name),
    }[column]


def op_matches(text: str) -> Callable[[Operator], bool]:
    """The `/` filter over an op's name, type and scope: a regex when the text is one, else a substring."""
    match = compile_filter(text)
    if not text:
        return lambda _: True
    return lambda o: match(o.full_name) or match(o.op_type) or match(o.name)


@dataclass(frozen=True)
class ProfilerState:
    profile: str | None = None  # the chosen profile's key; None: the newest
    section: str = "types"
    sort: str = "total"
    descending: bool = True
    filter: str = ""
    cursor: str | None = None  # full name of the op under the table's cursor
    detail: bool = False  # the cursor's op is shown in detail (calls over time, shapes)
    window: tuple[float, float] = (0.0, 1.0)  # the timeline's shown part: start and width, fractions
    track: int = 0  # the timeline's selected track
    span: int | None = None  # index of the selected span in its track

    # -- the op table -----------------------------------------------------------------------------

    def ops(self, operators: Sequence[Operator]) -> list[Operator]:
        """The table's rows: filtered, then sorted by the column (ties by full name)."""
        keep = op_matches(self.filter)
        rows = [o for o in operators if keep(o)] if self.filter else list(operators)
        rows.sort(key=sort_key(self.sort), reverse=self.descending)
        return rows

    def cursor_index(self, rows: Sequence[Operator]) -> int | None:
        if not rows:
            return None
        for i, op in enumerate(rows):
            if op.full_name == self.cursor:
                return i
        return 0

    def sorted_by(self, column: str) -> "ProfilerState":
        """Sort by `column`; again: the other direction. Numbers start largest first, text A-Z."""
        if column not in COLUMN_IDS:
            return self
        if column == self.sort:
            return replace(self, descending=not self.descending)
        return replace(self, sort=column, descending=column in NUMERIC)

    def next_sort(self, move: int = 1) -> "ProfilerState":
        i = COLUMN_IDS.index(self.sort) if self.sort in COLUMN_IDS else 0
        column = COLUMN_IDS[(i + move) % len(COLUMN_IDS)]
        return replace(self, sort=column, descending=column in NUMERIC)

    def with_filter(self, text: str) -> "ProfilerState":
        return self if text == self.filter else replace(self, filter=text)

    def move_cursor(self, rows: Sequence[Operator], move: int) -> "ProfilerState":
        i = self.cursor_index(rows)
        if i is None:
            return self
        return self.with_cursor(rows[max(0, min(len(rows) - 1, i + move))].full_name)

    def cursor_to_end(self, rows: Sequence[Operator], last: bool) -> "ProfilerState":
        return self.with_cursor(rows[-1 if last else 0].full_name) if rows else self

    def with_cursor(self, full_name: str | None) -> "ProfilerState":
        return self if full_name == self.cursor else replace(self, cursor=full_name)

    def toggle_detail(self) -> "ProfilerState":
        return replace(self, detail=not self.detail)

    # -- sections and profiles --------------------------------------------------------------------

    def with_section(self, section: str) -> "ProfilerState":
        return self if section not in SECTIONS or section == self.section else replace(self, section=section)

    def next_section(self, available: Sequence[str], move: int = 1) -> "ProfilerState":
        """The next (previous) section among `available` (Memory only when the profile has it)."""
        if not available:
            return self
        i = available.index(self.section) if self.section in available else 0
        return replace(self, section=available[(i + move) % len(available)])

    def settled(self, available: Sequence[str]) -> "ProfilerState":
        """A section the profile has (Memory falls back to Operator types)."""
        return self if self.section in available or not available else replace(self, section=available[0])

    def with_profile(self, key: str | None) -> "ProfilerState":
        if key == self.profile:
            return self
        return replace(self, profile=key, cursor=None, detail=False, window=(0.0, 1.0), track=0, span=None)

    # -- the timeline -----------------------------------------------------------------------------

    def zoom(self, factor: float, centre: float | None = None) -> "ProfilerState":
        """Window `factor` times narrower (wider if < 1), about `centre` (a fraction; default
        the selected span's middle when it is shown, else the window's middle)."""
        start, width = self.window
        new_width = max(MIN_WINDOW, min(1.0, width / factor))
        mid = start + width / 2 if centre is None else centre
        new_start = max(0.0, min(1.0 - new_width, mid - new_width / 2))
        return replace(self, window=(new_start, new_width))

    def pan(self, move: float) -> "ProfilerState":
        start, width = self.window
        return replace(self, window=(max(0.0, min(1.0 - width, start + move * width * PAN)), width))

    def reset_window(self) -> "ProfilerState":
        return replace(self, window=(0.0, 1.0))

    def select_track(self, timeline: Timeline, move: int) -> "ProfilerState":
        """The track `move` rows down; the span there is the one nearest the old one's start."""
        if not timeline.tracks:
            return self
        track = max(0, min(len(timeline.tracks) - 1, self.track + move))
        at = self._span_time(timeline)
        span = None
        if at is not None:
            span = nearest_span(timeline.tracks[track], at)
        return replace(self, track=track, span=span)

    def select_span(self, timeline: Timeline, move: int) -> "ProfilerState":
        """The next (previous) span of the selected track; the first call selects the first span
        in the window. The window follows the span when it leaves it."""
        if not timeline.tracks:
            return self
        track = timeline.tracks[min(self.track, len(timeline.tracks) - 1)]
        if not track.spans:
            return self
        if self.span is None:
            lo = timeline.start_us + self.window[0] * (timeline.end_us - timeline.start_us)
            index = min(len(track.spans) - 1, int(np.searchsorted(track.starts, lo, side="left")))
        else:
            index = max(0, min(len(track.spans) - 1, self.span + move))
        return replace(self, track=min(self.track, len(timeline.tracks) - 1), span=index).follow(timeline)

    def follow(self, timeline: Timeline) -> "ProfilerState":
        """Move the window (same width) so the selected span's start is in it."""
        at = self._span_time(timeline)
        if at is None:
            return self
        whole = timeline.end_us - timeline.start_us
        if whole <= 0:
            return self
        frac = (at - timeline.start_us) / whole
        start, width = self.window
        if start <= frac <= start + width:
            return self
        return replace(self, window=(max(0.0, min(1.0 - width, frac - width / 2)), width))

    def selected_span(self, timeline: Timeline):
        if self.span is None or not timeline.tracks or self.track >= len(timeline.tracks):
            return None
        spans = timeline.tracks[self.track].spans
        return spans[self.span] if 0 <= self.span < len(spans) else None

    def _span_time(self, timeline: Timeline) -> float | None:
        span = self.selected_span(timeline)
        return None if span is None else span.start_us

    def zoom_to_span(self, timeline: Timeline) -> "ProfilerState":
        """The window fitted to the selected span (with a margin)."""
        span = self.selected_span(timeline)
        whole = timeline.end_us - timeline.start_us
        if span is None or whole <= 0:
            return self
        width = max(MIN_WINDOW, min(1.0, 1.5 * max(span.duration_us, whole * MIN_WINDOW) / whole))
        mid = (span.start_us + span.duration_us / 2 - timeline.start_us) / whole
        return replace(self, window=(max(0.0, min(1.0 - width, mid - width / 2)), width))

    # -- remembered -------------------------------------------------------------------------------

    def to_json(self) -> dict[str, Any]:
        return {"profile": self.profile, "section": self.section, "sort": self.sort,
                "descending": self.descending, "filter": self.filter, "cursor": self.cursor,
                "detail": self.detail, "window": list(self.window), "track": self.track, "span": self.span}

    @classmethod
    def from_json(cls, data: Any) -> "ProfilerState":
        if not isinstance(data, dict):
            return cls()
        window = data.get("window")
        start, width = 0.0, 1.0
        if (isinstance(window, list) and len(window) == 2
                and all(isinstance(v, (int, float)) and not isinstance(v, bool) for v in window)):
            width = max(MIN_WINDOW, min(1.0, float(window[1]))) if window[1] == window[1] else 1.0
            start = max(0.0, min(1.0 - width, float(window[0]))) if window[0] == window[0] else 0.0
        profile = data.get("profile")
        cursor = data.get("cursor")
        return cls(
            profile=profile if isinstance(profile, str) else None,
            section=get_str(data, "section", "types", SECTIONS),
            sort=get_str(data, "sort", "total", COLUMN_IDS),
            descending=get_bool(data, "descending", True),
            filter=get_str(data, "filter", ""),
            cursor=cursor if isinstance(cursor, str) else None,
            detail=get_bool(data, "detail", False),
            window=(start, width),
            track=get_int(data, "track", 0, 0, 10_000) or 0,
            span=get_int(data, "span", None, 0),
        )


def nearest_span(track, at: float) -> int | None:
    """The span of `track` that holds instant `at`, else the one starting nearest to it."""
    if not track.spans:
        return None
    starts = track.starts
    i = int(np.searchsorted(starts, at, side="right")) - 1
    if i >= 0 and track.ends[i] >= at:
        return i
    candidates = [j for j in (i, i + 1) if 0 <= j < len(track.spans)]
    return min(candidates, key=lambda j: abs(float(starts[j]) - at))


__all__ = ["ProfilerState", "SECTIONS", "SECTION_TITLES", "OP_COLUMNS", "COLUMN_IDS", "nearest_span",
           "op_matches", "sort_key"]
