"""The described view: what a terminal cannot draw, described (TensorBoard's audio, mesh and
projector dashboards). Audio clips with their sample rate, length, channels and a waveform
sparkline of the newest step; meshes with vertex and face counts and the vertices' bounds;
the projector's embeddings with their shapes and metadata columns.

Keys: `s` every kind / audio / mesh / projector · `n` `p` the point whose nearest neighbours
(cosine distance, the projector's default) are listed · `[` `]` the embedding. The loader reads each job's (the data layer's
`queries.described.describe`); what is drawn is `described_text`, a pure function.
"""
from __future__ import annotations

from functools import partial
from typing import Any

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import VerticalScroll
from textual.reactive import reactive
from textual.widget import Widget
from textual.widgets import Static

from ...summary.queries.described import Described, Neighbours, describe, has_described, neighbours, sparkline
from ...summary.store.job_view import Changes
from ..common.text import literal
from ..loader import Loaded
from ..state.described import DescribedState
from .base import DataView, ViewSpec

HINT = "s kinds · n p point · [ ] embedding"
NEIGHBOURS = 8  # nearest points listed
WAVE = 48  # sparkline columns at most


def _number(value: float) -> str:
    return f"{value:.4g}"


def described_text(described: Described, state: DescribedState, width: int) -> Text:
    """One job's audio, meshes and embeddings as lines of text, `width` columns wide."""
    out = Text()
    if state.shows("audio") and described.audio:
        out.append(f"Audio · {len(described.audio)} tag{'s' if len(described.audio) != 1 else ''}\n", "bold")
        for item in described.audio:
            out.append_text(literal(item.tag, "bold"))
            out.append(f"  step {item.step} ({item.steps} step{'s' if item.steps != 1 else ''})\n")
            if item.clip is None:
                out.append_text(literal("  " + item.error, "red"))
                out.append("\n")
                continue
            clip = item.clip
            out.append(f"  {clip.sample_rate} Hz · {clip.seconds:.3g} s · {clip.frames} frames · "
                       f"{clip.channels} channel{'s' if clip.channels != 1 else ''} · {8 * clip.sample_width}-bit\n")
            wave = sparkline(clip.samples(), max(8, min(WAVE, width - 4)))
            out.append(f"  {wave}\n" if wave else "  (no samples decoded)\n", "cyan")
        out.append("\n")
    if state.shows("mesh") and described.meshes:
        out.append(f"Mesh · {len({m.mesh for m in described.meshes})} mesh(es)\n", "bold")
        for part in described.meshes:
            out.append_text(literal(f"{part.mesh} {part.part}", "bold"))
            out.append_text(literal(f"  tag {part.tag} · step {part.step}", "dim"))
            out.append("\n")
            if part.error:
                out.append_text(literal("  " + part.error, "red"))
                out.append("\n")
                continue
            out.append(f"  {part.count} {part.part}")
            if part.bounds:
                out.append("  bounds " + "  ".join(f"{axis} [{_number(lo)}, {_number(hi)}]"
                                                   for axis, (lo, hi) in zip("xyz", part.bounds)))
            out.append("\n")
        out.append("\n")
    if state.shows("projector") and described.embeddings:
        out.append(f"Projector · {len(described.embeddings)} embedding(s)\n", "bold")
        for embedding in described.embeddings:
            out.append_text(literal(embedding.name, "bold"))
            shape = " × ".join(map(str, embedding.shape)) if embedding.shape else "shape unknown"
            out.append(f"  {shape}")
            if len(embedding.shape) == 2:
                out.append(f" ({embedding.shape[0]} points of {embedding.shape[1]} dimensions)")
            out.append("\n")
            if embedding.columns:
                out.append_text(literal("  metadata: " + ", ".join(embedding.columns), ""))
                out.append("\n")
            if embedding.error:
                out.append_text(literal("  " + embedding.error, "yellow"))
                out.append("\n")
        out.append("\n")
    if described.others and state.section == "all":
        out.append_text(literal(f"Not described: {', '.join(described.others)} (counted in the job's notes)",
                                "dim"))
    out.rstrip()
    if not out.plain:
        out.append("nothing of this kind" if described else "no audio, mesh or embeddings", "dim")
    return out


def neighbours_text(near: Neighbours) -> Text:
    """The nearest points of one point of an embedding, a line each."""
    out = Text()
    if near.error:
        out.append_text(literal(f"Nearest points of {near.embedding}: {near.error}", "yellow"))
        return out
    out.append_text(literal(f"Nearest to point {near.point} of {near.points}"
                            + (f" ({near.label})" if near.label else "") + f" · {near.embedding}", "bold"))
    for point, distance, label in near.nearest:
        out.append("\n")
        out.append_text(literal(f"  {point:>6}  {distance:.4f}  {label}"))
    return out


class DescribedView(DataView):
    SPEC = ViewSpec("described", "Described", "M", (), "job")  # M: media (a digit is each view's zoom reset)
    HELP_GROUP = "Described (audio, mesh, projector)"
    DEFAULT_CSS = """
    DescribedView { layout: vertical; }
    DescribedView #described-status { height: 1; padding: 0 1; background: $panel; }
    DescribedView #described-body { height: 1fr; padding: 0 1; }
    """
    BINDINGS = [
        Binding("s", "section", "Kinds", id="described.section"),
        Binding("n", "point(1)", "Next point", id="described.next_point"),
        Binding("p", "point(-1)", "Previous point", id="described.previous_point"),
        Binding("left_square_bracket", "embedding(-1)", "Previous embedding", id="described.previous_embedding"),
        Binding("right_square_bracket", "embedding(1)", "Next embedding", id="described.next_embedding"),
    ]

    state: reactive[DescribedState] = reactive(DescribedState, init=False)

    def __init__(self, cache, train_ids, **kwargs: Any):
        super().__init__(cache, train_ids, **kwargs)
        self.set_reactive(DescribedView.state, DescribedState.from_json(self.saved))
        self.by_job: dict[str, Described] = {}
        self.errors: dict[str, str] = {}
        self.near: dict[str, Neighbours | None] = {}  # per job, the chosen point's nearest (None: no embeddings)
        self._version = 0

    @classmethod
    def has_data(cls, job) -> bool:
        return has_described(job)

    def compose(self) -> ComposeResult:
        yield Static("", id="described-status")
        with VerticalScroll(id="described-body", classes="focus-tint"):
            yield Static("", id="described-content")

    def first_focus(self) -> Widget | None:
        return self.query_one("#described-body")

    def on_mount(self) -> None:
        self._request()
        self._redraw()
        self.ready_for_keys()

    def pending(self) -> int:
        return self.loader.pending()

    def _request(self) -> None:
        self.loader.forget()
        for tid in self.train_ids:
            self.loader.request((tid, self._version), partial(describe, self.cache, tid), partial(self._loaded, tid))
        self._request_near()

    def _request_near(self) -> None:
        state = self.state
        for tid in self.train_ids:
            self.loader.request((tid, "near"), partial(neighbours, self.cache, tid, state.embedding, state.point,
                                                       NEIGHBOURS), partial(self._near_loaded, tid, state))

    def _near_loaded(self, train_id: str, state: DescribedState, result: Loaded) -> None:
        if (state.embedding, state.point) != (self.state.embedding, self.state.point):
            return  # a newer point was asked for
        self.near[train_id] = result.value if result.ok else Neighbours("", 0, 0, "", error=result.error)
        self._redraw()

    def _first_near(self) -> Neighbours | None:
        """The first shown job's neighbours (how many points there are to move through)."""
        return next((n for tid in self.train_ids if (n := self.near.get(tid)) is not None), None)

    def action_point(self, direction: int) -> None:
        near = self._first_near()
        if near is not None:
            self.state = self.state.move_point(direction, near.points)

    def action_embedding(self, direction: int) -> None:
        count = max((len(d.embeddings) for d in self.by_job.values()), default=0)
        self.state = self.state.move_embedding(direction, count)

    def _loaded(self, train_id: str, result: Loaded) -> None:
        if result.ok:
            self.by_job[train_id] = result.value
            self.errors.pop(train_id, None)
        else:
            self.errors[train_id] = result.error
        self._redraw()

    def cache_changed(self, changes: Changes) -> None:
        ids = set(self.train_ids)
        if any(changes.tags(tid, "other") != set() for tid in ids & changes.jobs()):
            self._version += 1
            self._request()

    def action_section(self) -> None:
        self.state = self.state.next_section()

    def watch_state(self, old: DescribedState, new: DescribedState) -> None:
        if (old.embedding, old.point) != (new.embedding, new.point):
            self._request_near()
        self._redraw()
        self.remember(new)

    def _redraw(self) -> None:
        self.query_one("#described-status", Static).update(
            f"[b]{self.state.section}[/] · {HINT}")
        body = Text()
        width = max(20, self.size.width - 2)
        for tid in self.train_ids:
            if self.comparing:
                body.append_text(literal(tid, f"bold {self.job_colour(tid)}"))
                body.append("\n")
            if tid in self.errors:
                body.append_text(literal(self.errors[tid], "red"))
            elif tid in self.by_job:
                body.append_text(described_text(self.by_job[tid], self.state, width))
                near = self.near.get(tid)
                if near is not None and self.state.shows("projector"):
                    body.append("\n\n")
                    body.append_text(neighbours_text(near))
            else:
                body.append("reading…", "dim")
            body.append("\n\n")
        body.rstrip()
        self.query_one("#described-content", Static).update(body)

    def on_resize(self) -> None:
        self._redraw()  # the sparkline follows the width
