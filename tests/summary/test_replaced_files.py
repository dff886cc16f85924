"""A file replaced under its name by a longer one is read again from its start, not read on
from where the old one stopped (its first bytes are not the ones read): locally, from a disk
cache entry, over S3 and ssh (no inode there)."""
import os
import shutil
from pathlib import Path

import numpy as np
import pytest
from s3help import s3_server  # noqa: F401 (a fixture)
from sshd import sshd_or_fail

from tui_insight.summary.formats.writer import SummaryWriter
from tui_insight.summary.sources.object_store import FsspecSource
from tui_insight.summary.sources.ssh import SshSource
from tui_insight.summary.store.cache import SummaryCache
from tui_insight.summary.store.disk_cache import DiskCache


def write_run(directory, steps, scale, started):
    """A summary file (name by timestamp 1) with `loss` = step * scale at each step."""
    writer = SummaryWriter(directory, timestamp=1, wall_time=started)
    for step in steps:
        writer.add_scalar("loss", step * scale)
        writer.add_histogram("w", np.linspace(0, 1, 20) * step * scale)
        writer.record(step, wall_time=started + step)
    writer.close()
    return writer.path


def loss(cache, train_id="./run"):
    series = cache.job(train_id).series("scalar", "loss")
    return series.steps.tolist(), series.values.tolist()


NEW = (list(range(1, 151)), [step * 2.0 for step in range(1, 151)])


def replace_file(how, path, tmp_path):
    """`path` becomes another run of 150 steps (loss = 2 * step) under the same name."""
    if how == "copied over":  # cp: the same inode, truncated and written again
        shutil.copyfile(write_run(tmp_path / "other", range(1, 151), 2.0, 5000.0), path)
    elif how == "reopened with w":
        path.write_bytes(b"")  # the writer's open("w"), then more steps than before
        write_run(path.parent, range(1, 151), 2.0, 5000.0)
    else:  # "renamed into place": a rotation (another inode here; none on S3)
        os.replace(write_run(tmp_path / "other", range(1, 151), 2.0, 5000.0), path)


@pytest.mark.parametrize("how", ["copied over", "reopened with w", "renamed into place"])
def test_a_file_replaced_by_a_longer_one_is_read_again(tmp_path, how):
    path = write_run(tmp_path / "logs" / "run", range(1, 101), 0.5, 1000.0)
    cache = SummaryCache(str(tmp_path / "logs"))
    cache.reload()
    assert loss(cache) == (list(range(1, 101)), [step * 0.5 for step in range(1, 101)])
    replace_file(how, path, tmp_path)
    assert "./run" in cache.reload().updated
    assert loss(cache) == NEW
    assert cache.job("./run").state == "ok"


def test_a_file_replaced_while_the_program_was_closed_is_read_again(tmp_path):
    disk = DiskCache(tmp_path / "cache")
    path = write_run(tmp_path / "logs" / "run", range(1, 101), 0.5, 1000.0)
    SummaryCache(str(tmp_path / "logs"), disk_cache=disk).reload()
    replace_file("copied over", path, tmp_path)
    second = SummaryCache(str(tmp_path / "logs"), disk_cache=disk)
    second.reload()
    assert loss(second) == NEW
    assert second.progress.bytes_read == path.stat().st_size  # from its start


def test_a_file_grown_by_its_writer_is_read_on(tmp_path):
    path = write_run(tmp_path / "logs" / "run", range(1, 101), 0.5, 1000.0)
    cache = SummaryCache(str(tmp_path / "logs"))
    cache.reload()
    data = path.read_bytes()
    longer = write_run(tmp_path / "more", range(1, 151), 0.5, 1000.0).read_bytes()  # the same run, further
    assert longer.startswith(data)
    with open(path, "ab") as fh:
        fh.write(longer[len(data):])
    before = cache.progress.bytes_read
    cache.reload()
    assert cache.progress.bytes_read - before == len(longer) - len(data)  # only what was appended
    assert loss(cache) == (list(range(1, 151)), [step * 0.5 for step in range(1, 151)])


def first_histogram(cache):
    view = cache.job("./run")
    series = view.series("histogram", "w")
    assert series.steps[0] == 1
    return cache.payloads.histogram(view.locator(series, 0)).buckets.tolist()


@pytest.mark.parametrize("how", ["copied over", "renamed into place"])
def test_an_object_put_again_with_other_longer_contents_is_read_again(tmp_path, s3_server, how):
    logs = tmp_path / "logs"
    path = write_run(logs / "run", range(1, 101), 0.5, 1000.0)
    prefix = f"{s3_server.bucket()}/runs"
    s3_server.upload(logs, prefix)
    cache = SummaryCache(FsspecSource(f"s3://{prefix}", s3_server.options))
    cache.reload()
    old_histogram = first_histogram(cache)  # its blocks now kept by the source
    replace_file(how, path, tmp_path)
    s3_server.upload(logs, prefix)
    cache.reload()
    assert loss(cache) == NEW
    local = SummaryCache(str(logs))
    local.reload()
    assert first_histogram(cache) == first_histogram(local) != old_histogram


@pytest.fixture(scope="module")
def sshd(tmp_path_factory):
    server = sshd_or_fail(tmp_path_factory.mktemp("sshd"))
    yield server
    server.stop()


@pytest.mark.parametrize("how", ["copied over", "reopened with w", "renamed into place"])
def test_a_file_replaced_by_a_longer_one_over_ssh_is_read_again(tmp_path, sshd, how):
    logs = tmp_path / "logs"
    path = write_run(logs / "run", range(1, 101), 0.5, 1000.0)
    source = SshSource(sshd.target(logs), sshd.ssh_options())
    try:
        cache = SummaryCache(source)
        cache.reload()
        old_histogram = first_histogram(cache)
        replace_file(how, path, tmp_path)
        sent = source.round_trips
        cache.reload()
        assert loss(cache) == NEW
        # The listing; what grew, with its first bytes; the file again. A file renamed into place
        # has a new inode in the listing, which says so before anything is read.
        assert source.round_trips - sent == (2 if how == "renamed into place" else 3)
        local = SummaryCache(str(logs))
        local.reload()
        assert first_histogram(cache) == first_histogram(local) != old_histogram
    finally:
        source.close()


def test_a_file_first_read_by_a_loading_process_is_checked_too(tmp_path):
    logs = tmp_path / "logs"
    paths = [write_run(logs / f"run{i}", range(1, 101), 0.5, 1000.0 + i) for i in range(10)]  # a pool's pass
    cache = SummaryCache(str(logs), workers=2)
    try:
        cache.reload()
        shutil.copyfile(write_run(tmp_path / "other", range(1, 151), 2.0, 5000.0), paths[3])
        cache.reload()
    finally:
        cache.stop()
    assert loss(cache, "./run3") == NEW
    assert loss(cache, "./run4") == (list(range(1, 101)), [step * 0.5 for step in range(1, 101)])


def tensorboard_run(directory, steps, scale):
    from tensorboardX import SummaryWriter as TBWriter

    writer = TBWriter(str(directory), filename_suffix=".run")
    for step in steps:
        writer.add_scalar("loss", step * scale, step)
    writer.close()
    return next(Path(directory).glob("events.out.tfevents.*"))


def test_a_tensorboard_file_copied_over_by_a_longer_one_is_read_again(tmp_path):
    path = tensorboard_run(tmp_path / "logs" / "run", range(1, 101), 0.5)
    cache = SummaryCache(str(tmp_path / "logs"))
    cache.reload()
    assert loss(cache)[0] == list(range(1, 101))
    shutil.copyfile(tensorboard_run(tmp_path / "other", range(1, 151), 2.0), path)
    cache.reload()
    assert loss(cache) == NEW
