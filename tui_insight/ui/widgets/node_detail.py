"""The detail pane of the graph view: one graph node, or one dataset-pipeline operation.

Every line is an option of an `OptionList`, so the keyboard scrolls through all of it; the
lines of inputs and outputs carry the name of the node at their other end, and `enter` on
one posts `NodeDetail.Jump` (the graph view then moves its tree there).

The `*_rows` functions are pure (no widget): `graph_node_rows` may be slow for a big name
scope (its edges are worked out the first time), so the view calls it in a worker thread.
"""
from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from rich.text import Text
from textual.binding import Binding
from textual.message import Message
from textual.widgets import OptionList
from textual.widgets.option_list import Option

from ...summary.graph import Edge, Graph, Node
from .graph_tree import PipelineOp

EDGE_LIMIT = 200  # edges listed per direction; a big scope can have thousands
KEY_WIDTH = 10
DIM = "dim"
HEAD = "bold"


@dataclass(frozen=True)
class DetailRow:
    text: Text
    target: str | None = None  # the graph node `enter` jumps to


def _field(key: str, value: str, value_style: str = "") -> DetailRow:
    text = Text()
    text.append(f"{key:<{KEY_WIDTH}}", DIM)
    text.append(value, value_style)
    return DetailRow(text)


def _heading(title: str) -> DetailRow:
    return DetailRow(Text(title, HEAD))


def shape_text(shape: list[list[int]]) -> str:
    """[[16, 6, 28, 28]] -> `[16, 6, 28, 28]`; several outputs are listed; none gives `-`."""
    if not shape:
        return "-"
    return ", ".join("[" + ", ".join(str(d) for d in dims) + "]" for dims in shape)


def attr_text(value: str) -> str:
    """A protobuf text-format attribute on one line: `dtype: DT_INT64 int_val: 1`."""
    return " ".join(line.strip() for line in value.splitlines() if line.strip())


def _edge_rows(arrow: str, edges: dict[str, Edge], here: str) -> list[DetailRow]:
    rows = []
    for index, (name, edge) in enumerate(edges.items()):
        if index == EDGE_LIMIT:
            rows.append(DetailRow(Text(f"  … {len(edges) - EDGE_LIMIT:,} more", DIM)))
            break
        scope, _, base = name.rpartition("/")
        text = Text()
        text.append(f"{arrow} ")
        text.append(base, "bold")
        text.append(f"  {shape_text(edge.shape)}  {edge.data_type or '-'}  ")
        text.append(edge.edge_type, "italic" if edge.edge_type == "control" else "")
        if edge.independent_layout:
            text.append("  independent layout", DIM)
        if scope and scope != here:
            text.append(f"\n    {scope}", DIM)
        rows.append(DetailRow(text, name))
    return rows


def _proxy_rows(arrow: str, edges: dict[str, str], here: str) -> list[DetailRow]:
    rows = []
    for name, edge_type in list(edges.items())[:EDGE_LIMIT]:
        scope, _, base = name.rpartition("/")
        text = Text()
        text.append(f"{arrow} ")
        text.append(base, "bold")
        text.append(f"  proxy {edge_type}", DIM)
        if scope and scope != here:
            text.append(f"\n    {scope}", DIM)
        rows.append(DetailRow(text, name))
    return rows


def graph_node_rows(graph: Graph, node: Node, sizes: dict[str, int] | None = None) -> list[DetailRow]:
    """Full name, type, attributes, inputs and outputs (shape, data type, edge kind) of `node`."""
    rows = [DetailRow(Text(node.name, HEAD)), _field("type", node.type)]
    if node.scope:
        rows.append(_field("scope", node.scope))
    if node.is_scope:
        below = (sizes or {}).get(node.name, 0)
        rows.append(_field("holds", f"{node.subnode_count:,} children, {below:,} nodes below"))
    else:
        rows.append(_field("output", f"{shape_text(node.output_shape)}  {node.output_data_type or '-'}"))
        if node.full_name and node.full_name != node.name:
            rows.append(_field("full name", node.full_name))
        if node.is_dynamic_shape_node:
            rows.append(_field("shape", "dynamic"))
    if node.independent_layout:
        rows.append(_field("layout", "independent (drawn apart)"))
    attrs = node.attr
    if attrs:
        rows.append(_heading(f"Attributes ({len(attrs)})"))
        for key, value in attrs.items():
            text = Text()
            text.append(f"  {key}", "bold")
            text.append(f"  {attr_text(value)}")
            rows.append(DetailRow(text))
    here = node.scope
    inputs, outputs = node.inputs, node.outputs
    rows.append(_heading(f"Inputs ({len(inputs)})"))
    rows.extend(_edge_rows("←", inputs, here) or [DetailRow(Text("  none", DIM))])
    rows.append(_heading(f"Outputs ({len(outputs)})"))
    rows.extend(_edge_rows("→", outputs, here) or [DetailRow(Text("  none", DIM))])
    if node.proxy_inputs or node.proxy_outputs:
        rows.append(_heading(f"Proxy edges ({len(node.proxy_inputs) + len(node.proxy_outputs)})"))
        rows.extend(_proxy_rows("⇠", node.proxy_inputs, here))
        rows.extend(_proxy_rows("⇢", node.proxy_outputs, here))
    return rows


def value_text(value: Any) -> str:
    """A parameter value as MindInsight's JSON shows it (null, true, lists); strings as they are."""
    if isinstance(value, str):
        return value
    return json.dumps(value, ensure_ascii=False)


def _params_rows(params: dict[str, Any], indent: str = "  ") -> list[DetailRow]:
    rows = []
    for key in sorted(params):
        text = Text()
        text.append(f"{indent}{key}", "bold")
        text.append(f"  {value_text(params[key])}")
        rows.append(DetailRow(text))
    return rows


def pipeline_rows(op: PipelineOp, number: int = 0) -> list[DetailRow]:
    """An operation's parameters, its tensor operations (with their parameters) and its sampler."""
    title = f"{number}. {op.op_type}" if number else op.op_type
    rows = [DetailRow(Text(title, HEAD))]
    rows.append(_heading(f"Parameters ({len(op.params)})"))
    rows.extend(_params_rows(op.params) or [DetailRow(Text("  none", DIM))])
    if op.operations:
        rows.append(_heading(f"Operations ({len(op.operations)})"))
        for item in op.operations:
            name = item.get("tensor_op_name") or item.get("op_name") or "?"
            rows.append(DetailRow(Text(f"  {name}", "bold")))
            params = {k: v for k, v in item.items() if k not in ("tensor_op_name", "tensor_op_params")}
            raw = item.get("tensor_op_params")
            if isinstance(raw, str):
                try:
                    decoded = json.loads(raw)
                except ValueError:
                    decoded = raw
                if isinstance(decoded, dict):
                    params.update(decoded)
                else:
                    params["tensor_op_params"] = decoded
            for key in ("size", "weights"):  # empty lists say nothing (§6.4 quirk)
                if params.get(key) == []:
                    del params[key]
            rows.extend(_params_rows(params, "    "))
    if op.sampler:
        rows.append(_heading("Sampler"))
        rows.extend(_params_rows(op.sampler))
    return rows


class NodeDetail(OptionList):
    """The rows of one node; `enter` on an input or output jumps to that node."""

    HELP_GROUP = "Graph"
    BINDINGS = [Binding("enter", "select", "Jump to input/output", id="graph.jump")]
    DEFAULT_CSS = """
    NodeDetail { height: 1fr; width: 1fr; border: none; padding: 0 0 0 1; }
    NodeDetail:focus { border: none; }
    """

    class Jump(Message):
        """The user chose an input or output: show the node `name`."""

        def __init__(self, name: str):
            super().__init__()
            self.name = name

    def __init__(self, **kwargs: Any):
        super().__init__(**kwargs)
        self.targets: list[str | None] = []
        self.subject: object = None  # what the rows describe (to keep the cursor on a refresh)

    def show_rows(self, rows: list[DetailRow], subject: object = None) -> None:
        keep = self.highlighted if subject is not None and subject == self.subject else None
        self.subject = subject
        self.targets = [row.target for row in rows]
        self.set_options([Option(row.text) for row in rows])
        if rows:
            self.highlighted = min(keep, len(rows) - 1) if keep is not None else 0

    def show_message(self, text: str) -> None:
        self.show_rows([DetailRow(Text(text, DIM))])
        self.subject = None

    def on_option_list_option_selected(self, event: OptionList.OptionSelected) -> None:
        event.stop()
        index = event.option_index
        target = self.targets[index] if 0 <= index < len(self.targets) else None
        if target:
            self.post_message(self.Jump(target))
