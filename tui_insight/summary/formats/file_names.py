"""What each format's files are called: which kind a file is by its name, and the order a
job's files of one kind are read in (compat §1.2, §3.4)."""
from __future__ import annotations

import re

from .projector import CONFIG_NAME as PROJECTOR_CONFIG

SUMMARY_RE = re.compile(r"summary\.(\d+)")
PB_RE = re.compile(r"\.pb$")
PB_BLACKLIST_RE = re.compile(r"^memory_usage_\d+\.pb$")


def is_tensorboard_file(name: str) -> bool:
    """A TensorBoard event file: `events.out.tfevents.<time>.<host>[suffix]` and the like."""
    return "tfevents" in name


def tensorboard_sort_key(name: str) -> str:
    """Read order of a run's TensorBoard files: by name, as TensorBoard reads them (the restart
    rule's order)."""
    return name


def file_timestamp(name: str) -> int:
    match = SUMMARY_RE.search(name)
    return int(match.group(1)) if match else 0


def summary_sort_key(name: str) -> tuple[int, list[int]]:
    """Read order: timestamp ascending, ties by name descending (compat §3.4)."""
    return (file_timestamp(name), [-ord(c) for c in name])


def classify(name: str) -> str | None:
    """'summary', 'lineage', 'graph', 'tensorboard', 'projector' or None for a file name."""
    if name == PROJECTOR_CONFIG:
        return "projector"
    if is_tensorboard_file(name):
        return "tensorboard"
    if SUMMARY_RE.search(name):
        if name.endswith("_lineage"):
            return "lineage"
        if name.endswith("_explain"):
            return None
        return "summary"
    if PB_RE.search(name) and not PB_BLACKLIST_RE.match(name):
        return "graph"
    return None
