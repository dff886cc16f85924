"""The PR curves view: precision (y) over recall (x) of one tag (class) at one step
(TensorBoard's pr_curves plugin, `add_pr_curve`), each compared job's curve in its colour.

Keys: `[` `]` step back / on · home first step · end newest step (followed) · `n` `p` next /
previous tag · left / right the cursor along the curve (shift: ten thresholds). Below the
chart, per job: the step drawn, the area under the curve (the trapezoid area over recall:
TensorBoard shows none) and, at the cursor's threshold, precision, recall and the counts.
A compared job without the chosen step shows its last step before it.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np
from textual.app import ComposeResult
from textual.binding import Binding
from textual.reactive import reactive
from textual.widget import Widget
from textual.widgets import Static

from ...summary.formats.values import PayloadError
from ...summary.formats.pr_curves import PrCurveData
from ...summary.store.cache import SummaryCache
from ..common.text import markup, shown
from ..loader import LoadProblem
from ..state.pr_curves import PrCurvesState
from ..widgets.chart import ChartOptions, ChartPlot, ScalarChart, Trace
from .base import ViewSpec
from .one_tag import OneTagView

PLUGIN = "pr_curve"
HINT = "[ ] step · home/end · n p tag · ←/→ threshold"


@dataclass(frozen=True)
class CurveStep:
    step: int
    curve: PrCurveData | None
    error: str = ""  # why the curve cannot be read (then `curve` is None)


def load_curves(cache: SummaryCache, train_id: str, tag: str) -> dict[int, CurveStep]:
    """Every kept step of `tag` in one job with its curve, by step (runs in the loader's thread)."""
    view = cache.job(train_id)
    if view is None:
        raise LoadProblem(f"{shown(train_id)} is gone")
    series = view.series(PLUGIN, tag)
    if series is None:
        return {}
    steps: dict[int, CurveStep] = {}
    for i in range(len(series)):
        step = int(series.steps[i])
        try:
            steps[step] = CurveStep(step, cache.payloads.pr_curve(view.locator(series, i)))
        except PayloadError as exc:
            steps[step] = CurveStep(step, None, str(exc))
    return steps


# -- presentation (pure) ------------------------------------------------------------------------

def curve_traces(curves: list[tuple[str, PrCurveData]], cursors: list[int]) -> list[Trace]:
    """Each (colour, curve) as a line of precision over recall, its cursor's point on top."""
    lines = [Trace(curve.recall, curve.precision, colour) for colour, curve in curves]
    points = [Trace(np.array([curve.recall[i]]), np.array([curve.precision[i]]), colour, kind="points")
              for (colour, curve), i in zip(curves, cursors)]
    return lines + points


def number(value: float) -> str:
    return f"{value:.3f}" if np.isfinite(value) else str(value)


def count(value: float) -> str:
    return str(int(value)) if float(value).is_integer() else f"{value:g}"


def readout(curve: PrCurveData, index: int) -> str:
    """One job's figures: the area and, at threshold `index`, precision, recall and the counts."""
    values = curve.values[:, index]
    tp, fp, tn, fn = (count(v) for v in values[:4])
    return (f"area {number(curve.area)} · t {curve.thresholds[index]:.3f}: "
            f"P {number(values[4])} R {number(values[5])} · TP {tp} FP {fp} TN {tn} FN {fn}")


def step_text(step: int | None, steps: list[int]) -> str:
    """Where the step drawn stands among `steps`: "step 40 (3/5)" or "no steps"."""
    if step is None or step not in steps:
        return "no steps"
    return f"step {step} ({steps.index(step) + 1}/{len(steps)})"


class PrCurvesView(OneTagView):
    SPEC = ViewSpec("pr_curves", "PR curves", "9", ("pr_curve",), "job")  # `e`: to pr_curves.csv
    HELP_GROUP = "PR curves"
    DEFAULT_CSS = """
    PrCurvesView { layout: vertical; }
    PrCurvesView #pr-status { height: 1; padding: 0 1; background: $panel; text-wrap: nowrap; text-overflow: ellipsis; }
    PrCurvesView ScalarChart { height: 1fr; min-height: 6; }
    PrCurvesView #pr-readout { height: auto; max-height: 8; padding: 0 1; }
    """
    BINDINGS = [
        Binding("left_square_bracket", "step(-1)", "Step back", id="pr_curves.step_back"),
        Binding("right_square_bracket", "step(1)", "Step on", id="pr_curves.step_on"),
        Binding("home", "first_step", "First step", show=False, id="pr_curves.first_step"),
        Binding("end", "newest_step", "Newest step (follow)", show=False, id="pr_curves.newest_step"),
        Binding("n", "tag(1)", "Next tag", id="pr_curves.next_tag"),
        Binding("p", "tag(-1)", "Previous tag", show=False, id="pr_curves.previous_tag"),
        Binding("left", "cursor(-1)", "Threshold down", show=False, id="pr_curves.cursor_left"),
        Binding("right", "cursor(1)", "Threshold up", show=False, id="pr_curves.cursor_right"),
        Binding("shift+left", "cursor(-10)", "Threshold down 10", show=False, id="pr_curves.cursor_left_10"),
        Binding("shift+right", "cursor(10)", "Threshold up 10", show=False, id="pr_curves.cursor_right_10"),
    ]

    PLUGIN = PLUGIN
    load = staticmethod(load_curves)
    state: reactive[PrCurvesState] = reactive(PrCurvesState, init=False)

    def __init__(self, cache, train_ids, **kwargs: Any):
        super().__init__(cache, train_ids, **kwargs)
        self.set_reactive(PrCurvesView.state, PrCurvesState.from_json(self.saved))
        self.by_job: dict[str, dict[int, CurveStep]]  # per job, the shown tag's steps

    def compose(self) -> ComposeResult:
        yield Static("", id="pr-status")
        yield ScalarChart("pr", "", id="pr-chart")
        yield Static("", id="pr-readout")

    def first_focus(self) -> Widget | None:
        return self.query_one(ScalarChart)

    # -- data -----------------------------------------------------------------------------------

    def steps(self) -> list[int]:
        """Every step of the shown tag in any shown job, sorted."""
        return sorted({step for steps in self.by_job.values() for step in steps})

    def action_step(self, delta: int) -> None:
        self.state = self.state.step_by(self.steps(), delta)

    def action_first_step(self) -> None:
        self.state = self.state.first_step(self.steps())

    def action_newest_step(self) -> None:
        self.state = self.state.newest_step()

    def action_cursor(self, delta: int) -> None:
        shown = self.shown_curves()
        if shown:
            curve = shown[0][2]  # the first job's curve leads the cursor
            self.state = self.state.cursor_by(curve.values.shape[1], curve.end, delta)

    # -- drawing --------------------------------------------------------------------------------

    def shown_curves(self) -> list[tuple[str, int, PrCurveData]]:
        """(job, step, curve) of each shown job that has a curve at (or before) the chosen step."""
        out = []
        for tid in self.train_ids:
            steps = self.by_job.get(tid)
            if not steps:
                continue
            step = self.state.shown_step(sorted(steps))
            entry = steps.get(step) if step is not None else None
            if entry is not None and entry.curve is not None:
                out.append((tid, entry.step, entry.curve))
        return out

    def _redraw(self) -> None:
        tag, tags = self.state.tag, self.tags()
        steps = self.steps()
        chosen = self.state.shown_step(steps)
        if tag is None:
            status = "no PR curves"
        else:
            where = f" ({tags.index(tag) + 1}/{len(tags)})" if tag in tags else ""
            follow = " · newest" if self.state.step is None else ""
            status = f"[b]{markup(tag)}[/]{where} · {step_text(chosen, steps)}{follow} · {HINT}"
        self.query_one("#pr-status", Static).update(status)
        shown_curves = self.shown_curves()
        cursors = [self.state.cursor_in(c.values.shape[1], c.end) for _, _, c in shown_curves]
        colours = [self.job_colour(tid) for tid, _, _ in shown_curves]
        traces = curve_traces([(colour, c) for colour, (_, _, c) in zip(colours, shown_curves)], cursors)
        legend = tuple((colour, tid) for colour, (tid, _, _) in zip(colours, shown_curves)) if self.comparing else ()
        options = ChartOptions(x_axis="fraction", x_range=(0.0, 1.0), legend=legend,
                               note="precision (y) over recall (x)")
        chart = self.query_one(ScalarChart)
        chart.set_title(tag or "")
        chart.plot = ChartPlot(key=(tag, tuple((tid, step) for tid, step, _ in shown_curves), tuple(cursors),
                                    self._version, legend), options=options, traces=tuple(traces))
        self.query_one("#pr-readout", Static).update(self._readout(shown_curves, cursors, colours))

    def _readout(self, shown_curves, cursors, colours) -> str:
        if self.state.tag is None:
            if any(not job.ready for job in self.jobs):
                return "[dim]loading…[/]"
            return (f"[dim]No PR curves in {markup(', '.join(self.train_ids))}. TensorBoard's pr_curves plugin "
                    "writes them (add_pr_curve, tf.summary pr_curve).[/]")
        lines = []
        drawn = {tid: (step, curve, i, colour) for (tid, step, curve), i, colour in zip(shown_curves, cursors, colours)}
        for tid in self.train_ids:
            name = f"[b {self.job_colour(tid)}]{markup(tid)}[/] " if self.comparing else ""
            if tid in self.errors:
                lines.append(f"{name}[red]{markup(self.errors[tid])}[/]")
            elif tid not in self.by_job:
                lines.append(f"{name}[dim]reading…[/]")
            elif tid not in drawn:
                steps = self.by_job[tid]
                step = self.state.shown_step(sorted(steps)) if steps else None
                error = steps[step].error if step is not None else "no steps of this tag"
                lines.append(f"{name}[red]{markup(error)}[/]")
            else:
                step, curve, i, _ = drawn[tid]
                lines.append(f"{name}step {step} · {markup(readout(curve, i))}")
        lines.append("[dim]t threshold at the cursor · P precision · R recall · area: trapezoid area of "
                     "precision over recall (TensorBoard shows none)[/]")
        return "\n".join(lines)
