"""The graph view's panes: the header (title, hint and search box) and the body (the graph tree
or the dataset pipeline, or a message in their place, beside the node detail).

The body keeps the detail in line with the cursor of the tree on screen: a leaf's or a pipeline
operation's rows at once, a scope's on the body's own loader (its edges are gathered from its
whole subtree the first time), so a big scope never holds up a build, nor the reverse.
"""
from __future__ import annotations

from functools import partial
from typing import Any

from textual import on
from textual.app import ComposeResult
from textual.containers import Horizontal, Vertical
from textual.widget import Widget
from textual.widgets import Static, Tree

from ...summary.formats.graph import Graph

from ..common.focus import focus_now
from ..common.text import shown
from ..loader import Loaded, Loader, LoaderHost
from ..state.graph import GraphState
from .graph_tree import GraphTree, PipelineStep, PipelineTree
from .node_detail import NodeDetail, graph_node_rows, pipeline_rows
from .on_demand_input import ReturningInput

# A scope's edges are gathered here, in the key's own paint, up to this many nodes below it (~4 µs
# a node: 1,000 take ~5 ms); a bigger scope's go to the loader behind a "gathering…" line.
INLINE_SCOPE_NODES = 1000
REVEAL_LIMIT = 100  # matches whose scopes a search opens at once (MindInsight's page); n/N open the rest
SEARCH_PLACEHOLDER = "/ search node names (any case, last path segment): enter finds, escape closes"


class GraphHeader(Vertical):
    """The title and hint lines; the search box opens in the hint's place, so nothing else moves."""

    DEFAULT_CSS = """
    GraphHeader { height: auto; }
    GraphHeader .graph-line { height: 1; padding: 0 1; }
    GraphHeader #graph-hint { color: $foreground-muted; }
    GraphHeader #graph-search { height: 1; border: none; padding: 0 1; background: $boost; }
    GraphHeader #graph-search:focus { border: none; }
    """

    def compose(self) -> ComposeResult:
        yield Static("", id="graph-title", classes="graph-line")
        yield Static("", id="graph-hint", classes="graph-line")
        box = ReturningInput(placeholder=SEARCH_PLACEHOLDER, id="graph-search")
        box.display = False
        yield box

    @property
    def box(self) -> ReturningInput:
        return self.query_one("#graph-search", ReturningInput)

    def show(self, title: str, hint: str) -> None:
        """Both lines (markup: the caller escapes text from files)."""
        self.query_one("#graph-title", Static).update(title)
        self.query_one("#graph-hint", Static).update(hint)

    @property
    def searching(self) -> bool:
        return self.box.display

    def open_search(self, text: str) -> None:
        """Open the box on `text` and give it the keyboard now: keys typed right after `/` reach it."""
        box = self.box
        box.value = text
        self.query_one("#graph-hint", Static).display = False
        box.display = True
        box.open()

    def close_search(self) -> None:
        self.box.display = False
        self.query_one("#graph-hint", Static).display = True


class GraphBody(LoaderHost, Horizontal):
    """The graph tree, the pipeline tree or a message (one at a time) beside the node detail."""

    DEFAULT_CSS = """
    GraphBody { height: 1fr; }
    GraphBody #graph-left { width: 1fr; height: 1fr; }
    GraphBody #graph-message { height: 1fr; padding: 1 2; }
    GraphBody #graph-message.-short { height: auto; }
    GraphBody #node-detail { width: 45%; min-width: 30; height: 1fr; border-left: tall $panel; }
    """

    def __init__(self, **kwargs: Any):
        super().__init__(**kwargs)
        self.detail_loader = Loader(self, "graph-detail")
        self._detail_focus_was_forced = False  # the detail has the keyboard only because no tree was shown
        self.searched = ""  # the search drawn on the graph in the tree: its matches coloured, their scopes opened
        self.matches: list[str] = []  # its matches, in MindInsight's order

    def compose(self) -> ComposeResult:
        with Vertical(id="graph-left"):
            yield Static("", id="graph-message")
            yield GraphTree(id="graph-tree")
            yield PipelineTree(id="pipeline-tree")
        yield NodeDetail(id="node-detail")

    @property
    def graph_tree(self) -> GraphTree:
        return self.query_one(GraphTree)

    @property
    def pipeline(self) -> PipelineTree:
        return self.query_one(PipelineTree)

    @property
    def detail(self) -> NodeDetail:
        return self.query_one(NodeDetail)

    def on_unmount(self) -> None:
        self.detail_loader.forget()

    @on(Tree.NodeSelected)
    def _selected(self, event: Tree.NodeSelected) -> None:
        """Enter on a leaf or a pipeline operation: its inputs and outputs are where enter goes next."""
        node = event.node
        if isinstance(node.data, PipelineStep) or isinstance(node.data, str) and not node.allow_expand:
            focus_now(self.detail)

    def first_focus(self, mode: str) -> Widget:
        """The tree of `mode` ("graph" or "pipeline") if it is shown, else the detail."""
        tree = self.pipeline if mode == "pipeline" else self.graph_tree
        return tree if tree.display else self.detail

    def show_graph(self, graph: Graph | None, sizes: dict[str, int] | None = None, state: GraphState | None = None,
                   redrawn: bool = False) -> bool:
        """Put `graph` in the tree (None: none) as `state` left it: its open scopes, its search and
        cursor. A search already drawn on this graph (`redrawn`: rebuilt, or `o`) is only coloured
        again; a new one (typed while building, or remembered) opens the scopes of its matches.
        True: a new search matches nothing."""
        search = state.search if state is not None and graph is not None else ""
        drawn = redrawn and self.searched == search
        self.searched, self.matches = search, graph.search(search) if graph is not None and search else []
        if graph is None or state is None:
            self.graph_tree.show_graph(None)
            return False
        matches, fresh = self.matches, bool(search) and not drawn
        cursor = matches[state.match] if not drawn and 0 <= state.match < len(matches) else state.selected
        self.graph_tree.show_graph_as(graph, sizes or {}, matches, state.expanded, matches[:REVEAL_LIMIT] if fresh else (),
                                cursor)
        return fresh and not matches

    def search(self, text: str) -> list[str]:
        """Draw the search `text` on the graph in the tree: its matches (in MindInsight's order)."""
        self.searched, self.matches = text, self.graph_tree.search(text, REVEAL_LIMIT)
        return self.matches

    def show_pane(self, pane: str, message: str = "") -> bool:
        """Show the graph tree ("tree"), the pipeline tree ("pipeline"), or `message` in their
        place ("message"); "building": a short message above the (still empty) tree, which keeps
        the keyboard, so no focus moves when the graph arrives. True: the keyboard should go back
        to the view (the focused tree was hidden, or the detail had it only for want of a tree)."""
        box = self.query_one("#graph-message", Static)
        box.update(message)
        box.display = pane in ("message", "building")
        box.set_class(pane == "building", "-short")
        self.graph_tree.display = pane in ("tree", "building")
        self.pipeline.display = pane == "pipeline"
        focused = self.screen.focused
        back = focused is not None and self in focused.ancestors and not focused.display or (
            focused is self.detail and pane != "message" and self._detail_focus_was_forced)
        self._detail_focus_was_forced = pane == "message"
        return back

    def show_detail(self, mode: str, pipeline_job: str | None, detail_row: int) -> None:
        """The detail of what is under the cursor of the tree of `mode` ("graph" or "pipeline",
        that of `pipeline_job`), its cursor on row `detail_row` (-1: the first input or output)."""
        detail, loader = self.detail, self.detail_loader
        if mode == "pipeline":
            loader.forget("detail")
            node = self.pipeline.cursor_node
            step = node.data if node is not None else None
            if isinstance(step, PipelineStep):
                detail.show_rows(pipeline_rows(step), ("pipeline", pipeline_job, step.path))
            elif node is not None:
                detail.show_message(f"{str(node.label)}: the operations listed under it feed this input.")
            return
        tree = self.graph_tree
        graph, name = tree.graph, tree.cursor_name
        if graph is None or name is None or name not in graph:
            if graph is not None and tree.cursor_node is not None:
                loader.forget("detail")
                detail.show_message("Press enter to show more of this scope.")
            return
        graph_node = graph.node(name)
        subject = (id(graph), name)
        if not graph_node.is_scope or tree.sizes.get(name, 0) <= INLINE_SCOPE_NODES:
            loader.forget("detail")
            detail.show_rows(graph_node_rows(graph, graph_node, tree.sizes), subject, cursor=detail_row)
            return
        if detail.subject != subject:
            detail.show_message(f"{shown(name)}\n\ngathering the edges of this scope…")
        loader.request("detail", partial(graph_node_rows, graph, graph_node, tree.sizes),
                       partial(self._detail_ready, name, subject, detail_row))

    def _detail_ready(self, name: str, subject: object, detail_row: int, loaded: Loaded) -> None:
        if loaded.ok:
            self.detail.show_rows(loaded.value, subject, cursor=detail_row)
        else:
            self.detail.show_message(f"{shown(name)}: {loaded.error}")
