"""The graph view (`5`): a job's computational graph as a tree of name scopes, and its dataset pipeline.

- What the user chose and where they are (which graph, optimized or not, graph or pipeline, open
  scopes, cursor, search) is one `GraphState` (ui/state/graph.py) in the `state` reactive;
  `watch_state` redraws from it and hands it to the workspace.
- The graph is read and built (tui_insight.summary.formats.graph) by the view's loader, so a big graph
  never freezes the UI; built graphs are kept per (job, tag, optimized) and rebuilt only when
  the cache says their source changed. What a build makes is kept out of the garbage collector's
  passes while the view lives (`summary/gc_policy.py`).
- The tree loads a scope's children when it is expanded (widgets/graph_tree.py); the detail
  pane (widgets/node_detail.py) shows the node under the cursor, and a scope's edges, which the
  model works out on first use, are gathered by a second loader (a build never waits for them).
- `/` searches names as MindInsight does (§5.3), `n`/`N` step through the matches, `o` switches
  to the optimized graph (§5.2), `g` picks among several graphs, `d` shows the dataset pipeline
  of the job's lineage (§6.4).
"""
from __future__ import annotations

import time
from dataclasses import dataclass, field
from functools import partial
from typing import Any

from rich.text import Text
from textual import on
from textual.actions import SkipAction
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical
from textual.reactive import reactive
from textual.widget import Widget
from textual.widgets import Input, OptionList, Static, Tree

from ...summary import gc_policy
from ...summary.formats.graph import GraphError
from ...summary.store.graph_cache import built_graph
from ...summary.store.job_view import Changes, GraphSource
from ..common.focus import focus_now
from ..common.text import literal, markup, shown
from ..dialogs import ListPicker
from ..loader import Loaded, Loader
from ..presenters import graph as present
from ..presenters.graph import LEGEND, BuiltGraph, GraphKey
from ..state.graph import GraphState, visible_order
from ..widgets.graph_tree import GraphTree, PipelineStep, PipelineTree, scope_sizes
from ..widgets.node_detail import DetailRow, NodeDetail, graph_node_rows, pipeline_rows
from ..widgets.on_demand_input import ReturningInput
from .base import DataView, ViewSpec

REVEAL_LIMIT = 100  # matches whose scopes a search opens at once (MindInsight's page); n/N open the rest


def build_source(source: GraphSource, optimized: bool, files=None, keep_in=None) -> BuiltGraph:
    """Read and build one graph (slow for big graphs: call it in a worker thread); `files`: the
    cache's `Source` the graph is read through; `keep_in`: the cache directory where builds are
    kept between runs (None: none)."""
    start = time.perf_counter()
    try:
        graph = built_graph(source, optimized, files, keep_in)
        sizes = scope_sizes(graph)
    except GraphError as exc:
        return BuiltGraph(source, None, error=str(exc))
    except Exception as exc:  # a graph we cannot understand must not take the view down
        return BuiltGraph(source, None, error=f"unexpected {type(exc).__name__}: {exc}")
    return BuiltGraph(source, graph, sizes, seconds=time.perf_counter() - start)


@dataclass
class Shown:
    """The graph in the tree, and the search drawn on it."""

    key: GraphKey
    built: BuiltGraph
    searched: str = ""  # the search whose matches are coloured (and whose scopes were opened)
    matches: list[str] = field(default_factory=list)


class GraphPicker(ListPicker):
    """`g`: choose one of several graphs (or pipelines); dismisses with the chosen index."""

    HELP_GROUP = "Pick a graph"
    BINDINGS = [Binding("escape", "cancel", "Cancel", id="graph_picker.cancel")]

    def __init__(self, title: str, labels: list[Text], current: int):
        super().__init__(markup(title), labels, current, "graph-picker-list")


def _status_part(state: GraphState) -> tuple[Any, ...]:
    """What the title and hint lines show of the state (the cursor and open scopes are not)."""
    return state.mode, state.graph, state.optimized, state.pipeline_job, state.search, state.match


class GraphView(DataView):
    SPEC = ViewSpec("graph", "Graph", "5", (), "job")
    """Graph (`5`): name-scope tree, node details, search, optimized view, dataset pipeline."""

    HELP_GROUP = "Graph"
    HELP_NOTE = present.HELP_NOTE
    BINDINGS = [
        Binding("slash", "search", "Search", id="graph.search"),
        Binding("n", "next_match", "Next match", id="graph.next_match"),
        Binding("N", "previous_match", "Previous match", show=False, id="graph.previous_match"),
        Binding("o", "toggle_optimized", "Optimized", id="graph.optimized"),
        Binding("d", "toggle_pipeline", "Dataset pipeline", id="graph.dataset"),
        Binding("g", "pick", "Pick graph", id="graph.pick"),
        Binding("k", "legend", "Legend", id="graph.legend"),
        Binding("backspace", "jump_back", "Back after a jump", show=False, id="graph.back"),
        Binding("escape", "clear_search", "Close / clear search", show=False, id="graph.clear_search"),
    ]
    DEFAULT_CSS = """
    GraphView { layout: vertical; }
    GraphView .graph-line { height: 1; padding: 0 1; }
    GraphView #graph-hint { color: $foreground-muted; }
    GraphView #graph-search { height: 1; border: none; padding: 0 1; background: $boost; }
    GraphView #graph-search:focus { border: none; }
    GraphView #graph-body { height: 1fr; }
    GraphView #graph-left { width: 1fr; height: 1fr; }
    GraphView #graph-message { height: 1fr; padding: 1 2; }
    GraphView #graph-message.-short { height: auto; }
    GraphView #node-detail { width: 45%; min-width: 30; height: 1fr; border-left: tall $panel; }
    """

    state: reactive[GraphState] = reactive(GraphState, init=False, repaint=False)

    def __init__(self, cache, train_ids: tuple[str, ...], **kwargs: Any):
        super().__init__(cache, train_ids, **kwargs)
        self.set_reactive(GraphView.state, GraphState.from_json(self.saved))
        self._built: dict[GraphKey, BuiltGraph] = {}  # built graphs (derived data, not state)
        self._shown: Shown | None = None  # the graph in the tree
        self._detail_focus_was_forced = False  # the detail has the keyboard only because no tree was shown
        self._closed = False  # unmounted: a build finishing now gives back what it froze
        # Scope details on their own loader: a big scope's edges never hold up a build, nor the reverse.
        self.detail_loader = Loader(self, "graph-detail")

    GRAPH_ACTIONS = frozenset({"search", "next_match", "previous_match", "toggle_optimized", "jump_back"})

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        """Graph keys show dimmed in the footer (None) and do nothing while the pipeline is shown."""
        if action in self.GRAPH_ACTIONS and self.state.mode != "graph":
            return None
        return True

    # -- layout -------------------------------------------------------------------------------

    def compose(self) -> ComposeResult:
        yield Static("", id="graph-title", classes="graph-line")
        yield Static("", id="graph-hint", classes="graph-line")
        # The search box takes the hint line's place: opening it moves nothing else on the screen.
        yield ReturningInput(placeholder="/ search node names (any case, last path segment): enter finds, "
                             "escape closes", id="graph-search")
        with Horizontal(id="graph-body"):
            with Vertical(id="graph-left"):
                yield Static("", id="graph-message")
                yield GraphTree(id="graph-tree")
                yield PipelineTree(id="pipeline-tree")
            yield NodeDetail(id="node-detail")

    def on_mount(self) -> None:
        self.query_one("#graph-search", Input).display = False
        self.set_reactive(GraphView.state, self._with_default_graph(self.state))
        self._refresh()  # the tree (or the message in its place) is up: the view can take the keys
        self.remember(self.state)
        self.ready_for_keys()

    @property
    def _gone(self) -> bool:
        """Detached, or being taken down (its children go first): late callbacks stop here."""
        return self._closed or not self.is_attached or not self.query(GraphTree)

    @property
    def graph_tree(self) -> GraphTree:
        return self.query_one(GraphTree)

    @property
    def pipeline(self) -> PipelineTree:
        return self.query_one(PipelineTree)

    @property
    def detail(self) -> NodeDetail:
        return self.query_one(NodeDetail)

    @property
    def shown_key(self) -> GraphKey | None:
        """(train id, tag, optimized) of the graph in the tree (built, or that could not be)."""
        return self._shown.key if self._shown is not None else None

    @property
    def matches(self) -> list[str]:
        """The nodes the search matches in the graph on screen, in MindInsight's order."""
        return self._shown.matches if self._tree_is_current() else []  # type: ignore[union-attr]

    def first_focus(self) -> Widget | None:
        if self.state.mode == "pipeline":
            return self.pipeline if self.pipeline.display else self.detail
        return self.graph_tree if self.graph_tree.display else self.detail

    def _show_pane(self, pane: str, message: str = "") -> None:
        """Show the graph tree, the pipeline tree, or a message in their place ("message").

        "building" shows a short message above the (still empty) tree, which keeps the keyboard:
        no focus moves when the graph arrives.
        """
        box = self.query_one("#graph-message", Static)
        box.update(message)
        box.display = pane in ("message", "building")
        box.set_class(pane == "building", "-short")
        self.graph_tree.display = pane in ("tree", "building")
        self.pipeline.display = pane == "pipeline"
        focused = self.screen.focused
        if focused is not None and self in focused.ancestors and not focused.display:
            self.focus_view()  # the focused tree was just hidden
        elif focused is self.detail and pane in ("tree", "building", "pipeline") and self._detail_focus_was_forced:
            self.focus_view()
        self._detail_focus_was_forced = pane == "message"

    # -- the state ----------------------------------------------------------------------------

    def watch_state(self, old: GraphState, new: GraphState) -> None:
        if not self.is_mounted:
            return
        if (old.mode, old.graph, old.optimized, old.pipeline_job) != (new.mode, new.graph, new.optimized,
                                                                      new.pipeline_job):
            if old.mode != new.mode:
                self.call_after_refresh(self.refresh_bindings)  # the footer dims the graph keys in the pipeline
            self._refresh()
        elif new.mode == "graph" and self._tree_is_current():
            if new.search != old.search:
                self._apply_search()
            elif new.match != old.match:
                self._go_to_match()
        if _status_part(old) != _status_part(new):
            self._update_status()
        self.remember(new)

    def _tree_is_current(self) -> bool:
        """The tree shows the built graph the state asks for."""
        shown = self._shown
        return shown is not None and shown.key == self.state.key and shown.built.graph is not None

    # -- which graph --------------------------------------------------------------------------

    def graph_entries(self) -> list[tuple[str, str, GraphSource]]:
        """Every graph of the view's jobs: (train id, tag, source), tags in alphabetical order."""
        out = []
        for job in self.jobs:
            for tag in sorted(job.graphs):
                out.append((job.train_id, tag, job.graphs[tag]))
        return out

    def _with_default_graph(self, state: GraphState) -> GraphState:
        """Keep the chosen graph while it exists, else take the first (MindInsight's default tag).
        While a job is still loading and no graph is known yet, the choice (maybe remembered) waits."""
        entries = [(tid, tag) for tid, tag, _ in self.graph_entries()]
        if not entries and any(job.state == "loading" for job in self.jobs):
            return state
        return state.choose_graph(entries)

    def _current_source(self) -> GraphSource | None:
        graph = self.state.graph
        if graph is None:
            return None
        job = self.cache.job(graph[0])
        return job.graphs.get(graph[1]) if job is not None else None

    def _refresh(self) -> None:
        """Bring the panes in line with the mode, the chosen graph and what is built."""
        if self.state.mode == "pipeline":
            self._show_pipeline()
            return
        source = self._current_source()
        key = self.state.key
        if source is None or key is None:
            self._shown = None
            self.graph_tree.show_graph(None)
            self._show_pane("message", self._no_graph_text())
            self.detail.show_message("No graph to show.")
            self._update_status()
            return
        built = self._built.get(key)
        shown = self._shown
        if built is not None and built.source == source:
            if shown is None or shown.key != key or shown.built is not built:
                self._display(key, built)
            elif built.graph is None:
                self._show_pane("message", present.error_text(key, built))
            elif not self.graph_tree.display:  # back from the pipeline: the tree is as the user left it
                self._show_pane("tree")
                self._update_status()
                self._update_detail()
            return
        if shown is None or shown.built.graph is None:
            self._show_pane("building", present.building_text(key))
            self.detail.show_message("")
        # After the next paint: the message shows at once, before the build competes for the GIL.
        self.call_after_refresh(self._request_build, key, source)
        self._update_status()

    def _no_graph_text(self) -> str:
        return present.no_graph_text(self.state, self.train_ids, [job.train_id for job in self.jobs],
                                     any(job.state == "loading" for job in self.jobs), bool(self.graph_entries()),
                                     bool(self._pipeline_jobs()))

    # -- building -----------------------------------------------------------------------------

    def _request_build(self, key: GraphKey, source: GraphSource) -> None:
        request = ("build", *key, source)
        if self._gone or self.loader.is_wanted(request):
            return
        self.loader.request(request, partial(self._build, source, key[2]), partial(self._graph_built, key, source))

    def _build(self, source: GraphSource, optimized: bool) -> BuiltGraph:
        """In the loader's thread."""
        with gc_policy.made_by(self):  # the graph lives as long as the view: keep it out of GC passes
            disk = self.cache.disk
            built = build_source(source, optimized, self.cache.source, disk.root if disk is not None else None)
        if self._closed:  # the view went while it was being built (it gave back what it held then)
            gc_policy.release(self)
        return built

    def _graph_built(self, key: GraphKey, source: GraphSource, loaded: Loaded) -> None:
        if self._gone:
            return
        built = loaded.value if loaded.ok else BuiltGraph(source, None, error=loaded.error)
        self._built[key] = built
        if self.state.mode == "graph" and key == self.state.key and built.source == self._current_source():
            self._display(key, built)

    def _display(self, key: GraphKey, built: BuiltGraph) -> None:
        """Put a built graph in the tree, with the state's open scopes, search and cursor."""
        tree = self.graph_tree
        state = self.state
        previous = self._shown
        graph = built.graph
        if graph is None:
            self._shown = Shown(key, built)
            tree.show_graph(None)
            self._show_pane("message", present.error_text(key, built))
            self.detail.show_message("No graph to show.")
            self._update_status()
            return
        # A search already drawn on this graph (a rebuild, `o`) is only coloured again; a new one
        # (typed while building, or remembered) opens the scopes of its matches.
        searched = previous is not None and previous.key[:2] == key[:2] and previous.searched == state.search
        matches = graph.search(state.search) if state.search else []
        self._shown = Shown(key, built, state.search, matches)
        tree.show_graph(graph, built.sizes, matches)
        self._show_pane("tree")
        expanded = state.expanded
        for name in visible_order(expanded):  # the user's open scopes, where they still exist
            if name not in graph or not all(scope in expanded for scope in graph.ancestors(name)):
                continue
            node = tree.reveal(name, move=False)
            if node is not None and node.allow_expand:
                tree.load_children(node)
                node.expand()
        if state.search and not searched:
            for name in matches[:REVEAL_LIMIT]:
                tree.reveal(name, move=False)
            if not matches:
                self._no_match()
        if not searched and 0 <= state.match < len(matches):
            tree.reveal(matches[state.match])
        elif state.selected:
            cursor = state.selected
            while cursor and cursor not in graph:
                cursor = cursor.rpartition("/")[0]
            if cursor:
                tree.reveal(cursor)
        self._update_status()
        self.call_after_refresh(self._update_detail)  # paint the tree first

    # -- status lines -------------------------------------------------------------------------

    def _update_status(self) -> None:
        state = self.state
        if state.mode == "pipeline":
            title, hint = present.pipeline_status(state, len(self.pipeline.steps), len(self._pipeline_jobs()))
        else:
            built = self._shown.built if self._shown is not None and self._shown.key == state.key else None
            title, hint = present.graph_status(state, self.graph_entries(), self._current_source(), built,
                                               len(self.matches), len(self.train_ids) > 1, bool(self._pipeline_jobs()))
        self.query_one("#graph-title", Static).update(title)
        self.query_one("#graph-hint", Static).update(hint)

    # -- the detail pane ----------------------------------------------------------------------

    def _update_detail(self) -> None:
        if self._gone:
            return  # called after a refresh that came after the view went
        if self.state.mode == "pipeline":
            self.detail_loader.forget("detail")
            node = self.pipeline.cursor_node
            step = node.data if node is not None else None
            if isinstance(step, PipelineStep):
                self.detail.show_rows(pipeline_rows(step), ("pipeline", self.state.pipeline_job, step.path))
            elif node is not None:
                self.detail.show_message(f"{str(node.label)}: the operations listed under it feed this input.")
            return
        tree = self.graph_tree
        graph, name = tree.graph, tree.cursor_name
        if graph is None or name is None or name not in graph:
            if graph is not None and tree.cursor_node is not None:
                self.detail_loader.forget("detail")
                self.detail.show_message("Press enter to show more of this scope.")
            return
        graph_node = graph.node(name)
        subject = (id(graph), name)
        if not graph_node.is_scope:
            self.detail_loader.forget("detail")
            self.detail.show_rows(graph_node_rows(graph, graph_node, tree.sizes), subject, cursor=self.state.detail_row)
            return
        # A scope's edges are gathered from its whole subtree the first time: do it off the UI thread.
        if self.detail.subject != subject:
            self.detail.show_message(f"{shown(name)}\n\ngathering the edges of this scope…")
        self.detail_loader.request("detail", partial(graph_node_rows, graph, graph_node, tree.sizes),
                            partial(self._detail_ready, name, subject))

    def _detail_ready(self, name: str, subject: object, loaded: Loaded) -> None:
        if self._gone:
            return
        if loaded.ok:
            self.detail.show_rows(loaded.value, subject, cursor=self.state.detail_row)
        else:
            self.detail.show_message(f"{shown(name)}: {loaded.error}")

    @on(Tree.NodeHighlighted)
    def _highlighted(self, event: Tree.NodeHighlighted) -> None:
        event.stop()
        graph_mode = self.state.mode == "graph"
        if event.control is self.graph_tree and graph_mode:
            name = self.graph_tree.cursor_name
            if name is not None and self._tree_is_current():
                self.state = self.state.select(name)
            self._update_detail()
        elif event.control is self.pipeline and not graph_mode:
            self._update_detail()

    @on(Tree.NodeExpanded, "#graph-tree")
    def _expanded(self, event: Tree.NodeExpanded) -> None:
        name = event.node.data
        if isinstance(name, str) and name and self._tree_is_current() and self.graph_tree.tree_node(name) is event.node:
            self.state = self.state.expand(name)

    @on(Tree.NodeCollapsed, "#graph-tree")
    def _collapsed(self, event: Tree.NodeCollapsed) -> None:
        name = event.node.data
        if isinstance(name, str) and name and self._tree_is_current() and self.graph_tree.tree_node(name) is event.node:
            self.state = self.state.collapse(name)

    @on(OptionList.OptionHighlighted, "#node-detail")
    def _detail_moved(self, event: OptionList.OptionHighlighted) -> None:
        detail = self.detail
        if self.state.mode == "graph" and detail.subject is not None and detail.highlighted is not None:
            self.state = self.state.with_detail_row(detail.highlighted)

    @on(Tree.NodeSelected, "#graph-tree")
    def _selected_in_tree(self, event: Tree.NodeSelected) -> None:
        node = event.node
        if isinstance(node.data, str) and not node.allow_expand:
            focus_now(self.detail)  # a leaf: its inputs and outputs are where enter goes next

    @on(Tree.NodeSelected, "#pipeline-tree")
    def _selected_in_pipeline(self, event: Tree.NodeSelected) -> None:
        if isinstance(event.node.data, PipelineStep):
            focus_now(self.detail)

    @on(NodeDetail.Jump)
    def _jump(self, event: NodeDetail.Jump) -> None:
        event.stop()
        tree = self.graph_tree
        if self.state.mode != "graph" or tree.graph is None:
            return
        if event.name not in tree.graph:
            self.notify(f"{markup(event.name)} is not in this graph", severity="warning")
            return
        self.state = self.state.select(tree.cursor_name).jump(event.name)
        tree.reveal(event.name)

    def show_node(self, name: str) -> None:
        """Put the cursor on `name` (another view asked, e.g. the profiler's `g` on an op): at once
        when the graph is shown, else once it is built (the selection is part of the state)."""
        trees = self.query(GraphTree)  # none before the view is composed
        tree = trees.first() if trees else None
        if tree is not None and self.state.mode == "graph" and self._tree_is_current() and tree.graph is not None:
            if name not in tree.graph:
                self.notify(f"{markup(name)} is not in this graph", severity="warning")
                return
            self.state = self.state.select(tree.cursor_name).jump(name)
            tree.reveal(name)
        else:  # choose the graph first: choosing one later starts its selection afresh
            self.state = self._with_default_graph(self.state).jump(name)

    def action_jump_back(self) -> None:
        tree = self.graph_tree
        if self.state.mode != "graph" or not self.state.history:
            raise SkipAction()
        self.state = self.state.back()
        name = self.state.selected
        if tree.graph is not None and name is not None and name in tree.graph:
            tree.reveal(name)

    # -- search -------------------------------------------------------------------------------

    def action_search(self) -> None:
        if self.state.mode != "graph":
            self.notify("Search works on the graph: press d to go back to it", severity="warning")
            return
        building = self._current_source() is not None and self.shown_key != self.state.key
        if self.graph_tree.graph is None and not building:  # no graph, or one that cannot be read
            self.notify("No graph to search", severity="warning")
            return
        box = self.query_one("#graph-search", ReturningInput)
        box.value = self.state.search
        self.query_one("#graph-hint", Static).display = False
        box.display = True
        box.open()  # now, not later: the keys typed right after `/` must reach it

    @on(Input.Submitted, "#graph-search")
    def _search_submitted(self, event: Input.Submitted) -> None:
        event.stop()
        self._close_search_box()
        focus_now(self.graph_tree)
        self.run_search(event.value)

    def _close_search_box(self) -> None:
        self.query_one("#graph-search", Input).display = False
        self.query_one("#graph-hint", Static).display = True

    def run_search(self, text: str) -> None:
        """Find `text` (MindInsight's rule), open the scopes of the matches, go to the first.
        While the graph is being built, the search waits for it."""
        new = self.state.with_search(text)
        if new == self.state and self._tree_is_current():
            self._apply_search()  # the same search again: its scopes open, the cursor goes back to the first
            self._update_status()
        else:
            self.state = new

    def _apply_search(self) -> None:
        """Draw the state's search on the graph in the tree."""
        shown = self._shown
        if shown is None or shown.built.graph is None:
            return
        tree = self.graph_tree
        text = self.state.search
        shown.searched = text
        shown.matches = shown.built.graph.search(text) if text else []
        tree.set_matches(shown.matches)
        for name in shown.matches[:REVEAL_LIMIT]:
            tree.reveal(name, move=False)
        if shown.matches:
            self._go_to_match()
        elif text:
            self._no_match()

    def _no_match(self) -> None:
        self.notify(f"No node name matches {markup(repr(self.state.search))}", severity="warning", timeout=3)

    def _go_to_match(self) -> None:
        matches, index = self.matches, self.state.match
        if 0 <= index < len(matches):
            self.graph_tree.reveal(matches[index])

    def _step_match(self, step: int) -> None:
        if self.state.mode != "graph":
            raise SkipAction()
        matches = self.matches
        if not matches:
            self.notify("No search: press / to search node names" if not self.state.search
                        else f"No node name matches {markup(repr(self.state.search))}", severity="warning", timeout=3)
            return
        new = self.state.step_match(step, len(matches))
        if new == self.state:
            self._go_to_match()  # the only match: back to it
        else:
            self.state = new

    def action_next_match(self) -> None:
        self._step_match(1)

    def action_previous_match(self) -> None:
        self._step_match(-1)

    def action_clear_search(self) -> None:
        box = self.query_one("#graph-search", Input)
        if box.display:
            self._close_search_box()
            self.focus_view()
            return
        if not self.state.search:
            raise SkipAction()  # escape goes back to the job list
        self.state = self.state.clear_search()

    # -- optimized, pipeline, picker ------------------------------------------------------------

    def action_toggle_optimized(self) -> None:
        if self.state.mode != "graph":
            self.notify("o switches the graph between normal and optimized: press d to go back to it",
                        severity="warning")
            return
        self.state = self.state.toggle_optimized()

    def _pipeline_jobs(self) -> list[str]:
        return [job.train_id for job in self.jobs if job.lineage is not None and job.lineage.dataset_graph]

    def action_legend(self) -> None:
        """`k`: what the marks of the tree and the detail pane mean, in the detail pane (the next
        move in the tree shows the node again)."""
        self.detail.show_rows([DetailRow(Text(line, "bold" if not line.startswith(" ") else ""))
                               for line in LEGEND])

    def action_toggle_pipeline(self) -> None:
        self.state = self.state.toggle_pipeline(self._pipeline_jobs(), self.train_ids[0] if self.train_ids else None)
        self.focus_view()

    def _show_pipeline(self) -> None:
        tid = self.state.pipeline_job
        job = self.cache.job(tid) if tid else None
        dataset_graph = job.lineage.dataset_graph if job is not None and job.lineage is not None else {}
        if not dataset_graph:
            self.pipeline.show_pipeline(None)
            self._show_pane("message", present.no_pipeline_text(self.train_ids, tid))
            self.detail.show_message("No dataset pipeline to show.")
        else:
            self.pipeline.show_pipeline(dataset_graph)
            self._show_pane("pipeline")
            self._update_detail()
        self._update_status()

    def action_pick(self) -> None:
        if self.state.mode == "pipeline":
            jobs = self._pipeline_jobs()
            if len(jobs) < 2:
                self.notify("Only one job with a dataset pipeline here" if jobs else "No dataset pipeline here",
                            severity="warning")
                return
            labels = [literal(tid) for tid in jobs]
            current = jobs.index(self.state.pipeline_job) if self.state.pipeline_job in jobs else 0
            self.app.push_screen(GraphPicker("Dataset pipeline of", labels, current),
                                 partial(self._picked_pipeline, jobs))
            return
        entries = self.graph_entries()
        if len(entries) < 2:
            self.notify("This job has only one graph" if entries else "No graph here", severity="warning")
            return
        labels = present.graph_labels(entries, len(self.train_ids) > 1)
        current = next((i for i, (t, g, _) in enumerate(entries) if (t, g) == self.state.graph), 0)
        self.app.push_screen(GraphPicker("Show the graph", labels, current), partial(self._picked_graph, entries))

    def _picked_graph(self, entries: list[tuple[str, str, GraphSource]], index: int | None) -> None:
        if index is None or not 0 <= index < len(entries):
            return
        self.state = self.state.with_graph((entries[index][0], entries[index][1]))

    def _picked_pipeline(self, jobs: list[str], index: int | None) -> None:
        if index is None or not 0 <= index < len(jobs):
            return
        self.state = self.state.with_pipeline_job(jobs[index])

    # -- live updates -------------------------------------------------------------------------

    def on_unmount(self) -> None:
        self._closed = True
        self.loader.forget()
        self.detail_loader.forget()
        gc_policy.release(self)

    def cache_changed(self, changes: Changes) -> None:
        mine = set(self.train_ids)
        jobs_changed = changes.jobs() & mine
        if changes.graphs & mine or jobs_changed:
            for key in [k for k in self._built if k[0] in changes.removed]:
                del self._built[key]
            new = self._with_default_graph(self.state)
            if new != self.state:
                self.state = new  # the watcher shows it
            elif self.state.mode == "graph":
                self._refresh()
            self._update_status()
        if self.state.mode == "pipeline" and (changes.lineage & mine or jobs_changed):
            self._show_pipeline()
