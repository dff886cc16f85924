"""The columns of the exported tables whose rows queries give (landscapes, profiles), apart from
those queries: an export writes every file's header, and imports a query only for a job that
holds its kind of data (the profiler's modules alone take 10 ms to import)."""

LANDSCAPE_COLUMNS = ("train_id", "tag", "kind", "interval", "x", "y", "loss")
OP_COLUMNS = ("train_id", "profile", "op_name", "full_op_name", "op_type", "scope", "occurrences",
              "total_ms", "avg_ms", "share")
OP_TYPE_COLUMNS = ("train_id", "profile", "op_type", "occurrences", "per_step", "total_ms", "avg_ms", "share")
CLUSTER_COLUMNS = ("group", "op_type", "rank", "train_id", "ms", "min_ms", "max_ms", "spread_ms", "slowest_rank",
                   "fastest_rank")
