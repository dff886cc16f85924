"""Keys that arrive in one burst (fast typing, a paste, a slow SSH link) go where the user meant.

`/` opens a filter box; the characters right behind it must land in the box, not on the list
behind it, where `l` opens lineage and `e` exports.
"""
from __future__ import annotations

import logging
import random

import pytest
from textual import events
from textual.widgets import Input

from fixture_paths import FIXTURES
from tui_insight.ui.screens.jobs import JobsScreen
from tui_insight.ui.widgets.job_table import JobTable
from uihelp import MINDSPORE_LOGS, make_app, post_key, press_unsettled, run_pilot, wait_for, wait_for_view


def burst(app, text: str) -> None:
    """Post every key at once, without waiting for the app in between (as a terminal delivers them)."""
    names = {"/": "slash", " ": "space"}
    for char in text:
        app.post_message(events.Key(names.get(char, char), char))


def test_job_filter_gets_the_whole_burst():
    app = make_app(MINDSPORE_LOGS)

    async def body(pilot):
        burst(app, "/lenet")
        await pilot.pause(0.3)
        box = app.screen.query_one(Input)
        return isinstance(app.screen, JobsScreen), box.value

    assert run_pilot(app, body) == (True, "lenet")  # `l` would have opened lineage, `e` an export


def test_scalar_filter_gets_the_whole_burst():
    app = make_app(MINDSPORE_LOGS)

    async def body(pilot):
        app.open_jobs(("./lenet_lr0.01",))
        await wait_for_view(pilot, app)
        burst(app, "/loss")
        await pilot.pause(0.3)
        return app.screen.query_one("#scalar-filter", Input).value, app.screen.current

    assert run_pilot(app, body) == ("loss", "scalars")


def test_text_typed_in_a_box_comes_before_its_enter():
    """In the slice box, `enter` in the same burst applies the text typed before it."""
    from tui_insight.ui.views.tensors import TensorsView

    app = make_app(MINDSPORE_LOGS)

    async def body(pilot):
        app.open_jobs(("./lenet_lr0.01",), view_id="tensors")
        await wait_for_view(pilot, app, "TensorsView")
        view = app.screen.query_one(TensorsView)
        for _ in range(100):
            if view.slice is not None:
                break
            await pilot.pause(0.05)
        app.post_message(events.Key("d", "d"))
        await pilot.pause(0.2)
        app.screen.query_one("#tensor-slice", Input).value = ""
        burst(app, "[1,:,2]")
        app.post_message(events.Key("enter", "\r"))
        await pilot.pause(0.5)
        return view.slice.text, type(app.focused).__name__

    assert run_pilot(app, body) == ("[1,:,2]", "SliceTable")


def test_keys_behind_a_filters_enter_go_to_the_list_again():
    """`/lenet⏎⏎` in one burst: the first enter ends the filter and hands the keyboard back to
    the list before the second arrives, which then opens the first filtered job. (Textual
    delivers Input.Submitted after the keys already received: the second enter and any key
    behind it used to land in the box.)"""
    app = make_app(MINDSPORE_LOGS)

    async def body(pilot):
        burst(app, "/lenet")
        app.post_message(events.Key("enter", "\r"))
        app.post_message(events.Key("enter", "\r"))
        await wait_for_view(pilot, app)
        return app.screen.train_ids

    assert run_pilot(app, body) == ("./lenet_lr0.01",)


def test_a_key_behind_a_filters_enter_goes_to_the_list():
    """`/lenet⏎␣` in one burst: the space was queued for the box before the enter gave the
    keyboard back, and used to be typed into it (`lenet `, no job left); it marks the job under
    the list's cursor."""
    app = make_app(MINDSPORE_LOGS)

    async def body(pilot):
        burst(app, "/lenet")
        app.post_message(events.Key("enter", "\r"))
        burst(app, " ")
        await pilot.pause(0.3)
        table = app.screen.query_one(JobTable)
        return app.screen.query_one(Input).value, app.focused is table, table.order, list(app.marked)

    value, listed, order, marked = run_pilot(app, body)
    assert value == "lenet" and listed
    assert sorted(order) == ["./lenet_lr0.01", "./lenet_lr0.1"] and marked == order[:1]


def test_a_key_behind_the_lineage_filters_enter_is_the_views_key():
    """`/learning_rate>0.01⏎t` in one burst in lineage: the filter holds, `t` switches to the
    dataset lineage instead of ending up in the box (`0.01t`: not a number)."""
    from tui_insight.ui.views.lineage import LineageView

    app = make_app(MINDSPORE_LOGS)

    async def body(pilot):
        burst(app, "l")
        await wait_for_view(pilot, app, "LineageView")
        view = app.screen.query_one(LineageView)
        burst(app, "/learning_rate>0.01")
        app.post_message(events.Key("enter", "\r"))
        burst(app, "t")
        await pilot.pause(0.3)
        return app.screen.query_one("#lineage-filter", Input).value, view.state.filter, view.state.mode

    assert run_pilot(app, body) == ("learning_rate>0.01", "learning_rate>0.01", "dataset")


def test_a_change_of_the_filter_already_out_of_date_is_not_written_back():
    """A burst typed into lineage's filter: the box's change notices arrive behind the keys, so
    the view could get `learning` after the box said `learning_rate>0.01`. Answering it wrote
    `learning` back into the box, a change of its own, and over a real terminal two such
    notices chased each other for ever (a core at 100%). An out-of-date notice goes no further."""
    from tui_insight.ui.views.lineage import LineageView

    app = make_app(MINDSPORE_LOGS)

    async def body(pilot):
        burst(app, "l")
        await wait_for_view(pilot, app, "LineageView")
        view = app.screen.query_one(LineageView)
        burst(app, "/learning_rate>0.01")
        await pilot.pause(0.3)
        box = app.screen.query_one("#lineage-filter", Input)
        # As it arrives behind the rest of the burst (posted by the box itself, as its own are).
        box.call_later(lambda: box.post_message(Input.Changed(box, "learning")))
        await pilot.pause(0.3)
        return box.value, view.state.filter

    assert run_pilot(app, body) == ("learning_rate>0.01", "learning_rate>0.01")


def test_keys_behind_q_do_nothing_while_the_app_quits():
    """`q` then `e` in one burst: the app quits, with no export dialog half built on the way out
    (it used to end in a NoMatches traceback)."""
    app = make_app(MINDSPORE_LOGS)

    async def body(pilot):
        app.open_jobs(("./lenet_lr0.01",))
        await wait_for_view(pilot, app)
        burst(app, "qe")
        await pilot.pause(0.3)

    run_pilot(app, body)
    assert app.return_code == 0


class CaughtErrors(logging.Handler):
    """Exceptions the app caught and logged while it went on."""

    def __init__(self) -> None:
        super().__init__(logging.ERROR)
        self.messages: list[str] = []

    def emit(self, record: logging.LogRecord) -> None:
        if record.exc_info:
            self.messages.append(self.format(record))


@pytest.mark.parametrize("logs, keys", [
    (MINDSPORE_LOGS, ["enter", "3", "escape"]),  # tensors: NoMatches '#tensor-list' in on_mount
    (MINDSPORE_LOGS, ["enter", "5", "escape"]),  # graph: NoMatches 'GraphTree'
    (MINDSPORE_LOGS, ["enter", "2", "escape"]),  # histograms: the tag picker's NoMatches
    (FIXTURES / "tensorboard", ["end", "enter", "8", "escape"]),  # text: NoMatches '#text-content'
], ids=["tensors", "graph", "histograms", "text"])
def test_leaving_a_view_before_it_settled_does_nothing(logs, keys):
    """Open a job, show a view and go back faster than the app settles, again and again: a view
    that mounts, or gets a result, after its dashboard was dismissed does nothing."""
    app = make_app(logs)
    errors = CaughtErrors()
    logging.getLogger("tui_insight").addHandler(errors)
    rng = random.Random(23)

    async def body(pilot):
        for _ in range(20):
            await press_unsettled(app, keys, rng)
        await pilot.pause(0.3)
        await wait_for(pilot, lambda: not any(worker.is_running for worker in app.workers))
        return app.return_code, [type(screen).__name__ for screen in app.screen_stack]

    try:
        assert run_pilot(app, body) == (None, ["JobsScreen"])
    finally:
        logging.getLogger("tui_insight").removeHandler(errors)
    assert not errors.messages


def test_a_double_enter_in_a_picker_answers_once():
    """`m` then enter enter before the picker closed: the headline is chosen once, the job list
    stays (the second answer popped the job list itself)."""
    app = make_app(MINDSPORE_LOGS)

    async def body(pilot):
        await pilot.press("m")
        await wait_for(pilot, lambda: type(app.screen).__name__ == "HeadlinePicker")
        post_key(app, "enter")
        post_key(app, "enter")
        await pilot.pause(0.3)
        return app.return_code, [type(screen).__name__ for screen in app.screen_stack]

    assert run_pilot(app, body) == (None, ["JobsScreen"])
