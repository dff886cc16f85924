"""What a LOGDIR names: a local path, an ssh target (`user@host:/path`, `host:path`) or a URL
(`s3://...`). Nothing but `os` and `re` imported: the command line decides this before its heavy imports,
so that an ssh connection can start while they run."""
from __future__ import annotations

import os
import re


def is_url(logdir: str) -> bool:
    scheme, sep, _ = logdir.partition("://")
    return bool(sep) and scheme.replace("+", "").replace("-", "").isalnum()


def remote_kind(logdir: str) -> str | None:
    """"url" (scheme://...), "ssh" (user@host:/path, or host:path as scp writes it: a colon
    before the first slash, not a drive letter, not a local path that exists) or None (local)."""
    if is_url(logdir):
        return "url"
    colon, slash = logdir.find(":"), logdir.find("/")
    if colon > 0 and (slash < 0 or colon < slash) and not (colon == 1 and logdir[0].isalpha()) \
            and not os.path.exists(logdir):
        return "ssh"
    return None


_RANGE = re.compile(r"(-?\d+)\.\.(-?\d+)")


def _brace_group(word: str) -> tuple[int, int, list[str]] | None:
    """The first `{...}` of `word` that expands (a comma at its own level, or `a..b` numbers):
    its start, end and parts (a range as its numbers); None if none does."""
    start = word.find("{")
    while start >= 0:
        depth, commas = 0, list[int]()
        for i in range(start, len(word)):
            if word[i] == "{":
                depth += 1
            elif word[i] == "}":
                depth -= 1
                if depth == 0:
                    inner = word[start + 1:i]
                    if commas:
                        cuts = [start, *commas, i]
                        return start, i + 1, [word[a + 1:b] for a, b in zip(cuts, cuts[1:])]
                    found = _RANGE.fullmatch(inner)
                    if found:
                        lo, hi = int(found.group(1)), int(found.group(2))
                        step = 1 if hi >= lo else -1
                        width = len(found.group(1)) if found.group(1).lstrip("-").startswith("0") else 0
                        return start, i + 1, [f"{n:0{width}d}" for n in range(lo, hi + step, step)]
                    break
            elif word[i] == "," and depth == 1:
                commas.append(i)
        start = word.find("{", start + 1)
    return None


def expand_braces(word: str) -> list[str]:
    """The words a POSIX shell with brace expansion makes of `word`: `node{1..3}:/logs` gives
    three, `{a,b}/x` two, nested groups too (`{a,{b,c}}`); numbers keep the width of a
    zero-padded start (`{01..10}`). A word with no such group is itself (`{x}` stays)."""
    group = _brace_group(word)
    if group is None:
        return [word]
    start, end, parts = group
    return [out for part in parts for out in expand_braces(word[:start] + part + word[end:])]
