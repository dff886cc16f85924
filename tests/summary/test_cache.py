"""The shared cache against the truth file, and its behaviour while logs change."""
import gc
import hashlib
import math
import os
import time

import numpy as np
import pytest

from tui_insight.summary import limits
from tui_insight.summary.formats.framing import frame
from tui_insight.summary.formats.writer import SummaryWriter
from tui_insight.summary.store.cache import SummaryCache, wait_loaded
from tui_insight.summary.store.job_view import Changes

PLUGINS = ("scalar", "histogram", "tensor", "image")


def split_tag(full: str) -> tuple[str, str]:
    tag, plugin = full.rsplit("/", 1)
    return plugin, tag


# -- differential: what is in the files, what MindInsight kept ------------------------------

def test_records_and_states_match_raw(fixture_cache, truth):
    for train_id, job in truth["jobs"].items():
        view = fixture_cache.job(train_id)
        raw_files = job["raw"]["files"]
        assert view.records == sum(f["records"] for f in raw_files), train_id
        assert view.bad_records == sum(len(f["bad_header_crc"]) + len(f["bad_payload_crc"]) + len(f["decode_errors"])
                                       for f in raw_files)
        assert view.tail_bytes == sum(f["tail_bytes"] for f in raw_files), train_id
        assert view.state == ("ok" if job["listing"]["is_integrity"] else "growing"), train_id


def test_tags_per_plugin_match_mindinsight(fixture_cache, truth):
    for train_id, job in truth["jobs"].items():
        view = fixture_cache.job(train_id)
        for plugin in PLUGINS:
            expected = sorted(split_tag(t)[1] for t in job["plugins"][plugin])
            assert view.tag_names(plugin) == expected, (train_id, plugin)


def test_graph_tags_match_mindinsight(fixture_cache, truth):
    for train_id, job in truth["jobs"].items():
        assert sorted(fixture_cache.job(train_id).graphs) == sorted(job["plugins"]["graph"]), train_id


def test_unsampled_scalars_equal_mindinsight(fixture_cache, truth):
    checked = 0
    for train_id, job in truth["jobs"].items():
        for full, points in job["scalars"].items():
            plugin, tag = split_tag(full)
            if job["raw"]["tags"][full]["distinct_steps"] > limits.max_steps(plugin):
                continue
            series = fixture_cache.job(train_id).series(plugin, tag)
            assert series.steps.tolist() == [p[0] for p in points], (train_id, tag)
            for value, (_, expected, wall) in zip(series.values.tolist(), points):
                if expected is None:
                    assert not math.isfinite(value)
                else:
                    assert value == pytest.approx(expected, rel=1e-6)
            assert series.wall_times.tolist() == pytest.approx([p[2] for p in points])
            checked += 1
    assert checked >= 15


def test_resumed_run_across_files(fixture_cache, truth):
    """edge/resume: step 10 written twice, then a newer file restarts at 20 (compat §3.8)."""
    series = fixture_cache.job("./edge_cases").series("scalar", "edge/resume")
    expected = truth["jobs"]["./edge_cases"]["scalars"]["edge/resume/scalar"]
    assert series.steps.tolist() == [p[0] for p in expected]
    assert series.values[series.steps.tolist().index(20)] == 120.0


def test_sampled_tags_keep_first_and_newest_within_limit(fixture_cache, truth):
    job = truth["jobs"]["./limits"]
    sampled = 0
    for full, raw in job["raw"]["tags"].items():
        plugin, tag = split_tag(full)
        series = fixture_cache.job("./limits").series(plugin, tag)
        if series is None:
            continue  # an evicted tensor tag (6-tag limit), checked elsewhere
        limit = limits.max_steps(plugin)
        steps = series.steps.tolist()
        assert len(steps) <= limit
        assert set(steps) <= set(raw["steps_in_file_order"])
        assert steps[-1] == raw["last_step"]
        if raw["distinct_steps"] > limit:
            sampled += 1
            assert steps[0] == raw["first_step"]  # MindInsight's reservoir loses it; we keep it
            assert len(steps) >= limit // 2
    assert sampled >= 4


def test_payload_steps_equal_mindinsight(fixture_cache, truth):
    for train_id, job in truth["jobs"].items():
        view = fixture_cache.job(train_id)
        for full, items in job["histograms"].items():
            plugin, tag = split_tag(full)
            if job["raw"]["tags"][full]["distinct_steps"] <= limits.max_steps(plugin):
                assert view.series(plugin, tag).steps.tolist() == [h["step"] for h in items]
        for full, image in job["images"].items():
            plugin, tag = split_tag(full)
            if job["raw"]["tags"][full]["distinct_steps"] <= limits.max_steps(plugin):
                assert view.series(plugin, tag).steps.tolist() == image["steps"]


def test_images_are_decoded_on_demand(fixture_cache, truth):
    for train_id, job in truth["jobs"].items():
        view = fixture_cache.job(train_id)
        for full, image in job["images"].items():
            series = view.series(*split_tag(full))
            last = image["last_image"]
            assert series.steps[-1] == last["step"]
            data = fixture_cache.payloads.image(view.locator(series, len(series) - 1))
            assert hashlib.sha256(data.png).hexdigest() == last["sha256"]


def test_lineage_is_attached(fixture_cache):
    view = fixture_cache.job("./lenet_lr0.01")
    assert view.lineage.train["learning_rate"] == 0.01
    assert view.lineage.evaluation["metric"]["Accuracy"] == 0.1875
    assert fixture_cache.job("./limits").lineage is None


# -- behaviour while logs change --------------------------------------------------------------

def write_steps(writer, steps, tag="loss"):
    for step in steps:
        writer.add_scalar(tag, step * 0.5)
        writer.record(step, wall_time=1000.0 + step)
    writer.flush()


def test_reload_reads_only_appended_bytes(tmp_path):
    writer = SummaryWriter(tmp_path, timestamp=1)
    write_steps(writer, range(1, 101))
    cache = SummaryCache(str(tmp_path))
    cache.reload()
    before = cache.progress.bytes_read
    size = os.path.getsize(writer.path)
    write_steps(writer, [101])
    changes = cache.reload()
    assert cache.progress.bytes_read - before == os.path.getsize(writer.path) - size
    assert changes.updated == {"./": {("scalar", "loss")}}
    assert cache.job("./").series("scalar", "loss").last_step == 101
    assert not cache.reload()  # nothing new, nothing changed


def test_a_tail_left_incomplete_for_ten_minutes_is_truncated(tmp_path):
    """MindInsight's rule (§3.8): 600 s without a write turns "still being written" into damaged."""
    writer = SummaryWriter(tmp_path, timestamp=1)
    write_steps(writer, [1, 2])
    from tui_insight.proto import summary_pb2
    event = summary_pb2.Event(wall_time=3.0, step=3)
    event.summary.value.add(tag="loss", scalar_value=2.0)
    writer.write_raw(frame(event.SerializeToString())[:10])
    writer.flush()
    path = next(tmp_path.iterdir())
    os.utime(path, (1_000_000.0, 1_000_000.0))
    now = [1_000_000.0 + 600]
    cache = SummaryCache(str(tmp_path), clock=lambda: now[0])
    seen: list = []
    cache.subscribe(seen.append)
    cache.reload()
    assert cache.job("./").state == "growing"  # 600 s idle: not yet
    seen.clear()
    now[0] += 1
    cache.reload()
    view = cache.job("./")
    assert view.state == "truncated" and view.file_status[0].truncated
    assert view.series("scalar", "loss").steps.tolist() == [1, 2]  # what was read is kept
    assert any("./" in changes.updated for changes in seen)  # the job list hears of it
    writer.write_raw(frame(event.SerializeToString())[10:])  # the writer comes back after all
    writer.flush()
    os.utime(path, (now[0], now[0]))
    cache.reload()
    assert cache.job("./").state == "ok" and cache.job("./").series("scalar", "loss").steps.tolist() == [1, 2, 3]


def test_an_idle_reload_stats_each_file_once_and_publishes_nothing_new(tmp_path, monkeypatch):
    writer = SummaryWriter(tmp_path / "run", timestamp=1)
    write_steps(writer, [1, 2])
    cache = SummaryCache(str(tmp_path))
    cache.reload()
    before = cache.job("./run")
    heard: list = []
    cache.subscribe(heard.append)
    stats: list[str] = []
    real_stat = os.stat

    def counting_stat(path, *args, **kwargs):
        stats.append(os.fspath(path))
        return real_stat(path, *args, **kwargs)

    monkeypatch.setattr(os, "stat", counting_stat)
    cache.reload()
    summary = os.path.join(str(tmp_path / "run"), before.summary_files[0])
    assert stats.count(summary) == 1  # was 3: replaced?, read?, update time
    assert cache.job("./run") is before and not any(heard)  # the same view: nothing changed
    write_steps(writer, [3])
    cache.reload()
    assert cache.job("./run") is not before and cache.job("./run").series("scalar", "loss").steps.tolist() == [1, 2, 3]


def test_growing_then_complete(tmp_path):
    writer = SummaryWriter(tmp_path, timestamp=1)
    write_steps(writer, [1])
    writer.add_scalar("loss", 9.0)
    from tui_insight.proto import summary_pb2
    event = summary_pb2.Event(wall_time=1.0, step=2)
    event.summary.value.add(tag="loss", scalar_value=2.0)
    record = frame(event.SerializeToString())
    writer.write_raw(record[:10])
    writer.flush()
    cache = SummaryCache(str(tmp_path))
    cache.reload()
    cache.reload()  # the incomplete tail is retried, the file is not counted again
    assert cache.job("./").state == "growing" and cache.progress.files_read == 1
    writer.write_raw(record[10:])
    writer.flush()
    cache.reload()
    view = cache.job("./")
    assert view.state == "ok" and view.series("scalar", "loss").steps.tolist() == [1, 2]


def test_corrupt_record_is_skipped_and_counted(tmp_path):
    writer = SummaryWriter(tmp_path, timestamp=1)
    write_steps(writer, [1, 2, 3])
    writer.close()
    data = bytearray(writer.path.read_bytes())
    value_at = data.find(np.float32(1.0).tobytes())  # step 2's value 1.0
    data[value_at + 3] ^= 0x40  # MindInsight would show a wrong value here
    writer.path.write_bytes(bytes(data))
    cache = SummaryCache(str(tmp_path))
    cache.reload()
    view = cache.job("./")
    assert view.state == "corrupt: 1 record"
    assert view.series("scalar", "loss").steps.tolist() == [1, 3]


def test_truncated_file_is_read_again(tmp_path):
    writer = SummaryWriter(tmp_path, timestamp=1)
    write_steps(writer, range(1, 11))
    writer.close()
    cache = SummaryCache(str(tmp_path))
    cache.reload()
    writer.path.write_bytes(b"")
    writer = SummaryWriter(tmp_path, timestamp=1)  # the same name, written afresh
    write_steps(writer, [1, 2])
    cache.reload()
    assert cache.job("./").series("scalar", "loss").steps.tolist() == [1, 2]


def test_deleted_file_drops_its_data(tmp_path):
    old = SummaryWriter(tmp_path, timestamp=1)
    write_steps(old, range(1, 6), tag="old")
    new = SummaryWriter(tmp_path, timestamp=2)
    write_steps(new, range(1, 6), tag="new")
    cache = SummaryCache(str(tmp_path))
    cache.reload()
    assert cache.job("./").tag_names("scalar") == ["new", "old"]
    os.remove(old.path)
    cache.reload()
    assert cache.job("./").tag_names("scalar") == ["new"]


def test_deleted_job_disappears(tmp_path):
    write_steps(SummaryWriter(tmp_path / "a", timestamp=1), [1])
    write_steps(SummaryWriter(tmp_path / "b", timestamp=1), [1])
    cache = SummaryCache(str(tmp_path))
    cache.reload()
    for name in os.listdir(tmp_path / "b"):
        os.remove(tmp_path / "b" / name)
    changes = cache.reload()
    assert list(cache.jobs) == ["./a"] and changes.removed == {"./b"}


def test_unreadable_file_is_a_state_not_a_crash(tmp_path, monkeypatch):
    write_steps(SummaryWriter(tmp_path, timestamp=1), [1])
    from tui_insight.summary.sources import local as source_module  # the local source opens the files

    real_open = source_module.open_regular

    def deny(path, *args, **kwargs):  # tests run as root: chmod cannot lock the file
        if "summary" in str(path):
            raise PermissionError(13, "Permission denied")
        return real_open(path, *args, **kwargs)

    monkeypatch.setattr(source_module, "open_regular", deny)
    cache = SummaryCache(str(tmp_path))
    cache.reload()
    assert cache.job("./").state == "unreadable: Permission denied"


@pytest.mark.parametrize("content", [
    os.urandom(4096),
    b"loss,acc\n0.5,0.9\n0.4,0.92\n" * 50,  # a text file under a summary file's name
], ids=["random-bytes", "text"])
def test_a_file_with_no_valid_record_is_not_a_summary_file(tmp_path, content):
    (tmp_path / "x.summary.123").write_bytes(content)
    cache = SummaryCache(str(tmp_path))
    cache.reload()
    view = cache.job("./")
    assert view.state == "unreadable: not a summary file"
    cache.reload()  # nothing appended: it stays what it is
    assert cache.job("./").state == "unreadable: not a summary file"


def test_a_job_with_readable_files_names_the_one_that_is_not_a_summary_file(tmp_path):
    write_steps(SummaryWriter(tmp_path, timestamp=1), [1, 2])
    (tmp_path / "x.summary.123").write_bytes(b"loss,acc\n" * 50)
    cache = SummaryCache(str(tmp_path))
    cache.reload()
    view = cache.job("./")
    assert view.state == "unreadable: x.summary.123: not a summary file"
    assert view.series("scalar", "loss").steps.tolist() == [1, 2]  # what could be read is kept


def test_one_valid_record_makes_a_damaged_file_corrupt_not_unreadable(tmp_path):
    writer = SummaryWriter(tmp_path, timestamp=123)
    write_steps(writer, [1])
    writer.close()
    writer.path.write_bytes(writer.path.read_bytes() + os.urandom(4096))
    cache = SummaryCache(str(tmp_path))
    cache.reload()
    view = cache.job("./")
    assert view.state.startswith("corrupt") and view.series("scalar", "loss").steps.tolist() == [1]


def test_a_failing_subscriber_is_logged_and_loading_goes_on(tmp_path, caplog):
    write_steps(SummaryWriter(tmp_path, timestamp=1), [1])
    cache = SummaryCache(str(tmp_path))
    heard = []

    def broken(changes):
        raise RuntimeError("subscriber broke")

    cache.subscribe(broken)
    cache.subscribe(heard.append)
    with caplog.at_level("ERROR", logger="tui_insight.summary.store.cache"):
        cache.reload()
    assert heard and cache.job("./").loaded
    failures = [r for r in caplog.records if r.exc_info and isinstance(r.exc_info[1], RuntimeError)]
    assert failures and "subscriber" in failures[0].getMessage()


def test_the_reload_loop_logs_a_failed_reload_and_keeps_going(tmp_path, caplog, monkeypatch):
    write_steps(SummaryWriter(tmp_path, timestamp=1), [1])
    cache = SummaryCache(str(tmp_path))
    discover = cache.source.discover
    calls = []

    def flaky(*args, **kwargs):  # a failure no reload expects (an OSError says "cannot read")
        calls.append(1)
        if len(calls) == 1:
            raise RuntimeError("the disk went away")
        return discover(*args, **kwargs)

    monkeypatch.setattr(cache.source, "discover", flaky)
    with caplog.at_level("ERROR", logger="tui_insight.summary.store.cache"):
        cache.start(interval=0.05)
        try:
            deadline = time.monotonic() + 10
            while time.monotonic() < deadline and not (cache.job("./") and cache.job("./").loaded):
                time.sleep(0.02)
        finally:
            cache.stop()
    assert cache.job("./").loaded  # the loop survived the failure and reloaded
    assert any(r.exc_info and "the disk went away" in str(r.exc_info[1]) for r in caplog.records)


def test_a_failed_file_watch_is_logged_and_the_loop_polls(tmp_path, caplog, monkeypatch):
    import watchfiles

    def broken_watch(*args, **kwargs):
        raise RuntimeError("no inotify here")
        yield  # a generator, like watchfiles.watch

    monkeypatch.setattr(watchfiles, "watch", broken_watch)
    writer = SummaryWriter(tmp_path, timestamp=1)
    write_steps(writer, [1])
    cache = SummaryCache(str(tmp_path))

    def steps() -> list[int]:
        view = cache.job("./")
        series = view.series("scalar", "loss") if view else None
        return series.steps.tolist() if series is not None else []

    with caplog.at_level("ERROR", logger="tui_insight.summary.store.cache"):
        cache.start(interval=0.05)
        try:
            assert wait_loaded(cache, timeout=10)
            write_steps(writer, [2])
            deadline = time.monotonic() + 10
            while time.monotonic() < deadline and steps() != [1, 2]:
                time.sleep(0.02)
        finally:
            cache.stop()
    assert steps() == [1, 2]  # polling read the appended step
    assert any(r.exc_info and "no inotify here" in str(r.exc_info[1]) for r in caplog.records)


def test_missing_logdir_is_an_error_message(tmp_path):
    cache = SummaryCache(str(tmp_path / "nope"))
    cache.reload()
    assert "cannot read" in cache.error and not cache.jobs


def test_tag_limit_evicts_earliest_seen(tmp_path):
    writer = SummaryWriter(tmp_path, timestamp=1)
    for i in range(310):
        writer.add_scalar(f"tag{i:03d}", float(i))
    writer.record(1)
    writer.close()
    cache = SummaryCache(str(tmp_path))
    cache.reload()
    assert cache.job("./").tag_names("scalar") == [f"tag{i:03d}" for i in range(10, 310)]


def test_tensor_tag_limit(fixture_cache, truth):
    tensor_tags = fixture_cache.job("./limits").tag_names("tensor")
    assert len(tensor_tags) == 6
    assert tensor_tags == sorted(split_tag(t)[1] for t in truth["jobs"]["./limits"]["plugins"]["tensor"])


def test_same_name_in_two_plugins_stays_apart(tmp_path):
    writer = SummaryWriter(tmp_path, timestamp=1)
    writer.add_scalar("w", 1.0)
    writer.add_histogram("w", np.arange(10.0))
    writer.record(1)
    writer.close()
    cache = SummaryCache(str(tmp_path))
    cache.reload()
    view = cache.job("./")
    assert view.tag_names("scalar") == ["w"] and view.tag_names("histogram") == ["w"]


def test_subscribers_hear_about_changes(tmp_path):
    writer = SummaryWriter(tmp_path / "run", timestamp=1)
    write_steps(writer, [1])
    cache = SummaryCache(str(tmp_path))
    heard = []
    cache.subscribe(heard.append)
    cache.reload()
    assert any("./run" in c.added for c in heard)
    assert any(c.updated.get("./run") == {("scalar", "loss")} for c in heard)


def test_live_append_every_step_arrives_once(tmp_path):
    """A writer appends while the background loop reloads; every step arrives exactly once."""
    writer = SummaryWriter(tmp_path, timestamp=1)
    cache = SummaryCache(str(tmp_path))
    cache.start(interval=0.05)
    try:
        for step in range(1, 301):
            writer.add_scalar("loss", float(step))
            writer.record(step, wall_time=float(step))
            if step % 7 == 0:
                writer.flush()
                time.sleep(0.002)
        writer.close()
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline:
            view = cache.job("./")
            series = view.series("scalar", "loss") if view else None
            if series is not None and series.last_step == 300:
                break
            time.sleep(0.02)
        series = cache.job("./").series("scalar", "loss")
        assert series.steps.tolist() == list(range(1, 301))
        assert series.values.tolist() == [float(s) for s in range(1, 301)]
        assert series.seen == 300
    finally:
        cache.stop()


def test_readers_see_consistent_snapshots(tmp_path):
    """A view taken before a reload does not change under the reader."""
    writer = SummaryWriter(tmp_path, timestamp=1)
    write_steps(writer, range(1, 11))
    cache = SummaryCache(str(tmp_path))
    cache.reload()
    view = cache.job("./")
    write_steps(writer, range(11, 21))
    cache.reload()
    assert view.series("scalar", "loss").last_step == 10
    assert cache.job("./").series("scalar", "loss").last_step == 20


def test_wait_loaded_in_background(tmp_path):
    write_steps(SummaryWriter(tmp_path, timestamp=1), [1, 2])
    cache = SummaryCache(str(tmp_path))
    cache.start(interval=0)
    try:
        assert wait_loaded(cache, timeout=10)
        assert cache.job("./").state == "ok"
    finally:
        cache.stop()


def test_the_loops_first_pass_keeps_what_it_made_out_of_collections_until_the_logs_change(tmp_path):
    """An app starting: the objects of the loop's first pass are frozen (no collection traverses
    them while the job list is built, nor while the app idles over finished runs) and thawed when
    the logs change, or when the cache stops: nothing is kept out of collections for good. A
    reload called directly freezes nothing."""
    writer = SummaryWriter(tmp_path, timestamp=1)
    write_steps(writer, [1, 2])
    assert gc.isenabled() and gc.get_freeze_count() == 0
    SummaryCache(str(tmp_path)).reload()
    assert gc.get_freeze_count() == 0
    cache = SummaryCache(str(tmp_path))
    cache.start(interval=0.05)
    try:
        assert wait_loaded(cache, timeout=10)
        (tmp_path / "notes.txt").write_text("a notice that changes no job")
        time.sleep(6)  # wakeups of the loop, longer than the 5 s the first pass once stayed frozen
        assert gc.get_freeze_count() > 0
    finally:
        cache.stop()
    assert gc.get_freeze_count() == 0 and gc.isenabled()
    cache = SummaryCache(str(tmp_path))
    cache.start(interval=0.05)
    try:
        assert wait_loaded(cache, timeout=10)
        assert gc.get_freeze_count() > 0
        write_steps(writer, [3])
        deadline = time.monotonic() + 5
        while time.monotonic() < deadline and gc.get_freeze_count():
            time.sleep(0.02)
        assert gc.get_freeze_count() == 0  # thawed by the loop, which goes on
        assert cache.job("./").series("scalar", "loss").last_step == 3
    finally:
        cache.stop()


def test_file_change_notices_wake_the_loop(tmp_path):
    """With a long interval, a flushed step still arrives quickly: watchfiles wakes the loop."""
    writer = SummaryWriter(tmp_path, timestamp=1)
    write_steps(writer, [1])
    cache = SummaryCache(str(tmp_path))
    cache.start(interval=60)
    try:
        assert wait_loaded(cache, timeout=10)
        time.sleep(0.3)  # let the watcher settle
        write_steps(writer, [2])
        deadline = time.monotonic() + 5
        while time.monotonic() < deadline and cache.job("./").series("scalar", "loss").last_step != 2:
            time.sleep(0.02)
        assert cache.job("./").series("scalar", "loss").last_step == 2
    finally:
        cache.stop()


def test_appends_to_an_older_file_are_still_read(tmp_path):
    """MindInsight never goes back to an older file once a newer one appeared; we do."""
    old = SummaryWriter(tmp_path, timestamp=1)
    write_steps(old, [1, 2], tag="old")
    new = SummaryWriter(tmp_path, timestamp=2)
    write_steps(new, [1], tag="new")
    cache = SummaryCache(str(tmp_path))
    cache.reload()
    write_steps(old, [3], tag="old")
    cache.reload()
    assert cache.job("./").series("scalar", "old").steps.tolist() == [1, 2, 3]


def test_a_tag_that_is_not_utf8_is_text_with_its_bytes_visible(tmp_path):
    from hostile_logs import write_invalid_utf8_tag

    write_invalid_utf8_tag(tmp_path)
    cache = SummaryCache(str(tmp_path))
    cache.reload()
    view = cache.job("./")
    assert view.state == "ok"
    assert sorted(view.tag_names("scalar")) == ["acc", "loss\\xff\\xfe"]  # all str: they sort
    assert all(isinstance(tag, str) for _, tag in view.tags)
    assert "loss\\xff\\xfe" in view.tag_names("scalar")
    assert len(view.series("scalar", "loss\\xff\\xfe")) == 5


def test_changes_say_per_plugin_which_tags_have_new_data(tmp_path):
    """`Changes.tags`: None for a job that came (every tag may be new), the tags of a plugin with
    new data after an append, an empty set for a plugin with none, and for a job not named."""
    writer = SummaryWriter(tmp_path / "run", timestamp=1)
    writer.add_scalar("loss", 1.0)
    writer.add_histogram("weights", np.arange(10.0))
    writer.record(1, wall_time=1001.0)
    writer.flush()
    cache = SummaryCache(str(tmp_path))
    seen: list = []
    cache.subscribe(seen.append)
    cache.reload()
    first = seen[0]
    assert first.tags("./run", "scalar") is None and "./run" in first.jobs()
    seen.clear()
    writer.add_scalar("loss", 0.5)
    writer.record(2, wall_time=1002.0)
    writer.flush()
    cache.reload()
    appended = Changes()
    for changes in seen:
        appended.merge(changes)
    assert appended.tags("./run", "scalar") == {"loss"}
    assert appended.tags("./run", "histogram") == set()
    assert appended.tags("./other", "scalar") == set() and appended.jobs() == {"./run"}
    writer.close()
