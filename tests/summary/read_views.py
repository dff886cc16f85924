"""What a cache's job views hold that the reading decides, comparable between two ways of reading
the same files (the bulk path and the one-event path)."""
from __future__ import annotations

import struct


def view_of(cache) -> dict:
    """Every job's tags, series (floats as their bits), file status, problems, first wall time,
    what is not shown and its lineage's hyper-parameters, by train id."""
    out = {}
    for tid, job in cache.jobs.items():
        full = cache.job(tid)
        tags = {key: (series.seen, {name: (col.dtype.str, col.tobytes()) for name, col in series.columns.items()})
                for key, series in full.tags.items()}
        first = job.first_wall_time
        out[tid] = (list(full.tags), tags, [(f.name, f.records, f.bad_records, f.tail_bytes) for f in full.file_status],
                    full.problems, struct.pack("<d", first) if first is not None else None, full.not_shown,
                    full.lineage.hparams if full.lineage is not None else None)
    return out
