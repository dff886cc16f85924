"""Special files named like log files (a FIFO, /dev/null, symlink loops) on every loading path:
nothing blocks, they are not read as data, and the jobs beside them load whole."""
from __future__ import annotations

import os
import threading
from pathlib import Path

import numpy as np
import pytest
from hostile_logs import add_special_files

from tui_insight.export import export_snapshot
from tui_insight.summary.formats.graph import GraphError, load_graph
from tui_insight.summary.formats.values import PayloadError
from tui_insight.summary.formats.writer import SummaryWriter, make_graph, write_pb_graph
from tui_insight.summary.queries.tensors import tensor_at
from tui_insight.summary.store.cache import SummaryCache

WAIT = 10.0  # seconds a call may take before it counts as blocked


def finished(call, *args, **kwargs):
    """`call(*args)` in a thread; fails the test if it is still running after WAIT seconds
    (a blocked open of a FIFO), else returns its result or raises its exception."""
    out: dict = {}

    def run():
        try:
            out["value"] = call(*args, **kwargs)
        except BaseException as exc:  # handed to the test below
            out["error"] = exc

    thread = threading.Thread(target=run, daemon=True)
    thread.start()
    thread.join(WAIT)
    assert not thread.is_alive(), f"{getattr(call, '__name__', call)} blocked"
    if "error" in out:
        raise out["error"]
    return out["value"]


def write_job(directory: Path) -> Path:
    with SummaryWriter(directory, timestamp=1_700_000_000, wall_time=1.0) as writer:
        for step in (1, 2, 3):
            writer.add_scalar("loss", 1.0 / step)
            writer.add_tensor("w", np.arange(6.0).reshape(2, 3) * step)
            writer.record(step, wall_time=1.0 + step)
    write_pb_graph(directory / "net.pb", make_graph([{"name": "1", "op_type": "ReLU", "scope": "Default",
                                                       "full_name": "Default/ReLU-op1"}]))
    return directory


@pytest.fixture
def logdir(tmp_path: Path) -> Path:
    root = tmp_path / "logs"
    write_job(root / "a")
    write_job(root / "b")
    add_special_files(root / "a")
    (root / "only_special").mkdir()
    add_special_files(root / "only_special")
    return root


def test_special_files_are_skipped_and_the_jobs_beside_them_load(logdir, tmp_path):
    cache = SummaryCache(str(logdir))
    finished(cache.reload)
    assert sorted(cache.jobs) == ["./a", "./b"]  # files that are not regular make no job
    a, b = cache.job("./a"), cache.job("./b")
    assert a.state == b.state == "ok"
    assert a.summary_files == b.summary_files and a.graph_files == ("net.pb",)
    assert len(a.series("scalar", "loss")) == 3 and a.records == b.records
    # a change notice naming them reads nothing from them either
    changed = [str(path) for path in (logdir / "a").iterdir()]
    finished(cache.reload_changed, changed)
    assert cache.job("./a").state == "ok"
    for all_steps in (False, True):
        out = tmp_path / f"out-{all_steps}"
        result = finished(export_snapshot, cache, out, all_steps=all_steps)
        assert result.rows["scalars"] == 6 and result.rows["tensors"] == 6


def test_a_log_file_turned_into_a_fifo_after_discovery_is_unreadable_not_a_hang(logdir):
    cache = SummaryCache(str(logdir))
    assert finished(cache.discover_jobs) == ["./a", "./b"]
    victim = next((logdir / "a").glob("*localhost_MS"))
    victim.unlink()
    os.mkfifo(victim)
    view = finished(cache.load_job, "./a")
    assert view.state == "unreadable: not a regular file"
    assert finished(cache.load_job, "./b").state == "ok"


def test_payloads_and_graphs_whose_file_became_a_fifo_say_so(logdir):
    cache = SummaryCache(str(logdir))
    finished(cache.reload)
    view = cache.job("./a")
    source = view.graphs["net.pb"]
    for path in (Path(view.files[0]), Path(source.path)):
        path.unlink()
        os.mkfifo(path)
    with pytest.raises(PayloadError, match="not a regular file"):
        finished(tensor_at, cache, view, "w", 0)
    with pytest.raises(GraphError, match="not a regular file"):
        finished(load_graph, source)
