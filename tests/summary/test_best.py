"""The best-run rule (`summary.best`): which way is better by the tag's name, and which value wins."""
from __future__ import annotations

import math

import pytest

from tui_insight.summary.queries.best import HIGHER, LOWER, best_of, direction


@pytest.mark.parametrize("tag, expected", [
    ("loss", LOWER), ("train/loss", LOWER), ("val_loss", LOWER), ("Loss/auto", LOWER), ("metric/Loss", LOWER),
    ("acc", HIGHER), ("eval/Accuracy", HIGHER), ("top1_acc", HIGHER), ("custom/acc_proxy", HIGHER),
    ("f1_score", HIGHER), ("AUC", HIGHER), ("val/precision", HIGHER), ("recall@5", HIGHER),
    ("lr", None), ("accumulated", None), ("grad_norm", None), ("racc", None), ("", None),
])
def test_direction_by_name(tag, expected):
    assert direction(tag) == expected


def test_a_loss_that_mentions_accuracy_is_still_a_loss():
    assert direction("accuracy_loss") == LOWER


def test_best_of_picks_the_lowest_or_highest_and_every_run_tied_for_it():
    assert best_of([3.0, 1.0, 2.0, 0.5], LOWER) == {3}
    assert best_of([3.0, 1.0, 2.0, 1.0], LOWER) == {1, 3}  # a tie is no win for the first
    assert best_of([3.0, 1.0, 3.0], HIGHER) == {0, 2}
    assert best_of([3.0, 1.0], None) == set()


def test_nan_inf_and_missing_values_never_win():
    values = [2.0, math.nan, -math.inf, None, 1.5, math.inf]
    assert best_of(values, LOWER) == {4}
    assert best_of(values, HIGHER) == {0}
    assert best_of([math.nan, None, math.inf], LOWER) == set()
    assert best_of([], HIGHER) == set()
