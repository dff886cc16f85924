"""The text view's state: pure transitions, remembered and read back without trusting it."""
from tui_insight.ui.state.text import TextState

TAGS = ["a", "b", "c"]


def test_settled_keeps_a_tag_that_is_there_and_falls_back_to_the_first():
    assert TextState().settled(TAGS).tag == "a"
    assert TextState(tag="b").settled(TAGS).tag == "b"
    assert TextState(tag="gone").settled(TAGS).tag == "a"
    assert TextState(tag="b").settled([]).tag is None


def test_next_tag_wraps_around_both_ways():
    state = TextState(tag="a")
    assert [state.next_tag(TAGS, 1).tag, state.next_tag(TAGS, -1).tag] == ["b", "c"]
    assert TextState(tag="c").next_tag(TAGS, 1).tag == "a"
    assert TextState(tag=None).next_tag(TAGS, 1).tag == "a" and TextState(tag=None).next_tag(TAGS, -1).tag == "c"
    assert TextState(tag="a").next_tag([], 1) == TextState(tag="a")


def test_order_lists_newest_first_until_turned():
    state = TextState()
    assert state.ordered([1, 2, 3]) == [3, 2, 1]
    assert state.toggle_order().ordered([1, 2, 3]) == [1, 2, 3]
    assert state.toggle_order().toggle_order() == state


def test_remembered_and_read_back_without_trusting_it():
    state = TextState(tag="notes", newest_first=False)
    assert TextState.from_json(state.to_json()) == state
    assert TextState.from_json({"tag": 3, "newest_first": "yes"}) == TextState()
    assert TextState.from_json(None) == TextState() and TextState.from_json([1]) == TextState()


def test_markdown_until_raw_is_turned_on_and_remembered():
    state = TextState(tag="notes")
    assert not state.raw and state.toggle_raw().raw and state.toggle_raw().toggle_raw() == state
    raw = state.toggle_raw()
    assert TextState.from_json(raw.to_json()) == raw
    assert TextState.from_json({"tag": "notes", "raw": "yes"}) == state
