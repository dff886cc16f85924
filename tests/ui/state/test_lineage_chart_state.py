"""The lineage view's panel in LineageState (issue 11): parallel coordinates and importance.

The brush is the filter: stepping it rewrites the filter text, and the rows that text keeps are
the runs inside every range, the same rows a typed range keeps (checked on 30 written runs).
"""
from __future__ import annotations

import random
from pathlib import Path

import pytest
from lineage_runs import write_lineage_runs

from tui_insight.summary.queries.lineage import LineageQueryError, filter_rows, model_rows, parse_conditions
from tui_insight.summary.queries.parallel import CATEGORY, HIGH, LOW, axis_for, brush_of
from tui_insight.summary.store.cache import SummaryCache
from tui_insight.ui.state.lineage import CHART, IMPORTANCE, NO_PANEL, LineageState


@pytest.fixture(scope="module")
def rows(tmp_path_factory):
    root: Path = tmp_path_factory.mktemp("runs30")
    write_lineage_runs(root, 30)
    cache = SummaryCache(str(root))
    cache.reload()
    found = model_rows(cache.jobs)
    assert len(found) == 30
    return found


def axis(rows, column):
    return axis_for(column, [row.get(column) for row in rows])


def kept(rows, text):
    return [row.summary_dir for row in filter_rows(rows, parse_conditions(text))]


def test_panels_open_one_at_a_time_and_close_again():
    state = LineageState().toggle_panel(CHART)
    assert state.panel == CHART
    assert state.toggle_panel(IMPORTANCE).panel == IMPORTANCE
    assert state.toggle_panel(CHART).panel == NO_PANEL
    scatter = state.toggle_panel(IMPORTANCE).toggle_scatter()
    assert scatter.scatter and not scatter.toggle_panel(CHART).scatter  # leaving closes the scatter


def test_picking_axes_stops_at_the_ends_and_defaults_to_the_first():
    axes = ["network", "learning_rate", "loss"]
    state = LineageState()
    assert state.picked_axis(axes) == "network"
    assert state.pick_axis(axes, 1).axis == "learning_rate"
    assert state.pick_axis(axes, 5).axis == "loss" and state.pick_axis(axes, -1).axis == "network"
    gone = LineageState(axis="epoch")  # a remembered axis that is not drawn now
    assert gone.picked_axis(axes) == "network" and gone.pick_axis(axes, 1).axis == "learning_rate"
    assert state.pick_axis([], 1) is state


def test_the_lines_are_coloured_by_the_pick_else_the_first_metric_else_loss():
    columns = ["learning_rate", "loss", "metric/Accuracy", "metric/Loss"]
    assert LineageState().colour_column(columns) == "metric/Accuracy"
    assert LineageState().colour_column(["learning_rate", "loss"]) == "loss"
    assert LineageState().with_colour("learning_rate").colour_column(columns) == "learning_rate"
    assert LineageState(colour="gone").colour_column(columns) == "metric/Accuracy"


def test_brush_steps_write_the_filter_and_keep_the_other_conditions(rows):
    lr = axis(rows, "learning_rate")
    state = LineageState(filter="network=LeNet5")
    state = state.brush(lr, LOW, 1).brush(lr, LOW, 1)  # [ ] move the low end: 0.001 -> 0.003 -> 0.01
    assert state.filter == "network=LeNet5 learning_rate>=0.01" and state.axis == "learning_rate"
    state = state.brush(lr, HIGH, -1)  # { the high end down: 0.1 -> 0.03
    assert state.filter == "network=LeNet5 learning_rate>=0.01 learning_rate<=0.03"
    assert state.brush(lr, HIGH, 1).filter == "network=LeNet5 learning_rate>=0.01"  # back at the top: open
    assert state.clear_brush(lr).filter == "network=LeNet5"
    cleared = LineageState(filter="network=LeNet5", axis="learning_rate")
    assert cleared.clear_brush(lr) is cleared  # nothing to clear: the same state


def test_a_typed_filter_is_drawn_as_the_brush_and_stepping_continues_from_it(rows):
    lr = axis(rows, "learning_rate")
    typed = LineageState(filter="lr 0.003..0.03")
    assert brush_of(lr, parse_conditions(typed.filter)) == brush_of(
        lr, parse_conditions(LineageState().brush(lr, LOW, 1).brush(lr, HIGH, -1).filter))
    assert typed.brush(lr, LOW, 1).filter == "learning_rate>=0.01 learning_rate<=0.03"


def test_a_filter_that_cannot_be_read_takes_no_brush(rows):
    with pytest.raises(LineageQueryError, match="unknown column"):
        LineageState(filter="lerning_rate>0.1").brush(axis(rows, "learning_rate"), LOW, 1)


def test_brushing_and_typing_select_the_same_runs_as_the_ranges_do(rows):
    lr = axis(rows, "learning_rate")
    state = LineageState().brush(lr, LOW, 1).brush(lr, LOW, 1).brush(lr, HIGH, -1)
    inside = [row.summary_dir for row in rows if row.get("learning_rate") is not None
              and 0.01 <= row.get("learning_rate") <= 0.03]
    assert 0 < len(inside) < len(rows)
    assert kept(rows, state.filter) == kept(rows, "lr 0.01..0.03") == inside


def test_random_brushes_on_several_axes_keep_exactly_the_runs_inside_every_range(rows):
    axes = [axis(rows, c) for c in ("learning_rate", "epoch", "optimizer", "batch_size", "metric/Accuracy",
                                    "user_defined/dropout")]
    rng = random.Random(11)
    state = LineageState(filter="network=LeNet5")  # a typed condition the brushes leave alone
    checked = 0
    for _ in range(60):
        a = rng.choice(axes)
        state = state.brush(a, rng.choice((LOW, HIGH)), rng.choice((-1, 1)))
        conditions = parse_conditions(state.filter)
        inside = []
        for row in rows:
            ok = row.get("network") == "LeNet5"
            for each in axes:
                brush, value = brush_of(each, conditions), row.get(each.column)
                if not brush.active:
                    continue
                if each.kind == CATEGORY:
                    ok = ok and value in brush.chosen
                else:
                    ok = ok and value is not None and (brush.low is None or value >= brush.low) \
                        and (brush.high is None or value <= brush.high)
            if ok:
                inside.append(row.summary_dir)
        assert kept(rows, state.filter) == inside, state.filter
        checked += bool(inside) and len(inside) < len(rows)
    assert checked > 10  # the ranges did narrow the runs, not only keep all or none


def test_the_highlighted_run_walks_an_order_and_the_importance_cursor_its_entries():
    order = ["./a", "./b", "./c"]
    state = LineageState()
    assert state.step_run(order, 1).row == "./a" and state.step_run(order, -1).row == "./c"
    assert state.with_cursor("./b").step_run(order, 1).row == "./c"
    assert state.with_cursor("./c").step_run(order, 1).row == "./c"
    found = [("loss", "learning_rate"), ("loss", "epoch"), ("metric/Accuracy", "learning_rate")]
    moved = state.move_importance(found, 1)
    assert (moved.target, moved.param) == ("loss", "learning_rate")  # from nothing: the first entry
    assert (moved.move_importance(found, 2).target, moved.move_importance(found, 2).param) == found[2]
    assert moved.move_importance(found, -3) is moved


def test_the_panel_is_remembered_and_a_damaged_entry_is_tolerated():
    state = LineageState(panel=IMPORTANCE, axis="loss", colour="metric/Accuracy", target="loss",
                         param="epoch", scatter=True, filter="lr 0.01..0.1")
    assert LineageState.from_json(state.to_json()) == state
    damaged = LineageState.from_json({"panel": "pie", "axis": 3, "colour": ["x"], "scatter": "yes"})
    assert (damaged.panel, damaged.axis, damaged.colour, damaged.scatter) == (NO_PANEL, None, None, False)
