"""What the histogram view says: each chart's title, the status line, the read-out under the
grid and the grid's shape, from the view's state and what its charts hold."""
from __future__ import annotations

from rich.text import Text

from ..common.text import literal, markup
from ..state.histograms import ChartKey, HistogramsState
from .grid import grid_shape as shape

MIN_CHART_WIDTH = 60
MIN_CHART_HEIGHT = 12
HINT = ("↑/↓ step cursor · ←/→ bucket · o offset/overlay · d distributions · x step axis · "
        "f full screen · / filter · space select")


def chart_title(key: ChartKey, comparing: bool) -> str:
    """`tag`, and `tag · job` when jobs are compared."""
    tid, tag = key
    return f"{markup(tag)} · {markup(tid)}" if comparing else markup(tag)


def status(state: HistogramsState, charts: int, pending: int, loading: bool, colour_hint: str = "") -> str:
    """The status line: mode, step axis, charts, decodes under way, full screen; `loading`: a
    job is still being read; `colour_hint`: what to do about a terminal of few colours, said
    first (the line is cut at its end) when the ridges are offset."""
    if not state.tags.tags:
        return "no histogram tags yet" if loading else "these jobs have no histograms"
    parts = ["distributions" if state.bands else state.mode, f"step axis: {state.axis}",
             f"{charts} chart{'s' if charts != 1 else ''}"]
    if pending:
        parts.append(f"decoding {pending}…")
    if state.fullscreen:
        parts.append("full screen (f/esc)")
    if colour_hint and not state.bands and state.mode == "offset":
        parts.insert(0, colour_hint)  # the ridges take a two-shade palette until then
    return " · ".join(parts)


def readout(chart_text: Text, train_id: str, comparing: bool, hint: str = HINT) -> Text:
    """The active chart's read-out (`chart_text`: what it reads at its cursor), its keys
    (`hint`) while it has no cursor, and the job in front when jobs are compared."""
    if not chart_text.plain:
        return Text(hint, style="dim")
    if comparing:
        return Text.assemble(literal(f"{train_id}  ", "dim"), chart_text)
    return chart_text


def grid_shape(width: int, height: int, count: int, fullscreen: bool = False) -> tuple[int, int]:
    """(columns, row height) of the histogram charts' grid: charts at least `MIN_CHART_WIDTH`
    wide and `MIN_CHART_HEIGHT` tall (`grid.grid_shape`)."""
    return shape(width, height, count, fullscreen, min_width=MIN_CHART_WIDTH, min_height=MIN_CHART_HEIGHT)
