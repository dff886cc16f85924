"""TensorBoard audio and mesh values, decoded to be described (no terminal plays or draws them).

Audio: tensorboardX's and torch's `add_audio` write a `Summary.Audio` holding an encoded WAV
(sample rate, channels, frames); TF2's `tf.summary.audio` writes an audio-plugin string tensor,
a row per clip whose first cell is the encoded WAV. `audio_clip` reads the first clip of either.

Mesh: `add_mesh` (tensorboardX, TF's mesh plugin) writes up to three tags per mesh, each a
float or int tensor `[1, n, 3]` whose plugin data (`MeshPluginData`) names the mesh and the
part: vertices, faces or colours. `mesh_part` reads one part.

Nothing here raises on bad input: what cannot be read is a `Problem`.
"""
from __future__ import annotations

import io
import wave
from dataclasses import dataclass

import numpy as np

from ...proto import tb_event_pb2
from ..text import text_of
from .tensorboard import Problem, tensor_data

MAX_WAV_BYTES = 64 << 20  # a clip longer than this is described from its header only
MESH_PARTS = {1: "vertices", 2: "faces", 3: "colors"}  # MeshPluginData.ContentType


@dataclass(frozen=True)
class AudioClip:
    """One audio clip as written: its WAV and what its header says."""

    sample_rate: int
    channels: int
    frames: int
    sample_width: int  # bytes a sample
    wav: bytes  # the encoded WAV as written (what the export writes)

    @property
    def seconds(self) -> float:
        return self.frames / self.sample_rate if self.sample_rate else 0.0

    @property
    def nbytes(self) -> int:
        return len(self.wav) + 64

    def samples(self) -> np.ndarray:
        """The first channel's samples scaled to [-1, 1] (empty when the WAV cannot be decoded)."""
        try:
            with wave.open(io.BytesIO(self.wav)) as reader:
                raw = reader.readframes(reader.getnframes())
        except (wave.Error, EOFError, ValueError):
            return np.zeros(0)
        kinds = {1: ("u1", 128.0, 128.0), 2: ("<i2", 0.0, 32768.0), 4: ("<i4", 0.0, 2.0 ** 31)}
        if self.sample_width not in kinds or self.channels < 1:
            return np.zeros(0)
        dtype, zero, scale = kinds[self.sample_width]
        usable = len(raw) // (self.sample_width * self.channels) * self.sample_width * self.channels
        numbers = np.frombuffer(raw[:usable], dtype=dtype).astype(np.float64)
        return (numbers[::self.channels] - zero) / scale


def audio_clip(value: tb_event_pb2.Summary.Value) -> AudioClip | Problem:
    """The (first) clip of an audio value: a Summary.Audio or an audio-plugin string tensor."""
    kind, content_type = value.WhichOneof("value"), ""
    if kind == "audio":  # Summary.Audio: field 4 the encoded clip, 5 its content type
        fields = _fields(value.audio)
        encoded = bytes(fields.get(4, [b""])[0])
        content_type = text_of(bytes(fields.get(5, [b""])[0]))
    elif kind == "tensor" and value.tensor.dtype == tb_event_pb2.DT_STRING and value.tensor.string_val:
        encoded = value.tensor.string_val[0]
    else:
        return Problem(f"not audio: {kind or 'no data'}")
    if len(encoded) > MAX_WAV_BYTES:
        return Problem(f"a clip of {len(encoded):,} bytes: over the limit of {MAX_WAV_BYTES:,}")
    try:
        with wave.open(io.BytesIO(encoded)) as reader:
            return AudioClip(reader.getframerate(), reader.getnchannels(), reader.getnframes(),
                             reader.getsampwidth(), encoded)
    except (wave.Error, EOFError, ValueError) as exc:
        return Problem(f"not a WAV clip{' (' + content_type + ')' if content_type else ''}: {exc}")


@dataclass(frozen=True)
class MeshPart:
    """One part (vertices, faces or colours) of a mesh, described without its numbers."""

    mesh: str  # the mesh's name (MeshPluginData.name)
    part: str  # "vertices", "faces" or "colors"
    count: int  # vertices, faces or colours (of the first mesh of the batch)
    bounds: tuple[tuple[float, float], ...] = ()  # vertices: (min, max) of x, y, z

    @property
    def nbytes(self) -> int:
        return 128


def mesh_part(value: tb_event_pb2.Summary.Value) -> MeshPart | Problem:
    """One part of a mesh value; its plugin data says which (the first value of a tag carries it)."""
    name, part = _mesh_plugin_data(value.metadata.plugin_data.content)
    data = tensor_data(value)
    if isinstance(data, Problem):
        return data
    if data.array is None:
        return Problem(data.reason)
    if data.array.ndim != 3 or data.array.shape[-1] != 3:
        return Problem(f"a mesh part is [batch, n, 3], not {list(data.array.shape)}")
    first = data.array[0] if len(data.array) else np.zeros((0, 3))
    bounds: tuple[tuple[float, float], ...] = ()
    if part == "vertices" and len(first):
        finite = first[np.isfinite(first).all(axis=1)]
        if len(finite):
            bounds = tuple((float(lo), float(hi)) for lo, hi in zip(finite.min(axis=0), finite.max(axis=0)))
    return MeshPart(name, part, int(first.shape[0]), bounds)


def _mesh_plugin_data(content: bytes) -> tuple[str, str]:
    """(name, part) from a MeshPluginData message: field 2 the name, 3 the content type."""
    fields = _fields(content)
    name = fields.get(2, [b""])[0]
    part = fields.get(3, [0])[0]
    return (text_of(bytes(name)) if isinstance(name, bytes) else "",
            MESH_PARTS.get(part, "?") if isinstance(part, int) else "?")


def _fields(content: bytes) -> dict[int, list[int | bytes]]:
    """A protobuf message's fields by number, read off the wire (our protos keep Summary.Audio as
    bytes and have no MeshPluginData): varints as ints, length-delimited as bytes. What cannot be
    read ends the reading; what was read is kept."""
    fields: dict[int, list[int | bytes]] = {}
    at = 0
    try:
        while at < len(content):
            key, at = _varint(content, at)
            field, wire = key >> 3, key & 7
            if wire == 0:
                number, at = _varint(content, at)
                fields.setdefault(field, []).append(number)
            elif wire == 2:
                size, at = _varint(content, at)
                if at + size > len(content):
                    break
                fields.setdefault(field, []).append(content[at:at + size])
                at += size
            elif wire in (1, 5):
                at += 8 if wire == 1 else 4
            else:
                break
    except IndexError:
        pass
    return fields


def _varint(data: bytes, at: int) -> tuple[int, int]:
    number, shift = 0, 0
    while True:
        byte = data[at]
        at += 1
        number |= (byte & 0x7F) << shift
        if not byte & 0x80 or shift > 63:
            return number, at
        shift += 7
