"""Trees of the graph view: the computational graph's name scopes, and the dataset pipeline.

`GraphTree` shows a built `Graph` (tui_insight.summary.formats.graph) lazily: a scope's children become
tree nodes only when it is expanded, and at most `CHUNK` at a time (a "… N more" line loads the
next ones), so a graph of 100,000 nodes opens as fast as a small one. The nodes under each scope
are counted once per graph, in the worker that builds it (`presenters/graph.py`), and handed in.

`PipelineTree` shows the dataset graph of a job's lineage (compat §6.4) in data-flow order:
the source dataset first, then each operation (map, batch, shuffle, ...) that consumes it.
`pipeline_flow` turns the nested dict (whose root is the *last* operation) into that order.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Iterable, Sequence, Union

from rich.cells import cell_len
from rich.text import Text
from textual.binding import Binding
from textual.widgets import Tree
from textual.widgets.tree import TreeNode

from ...summary.formats.graph import AGGREGATION_SCOPE, NAME_SCOPE, Graph, Node
from ...summary.queries.dataset_pipeline import DatasetOp, dataset_tree
from ..common.format import clipped
from ..common.palette import SERIES_COLOURS
from ..common.text import shown
from ..state.graph import visible_order

CHUNK = 200  # children added per expansion step: five screens to browse, cheap to lay out
MATCH_STYLE = f"bold {SERIES_COLOURS[1]}"  # search matches: the palette's orange
SCOPE_STYLE = "bold"
DIM = "dim"


# -- the computational graph -------------------------------------------------------------------

@dataclass(frozen=True)
class More:
    """The "… N more" line at the end of a partly loaded scope."""

    scope: str
    remaining: int


GraphData = Union[str, More]  # a tree node holds its graph node's name, or a More marker


def graph_label(node: Node, size: int, matched: bool = False) -> Text:
    """`conv1-Conv2d (3)` for a scope, `Conv2D[12]_3` for an aggregation, `conv1.weight Parameter`."""
    base = shown(clipped(node.name.rsplit("/", 1)[-1], 200))  # a name from a file: plain text, controls escaped
    label = Text()
    style = MATCH_STYLE if matched else ""
    if node.type == AGGREGATION_SCOPE:
        head, sep, tail = base.rpartition("_")
        if sep and head.endswith("]") and tail.isdigit():
            label.append(head, style or SCOPE_STYLE)
            label.append(sep + tail, DIM)  # MindInsight's running index: part of the name, not the count
        else:
            label.append(base, style or SCOPE_STYLE)
    elif node.type == NAME_SCOPE:
        label.append(base, style or SCOPE_STYLE)
        label.append(f" ({size:,})", DIM)
    else:
        label.append(base, style)
        if not base.startswith(node.type):
            label.append(f"  {shown(clipped(node.type, 200))}", DIM)
    return label


class GraphTree(Tree[GraphData]):
    """The scope tree of one built graph, loaded as it is expanded."""

    HELP_GROUP = "Graph"
    BINDINGS = [
        Binding("right", "expand_or_enter", "Expand scope", id="graph.expand"),
        Binding("left", "collapse_or_parent", "Collapse / go to parent", id="graph.collapse"),
        Binding("space", "toggle_node", "Expand or collapse", show=False, id="graph.toggle"),
        Binding("enter", "select_cursor", "Expand / details", show=False, id="graph.select"),
        Binding("minus", "collapse_all", "Collapse all", show=False, id="graph.collapse_all"),
    ]
    DEFAULT_CSS = """
    GraphTree { height: 1fr; width: 1fr; background: $surface; }
    """

    def __init__(self, **kwargs: Any):
        super().__init__("graph", **kwargs)
        self.show_root = False
        self.auto_expand = True
        self.graph: Graph | None = None
        self.sizes: dict[str, int] = {}
        self.matches: set[str] = set()
        self._by_name: dict[str, TreeNode[GraphData]] = {}
        self._loaded: dict[str, int] = {}  # scope -> how many of its children are tree nodes

    def process_label(self, label: str | Text) -> Text:
        """Labels made by `graph_label` are one line already: skip Tree's split of every label,
        which costs as much as the rest of adding a node when a search opens scopes."""
        if isinstance(label, Text) and "\n" not in label.plain:
            return label
        return super().process_label(label)

    def get_label_width(self, node: TreeNode[GraphData]) -> int:
        """The label's width without rendering it (Tree renders every line's label to measure it)."""
        return cell_len(str(node.label)) + (len(self.ICON_NODE) if node.allow_expand else 0)

    # -- filling ------------------------------------------------------------------------------

    def show_graph(self, graph: Graph | None, sizes: dict[str, int] | None = None,
                   matches: Iterable[str] = ()) -> None:
        """Show `graph` (None: empty) with only its top level loaded."""
        self.clear()
        self.graph = graph
        self.sizes = sizes or {}
        self.matches = set(matches)
        self._by_name = {}
        self._loaded = {}
        if graph is not None:
            self.root.data = ""
            self.load_children(self.root)
            if self.root.children:
                self.last_line  # noqa: B018 - lays the lines out
                self.move_cursor(self.root.children[0], animate=False)

    def show_graph_as(self, graph: Graph, sizes: dict[str, int], matches: Sequence[str], expanded: frozenset[str],
                      reveal: Iterable[str], cursor: str | None) -> None:
        """Show `graph` as the user left it: the scopes of `expanded` that still exist open (each
        under open parents), the scopes above `reveal` opened, the cursor on `cursor` or on its
        nearest scope still in the graph."""
        self.show_graph(graph, sizes, matches)
        for name in visible_order(expanded):
            if name not in graph or not all(scope in expanded for scope in graph.ancestors(name)):
                continue
            node = self.reveal(name, move=False)
            if node is not None and node.allow_expand:
                self.load_children(node)
                node.expand()
        for name in reveal:
            self.reveal(name, move=False)
        while cursor and cursor not in graph:
            cursor = cursor.rpartition("/")[0]
        if cursor:
            self.reveal(cursor)

    def load_children(self, tree_node: TreeNode[GraphData], upto: int = 0, more: bool = False) -> None:
        """Make tree nodes for the children of the scope `tree_node`: the first CHUNK (if none
        are there yet), the next CHUNK if `more`, and at least up to child number `upto`."""
        graph = self.graph
        scope = tree_node.data
        if graph is None or not isinstance(scope, str):
            return
        done = self._loaded.get(scope, 0)
        try:
            children = graph.children(scope)
        except KeyError:
            return
        end = done + CHUNK if (more or not done) else done
        end = min(max(end, upto + 1), len(children))
        if end <= done:
            return
        if done and tree_node.children and isinstance(tree_node.children[-1].data, More):
            tree_node.children[-1].remove()
        sizes, matches, by_name = self.sizes, self.matches, self._by_name
        for child in children[done:end]:
            label = graph_label(child, sizes.get(child.name, 0), child.name in matches)
            if child.is_scope:
                added = tree_node.add(label, child.name)
            else:
                added = tree_node.add_leaf(label, child.name)
            by_name[child.name] = added
        self._loaded[scope] = end
        if end < len(children):
            remaining = len(children) - end
            tree_node.add_leaf(Text(f"… {remaining:,} more (enter shows {min(CHUNK, remaining):,})", DIM),
                               More(scope, remaining))

    def on_tree_node_expanded(self, event: Tree.NodeExpanded[GraphData]) -> None:
        if event.node.tree is self:
            self.load_children(event.node)

    def on_tree_node_selected(self, event: Tree.NodeSelected[GraphData]) -> None:
        data = event.node.data
        if isinstance(data, More):
            event.stop()
            parent = event.node.parent
            if parent is not None:
                at = event.node.line
                self.load_children(parent, more=True)
                self.call_after_refresh(self._cursor_to_line, at)

    def _cursor_to_line(self, line: int) -> None:
        self.cursor_line = line
        self.scroll_to_line(line, animate=False)

    # -- finding ------------------------------------------------------------------------------

    @property
    def cursor_name(self) -> str | None:
        node = self.cursor_node
        return node.data if node is not None and isinstance(node.data, str) else None

    def tree_node(self, name: str) -> TreeNode[GraphData] | None:
        """The tree node of `name` if it is loaded."""
        return self._by_name.get(name)

    def reveal(self, name: str, move: bool = True) -> TreeNode[GraphData] | None:
        """Expand the scopes above `name` (loading what is needed); put the cursor on it if `move`."""
        graph = self.graph
        if graph is None or name not in graph:
            return None
        parent = self.root
        for scope in [*graph.ancestors(name), name]:
            found = self._by_name.get(scope)
            if found is None:
                self._load_until(parent, scope)
                found = self._by_name.get(scope)
                if found is None:
                    return None
            if scope != name and not found.is_expanded:
                self.load_children(found)
                found.expand()
            parent = found
        if move:
            self.last_line  # noqa: B018 - lays out the lines just added, so the node knows its line
            self.move_cursor(parent, animate=False)
            self.call_after_refresh(self._scroll_to_cursor)
        return parent

    def _load_until(self, parent: TreeNode[GraphData], name: str) -> None:
        graph = self.graph
        scope = parent.data if isinstance(parent.data, str) else ""
        if graph is None:
            return
        siblings = graph.children(scope)
        for index, node in enumerate(siblings):
            if node.name == name:
                self.load_children(parent, upto=index)
                return

    def _scroll_to_cursor(self) -> None:
        node = self.cursor_node
        if node is not None and node.line >= 0:
            self.scroll_to_line(node.line, animate=False)
            self.scroll_to_node(node, animate=False)

    def expanded_names(self) -> list[str]:
        """The expanded scopes, parents first (to expand them again after a rebuild)."""
        out = []
        stack = list(reversed(self.root.children))
        while stack:
            node = stack.pop()
            if node.is_expanded and isinstance(node.data, str):
                out.append(node.data)
                stack.extend(reversed(node.children))
        return out

    def search(self, text: str, reveal: int) -> list[str]:
        """Colour the nodes whose names match `text` (MindInsight's rule; "": none) and open the
        scopes above the first `reveal` of them; the matches, in MindInsight's order."""
        found = self.graph.search(text) if self.graph is not None and text else []
        self.set_matches(found)
        for name in found[:reveal]:
            self.reveal(name, move=False)
        return found

    def set_matches(self, matches: Iterable[str]) -> None:
        """Colour the search matches (and uncolour the previous ones) among the loaded nodes."""
        new = set(matches)
        graph = self.graph
        if graph is None:
            self.matches = new
            return
        for name in self.matches ^ new:
            tree_node = self._by_name.get(name)
            if tree_node is not None:
                tree_node.set_label(graph_label(graph.node(name), self.sizes.get(name, 0), name in new))
        self.matches = new

    # -- keys ---------------------------------------------------------------------------------

    def action_expand_or_enter(self) -> None:
        node = self.cursor_node
        if node is None:
            return
        if node.allow_expand and not node.is_expanded:
            self.load_children(node)
            node.expand()
        elif node.children:
            self.move_cursor(node.children[0], animate=False)

    def action_collapse_or_parent(self) -> None:
        node = self.cursor_node
        if node is None:
            return
        if node.allow_expand and node.is_expanded:
            node.collapse()
        elif node.parent is not None and node.parent is not self.root:
            self.move_cursor(node.parent, animate=False)

    def action_collapse_all(self) -> None:
        node = self.cursor_node
        top = node
        while top is not None and top.parent is not None and top.parent is not self.root:
            top = top.parent
        for child in self.root.children:
            child.collapse_all()
        if top is not None:
            self.move_cursor(top, animate=False)


# -- the dataset pipeline ----------------------------------------------------------------------

@dataclass(frozen=True)
class PipelineStep:
    """One operation of the pipeline, where it sits in the dict (child indexes from its root),
    and its number in data-flow order (1 for the first source)."""

    op: DatasetOp
    path: tuple[int, ...]
    number: int = 0

    @property
    def summary(self) -> str:
        """A few words for the tree line: what the operation does."""
        op = self.op
        if op.operations:
            return ", ".join(str(item.get("tensor_op_name") or item.get("op_name") or "?") for item in op.operations)
        parts = []
        for key in ("batch_size", "buffer_size", "count", "num_samples", "dataset_dir", "dataset_file"):
            value = op.params.get(key)
            if value is not None:
                if key in ("dataset_dir", "dataset_file"):
                    value = str(value).rstrip("/").rsplit("/", 1)[-1]
                parts.append(f"{key}={value}")
        if op.sampler:
            parts.append(str(op.sampler.get("sampler_name", "sampler")))
        return " ".join(parts)


@dataclass
class Branch:
    """One input of an operation that reads several (zip, concat): its own flow."""

    title: str
    items: list["FlowItem"]


FlowItem = Union[PipelineStep, Branch]


def pipeline_flow(dataset_graph: dict[str, Any] | None) -> list[FlowItem]:
    """The pipeline in data-flow order: sources first, the dict's root (the last operation) last.

    A chain is a flat list; an operation with several inputs comes after one `Branch` per input.
    Steps are numbered as `dataset_pipeline` orders them.
    """
    root = dataset_tree(dataset_graph)
    if root is None:
        return []
    counter = iter(range(1, 1_000_000))

    def flow(op: DatasetOp, path: tuple[int, ...]) -> list[FlowItem]:
        if len(op.children) == 1:
            items = flow(op.children[0], (*path, 0))
        else:
            items = [Branch(f"input {i + 1} of {op.op_type or '?'}", flow(child, (*path, i)))
                     for i, child in enumerate(op.children)]
        return [*items, PipelineStep(op, path, next(counter))]

    return flow(root, ())


def pipeline_steps(items: list[FlowItem]) -> list[PipelineStep]:
    out: list[PipelineStep] = []
    for item in items:
        if isinstance(item, Branch):
            out.extend(pipeline_steps(item.items))
        else:
            out.append(item)
    return out


def pipeline_label(step: PipelineStep) -> Text:
    label = Text()
    label.append(f"{step.number}. ", DIM)
    label.append(shown(step.op.op_type or "?"), SCOPE_STYLE)
    if step.summary:
        label.append(f"  {shown(step.summary)}", DIM)
    return label


class PipelineTree(Tree[Union[PipelineStep, None]]):
    """A job's dataset pipeline, fully expanded, in data-flow order."""

    HELP_GROUP = "Dataset pipeline"
    BINDINGS = [
        Binding("space", "toggle_node", "Expand or collapse", show=False, id="pipeline.toggle"),
    ]
    DEFAULT_CSS = """
    PipelineTree { height: 1fr; width: 1fr; background: $surface; }
    """

    def __init__(self, **kwargs: Any):
        super().__init__("pipeline", **kwargs)
        self.show_root = False
        self.auto_expand = False
        self.steps: list[PipelineStep] = []

    def show_pipeline(self, dataset_graph: dict[str, Any] | None) -> None:
        """Show the pipeline; keep the cursor on the same operation if it is still there."""
        current = self.cursor_node.data if self.cursor_node is not None else None
        self.clear()
        flow = pipeline_flow(dataset_graph)
        self.steps = pipeline_steps(flow)
        leaves: dict[int, TreeNode] = {}

        def add(parent: TreeNode, items: list[FlowItem]) -> None:
            for item in items:
                if isinstance(item, Branch):
                    add(parent.add(Text(shown(item.title), DIM), None, expand=True), item.items)
                else:
                    leaves[item.number] = parent.add_leaf(pipeline_label(item), item)

        add(self.root, flow)
        if leaves:
            self.last_line  # noqa: B018 - lays the new lines out, so the cursor lands on the right one
            self.move_cursor(leaves[self._same_step(current)], animate=False)

    def _same_step(self, old: PipelineStep | None) -> int:
        """The number of the step that stands for `old` after a reload: the same place in the flow
        if it is the same kind of operation there, else the first of that kind, else the first."""
        if old is None or not self.steps:
            return 1
        by_number = {step.number: step for step in self.steps}
        same = by_number.get(old.number)
        if same is not None and same.op.op_type == old.op.op_type:
            return same.number
        kind = [step.number for step in self.steps if step.op.op_type == old.op.op_type]
        return kind[0] if kind else 1
