"""The profiler view (`7`): a job's performance profile in five sections.

- **Operator types**: time share per op type as bars (top 20 and "other"), with calls,
  calls per step, total and average milliseconds.
- **Operators**: every op in a table sortable by any column (`s`/`S` column, `r` direction),
  `/` filters by name, type or scope (substring or regex), `enter` shows the op's calls over
  time and its input shapes, `g` asks the dashboard for the op's node in the graph view.
- **Steps**: time per step from the execute timestamps (graph mode: the k-th call of each op is
  step k; the view says so), the first step (compilation) marked.
- **Memory** (when the profile has allocator samples): allocated / reserved / active bytes over
  time, the peak marked.
- **Timeline**: `trace_view.json`'s spans per thread (`profile_timeline.TimelineChart`).

`c` shows the profiler across ranks (`profiler_cluster.ClusterPanel`) when the job is one of
several ranks, and back. `[`/`]` change section, `p` picks a profile when the job has several (newest first). Reading
goes through the loader and `summary.profiler` (the data layer reads the files): the profile
without its shapes and trace first, then the shapes, and the trace when the timeline is shown.
What could not be read is named on a line of its own; the rest shows.
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
from textual.message import Message
from textual.reactive import reactive
from textual.widget import Widget
from textual.widgets import Input, Static

from ...summary.formats import profiler as data
from ...summary.formats import profiler_calls
from ...summary.formats.profiler import Profile, ProfileRef, Shapes, Timeline
from ...summary.queries import profiler as profile_queries
from ...summary.store.job_view import Changes
from ..common.focus import focus_now
from ..common.memo import Memo
from ..common.text import literal
from ..dialogs import ListPicker
from ..loader import Loaded
from ..presenters import profiler as present
from ..presenters.profiler import STEP_NOTE
from ..state.profiler import SECTIONS, ProfilerState
from ..widgets.on_demand_input import OnDemandInput
from ..widgets.profile_panes import OpsPane, Pane, TimelinePane
from ..widgets.profile_table import OpTable
from .base import DataView, ViewSpec
from .profiler_cluster import ClusterPanel
from .profiler_reading import find_refs, open_profile, read_timeline


class ProfilePicker(ListPicker):
    """`p`: choose one of the job's profiles (newest first)."""

    HELP_GROUP = "Pick a profile"
    BINDINGS = [Binding("escape", "cancel", "Cancel", id="profile_picker.cancel")]

    def __init__(self, labels: list[Text], current: int):
        super().__init__("Profiles, newest first", labels, current, "profile-picker-list")


class ProfilerView(DataView):
    SPEC = ViewSpec("profiler", "Profiler", "7", (), "job")
    HELP_GROUP = "Profiler"
    DEFAULT_CSS = """
    ProfilerView { layout: vertical; }
    ProfilerView #profiler-status { height: 1; padding: 0 1; background: $panel; }
    ProfilerView #profiler-tabs { height: 1; padding: 0 1; }
    ProfilerView #profiler-problems { height: auto; max-height: 4; padding: 0 1; color: $warning; display: none; }
    ProfilerView .section { height: 1fr; display: none; }
    ProfilerView .section.-shown { display: block; }
    ProfilerView #profiler-empty { height: 1fr; padding: 1 2; color: $text-muted; display: none; }
    ProfilerView.-cluster .section.-shown, ProfilerView.-cluster #profiler-empty { display: none; }
    ProfilerView.-cluster ClusterPanel { display: block; }
    """
    # The footer shows keys in this order while they fit: at 80 columns `]`, `c` and `p` (`[` is
    # left to the section bar's "[ ] change section" and the help: `]` alone goes round them all).
    BINDINGS = [
        Binding("right_square_bracket", "section(1)", "Next section", id="profiler.next_section"),
        Binding("left_square_bracket", "section(-1)", "Previous section", show=False, id="profiler.previous_section"),
        Binding("c", "cluster", "Across ranks", id="profiler.cluster"),
        Binding("p", "pick", "Pick profile", id="profiler.pick"),
        Binding("slash", "filter", "Filter ops", id="profiler.filter"),
        Binding("s", "sort(1)", "Sort column", id="profiler.sort_next"),
        Binding("S", "sort(-1)", "Sort column back", show=False, id="profiler.sort_previous"),
        Binding("r", "reverse", "Reverse order", id="profiler.reverse"),
        Binding("g", "graph_node", "Op in graph", id="profiler.graph_node"),
        Binding("escape", "leave", "Close detail", show=False, id="profiler.leave"),
    ]

    @dataclass
    class ShowNode(Message):
        """Asks the dashboard to show `node` (an op's full name) in the graph view of `train_id`."""

        train_id: str
        node: str

    state: reactive[ProfilerState] = reactive(ProfilerState, init=False)

    def __init__(self, cache, train_ids, **kwargs: Any):
        super().__init__(cache, train_ids, **kwargs)
        self.set_reactive(ProfilerView.state, ProfilerState.from_json(self.saved))
        self.refs: list[tuple[str, ProfileRef]] | None = None  # None: still looking
        self.profile: Profile | None = None
        self.shapes: Shapes | None = None
        self.timeline: Timeline | None = None
        self.error = ""  # why no profile shows
        self.timeline_error = ""
        self._rows: Memo[list[data.Operator]] = Memo()  # the op table's, new with each profile
        self._steps: profile_queries.StepTimes | None = None

    @classmethod
    def has_data(cls, job) -> bool:
        return bool(job.profile_dirs)  # discovery's profile directories: no Profiler tab without one

    # -- building -----------------------------------------------------------------------------------

    def compose(self) -> ComposeResult:
        yield Static("", id="profiler-status")
        yield Static("", id="profiler-tabs")
        yield Static("", id="profiler-problems")
        yield Static("", id="profiler-empty")
        with Pane(id="profiler-types", classes="section"):
            yield Static("", id="profiler-types-chart")
        yield OpsPane(id="profiler-ops", classes="section")
        with Pane(id="profiler-steps", classes="section"):
            yield Static("", id="profiler-steps-chart")
        with Pane(id="profiler-memory", classes="section"):
            yield Static("", id="profiler-memory-chart")
        yield TimelinePane(id="profiler-timeline", classes="section")
        yield ClusterPanel(id="profiler-cluster")

    def on_mount(self) -> None:
        self._redraw()
        self.loader.request("refs", partial(find_refs, self.cache, self.train_ids), self._found)
        self.ready_for_keys()

    def first_focus(self) -> Widget | None:
        target = {"types": "#profiler-types", "ops": "#profiler-table", "steps": "#profiler-steps",
                  "memory": "#profiler-memory", "timeline": "#profiler-timeline-chart"}[self.state.section]
        found = self.query(target)
        return found.first() if found else None

    # -- loading ------------------------------------------------------------------------------------

    def current_ref(self) -> tuple[str, ProfileRef] | None:
        if not self.refs:
            return None
        for tid, ref in self.refs:
            if ref.key == self.state.profile:
                return tid, ref
        return self.refs[0]

    def _found(self, result: Loaded) -> None:
        if not result.ok:
            self.refs, self.error = [], result.error
        else:
            self.refs = result.value
            self.error = "" if self.refs else present.NO_PROFILE
        self._open()

    def _open(self) -> None:
        chosen = self.current_ref()
        self.profile, self.shapes, self.timeline, self.timeline_error = None, None, None, ""
        self._rows, self._steps = Memo(), None
        if chosen is not None:
            self.loader.request("profile", partial(open_profile, chosen[1]), partial(self._opened, chosen[1].key))
        self._redraw()

    def _opened(self, key: str, result: Loaded) -> None:
        chosen = self.current_ref()
        if chosen is None or chosen[1].key != key:
            return
        if not result.ok:
            self.error = result.error
            self._redraw()
            return
        self.profile = result.value
        self.set_reactive(ProfilerView.state, self.state.settled(self.sections()))
        ref = chosen[1]
        if self.profile.calls_read:
            self._calls_ready(ref)
        else:
            self.loader.request("calls", partial(data.load_calls, ref), partial(self._calls_read, key))
        if self.state.section == "timeline":
            self._ask_timeline()
        self._redraw()

    def _calls_read(self, key: str, result: Loaded) -> None:
        chosen = self.current_ref()
        if chosen is None or chosen[1].key != key or self.profile is None:
            return
        calls, problems = result.value if result.ok else (profiler_calls.Calls(), (f"execute timestamps: {result.error}",))
        self.profile = data.with_calls(self.profile, calls, problems)
        self._calls_ready(chosen[1])
        self._redraw()

    def _calls_ready(self, ref: ProfileRef) -> None:
        assert self.profile is not None
        self._steps = profile_queries.step_times(self.profile.calls)
        self.loader.request("shapes", partial(data.load_shapes, ref, self.profile),
                            partial(self._shapes_read, ref.key))

    def _shapes_read(self, key: str, result: Loaded) -> None:
        chosen = self.current_ref()
        if chosen is None or chosen[1].key != key:
            return
        self.shapes = result.value if result.ok else Shapes({}, True, (f"shapes: {result.error}",))
        self._redraw()

    def _ask_timeline(self) -> None:
        chosen = self.current_ref()
        if chosen is None or self.timeline is not None or self.loader.is_wanted("timeline"):
            return
        ref = chosen[1]

        def done(result: Loaded) -> None:
            now = self.current_ref()
            if now is None or now[1].key != ref.key:
                return
            if result.ok:
                self.timeline = result.value
            else:
                self.timeline_error = result.error
                self.timeline = Timeline()
            self._redraw()

        self.loader.request("timeline", partial(read_timeline, ref), done)

    def pending(self) -> int:
        return self.loader.pending()

    # -- state --------------------------------------------------------------------------------------

    def sections(self) -> list[str]:
        has_memory = self.profile is not None and self.profile.memory is not None and len(self.profile.memory) > 0
        return [s for s in SECTIONS if s != "memory" or has_memory]

    def watch_state(self, old: ProfilerState, new: ProfilerState) -> None:
        if old.profile != new.profile:
            self._open()
        elif old.section != new.section:
            if new.section == "timeline":
                self._ask_timeline()
            self._redraw()
            target = self.first_focus()
            if target is not None:
                focus_now(target)
        else:
            self._redraw()
        self.remember(new)

    def timeline_state(self, state: ProfilerState) -> None:
        """What the timeline's keys call."""
        self.state = state

    def rows(self) -> list[data.Operator]:
        """The op table's rows for the current state (kept while profile, sort and filter stay)."""
        profile = self.profile
        if profile is None:
            return []
        state = self.state
        return self._rows.get((id(profile), state.sort, state.descending, state.filter),
                              lambda: state.ops(profile.operators))

    # -- drawing ------------------------------------------------------------------------------------

    def _redraw(self) -> None:
        if not self.is_mounted:
            return
        state = self.state
        self._draw_status()
        self.query_one("#profiler-tabs", Static).update(present.tabs_text(self.sections(), state.section))
        problems = present.problems(self.profile, self.shapes, self.timeline, state.section)
        problems_widget = self.query_one("#profiler-problems", Static)
        problems_widget.display = bool(problems)
        if problems:
            problems_widget.update(literal("could not read: " + "; ".join(problems)))
        empty = self.query_one("#profiler-empty", Static)
        showing = self.profile is not None
        empty.display = not showing
        if not showing:
            waiting = "looking for profiles…" if self.refs is None else "reading the profile…"
            empty.update(literal(self.error or waiting))
        for section in SECTIONS:
            self.query_one(f"#profiler-{section}").set_class(showing and section == state.section, "-shown")
        if not showing:
            return
        {"types": self._draw_types, "ops": self._draw_ops, "steps": self._draw_steps,
         "memory": self._draw_memory, "timeline": self._draw_timeline}[state.section]()

    def _draw_status(self) -> None:
        self.query_one("#profiler-status", Static).update(present.status_text(
            self.current_ref(), len(self.refs or ()), self.profile, len(self.train_ids) == 1, bool(self.loader.pending())))

    def _width(self) -> int:
        return max(20, self.size.width - 4)

    def _draw_types(self) -> None:
        assert self.profile is not None
        self.query_one("#profiler-types-chart", Static).update(present.types_text(self.profile, self._width()))

    def _draw_ops(self) -> None:
        state = self.state
        rows = self.rows()
        index = state.cursor_index(rows)
        self.query_one(OpsPane).show(rows, index, (state.sort, state.descending), state.filter,
                                     self.op_detail(rows[index]) if state.detail and index is not None else None)

    def op_detail(self, op: data.Operator) -> Text:
        assert self.profile is not None
        return present.op_detail(op, self.profile, self.shapes, self._width())

    def _draw_steps(self) -> None:
        self.query_one("#profiler-steps-chart", Static).update(present.steps_text(self._steps, self._width()))

    def _draw_memory(self) -> None:
        memory = self.profile.memory if self.profile else None
        self.query_one("#profiler-memory-chart", Static).update(
            present.memory_text(memory, self._width(), self.app.no_color))

    def _draw_timeline(self) -> None:
        message = self.timeline_error or ("reading trace_view.json…" if self.timeline is None else "no spans")
        self.query_one(TimelinePane).show(self.timeline, self.state, message,
                                          present.span_text(self.state, self.timeline))

    # -- events and actions -------------------------------------------------------------------------

    def on_resize(self) -> None:
        self._redraw()

    @on(OpTable.Moved)
    def _table_moved(self, event: OpTable.Moved) -> None:
        event.stop()
        rows = self.rows()
        if 0 <= event.index < len(rows):
            self.state = self.state.with_cursor(rows[event.index].full_name)

    @on(OpTable.Chosen)
    def _table_chosen(self, event: OpTable.Chosen) -> None:
        event.stop()
        rows = self.rows()
        if 0 <= event.index < len(rows):
            self.state = self.state.with_cursor(rows[event.index].full_name).toggle_detail()

    @on(Input.Changed, "#profiler-filter")
    def _filter_changed(self, event: Input.Changed) -> None:
        event.stop()
        self.state = self.state.with_filter(event.value)

    @on(Input.Submitted, "#profiler-filter")
    def _filter_done(self, event: Input.Submitted) -> None:
        event.stop()
        focus_now(self.query_one(OpTable))
        self._redraw()

    def action_section(self, move: int) -> None:
        self.state = self.state.next_section(self.sections(), move)

    def action_cluster(self) -> None:
        """`c`: the cluster table of the ranks this job is one of, and back."""
        shown = not self.has_class("-cluster")
        self.set_class(shown, "-cluster")
        panel = self.query_one(ClusterPanel)
        if shown:
            chosen = self.current_ref()
            panel.show_for(self.cache, self.loader, chosen[0] if chosen else self.train_ids[0])
        target = panel if shown else self.first_focus()
        if target is not None:
            focus_now(target)

    def action_pick(self) -> None:
        if not self.refs or len(self.refs) < 2:
            self.notify("this job has one profile" if self.refs else "no profile to pick", timeout=2)
            return
        chosen = self.current_ref()
        labels = present.picker_labels(self.refs, self.comparing)
        current = next((i for i, item in enumerate(self.refs) if chosen and item[1].key == chosen[1].key), 0)

        def picked(index: int | None) -> None:
            if index is not None and self.refs and 0 <= index < len(self.refs):
                self.state = self.state.with_profile(self.refs[index][1].key)

        self.app.push_screen(ProfilePicker(labels, current), picked)

    def action_filter(self) -> None:
        if self.profile is None:
            return
        self.state = self.state.with_section("ops")
        self.query_one(OpsPane).open_filter()

    def action_sort(self, move: int) -> None:
        if self.state.section != "ops":
            raise SkipAction()
        self.state = self.state.next_sort(move)

    def action_reverse(self) -> None:
        if self.state.section != "ops":
            raise SkipAction()
        self.state = self.state.sorted_by(self.state.sort)

    def action_graph_node(self) -> None:
        rows = self.rows()
        index = self.state.cursor_index(rows)
        chosen = self.current_ref()
        if self.state.section != "ops" or index is None or chosen is None:
            raise SkipAction()
        self.post_message(self.ShowNode(chosen[0], rows[index].full_name))

    def action_leave(self) -> None:
        if self.state.section == "ops" and self.state.detail:
            self.state = self.state.toggle_detail()
            return
        if self.state.section == "ops" and self.state.filter:
            self.state = self.state.with_filter("")
            self.query_one("#profiler-filter", OnDemandInput).value = ""
            return
        raise SkipAction()

    # -- live updates and export --------------------------------------------------------------------

    def cache_changed(self, changes: Changes) -> None:
        mine = set(self.train_ids)
        if mine & (changes.added | changes.removed) and not self.loader.is_wanted("refs"):
            self.loader.request("refs", partial(find_refs, self.cache, self.train_ids), self._refound)

    def _refound(self, result: Loaded) -> None:
        old = [ref.key for _, ref in self.refs or ()]
        if result.ok and [ref.key for _, ref in result.value] != old:
            self._found(result)

    def export_scope(self) -> dict[str, Any]:
        return {"train_ids": list(self.train_ids), "plugins": {"profiler"}}

    def describe_export(self) -> str:
        return f"profiles of {', '.join(self.train_ids)}"


__all__ = ["ProfilerView", "ProfilePicker", "STEP_NOTE"]
