"""The job list: every job of LOGDIR, filtered, sorted, marked for comparison."""
from __future__ import annotations

from typing import TYPE_CHECKING, Any

from rich.markup import escape
from textual import on
from textual.actions import SkipAction
from textual.app import ComposeResult
from textual.binding import Binding
from textual.screen import Screen
from textual.widgets import Input, Static

from ...summary.cache import STATE_MEANINGS, Changes
from ..widgets.footer import InsightFooter
from ..widgets.job_table import SORTABLE, JobTable
from ..widgets.progress import ProgressLine
from ..common.focus import focus_now

if TYPE_CHECKING:
    from ..app import InsightApp


class JobsScreen(Screen):
    """The first screen: the table of jobs."""

    HELP_GROUP = "Job list"
    HELP_NOTE = "[b]Job states[/b]\n" + "\n".join(  # what the state column says
        f"  [b]{escape(f'{state:>10}')}[/b]  {escape(meaning)}" for state, meaning in STATE_MEANINGS.items())
    AUTO_FOCUS = "#jobs-table"
    BINDINGS = [
        Binding("enter", "open", "Open", id="jobs.open"),
        Binding("space", "toggle_mark", "Mark", id="jobs.mark"),
        Binding("c", "compare", "Compare", id="jobs.compare"),
        Binding("slash", "filter", "Filter", id="jobs.filter"),
        Binding("s", "sort_next", "Sort", id="jobs.sort"),
        Binding("S", "sort_reverse", "Reverse sort", show=False, id="jobs.sort_reverse"),
        Binding("u", "unmark_all", "Unmark all", show=False, id="jobs.unmark_all"),
        Binding("escape", "clear_filter", "Clear filter", show=False, id="jobs.clear_filter"),
    ]

    app: "InsightApp"

    def compose(self) -> ComposeResult:
        yield Static(self._title(), id="jobs-title", classes="screen-title")
        box = Input(placeholder="filter jobs: substring or regex (enter: done, escape: clear)", id="jobs-filter",
                    classes="filter")
        box.display = False  # until `/`
        yield box
        yield JobTable(id="jobs-table")
        yield ProgressLine(id="progress")
        yield InsightFooter()

    def _title(self) -> str:
        return f"[b]tui-insight[/b]  [dim]{escape(self.app.logdir_label)}[/dim]"

    def on_mount(self) -> None:
        table = self.table
        table.marked = list(self.app.marked)
        table.refresh_jobs(self.app.cache.jobs, self.app.clock())
        focus_now(table)
        self.update_progress()

    @property
    def table(self) -> JobTable:
        return self.query_one(JobTable)

    # -- from the app ---------------------------------------------------------------------

    def _table_if_there(self) -> JobTable | None:
        tables = self.query(JobTable)  # none yet while composing, none left at teardown
        return tables.first() if tables else None

    def cache_changed(self, changes: Changes) -> None:
        table = self._table_if_there()
        if table is None:
            return
        touched = changes.added | set(changes.updated) | changes.lineage | changes.graphs
        views = self.app.cache.jobs
        # A job without data loads without naming itself in the changes: catch rows still "loading".
        touched |= {tid for tid, row in table.rows_by_id.items()
                    if row.sort["state"] == "loading" and tid in views and views[tid].loaded}
        touched |= {tid for tid in views if tid not in table.rows_by_id}
        table.refresh_jobs(views, self.app.clock(), touched)

    def tick(self) -> None:
        """Once a second: relative times and live markers move on."""
        table = self._table_if_there()
        if table is not None:
            table.refresh_times(self.app.clock())

    def update_progress(self) -> None:
        lines = self.query(ProgressLine)  # none yet while composing, none left at teardown
        if lines:
            lines.first().show(self.app.cache, self.app.reload_interval)

    # -- actions ----------------------------------------------------------------------------

    @on(JobTable.Opened)
    def _row_opened(self, event: JobTable.Opened) -> None:
        event.stop()
        self.app.open_jobs((event.train_id,))

    @on(JobTable.HeaderClicked)
    def _header_clicked(self, event: JobTable.HeaderClicked) -> None:
        event.stop()
        self.table.set_sort(event.column)

    def action_open(self) -> None:
        tid = self.table.current_job
        if tid is None:
            self.notify("No job to open yet", severity="warning")
            return
        self.app.open_jobs((tid,))

    def action_toggle_mark(self) -> None:
        tid = self.table.current_job
        if tid is None:
            return
        marked = self.app.marked
        if tid in marked:
            marked.remove(tid)
        else:
            marked.append(tid)
        self.table.set_marked(marked, self.app.cache.jobs, self.app.clock())
        self.table.action_cursor_down()

    def action_unmark_all(self) -> None:
        self.app.marked.clear()
        self.table.set_marked([], self.app.cache.jobs, self.app.clock())

    def action_compare(self) -> None:
        marked = [tid for tid in self.app.marked if tid in self.app.cache.jobs]
        if not marked:
            self.notify("Mark jobs with space first, then press c to compare them", severity="warning")
            return
        self.app.open_jobs(tuple(marked))

    def action_filter(self) -> None:
        box = self.query_one("#jobs-filter", Input)
        box.display = True
        focus_now(box)

    def action_clear_filter(self) -> None:
        box = self.query_one("#jobs-filter", Input)
        if not box.display and not self.table.filter_text:
            raise SkipAction()
        box.value = ""
        box.display = False
        self.table.set_filter("")
        focus_now(self.table)

    def action_sort_next(self) -> None:
        i = SORTABLE.index(self.table.sort_key) if self.table.sort_key in SORTABLE else -1
        self.table.set_sort(SORTABLE[(i + 1) % len(SORTABLE)], reverse=False)
        self.notify(f"sorted by {self.table.sort_key}", timeout=1.5)

    def action_sort_reverse(self) -> None:
        self.table.set_sort(self.table.sort_key, reverse=not self.table.sort_reverse)

    @on(Input.Changed, "#jobs-filter")
    def _filter_changed(self, event: Input.Changed) -> None:
        self.table.set_filter(event.value)

    @on(Input.Submitted, "#jobs-filter")
    def _filter_done(self, event: Input.Submitted) -> None:
        if not event.value:
            event.input.display = False
        focus_now(self.table)

    def export_scope(self) -> tuple[dict[str, Any], str]:
        """`e` here exports the marked jobs, or every job the filter shows."""
        ids = [tid for tid in self.app.marked if tid in self.app.cache.jobs] or list(self.table.order)
        what = "marked jobs" if self.app.marked else ("filtered jobs" if self.table.filter_text else "all jobs")
        return {"train_ids": ids}, f"{what} ({len(ids)})"
