"""The profiler's timeline: the spans of `trace_view.json`, one row per thread, over a window of
the whole that `+`/`-` zoom and `,`/`.` pan; `←/→` select the previous/next span of the selected
row, `↑/↓` the row, `z` fits the window to the selected span, `0` shows everything.

Drawing is per column: the span under the column's middle fills it (its name written in it when
wide enough); spans too short to cover a middle show as `▪`. The selected span is reversed.
The window and the selection are the view's state: the keys here hand transitions to the view.
"""
from __future__ import annotations

import zlib
from typing import Any

import numpy as np
from rich.text import Text
from textual.binding import Binding
from textual.widget import Widget

from ...summary.formats.profiler import Timeline, Track
from ..common.palette import SERIES_COLOURS, contrast
from ..common.text import literal, shown
from ..state.profiler import ZOOM, ProfilerState
from .profile_charts import fmt_ms

LABEL_MAX = 26
# Spans are told apart by name, as series are: a fixed qualitative palette (`common.palette`
# says why a theme has none), each span's name written on it in black or white.
SPAN_COLOURS = SERIES_COLOURS[:7]


def span_colour(name: str) -> str:
    return SPAN_COLOURS[zlib.crc32(name.encode("utf-8", "replace")) % len(SPAN_COLOURS)]


def text_on(colour: str) -> str:
    return contrast(colour)


def window_us(timeline: Timeline, window: tuple[float, float]) -> tuple[float, float]:
    whole = max(timeline.end_us - timeline.start_us, 1e-9)
    start, width = window
    return timeline.start_us + start * whole, timeline.start_us + (start + width) * whole


def track_cells(track: Track, lo: float, hi: float, columns: int) -> tuple[np.ndarray, np.ndarray]:
    """Per column: the index of the span under its middle (-1: none) and how many spans start in it."""
    if not track.spans or columns <= 0 or hi <= lo:
        return np.full(max(columns, 0), -1), np.zeros(max(columns, 0), dtype=np.int64)
    dt = (hi - lo) / columns
    mids = lo + (np.arange(columns) + 0.5) * dt
    idx = np.searchsorted(track.starts, mids, side="right") - 1
    owner = np.where((idx >= 0) & (track.ends[np.maximum(idx, 0)] >= mids), idx, -1)
    edges = lo + np.arange(columns + 1) * dt
    starts_in = np.diff(np.searchsorted(track.starts, edges, side="left"))
    return owner, starts_in


def render_track(track: Track, lo: float, hi: float, columns: int, selected: int | None,
                 no_color: bool = False) -> Text:
    owner, starts_in = track_cells(track, lo, hi, columns)
    text = Text()
    c = 0
    while c < columns:
        o = int(owner[c])
        if o < 0:
            text.append("▪" if starts_in[c] > 0 else " ", style="dim")
            c += 1
            continue
        end = c + 1
        while end < columns and int(owner[end]) == o:
            end += 1
        run = end - c
        name = track.spans[o].name.rpartition("/")[2] or track.spans[o].name
        label = shown(name)[: run - 1 if run > 3 else run]
        if no_color:
            body = ("[" + (label + "·" * run)[: run - 2] + "]") if run >= 3 else "█" * run
            style = "reverse" if o == selected else ""
        else:
            body = label + " " * (run - len(label))
            colour = span_colour(track.spans[o].name)
            style = "bold reverse" if o == selected else f"{text_on(colour)} on {colour}"
        text.append(body, style=style)
        c = end
    return text


def axis_line(lo: float, hi: float, origin: float, width: int) -> Text:
    """Tick labels (ms since the profile's start) every ~16 cells."""
    line = [" "] * width
    if width <= 0 or hi <= lo:
        return Text("".join(line))
    step = max(12, width // 6)
    for x in range(0, width - 6, step):
        t = (lo + (hi - lo) * x / width - origin) / 1000
        label = f"┆{fmt_ms(t)}ms"
        for i, ch in enumerate(label):
            if x + i < width:
                line[x + i] = ch
    return Text("".join(line), style="dim")


class TimelineChart(Widget, can_focus=True):
    HELP_GROUP = "Profiler"
    DEFAULT_CSS = """
    TimelineChart { height: 1fr; }
    """
    BINDINGS = [
        # In the footer `+` alone: the line under the timeline lists every key of it, and at 80
        # columns the profiler's `]` and `c` must fit after it.
        Binding("plus,equals_sign", "zoom(True)", "Zoom in", id="profiler.zoom_in"),
        Binding("minus", "zoom(False)", "Zoom out", show=False, id="profiler.zoom_out"),
        Binding("comma", "pan(-1)", "Pan left", show=False, id="profiler.pan_left"),
        Binding("full_stop", "pan(1)", "Pan right", show=False, id="profiler.pan_right"),
        Binding("left", "span(-1)", "Previous span", show=False, id="profiler.span_previous"),
        Binding("right", "span(1)", "Next span", show=False, id="profiler.span_next"),
        Binding("up", "track(-1)", "Row up", show=False, id="profiler.track_up"),
        Binding("down", "track(1)", "Row down", show=False, id="profiler.track_down"),
        Binding("z", "fit", "Zoom to span", show=False, id="profiler.zoom_span"),
        Binding("0", "reset", "Whole timeline", show=False, id="profiler.zoom_reset"),
    ]

    def __init__(self, **kwargs) -> None:
        super().__init__(**kwargs)
        self.timeline: Timeline | None = None
        self.state = ProfilerState()
        self.message = "reading trace_view.json…"

    def show(self, timeline: Timeline | None, state: ProfilerState, message: str = "") -> None:
        self.timeline, self.state, self.message = timeline, state, message
        self.refresh()

    # -- keys: transitions handed to the view -------------------------------------------------------

    def _apply(self, change) -> None:
        view: Any = next((a for a in self.ancestors if hasattr(a, "timeline_state")), None)  # the profiler view
        if view is None or self.timeline is None or not self.timeline.tracks:
            return
        view.timeline_state(change(view.state, self.timeline))

    def action_zoom(self, zoom_in: bool) -> None:
        def change(state: ProfilerState, timeline: Timeline) -> ProfilerState:
            span = state.selected_span(timeline)
            centre = None
            if span is not None:
                whole = max(timeline.end_us - timeline.start_us, 1e-9)
                mid = (span.start_us + span.duration_us / 2 - timeline.start_us) / whole
                if state.window[0] <= mid <= state.window[0] + state.window[1]:
                    centre = mid
            return state.zoom(ZOOM if zoom_in else 1 / ZOOM, centre)
        self._apply(change)

    def action_pan(self, move: int) -> None:
        self._apply(lambda state, _: state.pan(move))

    def action_span(self, move: int) -> None:
        self._apply(lambda state, timeline: state.select_span(timeline, move))

    def action_track(self, move: int) -> None:
        self._apply(lambda state, timeline: state.select_track(timeline, move))

    def action_fit(self) -> None:
        self._apply(lambda state, timeline: state.zoom_to_span(timeline))

    def action_reset(self) -> None:
        self._apply(lambda state, _: state.reset_window())

    # -- drawing ----------------------------------------------------------------------------------

    def lines(self, width: int, height: int) -> list[Text]:
        timeline = self.timeline
        if timeline is None or not timeline.tracks:
            return [Text(self.message or "no timeline", style="dim")]
        label_width = min(LABEL_MAX, max(len(t.label) for t in timeline.tracks) + 1)
        plot = max(1, width - label_width)
        lo, hi = window_us(timeline, self.state.window)
        no_color = bool(getattr(self.app, "no_color", False))
        out = [Text(" " * label_width) + axis_line(lo, hi, timeline.start_us, plot)]
        first = 0
        rows = max(1, height - 1)
        if self.state.track >= rows:
            first = self.state.track - rows + 1
        for i, track in enumerate(timeline.tracks[first:first + rows], start=first):
            label = track.label if len(track.label) < label_width else track.label[: label_width - 2] + "…"
            selected = self.state.span if i == self.state.track else None
            head = literal(label.ljust(label_width), "bold" if i == self.state.track else "dim")
            out.append(head + render_track(track, lo, hi, plot, selected, no_color))
        return out

    def render(self) -> Text:
        width, height = self.size.width, self.size.height
        return Text("\n").join(self.lines(width, height))
