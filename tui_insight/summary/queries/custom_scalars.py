"""Custom scalar layouts over jobs: which categories there are and what each chart draws.

Pure functions over `JobView` snapshots. The shown jobs' layouts are merged as TensorBoard's
custom scalars dashboard merges its runs' layouts: categories by title in the order first met,
a chart kept once however many jobs name it. A multiline chart draws every scalar tag of every
job matching one of its regular expressions (`re.search`); a margin chart draws each series'
value tag of every job that has it, with the band between its lower and upper tags where the
job has both. A chart that draws nothing says why (`ChartContent.empty`).
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Mapping, Sequence

from ..formats.custom_scalars import Category, Chart, Margin, matching
from ..store.job_view import JobView


def categories(views: Sequence[JobView]) -> list[Category]:
    """The jobs' layouts merged: categories by title (the first job's order, then new ones), each
    with the charts any job puts there, once. Folded (`closed`) when every layout naming it folds it."""
    merged: dict[str, tuple[list[Chart], bool]] = {}
    for view in views:
        if view.custom_scalars is None:
            continue
        for category in view.custom_scalars.categories:
            charts, closed = merged.get(category.title, ([], True))
            charts.extend(chart for chart in category.charts if chart not in charts)
            merged[category.title] = (charts, closed and category.closed)
    return [Category(title, tuple(charts), closed) for title, (charts, closed) in merged.items()]


@dataclass(frozen=True)
class MarginLine:
    """One job's margin series: the value tag, and the bounds when the job has both."""

    train_id: str
    margin: Margin
    band: bool  # the job has the lower and the upper tag


@dataclass(frozen=True)
class ChartContent:
    """What one custom-scalars chart draws, or why it draws nothing."""

    lines: tuple[tuple[str, str], ...] = ()  # multiline: (train_id, tag), tag by tag, jobs in order
    margins: tuple[MarginLine, ...] = ()
    empty: str = ""  # why nothing is drawn ("" when something is)
    note: str = ""  # what is drawn only in part (a margin without its band)


def content(chart: Chart, views: Sequence[JobView]) -> ChartContent:
    """What `chart` draws from the scalar tags of `views`."""
    tags_of = {view.train_id: view.tag_names("scalar") for view in views}
    if chart.kind == "margin":
        return _margins(chart, tags_of)
    every = sorted({tag for tags in tags_of.values() for tag in tags})
    lines = tuple((tid, tag) for tag in matching(chart.tags, every) for tid, tags in tags_of.items() if tag in tags)
    if not chart.tags:
        return ChartContent(empty="this chart names no tag")
    if not lines:
        return ChartContent(empty="no scalar tag matches " + ", ".join(chart.tags))
    return ChartContent(lines=lines)


def _margins(chart: Chart, tags_of: Mapping[str, Sequence[str]]) -> ChartContent:
    found: list[MarginLine] = []
    unbounded: list[str] = []
    for margin in chart.margins:
        for tid, tags in tags_of.items():
            if margin.value in tags:
                band = margin.lower in tags and margin.upper in tags
                found.append(MarginLine(tid, margin, band))
                if not band and margin.value not in unbounded:
                    unbounded.append(margin.value)
    if not chart.margins:
        return ChartContent(empty="this chart names no series")
    if not found:
        return ChartContent(empty="no scalar tag " + ", ".join(m.value for m in chart.margins))
    note = f"no band for {', '.join(unbounded)}: its lower or upper tag is missing" if unbounded else ""
    return ChartContent(margins=tuple(found), note=note)
