"""Many jobs: idle reloads do no work, change notices reload only what changed, hinted jobs first."""
import os
import time

from tui_insight.summary.formats.writer import SummaryWriter
from tui_insight.summary.store.cache import SummaryCache, wait_loaded


def write_run(directory, steps, timestamp=1):
    writer = SummaryWriter(directory, timestamp=timestamp)
    for step in steps:
        writer.add_scalar("loss", 1.0 / step)
        writer.record(step, wall_time=1000.0 + step)
    writer.flush()
    return writer


def loss_steps(cache, train_id):
    view = cache.job(train_id)
    series = view.series("scalar", "loss") if view else None
    return series.steps.tolist() if series is not None else []


def test_an_unchanged_reload_publishes_nothing_and_refreshes_no_job(tmp_path, monkeypatch):
    for i in range(5):
        write_run(tmp_path / f"run{i}", [1, 2]).close()
    cache = SummaryCache(str(tmp_path))
    cache.reload()
    views = dict(cache.jobs)
    heard = []
    cache.subscribe(heard.append)
    refreshed = []
    for loader in cache._loaders.values():
        real = loader.refresh
        monkeypatch.setattr(loader, "refresh", lambda *a, real=real, **k: refreshed.append(1) or real(*a, **k))
    assert not cache.reload()
    assert not heard and not refreshed
    assert all(cache.job(t) is v for t, v in views.items())


def test_a_change_notice_reloads_only_its_job(tmp_path):
    writers = [write_run(tmp_path / f"run{i}", [1]) for i in range(3)]
    cache = SummaryCache(str(tmp_path))
    cache.reload()
    for writer in writers:
        writer.add_scalar("loss", 0.5)
        writer.record(2)
        writer.flush()
    changes = cache.reload_changed([str(writers[1].path)])
    assert set(changes.updated) == {"./run1"}
    assert loss_steps(cache, "./run1") == [1, 2] and loss_steps(cache, "./run0") == [1]
    # A notice about a new directory: a full reload finds the new job (and the rest).
    write_run(tmp_path / "run9", [1]).close()
    cache.reload_changed([str(tmp_path / "run9")])
    assert "./run9" in cache.jobs and loss_steps(cache, "./run0") == [1, 2]
    # A file that is no job file changes nothing.
    (tmp_path / "notes.txt").write_text("x")
    assert not cache.reload_changed([str(tmp_path / "notes.txt")])


def test_a_new_file_in_a_job_directory_arrives_by_notice(tmp_path):
    write_run(tmp_path / "run", [1], timestamp=1).close()
    cache = SummaryCache(str(tmp_path))
    cache.reload()
    newer = write_run(tmp_path / "run", [5], timestamp=2)
    newer.close()
    cache.reload_changed([str(newer.path)])
    assert len(cache.job("./run").summary_files) == 2 and loss_steps(cache, "./run") == [1, 5]


def test_jobs_load_by_train_id_and_hinted_ones_first(tmp_path):
    for name in ["b", "a", "d", "c", "e"]:
        write_run(tmp_path / name, [1]).close()
    order = []
    cache = SummaryCache(str(tmp_path))
    cache.subscribe(lambda changes: order.extend(sorted(changes.updated)))
    cache.reload()
    assert order == ["./a", "./b", "./c", "./d", "./e"]

    order.clear()
    cache = SummaryCache(str(tmp_path))
    cache.prioritize(["./d", "./nope", "./b"])  # unknown ids are ignored
    cache.subscribe(lambda changes: order.extend(sorted(changes.updated)))
    cache.reload()
    assert order == ["./d", "./b", "./a", "./c", "./e"]


def test_a_hint_given_while_loading_is_followed(tmp_path):
    for name in ["a", "b", "c", "d", "e"]:
        write_run(tmp_path / name, [1]).close()
    order = []
    cache = SummaryCache(str(tmp_path))

    def heard(changes):
        order.extend(sorted(changes.updated))
        if order == ["./a"]:
            cache.prioritize(["./e", "./a"])  # e.g. the user typed a filter

    cache.subscribe(heard)
    cache.reload()
    assert order == ["./a", "./e", "./b", "./c", "./d"]


def test_every_job_is_listed_before_any_file_is_read(tmp_path):
    for name in ["a", "b", "c"]:
        write_run(tmp_path / name, [1]).close()
    cache = SummaryCache(str(tmp_path))
    first = []
    cache.subscribe(lambda changes: first or first.append((set(changes.added), dict(cache.jobs))))
    cache.reload()
    added, views = first[0]
    assert added == {"./a", "./b", "./c"} and all(v.state == "loading" for v in views.values())


def test_the_loop_reads_a_change_by_notice_with_a_long_interval(tmp_path):
    writers = [write_run(tmp_path / f"run{i}", [1]) for i in range(3)]
    cache = SummaryCache(str(tmp_path))
    heard = []
    cache.subscribe(heard.append)
    cache.start(interval=60)
    try:
        assert wait_loaded(cache, timeout=10)
        time.sleep(0.3)
        heard.clear()
        writers[2].add_scalar("loss", 0.5)
        writers[2].record(2)
        writers[2].flush()
        deadline = time.monotonic() + 1.5
        while time.monotonic() < deadline and loss_steps(cache, "./run2") != [1, 2]:
            time.sleep(0.02)
        assert loss_steps(cache, "./run2") == [1, 2]
        assert {tid for changes in heard for tid in changes.updated} == {"./run2"}
    finally:
        cache.stop()
        for writer in writers:
            writer.close()


def test_a_big_file_is_published_while_it_is_read(tmp_path, monkeypatch):
    from tui_insight.summary.store import loader as loader_module

    monkeypatch.setattr(loader_module, "_MERGE_BYTES", 8192)
    monkeypatch.setattr(loader_module, "_BATCH_BYTES", 4096)  # files are read in blocks of this
    monkeypatch.setattr(loader_module, "PROGRESS_EVERY_SECONDS", 0.0)
    writer = write_run(tmp_path, range(1, 1001))
    writer.close()
    size = os.path.getsize(writer.path)
    cache = SummaryCache(str(tmp_path))
    seen = []

    def heard(changes):
        view = cache.job("./")
        if view is not None and changes.updated:
            series = view.series("scalar", "loss")
            seen.append((view.state, series.last_step if series is not None else None,
                         cache.progress.bytes_read))

    cache.subscribe(heard)
    cache.reload()
    partial = [s for s in seen if s[0] == "loading"]
    assert len(partial) >= 5  # the charts fill from the left
    steps = [s[1] for s in partial]
    assert steps == sorted(steps) and steps[-1] < 1000
    read = [s[2] for s in partial]
    assert read == sorted(read) and 0 < read[0] < read[-1] < size  # bytes counted as they are read
    assert seen[-1][0] == "ok" and seen[-1][1] == 1000 and cache.progress.bytes_read == size


def test_every_first_load_names_its_job_cold_and_warm(tmp_path, monkeypatch):
    """The job list builds a row again for the jobs a notice names, and no other (it does not
    look for rows still "loading" whose job was read): so every job that comes to be loaded is
    named in `updated`, whether read here, listed from the disk cache's index (the first
    screenful before anyone is told, the rest in batches), or a job with nothing to read."""
    from tui_insight.summary.store import cache as cache_module
    from tui_insight.summary.store.disk_cache import DiskCache

    monkeypatch.setattr(cache_module, "FIRST_LISTED", 3)  # some listed at once, the rest in batches
    for i in range(8):
        write_run(tmp_path / "logs" / f"run{i}", [1, 2]).close()
    (tmp_path / "logs" / "empty").mkdir()
    (tmp_path / "logs" / "empty" / "events.summary.1.x_MS").write_bytes(b"")  # a job with no record
    for _ in ("cold", "warm"):
        cache = SummaryCache(str(tmp_path / "logs"), disk_cache=DiskCache(tmp_path / "cache"))
        named: set[str] = set()
        cache.subscribe(lambda changes: named.update(changes.updated))
        cache.reload()
        assert len(cache.jobs) == 9 and all(view.loaded for view in cache.jobs.values())
        assert named == set(cache.jobs)
