"""Performance profiles: finding them in a job's directory and reading them (no Textual here).

Two layouts are read:

- **MindSpore 2.x** (`mindspore.profiler.profile` / `Profiler`, CPU too): a directory
  `<host>_<pid>_<YYYYMMDDhhmmssmmm>_ascend_ms/` holding `FRAMEWORK/cpu_op_type_info_<n>.csv`,
  `cpu_op_detail_info_<n>.csv`, `cpu_op_execute_timestamp_<n>.txt`, `cpu_framework_<n>.txt`,
  optionally `cpu_ms_memory_record_<n>.txt`, and `ASCEND_PROFILER_OUTPUT/trace_view.json`.
- **MindInsight's older layout**: a child directory `profiler*` with `profiler_info_<dev>.json` and
  the same files flat (`cpu_op_*_<dev>`, or `gpu_op_type_info_<dev>.csv` / `gpu_op_detail_info_<dev>.csv`,
  whose times are microseconds: they are turned into milliseconds here).

Units everywhere in this module: times in **milliseconds**, shares as **fractions** (the CSV's
`percent` is one already), instants in **nanoseconds** since the epoch (int64).

Nothing here raises for bad input: a truncated CSV, a missing file of the set, a trace that does
not parse are each one sentence in `problems`, and what could be read is kept. Every number is
checked where it is read (`numbers`: finite, not negative where it cannot be, an int64 where one
is stored); a row, call or trace event with a bad one is left out and counted, the others kept.

Steps: CPU profiles carry no step markers. In graph mode every op runs once per step (or a fixed
number of times per step), so the k-th call of each op belongs to step k; `step_times` does that
and says which ops it could not place. The first step includes graph compilation.
"""
from __future__ import annotations

import csv
import io
import json
import math
import os
import re
from collections import Counter
from dataclasses import dataclass, field
from typing import Any, Iterable, Sequence, overload

import numpy as np

from ..numbers import INT64_MAX, BadNumber, finite, whole
from .profiler_calls import Calls, parse_execute_timestamps, step_count

ASCEND_MS_RE = re.compile(r"_(\d{17})_ascend_ms$")
ASCEND_MS_SUFFIX = "_ascend_ms"
PROFILER_INFO_RE = re.compile(r"^profiler_info_(\w+)\.json$")
CPU_TYPE_RE = re.compile(r"^cpu_op_type_info_(\w+)\.csv$")
GPU_TYPE_RE = re.compile(r"^gpu_op_type_info_(\w+)\.csv$")
CPU_DETAIL_RE = re.compile(r"^cpu_op_detail_info_(\w+)\.csv$")
GPU_DETAIL_RE = re.compile(r"^gpu_op_detail_info_(\w+)\.csv$")
OTHER = "other"
TOP_TYPES = 20


# -- finding profiles -------------------------------------------------------------------------------

@dataclass(frozen=True)
class ProfileRef:
    """Where one profile is. `files_dir` holds the `cpu_op_*` files; `device` is their suffix."""

    path: str  # the profile's directory (`*_ascend_ms` or `profiler*`)
    files_dir: str
    device: str
    layout: str  # "ascend_ms" or "legacy"
    target: str  # "cpu" or "gpu"
    created: float  # seconds since the epoch: from the directory name, else the newest file's mtime
    job_dir: str = ""
    source: Any = field(default=None, compare=False, repr=False)  # a remote `source.Source`; None: local

    @property
    def key(self) -> str:
        return f"{self.path}#{self.device}"

    @property
    def name(self) -> str:
        """How the picker names it: the directory relative to the job, and the device."""
        rel = os.path.relpath(self.path, self.job_dir) if self.job_dir else os.path.basename(self.path)
        return rel if self.device == "0" else f"{rel} · device {self.device}"

    def file(self, stem: str) -> str:
        return os.path.join(self.files_dir, f"{stem}_{self.device}")

    @property
    def trace_path(self) -> str:
        return os.path.join(self.path, "ASCEND_PROFILER_OUTPUT", "trace_view.json")


def _listdir(path: str, source: Any = None) -> list[str]:
    try:
        return sorted(os.listdir(path)) if source is None else source.listdir(path)
    except OSError:
        return []


def _isdir(path: str, source: Any = None) -> bool:
    return os.path.isdir(path) if source is None else bool(_listdir(path, source))  # remote: no empty dirs


def _newest_mtime(path: str, names: Iterable[str], source: Any = None) -> float:
    times = []
    for name in names:
        try:
            times.append((os.stat if source is None else source.stat)(os.path.join(path, name)).st_mtime)
        except OSError:
            pass
    return max(times, default=0.0)


def _created_from_name(name: str) -> float | None:
    """`vm_7790_20261123084411407_ascend_ms` -> its local time in seconds (None if not there)."""
    match = ASCEND_MS_RE.search(name)
    if not match:
        return None
    import time as _time
    digits = match.group(1)
    try:
        parts = _time.strptime(digits[:14], "%Y%m%d%H%M%S")
    except ValueError:
        return None
    return _time.mktime(parts) + int(digits[14:]) / 1000


def _ascend_refs(path: str, job_dir: str, source: Any = None) -> list[ProfileRef]:
    framework = os.path.join(path, "FRAMEWORK")
    names = _listdir(framework, source)
    devices = sorted({m.group(1) for n in names for m in [CPU_TYPE_RE.match(n) or CPU_DETAIL_RE.match(n)] if m}
                     | {n[len("cpu_op_execute_timestamp_"):-4] for n in names
                        if n.startswith("cpu_op_execute_timestamp_") and n.endswith(".txt")})
    if not devices and not _isdir(os.path.join(path, "ASCEND_PROFILER_OUTPUT"), source):
        return []
    created = _created_from_name(os.path.basename(path))
    if created is None:
        created = _newest_mtime(framework, names, source)
    return [ProfileRef(path, framework, dev, "ascend_ms", "cpu", created, job_dir, source) for dev in devices or ["0"]]


def _legacy_refs(path: str, job_dir: str, source: Any = None) -> list[ProfileRef]:
    names = _listdir(path, source)
    infos = [m.group(1) for n in names for m in [PROFILER_INFO_RE.match(n)] if m]
    if not infos:
        return []
    refs = []
    for dev in infos:
        target = "gpu" if f"gpu_op_type_info_{dev}.csv" in names or f"gpu_op_detail_info_{dev}.csv" in names else "cpu"
        files = [n for n in names if n.endswith((f"_{dev}.csv", f"_{dev}.txt", f"_{dev}.json"))]
        refs.append(ProfileRef(path, path, dev, "legacy", target, _newest_mtime(path, files, source), job_dir, source))
    return refs


def profile_refs_in(path: str, job_dir: str = "", source: Any = None) -> list[ProfileRef]:
    """The profiles directory `path` is itself (an `*_ascend_ms` or a `profiler*` directory)."""
    base = os.path.basename(os.path.normpath(path))
    if base.endswith(ASCEND_MS_SUFFIX):
        return _ascend_refs(path, job_dir, source)
    if base.startswith("profiler"):
        return _legacy_refs(path, job_dir, source)
    return []


def find_profiles(job_dir: str, source: Any = None) -> list[ProfileRef]:
    """Every profile of the job at `job_dir`, newest first: `job_dir` itself when it is one, and
    its direct children named `*_ascend_ms` or `profiler*`. Unreadable directories are skipped.
    `source`: the cache's `source.Source`, read through when it is remote."""
    source = None if source is None or source.is_local else source
    job_dir = os.path.abspath(job_dir) if source is None else job_dir
    refs = profile_refs_in(job_dir, os.path.dirname(job_dir), source)
    for name in _listdir(job_dir, source):
        child = os.path.join(job_dir, name)
        if name.startswith(".") or not _isdir(child, source):
            continue
        refs.extend(profile_refs_in(child, job_dir, source))
    return sorted(refs, key=lambda r: (-r.created, r.path, r.device))


def holds_profile(path: str) -> bool:
    """Whether a directory holds a profile (for discovery: a directory holding only one is a job)."""
    return bool(find_profiles(path))


# -- what a profile holds ---------------------------------------------------------------------------

@dataclass(frozen=True)
class OpType:
    """One op type's row of a profile's op-type statistics."""

    op_type: str
    occurrences: int
    per_step: float  # execution frequency per step, as written
    total_ms: float
    avg_ms: float
    share: float  # a fraction of the profile's op time


@dataclass(frozen=True)
class Operator:
    """One operator's row of a profile's op statistics."""

    op_type: str
    name: str  # `Conv2D-op0` (not unique: the forward and backward MatMul-op0 share it)
    full_name: str  # scope path and name: the op's key
    occurrences: int
    total_ms: float
    avg_ms: float
    share: float
    side: str = "Host"
    subgraph: str = ""

    @property
    def scope(self) -> str:
        """The name scope the op sits in ("" for PyNative ops, which carry none)."""
        head, _, _ = self.full_name.rpartition("/")
        return head


@dataclass(frozen=True)
class Memory:
    """The allocator's samples: instants (ns) and bytes allocated / reserved / active."""

    times: np.ndarray
    allocated: np.ndarray
    reserved: np.ndarray
    active: np.ndarray

    def __len__(self) -> int:
        return int(self.times.size)

    def peak(self, series: str = "allocated") -> tuple[int, int] | None:
        """(index, bytes) of the largest sample of `series`, or None when there is none."""
        values = getattr(self, series)
        if not values.size:
            return None
        i = int(np.argmax(values))
        return i, int(values[i])


@dataclass(frozen=True)
class Span:
    """One span of a timeline track."""

    name: str
    start_us: float
    duration_us: float
    depth: int = 0


@dataclass(frozen=True)
class Track:
    """One row of the timeline: the spans of one thread of one process, sorted by start."""

    process: str
    thread: str
    spans: tuple[Span, ...]
    starts: np.ndarray  # us, for bisecting
    ends: np.ndarray

    @property
    def label(self) -> str:
        return f"{self.process} · {self.thread}"


@dataclass(frozen=True)
class Timeline:
    """A profile's timeline: its tracks and the time they cover."""

    tracks: tuple[Track, ...] = ()
    start_us: float = 0.0
    end_us: float = 0.0
    problems: tuple[str, ...] = ()

    @property
    def span_count(self) -> int:
        return sum(len(t.spans) for t in self.tracks)


@dataclass(frozen=True)
class Shapes:
    """Input shapes of each op, from `cpu_framework`: full name -> ((shapes, calls), ...) most
    frequent first. `by_call` tells whether lines were matched to calls one by one (exact) or
    only by op name (ops sharing a name share their shapes)."""

    by_op: dict[str, tuple[tuple[str, int], ...]] = field(default_factory=dict)
    by_call: bool = True
    problems: tuple[str, ...] = ()

    def of(self, op: Operator) -> tuple[tuple[str, int], ...]:
        return self.by_op.get(op.full_name, ())


@dataclass(frozen=True)
class Profile:
    """One profile as read: op statistics, calls, memory, shapes and timeline."""

    ref: ProfileRef
    op_types: tuple[OpType, ...] = ()
    operators: tuple[Operator, ...] = ()
    calls: Calls = field(default_factory=Calls)
    memory: Memory | None = None
    shapes: Shapes | None = None  # None: not read (yet)
    timeline: Timeline | None = None  # None: not read (yet)
    problems: tuple[str, ...] = ()
    op_types_derived: bool = False  # the op-type file was missing or unreadable: summed from the ops
    calls_read: bool = True  # False: opened without its calls (`load_profile(calls=False)`)

    @property
    def total_ms(self) -> float:
        return float(sum(t.total_ms for t in self.op_types))

    def all_problems(self) -> tuple[str, ...]:
        extra: tuple[str, ...] = ()
        if self.shapes is not None:
            extra += self.shapes.problems
        if self.timeline is not None:
            extra += self.timeline.problems
        return self.problems + extra


# -- reading ----------------------------------------------------------------------------------------

def _read_text(path: str, label: str, problems: list[str], required: bool = True, source: Any = None) -> str | None:
    try:
        if source is not None:
            data = source.read(path)
        else:
            with open(path, "rb") as handle:
                data = handle.read()
    except FileNotFoundError:
        if required:
            problems.append(f"{label}: missing")
        return None
    except OSError as exc:
        problems.append(f"{label}: cannot read ({exc.strerror or exc})")
        return None
    return data.decode("utf-8", errors="replace")


def _label(ref: ProfileRef, path: str) -> str:
    return os.path.relpath(path, ref.path)


def _csv_rows(text: str, label: str, problems: list[str]) -> tuple[list[str], list[list[str]]]:
    """Header and rows; a last line cut short (no newline, fewer fields) is dropped and named."""
    rows: list[list[str]] = []
    reader = csv.reader(io.StringIO(text))
    while True:  # a line the reader refuses (a bare carriage return in a field) costs that line
        try:
            row = next(reader)
        except StopIteration:
            break
        except csv.Error as exc:
            if not rows:
                problems.append(f"{label}: not a CSV ({exc})")
                return [], []
            problems.append(f"{label}: line {reader.line_num} left out, not CSV ({exc})")
            continue
        if row:
            rows.append(row)
    if not rows:
        problems.append(f"{label}: empty")
        return [], []
    header = [h.strip() for h in rows[0]]
    body = rows[1:]
    cut = not text.endswith("\n")
    good = []
    for i, row in enumerate(body):
        if len(row) != len(header):
            last = i == len(body) - 1
            problems.append(f"{label}: line {i + 2} " + ("cut short (file truncated?)" if last and cut
                                                         else f"has {len(row)} fields, not {len(header)}"))
            continue
        good.append(row)
    return header, good


def _not_numbers(label: str, i: int, rows: list[list[str]], text: str, exc: Exception | None = None) -> str:
    """What to say of body row `i` that does not read as numbers: the last row of a file that
    does not end its line was cut short."""
    if i == len(rows) - 1 and not text.endswith("\n"):
        return f"{label}: line {i + 2} cut short (file truncated?)"
    if isinstance(exc, BadNumber):
        return f"{label}: line {i + 2} left out: {exc}"
    return f"{label}: line {i + 2} is not numbers"


@overload
def _column(header: list[str], *names: str, default: int) -> int: ...


@overload
def _column(header: list[str], *names: str, default: None = None) -> int | None: ...


def _column(header: list[str], *names: str, default: int | None = None) -> int | None:
    """The index of the first of `names` in `header` (any case); `default` if none is there."""
    lowered = [h.lower() for h in header]
    for name in names:
        if name in lowered:
            return lowered.index(name)
    return default


def parse_op_types(text: str, label: str, problems: list[str], *, unit: float = 1.0) -> list[OpType]:
    """`cpu_op_type_info` (ms) or `gpu_op_type_info` (us: `unit` 1e-3) rows."""
    header, rows = _csv_rows(text, label, problems)
    if not header:
        return []
    c_type = _column(header, "op_type", default=0)
    c_occ = _column(header, "type_occurrences", "execution_frequency", default=1)
    c_freq = _column(header, "execution_frequency(per-step)")
    c_total = _column(header, "total_compute_time", "total_time", "total_time(ms)")
    c_avg = _column(header, "avg_time(ms)", "avg_time")
    c_share = _column(header, "percent", "proportion", "total_percent")
    if c_total is None or c_avg is None or c_share is None:
        problems.append(f"{label}: unknown columns {','.join(header)}")
        return []
    out = []
    for i, row in enumerate(rows):
        per_step, unknown = float("nan"), ""
        if c_freq is not None:  # optional: a bad one leaves the row's frequency unknown
            try:
                per_step = finite(row[c_freq], _name(header, c_freq), 0)
            except BadNumber as exc:
                unknown = f"{label}: line {i + 2}: {exc} (shown as unknown)"
        try:
            out.append(OpType(row[c_type], whole(row[c_occ], _name(header, c_occ)), per_step,
                              finite(row[c_total], _name(header, c_total), 0) * unit,
                              finite(row[c_avg], _name(header, c_avg), 0) * unit,
                              finite(row[c_share], _name(header, c_share), 0)))
        except (ValueError, IndexError) as exc:
            problems.append(_not_numbers(label, i, rows, text, exc))
            continue
        if unknown:
            problems.append(unknown)
    return out


def parse_operators(text: str, label: str, problems: list[str], *, unit: float = 1.0) -> list[Operator]:
    """`cpu_op_detail_info` / `gpu_op_detail_info` rows."""
    header, rows = _csv_rows(text, label, problems)
    if not header:
        return []
    c_side = _column(header, "op_side", default=0)
    c_type = _column(header, "op_type", default=1)
    c_name = _column(header, "op_name", default=2)
    c_full = _column(header, "full_op_name", "op_full_name", default=3)
    c_occ = _column(header, "op_occurrences", default=4)
    c_total = _column(header, "op_total_time(ms)", "op_total_time", default=5)
    c_avg = _column(header, "op_avg_time(ms)", "op_avg_time", default=6)
    c_share = _column(header, "total_proportion", "proportion", default=7)
    c_graph = _column(header, "subgraph")
    out = []
    for i, row in enumerate(rows):
        try:
            out.append(Operator(row[c_type], row[c_name], row[c_full], whole(row[c_occ], _name(header, c_occ)),
                                finite(row[c_total], _name(header, c_total), 0) * unit,
                                finite(row[c_avg], _name(header, c_avg), 0) * unit,
                                finite(row[c_share], _name(header, c_share), 0),
                                row[c_side], row[c_graph] if c_graph is not None else ""))
        except (ValueError, IndexError) as exc:
            problems.append(_not_numbers(label, i, rows, text, exc))
    return out


def _name(header: list[str], column: int | None) -> str:
    """The header's name of a column found by its place (the header may be shorter)."""
    if column is None:
        return "a column"
    return header[column] if column < len(header) else f"column {column + 1}"


def derive_op_types(operators: Sequence[Operator], steps: int | None = None) -> list[OpType]:
    """Op-type rows summed from the operators (when the op-type file cannot be read)."""
    totals: dict[str, list[float]] = {}
    for op in operators:
        entry = totals.setdefault(op.op_type, [0, 0.0, 0.0])
        entry[0] += op.occurrences
        entry[1] += op.total_ms
        entry[2] += op.share
    out = []
    for op_type, (count, total, share) in totals.items():
        per_step = count / steps if steps else float("nan")
        out.append(OpType(op_type, int(count), per_step, total, total / count if count else 0.0, share))
    return out


def parse_memory(text: str, label: str, problems: list[str]) -> Memory | None:
    """`Timestamp(ns),Total Allocated(Byte),Total Reserved(Byte),Total Active(Byte)` rows."""
    data = _memory_fast(text)
    if data is None:
        header, rows = _csv_rows(text, label, problems)
        if not header:
            return None
        cols = [_column(header, "timestamp(ns)", default=0), _column(header, "total allocated(byte)", default=1),
                _column(header, "total reserved(byte)", default=2), _column(header, "total active(byte)", default=3)]
        values = []
        for i, row in enumerate(rows):
            try:
                values.append([whole(row[c], _name(header, c)) for c in cols])
            except (ValueError, IndexError) as exc:
                problems.append(_not_numbers(label, i, rows, text, exc))
        data = np.array(values, dtype=np.int64).reshape(-1, 4)
    order = np.argsort(data[:, 0], kind="stable")
    data = data[order]
    return Memory(data[:, 0], data[:, 1], data[:, 2], data[:, 3])


MEMORY_HEADER = "timestamp(ns),total allocated(byte),total reserved(byte),total active(byte)"


def _memory_fast(text: str) -> np.ndarray | None:
    """The usual memory record (that header, whole lines of four integers) in one numpy call;
    None for anything else (the CSV path then reads it and names the bad lines)."""
    head, _, body = text.partition("\n")
    if head.strip().lower().replace(" ", "") != MEMORY_HEADER.replace(" ", "") or not text.endswith("\n"):
        return None
    body = body.strip()
    lines = body.count("\n") + 1 if body else 0
    digits = body.replace(",", "").replace("\n", "")
    if body.count(",") != 3 * lines or not (digits.isascii() and digits.isdigit()):
        return None if body else np.zeros((0, 4), dtype=np.int64)
    try:
        values = np.fromstring(body.replace("\n", ","), dtype=np.int64, sep=",")
    except ValueError:  # an empty field
        return None
    if values.size != 4 * lines or (values == INT64_MAX).any():  # past an int64: numpy gives its largest
        return None
    return values.reshape(-1, 4)


SHAPE_RE = re.compile(r"^input_\d+:")


def _shape_text(fields: Sequence[str]) -> str:
    shapes = [SHAPE_RE.sub("", f) for f in fields if f]
    return "; ".join(shapes) if shapes else "not recorded"


def parse_framework(text: str, label: str, calls: Calls, operators: Sequence[Operator]) -> Shapes:
    """Input shapes per op from `cpu_framework` (`type;name;graph;input_1:[..];...`, one line per
    call in execution order). When the lines match the timed calls one by one (same count, same
    names where a line names its op), each op gets exactly its calls' shapes; else shapes go by
    op name."""
    problems: list[str] = []
    lines = [line for line in text.splitlines() if line.strip()]
    if text and not text.endswith("\n") and lines:
        problems.append(f"{label}: the last line is cut short (file truncated?)")
        lines.pop()
    if not lines:
        return Shapes({}, True, tuple(problems))
    pairs: Counter[tuple[int, str]] | None = None
    if len(calls) == len(lines) and len(calls):
        op_of_call = np.repeat(np.arange(len(calls.names)), np.diff(calls.offsets))
        order = np.argsort(calls.starts, kind="stable")
        pairs = Counter(zip(op_of_call[order].tolist(), lines))
        short = [name.rpartition("/")[2] for name in calls.names]
        for (op, line) in pairs:
            named = line.split(";", 2)[1] if line.count(";") >= 2 else ""
            if named and named != short[op]:
                pairs = None
                break
    by_op: dict[str, Counter[str]] = {}
    if pairs is not None:
        for (op, line), count in pairs.items():
            by_op.setdefault(calls.names[op], Counter())[_shape_text(line.split(";")[3:])] += count
        by_call = True
    else:
        by_name: dict[str, Counter[str]] = {}
        for line, count in Counter(lines).items():
            fields = line.split(";")
            if len(fields) < 3:
                continue
            by_name.setdefault(fields[1], Counter())[_shape_text(fields[3:])] += count
        for operator in operators:
            if operator.name in by_name:
                by_op[operator.full_name] = by_name[operator.name]
        by_call = False
    return Shapes({name: tuple(counter.most_common()) for name, counter in by_op.items()}, by_call, tuple(problems))


def _track_id(value: object) -> bool:
    """Whether a trace event's `pid` or `tid` can name a track: a string, an integer, a finite
    number, or none."""
    if value is None or isinstance(value, str) or (isinstance(value, int) and not isinstance(value, bool)):
        return True
    return isinstance(value, float) and math.isfinite(value)


def parse_trace(text: str, label: str) -> Timeline:
    """The complete (`ph: X`) events of a Chrome trace as tracks per process and thread."""
    try:
        data = json.loads(text)
    except (ValueError, RecursionError) as exc:
        return Timeline(problems=(f"{label}: does not parse ({type(exc).__name__}: {str(exc)[:80]})",))
    events = data.get("traceEvents") if isinstance(data, dict) else data
    if not isinstance(events, list):
        return Timeline(problems=(f"{label}: not a list of trace events",))
    processes: dict[Any, str] = {}
    threads: dict[tuple[Any, Any], str] = {}
    order: dict[Any, float] = {}
    spans: dict[tuple[Any, Any], list[tuple[float, float, str]]] = {}
    bad = 0
    for event in events:
        if not isinstance(event, dict):
            bad += 1
            continue
        ph = event.get("ph")
        pid, tid = event.get("pid"), event.get("tid")
        if not (_track_id(pid) and _track_id(tid)):
            bad += 1  # a list, an object, NaN: names no track
            continue
        given = event.get("args")
        args = given if isinstance(given, dict) else {}
        if ph == "M":
            if event.get("name") == "process_name":
                processes[pid] = str(args.get("name", pid))
            elif event.get("name") == "thread_name":
                threads[(pid, tid)] = str(args.get("name", tid))
            elif event.get("name") == "process_sort_index":
                try:
                    order[pid] = finite(args.get("sort_index", 0))
                except BadNumber:
                    pass
        elif ph == "X":
            try:
                start, duration = finite(event["ts"], "ts"), finite(event.get("dur", 0.0), "dur", 0)
            except (KeyError, BadNumber):
                bad += 1
                continue
            if not math.isfinite(start + duration):
                bad += 1
                continue
            spans.setdefault((pid, tid), []).append((start, duration, str(event.get("name", ""))))
    problems = (f"{label}: {bad} unreadable event{'s' if bad != 1 else ''} skipped",) if bad else ()
    tracks = []
    lo, hi = float("inf"), float("-inf")

    def sort_key(key: tuple[Any, Any]) -> tuple:
        pid, tid = key
        return (order.get(pid, 0.0), str(pid), tid if isinstance(tid, (int, float)) else 0, str(tid))

    for key in sorted(spans, key=sort_key):
        items = sorted(spans[key])
        starts = np.array([s for s, _, _ in items], dtype=np.float64)
        ends = starts + np.array([d for _, d, _ in items], dtype=np.float64)
        lo, hi = min(lo, float(starts.min())), max(hi, float(ends.max()))
        pid, tid = key
        tracks.append(Track(processes.get(pid, f"process {pid}"), threads.get(key, f"thread {tid}"),
                            tuple(Span(name, s, d) for s, d, name in items), starts, ends))
    if not tracks:
        return Timeline(problems=problems + (f"{label}: no spans",))
    return Timeline(tuple(tracks), lo, hi, problems)


def load_timeline(ref: ProfileRef) -> Timeline:
    """The profile's `trace_view.json` as a timeline (never raises)."""
    problems: list[str] = []
    path = ref.trace_path if ref.layout == "ascend_ms" else ""
    if not path:
        return Timeline(problems=("no trace_view.json in this layout",))
    text = _read_text(path, _label(ref, path), problems, source=ref.source)
    if text is None:
        return Timeline(problems=tuple(problems))
    return parse_trace(text, _label(ref, path))


def load_shapes(ref: ProfileRef, profile: Profile) -> Shapes:
    """Input shapes from the profile's `<target>_framework_<n>.txt` (never raises)."""
    problems: list[str] = []
    path = ref.file(f"{ref.target}_framework") + ".txt"
    text = _read_text(path, _label(ref, path), problems, source=ref.source)
    if text is None:
        return Shapes({}, True, tuple(problems))
    return parse_framework(text, _label(ref, path), profile.calls, profile.operators)


def load_calls(ref: ProfileRef) -> tuple[Calls, tuple[str, ...]]:
    """Every timed call of the profile's ops and what could not be read (never raises)."""
    problems: list[str] = []
    path = ref.file(f"{ref.target}_op_execute_timestamp") + ".txt"
    label = _label(ref, path)
    text = _read_text(path, label, problems, required=ref.target == "cpu", source=ref.source)
    calls = parse_execute_timestamps(text, label, problems) if text is not None else Calls()
    return calls, tuple(problems)


def with_calls(profile: Profile, calls: Calls, problems: Sequence[str] = ()) -> Profile:
    """`profile` with its calls read (see `load_profile(calls=False)`)."""
    return _with(profile, calls=calls, calls_read=True, problems=profile.problems + tuple(problems))


def load_profile(ref: ProfileRef, *, calls: bool = True, shapes: bool = True, timeline: bool = True) -> Profile:
    """Everything of one profile, with `problems` naming what could not be read (never raises).

    The view opens a profile in steps: `calls=False, shapes=False, timeline=False` reads the op
    types, the ops and the memory record (what the first screen shows); then `load_calls` +
    `with_calls` (the execute timestamps: steps, an op's calls), `load_shapes` (input shapes)
    and, when the timeline is shown, `load_timeline`. When the op-type file cannot be read the
    types are summed from the ops, which needs the calls (for the per-step frequency): they are
    read then whatever `calls` says.
    """
    problems: list[str] = []
    unit = 1e-3 if ref.target == "gpu" else 1.0  # GPU files are in microseconds
    prefix = ref.target

    def read(stem: str, ext: str, required: bool = True) -> tuple[str | None, str]:
        path = ref.file(stem) + ext
        label = _label(ref, path)
        return _read_text(path, label, problems, required, ref.source), label

    text, label = read(f"{prefix}_op_detail_info", ".csv")
    operators = parse_operators(text, label, problems, unit=unit) if text is not None else []
    text, label = read(f"{prefix}_op_type_info", ".csv")
    op_types = parse_op_types(text, label, problems, unit=unit) if text is not None else []
    derived = not op_types and bool(operators)
    read_calls = calls or derived
    found, calls_problems = load_calls(ref) if read_calls else (Calls(), ())
    problems += calls_problems
    if derived:
        op_types = derive_op_types(operators, step_count(found) or None)
        problems.append("op types summed from the operators")
    text, label = read("cpu_ms_memory_record" if ref.target == "cpu" else f"{prefix}_ms_memory_record", ".txt",
                       required=False)
    memory = parse_memory(text, label, problems) if text is not None else None
    profile = Profile(ref, tuple(op_types), tuple(operators), found, memory, None, None, tuple(problems), derived,
                      read_calls)
    if shapes and read_calls:
        profile = _with(profile, shapes=load_shapes(ref, profile))
    if timeline:
        profile = _with(profile, timeline=load_timeline(ref) if ref.layout == "ascend_ms" else None)
    return profile


def _with(profile: Profile, **changes: Any) -> Profile:
    from dataclasses import replace
    return replace(profile, **changes)
