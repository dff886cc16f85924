"""Jobs from a flat remote listing (`remote_listing.jobs_from_listing`) are the jobs `discover`
finds walking the same tree: same ids, files, read order, profiles, hidden and depth rules."""
import os

import pytest
from fixture_paths import EXTRAS_LOGS, MINDSPORE_LOGS

from tui_insight.summary.formats.writer import SummaryWriter
from tui_insight.summary.sources.discovery import MAX_DEPTH, discover
from tui_insight.summary.sources.remote_listing import jobs_from_listing, listed_mtime, listed_size, real_key


def flat_listing(root):
    """(relative path, size, mtime) of every file under root, as a remote LIST gives it."""
    entries = []
    for dirpath, _dirs, files in os.walk(root):
        for name in files:
            path = os.path.join(dirpath, name)
            st = os.stat(path)
            entries.append((os.path.relpath(path, root).replace(os.sep, "/"), st.st_size, st.st_mtime))
    return entries


def assert_same_jobs(root, remote_root="bucket/logs"):
    local = discover(str(root)).jobs
    remote = jobs_from_listing(remote_root, reversed(flat_listing(root))).jobs
    assert list(remote) == list(local)  # same ids, in the same order
    real = os.path.realpath(root)
    for train_id, job in local.items():
        got = remote[train_id]
        rel = os.path.relpath(job.path, real).replace(os.sep, "/")
        assert got.path == (remote_root if rel == "." else f"{remote_root}/{rel}")
        assert (got.summary_files, got.lineage_files, got.graph_files, got.profile_dirs) == \
            (job.summary_files, job.lineage_files, job.graph_files, job.profile_dirs)


@pytest.mark.parametrize("root", [MINDSPORE_LOGS, EXTRAS_LOGS], ids=["mindspore", "extras"])
def test_fixture_trees_give_the_jobs_discover_finds(root):
    assert_same_jobs(root)


def test_nested_hidden_deep_and_profile_directories(tmp_path):
    SummaryWriter(tmp_path, timestamp=1).close()
    SummaryWriter(tmp_path, timestamp=2).close()  # two files: read order by timestamp
    SummaryWriter(tmp_path / "exp" / "rank_0", timestamp=2).close()
    SummaryWriter(tmp_path / ".git" / "run", timestamp=3).close()  # hidden: skipped
    deep = tmp_path.joinpath(*[f"d{i}" for i in range(MAX_DEPTH + 1)])
    SummaryWriter(deep.parent, timestamp=4).close()  # at MAX_DEPTH: found
    SummaryWriter(deep, timestamp=5).close()  # below it: not
    (tmp_path / "exp" / "rank_0" / "net.pb").write_bytes(b"")
    (tmp_path / "exp" / "memory_usage_0.pb").write_bytes(b"")  # not a graph
    prof = tmp_path / "exp" / "rank_0" / "rank0_ascend_ms" / "ASCEND_PROFILER_OUTPUT"
    prof.mkdir(parents=True)
    (prof / "op_statistic.csv").write_text("x")
    SummaryWriter(prof, timestamp=6).close()  # inside a profile: not a job
    old = tmp_path / "lone" / "profiler"
    old.mkdir(parents=True)
    (old / "profiler_info_0.json").write_text("{}")  # a lone profile is a job
    (tmp_path / "notes" / "profiler").mkdir(parents=True)
    (tmp_path / "notes" / "profiler" / "readme.txt").write_text("")  # not a profile
    assert_same_jobs(tmp_path)
    found = jobs_from_listing("/r", flat_listing(tmp_path)).jobs
    assert set(found) == {"./", "./exp/rank_0", "./lone", "./" + "/".join(f"d{i}" for i in range(MAX_DEPTH))}
    assert found["./exp/rank_0"].profile_dirs == ["rank0_ascend_ms"]
    assert found["./exp/rank_0"].path == "/r/exp/rank_0"


def test_odd_entries_are_ignored_and_keys_with_empty_or_dot_parts_are_jobs_of_their_own():
    """An object key is a name: `./a//b` is not `a/b`. Its job's path joined with a file's name
    gives the real key back (`real_key`), and its id names it as it is."""
    found = jobs_from_listing("/r", [("", 0, 0.0), ("../x.summary.1", 1, 0.0), ("./a//b.summary.1", 1, 0.0),
                                     ("a/b.summary.1", 1, 0.0)])
    assert list(found.jobs) == ["././a/", "./a"]
    odd = found.jobs["././a/"]
    assert odd.summary_files == ["b.summary.1"]
    assert real_key(os.path.join(odd.path, "b.summary.1")) == "/r/./a//b.summary.1"
    assert real_key(os.path.join(found.jobs["./a"].path, "b.summary.1")) == "/r/a/b.summary.1"
    assert found.problems == ["./: 2 listed name(s) left out, not a file under LOGDIR (empty, `.` or with a `..` part)"]


def test_every_key_prefix_is_a_job_of_its_own_id():
    keys = ["F.summary.1", "/F.summary.1", "//F.summary.1", "a/F.summary.1", "a//F.summary.1", "/a/F.summary.1"]
    found = jobs_from_listing("b/runs", [(key, 1, 0.0) for key in keys])
    assert sorted(found.jobs) == sorted(["./", ".//", ".///", "./a", "./a/", ".//a"])
    assert sorted(real_key(os.path.join(job.path, "F.summary.1")) for job in found.jobs.values()) == \
        sorted(f"b/runs/{key}" for key in keys)


def test_a_walk_over_many_directories_stops_at_the_bound_and_says_so():
    entries = [(f"d{i}/x.summary.1", 1, 0.0) for i in range(5)]
    found = jobs_from_listing("/r", entries, max_dirs=3)
    assert len(found.jobs) < 5
    assert "the walk stopped after 3 directories: jobs in the others are not listed" in found.problems
    assert jobs_from_listing("/r", entries, max_dirs=6).problems == []


@pytest.mark.parametrize("value", ["nan", "inf", "-inf", "1e400", "1e3", "0x10", "", "12abc", "\u00b2", 1e400,
                                   float("nan"), True])
def test_a_listed_mtime_that_is_no_time_is_refused(value):
    assert listed_mtime(value) is None


@pytest.mark.parametrize("value", ["-1", "0x10", "1e3", "+5", " 5", "\u00b2", "\u0661", -1, 1.5, "nan", True])
def test_a_listed_size_that_is_no_byte_count_is_refused(value):
    assert listed_size(value) is None


def test_plain_listed_numbers_are_taken():
    assert (listed_size("123"), listed_size(b"0"), listed_size(7)) == (123, 0, 7)
    assert (listed_mtime("1732800000.1234567890"), listed_mtime(b"17"), listed_mtime(-5.5)) == \
        (1732800000.1234567890, 17.0, -5.5)


def test_listed_files_answer_stat_and_know_a_rewritten_file_by_a_new_inode():
    """A remote listing's bookkeeping (`source.ListedFiles`): stat from the last listing; a file
    that shrank or changed at the same size is another file (new inode, its cached blocks
    dropped); a grown file is the same one and says where its new bytes start."""
    from tui_insight.summary.sources.local import ListedFiles, RangeCache

    content = {"a": b"x" * 100, "b": b"y" * 50}
    fetched = []

    def fetch(path, start, end):
        fetched.append(path)
        return content[path][start:end]

    ranges = RangeCache(fetch, block=16)
    files = ListedFiles(ranges)
    assert files.update([("a", 100, 1.0, 1.0), ("b", 50, 1.0, "etag1")]) == {}  # both new
    first = {p: files.stat(p).st_ino for p in ("a", "b")}
    assert files.stat("a").st_size == 100 and files.stat("a").st_mtime == 1.0
    assert ranges.read("a", 0, 10) == b"x" * 10 and ranges.read("b", 0, 10) == b"y" * 10

    content["a"] += b"z" * 20  # grown: the same file
    content["b"] = b"w" * 50  # rewritten at the same size
    assert files.update([("a", 120, 2.0, 2.0), ("b", 50, 2.0, "etag2")]) == {"a": 100}
    assert files.stat("a").st_ino == first["a"] and files.stat("a").st_size == 120
    assert files.stat("b").st_ino != first["b"]
    fetched.clear()
    assert ranges.read("a", 0, 10) == b"x" * 10 and fetched == []  # still cached
    assert ranges.read("b", 0, 10) == b"w" * 10 and fetched == ["b"]  # dropped, fetched anew

    content["a"] = b"v" * 30  # shrank: another file
    assert files.update([("a", 30, 3.0, 3.0)]) == {}
    assert files.stat("a").st_ino != first["a"] and files.size("b") is None
    with pytest.raises(FileNotFoundError):
        files.stat("b")
    assert ranges.read("a", 0, 10) == b"v" * 10
