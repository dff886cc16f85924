"""The cache over an fsspec URL (`FsspecSource`), on fsspec's `memory://` filesystem: logs are
written locally by our writer and uploaded whole, as a job writing to an object store does."""
import mmap
import os
import sys
import uuid

import fsspec
import numpy as np
import pytest

from tui_insight.summary.formats.graph import load_graph
from tui_insight.summary.formats.writer import SummaryWriter
from tui_insight.summary.sources.local import RangeCache, SourceError
from tui_insight.summary.sources.object_store import FsspecSource, is_url, parse_storage_options
from tui_insight.summary.store.cache import SummaryCache

MEMORY = fsspec.filesystem("memory")


@pytest.fixture
def bucket():
    """A fresh `memory://` tree; (its URL, its path in the memory filesystem)."""
    root = f"/test-{uuid.uuid4().hex[:8]}/logs"
    yield f"memory://{root}", root
    if MEMORY.exists(root.split("/logs")[0]):
        MEMORY.rm(root.split("/logs")[0], recursive=True)


def upload(local_dir, root):
    """Every file under `local_dir` uploaded (whole, again) to `root`."""
    for dirpath, _dirs, files in os.walk(local_dir):
        for name in files:
            path = os.path.join(dirpath, name)
            rel = os.path.relpath(path, local_dir).replace(os.sep, "/")
            with open(path, "rb") as fh:
                MEMORY.pipe_file(f"{root}/{rel}", fh.read())


def write_steps(writer, steps, scale=0.5):
    for step in steps:
        writer.add_scalar("loss", step * scale)
        writer.add_histogram("w", np.arange(10.0) + step)
        writer.record(step, wall_time=1000.0 + step)
    writer.flush()


def values(cache, train_id="./run", tag="loss"):
    series = cache.job(train_id).series("scalar", tag)
    return list(zip(series.steps.tolist(), series.values.tolist()))


def test_a_url_tree_gives_the_views_of_the_same_files_read_locally(tmp_path, bucket):
    url, root = bucket
    writer = SummaryWriter(tmp_path / "run", timestamp=1)
    write_steps(writer, range(1, 21))
    writer.add_image("img", np.full((3, 4, 6), 0.8))
    writer.add_tensor("t", np.arange(6.0).reshape(2, 3))
    writer.record(21)
    writer.close()
    SummaryWriter(tmp_path / "exp" / ".hidden", timestamp=2).close()
    SummaryWriter(tmp_path / "exp" / "rank_0", timestamp=3).close()
    upload(tmp_path, root)
    local, remote = SummaryCache(str(tmp_path)), SummaryCache(FsspecSource(url))
    local.reload(), remote.reload()
    assert list(remote.jobs) == list(local.jobs) == ["./exp/rank_0", "./run"]
    assert remote.logdir == url and remote.error == ""
    assert values(remote) == values(local) and len(values(local)) == 20
    lview, rview = local.job("./run"), remote.job("./run")
    assert sorted(rview.tags) == sorted(lview.tags)
    for plugin, tag, read in (("histogram", "w", "histogram"), ("image", "img", "image"), ("tensor", "t", "tensor")):
        lseries, rseries = lview.series(plugin, tag), rview.series(plugin, tag)
        got = getattr(remote.payloads, read)(rview.locator(rseries, len(rseries) - 1))
        want = getattr(local.payloads, read)(lview.locator(lseries, len(lseries) - 1))
        if read == "image":
            assert (got.width, got.height, got.png) == (want.width, want.height, want.png) and got.png
        elif read == "tensor":
            assert np.array_equal(got.array, want.array)
        else:
            assert np.array_equal(got.buckets, want.buckets) and len(got.buckets)


def test_an_object_that_grew_is_read_from_its_saved_offset(tmp_path, bucket):
    url, root = bucket
    writer = SummaryWriter(tmp_path / "run", timestamp=1)
    write_steps(writer, range(1, 6))
    upload(tmp_path, root)
    cache = SummaryCache(FsspecSource(url))
    cache.reload()
    size = os.path.getsize(writer.path)
    read_before = cache.progress.bytes_read
    write_steps(writer, range(6, 11))
    upload(tmp_path, root)  # the whole object again, longer
    changes = cache.reload()
    assert "./run" in changes.updated
    assert values(cache) == [(s, s * 0.5) for s in range(1, 11)]  # none lost, none doubled
    assert cache.progress.bytes_read - read_before == os.path.getsize(writer.path) - size
    assert not cache.reload()  # nothing changed: nothing read, nothing published


def test_an_object_rewritten_at_the_same_size_is_read_again(tmp_path, bucket):
    url, root = bucket
    writer = SummaryWriter(tmp_path / "run", timestamp=1)
    write_steps(writer, range(1, 6))
    writer.close()
    upload(tmp_path, root)
    cache = SummaryCache(FsspecSource(url))
    cache.reload()
    os.remove(writer.path)
    again = SummaryWriter(tmp_path / "run", timestamp=1)
    write_steps(again, range(1, 6), scale=2.0)  # same records, other values: same size
    again.close()
    assert os.path.getsize(again.path) == MEMORY.size(f"{root}/run/{os.path.basename(again.path)}")
    upload(tmp_path, root)
    cache.reload()
    assert values(cache) == [(s, s * 2.0) for s in range(1, 6)]


def test_a_vanished_object_and_job_go(tmp_path, bucket):
    url, root = bucket
    write_steps(SummaryWriter(tmp_path / "run", timestamp=1), [1])
    write_steps(SummaryWriter(tmp_path / "other", timestamp=1), [1])
    upload(tmp_path, root)
    cache = SummaryCache(FsspecSource(url))
    cache.reload()
    MEMORY.rm(f"{root}/other", recursive=True)
    changes = cache.reload()
    assert list(cache.jobs) == ["./run"] and changes.removed == {"./other"}


def test_a_summary_graph_is_read_through_the_source(tmp_path, bucket):
    from tui_insight.proto import anf_ir_pb2

    url, root = bucket
    writer = SummaryWriter(tmp_path / "run", timestamp=1)
    graph = anf_ir_pb2.GraphProto(name="net")
    graph.node.add(name="conv", op_type="Conv2D")
    writer.add_graph(graph)
    write_steps(writer, [1])
    upload(tmp_path, root)
    cache = SummaryCache(FsspecSource(url))
    cache.reload()
    (source,) = cache.job("./run").graphs.values()
    assert load_graph(source, cache.source).node[0].op_type == "Conv2D"


def test_a_missing_tree_is_an_error_of_the_cache_not_a_crash(bucket):
    url, _ = bucket
    cache = SummaryCache(FsspecSource(url + "/nope"))
    cache.reload()
    assert cache.error == f"cannot read {url}/nope: no such bucket or directory" and not cache.jobs


def test_a_range_cache_fetches_blocks_once_and_rereads_a_short_last_block():
    data = bytearray(os.urandom(1000))
    fetched = []

    def fetch(path, start, end):
        fetched.append((start, end))
        return bytes(data[start:end])

    ranges = RangeCache(fetch, block=64, max_bytes=1 << 20)
    assert ranges.read("f", 10, 200) == bytes(data[10:200]) and fetched == [(0, 256)]
    assert ranges.read("f", 70, 130) == bytes(data[70:130]) and len(fetched) == 1
    assert ranges.read("f", 950, 1000) == bytes(data[950:1000])
    data += os.urandom(100)  # appended: the last block was short
    assert ranges.read("f", 990, 1100) == bytes(data[990:1100])
    assert fetched[-1] == (960, 1152)


def test_a_held_range_answers_reads_within_it_until_the_file_changes():
    data = os.urandom(4096)
    fetched = []

    def fetch(path, start, end):
        fetched.append((path, start, end))
        return data[start:end]

    def buffer(start, end):
        held = mmap.mmap(-1, end - start)
        held[:] = data[start:end]
        return held

    ranges = RangeCache(fetch, block=64, max_bytes=1 << 20, max_held=3000)
    first = buffer(1000, 3000)
    ranges.hold("f", 1000, 2000, first)
    assert ranges.read("f", 1500, 2500) == data[1500:2500] and fetched == []
    ranges.prefetch([("f", 1000, 3000)])
    assert fetched == []  # held: nothing to fetch
    assert ranges.read("f", 900, 1100) == data[900:1100] and fetched  # past its start: fetched
    ranges.hold("g", 0, 2000, buffer(0, 2000))  # past max_held together: the older one let go
    assert first.closed and ranges.read("g", 0, 10) == data[:10]
    fetched.clear()
    ranges.forget("g")  # rewritten
    assert ranges.read("g", 0, 10) == data[:10] and fetched == [("g", 0, 64)]


def test_storage_options_nest_dotted_keys_and_convert_values():
    assert parse_storage_options(["anon=true", "client_kwargs.endpoint_url=http://127.0.0.1:9",
                                  "client_kwargs.region_name=x", "default_block_size=5"]) == {
        "anon": True, "client_kwargs": {"endpoint_url": "http://127.0.0.1:9", "region_name": "x"},
        "default_block_size": 5}
    with pytest.raises(SourceError, match="expected key=value"):
        parse_storage_options(["anon"])


def test_urls_and_paths():
    assert is_url("s3://b/p") and is_url("memory://x") and is_url("obs://b")
    assert not is_url("/logs") and not is_url("host:/logs") and not is_url("C:\\logs")


def test_a_protocol_without_its_backend_says_what_to_install(monkeypatch):
    # gcsfs is in no extra of ours (pyarrow, hdfs://'s backend, is a test dependency: a worker
    # that imported pyarrow.fs cannot unimport it)
    monkeypatch.setitem(sys.modules, "gcsfs", None)
    with pytest.raises(SourceError) as info:
        FsspecSource("gcs://bucket/logs")
    assert str(info.value) == "gcs://bucket/logs: reading gcs:// needs gcsfs: pip install gcsfs"
    with pytest.raises(SourceError, match="Protocol not known"):
        FsspecSource("nosuch://x")
    monkeypatch.delenv("OBS_ENDPOINT", raising=False)
    monkeypatch.delenv("S3_ENDPOINT", raising=False)
    monkeypatch.delenv("AWS_ENDPOINT_URL", raising=False)
    with pytest.raises(SourceError, match="obs:// needs its endpoint"):
        FsspecSource("obs://bucket/logs")


def test_profiles_are_found_and_read_through_the_source(bucket):
    from fixture_paths import EXTRAS_LOGS

    from tui_insight.summary.formats.profiler import find_profiles, load_profile
    from tui_insight.summary.queries.profiler import profile_rows

    url, root = bucket
    upload(EXTRAS_LOGS, root)
    cache = SummaryCache(FsspecSource(url))
    cache.reload()
    local = SummaryCache(str(EXTRAS_LOGS))
    local.reload()
    profiled = [tid for tid, view in local.jobs.items() if view.profile_dirs]
    assert profiled and [tid for tid, view in cache.jobs.items() if view.profile_dirs] == profiled
    for tid in profiled:
        rview, lview = cache.job(tid), local.job(tid)
        refs = find_profiles(rview.path, cache.source)
        assert [(r.name, r.device, r.layout) for r in refs] == \
            [(r.name, r.device, r.layout) for r in find_profiles(lview.path)] and refs
        assert profile_rows(tid, rview.path, cache.source)[:2] == profile_rows(tid, lview.path)[:2]
        got, want = load_profile(refs[0]), load_profile(find_profiles(lview.path)[0])
        assert got.problems == want.problems
        assert [t.spans for t in got.timeline.tracks] == [t.spans for t in want.timeline.tracks]


def test_a_big_file_is_read_in_windows_and_a_lost_window_ends_the_scan_at_a_record(tmp_path, bucket, monkeypatch):
    from tui_insight.summary.formats.framing import ScanReport, scan_records
    from tui_insight.summary.sources import object_store

    monkeypatch.setattr(object_store, "WINDOW", 4096)  # the file spans many windows
    monkeypatch.setattr(object_store, "ONE_GET", 4096)
    url, root = bucket
    writer = SummaryWriter(tmp_path / "run", timestamp=1)
    write_steps(writer, range(1, 201))
    writer.close()
    upload(tmp_path, root)
    local, remote = SummaryCache(str(tmp_path)), SummaryCache(FsspecSource(url))
    local.reload(), remote.reload()
    assert values(remote) == values(local) and len(values(local)) == 200
    assert remote.job("./run").series("histogram", "w").steps.tolist() == \
        local.job("./run").series("histogram", "w").steps.tolist()

    source = FsspecSource(url)
    source.discover({})
    path = f"{root}/run/{os.path.basename(writer.path)}"
    size = source.stat(path).st_size
    fh = source.open_range(path, 0, size)
    MEMORY.rm(path)  # gone after the first windows were fetched: later ones fail
    report = ScanReport()
    records = list(scan_records(fh, 0, size, report))
    with open(writer.path, "rb") as local_fh:
        whole = list(scan_records(local_fh, 0, size, ScanReport()))
    assert 0 < len(records) < len(whole) and records == whole[:len(records)]
    last_offset, last_payload = records[-1]
    assert report.end == last_offset + 16 + len(last_payload) and report.tail_bytes == size - report.end


def test_the_disk_cache_keys_remote_jobs_by_their_location(tmp_path, bucket):
    from tui_insight.summary.store.disk_cache import DiskCache

    url, root = bucket
    logs = tmp_path / "logs"
    write_steps(SummaryWriter(logs / "run", timestamp=1), range(1, 11))
    upload(logs, root)
    disk = DiskCache(tmp_path / "cache")
    first = SummaryCache(FsspecSource(url), disk_cache=disk)
    first.reload()
    again = SummaryCache(FsspecSource(url), disk_cache=DiskCache(tmp_path / "cache"))
    again.reload()
    assert again.progress.bytes_read == 0  # restored from the disk cache: nothing read again
    assert again.job("./run").last_step == 10
    series = again.details("./run", timeout=20).series("scalar", "loss")  # its details, from the disk
    assert series.steps.tolist() == list(range(1, 11)) and again.progress.bytes_read == 0

    # A local directory at the very path a remote tree has: each keeps its own entry.
    twin = str(tmp_path / "twin")
    write_steps(SummaryWriter(tmp_path / "twin" / "run", timestamp=1), range(1, 4))
    upload(tmp_path / "twin", twin)
    SummaryCache(FsspecSource(f"memory://{twin}"), disk_cache=disk).reload()
    SummaryCache(twin, disk_cache=disk).reload()
    assert len(list(disk.dir.glob("*.snap"))) == 3  # ./run of the bucket, of memory://twin and of twin


def test_tensorboard_runs_behind_a_url_read_as_they_do_locally(bucket):
    """TensorBoard event files through the source: scalars, payloads decoded by ranged reads,
    the graph, and hparams rows, equal to the local cache of the same fixture tree."""
    from fixture_paths import FIXTURES

    from tui_insight.summary.queries.lineage import model_rows

    url, root = bucket
    local_dir = FIXTURES / "tensorboard"
    upload(local_dir, root)
    local, remote = SummaryCache(str(local_dir)), SummaryCache(FsspecSource(url))
    local.reload(), remote.reload()
    assert list(remote.jobs) == list(local.jobs) and "./tensorboardx" in remote.jobs
    for train_id, lview in local.jobs.items():
        rview = remote.job(train_id)
        assert (rview.state, sorted(rview.tags)) == (lview.state, sorted(lview.tags)), train_id
        for key, lseries in lview.tags.items():
            rseries = rview.tags[key]
            assert rseries.steps.tolist() == lseries.steps.tolist(), (train_id, key)
            if key[0] == "scalar":
                assert np.array_equal(rseries.values, lseries.values, equal_nan=True)
    lview, rview = local.job("./tensorboardx"), remote.job("./tensorboardx")
    lhist, rhist = lview.series("histogram", "weights"), rview.series("histogram", "weights")
    got = remote.payloads.histogram(rview.locator(rhist, 0))
    assert np.array_equal(got.buckets, local.payloads.histogram(lview.locator(lhist, 0)).buckets)
    assert len(got.buckets) > 600
    ltext, rtext = lview.series("text", "notes/text_summary"), rview.series("text", "notes/text_summary")
    assert remote.payloads.text(rview.locator(rtext, 0)).text == local.payloads.text(lview.locator(ltext, 0)).text
    graphs = [(train_id, tag) for train_id, v in local.jobs.items() for tag in v.graphs]
    assert graphs
    for train_id, tag in graphs:
        want = load_graph(local.job(train_id).graphs[tag])
        assert load_graph(remote.job(train_id).graphs[tag], remote.source) == want
    rows = [sorted((row.summary_dir, row.values) for row in model_rows(dict(cache.jobs))) for cache in (remote, local)]
    assert rows[0] == rows[1] and rows[0]  # the same hparams rows (their update times are the upload's)


def test_the_background_poll_compares_every_listed_object(bucket, tmp_path):
    """Local finished runs are looked at in turn (`poll.Rotation`); an object store's listing
    gives every object's size in the one request anyway, so every object is compared at once."""
    import datetime

    url, root = bucket
    local = []
    for i in range(12):
        writer = SummaryWriter(tmp_path / f"run{i:02d}", timestamp=1)
        write_steps(writer, [1, 2])
        local.append(writer)
    for i, writer in enumerate(local):
        upload(writer.path.parent, f"{root}/run{i:02d}")
    long_ago = datetime.datetime(2020, 1, 1, tzinfo=datetime.timezone.utc)
    for path in MEMORY.find(root):
        MEMORY.store[path].created = long_ago  # finished long ago
    cache = SummaryCache(FsspecSource(url))
    cache.reload()
    cache.reload()
    write_steps(local[5], [3])
    upload(local[5].path.parent, f"{root}/run05")
    cache.poll()
    assert [step for step, _ in values(cache, "./run05")] == [1, 2, 3]
    for writer in local:
        writer.close()
