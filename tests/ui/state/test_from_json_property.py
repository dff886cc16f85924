"""Every state's `from_json` takes any JSON value without raising (the workspace file is the
user's, and can be damaged or hand-edited): a value of the wrong type or out of range gives the
default. A property test over JSON values: at the keys each state reads, and anything else."""
from __future__ import annotations

import json
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tui_insight.ui.state.custom_scalars import CustomScalarsState
from tui_insight.ui.state.described import DescribedState
from tui_insight.ui.state.graph import GraphState
from tui_insight.ui.state.histograms import HistogramsState, RidgeCursor
from tui_insight.ui.state.images import ImagesState
from tui_insight.ui.state.jobs import JobListState
from tui_insight.ui.state.landscape import LandscapeState
from tui_insight.ui.state.lineage import LineageState
from tui_insight.ui.state.pr_curves import PrCurvesState
from tui_insight.ui.state.profiler import ProfilerState
from tui_insight.ui.state.runs import RunsState
from tui_insight.ui.state.scalars import ChartSettings, ScalarsState
from tui_insight.ui.state.tags import TagSelection
from tui_insight.ui.state.tensors import TensorPlace, TensorsState
from tui_insight.ui.state.text import TextState

STATES = [GraphState, HistogramsState, RidgeCursor, ImagesState, JobListState, LandscapeState,
          LineageState, ProfilerState, RunsState, ChartSettings, ScalarsState, TagSelection,
          TensorPlace, TensorsState, TextState, PrCurvesState, DescribedState, CustomScalarsState]


class KeysRead(dict):
    """An empty dict that notes the keys `from_json` asks it for."""

    def __init__(self) -> None:
        super().__init__()
        self.read: set[str] = set()

    def get(self, key: Any, default: Any = None) -> Any:
        self.read.add(key)
        return super().get(key, default)

    def __getitem__(self, key: Any) -> Any:
        self.read.add(key)
        return super().__getitem__(key)

    def __contains__(self, key: object) -> bool:
        self.read.add(key)
        return super().__contains__(key)


def keys_read(cls) -> set[str]:
    probe = KeysRead()
    cls.from_json(probe)
    return {key for key in probe.read if isinstance(key, str)}


KEYS = sorted(set().union(*(keys_read(cls) for cls in STATES)))
# Keys of every state, at every level (a state's nested entries are other states' dicts), and others.
key = st.sampled_from(KEYS) | st.text(max_size=4)
scalar = (st.none() | st.booleans() | st.integers() | st.integers(min_value=-2 ** 70, max_value=2 ** 70)
          | st.floats(allow_nan=False, allow_infinity=False) | st.sampled_from([1e308, -1e308, 0.0, -0.0])
          | st.text(max_size=8) | st.sampled_from(KEYS))
json_value = st.recursive(scalar, lambda inner: st.lists(inner, max_size=4) | st.dictionaries(key, inner, max_size=5),
                          max_leaves=20)


@pytest.mark.parametrize("cls", STATES, ids=lambda cls: cls.__name__)
@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.dictionaries(key, json_value, max_size=8) | json_value)
def test_from_json_takes_any_json_value(cls, data):
    state = cls.from_json(data)
    json.dumps(state.to_json(), allow_nan=False)  # what it keeps can be written back


WRONG = [None, True, 0, 1, -1, 2 ** 64, 1.5, 1e308, "", "x", [], [1], ["a", 1], [1, 2], ["a", "b"],
         [[1, 2]], {}, {"x": 1}, {"selected": 1}]


@pytest.mark.parametrize("cls", STATES, ids=lambda cls: cls.__name__)
def test_every_key_of_every_type(cls):
    """Each key a state reads, given a value of each JSON type (`{"graph": 1}` was a TypeError)."""
    keys = keys_read(cls)
    assert keys or cls is RidgeCursor, f"the probe sees no key {cls.__name__} reads"  # RidgeCursor: a list
    for data in [*WRONG, *({name: value} for name in keys for value in WRONG)]:
        state = cls.from_json(data)
        json.dumps(state.to_json(), allow_nan=False)
