"""Computational graphs (compat §5, §4.7): a graph read from its file (`load_graph`), and the
scope tree MindInsight serves of it once built (`graph_build.build_graph`): `Graph`, its
`Node`s and `Edge`s, children, ancestors and MindInsight's search.

Usage (what the graph screen does, in a worker thread)::

    proto = load_graph(view.graphs[tag])           # GraphError if the file changed or is bad
    graph = build_graph(proto, optimized=False)    # (graph_build) GraphError if names are unusable
    graph.children("")                             # the root level: Default, Gradients, ...
    graph.node("Default/network-WithLossCell")     # one node; KeyError if unknown
    graph.search("conv")                           # matching names, MindInsight's rule (§5.3)
    graph.ancestors(name)                          # scopes to open to show `name`

Two things are lazy, to stay fast on large graphs: node attributes (protobuf text format) and
the edges a name scope inherits from its subtree, which are worked out the first time that
scope node is looked at. Edges are ids into one table, so that a 50,000-node graph leaves the
garbage collector ~70,000 objects to walk instead of ~350,000.
"""
from __future__ import annotations

import os
import threading
from collections import defaultdict
from typing import Any, Callable, Iterable, Iterator, NamedTuple

from google.protobuf.message import DecodeError

from ...proto import anf_ir_pb2, summary_pb2, tb_event_pb2
from ..text import text_of
from . import tb_graphs, tensorboard
from .framing import open_regular, read_record_at

MAX_ATTR_BYTES = 1024  # MindInsight's MAX_NODE_ATTRIBUTE_VALUE_BYTES

NAME_SCOPE = "name_scope"
AGGREGATION_SCOPE = "aggregation_scope"
PARAMETER = "Parameter"
CONST = "Const"
_DYNAMIC_FLAGS = ("input_is_dynamic_shape", "output_is_dynamic_shape")
_LAZY_LOCK = threading.Lock()




class GraphError(Exception):
    """A graph that cannot be read or built; the message is fit for the UI."""


# -- reading --------------------------------------------------------------------------------

def load_graph(source: Any, files: Any = None) -> anf_ir_pb2.GraphProto:
    """The GraphProto of a cache `GraphSource`, read through `files` (the cache's `source.Source`)
    when it is remote.

    `source.kind == "summary"`: the `graph_def` of the Event record at `source.offset` of
    `source.path`; `"tensorboard"`: the TensorFlow GraphDef of the TensorBoard event at that
    offset, as a tree by name scope (`tensorboard.graph_proto`); `"pb"`: a whole `ModelProto`
    file. Raises GraphError (file gone, changed,
    not decodable, or no graph in it).
    """
    return read_graph(source, files)[0]


def read_graph(source: Any, files: Any = None) -> tuple[anf_ir_pb2.GraphProto, bytes]:
    """`load_graph`'s graph, and the bytes it was decoded from (a record, or the .pb file)."""
    name = os.path.basename(source.path)
    try:
        if source.kind == "summary":
            record = read_record_at(source.path, source.offset, files)
            event = summary_pb2.Event.FromString(record)
            if not event.HasField("graph_def"):
                raise GraphError(f"{name}: the record at byte {source.offset} holds no graph any more")
            return event.graph_def, record
        if source.kind == "tensorboard":
            record = read_record_at(source.path, source.offset, files)
            graph = tensorboard.graph_of_record(record, source.offset)
            if isinstance(graph, tensorboard.Problem):
                raise GraphError(f"{name}: {graph}")
            return graph, record
        if source.kind in ("op graph", "keras", "run metadata"):  # TensorBoard's other graphs
            record = read_record_at(source.path, source.offset, files)
            graph = _tagged_graph(tb_event_pb2.Event.FromString(record), source)
            if isinstance(graph, tensorboard.Problem):
                raise GraphError(f"{name}: {source.tag}: {graph}")
            return graph, record
        if source.kind == "pb":
            if files is not None and not files.is_local:
                data = files.read(source.path)
            else:
                with open_regular(source.path) as fh:
                    data = fh.read()
            return anf_ir_pb2.ModelProto.FromString(data).graph, data
    except OSError as exc:
        raise GraphError(f"{name}: cannot read the graph ({exc.strerror or exc})") from exc
    except ValueError as exc:  # read_record_at: the record moved or changed
        raise GraphError(f"{name}: {exc}") from exc
    except DecodeError as exc:
        raise GraphError(f"{name}: the graph cannot be decoded ({exc})") from exc
    raise GraphError(f"{name}: unknown graph source kind {source.kind!r}")


def _tagged_graph(event: tb_event_pb2.Event, source: Any) -> anf_ir_pb2.GraphProto | tensorboard.Problem:
    """The graph of TensorBoard's op graph, Keras model or tagged run metadata `source` in `event`."""
    if source.kind == "run metadata":
        if event.WhichOneof("what") != "tagged_run_metadata":
            return tensorboard.Problem(f"the record at byte {source.offset} holds no run metadata any more")
        graph_def = tb_graphs.tagged_graph(event)
    else:
        values = event.summary.value
        if event.WhichOneof("what") != "summary" or not 0 <= source.index < len(values):
            return tensorboard.Problem(f"the record at byte {source.offset} holds no such value any more")
        value = values[source.index]
        plugin = tb_graphs.KERAS_MODEL if source.kind == "keras" else tb_graphs.RUN_METADATA_GRAPH
        graph_def = tb_graphs.value_graph(value, plugin)
    if isinstance(graph_def, tensorboard.Problem):
        return graph_def
    return tensorboard.graph_proto(graph_def)


# -- the model ------------------------------------------------------------------------------

class Edge(NamedTuple):
    """One end of an edge as a node lists it: what flows along it.

    shape: output shapes of the source node ([[16, 6, 28, 28]]; a tuple output gives several);
    data_type: "DT_TENSOR[DT_FLOAT32]", "DT_TUPLE['DT_TENSOR[DT_FLOAT32]', ...]", "" for consts;
    edge_type: "data" or "control"; independent_layout: the source is a parameter drawn apart.
    """

    shape: list[list[int]]
    data_type: str
    edge_type: str
    independent_layout: bool

    def to_dict(self) -> dict[str, Any]:
        """As MindInsight serves it."""
        return {"shape": self.shape, "edge_type": self.edge_type,
                "independent_layout": self.independent_layout, "data_type": self.data_type}


class EdgeTable:
    """Every edge of a graph, by id. Nodes hold {name: edge id}: plain ints keep the node
    dicts out of the garbage collector's way, and two nodes holding the same id share one
    edge, as MindInsight's nodes share one attribute dict."""

    __slots__ = ("source", "kind", "independent", "node_protos", "param_protos", "const_protos")

    def __init__(self) -> None:
        # The proto's repeated fields, read lazily for attributes and output types.
        self.node_protos: Any = ()
        self.param_protos: Any = ()
        self.const_protos: Any = ()
        self.source: list[Node | None] = []  # the node whose output flows along the edge
        self.kind: list[str] = []  # "data" or "control"
        self.independent: list[bool] = []

    def new(self, source: "Node | None", kind: str) -> int:
        self.source.append(source)
        self.kind.append(kind)
        self.independent.append(False)
        return len(self.kind) - 1

    def copy(self, edge: int) -> int:
        self.source.append(self.source[edge])
        self.kind.append(self.kind[edge])
        self.independent.append(self.independent[edge])
        return len(self.kind) - 1

    def edge(self, edge: int) -> Edge:
        source = self.source[edge]
        assert source is not None
        return Edge([list(dims) for dims in source.output_shape], source.output_data_type,
                    self.kind[edge], self.independent[edge])


class Node:
    """A node of the built graph: an operator, Parameter, Const, aggregation or name scope.

    Fields: name (full path, unique), type, scope (the parent's name, "" at the root),
    node_id, full_name, output_i, subnode_count (direct children), independent_layout.
    Properties: attr {name: protobuf text}, inputs/outputs {node name: Edge},
    proxy_inputs/proxy_outputs {node name: edge type}, is_dynamic_shape_node,
    output_shape (tuple of tuples), output_data_type. `to_dict()`: MindInsight's node dict.
    """

    __slots__ = ("name", "node_id", "type", "scope", "full_name", "output_i", "subnode_count",
                 "independent_layout", "topo", "_inputs", "_outputs", "_proxy_inputs",
                 "_proxy_outputs", "_attr", "_shape", "_dtype", "_proto", "_flags", "_pending",
                 "_origin", "_table", "_dropped")

    def __init__(self, name: str, node_id: str, type_: str, scope: str, table: EdgeTable):
        self.name = name
        self.node_id = node_id
        self.type = type_
        self.scope = scope
        self.full_name = ""
        self.output_i = 0
        self.subnode_count = 0
        self.independent_layout = False
        self.topo = -1
        self._inputs: dict[str, int] = {}  # source name -> edge id
        self._outputs: dict[str, int] = {}  # destination name -> edge id
        self._proxy_inputs: dict[str, str] = {}  # name -> edge type
        self._proxy_outputs: dict[str, str] = {}
        self._attr: dict[str, str] | None = {}  # None: not made from _proto yet
        self._shape: tuple[tuple[int, ...], ...] | None = ()  # None: not read from _proto yet
        self._dtype = ""
        self._proto = -1  # index of its NodeProto, ParameterProto or NamedValueProto
        self._flags = False  # a dynamic-shape attribute is set
        self._pending: Callable[["Node"], None] | None = None  # fills a name scope's edges
        self._origin: Node | None = None  # the Parameter/Const this node is a copy of
        self._table = table
        self._dropped: list[int] | None = None  # edges the optimized view removed (see is_dynamic_shape_node)

    def _edges(self) -> None:
        if self._pending is not None:
            with _LAZY_LOCK:  # the UI thread and a worker may look at the same scope
                if self._pending is not None:
                    self._pending(self)
                    self._pending = None

    @property
    def inputs(self) -> dict[str, Edge]:
        self._edges()
        edge = self._table.edge
        return {name: edge(i) for name, i in self._inputs.items()}

    @property
    def outputs(self) -> dict[str, Edge]:
        self._edges()
        edge = self._table.edge
        return {name: edge(i) for name, i in self._outputs.items()}

    @property
    def proxy_inputs(self) -> dict[str, str]:
        self._edges()
        return dict(self._proxy_inputs)

    @property
    def proxy_outputs(self) -> dict[str, str]:
        self._edges()
        return dict(self._proxy_outputs)

    @property
    def attr(self) -> dict[str, str]:
        if self._origin is not None:
            return self._origin.attr
        if self._attr is None:
            # An operator has its place in the graph's order (topo); a TensorFlow operator may be
            # typed Const and is still read from the operators.
            if self.type == CONST and self.topo < 0:
                self._attr = _const_attrs(self._table.const_protos[self._proto])
            elif self.type == PARAMETER and self.topo < 0:
                self._attr = {"type": self.output_data_type,
                              "shape": str([list(dims) for dims in self.output_shape])}
            else:
                self._attr, self._flags = _op_attrs(self._table.node_protos[self._proto])
        return self._attr

    @property
    def output_shape(self) -> tuple[tuple[int, ...], ...]:
        if self._origin is not None:
            return self._origin.output_shape
        if self._shape is None:
            if self.type == PARAMETER and self.topo < 0:
                output_type = self._table.param_protos[self._proto].type
            else:
                output_type = self._table.node_protos[self._proto].output_type
            self._dtype = _data_type(output_type)
            self._shape = _shapes(output_type)
        return self._shape

    @property
    def output_data_type(self) -> str:
        if self._origin is not None:
            return self._origin.output_data_type
        self.output_shape  # noqa: B018 - reads both
        return self._dtype

    @property
    def is_dynamic_shape_node(self) -> bool:
        """A dynamic-shape attribute is true, or an input/output shape has -1 or -2."""
        self.attr  # noqa: B018 - sets _flags
        if (self._origin or self)._flags:
            return True
        self._edges()
        sources = self._table.source
        # MindInsight flags a node when an edge is added, so edges removed later still count.
        dropped = self._dropped or ()
        return any(_dynamic(sources[i].output_shape)  # type: ignore[union-attr]
                   for edges in (self._inputs.values(), self._outputs.values(), dropped) for i in edges)

    @property
    def is_scope(self) -> bool:
        return self.type in (NAME_SCOPE, AGGREGATION_SCOPE)

    def to_dict(self) -> dict[str, Any]:
        """MindInsight's node dict (`nodes?name=`); `stack_info` is always [] here."""
        return {
            "name": self.name,
            "type": self.type,
            "is_dynamic_shape_node": self.is_dynamic_shape_node,
            "attr": dict(self.attr),
            "input": {k: e.to_dict() for k, e in self.inputs.items()},
            "output": {k: e.to_dict() for k, e in self.outputs.items()},
            "output_i": self.output_i,
            "proxy_input": {k: {"edge_type": t} for k, t in self.proxy_inputs.items()},
            "proxy_output": {k: {"edge_type": t} for k, t in self.proxy_outputs.items()},
            "subnode_count": self.subnode_count,
            "independent_layout": self.independent_layout,
            "stack_info": [],
        }

    def __repr__(self) -> str:
        return f"<Node {self.name} ({self.type})>"


def _dynamic(shape: Iterable[Iterable[int]]) -> bool:
    return any(-1 in dims or -2 in dims for dims in shape)


class Graph:
    """A built graph: nodes by name in MindInsight's order, with a scope index."""

    def __init__(self, nodes: dict[str, Node], optimized: bool, problems: tuple[str, ...] = ()):
        self.optimized = optimized
        self.problems = problems  # what the build changed in a graph it could not take as it is
        self._nodes = nodes
        self._children: dict[str, list[Node]] = defaultdict(list)
        for node in nodes.values():
            self._children[node.scope].append(node)
        # Lower-cased names for search, made here (in the worker that builds the graph) so the
        # first search does not pay for them.
        self._names: list[str] = list(nodes)
        self._lower: list[str] = [name.lower() for name in self._names]

    def __len__(self) -> int:
        return len(self._nodes)

    def __contains__(self, name: str) -> bool:
        return name in self._nodes

    def __iter__(self) -> Iterator[Node]:
        """Every node, in MindInsight's order."""
        return iter(self._nodes.values())

    @property
    def names(self) -> list[str]:
        """Every node name, in MindInsight's order."""
        return list(self._nodes)

    def node(self, name: str) -> Node:
        """The node called `name`; KeyError (with a message) if there is none."""
        try:
            return self._nodes[name]
        except KeyError:
            raise KeyError(f"no node {name!r} in this graph") from None

    def children(self, scope: str = "") -> list[Node]:
        """Direct children of `scope` ("" = the root), in MindInsight's order.

        KeyError if `scope` is not a node. Like `nodes?name=` (§4.7).
        """
        if scope and scope not in self._nodes:
            raise KeyError(f"no node {scope!r} in this graph")
        return list(self._children.get(scope, ()))

    def ancestors(self, name: str) -> list[str]:
        """The scopes from the root down to the parent of `name` (what to expand to show it)."""
        chain = []
        scope = self.node(name).scope
        seen = {name}  # a graph can place two operators in each other's scope: stop at a cycle
        while scope and scope not in seen:
            seen.add(scope)
            chain.append(scope)
            parent = self._nodes.get(scope)
            if parent is None:
                break
            scope = parent.scope
        chain.reverse()
        return chain

    def search(self, pattern: str) -> list[str]:
        """Names matching `pattern` as MindInsight's search does (§5.3), in its order.

        Case-insensitive; the match must lie in the last path segment (no '/' after it,
        using the last occurrence). An empty pattern or "/" gives [].
        """
        if not pattern or pattern == "/":
            return []
        pattern = pattern.lower()
        size = len(pattern)
        out = []
        names = self._names
        for i, low in enumerate(self._lower):
            at = low.rfind(pattern)
            if at >= 0 and low.find("/", at + size) == -1:
                out.append(names[i])
        return out

    def search_tree(self, pattern: str, offset: int = 0, limit: int = 100) -> list[dict[str, Any]]:
        """MindInsight's `nodes/names` answer: page `offset` of `limit` matches, as an ancestor tree.

        Each element is {name, type, is_dynamic_shape_node, nodes: [...]}. Reproduces
        MindInsight's quirks: a matched scope listed after its matched descendants replaces
        them with an empty subtree, and intermediate scopes carry the flag of the match.
        """
        matches = self.search(pattern)[offset * limit:(offset + 1) * limit]
        root: dict[str, Any] = {"children": {}}
        for name in matches:
            node = self._nodes[name]
            dynamic = node.is_dynamic_shape_node
            parts = name.split("/")
            current = root
            path = ""
            for part in parts[:-1]:
                path = f"{path}/{part}" if path else part
                child = current["children"].get(part)
                if child is None:
                    scope = self._nodes.get(path)
                    child = _tree_item(path, scope.type if scope else NAME_SCOPE, dynamic)
                    current["children"][part] = child
                current = child
            current["children"][parts[-1]] = _tree_item(name, node.type, dynamic)
        return _tree_list(root)

    def expand_path(self, name: str) -> list[tuple[str, list[Node]]]:
        """Each level from the root to `name`'s parent: [(scope name, children), ...].

        MindInsight's `single-node` answer flattened: one level per '/' in `name`.
        KeyError if `name` is unknown.
        """
        self.node(name)
        levels = [("", self.children(""))]
        at = name.find("/")
        while at != -1:
            scope = name[:at]
            levels.append((scope, list(self._children.get(scope, ()))))
            at = name.find("/", at + 1)
        return levels


def _tree_item(name: str, type_: str, dynamic: bool) -> dict[str, Any]:
    return {"name": name, "type": type_, "is_dynamic_shape_node": dynamic, "children": {}}


def _tree_list(item: dict[str, Any]) -> list[dict[str, Any]]:
    """The `children` dicts as nested lists under `nodes` (a loop: a tree may be deep)."""
    out: list[dict[str, Any]] = []
    stack = [(item, out)]
    while stack:
        parent, into = stack.pop()
        for c in parent["children"].values():
            nodes: list[dict[str, Any]] = []
            into.append({"name": c["name"], "type": c["type"],
                         "is_dynamic_shape_node": c["is_dynamic_shape_node"], "nodes": nodes})
            stack.append((c, nodes))
    return out



# MindInsight's DataType enum stops at DT_REF (42) and calls 40 DT_ANYTHING; MindSpore 2.10 writes
# newer values (43-49, e.g. DT_SLICE for UpdateState), which MindInsight reads as "not set" (§2.2).
_MI_LAST_TYPE = 42
_MI_TYPE_NAMES = {v.number: v.name for v in anf_ir_pb2.DataType.DESCRIPTOR.values if v.number <= _MI_LAST_TYPE}
_MI_TYPE_NAMES[40] = "DT_ANYTHING"


def _type_name(value: int) -> str:
    return _MI_TYPE_NAMES.get(value, "DT_UNDEFINED")


def _known_type(type_proto: anf_ir_pb2.TypeProto) -> bool:
    return type_proto.HasField("data_type") and type_proto.data_type <= _MI_LAST_TYPE


def _shapes(type_proto: anf_ir_pb2.TypeProto) -> tuple[tuple[int, ...], ...]:
    """Output shapes of a TypeProto: one per tensor, () for a non-tensor scalar."""
    if _known_type(type_proto) and type_proto.data_type not in (anf_ir_pb2.DT_TENSOR, anf_ir_pb2.DT_TUPLE):
        return ((),)
    out: list[tuple[int, ...]] = []
    if type_proto.HasField("tensor_type"):
        out.append(tuple(dim.size for dim in type_proto.tensor_type.shape.dim))
    if type_proto.HasField("sequence_type"):
        for elem in type_proto.sequence_type.elem_types:
            out.extend(_shapes(elem))
    return tuple(out)


def _data_type(type_proto: anf_ir_pb2.TypeProto) -> str:
    name = _type_name(type_proto.data_type)
    if type_proto.data_type == anf_ir_pb2.DT_TENSOR:
        return f"{name}[{_type_name(type_proto.tensor_type.elem_type)}]"
    if type_proto.data_type == anf_ir_pb2.DT_TUPLE:
        return f"{name}{[_data_type(elem) for elem in type_proto.sequence_type.elem_types]}"
    return name


def _op_attrs(node_proto: anf_ir_pb2.NodeProto) -> tuple[dict[str, str], bool]:
    """Attributes as protobuf text (big ones dropped), and whether a dynamic-shape flag is set."""
    attrs: dict[str, str] = {}
    flags = False
    for attribute in node_proto.attribute:
        if attribute.value.ByteSize() > MAX_ATTR_BYTES:
            continue  # MindInsight drops big attribute values
        name = text_of(attribute.name)
        if name in _DYNAMIC_FLAGS and attribute.value.bool_val:
            flags = True
        attrs[name] = str(attribute.value)
    return attrs, flags


def _const_attrs(proto: anf_ir_pb2.NamedValueProto) -> dict[str, str]:
    if proto.value.ByteSize() > MAX_ATTR_BYTES:
        return {text_of(proto.key): "dtype: " + _type_name(proto.value.dtype)}
    return {text_of(proto.key): str(proto.value)}
