"""Histogram queries (compat §4.5): the kept steps of a tag, and MindInsight's re-binning of
all steps onto one shared set of buckets, the data behind a ridgeline.

Re-binning reproduces MindInsight's `Histogram._re_sample_buckets` to the last bit (the counts
are rounded up, so a rounding difference of 1e-17 can change a count by one): the same
floating-point operations in the same order, run for all steps at once with numpy.
"""
from __future__ import annotations

import math
from collections.abc import Iterable, Iterator
from dataclasses import dataclass

import numpy as np

from .. import limits
from ..formats.values import HistogramData, PayloadError
from ..store.cache import SummaryCache
from ..store.job_view import JobView


@dataclass(frozen=True)
class HistogramStep:
    """One step of a histogram tag, as written."""

    step: int
    wall_time: float
    data: HistogramData  # raw buckets as written


def histogram_steps(cache: SummaryCache, view: JobView, tag: str) -> list[HistogramStep]:
    """The kept steps of histogram `tag` (as written, without `/histogram`), oldest first.

    Payloads are read through `cache.payloads`; raises `values.PayloadError` if a file changed
    under us. An unknown tag gives [].
    """
    series = view.series("histogram", tag)
    if series is None:
        return []
    locators = [view.locator(series, i) for i in range(len(series))]
    cache.payloads.prefetch("histogram", locators)  # remote: two requests, not one or two a step
    return [HistogramStep(int(series.steps[i]), float(series.wall_times[i]), cache.payloads.histogram(loc))
            for i, loc in enumerate(locators)]


READ_TOGETHER = 1024  # histogram steps `tags_steps` reads at once (memory: their buckets)


def tags_steps(cache: SummaryCache, view: JobView, tags: Iterable[str]) -> Iterator[tuple[str, list[HistogramStep]]]:
    """Each of `tags` that has a series, with its kept steps that can still be read (one whose
    file changed under us is left out: the next read has it again). Several tags' steps are
    read at once (`PayloadStore.histograms`), so that each record is read and parsed once:
    MindSpore writes a step's histograms in one event. What an export reads."""
    found = [(tag, series) for tag in tags if (series := view.series("histogram", tag)) is not None]
    while found:
        batch = [found.pop(0)]
        while found and sum(len(s) for _, s in batch) + len(found[0][1]) <= READ_TOGETHER:
            batch.append(found.pop(0))
        read = iter(cache.payloads.histograms([view.locator(s, i) for _, s in batch for i in range(len(s))]))
        for tag, series in batch:
            yield tag, [HistogramStep(step, wall, data) for step, wall, data
                        in zip(series.steps.tolist(), series.wall_times.tolist(), read)
                        if not isinstance(data, PayloadError)]


def bin_count(max_count: int) -> int:
    """MindInsight's number of re-binned buckets for histograms of at most `max_count` values."""
    if max_count <= 0:
        return 1
    if max_count <= 5:
        return 2
    if max_count <= 10:
        return 3
    if max_count <= 280:
        return math.ceil(max_count / 10) + 1
    return limits.MAX_HISTOGRAM_BINS


@dataclass(frozen=True)
class Ridgeline:
    """All steps of a histogram tag on the same buckets."""

    edges: np.ndarray  # (bins+1,) shared edges: edges[i] is the left of bucket i
    counts: np.ndarray  # (n_steps, bins) int64 re-binned counts, rounded up as MindInsight does
    steps: np.ndarray  # (n_steps,) int64
    wall_times: np.ndarray  # (n_steps,) float64
    nan_counts: np.ndarray  # (n_steps,) int64, as written in the file
    pos_inf_counts: np.ndarray
    neg_inf_counts: np.ndarray
    bin_width: float = 0.0  # every bucket's width, exactly as MindInsight computes it
    problems: tuple[str, ...] = ()  # per step: what was left out of its damaged histogram, or ""

    @property
    def bins(self) -> int:
        return len(self.edges) - 1

    @property
    def lefts(self) -> np.ndarray:
        return self.edges[:-1]

    def buckets(self, i: int) -> list[list[float]]:
        """Step i as MindInsight serves it: [[left, width, count], ...]."""
        return [[float(left), self.bin_width, int(count)] for left, count in zip(self.lefts, self.counts[i])]


_WIDEST = 1e300  # |edges| of a re-binned range: the width of [-_WIDEST, _WIDEST] is finite


def _finite_or_zero(x: float) -> float:
    return float(x) if math.isfinite(x) else 0.0


def rebin(steps: list[HistogramStep]) -> Ridgeline:
    """Re-bin every step onto `bin_count(max per-step count)` equal buckets over the shared range.

    The range is [min of per-step `min`, max of per-step `max`] over the steps holding values
    (NaN/Inf in the file's min/max count as 0), widened to +-0.5 if empty. A step's count is the
    sum of its bucket counts. Each new bucket gets ceil(sum of overlap/width*count) over the
    original buckets MindInsight's sweep visits (a zero-width bucket adds its whole count).
    """
    n = len(steps)
    totals = np.array([float(s.data.buckets[:, 2].sum()) if len(s.data.buckets) else 0.0 for s in steps])
    has_values = totals > 0
    with_values = [s for s, ok in zip(steps, has_values) if ok]
    lo = min((_finite_or_zero(s.data.min) for s in with_values), default=0.0)
    hi = max((_finite_or_zero(s.data.max) for s in with_values), default=0.0)
    bins = bin_count(int(totals.max()) if n else 0)
    if hi < lo:  # min and max that contradict each other (a broken writer): still a range
        lo, hi = hi, lo
    # A range so wide that its width overflows float64 is cut to one that does not.
    lo, hi = max(lo, -_WIDEST), min(hi, _WIDEST)
    if hi == lo:
        lo, hi = lo - 0.5, hi + 0.5
    width = (hi - lo) / bins
    lefts = lo + width * np.arange(bins, dtype=np.float64)
    edges = np.append(lefts, lefts[-1] + width)
    counts = _resample(steps, totals, lefts, lefts + width) if n else np.zeros((0, bins), dtype=np.int64)

    def column(name: str) -> np.ndarray:
        return np.array([getattr(s.data, name) for s in steps], dtype=np.int64)

    return Ridgeline(edges, counts,
                     np.array([s.step for s in steps], dtype=np.int64),
                     np.array([s.wall_time for s in steps], dtype=np.float64),
                     column("nan_count"), column("pos_inf_count"), column("neg_inf_count"), width,
                     tuple(s.data.problem for s in steps))


def _resample(steps: list[HistogramStep], totals: np.ndarray, cur_left: np.ndarray,
              cur_right: np.ndarray) -> np.ndarray:
    """(n_steps, bins) counts: MindInsight's left-to-right sweep, one bin at a time for all steps.

    MindInsight walks a pointer `pos` over the sorted original buckets. For each new bucket
    [cl, cr):
    - if cr <= left of the bucket at pos: the count is 0 and pos stays;
    - pos moves on past buckets whose right <= cl;
    - buckets from pos are added while their right < cr; the first with right >= cr is added
      too and pos stays on it (it may reach into the next new bucket).
    The fraction added is overlap/width*count summed left to right, then rounded up.
    """
    n_steps, bins = len(steps), len(cur_left)
    n_buckets = np.array([len(s.data.buckets) for s in steps], dtype=np.int64)
    width = max(int(n_buckets.max()), 1)
    left = np.zeros((n_steps, width))
    bucket_width = np.zeros((n_steps, width))
    count = np.zeros((n_steps, width))
    for row, s in enumerate(steps):
        b = s.data.buckets
        left[row, :len(b)], bucket_width[row, :len(b)], count[row, :len(b)] = b[:, 0], b[:, 1], b[:, 2]
    right = left + bucket_width
    j = np.arange(width)[None, :]
    real = j < n_buckets[:, None]
    last = np.maximum(n_buckets - 1, 0)
    rows = np.arange(n_steps)
    pos = np.zeros(n_steps, dtype=np.int64)
    out = np.zeros((n_steps, bins), dtype=np.int64)
    zero_width = bucket_width == 0

    for i in range(bins):
        cl, cr = cur_left[i], cur_right[i]
        before_all = cr <= left[rows, np.minimum(pos, last)]
        # first bucket at or after pos that ends beyond cl
        start = _first(real & (j >= pos[:, None]) & (right > cl), n_buckets)
        start = np.where(pos >= n_buckets, pos, start)
        # first bucket at or after start that reaches cr: the last one visited
        stop = _first(real & (j >= start[:, None]) & (right >= cr), n_buckets)
        visited = real & (j >= start[:, None]) & (j <= stop[:, None])
        # overlap of [cl, cr) and [left, right), with the same subtractions as MindInsight
        overlap = np.where(cl <= left,
                           np.where(cr <= left, 0.0, np.where(cr <= right, cr - left, right - left)),
                           np.where(right <= cl, 0.0, np.where(right <= cr, right - cl, cr - cl)))
        with np.errstate(divide="ignore", invalid="ignore"):
            share = np.where(zero_width, count, (overlap / np.where(zero_width, 1.0, bucket_width)) * count)
        # cumsum adds strictly left to right, as MindInsight's loop does (np.sum would not)
        total = np.cumsum(np.where(visited, share, 0.0), axis=1)[:, -1]
        counted = ~before_all & (totals > 0)
        total = np.clip(np.nan_to_num(total, nan=0.0, posinf=0.0, neginf=0.0), 0.0, _MAX_COUNT)
        out[:, i] = np.where(counted, np.ceil(total), 0)
        pos = np.where(before_all, pos, np.minimum(stop, n_buckets))
    return out


_MAX_COUNT = float(2 ** 62)  # re-binned counts stay within int64 (a bucket count is at most 2**53)


def _first(mask: np.ndarray, default: np.ndarray) -> np.ndarray:
    """Per row, the index of the first True, or `default` where there is none."""
    found = mask.any(axis=1)
    return np.where(found, mask.argmax(axis=1), default)
