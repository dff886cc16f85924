"""The public Python API: a LOGDIR's jobs, scalars, payloads, lineage and health, in a script.

    import tui_insight
    with tui_insight.open("./logs") as logs:
        frame = logs.scalars(tags="*loss*")          # job, tag, step, wall_time, value

Everything here reads through the same cache, routers, decoders and restart rules as the
screens and `--export csv`; job ids and tag names are the ones `--export csv` writes. Jobs are
read one at a time and forgotten after (only their digests are kept for `jobs()`), so memory
follows what is asked for, not the size of the LOGDIR.

Tables: a pandas DataFrame when pandas is installed (`pip install 'tui-insight[pandas]'`), else
a `Table` (numpy columns, `.records()`); `output="table"`, `"pandas"` or `"arrow"` asks for one.
Errors are `ApiError`s: `LogdirNotFound`, `RemoteError`, `BadFilter`, `MissingExtra`.
"""
from __future__ import annotations

import fnmatch
import importlib.util
import os
import warnings
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field, replace
from types import MappingProxyType
from typing import TYPE_CHECKING, Any, Literal

import numpy as np

from .summary.formats.values import PayloadError
from .summary.queries.distributions import BP_COLUMNS, compress_many, payload_distribution
from .summary.queries.histograms import tags_steps
from .summary.sources.location import remote_kind
from .summary.store.cache import SummaryCache
from .summary.store.job_view import JobView

if TYPE_CHECKING:  # (imported by an all-steps read only: it brings formats.tensorboard, 20 ms)
    from .summary.store.every_step import RestartRules, StepValue

__all__ = ["open", "Logdir", "Table", "ApiError", "LogdirNotFound", "RemoteError", "BadFilter", "MissingExtra"]

Output = Literal["auto", "table", "pandas", "arrow"]
Patterns = str | Iterable[str] | None
SCALAR_COLUMNS = ("job", "tag", "step", "wall_time", "value")


class ApiError(Exception):
    """Any error of the API; the message says what to do."""


class LogdirNotFound(ApiError):
    """The LOGDIR does not exist or cannot be read."""


class RemoteError(ApiError):
    """A remote LOGDIR (user@host:/path or a URL) cannot be reached or listed."""


class BadFilter(ApiError, ValueError):
    """A lineage filter that cannot be used (the lineage view's message)."""


class MissingExtra(ApiError, ImportError):
    """A DataFrame or Arrow table was asked for without the extra that provides it."""


@dataclass(frozen=True)
class Table:
    """Columns of equal length, by name (numpy arrays, or lists for bytes, text and arrays).

    `labels`: for columns of few distinct names (the scalars' job and tag), their codes into
    those names, so that pandas gets categoricals and Arrow dictionaries without a Python
    string a row; `columns` holds the same column as an object array of the names."""

    columns: Mapping[str, Any]
    labels: Mapping[str, tuple[np.ndarray, tuple[str, ...]]] = field(default_factory=dict, repr=False)

    def __len__(self) -> int:
        return len(next(iter(self.columns.values()))) if self.columns else 0

    def __getitem__(self, name: str) -> Any:
        return self.columns[name]

    def records(self) -> list[dict[str, Any]]:
        """One dict a row, with Python values."""
        names = list(self.columns)
        lists = [_as_list(self.columns[n]) for n in names]
        return [dict(zip(names, row)) for row in zip(*lists)]

    def to_pandas(self) -> Any:
        """A DataFrame over the same arrays (not copied); labelled columns are categoricals."""
        pandas = _extra("pandas", "pandas")
        columns = {}
        for name, column in self.columns.items():
            if name in self.labels:
                codes, names = self.labels[name]
                columns[name] = pandas.Categorical.from_codes(codes, categories=_pandas_strings(pandas, names))
            else:
                columns[name] = _pandas_column(column)
        try:
            return pandas.DataFrame(columns, copy=False)
        except UnicodeEncodeError:  # a name with bytes that are not UTF-8: its column as objects
            return pandas.DataFrame({name: pandas.Series(column, dtype=object)
                                     if isinstance(column, np.ndarray) and column.dtype == object else column
                                     for name, column in columns.items()}, copy=False)

    def to_arrow(self) -> Any:
        """A pyarrow Table; labelled columns are dictionary arrays (Parquet's own encoding)."""
        pyarrow = _extra("pyarrow", "arrow")
        columns = {}
        for name, column in self.columns.items():
            if name in self.labels:
                codes, names = self.labels[name]
                columns[name] = pyarrow.DictionaryArray.from_arrays(codes, arrow_strings(pyarrow, names))
            else:
                columns[name] = _arrow_column(pyarrow, column)
        return pyarrow.table(columns)


def _as_list(column: Any) -> list:
    return column.tolist() if isinstance(column, np.ndarray) else list(column)


def _pandas_column(column: Any) -> Any:
    return column if isinstance(column, np.ndarray) else _object_array(column)


def _pandas_strings(pandas: Any, names: tuple[str, ...]) -> Any:
    """Names as pandas' own string type, or as Python objects when one carries bytes that are
    not UTF-8 (surrogate escapes: pandas' Arrow-backed strings cannot hold them)."""
    try:
        return pandas.Index(names)
    except UnicodeEncodeError:
        return pandas.Index(names, dtype=object)


def _object_array(values: list) -> np.ndarray:
    out = np.empty(len(values), dtype=object)
    out[:] = values
    return out


def arrow_text(name: str) -> str:
    """`name` as Arrow and Parquet can hold it (UTF-8): a byte that is not UTF-8 (a surrogate
    escape, as in a job directory's name) as `\\xNN`, as the screens show it; any other lone
    surrogate as `\\uXXXX`."""
    try:
        name.encode("utf-8")
        return name
    except UnicodeEncodeError:
        return "".join(f"\\x{ord(c) - 0xDC00:02x}" if 0xDC80 <= ord(c) <= 0xDCFF
                       else f"\\u{ord(c):04x}" if 0xD800 <= ord(c) <= 0xDFFF else c for c in name)


def arrow_strings(pyarrow: Any, values: Any) -> Any:
    """A string array of `values` (str or None), names with bytes that are not UTF-8 as `arrow_text`."""
    try:
        return pyarrow.array(values, pyarrow.string())
    except UnicodeEncodeError:
        return pyarrow.array([v if v is None else arrow_text(v) for v in values], pyarrow.string())


def _arrow_column(pyarrow: Any, column: Any) -> Any:
    if isinstance(column, np.ndarray) and column.dtype != object:
        return pyarrow.array(column)
    values = list(column)
    if any(isinstance(v, np.ndarray) for v in values):  # tensors: nested lists of their values
        values = [v.tolist() if isinstance(v, np.ndarray) else v for v in values]
    if values and any(isinstance(v, str) for v in values[:1]):
        return arrow_strings(pyarrow, values)
    return pyarrow.array(values)


def _extra(module: str, extra: str) -> Any:
    if importlib.util.find_spec(module) is None:
        raise MissingExtra(f"{module} is not installed: pip install 'tui-insight[{extra}]' adds it")
    return importlib.import_module(module)


def _shaped(table: Table, output: Output) -> Any:
    if output == "table":
        return table
    if output == "pandas":
        return table.to_pandas()
    if output == "arrow":
        return table.to_arrow()
    if importlib.util.find_spec("pandas") is None:
        warnings.warn("pandas is not installed: tables are returned as tui_insight.api.Table "
                      "(pip install 'tui-insight[pandas]' for DataFrames)", stacklevel=3)
        return table
    return table.to_pandas()


def _patterns(patterns: Patterns) -> tuple[str, ...] | None:
    if patterns is None:
        return None
    return (patterns,) if isinstance(patterns, str) else tuple(patterns)


def _matches(name: str, patterns: tuple[str, ...] | None) -> bool:
    """Shell-style patterns (`*loss*`, `./lenet_*`); a job also by its name without `./`."""
    if patterns is None:
        return True
    names = (name, name[2:]) if name.startswith("./") else (name,)
    return any(fnmatch.fnmatchcase(n, p) for p in patterns for n in names)


def open(logdir: str | os.PathLike | Sequence[str | os.PathLike], *, ssh_options: Iterable[str] = (),
         storage_options: Mapping[str, Any] | None = None,
         disk_cache: bool = False) -> Logdir:  # noqa: A001 - the API's name
    """Open LOGDIR (a local path, `user@host:/path` or a URL such as `s3://bucket/runs`), or
    several as one (a list): jobs are then named by their source, `node1:./run`, as in the app.

    `ssh_options`: arguments for ssh (`["-o", "Port=2222"]`); `storage_options`: for fsspec.
    `disk_cache=True`: keep each job's snapshot in the user's cache directory, as the app does,
    so a later call reads only what was appended since (`jobs()` of a finished sweep, again).
    Raises LogdirNotFound or RemoteError. Use as a context manager (closes connections)."""
    if not isinstance(logdir, (str, os.PathLike)):
        source: Any = _several(list(logdir), list(ssh_options), dict(storage_options or {}))
    else:
        text = os.fspath(logdir)
        kind = remote_kind(text)
        source = text if kind is None else _remote_source(text, kind, list(ssh_options), dict(storage_options or {}))
    try:
        return Logdir.over(source, owned=True, disk_cache=disk_cache)
    except ApiError:
        if not isinstance(source, str):
            source.close()
        raise


def _remote_source(text: str, kind: str | None, ssh_options: list[str], storage_options: dict) -> Any:
    from .summary.sources.local import SourceError

    try:
        if kind == "url":
            from .summary.sources.object_store import FsspecSource

            return FsspecSource(text, storage_options)
        from .summary.sources.ssh import SshSource

        return SshSource(text, ssh_options)
    except (SourceError, OSError, ValueError) as exc:
        raise RemoteError(f"{text}: {exc}") from exc


def _several(logdirs: list, ssh_options: list[str], storage_options: dict) -> Any:
    """One source over several LOGDIRs (`sources.multi`); a remote one that cannot be opened
    raises RemoteError (the app goes on without it; a script asked for it by name)."""
    from .summary.sources.multi import MultiSource, unique_labels

    texts = [os.fspath(logdir) for logdir in logdirs]
    if not texts:
        raise LogdirNotFound("no LOGDIR given")
    sources = []
    try:
        for text in texts:
            kind = remote_kind(text)
            if kind is None and not os.path.isdir(text):
                raise LogdirNotFound(f"{text}: not a directory")
            sources.append(text if kind is None else _remote_source(text, kind, ssh_options, storage_options))
    except ApiError:
        for source in sources:
            if not isinstance(source, str):
                source.close()
        raise
    return MultiSource(sources, unique_labels(texts))


class Logdir:
    """An open LOGDIR (`tui_insight.open`). Every method reads the files as they are now."""

    def __init__(self, cache: SummaryCache, remote: Any = None):
        self._cache = cache
        self._remote = remote  # the source to close with the Logdir (None: a path, or not ours)
        self._every: SummaryCache | None = None  # the cache of `all_steps` scalars, made when asked
        self._listing: SummaryCache | None = None  # the cache of `jobs`, `health`, `final`: no series kept

    @classmethod
    def over(cls, source: Any, owned: bool = False, disk_cache: bool = False) -> Logdir:
        """A Logdir over a local path or an open `Source` (closed by `close` if `owned`).
        Raises LogdirNotFound or RemoteError."""
        disk = None
        if disk_cache:
            from .summary.store.disk_cache import DiskCache

            disk = DiskCache()
        cache = SummaryCache(source, disk_cache=disk)
        where = cache.logdir
        try:
            cache.discover_jobs()
        except OSError as exc:  # a remote that cannot be reached (SourceError is an OSError)
            raise RemoteError(f"{where}: {exc}") from exc
        if cache.error:
            error = LogdirNotFound if cache.source.is_local else RemoteError
            raise error(f"{where}: {cache.error}")
        return cls(cache, source if owned and not isinstance(source, str) else None)

    def __enter__(self) -> Logdir:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def close(self) -> None:
        """Close the remote connection, if any (also done on leaving a `with` block)."""
        if self._remote is not None:
            self._remote.close()
            self._remote = None

    @property
    def problems(self) -> tuple[str, ...]:
        """Directory-level problems of the last listing (a job's own are in its health record)."""
        return tuple(self._cache.problems)

    # -- jobs ---------------------------------------------------------------------------

    def job_ids(self, jobs: Patterns = None) -> list[str]:
        """The train ids (as `--export csv` writes them), sorted; narrowed by patterns."""
        wanted = _patterns(jobs)
        return [tid for tid in self._cache.discover_jobs() if _matches(tid, wanted)]

    def jobs(self, jobs: Patterns = None, *, metric: str | None = None, output: Output = "auto") -> Any:
        """What the job list shows, a row per job: job, state, health, metric, last, best,
        best_step, steps_per_second, last_step, update_time (`--summary --json`'s fields).
        Read from each job's digests: no series is kept."""
        return _shaped(_records_table(self.health(jobs, metric=metric)), output)

    def health(self, jobs: Patterns = None, *, metric: str | None = None) -> list[dict[str, Any]]:
        """`--summary --json`: one record per job (state, badges, headline metric, not_shown,
        problems). `metric`: the headline tag (default: each job's loss)."""
        import time

        from .health_report import json_row
        from .summary.queries.health import JobHealth

        started = time.time()
        views = self._listed(jobs)
        now = time.time()
        records = []
        for view in views:
            record = json_row(view, JobHealth.of(view, metric, seen_within=max(0.0, now - started)), now)
            records.append({"job": record.pop("train_id"), **record})
        return records

    def final(self, jobs: Patterns = None, tags: Patterns = None, *, output: Output = "auto") -> Any:
        """Every scalar tag's final and best values, a row per job and tag, from the job list's
        digests (no series read into memory; with `disk_cache=True` a job whose files did not
        change since is listed from its entry's header, its files not read): job, tag, steps
        (kept), values_read, first_step, last_step, last_wall_time, last, min, min_step, max,
        max_step, nonfinite. min/max skip NaN and inf (NaN when no value is finite)."""
        wanted = _patterns(tags)
        names = ("job", "tag", "steps", "values_read", "first_step", "last_step", "last_wall_time", "last",
                 "min", "min_step", "max", "max_step", "nonfinite")
        rows: dict[str, list] = {name: [] for name in names}
        for view in self._listed(jobs):
            for tag in sorted(view.digests):
                if _matches(tag, wanted):
                    d = view.digests[tag]
                    for name, value in zip(names, (view.train_id, tag, d.count, d.seen, d.first_step, d.last_step,
                                                   d.last_wall, d.last_value, d.min_value, d.min_step, d.max_value,
                                                   d.max_step, d.nonfinite)):
                        rows[name].append(value)
        ints = {"steps", "values_read", "first_step", "last_step", "min_step", "max_step", "nonfinite"}
        columns = {name: (_object_array(values) if name in ("job", "tag") else
                          np.array(values, dtype=np.int64 if name in ints else np.float64))
                   for name, values in rows.items()}
        return _shaped(Table(columns), output)

    def _listed(self, jobs: Patterns) -> list[JobView]:
        """The matching jobs as the job list keeps them, after a full pass of a cache that keeps
        no series (a memory budget of 0 bytes: a job's series go once its digests are made, so
        memory holds one job's at a time; a warm disk cache lists unchanged jobs from headers)."""
        if self._listing is None:
            self._listing = SummaryCache(self._cache.source, memory_budget=0, disk_cache=self._cache.disk)
        self._listing.reload()
        wanted = _patterns(jobs)
        return [view for train_id, view in self._listing.jobs.items() if _matches(train_id, wanted)]

    @property
    def series_bytes(self) -> int:
        """Bytes of series this Logdir holds in memory now (0 between calls: every method reads
        its jobs one at a time, and `jobs`, `health` and `final` keep digests only)."""
        caches = [c for c in (self._cache, self._every, self._listing) if c is not None]
        return sum(series.nbytes for c in caches for view in c.jobs.values() for series in view.tags.values())

    @property
    def bytes_read(self) -> int:
        """Bytes of the LOGDIR's event files read so far by this Logdir (not counting payloads
        read again for images, histograms and the like)."""
        caches = [c for c in (self._cache, self._every, self._listing) if c is not None]
        return sum(c.progress.bytes_read for c in caches)

    @property
    def location(self) -> str:
        """The LOGDIR: its path, or the remote location as given."""
        return self._cache.logdir

    def job_views(self, jobs: Patterns = None, *, all_steps: bool = False) -> Iterator[JobView]:
        """Each matching job read in full, one at a time (for tui-insight's own exporters: a
        `JobView` is internal and may change; the tables are the stable surface)."""
        return self._views(jobs, every_scalar=all_steps)

    def _views(self, jobs: Patterns, every_scalar: bool = False) -> Iterator[JobView]:
        """Each matching job read in full, one at a time, forgotten once the caller moves on;
        `every_scalar`: read by a cache whose scalar series keep every step (same rules)."""
        cache = self._cache
        train_ids = self.job_ids(jobs)
        if every_scalar:
            if self._every is None:
                self._every = SummaryCache(self._cache.source, every_step=frozenset({"scalar"}))
            cache = self._every
            cache.discover_jobs()
        for train_id in train_ids:
            view = cache.load_job(train_id)
            if view is None:
                continue
            try:
                yield view
            finally:
                cache.forget(train_id)

    # -- series -------------------------------------------------------------------------

    def scalars(self, jobs: Patterns = None, tags: Patterns = None, *, all_steps: bool = False,
                output: Output = "auto") -> Any:
        """One long table: job, tag, step, wall_time, value; by job, tag, step.

        By default the steps the screens keep (MindInsight's 1,000 a tag, evenly sampled); with
        `all_steps=True` every step in the files, after the store's restart rules (a step
        written again replaces the earlier value, a resumed or restarted run drops the steps it
        rolls back). Values are the float32 the writer wrote, widened exactly."""
        return _shaped(scalar_table(self._views(jobs, every_scalar=all_steps), _patterns(tags)), output)

    def histograms(self, jobs: Patterns = None, tags: Patterns = None, *, all_steps: bool = False,
                   output: Output = "auto") -> Any:
        """A row per bucket: job, tag, step, wall_time, left, width, count (as `--export csv`)."""
        return _shaped(histogram_table(self._views(jobs), self, _patterns(tags), all_steps), output)

    def tensors(self, jobs: Patterns = None, tags: Patterns = None, *, all_steps: bool = False,
                output: Output = "auto") -> Any:
        """A row per step: job, tag, step, wall_time, dtype, shape, array (a numpy array; None
        for a tensor whose values are not kept: over 10 million elements, or unreadable)."""
        return _shaped(tensor_table(self._views(jobs), self, _patterns(tags), all_steps), output)

    def pr_curves(self, jobs: Patterns = None, tags: Patterns = None, *, all_steps: bool = False,
                  output: Output = "auto") -> Any:
        """TensorBoard PR curves, a row per threshold (every threshold written, as `--export
        csv`'s pr_curves.csv): job, tag, step, wall_time, threshold, tp, fp, tn, fn, precision,
        recall (counts as floats: a weighted count is fractional)."""
        return _shaped(pr_curve_table(self._views(jobs), self, _patterns(tags), all_steps), output)

    def distributions(self, jobs: Patterns = None, tags: Patterns = None, *, all_steps: bool = False,
                      output: Output = "auto") -> Any:
        """TensorBoard's distributions, a row per step of each histogram and tensor tag (as
        `--export csv`'s distributions.csv): job, tag, step, wall_time, kind ("histogram" or
        "tensor"), then the value at each of TensorBoard's basis points, bp_0 (the minimum) …
        bp_5000 (the median) … bp_10000 (the maximum), computed as TensorBoard computes them."""
        return _shaped(distribution_table(self._views(jobs), self, _patterns(tags), all_steps), output)

    def images(self, jobs: Patterns = None, tags: Patterns = None, *, all_steps: bool = False,
               as_arrays: bool = False, output: Output = "auto") -> Any:
        """A row per image, every image of a step (`sample` from 0, as `--export csv`): job, tag,
        step, wall_time, sample, width, height, png (the PNG bytes as written), or with
        `as_arrays=True` an `image` column of (height, width[, channels]) uint8 arrays instead
        (needs Pillow)."""
        rows: dict[str, list] = {name: [] for name in ("job", "tag", "step", "wall_time", "sample", "width", "height")}
        pictures: list = []
        for job, tag, step, wall, samples in payload_steps(self._views(jobs), self._cache, "image", _patterns(tags), all_steps):
            for sample, data in samples:
                for name, value in zip(rows, (job, tag, step, wall, sample, data.width, data.height)):
                    rows[name].append(value)
                pictures.append(data.png)
        if as_arrays:
            rows["image"] = [_png_array(png) for png in pictures]
        else:
            rows["png"] = pictures
        return _shaped(_typed(rows), output)

    def text(self, jobs: Patterns = None, tags: Patterns = None, *, all_steps: bool = False,
             output: Output = "auto") -> Any:
        """TensorBoard text values, a row per step: job, tag, step, wall_time, text."""
        rows: dict[str, list] = {name: [] for name in ("job", "tag", "step", "wall_time", "text")}
        for job, tag, step, wall, data in payload_steps(self._views(jobs), self._cache, "text", _patterns(tags), all_steps):
            for name, value in zip(rows, (job, tag, step, wall, data.text)):
                rows[name].append(value)
        return _shaped(_typed(rows), output)

    # -- lineage and extras ---------------------------------------------------------------

    def lineage(self, filter: str | None = None, *, jobs: Patterns = None,  # noqa: A002 - the view's word
                output: Output = "auto") -> Any:
        """MindInsight's model lineage (`filter_summary_lineage`), a row per job with lineage:
        summary_dir, the fixed columns, `metric/<k>`, `user_defined/<k>` (TensorBoard hparams
        under the columns the lineage view puts them in). `filter` is the lineage view's filter
        language (`learning_rate>0.01 metric/Accuracy>=0.9`); BadFilter if it cannot be used."""
        from .summary.queries.lineage import LineageQueryError, columns, filter_rows, model_rows, parse_conditions

        views = {}
        for view in self._views(jobs):
            views[view.train_id] = replace(view, tags=MappingProxyType({}), graphs=MappingProxyType({}))
        rows = model_rows(views)
        header = columns(rows)
        if filter:
            try:
                rows = filter_rows(rows, parse_conditions(filter, header))
            except LineageQueryError as exc:
                raise BadFilter(str(exc)) from exc
        rows = sorted(rows, key=lambda r: r.summary_dir)
        table = Table({name: [row.get(name) for row in rows] for name in header})
        return _shaped(table, output)

    def custom_scalars(self, jobs: Patterns = None, output: Output = "auto") -> Any:
        """TensorBoard custom scalar layouts (`add_custom_scalars`), a row per chart, as `--export
        csv`'s custom_scalars.csv: job, category, chart, kind (multiline or margin), tags (the
        chart's regexes `;`-joined; a margin's series as value,lower,upper). The layout only:
        the scalars it draws are in `scalars()`. Read with the job list's digests: no series."""
        from .summary.formats import custom_scalars

        rows = [row for view in self._listed(jobs) if view.custom_scalars is not None
                for row in custom_scalars.rows(view.train_id, view.custom_scalars)]
        names = ("job", *custom_scalars.CSV_COLUMNS[1:])
        return _shaped(Table({name: _object_array([row[i] for row in rows]) for i, name in enumerate(names)}), output)

    def landscapes(self, jobs: Patterns = None, output: Output = "auto") -> Any:
        """Loss landscapes, a row per grid, path and convergence point (`--export csv`'s)."""
        from .summary.queries import landscape

        names = list(landscape.CSV_COLUMNS)
        rows: dict[str, list] = {name: [] for name in names}
        for view in self._views(jobs):
            if view.tag_names("loss_landscape"):
                for row in landscape.landscape_rows(view, self._cache.payloads):
                    for name, value in zip(names, (row.train_id, row.tag, row.kind, row.interval, row.x, row.y, row.loss)):
                        rows[name].append(value)
        return _shaped(_typed(rows), output)

    def profile(self, jobs: Patterns = None, output: Output = "auto") -> tuple[Any, Any]:
        """The profiler's tables of the jobs that hold them: (operators, operator types)."""
        from .summary.queries import profiler

        ops: list[dict] = []
        types: list[dict] = []
        for view in self._views(jobs):
            if view.profile_dirs:
                found_ops, found_types, _ = profiler.profile_rows(view.train_id, view.path, self._cache.source)
                ops.extend(found_ops)
                types.extend(found_types)
        return (_shaped(_records_table(ops, profiler.OP_COLUMNS), output),
                _shaped(_records_table(types, profiler.OP_TYPE_COLUMNS), output))


# -- building tables (also the Parquet export's, a job at a time) ------------------------

def scalar_table(views: Iterable[JobView], wanted: tuple[str, ...] | None) -> Table:
    """`Logdir.scalars` of `views` (tags matching `wanted`, None: all): their series as kept."""
    parts: list[tuple[str, str, np.ndarray, np.ndarray, np.ndarray]] = []
    for view in views:
        for tag in view.tag_names("scalar"):
            if _matches(tag, wanted):
                series = view.series("scalar", tag)
                if series is None:
                    continue
                parts.append((view.train_id, tag, series.steps, series.wall_times, series.values))
    return _scalar_table(parts)


def histogram_table(views: Iterable[JobView], logs: Logdir, wanted: tuple[str, ...] | None,
                    all_steps: bool, labelled: bool = False) -> Table:
    """`Logdir.histograms` of `views`, jobs of `logs` (`Logdir.job_views`): a row per bucket, each
    step's head repeated over its buckets by numpy. `labelled`: job and tag as codes too (`Table.labels`)."""
    return histogram_steps_table(payload_steps(views, logs._cache, "histogram", wanted, all_steps), labelled)


def histogram_steps_table(steps: Iterable[tuple], labelled: bool = False) -> Table:
    """`histogram_table` of (job, tag, step, wall_time, HistogramData) steps (`payload_steps`)."""
    numbers, labels = histogram_steps_columns(steps)
    columns = {name: _object_array(list(names))[codes] for name, (codes, names) in labels.items()}
    return Table({**columns, **numbers}, labels=labels if labelled else {})


def histogram_steps_columns(steps: Iterable[tuple]) -> tuple[dict[str, np.ndarray], dict[str, tuple]]:
    """`histogram_steps_table`'s columns of numbers, and its job and tag as codes into their
    names (`Table.labels`), without a column of names (the Parquet export's: no object a row)."""
    heads: dict[str, list] = {name: [] for name in ("job", "tag", "step", "wall_time")}
    buckets: list[np.ndarray] = []
    for head in steps:
        for name, value in zip(heads, head):
            heads[name].append(value)
        buckets.append(head[4].buckets)
    lengths = np.array([len(b) for b in buckets], dtype=np.int64)
    left, width, count = (np.concatenate([b[:, i] for b in buckets]) if buckets else np.empty(0) for i in range(3))
    columns = {"step": np.repeat(np.array(heads["step"], dtype=np.int64), lengths),
               "wall_time": np.repeat(np.array(heads["wall_time"], dtype=np.float64), lengths),
               "left": left, "width": width,  # (a column at a time: no strided copy of all buckets)
               "count": count.astype(np.int64)}  # (finite, at most 2**53: int() of each)
    return columns, {"job": _codes(heads["job"], lengths), "tag": _codes(heads["tag"], lengths)}


def tensor_table(views: Iterable[JobView], logs: Logdir, wanted: tuple[str, ...] | None,
                 all_steps: bool) -> Table:
    """`Logdir.tensors` of `views`, jobs of `logs` (`Logdir.job_views`)."""
    cache = logs._cache
    rows: dict[str, list] = {name: [] for name in ("job", "tag", "step", "wall_time", "dtype", "shape", "array")}
    for job, tag, step, wall, data in payload_steps(views, cache, "tensor", wanted, all_steps):
        for name, value in zip(rows, (job, tag, step, wall, data.dtype, tuple(data.dims), data.array)):
            rows[name].append(value)
    return _typed(rows)


PR_CURVE_COLUMNS = ("job", "tag", "step", "wall_time", "threshold", "tp", "fp", "tn", "fn", "precision", "recall")


def pr_curve_table(views: Iterable[JobView], logs: Logdir, wanted: tuple[str, ...] | None,
                   all_steps: bool) -> Table:
    """`Logdir.pr_curves` of `views`, jobs of `logs` (`Logdir.job_views`): a row per threshold."""
    heads: dict[str, list] = {name: [] for name in PR_CURVE_COLUMNS[:4]}
    counts: list[int] = []
    curves: list[np.ndarray] = []  # (7, n): the thresholds, then tp, fp, tn, fn, precision, recall
    for job, tag, step, wall, data in payload_steps(views, logs._cache, "pr_curve", wanted, all_steps):
        for name, value in zip(heads, (job, tag, step, wall)):
            heads[name].append(value)
        counts.append(data.values.shape[1])
        curves.append(np.vstack([data.thresholds[np.newaxis, :], data.values]))
    repeats = np.array(counts, dtype=np.int64)
    joined = np.hstack(curves) if curves else np.empty((7, 0))
    columns: dict[str, Any] = {name: np.repeat(_typed({name: values}).columns[name], repeats)
                               for name, values in heads.items()}
    for i, name in enumerate(PR_CURVE_COLUMNS[4:]):
        columns[name] = np.ascontiguousarray(joined[i])  # counts as floats: weighted ones are fractional
    return Table(columns)


DISTRIBUTION_COLUMNS = ("job", "tag", "step", "wall_time", "kind", *BP_COLUMNS)
COMPRESSED_TOGETHER = 128  # histograms whose distributions are computed at once (memory: their buckets, a few
# times; 1,000 of 580 buckets took 22.5 ms of CPU, 128 at a time 13.9: they stay in the CPU's caches)


def distribution_table(views: Iterable[JobView], logs: Logdir, wanted: tuple[str, ...] | None,
                       all_steps: bool, histograms: list[tuple] | None = None) -> Table:
    """`Logdir.distributions` of `views`, jobs of `logs` (`Logdir.job_views`): a row per step,
    a job's histogram tags, then its tensor tags (a tensor whose values were not kept: no row).
    `histograms`: the histogram steps of the one view (`payload_steps`), already read."""
    heads: dict[str, list] = {name: [] for name in DISTRIBUTION_COLUMNS[:5]}
    values: list[np.ndarray] = []  # rows of basis-point values
    for view in views:
        for plugin in ("histogram", "tensor"):
            steps = histograms if plugin == "histogram" and histograms is not None else \
                payload_steps([view], logs._cache, plugin, wanted, all_steps)
            if plugin == "histogram":  # every step's at once (`compress_many`: the same values)
                steps = list(steps)
                for job, tag, step, wall, _ in steps:
                    for name, value in zip(heads, (job, tag, step, wall, plugin)):
                        heads[name].append(value)
                with np.errstate(over="ignore", invalid="ignore"):  # (as `payload_distribution`)
                    for at in range(0, len(steps), COMPRESSED_TOGETHER):
                        values.append(compress_many([data.buckets for *_, data in steps[at:at + COMPRESSED_TOGETHER]]))
                continue
            for job, tag, step, wall, data in steps:
                found = payload_distribution(data)
                if found is None:
                    continue
                for name, value in zip(heads, (job, tag, step, wall, plugin)):
                    heads[name].append(value)
                values.append(np.array([found], dtype=np.float64))
    columns: dict[str, Any] = dict(_typed(heads).columns)
    table = np.concatenate(values) if values else np.empty((0, len(BP_COLUMNS)))
    for i, name in enumerate(BP_COLUMNS):
        columns[name] = np.ascontiguousarray(table[:, i])
    return Table(columns)


def payload_steps(views: Iterable[JobView], cache: SummaryCache, plugin: str, wanted: tuple[str, ...] | None,
              all_steps: bool) -> Iterator[tuple]:
    """(job, tag, step, wall_time, decoded payload) of the matching tags of `plugin`."""
    for view in views:
        if all_steps:
            # The tags the store keeps (its tag limits hold here too): a job without any is not read again.
            if any(_matches(tag, wanted) for tag in view.tag_names(plugin)):
                yield from _every_payload(view, cache, plugin, wanted)
            continue
        if plugin == "histogram":  # several tags' steps read at once: each record read once
            for tag, steps in tags_steps(cache, view, [t for t in view.tag_names(plugin) if _matches(t, wanted)]):
                yield from ((view.train_id, tag, s.step, s.wall_time, s.data) for s in steps)
            continue
        for tag in view.tag_names(plugin):
            if not _matches(tag, wanted):
                continue
            series = view.series(plugin, tag)
            if series is None:
                continue
            for i in range(len(series)):
                try:
                    data = _decoded(cache, plugin, view, series, i)
                except PayloadError:
                    continue  # the file changed under us: the next call reads it again
                yield view.train_id, tag, int(series.steps[i]), float(series.wall_times[i]), data


def _scalar_table(parts: list[tuple[str, str, np.ndarray, np.ndarray, np.ndarray]]) -> Table:
    """One table of the (job, tag, steps, wall times, values) parts, in their order: job and tag
    as codes into their names (numpy repeats them, no Python object a row)."""
    lengths = np.array([len(p[2]) for p in parts], dtype=np.int64)
    job_codes, jobs = _codes([p[0] for p in parts], lengths)
    tag_codes, tags = _codes([p[1] for p in parts], lengths)

    def joined(i: int, dtype: Any) -> np.ndarray:
        return np.concatenate([p[i] for p in parts]).astype(dtype, copy=False) if parts else np.empty(0, dtype)
    return Table({"job": _object_array(list(jobs))[job_codes], "tag": _object_array(list(tags))[tag_codes],
                  "step": joined(2, np.int64), "wall_time": joined(3, np.float64), "value": joined(4, np.float64)},
                 labels={"job": (job_codes, jobs), "tag": (tag_codes, tags)})


def _codes(names: list[str], lengths: np.ndarray) -> tuple[np.ndarray, tuple[str, ...]]:
    """Each part's name repeated over its rows, as codes into the distinct names (sorted); the
    codes in the smallest integer type that holds them (pandas checks them faster)."""
    distinct = tuple(sorted(set(names)))
    index = {name: i for i, name in enumerate(distinct)}
    dtype = np.int8 if len(distinct) < 1 << 7 else np.int16 if len(distinct) < 1 << 15 else np.int32
    per_part = np.fromiter((index[name] for name in names), dtype, len(names))
    return np.repeat(per_part, lengths), distinct


def _typed(rows: dict[str, list]) -> Table:
    numeric = {"step": np.int64, "wall_time": np.float64, "left": np.float64, "width": np.float64,
               "count": np.int64, "height": np.int64, "sample": np.int64, "x": np.float64, "y": np.float64, "loss": np.float64}
    columns: dict[str, Any] = {}
    for name, values in rows.items():
        if name == "width" and "left" not in rows:
            columns[name] = np.array(values, dtype=np.int64)
        elif name in numeric:
            columns[name] = np.array(values, dtype=numeric[name])
        elif name in ("job", "tag", "text", "dtype", "kind"):
            columns[name] = _object_array(values)
        else:
            columns[name] = values
    return Table(columns)


def _records_table(records: list[dict[str, Any]], names: Iterable[str] | None = None) -> Table:
    header = list(names) if names is not None else list(dict.fromkeys(k for r in records for k in r))
    return Table({name: [r.get(name) for r in records] for name in header})


def _decoded(cache: SummaryCache, plugin: str, view: JobView, series: Any, i: int) -> Any:
    """Step `i`'s payload; for images, every readable sample as (sample, ImageData)."""
    loc = view.locator(series, i)
    if plugin == "image":
        images = cache.payloads.images(loc, view.samples(series, i))
        return [(n, image) for n, image in enumerate(images) if not isinstance(image, PayloadError)]
    return getattr(cache.payloads, plugin)(loc)


def _png_array(png: bytes) -> np.ndarray:
    import io

    image_module = _extra("PIL.Image", "pillow")
    with image_module.open(io.BytesIO(png)) as picture:
        return np.asarray(picture)


# -- every step (the all-steps export's reader and restart rules) ------------------------

def _every(view: JobView, cache: SummaryCache, plugin: str,
           wanted: tuple[str, ...] | None) -> tuple[dict[str, list[StepValue]], RestartRules]:
    """Every value of the job's `plugin` tags that match, by tag in read order, and the rules."""
    from .summary.store.every_step import Restart, RestartRules, StepValue, every_value

    by_tag: dict[str, list[StepValue]] = {}
    restarts: list[Restart] = []

    def keep(key: tuple[str, str]) -> bool:
        return key[0] == plugin and _matches(key[1], wanted)

    for item in every_value(view.files, cache.source, keep):
        if type(item) is StepValue:
            by_tag.setdefault(item.key[1], []).append(item)
        elif isinstance(item, Restart):
            restarts.append(item)
    return by_tag, RestartRules(restarts)


def _kept_order(values: list[StepValue], rules: RestartRules) -> list[int]:
    """The positions of the values the store's rules keep, by step."""
    seqs = np.fromiter((v.seq for v in values), np.int64, len(values))
    steps = np.fromiter((v.step for v in values), np.int64, len(values))
    ranks = np.fromiter((v.rank for v in values), np.int64, len(values))
    keep = rules.kept(seqs, steps, ranks)
    if keep is None:
        return list(range(len(values)))
    rows = np.flatnonzero(keep)
    return rows[np.argsort(steps[rows], kind="stable")].tolist()


def _every_payload(view: JobView, cache: SummaryCache, plugin: str,
                   wanted: tuple[str, ...] | None) -> Iterator[tuple]:
    by_tag, rules = _every(view, cache, plugin, wanted)
    for tag in sorted(by_tag):
        values = by_tag[tag]
        for i in _kept_order(values, rules):
            value = values[i]
            yield view.train_id, tag, value.step, value.wall_time, value.data
