"""Several log directories read as one (`tui-insight node1:/logs node2:/logs ./local`): a
`Source` over sources, so the cache, the readers, the export and the screens need not know.

- **Names.** Each source has a label: the host of `user@host:/path`, the bucket of a URL, the
  directory's name of a local path (a second source of the same label gets `#2`). A job is
  named by its source: `node1:./exp/rank_0`.
- **Paths.** A source's path `P` is `/@<i>` + `P` here (`/@0/home/me/logs/run`), so paths joined
  below a job's path keep their source; every call goes to the source the prefix names.
- **On its own.** Each source is discovered in its own thread. One that fails or does not
  answer within `DISCOVER_SECONDS` keeps the jobs it had at its last answer, and the failure is
  one problem line naming it; the others go on. `status` names the sources that have one
  ("node2: reconnecting…"). A source that could not be made at all (`unreachable`) is listed
  as a problem at every discovery, with the others loading.
"""
from __future__ import annotations

import os
import re
import time
from collections.abc import Iterable, Sequence
from concurrent.futures import ThreadPoolExecutor
from concurrent.futures import TimeoutError as FutureTimeout
from dataclasses import replace
from typing import BinaryIO
from urllib.parse import urlsplit

from .discovery import Discovery
from .location import remote_kind

DISCOVER_SECONDS = 30.0  # a source whose listing takes longer keeps its last jobs meanwhile
PREFIX = "/@"
_OURS = re.compile(r"/@(\d+)(/|:)")


def source_label(logdir: str) -> str:
    """How jobs of `logdir` are named when several sources are open: its host (ssh), its bucket
    or host (URL), else the directory's name."""
    kind = remote_kind(logdir)
    if kind == "url":
        parts = urlsplit(logdir)
        return parts.netloc or parts.scheme
    if kind == "ssh":
        return logdir.split(":", 1)[0].rsplit("@", 1)[-1]
    return os.path.basename(os.path.abspath(logdir)) or "/"


def unique_labels(logdirs: Sequence[str]) -> list[str]:
    """A label per LOGDIR, the second and later of one label numbered (`logs`, `logs#2`)."""
    seen: dict[str, int] = {}
    labels = []
    for logdir in logdirs:
        label = source_label(logdir)
        seen[label] = seen.get(label, 0) + 1
        labels.append(label if seen[label] == 1 else f"{label}#{seen[label]}")
    return labels


class UnreachableSource:
    """A LOGDIR whose source could not be made (a host that did not answer): no jobs, and why
    at every discovery, so it is named while the others load."""

    is_local = False
    status = ""

    def __init__(self, location: str, reason: str):
        self.location = location
        self.root = location
        self.reason = reason

    def discover(self, listings: dict, turn: int | None = None) -> Discovery:
        return Discovery({}, [self.reason])

    def stat(self, path: str) -> os.stat_result:
        raise OSError(self.reason)

    def open_range(self, path: str, start: int, end: int) -> BinaryIO:
        raise OSError(self.reason)

    def read(self, path: str, start: int = 0, end: int | None = None) -> bytes:
        raise OSError(self.reason)

    def prefetch(self, ranges: Iterable[tuple[str, int, int]]) -> None:
        pass

    def listdir(self, path: str) -> list[str]:
        raise OSError(self.reason)

    def same_start(self, path: str, start: bytes) -> bool:
        raise OSError(self.reason)

    def close(self) -> None:
        pass


class MultiSource:
    """`sources` (Source objects, or local paths) read as one, named by `labels`."""

    is_local = False  # every read goes through the source it belongs to

    def __init__(self, sources: Sequence, labels: Sequence[str]):
        from .local import LocalSource

        self.sources = [LocalSource(os.fspath(s)) if isinstance(s, (str, os.PathLike)) else s for s in sources]
        self.labels = list(labels)
        self.location = " ".join(s.location for s in self.sources)
        self.root = PREFIX
        self._last: list[Discovery] = [Discovery({}, []) for _ in self.sources]
        self._pending: list = [None] * len(self.sources)  # a discovery still running past its time
        self._failing: set[str] = set()  # labels whose last discovery failed or did not answer
        self._pool = ThreadPoolExecutor(max_workers=max(1, len(self.sources)), thread_name_prefix="multi-source")

    @property
    def failing(self) -> list[str]:
        """The labels of the sources whose last discovery failed or did not answer in time, or
        that say something is wrong (`status`: a dropped host, "reconnecting…")."""
        return [label for label, source in zip(self.labels, self.sources)
                if label in self._failing or source.status]

    @property
    def status(self) -> str:
        return "; ".join(f"{label}: {source.status}" for label, source in zip(self.labels, self.sources)
                         if source.status)

    # -- paths ------------------------------------------------------------------------------------

    def path(self, index: int, path: str) -> str:
        """Our name of source `index`'s `path`: `/@0/abs/path`, or `/@0:rel/path` for a source
        whose paths do not start at `/` (an object store's `bucket/key`)."""
        return f"{PREFIX}{index}{path}" if path.startswith("/") else f"{PREFIX}{index}:{path}"

    def route(self, path: str):
        """(the source, its own path) of one of our paths."""
        match = _OURS.match(path)
        if match is None or int(match.group(1)) >= len(self.sources):
            raise OSError(f"{path}: not a path of these log directories")
        own = path[match.end():]
        return self.sources[int(match.group(1))], "/" + own if match.group(2) == "/" else own

    # -- the Source protocol ----------------------------------------------------------------------

    def discover(self, listings: dict, turn: int | None = None) -> Discovery:
        """Every source's jobs, named by its label; each source discovered in its own thread, all
        within one `DISCOVER_SECONDS` (a source still listing then keeps its last jobs, and its
        listing goes on, to be taken at the next discovery)."""
        futures = []
        for i, source in enumerate(self.sources):
            own = listings.setdefault(i, {})
            pending = self._pending[i]
            futures.append(pending if pending is not None and not pending.done()
                           else self._pool.submit(source.discover, own, turn))
        jobs, problems, listed = {}, [], 0
        deadline = time.monotonic() + DISCOVER_SECONDS
        for i, future in enumerate(futures):
            label = self.labels[i]
            self._failing.add(label)
            try:
                found = future.result(timeout=max(0.0, deadline - time.monotonic()))
                self._pending[i] = None
                self._last[i] = found
                if not isinstance(self.sources[i], UnreachableSource):
                    self._failing.discard(label)
            except FutureTimeout:
                self._pending[i] = future
                found = self._last[i]
                problems.append(f"{label} ({self.sources[i].location}): no answer in {DISCOVER_SECONDS:g} s; "
                                "its jobs as last listed")
            except Exception as exc:  # a source's own failure is its line, never the others' loss
                self._pending[i] = None
                found = self._last[i]
                problems.append(f"{label} ({self.sources[i].location}): {exc}")
            listed += found.listed
            problems += [f"{label}: {problem}" for problem in found.problems]
            for train_id, job in found.jobs.items():
                named = f"{label}:{train_id}"
                jobs[named] = replace(job, train_id=named, path=self.path(i, job.path))
        return Discovery(jobs, problems, listed)

    def stat(self, path: str) -> os.stat_result:
        source, own = self.route(path)
        return source.stat(own)

    def open_range(self, path: str, start: int, end: int) -> BinaryIO:
        source, own = self.route(path)
        return source.open_range(own, start, end)

    def read(self, path: str, start: int = 0, end: int | None = None) -> bytes:
        source, own = self.route(path)
        return source.read(own, start, end)

    def prefetch(self, ranges: Iterable[tuple[str, int, int]]) -> None:
        by_source: dict[int, list[tuple[str, int, int]]] = {}
        for path, start, end in ranges:
            source, own = self.route(path)
            by_source.setdefault(self.sources.index(source), []).append((own, start, end))
        for i, own_ranges in by_source.items():
            self.sources[i].prefetch(own_ranges)

    def listdir(self, path: str) -> list[str]:
        source, own = self.route(path)
        return source.listdir(own)

    def same_start(self, path: str, start: bytes) -> bool:
        source, own = self.route(path)
        return source.same_start(own, start)

    def close(self) -> None:
        for source in self.sources:
            source.close()
        self._pool.shutdown(wait=False, cancel_futures=True)
