"""Pilot tests of a comparison dashboard: the run panel (show/hide runs, digits, name filter), runs
hidden from every view and remembered, and the lineage diff panel on the fixture runs.

The transitions themselves are unit-tested in tests/ui/state/test_runs_state.py; these check that
keys reach them and that the views draw the runs they say."""
from __future__ import annotations

import pytest
from textual.widgets import Static

from tui_insight.ui.common.palette import SERIES_COLOURS
from tui_insight.ui.views.images import ImagesView
from tui_insight.ui.widgets.image_card import ImageCard
from tui_insight.ui.views.histograms import HistogramsView
from tui_insight.ui.views.scalars import ScalarsView
from tui_insight.ui.widgets.lineage_diff import LineageDiff
from tui_insight.ui.widgets.run_picker import RunList
from uihelp import MINDSPORE_LOGS, make_app, run_pilot, wait_for, wait_for_view, write_run

RUNS = ("./run_a", "./run_b", "./run_c")
LINEAGE_RUNS = ("./lenet_lr0.01", "./lenet_lr0.1", "./resnetish_bs32")


def compare(logs, jobs=RUNS, view=("scalars", "ScalarsView")):
    """The app and a runner of `body(pilot)` on the dashboard comparing `jobs`, opened on `view`."""
    app = make_app(logs)

    def run(body, size=(100, 30)):
        async def wrapped(pilot):
            app.open_jobs(tuple(jobs), view[0])
            await wait_for_view(pilot, app, view[1])
            return await body(pilot)
        return run_pilot(app, wrapped, size)

    return app, run


def legend(app, tag="loss") -> list[tuple[str, str]]:
    """The (colour, run) entries of the scalar chart of `tag`, as its legend shows them."""
    return list(app.screen.query_one(ScalarsView).charts[tag].options.legend)


def trace_colours(app, tag="loss") -> list[str]:
    return [trace.colour for trace in app.screen.query_one(ScalarsView).charts[tag].traces]


def title(app) -> str:
    return str(app.screen.query_one("#dashboard-title", Static).render())


ALL = [(SERIES_COLOURS[0], "./run_a"), (SERIES_COLOURS[1], "./run_b"), (SERIES_COLOURS[2], "./run_c")]


def test_a_run_switched_off_in_the_run_panel_vanishes_from_the_charts_and_comes_back(ui_logs):
    app, run = compare(ui_logs)

    async def body(pilot):
        seen = {}
        await pilot.press("R")
        seen["panel_focused"] = isinstance(app.focused, RunList)
        await pilot.press("down", "space")
        seen["hidden"] = await wait_for(pilot, lambda: len(legend(app)) == 2)
        seen["legend_hidden"], seen["colours_hidden"], seen["title_hidden"] = legend(app), trace_colours(app), title(app)
        seen["still_in_panel"] = isinstance(app.focused, RunList)
        await pilot.press("space")
        seen["back"] = await wait_for(pilot, lambda: len(legend(app)) == 3)
        seen["legend_back"], seen["title_back"] = legend(app), title(app)
        return seen

    seen = run(body)
    assert seen["panel_focused"] and seen["still_in_panel"]
    assert seen["hidden"] and seen["legend_hidden"] == [ALL[0], ALL[2]]
    assert seen["colours_hidden"] == [SERIES_COLOURS[0], SERIES_COLOURS[2]]  # run_c keeps its colour
    assert "○ ./run_b" in seen["title_hidden"] and "● ./run_a" in seen["title_hidden"]
    assert seen["back"] and seen["legend_back"] == ALL and "○" not in seen["title_back"]


def test_digits_toggle_runs_only_in_the_run_panel(ui_logs):
    app, run = compare(ui_logs)

    async def body(pilot):
        await pilot.press("R", "3")
        hidden = await wait_for(pilot, lambda: len(legend(app)) == 2)
        shown = legend(app)
        await pilot.press("R")  # the panel closes, the keyboard goes back to the charts
        in_view = app.focused is not None and app.screen.query_one(ScalarsView) in app.focused.ancestors
        await pilot.press("2")  # a digit outside the panel switches the view, as before
        switched = await wait_for(pilot, lambda: bool(app.screen.query(HistogramsView)) and
                                  app.screen.query_one(HistogramsView).display)
        view = app.screen.query_one(HistogramsView)
        return hidden, shown, in_view, switched, view.train_ids, view.compared

    hidden, shown, in_view, switched, train_ids, compared = run(body)
    assert hidden and shown == ALL[:2]
    assert in_view and switched
    assert train_ids == ("./run_a", "./run_b") and compared == RUNS  # built for the runs shown


def test_the_name_filter_narrows_the_runs_and_is_remembered(ui_logs):
    app, run = compare(ui_logs)

    async def body(pilot):
        await pilot.press("R", "slash")
        await pilot.press(*"[ac]", "enter")  # ./run_a and ./run_c have an a or a c; ./run_b neither
        narrowed = await wait_for(pilot, lambda: len(legend(app)) == 2)
        first = legend(app)
        listed = app.screen.query_one(RunList).option_count
        await pilot.press("escape")  # closes the panel
        closed = not app.screen.query_one("#run-tags").display
        await pilot.press("escape")  # back to the job list
        assert await wait_for(pilot, lambda: type(app.screen).__name__ == "JobsScreen")
        app.open_jobs(RUNS)
        await wait_for_view(pilot, app)
        return narrowed, first, listed, closed, legend(app), title(app)

    narrowed, first, listed, closed, again, shown_title = run(body)
    assert narrowed and first == [ALL[0], ALL[2]] and listed == 2 and closed
    assert again == [ALL[0], ALL[2]] and "○ ./run_b" in shown_title  # the workspace kept the filter


def test_a_filter_that_matches_no_run_says_so_instead_of_drawing(ui_logs):
    app, run = compare(ui_logs)

    async def body(pilot):
        await pilot.press("R", "slash", *"zzz", "enter")
        said = await wait_for(pilot, lambda: app.screen.query_one("#dashboard-no-run").display)
        text = str(app.screen.query_one("#dashboard-no-run", Static).render())
        await pilot.press("slash", "escape")  # escape in the filter clears it
        back = await wait_for(pilot, lambda: not app.screen.query_one("#dashboard-no-run").display)
        return said, text, back, legend(app)

    said, text, back, shown = run(body)
    assert said and "no run matches /zzz/" in text
    assert back and shown == ALL


def test_hidden_runs_vanish_from_a_view_that_is_built_again():
    app, run = compare(MINDSPORE_LOGS, LINEAGE_RUNS, ("images", "ImagesView"))

    def cards() -> set[str]:
        found = app.screen.query(ImagesView)
        return {card.train_id for card in found.first().query(ImageCard)} if found else set()

    async def body(pilot):
        await wait_for(pilot, lambda: len(cards()) == len(LINEAGE_RUNS))
        before = cards()
        await pilot.press("R", "space")  # the first run
        hidden = await wait_for(pilot, lambda: cards() == set(LINEAGE_RUNS[1:]))
        focus = isinstance(app.focused, RunList)  # the rebuilt view did not take the keyboard
        await pilot.press("space")
        back = await wait_for(pilot, lambda: cards() == set(LINEAGE_RUNS))
        return before, hidden, focus, back

    before, hidden, focus, back = run(body)
    assert before == set(LINEAGE_RUNS)
    assert hidden and focus and back


def test_a_comparison_showing_one_run_still_names_it_and_keeps_its_colour():
    """Views rebuilt for the runs left shown decide "comparing" by the runs compared, not shown:
    the last run shown keeps its name and colour on its cards."""
    app, run = compare(MINDSPORE_LOGS, LINEAGE_RUNS[:2], ("images", "ImagesView"))

    def titles() -> dict[str, str]:
        found = app.screen.query(ImagesView)
        return {card.train_id: str(card.border_title) for card in found.first().query(ImageCard)} if found else {}

    async def body(pilot):
        await wait_for(pilot, lambda: len(titles()) == 2)
        await pilot.press("R", "space")  # hide the first run: one is left
        alone = await wait_for(pilot, lambda: set(titles()) == {LINEAGE_RUNS[1]})
        return alone, titles()

    alone, shown = run(body)
    assert alone
    (title,) = shown.values()
    assert LINEAGE_RUNS[1] in title and f"[{SERIES_COLOURS[1]}]●" in title


EXPECTED_DIFF = ["train_dataset_path", "train_dataset_count", "test_dataset_path", "test_dataset_count", "network",
                 "optimizer", "learning_rate", "epoch", "batch_size", "loss", "model_size", "dataset_mark",
                 "metric/Accuracy", "metric/Loss", "user_defined/blocks", "user_defined/dataset",
                 "user_defined/dropout", "user_defined/model_name", "user_defined/note", "user_defined/seed"]


def test_the_diff_panel_lists_exactly_the_lineage_columns_that_differ():
    """Fixture runs (tests/fixtures/mindspore): the three with lineage agree only on the loss
    function and the device count; `./edge_cases` has no lineage and says so."""
    app, run = compare(MINDSPORE_LOGS, (*LINEAGE_RUNS, "./edge_cases"), ("profiler", "ProfilerView"))

    def diff() -> LineageDiff:
        return app.screen.query_one(LineageDiff)

    async def body(pilot):
        shown_before = diff().display
        await pilot.press("D")
        await wait_for(pilot, lambda: diff().display and bool(diff().shown))
        seen = {"all": list(diff().shown), "title": str(diff().border_title),
                "headers": diff().header_labels(),
                "lr": [str(getattr(c, "plain", c)) for c in diff().cells["learning_rate"]]}
        await pilot.press("R", "3")  # hide the resnet: the two lenets agree on network, optimizer, ...
        await wait_for(pilot, lambda: len(diff().shown) < len(EXPECTED_DIFF))
        seen["lenets"] = list(diff().shown)
        return shown_before, seen

    shown_before, seen = run(body, size=(160, 48))
    assert not shown_before
    assert seen["all"] == EXPECTED_DIFF
    assert "no lineage: ./edge_cases" in seen["title"]
    assert seen["headers"][1:] == list(LINEAGE_RUNS)  # one column per run, in the order compared
    assert seen["lr"] == ["learning_rate", "0.01", "0.1", "0.001"]
    assert seen["lenets"] == [c for c in EXPECTED_DIFF if c not in (
        "network", "optimizer", "model_size", "user_defined/blocks", "user_defined/model_name")]


def test_one_job_has_no_run_panel_or_diff_keys(ui_logs):
    app, run = compare(ui_logs, ("./run_a",))

    async def body(pilot):
        await pilot.press("R", "D")
        await pilot.pause()
        return bool(app.screen.query("#run-tags")), bool(app.screen.query(LineageDiff)), app.screen.check_action(
            "toggle_runs", ())

    has_panel, has_diff, allowed = run(body)
    assert not has_panel and not has_diff and allowed is False


@pytest.mark.parametrize("size", [(80, 24), (160, 48)], ids=["80x24", "160x48"])
def test_the_title_keeps_long_compared_names_apart_on_one_line(tmp_path, size):
    """Two runs named alike but for their end: at 80 columns the title drops what they share and
    keeps where they differ, on the title's one line; at 160 both names are whole."""
    names = ("./sweep_lenet_momentum0.9_batch32_lr0.01", "./sweep_lenet_momentum0.9_batch32_lr0.1")
    for name in names:
        write_run(tmp_path / "logs", name[2:], steps=3, tags=("loss",))
    app, run = compare(tmp_path / "logs", jobs=names)

    async def body(pilot):
        return title(app)

    shown = run(body, size=size)
    assert len(shown) <= size[0] - 2
    if size[0] == 80:
        assert "lr0.01" in shown and "lr0.1" in shown and "sweep_lenet_momentum" not in shown
    else:
        assert all(name in shown for name in names)
