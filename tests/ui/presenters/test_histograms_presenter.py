"""What the histogram view says (titles, status line, read-out, grid shape), from histograms
written by the writer: plain unit tests, no app, no Pilot."""
from __future__ import annotations

import numpy as np
import pytest
from rich.text import Text
from uihelp import T0

from tui_insight.summary.formats.writer import SummaryWriter
from tui_insight.summary.queries.histograms import histogram_steps, rebin
from tui_insight.summary.store.cache import SummaryCache
from tui_insight.ui.presenters import histograms as present
from tui_insight.ui.state.histograms import HistogramsState
from tui_insight.ui.state.tags import TagSelection
from tui_insight.ui.widgets.ridgeline import ridge_readout


@pytest.fixture(scope="module")
def cache(tmp_path_factory) -> SummaryCache:
    root = tmp_path_factory.mktemp("logs")
    rng = np.random.default_rng(7)
    with SummaryWriter(root / "hist", timestamp=int(T0), wall_time=T0) as writer:
        for step in (1, 2, 3):
            writer.add_histogram("w", rng.normal(step * 0.1, 1.0, 200))
            writer.add_histogram("b", rng.normal(0, 0.5, 50))
            writer.record(step, wall_time=T0 + step)
    with SummaryWriter(root / "scalars_only", timestamp=int(T0), wall_time=T0) as writer:
        writer.add_scalar("loss", 1.0)
        writer.record(1, wall_time=T0)
    cache = SummaryCache(str(root))
    cache.reload()
    return cache


def state_of(cache: SummaryCache, train_id: str, **kwargs) -> HistogramsState:
    tags = cache.job(train_id).tag_names("histogram")
    return HistogramsState(**kwargs).with_tags(TagSelection().with_tags(sorted(tags)))


def test_a_job_without_histograms_says_so_and_while_read_says_none_yet(cache):
    state = state_of(cache, "./scalars_only")
    assert present.status(state, 0, 0, loading=False) == "these jobs have no histograms"
    assert present.status(state, 0, 0, loading=True) == "no histogram tags yet"


def test_status_names_mode_axis_charts_decodes_and_full_screen(cache):
    state = state_of(cache, "./hist")
    assert present.status(state, 2, 0, loading=False) == "offset · step axis: step · 2 charts"
    state = state_of(cache, "./hist", mode="overlay", axis="wall", fullscreen=("./hist", "w"))
    assert present.status(state, 1, 3, loading=False) == (
        "overlay · step axis: wall · 1 chart · decoding 3… · full screen (f/esc)")
    assert present.status(state_of(cache, "./hist", bands=True), 2, 0, False).startswith("distributions · ")


def test_the_colour_hint_leads_only_where_ridges_are_offset(cache):
    hint = "256 colours: set COLORTERM"
    assert present.status(state_of(cache, "./hist"), 2, 0, False, hint).startswith(hint + " · offset")
    assert hint not in present.status(state_of(cache, "./hist", mode="overlay"), 2, 0, False, hint)
    assert hint not in present.status(state_of(cache, "./hist", bands=True), 2, 0, False, hint)


def test_titles_name_the_job_only_when_jobs_are_compared():
    assert present.chart_title(("./a", "layer[1]/w"), comparing=False) == "layer\\[1]/w"
    assert present.chart_title(("./a", "w"), comparing=True) == "w · ./a"


def test_readout_is_the_chart_at_its_cursor_else_its_keys(cache):
    view = cache.job("./hist")
    ridge = rebin(histogram_steps(cache, view, "w"))
    at_cursor = ridge_readout(ridge, 1, 2, view.first_wall_time)
    assert present.readout(at_cursor, "./hist", comparing=False).plain == at_cursor.plain
    assert "step 2" in at_cursor.plain
    compared = present.readout(at_cursor, "./hist", comparing=True)
    assert compared.plain == f"./hist  {at_cursor.plain}"
    hint = present.readout(Text(""), "./hist", comparing=True)
    assert hint.plain == present.HINT and hint.style == "dim"


def test_histogram_charts_are_at_least_60_wide_and_12_tall():
    assert present.grid_shape(130, 40, 9) == (2, 16)
    assert present.grid_shape(50, 20, 9) == (1, 12)
