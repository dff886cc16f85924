"""MindSpore summary files: each event's values routed to their plugin and tag.

A summary value goes to the plugin of the oneof field it sets (compat §3.5); a value setting
none holds no data and is skipped. The events of one layout (the same tags and fields in the
same order) route alike, so `MindSporeRouter` plans a layout once. A histogram of more than
`limits.MAX_HISTOGRAM_BUCKETS` buckets is routed with `left_out` set: MindInsight drops such a
value at load, and keeps its tag. A graph event routes as `graph` when it holds nodes.
"""
from __future__ import annotations

from collections.abc import Sequence
from typing import NamedTuple

from google.protobuf.message import DecodeError

from ...proto import summary_pb2
from .. import limits
from ..text import text_of
from .routed import RoutedEvent, RoutedValue
from .routing import Layout, routes


def decode_event(payload: bytes) -> summary_pb2.Event | None:
    """The payload parsed as an Event, None if it is not one."""
    try:
        return summary_pb2.Event.FromString(payload)
    except DecodeError:
        return None


def summary_layout(values: Sequence) -> Layout:
    """A summary event's layout: its values' tags and the field each sets (None: no data)."""
    return tuple([text_of(v.tag) for v in values]), tuple([v.WhichOneof("value") for v in values])


def histogram_kept(value) -> bool:
    """Whether a histogram value is loaded: MindInsight drops one of more than
    `limits.MAX_HISTOGRAM_BUCKETS` buckets (compat §3.5)."""
    return len(value.histogram.buckets) <= limits.MAX_HISTOGRAM_BUCKETS


class _Plan(NamedTuple):
    """How the values of one layout route: each value's `RoutedValue`, and which of them get
    each event's number or have their bucket count checked."""

    values: tuple[RoutedValue, ...]
    scalars: tuple[tuple[int, int], ...]  # (position in `values`, index in the event)
    histograms: tuple[tuple[int, int], ...]  # (position, index)


class MindSporeRouter:
    """MindSpore's router: summary events in, `RoutedEvent`s out (their `layout` set)."""

    decode = staticmethod(decode_event)
    MAX_LAYOUTS = 4096  # layouts remembered (a hostile file may make a new one per event)

    def __init__(self) -> None:
        self._plans: dict[tuple, _Plan] = {}

    def route(self, event: summary_pb2.Event) -> RoutedEvent:
        kind = event.WhichOneof("what")
        if kind != "summary":
            return RoutedEvent(event.step, event.wall_time, graph=kind == "graph_def" and len(event.graph_def.node) > 0)
        values = list(event.summary.value)  # one wrapper per value, reused below
        key = (tuple([v.tag for v in values]), tuple([v.WhichOneof("value") for v in values]))
        plan = self._plans.get(key)
        if plan is None:
            plan = self._plan(key)
        numbers: list[float | None] = [None] * len(plan.values)
        for position, index in plan.scalars:
            numbers[position] = values[index].scalar_value
        routed = plan.values
        for position, index in plan.histograms:
            if not histogram_kept(values[index]):
                buckets = len(values[index].histogram.buckets)
                left_out = routed[position]._replace(left_out=f"{buckets} buckets: over MindInsight's limit, not loaded")
                routed = (*routed[:position], left_out, *routed[position + 1:])
        return RoutedEvent(event.step, event.wall_time, routed, tuple(numbers), layout=key)

    def _plan(self, key: tuple) -> _Plan:
        tags, kinds = key
        planned = routes([text_of(tag) for tag in tags], kinds)
        routed = tuple(RoutedValue(plugin, tag, index) for index, (plugin, tag) in planned)
        scalars = tuple((position, index) for position, (index, (plugin, _)) in enumerate(planned)
                        if plugin == "scalar")
        histograms = tuple((position, index) for position, (index, (plugin, _)) in enumerate(planned)
                           if plugin == "histogram")
        if len(self._plans) >= self.MAX_LAYOUTS:
            self._plans.clear()
        plan = self._plans[key] = _Plan(routed, scalars, histograms)
        return plan
