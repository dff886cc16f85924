"""Text from files and remotes made safe to print: the one escaper for terminals and screens.

Names, tags and messages come from files and hosts anyone can write. A terminal acts on an
escape sequence (`\\x1b]52;…` sets the clipboard) or a bidi override, and a name that is not
UTF-8 reaches us as lone surrogates (`surrogateescape`), which cannot be encoded for printing.
`shown()` writes all of these as visible escapes; everything printed to stderr or stdout, and
everything drawn on a screen, goes through it. It imports nothing, so every layer may use it.
"""
from __future__ import annotations

import re

# C0 and C1 controls, DEL, the bidi embedding/override/isolate marks, and lone surrogates
# (the bytes of a name that is not UTF-8, decoded with surrogateescape).
_UNSAFE = re.compile("[\x00-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069\u200e\u200f\u061c\ud800-\udfff]")


def _visible(match: re.Match[str]) -> str:
    code = ord(match.group())
    if 0xDC80 <= code <= 0xDCFF:  # a byte that was not UTF-8, as surrogateescape carries it
        return f"\\x{code - 0xDC00:02x}"
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}"


def shown(text: str) -> str:
    """`text` with control, bidi and undecodable characters written as escapes (`\\x1b`, `\\xff`)."""
    return _UNSAFE.sub(_visible, text)
