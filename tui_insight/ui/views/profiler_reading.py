"""What the profiler view asks its loader to read (these run in the loader's thread): the jobs'
profiles, a profile's first screen, its trace. The data layer (`summary.formats.profiler`)
reads the files; what cannot be read is raised as a `LoadProblem` the view names."""
from __future__ import annotations

from ...summary.formats import profiler as data
from ...summary.formats.profiler import Profile, ProfileRef, Timeline
from ..loader import LoadProblem


def find_refs(cache, train_ids: tuple[str, ...]) -> list[tuple[str, ProfileRef]]:
    """(train id, profile) of every profile of the jobs, newest first."""
    jobs = [cache.job(tid) for tid in train_ids]
    found = [(job.train_id, ref) for job in jobs if job is not None
             for ref in data.find_profiles(job.path, cache.source)]
    return sorted(found, key=lambda item: -item[1].created)


def open_profile(ref: ProfileRef) -> Profile:
    """What the first screen shows: op types, ops, memory (calls, shapes and trace come next)."""
    return data.load_profile(ref, calls=False, shapes=False, timeline=False)


def read_timeline(ref: ProfileRef) -> Timeline:
    """The trace's spans (`trace_view.json`), which only the `*_ascend_ms` layout has."""
    if ref.layout != "ascend_ms":
        raise LoadProblem("no timeline: MindInsight's older layout has no trace_view.json")
    return data.load_timeline(ref)
