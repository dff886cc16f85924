"""Audio, mesh and projector embeddings described (issue 26), on logs written by tensorboardX:
a clip's rate, length, channels and waveform; a mesh's counts and bounds; an embedding's shape
and metadata columns. What cannot be read says why and the rest is kept."""
from __future__ import annotations

import pytest
from described_logs import FRAMES, RATE, write_described
from unshown_logs import write_unshown

from tui_insight.summary.queries.described import describe, has_described, sparkline
from tui_insight.summary.store.cache import SummaryCache


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


def test_the_export_writes_every_clip_as_a_wav_and_describes_each_kind(tmp_path):
    import csv
    import wave

    from tui_insight.export import export_snapshot

    cache = SummaryCache(str(write_described(tmp_path / "logs")))
    cache.reload()
    result = export_snapshot(cache, tmp_path / "out")
    with open(tmp_path / "out" / "described.csv", newline="", encoding="utf-8") as fh:
        rows = list(csv.DictReader(fh))
    audio = [r for r in rows if r["kind"] == "audio"]
    assert [(r["tag"], r["step"], r["channels"]) for r in audio] == [("stereo", "0", "2"), ("voice", "0", "1"),
                                                                     ("voice", "1", "1")]
    for row in audio:  # each file the clip as written
        with wave.open(str(tmp_path / "out" / row["file"])) as clip:
            assert (clip.getframerate(), clip.getnchannels(), clip.getnframes()) == (RATE, int(row["channels"]), FRAMES)
    assert sorted(p.name for p in result.files if p.suffix == ".wav") == ["audio-00001.wav", "audio-00002.wav",
                                                                          "audio-00003.wav"]
    mesh = {r["name"]: r for r in rows if r["kind"] == "mesh"}
    assert mesh["shape vertices"]["count"] == "5" and mesh["shape faces"]["count"] == "3"
    assert [mesh["shape vertices"][c] for c in ("x_min", "x_max", "z_min", "z_max")] == ["0.0", "2.0", "-1.0", "1.0"]
    (embedding,) = [r for r in rows if r["kind"] == "embedding"]
    assert embedding["shape"] == "12x6" and embedding["metadata_columns"] == '["index", "parity"]'


def test_nearest_points_by_cosine_distance_nearest_first():
    import numpy as np

    from tui_insight.summary.queries.described import nearest

    points = np.array([[1.0, 0.0], [0.0, 1.0], [2.0, 0.1], [-1.0, 0.0], [0.0, 0.0], [1.0, 1.0]])
    found = nearest(points, 0, 4)
    assert [i for i, _ in found] == [2, 5, 1, 4]  # 1 and the zero row both at distance 1: by row
    assert found[0][1] == pytest.approx(1 - 2 / np.hypot(2, 0.1))
    assert found[1][1] == pytest.approx(1 - 1 / np.sqrt(2))
    assert len(nearest(points[:2], 0, 5)) == 1  # never the point itself


def test_neighbours_of_a_chosen_point_with_their_metadata(tmp_path):
    import numpy as np

    from tui_insight.summary.queries.described import neighbours

    cache = SummaryCache(str(write_described(tmp_path / "logs")))
    cache.reload()
    near = neighbours(cache, "./run", 0, 14, 3)  # 12 points: wraps to point 2
    assert (near.point, near.points, near.label) == (2, 12, "2 · even")
    matrix = np.loadtxt(tmp_path / "logs" / "run" / "00000" / "features" / "tensors.tsv", delimiter="\t")
    unit = matrix / np.linalg.norm(matrix, axis=1)[:, None]
    distances = 1 - unit @ unit[2]
    distances[2] = np.inf
    expected = list(np.argsort(distances)[:3])
    assert [i for i, _, _ in near.nearest] == expected
    assert [label for _, _, label in near.nearest] == [f"{i} · {'even' if i % 2 == 0 else 'odd'}" for i in expected]


def test_a_tf2_audio_plugin_tensor_is_described_from_its_first_clip(tmp_path):
    """`tf.summary.audio` writes a string tensor, a row per clip ([wav, label]), with the audio
    plugin's metadata: made here with tensorboard's own helpers, written by tensorboardX."""
    import numpy as np
    from tensorboard.compat.proto.summary_pb2 import Summary as TBSummary
    from tensorboard.plugins.audio import metadata
    from tensorboard.util import tensor_util
    from tensorboardX import SummaryWriter
    from tensorboardX.proto.summary_pb2 import Summary

    from described_logs import wav

    tone = np.sin(np.linspace(0, 50, 800))
    tensor = tensor_util.make_tensor_proto(np.array([[wav(tone, rate=22050), b"first"], [b"not a wav", b"second"]],
                                                    dtype=object))
    meta = metadata.create_summary_metadata(display_name="speech", description="",
                                            encoding=metadata.Encoding.Value("WAV"))
    summary = TBSummary(value=[TBSummary.Value(tag="speech", tensor=tensor, metadata=meta)])
    with SummaryWriter(str(tmp_path / "logs" / "tf2")) as writer:
        writer.file_writer.add_summary(Summary.FromString(summary.SerializeToString()), 7)
    cache = SummaryCache(str(tmp_path / "logs"))
    cache.reload()
    (speech,) = describe(cache, "./tf2").audio
    assert (speech.step, speech.clip.sample_rate, speech.clip.frames) == (7, 22050, 800)
