"""Tensor queries (compat §4.6): the slice grammar, statistics, per-step histograms and number
formatting for the tensor table.

The slice grammar is MindInsight's `dims` parameter: `[` elements `]`, one element per axis,
each an integer (numpy semantics, negative allowed, drops the axis) or `a:b` / `a:b:c` with
every part optional. At most 2 elements may contain `:`. Whitespace around parts is ignored.
Every mistake raises `SliceError`, whose message is meant to be shown as it is.
"""
from __future__ import annotations

import math
import re
from dataclasses import dataclass

import numpy as np

from .. import limits
from ..formats.values import HistogramData, PayloadError, TensorData
from ..store.cache import SummaryCache
from ..store.job_view import JobView
from .histograms import HistogramStep, bin_count

MAX_SLICED_DIMS = 2  # MindInsight's MAX_DIMENSIONS_FOR_TENSOR
MAX_DEFAULT_COLUMNS = 1000  # MindInsight's UI `columnLimitNum`
_INTEGER = re.compile(r"[+-]?\d+")


class SliceError(ValueError):
    """A slice text that cannot be applied; the message says why, for the UI."""


class TensorUnavailable(PayloadError):
    """A kept step whose values are not available (too large to keep, or damaged)."""


# -- slicing --------------------------------------------------------------------------------

def default_slice(dims: tuple[int, ...]) -> str:
    """The slice the table starts with: leading axes at 0, the last two whole.

    As MindInsight's UI, the last axis is cut to its first 1000 values. Unlike it, rows are
    also cut so the default never exceeds the 100,000 values a slice may show.
    """
    dims = tuple(int(d) for d in dims)
    if not dims:
        return "[]"
    cols = dims[-1]
    last = f"0:{MAX_DEFAULT_COLUMNS}" if cols > MAX_DEFAULT_COLUMNS else ":"
    if len(dims) == 1:
        return f"[{last}]"
    shown_cols = max(min(cols, MAX_DEFAULT_COLUMNS), 1)
    max_rows = limits.MAX_TENSOR_RESPONSE_VALUES // shown_cols
    rows = f"0:{max_rows}" if dims[-2] > max_rows else ":"
    return "[" + ",".join(["0"] * (len(dims) - 2) + [rows, last]) + "]"


def _parse_int(text: str, what: str) -> int:
    if not _INTEGER.fullmatch(text):
        raise SliceError(f"{what} {text!r} is not an integer")
    return int(text)


def _parse_element(text: str, position: int) -> int | slice:
    text = text.strip()
    if not text:
        raise SliceError(f"element {position + 1} is empty: write an index such as 0, or ':'")
    if ":" not in text:
        return _parse_int(text, "index")
    parts = [p.strip() for p in text.split(":")]
    if len(parts) > 3:
        raise SliceError(f"{text!r} is not a slice: use start:stop or start:stop:step")
    start, stop, step = (None if not p else _parse_int(p, "slice bound") for p in parts + [""] * (3 - len(parts)))
    if step == 0:
        raise SliceError(f"{text!r}: the slice step cannot be 0")
    return slice(start, stop, step)


def parse_slice(text: str, dims: tuple[int, ...]) -> tuple[int | slice, ...]:
    """The index tuple for `text` on a tensor of shape `dims`; raises SliceError."""
    if not isinstance(text, str):
        raise SliceError("the slice must be text such as [0, :, :]")
    stripped = text.strip()
    if not stripped:
        raise SliceError("the slice is empty: write one element per dimension in brackets, e.g. "
                         + default_slice(dims))
    if not (stripped.startswith("[") and stripped.endswith("]")) or len(stripped) < 2:
        raise SliceError(f"write the slice in brackets, e.g. {default_slice(dims)}")
    inner = stripped[1:-1]
    elements = inner.split(",") if inner.strip() else []
    if sum(":" in e for e in elements) > MAX_SLICED_DIMS:
        raise SliceError(f"at most {MAX_SLICED_DIMS} dimensions may be sliced with ':'")
    index = tuple(_parse_element(e, k) for k, e in enumerate(elements))
    if len(index) != len(dims):
        raise SliceError(f"expected {len(dims)} dimension{'' if len(dims) == 1 else 's'}, got {len(index)}")
    for axis, (item, size) in enumerate(zip(index, dims)):
        if isinstance(item, int) and not -size <= item < size:
            raise SliceError(f"index {item} out of range for dimension {axis} (size {size})")
    return index


def slice_text(index: tuple[int | slice, ...]) -> str:
    """The normalised text of an index tuple, in MindInsight's style: `[0,:,1:10]`."""
    def part(item: int | slice) -> str:
        if isinstance(item, int):
            return str(item)
        text = ("" if item.start is None else str(item.start)) + ":" + ("" if item.stop is None else str(item.stop))
        return text if item.step is None else f"{text}:{item.step}"
    return "[" + ",".join(part(item) for item in index) + "]"


@dataclass(frozen=True)
class TensorSlice:
    """The values a slice text selects of a tensor, with their original indices."""

    data: np.ndarray  # 0-, 1- or 2-D float64 view of the selected values
    row_index: np.ndarray  # original indices along the first free (sliced) axis; empty if none
    col_index: np.ndarray  # original indices along the second free axis; empty if none
    text: str  # normalised slice text


def apply_slice(array: np.ndarray, text: str) -> TensorSlice:
    """The values of `array` selected by `text`; raises SliceError (also past 100,000 values)."""
    array = np.asarray(array, dtype=np.float64)
    index = parse_slice(text, array.shape)
    # Ranges, not arrays, until the count is checked: an axis may be huge beside an empty one.
    free = [range(size)[item] for item, size in zip(index, array.shape) if isinstance(item, slice)]
    count = math.prod(len(f) for f in free)
    if count > limits.MAX_TENSOR_RESPONSE_VALUES:
        raise SliceError(f"slice has {count:,} values; at most {limits.MAX_TENSOR_RESPONSE_VALUES:,} can be shown")
    positions = [np.arange(f.start, f.stop, f.step, dtype=np.int64) if len(f) else np.empty(0, dtype=np.int64)
                 for f in free]
    empty = np.empty(0, dtype=np.int64)
    return TensorSlice(np.asarray(array[index]),
                       positions[0] if positions else empty,
                       positions[1] if len(positions) > 1 else empty,
                       slice_text(index))


# -- statistics -----------------------------------------------------------------------------

def statistics(array: np.ndarray) -> dict:
    """MindInsight's tensor statistics, computed with NaN/Inf left out.

    Keys (MindInsight's response names in brackets; the `overall_` names are the whole tensor's):
      max, min      [max, min]: over finite values; 0 if there are none
      avg           [avg]: float64 sum of finite values / their number; 0 if there are none
      count         [count]: every element, NaN/Inf included
      nan_count, pos_inf_count, neg_inf_count   [same names]
      zero_count    [overall_zero_count]: finite values == 0
      neg_count     [overall_neg_zero_count]: finite values < 0
      pos_count     [overall_pos_zero_count]: finite values > 0
    """
    array = np.asarray(array, dtype=np.float64)
    finite = np.isfinite(array)
    valid = int(np.count_nonzero(finite))
    stats = {
        "max": 0.0, "min": 0.0, "avg": 0.0,
        "count": int(array.size),
        "nan_count": int(np.count_nonzero(np.isnan(array))),
        "pos_inf_count": int(np.count_nonzero(np.isposinf(array))),
        "neg_inf_count": int(np.count_nonzero(np.isneginf(array))),
        "zero_count": 0, "neg_count": 0, "pos_count": 0,
    }
    if valid:
        values = array[finite]
        # Same summation as MindInsight (a masked array filled with 0, summed whole), same rounding.
        total = np.where(finite, array, 0.0).sum(dtype=np.float64)
        stats.update(max=float(values.max()), min=float(values.min()), avg=float(total / valid),
                     zero_count=int(np.count_nonzero(values == 0)),
                     neg_count=int(np.count_nonzero(values < 0)),
                     pos_count=int(np.count_nonzero(values > 0)))
    return stats


# -- steps ----------------------------------------------------------------------------------

def tensor_at(cache: SummaryCache, view: JobView, tag: str, i: int) -> TensorData:
    """The tensor of kept step number `i` of `tag`; raises PayloadError if the file changed."""
    series = view.series("tensor", tag)
    if series is None or not -len(series) <= i < len(series):
        raise PayloadError(f"tensor {tag!r} has no kept step number {i}")
    return cache.payloads.tensor(view.locator(series, i))


def tensor_histogram(array: np.ndarray) -> HistogramData:
    """A tensor's values as MindInsight buckets them at load: f(finite count) bins (at most 30)
    from min to max (widened by 0.5 each side if equal), counted with numpy."""
    array = np.asarray(array, dtype=np.float64)
    stats = statistics(array)
    values = array[np.isfinite(array)]
    buckets = np.zeros((0, 3))
    if values.size:
        lo, hi = stats["min"], stats["max"]
        if not lo < hi:
            lo, hi = lo - 0.5, hi + 0.5
        bins = bin_count(values.size)
        if math.isfinite(hi - lo):
            counts, edges = np.histogram(values, bins=np.linspace(lo, hi, bins + 1))
        else:  # values near both ends of float64: their span overflows, half of it does not
            halves = np.linspace(lo / 2, hi / 2, bins + 1)
            counts, _ = np.histogram(values / 2, bins=halves)
            edges = halves * 2
        buckets = np.column_stack((edges[:-1], edges[1:] - edges[:-1], counts.astype(np.float64)))
    return HistogramData(buckets, stats["nan_count"], stats["pos_inf_count"], stats["neg_inf_count"],
                         stats["min"], stats["max"])


def tensor_histogram_steps(cache: SummaryCache, view: JobView, tag: str) -> list[HistogramStep]:
    """Every kept step of tensor `tag` as a histogram, for `histograms.rebin` to draw as a ridgeline.

    Raises TensorUnavailable (a PayloadError) naming the step if a step's values were not kept
    (over 10,000,000 elements) or cannot be read; MindInsight refuses the whole request too.
    """
    series = view.series("tensor", tag)
    if series is None:
        return []
    locators = [view.locator(series, i) for i in range(len(series))]
    cache.payloads.prefetch("tensor", locators)  # remote: two requests, not one or two a step
    steps = []
    for i, loc in enumerate(locators):
        step = int(series.steps[i])
        try:
            tensor = cache.payloads.tensor(loc)
        except PayloadError as exc:
            raise TensorUnavailable(f"step {step}: {exc}") from exc
        if tensor.array is None:
            raise TensorUnavailable(f"step {step}: {tensor.reason}")
        steps.append(HistogramStep(step, float(series.wall_times[i]), tensor_histogram(tensor.array)))
    return steps


# -- display --------------------------------------------------------------------------------

def format_value(x: float, width: int) -> str:
    """`x` in at most `width` characters, as precise as fits; `#` * width if nothing fits.

    NaN and infinities stay distinct: "nan", "inf", "-inf". The result is not padded.
    """
    width = max(int(width), 0)
    x = float(x)
    if math.isnan(x):
        text = "nan"
    elif math.isinf(x):
        text = "inf" if x > 0 else "-inf"
    else:
        text = _compact(repr(x))
        if text.endswith(".0") and len(text) > width:
            text = text[:-2]
        if len(text) > width:
            # '%.pg' with p > width fits only if its trailing zeros were dropped, and then
            # '%.{width}g' gives the same text: start there (the table formats every cell).
            for precision in range(min(17, max(width, 1)), 0, -1):
                text = _compact(f"{x:.{precision}g}")
                if len(text) <= width:
                    break
    return text if len(text) <= width else "#" * width


def _compact(text: str) -> str:
    """`1.5e+07` -> `1.5e7`, `2e-05` -> `2e-5`: exponents without their padding."""
    if "e" not in text:
        return text
    mantissa, exponent = text.split("e")
    return f"{mantissa}e{int(exponent)}"
