"""What the custom scalars view shows (series and colours, traces, options, status line, the
sentence in place of the grid, the read-out), from runs tensorboardX writes with a layout: plain
unit tests, no app, no Pilot."""
from __future__ import annotations

import math

import numpy as np
import pytest
from tensorboardX import SummaryWriter

from tui_insight.summary.queries.custom_scalars import categories, content
from tui_insight.summary.store.cache import SummaryCache
from tui_insight.ui.common.format import number
from tui_insight.ui.common.palette import SERIES_COLOURS
from tui_insight.ui.presenters import custom_scalars as present
from tui_insight.ui.state.custom_scalars import CustomScalarsState

LAYOUT = {
    "Losses": {"both": ["Multiline", [r"loss/"]]},
    "Bounds": {"mean in band": ["Margin", ["mean", "low", "high"]]},
    "Nothing": {"void": ["Multiline", ["^zzz"]]},
}
JOB_COLOURS = {"./a": "#111111", "./b": "#222222"}


def values(step: int, seed: int) -> dict[str, float]:
    mean = math.sin(step / 5) + seed
    return {"loss/train": math.exp(-step / 10) + seed, "loss/eval": 0.2, "mean": mean, "low": mean - 0.5,
            "high": mean + 0.25}


@pytest.fixture(scope="module")
def jobs(tmp_path_factory) -> dict:
    root = tmp_path_factory.mktemp("logs")
    for seed, name in enumerate(("a", "b")):
        writer = SummaryWriter(str(root / name))
        writer.add_custom_scalars(LAYOUT)
        for step in range(10):
            for tag, value in values(step, seed).items():
                writer.add_scalar(tag, value, step, walltime=1_700_000_000.0 + step)
        writer.close()
    cache = SummaryCache(str(root))
    cache.reload()
    return {tid: cache.job(tid) for tid in ("./a", "./b")}


def drawn_of(jobs, title: str, state: CustomScalarsState | None = None, comparing=False):
    state = state or CustomScalarsState()
    views = {tid: jobs[tid] for tid in (jobs if comparing else ["./a"])}
    category = next(c for c in categories(list(views.values())) if c.title == title)
    chart_content = content(category.charts[0], list(views.values()))
    return category, chart_content, present.drawn_series(chart_content, views, state.x_axis, state.smoothing,
                                                         JOB_COLOURS, comparing)


def test_one_job_colours_each_tag_and_compared_jobs_each_series(jobs):
    _, _, drawn = drawn_of(jobs, "Losses")
    assert [(d.name, d.colour) for d in drawn] == [("loss/eval", SERIES_COLOURS[0]), ("loss/train", SERIES_COLOURS[1])]
    _, _, drawn = drawn_of(jobs, "Losses", comparing=True)
    assert [d.name for d in drawn] == ["./a loss/eval", "./b loss/eval", "./a loss/train", "./b loss/train"]
    assert len({d.colour for d in drawn}) == 4
    _, _, drawn = drawn_of(jobs, "Bounds", comparing=True)  # one tag: each job in its colour
    assert [d.colour for d in drawn] == ["#111111", "#222222"]


def test_a_margin_is_a_band_drawn_before_its_line_and_said_in_the_legend(jobs):
    state = CustomScalarsState(smoothing=0.5)
    _, chart_content, drawn = drawn_of(jobs, "Bounds", state)
    (mean,) = drawn
    assert np.allclose(mean.band[0], mean.series.values - 0.5) and np.allclose(mean.band[1], mean.series.values + 0.25)
    traces = present.traces_of(drawn)
    assert traces[0].kind == "band" and traces[-1].kind != "band"
    options = present.chart_options(drawn, chart_content, "step", 0.5, False, None)
    assert options.note == "shaded: lower..upper · smoothed 0.5, raw faint"
    assert options.legend == ((mean.colour, "mean"),)


def test_status_names_the_category_axis_and_smoothing_or_that_nothing_matches(jobs):
    views = [jobs["./a"]]
    found = categories(views)
    titles = [c.title for c in found]
    state = CustomScalarsState(category="Losses", x_axis="relative", smoothing=0.2, log_y=True)
    contents = [content(chart, views) for chart in found[0].charts]
    assert present.status(state, found[0], titles, contents).startswith(
        "[b]Losses[/] (1/3) · x: relative · smoothing 0.2 · log y · ")
    nothing = found[titles.index("Nothing")]
    assert "no chart of this category matches a scalar tag" in present.status(
        CustomScalarsState(), nothing, titles, [content(chart, views) for chart in nothing.charts])
    assert present.status(state, None, [], []) == "no layout"


def test_without_a_layout_the_grid_says_how_to_write_one_or_that_it_is_loading():
    assert present.empty_reason(None, ["./plain"], loading=True) == "loading…"
    assert present.empty_reason(None, ["./plain"], loading=False) == (
        "No custom scalars layout in ./plain (tensorboardX add_custom_scalars writes one).")


def test_readout_reads_value_and_band_at_the_cursor_and_stops_on_steps(jobs):
    _, _, drawn = drawn_of(jobs, "Bounds")
    stops = present.cursor_stops([drawn], 0)
    assert stops == list(range(10))
    state = CustomScalarsState(category="Bounds", cursor_x=2.0)
    origins = {tid: job.first_wall_time for tid, job in jobs.items()}
    v = values(2, 0)
    assert present.readout(state, [drawn], origins, True).plain == (
        f"● mean  step 2  value {number(v['mean'])}  band {number(v['low'])}..{number(v['high'])}")
    assert "value cursor" in present.readout(CustomScalarsState(), [drawn], origins, True)
    assert present.readout(CustomScalarsState(), [], origins, False) == ""
