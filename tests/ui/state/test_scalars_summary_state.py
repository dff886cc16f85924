"""Unit tests of the summary table's part of `ScalarsState`: shown or not, and which values are best."""
from __future__ import annotations

import json

from tui_insight.ui.state.scalars import ScalarsState
from tui_insight.ui.state.tags import TagSelection

TAGS = ("eval/Accuracy", "loss", "lr")


def state() -> ScalarsState:
    return ScalarsState(tags=TagSelection().with_tags(TAGS))._settled()


def test_the_direction_comes_from_the_tag_name_until_the_user_chooses():
    s = state()
    assert [s.best_direction(tag) for tag in TAGS] == ["higher", "lower", None]
    assert s.best == ()


def test_b_cycles_lower_higher_none():
    s = state()
    seen = []
    for _ in range(3):
        s = s.cycle_best("loss")
        seen.append(s.best_direction("loss"))
    assert seen == ["higher", None, "lower"]
    assert s.best == ()  # back to what the name says: nothing to remember
    assert state().cycle_best("lr").best_direction("lr") == "lower"  # no direction: lower first


def test_shift_b_flips_every_tag_that_has_a_direction():
    s = state().flip_best(TAGS)
    assert [s.best_direction(tag) for tag in TAGS] == ["lower", "higher", None]
    assert s.flip_best(TAGS).best == ()


def test_summary_table_shown_by_default_and_toggled():
    assert state().summary
    assert not state().toggle_summary().summary
    assert state().toggle_summary().toggle_summary().summary


def test_summary_and_directions_are_remembered():
    s = state().toggle_summary().cycle_best("loss").cycle_best("lr").cycle_best("lr").cycle_best("eval/Accuracy")
    back = ScalarsState.from_json(json.loads(json.dumps(s.to_json())))
    assert not back.summary
    assert [back.best_direction(tag) for tag in TAGS] == [None, "higher", "higher"]


def test_damaged_directions_are_ignored():
    back = ScalarsState.from_json({"summary": "no", "best": {"loss": "sideways", "acc": 3, "lr": "higher"}})
    assert back.summary and back.best_direction("loss") == "lower" and back.best_direction("lr") == "higher"
    assert ScalarsState.from_json({"best": ["loss"]}).best == ()
