"""Audio, mesh and projector embeddings described (issue 26), on logs written by tensorboardX:
a clip's rate, length, channels and waveform; a mesh's counts and bounds; an embedding's shape
and metadata columns. What cannot be read says why and the rest is kept."""
from __future__ import annotations

import io
import wave
from pathlib import Path

import numpy as np
import pytest
from tensorboardX import SummaryWriter
from tensorboardX.proto.summary_pb2 import Summary
from unshown_logs import write_unshown

from tui_insight.summary.queries.described import describe, has_described, sparkline
from tui_insight.summary.store.cache import SummaryCache

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
    """What tensorboardX's `add_audio` writes (it needs `soundfile`, not a test extra): the same
    Summary.Audio, through the same writer."""
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


@pytest.fixture(scope="module")
def described(tmp_path_factory):
    cache = SummaryCache(str(write_described(tmp_path_factory.mktemp("described"))))
    cache.reload()
    assert has_described(cache.job("./run"))
    return describe(cache, "./run")


def test_audio_clips_with_rate_length_channels_at_the_newest_step(described):
    by_tag = {item.tag: item for item in described.audio}
    assert sorted(by_tag) == ["stereo", "voice"]
    voice, stereo = by_tag["voice"], by_tag["stereo"]
    assert (voice.steps, voice.step) == (2, 1)
    assert (voice.clip.sample_rate, voice.clip.channels, voice.clip.frames) == (RATE, 1, FRAMES)
    assert voice.clip.seconds == pytest.approx(0.1)
    assert (stereo.clip.channels, stereo.clip.frames) == (2, FRAMES)
    assert voice.clip.wav[:4] == b"RIFF"


def test_the_waveform_sparkline_is_loud_then_silent(described):
    clip = next(item.clip for item in described.audio if item.tag == "voice")
    line = sparkline(clip.samples(), 20)
    assert len(line) == 20
    assert set(line[12:]) == {" "}  # the silent second half
    assert line[9] == "█" and line[0] in " ▁"  # rising to the loudest just before the silence


def test_a_mesh_with_vertex_and_face_counts_and_bounds(described):
    parts = {item.part: item for item in described.meshes}
    assert sorted(parts) == ["faces", "vertices"] and {m.mesh for m in described.meshes} == {"shape"}
    assert parts["vertices"].count == 5 and parts["faces"].count == 3
    assert parts["vertices"].bounds == ((0.0, 2.0), (0.0, 3.0), (-1.0, 1.0))
    assert parts["vertices"].step == 4


def test_an_embedding_with_its_shape_and_metadata_columns(described):
    (embedding,) = described.embeddings
    assert embedding.name.startswith("features") and embedding.shape == (12, 6)
    assert embedding.columns == ("index", "parity") and not embedding.error


def test_a_broken_clip_says_why_and_the_rest_is_described(tmp_path):
    write_unshown(tmp_path)  # its clip is a WAV header cut short
    (tmp_path / "run" / "projector_config.pbtxt").write_text(
        'embeddings { tensor_name: "far" tensor_path: "../../etc/passwd" }\n'
        + (tmp_path / "run" / "projector_config.pbtxt").read_text())
    cache = SummaryCache(str(tmp_path))
    cache.reload()
    found = describe(cache, "./run")
    (sound,) = found.audio
    assert sound.clip is None and "not a WAV clip" in sound.error
    assert {m.part for m in found.meshes} == {"vertices", "faces"}
    far, feat = found.embeddings
    assert far.shape == () and "outside the job directory" in far.error
    assert feat.shape == (20, 5) and feat.columns == ("label",)
