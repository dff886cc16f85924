"""The custom scalars view (issue 26) on runs written by tensorboardX's `add_custom_scalars`:
a multiline chart draws every scalar tag its regexes match (`re.search`), a margin chart its
value line over a band from the lower to the upper tag (the values as written), a chart or a
category matching nothing says so; keys move the category, smoothing, x-axis and cursor; at
80x24 and 160x48, alone and compared. Update the snapshots with `--snapshot-update` after
checking the report."""
from __future__ import annotations

import math
import os
from pathlib import Path

import numpy as np
import pytest
from tensorboardX import SummaryWriter
from uihelp import MTIME, make_app, post_key, run_beside, run_pilot, wait_for, wait_for_view

from tui_insight.summary.formats.custom_scalars import Chart, Margin
from tui_insight.summary.queries.custom_scalars import categories, content
from tui_insight.summary.store.cache import SummaryCache
from tui_insight.ui.common.format import number
from tui_insight.ui.views.custom_scalars import CustomScalarsView, MissingChart
from tui_insight.ui.widgets.chart import ChartOptions, ScalarChart, Trace, draw_chart

STEPS = 30
LAYOUT = {
    "Losses": {"train and eval": ["Multiline", [r"loss/"]], "accuracy": ["Multiline", ["^acc$"]]},
    "Bounds": {"mean in band": ["Margin", ["mean", "low", "high"]],
               "gone": ["Margin", ["nothere", "x", "y"]]},
    "Nothing": {"void": ["Multiline", ["^zzz"]]},
}


def values(step: int, seed: int) -> dict[str, float]:
    mean = math.sin(step / 5) + seed
    return {"loss/train": math.exp(-step / 10) + seed * 0.1, "loss/eval": math.exp(-step / 12) + 0.2,
            "val_loss_not": 5.0, "acc": 1 - math.exp(-step / 8), "mean": mean, "low": mean - 0.5 - step / 100,
            "high": mean + 0.25}


def write_run(root: Path, name: str, seed: int, layout: dict | None = LAYOUT) -> Path:
    writer = SummaryWriter(str(root / name))
    if layout is not None:
        writer.add_custom_scalars(layout)
    for step in range(STEPS):
        for tag, value in values(step, seed).items():
            writer.add_scalar(tag, value, step, walltime=1_700_000_000.0 + step)
    writer.close()
    for path in (root / name).iterdir():
        os.utime(path, (MTIME, MTIME))
    return root / name


@pytest.fixture
def logs(tmp_path: Path) -> Path:
    root = tmp_path / "logs"
    write_run(root, "a", 0)
    write_run(root, "b", 1)
    write_run(root, "plain", 2, layout=None)
    return root


def texts(view: CustomScalarsView) -> tuple[str, str]:
    return str(view.query_one("#cs-status").render()), str(view.query_one("#cs-readout").render())


def cells(view: CustomScalarsView) -> list[tuple[str, str]]:
    """Each cell of the grid: ("chart", title) or ("missing", what it says)."""
    out = []
    for cell in view.query_one("#cs-grid").children:
        if isinstance(cell, ScalarChart):
            out.append(("chart", cell.title))
        elif isinstance(cell, MissingChart):
            out.append(("missing", str(cell.render())))
    return out


# -- what the charts draw (pure) ----------------------------------------------------------------

def test_multiline_matches_with_re_search_and_margins_need_both_bounds_for_a_band(logs):
    cache = SummaryCache(str(logs))
    cache.reload()
    a, plain = cache.job("./a"), cache.job("./plain")
    multiline = content(Chart("c", "multiline", tags=("loss",)), [a])
    assert multiline.lines == (("./a", "loss/eval"), ("./a", "loss/train"), ("./a", "val_loss_not"))
    assert content(Chart("c", "multiline", tags=("^loss/t", "acc$")), [a, plain]).lines == (
        ("./a", "acc"), ("./plain", "acc"), ("./a", "loss/train"), ("./plain", "loss/train"))
    assert content(Chart("c", "multiline", tags=("^zzz", "q+")), [a]).empty == "no scalar tag matches ^zzz, q+"
    margin = content(Chart("m", "margin", margins=(Margin("mean", "low", "high"), Margin("acc", "low", "nope"))), [a])
    assert [(m.margin.value, m.band) for m in margin.margins] == [("mean", True), ("acc", False)]
    assert margin.note == "no band for acc: its lower or upper tag is missing"
    assert content(Chart("m", "margin", margins=(Margin("nothere", "x", "y"),)), [a]).empty == "no scalar tag nothere"


def test_compared_layouts_merge_by_category_keeping_each_chart_once(tmp_path):
    root = tmp_path / "logs"
    write_run(root, "a", 0)
    write_run(root, "b", 1, layout={"Losses": {"other": ["Multiline", ["acc"]]}, "More": {"m": ["Multiline", ["x"]]}})
    cache = SummaryCache(str(root))
    cache.reload()
    merged = categories([cache.job("./a"), cache.job("./b")])
    assert [(c.title, [chart.title for chart in c.charts]) for c in merged] == [
        ("Losses", ["train and eval", "accuracy", "other"]), ("Bounds", ["mean in band", "gone"]),
        ("Nothing", ["void"]), ("More", ["m"])]
    assert [c.title for c in categories([cache.job("./a"), cache.job("./a")])] == ["Losses", "Bounds", "Nothing"]


def test_a_band_trace_fills_between_its_lower_and_upper_series_under_the_line():
    x = np.arange(20.0)
    line = [Trace(x, np.full(20, 0.5), "#0072B2")]
    band = [Trace.band(x, np.zeros(20), np.ones(20), "#0072B2"), *line]
    filled = sum(row.count("⣿") for row in draw_chart(band, ChartOptions(), 60, 14).plain.splitlines())
    bare = sum(row.count("⣿") for row in draw_chart(line, ChartOptions(), 60, 14).plain.splitlines())
    assert bare == 0 and filled > 40 * 6  # the plot's width (about 48 columns) by most of its rows


def test_without_colour_a_band_is_its_two_dotted_edges_and_the_line_stays_visible():
    x = np.arange(20.0)
    traces = [Trace.band(x, np.zeros(20), np.full(20, 2.0), "#0072B2"), Trace(x, np.ones(20), "#0072B2")]
    rows = draw_chart(traces, ChartOptions(), 60, 14, no_color=True).plain.splitlines()
    dotted = [i for i, row in enumerate(rows) if row.count("·") > 10]
    line = [i for i, row in enumerate(rows) if row.count("⠤") + row.count("⠒") + row.count("⣀") + row.count("⠉") > 10]
    assert len(dotted) == 2 and len(line) == 1 and dotted[0] < line[0] < dotted[1]


# -- the view -----------------------------------------------------------------------------------

def test_the_view_draws_the_layout_and_keys_move_category_smoothing_axis_and_cursor(logs):
    app = make_app(logs)

    async def body(pilot):
        app.open_jobs(("./a",), "custom_scalars")
        await wait_for_view(pilot, app, "CustomScalarsView")
        view = app.screen.query_one(CustomScalarsView)
        seen = {"losses": (texts(view)[0], cells(view), [[(t.kind, t.y.tolist()) for t in c.traces]
                                                          for c in view.charts()])}
        await pilot.press("n")
        assert await wait_for(pilot, lambda: "Bounds" in texts(view)[0] and len(view.charts()) == 1)
        chart = view.charts()[0]
        seen["bounds"] = (cells(view), [(t.kind, t.y.tolist(), None if t.upper is None else t.upper.tolist())
                                        for t in chart.traces], chart.image().plain)
        await pilot.press("right", "right", "s", "x")
        await pilot.pause()
        seen["keys"] = (texts(view), chart.options.cursor_x, [t.kind for t in chart.traces])
        await pilot.press("n")
        assert await wait_for(pilot, lambda: "Nothing" in texts(view)[0])
        seen["nothing"] = (texts(view)[0], cells(view))
        await pilot.press("p")  # the keys still reach the view from a chart that draws nothing
        assert await wait_for(pilot, lambda: "Bounds" in texts(view)[0])
        return seen

    seen = run_pilot(app, body, size=(80, 24))
    status, grid, traces = seen["losses"]
    assert status.startswith("Losses (1/3) · x: step · no smoothing")
    assert grid == [("chart", "train and eval"), ("chart", "accuracy")]
    expected = [values(step, 0) for step in range(STEPS)]
    assert traces[0] == [("line", pytest.approx([v["loss/eval"] for v in expected])),
                         ("line", pytest.approx([v["loss/train"] for v in expected]))]  # not val_loss_not
    assert traces[1] == [("line", pytest.approx([v["acc"] for v in expected]))]

    grid, traces, plain = seen["bounds"]
    assert grid == [("chart", "mean in band"), ("missing", "no scalar tag nothere")]
    assert traces[0] == ("band", pytest.approx([v["low"] for v in expected]), pytest.approx([v["high"] for v in expected]))
    assert traces[1] == ("line", pytest.approx([v["mean"] for v in expected]), None)
    assert "● mean  shaded: lower..upper" in plain

    (status, readout), cursor, kinds = seen["keys"]
    assert "x: relative · smoothing 0.1" in status
    assert cursor is None  # a new axis drops the cursor of the old one
    assert kinds == ["band", "faint", "smoothed"]

    status, grid = seen["nothing"]
    assert "no chart of this category matches a scalar tag" in status
    assert grid == [("missing", "no scalar tag matches ^zzz")]


def test_the_readout_reads_value_smoothed_and_band_at_the_cursor(logs):
    app = make_app(logs)

    async def body(pilot):
        app.open_jobs(("./a",), "custom_scalars")
        await wait_for_view(pilot, app, "CustomScalarsView")
        view = app.screen.query_one(CustomScalarsView)
        await pilot.press("n", "right", "right", "right")
        assert await wait_for(pilot, lambda: "step 2" in texts(view)[1])
        return texts(view)[1], view.charts()[0].options.cursor_x

    readout, cursor = run_pilot(app, body, size=(80, 24))
    v = values(2, 0)
    assert cursor == 2.0
    assert readout == f"● mean  step 2  value {number(v['mean'])}  band {number(v['low'])}..{number(v['high'])}"


def test_compared_runs_at_160x48_share_charts_side_by_side_and_the_tab_needs_a_layout(logs):
    app = make_app(logs)

    async def body(pilot):
        app.open_jobs(("./a", "./b"), "custom_scalars")
        await wait_for_view(pilot, app, "CustomScalarsView")
        view = app.screen.query_one(CustomScalarsView)
        charts = view.charts()
        compared = ([c.region.x for c in charts], [c.options.legend for c in charts], charts[0].image().plain)
        app.pop_screen()
        await pilot.pause()
        app.open_jobs(("./plain",), "scalars")
        await wait_for_view(pilot, app, "ScalarsView")
        await pilot.press("L")
        await pilot.pause()
        return compared, app.screen.query_one("#tab-custom_scalars").display, type(app.screen.active_view).__name__

    (xs, legends, plain), tab, active = run_pilot(app, body, size=(160, 48))
    assert xs[0] < xs[1]  # two columns
    colours = [colour for colour, _ in legends[1]]
    assert [name for _, name in legends[1]] == ["./a acc", "./b acc"] and colours[0] != colours[1]
    assert [name for _, name in legends[0]] == ["./a loss/eval", "./b loss/eval", "./a loss/train", "./b loss/train"]
    assert "./a loss/eval" in plain
    assert (tab, active) == (False, "ScalarsView")


def test_a_burst_of_keys_leaves_the_grid_of_the_category_it_ends_on(logs):
    app = make_app(logs)

    async def body(pilot):
        app.open_jobs(("./a",), "custom_scalars")
        await wait_for_view(pilot, app, "CustomScalarsView")
        view = app.screen.query_one(CustomScalarsView)
        for key in "npnnspnxnpnnpsn":  # queued at once, as a held key delivers them
            post_key(app, key)
        assert await wait_for(pilot, lambda: "smoothing 0.2" in texts(view)[0] and len(cells(view)) == 2)
        await pilot.pause(0.2)
        return texts(view)[0], cells(view), len(view.query_one("#cs-grid").children), type(app.focused).__name__

    status, grid, children, focused = run_pilot(app, body, size=(80, 24))
    assert status.startswith("Bounds (2/3) · x: relative · smoothing 0.2")
    assert grid == [("chart", "mean in band"), ("missing", "no scalar tag nothere")] and children == 2
    assert focused == "ScalarChart"


def test_new_steps_of_a_run_being_written_reach_the_charts(logs):
    app = make_app(logs)

    def more():
        writer = SummaryWriter(str(logs / "a"), filename_suffix=".more")  # a file of its own, whatever the second
        for step in range(STEPS, STEPS + 5):
            for tag, value in values(step, 0).items():
                writer.add_scalar(tag, value, step)
        writer.close()

    async def body(pilot):
        app.open_jobs(("./a",), "custom_scalars")
        await wait_for_view(pilot, app, "CustomScalarsView")
        view = app.screen.query_one(CustomScalarsView)
        before = [len(t.x) for t in view.charts()[0].traces]
        await run_beside(pilot, more)
        await run_beside(pilot, app.cache.reload)
        assert await wait_for(pilot, lambda: [len(t.x) for t in view.charts()[0].traces] == [STEPS + 5] * 2)
        return before

    assert run_pilot(app, body) == [STEPS, STEPS]


def test_names_from_the_layout_are_shown_literally(tmp_path):
    root = tmp_path / "logs"
    write_run(root, "a", 0, layout={"[b]cat\x1b[2J": {"[red]chart": ["Multiline", ["acc"]], "[i]none": ["Margin", ["[u]v", "l", "u"]]}})
    app = make_app(root)

    async def body(pilot):
        app.open_jobs(("./a",), "custom_scalars")
        await wait_for_view(pilot, app, "CustomScalarsView")
        view = app.screen.query_one(CustomScalarsView)
        return texts(view)[0], cells(view), view.charts()[0].image().plain

    status, grid, plain = run_pilot(app, body, size=(80, 24))
    assert status.startswith("[b]cat")
    assert grid == [("chart", "[red]chart"), ("missing", "no scalar tag [u]v")]
    assert "● acc" in plain


@pytest.mark.parametrize("size", [(80, 24), (160, 48)], ids=["80x24", "160x48"])
def test_snapshot(snap_compare, logs, size):
    app = make_app(logs)

    async def before(pilot):
        app.open_jobs(("./a",), "custom_scalars")
        await wait_for_view(pilot, app, "CustomScalarsView")
        view = app.screen.query_one(CustomScalarsView)
        await pilot.press("n", "right", "right", "right")
        assert await wait_for(pilot, lambda: "step 2" in texts(view)[1])
        await pilot.pause()

    assert snap_compare(app, terminal_size=size, run_before=before)
