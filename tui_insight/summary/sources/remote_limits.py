"""Bounds on one remote request, over ssh (`ssh.py`) or to an object store (`object_store.py`):
what its answer may spool, and how long it may take.

A remote host is not trusted to answer as asked: a runaway or hostile command could stream
without end (the answer is spooled in memory) or never answer (a reload, an export would wait).
An object store is bounded in time only: its backend receives the bytes, and asks for ranges.

- A read asks for a number of bytes: its answer may hold those bytes, a header per range and
  `NOISE_BYTES` of what the remote login shell prints first; more is an error of that read.
- A listing's size is not known ahead: it may spool `max_listing` bytes (default 64 MiB: about
  650,000 files at ~100 bytes a record, far beyond a log tree, and little enough to parse at
  once). A listing past it keeps the files that arrived and says where it stopped.
- A request may take `timeout` seconds (default 30: keepalives end a dead network in 15 s, so a
  live host silent for 30 s is stuck: a hung mount, a hostile command) plus one second for each
  `RATE` bytes asked for or, for a listing, received: a slow link's transfer, a long but moving
  walk. Past it the request is stopped and fails like a dropped connection. An object store's
  listing (one paged LIST) is given time for LIST_BYTES a file of the last listing (the first:
  for `max_listing` bytes), as its size is not known while it runs.

`--ssh-max-listing` / `$TUI_INSIGHT_SSH_MAX_LISTING` and `--remote-timeout` (or `--ssh-timeout`) /
`$TUI_INSIGHT_SSH_TIMEOUT` change them.
"""
from __future__ import annotations

import math
import os
from dataclasses import dataclass

MAX_LISTING = 64 << 20
TIMEOUT = 30.0
RATE = 64 << 10  # bytes a second: a 0.5 Mbit/s link (a conservative rate, so a slow link is not cut)
NOISE_BYTES = 1 << 20  # a login banner or `.bashrc` output ahead of a read's answer
LIST_BYTES = 400  # an object's entry in an S3 LIST answer (XML), for a listing's time
HEADER_BYTES = 32  # "D <count>\n" or "E <reason>\n" ahead of each range (a reason is one short line)
MAX_LISTING_ENV, TIMEOUT_ENV = "TUI_INSIGHT_SSH_MAX_LISTING", "TUI_INSIGHT_SSH_TIMEOUT"


@dataclass(frozen=True)
class RequestLimits:
    """How much a remote request may spool and how long it may take."""

    max_listing: int = MAX_LISTING  # bytes a listing's answer may spool
    timeout: float = TIMEOUT  # seconds a request may take, before the time its bytes are given
    rate: float = RATE  # bytes a second the link is assumed to move at least

    def read_bytes(self, asked: int, ranges: int) -> int:
        """What the answer of a read asking for `asked` bytes in `ranges` ranges may spool."""
        return asked + ranges * HEADER_BYTES + NOISE_BYTES

    def seconds(self, nbytes: int) -> float:
        """How long a request moving `nbytes` may take."""
        return self.timeout + nbytes / self.rate


def limits_from(max_listing: int | None = None, timeout: float | None = None,
                environ: dict | None = None) -> RequestLimits:
    """The limits given (the command line's options), else the environment's, else the defaults.
    Raises ValueError naming a bad setting."""
    env = os.environ if environ is None else environ
    if max_listing is None and env.get(MAX_LISTING_ENV):
        max_listing = _size(env[MAX_LISTING_ENV], MAX_LISTING_ENV)
    if timeout is None and env.get(TIMEOUT_ENV):
        timeout = _seconds(env[TIMEOUT_ENV], TIMEOUT_ENV)
    elif timeout is not None:
        timeout = _seconds(str(timeout), "--remote-timeout")
    return RequestLimits(MAX_LISTING if max_listing is None else max_listing,
                         TIMEOUT if timeout is None else timeout)


_UNITS = {"": 1, "k": 1 << 10, "m": 1 << 20, "g": 1 << 30}


def _size(text: str, name: str) -> int:
    number = text.strip().lower().removesuffix("b").removesuffix("i")
    unit = number[-1:] if number[-1:] in _UNITS else ""
    try:
        value = float(number[:len(number) - len(unit)]) * _UNITS[unit]
    except ValueError:
        raise ValueError(f"{name}={text!r} is not a size (like 64M)") from None
    if not 1 <= value <= 1 << 40:
        raise ValueError(f"{name}={text!r} is not a size between 1 byte and 1T")
    return int(value)


def _seconds(text: str, name: str) -> float:
    try:
        value = float(text)
    except ValueError:
        value = math.nan
    if not 0 < value <= 86400:
        raise ValueError(f"{name}={text!r} is not a number of seconds (up to 86400)")
    return value
