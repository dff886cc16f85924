"""Routed values: what a format's router makes of one event, the same for every format.

A router (`mindspore.MindSporeRouter`, `tensorboard.TensorBoardRouter`) turns a decoded event
into a `RoutedEvent`: its step and wall time, whether it restarts the run or holds a graph, per
value its plugin, its tag and where its payload is (the value's index in the event; the
record's offset is the reader's), and beside them the scalars' numbers. The values of events of
one layout are the same objects event after event; only the numbers are new. The store's loader and the
all-steps export take routed values only; payloads are decoded later, when asked for, by
`payloads.value_decoder` from the value at that index.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, NamedTuple, Protocol


# The plugins TensorBoard's values are routed to (`tensorboard.TensorBoardRouter`).
PLUGINS = ("scalar", "histogram", "image", "tensor", "text", "pr_curve", "hparams", "graph", "other")
CUSTOM_SCALARS = "custom_scalars"  # the plugin name a custom scalars layout is written with (custom_scalars.py)


@dataclass(frozen=True)
class Problem:
    """Why a record or value could not be read; the text is fit for the UI."""

    text: str

    def __str__(self) -> str:
        return self.text


# NamedTuples: a file holds one event per scalar (tensorboardX, torch), made by the million.
class RoutedValue(NamedTuple):
    plugin: str  # one of `PLUGINS`, or "loss_landscape" (MindSpore)
    tag: str
    index: int  # type: ignore[assignment]  # (shadows tuple.index) the value's position in the event: where its payload is
    written: str = ""  # the plugin name as written ("pr_curves"; "audio" for Summary.Audio), for "other"
    samples: int = 1  # images the value holds (an images-plugin tensor may hold several)
    # What the router read at once from a value that is not a tag's step: an hparams record,
    # a custom scalars layout, or the `Problem` (or text) saying why it cannot be read.
    data: Any = None
    left_out: str = ""  # why the value is not loaded though its tag is (a histogram over the limit)


class RoutedEvent(NamedTuple):
    step: int
    wall_time: float
    values: tuple[RoutedValue, ...] = ()
    numbers: tuple[float | None, ...] = ()  # by value: a scalar's number, None for the others
    graph: bool = False  # the record holds a graph (the graph readers read it by offset)
    problems: tuple[Problem, ...] = ()  # values of this event that could not be read
    # A SessionLog START (torch's and tensorboardX's `purge_step`): TensorBoard drops every
    # tag's steps >= `step` read before it.
    restart: bool = False
    # Equal for events whose values route alike (the same values, plugins and tags, each a tag's
    # step: no hparams, layouts or "other"), when the router knows it: the reader plans them once.
    layout: Any = None


class Router(Protocol):
    """A format's router: `decode` parses a record's payload (None if it is no event of the
    format), `route` turns the event into routed values. One per job: a router may remember
    what earlier events said (TensorBoard names a tag's plugin on its first value only)."""

    def decode(self, payload: bytes) -> Any | None: ...

    def route(self, event: Any) -> RoutedEvent: ...
