"""Columnar exports: `--export parquet --out DIR` and `--export arrow` (to stdout).

Parquet: one file per kind in DIR, `scalars.parquet` (the columns of `Logdir.scalars`:
job, tag, step, wall_time, value), `histograms.parquet`, `tensors.parquet` (shape and values as
lists), `pr_curves.parquet` (a row per threshold, as `Logdir.pr_curves`), `distributions.parquet`
(a row per step of each histogram and tensor tag, as `Logdir.distributions`), `lineage.parquet`,
`health.parquet` (the `--summary --json` records) and `problems.parquet` (job, problem), readable by pandas, Polars, DuckDB and Spark without
tui-insight. Jobs are read one at a time; a row group holds a big job or many small ones
(`ROW_GROUP_ROWS`), so memory holds one job and one row group. The files are written as the
CSV export writes them (`ExportDir`: a private directory inside DIR, renamed into place when
complete, never through a link).

Arrow: the scalars as an Arrow IPC stream on stdout, a record batch per job, for piping into
other tools (`| duckdb`, `pyarrow.ipc.open_stream(sys.stdin.buffer)`).
"""
from __future__ import annotations

import json
import math
import time
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager, nullcontext, suppress
from functools import partial
from pathlib import Path
from typing import IO, Any

from .api import (DISTRIBUTION_COLUMNS, PR_CURVE_COLUMNS, Logdir, Table, arrow_strings, arrow_text, distribution_table,
                  histogram_steps_columns, payload_steps, pr_curve_table, scalar_table, tensor_table)
from .export_dir import ExportDir, ExportError, check_destination_of, explain_state
from .export_writer import BlockWriter
from .summary.store.job_view import JobView

ROW_GROUP_ROWS = 1 << 17  # rows of small jobs gathered into one row group (memory: one group)
RUN_ROWS = 1 << 16  # rows of a name's run written at a time by `_labelled_strings`
KINDS = ("scalars", "histograms", "tensors", "pr_curves", "distributions", "lineage", "health", "problems")


def _schemas(pa: Any) -> dict[str, Any]:
    job_tag_step = [("job", pa.string()), ("tag", pa.string()), ("step", pa.int64()), ("wall_time", pa.float64())]
    return {
        "scalars": pa.schema([*job_tag_step, ("value", pa.float64())]),
        "histograms": pa.schema([*job_tag_step, ("left", pa.float64()), ("width", pa.float64()),
                                 ("count", pa.int64())]),
        "tensors": pa.schema([*job_tag_step, ("dtype", pa.string()), ("shape", pa.list_(pa.int64())),
                              ("values", pa.list_(pa.float64()))]),
        "pr_curves": pa.schema([*job_tag_step, *((name, pa.float64()) for name in PR_CURVE_COLUMNS[4:])]),
        "distributions": pa.schema([*job_tag_step, ("kind", pa.string()),
                                    *((name, pa.float64()) for name in DISTRIBUTION_COLUMNS[5:])]),
        "health": pa.schema([("job", pa.string()), ("state", pa.string()), ("badges", pa.list_(pa.string())),
                             ("live", pa.bool_()), ("metric", pa.string()), ("last", pa.float64()),
                             ("best", pa.float64()), ("best_step", pa.int64()), ("lower_is_better", pa.bool_()),
                             ("change_last_10pct", pa.float64()), ("steps_per_second", pa.float64()),
                             ("seconds_since_last_step", pa.float64()), ("last_step", pa.int64()),
                             ("update_time", pa.float64()), ("not_shown", pa.string()),
                             ("problems", pa.list_(pa.string()))]),
        "problems": pa.schema([("job", pa.string()), ("problem", pa.string())]),
    }


def _arrow() -> Any:
    try:
        import pyarrow as pa
    except ImportError as exc:
        raise ExportError("--export parquet and arrow need pyarrow: pip install 'tui-insight[arrow]'") from exc
    return pa


def import_arrow() -> None:
    """pyarrow imported now, as the CLI's export imports it (`_without_pandas`), for a caller that
    imports with the collector off (`cli.importing`); without pyarrow, the export says so."""
    with _without_pandas(), suppress(ExportError):
        _arrow()


# pyarrow.parquet.ParquetWriter's settings, as it hands them to the writer it wraps.
_WRITER_SETTINGS = {"version": "2.6", "use_dictionary": True, "compression": "snappy", "write_statistics": True,
                    "use_deprecated_int96_timestamps": False, "writer_engine_version": "V2",
                    "data_page_version": "1.0", "use_compliant_nested_type": True, "store_schema": True}


def _parquet_writer(pa: Any, sink: IO[bytes], schema: Any) -> Any:
    """A Parquet writer of `schema` into the open file `sink` (`write_table`, `close`): the one
    `pyarrow.parquet.ParquetWriter` wraps, with its settings, so the files are the same bytes.
    pyarrow.parquet imports pyarrow.fs and with it ssl and every remote filesystem (30 ms of a
    0.4 s export) to resolve a path this export never gives; where the wrapped writer is not
    there as this pyarrow has it, pyarrow.parquet's is used."""
    try:
        from pyarrow._parquet import ParquetWriter

        return ParquetWriter(sink, schema, **_WRITER_SETTINGS)
    except (ImportError, TypeError):
        import pyarrow.parquet

        return pyarrow.parquet.ParquetWriter(sink, schema)


# What pyarrow imports when it finds them and an export never needs: pandas (0.2 s, more than
# the rest of the export's imports) whenever pyarrow is handed an array, only to ask whether it
# is a pandas one; cloudpickle (18 ms) as its pickler of extension types (pickle otherwise);
# dateutil (14 ms, with six) on its first list of Python values, for relativedelta.
_HIDDEN = ("pandas", "cloudpickle", "dateutil")


@contextmanager
def _without_pandas() -> Iterator[None]:
    """For the CLI's export, whose process holds no pandas object: the modules of `_HIDDEN`
    cannot be found while this holds (pyarrow takes that as their absence; it needs none of them
    to write Parquet or Arrow). Those imported already are left as they are."""
    import sys

    finder = _Hidden(frozenset(name for name in _HIDDEN if name not in sys.modules))
    if not finder.names:
        yield
        return
    sys.meta_path.insert(0, finder)
    try:
        yield
    finally:
        sys.meta_path.remove(finder)


class _Hidden:
    """A finder that says the packages `names` (and their modules) cannot be imported."""

    def __init__(self, names: frozenset[str]):
        self.names = names

    def find_spec(self, name: str, path: Any = None, target: Any = None) -> None:
        if name.partition(".")[0] in self.names:
            raise ModuleNotFoundError(f"{name} is not looked for in this export", name=name)


def export_parquet(logs: Logdir, out: Path, *, all_steps: bool = False, force: bool = False,
                   progress: Callable[[int, int], None] | None = None) -> dict[str, int]:
    """Write the Parquet files (`KINDS`) of every job of `logs` into `out`; rows written, by kind."""
    pa = _arrow()
    out = check_destination_of(logs.location, out, force)
    try:
        out.mkdir(parents=True, exist_ok=True)
        target = ExportDir(out)
    except OSError as exc:
        raise ExportError(f"cannot create {out}: {exc.strerror or exc}") from exc
    schemas = _schemas(pa)
    rows = dict.fromkeys(KINDS, 0)
    handles: list[IO[bytes]] = []
    thread = BlockWriter()  # writes a row group (pyarrow releases the GIL) while the next tables are made
    try:
        writers = {}
        for kind, schema in schemas.items():
            handles.append(target.open(f"{kind}.parquet"))
            writers[kind] = _parquet_writer(pa, handles[-1], schema)
        lineage_views: list[JobView] = []
        train_ids = logs.job_ids()
        started = time.time()
        pending: dict[str, list] = {kind: [] for kind in writers}  # small jobs' tables, written together

        def flush(kind: str) -> None:  # one group in the thread at a time (memory: one group more)
            group, pending[kind] = pending[kind], []
            if group:
                thread.wait()
                _raise_failure(thread)
                thread.call(f"{kind}.parquet", partial(_flush, pa, writers[kind], group))

        for done, view in enumerate(logs.job_views(all_steps=all_steps), 1):
            last = done >= len(train_ids)  # (its tables end their groups: written as each is made)
            for kind, table in _job_tables(pa, logs, view, all_steps, schemas, started):
                if table.num_rows:
                    pending[kind].append(table)
                    rows[kind] += table.num_rows
                    if last or sum(t.num_rows for t in pending[kind]) >= ROW_GROUP_ROWS:
                        flush(kind)
            lineage_views.append(_without_series(view))
            if progress is not None:
                progress(done, len(train_ids))
        for kind in writers:
            flush(kind)
        lineage = _lineage_table(pa, logs, lineage_views)
        thread.wait()
        _raise_failure(thread)
        for writer in writers.values():
            writer.close()
        with target.open("lineage.parquet") as handle:
            writer = _parquet_writer(pa, handle, lineage.schema)
            writer.write_table(lineage)
            writer.close()
        rows["lineage"] = lineage.num_rows
        for handle in handles:
            handle.close()
        target.commit()
    except OSError as exc:
        thread.stop()
        for handle in handles:
            try:
                handle.close()  # (its buffer is written first: on a full disk that fails too)
            except OSError:
                pass
        where = target.abandon(f"the export stopped: {exc.strerror or exc}\n")
        raise ExportError(f"cannot write to {where}: {exc.strerror or exc}") from exc
    finally:
        thread.stop()
    return rows


def _raise_failure(thread: BlockWriter) -> None:
    if thread.failed is not None:
        raise thread.failed[1]


def _flush(pa: Any, writer: Any, tables: list) -> None:
    """The tables gathered, as one row group (a job with more rows is one on its own)."""
    writer.write_table(pa.concat_tables(tables))


def _without_series(view: JobView) -> JobView:
    from dataclasses import replace
    from types import MappingProxyType

    return replace(view, tags=MappingProxyType({}), graphs=MappingProxyType({}))


def _job_tables(pa: Any, logs: Logdir, view: JobView, all_steps: bool, schemas: dict[str, Any],
                started: float) -> Iterator[tuple[str, Any]]:
    """Each kind's table of one job, in turn (the one before is written meanwhile)."""
    yield "scalars", _scalars(pa, scalar_table([view], None), schemas["scalars"])
    histograms = list(payload_steps([view], logs._cache, "histogram", None, all_steps))  # read once, used twice
    numbers, labels = histogram_steps_columns(histograms)
    yield "histograms", _table(pa, numbers, schemas["histograms"], labels)
    tensors = tensor_table([view], logs, None, all_steps)
    tensor_columns = {**{k: tensors[k] for k in ("job", "tag", "step", "wall_time", "dtype")},
                      "shape": [list(shape) for shape in tensors["shape"]],
                      "values": [None if a is None else a.ravel().tolist() for a in tensors["array"]]}
    yield "tensors", _table(pa, tensor_columns, schemas["tensors"])
    yield "pr_curves", _table(pa, pr_curve_table([view], logs, None, all_steps).columns, schemas["pr_curves"])
    yield "distributions", _table(pa, distribution_table([view], logs, None, all_steps, histograms).columns,
                                  schemas["distributions"])
    yield "health", _table(pa, _health_columns(view, started), schemas["health"])
    yield "problems", _table(pa, _problem_columns(view), schemas["problems"])


def _table(pa: Any, columns: Mapping[str, Any], schema: Any, labels: Mapping[str, Any] | None = None) -> Any:
    """The columns as `schema` says; names (`labels`: codes into them) with bytes that are not
    UTF-8 as `arrow_text` writes them (Parquet's strings are UTF-8)."""
    import numpy as np

    arrays = []
    for field in schema:
        if labels and field.name in labels:  # (not in `columns` then, or as names a row)
            arrays.append(_labelled_strings(pa, *labels[field.name]))
            continue
        column = columns[field.name]
        if field.type == pa.string():  # (a list: pa.array of an array looks for np.ma, `_numbers`)
            arrays.append(arrow_strings(pa, column.tolist() if isinstance(column, np.ndarray) else list(column)))
        else:
            arrays.append(_numbers(pa, _plain(column), field.type))
    return pa.Table.from_arrays(arrays, schema=schema)


def _labelled_strings(pa: Any, codes: Any, names: Any) -> Any:
    """The string array of `names` taken at `codes` (names as `arrow_strings` writes them), its
    offsets and bytes laid out here: `Array.take` would import pyarrow.compute, 25 ms of CPU, a
    tenth of a small export. A job's rows come a tag after another, so each run of one name is
    written as its bytes repeated, into the array's buffer (no copy a row: an all-steps job
    has millions of rows); codes that change more often than every 16 rows are laid out by
    numpy (the names' padded rows taken at `codes`, the padding dropped by each row's length: a
    name may hold a NUL)."""
    import numpy as np

    texts = [arrow_text(name).encode("utf-8") for name in names]
    codes = np.asarray(codes)
    sizes = np.array([len(t) for t in texts] or [0], dtype=np.int64)
    total = int(np.bincount(codes, minlength=len(sizes)) @ sizes) if len(codes) else 0
    if total >= 1 << 31:  # past a string array's 32-bit offsets: pyarrow chunks it
        return arrow_strings(pa, [names[c] for c in codes.tolist()])
    offsets = np.zeros(len(codes) + 1, dtype=np.int32)
    np.cumsum(sizes.astype(np.int32)[codes], out=offsets[1:])
    starts = np.flatnonzero(np.concatenate(([len(codes) > 0], codes[1:] != codes[:-1])))
    if len(starts) * 16 <= len(codes):
        data = np.empty(total, dtype=np.uint8)
        for start, end, code in zip(starts.tolist(), [*starts[1:].tolist(), len(codes)], codes[starts].tolist()):
            if texts[code]:  # the run's rows: its name's bytes, end to end (repeated by bytes, copied
                # by memcpy, `RUN_ROWS` at a time: an all-steps job's run is millions of rows)
                block = texts[code] * min(end - start, RUN_ROWS)
                for at in range(start, end, RUN_ROWS):
                    rows = min(RUN_ROWS, end - at)
                    data[offsets[at]:offsets[at + rows]] = np.frombuffer(block, np.uint8, rows * len(texts[code]))
    else:
        width = int(sizes.max())
        padded = np.array(texts or [b""], dtype=f"S{max(width, 1)}").view(np.uint8).reshape(-1, max(width, 1))
        data = padded[codes][:, :width][np.arange(width) < sizes[codes][:, None]]
    return pa.Array.from_buffers(pa.string(), len(codes), [None, pa.py_buffer(offsets), pa.py_buffer(data)])


def _scalars(pa: Any, table: Table, schema: Any) -> Any:
    """A table whose job and tag are labelled (`Table.labels`): Arrow strings without a Python string a row."""
    return _table(pa, table.columns, schema, table.labels)


def _numbers(pa: Any, column: Any, kind: Any) -> Any:
    """The array of `kind` of a column: a numpy column of that type as its buffer, without a
    copy and without `pa.array`, which looks for a masked array by `np.ma` (numpy imports
    numpy.ma then: 22 ms)."""
    import numpy as np

    if isinstance(column, np.ndarray) and column.ndim == 1 and kind in (pa.float64(), pa.int64()) \
            and column.dtype == (np.float64 if kind == pa.float64() else np.int64):
        column = np.ascontiguousarray(column)
        return pa.Array.from_buffers(kind, len(column), [None, pa.py_buffer(column)])
    return pa.array(column, type=kind)


def _plain(column: Any) -> Any:
    import numpy as np

    return column if isinstance(column, np.ndarray) else list(column)  # pyarrow reads object arrays of str


def _health_columns(view: JobView, started: float) -> dict[str, list]:
    from .health_report import json_row
    from .summary.queries.health import JobHealth

    now = time.time()
    record = json_row(view, JobHealth.of(view, None, seen_within=max(0.0, now - started)), now)
    record["job"] = record.pop("train_id")
    record["not_shown"] = json.dumps(record["not_shown"])
    for name in ("last_step", "best_step"):
        if record[name] is not None:
            record[name] = int(record[name])
    return {name: [value] for name, value in record.items()}


def _problem_columns(view: JobView) -> dict[str, list]:
    state = [explain_state(view.state)] if view.state not in ("ok", "loading") else []
    problems = state + list(view.problems)
    return {"job": [view.train_id] * len(problems), "problem": problems}


def _lineage_table(pa: Any, logs: Logdir, views: list[JobView]) -> Any:
    """Lineage columns as they come: a column whose jobs disagree on the type is text."""
    from .summary.queries import export_columns

    if export_columns.without_lineage(views):
        found: list = []
        names = list(export_columns.LINEAGE_COLUMNS)
    else:
        from .summary.queries.lineage import columns, model_rows

        found = sorted(model_rows({v.train_id: v for v in views}), key=lambda r: r.summary_dir)
        names = columns(found)
    arrays = {}
    for name in names:
        values = [_cell(row.get(name)) for row in found]
        try:
            arrays[name] = pa.array(values)
        except (pa.ArrowInvalid, pa.ArrowTypeError):
            arrays[name] = pa.array([None if v is None else str(v) for v in values], type=pa.string())
    return pa.table(arrays) if arrays else pa.table({"summary_dir": pa.array([], type=pa.string())})


def _cell(value: Any) -> Any:
    if isinstance(value, (dict, list)):
        return json.dumps(value)
    if isinstance(value, float) and math.isnan(value):
        return None
    return value


def export_arrow(logs: Logdir, sink: IO[bytes], *, all_steps: bool = False) -> int:
    """The scalars of every job as an Arrow IPC stream on `sink`, a record batch per job; rows."""
    pa = _arrow()
    schema = _schemas(pa)["scalars"]
    rows = 0
    with pa.ipc.new_stream(sink, schema) as stream:
        for view in logs.job_views(all_steps=all_steps):
            table: Table = scalar_table([view], None)
            if len(table):
                stream.write_table(_scalars(pa, table, schema))
                rows += len(table)
    return rows


def run(kind: str, source: Any, out: Path | None, *, all_steps: bool, force: bool, program: bool = False) -> int:
    """The CLI's `--export parquet|arrow`: the exit status (2 with one line on stderr on error).
    `program`: this process is the program (one export, then exit), so pandas may be hidden from
    pyarrow (`_without_pandas`); pyarrow remembers a pandas it could not import for the rest of the
    process, so a caller of `main(argv)` (a test, a notebook) keeps it."""
    import sys

    from .api import ApiError
    from .escape import shown

    try:
        with _without_pandas() if program else nullcontext(), Logdir.over(source) as logs:
            for problem in logs.problems:
                print(f"tui-insight: warning: {shown(problem)}", file=sys.stderr)
            if kind == "arrow":
                export_arrow(logs, sys.stdout.buffer, all_steps=all_steps)
                sys.stdout.buffer.flush()
                return 0
            assert out is not None
            rows = export_parquet(logs, out, all_steps=all_steps, force=force)
    except (ApiError, ExportError) as exc:
        print(f"tui-insight: error: {shown(str(exc))}", file=sys.stderr)
        return 2
    print(f"exported {', '.join(f'{n} {kind}' for kind, n in rows.items())} rows to {shown(str(out))}",
          file=sys.stderr)
    return 0
