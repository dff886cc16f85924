"""Text from log files is shown as text: never markup, control characters made visible."""
from __future__ import annotations

import pytest
from textual.content import Content

from tui_insight.ui.common.text import literal, markup, shown

AS_WRITTEN = ["[bold red]markup[/]", "/data/[exp]/logs", "grad[b]/norm", "a\\[b]", "end\\", "[[", "[/]",
              "$accent [$x]", "@click=app.quit", "[@click=app.quit]x[/]", "normal"]


@pytest.mark.parametrize("text", AS_WRITTEN)
def test_markup_shows_the_text_exactly(text):
    # (a trailing backslash is followed by a zero-width space, so it does not escape the next tag)
    assert Content.from_markup(f"[b]{markup(text)}[/b]").plain.replace("\u200b", "") == text


@pytest.mark.parametrize("text,expected", [("e\x1b[2Jx", "e\\x1b[2Jx"), ("a\u202eb", "a\\u202eb"),
                                           ("t\tn\n", "t\\x09n\\x0a"), ("del\x7f", "del\\x7f"),
                                           ("ünïcode ✓", "ünïcode ✓")])
def test_control_and_bidi_characters_are_escaped(text, expected):
    assert shown(text) == expected
    assert Content.from_markup(markup(text)).plain == expected
    assert literal(text).plain == expected
