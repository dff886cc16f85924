"""Tests of the histogram view (issue 4) and of the ridgeline widget it shares with tensors.

Expected counts come from MindInsight's answers in the truth file (differential) or from
values the test wrote; drawing tests read the drawn characters and colours back.
"""
from __future__ import annotations

import html
import math
import re
from pathlib import Path

import numpy as np
import pytest
from textual.widgets import Input, Static
from uihelp import MINDSPORE_LOGS, T0, make_app, run_pilot, wait_for

from tui_insight.summary.formats.writer import SummaryWriter
from tui_insight.summary.queries.histograms import Ridgeline
from tui_insight.ui.common.palette import ThemeColours, hex_to_rgb
from tui_insight.ui.screens.help import collect_bindings
from tui_insight.ui.views.histograms import HistogramChart, HistogramsView
from tui_insight.ui.widgets.ridgeline import (
    RidgeOptions,
    draw_ridgeline,
    nice_ticks,
    ridge_readout,
    tick_label,
)
from tui_insight.ui.widgets.tag_picker import TagList

BACKGROUND = "#000000"
COLOUR = "#56B4E9"


def make_ridge(counts, steps=None, nan=None, pos=None, neg=None, lo=-3.0, hi=3.0) -> Ridgeline:
    counts = np.asarray(counts, dtype=np.int64)
    n, bins = counts.shape
    steps = np.arange(1, n + 1) if steps is None else np.asarray(steps)
    zeros = np.zeros(n, dtype=np.int64)
    return Ridgeline(np.linspace(lo, hi, bins + 1), counts, steps.astype(np.int64),
                     T0 + np.arange(n, dtype=np.float64) * 10,
                     zeros if nan is None else np.asarray(nan), zeros if pos is None else np.asarray(pos),
                     zeros if neg is None else np.asarray(neg), (hi - lo) / bins)


def rows_text(strips) -> list[str]:
    return [strip.text for strip in strips]


def readout_of(view) -> str:
    return str(view.query_one("#histogram-readout", Static).render())


def charts_of(view) -> dict:
    """The view's charts by (train id, tag), in grid order."""
    return {chart.chart_key: chart for chart in view.query(HistogramChart)}


def truth_tag(tag: str) -> str:
    return f"{tag}/histogram"


# -- drawing --------------------------------------------------------------------------------

def test_offset_mode_puts_later_steps_lower_and_in_front():
    # Each step has one peak in a different bucket.
    counts = np.zeros((3, 6), dtype=np.int64)
    counts[0, 0] = counts[1, 2] = counts[2, 5] = 10
    strips = draw_ridgeline(make_ridge(counts, steps=[10, 20, 30]), RidgeOptions(), 60, 20, BACKGROUND)
    lines = rows_text(strips)
    label_rows = {}
    for r, line in enumerate(lines[:-2]):
        label = line[:3].strip()
        if label:
            label_rows[int(label)] = r
    assert set(label_rows) == {10, 20, 30}
    assert label_rows[10] < label_rows[20] < label_rows[30]  # oldest at the back (top)
    assert label_rows[30] == len(lines) - 3  # the newest sits on the bottom row of the plot


def test_older_steps_fade_towards_the_background():
    counts = np.full((5, 4), 10)
    strips = draw_ridgeline(make_ridge(counts), RidgeOptions(colour=COLOUR), 40, 20, BACKGROUND)
    base = np.array(hex_to_rgb(COLOUR))

    def brightest(strip):
        best = 0.0
        for seg in strip:
            if seg.style and seg.style.color and seg.text.strip() and seg.text[0] in "▁▂▃▄▅▆▇█":
                rgb = np.array(seg.style.color.get_truecolor())
                best = max(best, 1 - np.abs(rgb - base).sum() / (base.sum() + 1))
        return best

    plot = strips[:-2]
    outline_rows = [r for r, s in enumerate(plot) if brightest(s) > 0]
    top, bottom = outline_rows[0], outline_rows[-1]
    assert brightest(plot[bottom]) > brightest(plot[top])  # the newest (front, bottom) is brightest


def test_nan_and_inf_counts_are_written_beside_their_ridge():
    counts = np.full((3, 5), 4)
    ridge = make_ridge(counts, steps=[1, 2, 3], nan=[0, 3, 0], pos=[0, 1, 0], neg=[2, 0, 0])
    lines = rows_text(draw_ridgeline(ridge, RidgeOptions(), 70, 24, BACKGROUND))
    by_label = {line[:2].strip(): line for line in lines[:-2] if line[:2].strip()}
    assert "nan3 +inf1" in by_label["2"] and "-inf" not in by_label["2"]
    assert by_label["1"].rstrip().endswith("-inf2")
    assert "nan" not in by_label["3"] and "inf" not in by_label["3"]


def test_overlay_mode_draws_outlines_in_braille_and_lists_nonfinite_steps():
    counts = np.array([[1, 5, 9, 5, 1], [2, 6, 2, 1, 0]])
    ridge = make_ridge(counts, steps=[7, 8], nan=[0, 5])
    lines = rows_text(draw_ridgeline(ridge, RidgeOptions(mode="overlay"), 60, 16, BACKGROUND))
    plot = "".join(lines[:-2])
    assert any(0x2800 < ord(ch) <= 0x28FF for ch in plot)
    assert not any(ch in "▁▂▃▄▅▆▇█" for ch in plot)
    assert "8 nan5" in lines[0]
    assert lines[0].strip().startswith("9")  # the y axis counts up to the top count


def test_x_axis_has_round_ticks_under_their_marks():
    ridge = make_ridge(np.full((2, 10), 3), lo=-0.37, hi=0.81)
    lines = rows_text(draw_ridgeline(ridge, RidgeOptions(), 90, 14, BACKGROUND))
    marks, labels = lines[-2], lines[-1]
    found = [(m.start(), m.group()) for m in re.finditer(r"-?\d+(\.\d+)?", labels)]
    assert len(found) >= 3
    values = [float(text) for _, text in found]
    assert values == sorted(values) and all(-0.37 <= v <= 0.81 for v in values)
    step = values[1] - values[0]
    assert any(abs(step - s) < 1e-9 for s in (0.1, 0.2, 0.25, 0.5))
    for start, text in found:  # each label is centred on a tick mark
        centre = start + len(text) // 2
        assert "┬" in marks[centre - 1:centre + 2]


def test_nice_ticks_and_labels():
    assert nice_ticks(0, 10, 5) == [0, 2, 4, 6, 8, 10]
    assert nice_ticks(-1.2, 1.2, 5) == [-1.0, -0.5, 0.0, 0.5, 1.0]
    assert nice_ticks(-1.2, 1.2, 4) == [-1.0, 0.0, 1.0]
    assert tick_label(0.30000000000000004, 0.1) == "0.3"
    assert tick_label(2.5e-6, 1e-6) == "2.5e-6"
    assert nice_ticks(1.0, 1.0, 4) == []


def test_cursor_marks_its_ridge_and_bucket():
    counts = np.full((3, 6), 5)
    ridge = make_ridge(counts)
    options = RidgeOptions(cursor_step=1, cursor_bin=2)
    strips = draw_ridgeline(ridge, options, 60, 20, BACKGROUND)
    assert "▲" in strips[-2].text
    highlight = np.array(hex_to_rgb(ThemeColours().accent))
    coloured = [seg for strip in strips[:-2] for seg in strip
                if seg.style and seg.style.color and seg.style.color.triplet
                and np.array_equal(np.array(seg.style.color.get_truecolor()), highlight)]
    assert coloured  # the ridge under the cursor is drawn in the highlight colour
    text = ridge_readout(ridge, 1, 2, T0).plain
    assert "step 2" in text and "bucket 3/6 [-1, 0)" in text and "count 5" in text


def test_empty_or_tiny_charts_say_so():
    assert "no data" in "".join(rows_text(draw_ridgeline(None, RidgeOptions(), 40, 10)))
    ridge = make_ridge(np.full((2, 3), 1))
    assert "too small" in "".join(rows_text(draw_ridgeline(ridge, RidgeOptions(), 10, 3)))
    every_zero = make_ridge(np.zeros((2, 3), dtype=np.int64), nan=[4, 4])
    lines = rows_text(draw_ridgeline(every_zero, RidgeOptions(), 50, 12))
    assert sum("nan4" in line for line in lines) >= 1


# -- the view on the fixture logs -------------------------------------------------------------

def histogram_app(logdir=MINDSPORE_LOGS, jobs=("./lenet_lr0.01",), **kwargs):
    app = make_app(logdir, **kwargs)

    def run(body, size=(120, 40)):
        async def wrapped(pilot):
            app.open_jobs(tuple(jobs), "histograms")
            await pilot.pause()
            view = app.screen.query_one(HistogramsView)
            assert await wait_for(pilot, lambda: view.loader.pending() == 0 and all(
                c.ridge is not None or c.message not in ("", "loading…") for c in charts_of(view).values()))
            await pilot.pause()
            return await body(pilot, view)
        return run_pilot(app, wrapped, size)

    return app, run


@pytest.mark.parametrize("train_id", ["./lenet_lr0.01", "./damaged_reference", "./limits", "./edge_cases"])
def test_charts_show_mindinsight_rebinned_histograms(truth, train_id):
    expected = truth["jobs"][train_id]["histograms"]
    _, run = histogram_app(jobs=(train_id,))

    async def body(pilot, view):
        assert list(view.state.tags.tags) == sorted(t.removesuffix("/histogram") for t in expected)
        for (tid, tag), chart in charts_of(view).items():
            served = expected[truth_tag(tag)]
            ridge = chart.ridge
            assert ridge is not None
            if train_id == "./limits":
                # Over the step limit MindInsight keeps a random sample (so its shared range
                # differs): the chart shows at most 50 steps, all written, the last included.
                raw = truth["jobs"][train_id]["raw"]["tags"][truth_tag(tag)]["steps_in_file_order"]
                assert len(ridge.steps) <= 50 and set(ridge.steps.tolist()) <= set(raw)
                assert ridge.steps[-1] == raw[-1]
                continue
            assert ridge.steps.tolist() == [h["step"] for h in served]
            for i, h in enumerate(served):
                assert ridge.counts[i].tolist() == [b[2] for b in h["buckets"]]
                np.testing.assert_allclose(ridge.lefts, [b[0] for b in h["buckets"]], rtol=1e-12)
        return True

    assert run(body)


def test_nan_inf_of_the_file_reach_the_chart(truth):
    raw = truth["jobs"]["./edge_cases"]["raw"]["histograms"]["edge/with_nan_inf/histogram"]
    _, run = histogram_app(jobs=("./edge_cases",))

    async def body(pilot, view):
        chart = charts_of(view)[("./edge_cases", "edge/with_nan_inf")]
        ridge = chart.ridge
        assert ridge.nan_counts.tolist() == [h["nan_count"] for h in raw]
        assert ridge.pos_inf_counts.tolist() == [h["pos_inf_count"] for h in raw]
        assert ridge.neg_inf_counts.tolist() == [h["neg_inf_count"] for h in raw]
        drawn = "\n".join(strip.text for strip in chart.strips())
        h = raw[-1]
        assert f"nan{h['nan_count']} +inf{h['pos_inf_count']} -inf{h['neg_inf_count']}" in drawn
        assert "nan/inf in 7" in str(chart.border_subtitle)
        return True

    assert run(body)


def test_cursor_keys_move_over_steps_and_buckets_with_a_readout(truth):
    served = truth["jobs"]["./lenet_lr0.01"]["histograms"]["conv1.weight/auto/histogram"]
    _, run = histogram_app()

    async def body(pilot, view):
        chart = charts_of(view)[("./lenet_lr0.01", "conv1.weight/auto")]
        chart.focus()
        await pilot.pause()
        await pilot.press("down")  # the first key shows the cursor on the newest step
        assert chart.cursor_index == len(served) - 1
        bins = len(served[-1]["buckets"])
        assert chart.cursor_bin == bins // 2
        await pilot.press("up", "up", "left", "shift+left", "right")
        i, b = len(served) - 3, bins // 2 - 5
        assert (chart.cursor_index, chart.cursor_bin) == (i, b)
        expected = (f"step {served[i]['step']}", f"count {served[i]['buckets'][b][2]}")
        assert await wait_for(pilot, lambda: all(part in readout_of(view) for part in expected)), readout_of(view)
        await pilot.press("home")
        assert chart.cursor_index == 0
        await pilot.press("end", "shift+right", "shift+right", "shift+right", "shift+right")
        assert chart.cursor_bin == bins - 1  # stops at the last bucket
        await pilot.press("escape")
        assert chart.cursor_step_value is None
        assert await wait_for(pilot, lambda: "step cursor" in readout_of(view))
        return True

    assert run(body)


def test_mode_and_step_axis_keys():
    _, run = histogram_app(jobs=("./resnetish_bs32",))

    async def body(pilot, view):
        chart = next(iter(charts_of(view).values()))
        chart.focus()
        await pilot.press("o")
        assert view.state.mode == "overlay" and chart.mode == "overlay"
        await pilot.pause()
        assert any(0x2800 < ord(ch) <= 0x28FF for strip in chart.strips() for ch in strip.text)
        await pilot.press("o", "x")
        assert chart.mode == "offset" and chart.axis == "relative"
        await pilot.pause()
        labels = [strip.text[:8].strip() for strip in chart.strips()[:-2]]
        assert any(label.endswith("s") for label in labels if label)  # durations such as 0.4s
        await pilot.press("x", "x", "f")
        assert chart.axis == "step"
        await pilot.pause()
        # sparse steps (1, 2, 4, 6, 8) sit at their distance on the step axis
        rows = {}
        for r, strip in enumerate(chart.strips()[:-2]):
            found = re.match(r"\s*(\d+) ", strip.text)
            if found:
                rows[int(found.group(1))] = r
        assert rows[8] > rows[6] > rows[4] > rows[2] > rows[1]
        assert rows[4] - rows[2] > rows[2] - rows[1]
        return True

    assert run(body)


def test_tag_filter_and_multi_select_choose_the_grid():
    _, run = histogram_app()

    async def body(pilot, view):
        assert len(charts_of(view)) == 7
        await pilot.press("slash")
        assert isinstance(view.screen.focused, Input)
        await pilot.press(*"^fc1")
        assert [tag for _, tag in charts_of(view)] == ["fc1.bias/auto", "fc1.weight/auto"]
        await pilot.press("enter")
        listing = view.query_one("#histogram-list", TagList)
        assert view.screen.focused is listing
        await pilot.press("space")  # deselect the highlighted tag
        assert [tag for _, tag in charts_of(view)] == ["fc1.weight/auto"]
        await pilot.press("a")
        assert len(charts_of(view)) == 2
        await pilot.press("a")
        assert not charts_of(view)
        await pilot.press("a")
        view.query_one("#histogram-filter", Input).value = ""
        await pilot.pause()
        assert len(charts_of(view)) == 7
        return True

    assert run(body)


def test_grid_uses_the_width_and_full_screen_shows_one_chart():
    _, run = histogram_app()

    async def body(pilot, view):
        grid = view.query_one("#histogram-grid")
        assert grid.styles.grid_size_columns == 2  # 160 columns: two charts side by side
        charts = list(charts_of(view).values())
        charts[3].focus()
        await pilot.press("f")
        await pilot.pause()
        assert view.state.fullscreen == charts[3].chart_key
        assert [c for c in charts if c.display] == [charts[3]]
        assert charts[3].size.width > 140
        await pilot.press("escape")
        assert view.state.fullscreen is None and all(c.display for c in charts)
        return True

    assert run(body, size=(160, 48))


def test_bindings_have_view_ids_and_show_in_help():
    _, run = histogram_app()

    async def body(pilot, view):
        groups = collect_bindings(view.screen, [view, *view.query("*")])
        ids = {binding.id for items in groups.values() for _, binding, _ in items}
        for name in ("filter", "select_all", "mode", "step_axis", "fullscreen", "cursor_older",
                     "cursor_newer", "cursor_left", "cursor_right"):
            assert f"histograms.{name}" in ids
        await pilot.press("question_mark")
        assert await wait_for(pilot, lambda: bool(view.app.screen.query("#help-text")))
        text = str(view.app.screen.query_one("#help-text").render())
        assert "histograms.mode" in text and "histograms.cursor_left" in text
        return True

    assert run(body)


# -- logs written by the test ------------------------------------------------------------------

def write_histograms(directory: Path, steps, shift=0.0, mode="ab") -> None:
    rng = np.random.default_rng(7)
    with SummaryWriter(directory, timestamp=int(T0), wall_time=T0) as writer:
        for step in steps:
            writer.add_histogram("w", rng.normal(step * 0.1 + shift, 1.0, 200))
            writer.add_histogram("b", rng.normal(0, 0.5, 50))
            writer.record(step, wall_time=T0 + step)


def test_live_update_keeps_selection_and_cursor(tmp_path):
    run_dir = tmp_path / "logs" / "run"
    write_histograms(run_dir, range(1, 6))
    app, run = histogram_app(tmp_path / "logs", jobs=("./run",))

    async def body(pilot, view):
        assert [tag for _, tag in charts_of(view)] == ["b", "w"]
        listing = view.query_one("#histogram-list", TagList)
        listing.focus()
        await pilot.press("space")  # hide "b"
        chart = charts_of(view)[("./run", "w")]
        chart.focus()
        await pilot.press("down", "up", "up", "right")
        assert chart.cursor_step_value == 3
        bucket = chart.cursor_bin
        # the run goes on: two more steps in a new file
        with SummaryWriter(run_dir, timestamp=int(T0) + 1, wall_time=T0 + 10) as writer:
            rng = np.random.default_rng(8)
            for step in (6, 7):
                writer.add_histogram("w", rng.normal(0, 1, 200))
                writer.record(step, wall_time=T0 + step)
        app.cache.reload()
        assert await wait_for(pilot, lambda: chart.ridge is not None and len(chart.ridge.steps) == 7)
        assert [tag for _, tag in charts_of(view)] == ["w"]
        assert chart.cursor_step_value == 3 and chart.cursor_bin == min(bucket, chart.ridge.bins - 1)
        assert view.screen.focused is chart
        assert await wait_for(pilot, lambda: "step 3" in readout_of(view))
        return True

    assert run(body)


def test_a_payload_that_cannot_be_read_is_said_in_its_chart(tmp_path):
    run_dir = tmp_path / "logs" / "run"
    write_histograms(run_dir, range(1, 4))
    app = make_app(tmp_path / "logs")
    for path in run_dir.iterdir():  # cut the file after the cache indexed it
        data = path.read_bytes()
        path.write_bytes(data[: len(data) // 3])

    async def body(pilot):
        app.open_jobs(("./run",), "histograms")
        await pilot.pause()
        view = app.screen.query_one(HistogramsView)
        assert await wait_for(pilot, lambda: view.loader.pending() == 0 and charts_of(view) and all(
            c.message.startswith("cannot read") for c in charts_of(view).values()))
        chart = next(iter(charts_of(view).values()))
        assert chart.ridge is None
        assert "cannot read" in "".join(strip.text for strip in chart.strips())
        return True

    assert run_pilot(app, body)


def test_comparison_shows_one_chart_per_job_in_its_colour(tmp_path):
    root = tmp_path / "logs"
    write_histograms(root / "a", range(1, 4))
    write_histograms(root / "b", range(1, 4), shift=2.0)
    app, run = histogram_app(root, jobs=("./a", "./b"))

    async def body(pilot, view):
        assert list(charts_of(view)) == [("./a", "b"), ("./b", "b"), ("./a", "w"), ("./b", "w")]
        colours = {key: chart.colour for key, chart in charts_of(view).items()}
        assert colours[("./a", "w")] == view.job_colour("./a") != colours[("./b", "w")]
        assert "./b" in str(charts_of(view)[("./b", "w")].border_title)
        return True

    assert run(body)


MARKUP_TAG = "[bold red]markup[/]"


def screen_text(app) -> str:
    """What the screen shows, as plain text (from the SVG screenshot)."""
    svg = app.export_screenshot()
    return html.unescape(re.sub(r"<[^>]+>", "", svg.split("</style>")[-1])).replace("\xa0", " ")


def test_tag_names_are_shown_literally_never_as_markup(tmp_path):
    run_dir = tmp_path / "logs" / "run"
    rng = np.random.default_rng(1)
    with SummaryWriter(run_dir, timestamp=int(T0), wall_time=T0) as writer:
        for step in (1, 2):
            writer.add_histogram(MARKUP_TAG, rng.normal(0, 1, 100))
            writer.record(step, wall_time=T0 + step)
    app, run = histogram_app(tmp_path / "logs", jobs=("./run",))

    async def body(pilot, view):
        chart = charts_of(view)[("./run", MARKUP_TAG)]
        chart.focus()
        await pilot.press("down")
        await pilot.pause()
        text = screen_text(app)
        assert f"─ {MARKUP_TAG} ─" in text  # the chart's title, as written
        assert f"✓ {MARKUP_TAG}" in text  # the tag list
        await pilot.press("slash", *"[bold]x")  # a filter matching nothing is said literally too
        assert await wait_for(pilot, lambda: "no tag matches /[bold]x/ (esc clears)" in screen_text(app))
        return True

    assert run(body)


def test_no_tag_selected_or_matching_says_what_to_do():
    _, run = histogram_app()

    async def body(pilot, view):
        empty = view.query_one("#histogram-empty", Static)
        assert not empty.display
        view.query_one("#histogram-list").focus()
        await pilot.press("a")  # every tag was selected: none now
        assert await wait_for(pilot, lambda: empty.display and not charts_of(view))
        assert str(empty.render()) == "no tag selected: space selects, a selects all"
        assert not view.query_one("#histogram-grid").display
        await pilot.press("a", "slash", *"xyz")
        assert await wait_for(pilot, lambda: "no tag matches /xyz/ (esc clears)" in str(empty.render()))
        await pilot.press("escape")  # clears the filter
        assert await wait_for(pilot, lambda: len(charts_of(view)) == 7 and not empty.display)
        return True

    assert run(body)


def test_remembered_state_comes_back_and_what_is_gone_is_ignored():
    app, run = histogram_app()
    scope = "./lenet_lr0.01"
    app.workspace.remember(scope, "histograms", {
        "tags": {"deselected": ["fc1.bias/auto", "no.such/tag"], "filter": ""},
        "mode": "overlay", "axis": "relative",
        "active": [scope, "fc3.weight/auto"],
        "cursors": [[scope, "fc3.weight/auto", 10**9, 3], ["./gone", "x", 1, 1]],
        "fullscreen": ["./gone", "x"],
    })

    async def body(pilot, view):
        state = view.state
        assert (state.mode, state.axis, state.fullscreen) == ("overlay", "relative", None)
        assert ("fc1.bias/auto") not in [tag for _, tag in charts_of(view)] and len(charts_of(view)) == 6
        chart = charts_of(view)[(scope, "fc3.weight/auto")]
        assert view.screen.focused is chart  # the remembered active chart has the keyboard
        assert chart.mode == "overlay" and chart.axis == "relative"
        assert chart.cursor_index == len(chart.ridge.steps) - 1 and chart.cursor_bin == 3  # nearest kept step
        assert "step " in readout_of(view)
        await pilot.press("o")
        remembered = app.workspace.get(scope, "histograms")
        assert remembered["mode"] == "offset" and remembered["tags"]["deselected"] == ["fc1.bias/auto", "no.such/tag"]
        return True

    assert run(body)


def test_pressing_2_right_after_opening_a_job_and_focus_before_compose():
    """The old start-up race (NoMatches '#histogram-list'): the dashboard asked the view for the
    keyboard before its tag list was composed. Now the view takes the keys when it is ready."""
    app = make_app(MINDSPORE_LOGS)

    async def body(pilot):
        early = HistogramsView(app.cache, ("./lenet_lr0.01",))
        early.focus_view()  # built, not composed, not even mounted: nothing happens, no exception
        assert early.first_focus() is None
        app.open_jobs(("./lenet_lr0.01",))
        await pilot.press("2")  # no pause: the scalars view may not be composed yet either
        await pilot.press("o")  # and a key at once: reaches the histogram view, never a traceback
        assert await wait_for(pilot, lambda: bool(app.screen.query(HistogramsView)))
        view = app.screen.query_one(HistogramsView)
        assert await wait_for(pilot, lambda: app.focused is not None and view in app.focused.ancestors_with_self)
        assert isinstance(app.focused, HistogramChart)
        assert await wait_for(pilot, lambda: view.loader.pending() == 0)
        return True

    assert run_pilot(app, body)


# -- snapshots --------------------------------------------------------------------------------

def snapshot_app(train_id: str):
    app = make_app(MINDSPORE_LOGS)

    async def before(pilot):
        app.open_jobs((train_id,), "histograms")
        await pilot.pause()
        view = app.screen.query_one(HistogramsView)
        # the charts exist (the job may still be loading on a busy machine) and every one is drawn
        assert await wait_for(pilot, lambda: view.loader.pending() == 0 and charts_of(view)
                              and all(c.ridge is not None for c in charts_of(view).values()))
        chart = next(iter(charts_of(view).values()))
        chart.focus()
        await pilot.press("down", "up", "left")  # the cursor on the step before the last
        await pilot.pause()

    return app, before


def test_snapshot_80x24(snap_compare):
    app, before = snapshot_app("./edge_cases")
    assert snap_compare(app, terminal_size=(80, 24), run_before=before)


def test_snapshot_160x48(snap_compare):
    app, before = snapshot_app("./lenet_lr0.01")
    assert snap_compare(app, terminal_size=(160, 48), run_before=before)


def test_damaged_histograms_draw_with_their_bad_buckets_dropped_and_said(tmp_path):
    """Histograms with NaN/Inf or unsorted edges, negative widths or counts, crossed min/max: every
    chart draws, its subtitle counts the damaged steps and the cursor's read-out says what was dropped."""
    from hostile_logs import HOSTILE_HISTOGRAMS, write_hostile_histograms

    job = tmp_path / "logs" / "bad"
    job.mkdir(parents=True)
    write_hostile_histograms(job)
    _, run = histogram_app(tmp_path / "logs", jobs=("./bad",))

    async def body(pilot, view):
        assert await wait_for(pilot, lambda: len(charts_of(view)) == len(HOSTILE_HISTOGRAMS)
                              and all(c.ridge is not None for c in charts_of(view).values()))
        charts = charts_of(view)
        for (_, tag), chart in charts.items():
            assert "cannot" not in "\n".join(strip.text for strip in chart.strips()), tag
        assert "damaged in 2 steps" in str(charts[("./bad", "negative_count")].border_subtitle)
        chart = charts[("./bad", "nan_edge")]
        chart.focus()
        await pilot.press("down")
        assert await wait_for(pilot, lambda: "1 bucket dropped: non-finite edge" in readout_of(view)), readout_of(view)
        return True

    assert run(body)


def test_tick_labels_of_values_or_spans_past_float64():
    from tui_insight.ui.widgets.ridgeline import tick_label

    assert [tick_label(v, 1.0) for v in (math.inf, -math.inf, math.nan)] == ["inf", "-inf", "nan"]
    assert tick_label(-1e308, math.inf) == "-1e308" and tick_label(0.5, math.inf) == "0.5"


@pytest.mark.parametrize("theme", ["ansi-dark", "ansi-light"])
def test_charts_draw_in_themes_of_ansi_colours(theme):
    """Found by the chaos test (palette, "an", enter picks the ansi-dark theme): an ANSI
    background has no RGB, and reading one as "#rrggbb" raised in every ridgeline's render."""
    _, run = histogram_app(theme=theme)

    async def body(pilot, view):
        assert pilot.app.theme == theme
        for chart in charts_of(view).values():
            assert chart.ridge is not None and len(chart.strips()) == chart.content_size.height
        return True

    assert run(body)
