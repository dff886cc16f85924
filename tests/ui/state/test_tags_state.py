"""Unit tests of `TagSelection`, the tag list state shared by the scalar, histogram and image views."""
from __future__ import annotations

import json

from tui_insight.ui.state.tags import TagSelection

TAGS = ("acc", "loss", "lr")


def test_new_tags_are_selected_unless_turned_off():
    s = TagSelection().with_tags(TAGS)
    assert s.visible() == TAGS and s.shown() == TAGS
    s = s.toggle("acc")
    assert s.visible() == ("loss", "lr") and s.deselected == {"acc"}
    s = s.with_tags(("acc", "grad", "loss", "lr"))  # more data arrives: the new tag is on, acc stays off
    assert s.selected == {"loss", "lr", "grad"}
    assert s.toggle("acc").visible() == ("acc", "grad", "loss", "lr") and not s.toggle("acc").deselected


def test_same_tags_give_the_same_object():
    s = TagSelection().with_tags(TAGS)
    assert s.with_tags(list(TAGS)) is s and s.with_filter("") is s


def test_filter_chooses_rows_and_charts_regex_or_substring():
    s = TagSelection().with_tags(TAGS).with_filter("^l")
    assert s.shown() == ("loss", "lr") and s.visible() == ("loss", "lr")
    assert s.with_filter("LOSS").shown() == ("loss",)  # case-insensitive
    assert s.with_filter("[").shown() == ()  # not a regex: a substring


def test_select_all_selects_what_the_filter_shows_or_none_if_all_are():
    s = TagSelection().with_tags(TAGS).with_filter("^l")
    none = s.select_all()
    assert none.visible() == () and none.selected == {"acc"}
    assert none.select_all().visible() == ("loss", "lr")
    assert none.with_filter("").visible() == ("acc",)


def test_only_selects_exactly_the_given_tags():
    s = TagSelection().with_tags(TAGS).only(["loss", "missing"])
    assert s.visible() == ("loss",) and s.deselected == {"acc", "lr"}


def test_empty_reason_says_what_to_do():
    s = TagSelection().with_tags(TAGS)
    assert s.empty_reason() == ""
    assert TagSelection().empty_reason() == ""  # no tags at all: the view says why
    assert s.select_all().empty_reason() == "no tag selected: space selects, a selects all"
    assert s.with_filter("xyz").empty_reason() == "no tag matches /xyz/ (esc clears)"


def test_json_round_trip_and_bad_input():
    s = TagSelection().with_tags(TAGS).toggle("lr").with_filter("l")
    back = TagSelection.from_json(json.loads(json.dumps(s.to_json())))
    assert back.deselected == {"lr"} and back.filter == "l"
    assert back.with_tags(TAGS).visible() == ("loss",)
    assert TagSelection.from_json({"deselected": "lr", "filter": 3}) == TagSelection()
