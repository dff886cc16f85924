"""A large object read by one GET streamed while it is scanned (`object_stream`), from a real
moto server behind a relay that records the requests and can cut an answer short."""
from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from s3help import Relay, relay, s3_client, s3_server  # noqa: F401 (fixtures)

from tui_insight.cli import main
from tui_insight.summary.formats.writer import SummaryWriter
from tui_insight.summary.sources.object_store import RECONNECTING, FsspecSource
from tui_insight.summary.sources.object_stream import STREAM_FROM
from tui_insight.summary.store.cache import SummaryCache

STEPS = 10
VALUES = 300_000  # float32s of each step's tensor: 1.2 MB an event, 12 MB in all

pytestmark = pytest.mark.usefixtures("s3_client")  # both S3 clients


def options(relay: Relay, **more) -> dict:
    return {"client_kwargs": {"endpoint_url": relay.endpoint}, "skip_instance_cache": True,
            "config_kwargs": {"retries": {"max_attempts": 1}, "connect_timeout": 2}, **more}


def big_run(tmp_path: Path, s3_server) -> tuple[str, Path]:
    """A run of one file past STREAM_FROM, uploaded: (its prefix, the local directory)."""
    writer = SummaryWriter(tmp_path / "run", timestamp=1)
    rng = np.random.default_rng(7)
    for step in range(1, STEPS + 1):
        writer.add_scalar("loss", 1.0 / step)
        writer.add_tensor("weights", rng.random(VALUES, dtype=np.float32))
        writer.record(step, wall_time=1000.0 + step)
    writer.close()
    assert writer.path.stat().st_size > STREAM_FROM
    prefix = f"{s3_server.bucket()}/logs"
    s3_server.upload(tmp_path, prefix)
    return prefix, writer.path


def steps_of(cache: SummaryCache) -> list[int]:
    return cache.job("./run").series("scalar", "loss").steps.tolist()


def test_a_large_file_is_one_presigned_get_and_reads_as_the_local_file(tmp_path, s3_server, relay):
    prefix, path = big_run(tmp_path, s3_server)
    local, remote = SummaryCache(str(tmp_path)), SummaryCache(FsspecSource(f"s3://{prefix}", options(relay)))
    local.reload(), remote.reload()
    assert remote.error == "" and steps_of(remote) == steps_of(local) == list(range(1, STEPS + 1))
    assert remote.job("./run").series("tensor", "weights").steps.tolist() == list(range(1, STEPS + 1))
    gets = relay.gets_of(path.name)
    assert len(gets) == 1  # the whole file by one request
    assert b"Signature=" in gets[0].split(b"\r\n")[0] and b"authorization:" not in gets[0].lower()  # presigned


def test_requester_pays_keeps_the_backends_own_reads(tmp_path, s3_server, relay):
    """A URL cannot carry the x-amz-request-payer header: such a filesystem reads through s3fs."""
    prefix, path = big_run(tmp_path, s3_server)
    cache = SummaryCache(FsspecSource(f"s3://{prefix}", options(relay, requester_pays=True)))
    cache.reload()
    assert cache.error == "" and steps_of(cache) == list(range(1, STEPS + 1))
    gets = relay.gets_of(path.name)
    assert gets and all(b"x-amz-request-payer: requester" in g.lower() for g in gets)


def test_a_body_cut_short_keeps_what_arrived_says_why_and_reads_on_later(tmp_path, s3_server, relay):
    prefix, path = big_run(tmp_path, s3_server)
    source = FsspecSource(f"s3://{prefix}", options(relay))
    cache = SummaryCache(source)
    relay.cut_after = 4 << 20  # the answer stops after about three of the ten steps
    cache.reload()
    kept = steps_of(cache)
    assert kept == list(range(1, len(kept) + 1)) and 1 <= len(kept) < STEPS  # what arrived, in order
    assert cache.job("./run").state.startswith("unreadable: the connection ended after ")
    assert source.status == RECONNECTING  # (the status line says so)
    relay.cut_after = None
    cache.reload()  # reads on from the last whole record: nothing lost, nothing read twice
    assert steps_of(cache) == list(range(1, STEPS + 1))
    assert cache.job("./run").series("tensor", "weights").steps.tolist() == list(range(1, STEPS + 1))
    assert source.status == "" and cache.job("./run").state == "ok"


def test_an_export_reads_its_payloads_from_the_streamed_file_with_no_more_requests(tmp_path, s3_server, relay):
    """The export decodes every tensor right after the load: from the bytes the load streamed."""
    prefix, path = big_run(tmp_path / "logs", s3_server)
    remote, local = tmp_path / "remote", tmp_path / "local"
    assert main([f"s3://{prefix}", "--export", "csv", "--out", str(remote),
                 "--storage-option", f"client_kwargs.endpoint_url={relay.endpoint}"]) == 0
    assert len(relay.gets_of(path.name)) == 1
    assert main([str(tmp_path / "logs"), "--export", "csv", "--out", str(local)]) == 0
    names = sorted(p.name for p in local.iterdir())
    assert "tensors.csv" in names and sorted(p.name for p in remote.iterdir()) == names
    for name in names:
        assert (remote / name).read_bytes() == (local / name).read_bytes(), name
