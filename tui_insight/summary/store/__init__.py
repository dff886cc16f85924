"""The store: one shared, reloading, bounded cache of a LOGDIR's jobs, read by every surface.

- `job_view.py`: what the store publishes: one immutable `JobView` per job, `Changes`.
- `loader.py`: the job loader (`JobLoader`): a job's files read from their saved offsets, the
  routers' values (never protobuf) into their series; `file_state.py` (one file's read state and rules),
  `scalar_block.py` (the bulk path's scalars), `projector_book.py` (a projector config's embeddings).
- `cache.py`: `SummaryCache`: discovery, reloads, holds and the memory budget, subscribers;
  `scheduler.py`: the one thread all of that runs on, fed typed work items; `wakeups.py`: when
  its watching thread wakes (change notices, or the poll interval); `lanes.py`: a remote
  source's jobs read on that source's own thread; `waiting.py`: waiting for a first load.
- `series.py`: a bounded step series per tag (compat §3.6-3.8); `digest.py`: the few numbers
  a job-list row needs of a tag; `not_shown.py`: what no view shows, counted.
- `budget.py`: which jobs keep their details in memory; `pool.py`: first loads in worker
  processes.
- Kept between runs: `snapshot.py` (a job as bytes), `snapshot_fit.py` (whether a snapshot still
  describes the files), `disk_cache.py`, `graph_cache.py`.
- `every_step.py`: every value of a job, with the store's restart rules, for `--all-steps`.
"""
