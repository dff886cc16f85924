"""Small modal dialogs: a one-line prompt, the CSV export, and pickers of one item of a list."""
from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from rich.text import Text
from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical
from textual.screen import ModalScreen
from textual.widgets import Button, Checkbox, Input, OptionList, Static
from textual.widgets.option_list import Option
from textual.worker import Worker, WorkerState
from .common.filters import compile_filter
from .common.focus import focus_now
from .common.text import markup


class PromptScreen(ModalScreen[str | None]):
    """Asks for one line of text; dismisses with it, or None on escape."""

    HELP_GROUP = "Prompt"
    BINDINGS = [Binding("escape", "cancel", "Cancel", id="prompt.cancel")]
    DEFAULT_CSS = """
    PromptScreen { align: center middle; }
    PromptScreen > Vertical {
        width: 70; max-width: 100%; height: auto; border: round $accent; background: $surface; padding: 0 1;
    }
    PromptScreen #prompt-error { color: $error; height: auto; }
    """

    def __init__(self, question: str, value: str = "", placeholder: str = "", validate=None):
        super().__init__()
        self.question = question
        self.value = value
        self.placeholder = placeholder
        self.validate_fn = validate  # text -> error message or ""

    def compose(self) -> ComposeResult:
        with Vertical():
            yield Static(self.question)
            yield Input(self.value, placeholder=self.placeholder, id="prompt-input")
            yield Static("", id="prompt-error")

    def on_mount(self) -> None:
        focus_now(self.query_one(Input))

    @on(Input.Submitted, "#prompt-input")
    def _submit(self, event: Input.Submitted) -> None:
        event.stop()
        error = self.validate_fn(event.value) if self.validate_fn else ""
        if error:
            self.query_one("#prompt-error", Static).update(markup(error))
            return
        self.dismiss(event.value)

    def action_cancel(self) -> None:
        self.dismiss(None)


def default_export_dir(logdir: str) -> str:
    """A fresh directory in the current one, or in the home directory if that is inside LOGDIR."""
    base = Path.cwd()
    logdir_path = Path(logdir).resolve()
    if base.resolve() == logdir_path or logdir_path in base.resolve().parents:
        base = Path.home()
    name = "tui-insight-export"
    candidate = base / name
    n = 1
    while candidate.exists() and not (candidate.is_dir() and not any(candidate.iterdir())):  # taken
        n += 1
        candidate = base / f"{name}-{n}"
    return str(candidate)


class ExportScreen(ModalScreen[None]):
    """`e`: where to write the CSV snapshot of what the current view shows."""

    HELP_GROUP = "Export"
    BINDINGS = [Binding("escape", "cancel", "Cancel", id="export.cancel")]
    DEFAULT_CSS = """
    ExportScreen { align: center middle; }
    ExportScreen > Vertical {
        width: 80; max-width: 100%; height: auto; border: round $accent; background: $surface; padding: 0 1;
    }
    ExportScreen #export-error { color: $error; height: auto; }
    ExportScreen Horizontal { height: auto; }
    ExportScreen Checkbox { border: none; padding: 0; margin-right: 2; }
    ExportScreen Button { margin-right: 2; min-width: 10; }
    """

    def __init__(self, cache, scope: dict[str, Any], what: str):
        super().__init__()
        self.cache = cache
        self.scope = scope
        self.what = what

    def compose(self) -> ComposeResult:
        with Vertical():
            yield Static(f"[b]Export to CSV[/b]: {markup(self.what)}")
            yield Static("[dim]A directory for the snapshot (never inside LOGDIR):[/dim]")
            yield Input(default_export_dir(self.cache.logdir), id="export-path")
            with Horizontal():
                yield Checkbox("every step in the files", id="export-all-steps")
                yield Checkbox("write into a non-empty directory", id="export-force")
            with Horizontal():
                yield Button("Export", variant="primary", id="export-go")
                yield Button("Cancel", id="export-cancel")
            yield Static("", id="export-error")

    def on_mount(self) -> None:
        focus_now(self.query_one("#export-path", Input))

    @on(Input.Submitted, "#export-path")
    @on(Button.Pressed, "#export-go")
    def _go(self, event) -> None:
        event.stop()
        if self.query_one("#export-go", Button).disabled:
            return  # exporting: a second enter (or click) does not start a second export
        path = self.query_one("#export-path", Input).value.strip()
        if not path:
            self.query_one("#export-error", Static).update("Give a directory")
            return
        self.query_one("#export-error", Static).update("[dim]exporting…[/dim]")
        self.query_one("#export-go", Button).disabled = True
        self._export(Path(os.path.expanduser(path)), self.query_one("#export-all-steps", Checkbox).value,
                     self.query_one("#export-force", Checkbox).value)

    @on(Button.Pressed, "#export-cancel")
    def _cancel(self, event: Button.Pressed) -> None:
        event.stop()
        self.dismiss(None)

    def action_cancel(self) -> None:
        self.dismiss(None)

    @work(thread=True, exclusive=True, group="export", exit_on_error=False)
    def _export(self, out_dir: Path, all_steps: bool, force: bool) -> str:
        """The sentence to show once written; an error is the worker's (`_export_ended`)."""
        from ..export import export_snapshot

        result = export_snapshot(self.cache, out_dir, all_steps=all_steps, force=force, **self.scope)
        return f"Wrote {len(result.files)} files ({sum(result.rows.values())} rows) to {out_dir}"

    @on(Worker.StateChanged)
    def _export_ended(self, event: Worker.StateChanged) -> None:
        """The one place an export's outcome lands (posted to this screen: a dialog closed
        meanwhile hears nothing). A failure is said in the dialog, never as a traceback."""
        worker = event.worker
        if worker.group != "export" or event.state not in (WorkerState.SUCCESS, WorkerState.ERROR):
            return
        if event.state == WorkerState.SUCCESS:
            self.app.notify(markup(str(worker.result)), title="Export")
            self.dismiss(None)
            return
        self.query_one("#export-error", Static).update(markup(export_failure(worker.error)))
        self.query_one("#export-go", Button).disabled = False


def export_failure(error: BaseException | None) -> str:
    """What the export dialog says of a failed export: the export's own sentence for what it
    refuses (`ExportError`: an existing file, LOGDIR), else the error's kind and text."""
    from ..export import ExportError

    if isinstance(error, ExportError):
        return error.in_dialog
    if isinstance(error, ImportError):
        return f"export is not available: {error}"
    return f"export failed: {type(error).__name__}: {error}"


class ListPicker(ModalScreen[int | None]):
    """Choose one of a list (graphs, pipelines, profiles, metrics): dismisses with its index, or None.

    Typing filters the list (type-ahead, the `/` filter's rule: a regex or a plain substring,
    case-insensitive) while ↑ ↓, page keys, home and end move in it, so one of hundreds is a few letters
    away. Subclasses name their help group and the id of their cancel binding."""

    HELP_GROUP = "Pick one"
    BINDINGS = [
        Binding("escape", "cancel", "Cancel", id="picker.cancel"),
        Binding("down", "move('cursor_down')", "Next", show=False, id="picker.down"),
        Binding("up", "move('cursor_up')", "Previous", show=False, id="picker.up"),
        Binding("pagedown", "move('page_down')", "Page down", show=False, id="picker.page_down"),
        Binding("pageup", "move('page_up')", "Page up", show=False, id="picker.page_up"),
        # Before the filter line's own home/end: a few typed letters need no cursor moves.
        Binding("home", "move('first')", "First", show=False, priority=True, id="picker.first"),
        Binding("end", "move('last')", "Last", show=False, priority=True, id="picker.last"),
    ]
    DEFAULT_CSS = """
    ListPicker { align: center middle; }
    ListPicker > Vertical {
        width: 100; max-width: 100%; height: auto; max-height: 80%;
        border: round $accent; background: $surface; padding: 0 1;
    }
    ListPicker #picker-filter, ListPicker #picker-filter:focus { border: none; height: 1; padding: 0 1; background: $boost; }
    ListPicker OptionList { height: auto; max-height: 20; border: none; }
    ListPicker #picker-count { height: 1; }
    """

    def __init__(self, title: str, labels: list, current: int, list_id: str = "picker-list"):
        super().__init__()
        self.title_text = title  # markup: callers escape text from files in it
        self.labels = labels
        self.current = current
        self.list_id = list_id
        self.shown: list[int] = list(range(len(labels)))  # the indices of `labels` the list shows

    def compose(self) -> ComposeResult:
        with Vertical():
            yield Static(f"[b]{self.title_text}[/b]  [dim](type to filter, ↑↓ enter: show, escape: cancel)[/dim]")
            yield Input(placeholder=f"type to filter {len(self.labels):,} items", id="picker-filter")
            yield OptionList(*(Option(label) for label in self.labels), id=self.list_id)
            yield Static("", id="picker-count")

    def on_mount(self) -> None:
        options = self.query_one(OptionList)
        options.highlighted = max(0, self.current) if self.labels else None
        focus_now(self.query_one("#picker-filter", Input))

    @on(Input.Changed, "#picker-filter")
    def _filter(self, event: Input.Changed) -> None:
        event.stop()
        matches = compile_filter(event.value.strip())
        self.shown = [i for i, label in enumerate(self.labels) if matches(_plain(label))]
        options = self.query_one(OptionList)
        options.clear_options()
        options.add_options([Option(self.labels[i]) for i in self.shown])
        options.highlighted = 0 if self.shown else None
        count = self.query_one("#picker-count", Static)
        if not event.value.strip():
            count.update("")
        elif self.shown:
            count.update(f"[dim]{len(self.shown):,} of {len(self.labels):,}[/dim]")
        else:
            count.update(f"[dim]nothing matches {markup(event.value)!s}: backspace widens[/dim]")

    def action_move(self, action: str) -> None:
        """↑ ↓ and page keys move in the list while the filter keeps the focus."""
        getattr(self.query_one(OptionList), f"action_{action}")()

    @on(Input.Submitted, "#picker-filter")
    def _submitted(self, event: Input.Submitted) -> None:
        event.stop()
        highlighted = self.query_one(OptionList).highlighted
        if highlighted is not None and 0 <= highlighted < len(self.shown):
            self.dismiss(self.shown[highlighted])

    @on(OptionList.OptionSelected)
    def _chosen(self, event: OptionList.OptionSelected) -> None:
        event.stop()
        self.dismiss(self.shown[event.option_index])

    def action_cancel(self) -> None:
        self.dismiss(None)


class GraphPicker(ListPicker):
    """The graph view's `g`: one of several graphs (or pipelines); dismisses with the chosen index."""

    HELP_GROUP = "Pick a graph"
    BINDINGS = [Binding("escape", "cancel", "Cancel", id="graph_picker.cancel")]

    def __init__(self, title: str, labels: list[Text], current: int):
        super().__init__(markup(title), labels, current, "graph-picker-list")


def _plain(label) -> str:
    """The text of a picker label (a `Text`, or markup) that typing matches."""
    if isinstance(label, Text):
        return label.plain
    try:
        return Text.from_markup(str(label)).plain
    except Exception:  # not valid markup: match what is written
        return str(label)
