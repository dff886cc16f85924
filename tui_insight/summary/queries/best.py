"""Which run is best at a tag: lower is better for losses, higher for accuracies.

One rule for every place that ranks runs (the scalar view's summary table, the job list): a tag
named like a loss (`loss`, `train/loss`, `val_loss`) is better lower; one whose name has the
word acc, accuracy, f1, auc, precision or recall (`eval/Accuracy`, `top1_acc`, `f1_score`) is
better higher; any other tag has no direction until the user gives it one. NaN and infinities
never win: a run that diverged is not the best run.
"""
from __future__ import annotations

import math
import re
from typing import Iterable, Literal, Optional

Direction = Literal["lower", "higher"]
LOWER: Direction = "lower"
HIGHER: Direction = "higher"
DIRECTIONS: tuple[Direction, ...] = (LOWER, HIGHER)
HIGHER_WORDS = frozenset({"acc", "accuracy", "f1", "auc", "precision", "recall"})


def direction(tag: str) -> Direction | None:
    """Whether lower or higher values of `tag` are better, by its name; None when the name says neither."""
    name = tag.lower()
    if "loss" in name:
        return LOWER
    if any(word in HIGHER_WORDS for word in re.split(r"[^a-z0-9]+", name)):
        return HIGHER
    return None


def best_of(values: Iterable[Optional[float]], way: Direction | None) -> frozenset[int]:
    """The indices of the best of `values`: every one that ties for best (a tie is no win for the
    first); empty when `way` is None or no value is a finite number (None, NaN and ±inf are passed over)."""
    if way is None:
        return frozenset()
    finite = [(i, v) for i, v in enumerate(values) if v is not None and math.isfinite(v)]
    if not finite:
        return frozenset()
    best_value = min(v for _, v in finite) if way == LOWER else max(v for _, v in finite)
    return frozenset(i for i, v in finite if v == best_value)
