"""Where the values of an event go, and in what order a job's files count: the rules the
loader and the all-steps export share, so both read a job the same way.

A MindSpore summary value goes to the plugin of the oneof field it sets (compat §3.5): the
events of one layout (the same tags and fields in the same order) route alike, which is what
lets the loader plan a layout once. A histogram of more than `limits.MAX_HISTOGRAM_BUCKETS`
buckets is dropped at load, as MindInsight drops it. TensorBoard values are routed by
`tensorboard.event_of` (plugins named in metadata); their plugin names are in
`PLUGIN_OF_FIELD` too, for layouts read in bulk.

A job's files are ranked for the restart rules (`series.survivors`): summary files by
timestamp (compat §3.4), then TensorBoard files by name (TensorBoard's order).
"""
from __future__ import annotations

import os
from collections.abc import Sequence

from .. import limits
from ..text import text_of
from . import tensorboard as tb
from .file_names import summary_sort_key

PLUGIN_OF_FIELD = {
    "scalar_value": "scalar",
    "histogram": "histogram",
    "tensor": "tensor",
    "image": "image",
    "loss_landscape": "loss_landscape",
    # TensorBoard values (`tensorboard.TBValue.plugin`, and `simple_value` for bulk-read layouts)
    "simple_value": "scalar",
    **{plugin: plugin for plugin in tb.PLUGINS if plugin != "graph"},
}
TagKey = tuple[str, str]  # (plugin, tag as written)
Layout = tuple[tuple[str, ...], tuple["str | None", ...]]


def summary_layout(values: Sequence) -> Layout:
    """A summary event's layout: its values' tags and the field each sets (None: no data)."""
    return tuple([text_of(v.tag) for v in values]), tuple([v.WhichOneof("value") for v in values])


def routes(tags: Sequence[str], kinds: Sequence[str | None]) -> tuple[tuple[int, TagKey], ...]:
    """(index of the value in the event, (plugin, tag)) of each value of a layout that holds data."""
    return tuple((index, (PLUGIN_OF_FIELD[kind], tag))
                 for index, (tag, kind) in enumerate(zip(tags, kinds)) if kind is not None)


def histogram_kept(value) -> bool:
    """Whether a MindSpore histogram value is loaded: MindInsight drops one of more than
    `limits.MAX_HISTOGRAM_BUCKETS` buckets (compat §3.5)."""
    return len(value.histogram.buckets) <= limits.MAX_HISTOGRAM_BUCKETS


def is_tensorboard_path(path: str) -> bool:
    return tb.is_tensorboard_file(os.path.basename(path))


def file_read_order(name: str) -> tuple:
    """Sort key of a job's file (its name) for the restart rules: summary files by timestamp
    (compat §3.4), then TensorBoard files by name."""
    if tb.is_tensorboard_file(name):
        return (1, tb.sort_key(name))
    return (0, summary_sort_key(name))
