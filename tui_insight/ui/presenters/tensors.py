"""What the tensor view shows: the tensor list, the title line, the statistics panel, the
read-out under the table or chart, and the message in place of the table, from the view's
`TensorsState` and the decoded step (`StepData`)."""
from __future__ import annotations

from dataclasses import dataclass
from typing import Mapping, Sequence

import numpy as np
from rich.text import Text

from ...summary.formats.values import Locator, TensorData
from ...summary.queries.tensors import SliceError, parse_slice
from ...summary.store.series import Series
from ..common.format import clock_time, duration, number
from ..common.text import literal, markup
from ..state.tensors import Key, TensorsState, dims_text

WIDE = 118  # from this view width on, statistics sit beside the table (and the read-out says the time)
NOT_FINITE = "bold #D55E00"  # NaN and infinities, in the statistics and the read-out
TABLE_HINT = "[ ] steps · d slice · h histogram · / filter tags"
RIDGE_HINT = "↑/↓ step cursor · ←/→ bucket · o offset/overlay · b distribution · x step axis · h table"
STAT_ROWS = (("min", "min"), ("max", "max"), ("mean", "avg"), ("count", "count"),
             ("nan", "nan_count"), ("+inf", "pos_inf_count"), ("-inf", "neg_inf_count"))
SIGN_ROWS = (("zeros", "zero_count"), ("< 0", "neg_count"), ("> 0", "pos_count"))


@dataclass(frozen=True)
class StepData:
    """One decoded step of one tensor: its values and the whole tensor's statistics, or why not."""

    key: Key
    step: int
    locator: Locator | None
    tensor: TensorData | None = None
    overall: dict | None = None  # statistics of the whole tensor
    problem: str = ""  # why there are no values ("" when there are)


def option_id(key: tuple[str, str]) -> str:
    """The tensor list's id of (train id, tag); a job's heading in comparison is its train id."""
    return f"{key[0]}\n{key[1]}"


def full_index(slice_text: str, dims: tuple[int, ...], free: tuple[int, ...]) -> tuple[int, ...] | None:
    """The index into the whole tensor of a cell: the slice's fixed indices plus the cell's free ones."""
    try:
        index = parse_slice(slice_text, dims)
    except SliceError:
        return None
    out, free_iter = [], iter(free)
    for item, size in zip(index, dims):
        if isinstance(item, int):
            out.append(item % size if size else item)
        else:
            value = next(free_iter, None)
            if value is None:
                return None
            out.append(value)
    return tuple(out)


def list_rows(shown: Sequence[Key], train_ids: Sequence[str], colours: Mapping[str, str] | None
              ) -> list[tuple[str, Text, bool]]:
    """(id, prompt, disabled) of each line of the tensor list; compared (`colours` given), each
    job's tensors under its name, in the dashboard's order: colour alone is lost under NO_COLOR."""
    rows = []
    if colours is not None:
        order = {tid: i for i, tid in enumerate(train_ids)}
        shown = sorted(shown, key=lambda key: order.get(key[0], len(order)))
    job = None
    for tid, tag in shown:
        prompt = Text.assemble(literal(tag), no_wrap=True, overflow="ellipsis")
        if colours is not None:
            if tid != job:
                job = tid
                rows.append((tid, Text.assemble(("● ", colours.get(tid, "")), literal(tid, "bold"),
                                                no_wrap=True, overflow="ellipsis"), True))
            prompt = Text.assemble(("  ", ""), literal(tag), no_wrap=True, overflow="ellipsis")
        rows.append((option_id((tid, tag)), prompt, False))
    return rows


def message_text(current: Key | None, tensor: TensorData | None, problem: str, loading: bool) -> str:
    """What is said where the table would be (markup): no tensors, loading, or why no values."""
    if current is None:
        return "no tensor tags yet" if loading else "these jobs have no tensors"
    if tensor is None:
        return markup(problem or "loading…")
    return (f"[b]{markup(current[1])}[/b]  shape {dims_text(tensor.dims)} · {markup(tensor.dtype)}\n\n"
            f"No values to show: {markup(problem or tensor.reason)}")


def title_text(state: TensorsState, series: Series | None, index: int | None, tensor: TensorData | None,
               colour: str | None, colour_hint: str = "") -> str:
    """The title line (markup): tensor, (job when compared: `colour` given), step, shape, mode;
    `colour_hint` goes second when the offset ridgeline needs more colours than the terminal has."""
    current = state.current
    assert current is not None
    parts = [f"[b]{markup(current[1])}[/b]"]
    if colour is not None:
        parts.append(f"[{colour}]●[/] {markup(current[0])}")
    if series is not None and index is not None:
        parts.append(f"step {int(series.steps[index])} ({index + 1}/{len(series)})")
    if tensor is not None:
        parts.append(f"{dims_text(tensor.dims)} {markup(tensor.dtype)}")
    if state.histogram:
        mode = "distribution" if state.bands else f"histogram · {state.mode}"
        parts.append(f"{mode} · step axis: {state.axis}")
        if colour_hint and not state.bands and state.mode == "offset":
            parts.insert(1, colour_hint)
    return " · ".join(parts)


def stat_text(values: dict | None, key: str) -> str:
    if values is None:
        return "-"
    value = values[key]
    if key in ("min", "max", "avg"):
        return number(value)
    return f"{int(value):,}"


def _stat_style(key: str, values: dict | None) -> str:
    if values is not None and key in ("nan_count", "pos_inf_count", "neg_inf_count") and values[key]:
        return NOT_FINITE
    return ""


def stats_text(overall: dict | None, piece: dict | None, reason: str, narrow: bool) -> Text | str:
    """The statistics of the slice (`piece`) and of the whole tensor; `narrow`: two small tables
    side by side, under the table. Without statistics, `reason` says why."""
    if overall is None:
        return f"[dim]no statistics{': ' + markup(reason) if reason else ''}[/dim]"
    text = Text()
    if narrow:
        left, right = STAT_ROWS[:3], STAT_ROWS[3:]
        text.append(f"{'':<5}{'slice':>11}{'tensor':>11}   {'':<5}{'slice':>8}{'tensor':>9}", style="bold")
        for k in range(len(right)):
            text.append("\n")
            if k < len(left):
                label, key = left[k]
                text.append(f"{label:<5}", style="dim")
                text.append(f"{stat_text(piece, key):>11}")
                text.append(f"{stat_text(overall, key):>11}")
            else:
                text.append(" " * 27)
            label, key = right[k]
            text.append(f"   {label:<5}", style="dim")
            text.append(f"{stat_text(piece, key):>8}", style=_stat_style(key, piece))
            text.append(f"{stat_text(overall, key):>9}", style=_stat_style(key, overall))
        return text
    text.append(f"{'':<6}{'slice':>14}{'tensor':>14}\n", style="bold")
    for label, key in STAT_ROWS:
        text.append(f"{label:<6}", style="dim")
        text.append(f"{stat_text(piece, key):>14}", style=_stat_style(key, piece))
        text.append(f"{stat_text(overall, key):>14}\n", style=_stat_style(key, overall))
    text.append("\n")
    for label, key in SIGN_ROWS:
        text.append(f"{label:<6}", style="dim")
        text.append(f"{'':>14}{stat_text(overall, key):>14}\n")
    text.append("\nstatistics leave NaN/Inf out", style="dim")
    return text


def chart_hint(bands: bool, bands_hint: str) -> Text:
    """The read-out of the ridgeline or the bands while no cursor is on them: their keys."""
    hint = f"{bands_hint.replace('d ridgelines', 'b ridgeline')} · h table" if bands else RIDGE_HINT
    return Text(hint, style="dim")


def cell_readout(tag: str, slice_text: str, dims: tuple[int, ...], cell: tuple[int, ...], value: float | None,
                 series: Series | None, index: int | None, origin: float | None, width: int) -> Text:
    """The table's cell under the cursor: its index into the whole tensor and value, and the
    step's number, time since the job's first event (`origin`) and, from WIDE on, clock time."""
    if value is None:
        return Text("empty slice", style="dim")
    found = full_index(slice_text, dims, cell)
    where = "[" + ", ".join(str(i) for i in found) + "]" if found is not None else "?"
    finite = bool(np.isfinite(value))
    text = Text()
    text.append_text(literal(f"{tag}{where}", "bold"))
    text.append(" = ")
    text.append(repr(value) if finite else number(value), style="bold" if finite else NOT_FINITE)
    if series is not None and index is not None:
        wall = float(series.wall_times[index])
        start = wall if origin is None else origin
        when = f" · {clock_time(wall)}" if width >= WIDE else ""
        text.append(f"   step {int(series.steps[index])} +{duration(wall - start)}{when}", style="dim")
    return text
