"""An object store that stops answering (a hung gateway, a stalled link): each request ends past
its deadline (`remote_limits`) with a clear line, instead of waiting on the backend's own timeouts.
The store is a real moto server behind a relay that can stop passing its answers on."""
from __future__ import annotations

from pathlib import Path

import pytest
from s3help import Relay, relay, s3_client, s3_server  # noqa: F401 (fixtures)

from tui_insight.cli import main
from tui_insight.summary.formats.writer import SummaryWriter
from tui_insight.summary.sources.local import SourceError
from tui_insight.summary.sources.object_store import RECONNECTING, FsspecSource
from tui_insight.summary.sources.remote_limits import RequestLimits

QUICK = RequestLimits(timeout=1)

pytestmark = pytest.mark.usefixtures("s3_client")  # both S3 clients


def options(relay: Relay) -> dict:
    return {"client_kwargs": {"endpoint_url": relay.endpoint}, "skip_instance_cache": True,
            "config_kwargs": {"retries": {"max_attempts": 1}, "connect_timeout": 2}}


def logs(tmp_path: Path, s3_server) -> str:
    writer = SummaryWriter(tmp_path / "run", timestamp=1)
    for step in range(1, 21):
        writer.add_scalar("loss", 1.0 / step)
        writer.record(step, wall_time=1000.0 + step)
    writer.close()
    prefix = f"{s3_server.bucket()}/logs"
    s3_server.upload(tmp_path, prefix)
    return prefix


def test_a_store_that_stops_answering_fails_each_request_past_its_deadline(tmp_path, s3_server, relay):
    prefix = logs(tmp_path, s3_server)
    source = FsspecSource(f"s3://{prefix}", options(relay), limits=QUICK)
    found = source.discover({})
    assert list(found.jobs) == ["./run"]
    path = f"{source.root}/run/" + found.jobs["./run"].summary_files[0]
    assert source.read(path, 0, 8)  # answered through the relay
    relay.hang.set()
    with pytest.raises(OSError, match=r"no answer in 1 s"):
        source.open_range(path, 0, 16)
    assert source.status == RECONNECTING
    assert source.discover({}) is found  # a reload keeps what was found, and says it is reconnecting


def test_a_first_listing_that_never_comes_is_one_clear_line(tmp_path, s3_server, relay, capsys, monkeypatch):
    prefix = logs(tmp_path, s3_server)
    relay.hang.set()
    with pytest.raises(SourceError, match=r"no answer in \d+ s"):
        FsspecSource(f"s3://{prefix}", options(relay), limits=RequestLimits(max_listing=64 << 10, timeout=1)).discover({})
    monkeypatch.setenv("TUI_INSIGHT_SSH_MAX_LISTING", "64K")  # the first listing's time: 1 s + 1 s for 64K
    status = main([f"s3://{prefix}", "--summary", "--remote-timeout", "1",
                   "--storage-option", f"client_kwargs.endpoint_url={relay.endpoint}"])
    err = capsys.readouterr().err
    assert status == 2 and "no answer in" in err and "Traceback" not in err
