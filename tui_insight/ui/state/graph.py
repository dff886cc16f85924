"""The graph view's state: which graph, normal or optimized, graph or dataset pipeline, the open
scopes and the node under the cursor, the search and the match on screen, the detail cursor.

The tree widget owns its cursor and its open scopes (the user moves them key by key); the view
mirrors them here (`select`, `expand`, `collapse`) so they can be remembered and put back when
the graph is shown again (after a rebuild, `o`, or a restart). Derived data (the built graph,
the matches of a search) stays in the view, keyed by the graph it belongs to.
"""
from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any, Iterable, Sequence

from .persist import get_bool, get_str, get_strs

REMEMBERED_SCOPES = 200  # open scopes written to the workspace (parents first)
HISTORY = 100  # jumps remembered for backspace

GraphKey = tuple[str, str]  # (train id, graph tag)


def depth(name: str) -> int:
    return name.count("/")


@dataclass(frozen=True)
class GraphState:
    graph: GraphKey | None = None  # the graph shown (train id, tag: a summary tag or a .pb file)
    optimized: bool = False
    mode: str = "graph"  # or "pipeline"
    pipeline_job: str | None = None  # whose dataset pipeline `d` shows
    expanded: frozenset[str] = frozenset()  # scopes open in the tree
    selected: str | None = None  # the node under the tree's cursor
    search: str = ""
    match: int = -1  # the match the cursor was sent to (-1: none yet)
    history: tuple[str, ...] = ()  # nodes left by jumps (backspace)
    detail_row: int = -1  # the detail pane's cursor (-1: on the first input or output)

    # -- which graph ----------------------------------------------------------------------------

    def choose_graph(self, available: Sequence[GraphKey]) -> "GraphState":
        """Keep the graph while it exists, else the first one there is (MindInsight's default)."""
        if self.graph in available:
            return self
        return self.with_graph(available[0] if available else None)

    def with_graph(self, graph: GraphKey | None) -> "GraphState":
        """Another graph: its tree opens closed, at the top; the search stays."""
        if graph == self.graph:
            return self
        return replace(self, graph=graph, expanded=frozenset(), selected=None, match=-1, history=(),
                       detail_row=-1)

    def toggle_optimized(self) -> "GraphState":
        """The same graph, optimized or not: the open scopes and the cursor stay where they exist."""
        return replace(self, optimized=not self.optimized, match=-1)

    @property
    def key(self) -> tuple[str, str, bool] | None:
        """What a built graph is kept under: (train id, tag, optimized)."""
        return (*self.graph, self.optimized) if self.graph is not None else None

    # -- graph or pipeline ----------------------------------------------------------------------

    def toggle_pipeline(self, with_pipeline: Sequence[str], fallback: str | None = None) -> "GraphState":
        """`d`: the dataset pipeline (of the same job as before, else of the graph's job, else the
        first job that has one, else `fallback`), or back to the graph."""
        if self.mode == "pipeline":
            return replace(self, mode="graph")
        job = self.pipeline_job
        if job not in with_pipeline:
            preferred = self.graph[0] if self.graph is not None else None
            if preferred in with_pipeline:
                job = preferred
            else:
                job = with_pipeline[0] if with_pipeline else fallback
        return replace(self, mode="pipeline", pipeline_job=job)

    def with_pipeline_job(self, job: str) -> "GraphState":
        return self if job == self.pipeline_job else replace(self, pipeline_job=job)

    # -- the tree -------------------------------------------------------------------------------

    def select(self, name: str | None) -> "GraphState":
        """The cursor moved to `name`; the detail cursor starts again on its first input/output."""
        if name == self.selected:
            return self
        return replace(self, selected=name, detail_row=-1)

    def expand(self, name: str) -> "GraphState":
        if name in self.expanded:
            return self
        return replace(self, expanded=self.expanded | {name})

    def collapse(self, name: str) -> "GraphState":
        """`name` closed (its open children stay open inside it, as the tree keeps them)."""
        if name not in self.expanded:
            return self
        return replace(self, expanded=self.expanded - {name})

    def jump(self, name: str) -> "GraphState":
        """`enter` on an input or output: go to `name`, remembering where the cursor was."""
        if name == self.selected:
            return self
        history = self.history
        if self.selected is not None:
            history = (*history, self.selected)[-HISTORY:]
        return replace(self, selected=name, history=history, detail_row=-1)

    def back(self) -> "GraphState":
        """`backspace`: where the last jump came from (the same state when there is none)."""
        if not self.history:
            return self
        return replace(self, selected=self.history[-1], history=self.history[:-1], detail_row=-1)

    def with_detail_row(self, row: int) -> "GraphState":
        return self if row == self.detail_row else replace(self, detail_row=row)

    # -- search ---------------------------------------------------------------------------------

    def with_search(self, text: str) -> "GraphState":
        """Search `text` ("" clears): the cursor goes to the first match."""
        text = text.strip()
        return replace(self, search=text, match=0 if text else -1)

    def clear_search(self) -> "GraphState":
        if not self.search and self.match == -1:
            return self
        return replace(self, search="", match=-1)

    def step_match(self, step: int, count: int) -> "GraphState":
        """`n` (step 1) / `N` (-1) among `count` matches, wrapping around; from none: the first
        (n) or the last (N)."""
        if count <= 0:
            return self
        if 0 <= self.match < count:
            index = (self.match + step) % count
        else:
            index = 0 if step > 0 else count - 1
        return replace(self, match=index)

    def match_label(self, count: int) -> str:
        """`3/41` when the cursor was sent to a match, else `41`."""
        return f"{self.match + 1}/{count:,}" if 0 <= self.match < count else f"{count:,}"

    # -- remembered -----------------------------------------------------------------------------

    def to_json(self) -> dict[str, Any]:
        expanded = sorted(self.expanded, key=lambda name: (depth(name), name))[:REMEMBERED_SCOPES]
        data: dict[str, Any] = {"optimized": self.optimized, "expanded": expanded, "search": self.search}
        if self.graph is not None:
            data["graph"] = list(self.graph)
        if self.selected is not None:
            data["selected"] = self.selected
        return data

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> "GraphState":
        if not isinstance(data, dict):
            return cls()
        graph = get_strs(data, "graph")
        selected = get_str(data, "selected", "")
        whole = isinstance(data.get("graph"), list) and len(data["graph"]) == 2  # no item dropped
        return cls(graph=(graph[0], graph[1]) if whole and len(graph) == 2 else None,
                   optimized=get_bool(data, "optimized", False),
                   expanded=frozenset(get_strs(data, "expanded")[:REMEMBERED_SCOPES]),
                   selected=selected or None,
                   search=get_str(data, "search", "").strip())


def visible_order(names: Iterable[str]) -> list[str]:
    """Scopes parents first: the order in which to open them again."""
    return sorted(names, key=lambda name: (depth(name), name))
