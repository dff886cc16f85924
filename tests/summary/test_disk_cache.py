"""The disk cache: a second start restores jobs from their snapshots and reads only what was
appended; stale, damaged, replaced or other-version entries are never used as they are."""
import os
import struct

import google_crc32c
import numpy as np
import pytest
from sweep_logs import append, contents, loaded_reference, row, write_run, write_sweep

from tui_insight.summary.sources.discovery import discover, restored_listings
from tui_insight.summary.store import cache as cache_module
from tui_insight.summary.store import disk_cache as disk_cache_module
from tui_insight.summary.store import snapshot as snapshot_module
from tui_insight.summary.store.cache import SummaryCache
from tui_insight.summary.store.digest import TagDigest
from tui_insight.summary.store.disk_cache import CLEAN_TO, DiskCache
from tui_insight.summary.store.pool import MIN_JOBS
from tui_insight.summary.store.series import Series
from tui_insight.summary.store.snapshot import SnapshotError, decode, encode


def summary_file(run_dir):
    return next(p for p in run_dir.iterdir() if ".summary." in p.name)


def open_cache(logs, disk):
    cache = SummaryCache(str(logs), disk_cache=disk)
    cache.reload()
    return cache


def same_as_plain(cache, logs) -> None:
    """Every job, with its details brought back, equals a plain load of the same logs."""
    reference = loaded_reference(logs)
    assert list(cache.jobs) == list(reference.jobs)
    for tid in reference.jobs:
        view = cache.details(tid)
        assert contents(view) == contents(reference.job(tid)) and contents(view)
        assert row(view) == row(reference.job(tid))


@pytest.fixture
def disk(tmp_path):
    return DiskCache(tmp_path / "cache")


def test_a_second_start_restores_every_job_and_reads_nothing(tmp_path, disk):
    logs = tmp_path / "logs"
    write_sweep(logs, 4)
    first = open_cache(logs, disk)
    assert first.progress.bytes_read > 0 and len(list(disk.dir.iterdir())) == 4
    second = open_cache(logs, disk)
    assert second.progress.bytes_read == 0  # not one old byte read again
    assert all(view.loaded and not view.detailed for view in second.jobs.values())  # listed from the headers
    for tid, view in first.jobs.items():
        assert row(second.job(tid)) == row(view)
    same_as_plain(second, logs)
    assert second.progress.bytes_read == 0  # the details came from the snapshots too


def test_jobs_listed_from_their_headers_are_announced_together_as_a_refresh_would_publish_them(tmp_path, disk):
    """A warm start lists the jobs whose files are what their entries read without refreshing
    them one by one, and tells subscribers in batches; a job that grew is read as before."""
    logs = tmp_path / "logs"
    write_sweep(logs, 12)
    first = open_cache(logs, disk)
    writer = write_run(logs / "grown", 3)
    open_cache(logs, disk)
    append(writer, 3, range(2501, 2601))
    writer.close()
    second = SummaryCache(str(logs), disk_cache=disk)
    notices = []
    second.subscribe(notices.append)
    second.reload()
    updates = [set(n.updated) for n in notices if n.updated]
    assert [u for u in updates if "./grown" in u] == [{"./grown"}]  # read as before, on its own
    listed = [u for u in updates if "./grown" not in u]
    assert sorted(tid for u in listed for tid in u) == sorted(first.jobs)  # each listed job once,
    assert len(listed) < len(first.jobs)  # together (or in a few batches), not a notice each
    assert set().union(*(n.updated for n in notices)) == set(second.jobs) and len(second.jobs) == 13
    assert second.progress.bytes_read > 0 and second.job("./grown").last_step == 2600
    for tid, view in first.jobs.items():
        listed = second.job(tid)
        assert listed.loaded and not listed.detailed and row(listed) == row(view)
        assert (listed.file_status, listed.update_time, listed.state) == (view.file_status, view.update_time, view.state)
    views = dict(second.jobs)
    assert not second.reload() and all(second.job(tid) is view for tid, view in views.items())  # idle: nothing new
    same_as_plain(second, logs)


def test_a_warm_start_stats_the_listed_jobs_files_before_telling_anyone_of_them(tmp_path, disk, monkeypatch):
    """Each stat lets go of the GIL; taken between restores, each waited for the UI thread, busy
    with the rows of the jobs told of so far (10,000 stats: 1.5 s of a 5,000-job warm start).
    So the files of the jobs the index lists are all stat-ed first, before the first notice."""
    logs = tmp_path / "logs"
    write_sweep(logs, 6)
    first = open_cache(logs, disk)
    second = SummaryCache(str(logs), disk_cache=DiskCache(disk.root))  # a new start: its index read anew
    told = []
    second.subscribe(told.append)
    late = []
    real_stat = os.stat

    def stat(path, *args, **kwargs):
        if told and ".summary." in os.fspath(path):
            late.append(path)
        return real_stat(path, *args, **kwargs)

    monkeypatch.setattr(os, "stat", stat)
    second.reload()
    assert told and late == []
    assert second.progress.bytes_read == 0 and all(v.loaded for v in second.jobs.values())
    for tid, view in first.jobs.items():
        assert row(second.job(tid)) == row(view)


def test_a_warm_start_tells_of_its_jobs_with_the_first_screenful_already_listed(tmp_path, disk, monkeypatch):
    """The notice of the new jobs comes with the first FIRST_LISTED of them (by id: the job
    list's order) listed from the disk cache: the job list's first rows are read, not "loading"."""
    logs = tmp_path / "logs"
    write_sweep(logs, 5)
    first = open_cache(logs, disk)
    monkeypatch.setattr(cache_module, "FIRST_LISTED", 2)
    second = SummaryCache(str(logs), disk_cache=DiskCache(disk.root))
    seen = []
    second.subscribe(lambda changes: seen.append((changes, {tid: v.loaded for tid, v in second.jobs.items()})))
    second.reload()
    told, loaded = seen[0]
    assert told.added == set(first.jobs) and set(told.updated) == {"./run_00", "./run_01"}
    assert loaded == {tid: tid in ("./run_00", "./run_01") for tid in first.jobs}
    assert second.progress.bytes_read == 0 and second.progress.jobs_loaded == 5
    assert sorted(tid for changes, _ in seen for tid in changes.updated) == sorted(first.jobs)  # each once
    for tid, view in first.jobs.items():
        assert row(second.job(tid)) == row(view)


def test_a_job_without_event_files_brought_back_from_the_disk_cache_keeps_its_lineage(tmp_path, disk):
    """Its details dropped under the memory budget and brought back from its entry (one with no
    file), the job is still the loaded one: lineage and all."""
    from tui_insight.summary.formats.writer import LineageWriter

    logs = tmp_path / "logs"
    write_sweep(logs, 1)
    with LineageWriter(logs / "only_lineage", timestamp=1_700_000_000) as writer:
        writer.write_train(learning_rate=0.5, epoch=3)
    cache = SummaryCache(str(logs), disk_cache=disk, memory_budget=1)  # a job nobody holds is evicted once read
    cache.reload()
    before = cache.job("./only_lineage")
    assert before.lineage.train["learning_rate"] == 0.5 and not before.detailed  # evicted
    view = cache.details("./only_lineage")
    assert view.detailed and view.lineage == before.lineage and view.lineage_files == before.lineage_files


def test_a_stale_entry_reads_only_the_appended_tail(tmp_path, disk):
    logs = tmp_path / "logs"
    writer = write_run(logs / "live", 3)
    open_cache(logs, disk)
    size = summary_file(logs / "live").stat().st_size
    append(writer, 3, range(2501, 2701))
    writer.close()
    grown = summary_file(logs / "live").stat().st_size - size
    second = open_cache(logs, disk)
    assert second.progress.bytes_read == grown
    assert second.job("./live").last_step == 2700
    same_as_plain(second, logs)
    third = open_cache(logs, disk)  # the entry was brought up to date
    assert third.progress.bytes_read == 0


@pytest.mark.parametrize("change", ["truncated", "replaced"])
def test_a_truncated_or_replaced_file_makes_the_entry_useless(tmp_path, disk, change):
    logs = tmp_path / "logs"
    write_sweep(logs, 2)
    open_cache(logs, disk)
    path = summary_file(logs / "run_01")
    if change == "truncated":
        data = path.read_bytes()
        with open(path, "r+b") as fh:  # the same file, shorter than what the entry read
            fh.truncate(len(data) // 2)
    else:
        path.unlink()  # a new file under the same name (another inode), a run of other values
        write_run(logs / "run_01", 9, steps=700).close()
        path = summary_file(logs / "run_01")
    second = open_cache(logs, disk)
    complete = path.stat().st_size - second.job("./run_01").tail_bytes  # a cut record is left unread
    assert second.progress.bytes_read == complete  # that job read from scratch, the other not
    same_as_plain(second, logs)


@pytest.mark.parametrize("damage", ["garbage", "cut short", "flipped byte", "empty"])
def test_a_damaged_entry_is_discarded_and_the_job_read_again(tmp_path, disk, damage):
    logs = tmp_path / "logs"
    write_sweep(logs, 1)
    open_cache(logs, disk)
    entry = disk.entry(str(logs / "run_00"))
    data = entry.read_bytes()
    entry.write_bytes({"garbage": os.urandom(len(data)), "cut short": data[: len(data) // 2],
                       "flipped byte": data[:-10] + bytes([data[-10] ^ 0xFF]) + data[-9:], "empty": b""}[damage])
    second = open_cache(logs, disk)
    # A damaged header is found at once; damaged arrays when the series are needed: then or
    # there, the job is read from its file again, and its entry written again whole.
    same_as_plain(second, logs)
    assert second.progress.bytes_read == summary_file(logs / "run_00").stat().st_size
    assert decode(entry.read_bytes()).path == str(logs / "run_00")


def test_an_entry_of_another_format_version_is_discarded(tmp_path, disk, monkeypatch):
    logs = tmp_path / "logs"
    write_sweep(logs, 1)
    open_cache(logs, disk)
    monkeypatch.setattr(snapshot_module, "FORMAT_VERSION", snapshot_module.FORMAT_VERSION + 1)
    entry = disk.entry(str(logs / "run_00"))
    with pytest.raises(SnapshotError, match="version"):
        decode(entry.read_bytes())
    second = open_cache(logs, disk)
    assert second.progress.bytes_read == summary_file(logs / "run_00").stat().st_size
    same_as_plain(second, logs)


def test_the_cache_directory_is_never_inside_logdir(tmp_path):
    logs = tmp_path / "logs"
    write_sweep(logs, 1)
    cache = SummaryCache(str(logs), disk_cache=DiskCache(logs / "sub" / ".cache"))
    cache.reload()
    assert cache.disk is None and any("inside LOGDIR" in p for p in cache.problems)
    assert not (logs / "sub").exists()
    assert cache.job("./run_00").loaded


def test_cleanup_keeps_the_directory_under_its_bound_dropping_the_least_recently_used(tmp_path):
    logs = tmp_path / "logs"
    ids = write_sweep(logs, 6, steps=400)
    probe = DiskCache(tmp_path / "probe")
    open_cache(logs, probe)
    entry_size = max(p.stat().st_size for p in probe.dir.iterdir())
    disk = DiskCache(tmp_path / "cache", max_bytes=int(3.5 * entry_size))
    open_cache(logs, disk)  # read in train id order: the first entries are the oldest
    assert disk.size() <= disk.max_bytes
    kept = {tid for tid in ids if disk.entry(str(logs / tid[2:])).exists()}
    assert kept and kept == set(ids[len(ids) - len(kept):])


def test_jobs_listed_from_the_index_count_as_used_in_the_cleanup(tmp_path, disk):
    """A warm start lists jobs from the index without opening their entries: their entries are
    still the last to go, after those of a LOGDIR not opened since."""
    in_use, other = tmp_path / "in_use", tmp_path / "other"
    write_sweep(in_use, 3, steps=400)
    write_sweep(other, 3, steps=400)
    open_cache(in_use, disk)
    open_cache(other, DiskCache(disk.root))
    entries = {logs: [disk.entry(str(logs / name)) for name in ("run_00", "run_01", "run_02")] for logs in (in_use, other)}
    for age, logs in ((300, in_use), (200, other)):  # in_use's entries the oldest
        for entry in entries[logs]:
            os.utime(entry, (entry.stat().st_atime, entry.stat().st_mtime - age))
    again = open_cache(in_use, DiskCache(disk.root))
    assert again.progress.bytes_read == 0 and all(not v.detailed for v in again.jobs.values())  # from the index
    total, others = disk.size(), sum(e.stat().st_size for e in entries[other])
    bounded = DiskCache(disk.root, max_bytes=int((total - others) / CLEAN_TO * 1.02))  # room for in_use's entries alone
    assert bounded.max_bytes < total
    bounded.cleanup()
    assert all(entry.exists() for entry in entries[in_use])
    assert not all(entry.exists() for entry in entries[other])


def test_entries_of_a_remote_tree_listed_from_its_index_count_as_used(tmp_path):
    """The index says which tree its jobs are in: the cleanup finds their entries (named by
    tree and path) and keeps them over older ones no index lists."""
    logs = tmp_path / "logs"
    write_sweep(logs, 2, steps=50)
    local = DiskCache(tmp_path / "cache")
    open_cache(logs, local)
    for index in (local.root / "index").iterdir():  # the local LOGDIR's: not used for long
        os.utime(index, (index.stat().st_atime, index.stat().st_mtime - 400))
    snapshot = decode(local.entry(str(logs / "run_00")).read_bytes())  # an entry, saved again as a remote job's
    where = "memory://bucket/logs"
    remote = DiskCache(local.root)
    remote.use_index("/logs", where)
    for job in ("/logs/run_00", "/logs/run_01"):
        snapshot.path = job
        remote.save(job, encode(snapshot), where)
    remote.write_index(["/logs/run_00", "/logs/run_01"])
    listed = [remote.entry(job, where) for job in ("/logs/run_00", "/logs/run_01")]
    unlisted = [local.entry(str(logs / name)) for name in ("run_00", "run_01")]
    for entry in listed + unlisted:  # the remote tree's entries the oldest; only its index is recent
        os.utime(entry, (entry.stat().st_atime, entry.stat().st_mtime - (300 if entry in listed else 200)))
    total = local.size()
    bounded = DiskCache(local.root, max_bytes=int((total - sum(e.stat().st_size for e in unlisted)) / CLEAN_TO * 1.02))
    bounded.cleanup()
    assert all(entry.exists() for entry in listed) and not all(entry.exists() for entry in unlisted)


def test_the_index_counts_against_the_size_bound(tmp_path):
    logs = tmp_path / "logs"
    write_sweep(logs, 4, steps=400)
    probe = DiskCache(tmp_path / "probe")
    open_cache(logs, probe)
    entries = sum(p.stat().st_size for p in probe.dir.iterdir())
    index = sum(p.stat().st_size for p in (probe.root / "index").iterdir())
    assert index > 0 and probe.size() == entries + index
    disk = DiskCache(tmp_path / "cache", max_bytes=entries + index // 2)  # the entries alone fit
    open_cache(logs, disk)
    assert sum(p.stat().st_size for p in disk.root.rglob("*") if p.is_file()) <= disk.max_bytes


def test_a_snapshot_holds_every_value_exactly():
    steps = np.array([1, 5, 9, 2**40], dtype=np.int64)
    values = np.array([np.nan, -np.inf, 0.1, 1e300])  # 0.1 and 1e300 are no float32: kept as float64
    candidates = {"step": steps, "wall_time": np.array([1.5, 2.25, 3.0, 1e9 + 0.123]),
                  "fid": np.array([0, 0, 1, 1], dtype=np.int32), "value": values}
    series = Series.empty(2, ("value",)).merge(candidates, np.array([0, 1]))
    snap = snapshot_module.JobSnapshot(path="/x", files=[], tag_keys=[("scalar", "t\\xff")],
                                       series={("scalar", "t\\xff"): series})
    back = decode(encode(snap)).series[("scalar", "t\\xff")]
    for name, col in candidates.items():
        assert back.candidates[name].dtype == col.dtype
        assert back.candidates[name].tobytes() == col.tobytes()
    assert back.steps.tolist() == [1, 2**40] and back.values.tobytes() == values[[0, 3]].tobytes()
    assert (back.width, back.seen, back.nonfinite) == (series.width, 4, 2)


def test_a_snapshot_header_holds_every_digest_exactly():
    """The digests' numbers are binary columns: NaN, None, empty and short sparks and big steps
    come back as they were written, and a header cut inside them is refused."""
    digests = {
        "loss": TagDigest(3, 7, 1, 2**40, 1.5, 2.5, float("nan"), float("nan"), 2**40, float("inf"), 1, -0.0,
                          (0.1, float("nan"), 3.0), nonfinite=2, step_interval=None),
        "acc": TagDigest(1, 1, 5, 5, 0.0, 0.0, 0.25, 0.25, 5, 0.25, 5, 0.0, (), step_interval=1.25),
        "z\xff": TagDigest(2, 2, 0, 1, 0.0, 1.0, 1.0, 0.5, 0, 1.0, 1, 0.5, tuple(float(i) for i in range(10))),
    }
    snap = snapshot_module.JobSnapshot(path="/x", files=[], tag_keys=[], series={}, digests=digests, last_step=2**40)
    data = encode(snap)
    back = decode(data, details=False).digests
    assert list(back) == list(digests)
    assert repr(dict(back)) == repr(digests)  # repr: NaN compares unequal to itself
    head_len = snapshot_module.PREFIX.unpack_from(data)[2]
    cut = bytearray(data[:snapshot_module.PREFIX.size + head_len - 8])
    struct.pack_into("<II", cut, 12, len(cut) - snapshot_module.PREFIX.size,
                     google_crc32c.value(bytes(cut[snapshot_module.PREFIX.size:])))
    with pytest.raises(SnapshotError):
        decode(bytes(cut), details=False)


def test_a_snapshot_refuses_object_arrays_and_out_of_range_columns():
    series = Series.empty(5, ("value",)).merge({"step": np.arange(3), "wall_time": np.zeros(3),
                                                "fid": np.zeros(3, dtype=np.int32), "value": np.ones(3)}, np.array([0]))
    snap = snapshot_module.JobSnapshot(path="/x", files=[], tag_keys=[("scalar", "a")], series={("scalar", "a"): series})
    data = encode(snap)
    for old, new in ((b'"int8"', b'"object"'), (b'"float32"', b'"<U99"')):
        forged = data.replace(old, new, 1)
        assert forged != data
        with pytest.raises(SnapshotError):  # the header's CRC, and the type list behind it
            decode(forged)


def test_a_second_start_reuses_the_directory_listings_until_a_directory_changes(tmp_path, disk):
    logs = tmp_path / "logs"
    write_sweep(logs, 3)
    for directory in (logs, *logs.iterdir()):  # written long ago: their listings can be trusted by stamp
        os.utime(directory, (1_600_000_000, 1_600_000_000))
    open_cache(logs, disk)
    second = DiskCache(disk.root)
    second.use_index(str(logs))
    listings = restored_listings(second.saved_listings())
    assert discover(str(logs), listings).listed == 0  # every directory known by one stat
    (logs / "run_01" / "events.out.events.summary.1700000999.0.host").write_bytes(
        summary_file(logs / "run_00").read_bytes())  # a second file in run_01
    write_run(logs / "run_03", 3)  # a new run
    assert discover(str(logs), listings).listed == 3  # LOGDIR, run_01 and run_03 listed again
    third = open_cache(logs, DiskCache(disk.root))
    assert len(third.job("./run_01").summary_files) == 2 and "./run_03" in third.jobs
    same_as_plain(third, logs)


def test_the_index_lists_every_job_alone_and_a_damaged_index_is_discarded(tmp_path, disk):
    logs = tmp_path / "logs"
    write_sweep(logs, 3)
    first = open_cache(logs, disk)
    index = next((disk.root / "index").iterdir())
    for entry in disk.dir.iterdir():
        entry.unlink()  # only the index is left
    second = open_cache(logs, DiskCache(disk.root))
    assert second.progress.bytes_read == 0  # every job listed from the index
    assert [row(v) for v in second.jobs.values()] == [row(v) for v in first.jobs.values()]
    same_as_plain(second, logs)  # the details were in the entries: read from the logs again
    damaged = bytearray(index.read_bytes())
    damaged[-5] ^= 0xFF
    index.write_bytes(bytes(damaged))
    third = open_cache(logs, DiskCache(disk.root))
    assert [row(v) for v in third.jobs.values()] == [row(v) for v in first.jobs.values()]
    same_as_plain(third, logs)
    assert index.exists()  # written again whole


def test_a_warm_start_lists_its_jobs_from_the_index_without_decoding_a_header(tmp_path, disk, monkeypatch):
    """The index keeps the headers as plain data (one marshal behind a CRC): parsing each
    header's JSON and checking each field was most of listing 5,000 jobs. An index of another
    format (the former one: a header's bytes each) is discarded, the jobs listed from their
    entries, and the index written again in this format."""
    logs = tmp_path / "logs"
    write_sweep(logs, 3)
    first = open_cache(logs, disk)
    index = next((disk.root / "index").iterdir())
    data = index.read_bytes()
    decoded = []
    real_decode = disk_cache_module.decode
    monkeypatch.setattr(disk_cache_module, "decode", lambda *a, **k: decoded.append(a) or real_decode(*a, **k))
    second = open_cache(logs, DiskCache(disk.root))
    assert second.progress.bytes_read == 0 and decoded == []  # every job listed from the index as it holds it
    assert [row(v) for v in second.jobs.values()] == [row(v) for v in first.jobs.values()]
    index.write_bytes(data.replace(disk_cache_module.INDEX_MAGIC, b"TUIINDX\x00", 1))  # the former format
    third = open_cache(logs, DiskCache(disk.root))
    assert third.progress.bytes_read == 0 and len(decoded) == 3  # each listed from its entry
    assert [row(v) for v in third.jobs.values()] == [row(v) for v in first.jobs.values()]
    assert index.read_bytes().startswith(disk_cache_module.INDEX_MAGIC)
    same_as_plain(third, logs)


def test_the_index_written_again_keeps_the_jobs_it_held(tmp_path, disk):
    """After its first write the index's headers leave memory; a later write (a new job) merges
    them back from the file."""
    logs = tmp_path / "logs"
    write_sweep(logs, 2)
    cache = open_cache(logs, disk)
    write_run(logs / "run_02", 2).close()
    cache.reload()
    for entry in disk.dir.iterdir():
        entry.unlink()  # only the index is left
    again = open_cache(logs, DiskCache(disk.root))
    assert again.progress.bytes_read == 0 and len(again.jobs) == 3
    assert [row(v) for v in again.jobs.values()] == [row(v) for v in cache.jobs.values()]


def test_a_directory_changing_between_polls_does_not_rewrite_the_index_each_time(tmp_path, disk):
    """Keeping the listings rewrites the whole index (14 MB for 5,000 jobs): a poll that finds a
    changed directory keeps them at most once a minute; the next start lists that directory
    again (its stamp changed), so nothing is missed."""
    logs = tmp_path / "logs"
    write_sweep(logs, 3)
    cache = open_cache(logs, disk)
    index = next((disk.root / "index").iterdir())
    written = index.stat().st_ino  # the index is replaced whole (a new inode) when written
    (logs / "run_01" / "checkpoint.ckpt").write_bytes(b"not a log")  # a directory changes
    cache.reload()
    assert index.stat().st_ino == written
    write_run(logs / "run_03", 3)  # a new job is news for the index (its header)
    cache.reload()
    assert index.stat().st_ino != written
    third = open_cache(logs, DiskCache(disk.root))
    same_as_plain(third, logs)


def test_a_big_first_pass_read_in_process_keeps_only_headers_as_the_pool_does(tmp_path):
    """A first load of many jobs read in this process (one worker) sends each job's series to
    the disk cache and keeps its header, as the loading processes' path does: memory does not
    fill with series nobody opened. A held job keeps its details; the others come back on demand,
    the same as read plainly."""
    root = tmp_path / "logs"
    ids = write_sweep(root, MIN_JOBS + 2)
    reference = loaded_reference(root)
    cache = SummaryCache(str(root), disk_cache=DiskCache(tmp_path / "cache"), workers=1)
    cache.hold("screen", [ids[0]])
    cache.reload()
    assert all(view.loaded for view in cache.jobs.values())
    assert [tid for tid, view in cache.jobs.items() if view.detailed] == [ids[0]]
    assert all(row(cache.job(tid)) == row(reference.job(tid)) for tid in ids)  # the job list is the same
    for tid in ids:  # each digest exactly, the shelved ones read back from the saved header
        assert dict(cache.job(tid).digests) == dict(reference.job(tid).digests)
        assert dict(cache.job(tid).tag_counts) == dict(reference.job(tid).tag_counts)
    back = cache.details(ids[-1])
    assert back is not None and back.detailed and contents(back) == contents(reference.job(ids[-1]))
    cache.stop()


def test_tags_sharing_their_step_and_time_columns_store_them_once():
    """Ten scalar tags logged at the same steps: the steps and wall times are stored once, each tag
    keeps its own values, and every column reads back exactly (each tag its own array)."""
    n, tags = 5000, 10
    steps = np.arange(1, n + 1, dtype=np.int64) * 3
    walls = 1.7e9 + np.arange(n) * 0.123  # no float32: 8 bytes a value
    keys = [("scalar", f"loss/{i}") for i in range(tags)]
    series = {key: Series.empty(n, ("value",)).merge(
        {"step": steps, "wall_time": walls, "fid": np.zeros(n, dtype=np.int32),
         "value": np.float32(i) + np.arange(n, dtype=np.float32)}, np.arange(n)) for i, key in enumerate(keys)}
    data = encode(snapshot_module.JobSnapshot(path="/x", files=[], tag_keys=keys, series=series))
    one_tag = n * (4 + 8 + 1 + 4)  # its steps (int32), wall times, fid (int8) and values (float32)
    assert len(data) < one_tag + (tags - 1) * n * 4 + 20_000  # not tags x (steps + walls)
    back = decode(data).series
    for i, key in enumerate(keys):
        assert back[key].steps.tobytes() == steps.tobytes() and back[key].wall_times.tobytes() == walls.tobytes()
        assert back[key].values.tolist() == (np.float32(i) + np.arange(n, dtype=np.float32)).tolist()
    back[keys[0]].steps[0] = -1  # one tag's column changed in memory leaves the others as they were
    assert back[keys[1]].steps[0] == 3


def _same_crc_other_bytes(data: bytes) -> bytes:
    """Other bytes of `data`'s length with its CRC-32C (CRC-32C is affine: flipping a set of bits
    whose contributions xor to nothing leaves it; such a set is found among the first 40 bits
    by elimination over GF(2))."""
    zero = google_crc32c.value(bytes(len(data)))
    basis: dict[int, tuple[int, int]] = {}  # leading bit -> (contribution, bits flipped)
    for bit in range(40):
        one = bytearray(len(data))
        one[bit // 8] = 1 << (bit % 8)
        value, flips = google_crc32c.value(bytes(one)) ^ zero, 1 << bit
        while value and value.bit_length() in basis:
            other, other_flips = basis[value.bit_length()]
            value, flips = value ^ other, flips ^ other_flips
        if not value:  # these bits' contributions cancel
            flipped = bytearray(data)
            for b in range(40):
                if flips >> b & 1:
                    flipped[b // 8] ^= 1 << (b % 8)
            return bytes(flipped)
        basis[value.bit_length()] = (value, flips)
    raise AssertionError("no dependent bits")


def test_columns_of_one_size_and_crc_but_other_bytes_are_each_stored():
    """Equal columns are stored once, found by their size and CRC-32C: two columns that share
    both but not their bytes are each stored, and read back as they were."""
    n = 400
    first = np.random.default_rng(5).normal(size=n)  # (float64 values: stored as they are)
    second = np.frombuffer(_same_crc_other_bytes(first.tobytes()), dtype=np.float64)
    assert google_crc32c.value(first.tobytes()) == google_crc32c.value(second.tobytes())
    assert first.tobytes() != second.tobytes()
    steps = np.arange(n, dtype=np.int64)
    keys = [("scalar", "a"), ("scalar", "b"), ("scalar", "c")]
    series = {key: Series.empty(n, ("value",)).merge(
        {"step": steps, "wall_time": np.zeros(n), "fid": np.zeros(n, dtype=np.int32), "value": values}, np.arange(1))
        for key, values in zip(keys, (first, second, first.copy()))}
    data = encode(snapshot_module.JobSnapshot(path="/x", files=[], tag_keys=keys, series=series))
    back = decode(data).series
    assert [back[key].values.tobytes() for key in keys] == [first.tobytes(), second.tobytes(), first.tobytes()]
    assert len(data) < 2 * n * 8 + 4_000  # "c", the same bytes as "a": stored once (three: 13 kB)


@pytest.mark.parametrize("tag", ["loss", "caf\u00e9", "del\x7f", "ctrl\x01\n\"\\", "\U0001f600"])
@pytest.mark.parametrize("seq", [7, 2**70])
def test_an_entrys_table_is_written_as_json_writes_it(tag, seq):
    """The details' table of an entry is the bytes `json.dumps` writes (compact): whatever its
    tags' names hold (non-ASCII, DEL, control characters, quotes) and however many events."""
    import json

    n = 5
    series = {("scalar", tag): Series.empty(n, ("value",)).merge(
        {"step": np.arange(n, dtype=np.int64), "wall_time": np.zeros(n), "fid": np.zeros(n, dtype=np.int32),
         "value": np.ones(n)}, np.arange(1))}
    data = encode(snapshot_module.JobSnapshot(path="/x", files=[], tag_keys=[("scalar", tag)], series=series,
                                              evicted=[("scalar", tag + "2")], seq=seq))
    details = data[snapshot_module.header_end(data):]
    size = struct.unpack_from("<I", details)[0]
    table = details[4:4 + size]
    assert table == json.dumps(json.loads(table), separators=(",", ":")).encode()
    assert json.loads(table)["tags"][0]["key"] == ["scalar", tag] and json.loads(table)["seq"] == seq
    assert decode(data).tag_keys == [("scalar", tag)]


@pytest.mark.parametrize("most", [None, 1000, 1])
def test_an_entry_in_pieces_is_written_whole_whatever_each_write_takes(tmp_path, monkeypatch, most):
    """An entry's pieces go to its file in one writev call where the system takes them all; a
    write that took part of them (a network file system may) goes on from there, and more
    pieces than one call takes (3,000) are written in several."""
    rng = np.random.default_rng(7)
    pieces = [rng.bytes(int(n)) for n in rng.integers(0, 40, size=3000)] + [rng.bytes(20_000), b"", rng.bytes(5)]
    writev = os.writev

    def short(fd, buffers):  # at most `most` bytes a call
        if most is None:
            return writev(fd, buffers)
        return os.write(fd, bytes(b"".join(bytes(b) for b in buffers)[:most]))

    monkeypatch.setattr(os, "writev", short)
    path = tmp_path / "entry.snap"
    if most == 1:
        pieces = pieces[:200]  # (one byte a call)
    assert disk_cache_module.write_file(str(path), pieces) == 0
    assert path.read_bytes() == b"".join(pieces)
    assert disk_cache_module.write_file(str(path), [b"x"]) == len(b"".join(pieces))  # the old size
    assert path.read_bytes() == b"x" and [p.name for p in tmp_path.iterdir()] == ["entry.snap"]


WRITER_KILLED = r"""
import os, signal, sys
from tui_insight.summary.store import disk_cache
writev = os.writev

def die_halfway(fd, buffers):  # the first piece written, then the process is killed
    writev(fd, buffers[:1])
    os.kill(os.getpid(), signal.SIGKILL)

os.writev = die_halfway
disk_cache.write_file(sys.argv[1], [b"a" * 1000, b"b" * 1000])
"""


def test_a_process_killed_while_writing_a_new_entry_leaves_nothing_behind(tmp_path):
    """A new entry is written with no name and named once whole: a loading process killed
    halfway leaves no entry and no temporary file in the cache's directory; one replacing an
    entry leaves the old one as it was. (Linux's unnamed files, O_TMPFILE, and writev: the
    platform the tool and its tests run on; elsewhere the cache writes a named temporary file.)"""
    import subprocess
    import sys

    path = tmp_path / "entry.snap"
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)}
    for before in (None, b"old entry"):
        if before is not None:
            path.write_bytes(before)
        run = subprocess.run([sys.executable, "-c", WRITER_KILLED, str(path)], env=env, capture_output=True)
        assert run.returncode == -9, run.stderr
        names = sorted(p.name for p in tmp_path.iterdir())
        if before is None:
            assert names == []
        else:  # (replacing goes through a temporary file: the old entry is whole, beside what is left)
            assert path.read_bytes() == before


def test_a_job_is_named_by_its_real_path_whatever_path_leads_to_it(tmp_path):
    """An entry is named by the job directory's real path, so each spelling of a LOGDIR (a
    symlink to it, a symlinked run, `..` in it) finds the same entries; the directory holding
    many jobs has its real path worked out once."""
    real = tmp_path / "real"
    (real / "run_00").mkdir(parents=True)
    (real / "elsewhere").mkdir()
    (real / "run_01").symlink_to(real / "elsewhere")  # a run that is a link
    (tmp_path / "link").symlink_to(real)  # LOGDIR through a link
    disk = DiskCache(tmp_path / "cache")
    for spelling, target in [(tmp_path / "link" / "run_00", real / "run_00"),
                             (real / "run_01", real / "elsewhere"),
                             (tmp_path / "link" / "run_01", real / "elsewhere"),
                             (tmp_path / "link" / "run_00" / ".." / "run_00", real / "run_00"),
                             (tmp_path / "link" / "gone", real / "gone")]:
        assert disk.entry(str(spelling)) == DiskCache(tmp_path / "cache").entry(os.path.realpath(target)), spelling
    assert disk.entry(str(real / "run_00")) != disk.entry(str(real / "elsewhere"))
