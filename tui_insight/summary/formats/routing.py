"""What both formats' routing shares, and in what order a job's files count: the rules the
loader and the all-steps export share, so both read a job the same way.

A layout (the tags of an event's values and the field or plugin of each) routes each value to
(plugin, tag): MindSpore's fields (compat §3.5), TensorBoard's `simple_value` for layouts read
in bulk (and `histo`), and the plugin names the routers give (`mindspore.MindSporeRouter`,
`tensorboard.TensorBoardRouter`).

A job's files are ranked for the restart rules (`series.survivors`): summary files by
timestamp (compat §3.4), then TensorBoard files by name (TensorBoard's order).
"""
from __future__ import annotations

import os
from collections.abc import Sequence

from .file_names import is_tensorboard_file, summary_sort_key, tensorboard_sort_key
from .routed import PLUGINS

PLUGIN_OF_FIELD = {
    "scalar_value": "scalar",
    "histogram": "histogram",
    "tensor": "tensor",
    "image": "image",
    "loss_landscape": "loss_landscape",
    # TensorBoard values (`routed.RoutedValue.plugin`, and `simple_value` for bulk-read layouts)
    "simple_value": "scalar",
    "histo": "histogram",
    **{plugin: plugin for plugin in PLUGINS if plugin != "graph"},
}
TagKey = tuple[str, str]  # (plugin, tag as written)
Layout = tuple[tuple[str, ...], tuple["str | None", ...]]


def routes(tags: Sequence[str], kinds: Sequence[str | None]) -> tuple[tuple[int, TagKey], ...]:
    """(index of the value in the event, (plugin, tag)) of each value of a layout that holds data."""
    return tuple((index, (PLUGIN_OF_FIELD[kind], tag))
                 for index, (tag, kind) in enumerate(zip(tags, kinds)) if kind is not None)


def is_tensorboard_path(path: str) -> bool:
    return is_tensorboard_file(os.path.basename(path))


def file_read_order(name: str) -> tuple:
    """Sort key of a job's file (its name) for the restart rules: summary files by timestamp
    (compat §3.4), then TensorBoard files by name."""
    if is_tensorboard_file(name):
        return (1, tensorboard_sort_key(name))
    return (0, summary_sort_key(name))
