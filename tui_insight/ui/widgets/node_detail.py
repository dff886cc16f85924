"""The detail pane of the graph view: one graph node, or one dataset-pipeline operation.

Every line is an option of an `OptionList`, so the keyboard scrolls through all of it; the
lines of inputs and outputs carry the name of the node at their other end, and `enter` on
one posts `NodeDetail.Jump` (the graph view then moves its tree there). A new node's rows open
with the cursor on its first input or output, so `enter` jumps at once.

Names, types, attribute values and dataset parameters come from files: they are added to the
rows as plain text (never markup), with control characters shown escaped (`common/text.py`).

The `*_rows` functions are pure (no widget): `graph_node_rows` may be slow for a big name
scope (its edges are worked out the first time), so the view calls it in a worker thread.
"""
from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any, Sequence

from rich.cells import cell_len
from rich.text import Text
from textual.binding import Binding
from textual.message import Message
from textual.widgets import OptionList
from textual.widgets.option_list import Option

from ...summary.formats.graph import Edge, Graph, Node
from ..common.format import clipped
from ..common.text import shown
from .graph_tree import PipelineStep

EDGE_LIMIT = 100  # edges listed per direction; a big scope can have thousands
KEY_WIDTH = 10
DIM = "dim"
HEAD = "bold"


@dataclass(frozen=True)
class DetailRow:
    text: Text
    target: str | None = None  # the graph node `enter` jumps to
    wrap: bool = True  # False: each line is cut to the pane with an ellipsis (edges)


def fit(text: Text, width: int) -> Text:
    """Each line of `text` cut to `width` cells, with an ellipsis where it is cut."""
    lines = text.split("\n", allow_blank=True)
    for line in lines:
        line.truncate(max(1, width), overflow="ellipsis")
    return Text("\n").join(lines)


BREAKS = "/ "  # a long line breaks after a scope separator or a space, never inside a name


def wrap_at_scopes(text: Text, width: int) -> Text:
    """`text` with each line longer than `width` cells broken after its last `/` or space that
    fits (`Default/network/` then `conv1-Conv2d/Conv2D-op1`); a part with neither is cut."""
    lines = []
    for line in text.split("\n", allow_blank=True):
        plain = line.plain
        if width <= 0 or cell_len(plain) <= width:
            lines.append(line)
            continue
        offsets, start, last_break, used = [], 0, 0, 0
        for i, char in enumerate(plain):
            used += cell_len(char)
            if used > width:
                cut = last_break if last_break > start else i
                offsets.append(cut)
                start, used = cut, cell_len(plain[cut:i + 1])
            if char in BREAKS:
                last_break = i + 1
        lines.extend(line.divide(offsets))
    return Text("\n").join(lines)


def _field(key: str, value: str, value_style: str = "") -> DetailRow:
    text = Text()
    text.append(f"{key:<{KEY_WIDTH}}", DIM)
    text.append(shown(clipped(value)), value_style)
    return DetailRow(text)


def _heading(title: str) -> DetailRow:
    return DetailRow(Text(shown(title), HEAD))


def shape_text(shape: Sequence[Sequence[int]]) -> str:
    """[[16, 6, 28, 28]] -> `[16, 6, 28, 28]`; several outputs are listed; none gives `-`."""
    if not shape:
        return "-"
    return ", ".join("[" + ", ".join(str(d) for d in dims) + "]" for dims in shape)


def _text_fields(lines: list[str], at: int = 0) -> tuple[list[tuple[str, Any]], int]:
    """Protobuf text format, parsed into [(field, value or nested fields)] up to the closing `}`."""
    fields: list[tuple[str, Any]] = []
    while at < len(lines):
        line = lines[at].strip()
        at += 1
        if not line:
            continue
        if line == "}":
            return fields, at
        if line.endswith("{"):
            nested, at = _text_fields(lines, at)
            fields.append((line[:-1].strip(), nested))
        elif ":" in line:
            key, _, value = line.partition(":")
            fields.append((key.strip(), value.strip()))
        else:
            raise ValueError(line)
    return fields, at


def _compact(fields: list[tuple[str, Any]]) -> str:
    dtype = next((v for k, v in fields if k == "dtype"), "")
    items = [v for k, v in fields if k == "values"]
    if items or dtype in ("DT_TUPLE", "DT_LIST"):
        opening, closing = ("[", "]") if dtype == "DT_LIST" else ("(", ")")
        return opening + ", ".join(_compact(item) for item in items) + closing
    scalars = [v for k, v in fields if k != "dtype" and isinstance(v, str)]
    if len(fields) == len(scalars) + (1 if dtype else 0) and len(scalars) == 1:
        return scalars[0]
    if not scalars and len(fields) == 1 and dtype:
        return dtype  # a type, or DT_NONE
    raise ValueError("not a simple value")


def attr_text(value: str) -> str:
    """An attribute's protobuf text as a short value: `(5, 5)`, `"NCHW"`, `1`; else on one line."""
    try:
        fields, _ = _text_fields(value.splitlines())
        return _compact(fields)
    except ValueError:
        return " ".join(line.strip() for line in value.splitlines() if line.strip())


def short_scope(scope: str, keep: int = 1) -> str:
    """The last `keep` segments of a scope path: `…/Grad_BiasAdd`."""
    parts = scope.split("/")
    return scope if len(parts) <= keep else "…/" + "/".join(parts[-keep:])


def _edge_text(arrow: str, name: str, first: str, second: str, here: str) -> Text:
    """Two lines: the node at the other end (and its shape), then type, kind and where it is."""
    scope, _, base = name.rpartition("/")
    text = Text()
    text.append(f"{arrow} ")
    text.append(shown(clipped(base)), "bold")
    if first:
        text.append(f"  {first}")
    where = f" · in {short_scope(scope)}" if scope and scope != here else ""
    text.append(f"\n    {shown(second + where)}", DIM)
    return text


def _edge_rows(arrow: str, edges: dict[str, Edge], here: str) -> list[DetailRow]:
    rows = []
    for index, (name, edge) in enumerate(edges.items()):
        if index == EDGE_LIMIT:
            rows.append(DetailRow(Text(f"  … {len(edges) - EDGE_LIMIT:,} more", DIM)))
            break
        second = f"{edge.data_type or '-'} · {edge.edge_type}"
        if edge.independent_layout:
            second += " · independent layout"
        rows.append(DetailRow(_edge_text(arrow, name, shape_text(edge.shape), second, here), name, wrap=False))
    return rows


def _proxy_rows(arrow: str, edges: dict[str, str], here: str) -> list[DetailRow]:
    return [DetailRow(_edge_text(arrow, name, "", f"proxy · {edge_type}", here), name, wrap=False)
            for name, edge_type in list(edges.items())[:EDGE_LIMIT]]


def graph_node_rows(graph: Graph, node: Node, sizes: dict[str, int] | None = None) -> list[DetailRow]:
    """Full name, type, attributes, inputs and outputs (shape, data type, edge kind) of `node`."""
    rows = [DetailRow(Text(shown(clipped(node.name)), HEAD)), _field("type", node.type)]
    if node.scope:
        rows.append(_field("scope", node.scope))
    if node.is_scope:
        below = (sizes or {}).get(node.name, 0)
        children = f"{node.subnode_count:,} child" + ("" if node.subnode_count == 1 else "ren")
        rows.append(_field("holds", f"{children}, {below:,} node{'' if below == 1 else 's'} below"))
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
            text.append(f"  {shown(key)}", "bold")
            text.append(f"  {shown(attr_text(value))}")
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
    """A parameter value: strings as they are, lists in brackets, null/true/false as in JSON."""
    if isinstance(value, str):
        return value
    if isinstance(value, (list, tuple)):
        return "[" + ", ".join(value_text(v) for v in value) + "]"
    if isinstance(value, dict):
        return "{" + ", ".join(f"{k}: {value_text(v)}" for k, v in value.items()) + "}"
    return json.dumps(value, ensure_ascii=False)


def _params_rows(params: dict[str, Any], indent: str = "  ") -> list[DetailRow]:
    rows = []
    for key in sorted(params):
        text = Text()
        text.append(f"{indent}{shown(str(key))}", "bold")
        text.append(f"  {shown(value_text(params[key]))}")
        rows.append(DetailRow(text))
    return rows


def pipeline_rows(step: PipelineStep) -> list[DetailRow]:
    """An operation's parameters, its tensor operations (with their parameters) and its sampler."""
    op = step.op
    rows = [DetailRow(Text(shown(f"{step.number}. {op.op_type or '?'}"), HEAD))]
    rows.append(_heading(f"Parameters ({len(op.params)})"))
    rows.extend(_params_rows(op.params) or [DetailRow(Text("  none", DIM))])
    if op.operations:
        rows.append(_heading(f"Operations ({len(op.operations)})"))
        for item in op.operations:
            name = item.get("tensor_op_name") or item.get("op_name") or "?"
            rows.append(DetailRow(Text(shown(f"  {name}"), "bold")))
            params = {k: v for k, v in item.items() if k not in ("tensor_op_name", "tensor_op_params")}
            raw = item.get("tensor_op_params")
            if isinstance(raw, str):  # MindSpore writes the tensor op's parameters as JSON text
                try:
                    decoded = json.loads(raw)
                except ValueError:
                    decoded = raw
                if isinstance(decoded, dict):
                    params.update(decoded)
                else:
                    params["tensor_op_params"] = decoded
            rows.extend(_params_rows(params, "    "))
    if op.sampler:
        rows.append(_heading("Sampler"))
        rows.extend(_params_rows(op.sampler))
    if op.children:
        names = ", ".join(child.op_type or "?" for child in op.children)
        rows.append(_field("reads", names))
    return rows


class NodeDetail(OptionList):
    """The rows of one node; `enter` on an input or output jumps to that node."""

    HELP_GROUP = "Graph"
    BINDINGS = [Binding("enter", "select", "Jump to input/output", id="graph.jump")]
    DEFAULT_CSS = """
    NodeDetail { height: 1fr; width: 1fr; border: none; padding: 0 0 0 1; scrollbar-gutter: stable; }
    NodeDetail:focus { border: none; }
    """

    @dataclass
    class Jump(Message):
        """The user chose an input or output: show the node `name`."""

        name: str

    def __init__(self, **kwargs: Any):
        super().__init__(**kwargs)
        self.rows: list[DetailRow] = []
        self.subject: object = None  # what the rows describe (to keep the cursor on a refresh)
        self._width = 0

    @property
    def targets(self) -> list[str | None]:
        return [row.target for row in self.rows]

    def show_rows(self, rows: list[DetailRow], subject: object = None, cursor: int = -1) -> None:
        """Show `rows`. The cursor stays where it was if they describe the same `subject`; else it
        goes to row `cursor` if there is one, else to the first input or output (else the top)."""
        keep = self.highlighted if subject is not None and subject == self.subject else None
        self.subject = subject
        self.rows = list(rows)
        if keep is None:
            keep = cursor if 0 <= cursor < len(self.rows) else self.first_target()
        self._fill(keep)

    def first_target(self) -> int:
        """The first row `enter` jumps from (0 if none)."""
        return next((i for i, row in enumerate(self.rows) if row.target), 0)

    def _fill(self, keep: int | None) -> None:
        width = self._width = self.scrollable_content_region.width - 1
        rows = self.rows
        lines = width + 1  # the list's lines are as wide as its content region
        self.set_options([Option(wrap_at_scopes(row.text, lines) if row.wrap or width <= 0 else fit(row.text, width))
                          for row in rows])
        if rows:
            self.highlighted = min(keep, len(rows) - 1) if keep is not None else 0

    def on_resize(self) -> None:
        if self.rows and self.scrollable_content_region.width - 1 != self._width:
            self._fill(self.highlighted)

    def show_message(self, text: str) -> None:
        """Plain text, never markup (callers escape the control characters of names with `shown`)."""
        self.show_rows([DetailRow(Text(text, DIM))])
        self.subject = None

    def on_option_list_option_selected(self, event: OptionList.OptionSelected) -> None:
        event.stop()
        index = event.option_index
        target = self.rows[index].target if 0 <= index < len(self.rows) else None
        if target:
            self.post_message(self.Jump(target))
