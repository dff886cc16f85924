"""A job file's read state (`FileState`: its offset, its layouts, what went wrong) and the
small rules the loader applies to one file's records."""
from __future__ import annotations

import os
from dataclasses import dataclass
from typing import TYPE_CHECKING, Iterable, Mapping, Sequence

import numpy as np

from .. import limits
from ..formats.file_names import is_tensorboard_file
from ..formats.routing import file_read_order
from ..sources.discovery import FoundJob
from .job_view import FileStatus

if TYPE_CHECKING:
    from ..formats.tensorboard import TensorBoardRouter

NOT_A_SUMMARY = "not a summary file"  # a file's error when none of its records is valid
NOT_AN_EVENT_FILE = "not a TensorBoard event file"  # ... a `tfevents` file's


@dataclass
class FileState:
    """What the loader knows of one of a job's event files: where it read up to, and what it met."""

    name: str
    fid: int
    end: int = 0  # where the next scan starts
    size: int = 0
    inode: tuple[int, int] = (0, 0)
    records: int = 0
    bad_records: int = 0
    tail_bytes: int = 0
    error: str = ""
    mtime: float = 0.0
    kind: str = "summary"  # "summary" or "tensorboard": how its records are decoded
    head: str = ""  # hex of the file's first bytes as read (`source.HEAD_BYTES`); "" when not known

    def status(self, now: float) -> FileStatus:
        truncated = bool(self.tail_bytes) and now - self.mtime > limits.TRUNCATED_AFTER_SECONDS
        # Records were found and not one of them is valid (random bytes, a text file under a
        # summary file's name): the file is not a summary file, rather than "corrupt: 1 record".
        # Derived on each publish, so a valid record appended later makes it a summary file again.
        unread = NOT_A_SUMMARY if self.kind == "summary" else NOT_AN_EVENT_FILE
        error = self.error or (unread if self.bad_records and not self.records else "")
        return FileStatus(self.name, self.size, self.records, self.bad_records, self.tail_bytes, error,
                          truncated)

    def nothing_appended(self, st: os.stat_result) -> bool:
        """Whether `st` is the file as read to its end; if so, take its time and size as read."""
        self.mtime = st.st_mtime
        if st.st_size != self.end or (st.st_dev, st.st_ino) != self.inode:
            return False
        self.size, self.tail_bytes, self.error = st.st_size, 0, ""
        return True


def file_kind(name: str) -> str:
    return "tensorboard" if is_tensorboard_file(name) else "summary"


def read_order(state: "FileState"):
    return file_read_order(state.name)


def has_restart(payloads: Sequence[bytes], which: np.ndarray, decoded: dict) -> bool:
    """Does an event to be decoded one by one in this batch (`which` -1) restart the run
    (SessionLog START)? The events it decodes are added to `decoded`, for the routing that follows."""
    from ..formats import tensorboard as tb  # (here: read once a TensorBoard file is found)

    for i in np.flatnonzero(which == -1).tolist():
        event = decoded[i] if i in decoded else decoded.setdefault(i, tb.decode_event(payloads[i]))
        if event is not None and tb.is_restart(event):
            return True
    return False


def tensorboard_router(tags: Iterable[tuple[str, str]] = ()) -> TensorBoardRouter:
    """A job's TensorBoard router, knowing the plugins of the (plugin, tag) pairs read before
    (a snapshot's); made for the job's first TensorBoard file, so that a MindSpore run never
    imports the TensorBoard decoder."""
    from ..formats import tensorboard as tb

    return tb.TensorBoardRouter(tb.plugin_names(tags))


class FileReplaced(Exception):
    """A file read on from where it stopped no longer starts as it did: another file under its name."""


def head_bytes(state: FileState) -> bytes:
    """The first bytes the file had when read (none known: b"", which every file starts with)."""
    try:
        return bytes.fromhex(state.head)
    except ValueError:
        return b""


def describe(exc: OSError) -> str:
    return exc.strerror or str(exc)


def writer_closed(found: FoundJob, stats: Mapping[str, os.stat_result | OSError], modes_known: bool) -> bool | None:
    """Whether the job's writer closed it: every MindSpore summary file read-only, as MindSpore
    leaves one on close (compat §1.1). None where that cannot show: no summary file, TensorBoard
    files beside them (their writers leave nothing on close), or modes not known (remote listings)."""
    if not modes_known or not found.summary_files or found.tensorboard_files:
        return None
    modes = [st.st_mode for st in map(stats.get, found.summary_files) if isinstance(st, os.stat_result)]
    if len(modes) != len(found.summary_files):
        return None
    return not any(mode & 0o222 for mode in modes)


def newest_mtime(stats: Mapping[str, os.stat_result | OSError]) -> float:
    """The newest mtime among the job's files."""
    return max((st.st_mtime for st in stats.values() if isinstance(st, os.stat_result)), default=0.0)
