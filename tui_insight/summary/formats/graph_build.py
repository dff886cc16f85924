"""Building a graph's scope tree as MindInsight does (compat §5): `build_graph` turns a
`GraphProto` into the `graph.Graph` the screens browse, and `graph_parts` / `graph_from_parts`
keep a built graph as plain values between runs (`store/graph_cache.py`).

The build follows MindInsight's steps and their order, because the order decides names
(`MatMul[6]_1`: the 1 counts aggregations over the whole graph), which copy of a parameter a
node sees, and which edge a scope shows when several children reach the same outside node.

Checked node by node (names, order, every field of every node, searches) against MindInsight
2.3.1's own graph code on the fixture graphs and on hundreds of random graphs. Known
differences: `stack_info` is always []; when a real node is named like a scope (renamed
`<parent>/(<base>)`), MindInsight's scope nodes keep edges to the old name, or the build
fails ("dictionary keys changed during iteration"), while we point them at the renamed node.
"""
from __future__ import annotations

from bisect import bisect_left
from collections import defaultdict
from typing import Any, Iterable

from ...proto import anf_ir_pb2
from .. import gc_policy
from ..text import text_of
from .graph import AGGREGATION_SCOPE, CONST, NAME_SCOPE, PARAMETER, EdgeTable, Graph, GraphError, Node

# Scope levels a node name may have. A name is a full path, so scopes nested N deep cost N
# names of up to N levels each: deeper levels are folded into the last one (`_fold`), which
# keeps a hostile graph's memory linear. Real models nest a few dozen levels at most.
MAX_SCOPE_DEPTH = 100
FOLDED_SLASH = "\u2215"  # "∕": stands for "/" inside a folded name
GROUP_THRESHOLD = 5  # same-type siblings needed for an aggregation node
GROUP_THRESHOLD_OPTIMIZED = 10
# Nodes the optimized view removes, wiring their inputs straight to their consumers.
PASS_THROUGH = frozenset({"Load", "TupleGetItem", "MakeTuple", "UpdateState"})
_SUMMARY_OP_SUFFIXES = tuple(f"[:{p}]" for p in
                             ("image", "scalar", "graph", "optimized_graph", "histogram", "tensor",
                              "loss_landscape"))
_FORBIDDEN = frozenset('<>"')


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

    table = order[0]._table if order else EdgeTable()
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
        self.table = EdgeTable()
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
