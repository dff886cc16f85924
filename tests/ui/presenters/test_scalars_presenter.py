"""What the scalar view shows (traces, legend, status line, read-out, summary rows), from the
series of runs written by the writer: plain unit tests, no app, no Pilot."""
from __future__ import annotations

import numpy as np
import pytest
from uihelp import run_values, write_run

from tui_insight.summary.store.cache import SummaryCache
from tui_insight.summary.store.job_view import Changes
from tui_insight.ui.common.palette import SERIES_MARKERS
from tui_insight.ui.presenters import scalars as present
from tui_insight.ui.state.scalars import OVERLAY, ScalarsState
from tui_insight.ui.state.tags import TagSelection

RUNS = ("./run_a", "./run_b")
COLOURS = {"./run_a": "#111111", "./run_b": "#222222"}


@pytest.fixture(scope="module")
def scene(tmp_path_factory) -> present.Scene:
    root = tmp_path_factory.mktemp("logs")
    for run in RUNS:
        write_run(root, run[2:], steps=30, tags=("loss", "acc"))
    cache = SummaryCache(str(root))
    cache.reload()
    lines = present.ScalarLines()
    for run in RUNS:
        for tag in ("loss", "acc"):
            lines.load(cache.job(run), run, tag)
    origins = {run: cache.job(run).first_wall_time for run in RUNS}
    return present.Scene(RUNS, lines, COLOURS, origins, comparing=True)


def state_of(**kwargs) -> ScalarsState:
    return ScalarsState(**kwargs).with_tags(TagSelection().with_tags(["acc", "loss"]))


def one_job(scene: present.Scene, **kwargs) -> present.Scene:
    return present.Scene(RUNS[:1], scene.lines, COLOURS, scene.origins, **kwargs)


def test_each_run_draws_its_line_in_its_colour_and_smoothing_lays_the_raw_line_faint_under(scene):
    plain = present.traces(scene, state_of(), "loss", ("loss",))
    assert [(t.kind, t.colour) for t in plain] == [("line", "#111111"), ("line", "#222222")]
    steps = np.arange(1, 31)
    assert np.allclose(plain[0].y, run_values("run_a", steps)["loss"].astype(np.float32))
    smoothed = present.traces(scene, state_of(smoothing=0.6), "loss", ("loss",))
    assert [t.kind for t in smoothed] == ["faint", "smoothed", "faint", "smoothed"]
    assert not np.allclose(smoothed[0].y, smoothed[1].y)


def test_a_threshold_adds_the_points_beyond_it_and_normalising_scales_to_0_1(scene):
    state = state_of().with_threshold("loss", 1.0, None)
    hits = [t for t in present.traces(scene, state, "loss", ("loss",)) if t.kind == "points"]
    assert hits and all((t.y > 1.0).all() for t in hits)
    overlay = state_of().toggle_overlay().toggle_normalise()
    lines = present.traces(one_job(scene), overlay, OVERLAY, ("acc", "loss"))
    assert all(np.nanmin(t.y) == 0.0 and np.nanmax(t.y) == 1.0 for t in lines)


def test_the_legend_names_the_runs_compared_or_the_tags_of_one_chart_and_marks_them_without_colour(scene):
    options = present.chart_options(scene, state_of(), "loss", ("loss",))
    assert options.legend == (("#111111", "./run_a"), ("#222222", "./run_b")) and not options.legend_symbols
    overlay = state_of().toggle_overlay()
    alone = present.chart_options(one_job(scene, no_color=True), overlay, OVERLAY, ("acc", "loss"))
    assert [label for _, label in alone.legend] == ["acc", "loss"]
    assert alone.legend_symbols == tuple(present.shown_marker(m) for m in SERIES_MARKERS[:2]) == ("⣿", "•")
    compared = present.chart_options(scene, overlay, OVERLAY, ("acc", "loss"))
    assert compared.note.startswith("tags by marker: acc") and "loss" in compared.note


def test_the_status_line_says_the_settings_and_what_the_focused_chart_has_of_its_own(scene):
    state = state_of(smoothing=0.6).with_active("loss").toggle_log_y("loss")
    text = present.status(state, loading=False)
    assert text.startswith("x: step · smoothing 0.6") and "loss: log y" in text
    assert "log y off: values ≤ 0" in present.status(state, loading=False, log_y_problem="3 of 30 are ≤ 0")
    zoomed = state_of().zoom_to(5, 12)
    assert "zoom 5..12 (⌫ back, 0 reset)" in present.status(zoomed, loading=False)
    assert present.status(ScalarsState(), loading=True) == "no scalar tags yet"
    assert present.empty_reason(ScalarsState(), loading=False) == "these jobs have no scalars"


def test_the_readout_reads_each_runs_point_at_the_cursor(scene):
    state = state_of().with_active("loss")
    assert present.readout(scene, state, shown=True) == present.HINT
    assert present.readout(scene, state, shown=False) == ""
    text = str(present.readout(scene, state.with_cursor(7), shown=True))
    expected = run_values("run_b", np.arange(1, 31))["loss"][6]
    assert "./run_a loss  step 7" in text and "./run_b loss  step 7" in text
    assert f"{expected:.4g}"[:5] in text


def test_summary_rows_star_the_best_run_of_each_tag_and_read_the_cursor(scene):
    state = state_of().with_cursor(7)
    rows = present.summary_rows(scene, state)
    assert [(r.tag, r.train_id) for r in rows] == [("acc", "./run_a"), ("acc", "./run_b"),
                                                   ("loss", "./run_a"), ("loss", "./run_b")]
    losses = {r.train_id: r.digest.best(True)[0] for r in rows if r.tag == "loss"}
    best = min(losses, key=losses.get)
    assert [r.train_id for r in rows if r.tag == "loss" and r.best] == [best]
    assert all(r.cursor is not None and r.cursor[0] == 7 for r in rows)


def test_the_cursor_stops_at_the_steps_in_the_zoom_and_keeps_its_point_on_another_x_axis(scene):
    state = state_of().with_active("loss").zoom_to(5, 9)
    assert present.active_x(scene, state).tolist() == [5, 6, 7, 8, 9]
    assert present.whole_range(scene, state_of()) == (1.0, 30.0)
    on_step = state_of().with_active("loss").with_cursor(7)
    relative = present.cursor_on_next_axis(scene, on_step)
    line = scene.line("./run_a", "loss", on_step)
    assert relative == pytest.approx(float(line.series.wall_times[6]) - scene.origins["./run_a"])


def test_the_lines_read_every_tag_of_the_jobs_then_again_only_what_a_change_touched(tmp_path):
    for run in RUNS:
        write_run(tmp_path, run[2:], steps=10, tags=("loss", "acc"))
    cache = SummaryCache(str(tmp_path))
    cache.reload()
    lines = present.ScalarLines()
    lines.load_jobs(cache.jobs.values())
    assert lines.tags() == ["acc", "loss"] and set(lines.series) == {(r, t) for r in RUNS for t in ("acc", "loss")}
    versions = {key: lines.version(*key) for key in lines.series}
    views = {run: cache.job(run) for run in RUNS}
    assert lines.update(Changes(updated={"./run_a": {("scalar", "loss"), ("histogram", "acc")}}), views)
    assert [key for key in versions if lines.version(*key) != versions[key]] == [("./run_a", "loss")]
    again = {key: lines.version(*key) for key in lines.series}
    assert lines.update(Changes(updated={"./run_b": set()}), views)  # read again from scratch: every tag
    assert {key for key in again if lines.version(*key) != again[key]} == {("./run_b", "acc"), ("./run_b", "loss")}
    assert not lines.update(Changes(updated={"./run_c": set()}), views)  # not one of the view's jobs
    assert not lines.update(Changes(updated={"./run_a": {("image", "loss")}}), views)  # no scalar in it
    assert lines.update(Changes(removed={"./run_b"}), {**views, "./run_b": None})
    assert {run for run, _ in lines.series} == {"./run_a"}


def test_the_live_pace_and_what_the_keys_say():
    assert present.live_interval(0.0) == present.LIVE_REDRAW_SECONDS
    assert present.live_interval(0.02) == pytest.approx(0.4)  # drawing cost 5 % of 0.4 s
    assert present.live_interval(10.0) == present.LIVE_REDRAW_MAX_SECONDS
    state = state_of().with_threshold("loss", 2.5, 0.1)
    prompt, current = present.threshold_prompt(state, "loss")
    assert prompt.startswith("Highlight points of [b]loss[/b] beyond a threshold") and current == "< 0.1 > 2.5"
    assert present.threshold_prompt(state_of(), OVERLAY)[0].startswith("Highlight points of [b]the combined chart")
    assert present.threshold_prompt(state_of(), "a[b]")[0].startswith("Highlight points of [b]a\\[b][/b]")
    assert present.threshold_error("> 2.5") == "" and present.threshold_error("above") != ""
    runs = ("./rank_0", "./rank_1")
    assert [present.rank_view_note(view, runs) for view in range(4)] == [
        "mean and min–max band", "band and ./rank_0", "band and ./rank_1", "every rank's line"]
    assert present.best_note("loss", "lower") == "loss: lower is better"
    assert present.best_note("[x]", None) == "\\[x]: no best marked"
