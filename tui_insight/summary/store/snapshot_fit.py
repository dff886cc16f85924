"""Whether a saved snapshot still describes a job's files: the rules a warm start and a
loader taking back its details apply before trusting what was read before."""
from __future__ import annotations

import os
from typing import Mapping

from ..sources.discovery import FoundJob
from .file_state import FileState
from .snapshot import JobSnapshot


def snapshot_fits(snapshot: JobSnapshot, path: str, found: FoundJob,
                  stats: Mapping[str, os.stat_result | OSError]) -> bool:
    """May reading go on from `snapshot`? Every file it describes must still be the same file
    (device, inode) and at least as long as what it read; else the job is read from scratch."""
    if snapshot.path != path or sorted(f["fid"] for f in snapshot.files) != list(range(len(snapshot.files))):
        return False
    for record in snapshot.files:
        st = stats.get(record["name"])
        if record["name"] not in found.event_files or not isinstance(st, os.stat_result):
            return False
        if (st.st_dev, st.st_ino) != tuple(record["inode"]) or st.st_size < record["end"]:
            return False
    n = len(snapshot.files)
    return all(not len(s.candidates["fid"]) or 0 <= int(s.candidates["fid"].min()) <= int(s.candidates["fid"].max()) < n
               for s in snapshot.series.values())


def unchanged_files(snapshot: JobSnapshot, names: list[str],
                    stats: Mapping[str, os.stat_result | OSError]) -> dict[str, FileState] | None:
    """The snapshot's files as read states, when the job's event files are exactly those it read
    (the same files, in order, none grown: `snapshot_fits`, then nothing appended); else None."""
    records = snapshot.files
    if len(records) != len(names):
        return None
    files: dict[str, FileState] = {}
    for fid, record in enumerate(records):
        st = stats.get(record["name"])
        if (record["fid"] != fid or not isinstance(st, os.stat_result) or st.st_size != record["end"]
                or st.st_ino != record["inode"][1] or st.st_dev != record["inode"][0]):
            return None
        state = FileState(record["name"], fid, record["end"], record["size"], (st.st_dev, st.st_ino),
                          record["records"], record["bad_records"], record["tail_bytes"], record["error"],
                          record["mtime"], record["kind"], record["head"])
        state.nothing_appended(st)
        files[state.name] = state
    return files if files.keys() == set(names) else None
