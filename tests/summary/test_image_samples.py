"""Every image sample of a step (issues 22 and 26): what each writer really writes for a batch of
images, and that the cache keeps each step's sample count and the payload store decodes every
sample. Logs written by tensorboardX, by tensorboard's own TF-free event writer with the images
plugin's tensor layout (what TF2's and Keras' `tf.summary.image` write), and by the repo's writers.
"""
from __future__ import annotations

import io

import numpy as np
from PIL import Image

from tui_insight.proto import tb_event_pb2
from tui_insight.summary.formats import tensorboard as tb
from tui_insight.summary.formats.values import PayloadError
from tui_insight.summary.formats.writer import SummaryWriter, TensorBoardWriter
from tui_insight.summary.store.cache import SummaryCache
from tui_insight.summary.store.disk_cache import DiskCache

T0 = 1_700_000_000.0


def pixels(png: bytes) -> np.ndarray:
    return np.array(Image.open(io.BytesIO(png)).convert("RGB"))


def png_of(array: np.ndarray) -> bytes:
    out = io.BytesIO()
    Image.fromarray(array).save(out, format="PNG")
    return out.getvalue()


def loaded(logdir, **kwargs) -> SummaryCache:
    cache = SummaryCache(str(logdir), **kwargs)
    cache.reload()
    return cache


def samples_of(cache: SummaryCache, job: str, tag: str) -> list[int]:
    view = cache.job(job)
    series = view.series("image", tag)
    return [view.samples(series, i) for i in range(len(series))]


def write_tf2_images(run, batches: list[list[np.ndarray]], tag: str = "inputs") -> None:
    """`tf.summary.image(tag, batch, max_outputs=len(batch))` per step, through tensorboard's own
    event writer: a DT_STRING tensor [width, height, png...], the plugin named on the first value."""
    from tensorboard.compat.proto.event_pb2 import Event
    from tensorboard.compat.proto.summary_pb2 import Summary
    from tensorboard.compat.proto.tensor_pb2 import TensorProto
    from tensorboard.compat.proto.tensor_shape_pb2 import TensorShapeProto
    from tensorboard.plugins.image.metadata import create_summary_metadata
    from tensorboard.summary.writer.event_file_writer import EventFileWriter

    writer = EventFileWriter(str(run))
    for step, batch in enumerate(batches):
        height, width = batch[0].shape[:2]
        strings = [str(width).encode(), str(height).encode(), *(png_of(image) for image in batch)]
        tensor = TensorProto(dtype=7, tensor_shape=TensorShapeProto(dim=[TensorShapeProto.Dim(size=len(strings))]),
                             string_val=strings)
        value = Summary.Value(tag=tag, tensor=tensor)
        if step == 0:
            value.metadata.CopyFrom(create_summary_metadata("", ""))
        writer.add_event(Event(step=step, wall_time=T0 + step, summary=Summary(value=[value])))
    writer.close()


def random_batches(steps: int, count: int, shape=(6, 10, 3), seed: int = 3) -> list[list[np.ndarray]]:
    rng = np.random.default_rng(seed)
    return [[rng.integers(0, 255, shape, dtype=np.uint8) for _ in range(count)] for _ in range(steps)]


def test_tf2_images_keep_every_sample_of_a_step(tmp_path):
    batches = random_batches(3, 4)
    write_tf2_images(tmp_path / "run", batches)
    cache = loaded(tmp_path)
    view = cache.job("./run")
    series = view.series("image", "inputs")
    assert series.steps.tolist() == [0, 1, 2]  # one row a step, whatever its samples
    assert samples_of(cache, "./run", "inputs") == [4, 4, 4]
    for i, batch in enumerate(batches):
        loc = view.locator(series, i)
        got = cache.payloads.images(loc, view.samples(series, i))
        assert len(got) == 4
        for sample, (image, written) in enumerate(zip(got, batch)):
            assert (image.width, image.height) == (10, 6)
            assert np.array_equal(pixels(image.png), written), (i, sample)
            assert cache.payloads.image(loc, sample) is image  # decoded once, kept per sample
    try:
        cache.payloads.image(view.locator(series, 0), 4)
    except PayloadError as exc:
        assert str(exc) == "no image 5: the tensor holds 4"  # counted from 1, as the title counts
    else:
        raise AssertionError("a fifth sample of four")


def test_ten_image_steps_a_tag_stay_and_each_keeps_its_samples(tmp_path):
    batches = [batch[:1 + step % 4] for step, batch in enumerate(random_batches(15, 4, shape=(2, 3, 3)))]
    write_tf2_images(tmp_path / "run", batches)
    cache = loaded(tmp_path)
    view = cache.job("./run")
    series = view.series("image", "inputs")
    assert len(series) == 10 and series.steps[0] == 0 and series.steps[-1] == 14
    assert samples_of(cache, "./run", "inputs") == [1 + int(step) % 4 for step in series.steps]


def test_sample_counts_survive_the_disk_cache(tmp_path):
    logs, store = tmp_path / "logs", DiskCache(tmp_path / "store")
    write_tf2_images(logs / "run", random_batches(2, 3))
    loaded(logs, disk_cache=store)
    again = loaded(logs, disk_cache=store)
    again.start(interval=0)
    try:
        view = again.details("./run")  # its series, not only its list row
    finally:
        again.stop()
    assert again.progress.bytes_read == 0  # restored, nothing read from the file again
    series = view.series("image", "inputs")
    assert [view.samples(series, i) for i in range(len(series))] == [3, 3]


def test_tensorboardx_add_images_writes_one_grid_a_step(tmp_path):
    """tensorboardX (2.6) tiles `add_images`' batch into one PNG (<= 8 columns): one sample, the
    whole batch in it, side by side."""
    from tensorboardX import SummaryWriter as XWriter

    batch = np.stack([np.full((3, 5, 7), k / 4, dtype=np.float32) for k in range(4)])  # NCHW, grey levels
    with XWriter(str(tmp_path / "run")) as writer:
        for step in range(2):
            writer.add_images("batch", batch, step)
    cache = loaded(tmp_path)
    view = cache.job("./run")
    series = view.series("image", "batch")
    assert samples_of(cache, "./run", "batch") == [1, 1]
    (image,) = cache.payloads.images(view.locator(series, 1), 1)
    assert (image.width, image.height) == (4 * 7, 5)
    assert pixels(image.png)[0, ::7, 0].tolist() == [int(k / 4 * 255) for k in range(4)]


def test_our_tensorboard_writer_writes_samples_as_tf_summary_image(tmp_path):
    batch = np.random.default_rng(5).uniform(0, 1, (5, 3, 4, 6))
    writer = TensorBoardWriter(tmp_path / "run", timestamp=int(T0), wall_time=T0)
    writer.add_images("weights", batch, 0, T0, max_outputs=3)  # Keras: 3-4 weight images a step
    writer.add_image("single", batch[0], 0, T0)
    writer.close()
    cache = loaded(tmp_path)
    assert samples_of(cache, "./run", "weights") == [3]
    assert samples_of(cache, "./run", "single") == [1]
    view = cache.job("./run")
    series = view.series("image", "weights")
    images = cache.payloads.images(view.locator(series, 0), 3)
    assert [(i.width, i.height) for i in images] == [(6, 4)] * 3
    assert len({i.png for i in images}) == 3


def test_mindspore_images_are_one_sample_a_step(tmp_path):
    """MindSpore tiles an NCHW batch into one PNG (compat §4.4): one sample, no second one."""
    with SummaryWriter(tmp_path / "run", timestamp=int(T0), wall_time=T0) as writer:
        writer.add_image("batch", np.zeros((4, 3, 2, 2)))
        writer.record(1, wall_time=T0 + 1)
    cache = loaded(tmp_path)
    view = cache.job("./run")
    series = view.series("image", "batch")
    assert samples_of(cache, "./run", "batch") == [1]
    (image, missing) = cache.payloads.images(view.locator(series, 0), 2)
    assert (image.width, image.height) == (8, 2)
    assert isinstance(missing, PayloadError) and "holds one" in str(missing)


def test_a_broken_sample_keeps_the_others():
    batch = random_batches(1, 3)[0]
    broken = tb_event_pb2.Summary.Value(tag="x")
    broken.tensor.dtype = tb_event_pb2.DT_STRING
    broken.tensor.string_val.extend([b"10", b"6", png_of(batch[0]), b"not a png", png_of(batch[2])])
    found = tb.image_samples(broken)
    assert [isinstance(f, tb.Problem) for f in found] == [False, True, False]
    assert np.array_equal(pixels(found[2].png), batch[2])
    empty = tb_event_pb2.Summary.Value(tag="x")
    empty.tensor.string_val.extend([b"10", b"6"])
    (problem,) = tb.image_samples(empty)
    assert isinstance(problem, tb.Problem) and "2 strings" in str(problem)
