"""The `/` filter of every list: a regex when the text is one, else a plain substring."""
from __future__ import annotations

import re
from typing import Callable


def compile_filter(text: str) -> Callable[[str], bool]:
    """A case-insensitive match function for `text` (everything matches an empty filter)."""
    if not text:
        return lambda _: True
    try:
        pattern = re.compile(text, re.IGNORECASE)
        return lambda s: pattern.search(s) is not None
    except re.error:
        lowered = text.lower()
        return lambda s: lowered in s.lower()
