"""PR curves: TensorBoard's pr_curves plugin data (`add_pr_curve`, `tf.summary` pr_curve).

A value is a tensor of shape [6, n]: true positives, false positives, true negatives, false
negatives, precision and recall at n thresholds evenly spread over [0, 1] (TensorBoard's
`pr_curve/metadata.py` indices). The curve TensorBoard draws ends at the last threshold where
TP + FP > 0 (past it precision is undefined); `PrCurveData.end` is that bound, as TensorBoard
computes it. TensorBoard shows no area under the curve: `area` is the trapezoid area of
precision over recall on the drawn points, our own figure.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

ROWS = ("tp", "fp", "tn", "fn", "precision", "recall")  # the tensor's rows, in order


@dataclass(frozen=True)
class PrCurveData:
    """One step of a PR curve: the counts and rates at each threshold."""

    values: np.ndarray  # float64 (6, n): tp, fp, tn, fn, precision, recall per threshold

    @property
    def nbytes(self) -> int:
        return self.values.nbytes + 64

    @property
    def thresholds(self) -> np.ndarray:
        """The n thresholds, evenly spread over [0, 1] (as TensorBoard makes them)."""
        return np.linspace(0.0, 1.0, self.values.shape[1])

    def row(self, name: str) -> np.ndarray:
        return self.values[ROWS.index(name)]

    @property
    def end(self) -> int:
        """How many thresholds the drawn curve has: up to the last with TP + FP > 0 (at least 1)."""
        positives = self.values[0] + self.values[1]
        nonzero = np.flatnonzero(positives.astype(np.int64) != 0)
        return int(nonzero[-1]) + 1 if len(nonzero) else 1

    @property
    def precision(self) -> np.ndarray:
        """Precision at the drawn thresholds."""
        return self.values[4, :self.end]

    @property
    def recall(self) -> np.ndarray:
        """Recall at the drawn thresholds."""
        return self.values[5, :self.end]

    @property
    def area(self) -> float:
        """Trapezoid area of precision over recall on the drawn points (NaN if not finite)."""
        precision, recall = self.precision, self.recall
        if len(recall) < 2:
            return 0.0
        area = float(np.sum(np.abs(np.diff(recall)) * (precision[1:] + precision[:-1]) / 2))
        return area if np.isfinite(area) else float("nan")


def pr_curve_of(array: np.ndarray | None, reason: str = "") -> PrCurveData | str:
    """The PR curve of a decoded tensor, or why it is not one (the text is fit for the UI)."""
    if array is None:
        return reason or "no data"
    if array.ndim != 2 or array.shape[0] != len(ROWS) or array.shape[1] < 1:
        return f"a tensor of shape {list(array.shape)} is no PR curve (it takes [6, thresholds])"
    return PrCurveData(np.asarray(array, dtype=np.float64))
