"""The graph view (`5`): a job's computational graph as a tree of name scopes, and its dataset pipeline.

- The graph is read and built (tui_insight.summary.graph) in a thread worker, so a big graph
  never freezes the UI; built graphs are kept per (job, tag, optimized) and rebuilt only when
  the cache says their source changed.
- The tree loads a scope's children when it is expanded (widgets/graph_tree.py); the detail
  pane (widgets/node_detail.py) shows the node under the cursor, and a scope's edges, which the
  model works out on first use, are gathered in a worker too.
- `/` searches names as MindInsight does (§5.3), `n`/`N` step through the matches, `o` switches
  to the optimized graph (§5.2), `g` picks among several graphs, `d` shows the dataset pipeline
  of the job's lineage (§6.4).
"""
from __future__ import annotations

import time
from dataclasses import dataclass, field
from functools import partial
from typing import Any

from rich.markup import escape
from rich.text import Text
from textual import on
from textual.actions import SkipAction
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical
from textual.screen import ModalScreen
from textual.widgets import Input, OptionList, Static, Tree
from textual.widgets.option_list import Option

from ...summary.cache import Changes, GraphSource
from ...summary.graph import Graph, GraphError, build_graph, load_graph
from .base import DataView, ViewSpec
from ..widgets.graph_tree import GraphTree, PipelineStep, PipelineTree, scope_sizes
from ..widgets.node_detail import NodeDetail, graph_node_rows, pipeline_rows
from ..common import long_lived
from ..common.focus import focus_now

def source_text(source: GraphSource) -> str:
    """Where a graph comes from, in a few words."""
    return f"summary, step {source.step}" if source.kind == "summary" else f"{source.kind} file"


REVEAL_LIMIT = 100  # matches whose scopes a search opens at once (MindInsight's page); n/N open the rest


@dataclass
class BuiltGraph:
    """A graph read and built from `source`, or why it could not be."""

    source: GraphSource
    graph: Graph | None
    sizes: dict[str, int] = field(default_factory=dict)
    error: str = ""
    seconds: float = 0.0


def build_source(source: GraphSource, optimized: bool) -> BuiltGraph:
    """Read and build one graph (slow for big graphs: call it in a worker thread)."""
    start = time.perf_counter()
    try:
        graph = build_graph(load_graph(source), optimized=optimized)
        sizes = scope_sizes(graph)
    except GraphError as exc:
        return BuiltGraph(source, None, error=str(exc))
    except Exception as exc:  # a graph we cannot understand must not take the view down
        return BuiltGraph(source, None, error=f"unexpected {type(exc).__name__}: {exc}")
    return BuiltGraph(source, graph, sizes, seconds=time.perf_counter() - start)


class GraphPicker(ModalScreen[int | None]):
    """`g`: choose one of several graphs (or pipelines); dismisses with the chosen index."""

    HELP_GROUP = "Pick a graph"
    BINDINGS = [Binding("escape", "cancel", "Cancel", id="graph_picker.cancel")]
    DEFAULT_CSS = """
    GraphPicker { align: center middle; }
    GraphPicker > Vertical {
        width: 100; max-width: 100%; height: auto; max-height: 80%;
        border: round $accent; background: $surface; padding: 0 1;
    }
    GraphPicker OptionList { height: auto; max-height: 20; border: none; }
    """

    def __init__(self, title: str, labels: list[Text], current: int):
        super().__init__()
        self.title_text = title
        self.labels = labels
        self.current = current

    def compose(self) -> ComposeResult:
        with Vertical():
            yield Static(f"[b]{escape(self.title_text)}[/b]  [dim](enter: show, escape: cancel)[/dim]")
            yield OptionList(*(Option(label) for label in self.labels), id="graph-picker-list")

    def on_mount(self) -> None:
        options = self.query_one(OptionList)
        options.highlighted = max(0, self.current)
        focus_now(options)

    @on(OptionList.OptionSelected)
    def _chosen(self, event: OptionList.OptionSelected) -> None:
        event.stop()
        self.dismiss(event.option_index)

    def action_cancel(self) -> None:
        self.dismiss(None)


class GraphView(DataView):
    SPEC = ViewSpec("graph", "Graph", "5", (), "job")
    """Graph (`5`): name-scope tree, node details, search, optimized view, dataset pipeline."""

    HELP_GROUP = "Graph"
    BINDINGS = [
        Binding("slash", "search", "Search", id="graph.search"),
        Binding("n", "next_match", "Next match", id="graph.next_match"),
        Binding("N", "previous_match", "Previous match", show=False, id="graph.previous_match"),
        Binding("o", "toggle_optimized", "Optimized", id="graph.optimized"),
        Binding("d", "toggle_pipeline", "Dataset pipeline", id="graph.dataset"),
        Binding("g", "pick", "Pick graph", id="graph.pick"),
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

    def __init__(self, cache, train_ids: tuple[str, ...], **kwargs: Any):
        super().__init__(cache, train_ids, **kwargs)
        self.mode = "graph"  # or "pipeline"
        self.optimized = False
        self.selected: tuple[str, str] | None = None  # (train id, graph tag)
        self.pipeline_job: str | None = None
        self.search_text = ""
        self.matches: list[str] = []
        self.match_index = -1
        self._built: dict[tuple[str, str, bool], BuiltGraph] = {}
        self._building: set[tuple[tuple[str, str, bool], GraphSource]] = set()
        self._shown: tuple[str, str, bool] | None = None  # the key of the graph in the tree
        self._shown_built: BuiltGraph | None = None
        self._history: list[str] = []  # nodes left by jumps, for backspace
        self._search_pending = False  # a search typed while the graph was being built
        self._detail_focus_was_forced = False  # the detail has the keyboard only because no tree was shown
        self._detail_token = 0

    GRAPH_ACTIONS = frozenset({"search", "next_match", "previous_match", "toggle_optimized", "jump_back"})

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        """Graph keys show dimmed in the footer (None) and do nothing while the pipeline is shown."""
        if action in self.GRAPH_ACTIONS and self.mode != "graph":
            return None
        return True

    # -- layout -------------------------------------------------------------------------------

    def compose(self) -> ComposeResult:
        yield Static("", id="graph-title", classes="graph-line")
        yield Static("", id="graph-hint", classes="graph-line")
        # The search box takes the hint line's place: opening it moves nothing else on the screen.
        yield Input(placeholder="/ search node names (any case, last path segment): enter finds, escape closes",
                    id="graph-search")
        with Horizontal(id="graph-body"):
            with Vertical(id="graph-left"):
                yield Static("", id="graph-message")
                yield GraphTree(id="graph-tree")
                yield PipelineTree(id="pipeline-tree")
            yield NodeDetail(id="node-detail")

    def on_mount(self) -> None:
        self.query_one("#graph-search", Input).display = False
        self._choose_default_graph()
        self._refresh()
        self.call_after_refresh(self.ready_for_keys)  # interim: the view takes the keys when ready

    @property
    def _gone(self) -> bool:
        """Detached, or being taken down (its children go first): late callbacks stop here."""
        return not self.is_attached or not self.query(GraphTree)

    @property
    def tree(self) -> GraphTree:
        return self.query_one(GraphTree)

    @property
    def pipeline(self) -> PipelineTree:
        return self.query_one(PipelineTree)

    @property
    def detail(self) -> NodeDetail:
        return self.query_one(NodeDetail)

    def focus_view(self) -> None:
        if self.mode == "pipeline":
            target = self.pipeline if self.pipeline.display else self.detail
        else:
            target = self.tree if self.tree.display else self.detail
        focus_now(target)

    def _show_pane(self, pane: str, message: str = "") -> None:
        """Show the graph tree, the pipeline tree, or a message in their place ("message").

        "building" shows a short message above the (still empty) tree, which keeps the keyboard:
        no focus moves when the graph arrives.
        """
        box = self.query_one("#graph-message", Static)
        box.update(message)
        box.display = pane in ("message", "building")
        box.set_class(pane == "building", "-short")
        self.tree.display = pane in ("tree", "building")
        self.pipeline.display = pane == "pipeline"
        focused = self.screen.focused
        if focused is not None and self in focused.ancestors and not focused.display:
            self.focus_view()  # the focused tree was just hidden
        elif focused is self.detail and pane in ("tree", "building", "pipeline") and self._detail_focus_was_forced:
            self.focus_view()
        self._detail_focus_was_forced = pane == "message"

    # -- which graph --------------------------------------------------------------------------

    def graph_entries(self) -> list[tuple[str, str, GraphSource]]:
        """Every graph of the view's jobs: (train id, tag, source), tags in alphabetical order."""
        out = []
        for job in self.jobs:
            for tag in sorted(job.graphs):
                out.append((job.train_id, tag, job.graphs[tag]))
        return out

    def _choose_default_graph(self) -> None:
        """Keep the chosen graph while it exists, else take the first (MindInsight's default tag)."""
        entries = self.graph_entries()
        if self.selected is not None and any((tid, tag) == self.selected for tid, tag, _ in entries):
            return
        self.selected = (entries[0][0], entries[0][1]) if entries else None

    def _wanted_key(self) -> tuple[str, str, bool] | None:
        return (*self.selected, self.optimized) if self.selected is not None else None  # type: ignore[return-value]

    def _current_source(self) -> GraphSource | None:
        if self.selected is None:
            return None
        job = self.cache.job(self.selected[0])
        return job.graphs.get(self.selected[1]) if job is not None else None

    def _refresh(self) -> None:
        """Bring the panes in line with the mode, the chosen graph and what is built."""
        if self.mode == "pipeline":
            self._show_pipeline()
            return
        source = self._current_source()
        if source is None:
            self._shown = None
            self._shown_built = None
            self.tree.show_graph(None)
            self._show_pane("message", self._no_graph_text())
            self.detail.show_message("No graph to show.")
            self._update_status()
            return
        key = (self.selected[0], self.selected[1], self.optimized)  # type: ignore[index]
        built = self._built.get(key)
        if built is not None and built.source == source:
            if self._shown != key or self._shown_built is not built:
                self._display(key, built)
            elif built.graph is None:
                self._show_pane("message", self._error_text(key, built))
            elif not self.tree.display:  # back from the pipeline: the tree is as the user left it
                self._show_pane("tree")
                self._update_status()
                self._update_detail()
            return
        if self._shown is None or self._shown_built is None or self._shown_built.graph is None:
            self._show_pane("building", f"Building the graph [b]{escape(key[1])}[/b] of {escape(key[0])}…")
            self.detail.show_message("")
        # After the next paint: the message shows at once, before the build competes for the GIL.
        self.call_after_refresh(self._start_build, key, source)
        self._update_status()

    def _no_graph_text(self) -> str:
        if not self.jobs:
            return f"{escape(', '.join(self.train_ids))}: no longer in LOGDIR."
        if self.selected is None and any(job.state == "loading" for job in self.jobs):
            return "Loading the job…"
        if self.selected is None:
            names = ", ".join(job.train_id for job in self.jobs)
            return (f"[b]{escape(names)}[/b] has no computational graph: no graph record in its summary "
                    "files and no .pb file.\n\nPress [b]d[/b] for the dataset pipeline.")
        return f"The graph {escape(self.selected[1])} is no longer in {escape(self.selected[0])}."

    # -- building -----------------------------------------------------------------------------

    def _start_build(self, key: tuple[str, str, bool], source: GraphSource) -> None:
        if self._gone or (key, source) in self._building:
            return
        self._building.add((key, source))
        self.run_worker(partial(self._build_in_thread, key, source), thread=True, group="graph-build",
                        exit_on_error=False)

    def _build_in_thread(self, key: tuple[str, str, bool], source: GraphSource) -> None:
        with long_lived.made_by(self):  # the graph lives as long as the view: keep it out of GC passes
            built = build_source(source, key[2])
        try:
            self.app.call_from_thread(self._graph_built, key, built)
        except RuntimeError:
            long_lived.release(self)  # the app is closing

    def _graph_built(self, key: tuple[str, str, bool], built: BuiltGraph) -> None:
        if self._gone:  # the dashboard closed while the graph was being built
            long_lived.release(self)
            return
        self._building.discard((key, built.source))
        self._built[key] = built
        if self.mode == "graph" and self.selected is not None and key == (*self.selected, self.optimized):
            if built.source == self._current_source():
                self._display(key, built)

    def _display(self, key: tuple[str, str, bool], built: BuiltGraph) -> None:
        tree = self.tree
        same_graph = self._shown is not None and self._shown[:2] == key[:2]
        expanded = tree.expanded_names() if same_graph else []
        cursor = tree.cursor_name if same_graph else None
        self._shown, self._shown_built = key, built
        graph = built.graph
        if graph is None:
            tree.show_graph(None)
            self._show_pane("message", self._error_text(key, built))
            self.detail.show_message("No graph to show.")
            self.matches, self.match_index = [], -1
            self._update_status()
            return
        self.matches = graph.search(self.search_text) if self.search_text else []
        self.match_index = -1
        if not same_graph:
            self._history.clear()
        tree.show_graph(graph, built.sizes, self.matches)
        self._show_pane("tree")
        for name in expanded:  # the user's open scopes, where they still exist
            node = tree.reveal(name, move=False) if name in graph else None
            if node is not None and node.allow_expand:
                tree.load_children(node)
                node.expand()
        if cursor is not None:
            while cursor and cursor not in graph:
                cursor = cursor.rpartition("/")[0]
            if cursor:
                tree.reveal(cursor)
        if self._search_pending:
            self.run_search(self.search_text)
        self._update_status()
        self.call_after_refresh(self._update_detail)  # paint the tree first

    @staticmethod
    def _error_text(key: tuple[str, str, bool], built: BuiltGraph) -> str:
        return f"[b]The graph {escape(key[1])} of {escape(key[0])} cannot be read.[/b]\n\n{escape(built.error)}"

    # -- status lines -------------------------------------------------------------------------

    def _update_status(self) -> None:
        title = self.query_one("#graph-title", Static)
        hint = self.query_one("#graph-hint", Static)
        compare = len(self.train_ids) > 1
        if self.mode == "pipeline":
            tid = self.pipeline_job
            ops = len(self.pipeline.steps)
            title.update(f"[b]Dataset pipeline[/b]  {escape(tid or '-')}"
                         + (f"  [dim]{ops} operation{'s' if ops != 1 else ''}[/dim]" if ops else ""))
            hint.update("[dim]d: back to the graph"
                        + (" · g: another job" if len(self._pipeline_jobs()) > 1 else "") + "[/dim]")
            return
        entries = self.graph_entries()
        if self.selected is None:
            title.update("[b]Graph[/b]  [dim]none[/dim]")
            hint.update("[dim]d: dataset pipeline[/dim]")
            return
        tid, tag = self.selected
        source = self._current_source()
        where = f"{escape(tid)} · " if compare else ""
        kind = source_text(source) if source is not None else "gone"
        count = ""
        if len(entries) > 1:
            index = next((i for i, (t, g, _) in enumerate(entries) if (t, g) == self.selected), 0)
            count = f" · graph {index + 1}/{len(entries)} (g)"
        title.update(f"[b]Graph[/b]  {where}{escape(tag)}  [dim]{kind}{count}[/dim]")
        parts = []
        key = (tid, tag, self.optimized)
        built = self._shown_built if self._shown == key else None
        if built is None:
            parts.append("building…")
        elif built.graph is not None:
            parts.append(f"{len(built.graph):,} nodes")
        parts.append("[b]optimized[/b] (o)" if self.optimized else "normal (o: optimized)")
        if self.search_text and self._search_pending:
            parts.append(f"search [b]{escape(self.search_text)}[/b]: once the graph is built")
        elif self.search_text:
            if self.matches:
                at = f"{self.match_index + 1}/" if self.match_index >= 0 else ""
                parts.append(f"search [b]{escape(self.search_text)}[/b]: {at}{len(self.matches):,} (n/N)")
            else:
                parts.append(f"search [b]{escape(self.search_text)}[/b]: no match")
        else:
            parts.append("/ search · d dataset pipeline")
        hint.update(" · ".join(parts))

    # -- the detail pane ----------------------------------------------------------------------

    def _update_detail(self) -> None:
        if self._gone:
            return  # called after a refresh that came after the view went
        if self.mode == "pipeline":
            node = self.pipeline.cursor_node
            step = node.data if node is not None else None
            if isinstance(step, PipelineStep):
                self.detail.show_rows(pipeline_rows(step), ("pipeline", self.pipeline_job, step.path))
            elif node is not None:
                self.detail.show_message(f"{node.label.plain}: the operations listed under it feed this input.")
            return
        tree = self.tree
        graph, name = tree.graph, tree.cursor_name
        if graph is None or name is None or name not in graph:
            if graph is not None and tree.cursor_node is not None:
                self.detail.show_message("Press enter to show more of this scope.")
            return
        node = graph.node(name)
        subject = (id(graph), name)
        self._detail_token += 1
        if not node.is_scope:
            self.detail.show_rows(graph_node_rows(graph, node, tree.sizes), subject)
            return
        # A scope's edges are gathered from its whole subtree the first time: do it off the UI thread.
        if self.detail.subject != subject:
            self.detail.show_message(f"{name}\n\ngathering the edges of this scope…")
        self.run_worker(partial(self._detail_in_thread, self._detail_token, graph, node, tree.sizes, subject),
                        thread=True, group="graph-detail", exit_on_error=False)

    def _detail_in_thread(self, token: int, graph: Graph, node, sizes: dict[str, int], subject: object) -> None:
        try:
            rows = graph_node_rows(graph, node, sizes)
        except Exception as exc:  # never a traceback in the pane
            rows = None
            problem = f"{node.name}: {exc}"
        try:
            if rows is None:
                self.app.call_from_thread(self._detail_failed, token, problem)
            else:
                self.app.call_from_thread(self._detail_ready, token, rows, subject)
        except RuntimeError:
            pass

    def _detail_ready(self, token: int, rows, subject: object) -> None:
        if token == self._detail_token and not self._gone:
            self.detail.show_rows(rows, subject)

    def _detail_failed(self, token: int, problem: str) -> None:
        if token == self._detail_token and not self._gone:
            self.detail.show_message(problem)

    @on(Tree.NodeHighlighted)
    def _highlighted(self, event: Tree.NodeHighlighted) -> None:
        event.stop()
        if (event.control is self.tree) == (self.mode == "graph"):
            self._update_detail()

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
        tree = self.tree
        if self.mode != "graph" or tree.graph is None:
            return
        if event.name not in tree.graph:
            self.notify(f"{event.name} is not in this graph", severity="warning")
            return
        here = tree.cursor_name
        if here and here != event.name:
            self._history.append(here)
        tree.reveal(event.name)

    def action_jump_back(self) -> None:
        tree = self.tree
        if self.mode != "graph" or not self._history:
            raise SkipAction()
        name = self._history.pop()
        if tree.graph is not None and name in tree.graph:
            tree.reveal(name)

    # -- search -------------------------------------------------------------------------------

    def action_search(self) -> None:
        if self.mode != "graph":
            self.notify("Search works on the graph: press d to go back to it", severity="warning")
            return
        building = self._current_source() is not None and self._shown != self._wanted_key()
        if self.tree.graph is None and not building:  # no graph, or one that cannot be read
            self.notify("No graph to search", severity="warning")
            return
        box = self.query_one("#graph-search", Input)
        box.value = self.search_text
        self.query_one("#graph-hint", Static).display = False
        box.display = True
        self.screen.set_focus(box)  # now, not later: the keys typed right after `/` must reach it

    @on(Input.Submitted, "#graph-search")
    def _search_submitted(self, event: Input.Submitted) -> None:
        event.stop()
        self._close_search_box()
        focus_now(self.tree)
        self.run_search(event.value.strip())

    def _close_search_box(self) -> None:
        self.query_one("#graph-search", Input).display = False
        self.query_one("#graph-hint", Static).display = True

    def run_search(self, text: str) -> None:
        """Find `text` (MindInsight's rule), open the scopes of the matches, go to the first."""
        tree = self.tree
        graph = tree.graph
        self.search_text = text
        if graph is None or self._shown != self._wanted_key():
            self._search_pending = True  # still building: search once it is shown
            self._update_status()
            return
        self._search_pending = False
        self.matches = graph.search(text) if text else []
        tree.set_matches(self.matches)
        self.match_index = -1
        for name in self.matches[:REVEAL_LIMIT]:
            tree.reveal(name, move=False)
        if self.matches:
            self._go_to_match(0)
        elif text:
            self.notify(f"No node name matches {text!r}", severity="warning", timeout=3)
        self._update_status()

    def _go_to_match(self, index: int) -> None:
        self.match_index = index % len(self.matches)
        self.tree.reveal(self.matches[self.match_index])
        self._update_status()

    def _step_match(self, step: int) -> None:
        if self.mode != "graph":
            raise SkipAction()
        if not self.matches:
            self.notify("No search: press / to search node names" if not self.search_text
                        else f"No node name matches {self.search_text!r}", severity="warning", timeout=3)
            return
        self._go_to_match(self.match_index + step if self.match_index >= 0 else (0 if step > 0 else -1))

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
        if not self.search_text:
            raise SkipAction()  # escape goes back to the job list
        self.search_text = ""
        self.matches, self.match_index = [], -1
        self.tree.set_matches(())
        self._update_status()

    # -- optimized, pipeline, picker ------------------------------------------------------------

    def action_toggle_optimized(self) -> None:
        if self.mode != "graph":
            self.notify("o switches the graph between normal and optimized: press d to go back to it",
                        severity="warning")
            return
        self.optimized = not self.optimized
        self._refresh()
        self._update_status()

    def _pipeline_jobs(self) -> list[str]:
        return [job.train_id for job in self.jobs if job.lineage is not None and job.lineage.dataset_graph]

    def action_toggle_pipeline(self) -> None:
        self.call_after_refresh(self.refresh_bindings)  # the footer dims the graph keys in the pipeline
        if self.mode == "pipeline":
            self.mode = "graph"
            self._refresh()
            self._update_status()
            self.focus_view()
            return
        self.mode = "pipeline"
        with_pipeline = self._pipeline_jobs()
        if self.pipeline_job not in with_pipeline:
            preferred = self.selected[0] if self.selected else None
            self.pipeline_job = preferred if preferred in with_pipeline else (
                with_pipeline[0] if with_pipeline else (self.train_ids[0] if self.train_ids else None))
        self._show_pipeline()
        self.focus_view()

    def _show_pipeline(self) -> None:
        tid = self.pipeline_job
        job = self.cache.job(tid) if tid else None
        dataset_graph = job.lineage.dataset_graph if job is not None and job.lineage is not None else {}
        if not dataset_graph:
            self.pipeline.show_pipeline(None)
            where = escape(tid or ", ".join(self.train_ids))
            self._show_pane("message", f"[b]{where}[/b] has no dataset graph in its lineage files.\n\n"
                                       "Press [b]d[/b] to go back to the computational graph.")
            self.detail.show_message("No dataset pipeline to show.")
        else:
            self.pipeline.show_pipeline(dataset_graph)
            self._show_pane("pipeline")
            self._update_detail()
        self._update_status()

    def action_pick(self) -> None:
        if self.mode == "pipeline":
            jobs = self._pipeline_jobs()
            if len(jobs) < 2:
                self.notify("Only one job with a dataset pipeline here" if jobs else "No dataset pipeline here",
                            severity="warning")
                return
            labels = [Text(tid) for tid in jobs]
            current = jobs.index(self.pipeline_job) if self.pipeline_job in jobs else 0
            self.app.push_screen(GraphPicker("Dataset pipeline of", labels, current),
                                 partial(self._picked_pipeline, jobs))
            return
        entries = self.graph_entries()
        if len(entries) < 2:
            self.notify("This job has only one graph" if entries else "No graph here", severity="warning")
            return
        compare = len(self.train_ids) > 1
        labels = []
        for tid, tag, source in entries:
            label = Text()
            if compare:
                label.append(f"{tid}  ", "bold")
            label.append(tag)
            label.append(f"  {source_text(source)}", "dim")
            labels.append(label)
        current = next((i for i, (t, g, _) in enumerate(entries) if (t, g) == self.selected), 0)
        self.app.push_screen(GraphPicker("Show the graph", labels, current), partial(self._picked_graph, entries))

    def _picked_graph(self, entries: list[tuple[str, str, GraphSource]], index: int | None) -> None:
        if index is None or not 0 <= index < len(entries):
            return
        self.selected = (entries[index][0], entries[index][1])
        self._refresh()
        self._update_status()

    def _picked_pipeline(self, jobs: list[str], index: int | None) -> None:
        if index is None or not 0 <= index < len(jobs):
            return
        self.pipeline_job = jobs[index]
        self._show_pipeline()

    # -- live updates -------------------------------------------------------------------------

    def on_unmount(self) -> None:
        long_lived.release(self)

    def cache_changed(self, changes: Changes) -> None:
        mine = set(self.train_ids)
        jobs_changed = (changes.added | changes.removed | set(changes.updated)) & mine
        if changes.graphs & mine or jobs_changed:
            for key in [k for k in self._built if k[0] in changes.removed]:
                del self._built[key]
            self._choose_default_graph()
            if self.mode == "graph":
                self._refresh()
            self._update_status()
        if self.mode == "pipeline" and (changes.lineage & mine or jobs_changed):
            self._show_pipeline()

