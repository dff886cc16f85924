"""What each job holds that no view shows, written to the app's log (`tui-insight.log`) once.

The dashboard says it on screen; the log keeps it for later: a line per job, written when the
job has been read (not while its first load is still filling in the counts) and again only when
what it says changes (a live run writing a new kind of data), never on every reload.
"""
from __future__ import annotations

import logging
from collections.abc import Mapping

from ..escape import shown
from ..summary.store.job_view import Changes, JobView
from ..summary.store.not_shown import NotShown

log = logging.getLogger(__name__)


class NotShownLog:
    def __init__(self) -> None:
        self._logged: dict[str, NotShown] = {}  # train_id -> what was logged of it

    def record(self, changes: Changes, jobs: Mapping[str, JobView]) -> None:
        """Log the jobs of `changes` whose account is new since it was last logged."""
        for train_id in sorted({*changes.added, *changes.updated}):
            view = jobs.get(train_id)
            if view is None or not view.loaded or not view.not_shown or self._logged.get(train_id) == view.not_shown:
                continue
            self._logged[train_id] = view.not_shown
            log.warning("%s: not shown: %s", shown(train_id), shown(view.not_shown.brief()))
        for train_id in changes.removed:
            self._logged.pop(train_id, None)
