"""Loss landscapes (`Summary.Value.loss_landscape`, compat §2): decoded on demand, listed as
MindInsight lists them.

MindSpore's `SummaryLandscape` writes one record per landscape into a summary file written
after training, all at step 0. Tags are `landscape_[1, 5]` (an interval: the checkpoints of
steps or epochs 1..5) and `landscape_[8]` (the final landscape). A record holds:

- `landscape`: x and y axes and the loss grid z, `z[i, j]` the loss at `(x[j], y[i])`
  (the loss path's points sit on the grid read that way);
- `loss_path` (intervals only): the steps or epochs of the interval and the PCA coordinates and
  loss of each checkpoint; an empty `intervals` list marks the final landscape;
- `convergence_point`: x, y and loss of the last checkpoint (MindInsight answers [0, 0, 0]
  when a coordinate is missing);
- `metadata`: decomposition ("PCA" or "Random"), unit ("step" or "epoch"), step_per_epoch.

Every number sits in `float_data` whatever `data_type` says (DT_FLOAT64 is written for float32
values); the other value arrays are read only when `float_data` is empty.

MindInsight (`landscape_processor.py`) lists the intervals as `[first, last]` of the path's
intervals, sorted by the first; the final landscape is not among them. The metadata it serves
adds the job's lineage (network, optimizer, learning rate and loss as `%6e` text, metric).
"""
from __future__ import annotations

import math
import re
from dataclasses import dataclass, field
from typing import Any, Iterable, Iterator, NamedTuple

import numpy as np

from ...proto import anf_ir_pb2, summary_pb2
from ..formats.payloads import PayloadStore
from ..formats.values import Locator, PayloadError
from ..store.job_view import JobView
from ..text import text_of
from . import export_columns

PLUGIN = "loss_landscape"
INTERVAL, FINAL = "interval", "final"
UNIT_NAMES = {"step": ("step", "steps"), "epoch": ("epoch", "epochs")}
_FINAL_TAG = re.compile(r"landscape_\[\s*(-?\d+)\s*\]")
CSV_COLUMNS = export_columns.LANDSCAPE_COLUMNS


class LandscapeError(PayloadError):
    """A landscape record whose numbers do not fit together; the message says why, for the UI."""


def tensor_values(proto: anf_ir_pb2.TensorProto) -> np.ndarray:
    """Every number of a landscape tensor as float64: `float_data` whatever `data_type` says."""
    for name in ("float_data", "double_data", "int32_data", "int64_data", "uint64_data"):
        data = getattr(proto, name)
        if len(data):
            return np.array(data, dtype=np.float64)
    return np.empty(0, dtype=np.float64)


@dataclass(frozen=True)
class LossPath:
    """The training path over a loss landscape: one point per checkpoint."""

    intervals: tuple[int, ...]  # the step (or epoch) of each checkpoint, first to last
    x: np.ndarray
    y: np.ndarray
    z: np.ndarray  # the loss at each checkpoint

    def __len__(self) -> int:
        return len(self.x)


@dataclass(frozen=True)
class LandscapeMetadata:
    """How a loss landscape was made."""

    decomposition: str = ""  # "PCA" or "Random"
    unit: str = ""  # "step" or "epoch"
    step_per_epoch: int = 0


@dataclass(frozen=True)
class Landscape:
    """One decoded landscape record."""

    tag: str
    step: int  # the record's step (0 as MindSpore writes them)
    x: np.ndarray  # (n,) the grid's x axis
    y: np.ndarray  # (m,) the grid's y axis
    z: np.ndarray  # (m, n): z[i, j] is the loss at (x[j], y[i])
    path: LossPath | None  # intervals only
    convergence: tuple[float, float, float]  # [0, 0, 0] when missing, as MindInsight answers
    metadata: LandscapeMetadata = field(default_factory=LandscapeMetadata)
    intervals: tuple[int, ...] = ()  # the path's intervals; empty: the final landscape

    @property
    def kind(self) -> str:
        return INTERVAL if self.intervals else FINAL

    @property
    def interval(self) -> tuple[int, int] | None:
        """`[first, last]` as MindInsight lists it; None for the final landscape."""
        return (self.intervals[0], self.intervals[-1]) if self.intervals else None

    @property
    def label(self) -> str:
        return landscape_label(self.kind, self.interval, self.metadata.unit, self.tag)

    @property
    def points(self) -> int:
        return int(self.z.size)

    @property
    def nbytes(self) -> int:
        size = self.x.nbytes + self.y.nbytes + self.z.nbytes + 256
        if self.path is not None:
            size += self.path.x.nbytes * 3
        return size

    def finite_range(self) -> tuple[float, float] | None:
        """The smallest and largest finite loss of the grid, None if there is none."""
        finite = self.z[np.isfinite(self.z)]
        if not finite.size:
            return None
        return float(finite.min()), float(finite.max())


def landscape_label(kind: str, interval: tuple[int, int] | None, unit: str, tag: str = "") -> str:
    """How the list names a landscape: `steps 1–5`, `epochs 1–3`, `step 4`, `final`."""
    if kind == FINAL or interval is None:
        match = _FINAL_TAG.fullmatch(tag.strip()) if tag else None
        if match:
            one, _ = UNIT_NAMES.get(unit, (unit or "step", ""))
            return f"final ({one} {match.group(1)})"
        return "final"
    one, many = UNIT_NAMES.get(unit, (unit or "step", (unit or "step") + "s"))
    first, last = interval
    return f"{one} {first}" if first == last else f"{many} {first}–{last}"


def _point(value: Any, what: str) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    return tensor_values(value.x), tensor_values(value.y), tensor_values(value.z)


def decode_landscape(value: summary_pb2.Summary.Value, step: int = 0) -> Landscape:
    """The landscape of one summary value; raises LandscapeError if its numbers do not fit."""
    if value.WhichOneof("value") != "loss_landscape":
        raise LandscapeError(f"{text_of(value.tag)!r} holds no loss landscape")
    proto = value.loss_landscape
    x, y, z = _point(proto.landscape, "landscape")
    dims = tuple(int(d) for d in proto.landscape.z.dims)
    if z.size != x.size * y.size:
        raise LandscapeError(f"the loss grid holds {z.size} values for axes of {x.size} and {y.size}")
    if len(dims) == 2 and dims[0] * dims[1] == z.size and dims != (y.size, x.size) and dims == (x.size, y.size):
        z = z.reshape(dims).T  # written x-major: turn it so rows follow y
    else:
        z = z.reshape(y.size, x.size)
    intervals = tuple(int(v) for v in proto.loss_path.intervals)
    path = None
    if intervals:
        px, py, pz = _point(proto.loss_path.points, "path")
        n = min(px.size, py.size, pz.size)
        if not (px.size == py.size == pz.size):
            raise LandscapeError(f"the loss path has {px.size} x, {py.size} y and {pz.size} loss values")
        if n != len(intervals):
            raise LandscapeError(f"the loss path has {n} points for {len(intervals)} checkpoints")
        path = LossPath(intervals, px, py, pz)
    cx, cy, cz = _point(proto.convergence_point, "convergence")
    if cx.size and cy.size and cz.size:
        convergence = (float(cx[0]), float(cy[0]), float(cz[0]))
    else:
        convergence = (0.0, 0.0, 0.0)
    meta = proto.metadata
    metadata = LandscapeMetadata(text_of(meta.decomposition), text_of(meta.unit), int(meta.step_per_epoch))
    return Landscape(text_of(value.tag), int(step), x, y, z, path, convergence, metadata, intervals)


# -- the cache ------------------------------------------------------------------------------

def landscape_at(payloads: PayloadStore, view: JobView, tag: str, i: int = -1) -> Landscape:
    """The landscape of kept entry `i` of `tag` (decoded once, kept in the payload LRU)."""
    series = view.series(PLUGIN, tag)
    if series is None or not -len(series) <= i < len(series):
        raise PayloadError(f"no loss landscape {tag!r}")
    i = i % len(series)
    return load(payloads, view.locator(series, i), int(series.steps[i]))


def load(payloads: PayloadStore, loc: Locator, step: int = 0) -> Landscape:
    """The landscape at `loc`, decoded once and kept in the payload store's LRU (bounded in
    bytes with the tensors and images) under a kind of its own."""
    return payloads.decoded("landscape", loc, lambda value: decode_landscape(value, step))


@dataclass(frozen=True)
class LandscapeEntry:
    """One landscape of a job as the list shows it (decoded: MindInsight decodes to list too)."""

    train_id: str
    tag: str
    index: int  # kept entry of the tag's series
    kind: str
    interval: tuple[int, int] | None
    unit: str
    label: str
    error: str = ""  # why it cannot be read ("" when it can)

    @property
    def key(self) -> str:
        """What names the landscape across jobs: `interval:1-5`, `final`."""
        return landscape_key(self.kind, self.interval)


def landscape_key(kind: str, interval: tuple[int, int] | None) -> str:
    return f"interval:{interval[0]}-{interval[1]}" if kind == INTERVAL and interval else FINAL


def list_landscapes(payloads: PayloadStore, view: JobView) -> list[LandscapeEntry]:
    """The job's landscapes: intervals sorted by their first step (MindInsight's order), then
    the final one(s); a record that cannot be read is listed last with its reason."""
    intervals: list[LandscapeEntry] = []
    finals: list[LandscapeEntry] = []
    broken: list[LandscapeEntry] = []
    for tag in view.tag_names(PLUGIN):
        series = view.series(PLUGIN, tag)
        for i in range(len(series) if series is not None else 0):
            try:
                ls = landscape_at(payloads, view, tag, i)
            except PayloadError as exc:
                broken.append(LandscapeEntry(view.train_id, tag, i, FINAL, None, "", tag, str(exc)))
                continue
            entry = LandscapeEntry(view.train_id, tag, i, ls.kind, ls.interval, ls.metadata.unit, ls.label)
            (intervals if ls.intervals else finals).append(entry)
    intervals.sort(key=lambda e: (e.interval or (0, 0))[0])  # stable: MindInsight's sort; intervals have one
    return intervals + finals + broken


def mindinsight_intervals(entries: Iterable[LandscapeEntry]) -> list[list[int]]:
    """The `value`s of MindInsight's `/landscape/intervals` answer."""
    return [list(e.interval) for e in entries if e.kind == INTERVAL and e.interval and not e.error]


def lineage_metadata(view: JobView) -> dict[str, Any]:
    """The job's lineage as the landscape metadata shows it (MindInsight's `_get_lineage_data`):
    network, optimizer, learning_rate and loss (`%6e` text), metric; None/{} when missing."""
    lineage = view.lineage
    train = lineage.train if lineage is not None else {}
    evaluation = lineage.evaluation if lineage is not None else {}
    lr, loss = train.get("learning_rate"), train.get("loss")
    metric = evaluation.get("metric")
    return {
        "network": train.get("network"),
        "optimizer": train.get("optimizer"),
        "learning_rate": format(lr, "6e") if isinstance(lr, (int, float)) else None,
        "loss": format(loss, "6e") if isinstance(loss, (int, float)) else None,
        "metric": dict(metric) if isinstance(metric, dict) else {},
    }


# -- values ---------------------------------------------------------------------------------

def nearest_index(axis: np.ndarray, value: float) -> int:
    """The index of the axis value nearest `value` (axes are sorted either way)."""
    if not len(axis):
        return 0
    return int(np.argmin(np.abs(np.asarray(axis, dtype=np.float64) - value)))


def shared_range(landscapes: Iterable[Landscape]) -> tuple[float, float] | None:
    """One colour scale for several landscapes: the smallest and largest finite loss of all."""
    lo, hi = math.inf, -math.inf
    for ls in landscapes:
        r = ls.finite_range()
        if r is not None:
            lo, hi = min(lo, r[0]), max(hi, r[1])
    return (lo, hi) if lo <= hi else None


# -- export ---------------------------------------------------------------------------------

class LandscapeRow(NamedTuple):
    """One row of `landscapes.csv`: `kind` is "grid", "path" or "convergence"; `interval` is
    "1-5" for an interval landscape, "final" for the final one."""

    train_id: str
    tag: str
    kind: str
    interval: str
    x: float
    y: float
    loss: float


def landscape_rows(job_view: JobView, payloads: PayloadStore) -> Iterator[LandscapeRow]:
    """Every landscape of the job as CSV rows, in list order: each grid point (x-major inside
    each row of y), then the path's checkpoints, then the convergence point. A record that
    cannot be read is skipped (the exporter may say so from `list_landscapes`' `error`)."""
    for entry in list_landscapes(payloads, job_view):
        if entry.error:
            continue
        try:
            ls = landscape_at(payloads, job_view, entry.tag, entry.index)
        except PayloadError:
            continue
        interval = f"{entry.interval[0]}-{entry.interval[1]}" if entry.interval else FINAL
        tid, tag = job_view.train_id, entry.tag
        xs, ys, zs = ls.x.tolist(), ls.y.tolist(), ls.z.tolist()
        for i, y in enumerate(ys):
            row = zs[i]
            for j, x in enumerate(xs):
                yield LandscapeRow(tid, tag, "grid", interval, x, y, row[j])
        if ls.path is not None:
            for x, y, z in zip(ls.path.x.tolist(), ls.path.y.tolist(), ls.path.z.tolist()):
                yield LandscapeRow(tid, tag, "path", interval, x, y, z)
        cx, cy, cz = ls.convergence
        yield LandscapeRow(tid, tag, "convergence", interval, cx, cy, cz)
