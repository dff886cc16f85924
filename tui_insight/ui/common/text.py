"""Text from log files shown as text: never parsed as markup, control characters made visible.

Tag names, job directories, node names and lineage strings come from files anyone can write.
In Rich/Textual markup `[bold red]x[/]` would style the text and `[exp]` would vanish, and a
terminal would act on an escape sequence or a bidi override. Every place where such text meets
markup goes through `markup()`; where a `rich.text.Text` is built, through `literal()`.
"""
from __future__ import annotations

from rich.text import Text

from ...escape import shown

__all__ = ["literal", "markup", "shown"]


def markup(text: str) -> str:
    """`text` ready to go inside Textual markup: shown literally, control characters escaped.

    In Textual's markup a backslash escapes only the `[` right after it and is literal
    elsewhere, so escaping every `[` is exact (rich.markup.escape and textual.markup.escape
    both miss some: `[x]` before a tag, a trailing backslash). A backslash at the very end would
    escape the tag that follows it, so it is followed by a zero-width space.
    """
    text = shown(text).replace("[", "\\[")
    return text + "\u200b" if text.endswith("\\") else text


def literal(text: str, style: str = "") -> Text:
    """A `Text` of `text` exactly as written (no markup parsing), control characters escaped."""
    return Text(shown(text), style=style)
