"""Custom scalar layouts: what tensorboardX's `add_custom_scalars` writes.

A layout (proto/tensorboard/tb_custom_scalar.proto) names categories of charts over the job's
scalar tags: a multiline chart draws every scalar tag matching one of its regular expressions,
a margin chart draws a value tag with a band between a lower and an upper tag. It travels as
the one string of a tensor whose plugin is "custom_scalars", written once at step 0; a job
keeps the last layout it read (TensorBoard's rule: the newest layout wins).
"""
from __future__ import annotations

import re
from dataclasses import dataclass
from typing import TYPE_CHECKING, Iterable

from google.protobuf.message import DecodeError

from ...proto import tb_event_pb2

if TYPE_CHECKING:
    from ...proto import tb_custom_scalar_pb2
from ..text import text_of
from .routed import CUSTOM_SCALARS

PLUGIN = CUSTOM_SCALARS  # the plugin name as written
CSV_COLUMNS = ("train_id", "category", "chart", "kind", "tags")  # tags: regexes, or margin series
MAX_CHARTS = 200  # charts kept a layout (a layout comes from a file)


@dataclass(frozen=True)
class Margin:
    """One margin series: the value tag, drawn with a band between the lower and upper tags."""

    value: str
    lower: str
    upper: str


@dataclass(frozen=True)
class Chart:
    """One chart of a custom-scalars layout: lines of tags matched by patterns, or margins."""

    title: str
    kind: str  # "multiline" or "margin"
    tags: tuple[str, ...] = ()  # multiline: regular expressions over scalar tags
    margins: tuple[Margin, ...] = ()  # margin: its series


@dataclass(frozen=True)
class Category:
    """A titled group of charts of a custom-scalars layout."""

    title: str
    charts: tuple[Chart, ...]
    closed: bool = False  # the writer asked for it folded


@dataclass(frozen=True)
class Layout:
    """A run's custom-scalars layout: its categories in order."""

    categories: tuple[Category, ...]


def layout_of(value: tb_event_pb2.Summary.Value) -> Layout | str:
    """The layout in a custom_scalars value, or why it cannot be read (a line for the UI)."""
    tensor = value.tensor
    if value.WhichOneof("value") != "tensor" or tensor.dtype != tb_event_pb2.DT_STRING or not tensor.string_val:
        return "custom scalars layout: not a string tensor"
    from ...proto import tb_custom_scalar_pb2  # (5 ms: imported for a layout, not with CSV_COLUMNS)

    proto = tb_custom_scalar_pb2.Layout()
    try:
        proto.ParseFromString(tensor.string_val[0])
    except DecodeError:
        return "custom scalars layout cannot be decoded"
    left = MAX_CHARTS
    categories = []
    for category in proto.category:
        charts = tuple(_chart(chart) for chart in category.chart[:left])
        left -= len(charts)
        categories.append(Category(text_of(category.title), charts, category.closed))
    return Layout(tuple(categories))


def _chart(chart: tb_custom_scalar_pb2.Chart) -> Chart:
    title = text_of(chart.title)
    if chart.WhichOneof("content") == "margin":
        return Chart(title, "margin", margins=tuple(Margin(text_of(s.value), text_of(s.lower), text_of(s.upper)) for s in chart.margin.series))
    return Chart(title, "multiline", tags=tuple(text_of(t) for t in chart.multiline.tag))


def matching(patterns: Iterable[str], tags: Iterable[str]) -> list[str]:
    """The tags matching any of the patterns (`re.search`, as TensorBoard), in the tags' order.
    A pattern that is no regular expression matches its own text only."""
    compiled = []
    for pattern in patterns:
        try:
            compiled.append(re.compile(pattern))
        except re.error:
            compiled.append(re.compile(re.escape(pattern)))
    return [tag for tag in tags if any(c.search(tag) for c in compiled)]


def rows(train_id: str, layout: Layout) -> list[list[str]]:
    """The layout as table rows: train_id, category, chart, kind, tags or series (`;`-joined;
    a margin series as value,lower,upper)."""
    out = []
    for category in layout.categories:
        for chart in category.charts:
            if chart.kind == "margin":
                what = ";".join(f"{m.value},{m.lower},{m.upper}" for m in chart.margins)
            else:
                what = ";".join(chart.tags)
            out.append([train_id, category.title, chart.title, chart.kind, what])
    return out


def to_json(layout: Layout) -> list:
    """The layout as plain lists (the disk cache's snapshots keep it so)."""
    return [[c.title, c.closed, [[ch.title, ch.kind, list(ch.tags), [[m.value, m.lower, m.upper] for m in ch.margins]]
                                 for ch in c.charts]] for c in layout.categories]


def from_json(data: object) -> Layout:
    """The layout `to_json` wrote; ValueError when `data` is not such lists."""
    if not isinstance(data, list):
        raise ValueError("custom scalars layout: not a list")
    categories = []
    for title, closed, charts in data:
        kept = []
        for chart_title, kind, tags, margins in charts:
            strings = [chart_title, kind, *tags, *(s for m in margins for s in m)]
            if kind not in ("multiline", "margin") or not all(isinstance(s, str) for s in strings) \
                    or not all(len(m) == 3 for m in margins):
                raise ValueError("custom scalars layout: malformed chart")
            kept.append(Chart(chart_title, kind, tuple(tags), tuple(Margin(*m) for m in margins)))
        if not isinstance(title, str) or not isinstance(closed, bool):
            raise ValueError("custom scalars layout: malformed category")
        categories.append(Category(title, tuple(kept), closed))
    return Layout(tuple(categories))
