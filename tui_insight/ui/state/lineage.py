"""What the lineage view (`l`) is set to: the tab, the columns, the order, the filter, the cursor.

The columns: until the user picks with `v` the table shows what a user compares runs by
(`DEFAULT_COLUMNS`, every `metric/*`, and the TensorBoard hyper-parameters, whatever their
names, in which the listed runs differ: the view passes those in, `varying`), but not the
columns no listed run has a value in (`unfilled`: MindSpore's network and loss over TensorBoard
runs); long dataset paths stay hidden until asked for. After a pick, the columns that existed then keep the user's
choice and columns that appear later (a new metric) follow the defaults.

The order: None is MindInsight's (newest first); else a column and a direction. The filter is
the text typed after `/`; reading it into conditions is `summary.lineage`'s job (the view keeps
the last conditions that could be read).

The panel above the table (`p`, `i`): the parallel-coordinates chart, with its picked axis and
the column its lines are coloured by, or the parameter importance, with its cursor (a target
and a parameter) and whether the scatter of that pair is shown. The chart has no brush of its
own: a brush step rewrites the filter (`brush`), so the table and the chart are one filter.
The run highlighted in a panel is the table's cursor row.
"""
from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any, Iterable, Sequence

from ...summary.queries.lineage import conditions_text, parse_conditions
from ...summary.queries.parallel import Axis, Brush, brush_of, step_brush, with_brush
from .persist import get_bool, get_str, get_strs

MODEL, DATASET = "model", "dataset"
NO_PANEL, CHART, IMPORTANCE = "", "chart", "importance"
KEY_COLUMN = "summary_dir"  # always shown, first, fixed when scrolling sideways
METRIC = "metric/"
# What the table opens with (besides every metric/*): the settings runs are compared by.
DEFAULT_COLUMNS: tuple[str, ...] = (KEY_COLUMN, "network", "optimizer", "learning_rate", "epoch", "batch_size",
                                    "loss")


def default_columns(columns: Iterable[str], varying: Iterable[str] = (), unfilled: Iterable[str] = ()) -> list[str]:
    """The columns of `columns` the table shows before the user picks; `varying`: the
    TensorBoard hyper-parameter columns in which the runs differ (`lineage_diff.varying_hparams`);
    `unfilled`: the columns no run has a value in (`lineage_diff.unfilled_columns`), left out."""
    varying, unfilled = set(varying), set(unfilled)
    return [c for c in columns if (c in DEFAULT_COLUMNS or c.startswith(METRIC) or c in varying)
            and (c == KEY_COLUMN or c not in unfilled)]


@dataclass(frozen=True)
class LineageState:
    mode: str = MODEL  # the tab: model or dataset lineage
    chosen: tuple[str, ...] | None = None  # the user's pick with `v`; None: the defaults
    known: tuple[str, ...] = ()  # the columns there were when the user picked
    sort_column: str | None = None  # None: MindInsight's order (newest first)
    descending: bool = False
    filter: str = ""
    row: str | None = None  # the cursor: a summary_dir
    column: str | None = None  # and a column of the model table
    panel: str = NO_PANEL  # above the table: the chart, the importance, or nothing
    axis: str | None = None  # the chart's picked axis (a column); None: the first
    colour: str | None = None  # the column the chart's lines are coloured by; None: see colour_column
    target: str | None = None  # the importance cursor: a target (loss, metric/<k>)
    param: str | None = None  # and one of its parameters
    scatter: bool = False  # the scatter of that pair instead of the ranking

    # -- what is shown ---------------------------------------------------------------------------

    def visible_columns(self, columns: Iterable[str], varying: Iterable[str] = (),
                        unfilled: Iterable[str] = ()) -> list[str]:
        """The columns of `columns` (every column there is, in table order) the table shows;
        `varying` and `unfilled` as `default_columns` takes them."""
        columns = list(columns)
        defaults = set(default_columns(columns, varying, unfilled))
        known = set(self.known)
        chosen = set(self.chosen or ())
        shown = []
        for column in columns:
            if column == KEY_COLUMN:
                shown.append(column)
            elif self.chosen is not None and column in known:
                if column in chosen:
                    shown.append(column)
            elif column in defaults:
                shown.append(column)
        return shown

    def sort_text(self) -> str:
        if self.sort_column is None:
            return "newest first"
        return f"sorted by {self.sort_column} {'▼' if self.descending else '▲'}"

    def picked_axis(self, axes: Sequence[str]) -> str | None:
        """The chart's picked axis among `axes` (the first when the remembered one is not there)."""
        return self.axis if self.axis in axes else (axes[0] if axes else None)

    def colour_column(self, columns: Sequence[str]) -> str | None:
        """What the lines are coloured by: the user's pick, else the first metric, else loss."""
        if self.colour in columns:
            return self.colour
        return next((c for c in columns if c.startswith(METRIC)), "loss" if "loss" in columns else None)

    # -- transitions -------------------------------------------------------------------------------

    def with_mode(self, mode: str) -> "LineageState":
        mode = mode if mode in (MODEL, DATASET) else MODEL
        return self if mode == self.mode else replace(self, mode=mode)

    def toggle_mode(self) -> "LineageState":
        return self.with_mode(DATASET if self.mode == MODEL else MODEL)

    def with_columns(self, chosen: Iterable[str], known: Iterable[str]) -> "LineageState":
        """The user's pick (`v`) among the columns `known` there were."""
        return replace(self, chosen=tuple(chosen), known=tuple(known))

    def sort_by(self, column: str, descending: bool | None = None) -> "LineageState":
        """Sort by `column`: ascending, or the other way when it already sorts by it."""
        if descending is None:
            descending = not self.descending if column == self.sort_column else False
        return replace(self, sort_column=column, descending=descending)

    def sort_reverse(self, column: str | None) -> "LineageState":
        """`S`: the current order the other way, or `column` descending when unsorted."""
        if self.sort_column is None:
            return self if column is None else self.sort_by(column, descending=True)
        return replace(self, descending=not self.descending)

    def sort_clear(self) -> "LineageState":
        return replace(self, sort_column=None, descending=False)

    def with_filter(self, text: str) -> "LineageState":
        return self if text == self.filter else replace(self, filter=text)

    def with_cursor(self, row: str | None, column: str | None = None) -> "LineageState":
        column = self.column if column is None else column
        if (row, column) == (self.row, self.column):
            return self
        return replace(self, row=row, column=column)

    def toggle_panel(self, panel: str) -> "LineageState":
        """`p`, `i`: show that panel, or hide it when it is the one shown."""
        panel = NO_PANEL if panel == self.panel or panel not in (CHART, IMPORTANCE) else panel
        return replace(self, panel=panel, scatter=False)

    def pick_axis(self, axes: Sequence[str], step: int) -> "LineageState":
        """`←`/`→`: the axis `step` places over (stopping at the ends)."""
        if not axes:
            return self
        current = self.axis if self.axis is not None and self.axis in axes else axes[0]
        index = max(0, min(len(axes) - 1, list(axes).index(current) + step))
        return self if axes[index] == self.axis else replace(self, axis=axes[index])

    def with_colour(self, column: str | None) -> "LineageState":
        return self if column == self.colour else replace(self, colour=column)

    def brush(self, axis: Axis, end: str, step: int, known_columns: Iterable[str] | None = None) -> "LineageState":
        """`[` `]` (low end), `{` `}` (high end): move an end of the brush on `axis` one stop; the
        filter text becomes the brushed conditions with every other condition kept. Raises
        LineageQueryError when the filter cannot be read (a brush cannot be added to it)."""
        known = list(known_columns) if known_columns is not None else None
        conditions = parse_conditions(self.filter, known)
        brush = brush_of(axis, conditions)
        return self._rewrite(axis, conditions, step_brush(axis, brush, end, step), known)

    def clear_brush(self, axis: Axis, known_columns: Iterable[str] | None = None) -> "LineageState":
        """`backspace` on an axis: its range goes (the other conditions stay)."""
        known = list(known_columns) if known_columns is not None else None
        return self._rewrite(axis, parse_conditions(self.filter, known), Brush(), known)

    def _rewrite(self, axis: Axis, conditions: list, brush: Brush, known: list[str] | None) -> "LineageState":
        if brush == brush_of(axis, conditions):
            return replace(self, axis=axis.column) if self.axis != axis.column else self
        text = conditions_text(with_brush(conditions, axis, brush))
        parse_conditions(text, known)  # a value the filter cannot take (text in a number column) says so here
        return replace(self, filter=text, axis=axis.column)

    def step_run(self, order: Sequence[str], step: int) -> "LineageState":
        """The highlighted run moves `step` places along `order` (from the first when none is)."""
        if not order:
            return self
        if self.row is not None and self.row in order:
            index = max(0, min(len(order) - 1, list(order).index(self.row) + step))
        else:
            index = 0 if step > 0 else len(order) - 1
        return self.with_cursor(order[index])

    def move_importance(self, entries: Sequence[tuple[str, str]], step: int) -> "LineageState":
        """The importance cursor `step` entries (target, parameter) down, stopping at the ends."""
        if not entries:
            return self
        current = (self.target, self.param)
        index = next((i + step for i, entry in enumerate(entries) if entry == current), 0)
        target, param = entries[max(0, min(len(entries) - 1, index))]
        return self if (target, param) == current else replace(self, target=target, param=param)

    def toggle_scatter(self) -> "LineageState":
        return replace(self, scatter=not self.scatter)

    # -- remembered ----------------------------------------------------------------------------------

    def to_json(self) -> dict[str, Any]:
        data: dict[str, Any] = {"mode": self.mode, "sort_column": self.sort_column, "descending": self.descending,
                                "filter": self.filter, "row": self.row, "column": self.column, "panel": self.panel,
                "axis": self.axis, "colour": self.colour, "target": self.target, "param": self.param,
                "scatter": self.scatter}
        if self.chosen is not None:
            data["chosen"] = list(self.chosen)
            data["known"] = list(self.known)
        return data

    @classmethod
    def from_json(cls, data: Any) -> "LineageState":
        if not isinstance(data, dict):
            return cls()
        chosen = get_strs(data, "chosen") if isinstance(data.get("chosen"), list) else None
        sort_column = data.get("sort_column")
        row, column = data.get("row"), data.get("column")
        return cls(
            mode=get_str(data, "mode", MODEL, (MODEL, DATASET)),
            chosen=chosen,
            known=get_strs(data, "known") if chosen is not None else (),
            sort_column=sort_column if isinstance(sort_column, str) else None,
            descending=get_bool(data, "descending", False) if isinstance(sort_column, str) else False,
            filter=get_str(data, "filter", ""),
            row=row if isinstance(row, str) else None,
            column=column if isinstance(column, str) else None,
            panel=get_str(data, "panel", NO_PANEL, (NO_PANEL, CHART, IMPORTANCE)),
            axis=_optional_str(data, "axis"),
            colour=_optional_str(data, "colour"),
            target=_optional_str(data, "target"),
            param=_optional_str(data, "param"),
            scatter=get_bool(data, "scatter", False),
        )


def _optional_str(data: dict[str, Any], key: str) -> str | None:
    value = data.get(key)
    return value if isinstance(value, str) else None
