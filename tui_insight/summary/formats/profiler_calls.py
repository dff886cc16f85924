"""A profile's calls: `execute_timestamp` files parsed (a million entries in a vectorised pass
where the file has the usual shape, line by line where it has not) into `Calls`."""
from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from ..numbers import INT64_MAX, BadNumber, finite, whole


@dataclass(frozen=True)
class Calls:
    """Every timed call of every op: op `i`'s calls are `starts[offsets[i]:offsets[i+1]]` (in
    time order), `names[i]` its full name."""

    names: tuple[str, ...] = ()
    offsets: np.ndarray = field(default_factory=lambda: np.zeros(1, dtype=np.int64))
    starts: np.ndarray = field(default_factory=lambda: np.zeros(0, dtype=np.int64))  # ns
    durations: np.ndarray = field(default_factory=lambda: np.zeros(0, dtype=np.float64))  # ms

    def __len__(self) -> int:
        return int(self.starts.size)

    def index(self, full_name: str) -> int | None:
        lookup = self.__dict__.get("_lookup")
        if lookup is None:
            lookup = {name: i for i, name in enumerate(self.names)}
            object.__setattr__(self, "_lookup", lookup)
        return lookup.get(full_name)

    def of(self, full_name: str) -> tuple[np.ndarray, np.ndarray]:
        """(starts ns, durations ms) of one op's calls; empty arrays when it has none."""
        i = self.index(full_name)
        if i is None:
            return self.starts[:0], self.durations[:0]
        lo, hi = int(self.offsets[i]), int(self.offsets[i + 1])
        return self.starts[lo:hi], self.durations[lo:hi]


def parse_execute_timestamps(text: str, label: str, problems: list[str]) -> Calls:
    """`<full name>;<kind>;<start ns>,<duration ms>,<x> <start>,<dur>,<x> ...` one line per op."""
    names: list[str] = []
    counts: list[int] = []
    bodies: list[str] = []
    bad = 0
    cut = not text.endswith("\n")
    lines = text.splitlines()
    for number, line in enumerate(lines):
        parts = line.split(";", 2)
        if len(parts) < 3:
            bad += bool(line.strip())
            continue
        body = " ".join(parts[2].split()) if "  " in parts[2].strip() or "\t" in parts[2] else parts[2].strip()
        n = body.count(" ") + 1 if body else 0
        if body and (body.count(",") != 2 * n or body.endswith(",")):
            entries = [e for e in body.split(" ") if e.count(",") == 2 and not e.endswith(",")]
            if number == len(lines) - 1 and cut:
                problems.append(f"{label}: the last line is cut short (file truncated?)")
            else:
                bad += 1
            body, n = " ".join(entries), len(entries)
        names.append(parts[0])
        counts.append(n)
        if n:
            bodies.append(body)
    start_ns, duration_ms = _parse_entries(" ".join(bodies))
    if bad:
        problems.append(f"{label}: {bad} malformed line{'s' if bad != 1 else ''} skipped")
    usable = _usable_calls(start_ns, duration_ms)
    if not usable.all():
        left_out = int(usable.size - usable.sum())
        problems.append(f"{label}: {left_out} call{'s' if left_out != 1 else ''} left out "
                        "(a start or duration that is not a number, negative or too large)")
        op = np.repeat(np.arange(len(counts)), counts)
        counts = np.bincount(op[usable], minlength=len(counts)).tolist()
        start_ns, duration_ms = start_ns[usable], duration_ms[usable]
    offsets = np.zeros(len(counts) + 1, dtype=np.int64)
    np.cumsum(counts, out=offsets[1:])
    # merge lines of the same op (a file cut and appended) and keep each op's calls in time order
    if len(set(names)) != len(names) or not _sorted_within(start_ns, offsets):
        return _regroup(names, offsets, start_ns, duration_ms)
    return Calls(tuple(names), offsets, start_ns, duration_ms)


def _parse_entries(body: str) -> tuple[np.ndarray, np.ndarray]:
    """`ts,dur,x ts,dur,x ...` (single spaces) -> (ts int64, dur float64); an entry whose numbers
    cannot be read gets start -1 (`_usable_calls` leaves it out)."""
    if not body:
        return np.zeros(0, np.int64), np.zeros(0, np.float64)
    fast = _parse_entries_fast(body)
    if fast is not None:
        return fast
    flat = body.replace(" ", ",").split(",")  # the slow, plain way (odd number formats)
    starts, durations = [], []
    for start, duration in zip(flat[0::3], flat[1::3]):
        try:
            numbers = whole(start, "start"), finite(duration, "duration", 0)
        except BadNumber:
            numbers = -1, 0.0
        starts.append(numbers[0])
        durations.append(numbers[1])
    return np.array(starts, dtype=np.int64), np.array(durations, dtype=np.float64)


def _usable_calls(start_ns: np.ndarray, duration_ms: np.ndarray) -> np.ndarray:
    """Which calls have a start (ns, an int64) and a duration (ms, finite, not negative) whose
    end in ns is an int64 too (step times add them)."""
    with np.errstate(over="ignore", invalid="ignore"):
        end = start_ns.astype(np.float64) + duration_ms * 1e6
        return (start_ns >= 0) & (duration_ms >= 0) & np.isfinite(duration_ms) & (end < float(INT64_MAX))


_POW10 = 10.0 ** np.arange(23)
_CHUNK = 1 << 18  # entries per vectorised block (bounds the temporary digit matrices)


def _parse_entries_fast(body: str) -> tuple[np.ndarray, np.ndarray] | None:
    """The same, vectorised over the bytes: integer starts of up to 19 digits, durations written
    `123.456` (no sign, no exponent; 15 digits at most). None when the text has anything else
    (the caller then parses it the slow way). Each duration is the correctly rounded double of
    its decimal text, as `float()` gives it (an integer mantissa below 2**53 divided by an exact
    power of ten). Starts of 19 digits must begin with a digit up to 8 (below 9e18: an int64)."""
    try:
        raw = body.encode("ascii")
    except UnicodeEncodeError:
        return None
    arr = np.frombuffer(raw + b" " * 20, dtype=np.uint8)  # padding: digit windows never run off the end
    size = len(raw)
    spaces = np.flatnonzero(arr[:size] == 32)
    commas = np.flatnonzero(arr[:size] == 44)
    n = spaces.size + 1
    if commas.size != 2 * n:
        return None
    starts = np.empty(n, dtype=np.int64)
    starts[0] = 0
    starts[1:] = spaces + 1
    ends = np.empty(n, dtype=np.int64)
    ends[:-1] = spaces
    ends[-1] = size
    c1, c2 = commas[0::2], commas[1::2]
    if not (np.all(starts < c1) and np.all(c1 + 1 < c2) and np.all(c2 < ends)):
        return None
    width = c1 - starts
    if width.max() > 19 or np.any(arr[starts[width == 19]] > 56):
        return None
    d_width = c2 - c1 - 1
    if d_width.max() > 16:
        return None
    ts = np.empty(n, dtype=np.int64)
    durations = np.empty(n, dtype=np.float64)
    high = 10 ** np.arange(9, -1, -1, dtype=np.int64)  # the first 10 of 19 right-aligned digits
    low = 10 ** np.arange(8, -1, -1, dtype=np.int64)
    cols19 = np.arange(19)
    dw = int(d_width.max())
    cols_d = np.arange(dw)
    for lo in range(0, n, _CHUNK):
        hi = min(n, lo + _CHUNK)
        # starts: a right-aligned window of 19 characters ending at the first comma
        w = width[lo:hi]
        window = arr[(c1[lo:hi, None] - 19) + cols19]
        keep = cols19 >= (19 - w)[:, None]
        digits = np.where(keep, window.astype(np.int16) - 48, 0)
        if np.any((digits < 0) | (digits > 9)):
            return None
        ts[lo:hi] = (digits[:, :10].astype(np.int64) @ high) * 1_000_000_000 + digits[:, 10:].astype(np.int64) @ low
        # durations: a left-aligned window after the first comma
        dwid = d_width[lo:hi]
        chars = arr[(c1[lo:hi, None] + 1) + cols_d].astype(np.int16)
        inside = cols_d < dwid[:, None]
        dot = inside & (chars == 46)
        digit = inside & ~dot
        if np.any(digit & ((chars < 48) | (chars > 57))) or np.any(dot.sum(axis=1) > 1):
            return None
        count = digit.sum(axis=1)
        if np.any(count > 15):
            return None
        right = count[:, None] - np.cumsum(digit, axis=1)  # digits to the right of each digit
        mantissa = (np.where(digit, chars - 48, 0) * _POW10[np.where(digit, right, 0)]).sum(axis=1)
        decimals = (digit & (np.cumsum(dot, axis=1) > 0)).sum(axis=1)
        durations[lo:hi] = mantissa / _POW10[decimals]
    return ts, durations


def _sorted_within(starts: np.ndarray, offsets: np.ndarray) -> bool:
    if starts.size < 2:
        return True
    backwards = np.diff(starts) < 0
    boundaries = offsets[1:-1] - 1
    backwards[boundaries[(boundaries >= 0) & (boundaries < backwards.size)]] = False
    return not bool(backwards.any())


def _regroup(names: list[str], offsets: np.ndarray, starts: np.ndarray, durations: np.ndarray) -> Calls:
    unique: dict[str, int] = {}
    op = np.empty(starts.size, dtype=np.int64)
    for i, name in enumerate(names):
        op[offsets[i]:offsets[i + 1]] = unique.setdefault(name, len(unique))
    order = np.lexsort((starts, op))
    counts = np.bincount(op, minlength=len(unique))
    new_offsets = np.zeros(len(unique) + 1, dtype=np.int64)
    np.cumsum(counts, out=new_offsets[1:])
    return Calls(tuple(unique), new_offsets, starts[order], durations[order])


def step_count(calls: Calls) -> int:
    """The number of steps: the most common number of calls per op (graph mode: one per step)."""
    if not calls.names:
        return 0
    counts = np.diff(calls.offsets)
    counts = counts[counts > 0]
    if not counts.size:
        return 0
    values, freq = np.unique(counts, return_counts=True)
    best = values[freq == freq.max()]
    return int(best.min())
