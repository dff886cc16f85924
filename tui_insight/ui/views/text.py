"""The text view: every step of one text tag (TensorBoard's `text` plugin, `add_text`) and its
text, newest first; with several jobs, each job's steps under its name.

Keys: `[` `]` previous / next tag · `o` oldest or newest first · `m` markdown or as written.
The texts are read by the view's loader (the cache keeps where they are, not the text). They
are rendered as markdown, as TensorBoard renders them (`common.markdown`: tables, a vector or
matrix of strings as a table), or shown as written (`common.text.literal`); never read as Rich
markup either way.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from rich.console import Group, RenderableType
from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import VerticalScroll
from textual.reactive import reactive
from textual.widget import Widget
from textual.widgets import Static

from ...summary.formats.values import PayloadError
from ...summary.store.cache import SummaryCache
from ..common.markdown import cells_table, markdown
from ..common.text import literal, markup, shown
from ..loader import LoadProblem
from ..state.text import TextState
from .base import ViewSpec
from .one_tag import OneTagView

PLUGIN = "text"
HINT = "[ ] tag · o order · m raw"


@dataclass(frozen=True)
class TextStep:
    step: int
    text: str
    error: str = ""  # why the text cannot be read (then `text` is "")
    cells: tuple[tuple[str, ...], ...] = ()  # a vector or matrix of strings: rows of cells


def shown_text(entry: TextStep, raw: bool) -> RenderableType:
    """One step's text: rendered as TensorBoard renders it, or as written (`raw`)."""
    if entry.error:
        return literal(entry.error, "red")
    if raw:  # line by line: `literal` shows a newline or tab as an escape
        return Text("\n").join(literal(line) for line in entry.text.expandtabs(4).split("\n"))
    return cells_table(entry.cells) if entry.cells else markdown(entry.text)


def load_steps(cache: SummaryCache, train_id: str, tag: str) -> tuple[TextStep, ...]:
    """Every kept step of `tag` in one job with its text (runs in the loader's thread)."""
    view = cache.job(train_id)
    if view is None:
        raise LoadProblem(f"{shown(train_id)} is gone")
    series = view.series(PLUGIN, tag)
    if series is None:
        return ()
    steps = []
    for i in range(len(series)):
        step = int(series.steps[i])
        try:
            data = cache.payloads.text(view.locator(series, i))
            steps.append(TextStep(step, data.text, cells=data.cells))
        except PayloadError as exc:
            steps.append(TextStep(step, "", str(exc)))
    return tuple(steps)


class TextView(OneTagView):
    SPEC = ViewSpec("text", "Text", "8", ("text",), "job")  # `e`: the jobs' text, to text.csv
    HELP_GROUP = "Text"
    DEFAULT_CSS = """
    TextView { layout: vertical; }
    TextView #text-status { height: 1; padding: 0 1; background: $panel; }
    TextView #text-body { height: 1fr; padding: 0 1; }
    """
    BINDINGS = [
        Binding("left_square_bracket", "tag(-1)", "Previous tag", id="text.previous_tag"),
        Binding("right_square_bracket", "tag(1)", "Next tag", id="text.next_tag"),
        Binding("o", "order", "Order", id="text.order"),
        Binding("m", "raw", "Raw", id="text.raw"),
    ]

    PLUGIN = PLUGIN
    load = staticmethod(load_steps)
    state: reactive[TextState] = reactive(TextState, init=False)

    def __init__(self, cache, train_ids, **kwargs: Any):
        super().__init__(cache, train_ids, **kwargs)
        self.set_reactive(TextView.state, TextState.from_json(self.saved))
        self.by_job: dict[str, tuple[TextStep, ...]]  # per job, the shown tag's steps

    def compose(self) -> ComposeResult:
        yield Static("", id="text-status")
        with VerticalScroll(id="text-body", classes="focus-tint"):
            yield Static("", id="text-content")

    def first_focus(self) -> Widget | None:
        return self.query_one("#text-body")

    def action_order(self) -> None:
        self.state = self.state.toggle_order()

    def action_raw(self) -> None:
        self.state = self.state.toggle_raw()

    # -- drawing --------------------------------------------------------------------------------

    def _redraw(self) -> None:
        tag = self.state.tag
        tags = self.tags()
        if tag is None:
            status = "no text"
        else:
            count = sum(len(steps) for steps in self.by_job.values())
            where = f" ({tags.index(tag) + 1}/{len(tags)})" if tag in tags else ""
            order = "newest first" if self.state.newest_first else "oldest first"
            how = "as written" if self.state.raw else "markdown"
            status = f"[b]{markup(tag)}[/]{where} · {count} step{'s' if count != 1 else ''} · {how} · {order} · {HINT}"
        self.query_one("#text-status", Static).update(status)
        self.query_one("#text-content", Static).update(self._body())

    def _body(self) -> RenderableType:
        if self.state.tag is None:
            if any(not job.ready for job in self.jobs):
                return Text("loading…", style="dim")
            jobs = ", ".join(self.train_ids)
            return literal(f"No text in {jobs}. TensorBoard's text plugin writes it (add_text, tf.summary.text).",
                           "dim")
        parts: list[RenderableType] = []
        several = self.comparing
        for tid in self.train_ids:
            if several:
                parts.append(literal(tid, f"bold {self.job_colour(tid)}"))
            if tid in self.errors:
                parts += [literal(self.errors[tid], "red"), Text()]
                continue
            steps = self.by_job.get(tid)
            if steps is None or not steps:
                parts += [Text("reading…" if steps is None else "no steps of this tag", style="dim"), Text()]
                continue
            for entry in self.state.ordered(steps):
                parts += [Text(f"step {entry.step}", style="bold"), shown_text(entry, self.state.raw), Text()]
        return Group(*parts[:-1])  # the last blank line
