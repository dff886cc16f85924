"""Finding jobs: nested directories, file kinds, symlinks, unreadable directories."""
import os
import tempfile

import pytest
from fixture_paths import MINDSPORE_LOGS

from tui_insight.summary import limits
from tui_insight.summary.formats.file_names import classify
from tui_insight.summary.formats.writer import SummaryWriter
from tui_insight.summary.sources.discovery import discover


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

    from tui_insight.summary.sources.discovery import discover

    found = discover(str(EXTRAS_LOGS)).jobs
    assert found["./profiled"].summary_files and found["./profiled"].profile_dirs  # summaries and a profile
    assert not found["./profiled_legacy"].summary_files and found["./profiled_legacy"].profile_dirs
    assert not any(tid.endswith("_ascend_ms") for tid in found)  # the profile is no job of its own
    legacy = tmp_path / "old" / "profiler"
    legacy.mkdir(parents=True)
    (legacy / "profiler_info_0.json").write_text("{}")
    (tmp_path / "old" / "profiler_not").mkdir()  # no profiler_info_*.json: an ordinary directory
    assert discover(str(tmp_path)).jobs["./old"].profile_dirs == ["profiler"]


def test_links_to_proc_and_to_root_are_not_walked(tmp_path):
    """A link to / or /proc would walk the machine (/proc/<pid>/cwd: other processes' jobs)."""
    SummaryWriter(tmp_path / "run", timestamp=1).close()
    os.symlink("/", tmp_path / "root")
    os.symlink("/proc", tmp_path / "proc")
    os.symlink("/proc/self", tmp_path / "run" / "me")
    found = discover(str(tmp_path))
    assert list(found.jobs) == ["./run"]
    assert sorted(found.problems) == ["./proc: not walked (it is in /proc)",
                                      "./root: not walked (a link to a directory holding LOGDIR)",
                                      "./run/me: not walked (it is in /proc)"]


def test_a_link_onto_another_file_system_is_not_walked(tmp_path):
    other = tmp_path / "other"  # on another file system than /dev/shm (tmpfs)
    SummaryWriter(other, timestamp=1).close()
    with tempfile.TemporaryDirectory(dir="/dev/shm") as logdir:
        SummaryWriter(os.path.join(logdir, "run"), timestamp=1).close()
        os.symlink(other, os.path.join(logdir, "elsewhere"))
        found = discover(logdir)
    assert os.stat(tmp_path).st_dev != os.stat("/dev/shm").st_dev
    assert list(found.jobs) == ["./run"]
    assert found.problems == ["./elsewhere: not walked (a link onto another file system than LOGDIR's)"]


def test_the_walk_stops_at_its_bound_and_says_so(tmp_path, monkeypatch):
    for i in range(6):
        SummaryWriter(tmp_path / f"run{i}", timestamp=1).close()
    monkeypatch.setattr(limits, "MAX_DIRS_WALKED", 4)
    listings: dict = {}
    for _ in range(2):  # walked, then known from the walk kept
        found = discover(str(tmp_path), listings)
        assert sorted(found.jobs) == ["./run0", "./run1", "./run2", "./run3"]
        assert found.problems == [("the walk stopped after 4 directories (limits.MAX_DIRS_WALKED): "
                                   "jobs in the others are not listed")]
