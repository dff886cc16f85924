"""Distribution queries (issue 26): TensorBoard's percentile bands over steps, from the same
histograms the ridgeline draws.

Each step's buckets are compressed to the values at TensorBoard's nine basis points (1/100ths of
a percent: the normal CDF at -inf, -1.5, -1, -0.5, 0, 0.5, 1, 1.5, +inf standard deviations) by
a transcription of `compress_histogram` in TensorBoard's
`tensorboard/plugins/distribution/compressor.py` (2.21): the same operations in the same order,
so the values are TensorBoard's for the same buckets. TensorBoard reads `histo` protos through
`data_compat` as float32, so its own numbers differ from these in the 7th significant digit.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..store.cache import SummaryCache
from ..store.job_view import JobView
from ..formats.values import HistogramData, TensorData
from .histograms import HistogramStep, histogram_steps
from .tensors import tensor_histogram, tensor_histogram_steps

BASIS_POINTS = (0, 668, 1587, 3085, 5000, 6915, 8413, 9332, 10000)
# The columns of the exports (distributions.csv, `Logdir.distributions`, distributions.parquet):
# the value at each basis point, named by it.
BP_COLUMNS = tuple(f"bp_{bp}" for bp in BASIS_POINTS)


def compress(buckets: np.ndarray, bps: tuple[int, ...] = BASIS_POINTS) -> tuple[float, ...]:
    """The value at each basis point of (left, width, count) `buckets`, as TensorBoard computes it.

    Cumulative weights are scaled to bps[-1]; a basis point falls in the first bucket whose
    cumulative weight exceeds it (empty buckets are skipped) and is interpolated linearly across
    that bucket, clipped to [first left, last right]. Points past the last weight take the last
    right edge; no buckets give zeros.
    """
    if not len(buckets):
        return tuple(0.0 for _ in bps)
    lefts = buckets[:, 0]
    rights = lefts + buckets[:, 1]
    counts = buckets[:, 2]
    weights = (counts * bps[-1] / (counts.sum() or 1.0)).cumsum()
    if bool(np.isfinite(weights).all()) and bool(counts.min() >= 0):
        return _compress_sorted(lefts, rights, weights, bps)
    return _compress_stepwise(lefts, list(rights), weights, bps)


def _compress_sorted(lefts: np.ndarray, rights: np.ndarray, weights: np.ndarray, bps: tuple[int, ...]
                     ) -> tuple[float, ...]:
    """`compress` of finite, non-decreasing `weights`, every basis point at once: the first
    weight past a point is never an empty bucket's there (it exceeds the one before it), and a
    point past the last weight has every later one past it. The same operations, in the same
    order, as `_compress_stepwise`, on the same float64s: the same values."""
    minmin, maxmax = lefts[0], rights[-1]
    points = np.array(bps, dtype=np.float64)
    found = np.searchsorted(weights, points, side="right")
    inside = found < len(weights)
    i = np.minimum(found, len(weights) - 1)
    cumsum = weights[i]
    cumsum_prev = np.where(i > 0, weights[np.maximum(i - 1, 0)], 0.0)
    right_before = rights[np.maximum(i - 1, 0)]
    # Python's max(a, b) and min(a, b) keep a unless b is greater (smaller): so does np.where.
    lhs = np.where((i == 0) | (cumsum_prev == 0), minmin, np.where(minmin > right_before, minmin, right_before))
    rhs = np.where(maxmax < rights[i], maxmax, rights[i])
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):  # (points past the last weight: not taken)
        values = lhs + (points - cumsum_prev) * (rhs - lhs) / (cumsum - cumsum_prev)
    return tuple(np.where(inside, values, maxmax).tolist())


def compress_many(buckets: list[np.ndarray], bps: tuple[int, ...] = BASIS_POINTS) -> np.ndarray:
    """`compress` of each of many histograms' buckets, as a (len(buckets), len(bps)) array: the
    weights a histogram at a time (the same sums and cumulative sums), the rest for all at once
    (`_compress_sorted`'s operations on the same float64s: the same values)."""
    out = np.zeros((len(buckets), len(bps)), dtype=np.float64)
    lengths = np.array([len(b) for b in buckets], dtype=np.int64)
    filled = np.flatnonzero(lengths)
    if not len(filled):
        return out
    parts = [buckets[j] for j in filled.tolist()]
    joined = np.concatenate(parts)
    sizes = lengths[filled]
    starts = np.cumsum(sizes) - sizes
    points = np.array(bps, dtype=np.float64)
    counts = joined[:, 2]
    together = _weights_found(counts, sizes, starts, points)
    if together is None:
        weights = np.concatenate([(b[:, 2] * bps[-1] / (b[:, 2].sum() or 1.0)).cumsum() for b in parts])
        found = np.stack([np.searchsorted(weights[a:a + n], points, side="right")
                          for a, n in zip(starts.tolist(), sizes.tolist())])  # (histograms, points), within each
    else:
        weights, found = together
    sound = np.isfinite(weights) & (counts >= 0)
    stepwise = ~np.logical_and.reduceat(sound, starts)  # weights that are not finite: TensorBoard's loop
    lefts = joined[:, 0]
    rights = lefts + joined[:, 1]
    minmin, maxmax = lefts[starts][:, None], rights[starts + sizes - 1][:, None]
    inside = found < sizes[:, None]
    local = np.minimum(found, sizes[:, None] - 1)
    at = starts[:, None] + local
    cumsum = weights[at]
    cumsum_prev = np.where(local > 0, weights[np.maximum(at - 1, 0)], 0.0)
    right_before = rights[np.maximum(at - 1, 0)]
    lhs = np.where((local == 0) | (cumsum_prev == 0), minmin, np.where(minmin > right_before, minmin, right_before))
    rhs = np.where(maxmax < rights[at], maxmax, rights[at])
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):  # (points past the last weight: not taken)
        values = lhs + (points - cumsum_prev) * (rhs - lhs) / (cumsum - cumsum_prev)
    out[filled] = np.where(inside, values, maxmax)
    for row in np.flatnonzero(stepwise).tolist():
        out[filled[row]] = compress(parts[row], bps)
    return out


SMALL_HISTOGRAMS = 256  # buckets a histogram at most, on average, for `_weights_found`


def _weights_found(counts: np.ndarray, sizes: np.ndarray, starts: np.ndarray, points: np.ndarray
                   ) -> tuple[np.ndarray, np.ndarray] | None:
    """`compress_many`'s weights (each histogram's counts scaled to the last point by their
    sum, then summed up) and each point's place in its histogram's weights (`searchsorted`,
    right), for small histograms all at once: side by side in a matrix padded after each, a
    row's cumulative sum is its histogram's, float for float, and a place is a count of the
    weights at or below the point (where they rise; where they do not, `compress_many` redoes
    the histogram). None for histograms of SMALL_HISTOGRAMS buckets or more on average (a
    histogram at a time costs as much), or where a sum could depend on the order of its terms
    (counts not whole, or their sum from 2**53)."""
    widest = int(sizes.max())
    if len(counts) > SMALL_HISTOGRAMS * len(sizes) or len(sizes) * widest > 2 * len(counts) + 4096 \
            or not np.isfinite(counts).all() or not (counts == np.floor(counts)).all() \
            or np.abs(counts).sum() >= 2.0 ** 53:
        return None
    totals = np.add.reduceat(counts, starts)  # (whole numbers below 2**53: exact in any order)
    totals[totals == 0] = 1.0  # (`sum or 1.0`)
    matrix = np.zeros((len(sizes), widest))
    held = np.arange(widest) < sizes[:, None]
    matrix[held] = counts * points[-1] / np.repeat(totals, sizes)
    np.cumsum(matrix, axis=1, out=matrix)
    weights = matrix[held]
    matrix[~held] = np.inf
    found = np.stack([np.count_nonzero(matrix <= point, axis=1) for point in points.tolist()], axis=1)
    return weights, found


def _compress_stepwise(lefts: np.ndarray, right_edges: list, weights: np.ndarray, bps: tuple[int, ...]
                       ) -> tuple[float, ...]:
    """`compress` point by point, as TensorBoard's loop (weights that are not finite)."""
    minmin, maxmax = float(lefts[0]), float(right_edges[-1])
    result: list[float] = []
    bp_index = 0
    while bp_index < len(bps):
        i = int(np.searchsorted(weights, bps[bp_index], side="right"))
        while i < len(weights):
            cumsum = weights[i]
            cumsum_prev = weights[i - 1] if i > 0 else 0.0
            if cumsum == cumsum_prev:  # an empty bucket: TensorBoard steps over it
                i += 1
                continue
            if not i or not cumsum_prev:
                lhs = minmin
            else:
                lhs = max(right_edges[i - 1], minmin)
            rhs = min(right_edges[i], maxmax)
            result.append(float(lhs + (bps[bp_index] - cumsum_prev) * float(rhs - lhs) / (cumsum - cumsum_prev)))
            bp_index += 1
            break
        else:
            break
    result.extend(maxmax for _ in range(bp_index, len(bps)))
    return tuple(result)


@dataclass(frozen=True)
class Distribution:
    """The basis-point values of every kept step of a tag, oldest first."""

    steps: np.ndarray  # (n_steps,) int64
    wall_times: np.ndarray  # (n_steps,) float64
    values: np.ndarray  # (n_steps, len(BASIS_POINTS)) float64, non-decreasing along a row
    basis_points: tuple[int, ...] = BASIS_POINTS

    def __len__(self) -> int:
        return len(self.steps)

    def at(self, i: int) -> dict[int, float]:
        """Step i's values by basis point."""
        return {bp: float(v) for bp, v in zip(self.basis_points, self.values[i])}


def distribution(steps: list[HistogramStep], bps: tuple[int, ...] = BASIS_POINTS) -> Distribution:
    """Compress every step of a histogram (or of a tensor seen as one)."""
    with np.errstate(over="ignore", invalid="ignore"):  # buckets spanning float64's range: inf, drawn as such
        values = np.array([compress(s.data.buckets, bps) for s in steps], dtype=np.float64).reshape(len(steps), len(bps))
    return Distribution(np.array([s.step for s in steps], dtype=np.int64),
                        np.array([s.wall_time for s in steps], dtype=np.float64), values, bps)


def histogram_distribution(cache: SummaryCache, view: JobView, tag: str) -> Distribution:
    """The distribution of histogram `tag` (as written); an unknown tag has no steps."""
    return distribution(histogram_steps(cache, view, tag))


def tensor_distribution(cache: SummaryCache, view: JobView, tag: str) -> Distribution:
    """The distribution of tensor `tag`, from the histogram of its values at each step."""
    return distribution(tensor_histogram_steps(cache, view, tag))


def payload_distribution(data: HistogramData | TensorData) -> tuple[float, ...] | None:
    """One decoded step's basis-point values: a histogram's as written, a tensor's from the
    histogram of its values (as the tensor view draws it); None for a tensor whose values were
    not kept (over 10,000,000 elements)."""
    with np.errstate(over="ignore", invalid="ignore"):  # as in `distribution`
        if isinstance(data, TensorData):
            return None if data.array is None else compress(tensor_histogram(data.array).buckets)
        return compress(data.buckets)
