"""What the scalar view shows: each chart's traces, options and drawing key, the status line,
the value cursor's read-out, the summary table's rows and the empty area's sentence, from the
view's state and its series (`ScalarLines`).

`ScalarLines` keeps each (job, tag) series read from the cache with a version, and derives its
x and smoothed values for the state's x-axis and smoothing once per change (`line`). A `Scene`
is what else the view knows: its jobs, their colours and first wall times, whether runs are
compared and whether colour is off (NO_COLOR).

The ranks of one training (`Scene.ranks`: the dashboard of a rank group) draw each tag as the
mean line across ranks over their min–max band (`ranks.band`), on the step axis, unsmoothed and
not normalised; `r` adds one rank's own line over it in turn, then every rank's line as runs
compared are drawn.
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Iterable, Mapping

import numpy as np
from rich.text import Text

from ...summary.queries import ranks
from ...summary.queries.best import LOWER, best_of
from ...summary.queries.scalars import ScalarSeries, scalar_series, smooth, threshold_mask, value_at, x_values
from ...summary.store.digest import TagDigest
from ...summary.store.job_view import Changes, JobView
from ..common.format import clock_time, duration, number, short_time
from ..common.palette import SERIES_COLOURS, SERIES_MARKERS
from ..common.text import literal, markup
from .grid import grid_shape as shape
from ..state.scalars import OVERLAY, ScalarsState, describe_threshold, parse_threshold
from ..widgets.chart_data import ChartOptions, Trace, x_limits
from ..widgets.summary_row import SummaryRow

MIN_CHART_WIDTH = 56
MIN_CHART_HEIGHT = 10
# Newer data (a run being written) redraws the charts at most 4 times a second, and less often
# (but at least once a second) when drawing and painting them would cost more than
# `LIVE_DRAW_SHARE` of a core. Only the charts on screen are bound newer data: the others are
# bound when they are scrolled into view.
LIVE_REDRAW_SECONDS = 0.25
LIVE_REDRAW_MAX_SECONDS = 1.0
LIVE_DRAW_SHARE = 0.05
HELP_NOTE = ("[b]Reading the charts[/b]\n"
             "  ✓ / · in the tag list: drawn / not drawn (space toggles, a all or none)\n"
             "  × NaN and ▲ +Inf at the top edge, ▼ -Inf at the bottom: steps with no number\n"
             "  t and y apply to the focused chart; Y toggles log y on every chart\n"
             "  Summary table (m): last, min, max @ their step and the value at the cursor;\n"
             "  ↓ lower is better (loss), ↑ higher (acc, f1, auc, precision, recall), ★ best run;\n"
             "  b changes it for the tag of the focused chart or table row, B flips every tag\n"
             "  Settings are remembered per job (start with --fresh to forget them)")
HINT = "[dim]←/→ value cursor · z zoom to range · [ ] pan · ? every key[/dim]"


@dataclass
class Line:
    """One job's series of one tag, with what is derived from it for the current settings."""

    train_id: str
    tag: str
    series: ScalarSeries
    settings: tuple  # (data version, x-axis, smoothing) it was derived for
    x: np.ndarray
    smoothed: np.ndarray | None  # None when smoothing is off


class ScalarLines:
    """The series of the view's jobs and tags, each with a version bumped when it is read again,
    its digest (of the same snapshot) and its line for the last settings asked."""

    def __init__(self) -> None:
        self.series: dict[tuple[str, str], tuple[ScalarSeries, int]] = {}
        self.digests: dict[tuple[str, str], TagDigest | None] = {}
        self._lines: dict[tuple[str, str], Line] = {}
        self._versions = 0

    def tags(self) -> list[str]:
        return sorted({tag for _, tag in self.series})

    def load(self, view: JobView | None, train_id: str, tag: str) -> None:
        """Read `tag` of `train_id` again from its job view (None: the job is gone)."""
        series = scalar_series(view, tag) if view is not None else None
        if series is None:
            self.series.pop((train_id, tag), None)
            self.digests.pop((train_id, tag), None)
        else:
            self._versions += 1
            self.series[(train_id, tag)] = (series, self._versions)
            self.digests[(train_id, tag)] = view.digests.get(tag)  # type: ignore[union-attr]
        self._lines.pop((train_id, tag), None)

    def load_jobs(self, views: Iterable[JobView]) -> None:
        """Every scalar tag of the jobs `views`."""
        for view in views:
            for tag in view.tag_names("scalar"):
                self.load(view, view.train_id, tag)

    def update(self, changes: Changes, views: Mapping[str, JobView | None]) -> bool:
        """Read again what `changes` touched of the jobs `views` (train id: its job view, None
        when gone); whether any series came, changed or went."""
        touched = False
        for tid in views.keys() & changes.jobs():
            view = views[tid]
            if view is None:
                continue
            changed = changes.tags(tid, "scalar")
            if changed is None:  # the job was read again from scratch, or just appeared
                self.forget(tid)
            for tag in view.tag_names("scalar") if changed is None else sorted(changed):
                self.load(view, tid, tag)
                touched = True
        for tid in views.keys() & changes.removed:
            touched = self.forget(tid) or touched
        return touched

    def forget(self, train_id: str) -> bool:
        """Drop every series of `train_id`; whether it had any."""
        keys = [key for key in self.series if key[0] == train_id]
        for key in keys:
            self.series.pop(key, None)
            self.digests.pop(key, None)
            self._lines.pop(key, None)
        return bool(keys)

    def version(self, train_id: str, tag: str) -> int:
        found = self.series.get((train_id, tag))
        return found[1] if found is not None else 0

    def line(self, train_id: str, tag: str, state: ScalarsState, origin: float | None) -> Line | None:
        """The series with its x (from the job's first wall time `origin`) and smoothed values
        for the state's x-axis and smoothing."""
        found = self.series.get((train_id, tag))
        if found is None:
            return None
        series, version = found
        line = self._lines.get((train_id, tag))
        settings = (version, state.x_axis, state.smoothing)
        if line is None or line.settings != settings:
            x = x_values(series, state.x_axis, origin)  # type: ignore[arg-type]
            smoothed = smooth(series.values, state.smoothing) if state.smoothing > 0 else None
            line = Line(train_id, tag, series, settings, x, smoothed)
            self._lines[(train_id, tag)] = line
        return line


@dataclass(frozen=True)
class Scene:
    """What the view knows besides its state: its jobs and series."""

    train_ids: tuple[str, ...]
    lines: ScalarLines
    colours: Mapping[str, str]  # each job's colour
    origins: Mapping[str, float | None] = field(default_factory=dict)  # each job's first wall time
    comparing: bool = False
    no_color: bool = False
    ranks: bool = False  # the jobs are the ranks of one training (`ranks.one_group`)

    def line(self, train_id: str, tag: str, state: ScalarsState) -> Line | None:
        return self.lines.line(train_id, tag, state, self.origins.get(train_id))


def colour_and_marker(scene: Scene, state: ScalarsState, tag_index: int, job_index: int) -> tuple[str, str]:
    """One job's tags in one chart: a colour per tag; runs compared: a colour per run, and in one
    chart a marker per tag. Without colour every series has its marker."""
    if state.overlay and not scene.comparing:
        colour = SERIES_COLOURS[tag_index % len(SERIES_COLOURS)]
        marker = SERIES_MARKERS[tag_index % len(SERIES_MARKERS)] if scene.no_color else "braille"
    else:
        colour = scene.colours[scene.train_ids[job_index]]
        which = tag_index if state.overlay else job_index
        marker = SERIES_MARKERS[which % len(SERIES_MARKERS)] if (scene.no_color or state.overlay) else "braille"
    return colour, marker


def chart_key(scene: Scene, state: ScalarsState, chart_id: str, tags: tuple[str, ...]) -> tuple:
    """What a chart's drawing depends on besides its options: equal keys, no redraw."""
    versions = tuple(scene.lines.version(tid, tag) for tag in tags for tid in scene.train_ids)
    return (tags, scene.train_ids, versions, state.smoothing, state.x_axis, state.settings(chart_id).threshold,
            state.overlay, state.normalised(chart_id), state.two_axes(chart_id), scene.no_color,
            banded(scene, state, chart_id), state.rank_view)


def banded(scene: Scene, state: ScalarsState, chart_id: str) -> bool:
    """Whether the chart draws its ranks as a band (see the module doc)."""
    return (scene.ranks and state.rank_view <= len(scene.train_ids) and state.x_axis == "step"
            and not state.normalised(chart_id))


def band_traces(scene: Scene, state: ScalarsState, tags: tuple[str, ...]) -> list[Trace]:
    """Each tag's min–max band across ranks, its mean line, and the rank `r` chose over them."""
    out: list[Trace] = []
    bands: list[Trace] = []
    chosen = scene.train_ids[state.rank_view - 1] if state.rank_view > 0 else None
    for k, tag in enumerate(tags):
        lines = [line for tid in scene.train_ids if (line := scene.line(tid, tag, state)) is not None]
        steps, mean, low, high = ranks.band([(line.series.steps, line.series.values) for line in lines])
        if not len(steps):
            continue
        colour = SERIES_COLOURS[k % len(SERIES_COLOURS)]
        x = steps.astype(np.float64)
        bands.append(Trace.band(x, low, high, colour))
        out.append(Trace(x, mean, colour, "line"))
        line = scene.line(chosen, tag, state) if chosen is not None else None
        if line is not None and len(line.series):
            out.append(Trace(line.x, line.series.values, scene.colours[chosen], "line"))  # type: ignore[index]
    return bands + out


def traces(scene: Scene, state: ScalarsState, chart_id: str, tags: tuple[str, ...]) -> list[Trace]:
    """A chart's lines (raw faint under smoothed), threshold hits as points; a rank group's
    band and mean line."""
    if banded(scene, state, chart_id):
        return band_traces(scene, state, tags)
    out: list[Trace] = []
    normalised = state.normalised(chart_id)
    two_axes = state.two_axes(chart_id)
    above, below = state.settings(chart_id).threshold
    for k, tag in enumerate(tags):
        for j, tid in enumerate(scene.train_ids):
            line = scene.line(tid, tag, state)
            if line is None or not len(line.series):
                continue
            colour, marker = colour_and_marker(scene, state, k, j)
            raw = line.series.values
            smoothed = line.smoothed
            if normalised:
                raw, smoothed = normalise(raw, smoothed)
            right = two_axes and k == 1
            out += line_traces(line.x, raw, smoothed, colour, right, marker)
            if (above is not None or below is not None) and not normalised:
                hits = threshold_mask(line.series.values, above, below)
                if hits.any():
                    out.append(Trace(line.x[hits], line.series.values[hits], colour, "points", right))
    return out


def chart_options(scene: Scene, state: ScalarsState, chart_id: str, tags: tuple[str, ...]) -> ChartOptions:
    """A chart's legend, notes, axis, zoom, threshold lines and cursor."""
    legend: list[tuple[str, str]] = []
    notes = []
    if banded(scene, state, chart_id):
        legend = [(SERIES_COLOURS[k % len(SERIES_COLOURS)], f"{tag}: mean, min–max of {len(scene.train_ids)} ranks")
                  for k, tag in enumerate(tags)]
        if state.rank_view > 0:
            tid = scene.train_ids[state.rank_view - 1]
            legend.append((scene.colours[tid], tid))
        return ChartOptions(state.x_axis, state.x_range, state.settings(chart_id).log_y,
                            state.cursor_x if chart_id == state.target() else None, (), tuple(legend), (),
                            "r: one rank over the band, then every rank")
    if chart_id == OVERLAY and not scene.comparing:
        legend = [(colour_and_marker(scene, state, k, 0)[0], tag) for k, tag in enumerate(tags)]
    elif scene.comparing:
        legend = [(scene.colours[tid], tid) for tid in scene.train_ids]
        if chart_id == OVERLAY:
            notes.append("tags by marker: " + ", ".join(
                f"{tag} {shown_marker(SERIES_MARKERS[k % len(SERIES_MARKERS)])}" for k, tag in enumerate(tags)))
    if state.two_axes(chart_id):
        notes.append(f"left axis: {tags[0]} · right axis: {tags[1]}")
    if state.normalised(chart_id):
        notes.append("normalised: each series scaled to 0..1")
    if state.smoothing > 0:
        notes.append(f"smoothed {state.smoothing:g}, raw faint")
    settings = state.settings(chart_id)
    hlines = tuple(v for v in settings.threshold if v is not None) if not state.normalised(chart_id) else ()
    cursor = state.cursor_x if chart_id == state.target() else None
    symbols: tuple[str, ...] = ()
    if scene.no_color and legend:  # colours are gone: name each entry's marker instead
        symbols = tuple(shown_marker(SERIES_MARKERS[i % len(SERIES_MARKERS)]) for i in range(len(legend)))
    return ChartOptions(state.x_axis, state.x_range, settings.log_y, cursor, hlines, tuple(legend), symbols,
                        " · ".join(notes))


def summary_rows(scene: Scene, state: ScalarsState) -> list[SummaryRow]:
    """One row per shown tag and run that has it: its digest, the point at the cursor, and
    whether it is the tag's best run (only among two or more; runs tied for best all are; NaN and
    inf never win)."""
    rows: list[SummaryRow] = []
    for tag in state.tags.visible():
        way = state.best_direction(tag)
        runs = [(tid, scene.lines.digests.get((tid, tag))) for tid in scene.train_ids
                if (tid, tag) in scene.lines.series]
        best: frozenset[int] = frozenset()
        if len(runs) > 1 and way is not None:
            best = best_of([d.best(way == LOWER)[0] if d is not None else None for _, d in runs], way)
        for i, (tid, digest) in enumerate(runs):
            rows.append(SummaryRow(tag, tid, scene.colours[tid], digest, cursor_point(scene, state, tid, tag),
                                   way, i in best))
    return rows


def cursor_point(scene: Scene, state: ScalarsState, train_id: str, tag: str) -> tuple[int, float] | None:
    """(step, value) of the series' point nearest the value cursor."""
    if state.cursor_x is None:
        return None
    line = scene.line(train_id, tag, state)
    if line is None or not len(line.x):
        return None
    i = int(np.argmin(np.abs(line.x - state.cursor_x)))  # as `value_at`, on the x kept for drawing
    return int(line.series.steps[i]), float(line.series.values[i])


def empty_reason(state: ScalarsState, loading: bool) -> str:
    """Why no chart shows (`loading`: some job is still being read)."""
    if not state.tags.tags:
        return "no scalar tags yet" if loading else "these jobs have no scalars"
    return state.tags.empty_reason()


def status(state: ScalarsState, loading: bool, log_y_problem: str = "") -> str:
    """The status line (markup): the shared settings, then what the focused chart has of its own
    (`log_y_problem`: why its log y cannot be drawn, "" if it can)."""
    if not state.tags.tags:
        return markup(empty_reason(state, loading))
    parts = [f"x: {state.x_axis}"]
    parts.append(f"smoothing {state.smoothing:g}" if state.smoothing else "no smoothing")
    target = state.target()
    settings = state.settings(target)
    own = []
    if target is not None and settings.log_y:
        own.append("log y" if not log_y_problem else "log y off: values ≤ 0")
    if settings.has_threshold:
        own.append("threshold " + describe_threshold(*settings.threshold))
    if target is not None and own:
        name = "one chart" if target == OVERLAY else target
        parts.append(f"{markup(name)}: {', '.join(own)}")
    if state.x_range is not None:
        lo, hi = state.x_range
        parts.append(f"zoom {x_text(state, lo)}..{x_text(state, hi)} (⌫ back, 0 reset)")
    if state.zoom_anchor is not None:
        parts.append(f"zoom from {x_text(state, state.zoom_anchor)}: move, z again")
    if state.overlay:
        parts.append("one chart")
    if state.fullscreen:
        parts.append("full screen (f/esc)")
    return " · ".join(parts)


def x_text(state: ScalarsState, x: float) -> str:
    """An x of the state's axis as the status line says it."""
    if state.x_axis == "step":
        return f"{x:.0f}" if abs(x) < 1e15 else f"{x:.3g}"
    if state.x_axis == "relative":
        return duration(x)
    return clock_time(x)


def readout(scene: Scene, state: ScalarsState, shown: bool) -> Text | str:
    """Under the charts: each series' point at the value cursor in the target chart (`shown`:
    that chart is on screen), or how to place the cursor."""
    chart_id = state.target()
    if chart_id is None or not shown:
        return ""
    if state.cursor_x is None:
        return HINT
    lines = []
    for k, tag in enumerate(state.chart_tags(chart_id)):
        for j, tid in enumerate(scene.train_ids):
            line = scene.line(tid, tag, state)
            if line is None or not len(line.series):
                continue
            origin = scene.origins.get(tid)
            i = value_at(line.series, state.cursor_x, state.x_axis, origin)  # type: ignore[arg-type]
            if i < 0:
                continue
            colour, _ = colour_and_marker(scene, state, k, j)
            who = (f"{tid} " if scene.comparing else "") + tag
            wall = float(line.series.wall_times[i])
            relative = wall - origin if origin is not None else float("nan")
            text = Text.assemble(("● ", colour), literal(who, "bold"),
                                 f"  step {int(line.series.steps[i])}",
                                 f"  value {number(line.series.values[i])}")
            if line.smoothed is not None:
                text.append(f"  smoothed {number(line.smoothed[i])}")
            text.append(f"  {short_time(wall)} +{duration(relative)}", style="dim")
            lines.append(text)
    return Text("\n").join(lines) if lines else Text("no point here", style="dim")


def line_traces(x: np.ndarray, raw: np.ndarray, smoothed: np.ndarray | None, colour: str, right: bool = False,
                marker: str = "braille") -> list[Trace]:
    """One series' traces: the line, or the raw values faint under the smoothed line."""
    if smoothed is None:
        return [Trace(x, raw, colour, "line", right, marker)]
    return [Trace(x, raw, colour, "faint", right, marker), Trace(x, smoothed, colour, "smoothed", right, marker)]


def shown_marker(marker: str) -> str:
    return "⣿" if marker == "braille" else marker


def normalise(raw: np.ndarray, smoothed: np.ndarray | None) -> tuple[np.ndarray, np.ndarray | None]:
    """Both scaled so the raw values' finite range is 0..1."""
    finite = raw[np.isfinite(raw)]
    if not len(finite):
        return raw, smoothed
    lo, hi = float(finite.min()), float(finite.max())
    span = hi - lo if hi > lo else 1.0
    return (raw - lo) / span, (None if smoothed is None else (smoothed - lo) / span)


def active_x(scene: Scene, state: ScalarsState) -> np.ndarray:
    """The distinct x of the target chart's series inside the visible range, sorted: where the
    value cursor and a zoom range may stop."""
    chart_id = state.target()
    if chart_id is None:
        return np.empty(0)
    lines = [scene.line(tid, tag, state) for tag in state.chart_tags(chart_id) for tid in scene.train_ids]
    arrays = [line.x for line in lines if line is not None and len(line.x)]
    if not arrays:
        return np.empty(0)
    x = np.unique(np.concatenate(arrays))
    x = x[np.isfinite(x)]
    if state.x_range is not None:
        lo, hi = state.x_range
        x = x[(x >= lo) & (x <= hi)]
    return x


def whole_range(scene: Scene, state: ScalarsState) -> tuple[float, float] | None:
    """The x range the charts show when not zoomed."""
    drawn = [Trace(line.x, line.series.values, "#000000")
             for chart_id in state.chart_ids() for tag in state.chart_tags(chart_id)
             for tid in scene.train_ids if (line := scene.line(tid, tag, state)) is not None]
    return x_limits(drawn, ChartOptions())


def cursor_on_next_axis(scene: Scene, state: ScalarsState) -> float | None:
    """The x on the next x-axis of the point under the value cursor (its first series that has
    one), so `x` keeps the cursor on its point."""
    chart_id = state.target()
    if state.cursor_x is None or chart_id is None:
        return None
    for tag in state.chart_tags(chart_id):
        for tid in scene.train_ids:
            line = scene.line(tid, tag, state)
            if line is None or not len(line.series):
                continue
            origin = scene.origins.get(tid)
            i = value_at(line.series, state.cursor_x, state.x_axis, origin)  # type: ignore[arg-type]
            if i >= 0:
                x = x_values(line.series, state.next_x_axis(), origin)[i]  # type: ignore[arg-type]
                return float(x) if math.isfinite(x) else None
    return None


def grid_shape(width: int, height: int, count: int, fullscreen: bool = False) -> tuple[int, int]:
    """(columns, row height) of the scalar charts' grid: charts at least `MIN_CHART_WIDTH` wide
    and `MIN_CHART_HEIGHT` tall (`grid.grid_shape`)."""
    return shape(width, height, count, fullscreen, min_width=MIN_CHART_WIDTH, min_height=MIN_CHART_HEIGHT)


# -- the view's pace and its messages ----------------------------------------------------------------

def live_interval(cost: float) -> float:
    """Seconds between live redraws: at least `LIVE_REDRAW_SECONDS`, longer when drawing the
    charts the last live redraw drew took `cost` seconds, more than `LIVE_DRAW_SHARE` of that
    time (many or big charts), at most `LIVE_REDRAW_MAX_SECONDS`."""
    return min(LIVE_REDRAW_MAX_SECONDS, max(LIVE_REDRAW_SECONDS, cost / LIVE_DRAW_SHARE))


def threshold_prompt(state: ScalarsState, chart_id: str) -> tuple[str, str]:
    """What `t` asks (markup) and the chart's threshold now, as it would be typed."""
    name = "the combined chart" if chart_id == OVERLAY else markup(chart_id)
    current = describe_threshold(*state.settings(chart_id).threshold).replace(" or ", " ")
    return (f"Highlight points of [b]{name}[/b] beyond a threshold: [b]> 2.5[/b], [b]< 0.1[/b] or both; "
            "empty clears"), current


def threshold_error(text: str) -> str:
    """Why `text` is no threshold ("" when it is one)."""
    try:
        parse_threshold(text)
    except ValueError as exc:
        return str(exc)
    return ""


def rank_view_note(view: int, train_ids: tuple[str, ...]) -> str:
    """What `r` says (markup): the band, the rank drawn over it, or every rank's line."""
    said = ("mean and min–max band" if view == 0 else "every rank's line" if view > len(train_ids)
            else f"band and {train_ids[view - 1]}")
    return markup(said)


def best_note(tag: str, way: str | None) -> str:
    """What `b` says (markup): which way is better for `tag` now."""
    return markup(f"{tag}: " + (f"{way} is better" if way else "no best marked"))
