"""Every value of a job's files, routed and decoded as the store routes and decodes them, for
the all-steps export; and the store's restart rules, applied to a tag's values at once.

`every_value` reads the job's files in the store's read order (by file id) through the same
framing (`bulk_framing.scan_batches`), the same routing (`routing.routes` for summary events,
`tensorboard.event_of` for TensorBoard events) and the same payload decoders
(`payloads.value_decoder`), and yields each exported value and each TensorBoard restart, in
read order. It keeps only what routing needs (each TensorBoard tag's plugin, the summary
layouts met), as the store does: memory does not grow with the length of the run.

`RestartRules` applies the store's rules to one tag's values (`Series.merge`, `Series.before`):
- a TensorBoard restart (SessionLog START at step s, torch's `purge_step`) drops the steps >= s
  read before it;
- a step written again replaces the value read before (compat §3.8);
- a step written to a newer file drops the later steps that came from older files (a resume,
  compat §3.8; a TensorBoard run's files in name order).
"""
from __future__ import annotations

import os
from collections.abc import Callable, Iterator
from typing import Any, NamedTuple

import numpy as np
from google.protobuf.message import DecodeError

from ...proto import summary_pb2
from ..formats import tensorboard as tb
from ..formats.bulk_framing import scan_batches
from ..formats.framing import ScanReport
from ..formats.payloads import samples_decoder, value_decoder
from ..formats.routing import file_read_order, histogram_kept, routes, summary_layout
from ..formats.values import PayloadError
from ..sources.local import Source
from .series import survivors

EXPORTED = ("scalar", "histogram", "tensor", "image", "text", "pr_curve")  # the plugins exported step by step
TagKey = tuple[str, str]
_BATCH_BYTES = 4 << 20  # bytes of records read and routed at once


class StepValue(NamedTuple):
    seq: int  # the event's position in the job's read order
    rank: int  # its file's rank for the restart rules (`routing.file_read_order`)
    step: int
    wall_time: float
    key: TagKey  # (plugin, tag)
    data: Any  # a float for scalars; else the payload decoder's object (TensorData, HistogramData, ...)


class Restart(NamedTuple):
    """A TensorBoard SessionLog START: the steps >= `step` read before it are dropped."""

    seq: int
    step: int


class Dropped(NamedTuple):
    """A value that is not exported, and why (for problems.csv)."""

    key: TagKey
    step: int
    reason: str


class Unread(NamedTuple):
    """A file (or its rest) that could not be read, and why: its values are missing."""

    path: str
    reason: str


def every_value(files: tuple[str, ...], source: Source, keep: Callable[[TagKey], bool]
                ) -> Iterator[StepValue | Restart | Dropped | Unread]:
    """Every value of the plugins in `EXPORTED` that `keep` keeps, every restart and every value
    left out, in the store's read order of `files` (a job's file paths by file id); a file that
    cannot be read, or not to its end, is said (`Unread`) and the next one read."""
    order = sorted(range(len(files)), key=lambda i: file_read_order(os.path.basename(files[i])))
    ranks = {fid: rank for rank, fid in enumerate(order)}
    plugins = tb.TagPlugins()  # a TensorBoard tag's plugin is named in its first value only
    layouts: dict = {}  # summary layout -> its routes
    seq = 0
    for fid, path in enumerate(files):
        if tb.is_tensorboard_file(os.path.basename(path)):
            read = _tensorboard_values(plugins, ranks[fid], keep)
        else:
            read = _summary_values(layouts, ranks[fid], keep)
        try:
            for payload in _payloads(path, source):
                seq += 1
                yield from read(seq, payload)
        except OSError as exc:
            yield Unread(path, exc.strerror or str(exc))


def _payloads(path: str, source: Source) -> Iterator[bytes]:
    """Every good record's payload of a file (the store's framing)."""
    size = source.stat(path).st_size
    with source.open_range(path, 0, size) as fh:
        for batch in scan_batches(fh, 0, size, ScanReport(), max_bytes=_BATCH_BYTES):
            yield from batch.payloads


def _summary_values(layouts: dict, rank: int, keep: Callable[[TagKey], bool]):
    decoders: dict[str, Callable[[Any], Any] | None] = {
        plugin: value_decoder(plugin, "summary") for plugin in ("histogram", "tensor")}
    decoders["image"] = samples_decoder("summary")
    decoders["scalar"] = None  # the number, as it is

    def read(seq: int, payload: bytes) -> Iterator[StepValue | Dropped]:
        try:
            event = summary_pb2.Event.FromString(payload)
        except DecodeError:
            return  # a bad record: the job's state counts it
        if event.WhichOneof("what") != "summary":
            return
        values = event.summary.value
        layout = summary_layout(values)
        routed = layouts.get(layout)
        if routed is None:
            routed = layouts[layout] = tuple((i, key) for i, key in routes(*layout)
                                             if key[0] in decoders and keep(key))
        step, wall = event.step, event.wall_time
        for index, key in routed:
            value = values[index]
            plugin = key[0]
            if plugin == "scalar":
                yield StepValue(seq, rank, step, wall, key, value.scalar_value)
            elif plugin == "histogram" and not histogram_kept(value):
                yield Dropped(key, step, f"{len(value.histogram.buckets)} buckets: over MindInsight's limit, "
                                         "not loaded")
            else:
                yield _decoded(seq, rank, step, wall, key, decoders[plugin], value)
    return read


def _tensorboard_values(plugins: tb.TagPlugins, rank: int, keep: Callable[[TagKey], bool]):
    decoders = {plugin: value_decoder(plugin, "tensorboard") for plugin in EXPORTED if plugin not in ("scalar", "image")}
    decoders["image"] = samples_decoder("tensorboard")

    def read(seq: int, payload: bytes) -> Iterator[StepValue | Restart | Dropped]:
        event = tb.decode_event(payload)
        if event is None:
            return  # a bad record: the job's state counts it
        routed = tb.event_of(event, plugins)
        if routed.restart:
            yield Restart(seq, routed.step)
            return
        for value in routed.values:
            key = (value.plugin, value.tag)
            if value.plugin == "scalar":
                if keep(key):
                    yield StepValue(seq, rank, routed.step, routed.wall_time, key, value.scalar)
            elif value.plugin in decoders and keep(key):
                yield _decoded(seq, rank, routed.step, routed.wall_time, key, decoders[value.plugin],
                               event.summary.value[value.index])
    return read


def _decoded(seq: int, rank: int, step: int, wall: float, key: TagKey, decoder, value) -> StepValue | Dropped:
    try:
        return StepValue(seq, rank, step, wall, key, decoder(value))
    except PayloadError as exc:
        return Dropped(key, step, str(exc))


class RestartRules:
    """The store's rules over a job's values, tag by tag; `restarts`: the job's, in read order."""

    def __init__(self, restarts: list[Restart]):
        self._seqs = np.array([r.seq for r in restarts], dtype=np.int64)
        steps = np.array([r.step for r in restarts], dtype=np.int64)
        # The smallest restart step read after each restart's position: the floor a value read
        # before it must stay under.
        floor = np.minimum.accumulate(steps[::-1])[::-1] if len(steps) else steps
        self._floor = np.append(floor, np.iinfo(np.int64).max)

    def kept(self, seqs: np.ndarray, steps: np.ndarray, ranks: np.ndarray) -> np.ndarray | None:
        """Mask of one tag's values (in read order) that the rules keep; None when they keep
        every one and the steps only grow (training appends: the common case)."""
        keep = None
        if len(self._seqs):
            under = steps < self._floor[np.searchsorted(self._seqs, seqs, side="right")]
            if not under.all():
                keep = under
        if keep is None:
            if len(steps) == 1 or bool(np.all(steps[1:] > steps[:-1])):
                return None
            return survivors(steps, ranks)
        rows = np.flatnonzero(keep)
        keep[rows] = survivors(steps[rows], ranks[rows])
        return keep
