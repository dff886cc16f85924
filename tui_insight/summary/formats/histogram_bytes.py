"""Histograms found in their events' bytes, for the decoders to read without protobuf's whole
parse of each event (issue 30: an export decodes every histogram the cache keeps).

A walk here accepts an event only as writers write it: each field of a kind it knows, with the
wire type protobuf gives that field, every length inside its message, no field the decoders
would have to merge (a summary, a histogram or a packed array written twice) and no value
whose oneof protobuf would read otherwise. Such an event is one protobuf parses, into the
numbers the walk finds. Anything else is None: the caller parses that event with protobuf, as
every event was read before, so what it holds, or why it cannot be read, is protobuf's answer.

- TensorBoard (`tensorboard_histo`): a `histo` value's min, max and where its packed
  `bucket_limit` and `bucket` doubles are (numpy reads them in place: `tensorboard.py`);
- MindSpore (`mindspore_bodies`): where each histogram value's body is; its buckets are read
  for all histograms at once (`values.histograms_from_bodies`).
"""
from __future__ import annotations

import struct

_DOUBLE = struct.Struct("<d").unpack_from

# Event: wall_time (1, double), step (2, varint), summary (5, message); Summary: value (1).
_WALL, _STEP, _SUMMARY, _VALUE = 0x09, 0x10, 0x2A, 0x0A
# TensorBoard's Summary.Value: tag (1), node_name (7) bytes; simple_value (2, float); histo (5).
_TAG, _NODE_NAME, _SIMPLE, _HISTO = 0x0A, 0x3A, 0x15, 0x2A
# HistogramProto: min, max, num, sum, sum_squares (1-5, doubles); bucket_limit (6), bucket (7) packed.
_MIN, _MAX = 0x09, 0x11
_HISTO_DOUBLES = frozenset((0x09, 0x11, 0x19, 0x21, 0x29))
_LIMITS, _COUNTS = 0x32, 0x3A
# MindSpore's Summary.Value: tag (1) bytes; scalar_value (3, float); histogram (9, message).
_MS_SCALAR, _MS_HISTOGRAM = 0x1D, 0x4A


def _length(data: bytes, pos: int, end: int) -> tuple[int, int]:
    """(the varint at `pos`, the position after it) for a length; (-1, end) if it runs past
    `end` or is longer than 5 bytes (no message here is 2**35 bytes)."""
    value = shift = 0
    while pos < end and shift < 35:
        byte = data[pos]
        value |= (byte & 0x7F) << shift
        pos += 1
        if byte < 0x80:
            return value, pos
        shift += 7
    return -1, end


def _skip_varint(data: bytes, pos: int, end: int) -> int:
    """The position after the varint at `pos`; -1 if it runs past `end` or past 9 bytes."""
    for at in range(pos, min(pos + 9, end)):  # (10 bytes: a negative step, left to protobuf)
        if data[at] < 0x80:
            return at + 1
    return -1


def _summary(data: bytes) -> tuple[int, int] | None:
    """Where the summary of the event `data` is (start, end): an event of a wall time, a step
    and a summary, each once."""
    pos, end = 0, len(data)
    seen = 0
    summary = None
    while pos < end:
        key = data[pos]
        if key == _WALL and not seen & 1 and pos + 9 <= end:
            pos, seen = pos + 9, seen | 1
        elif key == _STEP and not seen & 2:
            pos, seen = _skip_varint(data, pos + 1, end), seen | 2
            if pos < 0:
                return None
        elif key == _SUMMARY and summary is None:
            length, at = _length(data, pos + 1, end)
            if length < 0 or at + length > end:
                return None
            summary = (at, at + length)
            pos = at + length
        else:
            return None
    return summary


def tensorboard_histo(data: bytes, index: int) -> tuple[float, float, int, int, int, int] | None:
    """(min, max, where bucket_limit's doubles start, how many, where bucket's start, how many)
    of the `histo` of value `index` of the TensorBoard event `data`; None if the event is not
    written plainly (module docstring) or that value holds anything but a `histo` and its names."""
    spans = _value_spans(data)
    if spans is None:
        return None
    histo = None
    for number, (at, end) in enumerate(spans):
        read = _tensorboard_value(data, at, end)
        if read is None or (number == index and read == ()):
            return None
        if number == index:
            histo = read
    return histo


def _value_spans(data: bytes) -> list[tuple[int, int]] | None:
    """Where each value of the event `data`'s summary is (start, end); None if the event is not
    written plainly (module docstring)."""
    found = _summary(data)
    if found is None:
        return None
    pos, end = found
    spans = []
    while pos < end:
        if data[pos] != _VALUE:
            return None
        length, at = _length(data, pos + 1, end)
        if length < 0 or at + length > end:
            return None
        pos = at + length
        spans.append((at, pos))
    return spans


def _tensorboard_value(data: bytes, pos: int, end: int) -> tuple | None:
    """A TensorBoard value's histo, as `tensorboard_histo` gives it; () for a scalar value (a
    name and a simple_value) or a name alone; None for anything else."""
    parts = _value_parts(data, pos, end, (_TAG, _NODE_NAME), _SIMPLE, _HISTO)
    if parts is None:
        return None
    return () if parts[1] is None else _histo_fields(data, *parts[1])


def _value_parts(data: bytes, pos: int, end: int, names: tuple[int, ...], scalar_key: int,
                 histo_key: int) -> tuple[bool, tuple[int, int] | None] | None:
    """A value's fields in `data[pos:end]`, written plainly: (whether it holds a 4-byte scalar,
    where its histogram's body is or None); None when a field is of another kind, repeated, or
    both a scalar and a histogram are there. `names`: the keys of its length-delimited names."""
    span: tuple[int, int] | None = None
    scalar = False
    while pos < end:
        key = data[pos]
        if key in names:
            length, pos = _length(data, pos + 1, end)
            pos += length
            if length < 0 or pos > end:
                return None
        elif key == scalar_key and span is None and not scalar and pos + 5 <= end:
            pos, scalar = pos + 5, True
        elif key == histo_key and span is None and not scalar:
            length, at = _length(data, pos + 1, end)
            if length < 0 or at + length > end:
                return None
            pos = at + length
            span = (at, pos)
        else:
            return None
    return scalar, span


def _histo_fields(data: bytes, pos: int, end: int) -> tuple[float, float, int, int, int, int] | None:
    low = high = 0.0
    limits = counts = None
    while pos < end:
        key = data[pos]
        if key in _HISTO_DOUBLES and pos + 9 <= end:
            if key == _MIN:
                low = _DOUBLE(data, pos + 1)[0]
            elif key == _MAX:
                high = _DOUBLE(data, pos + 1)[0]
            pos += 9
        elif (key == _LIMITS and limits is None) or (key == _COUNTS and counts is None):
            length, at = _length(data, pos + 1, end)
            if length < 0 or length % 8 or at + length > end:
                return None
            if key == _LIMITS:
                limits = (at, length >> 3)
            else:
                counts = (at, length >> 3)
            pos = at + length
        else:
            return None
    limits, counts = limits or (0, 0), counts or (0, 0)
    return low, high, limits[0], limits[1], counts[0], counts[1]


def mindspore_bodies(data: bytes) -> list[tuple[int, int] | None] | None:
    """Per value of the MindSpore event `data`, where its histogram's body is (start, end),
    None for a scalar value or a name alone; None for the whole event if it is not written
    plainly (module docstring) or holds a value of any other kind. The bodies' bytes are
    checked as their buckets are read (`values.histograms_from_bodies`)."""
    spans = _value_spans(data)
    if spans is None:
        return None
    bodies: list[tuple[int, int] | None] = []
    for at, end in spans:
        parts = _value_parts(data, at, end, (_TAG,), _MS_SCALAR, _MS_HISTOGRAM)
        if parts is None:
            return None
        bodies.append(parts[1])
    return bodies
