"""CSV snapshots of a summary cache (`tui-insight LOGDIR --export csv --out DIR`, and `e` in the UI).

A snapshot is a directory of CSV files: jobs, scalars, histograms, tensors, images, text,
landscapes, profile_ops, profile_op_types, profile_cluster (several ranks' profiles side by
side, `queries.profiler_cluster`), custom_scalars (layouts), described (audio clips,
meshes, embeddings: what no terminal draws), lineage and problems (TensorBoard runs too: their
histograms' buckets as the files hold them), and each audio clip as a WAV file. Rows are sorted by train_id, tag, step. By
default the snapshot holds what the cache holds (MindInsight's limits), read through the same
queries as the screens; with `all_steps` it holds every value in the files, read through the
store's routing and decoders (`summary.every_step`) with the store's restart rules, streamed:
each CSV file's values are spilled per tag to one temporary file outside the log directory
(`export_spill`) and written out one tag at a time, so memory does not grow with the run.

problems.csv holds what was left out, one row per problem: the LOGDIR's (train_id empty),
each job's state when it is not "ok", what the job's files could not give, and values that
were not exported. The snapshot is written through `export_dir.ExportDir`: complete, or with an
`INCOMPLETE` file saying what was cut, and never through a link planted in OUT.
"""
from __future__ import annotations

import codecs
import csv
import io
import json
import math
import os
import tempfile
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field, replace
from functools import partial
from pathlib import Path
from types import MappingProxyType
from typing import TYPE_CHECKING, Any

import numpy as np

from .escape import shown
from .export_dir import MARKER, ExportDir, ExportError, ExportIncomplete, check_destination_of, explain_state
from .export_rows import (Coded, float32_codes, float32_texts, float_codes, grouped_blocks, int_codes, rows_blocks,
                          rows_bytes, rows_data, shortest_texts)
from .export_spill import TagSpill, TagValues
from .export_writer import Block, BlockWriter, Rows, write
from .summary.formats import custom_scalars
from .summary.formats.values import PayloadError
from .summary.queries import export_columns
from .summary.queries.histograms import tags_steps
from .summary.queries.distributions import BP_COLUMNS, compress_many, payload_distribution
from .summary.sources.local import Source
from .summary.store.cache import SummaryCache
from .summary.store.job_view import JobView

if TYPE_CHECKING:  # (every_step is imported by an all-steps export only: it brings formats.tensorboard)
    from .summary.store.every_step import Dropped, RestartRules, StepValue

HEADERS = {
    "jobs": ["train_id", "summary_files", "lineage_files", "graph_files", "records", "bad_records", "state",
             "tensorboard_files"],
    "scalars": ["train_id", "tag", "step", "wall_time", "value"],
    "histograms": ["train_id", "tag", "step", "wall_time", "left", "width", "count"],
    "tensors": ["train_id", "tag", "step", "wall_time", "dtype", "shape", "count", "min", "max", "avg",
                "nan_count", "pos_inf_count", "neg_inf_count"],
    "images": ["train_id", "tag", "step", "wall_time", "width", "height", "sample"],
    "text": ["train_id", "tag", "step", "wall_time", "text"],
    "pr_curves": ["train_id", "tag", "step", "wall_time", "threshold", "tp", "fp", "tn", "fn", "precision", "recall"],
    # TensorBoard's distributions: a row per step of each histogram and tensor tag (`kind`), the
    # value at each basis point (bp_0 the minimum, bp_5000 the median, bp_10000 the maximum).
    "distributions": ["train_id", "tag", "step", "wall_time", "kind", *BP_COLUMNS],
    "landscapes": list(export_columns.LANDSCAPE_COLUMNS),
    "profile_ops": list(export_columns.OP_COLUMNS),
    "profile_op_types": list(export_columns.OP_TYPE_COLUMNS),
    "profile_cluster": list(export_columns.CLUSTER_COLUMNS),
    "custom_scalars": list(custom_scalars.CSV_COLUMNS),
    # What no terminal draws, described: an audio clip a row per step (its WAV in `file`), a
    # mesh part a row (newest step), an embedding a row (`shape` "rows x columns").
    "described": ["train_id", "kind", "tag", "step", "name", "sample_rate", "channels", "frames", "seconds", "count",
                  "x_min", "x_max", "y_min", "y_max", "z_min", "z_max", "shape", "metadata_columns", "file"],
    "problems": ["train_id", "problem"],
}
PLUGIN_FILES = {"scalar": "scalars", "histogram": "histograms", "tensor": "tensors", "image": "images",
                "text": "text", "pr_curve": "pr_curves"}
PREFETCH_STEPS = 16  # payload records fetched together from a remote LOGDIR (two requests for as many)
TagKey = tuple[str, str]
Warn = Callable[[JobView, list[str]], None]


def _name_bytes(exc: UnicodeError) -> tuple[bytes, int]:
    """Encoding error handler of the CSV files: a name's undecodable bytes (surrogate escapes)
    written back as the bytes they were; any other lone surrogate as `\\udXXX`."""
    if not isinstance(exc, UnicodeEncodeError):
        raise exc
    out = bytearray()
    for char in exc.object[exc.start:exc.end]:
        code = ord(char)
        out += bytes([code - 0xDC00]) if 0xDC80 <= code <= 0xDCFF else f"\\u{code:04x}".encode()
    return bytes(out), exc.end


NAME_BYTES = "tui-insight-name-bytes"
codecs.register_error(NAME_BYTES, _name_bytes)


@dataclass
class ExportResult:
    """What an export wrote: its files, rows per table, and each job's problems."""

    files: list[Path] = field(default_factory=list)
    rows: dict[str, int] = field(default_factory=dict)
    problems: list[tuple[str, str]] = field(default_factory=list)  # (train_id, problem): problems.csv


def fmt_float(value: float) -> str:
    """Shortest round-trip text; non-finite as nan, inf, -inf (Python's repr of a float)."""
    return repr(float(value))


def fmt_float32(value: float) -> str:
    """A float32 value (scalars are float32 in the file) as its shortest float32 text: 0.1, not 0.10000000149."""
    return fmt_float(float(str(np.float32(value)))) if math.isfinite(value) else fmt_float(value)


def fmt_float32_many(values: np.ndarray) -> list[str]:
    """`fmt_float32` of each value, found by numpy for the whole array at once (`export_rows`)."""
    return [text.decode() for text in float32_texts(np.asarray(values, dtype=np.float32)).tolist()]


def check_destination(cache: SummaryCache, out: Path, force: bool) -> Path:
    """The resolved output directory; refuses one inside LOGDIR, or a non-empty one without force."""
    return check_destination_of(cache.logdir, out, force)


def export_snapshot(cache: SummaryCache, out: Path, *, all_steps: bool = False, force: bool = False,
                    train_ids: Iterable[str] | None = None, plugins: set[str] | None = None,
                    tags: set[TagKey] | None = None, warn: Warn | None = None) -> ExportResult:
    """Write the CSV files for the cache's current jobs (optionally narrowed) into `out`.

    `plugins` narrows to some of scalar, histogram, tensor, image, text and lineage; `tags` to
    some (plugin, tag) pairs (no lineage then). Files left out by the narrowing hold only a
    header. `warn(view, problems)` is called after each job with what problems.csv says of it.
    """
    out = check_destination(cache, out, force)
    wanted = set(train_ids) if train_ids is not None else None
    views = [v for tid, v in sorted(cache.jobs.items()) if wanted is None or tid in wanted]

    def keep(key: TagKey) -> bool:
        return (plugins is None or key[0] in plugins) and (tags is None or key in tags)

    result = ExportResult()
    with _Snapshot(out, result, len(views)) as snapshot:
        if wanted is None:
            snapshot.problems("", cache.problems)
        for view in views:
            snapshot.files.row("jobs", _job_row(view))
        for view in views:
            if not view.detailed:  # evicted under the memory budget: its series read back
                view = cache.details(view.train_id) or view
            snapshot.job(cache, view, keep, all_steps, warn)
        snapshot.cluster(cache)
        with_lineage = (plugins is None or "lineage" in plugins) and tags is None
        snapshot.lineage(views if with_lineage else [])
    return result


def _job_row(view: JobView) -> list:
    return [view.train_id, len(view.summary_files), len(view.lineage_files), len(view.graph_files), view.records,
            view.bad_records, view.state, len(view.tensorboard_files)]


def export_streaming(cache: SummaryCache, out: Path, *, all_steps: bool = False, force: bool = False,
                     on_job: Callable[[JobView], None] | None = None,
                     progress: Callable[[int, int], None] | None = None, warn: Warn | None = None) -> ExportResult:
    """`export_snapshot` of every job of a cache that has not loaded them, in bounded memory:
    each job is read, written and forgotten in turn (train id order, so every file is the
    same as `export_snapshot`'s). `on_job(view)` is called as each job is read, `warn(view,
    problems)` after it is written, `progress(done, total)` after each job is written."""
    out = check_destination(cache, out, force)
    train_ids = cache.discover_jobs()
    lineage_views: list[JobView] = []  # what lineage.csv needs of each job, without its series
    result = ExportResult()
    with _Snapshot(out, result, len(train_ids)) as snapshot:
        snapshot.problems("", cache.problems)
        for done, train_id in enumerate(train_ids, 1):
            view = cache.load_job(train_id)
            if view is not None:
                if on_job is not None:
                    on_job(view)
                snapshot.files.row("jobs", _job_row(view))
                snapshot.job(cache, view, _everything, all_steps, warn)
                lineage_views.append(replace(view, tags=MappingProxyType({}), graphs=MappingProxyType({})))
                cache.forget(train_id)
            if progress is not None:
                progress(done, len(train_ids))
        snapshot.cluster(cache)
        snapshot.lineage(lineage_views)
    return result


def _everything(key: TagKey) -> bool:
    return True


class _CsvFiles:
    """The snapshot's CSV files, one open file each, written with names' bytes intact. Blocks of
    rows formatted already (`data`) are written by a thread (`BlockWriter`) while the next are made."""

    def __init__(self, target: ExportDir, out: Path, result: ExportResult):
        self.target, self.out, self.result = target, out, result
        self.handles: dict[str, io.TextIOWrapper] = {}
        self.writers: dict[str, Any] = {}  # csv writers (their type is private to csv)
        self.writing = ""  # the file being written (for the message when writing fails)
        self.thread: BlockWriter | None = None
        self.queued: set[str] = set()  # files with blocks handed to the thread since it was last waited for

    def open(self, name: str, header: list[str]) -> None:
        self.writing = f"{name}.csv"
        handle = io.TextIOWrapper(self.target.open(f"{name}.csv"), encoding="utf-8", errors=NAME_BYTES, newline="")
        self.handles[name] = handle
        self.writers[name] = csv.writer(handle, lineterminator="\n")
        self.writers[name].writerow(header)
        self.result.files.append(self.out / f"{name}.csv")
        self.result.rows[name] = 0

    def row(self, name: str, values: list) -> None:
        self._written_before(name)
        self.writers[name].writerow(values)
        self.result.rows[name] += 1

    def text(self, name: str, text: str, rows: int) -> None:
        """`rows` rows already formatted as CSV."""
        self._written_before(name)
        self.handles[name].write(text)
        self.result.rows[name] += rows

    def data(self, name: str, data: Block, rows: int) -> None:
        """`rows` rows encoded as the file's text is: their bytes, or what makes them (called
        by the writer thread once `rows` reach `BlockWriter.FROM`: formatted on the second core)."""
        self.writing = f"{name}.csv"
        if self.thread is None and rows >= BlockWriter.FROM:
            self.thread = BlockWriter()
        handle = self.handles[name]
        if name not in self.queued:  # (else no text came since its last block: the thread has it all)
            handle.flush()
        if self.thread is None:
            write(handle.buffer, data() if callable(data) else data)
        else:
            self._failed()
            self.thread.put(name, handle.buffer, data)
            self.queued.add(name)
        self.result.rows[name] += rows

    def _written_before(self, name: str) -> None:
        """Text for `name` comes after the blocks handed to the thread for it."""
        self.writing = f"{name}.csv"
        if name in self.queued:
            self._wait()

    def _wait(self) -> None:
        if self.thread is not None:
            self.thread.wait()
            self.queued.clear()
            self._failed()

    def _failed(self) -> None:
        """The thread's failure, raised here with the file it was writing."""
        if self.thread is not None and self.thread.failed is not None:
            name, exc = self.thread.failed
            self.writing = f"{name}.csv"
            raise exc

    def flush(self) -> None:
        self._wait()
        for name, handle in self.handles.items():
            self.writing = f"{name}.csv"
            handle.flush()

    def close(self) -> None:
        if self.thread is not None:
            thread, self.thread = self.thread, None
            thread.stop()
            self.queued.clear()
            if thread.failed is not None:
                self.writing = f"{thread.failed[0]}.csv"
                raise thread.failed[1]
        while self.handles:
            name, handle = self.handles.popitem()
            self.writing = f"{name}.csv"
            handle.close()


class _Snapshot:
    """One export being written: its files, its spills and what was written in full so far.

    Writing that fails leaves OUT with what was written and INCOMPLETE saying what was cut,
    and raises ExportIncomplete."""

    def __init__(self, out: Path, result: ExportResult, jobs: int):
        self.out, self.result, self.jobs = out, result, jobs
        self.done = 0  # jobs whose rows are all written
        self.last = ""  # the last of them
        self.current = ""  # the job being written
        self.lineage_written = False
        self.profiled: dict[str, str] = {}  # train id -> directory of the exported jobs with profiles
        self.wavs = 0  # audio clips written (their files are numbered)

    def __enter__(self) -> _Snapshot:
        try:
            self.out.mkdir(parents=True, exist_ok=True)
            self.target = ExportDir(self.out)
        except OSError as exc:
            raise ExportError(f"cannot write to {shown(str(self.out))}: {exc.strerror or exc}") from exc
        self.files = _CsvFiles(self.target, self.out, self.result)
        self.spill_dir: tempfile.TemporaryDirectory | None = None
        self.spills: dict[str, TagSpill] = {}
        try:
            for name, header in HEADERS.items():
                self.files.open(name, header)
        except BaseException as exc:
            self.__exit__(type(exc), exc, None)
            raise
        return self

    def problems(self, train_id: str, problems: Iterable[str]) -> list[str]:
        written = list(problems)
        for problem in written:
            self.files.row("problems", [train_id, problem])
            self.result.problems.append((train_id, problem))
        return written

    def job(self, cache: SummaryCache, view: JobView, keep: Callable[[TagKey], bool], all_steps: bool,
            warn: Warn | None) -> None:
        """Every row of one job, then its problems; flushed, so that it counts as written."""
        self.current = view.train_id
        found: list[str] = list(view.problems)
        if all_steps:
            self._every_step(view, keep, cache.source, found)
        else:
            for name, text, rows in _cached_job(cache, view, keep):
                if isinstance(text, str):
                    self.files.text(name, text, rows)
                else:
                    self.files.data(name, text, rows)
        for name, row in _extras(cache, view, keep, found):
            self.files.row(name, row)
        if view.profile_dirs and keep(("profiler", "")):
            self.profiled[view.train_id] = view.path
        if view.not_shown.described() and keep(("other", "")):  # (queries.described.has_described)
            self._described(cache, view, found)
        state = [explain_state(view.state)] if view.state not in ("ok", "loading") else []
        problems = self.problems(view.train_id, state + found)
        self.files.flush()
        self.done += 1
        self.last, self.current = view.train_id, ""
        if warn is not None and problems:
            warn(view, problems[len(state):])

    def _described(self, cache: SummaryCache, view: JobView, problems: list[str]) -> None:
        """described.csv's rows of one job, and each audio clip as a WAV file beside the CSV
        files (`audio-00001.wav`, numbered in export order: a tag's name is no file name)."""
        from .summary.queries.described import audio_tags, clips, describe  # (5 ms: for such jobs only)

        blank = [""] * 6
        for tag in audio_tags(cache, view):
            for step, clip in clips(cache, view, tag):
                if isinstance(clip, str):
                    problems.append(f"audio {tag} step {step}: {clip}: not exported")
                    continue
                self.wavs += 1
                name = f"audio-{self.wavs:05d}.wav"
                self.files.writing = name
                with self.target.open(name) as handle:
                    handle.write(clip.wav)
                self.result.files.append(self.out / name)
                self.files.row("described", [view.train_id, "audio", tag, step, "", clip.sample_rate, clip.channels,
                                             clip.frames, fmt_float(clip.seconds), "", *blank, "", "", name])
        found = describe(cache, view.train_id)
        for part in found.meshes:
            bounds = [fmt_float(v) for lo_hi in part.bounds for v in lo_hi] or blank
            self.files.row("described", [view.train_id, "mesh", part.tag, part.step, f"{part.mesh} {part.part}",
                                         "", "", "", "", part.count, *bounds, "", "", ""])
        for embedding in found.embeddings:
            self.files.row("described", [view.train_id, "embedding", embedding.tensor_path, "", embedding.name,
                                         "", "", "", "", "", *blank, "x".join(map(str, embedding.shape)),
                                         json.dumps(list(embedding.columns), ensure_ascii=False), ""])
            if embedding.error:
                problems.append(f"embedding {embedding.name}: {embedding.error}")

    def _every_step(self, view: JobView, keep: Callable[[TagKey], bool], source: Source, found: list[str]) -> None:
        spills, spilled_in = self._spills()
        from .summary.store.every_step import Dropped, Restart, RestartRules, StepValue, Unread, every_value

        restarts: list[Restart] = []
        dropped: dict[TagKey, list] = {}
        formats = {plugin: format_of(view.train_id) for plugin, format_of in _FORMATS.items()}
        line = _CsvLine()
        histograms = _HistogramBatches(view.train_id, spills)
        self.files.writing = f"the temporary files in {spilled_in}"  # spilled, then written out
        for item in every_value(view.files, source, keep):
            if type(item) is StepValue:
                plugin = item.key[0]
                if plugin == "histogram":
                    histograms.add(item)
                    continue
                text, rows = formats[plugin](item)
                spills[PLUGIN_FILES[plugin]].add(item.key[1], item.seq, item.step, item.rank, text, rows)
                if plugin in DISTRIBUTED:
                    tails = _distribution_rows(plugin, item.data)
                    if tails:  # kept apart by plugin: a histogram and a tensor may share a tag
                        text = line([view.train_id, item.key[1], item.step, fmt_float(item.wall_time), *tails[0]])
                        spills["distributions"].add(f"{plugin}\0{item.key[1]}", item.seq, item.step, item.rank,
                                                    text, 1)
            elif isinstance(item, Restart):
                restarts.append(item)
            elif isinstance(item, Dropped):
                _count_dropped(dropped, item)
            elif isinstance(item, Unread):
                found.append(f"{os.path.basename(item.path)}: not read to its end ({item.reason}): "
                             "the values after where it stopped are not exported")
        histograms.flush()
        found.extend(_dropped_problems(dropped))
        rules = RestartRules(restarts)
        for name in SPILLED:
            for _, values in spills[name].tags():
                _write_kept(self.files, name, values, rules)

    def _spills(self) -> tuple[dict[str, TagSpill], str]:
        """The spill of each file of values, and the temporary directory they are in."""
        if self.spill_dir is None:
            self.spill_dir = tempfile.TemporaryDirectory(prefix="tui-insight-export-")
            for name in SPILLED:
                # Open until the export ends (closed in __exit__): one file per CSV file.
                self.spills[name] = TagSpill(open(os.path.join(self.spill_dir.name, name), "w+b"))  # noqa: SIM115
        return self.spills, self.spill_dir.name

    def cluster(self, cache: SummaryCache) -> None:
        """profile_cluster.csv: each group of exported jobs that are ranks of one training."""
        if not self.profiled:  # (the profiler's modules imported only for profiles)
            self.files.flush()
            return
        from .summary.formats.profiler import find_profiles, load_profile
        from .summary.queries import profiler_cluster

        for group in profiler_cluster.rank_groups(self.profiled):
            name = os.path.dirname(group[0]) or "."
            refs = [(tid, ref) for tid in group for ref in find_profiles(self.profiled[tid], cache.source)]
            chosen = profiler_cluster.rank_refs(refs)
            if not chosen:
                continue
            result = profiler_cluster.cluster([(rank, tid, load_profile(ref, shapes=False, timeline=False))
                                               for rank, tid, ref in chosen])
            for record in profiler_cluster.cluster_rows(name, result):
                self.files.row("profile_cluster", [fmt_float(record[c]) if isinstance(record[c], float) else record[c]
                                                   for c in profiler_cluster.CLUSTER_COLUMNS])
        self.files.flush()

    def lineage(self, views: list[JobView]) -> None:
        _write_lineage(self.files, views)
        self.lineage_written = True

    def __exit__(self, kind, exc, tb) -> None:
        for spill in self.spills.values():
            spill.handle.close()
        if self.spill_dir is not None:
            self.spill_dir.cleanup()
        if exc is None:
            try:
                self.files.close()
            except OSError as error:
                self._fail(error, f"writing {self.files.writing}")
                return
            try:
                self.target.commit()
            except OSError as error:
                self._fail(error, f"moving {shown(str(error.filename or 'the files'))} into place")
            return
        writing = self.files.writing  # before closing the files names each in turn
        try:
            self.files.close()
        except OSError:
            pass  # the reason is `exc`'s
        self._fail(exc, f"writing {writing or 'the files'}")

    def _fail(self, exc: BaseException, doing: str) -> None:
        if isinstance(exc, OSError):
            reason = f"{exc.strerror or exc} while {doing}"
        elif isinstance(exc, KeyboardInterrupt):
            reason = "interrupted"
        else:
            reason = f"an internal error ({type(exc).__name__}: {exc})"
        where = self.target.abandon(self._what_was_cut(reason))
        if isinstance(exc, OSError):
            raise ExportIncomplete(f"export incomplete: {shown(reason)}; what was written is in {shown(where)}, "
                                   f"whose {MARKER} says what was cut") from exc

    def _what_was_cut(self, reason: str) -> str:
        lines = [f"This export is incomplete: {shown(reason)}.",
                 f"Jobs written in full: {self.done} of {self.jobs}" + (f" (the last: {shown(self.last)})." if self.last else ".")]
        if self.current:
            lines.append(f"The rows of {shown(self.current)} and of every job after it are missing or cut; "
                         "the last row of a file may be cut.")
        elif self.done < self.jobs:
            lines.append("The rows of the jobs after it are missing; the last row of a file may be cut.")
        if not self.lineage_written:
            lines.append("lineage.csv was not written.")
        lines.append("problems.csv lists the problems of the jobs written in full only.")
        return "\n".join(lines) + "\n"


# -- what the cache holds -------------------------------------------------------------------

def _cached_job(cache: SummaryCache, view: JobView, keep: Callable[[TagKey], bool]
                ) -> Iterator[tuple[str, str | Block, int]]:
    """What the cache holds of a job as CSV text: (file, text, rows) for each kept tag's
    scalars at once, and for each step of the other plugins (its payload decoded then); a
    histogram tag's rows, and scalars, as a `Block` (formatted as they are written)."""
    prefix = _tag_prefix(view.train_id)
    line = _CsvLine()
    for plugin, name in PLUGIN_FILES.items():
        tags = [tag for tag in view.tag_names(plugin) if keep((plugin, tag))]
        if plugin == "histogram":
            yield from _cached_histograms(cache, view, tags, prefix)
            continue
        if plugin == "scalar":
            yield from _cached_scalars(view, tags, prefix)
            continue
        for tag in tags:
            series = view.series(plugin, tag)
            if series is None:  # (a tag the view names has its series)
                continue
            for i in range(len(series)):
                if i % PREFETCH_STEPS == 0:  # remote: the next steps' records at once
                    cache.payloads.prefetch(plugin, (view.locator(series, j)
                                                     for j in range(i, min(i + PREFETCH_STEPS, len(series)))))
                step, wall = int(series.steps[i]), fmt_float(series.wall_times[i])
                data: Any
                try:
                    if plugin == "image":  # every image of the step, numbered
                        found = cache.payloads.images(view.locator(series, i), view.samples(series, i))
                        data = [(n, d) for n, d in enumerate(found) if not isinstance(d, PayloadError)]
                    else:
                        data = getattr(cache.payloads, plugin)(view.locator(series, i))
                except PayloadError:
                    continue  # the file changed under us; the next export has it again
                if plugin in DISTRIBUTED:
                    tails = _distribution_rows(plugin, data)
                    if tails:
                        yield "distributions", line([view.train_id, tag, step, wall, *tails[0]]), 1
                tails = _tail_rows(plugin, data)
                yield name, "".join([line([view.train_id, tag, step, wall, *tail]) for tail in tails]), len(tails)


SCALARS_TOGETHER = 1 << 14  # scalar rows formatted at once (memory: their text, a few times)


def _cached_scalars(view: JobView, tags: list[str], prefix: Callable[[str], str]
                    ) -> Iterator[tuple[str, Block, int]]:
    """`_cached_job`'s scalar tags' rows, several tags' at once (`_scalar_rows`), as a Block."""
    found = [(tag, series) for tag in tags if (series := view.series("scalar", tag)) is not None]
    while found:
        batch = [found.pop(0)]
        while found and sum(len(s) for _, s in batch) + len(found[0][1]) <= SCALARS_TOGETHER:
            batch.append(found.pop(0))
        yield "scalars", _scalar_rows(batch, prefix), sum(len(s) for _, s in batch)


def _scalar_rows(found: list[tuple[str, Any]], prefix: Callable[[str], str]) -> Block:
    """scalars.csv's rows of some tags (and their series), built together (`export_rows`: each
    distinct step, wall time and value formatted once, and a job's tags share their steps and
    wall times), the names a coded column; a tag at a time when a name holds a NUL (a coded
    column's padding). The numbers are formatted here, the rows laid out as they are written."""
    heads = [prefix(tag)[:-1].encode("utf-8", NAME_BYTES) for tag, _ in found]  # train_id,tag
    sizes = [len(series) for _, series in found]
    columns = [int_codes(np.concatenate([s.steps for _, s in found]).astype(np.int64)),
               float_codes(np.concatenate([s.wall_times for _, s in found]),  # (the same at every tag, as a rule)
                           period=sizes[0] if len(set(sizes)) == 1 else 0),
               float32_codes(np.concatenate([s.values for _, s in found]))]
    if not any(b"\0" in head for head in heads):
        return partial(_laid_out, b"", [(np.array(heads, dtype="S"), np.arange(len(found)).repeat(sizes)), *columns])
    ends = np.cumsum(sizes).tolist()
    return b"".join([rows_data(head + b",", [(texts, codes[start:end]) for texts, codes in columns])
                     for head, start, end in zip(heads, [0, *ends[:-1]], ends)])


def _cached_histograms(cache: SummaryCache, view: JobView, tags: list[str], prefix: Callable[[str], str]
                       ) -> Iterator[tuple[str, str | Block, int]]:
    """`_cached_job`'s histogram tags: each tag's rows of distributions.csv and histograms.csv
    (a Block), its steps read with other tags' (`tags_steps`: each record read once)."""
    for tag, steps in tags_steps(cache, view, tags):
        if steps:
            heads = [f"{s.step},{s.wall_time!r}" for s in steps]
            buckets = [s.data.buckets for s in steps]
            head = prefix(tag).encode("utf-8", NAME_BYTES)  # (numbers formatted here, rows laid out as written)
            yield "distributions", partial(_laid_out, head, _distribution_columns(heads, buckets)), len(heads)
            columns = _histogram_columns(heads, buckets)
            if columns is not None:
                yield "histograms", partial(grouped_blocks, head, columns), len(columns[0][1])


def _tail_rows(plugin: str, data) -> list[list]:
    """A decoded payload's own CSV columns (a histogram gives one row per bucket)."""
    if plugin == "histogram":
        return [[fmt_float(left), fmt_float(width), int(count)] for left, width, count in data.buckets.tolist()]
    if plugin == "tensor":
        return [_tensor_columns(data)]
    if plugin == "image":  # (sample, image) for every image of the step
        return [[image.width, image.height, sample] for sample, image in data]
    if plugin == "pr_curve":  # one row per threshold, every threshold written
        return [[fmt_float(t), *(_count(v) for v in column[:4]), *(fmt_float32(v) for v in column[4:])]
                for t, column in zip(data.thresholds.tolist(), data.values.T.tolist())]
    return [[data.text]]


DISTRIBUTED = ("histogram", "tensor")  # the plugins whose steps also give distributions.csv's rows


def _distribution_rows(plugin: str, data) -> list[list]:
    """A histogram's or tensor's step as distributions.csv's columns after the head (none for
    a tensor whose values were not kept)."""
    values = payload_distribution(data)
    return [] if values is None else [[plugin, *map(repr, values)]]  # (floats: fmt_float of each)


def _extras(cache: SummaryCache, view: JobView, keep: Callable[[TagKey], bool],
            problems: list[str]) -> Iterator[tuple[str, list]]:
    """Loss landscapes (one row per grid point, path point and convergence point) and the job's
    profiles (operators, operator types): every step of them either way, they are small."""
    if view.tag_names("loss_landscape"):
        from .summary.queries import landscape

        for point in landscape.landscape_rows(view, cache.payloads):
            if keep(("loss_landscape", point.tag)):
                yield "landscapes", [point.train_id, point.tag, point.kind, point.interval,
                                     fmt_float(point.x), fmt_float(point.y), fmt_float(point.loss)]
    if view.profile_dirs and keep(("profiler", "")):
        from .summary.queries import profiler

        ops, types, found = profiler.profile_rows(view.train_id, view.path, cache.source)
        problems.extend(found)
        for name, rows, columns in (("profile_ops", ops, profiler.OP_COLUMNS),
                                    ("profile_op_types", types, profiler.OP_TYPE_COLUMNS)):
            for record in rows:
                yield name, [fmt_float(record[c]) if isinstance(record[c], float) else record[c] for c in columns]
    if view.custom_scalars is not None:  # the layout, not the scalars it draws (those are in scalars.csv)
        for chart in custom_scalars.rows(view.train_id, view.custom_scalars):
            yield "custom_scalars", chart


def _count(value: float) -> int | str:
    """A PR curve's count: an integer as TensorBoard shows it; a weighted (fractional) count as it is."""
    return int(value) if value.is_integer() else fmt_float(value)


def _tensor_columns(tensor) -> list:
    from .summary.queries.tensors import statistics

    # The declared count, without overflow; none for a shape that is not one (negative dims).
    count = math.prod(tensor.dims) if all(d >= 0 for d in tensor.dims) else ""
    shape = "x".join(str(d) for d in tensor.dims)
    if tensor.array is None:
        return [tensor.dtype, shape, count, "", "", "", "", "", ""]
    stats = statistics(tensor.array)
    return [tensor.dtype, shape, stats["count"], fmt_float(stats["min"]), fmt_float(stats["max"]),
            fmt_float(stats["avg"]), stats["nan_count"], stats["pos_inf_count"], stats["neg_inf_count"]]


# -- every step in the files ----------------------------------------------------------------

class _CsvLine:
    """Fields as one CSV line (csv's quoting), through one reused buffer."""

    def __init__(self) -> None:
        self._buffer = io.StringIO()
        self._writer = csv.writer(self._buffer, lineterminator="\n")

    def __call__(self, fields: list) -> str:
        self._buffer.seek(0)
        self._buffer.truncate()
        self._writer.writerow(fields)
        return self._buffer.getvalue()


def _tag_prefix(train_id: str) -> Callable[[str], str]:
    """`train_id,tag,` as CSV, per tag (remembered: a job's tags are met step after step)."""
    known: dict[str, str] = {}
    line = _CsvLine()

    def prefix(tag: str) -> str:
        text = known.get(tag)
        if text is None:
            text = known[tag] = line([train_id, tag])[:-1] + ","
        return text
    return prefix


def _scalar_format(train_id: str) -> Callable[[StepValue], tuple[str, int]]:
    prefix = _tag_prefix(train_id)

    def rows(value: StepValue) -> tuple[str, int]:  # numbers only: nothing to quote
        return f"{prefix(value.key[1])}{value.step},{fmt_float(value.wall_time)},{fmt_float32(value.data)}\n", 1
    return rows


class _HistogramBatches:
    """An all-steps export's histogram values, formatted a batch of a tag's steps at a time
    (`_histogram_text`: each distinct number formatted once, the rows laid out by numpy), each
    step's share of the text (its characters, its rows) counted by numpy, not a format and a
    spill call a step."""

    STEPS = 256  # a tag's steps held at most ...
    BUCKETS = 1 << 14  # ... and buckets

    def __init__(self, train_id: str, spills: dict[str, TagSpill]):
        self.train_id, self.spills = train_id, spills
        self.prefix = _tag_prefix(train_id)
        self.held: dict[str, tuple[list[StepValue], list[int]]] = {}  # tag -> values, bucket counts

    def add(self, value: StepValue) -> None:
        tag = value.key[1]
        held = self.held.get(tag)
        if held is None:
            held = self.held[tag] = ([], [])
        held[0].append(value)
        held[1].append(len(value.data.buckets))
        if len(held[0]) >= self.STEPS or sum(held[1]) >= self.BUCKETS:
            self._write(tag, *self.held.pop(tag))

    def flush(self) -> None:
        while self.held:
            tag, (values, sizes) = self.held.popitem()
            self._write(tag, values, sizes)

    def _write(self, tag: str, values: list[StepValue], sizes: list[int]) -> None:
        prefix = self.prefix(tag)
        heads = [f"{v.step},{fmt_float(v.wall_time)}" for v in values]
        buckets = [v.data.buckets for v in values]
        numbers = np.empty((len(values), 5), dtype=np.int64)  # the spill's: seq, step, rank, characters, rows
        numbers[:, 0] = [v.seq for v in values]
        numbers[:, 1] = [v.step for v in values]
        numbers[:, 2] = [v.rank for v in values]
        text, numbers[:, 3] = _histogram_text(prefix, heads, buckets)
        numbers[:, 4] = sizes
        self.spills["histograms"].add_many(tag, numbers, text)
        text, numbers[:, 3] = _rows_text(prefix, _distribution_columns(heads, buckets))
        numbers[:, 4] = 1
        self.spills["distributions"].add_many(f"histogram\0{tag}", numbers, text)


def _histogram_text(prefix: str, heads: list[str], buckets: list[np.ndarray]) -> tuple[str, np.ndarray]:
    """histograms.csv's rows of a tag's steps as text (`prefix`: its train_id and tag, quoted;
    `heads`: each step's step and wall time), and each step's characters in them."""
    columns = _histogram_columns(heads, buckets)
    if columns is None:
        return "", np.zeros(len(heads), dtype=np.int64)
    text, lengths = _rows_text(prefix, columns)
    return text, np.bincount(columns[0][1], weights=lengths, minlength=len(heads)).astype(np.int64)


def _rows_text(prefix: str, columns: list[Coded]) -> tuple[str, np.ndarray]:
    """The rows of coded columns after `prefix` (`rows_bytes`) as text, each row's characters."""
    head = prefix.encode("utf-8", "surrogatepass")  # (decoded back below: the same text)
    data, lengths = rows_bytes(head, columns)
    return data.decode("utf-8", "surrogatepass"), lengths - (len(head) - len(prefix))


def _histogram_columns(heads: list[str], buckets: list[np.ndarray]) -> list[Coded] | None:
    """histograms.csv's coded columns of a tag's steps after its train_id and tag (the first:
    each row's step and wall time, from `heads`), each distinct edge, width and count formatted
    once; None without buckets."""
    lengths = np.array([len(b) for b in buckets], dtype=np.int64)
    if not lengths.sum():
        return None
    joined = np.concatenate(buckets)
    left, width, count = (np.ascontiguousarray(joined[:, i]) for i in range(3))
    period = int(lengths[0]) if (lengths == lengths[0]).all() else 0  # bins fixed across steps?
    steps = np.arange(len(heads)).repeat(lengths)
    return [(np.array(heads, dtype="S"), steps), float_codes(left, period), float_codes(width, period),
            int_codes(count.astype(np.int64))]


def _laid_out(prefix: bytes, columns: list[Coded]) -> Rows:
    """The rows of coded columns (`rows_blocks`: numpy's gathers, which release the GIL, and a
    bytearray.translate; what the writer thread does of a block, the numbers formatted already)."""
    return rows_blocks(prefix, columns)


def _distribution_columns(heads: list[str], buckets: list[np.ndarray]) -> list[Coded]:
    """distributions.csv's coded columns of a tag's histogram steps after its train_id and tag
    (`heads`: each step's step and wall time): a row a step, its values at the basis points."""
    with np.errstate(over="ignore", invalid="ignore"):  # as `payload_distribution`
        points = compress_many(buckets)
    steps = np.arange(len(heads))
    values = shortest_texts(points.ravel())  # (each value a text: few repeat)
    return [(np.array(heads, dtype="S"), steps), (_HISTOGRAM, np.zeros(len(heads), dtype=np.intp)),
            *((values, steps * points.shape[1] + j) for j in range(points.shape[1]))]


_HISTOGRAM = np.array([b"histogram"])  # distributions.csv's kind of a histogram's row


def _payload_format(train_id: str) -> Callable[[StepValue], tuple[str, int]]:
    line = _CsvLine()

    def rows(value: StepValue) -> tuple[str, int]:
        plugin, tag = value.key
        head = [train_id, tag, value.step, fmt_float(value.wall_time)]
        tails = _tail_rows(plugin, value.data)
        return "".join([line(head + tail) for tail in tails]), len(tails)
    return rows


SPILLED = (*PLUGIN_FILES.values(), "distributions")  # the files of values spilled by tag in an all-steps export
# Per plugin: how a job's values become CSV text (and how many rows).
# (Histograms: `_HistogramBatches`.)
_FORMATS = {"scalar": _scalar_format, "tensor": _payload_format,
            "image": _payload_format, "text": _payload_format, "pr_curve": _payload_format}


def _write_kept(files: _CsvFiles, name: str, values: TagValues, rules: RestartRules) -> None:
    """A tag's values that the store's restart rules keep, by step."""
    keep = rules.kept(values.seqs, values.steps, values.ranks)
    if keep is None:  # every value, in step order
        files.text(name, values.text, int(values.rows.sum()) if len(values) > 1 else int(values.numbers[0, 4]))
        return
    rows = np.flatnonzero(keep)
    order = rows[np.argsort(values.steps[rows], kind="stable")].tolist()
    ends = values.ends.tolist()
    starts = [0, *ends[:-1]]
    text = values.text
    files.text(name, "".join([text[starts[i]:ends[i]] for i in order]), int(values.rows[order].sum()))


def _count_dropped(dropped: dict[TagKey, list], item: Dropped) -> None:
    seen = dropped.get(item.key)
    if seen is None:
        dropped[item.key] = [1, item.step, item.reason]
    else:
        seen[0] += 1


def _dropped_problems(dropped: dict[TagKey, list]) -> list[str]:
    return [f"{plugin} {tag}: {n} value{'s' if n != 1 else ''} not exported (step {step}: {reason})"
            for (plugin, tag), (n, step, reason) in sorted(dropped.items(), key=lambda item: (item[0][1], item[0][0]))]


# -- lineage ----------------------------------------------------------------------------------

def _write_lineage(files: _CsvFiles, views: list[JobView]) -> None:
    if export_columns.without_lineage(views):
        files.open("lineage", list(export_columns.LINEAGE_COLUMNS))
        return
    from .summary.queries.lineage import columns, model_rows

    rows = model_rows({v.train_id: v for v in views})
    header = columns(rows)
    files.open("lineage", header)
    for row in sorted(rows, key=lambda r: r.summary_dir):
        files.row("lineage", [_cell(row.get(name)) for name in header])


def _cell(value) -> str:
    if value is None:
        return ""
    if isinstance(value, bool):
        return str(value)
    if isinstance(value, float):
        return fmt_float(value)
    return str(value)
