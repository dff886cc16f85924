"""When the cache's watching thread wakes: files under the LOGDIR changed (watchfiles' change
notices), or the poll interval passed (a remote source, a file system without notices, a LOGDIR
whose name is not UTF-8, which watchfiles cannot take)."""
from __future__ import annotations

import logging
import threading
from typing import Iterator

from ...escape import shown

log = logging.getLogger(__name__)

STEP_MS = 200  # how often watchfiles' loop looks for changes and at the stop event
QUIET_POLL_SECONDS = 30.0  # while notices work, the safety-net poll's wait after one that found nothing...
MAX_POLL_SECONDS = 120.0  # ... doubling up to this while the polls keep finding nothing


def next_poll(wait: float, interval: float, found: bool, watching: bool) -> float:
    """Seconds from a safety-net poll to the next, `wait` having been the last: `interval` when
    there are no change notices or the poll found what they missed; else doubling from
    QUIET_POLL_SECONDS to MAX_POLL_SECONDS (never under `interval`). A poll of 5,000 finished jobs
    stats up to 10,000 paths, and a fraction of those it looks at in turn (`sources.poll`)."""
    if found or not watching:
        return interval
    return max(interval, min(MAX_POLL_SECONDS, max(QUIET_POLL_SECONDS, 2 * wait)))


class Wakeups:
    """The wakeups of one LOGDIR until `stop` is set."""

    def __init__(self, logdir: str, is_local: bool, stop: threading.Event):
        self.logdir = logdir
        self.is_local = is_local
        self.stop = stop
        self.watching = False  # change notices arrive: the interval poll may back off

    def every(self, interval: float) -> Iterator[set[str] | None]:
        """Yields the changed paths when files changed, or None when `interval` passed; polls if
        watching fails."""
        try:
            from watchfiles import watch

            if self.is_local and not _utf8(self.logdir):
                log.warning("%s: the name is not UTF-8, so changes are found by polling every %gs",
                            shown(self.logdir), interval)
                return (yield from self._polled(interval))
            # watchfiles' loop wakes every `step` (taking the GIL to look at `stop`): 5 a second
            # keep an idle app's CPU low; a change is still seen within ~0.4 s, the cache's
            # reload pace anyway (LIVE_RELOAD_SECONDS).
            for changes in watch(self.logdir, stop_event=self.stop, rust_timeout=int(interval * 1000),
                                 yield_on_timeout=True, debounce=STEP_MS * 2, step=STEP_MS,
                                 raise_interrupt=False) \
                    if self.is_local else ():  # a remote source is polled
                self.watching = True
                yield {path for _, path in changes} or None
        except Exception:  # no notices on this file system, or it went away: poll instead
            log.exception("watching %s for changes failed; polling every %gs instead", shown(self.logdir), interval)
        yield from self._polled(interval)

    def _polled(self, interval: float) -> Iterator[None]:
        """None every `interval` seconds until stopped."""
        self.watching = False
        while not self.stop.wait(interval):
            yield None


def _utf8(path: str) -> bool:
    """Whether `path` is valid UTF-8 (no byte that came in as a surrogate escape)."""
    try:
        path.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True
