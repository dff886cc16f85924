"""Computational graphs: the scope tree MindInsight builds from a `GraphProto` (compat §5, §4.7).

Usage (what the graph screen does, in a worker thread)::

    proto = load_graph(view.graphs[tag])           # GraphError if the file changed or is bad
    graph = build_graph(proto, optimized=False)    # GraphError if node names are unusable
    graph.children("")                             # the root level: Default, Gradients, ...
    graph.node("Default/network-WithLossCell")     # one node; KeyError if unknown
    graph.search("conv")                           # matching names, MindInsight's rule (§5.3)
    graph.ancestors(name)                          # scopes to open to show `name`

The build follows MindInsight's steps and their order, because the order decides names
(`MatMul[6]_1`: the 1 counts aggregations over the whole graph), which copy of a parameter a
node sees, and which edge a scope shows when several children reach the same outside node.
To stay fast on large graphs two things are lazy: node attributes (protobuf text format) and
the edges a name scope inherits from its subtree, which are worked out the first time that
scope node is looked at. Edges are ids into one table, so that a 50,000-node graph leaves the
garbage collector ~70,000 objects to walk instead of ~350,000.

Checked node by node (names, order, every field of every node, searches) against MindInsight
2.3.1's own graph code on the fixture graphs and on hundreds of random graphs. Known
differences: `stack_info` is always []; when a real node is named like a scope (renamed
`<parent>/(<base>)`), MindInsight's scope nodes keep edges to the old name, or the build
fails ("dictionary keys changed during iteration"), while we point them at the renamed node.
"""
from __future__ import annotations

import os
import threading
from bisect import bisect_left
from collections import defaultdict
from dataclasses import dataclass
from typing import Any, Callable, Iterable, Iterator, Mapping, NamedTuple

from google.protobuf.message import DecodeError

from ...proto import anf_ir_pb2, summary_pb2
from .. import gc_policy
from ..text import text_of
from . import tensorboard
from .framing import open_regular, read_record_at

MAX_ATTR_BYTES = 1024  # MindInsight's MAX_NODE_ATTRIBUTE_VALUE_BYTES
# Scope levels a node name may have. A name is a full path, so scopes nested N deep cost N
# names of up to N levels each: deeper levels are folded into the last one (`_fold`), which
# keeps a hostile graph's memory linear. Real models nest a few dozen levels at most.
MAX_SCOPE_DEPTH = 100
FOLDED_SLASH = "\u2215"  # "∕": stands for "/" inside a folded name
GROUP_THRESHOLD = 5  # same-type siblings needed for an aggregation node
GROUP_THRESHOLD_OPTIMIZED = 10

NAME_SCOPE = "name_scope"
AGGREGATION_SCOPE = "aggregation_scope"
PARAMETER = "Parameter"
CONST = "Const"
# Nodes the optimized view removes, wiring their inputs straight to their consumers.
PASS_THROUGH = frozenset({"Load", "TupleGetItem", "MakeTuple", "UpdateState"})
_SUMMARY_OP_SUFFIXES = tuple(f"[:{p}]" for p in
                             ("image", "scalar", "graph", "optimized_graph", "histogram", "tensor",
                              "loss_landscape"))
_DYNAMIC_FLAGS = ("input_is_dynamic_shape", "output_is_dynamic_shape")
_FORBIDDEN = frozenset('<>"')
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


class _EdgeTable:
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

    def __init__(self, name: str, node_id: str, type_: str, scope: str, table: _EdgeTable):
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


# -- building -------------------------------------------------------------------------------

def build_graph(proto: anf_ir_pb2.GraphProto, optimized: bool = False) -> Graph:
    """Build MindInsight's graph model (§5.1), or its optimized variant (§5.2).

    Raises GraphError when a node name holds `<`, `>` or `"` (MindInsight drops such graphs).
    """
    builder = _Builder(optimized)
    with gc_policy.paused():  # the build makes ~10 objects per node and no cycles; GC passes would halve its speed
        builder.build(proto)
        problems: tuple[str, ...] = ()
        if builder.folded:
            n = builder.folded
            problems = (f"{n:,} name{'s' if n != 1 else ''} nested past {MAX_SCOPE_DEPTH} scopes: "
                        f"deeper levels folded, {FOLDED_SLASH} for /",)
        return Graph(builder.nodes, optimized, problems)


# -- a built graph as plain values (kept between runs by `graph_cache`) -----------------------

def graph_parts(graph: Graph) -> tuple:
    """Everything `build_graph` made, as tuples, lists, dicts, strings and numbers (marshal's
    types). Call it on a graph just built, before anything was looked at: the lazy parts (name
    scopes' edges, attributes, shapes) are kept lazy, to be worked out after `graph_from_parts`
    as they would have been. Nodes no longer in the graph that edges or copies still point at
    (removed parameters, pass-through nodes) are kept too, after the graph's own."""
    order = list(graph._nodes.values())
    index = {id(node): i for i, node in enumerate(order)}

    def ref(node: Node | None) -> int:
        if node is None:
            return -1
        i = index.get(id(node))
        if i is None:
            i = index[id(node)] = len(order)
            order.append(node)
        return i

    table = order[0]._table if order else _EdgeTable()
    sources = [ref(node) for node in table.source]
    # The name scopes' lazy edges are worked out from the builder's snapshot of the nodes.
    # _pending is a bound method of the _Builder that made the nodes.
    builder = next((n._pending.__self__ for n in order if n._pending is not None), None)  # type: ignore[attr-defined]
    snapshot = [ref(node) for node in builder.snapshot] if builder is not None else []
    rows = []
    i = 0
    while i < len(order):  # grows while origins are referred to
        n = order[i]
        rows.append((n.name, n.node_id, n.type, n.scope, n.full_name, n.output_i, n.subnode_count,
                     n.independent_layout, n.topo, n._inputs, n._outputs, n._proxy_inputs,
                     n._proxy_outputs, n._attr, n._shape, n._dtype, n._proto, n._flags,
                     ref(n._origin), n._dropped, n._pending is not None))
        i += 1
    return (graph.optimized, graph.problems, len(graph._nodes), rows, sources, table.kind,
            table.independent, snapshot)


# What `graph_parts` makes, by type: a kept graph of other types (its CRC valid: written so) is
# not put back, as a node of the wrong types would fail where it is looked at.
_PARTS_TYPES = (bool, tuple, int, list, list, list, list, list)
_ROW_TYPES = {(str, str, str, str, str, int, int, bool, int, dict, dict, dict, dict, attr, shape, str, int, bool,
               int, dropped, bool)
              for attr in (dict, type(None)) for shape in (tuple, type(None)) for dropped in (list, type(None))}


def graph_from_parts(parts: tuple, proto: anf_ir_pb2.GraphProto) -> Graph:
    """The graph `graph_parts` described, over `proto` (the same graph, read again: attributes
    and shapes are read from it when asked). Raises ValueError when the parts do not fit it."""
    optimized, problems, count, rows, sources, kinds, independent, snapshot = parts
    if (tuple(map(type, parts)) != _PARTS_TYPES or not set(map(type, problems)) <= {str}
            or not set(map(type, sources)) | set(map(type, snapshot)) <= {int} or min(snapshot, default=0) < 0):
        raise ValueError("the kept graph is not of the types a build makes")
    builder = _Builder(optimized)
    table = builder.table
    table.node_protos, table.param_protos, table.const_protos = proto.node, proto.parameters, proto.const_vals
    inherit_lazily = builder.inherit_from_subtree
    made: list[Node] = []
    origins: list[tuple[Node, int]] = []
    new = object.__new__
    for row in rows:
        if type(row) is not tuple or tuple(map(type, row)) not in _ROW_TYPES:
            raise ValueError("a kept graph node is not of the types a build makes")
        node = new(Node)  # every slot is set below: no __init__ filling them twice
        (node.name, node.node_id, node.type, node.scope, node.full_name, node.output_i, node.subnode_count,
         node.independent_layout, node.topo, node._inputs, node._outputs, node._proxy_inputs,
         node._proxy_outputs, node._attr, node._shape, node._dtype, node._proto, node._flags,
         origin, node._dropped, pending) = row
        node._table = table
        node._origin = None
        node._pending = inherit_lazily if pending else None
        if origin >= 0:
            origins.append((node, origin))
        made.append(node)
    for node, origin in origins:
        node._origin = made[origin]
    table.source = [made[i] if i >= 0 else None for i in sources]
    table.kind, table.independent = kinds, independent
    # Attributes are read from `proto` by these indexes (into its nodes, parameters or consts:
    # a TensorFlow op may be typed Const, so the type does not say which).
    if max((node._proto for node in made), default=-1) >= max(len(proto.node), len(proto.parameters),
                                                             len(proto.const_vals)):
        raise ValueError("the kept graph does not fit the graph read")
    builder.nodes = {node.name: node for node in made[:count]}
    builder.snapshot = [made[i] for i in snapshot]
    return Graph(builder.nodes, optimized, tuple(problems))


def _join(scope: str, base: str) -> str:
    return f"{scope}/{base}" if scope else base


def _too_deep(path: str, levels: int) -> bool:
    """More than `levels` levels in `path` (the length test first: it is the common answer)."""
    return len(path) > levels and path.count("/") >= levels


def _fold(name: str) -> str:
    """`name` with at most MAX_SCOPE_DEPTH levels: the levels past the last one join it."""
    head = name.split("/", MAX_SCOPE_DEPTH - 1)
    return "/".join(head[:-1] + [head[-1].replace("/", FOLDED_SLASH)])


def _cut_scope(scope: str) -> str:
    """A scope cut to the levels a folded name keeps above it (MAX_SCOPE_DEPTH - 1)."""
    return "/".join(scope.split("/", MAX_SCOPE_DEPTH - 1)[:MAX_SCOPE_DEPTH - 1])


def _check_name(name: str) -> None:
    bad = _FORBIDDEN.intersection(name)
    if bad:
        raise GraphError(f"graph node name {name!r} contains {' '.join(sorted(bad))}; "
                         "MindInsight rejects such graphs")


def _check_names(names: list[str]) -> None:
    joined = "\n".join(names)  # one scan instead of one per name
    if "<" in joined or ">" in joined or '"' in joined:
        for name in names:
            _check_name(name)


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


def _drop(node: Node, edge: int) -> None:
    if node._dropped is None:
        node._dropped = []
    node._dropped.append(edge)


class _Builder:
    """MindInsight's build steps over an insertion-ordered name -> Node dict."""

    def __init__(self, optimized: bool):
        self.optimized = optimized
        self.threshold = GROUP_THRESHOLD_OPTIMIZED if optimized else GROUP_THRESHOLD
        self.nodes: dict[str, Node] = {}
        self.ids: dict[str, str] = {}  # node id -> name
        self.params: dict[str, Node] = {}  # Parameter nodes by name, as first parsed
        self.consts: dict[str, Node] = {}
        self.snapshot: list[Node] = []  # nodes whose edges name scopes inherit
        self.table = _EdgeTable()
        self.by_name: tuple[list[str], list[int]] | None = None
        self.folded = 0  # names cut to MAX_SCOPE_DEPTH levels (`_fold`)

    def fold(self, name: str) -> str:
        """`name`, folded if it is nested too deep (counted)."""
        if not _too_deep(name, MAX_SCOPE_DEPTH):
            return name
        self.folded += 1
        return _fold(name)

    # cache bookkeeping ----------------------------------------------------------------------
    def add(self, node: Node) -> None:
        if node.type == PARAMETER:
            self.params[node.name] = node
        elif node.type == CONST:
            self.consts[node.name] = node
        self.nodes[node.name] = node
        self.ids[node.node_id] = node.name

    def remove(self, name: str) -> None:
        self.params.pop(name, None)
        self.consts.pop(name, None)
        node = self.nodes.pop(name)
        if self.ids.get(node.node_id) == name:
            del self.ids[node.node_id]

    def rename(self, node: Node, new_name: str, update_parents: bool = False) -> None:
        """Rename a node and the edges that name it (in its neighbours, and their scopes if asked)."""
        old = node.name
        neighbours: dict[str, Node] = {}
        for edges in (node._inputs, node._outputs, node._proxy_inputs, node._proxy_outputs):
            for target in edges:
                other = self.nodes.get(target)
                if other is None:
                    continue
                neighbours[target] = other
                if update_parents:
                    at = target.find("/")
                    while at != -1:
                        scope = target[:at]
                        at = target.find("/", at + 1)
                        if scope not in neighbours and scope in self.nodes:
                            neighbours[scope] = self.nodes[scope]
        for other in neighbours.values():
            # edge ids, and edge types for the proxies
            tables: tuple[dict[str, Any], ...] = (other._inputs, other._outputs, other._proxy_inputs, other._proxy_outputs)
            for table in tables:
                value = table.pop(old, None)
                if value is not None:
                    table[new_name] = value
        self.remove(old)
        node.name = new_name
        node.scope = new_name.rsplit("/", 1)[0] if "/" in new_name else ""
        self.add(node)

    # the steps --------------------------------------------------------------------------------
    def build(self, proto: anf_ir_pb2.GraphProto) -> None:
        self.table.node_protos = proto.node
        self.table.param_protos = proto.parameters
        self.table.const_protos = proto.const_vals
        self.parse_ops(proto.node)
        self.parse_parameters(proto.parameters)
        self.parse_consts(proto.const_vals)
        self.resolve_inputs()
        self.derive_outputs()
        if self.optimized:
            for name in [n.name for n in self.nodes.values() if n.type in PASS_THROUGH]:
                self.remove(name)
            for node in self.ops_in_order():
                if not node._inputs and not node._outputs:
                    self.remove(node.name)
            self.collapse_single_type_scopes()
        self.copy_variables(self.params)
        self.aggregate()
        self.lay_out_parameter_groups()
        self.make_name_scopes()
        self.copy_variables(self.consts)
        self.count_children()

    def parse_ops(self, protos: Iterable[anf_ir_pb2.NodeProto]) -> None:
        optimized = self.optimized
        nodes, ids, table = self.nodes, self.ids, self.table
        # Edge rows appended inline: this loop is the bulk of a large graph's build time.
        add_source, add_kind, add_flag = table.source.append, table.kind.append, table.independent.append
        names = []
        scopes: dict[str, str] = {}  # one string per scope, not one per node
        for index, proto in enumerate(protos):
            proto_name = proto.name
            if not proto_name:
                continue
            full_name, scope, op_type = proto.full_name, proto.scope, proto.op_type
            if str is not type(proto_name) or str is not type(full_name) or str is not type(scope) \
                    or str is not type(op_type):  # protobuf hands over strings that are not UTF-8 as bytes
                proto_name, full_name, scope, op_type = map(text_of, (proto_name, full_name, scope, op_type))
            if optimized and (full_name.startswith("Gradients") or "optimizer" in full_name
                              or "opt" in text_of(proto.instance_name)):
                continue
            # MindSpore names nodes by number ("17"); older graphs "Default/Conv2D-op17".
            node_id = proto_name if proto_name.isdigit() else proto_name.rsplit("/", 1)[-1].split("op")[-1]
            scope = scopes.setdefault(scope, scope)
            if not full_name:
                name = _join(scope, f"{op_type}-op{node_id}")
            elif full_name[-1] == "]" and full_name.lower().endswith(_SUMMARY_OP_SUFFIXES):
                name = _join(scope, f"{op_type}-op{proto_name}")
            else:
                name = full_name
            if _too_deep(name, MAX_SCOPE_DEPTH) or _too_deep(scope, MAX_SCOPE_DEPTH - 1):
                name = self.fold(name)
                scope = _cut_scope(scope)
            names.append(name)
            node = Node(name, node_id, op_type, scope, table)
            node.full_name = full_name
            node.topo = index
            node.output_i = proto.output_i
            node._attr = None
            node._shape = None
            node._proto = index  # not the proto itself: 50,000 wrappers would burden the GC
            inputs = node._inputs
            for inp in proto.input:
                src = inp.name
                if src:
                    if str is not type(src):
                        src = text_of(src)
                    if "/" in src:
                        src = src.split("op")[-1]
                    # The source is found from its id in resolve_inputs.
                    inputs[src] = len(table.kind)
                    add_source(None)
                    add_kind("control" if inp.type else "data")
                    add_flag(False)
            nodes[name] = node  # operators are neither Parameters nor Consts: add() not needed
            ids[node_id] = name
        _check_names(names)

    def parse_parameters(self, protos: Iterable[anf_ir_pb2.ParameterProto]) -> None:
        for index, proto in enumerate(protos):
            if not proto.name:
                continue
            proto_name = text_of(proto.name)
            _check_name(proto_name)
            node = Node(self.fold(proto_name), proto_name, PARAMETER, "", self.table)
            node._attr = None  # type, shape and attributes are read from the proto when asked
            node._shape = None
            node._proto = index
            self.add(node)

    def parse_consts(self, protos: Iterable[anf_ir_pb2.NamedValueProto]) -> None:
        for index, proto in enumerate(protos):
            if not proto.key:
                continue
            key = text_of(proto.key)
            _check_name(key)
            node = Node(self.fold(key), key, CONST, "", self.table)
            node.full_name = ""
            value = proto.value
            if value.dtype == anf_ir_pb2.DT_TENSOR:
                node._shape = (tuple(value.tensor_val.dims),)
            else:
                node._shape = ((),)
            node._attr = None
            node._proto = index
            self.add(node)

    def resolve_inputs(self) -> None:
        """Inputs name node ids, parameters or consts: point them at nodes; drop the unknown."""
        nodes, ids, sources = self.nodes, self.ids, self.table.source
        for node in nodes.values():
            if not node._inputs:
                continue
            resolved: dict[str, int] = {}
            for src_id, edge in node._inputs.items():
                name = ids.get(src_id)
                if not name:
                    continue
                sources[edge] = nodes[name]
                if name in resolved:
                    _drop(node, resolved[name])
                resolved[name] = edge
            node._inputs = resolved
        if self.optimized:
            self.bypass_pass_through()

    def ops_in_order(self) -> list[Node]:
        ops = [n for n in self.nodes.values() if n.type not in (CONST, PARAMETER)]
        ops.sort(key=lambda n: n.topo)
        return ops

    def bypass_pass_through(self) -> None:
        """Optimized view: inputs from Load/TupleGetItem/MakeTuple/UpdateState go to their inputs."""
        nodes = self.nodes
        for node in self.ops_in_order():
            for src in list(node._inputs):
                through = nodes.get(src)
                if through is None or through.type not in PASS_THROUGH:
                    continue
                _drop(node, node._inputs.pop(src))
                for name, edge in list(through._inputs.items()):
                    if name in nodes:
                        if name in node._inputs:
                            _drop(node, node._inputs[name])
                        node._inputs[name] = edge  # shared, as in MindInsight

    def derive_outputs(self) -> None:
        nodes = self.nodes
        for node in nodes.values():
            for src, edge in node._inputs.items():
                source = nodes[src]
                if source.type not in (CONST, PARAMETER):
                    source._outputs[node.name] = edge
        if self.optimized:
            for node in self.ops_in_order():
                for dst in list(node._outputs):
                    through = nodes.get(dst)
                    if through is not None and through.type in PASS_THROUGH:
                        _drop(node, node._outputs.pop(dst))
                        for name, edge in through._outputs.items():
                            if name in node._outputs:
                                _drop(node, node._outputs[name])
                            node._outputs[name] = edge

    def collapse_single_type_scopes(self) -> None:
        """Optimized view: a leaf scope holding only nodes of one type named in it moves up."""
        ops = self.ops_in_order()
        types: dict[str, set[str]] = defaultdict(set)
        counts: dict[str, int] = defaultdict(int)
        for node in ops:
            if "/" in node.scope:
                types[node.scope].add(node.type)
                counts[node.scope] += 1
        has_inner: set[str] = set()  # scopes with an operator deeper down
        for scope in types:
            cut = scope.rfind("/")
            while cut > 0:
                has_inner.add(scope[:cut])
                cut = scope.rfind("/", 0, cut)
        chosen = {scope for scope, kinds in types.items()
                  if len(kinds) == 1 and counts[scope] > 1 and next(iter(kinds)) in scope
                  and scope not in has_inner}
        for node in ops:
            if node.scope in chosen:
                parent, base = node.scope.rsplit("/", 1)[0], node.name.rsplit("/", 1)[-1]
                self.rename(node, f"{parent}/{base}")

    def copy_variables(self, originals: dict[str, Node]) -> None:
        """Put a copy of each Parameter (or Const) in the scope of each node that uses it."""
        if not originals:
            return
        copies: dict[str, Node] = {}
        copy_edge = self.table.copy
        for node in list(self.nodes.values()):
            inputs = node._inputs
            if not inputs or inputs.keys().isdisjoint(originals.keys()):  # iterates the smaller side
                continue
            for src, edge in list(inputs.items()):
                original = originals.get(src)
                if original is None:
                    continue
                name = _join(node.scope, src)
                copy = copies.get(name)
                if copy is None:
                    copy = Node(name, name, original.type, node.scope, self.table)
                    copy.full_name = original.full_name
                    copy.output_i = original.output_i
                    copy._origin = original._origin or original
                    copies[name] = copy
                copy._outputs[node.name] = copy_edge(edge)
                del inputs[src]
                inputs[name] = copy_edge(edge)
        for copy in copies.values():
            self.add(copy)
        for name in set(originals) - set(copies):
            self.remove(name)

    def aggregate(self) -> None:
        """Group >= threshold same-type siblings under `<scope>/<type>[<count>]_<i>` (§5.1 step 7)."""
        groups: dict[tuple[str, str], list[Node]] = {}
        for node in self.nodes.values():
            if node.type == CONST or node.type == NAME_SCOPE:
                continue
            groups.setdefault((node.scope, node.type), []).append(node)
        made = []
        index = 0
        for (scope, op_type), members in groups.items():
            if len(members) < self.threshold:
                continue
            name = _join(scope, f"{op_type}[{len(members)}]_{index}")
            index += 1
            group = Node(name, name, AGGREGATION_SCOPE, scope, self.table)
            group.subnode_count = len(members)
            for member in members:
                self.rename(member, f"{name}/{member.name.rsplit('/', 1)[-1]}")
            self.add(group)
            made.append((group, members))
        for group, members in made:
            self.inherit(group, members)

    def inherit(self, parent: Node, members: Iterable[Node]) -> None:
        """Give `parent` its members' edges that leave it (not those to Consts)."""
        prefix = parent.name + "/"
        nodes = self.nodes
        members = list(members)
        for method in ("_inputs", "_outputs", "_proxy_inputs", "_proxy_outputs"):
            into = getattr(parent, method)
            edges = method in ("_inputs", "_outputs")
            for member in members:
                for target, value in getattr(member, method).items():
                    if target.startswith(prefix):
                        continue
                    other = nodes.get(target)
                    if other is None or other.type == CONST:
                        continue
                    if edges and target in into:
                        _drop(parent, into[target])  # a later child's edge to the same node wins
                    into[target] = value

    def lay_out_parameter_groups(self) -> None:
        """Aggregated Parameters are drawn apart, joined to their users by proxy edges."""
        nodes, kinds, independent = self.nodes, self.table.kind, self.table.independent
        groups = {n.name: n for n in nodes.values()
                  if n.type == AGGREGATION_SCOPE and PARAMETER in n.name.rsplit("/", 1)[-1]}
        if not groups:
            return
        members: dict[str, list[Node]] = defaultdict(list)
        for node in nodes.values():
            if node.scope in groups:
                members[node.scope].append(node)
        for group in groups.values():
            group.independent_layout = True
            for target_name, edge in list(group._outputs.items()):
                target, kind = nodes[target_name], kinds[edge]
                target._proxy_inputs[group.name] = kind
                if target.scope == group.scope:
                    group._proxy_outputs[target_name] = kind
                else:
                    group._proxy_outputs[target.scope] = kind
                    nodes[target.scope]._proxy_inputs[group.name] = kind
            for member in members[group.name]:
                member.independent_layout = True
                for target_name, edge in list(member._outputs.items()):
                    target = nodes[target_name]
                    member._proxy_outputs[target_name if target.scope == group.scope
                                          else target.scope] = kinds[edge]
                    back = target._inputs.get(member.name)
                    if back is not None:
                        independent[back] = True

    def make_name_scopes(self) -> None:
        """A name_scope node per '/' prefix; their edges are inherited when first looked at."""
        nodes = self.nodes
        scopes: dict[str, Node] = {}
        walked: set[str] = set()  # parents whose prefixes are all done
        for name in list(nodes):
            if name not in nodes:
                continue  # renamed below as a conflicting scope
            cut = name.rfind("/")
            if cut <= 0 or name[:cut] in walked:
                continue
            walked.add(name[:cut])
            at = name.find("/")
            parent: str | None = None
            while at > 0:
                scope = name[:at]
                if scope not in scopes:
                    existing = nodes.get(scope)
                    if existing is not None and existing.type == AGGREGATION_SCOPE:
                        parent = scope
                        at = name.find("/", at + 1)
                        continue
                    if existing is not None:
                        # A real node is named like a scope: it becomes `<parent>/(<base>)`.
                        self.rename(existing, _join(existing.scope, f"({scope.rsplit('/', 1)[-1]})"),
                                    update_parents=True)
                    scopes[scope] = Node(scope, scope, NAME_SCOPE, parent or "", self.table)
                parent = scope
                at = name.find("/", at + 1)
        self.snapshot = list(nodes.values())
        inherit_lazily = self.inherit_from_subtree
        for scope_node in scopes.values():
            scope_node._pending = inherit_lazily
            self.add(scope_node)

    def inherit_from_subtree(self, scope_node: Node) -> None:
        """A name scope's edges: those of every node below it that leave it, in build order."""
        if self.by_name is None:
            # Snapshot positions sorted by name: a scope's subtree is one slice of it.
            names = [n.name for n in self.snapshot]
            order = sorted(range(len(names)), key=names.__getitem__)
            self.by_name = ([names[i] for i in order], order)
        sorted_names, order = self.by_name
        # Names under "S/" sort between "S/" and "S0" ('0' follows '/').
        low = bisect_left(sorted_names, scope_node.name + "/")
        high = bisect_left(sorted_names, scope_node.name + "0", low)
        snapshot = self.snapshot
        self.inherit(scope_node, [snapshot[i] for i in sorted(order[low:high])])

    def count_children(self) -> None:
        counts: dict[str, int] = defaultdict(int)
        nodes = self.nodes
        for node in nodes.values():
            if node.scope and node.scope in nodes:
                counts[node.scope] += 1
        for name, count in counts.items():
            nodes[name].subnode_count = count



# -- dataset pipelines (the dataset graph of a job's lineage, §6.4) ---------------------------

_STRUCTURE_KEYS = ("op_type", "children", "operations", "sampler")


@dataclass(frozen=True)
class DatasetOp:
    """One operation of a dataset pipeline (a level of the §6.4 dataset-graph dict).

    op_type: "MnistDataset", "Map", "Batch", ... ("" if the dict has none);
    params: its other parameters (batch_size, num_parallel_workers, input_columns, ...);
    operations: a Map's tensor operations [{tensor_op_name, tensor_op_params, size?, weights?}];
    sampler: a source's sampler parameters or None; children: the pipelines feeding it;
    depth: 0 for the last operation (the dict's root), +1 per step towards the sources.
    """

    op_type: str
    params: dict[str, Any]
    operations: tuple[dict[str, Any], ...]
    sampler: dict[str, Any] | None
    children: tuple["DatasetOp", ...]
    depth: int


def dataset_tree(dataset_graph: Mapping[str, Any] | None, depth: int = 0) -> DatasetOp | None:
    """The dataset graph as a tree rooted at the last operation; None for an empty graph. The
    dict comes from a file: parts of the wrong type (an `operations` that is a number) are left
    out, never raised."""
    if not dataset_graph or not isinstance(dataset_graph, Mapping):
        return None
    operations = [dict(op) for op in _listed(dataset_graph.get("operations")) if isinstance(op, Mapping)]
    children = tuple(child for child in (dataset_tree(c, depth + 1) for c in _listed(dataset_graph.get("children")))
                     if child is not None)
    sampler = dataset_graph.get("sampler")
    return DatasetOp(
        op_type=str(dataset_graph.get("op_type") or ""),
        params={k: v for k, v in dataset_graph.items() if k not in _STRUCTURE_KEYS},
        operations=tuple(operations),
        sampler=dict(sampler) if sampler and isinstance(sampler, Mapping) else None,
        children=children,
        depth=depth,
    )


def _listed(value: Any) -> list | tuple:
    """`value` if it is a list (or tuple), else nothing."""
    return value if isinstance(value, (list, tuple)) else ()


def dataset_pipeline(dataset_graph: Mapping[str, Any] | None) -> list[DatasetOp]:
    """The pipeline in data-flow order: each source first, then every operation up to the last.

    (Post-order over `dataset_tree`: a Zip's inputs are listed before the Zip.) [] if empty.
    """
    out: list[DatasetOp] = []

    def visit(op: DatasetOp) -> None:
        for child in op.children:
            visit(child)
        out.append(op)

    root = dataset_tree(dataset_graph)
    if root is not None:
        visit(root)
    return out
