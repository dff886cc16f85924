"""Charts draw in the theme's colours (issue 28): picking another theme recolours ridgelines,
distribution bands, line charts, heat maps, parallel coordinates, the importance bars and the
scatter; under NO_COLOR they draw no colour of their own and say with glyphs what colour said.

Each chart is hosted alone in an app with the project's themes; what it draws is read from its
rendered lines (`render_line`), and the colour a role should have from the app's theme variables.
"""
from __future__ import annotations

import numpy as np
import pytest
from textual.app import App, ComposeResult
from textual.widget import Widget
from uihelp import MINDSPORE_LOGS, T0, make_app, run_pilot, wait_for

from tui_insight.summary.queries.distributions import Distribution
from tui_insight.summary.queries.histograms import Ridgeline
from tui_insight.summary.queries.importance import Importance, TargetImportance
from tui_insight.summary.queries.landscape import Landscape, LandscapeMetadata, LossPath
from tui_insight.summary.queries.parallel import Brush, axis_for
from tui_insight.ui.app import load_themes
from tui_insight.ui.widgets.colour_map import gradient
from tui_insight.ui.state.histograms import RidgeCursor
from tui_insight.ui.views.histograms import HistogramChart, HistogramsView
from tui_insight.ui.widgets.bands import BandsChart
from tui_insight.ui.widgets.chart import ChartOptions, ChartPlot, ScalarChart, Trace
from tui_insight.ui.widgets.heatmap import RAMP, HeatOptions, LandscapeMap
from tui_insight.ui.widgets.importance_table import ImportanceTable
from tui_insight.ui.widgets.parallel_coords import ChartLook, ChartRuns, ParallelChart
from tui_insight.ui.widgets.ridgeline import RidgelineChart
from tui_insight.ui.widgets.scatter import ScatterData, ScatterPlot

FIRST, SECOND = "insight-dark", "nord"  # every role differs between them


class Host(App):
    """One chart filling the screen, in the project's themes."""

    def __init__(self, chart: Widget, setup, theme: str = FIRST):
        super().__init__()
        self.chart, self.setup, self.start_theme = chart, setup, theme
        for t in load_themes():
            self.register_theme(t)

    def compose(self) -> ComposeResult:
        yield self.chart

    def on_mount(self) -> None:
        self.theme = self.start_theme
        self.setup(self.chart)


# -- the charts, with data that shows every role ------------------------------------------------

def ridgeline() -> Ridgeline:
    counts = np.array([[1, 4, 9, 4, 1], [2, 6, 8, 3, 1], [1, 3, 9, 6, 2]], dtype=np.int64)
    zeros = np.zeros(3, dtype=np.int64)
    return Ridgeline(np.linspace(-1.0, 1.0, 6), counts, np.array([10, 20, 30]), T0 + np.arange(3.0) * 10,
                     np.array([0, 2, 0]), zeros, zeros, 0.4)


def ridgeline_chart() -> tuple[Widget, object]:
    def setup(chart: RidgelineChart) -> None:
        chart.set_data("k", ridgeline())
        chart.set_cursor(RidgeCursor(step=20, bucket=2))
    return RidgelineChart("c", "ridges"), setup


def bands_chart() -> tuple[Widget, object]:
    def setup(chart: BandsChart) -> None:
        steps = np.arange(0, 50, 5)
        z = np.array([-3.0, -1.5, -1.0, -0.5, 0.0, 0.5, 1.0, 1.5, 3.0])
        chart.set_data("k", Distribution(steps, T0 + steps.astype(np.float64), (1 + steps[:, None] / 10) * z))
        chart.set_cursor(RidgeCursor(step=25))
    return BandsChart("bands"), setup


def scalar_chart() -> tuple[Widget, object]:
    def setup(chart: ScalarChart) -> None:
        x = np.arange(1.0, 31.0)
        y = np.sin(x / 4)  # values ≤ 0: log y is drawn linear, with a warning on the chart
        chart.plot = ChartPlot("k", ChartOptions(log_y=True), (Trace(x, y, "#0072B2"),))
    return ScalarChart("c", "loss"), setup


def landscape_map() -> tuple[Widget, object]:
    def setup(chart: LandscapeMap) -> None:
        x, y = np.linspace(-1, 1, 10), np.linspace(-2, 2, 8)
        path = LossPath((1, 2, 3), np.array([-0.5, 0.0, 0.5]), np.array([-1.0, 0.0, 1.0]), np.array([2.0, 3.0, 4.0]))
        chart.set_landscape(Landscape("landscape", 0, x, y, np.add.outer(y, 0 * x) + 3.0, path, (0.5, 1.0, 4.0),
                                      LandscapeMetadata("PCA", "step", 8), (1, 2, 3)))
        chart.set_options(HeatOptions(drawing="both"))
    return LandscapeMap(), setup


def parallel_chart() -> tuple[Widget, object]:
    def setup(chart: ParallelChart) -> None:
        columns = {"lr": [0.1, 0.01, 0.001, 0.05], "acc": [0.5, 0.9, 0.7, 0.6]}
        axes = [axis_for(name, values) for name, values in columns.items()]
        runs = ChartRuns.build(("a", "b", "c", "d"), axes, list(columns.values()), axes[1], columns["acc"])
        chart.set_chart(runs, ChartLook(brushes=(Brush(low=0.005, high=0.2), Brush())))
    return ParallelChart(), setup


def importance_table() -> tuple[Widget, object]:
    def setup(chart: ImportanceTable) -> None:
        params = (Importance("lr", 0.8, -0.8, 0.7, 9), Importance("batch", 0.4, 0.4, 0.3, 9))
        chart.set_ranking([TargetImportance("loss", params, 9)], ("loss", "lr"), 9)
    return ImportanceTable(), setup


def scatter_plot() -> tuple[Widget, object]:
    def setup(chart: ScatterPlot) -> None:
        chart.set_scatter(ScatterData("lr", "loss", tuple((f"r{i}", 0.1 * i, 1.0 / i) for i in range(1, 9))), 2)
    return ScatterPlot(), setup


# The kinds, and the theme role each must draw in.
KINDS = {
    "ridgeline": (ridgeline_chart, ("accent", "error")),  # the ridge under the cursor, NaN counts
    "bands": (bands_chart, ("accent", "warning")),  # the cursor, the median
    "line chart": (scalar_chart, ("warning",)),  # the log-y warning
    "heat map": (landscape_map, ("error",)),  # the convergence mark
    "parallel coordinates": (parallel_chart, ("accent",)),  # the brush
    "importance": (importance_table, ("primary", "accent")),  # bars of rising and falling targets
    "scatter": (scatter_plot, ("primary",)),  # the points
}


def drawn_styles(chart: Widget) -> list:
    """The styles of what the chart draws: its rendered lines (or text, for a rendered widget)."""
    if isinstance(chart, ImportanceTable):
        text = chart.render()
        return [span.style for span in text.spans if not isinstance(span.style, str)] + \
            [text.get_style_at_offset(chart.app.console, i) for i in range(len(text.plain))]
    return [seg.style for y in range(chart.content_size.height) for seg in chart.render_line(y) if seg.style]


def drawn_colours(chart: Widget) -> set[str]:
    found = set()
    for style in drawn_styles(chart):
        for colour in (style.color, style.bgcolor):
            if colour is not None and not colour.is_default:
                found.add(colour.get_truecolor().hex)
    return found


def role(app: App, name: str) -> str:
    return app.theme_variables[name].lower()


@pytest.mark.parametrize("kind", list(KINDS))
def test_picking_another_theme_recolours_the_chart(kind):
    make, roles = KINDS[kind]
    chart, setup = make()
    app = Host(chart, setup)

    async def body(pilot):
        await pilot.pause()
        before = drawn_colours(chart)
        expected_before = {role(app, r) for r in roles}
        app.theme = SECOND
        await pilot.pause()
        await pilot.pause()
        after = drawn_colours(chart)
        expected_after = {role(app, r) for r in roles}
        return before, expected_before, after, expected_after

    before, expected_before, after, expected_after = run_pilot(app, body, (100, 30))
    assert expected_before <= before, (kind, expected_before - before)
    assert expected_after <= after, (kind, expected_after - after)
    assert not expected_before & after  # nothing left in the first theme's colours of those roles


def test_heat_map_runs_from_the_themes_primary_to_its_warning():
    chart, setup = landscape_map()
    app = Host(chart, setup)

    async def body(pilot):
        await pilot.pause()
        first = drawn_colours(chart), gradient(role(app, "primary"), role(app, "warning"))
        app.theme = SECOND
        await pilot.pause()
        await pilot.pause()
        return first, (drawn_colours(chart), gradient(role(app, "primary"), role(app, "warning")))

    for drawn, lut in run_pilot(app, body, (100, 30)):
        on_map = drawn & {"#%06x" % int(c) for c in lut}
        assert len(on_map) > 10  # the map's cells take the theme's gradient


def test_a_theme_picked_in_the_app_recolours_its_ridgelines():
    """End to end: the histogram view of a written log, its cursor's ridge in each theme's accent."""
    app = make_app(MINDSPORE_LOGS)

    async def body(pilot):
        app.open_jobs(("./lenet_lr0.01",), "histograms")
        await pilot.pause()
        view = app.screen.query_one(HistogramsView)
        assert await wait_for(pilot, lambda: any(c.ridge is not None for c in view.query(HistogramChart)))
        chart = next(c for c in view.query(HistogramChart) if c.ridge is not None)
        chart.focus()
        await pilot.press("down")
        assert await wait_for(pilot, lambda: chart.cursor.shown)
        seen = []
        for theme in ("insight-dark", "insight-light", "nord"):
            app.theme = theme
            await pilot.pause()
            await pilot.pause()
            seen.append((role(app, "accent"), drawn_colours(chart)))
        return seen

    seen = run_pilot(app, body, (120, 40))
    accents = [accent for accent, _ in seen]
    assert len(set(accents)) == 3
    for accent, colours in seen:
        assert accent in colours and not (set(accents) - {accent}) & colours


# -- NO_COLOR -------------------------------------------------------------------------------------

# What each kind shows with a glyph where colour alone would have said it.
GLYPHS = {
    "ridgeline": "▲",  # the bucket under the cursor, on the value axis
    "bands": "•",  # the median, dotted
    "line chart": "drawn linear",  # the warning, in words
    "heat map": RAMP[-1],  # the shade ramp: the highest loss
    "parallel coordinates": "┃",  # the brushed stretch of an axis
    "importance": "▶",  # the cursor's line (the bar's sign is the Pearson column's)
    "scatter": "◆",  # the cursor's point
}


@pytest.mark.parametrize("kind", list(KINDS))
def test_no_color_draws_no_colour_of_its_own_and_marks_with_glyphs(kind, monkeypatch):
    monkeypatch.setenv("NO_COLOR", "1")
    make, _ = KINDS[kind]
    chart, setup = make()
    app = Host(chart, setup)

    async def body(pilot):
        await pilot.pause()
        assert app.no_color
        chart.focus()
        await pilot.pause()
        base = chart.rich_style
        own = drawn_colours(chart) - {c.get_truecolor().hex for c in (base.color, base.bgcolor) if c is not None}
        if isinstance(chart, ImportanceTable):
            text = chart.render().plain
        else:
            text = "\n".join(chart.render_line(y).text for y in range(chart.content_size.height))
        return own, text

    own, text = run_pilot(app, body, (100, 30))
    assert not own, own
    assert GLYPHS[kind] in text


@pytest.mark.parametrize("kind", list(KINDS))
def test_themes_of_ansi_colours_draw_every_kind(kind):
    """An ANSI theme's roles are terminal palette entries with no RGB of their own: the charts
    read them as Rich's default terminal shows them (reading one as "#rrggbb" once raised in
    every ridgeline's render)."""
    make, roles = KINDS[kind]
    chart, setup = make()
    app = Host(chart, setup, theme="ansi-dark")

    async def body(pilot):
        await pilot.pause()
        drawn = drawn_colours(chart)
        app.theme = "ansi-light"
        await pilot.pause()
        await pilot.pause()
        return drawn, drawn_colours(chart), chart.content_size.height

    dark, light, height = run_pilot(app, body, (100, 30))
    assert height > 10 and dark and light
