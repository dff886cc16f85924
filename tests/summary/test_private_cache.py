"""The disk cache never reads, writes or deletes through a directory of its own that is a symlink:
a `snapshots` (or the whole cache directory) planted in a shared place is refused, and the logs
are read without the cache, in full."""
from __future__ import annotations

import os
import stat

from sweep_logs import contents, loaded_reference, write_sweep
from test_graph_cache import _job_with_graph, everything, hand_made_graphs

from tui_insight.summary.formats.graph import read_graph
from tui_insight.summary.formats.graph_build import build_graph
from tui_insight.summary.store import graph_cache
from tui_insight.summary.store.cache import SummaryCache
from tui_insight.summary.store.disk_cache import DiskCache


def victim(tmp_path):
    """A directory of someone else's files, named the way cache entries are."""
    target = tmp_path / "victim"
    target.mkdir()
    for name in ("a" * 40 + ".snap", "notes.snap", "graph-" + "b" * 40 + ".snap"):
        (target / name).write_bytes(b"precious")
    return target, sorted(p.name for p in target.iterdir())


def loaded(logs, disk) -> SummaryCache:
    cache = SummaryCache(str(logs), disk_cache=disk)
    cache.reload()
    return cache


def test_a_planted_snapshots_symlink_is_never_written_to_or_cleaned(tmp_path):
    logs = tmp_path / "logs"
    write_sweep(logs, 3)
    target, names = victim(tmp_path)
    root = tmp_path / "cache"
    root.mkdir()
    (root / "snapshots").symlink_to(target)
    disk = DiskCache(root, max_bytes=1)  # every write would clean up: delete the entries used longest ago
    cache = loaded(logs, disk)
    assert "is a symlink" in disk.refused()
    reference = loaded_reference(logs)
    assert list(cache.jobs) == list(reference.jobs)  # read in full, without the cache
    assert all(contents(cache.details(tid)) == contents(reference.job(tid)) for tid in reference.jobs)
    disk.cleanup()
    assert disk.size() == 0
    assert sorted(p.name for p in target.iterdir()) == names
    assert all(p.read_bytes() == b"precious" for p in target.iterdir())


def test_a_cache_directory_that_is_a_symlink_is_refused(tmp_path):
    logs = tmp_path / "logs"
    write_sweep(logs, 2)
    target, names = victim(tmp_path)
    (tmp_path / "cache").symlink_to(target)
    disk = DiskCache(tmp_path / "cache")
    cache = loaded(logs, disk)
    assert "is a symlink" in disk.refused() and len(cache.jobs) == 2
    assert sorted(p.name for p in target.iterdir()) == names


def test_the_cache_directories_are_private(tmp_path):
    logs = tmp_path / "logs"
    write_sweep(logs, 2)
    root = tmp_path / "cache"
    root.mkdir(mode=0o755)
    disk = DiskCache(root)
    loaded(logs, disk)
    assert disk.refused() == ""
    for directory in (root, root / "snapshots", root / "index"):
        assert stat.S_IMODE(os.lstat(directory).st_mode) == 0o700, directory
    entries = list((root / "snapshots").iterdir())
    assert entries and all(stat.S_IMODE(p.stat().st_mode) == 0o600 for p in entries)


def test_a_built_graph_is_not_kept_through_a_planted_symlink(tmp_path):
    proto = next(graph for name, graph in hand_made_graphs() if name == "aggregation")
    cache = _job_with_graph(tmp_path / "logs", proto)
    source = next(iter(cache.job("./run").graphs.values()))
    target, names = victim(tmp_path)
    root = tmp_path / "cache"
    root.mkdir()
    (root / "snapshots").symlink_to(target)
    built = graph_cache.built_graph(source, False, root=root, keep_over=0)
    assert everything(built) == everything(build_graph(read_graph(source)[0], False))
    assert sorted(p.name for p in target.iterdir()) == names
