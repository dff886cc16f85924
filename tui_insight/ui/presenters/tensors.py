"""What the tensor view shows: the tensors there are, a decoded step and every step's
histogram (both slow: the view calls them in its loader's thread), the tensor list, the title
line, the statistics panel, the read-out under the table or chart, and the message in place of
the table, from the view's `TensorsState` and the decoded step (`StepData`)."""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable, Iterable, Mapping, Sequence

import numpy as np
from rich.text import Text

from ...escape import shown
from ...summary.formats.values import Locator, PayloadError, TensorData
from ...summary.queries.distributions import distribution
from ...summary.queries.histograms import rebin
from ...summary.queries.tensors import (
    SliceError,
    TensorSlice,
    TensorUnavailable,
    apply_slice,
    parse_slice,
    statistics,
    tensor_at,
    tensor_histogram_steps,
)
from ...summary.store.cache import SummaryCache
from ...summary.store.job_view import Changes, JobView
from ...summary.store.series import Series
from ..common.filters import compile_filter
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


def tensor_keys(jobs: Iterable[JobView], train_ids: Sequence[str]) -> list[Key]:
    """Every (train id, tensor tag) of `jobs`, by tag, then in the order of `train_ids`."""
    return sorted(((job.train_id, tag) for job in jobs for tag in job.tag_names("tensor")),
                  key=lambda k: (k[1], train_ids.index(k[0]) if k[0] in train_ids else 0))


def filtered(keys: Sequence[Key], text: str) -> list[Key]:
    """The tensors whose tag the filter `text` lets through."""
    match = compile_filter(text)
    return [key for key in keys if match(key[1])]


def changed_keys(changes: Changes, train_ids: Iterable[str], keys: Iterable[Key],
                 job: Callable[[str], JobView | None]) -> set[Key]:
    """The tensors of `train_ids` whose data `changes` may have changed: the tags it names, or
    for a job that came, went or was read again, every tensor it has (`job(train id)`) and had (`keys`)."""
    changed: set[Key] = set()
    for tid in set(train_ids) & changes.jobs():
        tags = changes.tags(tid, "tensor")
        if tags is not None:
            changed |= {(tid, tag) for tag in tags}
        else:
            view = job(tid)
            changed |= {(tid, tag) for tag in (view.tag_names("tensor") if view is not None else [])}
            changed |= {key for key in keys if key[0] == tid}
    return changed


def wanted_step(state: TensorsState, series: Series | None, job: JobView | None) -> tuple[int, int, Locator | None] | str:
    """The state's step of its tensor: (index among the kept steps, step, where it is in the
    files), or why there is none: none kept, the tag gone, or its job still loading."""
    index = state.step_index(series.steps.tolist()) if series is not None else None
    if series is None:
        return "this tag is no longer in the job" if job is None or job.ready else "loading…"
    if index is None:
        return "no kept steps"
    return index, int(series.steps[index]), job.locator(series, index) if job is not None else None


def cut(values: np.ndarray, text: str) -> tuple[TensorSlice, dict] | str:
    """The slice `text` of a tensor's `values` with its statistics (at most 100,000 values: fast
    enough for the UI thread), or why it cannot be cut."""
    try:
        sliced = apply_slice(values, text)
    except SliceError as exc:
        return str(exc)
    return sliced, statistics(sliced.data)


def integers(tensor: TensorData) -> bool:
    """Whether the table shows `tensor`'s values as whole numbers."""
    return tensor.dtype.startswith(("DT_INT", "DT_UINT", "DT_BOOL"))


def decode_step(cache: SummaryCache, job: JobView | None, key: Key, index: int, step: int,
                locator: Locator | None) -> StepData:
    """Kept step number `index` of tensor `key` with the whole tensor's statistics, or why it has
    no values. Slow (up to 10,000,000 values): in the loader's thread; a file that changed raises."""
    if job is None:
        return StepData(key, step, locator, problem=f"{shown(key[0])} is gone")
    tensor = tensor_at(cache, job, key[1], index)
    if tensor.array is None:
        return StepData(key, step, locator, tensor, None, tensor.reason or "no values")
    return StepData(key, step, locator, tensor, statistics(tensor.array))


def step_histograms(cache: SummaryCache, job: JobView | None, tag: str) -> tuple[Any, Any, str]:
    """Every kept step of tensor `tag` as the ridgeline's and the bands' data, or (None, None,
    why not). Slow: in the loader's thread."""
    try:
        steps = tensor_histogram_steps(cache, job, tag) if job is not None else []
    except TensorUnavailable as exc:
        return None, None, f"no histogram: {exc}"
    except PayloadError as exc:
        return None, None, f"cannot read: {exc}"
    if not steps:
        return None, None, "no kept steps"
    return rebin(steps), distribution(steps), ""


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


def export_scope(current: Key | None, train_ids: Sequence[str]) -> dict[str, Any]:
    """What an export from the view takes: the tensor on screen (else every tensor of the jobs)."""
    tags = {("tensor", current[1])} if current else set()
    return {"train_ids": [current[0]] if current else list(train_ids), "plugins": {"tensor"}, "tags": tags}


def export_text(current: Key | None) -> str:
    return f"tensor {current[1]} of {current[0]}" if current is not None else "no tensor"


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


def chart_title(key: Key | None, compare: bool) -> str | None:
    """The ridgeline's and the bands' title (markup): the tag, and its job when runs are compared."""
    if key is None:
        return None
    return markup(f"{key[1]} · {key[0]}" if compare else key[1])


def chart_hint(bands: bool, bands_hint: str) -> Text:
    """The read-out of the ridgeline or the bands while no cursor is on them: their keys."""
    hint = f"{bands_hint.replace('d ridgelines', 'b ridgeline')} · h table" if bands else RIDGE_HINT
    return Text(hint, style="dim")


def readout(state: TensorsState, chart_readout: Text | None, bands_hint: str, cell: Text | None) -> Text:
    """The line under the data: in histogram mode the chart's read-out (`chart_readout`; its keys
    while it has no cursor), else the table cell's (`cell`; None: no table, say its keys)."""
    if state.histogram:
        return chart_readout if chart_readout is not None and chart_readout.plain else chart_hint(state.bands, bands_hint)
    return cell if cell is not None else Text(TABLE_HINT, style="dim")


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
