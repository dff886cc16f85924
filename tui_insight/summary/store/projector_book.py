"""The embeddings a job's TensorBoard projector config names: read again only when the config
changed, listed as not shown (`not_shown.EMBEDDINGS`) with the shapes of the first few."""
from __future__ import annotations

import os
from dataclasses import replace
from typing import Mapping

from ..formats.projector import MAX_CONFIG_BYTES, MAX_TSV_BYTES, inside_path, parse_config, tsv_shape
from ..sources.discovery import FoundJob
from ..sources.local import Source
from .file_state import describe
from .not_shown import EMBEDDINGS, EXAMPLES, UnshownKind


class ProjectorBook:
    def __init__(self) -> None:
        self.kinds: tuple[UnshownKind, ...] = ()  # the embeddings the config names
        self.problem = ""  # why the config cannot be read
        self._stamp: tuple | None = None  # the config as last read

    def restore(self, kinds: tuple[UnshownKind, ...]) -> None:
        """What a snapshot counted; the config is read again at the next refresh."""
        self.kinds, self._stamp = kinds, None

    def refresh(self, source: Source, path: str, found: FoundJob,
                stats: Mapping[str, os.stat_result | OSError]) -> None:
        """Read the projector config again when it changed: the embeddings it names, and the
        shapes of the first few (from the config, else from a small TSV inside the job)."""
        name = found.projector_files[0] if found.projector_files else ""
        st = stats.get(name) if name else None
        if not isinstance(st, os.stat_result):
            self.kinds, self._stamp = (), None
            self.problem = f"{name}: unreadable ({describe(st) if st else 'gone'})" if name else ""
            return
        stamp = (st.st_ino, st.st_size, st.st_mtime_ns)
        if stamp == self._stamp:
            return
        self._projector_stamp, self.problem = stamp, ""
        try:
            text = source.read(os.path.join(path, name), 0, min(st.st_size, MAX_CONFIG_BYTES))
        except OSError as exc:
            self.kinds, self.problem = (), f"{name}: unreadable ({describe(exc)})"
            return
        embeddings = parse_config(text.decode("utf-8", "surrogateescape"))
        if not embeddings:
            self.problem = f"{name}: no embeddings read from it"
        labels = []
        for embedding in embeddings[:EXAMPLES]:
            if not embedding.shape:
                embedding = replace(embedding, shape=_tsv_shape(source, path, embedding.tensor_path))
            labels.append(embedding.label())
        self.kinds = (UnshownKind(EMBEDDINGS, len(embeddings), tuple(labels)),) if embeddings else ()


def _tsv_shape(source: Source, job_path: str, tensor_path: str) -> tuple[int, ...]:
    """(rows, columns) of a small TSV inside the job directory; () when not cheap or not readable."""
    inside = inside_path(tensor_path)
    if inside is None or not inside.endswith(".tsv"):
        return ()
    path = os.path.join(job_path, *inside.split("/"))
    try:
        size = source.stat(path).st_size
        return tsv_shape(source.read(path, 0, size)) if size <= MAX_TSV_BYTES else ()
    except OSError:
        return ()
