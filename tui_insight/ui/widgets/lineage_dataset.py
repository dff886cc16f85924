"""How the lineage view shows dataset pipelines: stages, their parameters, short cell texts.

A dataset graph (§6.4) is read as `graph.dataset_pipeline` gives it: from the sources to the
output, as a pipeline is written. Each stage gets a name, its op type, numbered when the type
repeats (`Map`, `Map#2`), so the same stage of different jobs lands in the same column.
"""
from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any, Iterable, Mapping

from rich.console import Group, RenderableType
from rich.padding import Padding
from rich.table import Table
from rich.text import Text

from ...summary.graph import dataset_pipeline
from ..common.text import literal

MAX_LIST_ITEMS = 6  # items of a list shown in a table cell


@dataclass(frozen=True)
class Stage:
    name: str  # "Map#2": op type, numbered from the source when it repeats
    op_type: str
    params: dict[str, Any]  # flattened parameters; `operations` and `sampler` included as they are
    position: float  # 0 at the source, 1 at the output: orders stage columns across jobs


def pipeline_stages(graph: Mapping[str, Any] | None) -> list[Stage]:
    """The stages of a dataset graph from source to output (`graph.dataset_pipeline`); [] for none."""
    ops = dataset_pipeline(graph)
    seen: dict[str, int] = {}
    stages = []
    last = max(len(ops) - 1, 1)
    for i, op in enumerate(ops):
        op_type = op.op_type or "Dataset"
        seen[op_type] = seen.get(op_type, 0) + 1
        name = op_type if seen[op_type] == 1 else f"{op_type}#{seen[op_type]}"
        params = dict(op.params)
        if op.operations:
            params["operations"] = list(op.operations)
        if op.sampler:
            params["sampler"] = op.sampler
        stages.append(Stage(name, op_type, params, i / last if len(ops) > 1 else 1.0))
    return stages


def stage_columns(pipelines: Iterable[list[Stage]]) -> list[tuple[str, str]]:
    """(stage name, parameter) pairs of every pipeline, source stages first, then by name."""
    positions: dict[str, list[float]] = {}
    params: dict[str, dict[str, None]] = {}
    for stages in pipelines:
        for stage in stages:
            positions.setdefault(stage.name, []).append(stage.position)
            params.setdefault(stage.name, {}).update(dict.fromkeys(stage.params))
    order = sorted(positions, key=lambda name: (sum(positions[name]) / len(positions[name]), name))
    return [(name, param) for name in order for param in _param_order(params[name])]


FIRST_PARAMS = ("operations", "sampler")  # what a stage does: first
LAST_PARAMS = ("num_parallel_workers", "connector_queue_size")  # how fast it runs: last


def _param_order(names: Iterable[str]) -> list[str]:
    """Parameters alphabetically, but operations and sampler first and the runtime knobs last."""
    names = list(names)
    first = [n for n in FIRST_PARAMS if n in names]
    last = [n for n in LAST_PARAMS if n in names]
    return first + sorted(n for n in names if n not in first and n not in last) + last


def value_text(value: Any, short: bool = True) -> str | None:
    """A parameter value as one line; None when missing."""
    if value is None:
        return None
    if isinstance(value, bool):
        return str(value)
    if isinstance(value, float):
        return repr(value)
    if isinstance(value, Mapping):
        if "tensor_op_name" in value:
            return operation_text(value, short)
        name = value.get("sampler_name")
        rest = {k: v for k, v in value.items() if k != "sampler_name"}
        inner = " ".join(f"{k}={value_text(v, short) or 'None'}" for k, v in sorted(rest.items()))
        return f"{name}({inner})" if name else inner
    if isinstance(value, (list, tuple)):
        items = [value_text(v, short) or "None" for v in value]
        if short and len(items) > MAX_LIST_ITEMS:
            items = items[:MAX_LIST_ITEMS] + [f"… {len(value) - MAX_LIST_ITEMS} more"]
        return ", ".join(items) if (value and isinstance(value[0], Mapping)) else "[" + ", ".join(items) + "]"
    return str(value)


def operation_text(op: Mapping[str, Any], short: bool = True) -> str:
    """A map operation: `Resize` in a cell, `Resize {"size": [32, 32], ...}` in the detail pane."""
    name = str(op.get("tensor_op_name") or "?")
    if short:
        return name
    params = op.get("tensor_op_params")
    if params in (None, "", "{}"):
        return name
    if not isinstance(params, str):
        params = json.dumps(params, sort_keys=True)
    return f"{name} {params}"


def pipeline_detail(train_id: str, stages: list[Stage], mark: Any = None) -> RenderableType:
    """The pipeline of one job, source first, every parameter in full; long values wrap in
    their own column. Everything from the file is shown literally (`literal`), never as markup."""
    head = Text()
    head.append_text(literal(train_id, "bold"))
    if mark is not None:
        head.append_text(literal(f"  pipeline {mark}", "dim"))
    if not stages:
        return Group(head, Text(""), Text("no dataset graph in this job's lineage", style="dim"))
    parts: list[RenderableType] = [head]
    for i, stage in enumerate(stages):
        parts.append(Text.assemble(("  " if i == 0 else "↓ "), literal(stage.name, "bold")))
        grid = Table.grid(padding=(0, 2))
        grid.add_column(style="dim", no_wrap=True)
        grid.add_column(overflow="fold")
        for key in _param_order(stage.params):
            value = stage.params[key]
            if key == "operations" and isinstance(value, list):
                texts = [operation_text(op, short=False) if isinstance(op, Mapping) else str(op) for op in value]
                grid.add_row(literal(key), Text("\n").join(literal(t) for t in texts) if texts else Text("[]"))
                continue
            text = value_text(value, short=False)
            grid.add_row(literal(key), literal(text) if text is not None else Text("None", style="dim"))
        parts.append(Padding(grid, (0, 0, 0, 4)))
    return Group(*parts)
