"""Built graphs kept in the user's cache directory, so opening a big graph again skips the build.

Building MindInsight's scope tree from a 50,000-node graph takes a second or more (every node's
fields read from protobuf, names resolved, copies and aggregations made); reading the graph
itself takes a tenth of that. So what the build made is kept as plain values
(`graph_build.graph_parts`), keyed by a hash of the bytes the graph was read from (its record, or
its .pb file) and the view (optimized or not): a graph found again, in the same file or in a copy of it, is put back together over the
graph read again (attributes and shapes are still read from it lazily) instead of built.

Entries sit beside the job snapshots (`snapshots/`, named `graph-<key>.snap`), so the same size
bound and least-recently-used cleanup cover them; a read refreshes an entry's mtime. They are
`marshal` data (plain values only, nothing that runs code) behind a magic, a format version,
the marshal version and a CRC-32C: a damaged entry or one of another version or Python is
deleted and the graph built again. Never inside LOGDIR (the cache's root is checked for that
by `SummaryCache`, which passes None then), never through a directory that is a symlink.
"""
from __future__ import annotations

import functools
import hashlib
import logging
import marshal
import os
import struct
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import google_crc32c

from ... import __version__
from ...proto import anf_ir_pb2
from ...user_dirs import private_dir
from .. import gc_policy
from ..formats import graph, graph_build
from ..formats.graph import Graph, read_graph
from ..formats.graph_build import build_graph, graph_from_parts, graph_parts

FORMAT = 1
MAGIC = b"TUIGRPH\x00"
_PREFIX = struct.Struct("<8sIIII")  # magic, format, marshal version, python minor version, crc32c
# Keeping a build costs about half of building it again (once); putting it back, a third to
# a fifth. Graphs built faster than this are not worth an entry.
KEEP_OVER_SECONDS = 0.2
log = logging.getLogger(__name__)


@functools.lru_cache(maxsize=1)
def _builder_code() -> bytes:
    """A kept build is only as good as the code that made it: entries are keyed by the bytes of
    graph.py and graph_build.py too, so a change to the build never meets an entry an older
    build made."""
    try:
        return hashlib.sha256(b"".join(Path(str(module.__file__)).read_bytes() for module in (graph, graph_build))).digest()
    except OSError:  # not a plain file (a zip): the package's version
        return __version__.encode()


def entry_path(root: Path, data: bytes, optimized: bool) -> Path:
    """Where the build of the graph read from `data` (its record, or its .pb file) is kept: by a
    hash of those bytes, so a graph is found again whatever file it sits in."""
    digest = hashlib.sha256(_builder_code())
    digest.update(data)
    digest.update(b"optimized" if optimized else b"full")
    return Path(root) / "snapshots" / f"graph-{digest.hexdigest()[:40]}.snap"


def built_graph(source: Any, optimized: bool, files: Any = None, root: str | os.PathLike | None = None,
                keep_over: float = KEEP_OVER_SECONDS) -> Graph:
    """`build_graph(load_graph(source, files), optimized)`, through the cache under `root`
    (None: no cache); a build is kept when it took `keep_over` seconds or more. Raises
    GraphError as those do."""
    proto, data = read_graph(source, files)
    path = entry_path(Path(root), data, optimized) if root is not None else None
    if path is None or not _private(path.parent):
        return build_graph(proto, optimized)
    del data
    graph = load(path, proto)
    if graph is None:
        started = time.perf_counter()
        graph = build_graph(proto, optimized)
        if time.perf_counter() - started >= keep_over:
            save(path, graph)
    return graph


def encode(graph: Graph) -> bytes:
    with gc_policy.paused():  # a tuple per node, no cycles
        body = marshal.dumps(graph_parts(graph))
    return _PREFIX.pack(MAGIC, FORMAT, marshal.version, sys.version_info[1], google_crc32c.value(body)) + body


def decode(data: bytes, proto: anf_ir_pb2.GraphProto) -> Graph:
    """ValueError when `data` is damaged, of another version, or does not fit `proto`."""
    if len(data) < _PREFIX.size:
        raise ValueError("cut short")
    magic, version, marshal_version, minor, crc = _PREFIX.unpack_from(data)
    if (magic, version, marshal_version, minor) != (MAGIC, FORMAT, marshal.version, sys.version_info[1]):
        raise ValueError("another format")
    body = data[_PREFIX.size:]
    if google_crc32c.value(body) != crc:
        raise ValueError("damaged")
    with gc_policy.paused():  # tens of thousands of nodes and dicts, no cycles: GC passes would double the time
        try:
            return graph_from_parts(marshal.loads(body), proto)
        except (EOFError, TypeError, IndexError, KeyError) as exc:  # well-formed marshal, wrong shape
            raise ValueError(f"not a kept graph ({exc})") from exc


def load(path: Path, proto: anf_ir_pb2.GraphProto) -> Graph | None:
    """The kept build at `path`, or None (none kept; a bad entry is deleted)."""
    try:
        data = path.read_bytes()
    except OSError:
        return None
    try:
        graph = decode(data, proto)
    except ValueError as exc:
        log.info("dropping the kept graph %s: %s", path.name, exc)
        _remove(path)
        return None
    try:
        os.utime(path)  # used now: the last to go in a cleanup
    except OSError:
        pass
    return graph


def save(path: Path, graph: Graph) -> bool:
    """Keep `graph` (just built: nothing looked at yet) at `path`; False when it cannot be written."""
    data = encode(graph)
    tmp = None
    try:
        private_dir(path.parent)
        fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=".tmp-graph-", suffix=".snap")
        with os.fdopen(fd, "wb") as fh:
            fh.write(data)
        os.replace(tmp, path)
        return True
    except OSError as exc:
        if tmp is not None:
            _remove(Path(tmp))
        log.warning("cannot keep the built graph in %s: %s", path.parent, exc.strerror or exc)
        return False


def _private(directory: Path) -> bool:
    """The entries' directory is private and ours (`user_dirs.private_dir`): never read, written
    or deleted in through a symlink."""
    try:
        private_dir(directory)
        return True
    except OSError as exc:
        log.warning("built graphs are not kept: %s", exc.strerror or exc)
        return False


def _remove(path: Path) -> None:
    try:
        path.unlink()
    except OSError:
        pass
