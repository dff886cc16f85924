"""A bounded series of steps for one tag.

A `Series` is immutable: `merge` returns a new one, so a reader holding a series sees a
consistent state while the loader goes on. Columns are numpy arrays sorted by step:

    step (int64), wall_time (float64), fid (int32: which file of the job it came from),
    then `value` (float64) for scalars, or `offset` (int64) and `index` (int32) for payloads
    that stay in the file (record offset, position of the value in the event); images also
    `samples` (int32): how many images the value holds (TF2's and Keras' `tf.summary.image`
    write several a step), so a step stays one row whatever its samples.

Two rules from MindInsight (compat §3.8), applied to each batch of new values in the order
they were read:
- a step written again replaces the old value;
- a step written to a newer file drops the later steps that came from older files (a
  training restart).

Past the limit, the first and the newest step are always kept and the rest stay spread
evenly over the step range (MindInsight's reservoir drops the first step, §3.7). Two stages:
- Candidates: one step per slot of `width` steps counted from the first step, plus the newest
  step. The width doubles whenever there would be more than twice the limit; widths are powers
  of two, so the slots nest and the candidates are exactly the first step of every slot,
  evenly spaced, whatever the order and batching of the reads.
- Kept (`columns`, what readers see): at most `limit` candidates, the ones nearest to
  `limit` evenly spaced points from the first to the newest step. The doubling grid alone would
  use between half and all of the limit; this uses all of it (gaps stay under twice the even
  gap) while memory stays bounded by twice the limit.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np


_COMMON = ("step", "wall_time", "fid")  # the columns every series has
# A column with no steps, by name: one array each, shared by every empty series (a job admits
# its tags with them: ~5 us a tag to make them anew). Nothing is ever written into a series'
# columns: `merge` makes new ones.
_EMPTY = {name: np.empty(0, dtype=dtype) for name, dtype in (
    ("step", np.int64), ("wall_time", np.float64), ("fid", np.int32), ("value", np.float64),
    ("offset", np.int64), ("index", np.int32), ("samples", np.int32))}


@dataclass(frozen=True)
class Series:
    """One tag's bounded step series: the kept steps and the candidates to sample from."""

    limit: int
    columns: dict[str, np.ndarray]  # the kept steps: at most `limit`
    candidates: dict[str, np.ndarray]  # the doubling grid: at most 2 * `limit`
    width: int = 1  # slot width of the candidates, in steps, a power of two
    seen: int = 0  # values ever offered, kept or not
    nonfinite: int = 0  # of those, NaN or infinite scalar values (sampling may drop them; this count stays)

    @classmethod
    def empty(cls, limit: int, names: tuple[str, ...]) -> "Series":
        cols = {name: _EMPTY[name] for name in ("step", "wall_time", "fid", *names)}
        return cls(limit, cols, cols)

    @property
    def nbytes(self) -> int:
        """Bytes of its arrays (kept steps and candidates; an array shared by both counts once)."""
        arrays = {id(a): a for a in (*self.columns.values(), *self.candidates.values())}
        return sum(a.nbytes for a in arrays.values())

    def __len__(self) -> int:
        return len(self.columns["step"])

    @property
    def steps(self) -> np.ndarray:
        return self.columns["step"]

    @property
    def wall_times(self) -> np.ndarray:
        return self.columns["wall_time"]

    @property
    def values(self) -> np.ndarray:
        return self.columns["value"]

    @property
    def last_step(self) -> int | None:
        return int(self.steps[-1]) if len(self) else None

    def merge(self, batch: dict[str, np.ndarray], file_rank: np.ndarray,
              shared: dict | None = None) -> "Series":
        """The series with `batch` (columns in read order) added.

        `file_rank[fid]` orders the job's files (timestamp, then name) for the restart rule.
        `shared`, one dict for the merges of one pass: tags whose step, wall time and file
        columns are the same arrays (the tags of one event layout) are sampled once, and keep
        sharing those columns (a merge of 50 tags of one layout samples once, not 50 times).
        """
        n_new = len(batch["step"])
        if n_new == 0:
            return self
        old = self.candidates
        key = None
        plan = None
        if shared is not None:
            key = (tuple(id(old[name]) if len(old["step"]) else 0 for name in _COMMON),
                   tuple(id(batch[name]) for name in _COMMON), self.width, self.limit)
            plan = shared.get(key)
        if plan is None:
            plan = self._sampled(batch, file_rank)
            if shared is not None:
                shared[key] = plan
        candidates, published, (keep, order, picked, kept), width = plan
        cols, published = dict(candidates), dict(published)
        for name in old:
            if name in _COMMON:
                continue
            col = np.concatenate((old[name], batch[name]))
            for at in (keep, order, picked):
                if at is not None:
                    col = col[at]
            cols[name] = col
            published[name] = col if kept is None else col[kept]
        values = batch.get("value")
        nonfinite = self.nonfinite + (int(n_new - np.count_nonzero(np.isfinite(values))) if values is not None else 0)
        return Series(self.limit, published, cols, width, self.seen + n_new, nonfinite)

    def _sampled(self, batch: dict[str, np.ndarray], file_rank: np.ndarray) -> tuple:
        """What `merge` does to the step, wall time and file columns: (those candidates, those
        kept, the indices it takes (None: all) to keep, order, pick candidates, then keep some,
        the new width)."""
        old_steps, new_steps = self.candidates["step"], batch["step"]
        cols = {name: np.concatenate((self.candidates[name], batch[name])) for name in _COMMON}
        keep = order = None
        # Training appends: steps that only grow replace nothing and roll nothing back.
        appended = (not len(old_steps) or new_steps[0] > old_steps[-1]) and bool(np.all(new_steps[1:] > new_steps[:-1]))
        if not appended:
            steps = cols["step"]
            keep = survivors(steps, file_rank[cols["fid"]])
            if keep.all():
                keep = None
            else:
                cols = {name: col[keep] for name, col in cols.items()}
                steps = cols["step"]
            order = np.argsort(steps, kind="stable")
            if (order == np.arange(len(order))).all():
                order = None
            else:
                cols = {name: col[order] for name, col in cols.items()}
        width, picked = _sample(cols["step"], 2 * self.limit, self.width)
        if picked is not None:
            cols = {name: col[picked] for name, col in cols.items()}
        kept = _even_pick(cols["step"], self.limit)
        published = cols if kept is None else {name: col[kept] for name, col in cols.items()}
        return cols, published, (keep, order, picked, kept), width

    def before(self, step: int) -> "Series":
        """The series without its steps >= `step` (a TensorBoard restart: its SessionLog START)."""
        keep = self.candidates["step"] < step
        if keep.all():
            return self
        cols = {name: col[keep] for name, col in self.candidates.items()}
        kept = _even_pick(cols["step"], self.limit)
        published = cols if kept is None else {name: col[kept] for name, col in cols.items()}
        return Series(self.limit, published, cols, self.width, self.seen, self.nonfinite)


def survivors(steps: np.ndarray, ranks: np.ndarray) -> np.ndarray:
    """Mask of values (in read order) that no later value replaces or rolls back."""
    n = len(steps)
    keep = np.ones(n, dtype=bool)
    # A later value with the same step replaces this one: keep the last occurrence.
    _, last_from_end = np.unique(steps[::-1], return_index=True)
    if len(last_from_end) != n:
        keep[:] = False
        keep[n - 1 - last_from_end] = True
    # A later value with a smaller step from a newer file rolls this one back.
    for rank in np.unique(ranks)[:-1]:
        later_newer = np.where(ranks > rank, steps, np.iinfo(np.int64).max)
        # min step among values after position j from files newer than `rank`
        suffix_min = np.minimum.accumulate(later_newer[::-1])[::-1]
        after = np.append(suffix_min[1:], np.iinfo(np.int64).max)
        keep &= ~((ranks == rank) & (after < steps))
    return keep


def _sample(steps: np.ndarray, limit: int, width: int) -> tuple[int, np.ndarray | None]:
    """(slot width, indices to keep or None for all) for sorted `steps`."""
    if len(steps) <= limit and width == 1:
        return width, None
    while True:
        picked = _first_per_slot(steps, width)
        if len(picked) <= limit:
            return width, (None if len(picked) == len(steps) else picked)
        width *= 2


# Recent `_even_pick`s: (limit, number of steps) -> (the steps, what it picked). The runs of a
# sweep log the same steps, and a loading process reads one run after another: equal steps
# (each kind of tag's: scalars', histograms'), picked again for a comparison.
_picks: dict[tuple[int, int], tuple[np.ndarray, np.ndarray]] = {}
_PICKS_KEPT = 16


def _even_pick(steps: np.ndarray, limit: int) -> np.ndarray | None:
    """Indices of at most `limit` sorted `steps` nearest to evenly spaced targets (None: all).

    The first and the last step are targets, so they are always picked.
    """
    if len(steps) <= limit:
        return None
    key = (limit, len(steps))
    last = _picks.get(key)  # (another thread may replace it meanwhile: a whole entry either way)
    if last is not None and bool((last[0] == steps).all()):
        return last[1]
    picked = _even_picked(steps, limit)
    picked.flags.writeable = False  # (handed to every caller with the same steps)
    if len(_picks) >= _PICKS_KEPT:
        _picks.clear()
    _picks[key] = (steps.copy(), picked)
    return picked


def _even_picked(steps: np.ndarray, limit: int) -> np.ndarray:
    targets = np.linspace(float(steps[0]), float(steps[-1]), limit)
    right = np.clip(np.searchsorted(steps, targets), 1, len(steps) - 1)
    left = right - 1
    nearer_left = (targets - steps[left]) <= (steps[right] - targets)
    picked = np.where(nearer_left, left, right)  # non-decreasing, as the targets are
    return picked[np.r_[True, picked[1:] != picked[:-1]]]


def _first_per_slot(steps: np.ndarray, width: int) -> np.ndarray:
    slots = (steps - steps[0]) // int(width)
    first = np.empty(len(steps), dtype=bool)
    first[0] = True
    first[1:] = slots[1:] != slots[:-1]
    first[-1] = True  # the newest step is always kept
    return np.flatnonzero(first)
