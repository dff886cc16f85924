"""A cache index (or entry, or kept graph) whose CRC is valid but whose values are of the wrong
types, or out of range, is never used: that header is dropped (the index written again without
it) and the job is read from its entry or its files, at this start and every later one; the
graph is built again."""
from __future__ import annotations

import json
import marshal
import struct
from pathlib import Path

import google_crc32c
import pytest

from tui_insight.summary.formats.graph_build import build_graph
from tui_insight.summary.formats.writer import SummaryWriter, make_graph
from tui_insight.summary.store import graph_cache
from tui_insight.summary.store.cache import SummaryCache
from tui_insight.summary.store.disk_cache import DiskCache
from tui_insight.summary.store.snapshot import FILE_FIELDS, PREFIX, listed

INDEX_PREFIX = struct.Struct("<8sII")  # magic, snapshot format version, crc32c of the marshal that follows
FILE_AT = {name: i for i, name in enumerate(FILE_FIELDS)}
GRAPH_PREFIX = struct.Struct("<8sIIII")  # magic, format, marshal version, Python minor version, crc32c


def write_logs(logs: Path) -> None:
    for i in range(2):
        writer = SummaryWriter(logs / f"run{i}", timestamp=1)
        for step in range(1, 31):
            writer.add_scalar("loss", step * (i + 1.0))
            writer.record(step, wall_time=1000.0 + step)
        writer.close()


def index_file(cache_root: Path) -> Path:
    return next((cache_root / "index").iterdir())


def read_index(path: Path) -> tuple[bytes, tuple]:
    data = path.read_bytes()
    return data[:INDEX_PREFIX.size], marshal.loads(data[INDEX_PREFIX.size:])


def write_index(path: Path, prefix: bytes, content: tuple) -> None:
    magic, version, _ = INDEX_PREFIX.unpack(prefix)
    body = marshal.dumps(content)
    path.write_bytes(INDEX_PREFIX.pack(magic, version, google_crc32c.value(body)) + body)


def rows(cache: SummaryCache) -> dict:
    """What the job list shows of each job (listed from a header where one was used)."""
    return {tid: (view.state, view.records, view.bad_records, view.last_step, view.problems)
            for tid, view in cache.jobs.items()}


def contents(cache: SummaryCache) -> dict:
    return {tid: cache.details(tid).series("scalar", "loss").values.tolist() for tid in cache.jobs}


def a_file_field(name, value):
    def change(header: tuple) -> tuple:
        files = [tuple(value if i == FILE_AT[name] else v for i, v in enumerate(f)) for f in header[1]]
        return (header[0], files, *header[2:])
    return change


def a_header_field(at, value):
    return lambda header: (*header[:at], value, *header[at + 1:])


CHANGES = {
    "a file name that is a list": a_file_field("name", [1]),
    "an offset that is text": a_file_field("end", "x"),
    "a negative offset": a_file_field("end", -1),
    "a float offset": a_file_field("end", 1.5),
    "an inode of one number": a_file_field("inode", [1]),
    "a record count that is None": a_file_field("bad_records", None),
    "tag counts that are a list": a_header_field(2, [1]),
    "problems that are numbers": a_header_field(5, [1, 2]),
    "a last step that is text": a_header_field(8, "x"),
}


@pytest.mark.parametrize("change", list(CHANGES))
def test_an_index_header_of_wrong_types_is_dropped_and_the_job_read_again(tmp_path, change):
    logs, root = tmp_path / "logs", tmp_path / "cache"
    write_logs(logs)
    plain = SummaryCache(str(logs))
    plain.reload()
    SummaryCache(str(logs), disk_cache=DiskCache(root)).reload()
    path = index_file(root)
    prefix, (where, listings, jobs) = read_index(path)
    job = str(logs / "run0")
    jobs[job] = CHANGES[change](jobs[job])
    write_index(path, prefix, (where, listings, jobs))
    for _ in range(2):  # this start, which writes the index again, and the next
        cache = SummaryCache(str(logs), disk_cache=DiskCache(root))
        cache.reload()
        assert rows(cache) == rows(plain)
        assert contents(cache) == contents(plain) and len(contents(plain)) == 2
    _, (_, _, jobs) = read_index(index_file(root))
    assert all(listed(header).path == path for path, header in jobs.items())


@pytest.mark.parametrize("field,value", [("end", -1), ("records", -5)])
def test_an_entry_of_wrong_types_is_dropped_and_the_job_read_again(tmp_path, field, value):
    logs, root = tmp_path / "logs", tmp_path / "cache"
    write_logs(logs)
    plain = SummaryCache(str(logs))
    plain.reload()
    SummaryCache(str(logs), disk_cache=DiskCache(root)).reload()
    for index in (root / "index").iterdir():
        index.unlink()  # the jobs are listed from their entries
    for entry in (root / "snapshots").iterdir():
        data = entry.read_bytes()
        magic, version, head_len, _, details_crc = PREFIX.unpack_from(data)
        head = data[PREFIX.size:PREFIX.size + head_len]
        json_len = struct.unpack_from("<I", head)[0]
        header = json.loads(head[4:4 + json_len])
        for f in header["files"]:
            f[field] = value
        text = json.dumps(header, separators=(",", ":")).encode()
        head = struct.pack("<I", len(text)) + text + head[4 + json_len:]
        entry.write_bytes(PREFIX.pack(magic, version, len(head), google_crc32c.value(head), details_crc)
                          + head + data[PREFIX.size + head_len:])
    for _ in range(2):
        cache = SummaryCache(str(logs), disk_cache=DiskCache(root))
        cache.reload()
        assert rows(cache) == rows(plain)
        assert contents(cache) == contents(plain)


@pytest.mark.parametrize("change", ["a node name that is a number", "a shape that is text", "problems that are numbers",
                                    "a node that is a list", "a negative snapshot index"])
def test_a_kept_graph_of_wrong_types_is_dropped_and_built_again(tmp_path, change):
    proto = make_graph([{"name": "1", "op_type": "Conv2D", "scope": "Default/net", "inputs": ["x"], "shape": [1, 4]},
                        {"name": "2", "op_type": "ReLU", "scope": "Default/net", "inputs": ["1"], "shape": [1, 4]}],
                       [{"name": "x", "shape": [1, 3]}])
    fresh = build_graph(proto)
    data = graph_cache.encode(fresh)
    prefix = GRAPH_PREFIX
    magic, version, marshal_version, minor, _ = prefix.unpack_from(data)
    parts = list(marshal.loads(data[prefix.size:]))
    rows = parts[3]
    if change == "a node name that is a number":
        rows[0] = (5, *rows[0][1:])
    elif change == "a shape that is text":
        rows[0] = (*rows[0][:14], "1x4", *rows[0][15:])
    elif change == "problems that are numbers":
        parts[1] = (1,)
    elif change == "a node that is a list":
        rows[0] = list(rows[0])
    else:
        parts[7] = [-1]
    body = marshal.dumps(tuple(parts))
    path = tmp_path / "snapshots" / "graph-x.snap"
    path.parent.mkdir()
    path.write_bytes(prefix.pack(magic, version, marshal_version, minor, google_crc32c.value(body)) + body)
    assert graph_cache.load(path, proto) is None and not path.exists()
