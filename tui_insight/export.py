"""CSV snapshots of a summary cache (`tui-insight LOGDIR --export csv --out DIR`, and `e` in the UI).

A snapshot is a directory with exactly six files: jobs, scalars, histograms, tensors, images
and lineage (TensorBoard runs too: their histograms' buckets as the files hold them). Rows are sorted by train_id, tag, step. By default the snapshot holds what the
cache holds (MindInsight's limits), read through the same queries as the screens; with
`all_steps` it holds every value in the files, streamed: values are spilled per tag to
temporary files outside the log directory and written out one tag at a time, so memory does
not grow with the length of the run.
"""
from __future__ import annotations

import csv
import math
import os
import tempfile
from dataclasses import dataclass, field, replace
from pathlib import Path
from types import MappingProxyType
from typing import Callable, Iterable, Iterator, NamedTuple

import numpy as np
from google.protobuf.message import DecodeError

from .proto import summary_pb2
from .summary import landscape, profiler, tensorboard
from .summary.cache import PLUGIN_OF_FIELD, JobView, SummaryCache, text_of
from .summary.payloads import PayloadError, histogram_from_proto, tensor_from_proto
from .summary.records import ScanReport, scan_records
from .summary.source import Source

HEADERS = {
    "jobs": ["train_id", "summary_files", "lineage_files", "graph_files", "records", "bad_records", "state",
             "tensorboard_files"],
    "scalars": ["train_id", "tag", "step", "wall_time", "value"],
    "histograms": ["train_id", "tag", "step", "wall_time", "left", "width", "count"],
    "tensors": ["train_id", "tag", "step", "wall_time", "dtype", "shape", "count", "min", "max", "avg",
                "nan_count", "pos_inf_count", "neg_inf_count"],
    "images": ["train_id", "tag", "step", "wall_time", "width", "height"],
    "landscapes": list(landscape.CSV_COLUMNS),
    "profile_ops": list(profiler.OP_COLUMNS),
    "profile_op_types": list(profiler.OP_TYPE_COLUMNS),
}
PLUGIN_FILES = {"scalar": "scalars", "histogram": "histograms", "tensor": "tensors", "image": "images"}
PREFETCH_STEPS = 16  # payload records fetched together from a remote LOGDIR (two requests for as many)
TagKey = tuple[str, str]


class ExportError(Exception):
    """An export that was refused or failed; the message is for the user."""


@dataclass
class ExportResult:
    files: list[Path] = field(default_factory=list)
    rows: dict[str, int] = field(default_factory=dict)
    problems: list[str] = field(default_factory=list)  # what could not be read (a profile's file...)


def fmt_float(value: float) -> str:
    """Shortest round-trip text; non-finite as nan, inf, -inf."""
    if math.isnan(value):
        return "nan"
    if math.isinf(value):
        return "inf" if value > 0 else "-inf"
    return repr(float(value))


def fmt_float32(value: float) -> str:
    """A float32 value (scalars are float32 in the file) as its shortest float32 text: 0.1, not 0.10000000149."""
    return fmt_float(float(str(np.float32(value)))) if math.isfinite(value) else fmt_float(value)


def check_destination(cache: SummaryCache, out: Path, force: bool) -> Path:
    """The resolved output directory; refuses one inside LOGDIR, or a non-empty one without force."""
    out = Path(out).expanduser().resolve()
    logdir = Path(os.path.realpath(cache.logdir))
    if out == logdir or logdir in out.parents:
        raise ExportError(f"refusing to write inside the log directory {logdir}: choose --out elsewhere")
    if out.exists():
        if not out.is_dir():
            raise ExportError(f"{out} exists and is not a directory")
        if any(out.iterdir()) and not force:
            raise ExportError(f"{out} is not empty: use --force to overwrite")
    return out


def export_snapshot(cache: SummaryCache, out: Path, *, all_steps: bool = False, force: bool = False,
                    train_ids: Iterable[str] | None = None, plugins: set[str] | None = None,
                    tags: set[TagKey] | None = None) -> ExportResult:
    """Write the six CSV files for the cache's current jobs (optionally narrowed) into `out`.

    `plugins` narrows to some of scalar, histogram, tensor, image and lineage; `tags` to some
    (plugin, tag) pairs (no lineage then). Files left out by the narrowing hold only a header.
    """
    out = check_destination(cache, out, force)
    try:
        out.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise ExportError(f"cannot create {out}: {exc.strerror or exc}") from exc
    wanted = set(train_ids) if train_ids is not None else None
    views = [v for tid, v in sorted(cache.jobs.items()) if wanted is None or tid in wanted]

    def keep(key: TagKey) -> bool:
        return (plugins is None or key[0] in plugins) and (tags is None or key in tags)

    result = ExportResult()
    problems = result.problems
    try:
        with _CsvFiles(out, result) as files:
            for view in views:
                files.row("jobs", _job_row(view))
            for view in views:
                if not view.detailed:  # evicted under the memory budget: its series read back
                    view = cache.details(view.train_id) or view
                rows = _stream_job(view, keep, cache.source) if all_steps else _cached_job(cache, view, keep)
                for name, row in rows:
                    files.row(name, row)
                for name, row in _extras(cache, view, keep, problems):
                    files.row(name, row)
            with_lineage = (plugins is None or "lineage" in plugins) and tags is None
            _write_lineage(out / "lineage.csv", views if with_lineage else [], result)
    except OSError as exc:
        raise ExportError(f"cannot write to {out}: {exc.strerror or exc}") from exc
    return result


def _job_row(view: JobView) -> list:
    return [view.train_id, len(view.summary_files), len(view.lineage_files), len(view.graph_files), view.records,
            view.bad_records, view.state, len(view.tensorboard_files)]


def export_streaming(cache: SummaryCache, out: Path, *, all_steps: bool = False, force: bool = False,
                     on_job: Callable[[JobView], None] | None = None,
                     progress: Callable[[int, int], None] | None = None) -> ExportResult:
    """`export_snapshot` of every job of a cache that has not loaded them, in bounded memory:
    each job is read, written and forgotten in turn (train id order, so every file is the
    same as `export_snapshot`'s). `on_job(view)` is called as each job is read (warnings),
    `progress(done, total)` after each job is written."""
    out = check_destination(cache, out, force)
    try:
        out.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise ExportError(f"cannot create {out}: {exc.strerror or exc}") from exc
    train_ids = cache.discover_jobs()
    lineage_views: list[JobView] = []  # what lineage.csv needs of each job, without its series
    result = ExportResult()
    try:
        with _CsvFiles(out, result) as files:
            for done, train_id in enumerate(train_ids, 1):
                view = cache.load_job(train_id)
                if view is not None:
                    if on_job is not None:
                        on_job(view)
                    files.row("jobs", _job_row(view))
                    rows = _stream_job(view, _everything, cache.source) if all_steps else _cached_job(cache, view, _everything)
                    for name, row in rows:
                        files.row(name, row)
                    for name, row in _extras(cache, view, _everything, result.problems):
                        files.row(name, row)
                    lineage_views.append(replace(view, tags=MappingProxyType({}), graphs=MappingProxyType({})))
                    cache.forget(train_id)
                if progress is not None:
                    progress(done, len(train_ids))
            _write_lineage(out / "lineage.csv", lineage_views, result)
    except OSError as exc:
        raise ExportError(f"cannot write to {out}: {exc.strerror or exc}") from exc
    return result


def _everything(key: TagKey) -> bool:
    return True


class _CsvFiles:
    def __init__(self, out: Path, result: ExportResult):
        self.out, self.result = out, result

    def __enter__(self) -> "_CsvFiles":
        self.handles, self.writers = {}, {}
        for name, header in HEADERS.items():
            path = self.out / f"{name}.csv"
            handle = open(path, "w", newline="", encoding="utf-8")
            self.handles[name] = handle
            self.writers[name] = csv.writer(handle, lineterminator="\n")
            self.writers[name].writerow(header)
            self.result.files.append(path)
            self.result.rows[name] = 0
        return self

    def row(self, name: str, values: list) -> None:
        self.writers[name].writerow(values)
        self.result.rows[name] += 1

    def __exit__(self, *exc) -> None:
        for handle in self.handles.values():
            handle.close()


# -- what the cache holds -------------------------------------------------------------------

def _cached_job(cache: SummaryCache, view: JobView, keep: Callable[[TagKey], bool]) -> Iterator[tuple[str, list]]:
    for plugin, name in PLUGIN_FILES.items():
        for tag in view.tag_names(plugin):
            if not keep((plugin, tag)):
                continue
            series = view.series(plugin, tag)
            for i in range(len(series)):
                if plugin != "scalar" and i % PREFETCH_STEPS == 0:  # remote: the next steps' records at once
                    cache.payloads.prefetch(plugin, (view.locator(series, j)
                                                     for j in range(i, min(i + PREFETCH_STEPS, len(series)))))
                step, wall = int(series.steps[i]), fmt_float(series.wall_times[i])
                head = [view.train_id, tag, step, wall]
                if plugin == "scalar":
                    yield name, head + [fmt_float32(series.values[i])]
                    continue
                try:
                    loc = view.locator(series, i)
                    if plugin == "histogram":
                        data = cache.payloads.histogram(loc)
                        for left, width, count in data.buckets.tolist():
                            yield name, head + [fmt_float(left), fmt_float(width), int(count)]
                    elif plugin == "tensor":
                        yield name, head + _tensor_columns(cache.payloads.tensor(loc))
                    else:
                        image = cache.payloads.image(loc)
                        yield name, head + [image.width, image.height]
                except PayloadError:
                    continue  # the file changed under us; the next export has it again


def _extras(cache: SummaryCache, view: JobView, keep: Callable[[TagKey], bool],
            problems: list[str]) -> Iterator[tuple[str, list]]:
    """Loss landscapes (one row per grid point, path point and convergence point) and the job's
    profiles (operators, operator types): every step of them either way, they are small."""
    if view.tag_names("loss_landscape"):
        for row in landscape.landscape_rows(view, cache.payloads):
            if keep(("loss_landscape", row.tag)):
                yield "landscapes", [row.train_id, row.tag, row.kind, row.interval,
                                     fmt_float(row.x), fmt_float(row.y), fmt_float(row.loss)]
    if view.profile_dirs and keep(("profiler", "")):
        ops, types, found = profiler.profile_rows(view.train_id, view.path, cache.source)
        problems.extend(found)
        for name, rows, columns in (("profile_ops", ops, profiler.OP_COLUMNS),
                                    ("profile_op_types", types, profiler.OP_TYPE_COLUMNS)):
            for row in rows:
                yield name, [fmt_float(row[c]) if isinstance(row[c], float) else row[c] for c in columns]


def _tensor_columns(tensor) -> list:
    from .summary.tensors import statistics

    # The declared count, without overflow; none for a shape that is not one (negative dims).
    count = math.prod(tensor.dims) if all(d >= 0 for d in tensor.dims) else ""
    shape = "x".join(str(d) for d in tensor.dims)
    if tensor.array is None:
        return [tensor.dtype, shape, count, "", "", "", "", "", ""]
    stats = statistics(tensor.array)
    return [tensor.dtype, shape, stats["count"], fmt_float(stats["min"]), fmt_float(stats["max"]),
            fmt_float(stats["avg"]), stats["nan_count"], stats["pos_inf_count"], stats["neg_inf_count"]]


# -- every step in the files ----------------------------------------------------------------

def _stream_job(view: JobView, keep: Callable[[TagKey], bool], source: Source) -> Iterator[tuple[str, list]]:
    """Every value of every kept tag in the job's files, per tag, sorted by step (stable).

    Rows are spilled as CSV lines to one temporary file per tag, then each tag is read back,
    sorted and written on its own: memory holds one tag's rows at a time.
    """
    with tempfile.TemporaryDirectory(prefix="tui-insight-export-") as tmp:
        spills: dict[TagKey, tuple[Path, object]] = {}
        plugins = tensorboard.TagPlugins()  # a tag's plugin is named in its first file only
        try:
            for path in view.files:  # by file id: the order the job's files were found in
                for step, wall, key, value in _values_in_file(path, plugins, source):
                    if not keep(key):
                        continue
                    if key not in spills:
                        spill = Path(tmp) / f"{len(spills)}.csv"
                        handle = open(spill, "w", newline="", encoding="utf-8", buffering=1 << 16)
                        spills[key] = (spill, csv.writer(handle, lineterminator="\n"), handle)
                    writer = spills[key][1]
                    for tail in _value_rows(key[0], value):
                        writer.writerow([step, fmt_float(wall), *tail])
        finally:
            for *_, handle in spills.values():
                handle.close()
        for key in sorted(spills, key=lambda k: (k[1], k[0])):
            with open(spills[key][0], newline="", encoding="utf-8") as handle:
                rows = list(csv.reader(handle))
            rows.sort(key=lambda r: int(r[0]))
            for row in rows:
                yield PLUGIN_FILES[key[0]], [view.train_id, key[1], *row]


def _value_rows(plugin: str, value) -> list[list]:
    """The plugin's own CSV columns for one value (a histogram gives one row per bucket)."""
    if isinstance(value, _TBValue):
        return _tb_value_rows(plugin, value)
    if plugin == "scalar":
        return [[fmt_float32(value.scalar_value)]]
    if plugin == "histogram":
        data = histogram_from_proto(value.histogram)
        return [[fmt_float(left), fmt_float(width), int(count)] for left, width, count in data.buckets.tolist()]
    if plugin == "tensor":
        return [_tensor_columns(tensor_from_proto(value.tensor))]
    return [[value.image.width, value.image.height]]


class _TBValue(NamedTuple):
    """A value of a TensorBoard event file: as routed, and as written."""

    routed: tensorboard.TBValue
    value: object  # its Summary.Value (TensorBoard's protos)


def _tb_value_rows(plugin: str, value: _TBValue) -> list[list]:
    """`_value_rows` of a TensorBoard value, decoded as the payload store decodes it; a value
    that cannot be decoded gives no row (the job's state counts it)."""
    if plugin == "scalar":
        return [[fmt_float32(value.routed.scalar)]]
    decoder = {"histogram": tensorboard.histogram_data, "tensor": tensorboard.tensor_data,
               "image": tensorboard.image_data}[plugin]
    data = decoder(value.value)
    if isinstance(data, tensorboard.Problem):
        return []
    if plugin == "histogram":
        return [[fmt_float(left), fmt_float(width), int(count)] for left, width, count in data.buckets.tolist()]
    if plugin == "tensor":
        return [_tensor_columns(data)]
    return [[data.width, data.height]]


def _records_of(path: str, source: Source) -> Iterator[bytes]:
    """Every good record's payload of a file, read through the cache's source (local or remote);
    none when it cannot be read (the job's state already says the file is unreadable)."""
    try:
        size = source.stat(path).st_size
        with source.open_range(path, 0, size) as fh:
            yield from (payload for _, payload in scan_records(fh, 0, size, ScanReport()))
    except OSError:
        return


def _tb_values_in_file(path: str, plugins: tensorboard.TagPlugins,
                       source: Source) -> Iterator[tuple[int, float, TagKey, object]]:
    for payload in _records_of(path, source):
        event = tensorboard.decode_event(payload)
        if event is None:
            continue
        routed = tensorboard.event_of(event, plugins)
        for value in routed.values:
            if value.plugin in PLUGIN_FILES:
                yield (routed.step, routed.wall_time, (value.plugin, value.tag),
                       _TBValue(value, event.summary.value[value.index]))


def _values_in_file(path: str, plugins: tensorboard.TagPlugins,
                    source: Source) -> Iterator[tuple[int, float, TagKey, object]]:
    """Every exported value of a summary or TensorBoard file (`plugins`: the job's TensorBoard tags)."""
    if tensorboard.is_tensorboard_file(os.path.basename(path)):
        yield from _tb_values_in_file(path, plugins, source)
        return
    for payload in _records_of(path, source):
        try:
            event = summary_pb2.Event.FromString(payload)
        except DecodeError:
            continue
        if event.WhichOneof("what") != "summary":
            continue
        for value in event.summary.value:
            field_name = value.WhichOneof("value")
            plugin = PLUGIN_OF_FIELD.get(field_name or "")
            if plugin in PLUGIN_FILES:
                yield event.step, event.wall_time, (plugin, text_of(value.tag)), value


# -- lineage ----------------------------------------------------------------------------------

def _write_lineage(path: Path, views: list[JobView], result: ExportResult) -> None:
    from .summary.lineage import columns, model_rows

    rows = model_rows({v.train_id: v for v in views})
    header = columns(rows)
    with open(path, "w", newline="", encoding="utf-8") as handle:
        writer = csv.writer(handle, lineterminator="\n")
        writer.writerow(header)
        for row in sorted(rows, key=lambda r: r.summary_dir):
            writer.writerow([_cell(row.get(name)) for name in header])
    result.files.append(path)
    result.rows["lineage"] = len(rows)


def _cell(value) -> str:
    if value is None:
        return ""
    if isinstance(value, bool):
        return str(value)
    if isinstance(value, float):
        return fmt_float(value)
    return str(value)
