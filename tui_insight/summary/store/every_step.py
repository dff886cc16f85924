"""Every value of a job's files, routed and decoded as the store routes and decodes them, for
the all-steps export; and the store's restart rules, applied to a tag's values at once.

`every_value` reads the job's files in the store's read order (by file id) through the same
framing (`bulk_framing.scan_batches`), the same routers (`mindspore.MindSporeRouter`,
`tensorboard.TensorBoardRouter`) and the same payload decoders (`payloads.value_decoder`), and
yields each exported value and each TensorBoard restart, in read order. It keeps only what
routing needs (each TensorBoard tag's plugin, the summary layouts met), as the store does:
memory does not grow with the length of the run.

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
from ..formats import tensorboard as tb
from ..formats.bulk_framing import scan_batches
from ..formats.framing import ScanReport
from ..formats.payloads import samples_decoder, value_decoder
from ..formats.mindspore import MindSporeRouter
from ..formats.routed import RoutedEvent, Router
from ..formats.routing import file_read_order
from ..formats.tensorboard import TensorBoardRouter
from ..formats.values import PayloadError
from ..sources.local import Source
from .series import survivors

EXPORTED = ("scalar", "histogram", "tensor", "image", "text", "pr_curve")  # the plugins exported step by step
TagKey = tuple[str, str]
_BATCH_BYTES = 4 << 20  # bytes of records read and routed at once
# The payload plugins of `EXPORTED` each format's router can route to (images: `samples_decoder`).
_DECODED = {"summary": ("histogram", "tensor"), "tensorboard": ("histogram", "tensor", "text", "pr_curve")}


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
    routers: dict[str, Router] = {"summary": MindSporeRouter(), "tensorboard": TensorBoardRouter()}
    decoders: dict[str, dict[str, Callable[[Any], Any] | None]] = {  # by plugin; None: the number as it is
        dialect: {**{plugin: value_decoder(plugin, dialect) for plugin in _DECODED[dialect]},
                  "image": samples_decoder(dialect), "scalar": None}
        for dialect in routers}
    seq = 0
    for fid, path in enumerate(files):
        dialect = "tensorboard" if tb.is_tensorboard_file(os.path.basename(path)) else "summary"
        router, decoder_of = routers[dialect], decoders[dialect]
        try:
            for payload in _payloads(path, source):
                seq += 1
                event = router.decode(payload)
                if event is not None:  # (a bad record: the job's state counts it)
                    yield from _values(seq, ranks[fid], event, router.route(event), decoder_of, keep)
        except OSError as exc:
            yield Unread(path, exc.strerror or str(exc))


def _payloads(path: str, source: Source) -> Iterator[bytes]:
    """Every good record's payload of a file (the store's framing)."""
    size = source.stat(path).st_size
    with source.open_range(path, 0, size) as fh:
        for batch in scan_batches(fh, 0, size, ScanReport(), max_bytes=_BATCH_BYTES):
            yield from batch.payloads


def _values(seq: int, rank: int, event, routed: RoutedEvent, decoder_of: dict[str, Callable[[Any], Any] | None],
            keep: Callable[[TagKey], bool]) -> Iterator[StepValue | Restart | Dropped]:
    if routed.restart:
        yield Restart(seq, routed.step)
        return
    for value, number in zip(routed.values, routed.numbers):
        key = (value.plugin, value.tag)
        if value.plugin not in decoder_of or not keep(key):
            continue
        decoder = decoder_of[value.plugin]
        if decoder is None:
            yield StepValue(seq, rank, routed.step, routed.wall_time, key, number)
        elif value.left_out:
            yield Dropped(key, routed.step, value.left_out)
        else:
            yield _decoded(seq, rank, routed.step, routed.wall_time, key, decoder, event.summary.value[value.index])


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
