"""The described view: what a terminal cannot draw, described (TensorBoard's audio, mesh and
projector dashboards). Audio clips with their sample rate, length, channels and a waveform
sparkline of the newest step; meshes with vertex and face counts and the vertices' bounds;
the projector's embeddings with their shapes and metadata columns.

Keys: `s` every kind / audio / mesh / projector. The loader reads each job's (the data layer's
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

from ...summary.queries.described import Described, describe, has_described, sparkline
from ...summary.store.cache import Changes
from ..common.text import literal
from ..loader import Loaded
from ..state.described import DescribedState
from .base import DataView, ViewSpec

HINT = "s kinds"
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


class DescribedView(DataView):
    SPEC = ViewSpec("described", "Described", "M", (), "job")  # M: media (a digit is each view's zoom reset)
    HELP_GROUP = "Described (audio, mesh, projector)"
    DEFAULT_CSS = """
    DescribedView { layout: vertical; }
    DescribedView #described-status { height: 1; padding: 0 1; background: $panel; }
    DescribedView #described-body { height: 1fr; padding: 0 1; }
    """
    BINDINGS = [Binding("s", "section", "Kinds", id="described.section")]

    state: reactive[DescribedState] = reactive(DescribedState, init=False)

    def __init__(self, cache, train_ids, **kwargs: Any):
        super().__init__(cache, train_ids, **kwargs)
        self.set_reactive(DescribedView.state, DescribedState.from_json(self.saved))
        self.by_job: dict[str, Described] = {}
        self.errors: dict[str, str] = {}
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

    def _loaded(self, train_id: str, result: Loaded) -> None:
        if result.ok:
            self.by_job[train_id] = result.value
            self.errors.pop(train_id, None)
        else:
            self.errors[train_id] = result.error
        self._redraw()

    def cache_changed(self, changes: Changes) -> None:
        ids = set(self.train_ids)
        if ids & (changes.added | changes.removed) or any(
                any(plugin == "other" for plugin, _ in keys) for tid, keys in changes.updated.items() if tid in ids):
            self._version += 1
            self._request()

    def action_section(self) -> None:
        self.state = self.state.next_section()

    def watch_state(self, old: DescribedState, new: DescribedState) -> None:
        self._redraw()
        self.remember(new)

    def _redraw(self) -> None:
        self.query_one("#described-status", Static).update(
            f"[b]{self.state.section}[/] · audio clips, meshes, embeddings described · {HINT}")
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
            else:
                body.append("reading…", "dim")
            body.append("\n\n")
        body.rstrip()
        self.query_one("#described-content", Static).update(body)

    def on_resize(self) -> None:
        self._redraw()  # the sparkline follows the width
