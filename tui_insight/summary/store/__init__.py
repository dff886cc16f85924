"""The store: one shared, reloading, bounded cache of a LOGDIR's jobs, read by every surface.

- `cache.py`: `SummaryCache`, the job loader, one immutable `JobView` per job, `Changes`.
- `series.py`: a bounded step series per tag (compat §3.6-3.8); `digest.py`: the few numbers
  a job-list row needs of a tag; `not_shown.py`: what no view shows, counted.
- `budget.py`: which jobs keep their details in memory; `pool.py`: first loads in worker
  processes.
- Kept between runs: `snapshot.py` (a job as bytes), `disk_cache.py`, `graph_cache.py`.
- `every_step.py`: every value of a job, with the store's restart rules, for `--all-steps`.
"""
