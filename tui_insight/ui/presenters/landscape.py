"""What the landscape view shows: its list, status line, metadata panel, read-out and the
message in place of a map, from the view's state and what the loader read of each job.

`data` is the loader's `JobLandscapes` per job; `colours` maps each job to its colour when
runs are compared (None: one job, no dots).
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Mapping, Sequence

from rich.text import Text

from ...summary.queries.landscape import Landscape, LandscapeEntry
from ..common.format import number, value_text
from ..common.text import literal
from ..state.landscape import LandscapeState

HINT = "arrows cursor · n/p path · c heat/contour · v relief · , . landscape · m metadata"
NO_LANDSCAPES = ("no loss landscapes: MindSpore writes them with SummaryLandscape after training "
                 "(SummaryCollector collect_landscape)")
DRAWING_NAMES = {"heat": "heat map", "contour": "contour lines", "both": "heat + contours"}


@dataclass(frozen=True)
class JobLandscapes:
    """What the loader gives for one job: its list and each landscape (or why not)."""

    train_id: str
    entries: tuple[LandscapeEntry, ...] = ()
    landscapes: dict[str, Landscape] = field(default_factory=dict)  # by key
    errors: dict[str, str] = field(default_factory=dict)  # by key
    lineage: dict[str, Any] = field(default_factory=dict)


Data = Mapping[str, JobLandscapes]


def keys(data: Data, train_ids: Sequence[str]) -> list[str]:
    """The landscapes to choose from: every job's, in the first job's order, then the others'."""
    out: list[str] = []
    for tid in train_ids:
        found = data.get(tid)
        for entry in found.entries if found else ():
            if entry.key not in out:
                out.append(entry.key)
    return out


def entry(data: Data, train_ids: Sequence[str], key: str | None) -> LandscapeEntry | None:
    """The first job's listing of the landscape `key` (None: no job lists it)."""
    for tid in train_ids:
        found = data.get(tid)
        for e in found.entries if found else ():
            if e.key == key:
                return e
    return None


def landscape(data: Data, train_id: str, key: str | None) -> Landscape | None:
    found = data.get(train_id)
    return found.landscapes.get(key) if found is not None and key is not None else None


def shown_landscapes(data: Data, train_ids: Sequence[str], key: str | None) -> dict[str, Landscape]:
    """The landscape `key` of each job that has it, in the jobs' order."""
    out = {}
    for tid in train_ids:
        ls = landscape(data, tid, key)
        if ls is not None:
            out[tid] = ls
    return out


def list_rows(data: Data, train_ids: Sequence[str], comparing: bool) -> list[tuple[str, Text]]:
    """(id, prompt) of each landscape in the list; compared, how many jobs have it."""
    rows = []
    for key in keys(data, train_ids):
        found = entry(data, train_ids, key)
        have = sum(1 for tid in train_ids if landscape(data, tid, key) is not None)
        text = Text(found.label if found else key, no_wrap=True, overflow="ellipsis")
        if comparing:
            text.append(f"  {have}/{len(train_ids)}", style="dim")
        rows.append((key, text))
    return rows


def missing_text(data: Data, errors: Mapping[str, str], train_id: str, selected: str | None,
                 label: str, reading: bool) -> str:
    """What a job's map says when it has no such landscape (`reading`: its load is under way)."""
    if train_id in errors:
        return errors[train_id]
    found = data.get(train_id)
    if found is None:
        return "reading…" if reading else ""
    if selected in found.errors:
        return found.errors[selected]
    if not found.entries:
        return "no loss landscapes"
    return f"no {label} landscape in this job"


def empty_reason(data: Data, errors: Mapping[str, str], train_ids: Sequence[str], waiting: bool) -> str:
    """Why no map is drawn ("" when there are landscapes); `waiting`: a job is still being read."""
    if keys(data, train_ids):
        return ""
    if waiting:
        return "reading the landscapes…"
    if errors:
        return "; ".join(f"{tid}: {err}" for tid, err in errors.items())
    return NO_LANDSCAPES


def status_text(state: LandscapeState, data: Data, train_ids: Sequence[str], loading: bool) -> Text:
    """The line above the maps: which landscape, how it is drawn, how many jobs, reading."""
    parts = []
    found = entry(data, train_ids, state.selected)
    if found is not None:
        parts.append(found.label)
    parts.append(f"relief {state.angle}°" if state.mode == "relief" else DRAWING_NAMES[state.drawing])
    if len(train_ids) > 1:  # shown now (not compared: those hidden are not drawn)
        parts.append(f"{len(train_ids)} jobs side by side")
    if loading:
        parts.append("reading…")
    return literal(" · ".join(parts))


def meta_text(state: LandscapeState, data: Data, train_ids: Sequence[str],
              colours: Mapping[str, str] | None) -> Text:
    """The metadata panel: per job, the landscape's decomposition, grid, path and convergence,
    and what its lineage says of the training."""
    text = Text()
    for tid in train_ids:
        ls = landscape(data, tid, state.selected)
        if colours is not None:
            text.append("● ", style=colours.get(tid, ""))
            text.append_text(literal(tid, "bold"))
            text.append("\n")
        if ls is None:
            text.append("no such landscape\n", style="dim")
            continue
        md = ls.metadata
        rows = [("decomposition", md.decomposition or "?"), ("unit", md.unit or "?"),
                ("step_per_epoch", str(md.step_per_epoch)),
                ("points", f"{ls.points} ({ls.z.shape[1]}×{ls.z.shape[0]})")]
        if ls.path is not None:
            rows.append(("checkpoints", str(len(ls.path))))
        cx, cy, cz = ls.convergence
        rows.append(("convergence", f"{number(cz)} at ({number(cx)}, {number(cy)})"))
        found = data.get(tid)
        lineage = found.lineage if found else {}
        for name, label in (("network", "network"), ("optimizer", "optimizer"),
                            ("learning_rate", "learning rate"), ("loss", "loss")):
            if lineage.get(name) is not None:
                rows.append((label, value_text(lineage[name])))
        for name, value in (lineage.get("metric") or {}).items():
            rows.append((str(name), value_text(value)))
        for label, value in rows:
            text.append(f"{label} ", style="dim")
            text.append_text(literal(value))
            text.append("\n")
    return text


def readout(state: LandscapeState, shown: Mapping[str, Landscape], colours: Mapping[str, str] | None) -> Text:
    """What the cursor reads: x, y and loss at the cell of each shown job; on the path, the
    checkpoint's step and loss."""
    if not shown:
        return Text("")
    if state.cursor is None:
        return Text(HINT, style="dim")
    j, i = state.cursor
    out = Text()
    for tid, ls in shown.items():
        if len(shown) > 1:
            if out:
                out.append("\n")
            out.append("● ", style=(colours or {}).get(tid, ""))
        if state.path_point is not None and ls.path is not None and state.path_point < len(ls.path):
            k = state.path_point
            unit = ls.metadata.unit or "step"
            out.append(f"checkpoint {k + 1}/{len(ls.path)}  ", style="bold")
            out.append(f"{unit} {ls.path.intervals[k]}  loss {ls.path.z[k]:.6g}  "
                       f"x {ls.path.x[k]:.4g}  y {ls.path.y[k]:.4g}")
            if k == len(ls.path) - 1:
                out.append("  (convergence point)", style="dim")
            continue
        if not (0 <= i < ls.z.shape[0] and 0 <= j < ls.z.shape[1]):
            out.append("outside this grid", style="dim")
            continue
        out.append(f"x {ls.x[j]:.4g}  y {ls.y[i]:.4g}  ")
        out.append(f"loss {ls.z[i, j]:.6g}", style="bold")
        out.append(f"  cell {j + 1},{i + 1} of {ls.z.shape[1]}×{ls.z.shape[0]}", style="dim")
    return out
