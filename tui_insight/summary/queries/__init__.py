"""Queries: pure functions over the store's `JobView`s, what the screens, `--export` and
`--summary` ask.

- `scalars.py` (smoothing, x axes, decimation), `histograms.py` (re-binning, §4.5),
  `tensors.py` (slices, statistics, §4.6), `landscape.py` (§2).
- Lineage across runs: `lineage.py` (a row per job, columns, conditions, filter and sort;
  §6.2-6.4), `dataset_pipeline.py` (a dataset graph's stages), `parallel.py` (parallel
  coordinates and brushes), `importance.py`, `lineage_diff.py` (the columns that set runs apart).
- `custom_scalars.py`: which scalar tags a custom scalars chart draws.
- `distributions.py`: TensorBoard's percentile bands of histograms and tensors.
- `described.py`: audio, mesh and projector data described.
- `profiler.py`: a profile's step times, top operator types and export rows.
- The job list: `health.py` (badges and the headline metric), `sparkline.py` (its trend as text),
  `best.py` (which run is best), `ranks.py` (ranks of one training grouped, stragglers and diverging ranks).
"""
