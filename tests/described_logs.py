"""Logs holding audio, a mesh and projector embeddings (issue 26), written by tensorboardX, for
the described view's tests and the export's.

tensorboardX's `add_audio` needs `soundfile` (not a test extra): the clips are the
`Summary.Audio` it would write, built with tensorboardX's own protos, through its file writer.
"""
from __future__ import annotations

import io
import wave
from pathlib import Path

import numpy as np
from tensorboardX import SummaryWriter
from tensorboardX.proto.summary_pb2 import Summary

RATE, FRAMES = 16000, 1600
VERTICES = np.array([[[0, 0, 0], [2, 0, 0], [0, 3, 0], [0, 0, -1], [1, 1, 1]]], dtype=np.float32)
FACES = np.array([[[0, 1, 2], [0, 2, 3], [1, 2, 4]]], dtype=np.int32)


def wav(samples: np.ndarray, rate: int = RATE, channels: int = 1) -> bytes:
    out = io.BytesIO()
    with wave.open(out, "wb") as writer:
        writer.setnchannels(channels)
        writer.setsampwidth(2)
        writer.setframerate(rate)
        writer.writeframes((samples * 32767).astype("<i2").tobytes())
    return out.getvalue()


def audio_value(tag: str, encoded: bytes, rate: int = RATE, channels: int = 1, frames: int = FRAMES) -> Summary:
    """What tensorboardX's `add_audio` writes: a Summary.Audio holding the WAV."""
    audio = Summary.Audio(sample_rate=rate, num_channels=channels, length_frames=frames,
                          encoded_audio_string=encoded, content_type="audio/wav")
    return Summary(value=[Summary.Value(tag=tag, audio=audio)])


def write_described(root: Path) -> Path:
    run = root / "run"
    writer = SummaryWriter(str(run))
    ramp = np.concatenate([np.linspace(0, 1, FRAMES // 2), np.zeros(FRAMES // 2)])  # loud, then silence
    tone = ramp * np.sin(np.linspace(0, 200 * np.pi, FRAMES))
    stereo = np.repeat(tone, 2) * 0.5
    for step in range(2):
        writer.add_scalar("loss", 1.0, step)
        writer._get_file_writer().add_summary(audio_value("voice", wav(tone)), step)
    writer._get_file_writer().add_summary(audio_value("stereo", wav(stereo, channels=2), channels=2), 0)
    writer.add_mesh("shape", vertices=VERTICES, faces=FACES, global_step=4)
    writer.add_embedding(np.random.default_rng(0).random((12, 6)),
                         metadata=[[str(i), "even" if i % 2 == 0 else "odd"] for i in range(12)],
                         metadata_header=["index", "parity"], tag="features", global_step=0)
    writer.close()
    return root
