"""The tensor view's state: which tensor, and per tensor its slice, step, column width and cell.

One tensor is shown at a time. Each tensor (train id, tag) keeps its own place (`TensorPlace`),
so going to another tensor and back finds the slice, step, column width and table cursor as they
were. A place's step is `None` while it follows the newest step (it opens so, and `}` or
reaching the last step with `]` goes back to it); moving to an older step pins that step, which
then stays on screen while new steps arrive.

Slices are checked here with the slice grammar of `summary.tensors` against the shape of the
tensor on screen: a slice that does not fit keeps the last good one and carries the reason
(`slice_error`), to be shown under the slice box. Transitions that need the data (the kept steps,
the shape, the width the values want) take it as an argument, so everything here stays pure.
"""
from __future__ import annotations

import bisect
import math
from dataclasses import dataclass, replace
from typing import Any, Sequence

from ...summary import limits
from ...summary.queries.scalars import X_AXES
from ...summary.queries.tensors import SliceError, default_slice, parse_slice, slice_text
from .persist import get_bool, get_dict, get_field, get_int, get_str

Key = tuple[str, str]  # (train id, tag)

MODES = ("offset", "overlay")  # as `widgets.ridgeline.MODES`
MIN_COLUMN_WIDTH = 4
MAX_COLUMN_WIDTH = 24
DEFAULT_COLUMN_WIDTH = 10  # "-1.2345e-5" and a space
WIDTH_STEP = 2  # `+`/`-` change the column width by this much
MAX_REMEMBERED = 500  # places written to the workspace (the most recent choice is always kept)


def dims_text(dims: tuple[int, ...]) -> str:
    return "x".join(str(d) for d in dims) if dims else "scalar"


def checked_slice(text: str, dims: tuple[int, ...]) -> str:
    """The normalised text of `text` on a tensor of shape `dims`; raises SliceError when it does
    not fit or selects more values than a slice may show."""
    index = parse_slice(text, dims)
    count = math.prod(len(range(size)[item]) for item, size in zip(index, dims) if isinstance(item, slice))
    if count > limits.MAX_TENSOR_RESPONSE_VALUES:
        raise SliceError(f"slice has {count:,} values; at most {limits.MAX_TENSOR_RESPONSE_VALUES:,} can be shown")
    return slice_text(index)


def clamp_width(width: int) -> int:
    return max(MIN_COLUMN_WIDTH, min(MAX_COLUMN_WIDTH, int(width)))


def nearest_index(steps: Sequence[int], step: int) -> int:
    """The index of `step` among the sorted `steps`, or of the nearest one (the older on a tie)."""
    i = bisect.bisect_left(steps, step)
    if i >= len(steps) or (i > 0 and steps[i] != step and step - steps[i - 1] <= steps[i] - step):
        i -= 1
    return max(0, min(len(steps) - 1, i))


@dataclass(frozen=True)
class TensorPlace:
    """Where the user is in one tensor."""

    slice: str = ""  # the last good slice, normalised; "": the default slice of the shape
    step: int | None = None  # the step shown; None: the newest, following new steps
    width: int | None = None  # the column width chosen with +/-; None: what the values need
    cursor: tuple[int, int] = (0, 0)  # the table's cell (row, column) in the slice

    def to_json(self) -> dict[str, Any]:
        return {"slice": self.slice, "step": self.step, "width": self.width, "cursor": list(self.cursor)}

    @classmethod
    def from_json(cls, data: Any) -> "TensorPlace":
        cursor = get_field(data, "cursor")
        if not (isinstance(cursor, (list, tuple)) and len(cursor) == 2
                and all(isinstance(v, int) and not isinstance(v, bool) and 0 <= v < 2 ** 31 for v in cursor)):
            cursor = (0, 0)
        width = get_int(data, "width", None, MIN_COLUMN_WIDTH, MAX_COLUMN_WIDTH)
        return cls(get_str(data, "slice", ""), get_int(data, "step", None), width, (cursor[0], cursor[1]))


DEFAULT_PLACE = TensorPlace()


@dataclass(frozen=True)
class TensorsState:
    current: Key | None = None  # the tensor shown
    places: tuple[tuple[Key, TensorPlace], ...] = ()  # per tensor, sorted by key; defaults left out
    histogram: bool = False  # the ridgeline over steps instead of the table
    bands: bool = False  # with `histogram`: the distribution's percentile bands instead of the ridgeline
    mode: str = "offset"  # the ridgeline's mode
    axis: str = "step"  # the ridgeline's step axis
    filter: str = ""  # the tensor list's `/` filter
    slice_error: str = ""  # why the last slice typed was not applied (not remembered)

    # -- derived --------------------------------------------------------------------------------

    def place(self, key: Key | None = None) -> TensorPlace:
        """The place of `key` (the current tensor when None)."""
        key = self.current if key is None else key
        for k, place in self.places:
            if k == key:
                return place
        return DEFAULT_PLACE

    @property
    def following(self) -> bool:
        """The current tensor shows its newest step, and the next one when it arrives."""
        return self.place().step is None

    def slice_for(self, dims: tuple[int, ...]) -> str:
        """The slice text to apply to the current tensor of shape `dims`."""
        return self.place().slice or default_slice(dims)

    def step_index(self, steps: Sequence[int]) -> int | None:
        """The index of the current tensor's step among its kept `steps` (nearest if dropped)."""
        if not len(steps):
            return None
        step = self.place().step
        return len(steps) - 1 if step is None else nearest_index(steps, step)

    def column_width(self, natural: int) -> int:
        """The current tensor's column width; `natural` is what its values need."""
        width = self.place().width
        return clamp_width(natural if width is None else width)

    # -- transitions: which tensor ------------------------------------------------------------

    def choose(self, key: Key) -> "TensorsState":
        key = (key[0], key[1])
        if key == self.current:
            return self
        return replace(self, current=key, slice_error="")

    def resolve(self, keys: Sequence[Key], loading: bool) -> "TensorsState":
        """The first of `keys` when no tensor is chosen, or the chosen one is gone for good (not
        just not read yet: no job is `loading`)."""
        if not keys or self.current in keys or (self.current is not None and loading):
            return self
        return self.choose(keys[0])

    def with_filter(self, text: str) -> "TensorsState":
        return self if text == self.filter else replace(self, filter=text)

    def _with_place(self, place: TensorPlace) -> "TensorsState":
        key = self.current
        if key is None or place == self.place():
            return self
        places = [(k, p) for k, p in self.places if k != key]
        if place != DEFAULT_PLACE:
            places.append((key, place))
        return replace(self, places=tuple(sorted(places, key=lambda item: item[0])))

    # -- transitions: the slice -----------------------------------------------------------------

    def with_slice(self, text: str, dims: tuple[int, ...] | None, why: str = "") -> "TensorsState":
        """Apply `text` to the current tensor, whose shape is `dims` (None: there are no values,
        `why` says why). A slice that does not fit keeps the last good one and says why."""
        if self.current is None:
            return replace(self, slice_error="no tensor shown")
        if dims is None:
            return replace(self, slice_error=f"no values to slice: {why}" if why else "no tensor shown")
        try:
            normal = checked_slice(text, tuple(dims))
        except SliceError as exc:
            return replace(self, slice_error=str(exc))
        # The default slice is remembered as "" so that it follows the shape.
        stored = "" if normal == default_slice(tuple(dims)) else normal
        return replace(self._with_place(replace(self.place(), slice=stored)), slice_error="")

    def fit_slice(self, dims: tuple[int, ...]) -> "TensorsState":
        """The current tensor now has shape `dims` (a step was decoded): a remembered slice that
        no longer fits gives way to the default slice, and the cursor goes home."""
        text = self.place().slice
        if not text:
            return self
        try:
            checked_slice(text, tuple(dims))
        except SliceError as exc:
            state = self._with_place(replace(self.place(), slice="", cursor=(0, 0)))
            return replace(state, slice_error=f"{text} does not fit {dims_text(tuple(dims))} ({exc}): default slice")
        return self

    def reset_slice(self) -> "TensorsState":
        """Back to the default slice."""
        return replace(self._with_place(replace(self.place(), slice="")), slice_error="")

    def clear_slice_error(self) -> "TensorsState":
        return replace(self, slice_error="") if self.slice_error else self

    # -- transitions: steps -----------------------------------------------------------------------

    def step_at(self, steps: Sequence[int], index: int) -> "TensorsState":
        """Show the step at `index` of the kept `steps`; the last one follows new steps."""
        if not len(steps):
            return self
        index = max(0, min(len(steps) - 1, index))
        step = None if index == len(steps) - 1 else int(steps[index])
        return self._with_place(replace(self.place(), step=step))

    def step_prev(self, steps: Sequence[int]) -> "TensorsState":
        i = self.step_index(steps)
        return self if i is None else self.step_at(steps, i - 1)

    def step_next(self, steps: Sequence[int]) -> "TensorsState":
        i = self.step_index(steps)
        return self if i is None else self.step_at(steps, i + 1)

    def step_first(self, steps: Sequence[int]) -> "TensorsState":
        return self.step_at(steps, 0)

    def step_last(self) -> "TensorsState":
        """The newest step, following new ones."""
        return self._with_place(replace(self.place(), step=None))

    # -- transitions: the table -----------------------------------------------------------------

    def wider(self, natural: int = DEFAULT_COLUMN_WIDTH) -> "TensorsState":
        return self._with_place(replace(self.place(), width=clamp_width(self.column_width(natural) + WIDTH_STEP)))

    def narrower(self, natural: int = DEFAULT_COLUMN_WIDTH) -> "TensorsState":
        return self._with_place(replace(self.place(), width=clamp_width(self.column_width(natural) - WIDTH_STEP)))

    def with_cursor(self, cursor: tuple[int, int]) -> "TensorsState":
        cursor = (max(0, int(cursor[0])), max(0, int(cursor[1])))
        return self._with_place(replace(self.place(), cursor=cursor))

    # -- transitions: the histogram -------------------------------------------------------------

    def toggle_histogram(self) -> "TensorsState":
        return replace(self, histogram=not self.histogram)

    def toggle_bands(self) -> "TensorsState":
        """The distribution's bands from the table or the ridgeline; from the bands, the ridgeline."""
        if not self.histogram:
            return replace(self, histogram=True, bands=True)
        return replace(self, bands=not self.bands)

    def next_mode(self) -> "TensorsState":
        return replace(self, mode=MODES[(MODES.index(self.mode) + 1) % len(MODES)])

    def next_axis(self) -> "TensorsState":
        return replace(self, axis=X_AXES[(X_AXES.index(self.axis) + 1) % len(X_AXES)])

    # -- remembered ---------------------------------------------------------------------------

    def to_json(self) -> dict[str, Any]:
        places = list(self.places)
        if len(places) > MAX_REMEMBERED:  # keep the current one and the first others
            places = [item for item in places if item[0] == self.current] + \
                     [item for item in places if item[0] != self.current][:MAX_REMEMBERED - 1]
        return {
            "current": list(self.current) if self.current is not None else None,
            "places": [{"job": k[0], "tag": k[1], **p.to_json()} for k, p in places],
            "histogram": self.histogram,
            "bands": self.bands,
            "mode": self.mode,
            "axis": self.axis,
            "tags": {"filter": self.filter},  # as TagSelection, so `--tags` sets it
        }

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> "TensorsState":
        if not isinstance(data, dict):
            return cls()
        current = data.get("current")
        if not (isinstance(current, (list, tuple)) and len(current) == 2 and all(isinstance(v, str) for v in current)):
            current = None
        places: dict[Key, TensorPlace] = {}
        raw = data.get("places")
        for item in raw if isinstance(raw, list) else []:
            if isinstance(item, dict) and isinstance(item.get("job"), str) and isinstance(item.get("tag"), str):
                place = TensorPlace.from_json(item)
                if place != DEFAULT_PLACE:
                    places[(item["job"], item["tag"])] = place
        return cls(
            current=(current[0], current[1]) if current is not None else None,
            places=tuple(sorted(places.items(), key=lambda item: item[0])),
            histogram=get_bool(data, "histogram", False),
            bands=get_bool(data, "bands", False),
            mode=get_str(data, "mode", "offset", MODES),
            axis=get_str(data, "axis", "step", X_AXES),
            filter=get_str(get_dict(data, "tags"), "filter", ""),
        )
