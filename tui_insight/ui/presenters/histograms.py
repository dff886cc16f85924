"""What the histogram view says: its status line, the sentence in place of the charts and the
read-out under them, from the view's state and what its charts and loader report."""
from __future__ import annotations

from rich.text import Text

from ..common.text import literal
from ..state.histograms import HistogramsState

HINT = ("↑/↓ step cursor · ←/→ bucket · o offset/overlay · d distributions · x step axis · "
        "f full screen · / filter · space select")


def status(state: HistogramsState, loading: bool, charts: int, pending: int, colour_hint: str = "") -> str:
    """The status line: mode (or distributions), step axis, charts, decodes pending, full screen;
    first, with too few colours, how to get true colour for the offset ridgelines (`colour_hint`,
    "" with true colour). `loading`: some job is still being read."""
    if not state.tags.tags:
        return "no histogram tags yet" if loading else "these jobs have no histograms"
    parts = ["distributions" if state.bands else state.mode, f"step axis: {state.axis}"]
    parts.append(f"{charts} chart{'s' if charts != 1 else ''}")
    if pending:
        parts.append(f"decoding {pending}…")
    if state.fullscreen:
        parts.append("full screen (f/esc)")
    if not state.bands and state.mode == "offset" and colour_hint:
        parts.insert(0, colour_hint)  # the ridges take a two-shade palette until then (said first: lines are cut)
    return " · ".join(parts)


def readout(chart_readout: Text, keys: str = HINT, train_id: str | None = None) -> Text:
    """Under the charts: the active chart's read-out at its cursor, or its `keys` when the cursor
    is hidden; the job first when runs are compared (`train_id`)."""
    if not chart_readout.plain:
        return Text(keys, style="dim")
    if train_id is not None:
        return Text.assemble(literal(f"{train_id}  ", "dim"), chart_readout)
    return chart_readout
