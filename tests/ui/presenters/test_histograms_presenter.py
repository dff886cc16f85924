"""What the histogram view says (status line, read-out): plain unit tests, no app, no Pilot."""
from __future__ import annotations

from rich.text import Text

from tui_insight.ui.presenters import histograms as present
from tui_insight.ui.state.histograms import HistogramsState
from tui_insight.ui.state.tags import TagSelection

TAGGED = HistogramsState().with_tags(TagSelection().with_tags(["w"]))


def test_the_status_line_says_mode_axis_charts_and_decodes_and_the_colour_hint_first():
    assert present.status(TAGGED, loading=False, charts=2, pending=0) == "offset · step axis: step · 2 charts"
    assert present.status(TAGGED, loading=False, charts=1, pending=3, colour_hint="256 colours") == (
        "256 colours · offset · step axis: step · 1 chart · decoding 3…")
    bands = TAGGED.toggle_bands()
    assert present.status(bands, loading=False, charts=1, pending=0, colour_hint="256 colours").startswith(
        "distributions")  # bands are not ridgelines: no hint
    assert present.status(HistogramsState(), loading=True, charts=0, pending=0) == "no histogram tags yet"
    assert present.status(HistogramsState(), loading=False, charts=0, pending=0) == "these jobs have no histograms"


def test_the_readout_gives_the_keys_until_the_cursor_shows_and_names_the_run_compared():
    assert present.readout(Text(""), "keys here").plain == "keys here"
    assert present.readout(Text("step 4 · 0.5"), "keys").plain == "step 4 · 0.5"
    assert present.readout(Text("step 4 · 0.5"), "keys", "./run_a").plain == "./run_a  step 4 · 0.5"
