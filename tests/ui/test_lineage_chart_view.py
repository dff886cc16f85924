"""Pilot and snapshot tests of the lineage view's panel (issue 11): parallel coordinates (`p`),
keyboard brushing, parameter importance (`i`) and its scatter, on 30 runs written with our
writer and on the MindSpore fixture runs."""
from __future__ import annotations

import re
from pathlib import Path

import numpy as np
import pytest
from lineage_runs import write_lineage_runs
from textual.widgets import Input
from uihelp import MINDSPORE_LOGS, make_app, open_help, run_pilot, wait_for

from tui_insight.summary.queries.lineage import filter_rows, model_rows, parse_conditions
from tui_insight.summary.queries.parallel import Brush
from tui_insight.ui.presenters import lineage as present
from tui_insight.ui.screens.dashboard import DashboardScreen
from tui_insight.ui.screens.jobs import JobsScreen
from tui_insight.ui.views.lineage import LineageView
from tui_insight.ui.widgets.braille import cell_bits, segment_dots
from tui_insight.ui.widgets.importance_table import ImportanceTable
from tui_insight.ui.widgets.lineage_table import LineageTable
from tui_insight.ui.widgets.parallel_coords import ParallelChart
from tui_insight.ui.widgets.scatter import ScatterPlot


@pytest.fixture
def runs30(tmp_path: Path) -> Path:
    root = tmp_path / "logs"
    write_lineage_runs(root, 30)
    return root


def view(app) -> LineageView:
    return app.screen.query_one(LineageView)


def chart(app) -> ParallelChart:
    return view(app).query_one(ParallelChart)


def inside_ids(app) -> list[str]:
    c = chart(app)
    return [tid for tid, flag in zip(c.runs.ids, c.look.inside) if flag]


async def open_lineage(pilot, *keys: str) -> None:
    """`l`, then `keys` once the view is there."""
    await pilot.press("l")
    assert await wait_for(pilot, lambda: bool(pilot.app.screen.query(LineageView)))
    await pilot.press(*keys)
    await pilot.pause()


async def open_and_come_back(pilot) -> tuple[str, ...]:
    """`enter` opens a dashboard: the jobs it shows; `escape` comes back to the lineage view."""
    app = pilot.app
    await pilot.press("enter")
    assert await wait_for(pilot, lambda: isinstance(app.screen, DashboardScreen))
    opened = app.screen.train_ids
    await pilot.press("escape")
    assert await wait_for(pilot, lambda: bool(app.screen.query(LineageView)))
    return opened


async def open_chart(pilot, *keys: str) -> None:
    await open_lineage(pilot, "p", *keys)


def expected_rows(logdir: Path, text: str) -> list[str]:
    """What the filter keeps, read independently of the app (newest first, as the table lists)."""
    from tui_insight.summary.store.cache import SummaryCache

    cache = SummaryCache(str(logdir))
    cache.reload()
    return [row.summary_dir for row in filter_rows(model_rows(cache.jobs), parse_conditions(text))]


# -- drawing helpers ---------------------------------------------------------------------------------

def test_braille_cells_and_segments():
    dots = np.zeros((8, 4), dtype=bool)
    dots[0, 0] = dots[3, 1] = dots[7, 3] = True
    assert cell_bits(dots).tolist() == [[0x01 | 0x80, 0], [0, 0x80]]
    x, y, owner = segment_dots(np.array([0, 0]), np.array([0, 5]), np.array([3, 0]), np.array([0, 0]))
    assert list(zip(x[owner == 0], y[owner == 0])) == [(0, 0), (1, 0), (2, 0), (3, 0)]
    assert len(x[owner == 1]) == 6 and set(x[owner == 1]) == {0}  # steep: a dot on every row, no gap


# -- the chart ---------------------------------------------------------------------------------------------

def test_lines_to_runs_without_a_value_end_on_the_dash_row_and_never_cross_the_labels():
    """A run without a value for an axis is drawn to the "—" row; that row comes right under the
    lines, so its lines reach it without crossing the row of the axes' bottom labels. Without a
    missing value the labels sit right under the lines."""
    from tui_insight.summary.queries.parallel import axis_for
    from tui_insight.ui.widgets.parallel_coords import MISSING, ChartLook, ChartRuns, draw_parallel

    def braille(row: str) -> bool:
        return any(0x2801 <= ord(ch) <= 0x28FF for ch in row)

    def drawn(columns: dict[str, list], size=(40, 12)) -> list[str]:
        axes = [axis_for(name, values) for name, values in columns.items()]
        runs = ChartRuns.build(("a", "b", "c"), axes, list(columns.values()))
        return [strip.text for strip in draw_parallel(runs, ChartLook(), *size)]

    def labels_row(rows: list[str]) -> int:
        """The row of the bottom ends' labels (braille and axes are not words)."""
        return next(i for i, row in enumerate(rows) if {"1", "0.25", "100"} <= set(re.split(r"[^\w.]+", row)))

    for size in ((40, 12), (80, 24)):
        rows = drawn({"epoch": [1, 2, 3], "lr": [0.25, None, 0.75], "acc": [100, 200, 300]}, size)
        labels = labels_row(rows)
        dash = next(i for i, row in enumerate(rows) if MISSING in row)
        assert not braille(rows[labels]), rows[labels]
        assert braille(rows[dash]) and rows[dash].index(MISSING) == rows[dash - 1].index("│", 2)  # under lr
        assert dash == labels - 1 and braille(rows[dash - 1])  # right under the lines
    rows = drawn({"epoch": [1, 2, 3], "lr": [0.25, 0.5, 0.75], "acc": [100, 200, 300]})
    labels = labels_row(rows)
    assert MISSING not in "".join(rows) and braille(rows[labels - 1])



def test_p_draws_an_axis_per_table_column_and_a_line_per_run(runs30):
    app = make_app(runs30)

    async def body(pilot):
        await open_chart(pilot)
        shown = isinstance(app.focused, ParallelChart) and chart(app).display
        columns = [c.key for c in view(app).model_table.columns]
        axes = [a.column for a in chart(app).runs.axes]
        colour = chart(app).runs.colour.column
        await pilot.press("right", "right", "c")
        recoloured = chart(app).runs.colour.column
        await pilot.press("p")
        await pilot.pause()
        return shown, columns, axes, colour, recoloured, chart(app).display and chart(app).parent.display, app.focused

    shown, columns, axes, colour, recoloured, still_shown, focused = run_pilot(app, body)
    assert shown
    assert axes == columns[1:] and len(axes) == 8  # every column of the table but summary_dir
    assert colour == "metric/Accuracy" and recoloured == "learning_rate"  # c: coloured by the picked axis
    assert not still_shown and isinstance(focused, LineageTable)  # p again: the table has the keyboard


def test_axis_labels_have_rows_of_their_own_and_never_hide_the_lines_at_80x24(runs30):
    """The ends of every axis (and of a brush) are labelled above and under the lines, elided to
    the room between two axes; on the lines' rows there is nothing but lines, axes and brushes."""
    from tui_insight.ui.widgets.parallel_coords import chart_layout

    app = make_app(runs30)

    async def body(pilot):
        await open_chart(pilot)
        await pilot.press("right", "right", "right_square_bracket", "right_square_bracket", "left_curly_bracket")
        await pilot.pause()
        widget = chart(app)
        size = widget.content_size
        lay = chart_layout(widget.runs, widget.look, size.width, size.height)
        return [strip.text for strip in widget.strips()], lay

    rows, lay = run_pilot(app, body, size=(80, 24))
    plot = [row[:lay.bar] for row in rows]
    for row in plot[lay.top:lay.bottom + 1]:
        assert all(ch in " │┃" or 0x2800 <= ord(ch) <= 0x28FF for ch in row), row
    above, under = plot[lay.top - 1], plot[lay.under]
    assert "0.03" in above and "0.01" in under  # the brushed learning rates
    assert "…" in above + under  # a label longer than the room between axes, elided
    assert len([label for label in above.split() if label]) == len(lay.columns)


def test_brush_keys_write_the_filter_box_and_table_and_chart_keep_the_same_runs(runs30):
    app = make_app(runs30)

    async def body(pilot):
        await open_chart(pilot, "right", "right")  # network, optimizer, learning_rate
        await pilot.press("right_square_bracket", "right_square_bracket", "left_curly_bracket")
        await pilot.pause()
        v = view(app)
        box = v.query_one("#lineage-filter", Input)
        brushed = (box.value, box.display, list(v.model_table.order), inside_ids(app),
                   chart(app).look.brushes[2], isinstance(app.focused, ParallelChart))
        box.value = "lr 0.003..0.01 optimizer in Adam,SGD"  # typed: the brushes follow
        await pilot.pause()
        typed = (list(v.model_table.order), inside_ids(app), chart(app).look.brushes[1:3])
        await pilot.press("backspace")  # clears the range on the picked axis, keeps optimizer's
        await pilot.pause()
        return brushed, typed, box.value

    (text, box_shown, table, inside, brush, focused), (typed_table, typed_inside, typed_brushes), cleared = \
        run_pilot(app, body)
    assert text == "learning_rate>=0.01 learning_rate<=0.03" and box_shown and focused
    assert table == inside == expected_rows(runs30, "lr 0.01..0.03") and 0 < len(table) < 30
    assert brush == Brush(low=0.01, high=0.03)
    assert typed_table == typed_inside == expected_rows(runs30, "lr 0.003..0.01 optimizer in Adam,SGD")
    assert typed_brushes == (Brush(chosen=("Adam", "SGD")), Brush(low=0.003, high=0.01))
    assert cleared == "optimizer in Adam,SGD"


def test_up_and_down_walk_the_runs_along_the_axis_enter_opens_and_space_marks(runs30):
    app = make_app(runs30)

    async def body(pilot):
        await open_chart(pilot, "right", "right", "right_square_bracket", "right_square_bracket")
        await pilot.press("up")
        await pilot.pause()
        v = view(app)
        first = v.state.row, v.model_table.current_row_key, chart(app).look.highlight
        await pilot.press("up", "up")
        await pilot.pause()
        third = v.state.row
        order = present.run_order(v.chart(), v.state, v.shown_ids())
        rates = [v.data.by_id[tid].get("learning_rate") for tid in order]
        opened = await open_and_come_back(pilot)
        await pilot.press("space")
        await pilot.pause()
        marked = list(app.marked)
        await pilot.press("escape", "escape", "escape")  # the brush, the panel, then back to the jobs
        assert await wait_for(pilot, lambda: isinstance(app.screen, JobsScreen))
        await pilot.pause()
        return first, third, order, rates, opened, marked, app.screen.state.marked

    (row, table_row, highlight), third, order, rates, opened, marked, listed = run_pilot(app, body)
    assert rates == sorted(rates) and min(rates) >= 0.01  # the runs inside, along learning_rate
    assert row == order[0] == table_row and highlight is not None  # up from nothing: the lowest run
    assert third == order[2]
    assert opened == (third,)
    assert marked == [third] and listed == (third,)  # the job list shows the mark


def test_space_in_the_table_marks_the_job_under_the_cursor_and_again_unmarks_it(runs30):
    app = make_app(runs30)

    async def body(pilot):
        await open_lineage(pilot, "down", "space")
        marked = list(app.marked), str(view(app).query_one("#lineage-status").render())
        await pilot.press("space")
        await pilot.pause()
        return marked, list(app.marked)

    (marked, status), after = run_pilot(app, body)
    assert marked == ["./run_028"] and "1 marked" in status  # the second row: newest first
    assert after == []


def test_escape_clears_the_range_then_closes_the_panel(runs30):
    app = make_app(runs30)

    async def body(pilot):
        await open_chart(pilot, "right_square_bracket")
        states = [(view(app).state.filter, view(app).state.panel)]
        for _ in range(2):
            await pilot.press("escape")
            await pilot.pause()
            states.append((view(app).state.filter, view(app).state.panel))
        return states, app.focused

    states, focused = run_pilot(app, body)
    assert states[0][0] and states[0][1] == "chart"
    assert states[1] == ("", "chart") and states[2] == ("", "")
    assert isinstance(focused, LineageTable)


def test_dataset_lineage_draws_the_pipeline_parameters_where_jobs_differ(runs30):
    app = make_app(runs30)

    async def body(pilot):
        await open_lineage(pilot, "t", "p", "right_square_bracket")
        v = view(app)
        return [a.column for a in chart(app).runs.axes], v.state.filter, list(v.dataset_table.order), inside_ids(app)

    axes, text, table, inside = run_pilot(app, body)
    assert axes == ["dataset/Shuffle.buffer_size", "dataset/Batch.batch_size"]
    assert text == "dataset/Shuffle.buffer_size>=10000"
    assert table == inside and 0 < len(table) < 30


def test_help_lists_the_chart_and_importance_keys(runs30):
    app = make_app(runs30)

    async def body(pilot):
        await open_chart(pilot)
        return await open_help(pilot)

    text = run_pilot(app, body)
    for binding_id in ("lineage.chart", "lineage.importance", "lineage.mark", "lineage.brush_low_up",
                       "lineage.brush_high_down", "lineage.chart_axis_right", "lineage.chart_colour"):
        assert binding_id in text, binding_id


# -- importance ----------------------------------------------------------------------------------------------

def test_i_ranks_the_parameters_with_mindinsights_numbers_and_enter_shows_the_scatter(truth):
    app = make_app(MINDSPORE_LOGS)

    async def body(pilot):
        await open_lineage(pilot, "i")
        table = view(app).query_one(ImportanceTable)
        text = "\n".join(line.plain for line in table.lines)
        focused = isinstance(app.focused, ImportanceTable)
        await pilot.press(*["down"] * 12)  # loss and metric/Accuracy have six parameters each
        await pilot.press("enter")
        await pilot.pause()
        scatter = view(app).query_one(ScatterPlot)
        shown = scatter.display and isinstance(app.focused, ScatterPlot)
        await pilot.press("right", "right")
        await pilot.pause()
        walked = view(app).state.row, scatter.cursor
        readout = str(view(app).query_one("#lineage-readout").render())
        opened = await open_and_come_back(pilot)
        await pilot.press("backspace")
        await pilot.pause()
        return text, focused, scatter.data, shown, walked, readout, opened, isinstance(app.focused, ImportanceTable)

    text, focused, data, shown, (row, cursor), readout, opened, back = run_pilot(app, body)
    assert focused and shown and back
    lines = text.splitlines()
    loss_at = lines.index(next(line for line in lines if line.startswith("metric/Loss")))
    learning_rate = lines[loss_at + 1]
    assert "learning_rate" in learning_rate and "0.818" in learning_rate and "   3" in learning_rate
    assert "too few runs (n=2)" in text and "too few runs (n=1)" in text
    served = {obj["summary_dir"]: obj["model_lineage"] for obj in truth["lineage"]["all"]["object"]}
    by_rate = sorted(served, key=lambda tid: served[tid]["learning_rate"])
    assert (data.param, data.target) == ("learning_rate", "metric/Loss")
    assert [p[0] for p in data.points] == by_rate  # one point per run, by learning rate
    assert (row, cursor) == (by_rate[1], 1) and row in readout
    assert opened == (by_rate[1],)


def test_importance_follows_the_filter(runs30):
    app = make_app(runs30)

    async def body(pilot):
        await open_lineage(pilot, "i")
        before = view(app).importance_ranking()[0].runs
        view(app).query_one("#lineage-filter", Input).value = "network=LeNet5"
        await pilot.pause()
        return before, view(app).importance_ranking()[0].runs, len(view(app).shown)

    before, after, shown = run_pilot(app, body)
    assert before == 30 and after == shown < 30


# -- snapshots -------------------------------------------------------------------------------------------------

@pytest.mark.parametrize("size", [(80, 24), (160, 48)], ids=["80x24", "160x48"])
def test_snapshot_parallel_coordinates(snap_compare, runs30, size):
    # learning_rate brushed to 0.01..0.03, a run highlighted on it
    keys = ["l", "_", "p", "right", "right", "right_square_bracket", "right_square_bracket",
            "left_curly_bracket", "up", "up"]
    assert snap_compare(make_app(runs30), press=keys, terminal_size=size)


@pytest.mark.parametrize("size", [(80, 24), (160, 48)], ids=["80x24", "160x48"])
def test_snapshot_importance(snap_compare, runs30, size):
    assert snap_compare(make_app(runs30), press=["l", "_", "i", "down"], terminal_size=size)


def test_snapshot_importance_scatter(snap_compare, runs30):
    assert snap_compare(make_app(runs30), press=["l", "_", "i", "down", "enter", "right", "right", "right"],
                        terminal_size=(160, 48))
