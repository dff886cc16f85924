"""Lineage of a job from its `_lineage` files (compat §6.1): what `read_lineage` merges into a
`JobLineage`, as MindInsight merges them. The rows, columns and conditions over many jobs'
lineage are queries (`queries/lineage.py`).
"""
from __future__ import annotations

import json
import os
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import numpy as np
from google.protobuf.message import DecodeError

from ..text import text_of
from .framing import ScanReport, scan_records

if TYPE_CHECKING:  # (`read_lineage` imports it: a run without lineage files never does)
    from ...proto import lineage_pb2
    from .tensorboard import HParams


@dataclass(frozen=True)
class JobLineage:
    """What a job's lineage files say, merged as MindInsight merges them."""

    train: dict[str, Any] = field(default_factory=dict)  # flat: optimizer, learning_rate, ... model_size
    evaluation: dict[str, Any] = field(default_factory=dict)  # metric (dict), test_dataset_path/count
    dataset_graph: dict[str, Any] = field(default_factory=dict)  # §6.4 dict, {} if none
    user_defined: dict[str, Any] = field(default_factory=dict)
    bad_records: int = 0
    problems: tuple[str, ...] = ()
    hparams: tuple[HParams, ...] = ()  # TensorBoard hparams records of the job's event files, read order

    @property
    def session(self) -> bool:
        """Holds a TensorBoard hparams session (a run with hyper-parameters), not only an experiment."""
        return any(record.kind == "session_start" for record in self.hparams)

    @property
    def empty(self) -> bool:
        return not (self.train or self.evaluation or self.dataset_graph or self.user_defined or self.session)


def _f32(value: float) -> float:
    """A float32 field as its shortest float32 text would read (2.2626145, not 2.262614488601684)."""
    return float(str(np.float32(value)))


def _plain(value: Any) -> Any:
    """A field's value, with a string that is not UTF-8 (protobuf hands it over as bytes) as text."""
    return text_of(value) if isinstance(value, bytes) else value


def _map_items(entries: Any) -> list[tuple[str, Any]]:
    """A string-keyed map's entries, values as `_plain`. An entry whose key is not UTF-8 cannot
    be read (protobuf raises on it) and is left out."""
    return [(key, _plain(entries[key])) for key in entries if isinstance(key, str)]


def _train_fields(train: lineage_pb2.TrainLineage) -> dict[str, Any]:
    out: dict[str, Any] = {}
    hp = train.hyper_parameters
    for name in ("optimizer", "loss_function", "epoch", "parallel_mode", "device_num", "batch_size"):
        if hp.HasField(name):
            out[name] = _plain(getattr(hp, name))
    if hp.HasField("learning_rate"):
        out["learning_rate"] = _f32(hp.learning_rate)
    if train.train_dataset.HasField("train_dataset_path"):
        out["train_dataset_path"] = _plain(train.train_dataset.train_dataset_path)
    if train.train_dataset.HasField("train_dataset_size"):
        out["train_dataset_count"] = train.train_dataset.train_dataset_size
    if train.algorithm.HasField("network"):
        out["network"] = _plain(train.algorithm.network)
    if train.algorithm.HasField("loss"):
        out["loss"] = _f32(train.algorithm.loss)
    if train.model.HasField("size"):
        out["model_size"] = int(train.model.size)
    if train.model.HasField("path"):
        out["model_path"] = _plain(train.model.path)
    return out


def _eval_fields(evaluation: lineage_pb2.EvaluationLineage) -> tuple[dict[str, Any], str | None]:
    out: dict[str, Any] = {}
    problem = None
    if evaluation.HasField("metric"):
        try:
            metric = json.loads(evaluation.metric) if evaluation.metric else {}
            out["metric"] = {str(k): _flat(v) for k, v in metric.items()} if isinstance(metric, dict) else {}
        except ValueError:
            out["metric"] = {}
            problem = "evaluation metric is not JSON"
        except RecursionError:  # a hostile file: JSON nested past Python's recursion limit
            out["metric"] = {}
            problem = "evaluation metric is JSON nested too deeply to read"
    valid = evaluation.valid_dataset
    if valid.HasField("valid_dataset_path"):
        out["test_dataset_path"] = _plain(valid.valid_dataset_path)
    if valid.HasField("valid_dataset_size"):
        out["test_dataset_count"] = valid.valid_dataset_size
    return out, problem


def _flat(value: Any) -> Any:
    """A metric as a cell can show it: numbers, text and booleans as they are; a list or object
    as short JSON text (a deep one as "…"), so nothing downstream walks a nested structure."""
    if value is None or isinstance(value, (bool, int, float, str)):
        return value
    try:
        text = json.dumps(value, separators=(",", ":"))
    except (RecursionError, ValueError):
        return "…"
    return text if len(text) <= 200 else text[:199] + "…"


def user_info_dict(info: lineage_pb2.UserDefinedInfo) -> dict[str, Any]:
    """MindInsight's rule: per `user_info` element, the first populated map, its first entry."""
    out: dict[str, Any] = {}
    for element in info.user_info:
        for map_name in ("map_dict", "map_int32", "map_str", "map_double"):
            entries = _map_items(getattr(element, map_name))
            if entries:
                key, value = entries[0]
                out[key] = user_info_dict(value) if map_name == "map_dict" else value
                break
    return out


def _params(param: lineage_pb2.OperationParameter, into: dict[str, Any]) -> None:
    for key, value in _map_items(param.mapStr):
        into[key] = None if value == "None" else value
    for key, value in _map_items(param.mapStrList):
        into[key] = [None if v == "" else _plain(v) for v in value.strValue]
    for name in ("mapBool", "mapInt", "mapDouble"):
        for key, value in _map_items(getattr(param, name)):
            into[key] = value


def dataset_graph_dict(graph: lineage_pb2.DatasetGraph) -> dict[str, Any]:
    """The dataset graph as MindInsight serves it (§6.4), including its size/weights quirk."""
    out: dict[str, Any] = {}
    _params(graph.parameter, out)
    if len(graph.operations):
        ops = []
        for op in graph.operations:
            item: dict[str, Any] = {}
            _params(op.operationParam, item)
            # MindInsight accumulates both keys into one list and leaves out an empty one.
            shared: list[float] = list(op.size)
            if shared:
                item["size"] = shared
            shared.extend(_f32(w) for w in op.weights)
            if shared:
                item["weights"] = shared
            ops.append(item)
        out["operations"] = ops
    if graph.HasField("sampler"):
        sampler: dict[str, Any] = {}
        _params(graph.sampler.operationParam, sampler)
        if sampler:
            out["sampler"] = sampler
    out["children"] = [dataset_graph_dict(child) for child in graph.children]
    return out


def read_lineage(paths: list[str], source=None) -> JobLineage:
    """Merge a job's lineage files, given in read order (timestamp ascending); read through
    `source` (a `source.Source`) when they are remote."""
    train: dict[str, Any] = {}
    evaluation: dict[str, Any] = {}
    dataset: dict[str, Any] = {}
    user: dict[str, Any] = {}
    bad = 0
    problems: list[str] = []
    from ...proto import lineage_pb2

    for path in paths:
        name = os.path.basename(path)
        last: dict[str, lineage_pb2.LineageEvent] = {}
        users: list[lineage_pb2.UserDefinedInfo] = []
        report = ScanReport()
        try:
            size = -1 if source is None or source.is_local else source.stat(path).st_size
            with open(path, "rb") if size < 0 else source.open_range(path, 0, size) as fh:
                size = os.fstat(fh.fileno()).st_size if size < 0 else size
                for _, payload in scan_records(fh, 0, size, report):
                    try:
                        event = lineage_pb2.LineageEvent.FromString(payload)
                    except DecodeError:
                        bad += 1
                        continue
                    kind = event.WhichOneof("what")
                    if kind == "user_defined_info":
                        users.append(event.user_defined_info)
                    elif kind:
                        last[kind] = event
        except OSError as exc:
            problems.append(f"{name}: unreadable ({exc.strerror or exc})")
            continue
        bad += report.bad_records
        problems.extend(f"{name}: {p}" for p in report.problems)
        if not last:
            continue  # MindInsight: a file without train, eval or dataset graph adds nothing
        # A file with a train record or a dataset graph starts the job's lineage afresh.
        if "train_lineage" in last or "dataset_graph" in last:
            train, evaluation, dataset, user = {}, {}, {}, {}
        if "train_lineage" in last:
            train = _train_fields(last["train_lineage"].train_lineage)
        if "evaluation_lineage" in last:
            evaluation, problem = _eval_fields(last["evaluation_lineage"].evaluation_lineage)
            if problem:
                problems.append(f"{name}: {problem}")
        if "dataset_graph" in last:
            dataset = dataset_graph_dict(last["dataset_graph"].dataset_graph)
        for info in users:
            user.update(user_info_dict(info))
    return JobLineage(train, evaluation, dataset, user, bad, tuple(problems))


# ==========================================================================================
# Queries over the jobs' lineage (§6.2, §6.3): rows, columns, conditions, filter, sort.
# ==========================================================================================

# The model-lineage columns, in MindInsight's order (§6.2).
