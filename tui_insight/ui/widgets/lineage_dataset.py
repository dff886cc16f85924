"""The detail pane of a job's dataset pipeline in the lineage view. The stages, their columns
and their values are the lineage queries' (`summary.lineage`: `pipeline_stages`, ...)."""
from __future__ import annotations

from typing import Any, Mapping

from rich.console import Group, RenderableType
from rich.padding import Padding
from rich.table import Table
from rich.text import Text

from ...summary.queries.lineage import Stage, operation_text, param_order, value_text
from ..common.text import literal


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
        for key in param_order(stage.params):
            value = stage.params[key]
            if key == "operations" and isinstance(value, list):
                texts = [operation_text(op, short=False) if isinstance(op, Mapping) else str(op) for op in value]
                grid.add_row(literal(key), Text("\n").join(literal(t) for t in texts) if texts else Text("[]"))
                continue
            text = value_text(value, short=False)
            grid.add_row(literal(key), literal(text) if text is not None else Text("None", style="dim"))
        parts.append(Padding(grid, (0, 0, 0, 4)))
    return Group(*parts)
