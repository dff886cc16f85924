"""Logs a buggy or hostile writer could leave, built byte by byte (our writer would refuse them)."""
from __future__ import annotations


def write_invalid_utf8_tag(directory, steps=5):
    """A summary file whose first tag is not valid UTF-8 (protobuf hands such a proto2 string
    over as bytes), beside an ordinary tag: framed by hand, as a buggy writer would."""
    import struct

    from tui_insight.proto import summary_pb2
    from tui_insight.summary.records import frame

    def varint(n):
        out = b""
        while True:
            low, n = n & 0x7F, n >> 7
            if not n:
                return out + bytes([low])
            out += bytes([low | 0x80])

    def field(number, payload):
        return varint((number << 3) | 2) + varint(len(payload)) + payload

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
    from tui_insight.summary.records import frame

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
    from tui_insight.summary.records import frame

    for name, metric in (("deep", '{"acc": ' + "[" * depth + "]" * depth + "}"),
                         ("nested", '{"acc": 0.5, "per_class": [[0.1, 0.2], [0.3]]}')):
        job = directory / name
        job.mkdir(parents=True)
        event = lineage_pb2.LineageEvent(wall_time=1.0)
        event.evaluation_lineage.metric = metric
        (job / "events.summary.1700000000.host_lineage").write_bytes(frame(event.SerializeToString()))
