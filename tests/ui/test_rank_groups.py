"""Pilot tests of rank groups in the job list (issue 29): a training's ranks are one row that `+`
expands and `-` folds, its badges the worst of its ranks' with `straggler` and `rank diverging`;
enter opens the group's dashboard, each scalar as the mean line over the ranks' min–max band."""
from __future__ import annotations

from pathlib import Path

import pytest
from health_logs import falling, write_scalars
from rank_logs import copy_profile, write_finished_group, write_profiled_group
from uihelp import MTIME, make_app, run_beside, run_pilot, wait_for, wait_for_view

from tui_insight.ui.screens.dashboard import DashboardScreen
from tui_insight.ui.views.scalars import ScalarsView
from tui_insight.ui.widgets.job_table import JobTable
from tui_insight.workspace import Workspace

GROUP = "\0./exp/rank_*"
RANK_IDS = [f"./exp/rank_{r}" for r in range(4)]
GROUP_NAME = "./exp/rank_*"
SIZES = pytest.mark.parametrize("size", [(80, 24), (160, 48)], ids=["80x24", "160x48"])


@pytest.fixture
def rank_logs(tmp_path: Path) -> Path:
    """Four ranks, rank 2's loss jumps over its last 30 steps, rank 3 stopped at step 60; two
    other runs."""
    root = tmp_path / "logs"
    write_finished_group(root, MTIME - 100, jump=2, short=3)
    write_scalars(root, "solo", {"loss": falling(100)}, MTIME - 100, interval=0.5)
    write_scalars(root, "other", {"loss": falling(100) + 0.1}, MTIME - 100, interval=0.5)
    return root


def table(app) -> JobTable:
    return app.screen.query_one(JobTable)


def shown_rows(t: JobTable) -> list[str]:
    """The table's rows as drawn, without the header."""
    return [t.render_line(y).text for y in range(1, t.row_count + 1)]


@SIZES
def test_the_ranks_are_one_row_that_plus_expands_and_minus_folds(rank_logs, size):
    app = make_app(rank_logs)

    async def body(pilot):
        t = table(app)
        folded = (list(t.order), t.cell(GROUP, "id"), t.cell(GROUP, "health"), shown_rows(t))
        t.move_cursor(t.order.index(GROUP))
        await pilot.press("plus")
        expanded = (list(t.order), {tid: t.cell(tid, "health") for tid in RANK_IDS}, shown_rows(t),
                    app.screen.state.to_json()["expanded"])
        t.move_cursor(t.order.index("./exp/rank_3"))
        await pilot.press("minus")
        return folded, expanded, (list(t.order), t.current_job)

    folded, expanded, refolded = run_pilot(app, body, size=size)
    order, name, badges, rows = folded
    assert order == [GROUP, "./other", "./solo"]  # by health: the group has badges
    assert name == "+ ./exp/rank_* (4 ranks)" and badges == "rank diverging straggler"
    assert "rank diverging" in rows[0] and "./other" in rows[1]
    order, rank_badges, rows, remembered = expanded
    assert order == [GROUP, *RANK_IDS, "./other", "./solo"]
    assert rank_badges == {"./exp/rank_0": "", "./exp/rank_1": "", "./exp/rank_2": "rank diverging",
                           "./exp/rank_3": "straggler"}
    # (a row starts with the mark column: a space, the mark, a space)
    assert rows[0].startswith("    - ./exp/")  # (at 80 columns cut in its middle)
    assert [row[:18] for row in rows[1:5]] == [f"      ./exp/rank_{r}" for r in range(4)]  # indented by two
    assert remembered == ["./exp/rank_*"]
    assert refolded == ([GROUP, "./other", "./solo"], GROUP)  # the cursor goes to the group's row


def test_plus_on_a_job_that_is_no_rank_says_so(rank_logs):
    app = make_app(rank_logs)

    async def body(pilot):
        t = table(app)
        t.move_cursor(t.order.index("./solo"))
        await pilot.press("plus")
        return list(t.order), [n.message for n in app._notifications]

    order, said = run_pilot(app, body)
    assert order == [GROUP, "./other", "./solo"]
    assert any("No rank group here" in text for text in said)


@SIZES
def test_the_group_dashboard_draws_the_mean_over_the_band_and_r_adds_a_rank(rank_logs, size):
    app = make_app(rank_logs)

    async def body(pilot):
        t = table(app)
        t.move_cursor(t.order.index(GROUP))
        await pilot.press("enter")
        await wait_for_view(pilot, app)
        screen = app.screen
        view = screen.query_one(ScalarsView)
        chart = view.charts["loss"]
        assert await wait_for(pilot, lambda: bool(chart.traces))
        first = [(tr.kind, len(tr.x)) for tr in chart.traces]
        band = chart.traces[0]
        await pilot.press("r", "r", "r")
        await pilot.pause()
        third = [(tr.kind, len(tr.x), tr.colour) for tr in chart.traces]
        await pilot.press("r", "r")
        await pilot.pause()
        every = [tr.kind for tr in chart.traces]
        title = str(screen.query_one("#dashboard-title").render())
        return isinstance(screen, DashboardScreen), screen.train_ids, first, band, third, every, view, title

    is_dashboard, ids, first, band, third, every, view, title = run_pilot(app, body, size=size)
    assert is_dashboard and ids == tuple(RANK_IDS)
    assert title.startswith(f"{GROUP_NAME} · 4 ranks") and "compare" not in title  # named as the group
    assert first == [("band", 100), ("line", 100)]  # min–max band, mean line, at every step any rank logged
    loss = [falling(100) + 0.01 * r for r in range(4)]
    assert band.y[0] == pytest.approx(float(min(v[0] for v in loss)), abs=1e-6)
    assert band.upper[0] == pytest.approx(float(loss[3][0]), abs=1e-6)
    assert band.upper[-1] == pytest.approx(float(loss[2][-1] + 0.2), abs=1e-6)  # rank 2's jump
    assert [k for k, _, _ in third] == ["band", "line", "line"] and third[2][1] == 100
    assert third[2][2] == view.job_colour("./exp/rank_2")  # the third r: rank 2 over the band
    assert every == ["line"] * 4  # then every rank's own line


@SIZES
def test_snapshot_rank_group_expanded(snap_compare, rank_logs, size):
    app = make_app(rank_logs)

    async def expand(pilot):
        assert await wait_for(pilot, lambda: bool(pilot.app.screen.query(JobTable)) and table(pilot.app).row_count)
        await pilot.press("plus")

    assert snap_compare(app, terminal_size=size, run_before=expand)


@SIZES
def test_snapshot_rank_group_dashboard(snap_compare, rank_logs, size):
    app = make_app(rank_logs)

    async def open_group(pilot):
        assert await wait_for(pilot, lambda: bool(pilot.app.screen.query(JobTable)) and table(pilot.app).row_count)
        await pilot.press("enter")
        await wait_for_view(pilot, pilot.app)
        await pilot.pause()

    assert snap_compare(app, terminal_size=size, run_before=open_group)


def test_space_on_a_group_row_marks_its_ranks_together(rank_logs):
    app = make_app(rank_logs)

    async def body(pilot):
        t = table(app)
        t.move_cursor(t.order.index(GROUP))
        await pilot.press("space")
        marked = list(app.marked)
        await pilot.press("space")
        return marked, list(app.marked)

    marked, after = run_pilot(app, body)
    assert marked == RANK_IDS and after == []


@pytest.fixture
def profiled_logs(tmp_path: Path) -> Path:
    """`./exp/{a,b,c}`, no rank in their paths, each with MindSpore's profile of rank 2, 0, 1;
    `./runs/x` and `./runs/y` both profiled as rank 0 (two trainings); `./rank_logs/rank_0..1`
    whose rank 1 holds the profile of rank 3."""
    root = tmp_path / "logs"
    write_profiled_group(root, MTIME - 100, {"a": 2, "b": 0, "c": 1})
    write_profiled_group(root, MTIME - 100, {"x": 0, "y": 0}, parent="runs")
    for rank in range(2):
        job = write_scalars(root, f"pathed/rank_{rank}", {"loss": falling(100)}, MTIME - 100, interval=0.5)
        copy_profile(3 if rank == 1 else rank, job)
    return root


@SIZES
def test_jobs_whose_profiles_name_their_ranks_are_one_row(profiled_logs, size):
    """Grouped through the job list as the user sees it: the row, its line, enter, the title."""
    app = make_app(profiled_logs)
    group = "\0./exp/*"

    async def body(pilot):
        t = table(app)
        assert await wait_for(pilot, lambda: group in t.order and "\0./pathed/rank_*" in t.order)
        order, name = list(t.order), t.cell(group, "id")
        t.move_cursor(t.order.index(group))
        await pilot.pause()
        line = str(app.screen.query_one("#jobs-cursor").render())
        t.move_cursor(t.order.index("\0./pathed/rank_*"))
        await pilot.pause()
        pathed = str(app.screen.query_one("#jobs-cursor").render())
        t.move_cursor(t.order.index(group))
        await pilot.press("plus")
        expanded = [t.cell(tid, "id") for tid in t.order[t.order.index(group):][:4]]
        await pilot.press("enter")
        await wait_for_view(pilot, app)
        view = app.screen.query_one(ScalarsView)
        assert await wait_for(pilot, lambda: bool(view.charts["loss"].traces))
        kinds = [tr.kind for tr in view.charts["loss"].traces]
        title = str(app.screen.query_one("#dashboard-title").render())
        return order, name, line, pathed, expanded, app.screen.train_ids, kinds, title

    order, name, line, pathed, expanded, ids, kinds, title = run_pilot(app, body, size=size)
    assert sorted(order) == sorted(["\0./exp/*", "\0./pathed/rank_*", "./runs/x", "./runs/y"])
    assert name == "+ ./exp/* (3 ranks)"
    assert line.startswith("./exp/* · 3 ranks (profiler rank ids)")
    # The path's rank wins over the profile's; the line says where they differ.
    assert "rank 1's profiler says rank 3" in pathed
    assert expanded[0].startswith("- ./exp/*") and [e.strip() for e in expanded[1:]] == ["./exp/b", "./exp/c", "./exp/a"]
    assert ids == ("./exp/b", "./exp/c", "./exp/a")  # by rank: 0, 1, 2
    assert kinds == ["band", "line"] and title.startswith("./exp/* · 3 ranks")


def test_the_ranks_view_r_chose_comes_back_after_a_restart(rank_logs, tmp_path):
    """`r` is saved with the group dashboard's other settings (the workspace), and a new start on
    the same LOGDIR opens the group's charts on it; `--fresh` on the band."""
    home = tmp_path / "state"

    def started(fresh: bool = False):
        workspace, notice = Workspace.open(str(rank_logs), fresh=fresh, home=home)
        assert notice == ""
        return make_app(rank_logs, workspace=workspace)

    def open_group(app, presses: tuple[str, ...] = ()):
        async def body(pilot):
            t = table(app)
            t.move_cursor(t.order.index(GROUP))
            await pilot.press("enter")
            await wait_for_view(pilot, app)
            view = app.screen.query_one(ScalarsView)
            chart = view.charts["loss"]
            assert await wait_for(pilot, lambda: bool(chart.traces))
            if presses:
                await pilot.press(*presses)
                await pilot.pause()
            return [(tr.kind, tr.colour) for tr in chart.traces], view.job_colour("./exp/rank_2")
        return body

    first = started()
    chosen, rank_2 = run_pilot(first, open_group(first, ("r", "r", "r")))  # quitting saves the workspace
    assert [k for k, _ in chosen] == ["band", "line", "line"] and chosen[2][1] == rank_2
    again = started()
    assert run_pilot(again, open_group(again)) == (chosen, rank_2)
    fresh = started(fresh=True)
    assert [k for k, _ in run_pilot(fresh, open_group(fresh))[0]] == ["band", "line"]


def test_profiles_that_appear_while_the_app_runs_group_their_jobs(tmp_path):
    """The profiles come after the summaries (MindSpore writes them when profiling stops): the
    jobs become one row at the reload that finds them."""
    root = tmp_path / "logs"
    jobs = [write_scalars(root, f"exp/{name}", {"loss": falling(100)}, MTIME - 100, interval=0.5) for name in "ab"]
    app = make_app(root)

    def profile():
        for rank, job in enumerate(jobs):
            copy_profile(rank, job)
        app.cache.reload()  # as the loading thread does on the change notice

    async def body(pilot):
        t = table(app)
        before = list(t.order)
        await run_beside(pilot, profile)
        assert await wait_for(pilot, lambda: "\0./exp/*" in t.order)
        return before, list(t.order)

    before, after = run_pilot(app, body)
    assert before == ["./exp/a", "./exp/b"] and after == ["\0./exp/*"]
