"""`v` in the lineage view: choose which model-lineage columns the table shows."""
from __future__ import annotations

from typing import Iterable

from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import SelectionList, Static
from textual.widgets.selection_list import Selection
from ..common.focus import focus_now
from ..common.text import literal
from .tag_picker import SELECTED_MARK, UNSELECTED_MARK


class LineageColumnsScreen(ModalScreen[list[str] | None]):
    """A checklist of every column; dismisses with the chosen columns in table order, or None."""

    HELP_GROUP = "Lineage columns"
    BINDINGS = [
        Binding("escape", "done", "Apply", id="lineage_columns.apply"),
        Binding("v", "done", "Apply", show=False, id="lineage_columns.apply_v"),
        Binding("d", "defaults", "Defaults", id="lineage_columns.defaults"),
        Binding("a", "all", "All", id="lineage_columns.all"),
        Binding("n", "none", "None", id="lineage_columns.none"),
        Binding("ctrl+c", "cancel", "Cancel", show=False, id="lineage_columns.cancel"),
    ]
    DEFAULT_CSS = """
    LineageColumnsScreen { align: center middle; }
    LineageColumnsScreen > Vertical {
        width: 60; max-width: 100%; height: auto; max-height: 100%;
        border: round $accent; background: $surface; padding: 0 1;
    }
    LineageColumnsScreen SelectionList { height: auto; max-height: 80vh; border: none; padding: 0; }
    LineageColumnsScreen #lineage-columns-help { color: $foreground-muted; }
    """

    def __init__(self, columns: Iterable[str], shown: Iterable[str], defaults: Iterable[str]):
        super().__init__()
        self.all_columns = list(columns)
        self.initial = set(shown)
        self.defaults = set(defaults)

    def compose(self) -> ComposeResult:
        with Vertical():
            yield Static("[b]Columns[/b] of the model lineage table")
            yield SelectionList[str](
                *(Selection(_prompt(name, name in self.initial), name, name in self.initial, id=f"column:{name}")
                  for name in self.all_columns),
                id="lineage-columns-list")
            yield Static("space: toggle · a: all · n: none · d: defaults · esc: apply",
                         id="lineage-columns-help")

    def on_mount(self) -> None:
        focus_now(self.query_one(SelectionList))

    @on(SelectionList.SelectedChanged)
    def _marks(self, event: SelectionList.SelectedChanged) -> None:
        """Each row's mark follows its state (the list's own box differs only by colour)."""
        selections = event.selection_list
        picked = set(selections.selected)
        for name in self.all_columns:
            selections.replace_option_prompt(f"column:{name}", _prompt(name, name in picked))

    @property
    def chosen(self) -> list[str]:
        picked = set(self.query_one(SelectionList).selected)
        return [name for name in self.all_columns if name in picked]

    def action_done(self) -> None:
        self.dismiss(self.chosen)

    def action_cancel(self) -> None:
        self.dismiss(None)

    def action_defaults(self) -> None:
        selections = self.query_one(SelectionList)
        selections.deselect_all()
        for name in self.all_columns:
            if name in self.defaults:
                selections.select(name)

    def action_all(self) -> None:
        self.query_one(SelectionList).select_all()

    def action_none(self) -> None:
        self.query_one(SelectionList).deselect_all()


def _prompt(name: str, chosen: bool) -> Text:
    """`✓ name` or `· name`: what is chosen reads without colour (NO_COLOR, monochrome)."""
    text = Text(f"{SELECTED_MARK if chosen else UNSELECTED_MARK} ", style="bold" if chosen else "dim")
    text.append_text(literal(name, "" if chosen else "dim"))
    return text
