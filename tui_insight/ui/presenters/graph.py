"""What the graph view shows: a graph built with the nodes under each scope counted (in the
loader's thread), its title and hint lines, the message in place of the tree, the picker's
lines and the legend, from the view's `GraphState` and what is built. Text from the files (job
names, tags, node names) is escaped: the lines are markup."""
from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Callable, Iterable, Sequence, Union

from rich.text import Text

from ...summary.formats.graph import AGGREGATION_SCOPE, NAME_SCOPE, Graph, GraphError
from ...summary.store.graph_cache import built_graph
from ...summary.store.job_view import GraphSource, JobView
from ..common.text import literal, markup
from ..state.graph import GraphState

GraphKey = tuple[str, str, bool]  # (train id, tag, optimized): what a built graph is kept under
GraphEntry = tuple[str, str, GraphSource]  # (train id, tag, where it comes from)

# What the tree and the detail pane draw, said once for `k` and `?` (plain text: no markup).
LEGEND = (
    "Node kinds in the tree:",
    "  name (12)         a name scope, with the nodes anywhere below it (bold)",
    "  Conv2D[6]_1       six sibling nodes of one type gathered (bold; _1 MindInsight's index)",
    "  conv1.weight Parameter   an operator, parameter or constant: its name, then its type (dim)",
    "  ▶ / ▼             a scope to expand / expanded;  … N more   enter shows the next ones",
    "  orange            a search match (/, n, N)",
    "Edge kinds in the detail pane:",
    "  ← input   → output   each with its shape, data type and kind (data or control)",
    "  ⇠ ⇢       proxy edges: to nodes drawn apart (independent layout)",
    "  in …/Scope        the other end lies in another scope; enter jumps to it (backspace: back)",
)

HELP_NOTE = "[b]Legend[/b] (k shows it in the detail pane)\n" + "\n".join(f"  {line}" for line in LEGEND)


@dataclass(frozen=True)
class Pick:
    """What `g` offers: the picker's title (markup), its lines, the line its cursor starts on, and
    what each line chooses: a job whose dataset pipeline to show, or a graph (train id, tag)."""

    title: str
    labels: list[Text]
    current: int
    choices: list[Union[str, tuple[str, str]]]


@dataclass
class BuiltGraph:
    """A graph read and built from `source`, or why it could not be."""

    source: GraphSource
    graph: Graph | None
    sizes: dict[str, int] = field(default_factory=dict)
    error: str = ""
    seconds: float = 0.0


def scope_sizes(graph: Graph) -> dict[str, int]:
    """{scope name: how many nodes (operators, parameters, constants) lie anywhere below it}."""
    totals: dict[str, int] = {"": 0}
    parents: dict[str, str] = {}
    leaves: list[str] = []  # the scope of each node that is not a scope
    scope_types = (NAME_SCOPE, AGGREGATION_SCOPE)
    for node in graph:
        if node.type in scope_types:
            totals[node.name] = 0
            parents[node.name] = node.scope
        else:
            leaves.append(node.scope)
    for scope in leaves:
        if scope in totals:  # always, in a graph the builder made
            totals[scope] += 1
    # Deepest scopes first (a parent's name is a prefix of its child's): each adds a finished total.
    for scope in sorted(parents, key=lambda name: name.count("/"), reverse=True):
        if parents[scope] in totals:
            totals[parents[scope]] += totals[scope]
    return totals


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


def status_part(state: GraphState) -> tuple[object, ...]:
    """What the title and hint lines show of the state (the cursor and open scopes are not)."""
    return state.mode, state.graph, state.optimized, state.pipeline_job, state.search, state.match


def no_match_text(search: str) -> str:
    """What `n`, `N` or a search say when no node name matches `search`."""
    return f"No node name matches {markup(repr(search))}" if search else "No search: press / to search node names"


def graph_entries(jobs: Iterable[JobView]) -> list[GraphEntry]:
    """Every graph of `jobs`: (train id, tag, source), each job's tags in alphabetical order."""
    return [(job.train_id, tag, job.graphs[tag]) for job in jobs for tag in sorted(job.graphs)]


def default_graph(state: GraphState, jobs: Sequence[JobView]) -> GraphState:
    """The state keeping its graph while it exists, else taking the first (MindInsight's default
    tag). While a job is still loading and no graph is known yet, the choice (maybe remembered) waits."""
    entries = [(tid, tag) for tid, tag, _ in graph_entries(jobs)]
    if not entries and any(job.state == "loading" for job in jobs):
        return state
    return state.choose_graph(entries)


def chosen_source(state: GraphState, job: Callable[[str], JobView | None]) -> GraphSource | None:
    """Where the state's graph comes from (None: no graph chosen, or its job or graph is gone)."""
    view = job(state.graph[0]) if state.graph is not None else None
    return view.graphs.get(state.graph[1]) if view is not None and state.graph is not None else None


def pipeline_jobs(jobs: Iterable[JobView]) -> list[str]:
    """The train ids of `jobs` whose lineage has a dataset graph."""
    return [job.train_id for job in jobs if job.lineage is not None and job.lineage.dataset_graph]


def pick(state: GraphState, entries: Sequence[GraphEntry], pipelines: Sequence[str], compare: bool) -> Pick | str:
    """What `g` offers in the state's mode (another job's pipeline, or another graph), or why it
    offers nothing: fewer than two to choose from."""
    if state.mode == "pipeline":
        if len(pipelines) < 2:
            return "Only one job with a dataset pipeline here" if pipelines else "No dataset pipeline here"
        current = pipelines.index(state.pipeline_job) if state.pipeline_job in pipelines else 0
        return Pick("Dataset pipeline of", [literal(tid) for tid in pipelines], current, list(pipelines))
    if len(entries) < 2:
        return "This job has only one graph" if entries else "No graph here"
    current = next((i for i, (t, g, _) in enumerate(entries) if (t, g) == state.graph), 0)
    return Pick("Show the graph", graph_labels(entries, compare), current, [(t, g) for t, g, _ in entries])


def source_text(source: GraphSource) -> str:
    """Where a graph comes from, in a few words."""
    if source.kind == "summary":
        return f"summary, step {source.step}"
    if source.kind in ("op graph", "keras", "run metadata"):
        return {"keras": "Keras model", "op graph": "traced op graph"}.get(source.kind, source.kind) + \
            f", step {source.step}"
    return f"{source.kind} file"


def no_graph_text(state: GraphState, train_ids: Sequence[str], jobs: Sequence[str], loading: bool,
                  has_entries: bool, has_pipeline: bool) -> str:
    """Why no graph is shown: the jobs are gone, loading, have none, or the chosen one went."""
    graph = state.graph
    if not jobs:
        return f"{markup(', '.join(train_ids))}: no longer in LOGDIR."
    if loading and (graph is None or not has_entries):
        return "Loading the job…"
    if graph is None:
        pipeline = "\n\nPress [b]d[/b] for the dataset pipeline." if has_pipeline else ""
        return (f"[b]{markup(', '.join(jobs))}[/b] has no computational graph: no graph record in its summary "
                f"files and no .pb file.{pipeline}")
    return f"The graph {markup(graph[1])} is no longer in {markup(graph[0])}."


def no_graph_message(state: GraphState, train_ids: Sequence[str], jobs: Sequence[JobView]) -> str:
    """`no_graph_text` for the view's `jobs`."""
    return no_graph_text(state, train_ids, [job.train_id for job in jobs], any(job.state == "loading" for job in jobs),
                         bool(graph_entries(jobs)), bool(pipeline_jobs(jobs)))


def building_text(key: GraphKey) -> str:
    return f"Building the graph [b]{markup(key[1])}[/b] of {markup(key[0])}…"


def error_text(key: GraphKey, built: BuiltGraph) -> str:
    return f"[b]The graph {markup(key[1])} of {markup(key[0])} cannot be read.[/b]\n\n{markup(built.error)}"


def no_pipeline_text(train_ids: Sequence[str], shown_job: str | None) -> str:
    where = markup(shown_job or ", ".join(train_ids))
    return (f"[b]{where}[/b] has no dataset graph in its lineage files.\n\n"
            "Press [b]d[/b] to go back to the computational graph.")


def pipeline_status(state: GraphState, operations: int, pipeline_jobs: int) -> tuple[str, str]:
    """(title, hint) over the dataset pipeline."""
    ops = operations
    title = (f"[b]Dataset pipeline[/b]  {markup(state.pipeline_job or '-')}"
             + (f"  [dim]{ops} operation{'s' if ops != 1 else ''}[/dim]" if ops else ""))
    return title, "[dim]d: back to the graph" + (" · g: another job" if pipeline_jobs > 1 else "") + "[/dim]"


def graph_status(state: GraphState, entries: Sequence[GraphEntry], source: GraphSource | None,
                 built: BuiltGraph | None, matches: int, compare: bool, has_pipeline: bool) -> tuple[str, str]:
    """(title, hint) over the graph: which graph, where from, its size and problems, normal or
    optimized, and the search with its matches. `built`: the chosen graph's build (None: building)."""
    if state.graph is None:
        return "[b]Graph[/b]  [dim]none[/dim]", "[dim]d: dataset pipeline[/dim]" if has_pipeline else ""
    tid, tag = state.graph
    where = f"{markup(tid)} · " if compare else ""
    kind = source_text(source) if source is not None else "gone"
    count = ""
    if len(entries) > 1:
        index = next((i for i, (t, g, _) in enumerate(entries) if (t, g) == state.graph), 0)
        count = f" · graph {index + 1}/{len(entries)} (g)"
    title = f"[b]Graph[/b]  {where}{markup(tag)}  [dim]{kind}{count}[/dim]"
    parts = []
    if built is None:
        parts.append("building…")
    elif built.graph is not None:
        parts.append(f"{len(built.graph):,} nodes")
        parts.extend(f"[b]{markup(problem)}[/b]" for problem in built.graph.problems)
    parts.append("[b]optimized[/b] (o)" if state.optimized else "normal (o: optimized)")
    text = markup(state.search)
    if state.search and built is None:
        parts.append(f"search [b]{text}[/b]: once the graph is built")
    elif state.search:
        parts.append(f"search [b]{text}[/b]: {state.match_label(matches)} (n/N)" if matches
                     else f"search [b]{text}[/b]: no match")
    else:
        parts.append("/ search · d dataset pipeline" if has_pipeline else "/ search")
    return title, " · ".join(parts)


def graph_labels(entries: Sequence[GraphEntry], compare: bool) -> list[Text]:
    """The graph picker's lines: (job,) tag and where the graph comes from."""
    labels = []
    for tid, tag, source in entries:
        label = Text()
        if compare:
            label.append_text(literal(f"{tid}  ", "bold"))
        label.append_text(literal(tag))
        label.append(f"  {source_text(source)}", "dim")
        labels.append(label)
    return labels
