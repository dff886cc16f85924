"""Parameter importance (`i` in the lineage view): for each target, its hyper-parameters ranked.

Each line: the parameter, a bar and the number of MindInsight's measure (|Pearson|), the signed
Pearson and Spearman correlations and the runs used; "too few runs (n=2)" or "constant" where
there is no correlation, so a number from three runs is never read alone. The numbers come from
`summary.importance`; this widget only lays them out around a cursor (a target and a parameter)
and keeps the cursor's line in view.
"""
from __future__ import annotations

from typing import Any, Sequence

from rich.text import Text
from textual.binding import Binding

from ...summary.queries.importance import Importance, TargetImportance
from ..common.palette import DEFAULT_COLOURS, ThemeColours
from ..common.text import literal
from .commands import CommandKeys
from .themed import ThemedChart

BAR_CELLS = 12
# The bar's colour says whether the target rises ($primary) or falls ($accent) with the parameter;
# without colour (NO_COLOR, `colours` None) the Pearson column's sign says it.
_EIGHTHS = " ▏▎▍▌▋▊▉"


def bar(value: float, cells: int = BAR_CELLS) -> str:
    """`value` in 0..1 as a bar of `cells` cells, in eighths of a cell."""
    eighths = int(round(max(0.0, min(1.0, value)) * cells * 8))
    full, part = divmod(eighths, 8)
    return ("█" * full + (_EIGHTHS[part] if part else "")).ljust(cells)


def signed(value: float | None) -> str:
    return "" if value is None else f"{value:+.2f}"


def importance_lines(targets: Sequence[TargetImportance], cursor: tuple[str | None, str | None],
                     runs: int, colours: ThemeColours | None = DEFAULT_COLOURS) -> tuple[list[Text], int]:
    """The lines of the ranking and the index of the cursor's line (-1: none)."""
    if not targets:
        why = ("no target: a loss or a metric/<k> with numbers in at least one run" if runs
               else "no run with lineage shown (the filter keeps none)")
        return [Text(why, style="dim")], -1
    name_width = min(28, max(len(item.param) for target in targets for item in target.params) if any(
        target.params for target in targets) else 10)
    head = Text(f"{'':{name_width + 4}}{'importance':<{BAR_CELLS + 9}}{'Pearson':>7}  {'Spearman':>8}  {'runs':>4}",
                style="bold")
    lines = [head]
    at = -1
    for target in targets:
        lines.append(Text.assemble(literal(target.target, "bold underline"),
                                   (f"  {target.runs} run{'s' if target.runs != 1 else ''} with a value", "dim")))
        if not target.params:
            lines.append(Text("  no numeric hyper-parameter to rank", style="dim"))
        for item in target.params:
            if (target.target, item.param) == cursor:
                at = len(lines)
            lines.append(_line(item, name_width, colours))
    return lines, at


def _line(item: Importance, name_width: int, colours: ThemeColours | None) -> Text:
    name = item.param if len(item.param) <= name_width else item.param[:name_width - 1] + "…"
    text = Text("  ")
    text.append_text(literal(name.ljust(name_width)))
    text.append("  ")
    if item.reason:
        text.append(f"{item.reason}", style="dim italic")
        return text
    text.append(bar(item.importance), style="" if colours is None else colours.primary if (item.pearson or 0) >= 0 else colours.accent)
    text.append(f" {item.importance:.3f}   ")
    text.append(f"{signed(item.pearson):>7}  {signed(item.spearman):>8}  {item.runs:>4}", style="dim")
    return text


class ImportanceTable(CommandKeys, ThemedChart, can_focus=True):
    """The ranking, with a cursor line; its keys ask the view (`Command`)."""

    HELP_GROUP = "Parameter importance"
    DEFAULT_CLASSES = "focus-tint"  # app.tcss: the faint tint of the focused chart
    DEFAULT_CSS = """
    ImportanceTable { height: 1fr; width: 1fr; padding: 0 1; }
    """
    BINDINGS = [
        Binding("up", "command('param', -1)", "Previous parameter", show=False, id="lineage.importance_up"),
        Binding("down", "command('param', 1)", "Next parameter", show=False, id="lineage.importance_down"),
        Binding("pageup", "command('param', -10)", "Page up", show=False, id="lineage.importance_page_up"),
        Binding("pagedown", "command('param', 10)", "Page down", show=False, id="lineage.importance_page_down"),
        Binding("enter", "command('scatter', 0)", "Scatter", id="lineage.importance_scatter"),
    ]

    def __init__(self, **kwargs: Any):
        super().__init__(**kwargs)
        self.lines: list[Text] = []
        self.cursor_line = -1
        self.top = 0  # the first line shown
        self._ranking: tuple[Sequence[TargetImportance], tuple[str | None, str | None], int] = ((), (None, None), 0)
        self._lines_colours: tuple[ThemeColours | None] | None = None  # the colours `lines` were made in

    def set_ranking(self, targets: Sequence[TargetImportance], cursor: tuple[str | None, str | None],
                    runs: int) -> None:
        self._ranking = (targets, cursor, runs)
        self._lines_colours = None
        self.refresh()

    def render(self) -> Text:
        colours = None if self.app.no_color else self.theme_colours()
        if (colours,) != self._lines_colours:  # a new ranking, or a theme picked since
            self.lines, self.cursor_line = importance_lines(*self._ranking, colours)
            self._lines_colours = (colours,)
        height = max(1, self.content_size.height)
        if self.cursor_line >= 0:  # keep the cursor's line in view, its target's name too when it fits
            if self.cursor_line < self.top + 1:
                self.top = max(0, self.cursor_line - 2)
            elif self.cursor_line >= self.top + height:
                self.top = self.cursor_line - height + 1
        self.top = max(0, min(self.top, len(self.lines) - height))
        shown = []
        for i, line in enumerate(self.lines[self.top:self.top + height], start=self.top):
            if i == self.cursor_line:  # a marker, not reverse video: the bar keeps its colour
                line = Text.assemble(("▶ " if self.has_focus else "▷ ", "bold"), line[2:])
                line.stylize("bold")
            shown.append(line)
        return Text("\n").join(shown)

    def on_focus(self) -> None:
        self.refresh()

    def on_blur(self) -> None:
        self.refresh()
