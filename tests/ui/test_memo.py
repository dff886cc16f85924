"""`Memo` (`ui/common/memo.py`): what the lineage and profiler views keep between redraws."""
from __future__ import annotations

from tui_insight.ui.common.memo import Memo


def test_a_memo_computes_again_only_when_the_key_changes():
    made: list[str] = []

    def make(value: str):
        return lambda: made.append(value) or value

    memo: Memo[str] = Memo()
    assert memo.get(None, make("first")) == "first"  # the first key, even None, computes
    assert memo.get(None, make("again")) == "first" and made == ["first"]
    assert memo.get((1, "a"), make("second")) == "second"
    assert memo.get((1, "a"), make("third")) == "second"
    assert memo.get(None, make("back")) == "back"  # only the last key is kept
    assert made == ["first", "second", "back"]
