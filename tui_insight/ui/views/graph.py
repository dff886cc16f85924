"""The graph view (`5`): a job's computational graph as a tree of name scopes, and its dataset pipeline.

- What the user chose and where they are (graph, optimized or not, graph or pipeline, open scopes,
  cursor, search) is one `GraphState` (ui/state/graph.py) in the `state` reactive.
- The graph is built (`presenters.graph.build_source`) by the view's loader, so a big graph never
  freezes the UI; builds are kept per (job, tag, optimized) and made again only when the cache says
  their source changed, out of the garbage collector's passes while the view lives (`gc_policy`).
- The panes are widgets (widgets/graph_panes.py): the tree loads a scope's children as it is
  expanded; the detail follows its cursor, a scope's edges gathered on the body's own loader.
- `/` searches names as MindInsight does (§5.3), `n`/`N` step through the matches, `o` switches
  to the optimized graph (§5.2), `g` picks among several graphs, `d` shows the dataset pipeline
  of the job's lineage (§6.4).
"""
from __future__ import annotations

from dataclasses import dataclass
from functools import partial
from typing import Any

from rich.text import Text
from textual import on
from textual.actions import SkipAction
from textual.app import ComposeResult
from textual.binding import Binding
from textual.reactive import reactive
from textual.widget import Widget
from textual.widgets import Input, OptionList, Tree

from ...summary import gc_policy
from ...summary.store.job_view import Changes, GraphSource
from ..common.focus import focus_now
from ..common.text import markup
from ..dialogs import GraphPicker
from ..loader import Loaded
from ..presenters import graph as present
from ..presenters.graph import LEGEND, BuiltGraph, GraphKey, build_source
from ..state.graph import GraphState
from ..widgets.graph_panes import GraphBody, GraphHeader
from ..widgets.graph_tree import GraphTree
from ..widgets.node_detail import DetailRow, NodeDetail
from .base import DataView, ViewSpec

__all__ = ["GraphView", "GraphPicker", "build_source"]


@dataclass(frozen=True)
class Shown:
    """The graph in the tree (built, or that could not be); its search is the body's."""

    key: GraphKey
    built: BuiltGraph


# A graph up to this many nodes has its other setting (`o`) built ahead once it is shown (a few
# ms and a few MB each); a bigger one is built when asked, behind a "building…" line.
AHEAD_GRAPH_NODES = 20_000


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
    DEFAULT_CSS = "GraphView { layout: vertical; }"

    state: reactive[GraphState] = reactive(GraphState, init=False, repaint=False)

    def __init__(self, cache, train_ids: tuple[str, ...], **kwargs: Any):
        super().__init__(cache, train_ids, **kwargs)
        self.set_reactive(GraphView.state, GraphState.from_json(self.saved))
        self._built: dict[GraphKey, BuiltGraph] = {}  # built graphs (derived data, not state)
        self._shown: Shown | None = None  # the graph in the tree
        self._closed = False  # unmounted: a build finishing now gives back what it froze

    GRAPH_ACTIONS = frozenset({"search", "next_match", "previous_match", "toggle_optimized", "jump_back"})

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        """Graph keys show dimmed in the footer (None) and do nothing while the pipeline is shown."""
        if action in self.GRAPH_ACTIONS and self.state.mode != "graph":
            return None
        return True

    # -- layout -------------------------------------------------------------------------------

    def compose(self) -> ComposeResult:
        yield GraphHeader()
        yield GraphBody(id="graph-body")

    def on_mount(self) -> None:
        self.set_reactive(GraphView.state, present.default_graph(self.state, self.jobs))
        self._refresh()  # the tree (or the message in its place) is up: the view can take the keys
        self.remember(self.state)
        self.ready_for_keys()

    @property
    def _gone(self) -> bool:
        """Detached, or being taken down (its children go first): late callbacks stop here."""
        return self._closed or not self.is_attached or not self.query(GraphTree)

    @property
    def body(self) -> GraphBody:
        return self.query_one(GraphBody)

    @property
    def graph_tree(self) -> GraphTree:
        return self.body.graph_tree

    @property
    def shown_key(self) -> GraphKey | None:
        """(train id, tag, optimized) of the graph in the tree (built, or that could not be)."""
        return self._shown.key if self._shown is not None else None

    @property
    def matches(self) -> list[str]:
        """The nodes the search matches in the graph on screen, in MindInsight's order."""
        return self.body.matches if self._tree_is_current() else []

    def first_focus(self) -> Widget | None:
        return self.body.first_focus(self.state.mode)

    def _show_pane(self, pane: str, message: str = "", detail: str | None = None) -> None:
        """Show the graph tree, the pipeline tree, or a message in their place (`GraphBody.show_pane`);
        `detail`: a message in the detail pane too."""
        if self.body.show_pane(pane, message):
            self.focus_view()
        if detail is not None:
            self.body.detail.show_message(detail)

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
        if present.status_part(old) != present.status_part(new):
            self._update_status()
        self.remember(new)

    def _tree_is_current(self) -> bool:
        """The tree shows the built graph the state asks for."""
        shown = self._shown
        return shown is not None and shown.key == self.state.key and shown.built.graph is not None

    # -- which graph --------------------------------------------------------------------------

    def _current_source(self) -> GraphSource | None:
        return present.chosen_source(self.state, self.cache.job)

    def _refresh(self) -> None:
        """Bring the panes in line with the mode, the chosen graph and what is built."""
        if self.state.mode == "pipeline":
            self._show_pipeline()
            return
        source = self._current_source()
        key = self.state.key
        if source is None or key is None:
            self._shown = None
            self.body.show_graph(None)
            self._show_pane("message", present.no_graph_message(self.state, self.train_ids, self.jobs), "No graph to show.")
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
            self._show_pane("building", present.building_text(key), "")
        # After the next paint: the message shows at once, before the build competes for the GIL.
        self.call_after_refresh(self._request_build, key, source)
        self._update_status()

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
            self._build_other_setting(key, source, built)

    def _build_other_setting(self, key: GraphKey, source: GraphSource, built: BuiltGraph) -> None:
        """The shown graph's other setting (`o`) built next on the loader, when the graph is small
        enough to hold twice: `o` then shows it in the key's own frame."""
        other = (key[0], key[1], not key[2])
        if built.graph is not None and len(built.graph) <= AHEAD_GRAPH_NODES and other not in self._built:
            self._request_build(other, source)

    def _display(self, key: GraphKey, built: BuiltGraph) -> None:
        """Put a built graph in the tree, with the state's open scopes, search and cursor."""
        previous = self._shown
        self._shown = Shown(key, built)
        if built.graph is None:
            self.body.show_graph(None)
            self._show_pane("message", present.error_text(key, built), "No graph to show.")
        else:
            self._show_pane("tree")
            if self.body.show_graph(built.graph, built.sizes, self.state, previous is not None and previous.key[:2] == key[:2]):
                self._no_match()
            self.call_after_refresh(self._update_detail)  # paint the tree first
        self._update_status()

    # -- status lines -------------------------------------------------------------------------

    def _update_status(self) -> None:
        state = self.state
        if state.mode == "pipeline":
            title, hint = present.pipeline_status(state, len(self.body.pipeline.steps), len(present.pipeline_jobs(self.jobs)))
        else:
            built = self._shown.built if self._shown is not None and self._shown.key == state.key else None
            title, hint = present.graph_status(state, present.graph_entries(self.jobs), self._current_source(), built,
                                               len(self.matches), len(self.train_ids) > 1, bool(present.pipeline_jobs(self.jobs)))
        self.query_one(GraphHeader).show(title, hint)

    # -- the detail pane ----------------------------------------------------------------------

    def _update_detail(self) -> None:
        if not self._gone:  # called after a refresh that came after the view went
            self.body.show_detail(self.state.mode, self.state.pipeline_job, self.state.detail_row)

    @on(Tree.NodeHighlighted)
    def _highlighted(self, event: Tree.NodeHighlighted) -> None:
        event.stop()
        graph_mode, name = self.state.mode == "graph", self.graph_tree.cursor_name
        if event.control is self.graph_tree and graph_mode and name is not None and self._tree_is_current():
            self.state = self.state.select(name)
        if event.control is (self.graph_tree if graph_mode else self.body.pipeline):
            self._update_detail()

    @on(Tree.NodeExpanded, "#graph-tree")
    @on(Tree.NodeCollapsed, "#graph-tree")
    def _opened_or_closed(self, event: Tree.NodeExpanded | Tree.NodeCollapsed) -> None:
        name = event.node.data
        if isinstance(name, str) and name and self._tree_is_current() and self.graph_tree.tree_node(name) is event.node:
            opened = isinstance(event, Tree.NodeExpanded)
            self.state = self.state.expand(name) if opened else self.state.collapse(name)

    @on(OptionList.OptionHighlighted, "#node-detail")
    def _detail_moved(self, event: OptionList.OptionHighlighted) -> None:
        detail = self.body.detail
        if self.state.mode == "graph" and detail.subject is not None and detail.highlighted is not None:
            self.state = self.state.with_detail_row(detail.highlighted)

    @on(NodeDetail.Jump)
    def _jump(self, event: NodeDetail.Jump) -> None:
        event.stop()
        if self.state.mode == "graph" and self.graph_tree.graph is not None:
            self._jump_to(event.name)

    def _jump_to(self, name: str) -> None:
        """Move the tree's cursor to `name` (backspace comes back), or say it is not in the graph."""
        tree = self.graph_tree
        if tree.graph is None or name not in tree.graph:
            self.notify(f"{markup(name)} is not in this graph", severity="warning")
            return
        self.state = self.state.select(tree.cursor_name).jump(name)
        tree.reveal(name)

    def show_node(self, name: str) -> None:
        """Put the cursor on `name` (another view asked, e.g. the profiler's `g` on an op): at once
        when the graph is shown, else once it is built (the selection is part of the state)."""
        trees = self.query(GraphTree)  # none before the view is composed
        if trees and self.state.mode == "graph" and self._tree_is_current() and trees.first().graph is not None:
            self._jump_to(name)
        else:  # choose the graph first: choosing one later starts its selection afresh
            self.state = present.default_graph(self.state, self.jobs).jump(name)

    def action_jump_back(self) -> None:
        if self.state.mode != "graph" or not self.state.history:
            raise SkipAction()
        self.state = self.state.back()
        if self.state.selected is not None:
            self.graph_tree.reveal(self.state.selected)  # if it is (still) in the graph

    # -- search -------------------------------------------------------------------------------

    def action_search(self) -> None:
        if self.state.mode != "graph":
            self.notify("Search works on the graph: press d to go back to it", severity="warning")
            return
        building = self._current_source() is not None and self.shown_key != self.state.key
        if self.graph_tree.graph is None and not building:  # no graph, or one that cannot be read
            self.notify("No graph to search", severity="warning")
            return
        self.query_one(GraphHeader).open_search(self.state.search)

    @on(Input.Submitted, "#graph-search")
    def _search_submitted(self, event: Input.Submitted) -> None:
        event.stop()
        self.query_one(GraphHeader).close_search()
        focus_now(self.graph_tree)
        self.run_search(event.value)

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
        if self._tree_is_current():
            if self.body.search(self.state.search):
                self._go_to_match()
            elif self.state.search:
                self._no_match()

    def _no_match(self) -> None:
        self.notify(present.no_match_text(self.state.search), severity="warning", timeout=3)

    def _go_to_match(self) -> None:
        if 0 <= self.state.match < len(self.matches):
            self.graph_tree.reveal(self.matches[self.state.match])

    def _step_match(self, step: int) -> None:
        if self.state.mode != "graph":
            raise SkipAction()
        matches = self.matches
        if not matches:
            self._no_match()
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
        header = self.query_one(GraphHeader)
        if header.searching:
            header.close_search()
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

    def action_legend(self) -> None:
        """`k`: what the marks of the tree and the detail pane mean, in the detail pane (the next
        move in the tree shows the node again)."""
        self.body.detail.show_rows([DetailRow(Text(line, "" if line.startswith(" ") else "bold")) for line in LEGEND])

    def action_toggle_pipeline(self) -> None:
        self.state = self.state.toggle_pipeline(present.pipeline_jobs(self.jobs), self.train_ids[0] if self.train_ids else None)
        self.focus_view()

    def _show_pipeline(self) -> None:
        tid = self.state.pipeline_job
        job = self.cache.job(tid) if tid else None
        dataset_graph = job.lineage.dataset_graph if job is not None and job.lineage is not None else {}
        self.body.pipeline.show_pipeline(dataset_graph or None)
        if not dataset_graph:
            self._show_pane("message", present.no_pipeline_text(self.train_ids, tid), "No dataset pipeline to show.")
        else:
            self._show_pane("pipeline")
            self._update_detail()
        self._update_status()

    def action_pick(self) -> None:
        pick = present.pick(self.state, present.graph_entries(self.jobs), present.pipeline_jobs(self.jobs), len(self.train_ids) > 1)
        if isinstance(pick, str):
            self.notify(pick, severity="warning")
            return
        self.app.push_screen(GraphPicker(pick.title, pick.labels, pick.current), partial(self._picked, pick.choices))

    def _picked(self, choices: list[Any], index: int | None) -> None:
        if index is not None and 0 <= index < len(choices):
            choice = choices[index]
            self.state = self.state.with_pipeline_job(choice) if isinstance(choice, str) else self.state.with_graph(choice)

    # -- live updates -------------------------------------------------------------------------

    def on_unmount(self) -> None:
        self._closed = True
        self.loader.forget()
        gc_policy.release(self)

    def cache_changed(self, changes: Changes) -> None:
        mine = set(self.train_ids)
        jobs_changed = changes.jobs() & mine
        if changes.graphs & mine or jobs_changed:
            for key in [k for k in self._built if k[0] in changes.removed]:
                del self._built[key]
            new = present.default_graph(self.state, self.jobs)
            if new != self.state:
                self.state = new  # the watcher shows it
            elif self.state.mode == "graph":
                self._refresh()
            self._update_status()
        if self.state.mode == "pipeline" and (changes.lineage & mine or jobs_changed):
            self._show_pipeline()
