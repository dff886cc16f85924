"""Scalars of repeated events gathered in blocks (`ScalarBlock`), and the bulk layout
decoder's rows turned into them (`bulk_rows`): the loader's fast path, no Python per value."""
from __future__ import annotations

from typing import Iterator

import numpy as np

from ..formats.bulk_framing import Payloads, period_of
from .job_view import TagKey


class ScalarBlock:
    """Scalars of the events that share one layout (same tags in the same order).

    Training logs repeat the same layout step after step: events decoded one by one append one
    list of values each, events read in bulk (`layouts.Layout`) append numpy chunks, and both
    become per-tag columns at merge time.
    """

    def __init__(self, keys: tuple[TagKey, ...], payloads: tuple[tuple[int, TagKey], ...] = ()):
        self.keys = keys
        self.payloads = payloads  # (index of the value in the event, tag) of values read on demand
        self.histograms = tuple(p for p in payloads if p[1][0] == "histogram")
        self.images = tuple(index for index, key in payloads if key[0] == "image")  # their value indices
        self._one_each = (1,) * len(self.images)  # a Summary.Image holds one image
        self._clear()

    def _clear(self) -> None:
        self._clear_scalars()
        self.p_seq: list[int] = []  # events of this layout with payloads: one entry per event
        self.p_step: list[int] = []
        self.p_wall_time: list[float] = []
        self.p_fid: list[int] = []
        self.p_offset: list[int] = []
        self.p_samples: list[tuple[int, ...]] = []  # per event: the images each of `images` holds
        self.dropped: list[tuple[int, int]] = []  # (event row, value index): a value left out
        # Events with payloads read in bulk: (seq, step, wall_time, fid, offset) arrays each.
        self.p_chunks: list[tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray]] = []

    def _clear_scalars(self) -> None:
        self.seq: list[int] = []
        self.step: list[int] = []
        self.wall_time: list[float] = []
        self.fid: list[int] = []
        self.values: list[list[float]] = []
        self.chunks: list[tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray]] = []

    def add_scalars(self, seq: int, step: int, wall_time: float, fid: int, values: list[float]) -> None:
        """One event's scalar values (decoded one by one), in the order of `keys`."""
        self.seq.append(seq)
        self.step.append(step)
        self.wall_time.append(wall_time)
        self.fid.append(fid)
        self.values.append(values)

    def add_payload_event(self, seq: int, step: int, wall_time: float, fid: int, offset: int,
                          samples: tuple[int, ...] | None = None) -> None:
        """An event with payloads; `samples`: how many images each of `images` holds (one each if None)."""
        self.p_seq.append(seq)
        self.p_step.append(step)
        self.p_wall_time.append(wall_time)
        self.p_fid.append(fid)
        self.p_offset.append(offset)
        if self.images:
            self.p_samples.append(self._one_each if samples is None else samples)

    def add_payload_chunk(self, seq: np.ndarray, step: np.ndarray, wall_time: np.ndarray, fid: int,
                          offset: np.ndarray) -> None:
        """Events with payloads read in bulk (a Summary.Image holds one image: no `samples`)."""
        self.p_chunks.append((seq, step, wall_time, np.full(len(seq), fid, dtype=np.int32), offset))

    def drop(self, index: int) -> None:
        """The last event's value at `index` is left out (a histogram with too many buckets)."""
        self.dropped.append((len(self.p_seq) - 1, index))

    def drain_payloads(self) -> Iterator[tuple[TagKey, dict[str, np.ndarray]]]:
        if not self.p_seq and not self.p_chunks:
            return
        # Events one by one first (`dropped` counts their rows), then the bulk chunks, then
        # all of them back into read order.
        names = ("seq", "step", "wall_time", "fid", "offset")
        parts = [(np.array(self.p_seq, dtype=np.int64), np.array(self.p_step, dtype=np.int64),
                  np.array(self.p_wall_time, dtype=np.float64), np.array(self.p_fid, dtype=np.int32),
                  np.array(self.p_offset, dtype=np.int64)), *self.p_chunks]
        singles = len(self.p_seq)
        samples = np.array(self.p_samples, dtype=np.int32).reshape(singles, len(self.images))
        if self.p_chunks:
            parts = [part for part in parts if len(part[0])]
            common = {name: np.concatenate(cols) if len(parts) > 1 else cols[0] for name, cols in zip(names, zip(*parts))}
            n = len(common["seq"])
            samples = np.concatenate([samples, np.ones((n - singles, len(self.images)), dtype=np.int32)])
        else:
            common = dict(zip(names, parts[0]))
            n = singles
        order = None
        if self.p_chunks and n > 1 and not bool(np.all(common["seq"][1:] > common["seq"][:-1])):
            order = np.argsort(common["seq"], kind="stable")
            common = {name: col[order] for name, col in common.items()}
            samples = samples[order]
        dropped = self.dropped
        self.p_seq, self.p_step, self.p_wall_time, self.p_fid, self.p_offset = [], [], [], [], []
        self.p_samples = []
        self.dropped = []
        self.p_chunks = []
        for index, key in self.payloads:
            cols = {**common, "index": np.full(n, index, dtype=np.int32)}
            if key[0] == "image":
                cols["samples"] = np.ascontiguousarray(samples[:, self.images.index(index)])
            rows = [row for row, i in dropped if i == index]
            if rows:
                keep = np.ones(n, dtype=bool)
                keep[rows] = False
                if order is not None:
                    keep = keep[order]
                cols = {name: col[keep] for name, col in cols.items()}
            yield key, cols

    def add_chunk(self, seq: np.ndarray, step: np.ndarray, wall_time: np.ndarray, fid: int,
                  values: np.ndarray) -> None:
        self.chunks.append((seq, step, wall_time, np.full(len(seq), fid, dtype=np.int32), values))

    def drain(self) -> Iterator[tuple[TagKey, dict[str, np.ndarray]]]:
        chunks = self.chunks
        if self.step:
            chunks = chunks + [(
                np.array(self.seq, dtype=np.int64),
                np.array(self.step, dtype=np.int64),
                np.array(self.wall_time, dtype=np.float64),
                np.array(self.fid, dtype=np.int32),
                np.array(self.values, dtype=np.float64).reshape(len(self.step), len(self.keys)),
            )]
        if not chunks:
            return
        self._clear_scalars()
        if len(chunks) == 1:
            seq, step, wall_time, fid, table = chunks[0]
        else:
            seq, step, wall_time, fid, table = (np.concatenate(parts) for parts in zip(*chunks))
            if len(seq) > 1 and not bool(np.all(seq[1:] > seq[:-1])):
                order = np.argsort(seq, kind="stable")  # back into read order
                seq, step, wall_time, fid, table = seq[order], step[order], wall_time[order], fid[order], table[order]
        common = {"seq": seq, "step": step, "wall_time": wall_time, "fid": fid}
        for j, key in enumerate(self.keys):
            # (a view of the table's column: the merge copies it into the series, joined with
            # the series' values or another block's: a copy here first cost ~2 us a tag)
            yield key, {**common, "value": table[:, j]}


def bulk_rows(layouts: list, which: np.ndarray,
               payloads: Payloads) -> dict[int, tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]]:
    """Per layout number: (its rows in the batch, ascending; their steps, wall times, scalars).
    The numbers are read once per geometry (a TensorBoard batch holds a layout per tag, and
    tags of one name length share every offset), in file order: reading them layout by layout
    would jump back and forth through the block."""
    readers: list = []  # per geometry, its first layout: it reads the numbers of them all
    group_of: dict[tuple, int] = {}
    groups = np.zeros(len(layouts), dtype=np.int64)  # layout number -> its geometry's
    for at, layout in enumerate(layouts):
        if layout.geometry not in group_of:
            group_of[layout.geometry] = len(readers)
            readers.append(layout)
        groups[at] = group_of[layout.geometry]
    known = which >= 0
    bulk = {}
    for group, reader in enumerate(readers):
        if len(readers) == 1:
            rows = np.flatnonzero(known)
        else:
            rows = np.flatnonzero(known & (groups[np.maximum(which, 0)] == group))
        if not len(rows):
            continue  # (its layouts' rows are all routed one by one: `layouts.unknown_tensors`)
        if len(reader.float_at) > 8:  # many numbers an event: through its rows (often the CRC check's copy)
            steps, walls, floats = reader.numbers(payloads.rows(rows, reader.size))
        else:
            steps, walls, floats = reader.numbers_at(payloads.array, payloads.starts[rows])
        number = which[rows]
        period = period_of(number)
        if period:  # a training loop's tags, in the same order every step: layout j's rows are j::period
            for j in range(period):
                bulk[int(number[j])] = (rows[j::period], steps[j::period], walls[j::period], floats[j::period])
            continue
        # Each layout's rows together, in file order (16-bit keys sort by radix, in linear time).
        order = np.argsort(number.astype(np.int16) if len(layouts) < 1 << 15 else number, kind="stable")
        rows, steps, walls, floats, number = rows[order], steps[order], walls[order], floats[order], number[order]
        edges = [0, *(np.flatnonzero(np.diff(number)) + 1).tolist(), len(rows)]
        for a, b in zip(edges, edges[1:]):
            bulk[int(number[a])] = (rows[a:b], steps[a:b], walls[a:b], floats[a:b])
    return bulk
