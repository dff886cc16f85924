"""Logs a buggy or hostile writer could leave, built byte by byte (our writer would refuse them)."""
from __future__ import annotations


def varint(n: int) -> bytes:
    """A protobuf varint (a negative number as its 64-bit two's complement, as protobuf writes it)."""
    n &= (1 << 64) - 1
    out = bytearray()
    while True:
        low, n = n & 0x7F, n >> 7
        if not n:
            return bytes(out + bytes([low]))
        out.append(low | 0x80)


def field(number: int, payload: bytes) -> bytes:
    """A length-delimited protobuf field: anything can go where a string or message should be."""
    return varint((number << 3) | 2) + varint(len(payload)) + payload


def write_invalid_utf8_tag(directory, steps=5):
    """A summary file whose first tag is not valid UTF-8 (protobuf hands such a proto2 string
    over as bytes), beside an ordinary tag: framed by hand, as a buggy writer would."""
    import struct

    from tui_insight.proto import summary_pb2
    from tui_insight.summary.formats.framing import frame

    def scalar(tag, value):
        return field(1, tag) + varint((3 << 3) | 5) + struct.pack("<f", value)

    path = directory / "events.summary.1700000000.host_MS"
    with open(path, "wb") as fh:
        fh.write(frame(summary_pb2.Event(wall_time=1.0, version="Mindspore.Event:1").SerializeToString()))
        for step in range(1, steps + 1):
            summary = field(1, scalar(b"loss\xff\xfe", 1.0 / step)) + field(1, scalar(b"acc", 0.5))
            event = varint((1 << 3) | 1) + struct.pack("<d", 1.0 + step) + varint(2 << 3) + varint(step) + field(5, summary)
            fh.write(frame(event))
    return path


HOSTILE_SHAPES = {  # tag: (dims, number of float values written)
    "neg": ((-2, 3), 6),
    "neg_twice": ((-1, -1), 1),
    "overflow": ((2 ** 40, 2 ** 40), 4),
    "too_many_dims": ((1,) * 70, 1),
    "zero_and_huge": ((0, 10 ** 9), 0),
    "fine": ((2, 3), 6),
}


def write_hostile_tensors(directory, steps: int = 2):
    """Tensors whose declared shapes do not make sense, beside one that does."""
    from tui_insight.proto import anf_ir_pb2, summary_pb2
    from tui_insight.summary.formats.framing import frame

    path = directory / "events.summary.1700000001.host_MS"
    with open(path, "wb") as fh:
        fh.write(frame(summary_pb2.Event(wall_time=1.0, version="Mindspore.Event:1").SerializeToString()))
        for step in range(1, steps + 1):
            event = summary_pb2.Event(wall_time=1.0 + step, step=step)
            for tag, (dims, values) in HOSTILE_SHAPES.items():
                tensor = anf_ir_pb2.TensorProto(dims=list(dims), data_type=anf_ir_pb2.DT_FLOAT32,
                                                float_data=[0.5] * values)
                event.summary.value.add(tag=tag, tensor=tensor)
            fh.write(frame(event.SerializeToString()))
    return path


def write_deep_lineage(directory, depth: int = 100_000):
    """A lineage file whose evaluation metric is JSON nested `depth` levels deep, and one whose
    metric holds a nested list, beside an ordinary job: written with our writer's framing."""
    from tui_insight.proto import lineage_pb2
    from tui_insight.summary.formats.framing import frame

    for name, metric in (("deep", '{"acc": ' + "[" * depth + "]" * depth + "}"),
                         ("nested", '{"acc": 0.5, "per_class": [[0.1, 0.2], [0.3]]}')):
        job = directory / name
        job.mkdir(parents=True)
        event = lineage_pb2.LineageEvent(wall_time=1.0)
        event.evaluation_lineage.metric = metric
        (job / "events.summary.1700000000.host_lineage").write_bytes(frame(event.SerializeToString()))


# Histograms no writer should make: (tag, [(left, width, count), ...], min, max), beside a sound one.
INF, NAN = float("inf"), float("nan")
HOSTILE_HISTOGRAMS = {
    "nan_edge": ([(NAN, 1.0, 3), (1.0, 1.0, 4)], 0.0, 2.0),
    "inf_width": ([(0.0, INF, 3), (1.0, 1.0, 4)], 0.0, 2.0),
    "negative_width": ([(0.0, -5.0, 3), (1.0, 1.0, 4)], 0.0, 2.0),
    "negative_count": ([(0.0, 1.0, -3), (1.0, 1.0, 4)], 0.0, 2.0),
    "unsorted": ([(5.0, 1.0, 3), (0.0, 1.0, 4), (2.0, 10.0, 1)], 0.0, 6.0),
    "nan_min_max": ([(0.0, 1.0, 3)], NAN, NAN),
    "min_over_max": ([(0.0, 1.0, 3)], 5.0, -5.0),
    "huge_range": ([(-1e308, 1e308, 3), (0.0, 1e308, 1)], -1e308, 1e308),
    "huge_count": ([(0.0, 1.0, 2 ** 62), (1.0, 1.0, 2 ** 62)], 0.0, 2.0),
    "fine": ([(0.0, 1.0, 3), (1.0, 1.0, 4)], 0.0, 2.0),
}


def write_hostile_histograms(directory, steps: int = 2):
    """Histograms with non-finite or unsorted edges, negative widths or counts, NaN or crossed
    min/max, and counts past what float64 holds exactly, beside a sound one."""
    from tui_insight.proto import summary_pb2
    from tui_insight.summary.formats.framing import frame

    path = directory / "events.summary.1700000002.host_MS"
    with open(path, "wb") as fh:
        fh.write(frame(summary_pb2.Event(wall_time=1.0, version="Mindspore.Event:1").SerializeToString()))
        for step in range(1, steps + 1):
            event = summary_pb2.Event(wall_time=1.0 + step, step=step)
            for tag, (buckets, lo, hi) in HOSTILE_HISTOGRAMS.items():
                histogram = event.summary.value.add(tag=tag).histogram
                histogram.min, histogram.max, histogram.nan_count, histogram.neg_inf_count = lo, hi, 1, -4
                for left, width, count in buckets:
                    histogram.buckets.add(left=left, width=width, count=count)
            fh.write(frame(event.SerializeToString()))
    return path


def png_chunk(kind: bytes, data: bytes) -> bytes:
    import struct
    import zlib

    return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))


def png_bomb(width: int = 20_000, height: int = 20_000) -> bytes:
    """A real PNG of `width` x `height` black 1-bit pixels: a few tens of KB that decode to
    width x height pixels (1.2 GB as RGB for the default size)."""
    import struct
    import zlib

    row = b"\x00" * (1 + (width + 7) // 8)  # filter byte, then the bits of one row
    compressor = zlib.compressobj(9)
    data = b"".join(compressor.compress(row) for _ in range(height)) + compressor.flush()
    header = struct.pack(">IIBBBBB", width, height, 1, 0, 0, 0, 0)  # 1-bit grey
    return (b"\x89PNG\r\n\x1a\n" + png_chunk(b"IHDR", header) + png_chunk(b"IDAT", data)
            + png_chunk(b"IEND", b""))


def small_png(width: int, height: int) -> bytes:
    """A sound RGB PNG of `width` x `height` pixels."""
    import io

    import numpy as np
    from PIL import Image

    out = io.BytesIO()
    pixels = (np.arange(width * height * 3) % 251).astype(np.uint8).reshape(height, width, 3)
    Image.fromarray(pixels, "RGB").save(out, "PNG")
    return out.getvalue()


def hostile_images() -> dict:
    """{tag: (png bytes, declared width, declared height)}: a PNG whose record declares another
    size, bytes that are no PNG, a decompression bomb, an empty image, and a sound one."""
    good = small_png(8, 6)
    return {
        "wrong_size": (good, 300, 2),
        "not_png": (b"GIF89a but not really" * 3, 8, 6),
        "bomb": (png_bomb(), 20_000, 20_000),
        "half_png": (good[: len(good) // 2], 8, 6),
        "empty": (b"", 0, 0),
        "fine": (good, 8, 6),
    }


def write_hostile_images(directory):
    """One step of each of `hostile_images`, written with our writer (it takes any bytes)."""
    from tui_insight.summary.formats.writer import SummaryWriter

    with SummaryWriter(directory, timestamp=1700000003, wall_time=1.0) as writer:
        for tag, (data, width, height) in hostile_images().items():
            writer.add_image(tag, png=data, width=width, height=height)
        writer.record(1, wall_time=2.0)


def write_deep_graph(directory, depth: int = 100_000):
    """A graph whose operators sit in a chain of `depth` nested scopes (and a parameter named
    that deep), beside a few ordinary nodes: written with our writer."""
    from tui_insight.summary.formats.writer import SummaryWriter, make_graph

    deep = "/".join(f"s{i}" for i in range(depth))
    graph = make_graph([
        {"name": "1", "op_type": "Conv2D", "scope": "Default", "full_name": "Default/Conv2D-op1", "shape": [2]},
        {"name": "2", "op_type": "ReLU", "scope": deep, "full_name": f"{deep}/ReLU-op2", "inputs": ["1"]},
        {"name": "3", "op_type": "Add", "scope": deep, "full_name": f"{deep}/Add-op3",
         "inputs": ["2", "1", f"{deep}/weight"]},
    ], [{"name": f"{deep}/weight", "shape": [2]}], name="deep")
    with SummaryWriter(directory, timestamp=1700000004, wall_time=1.0) as writer:
        writer.add_graph(graph, wall_time=1.0)
        writer.add_scalar("loss", 1.0)
        writer.record(1, wall_time=2.0)
    return graph


MARKUP_TAGS = ("[/]", "[link=https://x]click[/link]", "[@click=app.quit]clickme[/]", "esc\x1b[31mred\u202eevil",
               "trailing\\")


def write_markup_tags(directory):
    """Scalar tags holding markup, click actions, escape sequences and bidi marks."""
    from tui_insight.summary.formats.writer import SummaryWriter

    with SummaryWriter(directory, timestamp=1700000005, wall_time=1.0) as writer:
        for step in range(1, 4):
            for i, tag in enumerate(MARKUP_TAGS):
                writer.add_scalar(tag, float(step * (i + 1)))
            writer.record(step, wall_time=1.0 + step)


def add_special_files(directory):
    """Beside the job files in `directory`: a FIFO, /dev/null and a symlink loop, each named like a
    summary, lineage or graph file. Reading any of them must not block or stop the others."""
    import os

    os.mkfifo(directory / "events.summary.1700000010.fifo_MS")
    os.mkfifo(directory / "events.summary.1700000010.fifo_lineage")
    os.mkfifo(directory / "fifo.pb")
    os.symlink("/dev/null", directory / "events.summary.1700000011.null_MS")
    os.symlink(directory / "events.summary.1700000012.loop_MS", directory / "events.summary.1700000012.loop_MS")
    os.symlink(directory / "loop_b.pb", directory / "loop_a.pb")
    os.symlink(directory / "loop_a.pb", directory / "loop_b.pb")


def write_hostile_logdir(root, deep: int = 100_000):
    """A LOGDIR holding every hostile kind above, one job each, plus a job named with markup and
    special files beside a sound job. Returns {kind: train id}."""
    jobs = {
        "invalid_utf8": "./invalid_utf8", "tensors": "./tensors", "lineage": "./deep",
        "histograms": "./histograms", "images": "./images", "graph": "./graph",
        "markup": "./[bold red]run[/]", "special": "./special", "landscapes": "./landscapes",
        "lineage_utf8": "./lineage_utf8",
    }
    for kind, tid in jobs.items():
        if kind != "lineage":
            (root / tid[2:]).mkdir(parents=True)
    write_invalid_utf8_tag(root / "invalid_utf8")
    write_hostile_tensors(root / "tensors")
    write_deep_lineage(root, depth=deep)
    write_hostile_histograms(root / "histograms")
    write_hostile_images(root / "images")
    write_deep_graph(root / "graph", depth=deep)
    write_markup_tags(root / jobs["markup"][2:])
    write_markup_tags(root / "special")
    add_special_files(root / "special")
    write_broken_landscapes(root / "landscapes")
    write_non_utf8_landscape(root / "landscapes")
    write_markup_tags(root / "lineage_utf8")
    write_non_utf8_lineage(root / "lineage_utf8")
    jobs["nested"] = "./nested"
    return jobs


def write_non_utf8_lineage(directory):
    """A lineage file whose strings are not valid UTF-8: the optimizer and network, a user-defined
    key and value, a dataset parameter's key and value (as a buggy writer could leave them)."""
    from tui_insight.summary.formats.framing import frame

    entry = field(1, b"k\xe8") + field(2, b"v\xff")
    events = [
        field(6, field(1, field(1, b"Momentum\xff")) + field(3, field(1, b"LeNet\xfe"))),  # train
        field(10, field(1, field(4, entry))),  # user-defined: a key that is not UTF-8
        field(10, field(1, field(4, field(1, b"fine") + field(2, b"v\xff")))),  # ... a value
        field(9, field(2, field(1, entry) + field(1, field(1, b"op") + field(2, b"Map\xff")))),  # dataset
    ]
    (directory / "events.summary.1700000000.host_lineage").write_bytes(b"".join(frame(e) for e in events))


def write_non_utf8_landscape(directory):
    """A final loss landscape whose tag, decomposition and unit are not valid UTF-8."""
    from tui_insight.proto import summary_pb2
    from tui_insight.summary.formats.framing import frame

    value = summary_pb2.Summary.Value()
    landscape = value.loss_landscape
    for axis, values in ((landscape.landscape.x, [0.0, 1.0]), (landscape.landscape.y, [0.0, 1.0]),
                         (landscape.landscape.z, [1.0, 2.0, 3.0, 4.0])):
        axis.float_data.extend(values)
    metadata = field(3, field(1, b"PCA\xff") + field(2, b"st\xffep"))  # merged into loss_landscape
    value_bytes = field(1, b"landscape_[8]\xfe") + value.SerializeToString() + field(10, metadata)
    event = summary_pb2.Event(wall_time=1.0, step=0).SerializeToString() + field(5, field(1, value_bytes))
    (directory / "events.summary.1700000006.host_MS").write_bytes(frame(event))


def write_broken_landscapes(directory):
    """Loss landscapes whose numbers do not fit together (a grid of the wrong size, a path with
    fewer points than checkpoints), one of NaN and infinite losses, one on axes near float64's
    ends, beside a sound one: each its own record, as MindSpore writes them."""
    from tui_insight.proto import summary_pb2
    from tui_insight.summary.formats.framing import frame

    nan, inf = float("nan"), float("inf")
    cases = {  # tag: (x, y, z, intervals, path x = y = loss)
        "landscape_[1, 5]": ([0.0, 1.0], [0.0, 1.0], [1.0, 2.0, 3.0], (), ()),
        "landscape_[6, 9]": ([0.0, 1.0], [0.0, 1.0], [1.0, 2.0, 3.0, 4.0], (6, 7, 8, 9), (0.5, 0.5)),
        "landscape_[10, 12]": ([0.0, 1.0], [0.0, 1.0], [nan, inf, -inf, nan], (10, 12), (0.5, 0.5)),
        "landscape_[13, 14]": ([-1e308, 1e308], [-1e308, 1e308], [1e308, -1e308, 0.0, 1.0], (13, 14), (0.0, 0.0)),
        "landscape_[20]": ([0.0, 1.0, 2.0], [0.0, 1.0], [1.0, 2.0, 3.0, 4.0, 5.0, 6.0], (), ()),
    }
    with open(directory / "events.summary.1700000007.host_MS", "wb") as fh:
        for tag, (x, y, z, intervals, path) in cases.items():
            event = summary_pb2.Event(wall_time=1.0, step=0)
            landscape = event.summary.value.add(tag=tag).loss_landscape
            landscape.landscape.x.float_data.extend(x)
            landscape.landscape.y.float_data.extend(y)
            landscape.landscape.z.float_data.extend(z)
            landscape.loss_path.intervals.extend(intervals)
            for axis in (landscape.loss_path.points.x, landscape.loss_path.points.y, landscape.loss_path.points.z):
                axis.float_data.extend(path)
            landscape.metadata.unit = "step"
            fh.write(frame(event.SerializeToString()))
