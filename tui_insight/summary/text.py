"""Strings read from files, as text."""
from __future__ import annotations


def text_of(value: str | bytes) -> str:
    """A string field as text. protobuf hands over the raw bytes of a proto2 `string` that is not
    valid UTF-8 (a tag written by a buggy or hostile writer): the invalid bytes are shown as `\\xff`,
    so every tag is a `str` that sorts and compares with the others."""
    return value if isinstance(value, str) else value.decode("utf-8", "backslashreplace")
