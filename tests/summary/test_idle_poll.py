"""The full poll's shortcuts miss no change: a tree whose directories all kept their stamps is
known by the last walk, a settled job by its files' stats; a change notice finds its job by the
sorted index of job directories."""
from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest

from tui_insight.summary.formats.writer import SummaryWriter
from tui_insight.summary.sources import poll
from tui_insight.summary.store.cache import SummaryCache

LONG_AGO = 1_600_000_000  # directories' mtime: their listings are trusted by stamp (not "racy")


def write_steps(writer: SummaryWriter, steps, scale: float = 1.0) -> SummaryWriter:
    for step in steps:
        writer.add_scalar("loss", scale / step)
        writer.record(step, wall_time=1000.0 + step)
    writer.flush()
    return writer


def loss(cache: SummaryCache, train_id: str) -> list[float]:
    series = cache.job(train_id).series("scalar", "loss")
    return [round(float(v), 6) for v in series.values] if series is not None else []


def steps(cache: SummaryCache, train_id: str) -> list[int]:
    series = cache.job(train_id).series("scalar", "loss")
    return series.steps.tolist() if series is not None else []


def age(root: Path) -> None:
    for directory in (root, *(p for p in root.rglob("*") if p.is_dir())):
        os.utime(directory, (LONG_AGO, LONG_AGO))


def settled(root: Path) -> SummaryCache:
    """The cache of `root`, polled until the shortcuts are in use (checked: else these tests would
    pass through the slow path alone)."""
    age(root)
    cache = SummaryCache(str(root))
    cache.reload()
    cache.reload()  # the jobs found unchanged: settled
    assert cache._listings[os.path.realpath(root)].walk is not None
    assert all(loader.settled is not None for loader in cache._loaders.values())
    assert not cache.reload()  # an idle poll, on the shortcuts
    return cache


@pytest.fixture
def sweep(tmp_path: Path):
    root = tmp_path / "logs"
    writers = [write_steps(SummaryWriter(root / f"run{i}", timestamp=1), [1, 2]) for i in range(3)]
    (root / "run0" / "deep" / "er").mkdir(parents=True)  # a job's subdirectory, no job of its own
    yield root, writers
    for writer in writers:
        writer.close()


def test_an_append_is_seen_by_the_full_poll(sweep):
    root, writers = sweep
    cache = settled(root)
    write_steps(writers[2], [3])
    changes = cache.reload()
    assert set(changes.updated) == {"./run2"} and steps(cache, "./run2") == [1, 2, 3]
    assert not cache.reload()  # and nothing more


def test_a_file_copied_in_with_an_old_mtime_is_seen_by_the_full_poll(sweep, tmp_path):
    root, _ = sweep
    cache = settled(root)
    other = write_steps(SummaryWriter(tmp_path / "elsewhere", timestamp=2), [7])
    other.close()
    os.utime(other.path, (LONG_AGO, LONG_AGO))
    shutil.copy2(other.path, root / "run1" / other.path.name)  # keeps its old mtime
    cache.reload()
    assert len(cache.job("./run1").summary_files) == 2 and steps(cache, "./run1") == [1, 2, 7]


def test_a_removed_file_is_seen_by_the_full_poll(sweep):
    root, _ = sweep
    newer = write_steps(SummaryWriter(root / "run1", timestamp=2), [5])
    newer.close()
    cache = settled(root)
    assert steps(cache, "./run1") == [1, 2, 5]
    os.remove(newer.path)
    cache.reload()
    assert len(cache.job("./run1").summary_files) == 1 and steps(cache, "./run1") == [1, 2]


def test_a_file_replaced_by_one_of_the_same_size_is_read_again(sweep, tmp_path):
    root, writers = sweep
    writers[1].close()
    cache = settled(root)
    before = loss(cache, "./run1")
    replacement = write_steps(SummaryWriter(tmp_path / "new", timestamp=1), [1, 2], scale=3.0)
    replacement.close()
    path = writers[1].path
    assert os.path.getsize(replacement.path) == os.path.getsize(path)
    os.replace(replacement.path, path)
    cache.reload()
    assert loss(cache, "./run1") == [3.0, 1.5] != before


def test_a_file_rewritten_in_place_with_the_same_size_is_seen_by_the_full_poll(sweep):
    """Same inode, same size: only its mtime tells (the job's update time shows it)."""
    root, writers = sweep
    writers[0].close()
    cache = settled(root)
    path = writers[0].path
    path.write_bytes(path.read_bytes())
    os.utime(path, (LONG_AGO + 100, LONG_AGO + 100))
    cache.reload()
    assert cache.job("./run0").update_time == LONG_AGO + 100


def test_a_job_made_deep_inside_a_job_is_found_by_the_full_poll(sweep):
    root, _ = sweep
    cache = settled(root)
    write_steps(SummaryWriter(root / "run0" / "deep" / "er" / "inner", timestamp=1), [4]).close()
    changes = cache.reload()  # only `er` changed: its parents kept their stamps
    assert changes.added == {"./run0/deep/er/inner"} and steps(cache, "./run0/deep/er/inner") == [4]


def test_a_removed_job_directory_is_seen_by_the_full_poll(sweep):
    root, _ = sweep
    cache = settled(root)
    shutil.rmtree(root / "run2")
    changes = cache.reload()
    assert changes.removed == {"./run2"} and list(cache.jobs) == ["./run0", "./run1"]


def test_a_notice_of_a_removed_directory_that_held_jobs_reloads_the_tree(tmp_path):
    root = tmp_path / "logs"
    for name in ("exp/a", "exp/b", "exp2/c", "ex/d"):  # names that share a prefix
        write_steps(SummaryWriter(root / name, timestamp=1), [1]).close()
    cache = SummaryCache(str(root))
    cache.reload()
    shutil.rmtree(root / "exp")
    changes = cache.reload_changed([str(root / "exp")])
    assert changes.removed == {"./exp/a", "./exp/b"} and list(cache.jobs) == ["./ex/d", "./exp2/c"]
    (root / "exp").write_text("a file where the directory was: no job file")
    assert not cache.reload_changed([str(root / "exp")])


def test_a_forgotten_job_is_read_again_by_the_full_poll(sweep):
    root, _ = sweep
    cache = settled(root)
    cache.forget("./run1")
    assert not cache.job("./run1").loaded
    cache.reload()
    assert cache.job("./run1").loaded and steps(cache, "./run1") == [1, 2]


def test_jobs_back_after_the_log_directory_was_away_are_read_again(sweep, tmp_path):
    root, _ = sweep
    cache = settled(root)
    os.rename(root, tmp_path / "away")
    cache.reload()
    assert not cache.jobs and cache.error
    os.rename(tmp_path / "away", root)
    cache.reload()
    assert list(cache.jobs) == ["./run0", "./run1", "./run2"] and steps(cache, "./run2") == [1, 2]


def test_an_idle_full_poll_checks_no_job_one_by_one(sweep, monkeypatch):
    """The settled jobs' files are compared in one table: no job goes through `unchanged`."""
    root, writers = sweep
    cache = settled(root)
    checked = []
    for loader in cache._loaders.values():
        real = loader.unchanged
        monkeypatch.setattr(loader, "unchanged", lambda found, stats=None, real=real: checked.append(found.train_id) or real(found, stats))
    assert not cache.reload()
    assert checked == []
    write_steps(writers[1], [3])
    cache.reload()
    assert checked == ["./run1"]  # the one that changed, and only it


def dormant_sweep(root: Path, runs: int) -> list[SummaryWriter]:
    """`runs` finished runs: their files and directories last changed long ago."""
    writers = [write_steps(SummaryWriter(root / f"run{i:02d}", timestamp=1), [1, 2]) for i in range(runs)]
    for path in root.rglob("*.summary.*"):
        os.utime(path, (LONG_AGO, LONG_AGO))
    return writers


def stats_during(monkeypatch, action) -> list[str]:
    """The paths `action` stats (os.stat still does the work)."""
    seen, real = [], os.stat
    monkeypatch.setattr(os, "stat", lambda path, *a, **k: seen.append(os.fspath(path)) or real(path, *a, **k))
    action()
    monkeypatch.setattr(os, "stat", real)
    return seen


def polls_until(cache: SummaryCache, found) -> int | None:
    """How many background polls it takes until `found()`; None when two rounds of turns did not do it."""
    for n in range(1, 2 * poll.DORMANT_TURNS + 1):
        cache.poll()
        if found():
            return n
    return None


def test_the_background_poll_looks_at_finished_runs_in_turn(tmp_path, monkeypatch):
    """Runs unchanged for DORMANT_SECONDS are stat-ed a DORMANT_TURNS-th at a time by the
    background poll (an explicit reload looks at all); LOGDIR, where new runs appear, each time."""
    root = tmp_path / "logs"
    runs = 2 * poll.DORMANT_TURNS
    writers = dormant_sweep(root, runs)
    cache = settled(root)
    full = stats_during(monkeypatch, cache.reload)
    assert len(full) == len(set(full)) == 1 + 2 * runs  # LOGDIR, and each run's directory and file
    turns = [stats_during(monkeypatch, cache.poll) for _ in range(poll.DORMANT_TURNS)]
    assert all(str(root) in t for t in turns)  # where new runs appear: at each poll
    rest = sorted(p for t in turns for p in t if p != str(root))
    assert rest == sorted(p for p in full if p != str(root))  # in DORMANT_TURNS polls, every other path once
    (root / "new").mkdir()
    write_steps(SummaryWriter(root / "new", timestamp=1), [1]).close()
    cache.poll()
    assert "./new" in cache.jobs and steps(cache, "./new") == [1]  # a new run: at the next poll
    for writer in writers:
        writer.close()


def test_a_finished_run_that_grows_again_is_seen_within_a_round_of_polls(tmp_path):
    root = tmp_path / "logs"
    writers = dormant_sweep(root, 2 * poll.DORMANT_TURNS)
    cache = settled(root)
    grown = [writers[3], writers[14]]
    for writer in grown:
        write_steps(writer, [3])
    took = polls_until(cache, lambda: all(steps(cache, f"./run{i:02d}") == [1, 2, 3] for i in (3, 14)))
    assert took is not None and took <= poll.DORMANT_TURNS, took  # within one round of turns
    # A new file in a finished run's directory (a resumed run writes one), the same way.
    write_steps(SummaryWriter(root / "run07", timestamp=2), [10]).close()
    took = polls_until(cache, lambda: steps(cache, "./run07") == [1, 2, 10])
    assert took is not None and took <= poll.DORMANT_TURNS, took
    # An explicit reload looks at every file at once.
    write_steps(writers[5], [3])
    cache.reload()
    assert steps(cache, "./run05") == [1, 2, 3]
    for writer in writers:
        writer.close()


def test_finished_runs_are_looked_at_in_turn_while_new_runs_keep_coming(tmp_path):
    """A new run at every poll makes the walk and the poll's table again: the turn goes on from
    where it was (counted by the cache), so no finished run waits for a quiet spell."""
    root = tmp_path / "logs"
    writers = dormant_sweep(root, 2 * poll.DORMANT_TURNS)
    cache = settled(root)
    write_steps(writers[17], [3])
    for n in range(1, poll.DORMANT_TURNS + 1):
        write_steps(SummaryWriter(root / f"new{n:02d}", timestamp=1), [1]).close()
        cache.poll()
        assert f"./new{n:02d}" in cache.jobs
        if steps(cache, "./run17") == [1, 2, 3]:
            break
    assert steps(cache, "./run17") == [1, 2, 3]
    for writer in writers:
        writer.close()
