"""The profiler view's sections that are more than one widget, each shown by one call with what
the presenter made:

- `Pane`: a scrollable section of text (op types, steps, memory) that takes the keyboard so the
  arrows scroll it;
- `OpsPane`: the ops' filter box (open while it has text or the keyboard), the op table and,
  under it, the detail of the op under the cursor;
- `TimelinePane`: the trace's spans per thread and the line on the span under the cursor.
"""
from __future__ import annotations

from typing import Sequence

from rich.text import Text
from textual.app import ComposeResult
from textual.containers import Vertical, VerticalScroll
from textual.widgets import Static

from ...summary.formats.profiler import Operator, Timeline
from ..state.profiler import ProfilerState
from .on_demand_input import OnDemandInput
from .profile_table import OpTable
from .profile_timeline import TimelineChart


class Pane(VerticalScroll, can_focus=True):
    """A scrollable section (types, steps, memory): takes the keyboard so arrows scroll it."""

    HELP_GROUP = "Profiler"
    DEFAULT_CSS = "Pane { padding: 0 1; }"


class OpsPane(Vertical):
    """`#profiler-filter`, `#profiler-table` and `#profiler-op-detail`, one above the other."""

    DEFAULT_CSS = """
    OpsPane #profiler-filter { height: 1; border: none; padding: 0 1; display: none; }
    OpsPane #profiler-filter.-open { display: block; }
    OpsPane #profiler-op-detail { height: 12; padding: 0 1; border-top: solid $panel; display: none; }
    OpsPane #profiler-op-detail.-open { display: block; }
    """

    def compose(self) -> ComposeResult:
        yield OnDemandInput(placeholder="filter ops by name, type or scope (regex or text)", id="profiler-filter")
        yield OpTable(id="profiler-table")
        yield Static("", id="profiler-op-detail")

    @property
    def field(self) -> OnDemandInput:
        return self.query_one("#profiler-filter", OnDemandInput)

    def show(self, rows: Sequence[Operator], cursor: int | None, sort: tuple[str, bool], filter_text: str,
             detail: Text | None) -> None:
        """The rows with the cursor on `cursor`; the filter's text unless it is being typed; the
        op's `detail` (None: closed)."""
        self.query_one(OpTable).show(rows, cursor, sort)
        field = self.field
        field.set_class(bool(filter_text) or field.has_focus, "-open")
        if field.value != filter_text and not field.has_focus:
            field.value = filter_text
        shown = self.query_one("#profiler-op-detail", Static)
        shown.set_class(detail is not None, "-open")
        if detail is not None:
            shown.update(detail)

    def open_filter(self) -> None:
        self.field.add_class("-open")
        self.field.open()


class TimelinePane(Vertical):
    """`#profiler-timeline-chart` and under it `#profiler-span`."""

    DEFAULT_CSS = "TimelinePane #profiler-span { height: 2; padding: 0 1; background: $panel; }"

    def compose(self) -> ComposeResult:
        yield TimelineChart(id="profiler-timeline-chart")
        yield Static("", id="profiler-span")

    def show(self, timeline: Timeline | None, state: ProfilerState, message: str, span: Text) -> None:
        self.query_one(TimelineChart).show(timeline, state, message)
        self.query_one("#profiler-span", Static).update(span)
