"""Distribution queries (issue 26) against TensorBoard's own compressor
(`tensorboard.plugins.distribution.compressor.compress_histogram`), on histograms written by
tensorboardX and by the MindSpore writer, read both by tui-insight and by TensorBoard's loader."""
from __future__ import annotations

import numpy as np
import pytest
from tensorboard import data_compat
from tensorboard.backend.event_processing.event_file_loader import EventFileLoader
from tensorboard.plugins.distribution.compressor import NORMAL_HISTOGRAM_BPS, compress_histogram
from tensorboard.util import tensor_util
from tensorboardX import SummaryWriter as TensorBoardXWriter

from tui_insight.summary.formats.writer import SummaryWriter
from tui_insight.summary.queries.distributions import (
    BASIS_POINTS, compress, compress_many, distribution, histogram_distribution, tensor_distribution,
)
from tui_insight.summary.queries.histograms import HistogramStep, histogram_steps
from tui_insight.summary.store.cache import SummaryCache


def _tensorboard(buckets: np.ndarray) -> list[float]:
    """TensorBoard's values for (left, width, count) buckets, given as its (left, right, count)."""
    triples = [(b[0], b[0] + b[1], b[2]) for b in buckets]
    return [v for _, v in compress_histogram(triples)]


def _loaded(cache_dir, run: str) -> dict[int, list[float]]:
    """TensorBoard's values per step of tag "w" in `run`, read by its own loader and data_compat."""
    out = {}
    for path in sorted((cache_dir / run).iterdir()):
        for event in EventFileLoader(str(path)).Load():
            for value in event.summary.value:
                if value.tag == "w":
                    value = data_compat.migrate_value(value)
                    out[event.step] = [v for _, v in compress_histogram(tensor_util.make_ndarray(value.tensor))]
    return out


def test_basis_points_are_tensorboards():
    assert BASIS_POINTS == NORMAL_HISTOGRAM_BPS


def test_tensorboardx_histograms_match_tensorboard(tmp_path):
    rng = np.random.default_rng(3)
    with TensorBoardXWriter(str(tmp_path / "tbx")) as writer:
        for step in range(12):
            writer.add_histogram("w", rng.normal(step * 0.3, 1.0 + step * 0.1, 500), step)
        writer.add_histogram("w", np.array([2.5] * 7), 12)  # one value: a zero-width histogram
    cache = SummaryCache(str(tmp_path))
    cache.reload()
    dist = histogram_distribution(cache, cache.job("./tbx"), "w")
    assert list(dist.steps) == list(range(13))
    steps = histogram_steps(cache, cache.job("./tbx"), "w")
    theirs = _loaded(tmp_path, "tbx")
    for i, s in enumerate(steps):
        # exactly TensorBoard's algorithm on the same buckets
        assert list(dist.values[i]) == _tensorboard(s.data.buckets)
        # and TensorBoard's own path (float32 buckets) to float32 precision
        assert dist.values[i] == pytest.approx(theirs[int(s.step)], rel=1e-6, abs=1e-6)
    assert (np.diff(dist.values, axis=1) >= 0).all()
    assert dist.values[-1].tolist() == [2.5] * 9
    # the median drifts with the mean written
    assert dist.values[11][4] - dist.values[0][4] == pytest.approx(3.3, abs=0.5)


def test_mindspore_histograms_match_tensorboard_compressor(tmp_path):
    rng = np.random.default_rng(5)
    with SummaryWriter(tmp_path / "ms", timestamp=5, wall_time=50.0) as writer:
        for step in range(1, 9):
            writer.add_histogram("w", rng.uniform(-step, step, 300))
            writer.record(step, wall_time=50.0 + step)
    cache = SummaryCache(str(tmp_path))
    cache.reload()
    steps = histogram_steps(cache, cache.job("./ms"), "w")
    dist = histogram_distribution(cache, cache.job("./ms"), "w")
    assert list(dist.steps) == list(range(1, 9)) and list(dist.wall_times) == [50.0 + s for s in range(1, 9)]
    for i, s in enumerate(steps):
        assert list(dist.values[i]) == _tensorboard(s.data.buckets)
    # uniform on [-step, step]: the median near 0, the ends at the extremes written
    assert abs(dist.values[-1][4]) < 1.0 and dist.values[-1][0] >= -8 and dist.values[-1][8] <= 8
    assert dist.at(0)[0] == dist.values[0][0] and set(dist.at(0)) == set(BASIS_POINTS)


@pytest.mark.parametrize("buckets", [
    [],  # no buckets: zeros
    [[0.0, 1.0, 0.0], [1.0, 1.0, 0.0]],  # all empty: the last right edge
    [[0.0, 1.0, 5.0]],
    [[-3.0, 1.0, 0.0], [-2.0, 1.0, 4.0], [-1.0, 1.0, 0.0], [0.0, 1.0, 0.0], [1.0, 2.0, 9.0], [3.0, 0.5, 1.0]],
    [[1e-9, 1e-9, 1.0], [2e-9, 1e-9, 3.0], [3e-9, 0.0, 2.0]],  # a zero-width last bucket
])
def test_edge_cases_match_tensorboard(buckets):
    b = np.array(buckets, dtype=np.float64).reshape(-1, 3)
    expected = _tensorboard(b) if len(b) else [0.0] * 9
    assert list(compress(b)) == expected


def test_random_bucketings_match_tensorboard():
    rng = np.random.default_rng(11)
    for _ in range(200):
        n = int(rng.integers(1, 40))
        widths = rng.uniform(0, 2, n) * (rng.random(n) > 0.1)
        lefts = rng.uniform(-5, 0) + np.concatenate(([0.0], np.cumsum(widths)[:-1]))
        counts = rng.integers(0, 20, n) * (rng.random(n) > 0.3)
        b = np.column_stack([lefts, widths, counts]).astype(np.float64)
        assert list(compress(b)) == _tensorboard(b)


def test_tensor_distribution_from_written_tensors(tmp_path):
    rng = np.random.default_rng(2)
    with SummaryWriter(tmp_path / "t", timestamp=5, wall_time=50.0) as writer:
        for step in range(1, 5):
            writer.add_tensor("act", rng.normal(step, 0.1, (6, 6)).astype(np.float32))
            writer.record(step, wall_time=50.0 + step)
    cache = SummaryCache(str(tmp_path))
    cache.reload()
    dist = tensor_distribution(cache, cache.job("./t"), "act")
    assert list(dist.steps) == [1, 2, 3, 4]
    assert dist.values[:, 4] == pytest.approx([1, 2, 3, 4], abs=0.15)
    assert len(histogram_distribution(cache, cache.job("./t"), "act")) == 0  # not a histogram tag


def test_no_steps_and_one_bucket():
    assert len(distribution([])) == 0 and distribution([]).values.shape == (0, 9)
    one = HistogramStep(1, 1.0, _data([[0.0, 2.0, 4.0]]))
    assert distribution([one]).values[0].tolist() == [0.0, 0.1336, 0.3174, 0.617, 1.0, 1.383, 1.6826, 1.8664, 2.0]


def _data(buckets):
    from tui_insight.summary.formats.values import HistogramData
    b = np.array(buckets, dtype=np.float64).reshape(-1, 3)
    return HistogramData(b, 0, 0, 0, float(b[0, 0]), float(b[-1, 0] + b[-1, 1]))


def test_compress_many_is_compress_of_each_bit_for_bit():
    """Many histograms compressed at once give each one's values exactly: empty ones, empty
    buckets, all-empty ones, -0.0 edges and weights that are not finite (TensorBoard's loop)."""
    rng = np.random.default_rng(30)
    histograms = [np.empty((0, 3)), np.array([[0.0, 1.0, 0.0], [1.0, 1.0, 0.0]]),
                  np.array([[-0.0, 0.5, 3.0], [0.5, 0.5, 0.0], [1.0, 0.25, 2.0]]),
                  np.array([[0.0, 1.0, np.inf], [1.0, 1.0, 2.0]]), np.array([[-1.0, 1.0, 1e308], [0.0, 1.0, 1e308]])]
    for n in rng.integers(1, 40, 200):
        lefts = np.sort(rng.normal(size=n) * 10.0 ** rng.integers(-6, 6))
        counts = rng.integers(0, 5, n) * (rng.random(n) > 0.3)
        histograms.append(np.stack([lefts, np.abs(rng.normal(size=n)), counts.astype(np.float64)], axis=1))
    # Whole counts alone (their weights summed for all at once), also with negative ones;
    # weighted (fractional) counts; bigger histograms (a histogram at a time); and all of them.
    sound = [h for h in histograms[1:] if np.isfinite(h[:, 2]).all() and h[:, 2].max() < 1e300]
    negative = [*sound, np.array([[0.0, 1.0, 3.0], [1.0, 1.0, -1.0], [2.0, 1.0, 2.0]])]
    weighted = [np.column_stack([h[:, :2], h[:, 2] * 0.37]) for h in sound]
    big = [np.stack([np.sort(rng.normal(size=n)), np.full(n, 0.5), rng.integers(0, 9, n).astype(np.float64)], axis=1)
           for n in rng.integers(300, 700, 20)]
    for batch in (sound, negative, weighted, big, [*big, *sound], histograms):
        with np.errstate(over="ignore", invalid="ignore"):
            together = compress_many(batch)
            each = np.array([compress(h) for h in batch])
        assert together.shape == (len(batch), len(BASIS_POINTS))
        assert together.tobytes() == each.tobytes()
