"""Names cut to fit where they still tell apart: run, tag and job names in a given width.

Names shown together usually differ at the end (`./lenet_lr0.01`, `./lenet_lr0.1`) or in the
middle, so a name is cut in its middle, never at its end; names sharing a long start drop that
start (shown as `…`) before anything else is cut. Widths are terminal cells (CJK counts two).
The full name belongs on the status line of the focused item.
"""
from __future__ import annotations

from collections.abc import Sequence

from rich.cells import cell_len, get_character_cell_size

ELLIPSIS = "…"
# A dropped common start ends at one of these, so what remains starts a name's own part ("."
# is not one: it would split `lr0.01` from `lr0.1` inside the number).
SEPARATORS = "/\\_-:= "


def _head(text: str, cells: int) -> str:
    """The longest start of `text` in at most `cells` cells."""
    used = 0
    for index, char in enumerate(text):
        used += get_character_cell_size(char)
        if used > cells:
            return text[:index]
    return text


def _tail(text: str, cells: int) -> str:
    """The longest end of `text` in at most `cells` cells."""
    return _head(text[::-1], cells)[::-1]


def middle(text: str, width: int) -> str:
    """`text` in at most `width` cells, its middle replaced by `…` when it does not fit.

    The end keeps the larger half: it is where names of one sweep differ (`lr0.01`, `seed3`).
    """
    if cell_len(text) <= width:
        return text
    if width <= 1:
        return ELLIPSIS[:max(0, width)]
    room = width - 1
    head = room // 2
    return _head(text, head) + ELLIPSIS + _tail(text, room - head)


def _shared_length(a: str, b: str) -> int:
    length = 0
    while length < min(len(a), len(b)) and a[length] == b[length]:
        length += 1
    return length


def common_start(names: Sequence[str]) -> str:
    """The start every name shares, ending just after a separator ("" if none or one name).

    Never a whole name: a name equal to the shared start would be left empty."""
    if len(names) < 2:
        return ""
    shared = min(names)[:_shared_length(min(names), max(names))]
    start = shared[:max(shared.rfind(sep) for sep in SEPARATORS) + 1]
    return "" if any(len(name) <= len(start) for name in names) else start


def common_end(names: Sequence[str]) -> str:
    """The end every name shares, starting at a separator ("" if none, one name, or a whole one)."""
    reversed_start = common_start([name[::-1] for name in names])
    if not reversed_start:
        return ""
    return reversed_start[::-1]


def _cut(names: Sequence[str], width: int, start: str, end: str) -> list[str]:
    shown = []
    for name in names:
        core = name[len(start):len(name) - len(end)]
        shown.append(middle((ELLIPSIS if start else "") + core + (ELLIPSIS if end else ""), width))
    return shown


def apart(names: Sequence[str], width: int) -> list[str]:
    """`names` each in at most `width` cells, in order, still telling them apart.

    Names that fit are left whole. Otherwise a start they all share is dropped (shown as `…`)
    and what remains is cut in its middle; if that still shows two names alike, a shared end is
    dropped too. One name alone is only cut in its middle."""
    if all(cell_len(name) <= width for name in names):
        return list(names)
    start = common_start(names)
    start = start if len(start) > 1 else ""
    shown = _cut(names, width, start, "")
    if len(set(shown)) < len(set(names)):
        rests = [name[len(start):] for name in names]
        end = common_end(rests)
        shown = _cut(names, width, start, end if len(end) > 1 else "") if end else shown
    return shown
