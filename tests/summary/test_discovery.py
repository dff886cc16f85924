"""Finding jobs: nested directories, file kinds, symlinks, unreadable directories."""
import os

import pytest

from fixture_paths import MINDSPORE_LOGS
from tui_insight.summary.discovery import classify, discover
from tui_insight.summary.writer import SummaryWriter


def test_fixture_jobs_match_mindinsight_listing(truth):
    found = discover(str(MINDSPORE_LOGS))
    assert set(found.jobs) == set(truth["train_jobs"]["order"])
    for train_id, job in found.jobs.items():
        listing = truth["jobs"][train_id]["listing"]
        assert len(job.summary_files) == listing["summary_files"]
        assert len(job.lineage_files) == listing["lineage_files"]
        assert len(job.graph_files) == listing["graph_files"]


@pytest.mark.parametrize("name,kind", [
    ("events.out.events.summary.1700000000.0.host_MS", "summary"),
    ("x.summary.12", "summary"),
    ("events.out.events.summary.1700000000.0.host_lineage", "lineage"),
    ("events.out.events.summary.1700000000.0.host_explain", None),
    ("graph.pb", "graph"),
    ("memory_usage_0.pb", None),
    ("summary.txt", None),
    ("model.ckpt", None),
])
def test_classify(name, kind):
    assert classify(name) == kind


def test_nested_jobs_and_ids(tmp_path):
    SummaryWriter(tmp_path, timestamp=1).close()
    SummaryWriter(tmp_path / "exp" / "rank_0", timestamp=2).close()
    SummaryWriter(tmp_path / "exp" / "rank_1", timestamp=3).close()
    (tmp_path / "empty").mkdir()
    found = discover(str(tmp_path))
    assert sorted(found.jobs) == ["./", "./exp/rank_0", "./exp/rank_1"]


def test_symlink_loops_are_followed_once(tmp_path):
    SummaryWriter(tmp_path / "run", timestamp=1).close()
    os.symlink(tmp_path, tmp_path / "run" / "loop")
    other = tmp_path.parent / (tmp_path.name + "_outside")
    SummaryWriter(other, timestamp=1).close()
    os.symlink(other, tmp_path / "linked")
    found = discover(str(tmp_path))
    assert sorted(found.jobs) == ["./linked", "./run"]


def test_unreadable_directory_is_reported(tmp_path, monkeypatch):
    SummaryWriter(tmp_path / "ok", timestamp=1).close()
    SummaryWriter(tmp_path / "locked", timestamp=1).close()
    real_scandir = os.scandir

    def scandir(path):  # tests run as root, for whom chmod 0 locks nothing
        if str(path).endswith("locked"):
            raise PermissionError(13, "Permission denied")
        return real_scandir(path)

    monkeypatch.setattr(os, "scandir", scandir)
    found = discover(str(tmp_path))
    assert list(found.jobs) == ["./ok"]
    assert found.problems == ["./locked: unreadable directory (Permission denied)"]


def test_missing_logdir_raises(tmp_path):
    with pytest.raises(OSError):
        discover(str(tmp_path / "nope"))


def test_a_profile_belongs_to_its_directory_s_job_and_a_lone_profile_is_a_job(tmp_path):
    from fixture_paths import EXTRAS_LOGS
    from tui_insight.summary.discovery import discover

    found = discover(str(EXTRAS_LOGS)).jobs
    assert found["./profiled"].summary_files and found["./profiled"].profile_dirs  # summaries and a profile
    assert not found["./profiled_legacy"].summary_files and found["./profiled_legacy"].profile_dirs
    assert not any(tid.endswith("_ascend_ms") for tid in found)  # the profile is no job of its own
    legacy = tmp_path / "old" / "profiler"
    legacy.mkdir(parents=True)
    (legacy / "profiler_info_0.json").write_text("{}")
    (tmp_path / "old" / "profiler_not").mkdir()  # no profiler_info_*.json: an ordinary directory
    assert discover(str(tmp_path)).jobs["./old"].profile_dirs == ["profiler"]
