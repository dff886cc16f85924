"""Events that hold histograms (and scalars), read in bulk (`MixedBook`): MindSpore's, and
TensorBoard's (`histo` values: torch and tensorboardX write one event per histogram, with
TensorBoard's default bins some 10 KB each, most of a training log's bytes).

MindSpore writes one event per recorded step holding every value of the step, so whenever
histograms are collected most of a file's bytes are events of scalars and histograms. Their
sizes differ step by step (a bucket's count is a varint), so the fixed-size `layouts.Layout`
cannot take them. A `MixedLayout` is such an event cut into pieces: fixed bytes (tags, keys;
wall time and scalars masked), varints (the step, lengths: any number of bytes, as a size
near 128 bytes may take one or two) and histogram bodies. Every event with the same tags and
fields walks the same pieces, so numpy walks a batch of them piece by piece, all events at
once, and reads their steps, wall times and scalars.

A histogram's body is not decoded at load: it is kept where it is (the record's offset and
the value's index, as for every payload) and decoded when asked for. Only its buckets are
counted, by walking their headers (MindInsight drops a histogram of more than
`limits.MAX_HISTOGRAM_BUCKETS`): an event holding such a histogram, or any field the walk does
not know, goes the one-event path. A layout is made from one event protobuf decoded and
checked against it value for value, so a matching event routes as protobuf would route it; a
MindSpore histogram whose buckets protobuf would refuse fails when it is decoded, as a payload.
A TensorBoard histogram's body is walked field by field (doubles, packed doubles of whole
doubles, to its end: what protobuf reads); any other body goes the one-event path.
"""
from __future__ import annotations

from typing import Callable, NamedTuple, Sequence

import numpy as np

from .. import limits
from .bulk_framing import Payloads, strided, unaligned, varint

# Pieces: bytes of the layout's (wall time, scalars masked), a varint, the step (its key and
# varint, or nothing: a step of 0 is left out by proto3 writers, TensorBoard's).
_FIXED, _VARINT, _STEP = 0, 1, 2
_STEP_KEY = 0x10  # Event field 2 (varint)
# What a varint piece is: the summary's length, a value's length, a histogram's length.
_SUMMARY_LEN, _VALUE_LEN, _HIST_LEN = 1, 2, 3
_MAX_VARINT = 9  # longer varints (negative steps, 2**63 and up) go the one-event path
# Keys of a histogram's fields after its buckets: varints (counts) and doubles (max, min, sum).
_TAIL_VARINT = np.zeros(256, dtype=bool)
_TAIL_VARINT[[0x10, 0x18, 0x20, 0x40]] = True
_TAIL_DOUBLE = np.zeros(256, dtype=bool)
_TAIL_DOUBLE[[0x29, 0x31, 0x39]] = True
_BUCKET_KEY = 0x0A  # Histogram field 1 (bucket, a message)
# nan_count, pos_inf_count, neg_inf_count 0; max, min, sum (masked); count's key (its varint follows)
_TAIL = np.frombuffer(bytes([0x10, 0, 0x18, 0, 0x20, 0, 0x29, *[0] * 8, 0x31, *[0] * 8, 0x39, *[0] * 8, 0x40]),
                      dtype=np.uint8)
_TAIL_MASK = np.frombuffer(bytes([0xFF] * 7 + [0] * 8 + [0xFF] + [0] * 8 + [0xFF] + [0] * 8 + [0xFF]), dtype=np.uint8)
_TAIL_KEYS = np.flatnonzero(_TAIL_MASK)  # the tail's fixed bytes (keys, zero counts): all its mask keeps



class Dialect(NamedTuple):
    """How a format writes a summary value's scalar and histogram: keys and field names."""

    scalar_key: int
    scalar_field: str
    histogram_key: int
    histogram_field: str
    empty_values: bool  # a value without data may be in a layout (TensorBoard routes it by an earlier event)


# MindSpore: Value.scalar_value (3, float), Value.histogram (9, buckets as messages);
# TensorBoard: Value.simple_value (2, float), Value.histo (5, HistogramProto: packed doubles).
DIALECTS = {"mindspore": Dialect(0x1D, "scalar_value", 0x4A, "histogram", True),
            "tensorboard": Dialect(0x15, "simple_value", 0x2A, "histo", False)}


class MixedLayout(NamedTuple):
    """The pieces of one event layout, and what its values are."""

    tags: tuple[str, ...]
    kinds: tuple[str | None, ...]  # the dialect's scalar or histogram field, or None (a tag without data)
    # (kind, template bytes or varint role, mask, wall offset, float offsets) per piece
    pieces: tuple[tuple, ...]
    float_of_value: tuple[int, ...]  # value index -> its column of `Matched.floats`, -1 for none
    histograms: int
    dialect: str = "mindspore"

    @property
    def routed_kinds(self) -> tuple[str | None, ...]:
        """The kinds as `routing.routes` takes them."""
        return self.kinds

    @property
    def key(self) -> tuple:
        """The layout as `mindspore.MindSporeRouter` keys it (tags, the field each sets)."""
        return self.tags, self.kinds


def _walk(data: bytes, dialect: str = "mindspore") -> MixedLayout | None:
    """The pieces of one event's payload; None if it is not a summary event of scalars,
    histograms and tags written plainly (fields in order, each once; a step of 0 may be left
    out, as proto3 writers leave it)."""
    scalar_key, scalar_field, histogram_key, histogram_field, empty_values = DIALECTS[dialect]
    size = len(data)
    pieces: list[tuple] = []
    fixed = bytearray()
    mask = bytearray()
    floats: list[int] = []
    wall = -1
    tags: list[str] = []
    kinds: list[str | None] = []
    histograms = 0

    def flush() -> None:
        nonlocal fixed, mask, floats, wall
        if fixed:
            pieces.append((_FIXED, np.frombuffer(bytes(fixed), dtype=np.uint8), np.frombuffer(bytes(mask), dtype=np.uint8),
                           wall, tuple(floats)))
        fixed, mask, floats, wall = bytearray(), bytearray(), [], -1

    def take(raw: bytes, variable: bool = False) -> None:
        fixed.extend(raw)
        mask.extend(b"\x00" * len(raw) if variable else b"\xff" * len(raw))

    if size < 11 or data[0] != 0x09:
        return None
    take(data[0:1])
    wall = 1
    take(data[1:9], variable=True)
    flush()
    pieces.append((_STEP,))  # its key and varint, or nothing for step 0 (as proto3 writers leave it)
    pos = 9
    if data[9] == 0x10:
        _, pos = varint(data, 10, size, _MAX_VARINT)
    if pos >= size or data[pos] != 0x2A:
        return None
    take(data[pos:pos + 1])
    flush()
    pieces.append((_VARINT, _SUMMARY_LEN))
    length, pos = varint(data, pos + 1, size, _MAX_VARINT)
    if pos + length != size:
        return None
    while pos < size:
        if data[pos] != 0x0A:
            return None
        length, after = varint(data, pos + 1, size, _MAX_VARINT)
        end = after + length
        if end > size or after + 2 > end or data[after] != 0x0A or data[after + 1] & 0x80:
            return None
        tag_end = after + 2 + data[after + 1]
        if tag_end > end:
            return None
        tag = data[after + 2:tag_end].decode("utf-8")
        if tag_end == end:  # a tag without data
            if not empty_values:
                return None
            take(data[pos:end])
            kinds.append(None)
        elif data[tag_end] == scalar_key and tag_end + 5 == end:  # a scalar
            take(data[pos:tag_end + 1])
            floats.append(len(fixed))
            take(data[tag_end + 1:end], variable=True)
            kinds.append(scalar_field)
        elif data[tag_end] == histogram_key:
            _, body = varint(data, tag_end + 1, end, _MAX_VARINT)
            take(data[pos:pos + 1])
            flush()
            pieces.append((_VARINT, _VALUE_LEN))
            take(data[after:tag_end + 1])
            flush()
            pieces.append((_VARINT, _HIST_LEN))  # and the histogram's body
            kinds.append(histogram_field)
            histograms += 1
            if body > end:
                return None
        else:
            return None  # an image, a tensor, a landscape... or an unusual encoding
        tags.append(tag)
        pos = end
    flush()
    if not histograms:
        return None  # scalar-only events are `layouts.Layout`'s
    columns = np.cumsum([kind == scalar_field for kind in kinds]) - 1
    float_of_value = tuple(int(c) if kind == scalar_field else -1 for c, kind in zip(columns, kinds))
    return MixedLayout(tuple(tags), tuple(kinds), tuple(pieces), float_of_value, histograms, dialect)


def _read_varints(array: np.ndarray, at: np.ndarray, ok: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(values, lengths) of the varints at `at`; `ok` (changed in place) False where one runs
    longer than `_MAX_VARINT` bytes."""
    first = array.take(at, mode="clip")
    more = first >= 0x80
    if not more.any():
        return first.astype(np.int64), np.ones(len(at), dtype=np.int64)
    second = array.take(at + 1, mode="clip")
    if not (more & (second >= 0x80)).any():  # lengths (of a histogram, a summary) of two bytes
        value = np.where(more, (first & 0x7F).astype(np.int64) | (second.astype(np.int64) << 7), first)
        return value, more + 1
    raw = array.take(at[:, None] + np.arange(_MAX_VARINT), mode="clip")
    more = raw >= 0x80
    length = np.argmin(more, axis=1) + 1
    ok &= ~more.all(axis=1)
    keep = np.arange(_MAX_VARINT) < length[:, None]
    parts = (raw & 0x7F).astype(np.uint64) << (np.arange(_MAX_VARINT, dtype=np.uint64) * np.uint64(7))
    value = np.minimum(np.where(keep, parts, 0).sum(axis=1), np.uint64(1 << 40))  # (no overflow past a garbage length)
    return value.astype(np.int64), length


class Matched(NamedTuple):
    """The events of a batch of one layout: their rows, steps, wall times and scalars."""

    layout: MixedLayout
    rows: np.ndarray
    steps: np.ndarray
    walls: np.ndarray
    floats: np.ndarray  # float64[rows, scalar values]: the layout's scalars in order


class _Family(NamedTuple):
    """Layouts whose pieces differ in their fixed bytes only (TensorBoard's histogram events of
    tags of one length): matched together, each row's fixed bytes against each layout's."""

    layouts: tuple[MixedLayout, ...]
    pieces: tuple[tuple, ...]  # the first layout's, each fixed piece's template as [layouts, bytes]
    dialect: str
    shapes: dict  # payload size -> `_Shape` of an event of that size, or None (`_match_alike`)
    skeletons: dict  # payload size -> `_Skeleton` of its histograms, or None: walked (`_bodies_fit`)
    least: int  # the size of the shortest event of these layouts: fixed bytes, a byte a varint
    floats: int  # scalars an event holds
    seen: dict  # payload size -> events of that size met so far (`_match`)

    @classmethod
    def of(cls, layouts: Sequence[MixedLayout]) -> "_Family":
        pieces = []
        for k, piece in enumerate(layouts[0].pieces):
            if piece[0] == _FIXED:
                piece = (_FIXED, np.stack([layout.pieces[k][1] for layout in layouts]), *piece[2:])
            pieces.append(piece)
        least = sum(len(p[1]) if p[0] == _FIXED else p[0] == _VARINT for p in layouts[0].pieces)
        floats = sum(c >= 0 for c in layouts[0].float_of_value)
        return cls(tuple(layouts), tuple(pieces), layouts[0].dialect, {}, {}, least, floats, {})


def _family_key(layout: MixedLayout) -> tuple:
    """Equal for layouts one `_Family` matches: the same pieces but for the fixed bytes."""
    return layout.dialect, tuple((len(p[1]), p[2].tobytes(), p[3], p[4]) if p[0] == _FIXED else p
                                 for p in layout.pieces)


def _match(family: _Family, array: np.ndarray, starts: np.ndarray, ends: np.ndarray
           ) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """(the layout of `family` each payload at `starts` is, -1 for none; their steps, walls,
    floats). Many events of one size laid out alike are matched at once (`_match_alike`), the
    others piece by piece (`_match_pieces`)."""
    n = len(starts)
    if len(family.layouts) > 1 or not n:
        return _match_pieces(family, array, starts, ends)
    lengths = ends - starts
    sizes, counts = np.unique(lengths, return_counts=True)
    # Events of a size met `_ALIKE_MIN_ROWS` times (in this batch, or counting earlier ones and
    # other jobs': a sweep's runs share their sizes, a few events each) are matched alike.
    # Events shorter than the layout's fixed bytes cannot be of it.
    seen = family.seen
    if len(seen) > _SIZES_COUNTED:  # (events of ever new sizes: counted again from none)
        seen.clear()
    alike_sizes = []
    for size, count in zip(sizes.tolist(), counts.tolist()):
        seen[size] = count = seen.get(size, 0) + count
        if size >= family.least and count >= _ALIKE_MIN_ROWS:
            alike_sizes.append(size)
    found: list[tuple[np.ndarray, tuple[np.ndarray, ...]]] = []
    rest = lengths >= family.least  # the rows left for the walk piece by piece
    for size in alike_sizes:
        rows = np.flatnonzero(lengths == size)
        alike = _match_alike(family, array, starts[rows], ends[rows])
        if alike is not None:
            found.append((rows, alike))
            rest[rows] = False
    left = np.flatnonzero(rest)
    if len(left) == n:
        return _match_pieces(family, array, starts, ends)
    if len(left):
        found.append((left, _match_pieces(family, array, starts[left], ends[left])))
    which, steps = np.full(n, -1, dtype=np.int64), np.zeros(n, dtype=np.int64)
    walls, table = np.zeros(n, dtype=np.float64), np.zeros((n, family.floats), dtype=np.float64)
    for rows, matched in found:
        for whole, part in zip((which, steps, walls, table), matched):
            whole[rows] = part
    return which, steps, walls, table


def _match_pieces(family: _Family, array: np.ndarray, starts: np.ndarray, ends: np.ndarray, bodies: bool = True
                  ) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """`_match`, piece by piece for all events at once. Without `bodies`, the histograms' bodies
    are not walked (`_match_alike` walks them)."""
    n = len(starts)
    ok = np.ones(n, dtype=bool)
    fits = np.ones((n, len(family.layouts)), dtype=bool) if len(family.layouts) > 1 else None
    at = starts.copy()
    steps = np.zeros(n, dtype=np.int64)
    walls = np.zeros(n, dtype=np.float64)
    floats: list[np.ndarray] = []
    marks: list[np.ndarray] = []  # where a value or summary must end
    hist_at: list[np.ndarray] = []
    hist_end: list[np.ndarray] = []
    for piece in family.pieces:
        kind = piece[0]
        if kind == _FIXED:
            _, templates, mask, wall, float_at = piece
            size = templates.shape[1]
            rows = array.take(at[:, None] + np.arange(size), mode="clip")
            if fits is None:
                ok &= ~((rows ^ templates[0]) & mask).any(axis=1)
            else:
                fits &= ~((rows[:, None, :] ^ templates[None]) & mask).any(axis=2)
            if wall >= 0:
                walls = np.ascontiguousarray(rows[:, wall:wall + 8]).view("<f8").reshape(n)
            if float_at:
                cols = (np.asarray(float_at)[:, None] + np.arange(4)).reshape(-1)
                floats.append(np.ascontiguousarray(rows[:, cols]).view("<f4").reshape(n, len(float_at)))
            at = at + size
        elif kind == _STEP:
            has = array.take(at, mode="clip") == _STEP_KEY
            whole = ok.copy()  # (no varint is read where the step is left out)
            value, length = _read_varints(array, at + 1, whole)
            ok &= ~has | whole
            steps = np.where(has, value, 0)
            at = at + np.where(has, 1 + length, 0)
        elif kind == _VARINT:
            role = piece[1]
            value, length = _read_varints(array, at, ok)
            at = at + length
            if role == _SUMMARY_LEN:
                ok &= at + value == ends
            elif role == _VALUE_LEN:
                marks.append(at + value)
            else:
                hist_at.append(at)
                at = at + value
                hist_end.append(at)
                ok &= at == marks.pop()  # the histogram ends its value
        ok &= at <= ends
    ok &= at == ends
    if fits is not None:  # (a row fits one layout at most: layouts of a family differ in fixed bytes)
        ok &= fits.any(axis=1)
    fit = np.flatnonzero(ok)  # (the buckets of events whose other bytes fit the layout only)
    if hist_at and len(fit) and bodies:
        starts_h = np.stack(hist_at, axis=1)[fit].reshape(-1)
        ends_h = np.stack(hist_end, axis=1)[fit].reshape(-1)
        walk = _histo_fits if family.dialect == "tensorboard" else _buckets_fit
        ok[fit] = walk(array, starts_h, ends_h).reshape(len(fit), len(hist_at)).all(axis=1)
    with np.errstate(invalid="ignore"):  # a signalling NaN quieted, as protobuf widens it
        table = np.concatenate(floats, axis=1).astype(np.float64) if floats else np.zeros((n, 0))
    which = np.where(ok, 0 if fits is None else np.argmax(fits, axis=1), -1)
    return which, steps, walls, table


_ALIKE_MIN_ROWS = 16
_SIZES_COUNTED = 4096


class _Shape(NamedTuple):
    """Where an event's pieces sit, read from one event `_match` took (`_match_alike`)."""

    cols: np.ndarray  # offsets of the bytes every event of this shape has as that event has them
    expected: np.ndarray  # those bytes (masked)
    masks: np.ndarray
    step: tuple[int, int]  # the step varint's offset and length ((-1, 0): no step)
    wall: int  # the wall time's offset
    floats: np.ndarray  # each scalar's four bytes' offsets
    bodies: np.ndarray  # int64[2, histograms]: each histogram body's start and end


def _shape(family: _Family, data: bytes) -> _Shape | None:
    """The shape of the event `data`, one `_match` took (None if the walk disagrees)."""
    cols: list[int] = []
    masks: list[int] = []
    wall, step, floats, bodies = -1, (-1, 0), [], []
    pos = 0
    for piece in family.pieces:
        if piece[0] == _FIXED:
            _, templates, mask, wall_at, float_at = piece
            kept = np.flatnonzero(mask).tolist()
            cols += [pos + k for k in kept]
            masks += mask[kept].tolist()
            wall = pos + wall_at if wall_at >= 0 else wall
            floats += [pos + k + b for k in float_at for b in range(4)]
            pos += templates.shape[1]
        elif piece[0] == _STEP:
            if data[pos] == _STEP_KEY:
                cols.append(pos)
                masks.append(0xFF)
                _, after = varint(data, pos + 1, len(data), _MAX_VARINT)
                step, pos = (pos + 1, after - pos - 1), after
        else:
            value, after = varint(data, pos, len(data), _MAX_VARINT)
            cols += range(pos, after)
            masks += [0xFF] * (after - pos)
            pos = after + value if piece[1] == _HIST_LEN else after
            if piece[1] == _HIST_LEN:
                bodies.append((after, pos))
    if pos != len(data) or wall < 0:
        return None
    at, mask_bytes = np.asarray(cols, dtype=np.int64), np.asarray(masks, dtype=np.uint8)
    expected = np.frombuffer(data, dtype=np.uint8)[at] & mask_bytes
    return _Shape(at, expected, mask_bytes, step, wall, np.asarray(floats, dtype=np.int64),
                  np.asarray(bodies, dtype=np.int64).reshape(-1, 2).T)


def _match_alike(family: _Family, array: np.ndarray, starts: np.ndarray, ends: np.ndarray
                 ) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray] | None:
    """`_match` of events all of one size laid out as one event `_match` took before (a step
    of one varint length, every length varint byte for byte the same: MindSpore's events of a
    run, step after step): every piece sits at that event's offset in each, so the fixed bytes
    and lengths of all pieces are compared at once and the numbers read at once, with no
    Python per piece. None when an event is laid out otherwise: `_match_pieces` walks them."""
    size = int(ends[0] - starts[0])
    if not bool((ends - starts == size).all()):
        return None
    if size not in family.shapes:  # (the first event of this size, walked piece by piece without its bodies)
        took = _match_pieces(family, array, starts[:1], ends[:1], bodies=False)[0][0] >= 0
        family.shapes[size] = _shape(family, array[int(starts[0]):int(ends[0])].tobytes()) if took else None
    shape = family.shapes[size]
    if shape is None:
        return None
    # The bytes at the shape's offsets of every event: through a view of the events' rows when
    # they are evenly spaced in the block (most are: a run writes the same events step after
    # step), else gathered by one index per byte.
    view = strided(array, starts, size)

    def at(offsets: np.ndarray) -> np.ndarray:
        return view[:, offsets] if view is not None else array.take(starts[:, None] + offsets)

    if bool(((at(shape.cols) ^ shape.expected) & shape.masks).any()):
        return None
    n = len(starts)
    steps = np.zeros(n, dtype=np.int64)
    step_at, step_len = shape.step
    if step_len:
        raw = view[:, step_at:step_at + step_len] if view is not None else at(np.arange(step_at, step_at + step_len))
        if bool((raw[:, :-1] < 0x80).any() or (raw[:, -1] >= 0x80).any()):
            return None  # a step of another varint length
        parts = (raw & 0x7F).astype(np.int64) << (7 * np.arange(step_len, dtype=np.int64))
        steps = np.minimum(np.bitwise_or.reduce(parts, axis=1), 1 << 40)  # (as `_read_varints` reads a long one)
    if view is not None:  # (a view of each number's bytes in every row, cast once: no gather)
        walls = view[:, shape.wall:shape.wall + 8].view("<f8").reshape(n).copy()
    else:
        walls = np.ascontiguousarray(at(np.arange(shape.wall, shape.wall + 8))).view("<f8").reshape(n)
    with np.errstate(invalid="ignore"):  # a signalling NaN quieted, as protobuf widens it
        table = np.ascontiguousarray(at(shape.floats)).view("<f4").astype(np.float64)
    fits = _bodies_fit(family, shape, array, starts, view) if shape.bodies.shape[1] else np.ones(n, dtype=bool)
    return np.where(fits, 0, -1), steps, walls, table


class _Skeleton(NamedTuple):
    """The bytes that decide `_buckets_fit` for every histogram body of an event of one shape,
    as one such event has them: each bucket's key and length byte, the tail's fixed bytes and
    the continuation bits of its count. An event holding these bytes there walks its buckets
    as that event does, and fits."""

    buckets: np.ndarray  # offsets of the buckets in the event ...
    words: np.ndarray  # ... and their key and length as one 16-bit word (key low)
    cols: np.ndarray  # offsets of the tails' bytes in the event ...
    expected: np.ndarray  # ... their bytes (masked) ...
    masks: np.ndarray  # ... and masks (a count's bytes: their continuation bit)


def _skeleton(data: bytes, bodies: np.ndarray) -> _Skeleton | None:
    """The skeleton of the event `data`; None unless every histogram body (`bodies`: starts,
    ends) is buckets of one-byte lengths, at most `limits.MAX_HISTOGRAM_BUCKETS`, then the tail
    as writers write it."""
    buckets: list[int] = []
    cols: list[int] = []
    masks: list[int] = []
    tail_keys = _TAIL_KEYS.tolist()
    tail = [(k, int(_TAIL[k])) for k in tail_keys]
    for at, end in bodies.T.tolist():
        first = len(buckets)
        while at + 1 < end and data[at] == _BUCKET_KEY:
            length = data[at + 1]
            if length >= 0x80:
                break
            buckets.append(at)
            at += 2 + length
        count_at = at + len(_TAIL)
        if (len(buckets) - first > limits.MAX_HISTOGRAM_BUCKETS or not count_at < end <= count_at + _MAX_VARINT
                or any(data[at + k] != byte for k, byte in tail)
                or any(byte < 0x80 for byte in data[count_at:end - 1]) or data[end - 1] >= 0x80):
            return None
        cols += [at + k for k in tail_keys]
        masks += [0xFF] * len(tail_keys)
        cols += range(count_at, end)
        masks += [0x80] * (end - count_at)
    array = np.frombuffer(data, dtype=np.uint8)
    at, mask = np.asarray(buckets, dtype=np.int64), np.asarray(masks, dtype=np.uint8)
    tails = np.asarray(cols, dtype=np.int64)
    return _Skeleton(at, unaligned(array, "<u2")[at].copy(), tails, array[tails] & mask, mask)


def _bodies_fit(family: _Family, shape: _Shape, array: np.ndarray, starts: np.ndarray,
                view: np.ndarray | None) -> np.ndarray:
    """Per event of `shape` at `starts`: whether all its histogram bodies fit (`_buckets_fit`,
    `_histo_fits`). MindSpore events whose rows are a `view` (evenly spaced) and hold the
    bytes of the shape's `_Skeleton` fit without a walk (a run's histograms keep the lengths of
    their buckets' counts step after step); the others are walked. When most events of a batch
    differ from it, the skeleton is dropped: the events of that size are walked from then on."""
    n = len(starts)
    rows = np.arange(n)
    fits = np.zeros(n, dtype=bool)
    if view is not None and family.dialect == "mindspore":
        key = view.shape[1]
        if key not in family.skeletons:
            family.skeletons[key] = _skeleton(view[0].tobytes(), shape.bodies)
        skeleton = family.skeletons[key]
        if skeleton is not None:
            # (each bucket's key and length as one word: a 16-bit view of the same rows)
            words = np.lib.stride_tricks.as_strided(unaligned(array[int(starts[0]):], "<u2"), shape=(n, key - 1),
                                                    strides=(view.strides[0], 1), writeable=False)
            other = words[:, skeleton.buckets] != skeleton.words
            other_tail = ((view[:, skeleton.cols] ^ skeleton.expected) & skeleton.masks) != 0
            alike = np.ones(n, dtype=bool)
            if other.any() or other_tail.any():  # (most batches: none, found without a pass per row)
                alike = ~(other.any(axis=1) | other_tail.any(axis=1))
            if 2 * np.count_nonzero(alike) < n:
                family.skeletons[key] = None
            fits[alike] = True
            rows = np.flatnonzero(~alike)
    if len(rows):
        first, last = shape.bodies
        walk = _histo_fits if family.dialect == "tensorboard" else _buckets_fit
        at = starts[rows]
        fits[rows] = walk(array, (at[:, None] + first).reshape(-1), (at[:, None] + last).reshape(-1)
                          ).reshape(len(rows), -1).all(axis=1)
    return fits


_FIT_CHUNK = 1 << 15  # histograms walked at once: the walk's arrays stay under ~30 MB
# A bucket's start as a 16-bit word (its key, its one-byte length above it) -> the bytes to the
# next bucket's start; 0 for any other word (the walk stays where the buckets end).
_BUCKET_STEP = np.zeros(1 << 16, dtype=np.int64)
_BUCKET_STEP[_BUCKET_KEY | (np.arange(0x80) << 8)] = np.arange(0x80) + 2


def _buckets_fit(array: np.ndarray, at: np.ndarray, end: np.ndarray) -> np.ndarray:
    """Per histogram body (`at` to `end`): its fields are buckets of short length, then counts
    and doubles (as writers write them), and it holds at most `limits.MAX_HISTOGRAM_BUCKETS`
    buckets. The buckets' contents are read when the histogram is decoded.

    Every histogram steps from bucket to bucket at once, `MAX_HISTOGRAM_BUCKETS` steps at most:
    a word that starts no bucket steps 0, so a walk that left its buckets stays where they end
    (a few operations over the histograms a step, nothing kept per step). A walk past its
    body's end (a body of buckets only, then bytes that look like buckets) cannot tell whether
    it met the end exactly: those are walked again, stopping at the end (`_buckets_walked`)."""
    if len(at) > _FIT_CHUNK:  # (a batch of many small histograms)
        return np.concatenate([_buckets_fit(array, at[i:i + _FIT_CHUNK], end[i:i + _FIT_CHUNK])
                               for i in range(0, len(at), _FIT_CHUNK)])
    ahead = array[1:]  # the byte after each: a bucket's length, when a bucket starts there
    n = len(at)
    trail = at.copy()
    keys, lengths = np.empty(n, dtype=np.uint8), np.empty(n, dtype=np.uint8)
    word, step = np.empty(n, dtype=np.uint16), np.empty(n, dtype=np.int64)

    def step_at(trail: np.ndarray) -> np.ndarray:
        array.take(trail, mode="clip", out=keys)
        ahead.take(trail, mode="clip", out=lengths)
        np.left_shift(lengths, 8, out=word, dtype=np.uint16)
        np.bitwise_or(word, keys, out=word)
        return _BUCKET_STEP.take(word, out=step)

    for i in range(limits.MAX_HISTOGRAM_BUCKETS):
        trail += step_at(trail)
        if i % 8 == 7 and not step.any():
            break
    # Left its buckets (or more than the most buckets: still on one), reached its end exactly.
    ok = (step_at(trail) == 0) & (trail < end) | (trail == end)
    past = np.flatnonzero(trail > end)
    if len(past):
        ok[past] = _buckets_walked(array, at[past], end[past])
        trail[past] = end[past]  # (the walked rows' tail is read there: `ok` decides)
    return _tail_fits(array, trail, end, ok)


def _tail_fits(array: np.ndarray, at: np.ndarray, end: np.ndarray, ok: np.ndarray) -> np.ndarray:
    """`ok` where the fields at `at` after a histogram's buckets run to `end` as writers write
    them: three zero counts, three doubles, the count; else each field once at most."""
    ok = ok.copy()
    plain = ok & (at + len(_TAIL) + 1 <= end)
    if plain.any():
        plain &= (array.take(at[:, None] + _TAIL_KEYS, mode="clip") == _TAIL[_TAIL_KEYS]).all(axis=1)
        _, length = _read_varints(array, at + len(_TAIL), plain)
        plain &= at + len(_TAIL) + length == end
        at = np.where(plain, end, at)
    for _ in range(8):
        open_ = ok & (at < end)
        if not open_.any():
            break
        key = array.take(at, mode="clip")
        double = _TAIL_DOUBLE[key]
        ok &= ~open_ | double | _TAIL_VARINT[key]
        _, length = _read_varints(array, at + 1, ok)
        at = at + np.where(open_, np.where(double, 9, 1 + length), 0)
    return ok & (at == end)


def _buckets_walked(array: np.ndarray, at: np.ndarray, end: np.ndarray) -> np.ndarray:
    """`_buckets_fit` with every histogram's walk stopping at its body's end: each step kept."""
    ahead = array[1:]  # the byte after each: a bucket's length, when a bucket starts there
    most = limits.MAX_HISTOGRAM_BUCKETS + 1
    # Every histogram a bucket per step, trusting each step's length byte and noting its key;
    # then, for all steps at once, the first that is no bucket's start (its key, a one-byte
    # length) or reached the end.
    trail = np.empty((most + 1, len(at)), dtype=np.int64)
    keys = np.empty((most + 1, len(at)), dtype=np.uint8)
    lengths = np.empty((most + 1, len(at)), dtype=np.uint8)
    trail[0] = at
    steps = most
    for i in range(most):
        # (the key and the length share a cache line: both read while it is loaded)
        array.take(trail[i], mode="clip", out=keys[i])
        ahead.take(trail[i], mode="clip", out=lengths[i])
        np.add(trail[i], lengths[i], out=trail[i + 1])
        trail[i + 1] += 2
        if i % 16 == 15 and bool((trail[i + 1] >= end).all()):
            steps = i + 1
            break
    array.take(trail[steps], mode="clip", out=keys[steps])
    ahead.take(trail[steps], mode="clip", out=lengths[steps])
    trail, keys, lengths = trail[:steps + 1], keys[:steps + 1], lengths[:steps + 1]
    # (the last step too: a histogram found at its end there)
    stopped = (keys != _BUCKET_KEY) | (lengths >= 0x80) | (trail >= end)
    done = stopped.any(axis=0)
    count = np.where(done, np.argmax(stopped, axis=0), most)  # buckets before the stop
    ok = done & (count <= limits.MAX_HISTOGRAM_BUCKETS)
    at = trail[np.minimum(count, len(trail) - 1), np.arange(len(at))]
    ok &= at <= end  # (no bucket runs past the end)
    return _tail_fits(array, at, end, ok)


# HistogramProto's fields: min, max, num, sum, sum_squares (doubles); bucket_limit, bucket
# (repeated doubles, packed as writers write them: a length, then whole doubles).
_HISTO_DOUBLE = np.zeros(256, dtype=bool)
_HISTO_DOUBLE[[0x09, 0x11, 0x19, 0x21, 0x29]] = True
_HISTO_PACKED = np.zeros(256, dtype=bool)
_HISTO_PACKED[[0x32, 0x3A]] = True
_HISTO_FIELDS = 8  # fields walked per body at most (writers write 7): a body of more goes the one-event path


def _histo_fits(array: np.ndarray, at: np.ndarray, end: np.ndarray) -> np.ndarray:
    """Per TensorBoard histogram body (`at` to `end`): a few of HistogramProto's fields, each
    a double or packed doubles, running exactly to the end: what protobuf decodes. (The
    doubles are read when the histogram is shown.)"""
    ok = np.ones(len(at), dtype=bool)
    for _ in range(_HISTO_FIELDS):
        open_ = ok & (at < end)
        if not open_.any():
            break
        key = array.take(at, mode="clip")
        double, packed = _HISTO_DOUBLE[key], _HISTO_PACKED[key]
        ok &= ~open_ | double | packed
        whole = ok.copy()  # (a varint read where no packed field is may run long: not a fault there)
        length, size = _read_varints(array, at + 1, whole)
        packed &= open_
        ok &= ~packed | (whole & (length % 8 == 0))
        at = at + np.where(open_, np.where(double, 9, 1 + size + length), 0)
    return ok & (at == end)


class MixedBook:
    """Mixed layouts seen so far (one per job's loader: its tags), of events of `dialect`
    ("mindspore" or "tensorboard", as `DIALECTS` names them)."""

    MAX_LAYOUTS = 64
    NEW_PER_BATCH = 4  # events walked for a new layout per batch before the rest go one by one ...
    PAYING_MATCHES = 4  # ... unless a new layout matched this many more: another try
    MAX_NEW_PER_BATCH = 32

    enabled = True  # (off: every such event goes the one-event path, as the tests compare)

    def __init__(self, dialect: str = "mindspore") -> None:
        if dialect not in DIALECTS:
            raise ValueError(f"unknown event dialect {dialect!r}")
        self.dialect = dialect
        self.layouts: list[MixedLayout] = []
        self._families: list[_Family] | None = []  # of `layouts`, the one that matched last first

    def classify(self, payloads: Payloads, rows: np.ndarray, decode: Callable[[bytes], object | None],
                 decoded: dict[int, object]) -> list[Matched]:
        """The events at `rows` of `payloads` that are of a mixed layout, by layout. `decoded`
        (by row) holds events protobuf decoded already; those decoded here are added to it."""
        matched: list[Matched] = []
        if not len(rows) or not self.enabled:
            return matched
        array = payloads.array
        left = rows
        hits = []
        families = self._families_now()
        for family in families:
            count = len(left)
            left = self._take(family, array, payloads, left, matched)
            if len(left) < count:
                hits.append(id(family))
            if not len(left):
                break
        if hits and hits[0] != id(families[0]):  # the families that matched first next time
            families.sort(key=lambda family: id(family) not in hits)
        budget, tries = self.NEW_PER_BATCH, 0
        while len(left) and budget > 0 and tries < self.MAX_NEW_PER_BATCH:
            budget -= 1
            tries += 1
            i = int(left[0])
            payload = payloads[i]
            event = decoded[i] if i in decoded else decode(payload)
            decoded[i] = event
            made = self._make(payload, event, self.dialect)
            if made is None:
                left = left[1:]
                continue
            if len(self.layouts) >= self.MAX_LAYOUTS:
                self.layouts.clear()
            self.layouts.append(made)
            self._families = None
            count = len(left)
            left = self._take(_Family.of([made]), array, payloads, left, matched)
            if count - len(left) > self.PAYING_MATCHES:
                budget += 1
        return matched

    def _families_now(self) -> list[_Family]:
        """The layouts by family, rebuilt when a layout was added."""
        if self._families is None:
            groups: dict[tuple, list[MixedLayout]] = {}
            for layout in self.layouts:
                groups.setdefault(_family_key(layout), []).append(layout)
            self._families = [_Family.of(group) for group in groups.values()]
        return self._families

    @staticmethod
    def _take(family: _Family, array: np.ndarray, payloads: Payloads, rows: np.ndarray,
              matched: list[Matched]) -> np.ndarray:
        starts = payloads.starts[rows]
        which, steps, walls, floats = _match(family, array, starts, starts + payloads.lengths[rows])
        hit = which >= 0
        if len(family.layouts) == 1:
            if hit.any():
                matched.append(Matched(family.layouts[0], rows[hit], steps[hit], walls[hit], floats[hit]))
            return rows[~hit]
        for k in np.flatnonzero(np.bincount(which[hit], minlength=len(family.layouts))).tolist():
            mine = which == k
            matched.append(Matched(family.layouts[k], rows[mine], steps[mine], walls[mine], floats[mine]))
        return rows[~hit]

    @staticmethod
    def _make(payload: bytes, event, dialect: str) -> MixedLayout | None:
        """The layout of `payload`, checked against `event` (what protobuf decoded of it)."""
        if event is None or event.WhichOneof("what") != "summary":
            return None
        try:
            layout = _walk(payload, dialect)
        except (ValueError, IndexError, UnicodeDecodeError):
            return None
        if layout is None:
            return None
        values = event.summary.value
        if (tuple(v.tag for v in values) != layout.tags
                or tuple(v.WhichOneof("value") for v in values) != layout.kinds):
            return None
        array = np.frombuffer(payload, dtype=np.uint8)
        start = np.zeros(1, dtype=np.int64)
        which, steps, walls, floats = _match(_Family.of([layout]), array, start, start + len(payload))
        if which[0] < 0 or int(steps[0]) != event.step or walls[0].tobytes() != np.float64(event.wall_time).tobytes():
            return None
        field = DIALECTS[dialect].scalar_field
        expected = [getattr(v, field) for v in values if v.WhichOneof("value") == field]
        if np.asarray(expected, dtype=np.float64).tobytes() != floats[0].tobytes():
            return None
        if dialect == "mindspore" and any(len(v.histogram.buckets) > limits.MAX_HISTOGRAM_BUCKETS for v in values
               if v.WhichOneof("value") == "histogram"):
            return None
        return layout
