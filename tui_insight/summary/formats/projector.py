"""TensorBoard projector embeddings (`projector_config.pbtxt`): found and listed, not shown.

tensorboardX's `add_embedding` (and TF's projector plugin) write a text-format
`projector_config.pbtxt` in the run directory, one `embeddings { ... }` block per tensor naming
its `tensor_path` (a TSV: a row per point, tab-separated numbers) and maybe its
`tensor_shape`. A directory holding one is a job (`file_names.classify`). No view draws
embeddings; this reads the names and, where cheap, the shapes, for the job's notes.

Only what is needed is parsed (no protobuf text-format parser: tensorboard is not a
dependency). Bounded: the config is read up to MAX_CONFIG_BYTES, at most MAX_EMBEDDINGS blocks,
and a TSV is measured only when small and inside the job directory.
"""
from __future__ import annotations

import posixpath
import re
from dataclasses import dataclass

import numpy as np

CONFIG_NAME = "projector_config.pbtxt"
MAX_CONFIG_BYTES = 1 << 20
MAX_EMBEDDINGS = 1000
MAX_TSV_BYTES = 4 << 20  # a TSV this small is read to count its rows and columns

_BLOCK = re.compile(r"embeddings\s*\{([^{}]*)\}")
_FIELD = re.compile(r'(\w+)\s*:\s*(?:"((?:[^"\\]|\\.)*)"|(-?\d+))')


@dataclass(frozen=True)
class Embedding:
    """One embedding a projector config names."""

    name: str  # tensor_name ("" when the config names none)
    tensor_path: str  # as written, relative to the config's directory
    shape: tuple[int, ...] = ()  # () when not known cheaply
    metadata_path: str = ""  # a TSV of a row per point (a header row when it has several columns)

    def label(self) -> str:
        """"feat:00000 20x5" (the shape when known)."""
        name = self.name or self.tensor_path or "?"
        return f"{name} {'x'.join(map(str, self.shape))}" if self.shape else name


def parse_config(text: str) -> list[Embedding]:
    """The embeddings a projector config names, in order (at most MAX_EMBEDDINGS)."""
    found: list[Embedding] = []
    for block in _BLOCK.finditer(text):
        if len(found) >= MAX_EMBEDDINGS:
            break
        name = path = metadata = ""
        shape: list[int] = []
        for key, quoted, number in _FIELD.findall(block.group(1)):
            if key == "tensor_name" and quoted:
                name = _unquoted(quoted)
            elif key == "tensor_path" and quoted:
                path = _unquoted(quoted)
            elif key == "metadata_path" and quoted:
                metadata = _unquoted(quoted)
            elif key == "tensor_shape" and number:
                shape.append(int(number))
        found.append(Embedding(name, path, tuple(shape), metadata))
    return found


def _unquoted(text: str) -> str:
    return re.sub(r"\\(.)", r"\1", text)


def inside_path(tensor_path: str) -> str | None:
    """`tensor_path` as a path inside the config's directory, or None (absolute, or leaving it)."""
    if not tensor_path or tensor_path.startswith(("/", "\\")) or re.match(r"^[A-Za-z]:", tensor_path):
        return None
    path = posixpath.normpath(tensor_path.replace("\\", "/"))
    return None if path == ".." or path.startswith("../") or path == "." else path


def metadata_columns(data: bytes) -> tuple[str, ...]:
    """The metadata TSV's column names, as the projector reads them: one column has no header
    (its name is "label"); several have a header row."""
    first = data.split(b"\n", 1)[0].rstrip(b"\r")
    if not first:
        return ()
    cells = first.decode("utf-8", "backslashreplace").split("\t")
    return tuple(cells) if len(cells) > 1 else ("label",)


def tsv_shape(data: bytes) -> tuple[int, ...]:
    """(rows, columns) of a TSV of numbers; () when it holds none."""
    rows = [line for line in data.split(b"\n") if line.strip()]
    if not rows:
        return ()
    return (len(rows), rows[0].count(b"\t") + 1)


def tsv_matrix(data: bytes) -> "np.ndarray | str":
    """A tensor TSV as a float matrix (a row per point), or why it is not one."""
    rows = [line for line in data.decode("utf-8", "replace").split("\n") if line.strip()]
    if not rows:
        return "no rows"
    try:
        matrix = np.array([[float(cell) for cell in row.split("\t")] for row in rows], dtype=np.float64)
    except ValueError as exc:
        return f"not a table of numbers: {exc}"
    return matrix if matrix.ndim == 2 else "rows of different lengths"


def metadata_labels(data: bytes, points: int) -> list[str]:
    """Each point's metadata as one label (its cells joined by " · "; a header row, present when
    there are several columns, left out), `points` of them (missing ones "")."""
    lines = [line.rstrip("\r") for line in data.decode("utf-8", "backslashreplace").split("\n")]
    if lines and lines[-1] == "":
        lines.pop()
    if lines and "\t" in lines[0]:
        lines = lines[1:]
    labels = [" · ".join(line.split("\t")) for line in lines[:points]]
    return labels + [""] * (points - len(labels))
