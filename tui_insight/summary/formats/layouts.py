"""Repeated event layouts: the numbers of repeated scalar events, MindSpore's or TensorBoard's,
read in bulk (`LayoutBook`), checked against what protobuf decodes.
"""
from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property
from typing import Callable, NamedTuple, Sequence

import numpy as np

from ..text import text_of
from .bulk_framing import Payloads, copied_rows, period_of, strided, unaligned, varint

# -- repeated event layouts -------------------------------------------------------------------
#
# A training loop writes the same tags in the same order every step, so most events of a file
# are byte for byte the same apart from their wall time, step and scalar values. A `Layout` is
# such an event's bytes with those fields marked variable: every payload of the same length
# whose fixed bytes match is that event with other numbers, and numpy reads a whole batch of
# them at once instead of protobuf decoding each and Python visiting each value.
#
# Only scalar-only summary events get a layout (values holding just a tag and a scalar; in
# TensorBoard's, the scalar may be TF2's: a float32 tensor of shape [] as `tf.summary.scalar`
# and Keras write it, `tensor_content` or one packed `float_val`, without metadata).
# A layout is made from one payload the protobuf decoder accepted, and checked against what it
# decoded, so a matching payload decodes to exactly what protobuf would give.

_WALL_TAG, _STEP_TAG, _SUMMARY_TAG = 0x09, 0x10, 0x2A  # Event fields 1 (double), 2 (varint), 5 (message)
_VALUE_TAG = 0x0A  # Summary field 1 (message), and Value field 1 (string)
_TENSOR_TAG = 0x42  # TensorBoard's Value field 8 (TensorProto)
# A float32 scalar tensor up to its number: length 10, dtype DT_FLOAT, shape [], then the
# number as tensor_content (4 bytes) or as float_val (packed: 4 bytes).
_SCALAR_TENSORS = (bytes([10, 0x08, 1, 0x12, 0, 0x22, 4]), bytes([10, 0x08, 1, 0x12, 0, 0x2A, 4]))
TENSOR = "tensor"  # a kind of TensorBoard layouts: a scalar tensor, read as a scalar where its tag's plugin is "scalars"


class Dialect(NamedTuple):
    """Where an event's scalar sits: the key of the float field of `Summary.Value`, and its name."""

    scalar_key: int
    scalar_field: str


# Both write Event fields 1, 2, 5 and Summary.Value's tag (field 1) alike; the float differs:
# MindSpore's `scalar_value` is field 3, TensorBoard's `simple_value` field 2.
DIALECTS = {"mindspore": Dialect(0x1D, "scalar_value"), "tensorboard": Dialect(0x15, "simple_value")}




@dataclass(frozen=True)
class Layout:
    """The fixed bytes of a scalar-only summary event and where its numbers sit."""

    size: int
    template: np.ndarray  # uint8[size]: the bytes of the event it was made from
    mask: np.ndarray  # uint8[size]: bits that must equal the template's
    wall_at: int  # offset of wall_time (8 bytes), -1 if the field is absent (0.0)
    step_at: int  # offset of the step varint, -1 if absent (0)
    step_len: int
    tags: tuple[str, ...]  # every value's tag, in order
    kinds: tuple[str | None, ...]  # the dialect's scalar field ("scalar_value") or None (no data)
    float_at: np.ndarray  # int64[number of scalar values]: offsets of the float32s
    float_of_value: tuple[int, ...]  # value index -> column in `float_at`, -1 for none

    @classmethod
    def make(cls, payload: bytes, event, dialect: str = "mindspore") -> "Layout | None":
        """The layout of `payload`, decoded by protobuf as `event` (of `dialect`'s protos);
        None if it has none."""
        scalar_key, scalar_field = DIALECTS[dialect]
        tensors = dialect == "tensorboard"
        allowed = (scalar_field, None, TENSOR) if tensors else (scalar_field, None)
        if event.WhichOneof("what") != "summary" or any(
                kind not in allowed for kind in [v.WhichOneof("value") for v in event.summary.value]):
            return None  # (said before the walk, which costs more: a MindSpore event of histograms)
        try:
            layout = cls._walk(payload, scalar_key, scalar_field, tensors)
        except (ValueError, IndexError, UnicodeDecodeError):
            return None
        if layout is None or event.WhichOneof("what") != "summary":
            return None
        if dialect == "tensorboard" and None in layout.kinds:
            return None  # TensorBoard routes a value without data by its tag's plugin, named in an earlier event
        # The walk must see what protobuf saw, number for number.
        values = event.summary.value
        if (tuple(v.tag for v in values) != layout.tags
                or tuple(v.WhichOneof("value") for v in values) != layout.kinds):
            return None
        rows = np.frombuffer(payload, dtype=np.uint8).reshape(1, -1)
        steps, walls, floats = layout.numbers(rows)
        if int(steps[0]) != event.step or walls[0].tobytes() != np.float64(event.wall_time).tobytes():
            return None
        expected = [_tensor_number(values[i].tensor) if kind == TENSOR else getattr(values[i], scalar_field)
                    for i, (col, kind) in enumerate(zip(layout.float_of_value, layout.kinds)) if col >= 0]
        if np.asarray(expected, dtype=np.float64).tobytes() != floats[0].tobytes():
            return None
        return layout

    @property
    def routed_kinds(self) -> tuple[str | None, ...]:
        """The kinds as `routing.routes` takes them: a scalar tensor is a scalar (the loader
        reads a layout holding one only where its tag's plugin is "scalars")."""
        return tuple("simple_value" if kind == TENSOR else kind for kind in self.kinds)

    @classmethod
    def _walk(cls, data: bytes, scalar_key: int, scalar_field: str, tensors: bool = False) -> "Layout | None":
        size = len(data)
        mask = np.full(size, 0xFF, dtype=np.uint8)
        wall_at = step_at = -1
        step_len = 0
        summary_seen = False
        tags: list[str] = []
        kinds: list[str | None] = []
        float_at: list[int] = []
        float_of_value: list[int] = []
        pos = 0
        while pos < size:
            key = data[pos]
            pos += 1
            if key == _WALL_TAG and wall_at < 0:
                if pos + 8 > size:
                    return None
                wall_at = pos
                mask[pos:pos + 8] = 0
                pos += 8
            elif key == _STEP_TAG and step_at < 0:
                start = pos
                _, pos = varint(data, pos, size)
                step_at, step_len = start, pos - start
                mask[start:pos] = 0x80  # only the continuation bits are fixed
            elif key == _SUMMARY_TAG and not summary_seen:
                summary_seen = True
                length, pos = varint(data, pos, size)
                end = pos + length
                if end > size:
                    return None
                while pos < end:
                    if data[pos] != _VALUE_TAG:
                        return None
                    length, pos = varint(data, pos + 1, end)
                    value_end = pos + length
                    if value_end > end:
                        return None
                    tag, scalar_at, kind = None, -1, scalar_field
                    while pos < value_end:
                        field_key = data[pos]
                        pos += 1
                        if field_key == _VALUE_TAG and tag is None:
                            length, pos = varint(data, pos, value_end)
                            if pos + length > value_end:
                                return None
                            tag = data[pos:pos + length].decode("utf-8")
                            pos += length
                        elif field_key == scalar_key and scalar_at < 0:
                            if pos + 4 > value_end:
                                return None
                            scalar_at = pos
                            mask[pos:pos + 4] = 0
                            pos += 4
                        elif (tensors and field_key == _TENSOR_TAG and scalar_at < 0
                              and data[pos:pos + 7] in _SCALAR_TENSORS and pos + 11 <= value_end):
                            scalar_at, kind = pos + 7, TENSOR
                            mask[pos + 7:pos + 11] = 0
                            pos += 11
                        else:
                            return None  # a histogram, tensor, image... or an unusual encoding
                    tags.append(tag or "")
                    if scalar_at >= 0:
                        kinds.append(kind)
                        float_of_value.append(len(float_at))
                        float_at.append(scalar_at)
                    else:
                        kinds.append(None)
                        float_of_value.append(-1)
            else:
                return None  # version, graph_def, a repeated field...
        if not summary_seen:
            return None
        template = np.frombuffer(data, dtype=np.uint8).copy()
        return cls(size, template, mask, wall_at, step_at, step_len, tuple(tags), tuple(kinds),
                   np.asarray(float_at, dtype=np.int64), tuple(float_of_value))

    def matches(self, rows: np.ndarray, at: np.ndarray | None = None,
                same: tuple[np.ndarray, np.ndarray] | None = None) -> np.ndarray:
        """Mask of `rows` (uint8[n, size]), or of `rows[at]`, that are this layout with other
        numbers. `same` is `Payloads.same` of the rows' size, if known: every row is its
        reference outside its varying positions, so only those are compared row by row."""
        if same is not None:
            reference, varying = same
            differ = (reference ^ self.template) & self.mask
            differ[varying] = 0
            if differ.any():
                return np.zeros(len(rows) if at is None else len(at), dtype=bool)
            cols = varying[self.mask[varying] != 0]
            part = rows[:, cols] if at is None else rows[at[:, None], cols]
            return ~((part ^ self.template[cols]) & self.mask[cols]).any(axis=1)
        return ~(((rows if at is None else rows[at]) ^ self.template) & self.mask).any(axis=1)

    @cached_property
    def geometry(self) -> tuple:
        """Where the numbers sit: layouts of the same geometry (TensorBoard tags of the same
        length) read their numbers from the same offsets, so one `numbers` call serves them all."""
        return (self.size, self.wall_at, self.step_at, self.step_len, self.float_at.tobytes())

    def numbers(self, rows: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """(step int64[n], wall_time float64[n], scalars float64[n, k]) of matching `rows`."""
        return _read_numbers(rows, self.wall_at, self.step_at, self.step_len, self.float_at)

    def numbers_at(self, array: np.ndarray, starts: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """`numbers` of the payloads at `starts` of `array` (ascending: the reads then go
        forward through the block). Many numbers per event (a MindSpore event's 50 floats) are
        read through the events' rows: a view when they are evenly spaced, else a copy (one
        whole row at a time); a few are gathered each as what it is, one index per number."""
        if len(self.float_at) > 8:
            view = strided(array, starts, self.size)
            return self.numbers(view if view is not None else copied_rows(array, starts, self.size))
        n = len(starts)
        walls = unaligned(array, "<f8")[starts + self.wall_at] if self.wall_at >= 0 else np.zeros(n)
        if self.step_at >= 0:
            at = starts + self.step_at
            steps = (array[at] & np.uint8(0x7F)).astype(np.uint64)
            for j in range(1, self.step_len):
                steps |= (array[at + j] & np.uint8(0x7F)).astype(np.uint64) << np.uint64(7 * j)
            steps = steps.view(np.int64)
        else:
            steps = np.zeros(n, dtype=np.int64)
        floats = _widened(unaligned(array, "<f4")[starts[:, None] + self.float_at])
        return steps, walls, floats


def _tensor_number(tensor) -> float:
    """The number of a float32 scalar tensor, as `tensorboard._scalar_of` reads it."""
    if tensor.tensor_content:
        return float(np.frombuffer(tensor.tensor_content, dtype="<f4")[0])
    return float(np.float32(tensor.float_val[0]))


def _read_numbers(rows: np.ndarray, wall_at: int, step_at: int, step_len: int,
                  float_at: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(step int64[n], wall_time float64[n], scalars float64[n, k]) from the bytes `rows` (n rows,
    each row's bytes one after another) holding a float64 at `wall_at`, a varint of `step_len`
    bytes at `step_at`, float32s at `float_at`. Each number is read through a view of its bytes
    in every row (unaligned, cast once): gathering the bytes by index first cost 5x more (97
    against 15 us for the 10 floats of 1,779 MindSpore events)."""
    n = len(rows)
    if wall_at >= 0:
        walls = rows[:, wall_at:wall_at + 8].view("<f8").reshape(n).astype(np.float64)
    else:
        walls = np.zeros(n, dtype=np.float64)
    if step_at >= 0:
        steps = (rows[:, step_at] & np.uint8(0x7F)).astype(np.uint64)
        for j in range(1, step_len):
            steps |= (rows[:, step_at + j] & np.uint8(0x7F)).astype(np.uint64) << np.uint64(7 * j)
        steps = steps.view(np.int64)
    else:
        steps = np.zeros(n, dtype=np.int64)
    k = len(float_at)
    if k == 1:  # one value per event (TensorBoard): a slice, no index array
        at = int(float_at[0])
        floats = _widened(rows[:, at:at + 4].view("<f4"))
    elif k:
        first, spacing = int(float_at[0]), int(float_at[1] - float_at[0])
        if spacing >= 4 and bool((np.diff(float_at) == spacing).all()):  # (tags of one name length)
            floats = _widened(np.lib.stride_tricks.as_strided(
                rows[:, first:], shape=(n, k, 4), strides=(rows.strides[0], spacing, 1)).view("<f4").reshape(n, k))
        else:
            floats = np.empty((n, k), dtype=np.float64)
            with np.errstate(invalid="ignore"):
                for j, at in enumerate(float_at.tolist()):
                    floats[:, j] = rows[:, at:at + 4].view("<f4").reshape(n)
    else:
        floats = np.zeros((n, 0), dtype=np.float64)
    return steps, walls, floats


def _widened(floats: np.ndarray) -> np.ndarray:
    """float32s as float64, as protobuf widens them (a signalling NaN quieted, without numpy's
    "invalid value" warning on stderr)."""
    with np.errstate(invalid="ignore"):
        return floats.astype(np.float64)


def _odd_multiplier(i: int) -> int:
    """The i-th of a fixed series of odd 64-bit numbers that look random (splitmix64)."""
    z = (0x9E3779B97F4A7C15 * (i + 1)) & 0xFFFFFFFFFFFFFFFF
    z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & 0xFFFFFFFFFFFFFFFF
    z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & 0xFFFFFFFFFFFFFFFF
    return (z ^ (z >> 31)) | 1


class _LayoutIndex:
    """Layouts of one payload size and mask, found for many rows at once: a row's key is a hash
    of the few fixed bytes that tell these layouts apart, looked up among the layouts' keys,
    and the layout found is checked against the whole row, eight bytes at a time."""

    def __init__(self, layouts: list[Layout]) -> None:
        self.layouts = layouts
        self.mask = layouts[0].mask
        size = len(self.mask)
        self.width = -(-size // 8) * 8  # rows padded to whole words
        templates = np.zeros((len(layouts), self.width), dtype=np.uint8)
        templates[:, :size] = np.stack([layout.template & self.mask for layout in layouts])
        mask = np.zeros(self.width, dtype=np.uint8)
        mask[:size] = self.mask
        self.word_templates = templates.view("<u8")
        self.templates = templates[:, :size]
        self.word_mask = mask.view("<u8")
        differ = np.flatnonzero((templates != templates[0]).any(axis=0))
        # The most telling bytes first, as few as make every layout's key its own. (Plain Python
        # sets and multipliers: numpy's unique and random cost a module import on a first load.)
        distinct = [len(set(templates[:, c].tolist())) for c in differ.tolist()]
        differ = differ[np.argsort(distinct, kind="stable")[::-1]]
        keys = np.zeros(len(layouts), dtype=np.uint64)
        weights: list[int] = []
        while len(weights) < len(differ) and len(set(keys.tolist())) < len(layouts):
            weights.append(_odd_multiplier(len(weights)))
            keys += templates[:, differ[len(weights) - 1]].astype(np.uint64) * np.uint64(weights[-1])
        self.columns, self.weights = differ[:len(weights)].tolist(), np.asarray(weights, dtype=np.uint64)
        self.order = np.argsort(keys, kind="stable")
        self.keys = keys[self.order]

    PROBE = 1024  # rows whose layouts are looked up to see if they repeat in a cycle

    def find(self, rows: np.ndarray, same: tuple[np.ndarray, np.ndarray] | None = None) -> np.ndarray:
        """Per row of `rows` (uint8[n, size]), the index in `layouts` of its layout, or -1.
        `same` is `Payloads.same` of the rows' size, if known.

        When the first rows' layouts repeat in a cycle (a training loop's tags), the cycle is
        taken as every row's guess and only checked; rows where it fails are looked up."""
        if len(rows) >= 4 * self.PROBE and len(self.layouts) > 1:
            head = self._check(rows[:self.PROBE], self._candidates(rows[:self.PROBE]), same)
            period = period_of(head, self.PROBE // 2)
            if period and bool((head[:period] >= 0).all()):
                found = self._check(rows, np.resize(head[:period], len(rows)), same)
                missed = np.flatnonzero(found < 0)
                if len(missed):
                    found[missed] = self._check(rows[missed], self._candidates(rows[missed]), same)
                return found
        return self._check(rows, self._candidates(rows), same)

    def _candidates(self, rows: np.ndarray) -> np.ndarray:
        """Per row, the layout whose key its key is (-1 for none), to be checked."""
        if not self.columns:
            return np.zeros(len(rows), dtype=np.int64)
        key = np.zeros(len(rows), dtype=np.uint64)
        for column, weight in zip(self.columns, self.weights):
            key += (rows[:, column] & self.mask[column]).astype(np.uint64) * weight
        at = np.minimum(np.searchsorted(self.keys, key), len(self.keys) - 1)
        return np.where(self.keys[at] == key, self.order[at], -1)

    def _check(self, rows: np.ndarray, found: np.ndarray, same: tuple[np.ndarray, np.ndarray] | None) -> np.ndarray:
        """`found` (a layout per row, -1 for none; changed in place) with -1 where the row's
        fixed bytes are not its layout's."""
        count, size = rows.shape
        if same is not None:
            # Outside `varying` every row is `reference`: one comparison per layout there ...
            reference, varying = same
            outside = np.ones(size, dtype=bool)
            outside[varying] = False
            fits = ~((self.templates[:, outside] ^ (reference[outside] & self.mask[outside])).any(axis=1))
            layout_of = np.maximum(found, 0)
            ok = fits[layout_of]
            # ... and the few varying positions with fixed bits (a tag's letters, a step's length) row by row.
            cols = varying[self.mask[varying] != 0]
            if 0 < len(cols) <= 8:  # packed into one word per row, compared with its layout's
                words = np.zeros((count, 8), dtype=np.uint8)
                words[:, :len(cols)] = rows[:, cols] & self.mask[cols]
                expected = np.zeros((len(self.layouts), 8), dtype=np.uint8)
                expected[:, :len(cols)] = self.templates[:, cols]
                ok &= words.view("<u8").reshape(count) == expected.view("<u8").reshape(-1)[layout_of]
            elif len(cols):
                ok &= ((rows[:, cols] & self.mask[cols]) == self.templates[:, cols][layout_of]).all(axis=1)
            found[~ok] = -1
            return found
        if self.width > 128:  # long rows: a few layouts, each checked over its rows
            for k in np.flatnonzero(np.bincount(found[found >= 0], minlength=len(self.layouts))).tolist():
                which = np.flatnonzero(found == k)
                if len(which) == count:
                    found[~self.layouts[k].matches(rows)] = -1
                else:
                    found[which[~self.layouts[k].matches(rows[which])]] = -1
            return found
        # Short rows (one value per event): possibly many layouts, all checked at once by words.
        padded = np.zeros((count, self.width), dtype=np.uint8)
        padded[:, :size] = rows
        words = padded.view("<u8")
        templates = self.word_templates[np.maximum(found, 0)]
        wrong = np.zeros(count, dtype=np.uint64)
        for j, mask in enumerate(self.word_mask.tolist()):
            if mask:
                wrong |= (words[:, j] & np.uint64(mask)) ^ templates[:, j]
        found[wrong != 0] = -1
        return found


_LAST_FILE = -1  # (`LayoutBook._without`: the size held no layout in the last file read)


class LayoutBook:
    """Layouts seen so far, by payload size (shared by the files of one cache: sweeps repeat them).

    `dialect` names the protos of the events: "mindspore" (summary_pb2) or "tensorboard"
    (tb_event_pb2), whose scalar values are `scalar_value` and `simple_value`.
    """

    MAX_LAYOUTS = 4096
    NEW_PER_SIZE = 3  # new layouts that may fail per payload size and batch before the rest is decoded one by one
    PAYING_MATCHES = 4  # a new layout matching this many more events earns another try (50 tags: 50 layouts)
    MAX_NEW_PER_SIZE = 128
    WINDOW_BYTES = 64 << 10  # new layouts are matched against this much of the rows left (a few cycles of tags)
    LOOK_AGAIN = 8  # a size whose events held no scalar-only layout is looked at again in the file's 8th batch after

    def __init__(self, dialect: str = "mindspore") -> None:
        if dialect not in DIALECTS:
            raise ValueError(f"unknown event dialect {dialect!r}")
        self.dialect = dialect
        self.by_size: dict[int, list[Layout]] = {}
        self.count = 0
        self._indexes: dict[int, list[_LayoutIndex]] = {}  # by size; rebuilt when a layout is added
        self._without: dict[int, int] = {}  # size -> batches of this file since its events last held no layout

    def classify(self, payloads: Sequence[bytes], decode) -> tuple[np.ndarray, list[Layout], dict[int, object]]:
        """(layout number per payload, -1 for none; the layouts; events decoded on the way).

        `payloads` is a list of bytes or a batch's `Payloads` (rows read without copies).
        `decode(payload)` is protobuf's decoding (an Event, or None if it fails); it is called
        for the payloads used to make layouts, and what it returned is handed back by index.
        """
        payloads = Payloads.of(payloads)
        which = np.full(len(payloads), -1, dtype=np.int64)
        used: list[Layout] = []
        number: dict[int, int] = {}  # id(layout) -> its index in `used`

        def number_of(layout: Layout) -> int:
            if id(layout) not in number:
                number[id(layout)] = len(used)
                used.append(layout)
            return number[id(layout)]

        decoded: dict[int, object] = {}
        if not len(payloads):
            return which, used, decoded
        for size, members in payloads.by_length():
            if size < 4 or len(members) < 2 and size not in self.by_size:
                continue  # a lone event of its size: one protobuf decode is as cheap
            if size not in self.by_size and not self._may_have_layouts(size, payloads, members):
                continue  # (histograms of one size: neither copied nor decoded here, left to the other paths)
            rows = payloads.rows(members, size)
            left = np.ones(len(members), dtype=bool)
            budget, tries = self.NEW_PER_SIZE, 0
            while True:
                # The known layouts, for all rows at once ...
                for index in self._indexes_of(size):
                    at = np.flatnonzero(left)
                    if not len(at):
                        break
                    found = index.find(rows if len(at) == len(members) else rows[at], payloads.same.get(size))
                    hit = found >= 0
                    if hit.any():
                        numbers = np.full(len(index.layouts), -1, dtype=np.int64)
                        for k in np.flatnonzero(np.bincount(found[hit], minlength=len(index.layouts))).tolist():
                            numbers[k] = number_of(index.layouts[k])
                        which[members[at[hit]]] = numbers[found[hit]]
                        left[at[hit]] = False
                if budget <= 0 or tries >= self.MAX_NEW_PER_SIZE or not left.any():
                    break
                # ... then new layouts from the first rows left, each matched against those rows
                # only (a training loop's tags all show up in a window of a few cycles).
                window = np.flatnonzero(left)[:max(64, self.WINDOW_BYTES // size)]
                open_ = np.ones(len(window), dtype=bool)
                made = False
                while budget > 0 and tries < self.MAX_NEW_PER_SIZE and open_.any():
                    budget -= 1
                    tries += 1
                    first = int(np.argmax(open_))
                    i = int(members[window[first]])
                    payload = payloads[i]
                    event = decoded[i] = decode(payload)
                    open_[first] = left[window[first]] = False
                    layout = Layout.make(payload, event, self.dialect) if event is not None else None
                    if layout is None:
                        continue
                    self._add(size, layout)
                    made = True
                    which[i] = number_of(layout)
                    rest = np.flatnonzero(open_)
                    hit = rest[layout.matches(rows, window[rest], payloads.same.get(size))]
                    which[members[window[hit]]] = which[i]
                    open_[hit] = left[window[hit]] = False
                    if len(hit) >= self.PAYING_MATCHES:
                        budget += 1
                if not made:
                    break
        return which, used, decoded

    def file_starts(self) -> None:
        """The batches classified next are another file's (or more of one): each size is looked
        at again (the book is shared by the jobs of a LOGDIR, whose files differ). A size whose
        events held no layout in the last file is looked at in its first event only: a sweep's
        runs repeat their sizes (a run's histogram events), and walking three events of each
        size in every run cost 0.1 ms a run."""
        self._without = dict.fromkeys(self._without, _LAST_FILE)

    def _may_have_layouts(self, size: int, payloads: Payloads, members: np.ndarray) -> bool:
        """Whether the events at `members` (all of `size` bytes, of no layout yet) may be of a
        layout: their first, middle and last are walked (the first only if that size held none
        in the last file), unless events of that size held none in the file's last `LOOK_AGAIN`
        batches (a run's histogram events: a few sizes, every batch)."""
        since = self._without.get(size, 0)
        if 0 < since < self.LOOK_AGAIN:
            self._without[size] = since + 1
            return False
        walked = {0} if since == _LAST_FILE else {0, len(members) // 2, len(members) - 1}
        if any(self._may_have_layout(payloads[int(members[k])]) for k in walked):
            self._without.pop(size, None)
            return True
        if len(self._without) >= self.MAX_LAYOUTS:
            self._without.clear()
        self._without[size] = 1
        return False

    def _may_have_layout(self, payload: bytes) -> bool:
        """Whether the bytes of `payload` are a scalar-only event's (protobuf not asked yet)."""
        scalar_key, scalar_field = DIALECTS[self.dialect]
        try:
            return Layout._walk(payload, scalar_key, scalar_field, self.dialect == "tensorboard") is not None
        except (ValueError, IndexError, UnicodeDecodeError):
            return False

    def _add(self, size: int, layout: Layout) -> None:
        if self.count >= self.MAX_LAYOUTS:
            self.by_size.clear()
            self._indexes.clear()
            self.count = 0
        self.by_size.setdefault(size, []).append(layout)
        self._indexes.pop(size, None)
        self.count += 1

    def _indexes_of(self, size: int) -> list[_LayoutIndex]:
        indexes = self._indexes.get(size)
        if indexes is None:
            by_mask: dict[bytes, list[Layout]] = {}
            for layout in self.by_size.get(size, []):
                by_mask.setdefault(layout.mask.tobytes(), []).append(layout)
            indexes = self._indexes[size] = [_LayoutIndex(group) for group in by_mask.values()]
        return indexes


def unknown_tensors(layouts: Sequence[Layout], which: np.ndarray, plugins, payloads: Sequence[bytes],
                    decode: Callable[[bytes], object | None], decoded: dict[int, object]) -> None:
    """Set to -1 (to be routed one by one) the rows of `which` whose TensorBoard layout holds a
    scalar tensor that is not a scalar there. Such a tensor is a scalar only once its tag's
    plugin (`plugins`, the job's `TagPlugins`) is "scalars": TF2 names it on the tag's first
    value only, and a tag's plugin, once named, stays. A tag not named yet may be named by an
    event of this batch routed one by one (the rows left at -1 here: the others hold no
    metadata): those are decoded in order (into `decoded`, for the routing) until each such
    tag is, and the layout's rows after that row stay in bulk if it is named "scalars"."""
    pending: dict[int, list[str]] = {}  # layout number -> its tensors' tags
    for number, layout in enumerate(layouts):
        tags = [tag for tag, kind in zip(layout.tags, layout.kinds) if kind == TENSOR]
        if tags and any(plugins.get(tag) != "scalars" for tag in tags):
            pending[number] = tags
    unnamed = {tag for tags in pending.values() for tag in tags if not plugins.get(tag)}
    named: dict[str, tuple[int, str]] = {}  # tag -> (the row naming it, the plugin)
    if unnamed and len(plugins) + len(unnamed) < plugins.MAX_TAGS:  # (a full table names no more)
        for i in np.flatnonzero(which == -1).tolist():
            event = decoded[i] if i in decoded else decoded.setdefault(i, decode(payloads[i]))
            if event is None or event.WhichOneof("what") != "summary":  # type: ignore[attr-defined]
                continue
            for value in event.summary.value:  # type: ignore[attr-defined]
                tag = text_of(value.tag)
                if tag in unnamed and tag not in named and value.HasField("metadata"):
                    if written := text_of(value.metadata.plugin_data.plugin_name):
                        named[tag] = (i, written)
            if len(named) == len(unnamed):
                break
    for number, tags in pending.items():
        first = 0  # rows before this one go one by one
        for tag in tags:
            if plugins.get(tag) == "scalars":
                continue
            at, written = named.get(tag, (len(which), ""))
            first = max(first, at + 1 if written == "scalars" else len(which))
        head = which[:first]
        head[head == number] = -1
