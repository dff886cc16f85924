"""Deep links from the command line (`--job`, `--compare`, `--view`, `--tags`) and a workspace
that brings each view back as it was left, after leaving a job or quitting."""
from __future__ import annotations

import asyncio
import json

import pytest

from tui_insight.cli import build_parser, start_at
from tui_insight.ui.app import StartAt, train_id_of
from tui_insight.ui.screens.dashboard import DashboardScreen
from tui_insight.ui.screens.jobs import JobsScreen
from tui_insight.workspace import Workspace
from uihelp import make_app, notices, run_pilot, wait_for, wait_for_view


@pytest.mark.parametrize("typed,train_id", [("lenet", "./lenet"), ("./lenet/", "./lenet"), (".", "./"),
                                            ("./", "./"), ("exp/rank_0", "./exp/rank_0")])
def test_a_job_is_named_as_the_user_types_it(typed, train_id):
    assert train_id_of(typed) == train_id


def test_the_command_line_says_where_to_open():
    parse = build_parser().parse_args
    assert start_at(parse(["logs"])) is None
    assert start_at(parse(["logs", "--job", "run_a", "--view", "images"])) == StartAt(("./run_a",), "images", "")
    assert start_at(parse(["logs", "--compare", "./b, a,b", "--tags", "loss|acc"])) == \
        StartAt(("./b", "./a"), "scalars", "loss|acc")
    assert start_at(parse(["logs", "--view", "lineage"])) == StartAt((), "lineage", "")


def test_job_view_and_tags_open_straight_there(ui_logs):
    app = make_app(ui_logs, start_at=StartAt(("./run_a",), "scalars", "loss|acc"))

    async def body(pilot):
        await wait_for_view(pilot, app)
        screen = app.screen
        view = screen.active_view
        return type(screen), screen.train_ids, screen.current, view.state.tags.visible()

    screen, jobs, current, visible = run_pilot(app, body)
    assert screen is DashboardScreen and jobs == ("./run_a",) and current == "scalars"
    assert visible == ("acc", "loss")


def test_compare_opens_the_jobs_in_the_order_given_on_the_view_asked_for(ui_logs):
    app = make_app(ui_logs, start_at=StartAt(("./run_c", "./run_a"), "histograms"))

    async def body(pilot):
        await wait_for_view(pilot, app, "HistogramsView")
        return app.screen.train_ids, app.screen.current

    assert run_pilot(app, body) == (("./run_c", "./run_a"), "histograms")


def test_a_job_that_does_not_exist_says_so_and_stays_on_the_job_list(ui_logs):
    app = make_app(ui_logs, start_at=StartAt(("./nope",), "scalars"))

    async def body(pilot):
        assert await wait_for(pilot, lambda: bool(notices(app)))
        return type(app.screen), notices(app)

    screen, said = run_pilot(app, body, notifications=True)
    assert screen is JobsScreen
    assert any("No job ./nope" in text and "./run_a" in text for text in said)


def test_tags_that_match_nothing_say_so_and_fall_back_to_the_job_list(ui_logs):
    app = make_app(ui_logs, start_at=StartAt(("./run_a",), "scalars", "no_such_tag"))

    async def body(pilot):
        assert await wait_for(pilot, lambda: bool(notices(app)) and isinstance(app.screen, JobsScreen))
        return notices(app)

    said = run_pilot(app, body, notifications=True)
    assert any("No scalar tag matches 'no_such_tag'" in text for text in said)


def scalar_settings(app):
    state = app.screen.active_view.state
    return state.smoothing, state.x_axis, state.tags.visible()


def test_leaving_and_reopening_a_job_brings_its_view_back(ui_logs):
    app = make_app(ui_logs)

    async def body(pilot):
        app.open_jobs(("./run_a",))
        await wait_for_view(pilot, app)
        await pilot.press("s", "s", "x")
        before = scalar_settings(app)
        await pilot.press("escape")
        assert await wait_for(pilot, lambda: isinstance(app.screen, JobsScreen))
        app.open_jobs(("./run_a",))
        await wait_for_view(pilot, app)
        after = scalar_settings(app)
        app.open_jobs(("./run_b",))  # another job starts from the defaults
        await wait_for_view(pilot, app)
        return before, after, scalar_settings(app)

    before, after, other = run_pilot(app, body)
    assert before == after and before[0] > 0 and before[1] == "relative"
    assert other[0] == 0 and other[1] == "step"


def test_quitting_and_starting_again_brings_the_views_back(ui_logs, tmp_path):
    home = tmp_path / "state"

    def app_with_workspace(fresh=False):
        workspace, notice = Workspace.open(str(ui_logs), fresh=fresh, home=home)
        assert notice == ""
        return make_app(ui_logs, workspace=workspace)

    first = app_with_workspace()

    async def change(pilot):
        first.open_jobs(("./run_a",))
        await wait_for_view(pilot, first)
        await pilot.press("s", "x")
        return scalar_settings(first)

    settings = run_pilot(first, change)  # quitting saves the workspace
    saved = json.loads(next((home / "workspaces").iterdir()).read_text())
    assert "scalars@./run_a" in saved["views"]

    again = app_with_workspace()
    assert run_pilot(again, _opener(again)) == settings
    fresh = app_with_workspace(fresh=True)
    assert run_pilot(fresh, _opener(fresh)) != settings


def test_a_changed_view_is_saved_a_moment_later_without_quitting(ui_logs, tmp_path):
    """The workspace is saved shortly after it changes (a crash later keeps it), by a timer that
    runs only then."""
    home = tmp_path / "state"
    workspace, _ = Workspace.open(str(ui_logs), home=home)
    app = make_app(ui_logs, workspace=workspace)

    async def change(pilot):
        app.open_jobs(("./run_a",))
        await wait_for_view(pilot, app)
        await pilot.press("s", "x")
        saved = await wait_for(pilot, lambda: (home / "workspaces").is_dir()
                               and any("scalars@./run_a" in p.read_text() for p in (home / "workspaces").iterdir()),
                               timeout=20)
        return saved, app.workspace.dirty

    assert run_pilot(app, change) == (True, False)


def test_a_state_remembered_off_the_ui_thread_is_saved_too(ui_logs, tmp_path):
    """The workspace may be told from any thread; the save is still set up on the app's."""
    home = tmp_path / "state"
    workspace, _ = Workspace.open(str(ui_logs), home=home)
    app = make_app(ui_logs, workspace=workspace)

    async def remember_from_a_thread(pilot):
        assert await wait_for(pilot, lambda: not app.workspace.dirty, timeout=20)
        await asyncio.to_thread(app.workspace.remember, "app", "jobs", {"cursor": "./run_b"})
        return await wait_for(pilot, lambda: not app.workspace.dirty, timeout=20)

    assert run_pilot(app, remember_from_a_thread)
    saved = json.loads(next((home / "workspaces").iterdir()).read_text())
    assert saved["views"]["jobs@app"] == {"cursor": "./run_b"}


def _opener(app):
    async def body(pilot):
        app.open_jobs(("./run_a",))
        await wait_for_view(pilot, app)
        return scalar_settings(app)
    return body


def test_the_command_line_offers_every_view_of_the_registry():
    from tui_insight.cli import VIEW_CHOICES
    from tui_insight.ui.views.registry import VIEWS

    assert sorted(VIEW_CHOICES) == sorted(spec.view_id for spec in VIEWS)


def test_a_workspace_entry_of_the_wrong_type_is_ignored(tmp_path):
    """`"graph@./job": {"graph": 1}` and the like (a hand-edited or damaged file): each view
    opens on its defaults where a value is wrong, and the app goes on."""
    from fixture_paths import MINDSPORE_LOGS
    from tui_insight.workspace import FORMAT_VERSION, workspace_path

    home = tmp_path / "state"
    job = "./lenet_lr0.01"
    wrong = {"graph": 1, "expanded": 2, "selected": [], "tags": 3, "places": "x", "cursors": {"a": 1},
             "charts": [1], "smoothing": "high", "x_axis": 4, "mode": None}
    views = {f"{view}@{job}": wrong for view in ("scalars", "histograms", "tensors", "graph")}
    views["jobs@app"] = {"sort": 1, "marked": 2, "headline": []}
    path = workspace_path(str(MINDSPORE_LOGS), home)
    path.parent.mkdir(parents=True)
    path.write_text(json.dumps({"version": FORMAT_VERSION, "logdir": str(MINDSPORE_LOGS), "views": views}))
    workspace, notice = Workspace.open(str(MINDSPORE_LOGS), home=home)
    assert notice == ""
    app = make_app(MINDSPORE_LOGS, workspace=workspace)

    async def body(pilot):
        shown = []
        for view_id, view in [("scalars", "ScalarsView"), ("histograms", "HistogramsView"),
                              ("tensors", "TensorsView"), ("graph", "GraphView")]:
            app.open_jobs((job,), view_id)
            await wait_for_view(pilot, app, view)
            shown.append(type(app.screen.active_view).__name__)
            await pilot.press("escape")
            await wait_for(pilot, lambda: isinstance(app.screen, JobsScreen))
        return app.return_code, shown

    assert run_pilot(app, body) == (None, ["ScalarsView", "HistogramsView", "TensorsView", "GraphView"])
