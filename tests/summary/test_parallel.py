"""Parallel-coordinates axes and brushes (issue 11): a brush is filter conditions on its column."""
from __future__ import annotations

import math

import pytest

from tui_insight.summary.queries.lineage import Condition, conditions_text, parse_conditions
from tui_insight.summary.queries.parallel import (
    CATEGORY,
    HIGH,
    LOW,
    MAX_STOPS,
    NUMBER,
    Brush,
    axis_for,
    brush_of,
    step_brush,
    with_brush,
)

RATES = [0.1, 0.03, 0.01, 0.003, 0.001, 0.01, None]


def test_number_axes_span_the_values_on_a_log_scale_when_they_are_picked_per_decade():
    axis = axis_for("learning_rate", RATES)
    assert (axis.kind, axis.low, axis.high, axis.log, axis.missing) == (NUMBER, 0.001, 0.1, True, 1)
    assert axis.stops == (0.001, 0.003, 0.01, 0.03, 0.1)  # few values: they are the stops
    assert axis.position(0.001) == 0 and axis.position(0.1) == 1
    assert axis.position(0.01) == pytest.approx(0.5)  # a decade is half of two
    assert math.isnan(axis.position(None))
    linear = axis_for("loss", [0.0, 0.5, 1.0, 2.0])
    assert not linear.log and linear.position(0.5) == 0.25


def test_many_values_get_evenly_spaced_round_stops_and_keep_the_exact_ends():
    values = [1 + i * 0.123456 for i in range(200)]
    axis = axis_for("loss", values)
    assert len(axis.stops) <= MAX_STOPS + 1
    assert axis.stops[0] == values[0] and axis.stops[-1] == values[-1]
    assert all(len(f"{s:.3g}") >= len(repr(s)) for s in axis.stops[1:-1])  # three significant digits
    epochs = axis_for("epoch", list(range(1, 91)))
    assert epochs.integer and all(isinstance(s, int) for s in epochs.stops)  # epoch>=12.5 could not be typed


def test_category_axes_and_values_that_are_not_numbers():
    axis = axis_for("optimizer", ["SGD", "Adam", None, "Momentum", "Adam"])
    assert (axis.kind, axis.categories, axis.missing) == (CATEGORY, ("Adam", "Momentum", "SGD"), 1)
    assert [axis.position(v) for v in axis.categories] == [0.0, 0.5, 1.0]
    mixed = axis_for("user_defined/x", [1, "a", {"k": [1]}, True])
    assert mixed.kind == CATEGORY and len(mixed.categories) == 4
    assert not math.isnan(mixed.position({"k": [1]}))  # a user-defined dict has a tick too
    assert axis_for("metric/acc", [math.inf, None]).empty  # no finite number: nothing to brush


def test_stepping_the_ends_of_a_range():
    axis = axis_for("learning_rate", RATES)
    brush = step_brush(axis, Brush(), LOW, 1)
    assert (brush.low, brush.high) == (0.003, None)
    brush = step_brush(axis, brush, HIGH, -1)
    assert (brush.low, brush.high) == (0.003, 0.03)
    for _ in range(5):  # the low end stops at the high end
        brush = step_brush(axis, brush, LOW, 1)
    assert (brush.low, brush.high) == (0.03, 0.03)
    brush = step_brush(axis, step_brush(axis, brush, HIGH, 1), HIGH, 1)  # back to the top: open again
    assert brush.high is None
    for _ in range(9):
        brush = step_brush(axis, brush, LOW, -1)
    assert not brush.active


def test_a_category_range_is_a_run_of_ticks():
    axis = axis_for("optimizer", ["SGD", "Adam", "Momentum"])
    brush = step_brush(axis, Brush(), LOW, 1)
    assert brush.chosen == ("Momentum", "SGD")
    brush = step_brush(axis, brush, HIGH, -1)
    assert brush.chosen == ("Momentum",)
    assert step_brush(axis, step_brush(axis, brush, HIGH, 1), LOW, -1) == Brush()  # every tick: no range


def test_the_brush_of_typed_conditions_and_back():
    rate = axis_for("learning_rate", RATES)
    opt = axis_for("optimizer", ["SGD", "Adam", "Momentum"])
    conditions = parse_conditions("lr 0.01..0.1 optimizer in Adam,SGD network!=LeNet5 loss>0.2")
    assert brush_of(rate, conditions) == Brush(low=0.01, high=0.1)
    assert brush_of(opt, conditions) == Brush(chosen=("Adam", "SGD"))
    # the tightest bound wins; > is kept strict
    assert brush_of(rate, parse_conditions("lr>0.003 lr>=0.001 lr<0.1")) == Brush(0.003, 0.1, True, True)
    assert brush_of(rate, parse_conditions("learning_rate=0.01")) == Brush(0.01, 0.01)
    moved = with_brush(conditions, rate, step_brush(rate, brush_of(rate, conditions), LOW, 1))
    assert conditions_text(moved) == ("learning_rate>=0.03 learning_rate<=0.1 optimizer in Adam,SGD "
                                      "network not_in LeNet5 loss>0.2")  # others kept, in place
    assert with_brush(conditions, opt, Brush())[2:] == [Condition("network", "not_in", ("LeNet5",)),
                                                        Condition("loss", "gt", 0.2)]
    appended = with_brush([Condition("loss", "gt", 0.2)], opt, Brush(chosen=("SGD",)))
    assert conditions_text(appended) == "loss>0.2 optimizer=SGD"
