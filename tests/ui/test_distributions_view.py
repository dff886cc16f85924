"""Distributions (issue 26): TensorBoard's percentile bands over steps, `d` in the histogram view.

The values read out are TensorBoard's (`summary.queries.distributions`, tested against
tensorboard's compressor in tests/summary/test_distributions.py); here: the chart draws its
nested bands and cursor, the read-out line shows the nine values at the cursor's step, and `d`
switches between ridgelines and bands keeping the cursor's step.
"""
from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from rich.color import Color
from textual.widgets import Static
from uihelp import MINDSPORE_LOGS, T0, make_app, run_pilot, wait_for, wait_for_view

from tui_insight.summary.formats.writer import SummaryWriter
from tui_insight.summary.queries.distributions import (
    BASIS_POINTS,
    Distribution,
    histogram_distribution,
    tensor_distribution,
)
from tui_insight.ui.common.palette import SERIES_COLOURS, ThemeColours, hex_to_rgb
from tui_insight.ui.screens.help import collect_bindings
from tui_insight.ui.views.histograms import HistogramBands, HistogramChart, HistogramsView
from tui_insight.ui.views.tensors import TensorsView
from tui_insight.ui.widgets.tensor_panes import TensorBands, TensorChart
from tui_insight.ui.widgets.chart import ChartImage
from tui_insight.ui.widgets.bands import (
    BandOptions,
    band_colours,
    bp_label,
    draw_bands,
    percentile_readout,
    short_number,
)

MEDIAN_COLOUR, CURSOR_COLOUR = ThemeColours().warning, ThemeColours().accent  # insight-dark's, the tests' theme
BACKGROUND = "#000000"
COLOUR = "#56B4E9"
Z = np.array([-3.0, -1.5, -1.0, -0.5, 0.0, 0.5, 1.0, 1.5, 3.0])  # a normal's values at the basis points


def spread(steps) -> Distribution:
    """A distribution whose spread grows with the step."""
    steps = np.asarray(steps, dtype=np.int64)
    values = (1.0 + steps[:, None] / 10.0) * Z[None, :]
    return Distribution(steps, T0 + steps.astype(np.float64), values)


def colours_in(image) -> set[tuple[int, int, int]]:
    found = set()
    for line in image.lines:
        for segment in line:
            colour = segment.style.color if segment.style is not None else None
            if isinstance(colour, Color) and colour.triplet is not None and segment.text.strip(" "):
                found.add(tuple(colour.triplet))
    return found


# -- drawing (pure) -------------------------------------------------------------------------------

def test_bands_are_drawn_nested_with_the_median_and_a_legend():
    image = draw_bands(spread(range(0, 50, 5)), BandOptions(colour=COLOUR), 80, 20, BACKGROUND)
    assert len(image.lines) == 20
    shades = band_colours(COLOUR, BACKGROUND)
    drawn = colours_in(image)
    assert set(shades) <= drawn and hex_to_rgb(MEDIAN_COLOUR) in drawn
    assert hex_to_rgb(CURSOR_COLOUR) not in drawn  # no cursor asked for
    # Down the middle column, from the top: outer band, then inner ones, the median, and out again.
    plot = [line for line in image.lines[:-3]]
    column = 60
    order = []
    for line in plot:
        cells = "".join(seg.text for seg in line)
        at, x = None, 0
        for seg in line:
            if x <= column < x + len(seg.text):
                at = seg.style.color.triplet if seg.style is not None and seg.style.color is not None else None
                break
            x += len(seg.text)
        if at is not None and cells[column] != " " and (not order or order[-1] != tuple(at)):
            order.append(tuple(at))
    inner = [shades.index(c) for c in order if c in shades]
    assert inner[:4] == [0, 1, 2, 3] and inner[-4:] == [3, 2, 1, 0]  # nested, symmetric
    legend = "".join(seg.text for seg in image.lines[-1])
    assert "min–max" in legend and "31–69%" in legend and "median" in legend


def cursor_columns(image) -> set[int]:
    found = set()
    for line in image.lines:
        at = 0
        for seg in line:
            colour = seg.style.color if seg.style is not None else None
            if colour is not None and colour.triplet is not None and tuple(colour.triplet) == hex_to_rgb(CURSOR_COLOUR):
                found.add(at)
            at += len(seg.text)
    return found


def test_the_cursor_is_drawn_over_the_bands_at_its_step():
    dist = spread(range(0, 50, 5))
    columns = [cursor_columns(draw_bands(dist, BandOptions(colour=COLOUR, cursor=i), 80, 20, BACKGROUND))
               for i in (0, 4, 9)]
    assert all(len(c) == 1 for c in columns)  # one vertical line
    first, middle, last = (c.pop() for c in columns)
    plain = draw_bands(dist, BandOptions(colour=COLOUR), 80, 20, BACKGROUND).plain.splitlines()[0]
    assert first == plain.find("┌") + 1 and last == plain.find("┐") - 1  # the plot's first and last column
    assert abs(middle - (first + (last - first) * 4 / 9)) <= 1


def test_without_data_the_chart_says_why():
    assert "loading…" in draw_bands(None, BandOptions(), 60, 12).plain
    assert "cannot read" in draw_bands(None, BandOptions(), 60, 12, message="cannot read w").plain
    nan = Distribution(np.array([1]), np.array([T0]), np.full((1, 9), np.nan))
    assert "no finite values" in draw_bands(nan, BandOptions(), 60, 12).plain


def test_the_readout_names_every_basis_point_of_the_step():
    dist = spread([10, 20, 30])
    text = percentile_readout(dist, 1).plain
    assert text.startswith("step 20")
    for bp, value in zip(BASIS_POINTS, dist.values[1]):
        assert f"{bp_label(bp)} {short_number(value)}" in text
    assert [bp_label(bp) for bp in (0, 668, 5000, 9332, 10000)] == ["min", "6.68%", "median", "93.32%", "max"]


# -- the histogram view -----------------------------------------------------------------------------

def write_histograms(directory: Path, steps) -> None:
    rng = np.random.default_rng(11)
    with SummaryWriter(directory, timestamp=int(T0), wall_time=T0) as writer:
        for step in steps:
            writer.add_histogram("w", rng.normal(step * 0.05, 1.0 + step * 0.01, 400))
            writer.record(step, wall_time=T0 + step)


def readout_of(view) -> str:
    return str(view.query_one("#histogram-readout", Static).render())


@pytest.mark.parametrize("size", [(80, 24), (160, 48)], ids=["80x24", "160x48"])
def test_d_shows_distributions_with_a_step_cursor_and_back(tmp_path, size):
    write_histograms(tmp_path / "logs" / "run", range(0, 100, 10))
    app = make_app(tmp_path / "logs")
    expected = histogram_distribution(app.cache, app.cache.job("./run"), "w")
    assert len(expected) == 10

    async def body(pilot):
        app.open_jobs(("./run",), "histograms")
        await pilot.pause()
        view = app.screen.query_one(HistogramsView)
        assert await wait_for(pilot, lambda: view.query(HistogramChart) and view.query_one(HistogramChart).ridge)
        view.query_one(HistogramChart).focus()
        await pilot.press("up", "up")  # the ridgeline's cursor: on the newest step, then one older
        assert view.query_one(HistogramChart).cursor_step_value == 80
        await pilot.press("d")
        assert await wait_for(pilot, lambda: view.query(HistogramBands) and view.query_one(HistogramBands).dist)
        assert not view.query(HistogramChart)
        chart = view.query_one(HistogramBands)
        assert app.screen.focused is chart
        assert "distributions" in str(view.query_one("#histogram-status", Static).render())

        def shows(index: int) -> bool:
            text = readout_of(view)
            return f"step {expected.steps[index]} " in text and all(
                f"{bp_label(bp)} {short_number(v)}" in text for bp, v in zip(BASIS_POINTS, expected.values[index]))

        assert await wait_for(pilot, lambda: shows(8))  # the cursor kept its step
        await pilot.press("left", "left")
        assert await wait_for(pilot, lambda: shows(6))
        await pilot.press("home")
        assert await wait_for(pilot, lambda: shows(0))
        await pilot.press("right")
        assert await wait_for(pilot, lambda: shows(1))
        assert chart.theme_colours().accent in {f"#{r:02x}{g:02x}{b:02x}" for r, g, b in colours_in(chart.image())}
        await pilot.press("d")
        assert await wait_for(pilot, lambda: view.query(HistogramChart) and not view.query(HistogramBands))
        assert view.query_one(HistogramChart).cursor_step_value == 10
        return True

    assert run_pilot(app, body, size)


def test_d_is_in_the_help_and_remembered(tmp_path):
    write_histograms(tmp_path / "logs" / "run", range(3))
    app = make_app(tmp_path / "logs")

    async def body(pilot):
        app.open_jobs(("./run",), "histograms")
        await pilot.pause()
        view = app.screen.query_one(HistogramsView)
        assert await wait_for(pilot, lambda: bool(view.query(HistogramChart)))
        view.query_one(HistogramChart).focus()
        await pilot.press("d")
        assert await wait_for(pilot, lambda: bool(view.query(HistogramBands)))
        assert view.state.to_json()["bands"] is True
        ids = {binding.id for group in collect_bindings(app.screen).values() for _, binding, _ in group}
        assert {"histograms.bands", "histograms.bands_older", "histograms.bands_newer"} <= ids
        return True

    assert run_pilot(app, body)


# -- snapshots ----------------------------------------------------------------------------------

def snapshot_app(train_id: str):
    app = make_app(MINDSPORE_LOGS)

    async def before(pilot):
        app.open_jobs((train_id,), "histograms")
        await pilot.pause()
        view = app.screen.query_one(HistogramsView)
        assert await wait_for(pilot, lambda: view.loader.pending() == 0 and bool(view.query(HistogramChart)))
        view.query_one(HistogramChart).focus()
        await pilot.press("d")
        assert await wait_for(pilot, lambda: bool(view.query(HistogramBands))
                              and all(c.dist is not None for c in view.query(HistogramBands)))
        await pilot.press("end", "left")  # the cursor on the step before the last
        await pilot.pause()

    return app, before


@pytest.mark.parametrize("size", [(80, 24), (160, 48)], ids=["80x24", "160x48"])
def test_snapshot(snap_compare, size):
    app, before = snapshot_app("./lenet_lr0.01")
    assert snap_compare(app, terminal_size=size, run_before=before)


# -- the tensor view ------------------------------------------------------------------------------

def readout_text(view, selector: str) -> str:
    return str(view.query_one(selector, Static).render())


@pytest.mark.parametrize("size", [(80, 24), (160, 48)], ids=["80x24", "160x48"])
def test_b_shows_a_tensors_distribution_from_the_table_and_the_ridgeline(tmp_path, size):
    rng = np.random.default_rng(5)
    with SummaryWriter(tmp_path / "logs" / "run", timestamp=int(T0), wall_time=T0) as writer:
        for step in range(36):  # the case: a 36-step tensor
            writer.add_tensor("t", rng.normal(step * 0.1, 1.0, (8, 16)).astype(np.float32))
            writer.record(step, wall_time=T0 + step)
    app = make_app(tmp_path / "logs")
    expected = tensor_distribution(app.cache, app.cache.job("./run"), "t")  # of the kept steps
    assert len(expected) > 10

    async def body(pilot):
        app.open_jobs(("./run",), view_id="tensors")
        await wait_for_view(pilot, app, "TensorsView")
        view = app.screen.query_one(TensorsView)
        bands = view.query_one(TensorBands)
        await pilot.press("b")  # from the table straight to the bands
        assert await wait_for(pilot, lambda: bands.dist is not None and bands.display)
        assert app.screen.focused is bands and not view.query_one(TensorChart).display
        assert "distribution" in readout_text(view, "#tensor-title")
        await pilot.press("end", "left")
        text = readout_text(view, "#tensor-readout")
        assert f"step {expected.steps[-2]} " in text
        assert all(f"{bp_label(bp)} {short_number(v)}" in text for bp, v in zip(BASIS_POINTS, expected.values[-2]))
        await pilot.press("b")  # the ridgeline of the same decode
        assert await wait_for(pilot, lambda: view.query_one(TensorChart).display and not bands.display)
        assert view.query_one(TensorChart).ridge is not None
        await pilot.press("b", "h")  # bands again, then the table
        assert await wait_for(pilot, lambda: not bands.display and not view.query_one(TensorChart).display)
        assert view.state.to_json()["bands"] is True  # `h` comes back to the bands
        return True

    assert run_pilot(app, body, size)


# -- ridgelines in 256 colours --------------------------------------------------------------------

def same_steps_ridge(n: int = 36):
    """n steps of one tensor's histogram: ridges of one shape, each told from its neighbour by colour only."""
    from tui_insight.summary.queries.histograms import HistogramStep, rebin
    from tui_insight.summary.queries.tensors import tensor_histogram

    values = np.random.default_rng(1).normal(0.0, 1.0, (8, 16))
    return rebin([HistogramStep(i, T0 + i, tensor_histogram(values)) for i in range(n)])


def cells_in_256(strips) -> list[list[tuple]]:
    """Each cell as a terminal of 256 colours shows it: (character, fg number, bg number)."""
    from rich.color import ColorSystem

    rows = []
    for strip in strips:
        row = []
        for seg in strip:
            style = seg.style
            fg = style.color.downgrade(ColorSystem.EIGHT_BIT).number if style and style.color else None
            bg = style.bgcolor.downgrade(ColorSystem.EIGHT_BIT).number if style and style.bgcolor else None
            row += [(ch, fg, bg) for ch in seg.text]
        rows.append(row)
    return rows


def colour_changes(strips, column: int) -> int:
    """How often the colours change down one column of the plot in 256 colours."""
    cells = [row[column] for row in cells_in_256(strips)[:-2]]
    return sum(1 for a, b in zip(cells, cells[1:]) if a[1:] != b[1:])


@pytest.mark.parametrize("background", ["#1e1e1e", "#272822", "#ffffff"])
@pytest.mark.parametrize("colour", SERIES_COLOURS[:6])
def test_a_36_step_ridgeline_stays_readable_in_256_colours(background, colour):
    from tui_insight.ui.widgets.ridgeline import RidgeOptions, draw_ridgeline

    ridge = same_steps_ridge()
    faded = draw_ridgeline(ridge, RidgeOptions(colour=colour), 100, 40, background)
    limited = draw_ridgeline(ridge, RidgeOptions(colour=colour, true_colour=False), 100, 40, background)
    # The fade by age collapses to two or three of the 256 colours, shared by runs of neighbours;
    # two alternating fills under the job's outline change at every ridge.
    before, after = colour_changes(faded, 50), colour_changes(limited, 50)
    assert after >= 20 and after >= 1.5 * before, (before, after)


def test_the_true_colour_palette_is_kept_where_the_terminal_has_it():
    from tui_insight.ui.widgets.ridgeline import RidgeOptions, draw_ridgeline

    ridge = same_steps_ridge()
    truecolour = {seg.style for strip in draw_ridgeline(ridge, RidgeOptions(colour=COLOUR), 100, 30) for seg in strip}
    assert len(truecolour) > 20  # faded by age, one shade per level


@pytest.mark.parametrize("system, told", [("256", True), ("truecolor", False)])
def test_the_histogram_view_says_how_to_enable_true_colour(tmp_path, monkeypatch, system, told):
    from textual import constants

    from tui_insight.ui.widgets.ridgeline import TRUE_COLOUR_HINT

    monkeypatch.setattr(constants, "COLOR_SYSTEM", system)  # as TEXTUAL_COLOR_SYSTEM or the terminal says
    write_histograms(tmp_path / "logs" / "run", range(0, 40, 10))
    app = make_app(tmp_path / "logs")

    async def body(pilot):
        app.open_jobs(("./run",), "histograms")
        await pilot.pause()
        view = app.screen.query_one(HistogramsView)
        assert await wait_for(pilot, lambda: bool(view.query(HistogramChart)) and view.query_one(HistogramChart).ridge)
        status = lambda: str(view.query_one("#histogram-status", Static).render())  # noqa: E731
        assert (TRUE_COLOUR_HINT[:40] in status()) is told
        assert view.query_one(HistogramChart).options().true_colour is not told
        await pilot.press("d")  # the bands need no hint
        assert await wait_for(pilot, lambda: bool(view.query(HistogramBands)))
        assert TRUE_COLOUR_HINT[:40] not in status()
        return True

    assert run_pilot(app, body, (160, 48))


def test_without_colour_each_basis_point_is_a_line_and_the_median_dotted():
    image = draw_bands(spread(range(0, 50, 5)), BandOptions(colour=COLOUR), 70, 18, BACKGROUND, no_color=True)
    assert colours_in(ChartImage(image.lines[:-1], image.width)) == set()  # (the legend's are the app's to drop)
    plot = image.plain.splitlines()[:-3]
    assert sum(line.count("•") for line in plot) >= 5  # the median, a dot a step
    middle = [line[40] for line in plot[1:]]  # down one column: the lines, not one filled block
    assert middle.count(" ") > 0 and "⣿" not in middle
    assert "• median" in image.plain.splitlines()[-1]
