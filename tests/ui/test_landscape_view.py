"""Tests of the loss-landscape view (issue 10) and of the heat map it draws with.

The view is mounted alone in a small app (as the dashboard builds it), over the MindSpore 2.10
fixtures; values the read-out shows are compared with MindInsight's answers (truth file).
"""
from __future__ import annotations

import json

import numpy as np
import pytest
from fixture_paths import EXTRAS_LOGS, FIXTURES
from textual.app import App, ComposeResult
from textual.widgets import OptionList, Static
from uihelp import make_app, run_pilot, wait_for

from tui_insight.summary.queries.landscape import Landscape, LandscapeMetadata, LossPath
from tui_insight.summary.store.cache import SummaryCache
from tui_insight.ui.app import InsightApp
from tui_insight.ui.views.landscape import LandscapeView, MapRow
from tui_insight.ui.widgets.heatmap import (
    CONVERGENCE,
    CURSOR,
    LUT,
    RAMP,
    UPPER_HALF,
    HeatOptions,
    ReliefOptions,
    draw_heatmap,
    draw_relief,
    path_cells,
    sample,
)

TRUTH = json.loads((FIXTURES / "mindspore_extras.truth.json").read_text())["landscapes"]
STEP, EPOCH = "./landscape_step", "./landscape_epoch"


@pytest.fixture(scope="module")
def cache() -> SummaryCache:
    c = SummaryCache(str(EXTRAS_LOGS))
    c.reload()
    return c


class Host(App):
    """The landscape view alone, as the dashboard builds it."""

    CSS_PATH = InsightApp.CSS_PATH

    def __init__(self, cache: SummaryCache, train_ids: tuple[str, ...], saved: dict | None = None):
        super().__init__()
        self.cache = cache
        self.train_ids = train_ids
        self.saved = saved

    def compose(self) -> ComposeResult:
        yield LandscapeView(self.cache, self.train_ids, saved=self.saved)


async def ready(pilot) -> LandscapeView:
    view = pilot.app.query_one(LandscapeView)
    assert await wait_for(pilot, lambda: view.pending() == 0 and bool(view.shown_landscapes())
                          and pilot.app.focused is not None)
    await pilot.pause()
    return view


def readout(view) -> str:
    return str(view.query_one("#landscape-readout", Static).render())


def text_of(widget) -> str:
    return str(widget.render())


def synthetic(m=8, n=10, path=True) -> Landscape:
    x = np.linspace(-1, 1, n)
    y = np.linspace(-2, 2, m)
    z = np.add.outer(y, 0 * x) + 3.0  # loss grows with y only
    lp = LossPath((1, 2, 3), np.array([-0.5, 0.0, 0.5]), np.array([-1.0, 0.0, 1.0]), np.array([2.0, 3.0, 4.0])) \
        if path else None
    return Landscape("landscape_[1, 3]", 0, x, y, z, lp, (0.5, 1.0, 4.0), LandscapeMetadata("PCA", "step", 8),
                     (1, 2, 3) if path else ())


# -- drawing ----------------------------------------------------------------------------------

def test_heat_map_uses_half_blocks_with_larger_y_at_the_top():
    ls = synthetic(path=False)
    picture = draw_heatmap(ls, 60, 20, HeatOptions())
    g = picture.geometry
    assert g.rows == 19 and g.columns > 30
    top, bottom = picture.strips[g.top], picture.strips[g.top + g.rows - 1]
    def first_map_segment(strip):
        for seg in strip:
            if UPPER_HALF in seg.text:
                return seg
    t, b = first_map_segment(top), first_map_segment(bottom)
    high = {"#%06x" % int(c) for c in LUT[-12:]}
    low = {"#%06x" % int(c) for c in LUT[:12]}
    assert t.style.color.triplet.hex in high  # the top pixel: the highest loss (largest y)
    assert b.style.bgcolor.triplet.hex in low  # the bottom pixel: the lowest
    # two grid rows per cell row: each cell's two pixels differ
    assert t.style.color != t.style.bgcolor


def test_colour_bar_reads_loss_values_and_x_axis_is_labelled():
    ls = synthetic(path=False)
    lines = [s.text for s in draw_heatmap(ls, 60, 20, HeatOptions()).strips]
    right = "".join(line[-8:] for line in lines)
    assert "5" in right and "1" in right  # loss 1 .. 5 on the colour bar
    assert "-1" in lines[-1] and "1" in lines[-1]  # x axis under the map


def test_contours_are_braille_lines_and_both_keeps_the_heat():
    ls = synthetic(path=False)
    contour = draw_heatmap(ls, 60, 20, HeatOptions(drawing="contour"))
    g = contour.geometry
    def map_text(picture):
        return "".join(s.text[g.left:g.left + g.columns] for s in picture.strips[g.top:g.top + g.rows])
    text = map_text(contour)
    assert any(0x2800 < ord(ch) <= 0x28FF for ch in text) and UPPER_HALF not in text
    both = map_text(draw_heatmap(ls, 60, 20, HeatOptions(drawing="both")))
    assert UPPER_HALF in both and any(0x2800 < ord(ch) <= 0x28FF for ch in both)
    # loss depends on y only: contour lines are horizontal, whole rows of dots
    rows_with_lines = [r for r in range(g.rows) if any(0x2800 < ord(ch) <= 0x28FF
                                                      for ch in contour.strips[r].text[g.left:g.left + g.columns])]
    full = [r for r in rows_with_lines if all(0x2800 < ord(ch) <= 0x28FF
                                              for ch in contour.strips[r].text[g.left:g.left + g.columns])]
    assert len(full) >= 6


def test_no_color_falls_back_to_a_shade_ramp():
    ls = synthetic(path=False)
    picture = draw_heatmap(ls, 60, 20, HeatOptions(no_color=True))
    g = picture.geometry
    assert all(seg.style is None or (seg.style.color is None and seg.style.bgcolor is None)
               for strip in picture.strips for seg in strip)
    top = picture.strips[g.top].text[g.left:g.left + g.columns]
    bottom = picture.strips[g.top + g.rows - 1].text[g.left:g.left + g.columns]
    assert set(top) == {RAMP[-1]} and RAMP.index(bottom[0]) < 2  # high loss dark ink, low loss light


def test_path_is_numbered_and_the_convergence_point_marked_and_cursor_drawn():
    ls = synthetic()
    picture = draw_heatmap(ls, 60, 20, HeatOptions(cursor=(0, 0)))
    g = picture.geometry
    cells = path_cells(g, ls)
    lines = [s.text for s in picture.strips]
    conv = g.cell_of(0.5, 1.0)
    assert lines[conv[1]][conv[0]] == CONVERGENCE
    for k, (col, row) in enumerate(cells):
        if (col, row) == conv:  # the last checkpoint is the convergence point: its number beside it
            col += 1
        assert lines[row][col] == str(k + 1)
    assert cells[-1] == conv
    col, row = g.cell_of_node(0, 0)
    assert lines[row][col] == CURSOR and (col, row) == (g.left, g.top + g.rows - 1)


def test_sample_meets_the_grid_at_its_corners():
    z = np.arange(12, dtype=float).reshape(3, 4)
    s = sample(z, 3, 4)
    assert s.shape == (3, 4) and s[0, 0] > s[-1, 0]  # row 0: the largest y
    assert np.isclose(sample(z, 101, 101)[50, 50], z.mean())


def test_relief_draws_a_wireframe_that_turns():
    ls = synthetic()
    a = [s.text for s in draw_relief(ls, 60, 20, ReliefOptions(angle=30))]
    b = [s.text for s in draw_relief(ls, 60, 20, ReliefOptions(angle=120))]
    assert any(0x2800 < ord(ch) <= 0x28FF for ch in "".join(a))
    assert a != b and "azimuth 120°" in b[-1]


def test_a_big_grid_draws_at_160x48():
    rng = np.random.default_rng(1)
    x = np.linspace(-1, 1, 256)
    z = np.add.outer(x ** 2, x ** 2) + 0.01 * rng.standard_normal((256, 256))
    ls = Landscape("t", 0, x, x, z, None, (0.0, 0.0, 0.0), LandscapeMetadata(), ())
    picture = draw_heatmap(ls, 160, 48, HeatOptions(drawing="both"))
    assert len(picture.strips) == 48 and all(s.cell_length == 160 for s in picture.strips)


# -- the view ---------------------------------------------------------------------------------

def test_list_names_each_landscape_and_the_readout_reads_the_grid(cache):
    app = Host(cache, (STEP,))

    async def body(pilot):
        view = await ready(pilot)
        listing = view.query_one("#landscape-list", OptionList)
        labels = [str(listing.get_option_at_index(i).prompt) for i in range(listing.option_count)]
        assert labels == ["steps 1–5", "steps 6–8", "final (step 8)"]
        assert isinstance(app.focused, MapRow)
        assert "arrows cursor" in readout(view)
        await pilot.press("right")  # the cursor shows up in the middle
        assert view.state.cursor == (2, 2)
        await pilot.press("right")
        await pilot.pause()
        assert view.state.cursor == (3, 2)
        truth = TRUTH[STEP]["intervals"][0]["landscape"]["points"]
        text = readout(view)
        assert f"loss {truth['z'][2][3]:.6g}" in text and f"x {truth['x'][3]:.4g}" in text
        assert f"y {truth['y'][2]:.4g}" in text
        await pilot.press("up", "up", "up")  # stops at the top row (largest y)
        assert view.state.cursor == (3, 4)
        return True

    assert run_pilot(app, body)


def test_keys_change_drawing_landscape_relief_and_panel(cache):
    app = Host(cache, (STEP,))

    async def body(pilot):
        view = await ready(pilot)
        status = view.query_one("#landscape-status", Static)
        await pilot.press("c")
        assert view.state.drawing == "contour" and "contour lines" in text_of(status)
        await pilot.press("c")
        assert view.state.drawing == "both"
        await pilot.press("full_stop")
        await pilot.pause()
        assert view.state.selected == "interval:6-8" and "steps 6–8" in text_of(status)
        await pilot.press("full_stop", "full_stop")
        assert view.state.selected == "final"
        await pilot.pause()
        meta = text_of(view.query_one("#landscape-meta", Static))
        assert "decomposition Random" in meta and "network Net" in meta and "optimizer Momentum" in meta
        assert "points 25 (5×5)" in meta and "learning rate 0.05\n" in meta  # as every view writes numbers, not MindInsight's %e
        await pilot.press("v")
        assert view.state.mode == "relief"
        await pilot.press("right_square_bracket")
        await pilot.pause()
        assert view.state.angle == 45
        chart = view.maps[STEP]
        assert isinstance(chart.options, ReliefOptions) and chart.options.angle == 45
        assert any("azimuth 45°" in s.text for s in chart.strips())
        await pilot.press("m")
        await pilot.pause()
        assert not view.query_one("#landscape-meta").display
        return True

    assert run_pilot(app, body)


def test_list_picks_the_landscape(cache):
    app = Host(cache, (EPOCH,))

    async def body(pilot):
        view = await ready(pilot)
        listing = view.query_one("#landscape-list", OptionList)
        labels = [str(listing.get_option_at_index(i).prompt) for i in range(listing.option_count)]
        assert labels == ["epochs 1–3", "final (epoch 3)"]
        listing.focus()
        await pilot.press("down")
        await pilot.pause()
        assert view.state.selected == "final"
        await pilot.press("enter")
        await pilot.pause()
        assert isinstance(app.focused, MapRow)
        return True

    assert run_pilot(app, body)


def test_no_color_draws_the_shade_ramp(cache, monkeypatch):
    monkeypatch.setenv("NO_COLOR", "1")
    app = Host(cache, (STEP,))

    async def body(pilot):
        view = await ready(pilot)
        assert app.no_color
        strips = view.maps[STEP].strips()
        text = "".join(s.text for s in strips)
        assert UPPER_HALF not in text and any(ch in RAMP[1:] for ch in text)
        assert "1" in text and CONVERGENCE in text
        return True

    assert run_pilot(app, body)


def test_compared_jobs_side_by_side_on_one_colour_scale(cache):
    app = Host(cache, (STEP, EPOCH))

    async def body(pilot):
        view = await ready(pilot)
        assert "2 jobs side by side" in text_of(view.query_one("#landscape-status", Static))
        # the first listed interval exists only in the step job: the epoch map says so
        assert view.maps[EPOCH].landscape is None and "no steps 1–5 landscape" in view.maps[EPOCH].message
        view.state = view.state.select("final")
        await pilot.pause()
        a, b = view.maps[STEP], view.maps[EPOCH]
        assert a.landscape is not None and b.landscape is not None
        lo = min(min(map(min, TRUTH[j]["final"]["points"]["z"])) for j in (STEP, EPOCH))
        hi = max(max(map(max, TRUTH[j]["final"]["points"]["z"])) for j in (STEP, EPOCH))
        assert a.options.value_range == b.options.value_range == (lo, hi)
        await pilot.press("right")
        await pilot.pause()
        assert len(readout(view).splitlines()) == 2  # one line per job: presenters/test_landscape_presenter.py
        assert "shared colour scale" in text_of(view.query_one("#landscape-legend", Static))
        return True

    assert run_pilot(app, body, size=(160, 48))


def test_remembered_state_comes_back(cache):
    saved = {"selected": "interval:6-8", "drawing": "both", "cursor": [1, 1], "panel": False}
    app = Host(cache, (STEP,), saved=saved)

    async def body(pilot):
        view = await ready(pilot)
        assert view.state.selected == "interval:6-8" and view.state.drawing == "both"
        assert view.state.cursor == (1, 1) and not view.query_one("#landscape-meta").display
        truth = TRUTH[STEP]["intervals"][1]["landscape"]["points"]
        assert f"loss {truth['z'][1][1]:.6g}" in readout(view)
        return True

    assert run_pilot(app, body)


def test_a_job_without_landscapes_says_so(tmp_path):
    from uihelp import write_run
    write_run(tmp_path, "plain")
    c = SummaryCache(str(tmp_path))
    c.reload()
    app = Host(c, ("./plain",))

    async def body(pilot):
        view = pilot.app.query_one(LandscapeView)
        assert await wait_for(pilot, lambda: view.pending() == 0)
        await pilot.pause()
        assert "no loss landscapes" in text_of(view.query_one("#landscape-empty", Static))
        await pilot.press("c", "v", "n", "right", "full_stop")  # nothing to act on: no traceback
        return True

    assert run_pilot(app, body)


# -- snapshots --------------------------------------------------------------------------------

def snapshot_app(train_ids, keys):
    c = SummaryCache(str(EXTRAS_LOGS))
    c.reload()
    app = Host(c, train_ids)

    async def before(pilot):
        await ready(pilot)
        await pilot.press(*keys)
        await pilot.pause()

    return app, before


def test_snapshot_80x24(snap_compare):
    app, before = snapshot_app((STEP,), ("n", "n"))
    assert snap_compare(app, terminal_size=(80, 24), run_before=before)


def test_snapshot_160x48(snap_compare):
    app, before = snapshot_app((STEP,), ("c", "c", "right", "up"))
    assert snap_compare(app, terminal_size=(160, 48), run_before=before)


def test_broken_landscapes_and_axes_at_float64_ends_draw_or_say_why(tmp_path):
    """Grids of the wrong size, a short path, NaN and infinite losses, axes from -1e308 to 1e308
    (whose span overflows: the tick labels raised before) and a tag that is not UTF-8: every
    landscape draws in every mode and size, or the job says what is wrong."""
    from hostile_logs import write_broken_landscapes, write_non_utf8_landscape

    (tmp_path / "bad").mkdir()
    write_broken_landscapes(tmp_path / "bad")
    write_non_utf8_landscape(tmp_path / "bad")
    c = SummaryCache(str(tmp_path))
    c.reload()
    app = Host(c, ("./bad",))

    async def body(pilot):
        view = await ready(pilot)
        assert len(view.shown_landscapes()) >= 1
        for size in ((120, 36), (30, 10)):
            await pilot.resize_terminal(*size)
            for _ in range(6):
                await pilot.press("full_stop", "c", "v", "n", "right", "c", "v", "m", "m")
        assert pilot.app.return_code is None
        return True

    assert run_pilot(app, body)


def extreme(x, y, z, path=None) -> Landscape:
    x, y = np.array(x, dtype=float), np.array(y, dtype=float)
    return Landscape("t", 0, x, y, np.array(z, dtype=float).reshape(len(y), len(x)), path, (0.0, 0.0, 0.0),
                     LandscapeMetadata("PCA", "step", 0), (1, 2) if path else ())


@pytest.mark.parametrize("landscape", [
    extreme([-1e308, 1e308], [-1e308, 1e308], [1e308, -1e308, 0, 1]),  # spans that overflow
    extreme([0, 1], [0, 1], [1e308, -1e308, 0, 1]),
    extreme([0, 5e-324], [0, 5e-324], [5e-324, 0, 0, 1]),  # spans too small for round ticks
    extreme([0, 1], [0, 1], [np.nan, np.inf, -np.inf, np.nan]),
    extreme([np.nan, 1], [0, np.nan], [1, 2, 3, 4],
            LossPath((1, 2), np.array([0.5, 1e308]), np.array([0.5, np.nan]), np.array([1.0, 2.0]))),
], ids=["huge-axes", "huge-losses", "tiny-axes", "no-finite-loss", "nan-axes-and-path"])
def test_extreme_landscapes_draw_at_any_size(landscape):
    """Found while building the chaos test's hostile LOGDIR: axes or losses near float64's ends
    raised in the tick labels, the colour bar and the tick spacing; a pane squeezed to no columns
    raised in the canvas."""
    for width, height in ((0, 5), (8, 3), (9, 4), (80, 20)):
        for drawing in ("heat", "contour", "both"):
            picture = draw_heatmap(landscape, width, height, HeatOptions(drawing=drawing, cursor=(0, 0)))
            assert len(picture.strips) == height
        assert len(draw_relief(landscape, width, height)) == height


@pytest.mark.parametrize("size", [(80, 24), (160, 48)])
def test_escape_leaves_the_landscape_view_in_one_press_with_its_cursor_placed(size):
    app = make_app(EXTRAS_LOGS)

    async def body(pilot):
        assert await wait_for(pilot, lambda: STEP in app.cache.jobs and app.cache.jobs[STEP].ready)
        app.open_jobs((STEP,), "landscape")
        assert await wait_for(pilot, lambda: bool(app.screen.query(LandscapeView)))
        view = app.screen.query_one(LandscapeView)
        assert await wait_for(pilot, lambda: view.pending() == 0 and bool(view.shown_landscapes()))
        await pilot.press("n")  # the cursor on the path's first checkpoint
        await pilot.pause()
        placed = view.state.cursor is not None
        await pilot.press("escape")
        assert await wait_for(pilot, lambda: type(app.screen).__name__ == "JobsScreen")
        return placed

    assert run_pilot(app, body, size)
