"""The columns of the exported tables whose rows queries give (landscapes, profiles, lineage),
apart from those queries: an export writes every file's header, and imports a query only for a
job that holds its kind of data (the profiler's modules alone take 10 ms to import, lineage's 5)."""
from __future__ import annotations

from collections.abc import Iterable
from typing import Any

LANDSCAPE_COLUMNS = ("train_id", "tag", "kind", "interval", "x", "y", "loss")
OP_COLUMNS = ("train_id", "profile", "op_name", "full_op_name", "op_type", "scope", "occurrences",
              "total_ms", "avg_ms", "share")
OP_TYPE_COLUMNS = ("train_id", "profile", "op_type", "occurrences", "per_step", "total_ms", "avg_ms", "share")
CLUSTER_COLUMNS = ("group", "op_type", "rank", "train_id", "ms", "min_ms", "max_ms", "spread_ms", "slowest_rank",
                   "fastest_rank")
# lineage's columns before each `metric/*` and `user_defined/*` (`queries.lineage.columns`)
LINEAGE_COLUMNS: tuple[str, ...] = (
    "summary_dir", "loss_function", "train_dataset_path", "train_dataset_count", "test_dataset_path",
    "test_dataset_count", "network", "optimizer", "learning_rate", "epoch", "batch_size", "device_num",
    "loss", "model_size", "dataset_mark",
)


def without_lineage(views: Iterable[Any]) -> bool:
    """No job of `views` (JobViews) gives a row of lineage (`lineage.model_rows`' rule): an
    export writes lineage's header alone and does not import the query."""
    return not any(view.lineage is not None and not view.lineage.empty for view in views)
