"""What a job holds that the terminal describes rather than draws: audio clips, meshes and the
projector's embeddings (TensorBoard's audio, mesh and projector dashboards).

`describe(cache, train_id)` reads them on demand: each audio or mesh tag (the cache keeps
them as plugin "other", with where their values are) is told apart by its first value and
described at its newest step, through the payload store's locators; the projector config
(`projector_config.pbtxt` in the job directory) names the embeddings, whose tensor and
metadata TSVs give the shape and the metadata columns when they are inside the job and small.
What is none of these stays in the job's not-shown account (`JobView.not_shown`).
"""
from __future__ import annotations

import os
from collections.abc import Iterator
from dataclasses import dataclass, replace

import numpy as np

from ..formats.described import AudioClip, MeshPart, audio_clip, mesh_part
from ..formats.payloads import PayloadError, read_value
from ..formats.projector import (CONFIG_NAME, MAX_CONFIG_BYTES, MAX_TSV_BYTES, inside_path, metadata_columns,
                                 metadata_labels, parse_config, tsv_matrix, tsv_shape)
from ..formats.tensorboard import Problem

OTHER = "other"  # the cache's plugin of the values no view draws


@dataclass(frozen=True)
class AudioItem:
    """An audio tag of a job, described by its newest step."""

    tag: str
    steps: int
    step: int  # the step described: the newest
    clip: AudioClip | None = None
    error: str = ""


@dataclass(frozen=True)
class MeshItem:
    """A mesh part's tag of a job, described by its newest step."""

    tag: str  # the tag of the part (tensorboardX: "<name>_<part number>")
    mesh: str
    part: str  # "vertices", "faces", "colors"
    steps: int
    step: int
    count: int = 0
    bounds: tuple[tuple[float, float], ...] = ()
    error: str = ""


@dataclass(frozen=True)
class EmbeddingItem:
    """An embedding of a job's projector config."""

    name: str
    tensor_path: str
    shape: tuple[int, ...] = ()
    columns: tuple[str, ...] = ()  # the metadata TSV's columns ("label" for one without a header)
    error: str = ""


@dataclass(frozen=True)
class Neighbours:
    """The points nearest one point of an embedding, by cosine distance (the projector's default)."""

    embedding: str
    point: int  # the chosen point (wrapped into range)
    points: int  # how many the embedding has
    label: str  # its metadata ("" without)
    nearest: tuple[tuple[int, float, str], ...] = ()  # (point, distance, label), nearest first
    error: str = ""


@dataclass(frozen=True)
class Described:
    """A job's tags that are described rather than drawn."""

    audio: tuple[AudioItem, ...] = ()
    meshes: tuple[MeshItem, ...] = ()
    embeddings: tuple[EmbeddingItem, ...] = ()
    others: tuple[str, ...] = ()  # "other" tags neither audio nor mesh (still counted as not shown)

    def __bool__(self) -> bool:
        return bool(self.audio or self.meshes or self.embeddings)


def has_described(job) -> bool:
    """Whether a job holds anything `describe` lists (audio, mesh or embeddings, as counted)."""
    return bool(job.not_shown.described())


def describe(cache, train_id: str) -> Described:
    """The job's audio clips, mesh parts and embeddings (runs in a loader's thread)."""
    view = cache.job(train_id)
    if view is None:
        return Described()
    audio: list[AudioItem] = []
    meshes: list[MeshItem] = []
    others: list[str] = []
    for tag in view.tag_names(OTHER):
        series = view.series(OTHER, tag)
        if series is None or not len(series):
            continue
        kind = _kind(cache, view, series)
        last = len(series) - 1
        step = int(series.steps[last])
        loc = view.locator(series, last)
        if kind == "audio":
            try:
                clip = cache.payloads.decoded("audio", loc, _decoder(audio_clip))
                audio.append(AudioItem(tag, len(series), step, clip))
            except PayloadError as exc:
                audio.append(AudioItem(tag, len(series), step, error=str(exc)))
        elif kind == "mesh":
            first = _first(cache, view, series)
            try:  # the part's name is in the first value's plugin data; the numbers at the newest step
                named = mesh_part(first) if first is not None else None
                part = cache.payloads.decoded("mesh", loc, _decoder(mesh_part))
                if isinstance(named, MeshPart):
                    part = replace(part, mesh=named.mesh, part=named.part)
                meshes.append(MeshItem(tag, part.mesh or tag, part.part, len(series), step, part.count, part.bounds))
            except PayloadError as exc:
                meshes.append(MeshItem(tag, tag, "?", len(series), step, error=str(exc)))
        else:
            others.append(tag)
    return Described(tuple(audio), tuple(meshes), tuple(_embeddings(cache.source, view.path)), tuple(others))


def audio_tags(cache, view) -> list[str]:
    """The job's "other" tags whose values are audio clips."""
    tags = []
    for tag in view.tag_names(OTHER):
        series = view.series(OTHER, tag)
        if series is not None and len(series) and _kind(cache, view, series) == "audio":
            tags.append(tag)
    return tags


def clips(cache, view, tag: str) -> Iterator[tuple[int, AudioClip | str]]:
    """Every kept step of an audio tag with its clip, or why it cannot be read (what the export
    writes; one clip decoded at a time)."""
    series = view.series(OTHER, tag)
    for i in range(len(series) if series is not None else 0):
        try:
            yield int(series.steps[i]), cache.payloads.decoded("audio", view.locator(series, i), _decoder(audio_clip))
        except PayloadError as exc:
            yield int(series.steps[i]), str(exc)


def neighbours(cache, train_id: str, embedding: int, point: int, count: int = 5) -> Neighbours | None:
    """The `count` points nearest `point` of the job's `embedding`-th embedding (both wrapped
    into range); None when the job has no embeddings. Read from the tensor TSV when it is inside
    the job and small (`MAX_TSV_BYTES`), else the reason."""
    view = cache.job(train_id)
    if view is None:
        return None
    config = os.path.join(view.path, CONFIG_NAME)
    try:
        size = cache.source.stat(config).st_size
        found = parse_config(cache.source.read(config, 0, min(size, MAX_CONFIG_BYTES)).decode("utf-8", "surrogateescape"))
    except OSError:
        return None
    if not found:
        return None
    chosen = found[embedding % len(found)]
    name = chosen.name or chosen.tensor_path
    data, problem = _small_tsv(cache.source, view.path, chosen.tensor_path)
    matrix = tsv_matrix(data) if data is not None else problem
    if isinstance(matrix, str):
        return Neighbours(name, 0, 0, "", error=f"{chosen.tensor_path}: {matrix}" if data is not None else matrix)
    point = point % len(matrix)
    labels = [""] * len(matrix)
    if chosen.metadata_path:
        meta, _ = _small_tsv(cache.source, view.path, chosen.metadata_path)
        labels = metadata_labels(meta, len(matrix)) if meta is not None else labels
    return Neighbours(name, point, len(matrix), labels[point],
                      tuple((i, d, labels[i]) for i, d in nearest(matrix, point, count)))


def nearest(matrix: np.ndarray, point: int, count: int) -> list[tuple[int, float]]:
    """The `count` rows nearest row `point` by cosine distance (1 - cosine similarity), nearest
    first, ties by row; a zero row is at distance 1 from every other."""
    norms = np.linalg.norm(matrix, axis=1)
    safe = np.where(norms > 0, norms, 1.0)
    unit = matrix / safe[:, None]
    distances = 1.0 - unit @ unit[point]
    distances[point] = np.inf
    order = np.lexsort((np.arange(len(matrix)), distances))
    return [(int(i), float(distances[i])) for i in order[:min(count, len(matrix) - 1)]]


def _decoder(read):
    def build(value):
        data = read(value)
        if isinstance(data, Problem):
            raise PayloadError(str(data))
        return data
    return build


def _first(cache, view, series):
    try:
        return read_value(view.locator(series, 0), cache.source)
    except PayloadError:
        return None


def _kind(cache, view, series) -> str:
    """"audio", "mesh" or the plugin named by the tag's first value (TF2 names it there only)."""
    value = _first(cache, view, series)
    if value is None:
        return "?"
    if value.WhichOneof("value") == "audio":
        return "audio"
    return value.metadata.plugin_data.plugin_name or "?"


def _embeddings(source, path: str) -> list[EmbeddingItem]:
    config = os.path.join(path, CONFIG_NAME)
    try:
        size = source.stat(config).st_size
        text = source.read(config, 0, min(size, MAX_CONFIG_BYTES)).decode("utf-8", "surrogateescape")
    except OSError:
        return []
    items = []
    for embedding in parse_config(text):
        shape, problems = embedding.shape, []
        if not shape:
            data, problem = _small_tsv(source, path, embedding.tensor_path)
            shape = tsv_shape(data) if data is not None else ()
            problems.append(problem)
        columns: tuple[str, ...] = ()
        if embedding.metadata_path:
            data, problem = _small_tsv(source, path, embedding.metadata_path)
            columns = metadata_columns(data) if data is not None else ()
            problems.append(problem)
        items.append(EmbeddingItem(embedding.name or embedding.tensor_path, embedding.tensor_path, shape, columns,
                                   "; ".join(p for p in problems if p)))
    return items


def _small_tsv(source, path: str, name: str) -> tuple[bytes | None, str]:
    """A TSV inside the job directory and under MAX_TSV_BYTES, or None and why not."""
    inside = inside_path(name)
    if inside is None:
        return None, f"{name}: outside the job directory, not read"
    full = os.path.join(path, *inside.split("/"))
    try:
        size = source.stat(full).st_size
        if size > MAX_TSV_BYTES:
            return None, f"{name}: {size:,} bytes, over {MAX_TSV_BYTES:,}: not read"
        return source.read(full, 0, size), ""
    except OSError as exc:
        return None, f"{name}: unreadable ({exc.strerror or exc})"


def sparkline(samples: np.ndarray, width: int) -> str:
    """A waveform as `width` block characters: each the peak level of its stretch of samples."""
    blocks = " ▁▂▃▄▅▆▇█"
    if width <= 0 or not len(samples):
        return ""
    edges = np.linspace(0, len(samples), min(width, len(samples)) + 1).astype(int)
    peaks = np.array([np.abs(samples[a:b]).max() if b > a else 0.0 for a, b in zip(edges[:-1], edges[1:])])
    peaks = np.nan_to_num(peaks, nan=0.0)
    top = peaks.max()
    levels = np.zeros(len(peaks), dtype=int) if top <= 0 else np.ceil(peaks / top * 8).astype(int)
    return "".join(blocks[level] for level in np.clip(levels, 0, 8))
