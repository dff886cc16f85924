"""What a LOGDIR names: a local path, an ssh target (`user@host:/path`, `host:path`) or a URL
(`s3://...`). Nothing but `os` imported: the command line decides this before its heavy imports,
so that an ssh connection can start while they run."""
from __future__ import annotations

import os


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
