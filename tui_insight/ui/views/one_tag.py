"""A view of one tag at a time whose every shown job's values of it the loader reads (text,
PR curves): the tag list, the requests per job, the answers and what a cache change asks again.

A subclass names its `PLUGIN`, `load` (cache, train id, tag -> that job's values, run by the
loader) and `_redraw`; its `state` has `tag`, `settled(tags)` and `next_tag(tags, direction)`.
"""
from __future__ import annotations

from functools import partial
from typing import Any, Callable, ClassVar

from ...summary.store.job_view import Changes
from ..loader import Loaded
from .base import DataView


class OneTagView(DataView):
    PLUGIN: ClassVar[str]
    load: ClassVar[Callable[..., Any]]  # (cache, train id, tag) -> the values; a staticmethod in the subclass
    state: Any

    def __init__(self, cache, train_ids, **kwargs: Any):
        super().__init__(cache, train_ids, **kwargs)
        self.by_job: dict[str, Any] = {}  # per job, the shown tag's values
        self.errors: dict[str, str] = {}  # per job, why its values could not be read
        self._version = 0  # bumped when the shown tag gains steps

    @classmethod
    def has_data(cls, job) -> bool:
        return job.tag_count(cls.PLUGIN) > 0  # the tab shows only on jobs with such data

    def on_mount(self) -> None:
        self.state = self.state.settled(self.tags())
        self._request()
        self._redraw()
        self.remember(self.state)
        self.ready_for_keys()

    def _redraw(self) -> None:
        raise NotImplementedError

    # -- data -----------------------------------------------------------------------------------

    def tags(self) -> list[str]:
        """The view's tags in the shown jobs, sorted."""
        return sorted({tag for job in self.jobs for tag in job.tag_names(self.PLUGIN)})

    def pending(self) -> int:
        return self.loader.pending()

    def _request(self) -> None:
        tag = self.state.tag
        self.loader.forget()
        if tag is None:
            self.by_job, self.errors = {}, {}
            return
        for tid in self.train_ids:
            self.loader.request((tid, tag, self._version), partial(type(self).load, self.cache, tid, tag),
                                partial(self._loaded, tid, tag))

    def _loaded(self, train_id: str, tag: str, result: Loaded) -> None:
        if tag != self.state.tag:
            return
        if result.ok:
            self.by_job[train_id] = result.value
            self.errors.pop(train_id, None)
        else:
            self.by_job.pop(train_id, None)
            self.errors[train_id] = result.error
        self._redraw()

    def cache_changed(self, changes: Changes) -> None:
        ids = set(self.train_ids)
        touched = any(changes.tags(tid, self.PLUGIN) != set() for tid in ids & changes.jobs())
        if not touched:
            return
        settled = self.state.settled(self.tags())
        if settled != self.state:
            self.state = settled  # the watcher asks for the new tag's steps
            return
        self._version += 1
        self._request()
        self._redraw()

    # -- state ----------------------------------------------------------------------------------

    def watch_state(self, old: Any, new: Any) -> None:
        if new.tag != old.tag:
            self.by_job, self.errors = {}, {}
            self._request()
        self._redraw()
        self.remember(new)

    def action_tag(self, direction: int) -> None:
        self.state = self.state.next_tag(self.tags(), direction)
