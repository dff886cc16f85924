"""Which of the compared runs a comparison dashboard shows, and which of its panels are open.

The runs are a `TagSelection` over the compared train ids, in the order they were compared (the
order that gives each its colour): a run switched off stays off when the dashboard is opened
again, and the name filter narrows the runs shown the way `/` narrows a tag list. A run is shown
when it is switched on and the filter lets it through; every view of the dashboard draws only
those. The run panel (`R`) lists them; the diff panel (`D`) compares their lineage.
"""
from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Any, Sequence

from .persist import get_bool, get_dict
from .tags import TagSelection


@dataclass(frozen=True)
class RunsState:
    runs: TagSelection = field(default_factory=TagSelection)  # tags: the compared train ids, in order
    panel: bool = False  # the run panel is open
    diff: bool = False  # the lineage diff panel is open

    @classmethod
    def of(cls, train_ids: Sequence[str], saved: Any = None) -> "RunsState":
        """The state of a dashboard comparing `train_ids`, from what the workspace remembered."""
        state = cls.from_json(saved)
        return replace(state, runs=state.runs.with_tags(tuple(train_ids)))

    # -- derived --------------------------------------------------------------------------------

    @property
    def compared(self) -> tuple[str, ...]:
        return self.runs.tags

    def visible(self) -> tuple[str, ...]:
        """The runs the views draw: switched on and let through by the filter, in compared order."""
        return self.runs.visible()

    def describe(self) -> str:
        """"2 of 3 runs shown", and why none is when none is."""
        shown = self.visible()
        if shown:
            return f"{len(shown)} of {len(self.compared)} runs shown"
        if not self.runs.shown():
            return f"no run matches /{self.runs.filter}/ (R lists the runs; escape in their filter clears it)"
        return "every run is switched off: R lists them, space switches one on"

    # -- transitions ----------------------------------------------------------------------------

    def with_runs(self, selection: TagSelection) -> "RunsState":
        """What the run panel asked for (a toggle, the filter). The compared runs stay the same."""
        if selection == self.runs or selection.tags != self.runs.tags:
            return self
        return replace(self, runs=selection)

    def toggle(self, train_id: str) -> "RunsState":
        if train_id not in self.compared:
            return self
        return replace(self, runs=self.runs.toggle(train_id))

    def toggle_number(self, number: int) -> "RunsState":
        """Switch run `number` (1 is the first compared, the first colour) on or off."""
        if not 1 <= number <= len(self.compared):
            return self
        return self.toggle(self.compared[number - 1])

    def with_filter(self, text: str) -> "RunsState":
        return replace(self, runs=self.runs.with_filter(text))

    def toggle_panel(self) -> "RunsState":
        return replace(self, panel=not self.panel)

    def toggle_diff(self) -> "RunsState":
        return replace(self, diff=not self.diff)

    # -- remembered -----------------------------------------------------------------------------

    def to_json(self) -> dict[str, Any]:
        return {"runs": self.runs.to_json(), "panel": self.panel, "diff": self.diff}

    @classmethod
    def from_json(cls, data: Any) -> "RunsState":
        if not isinstance(data, dict):
            return cls()
        return cls(runs=TagSelection.from_json(get_dict(data, "runs")),
                   panel=get_bool(data, "panel", False), diff=get_bool(data, "diff", False))
