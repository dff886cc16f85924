"""The rank a job's profiler output names, from its file names alone (nothing is read).

MindSpore names a profile's files after the rank that wrote them (`RANK_ID`, or the device id on
one device): `profiler_info_<N>.json` (MindInsight's `profiler*` layout, and MindSpore 2.x's
`*_ascend_ms` directory on Ascend) and, in an `*_ascend_ms` directory, `FRAMEWORK/cpu_op_type_info_<N>.csv`
and the other `<stem>_<N>` files beside it. The job list groups jobs whose profiles name different
ranks under one parent (`queries/ranks.py`). A listing costs one or two `listdir` calls per
profile directory; the loader makes it when it publishes the job and its profile directories
changed (a directory that appears is such a change), or none of them named a rank yet.
"""
from __future__ import annotations

import os
import re
from typing import Any, Sequence

ASCEND_MS_SUFFIX = "_ascend_ms"
# The files whose `_<N>` suffix is the rank (`formats/profiler.py` reads them).
RANK_FILE_RE = re.compile(r"^(?:profiler_info|cpu_op_type_info|cpu_op_detail_info|gpu_op_type_info|"
                          r"gpu_op_detail_info|cpu_op_execute_timestamp|cpu_framework)_(\d+)\.(?:json|csv|txt)$")


def _names(path: str, source: Any) -> list[str]:
    try:
        return os.listdir(path) if source is None else list(source.listdir(path))
    except OSError:
        return []


def ranks_in(profile_dir: str, source: Any = None) -> set[int]:
    """The ranks the files of one profile directory name (empty: none, or it cannot be listed)."""
    names = _names(profile_dir, source)
    if os.path.basename(os.path.normpath(profile_dir)).endswith(ASCEND_MS_SUFFIX):
        names += _names(os.path.join(profile_dir, "FRAMEWORK"), source)
    return {int(m.group(1)) for m in map(RANK_FILE_RE.match, names) if m}


def profiler_rank(job_dir: str, profile_dirs: Sequence[str], source: Any = None) -> int | None:
    """The one rank every profile of the job names (`profile_dirs`: its child directories that
    hold one); None when there is none, or they name several (a job holding several ranks'
    profiles is no rank of a group). `source`: the cache's source, read through when remote."""
    if not profile_dirs:
        return None
    source = None if source is None or getattr(source, "is_local", True) else source
    found: set[int] = set()
    for name in profile_dirs:
        found |= ranks_in(os.path.join(job_dir, name), source)
        if len(found) > 1:
            return None
    return found.pop() if found else None
