"""What a job holds that no view shows, counted, so every surface can say so.

Two things go unshown. Kinds of data without a view: TensorBoard plugins we do not draw
(audio, mesh, any plugin we do not know) and projector embeddings
(`projector_config.pbtxt`). And tags left out under the tag limits (`limits.py`: 300 a job,
6 tensor tags, 10 graphs): the earliest-seen leave, their later values are not read.

`NotShown` is the account (`JobView.not_shown`); `notes()` gives one problem string per entry
(in `JobView.problems`, what the exporter and the logs read), `brief()` the dashboard's line.
It is plain data, stored in the disk cache's snapshots as `to_json()`.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from .. import limits

EXAMPLES = 3  # tag names kept per kind, for the notes
MAX_KINDS = 20  # kinds named one by one; a file naming more plugins has the rest counted together
MORE_KINDS = "other plugins"
MAX_NAME = 80  # characters of a kind's or tag's name kept (names come from files)
EMBEDDINGS = "embeddings"
# MindSpore histograms with more buckets than MindInsight draws are left out, step by step.
WIDE_HISTOGRAMS = f"histograms over {limits.MAX_HISTOGRAM_BUCKETS} buckets"
_UNITS = {EMBEDDINGS: "tensor", WIDE_HISTOGRAMS: "step"}
# Kinds no view draws but one describes (queries/described.py: a clip's rate and waveform, a
# mesh's counts and bounds, an embedding's shape): still counted here, as not drawn.
DESCRIBED = ("audio", "mesh", EMBEDDINGS)  # what a kind counts (else tags)


@dataclass(frozen=True)
class UnshownKind:
    """Data of a kind no view shows."""

    kind: str  # the plugin as written ("pr_curves", "audio", "mesh", ...) or "embeddings"
    count: int  # tags (embeddings: tensors; wide histograms: steps)
    examples: tuple[str, ...] = ()  # the first few tags (embeddings: "name 20x5")


@dataclass(frozen=True)
class LeftOut:
    """Tags of one plugin left out under one tag limit."""

    plugin: str  # "scalar", "histogram", "tensor", "image", "graph", ...
    count: int
    limit: int  # the limit that left them out (`limits.MAX_TAGS` or the plugin's own)


@dataclass(frozen=True)
class NotShown:
    """What a job holds that is not shown: kinds of data, and tags left out by the limits."""

    kinds: tuple[UnshownKind, ...] = ()
    left_out: tuple[LeftOut, ...] = ()

    def __bool__(self) -> bool:
        return bool(self.kinds or self.left_out)

    def __len__(self) -> int:
        """Entries: kinds, and limits that left tags out (what the job list's mark counts)."""
        return len(self.kinds) + len(self._by_limit())

    def _by_limit(self) -> dict[tuple[int, str], int]:
        """(limit, plugin) -> tags left out; the job's overall limit summed over plugins (plugin "")."""
        totals: dict[tuple[int, str], int] = {}
        for entry in self.left_out:
            key = (entry.limit, "" if entry.limit == limits.MAX_TAGS else entry.plugin)
            totals[key] = totals.get(key, 0) + entry.count
        return totals

    def described(self) -> tuple[str, ...]:
        """The kinds held that a view describes (`DESCRIBED`), in the account's order."""
        return tuple(k.kind for k in self.kinds if k.kind in DESCRIBED)

    def brief(self) -> str:
        """One short line: "pr_curves 2 tags, audio 1 · 20 tags over the 300 limit"."""
        kinds = ", ".join(f"{k.kind} {k.count}{' ' + _unit(k, k.count) if i == 0 or k.kind in _UNITS else ''}"
                          for i, k in enumerate(self.kinds))
        limits = ", ".join(f"{n} {_tags_of(plugin, n)} over the {limit} limit"
                           for (limit, plugin), n in self._by_limit().items())
        return " · ".join(part for part in (kinds, limits) if part)

    def notes(self) -> list[str]:
        """One problem string per entry, naming the first few tags."""
        notes = []
        for k in self.kinds:
            # Steps are counted, not tags: a full list of examples may have more tags after it.
            more = len(k.examples) >= EXAMPLES if k.kind == WIDE_HISTOGRAMS else k.count > len(k.examples)
            names = ", ".join(k.examples) + (", …" if more else "")
            described = ", described, not drawn" if k.kind in DESCRIBED else ""
            notes.append(f"not shown: {k.kind} data, {k.count} {_unit(k, k.count)}{described} ({names})" if names
                         else f"not shown: {k.kind} data, {k.count} {_unit(k, k.count)}{described}")
        for entry in self.left_out:
            notes.append(f"not shown: {entry.count} {_tags_of(entry.plugin, entry.count)} over the "
                         f"limit of {entry.limit} (the earliest seen left out)")
        return notes

    def to_json(self) -> dict[str, Any]:
        return {"kinds": [[k.kind, k.count, list(k.examples)] for k in self.kinds],
                "left_out": [[e.plugin, e.count, e.limit] for e in self.left_out]}

    @classmethod
    def from_json(cls, data: Any) -> NotShown:
        """`to_json`'s data back; ValueError when it is not such data."""
        if data == _EMPTY_JSON:  # most jobs (a warm start reads thousands)
            return NOTHING
        try:
            kinds = tuple(UnshownKind(kind, count, tuple(examples)) for kind, count, examples in data["kinds"])
            left_out = tuple(LeftOut(plugin, count, limit) for plugin, count, limit in data["left_out"])
        except (TypeError, KeyError, ValueError) as exc:
            raise ValueError(f"not a NotShown: {exc}") from exc
        if not all(type(k.kind) is str and type(k.count) is int and all(type(e) is str for e in k.examples)
                   for k in kinds) or not all(type(e.plugin) is str and type(e.count) is int and type(e.limit) is int
                                              for e in left_out):
            raise ValueError("not a NotShown: field types")
        return cls(kinds, left_out)

    def as_records(self) -> list[dict[str, Any]]:
        """One plain object per entry (`--summary --json`)."""
        return ([{"kind": k.kind, "count": k.count, "unit": _unit(k, k.count), "examples": list(k.examples)}
                 for k in self.kinds]
                + [{"kind": "over_tag_limit", "plugin": e.plugin, "count": e.count, "unit": _plural(e.count, "tag"),
                    "limit": e.limit} for e in self.left_out])


NOTHING = NotShown()  # a job holding nothing unshown (a default for frozen dataclasses)
_EMPTY_JSON = NOTHING.to_json()


def _cut(name: str) -> str:
    return name if len(name) <= MAX_NAME else name[:MAX_NAME - 1] + "…"


def _tags_of(plugin: str, count: int) -> str:
    """"scalar tags", "graphs" (a graph is a file, not a tag), "tags" (any plugin: plugin "")."""
    if plugin == "graph":
        return _plural(count, "graph")
    return f"{plugin} {_plural(count, 'tag')}" if plugin else _plural(count, "tag")


def _unit(kind: UnshownKind, count: int) -> str:
    return _plural(count, _UNITS.get(kind.kind, "tag"))


def _plural(count: int, word: str) -> str:
    return word if count == 1 else word + "s"


class NotShownBook:
    """The loader's running count of what a job holds unshown (kinds from its event files;
    tags left out by limit), from which each published view's `NotShown` is made."""

    def __init__(self) -> None:
        self.kinds: dict[str, list] = {}  # kind -> [tags, [the first EXAMPLES tags]]
        self.left_out: dict[tuple[str, int], int] = {}  # (plugin, limit) -> tags

    def saw(self, kind: str, tag: str) -> None:
        """A tag of `kind` seen for the first time."""
        kind = _cut(kind)
        if kind not in self.kinds and len(self.kinds) >= MAX_KINDS:
            kind = MORE_KINDS
        entry = self.kinds.setdefault(kind, [0, []])
        entry[0] += 1
        if len(entry[1]) < EXAMPLES:
            entry[1].append(_cut(tag))

    def saw_value(self, kind: str, tag: str) -> None:
        """A value of `tag` left out (counted by value: `WIDE_HISTOGRAMS`)."""
        entry = self.kinds.setdefault(kind, [0, []])
        entry[0] += 1
        tag = _cut(tag)
        if len(entry[1]) < EXAMPLES and tag not in entry[1]:
            entry[1].append(tag)

    def left(self, plugin: str, limit: int) -> None:
        self.left_out[(plugin, limit)] = self.left_out.get((plugin, limit), 0) + 1

    def account(self, extra_kinds: tuple[UnshownKind, ...] = (), extra_left_out: tuple[LeftOut, ...] = ()) -> NotShown:
        kinds = tuple(UnshownKind(kind, count, tuple(examples)) for kind, (count, examples) in self.kinds.items())
        left_out = tuple(LeftOut(plugin, count, limit) for (plugin, limit), count in self.left_out.items())
        return NotShown(kinds + extra_kinds, left_out + extra_left_out)

    @classmethod
    def of(cls, account: NotShown, skip_kinds: tuple[str, ...] = (), skip_plugins: tuple[str, ...] = ()) -> NotShownBook:
        """A book counting on from `account` (a snapshot's), without what is worked out again
        on each refresh (`skip_kinds`, `skip_plugins`)."""
        book = cls()
        for k in account.kinds:
            if k.kind not in skip_kinds:
                book.kinds[k.kind] = [k.count, list(k.examples)]
        for e in account.left_out:
            if e.plugin not in skip_plugins:
                book.left_out[(e.plugin, e.limit)] = e.count
        return book
