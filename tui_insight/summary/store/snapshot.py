"""A job's loaded state as bytes and back: what the disk cache keeps and the loading processes return.

A snapshot holds what a job's loader needs to go on reading where it stopped: per summary or
TensorBoard file its identity, kind and how far it was read, the TensorBoard hparams records (in
the header: the lineage table lists a job from the header alone), each tag's series (its candidates, and which of them are
the kept steps), the tags left out under the tag limits, graphs, the first wall time,
problems and the event count, and what the job holds that no view shows. It also holds what the job list shows (digests, the newest step),
so a job can be listed from the header alone and its series read only when it is opened.
The digests' numbers are binary columns, not JSON: parsing a few hundred floats per job as
text was most of the cost of listing 5,000 jobs from the cache.

Layout (little-endian), with no pickle anywhere, so a cache file can never run code:

    magic (8) | version u32 | header length u32 | crc32c(header) u32 | crc32c(details) u32
    header: JSON length u32 | JSON, what listing the job needs (files, counts, graphs,
            problems, digest tags) | the digests' numbers (a `_DIGEST_ROW` each)
    details: table length u32 | table: JSON (each tag's series and where its arrays are)
             | arrays: the raw bytes of every series column, one after another

Integer columns are stored in the smallest integer type that holds their values and float64
columns as float32 when every value is exactly a float32 (scalars are written as float32), so
an entry is about half the size of the arrays in memory. Anything damaged, or written by
another version, raises `SnapshotError`: callers treat it as "no snapshot".
"""
from __future__ import annotations

import json
import operator
import struct
import sys
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field, fields
from typing import TYPE_CHECKING, Any

import google_crc32c
import numpy as np

from .digest import SPARK_POINTS, TagDigest
from .not_shown import NOTHING, NotShown
from .series import Series

if TYPE_CHECKING:
    from ..formats.custom_scalars import Layout
    from ..formats.tensorboard import HParams

FORMAT_VERSION = 10  # 3: file kinds (summary or TensorBoard), TensorBoard hparams; 4: digests as binary rows;
# 5: what the job holds that no view shows (`not_shown.NotShown`); 6: image samples per step;
# 7: each file's first bytes (a file replaced under its name is read again); 8: custom scalar layouts;
# 9: TensorBoard's op graphs, Keras graphs and tagged run metadata (a graph's value index);
# 10: a column whose bytes an earlier tag already stored (the shared step and wall-time columns)
# points at that copy instead of storing its own
MAGIC = b"TUISNAP\x00"
PREFIX = struct.Struct("<8sIIII")  # magic, version, header length, header crc, details crc
_U32 = struct.Struct("<I")
MAX_HEADER = 64 << 20

TagKey = tuple[str, str]

# A summary file's state (the loader's `FileState`), field by field, with its JSON type.
FILE_FIELDS = {"name": str, "fid": int, "end": int, "size": int, "inode": list, "records": int,
               "bad_records": int, "tail_bytes": int, "error": str, "mtime": float, "kind": str,
               "head": str}
# A graph (`cache.GraphSource`).
GRAPH_FIELDS = {"tag": str, "kind": str, "path": str, "offset": int, "step": int, "wall_time": float, "index": int}
_FILE_TYPES = tuple(FILE_FIELDS.values())
_GRAPH_TYPES = tuple(GRAPH_FIELDS.values())
_INODE_AT = list(FILE_FIELDS).index("inode")
_counts_of = operator.itemgetter(*(i for i, kind in enumerate(_FILE_TYPES) if kind is int))  # never negative
_STR, _INT = {str}, {int}
# `listing`'s fields' types: (path, files, tag counts, graphs, first wall time, problems, tags,
# digest block, last step, hparams, what the job holds unshown, custom scalars layout)
_LISTING_TYPES = {(str, list, dict, list, wall, list, list, bytes, step, list, account, layout)
                  for wall in (float, type(None)) for step in (int, type(None)) for account in (dict, type(None))
                  for layout in (list, type(None))}
_STORED = ("int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64", "float32", "float64")
_COLUMN_TYPES = {"step": "int64", "wall_time": "float64", "fid": "int32", "value": "float64",
                 "offset": "int64", "index": "int32", "samples": "int32",
                 "kept": "int64"}  # kept: indices of the kept candidates
_DIGEST_FIELDS = [(f.name, str(f.type)) for f in fields(TagDigest)]  # (annotations are text here)
_DIGEST_NAMES = [name for name, _ in _DIGEST_FIELDS]
_JSON = json.JSONDecoder()  # (json.loads of bytes first guesses their encoding: thousands of headers at a start)
# Its scanner (C) without the Python around it, for thousands of headers at a start (an
# attribute `JSONDecoder.__init__` sets, which the stubs do not declare).
_SCAN = _JSON.scan_once  # type: ignore[attr-defined]


class SnapshotError(Exception):
    """A snapshot that cannot be used: damaged, cut short or of another format version."""


@dataclass
class JobSnapshot:
    """A job's loaded state, as kept between runs and handed over by the loading processes."""

    path: str  # the job directory it describes
    files: list[dict]  # FILE_FIELDS of each summary file
    tag_keys: list[TagKey]  # every tag, first-seen order (empty when only the header was read)
    series: dict[TagKey, Series]  # the tags' series (empty when only the header was read)
    evicted: list[TagKey] = field(default_factory=list)  # tags left out under the tag limits
    graphs: list[dict] = field(default_factory=list)  # GRAPH_FIELDS of each graph
    first_wall_time: float | None = None
    problems: list[str] = field(default_factory=list)
    seq: int = 0  # events read
    digests: Mapping[str, TagDigest] = field(default_factory=dict)  # scalar tag -> digest (`StoredDigests` when read)
    last_step: int | None = None
    tag_counts: dict[str, int] = field(default_factory=dict)  # plugin -> tags (filled in on reading)
    detailed: bool = True  # False: read from the header only (`series` is empty)
    hparams: list[HParams] = field(default_factory=list)  # TensorBoard hparams records (lineage)
    not_shown: NotShown = NOTHING  # what the job holds that no view shows (in the header: the job list marks it)
    custom_scalars: Layout | None = None  # the job's custom scalars layout (in the header: the dashboard's tab)


# -- writing ------------------------------------------------------------------------------------

def encode(snapshot: JobSnapshot) -> bytes:
    """The snapshot as bytes (its series must be there: `detailed`)."""
    return b"".join(encode_pieces(snapshot))


def encode_pieces(snapshot: JobSnapshot) -> list[bytes]:
    """`encode`'s bytes in pieces, to be written one after the other: the prefix and header
    first (`header_end` bytes), then the details' table and each stored column. A loading
    process writes them as they are: joining a sweep run's 110 kB twice cost ~20 us a job."""
    chunks: list[bytes] = []
    at = 0
    # Each distinct column once: (dtype, its size, its CRC-32C) -> (bytes, where they are) of the
    # columns stored with those (the CRC a quarter of the cost of hashing the bytes themselves;
    # bytes that share one are compared whole).
    stored_at: dict[tuple[str, int, int], list[tuple[bytes, int]]] = {}
    # The tags of a block share their step, wall time and file columns as one array each: such
    # an array is compacted and compared once (id -> (dtype, where); `held` keeps each array
    # seen alive, so no other takes its id meanwhile).
    seen: dict[int, tuple[str, int]] = {}
    held: list[np.ndarray] = []
    # Which candidates are kept, by the ids of (candidate steps, kept steps): tags sharing
    # those columns share it too, found and compacted once (the snapshot holds both meanwhile).
    kept_of: dict[tuple[int, int], np.ndarray] = {}
    tags = []
    with np.errstate(over="ignore"):  # (a value past float32's range: kept as float64 by `_compact`)
        for key in snapshot.tag_keys:
            series = snapshot.series[key]
            arrays = dict(series.candidates)
            if len(series) != len(series.candidates["step"]):  # which candidates are kept (steps are unique)
                pair = (id(series.candidates["step"]), id(series.steps))
                kept = kept_of.get(pair)
                if kept is None:
                    kept = kept_of[pair] = np.searchsorted(series.candidates["step"], series.steps)
                arrays["kept"] = kept
            columns = []
            for name, col in arrays.items():
                known = seen.get(id(col))
                if known is None:
                    stored = _compact(col)
                    little = _LITTLE and stored.dtype.byteorder != ">"  # (no conversion to write)
                    data = (stored if little else stored.astype(stored.dtype.newbyteorder("<"))).tobytes()
                    dtype = _dtype_name(stored.dtype)
                    alike = stored_at.setdefault((dtype, len(data), google_crc32c.value(data)), [])
                    where = next((where for other, where in alike if other == data), -1)
                    if where < 0:  # not stored before
                        where = at
                        alike.append((data, at))
                        chunks.append(data)
                        at += len(data)
                    known = seen[id(col)] = (dtype, where)
                    held.append(col)
                columns.append([name, known[0], len(col), known[1]])
            tags.append({"key": list(key), "limit": series.limit, "width": series.width, "seen": series.seen,
                         "nonfinite": series.nonfinite, "columns": columns})
    counts: dict[str, int] = {}
    for plugin, _ in snapshot.tag_keys:
        counts[plugin] = counts.get(plugin, 0) + 1
    header = {
        "path": snapshot.path,
        "files": snapshot.files,
        "tag_counts": counts,
        "graphs": snapshot.graphs,
        "first_wall_time": snapshot.first_wall_time,
        "problems": snapshot.problems,
        "digests": {"tags": list(snapshot.digests), "fields": _DIGEST_NAMES},
        "last_step": snapshot.last_step,
        "hparams": [[h.kind, h.hparams, [list(m) for m in h.metrics], h.group, h.status, h.time]
                    for h in snapshot.hparams],
        "not_shown": snapshot.not_shown.to_json(),
        "custom_scalars": _layout_json(snapshot.custom_scalars),
    }
    table = {"tags": tags, "evicted": [list(key) for key in snapshot.evicted], "seq": snapshot.seq}
    head_json = json.dumps(header, separators=(",", ":")).encode()
    head = _U32.pack(len(head_json)) + head_json + _digest_block(list(snapshot.digests.values()))
    table_bytes = _table_json(table)
    table_head = _U32.pack(len(table_bytes)) + table_bytes
    details_crc = google_crc32c.value(table_head)
    for chunk in chunks:
        details_crc = google_crc32c.extend(details_crc, chunk)
    prefix = PREFIX.pack(MAGIC, FORMAT_VERSION, len(head), google_crc32c.value(head), details_crc)
    return [prefix + head, table_head, *chunks]


def _table_json(table: dict) -> bytes:
    """`json.dumps(table, separators=(",", ":")).encode()`, by orjson where that is the same
    bytes: the table holds ints and strings only, which both write alike when all are ASCII
    but DEL (json escapes it and any other non-ASCII character; orjson writes them as UTF-8).
    A sweep run's table of 12 tags: 150 -> 10 us. (orjson is imported at the first entry, not
    with this module: ~9 ms of a start that lists from the cache; loading processes start with
    it imported, `pool._context`.)"""
    import orjson

    try:
        data = orjson.dumps(table)
    except TypeError:  # (an int past 64 bits: json writes it)
        data = b"\x7f"
    if data.isascii() and b"\x7f" not in data:
        return data
    return json.dumps(table, separators=(",", ":")).encode()


_DTYPE_NAMES: dict[np.dtype, str] = {}


def _dtype_name(dtype: np.dtype) -> str:
    """`dtype.name`, remembered (numpy works it out in Python at each call: 60 a job)."""
    name = _DTYPE_NAMES.get(dtype)
    if name is None:
        name = _DTYPE_NAMES[dtype] = dtype.name
    return name


_LITTLE = sys.byteorder == "little"  # (columns are stored little-endian: native ones as they are, here)
_SMALL_INTS = [(t, np.dtype(t).itemsize, int(np.iinfo(t).min), int(np.iinfo(t).max)) for t in (np.int8, np.int16, np.int32)]


def _compact(col: np.ndarray) -> np.ndarray:
    """`col` in the smallest type that gives back exactly the same values (under `encode`'s
    errstate: a float64 past float32's range overflows quietly, and is kept)."""
    if not len(col):
        return col
    if col.dtype.kind in "iu":
        lo, hi = int(col.min()), int(col.max())
        for small, size, low, high in _SMALL_INTS:
            if size >= col.dtype.itemsize:
                break
            if low <= lo and hi <= high:
                return col.astype(small)
    elif col.dtype == np.float64:
        single = col.astype(np.float32)  # (a value past float32's range: kept as float64 below)
        if bool((single.astype(np.float64).view(np.int64) == col.view(np.int64)).all()):
            return single
    return col


# -- reading ------------------------------------------------------------------------------------

def header_end(prefix: bytes) -> int:
    """How many bytes from the start hold the prefix and the header (for reading only those)."""
    return PREFIX.size + _prefix(prefix)[1]


def decode(data: bytes, details: bool = True) -> JobSnapshot:
    """The snapshot in `data`; with `details=False` only the header is read (`data` may stop
    after it: `header_end`) and the series are left out."""
    version, head_len, head_crc, details_crc = _prefix(data)
    head = data[PREFIX.size:PREFIX.size + head_len]
    if len(head) < head_len or google_crc32c.value(head) != head_crc:
        raise SnapshotError("damaged header")
    rest = data[PREFIX.size + head_len:] if details else None
    if rest is not None and google_crc32c.value(rest) != details_crc:
        raise SnapshotError("damaged details")
    try:
        json_len = _U32.unpack_from(head)[0]
        _expect(_U32.size + json_len <= len(head), "header length")
        snapshot = _listed(_json_object(head[_U32.size:_U32.size + json_len].decode()), head[_U32.size + json_len:])
        if rest is not None:
            table_len = _U32.unpack_from(rest)[0]
            _details(snapshot, json.loads(rest[_U32.size:_U32.size + table_len]), rest[_U32.size + table_len:])
        return snapshot
    except SnapshotError:
        raise
    except (ValueError, TypeError, KeyError, IndexError, AttributeError, OverflowError, struct.error) as exc:
        raise SnapshotError(f"malformed: {type(exc).__name__}: {exc}") from exc


def _json_object(text: str) -> dict:
    """The JSON object `text` holds (written by `encode`: no white space around it)."""
    try:
        value, end = _SCAN(text, 0)
    except StopIteration as exc:
        raise ValueError("not JSON") from exc
    _expect(end == len(text) and type(value) is dict, "header")
    return value


def _prefix(data: bytes) -> tuple[int, int, int, int]:
    if len(data) < PREFIX.size:
        raise SnapshotError("cut short")
    magic, version, head_len, head_crc, details_crc = PREFIX.unpack_from(data)
    if magic != MAGIC:
        raise SnapshotError("not a snapshot")
    if version != FORMAT_VERSION:
        raise SnapshotError(f"format version {version}, not {FORMAT_VERSION}")
    if head_len > MAX_HEADER:
        raise SnapshotError("header too long")
    return version, head_len, head_crc, details_crc


def _listed(header: dict, digest_block: bytes) -> JobSnapshot:
    """The snapshot as far as the header says: enough to list the job (`detailed` False)."""
    files = [_record(f, FILE_FIELDS) for f in header["files"]]
    for f in files:
        _expect(_file_ok(tuple(f[name] for name in FILE_FIELDS)), "file")
    counts = header["tag_counts"]
    _expect({type(k) for k in counts} <= {str} and {type(n) for n in counts.values()} <= {int}, "tag counts")
    first_wall, last_step, problems = header["first_wall_time"], header["last_step"], header["problems"]
    _expect(type(first_wall) in (float, int, type(None)) and type(last_step) in (int, type(None)), "numbers")
    _expect({type(p) for p in problems} <= {str} and type(header["path"]) is str, "problems")
    return JobSnapshot(
        path=header["path"], files=files, tag_keys=[], series={},
        graphs=[_record(g, GRAPH_FIELDS) for g in header["graphs"]],
        first_wall_time=None if first_wall is None else float(first_wall), problems=list(problems),
        digests=_digests(header["digests"], digest_block), last_step=last_step, tag_counts=counts, detailed=False,
        hparams=[_hparams(entry) for entry in header["hparams"]], not_shown=NotShown.from_json(header["not_shown"]),
        custom_scalars=_layout(header["custom_scalars"]),
    )


def _layout(data) -> Layout | None:
    if data is None:
        return None
    from ..formats import custom_scalars  # (here: TensorBoard's custom scalars only)

    return custom_scalars.from_json(data)


def _layout_json(layout: Layout | None) -> Any:
    if layout is None:
        return None
    from ..formats import custom_scalars  # (here: TensorBoard's custom scalars only)

    return custom_scalars.to_json(layout)


def _hparams(entry) -> HParams:
    from ..formats.tensorboard import HParams  # (here: TensorBoard's hparams only)

    kind, values, metrics, group, status, when = entry
    _expect(all(type(v) is str for v in (kind, group, status)) and type(when) in (int, float), "hparams")
    _expect(type(values) is dict and all(type(v) in (str, int, float, bool, type(None)) for v in values.values()),
            "hparams values")
    _expect(type(metrics) is list and all(type(m) is list and len(m) == 2 and all(type(p) is str for p in m)
                                          for m in metrics), "hparams metrics")
    return HParams(kind, values, tuple((g, t) for g, t in metrics), group, status, float(when))


def _details(snapshot: JobSnapshot, table: dict, arrays: bytes) -> None:
    """Add the series (and what else only reading on needs) from the details' table and arrays."""
    for entry in table["tags"]:
        key = _key(entry["key"])
        snapshot.tag_keys.append(key)
        snapshot.series[key] = _series(entry, arrays)
    snapshot.evicted = [_key(k) for k in table["evicted"]]
    _expect(type(table["seq"]) is int, "seq")
    snapshot.seq = table["seq"]
    snapshot.detailed = True


def _series(entry: dict, arrays: bytes) -> Series:
    limit, width, seen, nonfinite = entry["limit"], entry["width"], entry["seen"], entry["nonfinite"]
    _expect(all(isinstance(n, int) and n >= 0 for n in (limit, width, seen, nonfinite)) and limit > 0 and width > 0,
            "series")
    candidates: dict[str, np.ndarray] = {}
    for name, stored, count, at in entry["columns"]:
        _expect(name in _COLUMN_TYPES and stored in _STORED and isinstance(count, int) and isinstance(at, int), "column")
        dtype = np.dtype(stored).newbyteorder("<")
        _expect(count >= 0 and 0 <= at and at + count * dtype.itemsize <= len(arrays), "column bounds")
        candidates[name] = np.frombuffer(arrays, dtype=dtype, count=count, offset=at).astype(_COLUMN_TYPES[name])
    kept = candidates.pop("kept", None)
    _expect("step" in candidates and len({len(c) for c in candidates.values()}) == 1, "columns")
    steps = candidates["step"]
    _expect(bool(np.all(steps[1:] > steps[:-1])), "steps out of order")
    if kept is None:
        columns = candidates
    else:
        _expect(not len(kept) or (kept[0] >= 0 and kept[-1] < len(steps) and bool(np.all(kept[1:] > kept[:-1]))),
                "kept steps")
        columns = {name: col[kept] for name, col in candidates.items()}
    return Series(limit, columns, candidates, width, seen, nonfinite)


# -- a header as plain data (the disk cache's index) ---------------------------------------------

def listing(head: bytes) -> tuple:
    """A header (`encode`'s bytes up to `header_end`) as plain data (tuples, lists, dicts of
    numbers and strings) for the disk cache's index, which keeps thousands in one `marshal`
    behind one CRC: `listed` makes the header-only snapshot from it again without parsing JSON
    and checking each field (most of listing 5,000 jobs). SnapshotError when damaged."""
    return listing_of(decode(head, details=False))


def listing_of(snapshot: JobSnapshot) -> tuple:
    """`listing` of a header already decoded (`decode(head, details=False)`)."""
    digests = snapshot.digests
    assert isinstance(digests, StoredDigests)  # (a header's digests stay bytes until read)
    # The names every job repeats (tags, plugins, file kinds) as one object each: marshal writes
    # a name met again as a reference, and reading 5,000 jobs makes it once (16 -> 10 ms).
    files = [tuple(sys.intern(f[name]) if name == "kind" else f[name] for name in FILE_FIELDS) for f in snapshot.files]
    return (snapshot.path, files, {sys.intern(plugin): n for plugin, n in snapshot.tag_counts.items()},
            [tuple(g[name] for name in GRAPH_FIELDS) for g in snapshot.graphs], snapshot.first_wall_time,
            snapshot.problems, [sys.intern(tag) for tag in digests], digests.block, snapshot.last_step,
            [(h.kind, h.hparams, [list(m) for m in h.metrics], h.group, h.status, h.time) for h in snapshot.hparams],
            snapshot.not_shown.to_json() if snapshot.not_shown else None,  # most jobs: nothing unshown
            _layout_json(snapshot.custom_scalars))


def listed(data: object) -> JobSnapshot:
    """The header-only snapshot (`detailed` False) of `listing`'s data; SnapshotError when it
    is not such data. The index it comes from has a valid CRC, yet every value's type is
    checked as `decode` checks a header's: a wrong one would fail every reload of the LOGDIR."""
    try:
        if not isinstance(data, tuple) or tuple(map(type, data)) not in _LISTING_TYPES:
            raise SnapshotError("malformed listing")
        path, files, counts, graphs, first_wall, problems, tags, block, last_step, hparams, account, layout = data
        _expect(all(type(f) is tuple and _file_ok(f) for f in files), "files")
        _expect(all(type(g) is tuple and tuple(map(type, g)) == _GRAPH_TYPES for g in graphs), "graphs")
        _expect(set(map(type, counts)) <= _STR and set(map(type, counts.values())) <= _INT
                and set(map(type, problems)) <= _STR and set(map(type, tags)) <= _STR, "names")
        _expect(len(block) == len(tags) * _DIGEST_ROW.size, "digest numbers")
        return JobSnapshot(
            path=path, files=[dict(zip(FILE_FIELDS, f, strict=True)) for f in files], tag_keys=[], series={},
            graphs=[dict(zip(GRAPH_FIELDS, g, strict=True)) for g in graphs], first_wall_time=first_wall,
            problems=list(problems), digests=StoredDigests(tags, block), last_step=last_step, tag_counts=counts,
            detailed=False, hparams=[_hparams(entry) for entry in hparams],
            not_shown=_not_shown_of(account), custom_scalars=_layout(layout))
    except (ValueError, TypeError) as exc:
        raise SnapshotError(f"malformed listing: {exc}") from exc


def _not_shown_of(account: Any) -> NotShown:
    """A listing's account (`listing`: None when the job holds nothing unshown)."""
    return NOTHING if account is None else NotShown.from_json(account)


def _file_ok(values: tuple) -> bool:
    """A file's state (`FILE_FIELDS`' values in order) of the right types: offsets and counts
    not negative, the inode two ints."""
    inode = values[_INODE_AT]
    return (tuple(map(type, values)) == _FILE_TYPES and len(inode) == 2 and set(map(type, inode)) == _INT
            and min(_counts_of(values)) >= 0)


# How a digest is stored: one fixed-size struct of its numbers (an optional number preceded by
# a flag saying it is there; the spark as its length and SPARK_POINTS places), so the header can
# be kept as bytes and a digest decoded only when someone reads it (`StoredDigests`).
_SPARK = "tuple[float, ...]"
_CODES = {"int": "q", "float": "d", "int | None": "?q", "float | None": "?d", _SPARK: f"B{SPARK_POINTS}d"}
_DIGEST_ROW = struct.Struct("<" + "".join(_CODES[kind] for _, kind in _DIGEST_FIELDS))
_SPARK_AT = [kind for _, kind in _DIGEST_FIELDS].index(_SPARK)  # the spark's length in a row
# Where each optional number's flag is in a row, once the spark is one value, last first.
_OPTIONAL_AT = [i + k for k, i in enumerate(i for i, (_, kind) in enumerate(_DIGEST_FIELDS) if kind.endswith(" | None"))][::-1]
_SPARK_LENGTH_OFFSET = struct.calcsize("<" + "".join(_CODES[kind] for _, kind in _DIGEST_FIELDS[:_SPARK_AT]))


_DIGEST_VALUES = operator.attrgetter(*_DIGEST_NAMES)  # a digest's fields in order, in one call
# Fields that take more than one place in a row, last first (so the earlier stay where they are).
_EXPANDED = sorted((i for i, (_, kind) in enumerate(_DIGEST_FIELDS) if kind == _SPARK or kind.endswith(" | None")),
                   reverse=True)


def _digest_block(digests: list[TagDigest]) -> bytes:
    rows = []
    pack = _DIGEST_ROW.pack
    for d in digests:
        row: list[Any] = list(_DIGEST_VALUES(d))
        for i in _EXPANDED:
            value = row[i]
            if i == _SPARK_AT:
                row[i:i + 1] = (len(value), *value, *(0.0,) * (SPARK_POINTS - len(value)))
            else:
                row[i:i + 1] = (value is not None, 0 if value is None else value)
        rows.append(pack(*row))
    return b"".join(rows)


class StoredDigests(Mapping):
    """A job's digests as read from a snapshot header: tag -> `TagDigest`, each decoded from its
    row the first time it is read (the job list reads one per job: its headline)."""

    def __init__(self, tags: list[str], block: bytes):
        self._tags = tags
        self._rows: dict[str, int] | None = None  # tag -> its row, made when first needed (most jobs listed are never read)
        self._block = block
        self._decoded: dict[str, TagDigest] = {}

    def _row(self, tag: str) -> int:
        """The tag's row; KeyError for a tag it does not hold, as a Mapping's."""
        if self._rows is None:
            if len(self._tags) <= 16:  # a few tags: a look along the list costs less than a dict
                try:
                    return self._tags.index(tag)
                except ValueError:
                    raise KeyError(tag) from None
            self._rows = {tag: i for i, tag in enumerate(self._tags)}
        return self._rows[tag]

    def __getitem__(self, tag: str) -> TagDigest:
        digest = self._decoded.get(tag)
        if digest is None:
            values = list(_DIGEST_ROW.unpack_from(self._block, self._row(tag) * _DIGEST_ROW.size))
            n = values[_SPARK_AT]
            values[_SPARK_AT:_SPARK_AT + 1 + SPARK_POINTS] = (tuple(values[_SPARK_AT + 1:_SPARK_AT + 1 + n]),)
            for i in _OPTIONAL_AT:  # flag, number -> number or None
                values[i:i + 2] = (values[i + 1] if values[i] else None,)
            digest = self._decoded[tag] = TagDigest(*values)
        return digest

    def get(self, tag: str, default=None):  # Mapping's get goes through a KeyError: this is read per row
        return self[tag] if tag in self else default

    def __contains__(self, tag: object) -> bool:
        if not isinstance(tag, str):
            return False
        try:
            self._row(tag)
            return True
        except (KeyError, TypeError):
            return False

    def __iter__(self) -> Iterator[str]:
        return iter(self._tags)

    @property
    def block(self) -> bytes:
        """The rows as stored (`listing`)."""
        return self._block

    def __len__(self) -> int:
        return len(self._tags)

    def __repr__(self) -> str:
        return f"StoredDigests({dict(self)!r})"


def _digests(table: dict, block: bytes) -> StoredDigests:
    tags = table["tags"]
    _expect(table["fields"] == _DIGEST_NAMES, "digest fields (another version)")
    _expect(type(tags) is list and {type(t) for t in tags} <= {str} and len(set(tags)) == len(tags), "digests")
    _expect(len(block) == len(tags) * _DIGEST_ROW.size, "digest numbers")
    if tags:  # what a row can hold wrong (the rest is numbers whatever the bytes): checked now, not when read
        _expect(max(block[_SPARK_LENGTH_OFFSET::_DIGEST_ROW.size]) <= SPARK_POINTS, "digest sparks")
    return StoredDigests(tags, block)


def _record(value: dict, kinds: dict[str, type]) -> dict:
    """`value` (a dict decoded from JSON: changed in place) with each field of its kind."""
    _expect(isinstance(value, dict) and value.keys() == kinds.keys(), "record")
    for name, kind in kinds.items():
        if type(value[name]) is not kind:
            value[name] = _typed(value[name], kind)
    return value


def _typed(value, kind: type):
    """`value` as `kind`; else SnapshotError."""
    if kind is float and type(value) in (int, float):
        return float(value)
    if type(value) is kind:
        return value
    raise SnapshotError(f"expected {kind.__name__}, found {type(value).__name__}")


def _key(value) -> TagKey:
    _expect(isinstance(value, list) and len(value) == 2 and all(isinstance(v, str) for v in value), "tag key")
    return value[0], value[1]


def _expect(condition: bool, what: str) -> None:
    if not condition:
        raise SnapshotError(f"malformed {what}")
