"""What the custom scalars view shows: each chart's series (colours, x, smoothing, margin
bands), its traces and options, the status line, the sentence in place of an empty grid and the
read-out at the value cursor, from the view's state and the jobs' data."""
from __future__ import annotations

from dataclasses import dataclass
from typing import Mapping

import numpy as np
from rich.text import Text

from ...summary.formats.custom_scalars import Category
from ...summary.queries.custom_scalars import ChartContent
from ...summary.queries.scalars import ScalarSeries, scalar_series, smooth, value_at, x_values
from ...summary.store.job_view import JobView
from ..common.format import number
from ..common.palette import SERIES_COLOURS
from ..common.text import literal, markup
from ..state.custom_scalars import CustomScalarsState
from ..widgets.chart_data import ChartOptions, Trace
from .scalars import line_traces

HINT = "n p category · s S smooth · x axis · y log · ←/→ cursor · tab chart"


@dataclass(frozen=True)
class Drawn:
    """One series of a chart as drawn: its name, colour, x, values, smoothed values, and its band."""

    name: str
    colour: str
    series: ScalarSeries
    x: np.ndarray
    smoothed: np.ndarray | None
    band: tuple[np.ndarray, np.ndarray] | None = None  # (lower, upper) on the series' steps


def bounds_on(series: ScalarSeries, lower: ScalarSeries, upper: ScalarSeries) -> tuple[np.ndarray, np.ndarray]:
    """The lower and upper values at each step of `series` (NaN where a bound has no such step)."""
    def at(bound: ScalarSeries) -> np.ndarray:
        out = np.full(len(series), np.nan)
        index = np.searchsorted(bound.steps, series.steps)
        inside = index < len(bound)
        hit = inside.copy()
        hit[inside] = bound.steps[index[inside]] == series.steps[inside]
        out[hit] = bound.values[index[hit]]
        return out
    return at(lower), at(upper)


def drawn_series(chart_content: ChartContent, views: dict[str, JobView], x_axis: str, smoothing: float,
                 colour_of_job: dict[str, str], comparing: bool) -> list[Drawn]:
    """The series a chart draws, each with its x on `x_axis`, smoothed by `smoothing` (0: not).
    Colours: one per tag (one job), else the job's colour when the chart has one name, else one
    per series."""
    wanted: list[tuple[str, str, str, str]] = []  # (train id, value tag, lower tag, upper tag)
    for tid, tag in chart_content.lines:
        wanted.append((tid, tag, "", ""))
    for line in chart_content.margins:
        m = line.margin
        wanted.append((line.train_id, m.value, m.lower if line.band else "", m.upper if line.band else ""))
    names = list(dict.fromkeys(tag for _, tag, _, _ in wanted))
    out: list[Drawn] = []
    for k, (tid, tag, lower_tag, upper_tag) in enumerate(wanted):
        view = views.get(tid)
        series = scalar_series(view, tag) if view is not None else None
        if view is None or series is None or not len(series):
            continue
        if comparing and len(names) == 1:
            colour = colour_of_job[tid]
        elif comparing:
            colour = SERIES_COLOURS[k % len(SERIES_COLOURS)]
        else:
            colour = SERIES_COLOURS[names.index(tag) % len(SERIES_COLOURS)]
        x = x_values(series, x_axis, view.first_wall_time)  # type: ignore[arg-type]
        smoothed = smooth(series.values, smoothing) if smoothing > 0 else None
        band = None
        if lower_tag and upper_tag:
            lower, upper = scalar_series(view, lower_tag), scalar_series(view, upper_tag)
            if lower is not None and upper is not None:
                band = bounds_on(series, lower, upper)
        out.append(Drawn(f"{tid} {tag}" if comparing else tag, colour, series, x, smoothed, band))
    return out


def traces_of(drawn: list[Drawn]) -> list[Trace]:
    """Bands first, then each series' line (faint under its smoothed line when smoothed)."""
    bands = [Trace.band(d.x, d.band[0], d.band[1], d.colour) for d in drawn if d.band is not None]
    return bands + [trace for d in drawn for trace in line_traces(d.x, d.series.values, d.smoothed, d.colour)]


def chart_options(drawn: list[Drawn], chart_content: ChartContent, x_axis: str, smoothing: float, log_y: bool,
                  cursor_x: float | None) -> ChartOptions:
    legend = tuple(dict.fromkeys((d.colour, d.name) for d in drawn))
    notes = []
    if any(d.band is not None for d in drawn):
        notes.append("shaded: lower..upper")
    if smoothing > 0:
        notes.append(f"smoothed {smoothing:g}, raw faint")
    if chart_content.note:
        notes.append(chart_content.note)
    return ChartOptions(x_axis=x_axis, log_y=log_y, cursor_x=cursor_x, legend=legend, note=" · ".join(notes))


def empty_reason(category: Category | None, train_ids: tuple[str, ...] | list[str], loading: bool) -> str:
    """What shows in place of the grid when the category has no charts (or there is no layout)."""
    if category is None:
        if loading:
            return "loading…"
        return f"No custom scalars layout in {', '.join(train_ids)} (tensorboardX add_custom_scalars writes one)."
    return f"The category {category.title} has no charts."


def status(state: CustomScalarsState, category: Category | None, titles: list[str],
           contents: list[ChartContent]) -> str:
    """The status line: the category (n of all `titles`), x-axis, smoothing, log y, the keys."""
    if category is None:
        return "no layout"
    where = f" ({titles.index(category.title) + 1}/{len(titles)})" if category.title in titles else ""
    parts = [f"[b]{markup(category.title)}[/]{where}"]
    if contents and all(c.empty for c in contents):
        parts.append("[yellow]no chart of this category matches a scalar tag[/]")
    parts.append(f"x: {state.x_axis}")
    parts.append(f"smoothing {state.smoothing:g}" if state.smoothing else "no smoothing")
    if state.log_y:
        parts.append("log y")
    parts.append(f"[dim]{HINT}[/]")
    return " · ".join(parts)


def readout(state: CustomScalarsState, drawn: list[list[Drawn]], origins: Mapping[str, float | None],
            has_charts: bool) -> Text | str:
    """Each series of the active chart at the cursor: step, value, smoothed value, band
    (`drawn`: each cell's series; `origins`: each job's first wall time)."""
    if state.cursor_x is None or not 0 <= state.active < len(drawn):
        return "[dim]←/→ value cursor on the focused chart · ? every key[/dim]" if has_charts else ""
    lines = []
    for d in drawn[state.active]:
        origin = origins.get(d.series.train_id)
        i = value_at(d.series, state.cursor_x, state.x_axis, origin)  # type: ignore[arg-type]
        if i < 0:
            continue
        text = Text.assemble(("● ", d.colour), literal(d.name, "bold"), f"  step {int(d.series.steps[i])}",
                             f"  value {number(d.series.values[i])}")
        if d.smoothed is not None:
            text.append(f"  smoothed {number(d.smoothed[i])}")
        if d.band is not None:
            text.append(f"  band {number(d.band[0][i])}..{number(d.band[1][i])}")
        lines.append(text)
    return Text("\n").join(lines) if lines else Text("no point here", style="dim")


def cursor_stops(drawn: list[list[Drawn]], active: int) -> list[float]:
    """Where the value cursor may stop on the active chart: its series' distinct finite x."""
    series = drawn[active] if 0 <= active < len(drawn) else []
    arrays = [d.x[np.isfinite(d.x)] for d in series]
    return (np.unique(np.concatenate(arrays)) if arrays else np.empty(0)).tolist()
