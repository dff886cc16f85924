"""Everything about training logs: reading, the shared cache and the queries. No UI here.

No Textual, Rich or `tui_insight.ui` / `cli` / `export` below this line (import-linter checks
it): the screens, `--export csv` and `--summary` all read through these modules.

Where things are (see ARCHITECTURE.md for how data flows through them)
------------------------------------------------------------------------
- Where the bytes are: `location.py` (what a LOGDIR names), `source.py` (this machine),
  `ssh_source.py` and `ssh_connection.py` (a host over ssh), `fsspec_source.py` (URLs),
  `remote_listing.py` (jobs from a remote tree's flat listing).
- Finding jobs: `discovery.py` (compat §1.2, §1.3); `poll.py` (the full poll's file table).
- Reading records: `records.py` (MindSpore framing, §1.1), `tensorboard.py` (event files),
  `payloads.py` (tensors, images, histograms decoded on demand), `text.py` (strings from files).
- The shared cache: `cache.py` (`SummaryCache`, jobs, the reload loop, change notices),
  `series.py` (a bounded step series, §3.6-3.8), `limits.py`, `budget.py` (memory budget),
  `pool.py` (first loads in worker processes), `snapshot.py`, `disk_cache.py` and
  `graph_cache.py` (what is kept on disk between runs).
- Queries, pure functions over the cache's views: `scalars.py`, `histograms.py`, `tensors.py`,
  `graph.py`, `lineage.py`, `lineage_diff.py`, `parallel.py`, `importance.py`, `landscape.py`,
  `profiler.py`, `digest.py` and `best.py` (job list numbers), `health.py` (badges).
- Writing logs: `writer.py` (valid MindSpore files for tests, the demo and the benchmarks).
"""
