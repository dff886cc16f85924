"""MindSpore summary files: each event's values routed to their plugin and tag.

A summary value goes to the plugin of the oneof field it sets (compat §3.5); a value setting
none holds no data and is skipped. The events of one layout (the same tags and fields in the
same order) route alike, so `MindSporeRouter` plans a layout once. A histogram of more than
`limits.MAX_HISTOGRAM_BUCKETS` buckets is routed with `left_out` set: MindInsight drops such a
value at load, and keeps its tag. A graph event routes as `graph` when it holds nodes.
"""
from __future__ import annotations

from collections.abc import Sequence

from google.protobuf.message import DecodeError

from ...proto import summary_pb2
from .. import limits
from ..text import text_of
from .routed import RoutedEvent, RoutedValue
from .routing import Layout, TagKey, routes


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


class MindSporeRouter:
    """MindSpore's router: summary events in, `RoutedEvent`s out."""

    decode = staticmethod(decode_event)

    def __init__(self) -> None:
        self._routes: dict[Layout, tuple[tuple[int, TagKey], ...]] = {}  # layouts met, planned

    def route(self, event: summary_pb2.Event) -> RoutedEvent:
        kind = event.WhichOneof("what")
        if kind == "summary":
            values = list(event.summary.value)  # one wrapper per value, reused below
            layout = summary_layout(values)
            planned = self._routes.get(layout)
            if planned is None:
                planned = self._routes[layout] = routes(*layout)
            return RoutedEvent(event.step, event.wall_time, tuple([_value(values[i], i, key) for i, key in planned]))
        return RoutedEvent(event.step, event.wall_time, graph=kind == "graph_def" and len(event.graph_def.node) > 0)


def _value(value, index: int, key: TagKey) -> RoutedValue:
    plugin, tag = key
    if plugin == "scalar":
        return RoutedValue(plugin, tag, index, value.scalar_value)
    if plugin == "histogram" and not histogram_kept(value):
        return RoutedValue(plugin, tag, index, left_out=f"{len(value.histogram.buckets)} buckets: over "
                                                        "MindInsight's limit, not loaded")
    return RoutedValue(plugin, tag, index)
