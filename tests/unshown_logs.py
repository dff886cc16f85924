"""Logs holding what no view shows (issue 22), written by tensorboardX: audio, a mesh,
projector embeddings in one run, with PR curves and a custom-scalars layout (shown: they must
stay out of the account); 320 scalar tags in another.

tensorboardX's `add_audio` needs the `soundfile` package (not a test extra): the audio value is
the `Summary.Audio` it would write, built with tensorboardX's own protos and written through its
file writer.
"""
from __future__ import annotations

from pathlib import Path

import numpy as np
from tensorboardX import SummaryWriter
from tensorboardX.proto.summary_pb2 import Summary

MANY_TAGS = 320
# What `write_unshown` writes that no view shows: kind -> tags (embeddings: tensors).
UNSHOWN = {"audio": 1, "mesh": 2, "embeddings": 1}
EMBEDDING_SHAPE = (20, 5)


def write_unshown(logdir: Path, run: str = "run") -> Path:
    """The run of every unshown kind (and one scalar tag, `loss`)."""
    writer = SummaryWriter(str(logdir / run))
    labels, scores = np.array([0, 1, 1, 0]), np.array([0.1, 0.9, 0.8, 0.3])
    audio = Summary.Audio(sample_rate=44100, num_channels=1, length_frames=4,
                          encoded_audio_string=b"RIFF\x00\x00\x00\x00WAVE", content_type="audio/wav")
    for step in range(3):
        writer.add_scalar("loss", 1.0 / (step + 1), step)
        writer.add_pr_curve("pr/class0", labels, scores, step)
        writer.add_pr_curve("pr/class1", labels, scores, step)
        writer._get_file_writer().add_summary(Summary(value=[Summary.Value(tag="sound", audio=audio)]), step)
        writer.add_mesh("cube", vertices=np.random.default_rng(step).random((1, 8, 3)),
                        faces=np.array([[[0, 1, 2]]]), global_step=step)
    writer.add_custom_scalars({"group": {"loss chart": ["Multiline", ["loss"]]}})
    writer.add_embedding(np.random.default_rng(0).random(EMBEDDING_SHAPE), metadata=[str(i) for i in range(20)],
                         tag="feat", global_step=0)
    writer.close()
    return logdir / run


def write_many_tags(logdir: Path, run: str = "many", tags: int = MANY_TAGS) -> Path:
    """A run of `tags` scalar tags, two steps each."""
    writer = SummaryWriter(str(logdir / run))
    for step in range(2):
        for i in range(tags):
            writer.add_scalar(f"m/t{i:03d}", float(i + step), step)
    writer.close()
    return logdir / run
