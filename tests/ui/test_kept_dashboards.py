"""A job opened again shows the dashboard kept from its last opening (`screens.kept`): the same
widgets, the view it was left on, and what was written while the user was away; at most `KEEP`
are kept, and one whose job left LOGDIR is not. The job the cursor rests on has its dashboard
built ahead, off screen."""
from __future__ import annotations

import asyncio
import shutil

import pytest

from uihelp import MINDSPORE_LOGS, NOW, T0, make_app, post_key, run_pilot, wait_for, wait_for_view

from tui_insight.summary.formats.writer import SummaryWriter
from tui_insight.summary.store.cache import SummaryCache
from tui_insight.summary.store.job_view import Changes
from tui_insight.ui.app import InsightApp
from tui_insight.ui.screens import load_dashboard
from tui_insight.ui.screens.jobs import JobsScreen
from tui_insight.ui.screens.kept import KEEP, LINEAGE
from tui_insight.ui.views.scalars import ScalarsView
from tui_insight.ui.widgets.job_table import JobTable

STEPS = 20


def write_steps(root, name: str, first: int, last: int, timestamp: int) -> None:
    with SummaryWriter(root / name, timestamp=timestamp, wall_time=T0) as writer:
        for step in range(first, last + 1):
            writer.add_scalar("loss", 1.0 / step)
            writer.record(step, wall_time=T0 + step)


async def open_job(pilot, app, name: str):
    """`enter` on the job's row (found with `/`); its scalar chart once it has the keyboard."""
    await pilot.press("slash", *name, "enter", "enter")
    await wait_for_view(pilot, app)
    view = app.screen.query_one(ScalarsView)
    assert await wait_for(pilot, lambda: "loss" in view.charts)
    return view.charts["loss"]


async def back_to_jobs(pilot, app) -> None:
    await pilot.press("escape")
    assert await wait_for(pilot, lambda: isinstance(app.screen, JobsScreen))
    await pilot.press("escape")  # the job list's filter off


def test_a_job_opened_again_shows_the_same_charts_with_the_steps_written_meanwhile(tmp_path):
    write_steps(tmp_path, "run_a", 1, STEPS, int(T0))
    write_steps(tmp_path, "run_b", 1, STEPS, int(T0))
    app = make_app(tmp_path)

    async def body(pilot):
        first = await open_job(pilot, app, "run_a")
        dashboard = app.screen
        await back_to_jobs(pilot, app)
        write_steps(tmp_path, "run_a", STEPS + 1, STEPS + 5, int(T0) + 100)
        app.cache.reload()  # as the loading thread does on a change notice
        await pilot.pause(0.1)
        again = await open_job(pilot, app, "run_a")
        assert await wait_for(pilot, lambda: len(again.traces[0].x) == STEPS + 5, timeout=5)
        steps_again = len(again.traces[0].x)
        shown_again = app.screen is dashboard
        await back_to_jobs(pilot, app)
        other = await open_job(pilot, app, "run_b")
        return again is first, shown_again, steps_again, other is first

    same_chart, same_screen, steps, other_is_first = run_pilot(app, body, size=(100, 30))
    assert same_chart and same_screen  # not built again
    assert steps == STEPS + 5  # the steps written while on the job list are drawn
    assert not other_is_first  # another job: its own dashboard


def test_the_dashboard_kept_longest_ago_is_built_again_and_a_gone_job_leaves_none(tmp_path):
    names = [f"run_{i}" for i in range(KEEP + 1)]
    for name in names:
        write_steps(tmp_path, name, 1, STEPS, int(T0))
    app = make_app(tmp_path)

    async def body(pilot):
        charts = {}
        for name in names:
            charts[name] = await open_job(pilot, app, name)
            await back_to_jobs(pilot, app)
        kept = {}
        for name in (names[-1], names[0]):
            kept[name] = (await open_job(pilot, app, name)) is charts[name]
            await back_to_jobs(pilot, app)
        shutil.rmtree(tmp_path / names[-1])
        app.cache.reload()
        assert await wait_for(pilot, lambda: f"./{names[-1]}" not in app.cache.jobs)
        # The app hears of the change a moment later (its changes are delivered in batches).
        gone = (f"./{names[-1]}",)
        await wait_for(pilot, lambda: gone not in app.kept_dashboards, timeout=5)
        return kept, gone in app.kept_dashboards

    kept, gone_kept = run_pilot(app, body, size=(100, 30))
    # The last opened was kept; the first, opened KEEP jobs ago, was let go and is built anew.
    assert kept == {names[-1]: True, names[0]: False}
    assert not gone_kept  # the gone job's dashboard is let go


def test_a_dashboard_kept_through_a_theme_change_comes_back_in_the_new_theme(tmp_path):
    """Showing a kept dashboard again does not restyle it whole (`StyledOnceScreen`) unless the
    CSS changed since: after a theme change it is drawn in the new colours, as a new one is."""
    write_steps(tmp_path, "run_a", 1, STEPS, int(T0))
    write_steps(tmp_path, "run_b", 1, STEPS, int(T0))
    app = make_app(tmp_path, theme="insight-dark")

    def colours() -> tuple[str, str]:
        view = app.screen.query_one(ScalarsView)
        return str(view.styles.background), str(view.charts["loss"].styles.border_top[1])

    async def body(pilot):
        await open_job(pilot, app, "run_a")
        before = colours()
        await back_to_jobs(pilot, app)
        app.switch_theme("insight-light")
        await pilot.pause(0.1)
        await open_job(pilot, app, "run_a")
        kept = colours()
        await back_to_jobs(pilot, app)
        await open_job(pilot, app, "run_b")
        return before, kept, colours()

    before, kept, new = run_pilot(app, body, size=(100, 30))
    assert kept == new
    assert kept != before


def test_the_job_the_cursor_rests_on_has_its_dashboard_built_ahead_and_enter_shows_it(tmp_path):
    """Resting on a job builds its dashboard off screen (holding its series), once the user has
    pressed a key; moving on lets it go (the series may go) for the next job's; `enter` shows
    that job's dashboard."""
    for name in ("run_a", "run_b", "run_c"):
        write_steps(tmp_path, name, 1, STEPS, int(T0))
    cache = SummaryCache(str(tmp_path), clock=lambda: NOW, memory_budget=1)  # no job keeps its series unheld
    cache.reload()
    app = InsightApp(cache, start_loading=False, reload_interval=0, clock=lambda: NOW, logdir_label="LOGDIR",
                     graph_prefetch_delay=None)
    load_dashboard()  # imported, as the job list does a second after it settled

    def detailed() -> list[str]:
        return sorted(tid for tid, job in cache.jobs.items() if job.detailed)

    async def body(pilot):
        table = app.screen.query_one(JobTable)
        first = table.current_job
        await pilot.pause(0.5)
        alone = detailed()  # no key yet: nothing built ahead (an app left alone stays idle)
        await pilot.press("down")  # the cursor moved: the timer starts again
        second = table.current_job
        assert await wait_for(pilot, lambda: detailed() == [second])
        await pilot.press("down")
        third = table.current_job
        assert await wait_for(pilot, lambda: detailed() == [third])
        await pilot.press("enter")
        await wait_for_view(pilot, app)
        chart = app.screen.query_one(ScalarsView).charts["loss"]
        return alone, first, third, app.screen.train_ids, len(chart.traces[0].x)

    alone, first, third, shown, steps = run_pilot(app, body, size=(100, 30))
    assert alone == [] and first != third
    assert (shown, steps) == ((third,), STEPS)


def test_the_app_ends_cleanly_while_a_dashboard_is_being_built_ahead():
    """A dashboard built ahead that is still mounting when the app ends is let finish and taken
    down whole: no handler runs against a half-closed dashboard (a traceback at exit)."""
    app = make_app(MINDSPORE_LOGS)
    load_dashboard()

    async def body(pilot):
        await pilot.press("slash", *"lenet")  # the cursor rests on the first lenet job
        await pilot.pause(0.3)  # its dashboard is being built ahead
        return type(app.screen).__name__

    assert run_pilot(app, body) == "JobsScreen"  # and ended without an exception


def test_a_dashboard_built_ahead_and_let_go_repaints_nothing_of_the_job_list(tmp_path):
    """The job list is not painted again when a dashboard built ahead is taken down for the next
    one: nothing on it changed, and that frame would fall in the window of the user's next key
    (Textual reflows and repaints the screen shown whenever a screen is removed)."""
    from test_textual_compat import count_paints

    for name in ("run_a", "run_b"):
        write_steps(tmp_path, name, 1, STEPS, int(T0))
    app = make_app(tmp_path)
    load_dashboard()

    async def body(pilot):
        app.build_ahead(("run_a",))
        first = app.get_screen("dashboard:run_a")
        assert await wait_for(pilot, lambda: first.is_mounted)
        await pilot.pause(0.3)  # laid out and painted off screen
        painted = count_paints(app)
        app.build_ahead(("run_b",))  # lets run_a's go
        assert await wait_for(pilot, lambda: not first.is_attached and app.get_screen("dashboard:run_b").is_mounted)
        await pilot.pause(0.3)
        return len(painted), type(app.screen).__name__

    assert run_pilot(app, body, size=(100, 30)) == (0, "JobsScreen")


def count_made(monkeypatch, cls) -> list[int]:
    """A list that gets a 1 each time an instance of `cls` is made (for the test's duration)."""
    made: list[int] = []
    init = cls.__init__

    def counted(self, *args, **kwargs):
        made.append(1)
        init(self, *args, **kwargs)

    monkeypatch.setattr(cls, "__init__", counted)
    return made


def test_lineage_is_built_ahead_once_the_keys_rested_and_kept_between_visits(monkeypatch):
    """Two seconds without keys on the job list build the lineage screen off screen: `l` then
    makes no lineage view, only shows it; `escape` and `l` again show the same screen, with the
    jobs marked meanwhile counted."""
    from tui_insight.ui.views.lineage import LineageView

    app = make_app(MINDSPORE_LOGS)
    load_dashboard()
    made = count_made(monkeypatch, LineageView)

    async def body(pilot):
        await pilot.press("slash", *"lenet_lr0.01", "enter")  # a key: the app may work ahead
        # Resting: the job's dashboard, then (after two seconds) lineage, built ahead (its view
        # is made as its screen composes, a turn or more after the screen is kept).
        assert await wait_for(pilot, lambda: LINEAGE in app.kept_dashboards and made, timeout=10)
        before = len(made)
        await pilot.press("l")
        await wait_for_view(pilot, app, "LineageView")
        first = app.screen
        await pilot.press("escape")
        assert await wait_for(pilot, lambda: isinstance(app.screen, JobsScreen))
        await pilot.press("space")  # marks the job under the cursor
        await pilot.press("l")
        await wait_for_view(pilot, app, "LineageView")
        status = str(app.screen.query_one("#lineage-status").render())
        return before, len(made), app.screen is first, status

    before, after, same, status = run_pilot(app, body, size=(100, 30))
    assert (before, after, same) == (1, 1, True)
    assert "1 marked" in status


def test_two_marked_jobs_have_their_comparison_built_ahead_for_c(monkeypatch):
    """Two jobs marked and the keys rested: `c` shows their dashboard built off screen, it makes none."""
    app = make_app(MINDSPORE_LOGS)
    dashboard = load_dashboard()
    made = count_made(monkeypatch, dashboard.DashboardScreen)

    async def body(pilot):
        await pilot.press("home", "space", "down", "space")
        marked = tuple(app.marked)
        # Resting: the comparison's dashboard built ahead (then the cursor's).
        assert await wait_for(pilot, lambda: marked in app.kept_dashboards, timeout=10)
        before = len(made)
        await pilot.press("c")
        await wait_for_view(pilot, app)
        return marked, before, len(made), app.screen.train_ids

    marked, before, after, shown = run_pilot(app, body, size=(100, 30))
    assert len(marked) == 2 and shown == marked
    assert before == after  # nothing made by `c`


def test_a_dashboard_built_ahead_is_painted_only_between_keys_a_few_widgets_a_step(monkeypatch):
    """While keys come (one every 40 ms, 1.2 s), no widget of a dashboard being built ahead is painted:
    each step waits for a pause after the key, whose frame comes first. Once the keys stop it is
    painted, a few widgets a step, so no step holds up a key for long."""
    from textual.widget import Widget

    from tui_insight.ui.screens import kept

    app = make_app(MINDSPORE_LOGS)
    load_dashboard()
    rendered: list[tuple[int, str]] = []  # (step, widget) for each widget of the screen rendered
    steps = [0]
    render_lines = Widget.render_lines
    settle = kept.KeptScreens._settle_ahead

    def counted_render(self, crop):
        if self.is_attached and self.screen is not app.screen and self.screen.id == "ahead":
            rendered.append((steps[0], type(self).__name__))
        return render_lines(self, crop)

    def counted_settle(self, *args):
        steps[0] += 1
        return settle(self, *args)

    monkeypatch.setattr(Widget, "render_lines", counted_render)
    monkeypatch.setattr(kept.KeptScreens, "_settle_ahead", counted_settle)

    async def body(pilot):
        await pilot.press("down")
        app.kept_dashboards.build_ahead(("./lenet_lr0.01",),
                                        lambda: load_dashboard().DashboardScreen(("./lenet_lr0.01",), id="ahead"))
        for key in ["up", "down"] * 15:
            post_key(app, key)  # as typed: not waiting for the app in between
            await asyncio.sleep(0.04)
        during = len(rendered)
        await pilot.pause(1.0)
        return during

    during = run_pilot(app, body, size=(160, 48))
    per_step: dict[int, int] = {}
    for step, _ in rendered:
        per_step[step] = per_step.get(step, 0) + 1
    assert during == 0
    assert len(per_step) > 1 and len(rendered) > len(per_step)  # painted, in several steps


def test_a_dashboard_built_ahead_counts_against_keep_once_shown(tmp_path):
    """Shown, a dashboard built ahead is kept as any other: the one opened longest ago goes at
    once, so no more than `KEEP` are kept."""
    names = [f"run_{i}" for i in range(KEEP + 1)]
    for name in names:
        write_steps(tmp_path, name, 1, STEPS, int(T0))
    app = make_app(tmp_path)
    load_dashboard()

    async def body(pilot):
        for name in names[:-1]:
            app.open_jobs((f"./{name}",))
            await wait_for_view(pilot, app)
            await pilot.press("escape")
            assert await wait_for(pilot, lambda: isinstance(app.screen, JobsScreen))
        last = (f"./{names[-1]}",)
        app.build_ahead(last)
        assert await wait_for(pilot, lambda: last in app.kept_dashboards)
        app.open_jobs(last)
        await wait_for_view(pilot, app)
        return [name for name in names if (f"./{name}",) in app.kept_dashboards]

    assert run_pilot(app, body, size=(100, 30)) == names[1:]


def three_runs_app(tmp_path):
    """An app on three runs of STEPS steps, the dashboard's modules imported."""
    for name in ("run_a", "run_b", "run_c"):
        write_steps(tmp_path, name, 1, STEPS, int(T0))
    app = make_app(tmp_path)
    load_dashboard()
    return app


async def build_cursor_ahead(app, pilot) -> tuple[JobTable, object]:
    """Start building the dashboard of the job list's cursor ahead: the list and that screen."""
    table = app.screen.query_one(JobTable)
    await pilot.pause()
    app.build_ahead((table.current_job,))
    return table, app.get_screen("dashboard:" + table.current_job)


async def moved_while(condition, table: JobTable, row: int, turns: int = 5000) -> bool:
    """Turn the event loop until the job list's cursor is on `row`; whether `condition()` held
    at the first turn it was (each turn lets every ready task take one step)."""
    for _ in range(turns):
        if table.cursor_row == row:
            return condition()
        await asyncio.sleep(0)
    raise AssertionError(f"the cursor never reached row {row}")


def test_a_key_is_handled_while_a_dashboard_built_ahead_is_still_mounting(tmp_path):
    """An arrow key pressed as a dashboard starts to be built ahead moves the cursor before that
    dashboard is mounted: the mount (70-200 ms of widgets composed and styled) does not hold the
    app's keys (Textual's own push of a new screen holds them until it is mounted)."""
    app = three_runs_app(tmp_path)

    async def body(pilot):
        table, ahead = await build_cursor_ahead(app, pilot)
        post_key(app, "down")
        mounting = await moved_while(lambda: not ahead.is_mounted, table, 1)
        assert await wait_for(pilot, lambda: ahead.is_mounted)
        return mounting

    assert run_pilot(app, body, size=(100, 30))


def test_a_key_is_handled_while_a_dashboard_built_ahead_is_being_let_go(tmp_path):
    """A dashboard built ahead whose job left LOGDIR is taken down without holding the app's
    keys: an arrow key pressed as it is let go moves the cursor before it is gone."""
    app = three_runs_app(tmp_path)

    async def body(pilot):
        table = app.screen.query_one(JobTable)
        gone = sorted(app.cache.jobs)[-1]
        app.build_ahead((gone,))
        ahead = app.get_screen("dashboard:" + gone)
        assert await wait_for(pilot, lambda: ahead.is_mounted)
        await pilot.pause(0.3)  # laid out and painted off screen
        shutil.rmtree(tmp_path / gone)
        app.cache.reload()
        for _ in range(100_000):  # the app hears of the change a moment later
            if (gone,) not in app.kept_dashboards:
                break
            await asyncio.sleep(0)
        post_key(app, "home" if table.cursor_row else "down")
        going = await moved_while(lambda: ahead.is_attached, table, 1 - table.cursor_row)
        assert await wait_for(pilot, lambda: not ahead.is_attached)
        return going

    assert run_pilot(app, body, size=(100, 30))


def test_a_dashboard_opened_while_still_being_built_ahead_is_shown_once_mounted(monkeypatch, tmp_path):
    """Opening the job whose dashboard is being built ahead before it is mounted, at a view
    (`open_jobs`, as lineage and the comparison do), shows that dashboard at that view once it
    is mounted: none is made again."""
    for name in ("run_a", "run_b"):
        write_steps(tmp_path, name, 1, STEPS, int(T0))
    app = make_app(tmp_path)
    dashboards = load_dashboard()

    async def body(pilot):
        table = app.screen.query_one(JobTable)
        made = count_made(monkeypatch, dashboards.DashboardScreen)
        app.build_ahead((table.current_job,))
        ahead = app.get_screen("dashboard:" + table.current_job)
        mounting = not ahead.is_mounted
        app.open_jobs((table.current_job,), "scalars")
        await wait_for_view(pilot, app)
        return mounting, app.screen is ahead, len(made)

    assert run_pilot(app, body, size=(100, 30)) == (True, True, 1)


@pytest.mark.parametrize("letting_go", [False, True])
def test_the_app_ends_cleanly_when_quit_as_a_dashboard_built_ahead_mounts_or_is_let_go(tmp_path, letting_go):
    """`q` pressed while a dashboard is being built ahead, or while one let go is being taken
    down (neither holds the keys): each is let finish and taken down whole before the app
    closes what is left one node at a time (a tab strip mounting with its tabs closed under it
    ended the app with a traceback)."""
    app = three_runs_app(tmp_path)

    async def body(pilot):
        jobs = sorted(app.cache.jobs)
        app.build_ahead((jobs[0],))
        if letting_go:
            first = app.get_screen("dashboard:" + jobs[0])
            assert await wait_for(pilot, lambda: first.is_mounted)
            app.kept_dashboards.keep = 0  # none built ahead any more: the first is only let go
            app.kept_dashboards.changed(Changes(removed={jobs[0]}))  # as when its job leaves LOGDIR
        post_key(app, "q")
        for _ in range(200):
            if not app.is_running:
                break
            await asyncio.sleep(0.05)

    run_pilot(app, body, size=(100, 30))


def test_a_key_is_painted_before_a_dashboard_built_ahead_mounts_more_widgets(tmp_path):
    """A key sent by the terminal as a dashboard is being built ahead stops that build until the
    key is served: from the moment the key moved the cursor to the frame that shows it, no widget
    of the dashboard is composed (each would take a turn of the event loop, and the key's
    messages wait a turn at each hop); once the keys rest, the build goes on to the end."""
    app = three_runs_app(tmp_path)

    async def body(pilot):
        table, ahead = await build_cursor_ahead(app, pilot)
        widgets = lambda: sum(1 for _ in ahead.walk_children())  # noqa: E731
        for _ in range(5000):  # its compose has begun
            if widgets():
                break
            await asyncio.sleep(0)
        painted: list[tuple[int, int]] = []  # (cursor row, the dashboard's widgets) at each paint
        display = app._display

        def recorded(screen, renderable):
            if renderable is not None:
                painted.append((table.cursor_row, widgets()))
            return display(screen, renderable)

        app._display = recorded
        pressing = asyncio.ensure_future(pilot.press("down"))  # sent through the driver, as the terminal's keys
        moved_with = await moved_while(widgets, table, 1)
        for _ in range(5000):
            if any(row == 1 for row, _ in painted):
                break
            await asyncio.sleep(0)
        shown_with = next(count for row, count in painted if row == 1)
        await pressing
        assert await wait_for(pilot, lambda: ahead.is_mounted)
        return moved_with, shown_with, ahead.is_mounted

    moved_with, shown_with, mounted = run_pilot(app, body, size=(100, 30))
    assert shown_with == moved_with
    assert mounted
