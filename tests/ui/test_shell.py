"""Pilot tests of the app shell and the job list: every key does what the help says."""
from __future__ import annotations

import threading

from textual.command import CommandPalette
from textual.widgets import Input, Static
from uihelp import MINDSPORE_LOGS, NOW, STEPS, T0, make_app, notices, open_help, run_pilot, wait_for, wait_for_view, write_run

from tui_insight.summary.formats.writer import SummaryWriter
from tui_insight.summary.store.cache import SummaryCache
from tui_insight.summary.store.job_view import STATE_MEANINGS, Changes
from tui_insight.ui.app import InsightApp, load_keymap
from tui_insight.ui.common.filters import compile_filter
from tui_insight.ui.dialogs import ExportScreen
from tui_insight.ui.screens.dashboard import DashboardScreen, ViewScreen
from tui_insight.ui.screens.jobs import JobsScreen
from tui_insight.ui.views.registry import JOB_VIEWS, VIEW_CLASSES, VIEWS, view_class
from tui_insight.ui.widgets.job_table import JobTable
from tui_insight.summary.queries.sparkline import sparkline


def table(app) -> JobTable:
    return app.screen.query_one(JobTable)


def cell_text(app, tid: str, column: str) -> str:
    return table(app).cell(tid, column)


# -- start, loading, progress ---------------------------------------------------------------------

class HeldCache(SummaryCache):
    """A cache whose first look at LOGDIR waits until the test lets it go."""

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.let_go = threading.Event()  # (not `release`: SummaryCache.release lets a screen's hold go)
        discover = self.source.discover

        def held(*args, **kwargs):
            self.let_go.wait(10)
            return discover(*args, **kwargs)

        self.source.discover = held  # type: ignore[method-assign]


def test_starts_before_loading_and_fills_as_jobs_load():
    """The job list is up before anything is read; the loading thread fills it."""
    cache = HeldCache(str(MINDSPORE_LOGS), clock=lambda: NOW)  # before the files: a cut tail is "growing"
    app = InsightApp(cache, reload_interval=0)
    seen = {}

    async def body(pilot):
        seen["first_rows"] = table(app).row_count
        seen["first_progress"] = str(app.screen.query_one("#progress", Static).render())
        cache.let_go.set()
        assert await wait_for(pilot, lambda: table(app).row_count == 8
                              and all(v.loaded for v in cache.jobs.values()) and cache.progress.reloads >= 1)
        await pilot.pause(0.4)  # a progress tick
        seen["rows"] = list(table(app).order)
        seen["state"] = cell_text(app, "./damaged_truncated", "state")
        seen["progress"] = str(app.screen.query_one("#progress", Static).render())
        loading["thread"] = cache.loading_thread

    loading: dict = {}
    run_pilot(app, body)
    assert seen["first_rows"] == 0 and "loading" in seen["first_progress"].lower()
    assert seen["rows"] == sorted(seen["rows"]) and "./lenet_lr0.01" in seen["rows"]
    assert seen["state"] == "+"  # growing
    assert "8 jobs" in seen["progress"] and "MB read" in seen["progress"]
    assert loading["thread"] is not None and not loading["thread"].is_alive()  # stopped on exit


def test_a_job_opens_on_the_view_asked_for(monkeypatch):
    """open_jobs(..., view_id) lands on that view once: the tabs' own first notice must not
    switch back (it used to start a scalars/graph ping-pong of ~100 switches a second)."""
    switches = []
    show_view = DashboardScreen.show_view
    monkeypatch.setattr(DashboardScreen, "show_view", lambda self, v: (switches.append(v), show_view(self, v)))
    app = make_app(MINDSPORE_LOGS)

    async def body(pilot):
        app.open_jobs(("./lenet_lr0.01",), view_id="graph")
        await pilot.pause(1.0)
        return app.screen.current, app.screen.query_one("#view-tabs").active

    assert run_pilot(app, body) == ("graph", "tab-graph")
    assert switches == ["graph"]


def test_job_row_shows_counts_step_time_sparkline_and_live(ui_logs):
    write_run(ui_logs, "run_live", mtime=NOW - 5, live=True)
    app = make_app(ui_logs)

    async def body(pilot):
        return {tid: {col: cell_text(app, tid, col) for col in ("files", "tags", "step", "updated", "trend", "live")}
                for tid in table(app).order}

    rows = run_pilot(app, body)
    assert rows["./run_a"]["files"] == "1/0/0/0"
    assert rows["./run_a"]["tags"] == "3/0/0/0"
    assert rows["./run_c"]["tags"] == "2/0/0/0"
    assert rows["./run_a"]["step"] == "40"
    assert rows["./run_a"]["updated"] == "10m ago"
    assert rows["./run_live"]["updated"] == "5s ago"
    assert rows["./run_live"]["live"] == "● live" and rows["./run_a"]["live"] == ""
    assert len(rows["./run_a"]["trend"]) == 10 and set(rows["./run_a"]["trend"]) <= set("▁▂▃▄▅▆▇█")


def test_relative_times_and_live_markers_follow_the_clock(ui_logs):
    write_run(ui_logs, "run_live", mtime=NOW - 5, live=True)
    now = [NOW]
    app = make_app(ui_logs, clock=lambda: now[0])

    async def body(pilot):
        before = (cell_text(app, "./run_live", "updated"), cell_text(app, "./run_live", "live"))
        now[0] = NOW + 120  # two minutes later: the once-a-second tick moves the texts on
        assert await wait_for(pilot, lambda: cell_text(app, "./run_live", "updated") == "2m ago", timeout=3)
        return before, cell_text(app, "./run_live", "live"), cell_text(app, "./run_a", "updated")

    before, live_after, other = run_pilot(app, body)
    assert before == ("5s ago", "● live")
    assert live_after == ""
    assert other == "12m ago"


def test_sparkline_scales_to_min_and_max():
    assert sparkline([0, 1, 2, 3, 4, 5, 6, 7], 8) == "▁▂▃▄▅▆▇█"
    assert sparkline([3.0, float("nan"), 3.0], 10) == "▄▄"
    assert sparkline([], 10) == ""


# -- global keys ------------------------------------------------------------------------------------

def test_the_clock_and_cache_ticks_are_quiet_while_the_job_list_is_torn_down(ui_logs):
    """The app's 1 s clock timer can fire while the app shuts down, after the table is gone."""
    app = make_app(ui_logs)

    async def body(pilot):
        screen = app.screen
        assert isinstance(screen, JobsScreen)
        await screen.query_one(JobTable).remove()
        screen.tick()
        screen.cache_changed(Changes(added={"./run_a"}))
        app.tick_clock()
        return True

    assert run_pilot(app, body)


def test_help_lists_the_bindings_of_the_screen_grouped(ui_logs):
    app = make_app(ui_logs)

    async def body(pilot):
        text = await open_help(pilot)
        await pilot.press("escape")
        await pilot.pause()
        return text, type(app.screen)

    text, after = run_pilot(app, body)
    assert "Job list" in text and "Everywhere" in text
    for binding_id in ("jobs.compare", "jobs.mark", "jobs.filter", "app.quit", "app.export", "app.focus_next"):
        assert binding_id in text
    assert after is JobsScreen


def test_the_job_list_help_says_what_each_state_means(ui_logs):
    app = make_app(ui_logs)

    async def body(pilot):
        return await open_help(pilot)

    text = run_pilot(app, body)
    assert "Job states" in text
    for state, meaning in STATE_MEANINGS.items():
        assert f"{state}  {meaning}" in text


def test_help_on_the_scalar_view_lists_its_keys(ui_logs):
    app = make_app(ui_logs)

    async def body(pilot):
        await pilot.press("enter")
        await wait_for_view(pilot, app)
        return await open_help(pilot)

    text = run_pilot(app, body)
    assert "Scalars" in text and "Dashboard" in text
    for binding_id in ("scalars.smooth_more", "scalars.x_axis", "scalars.zoom_back", "dashboard.histograms"):
        assert binding_id in text


def test_q_quits(ui_logs):
    app = make_app(ui_logs)

    async def body(pilot):
        await pilot.press("q")
        await pilot.pause()
        return app.is_running

    assert run_pilot(app, body) is False


def test_palette_has_a_command_for_every_action(ui_logs):
    app = make_app(ui_logs)

    async def body(pilot):
        titles = [c.title for c in app.get_system_commands(app.screen)]
        await pilot.press("ctrl+p")
        await pilot.pause()
        opened = isinstance(app.screen, CommandPalette)
        await pilot.press(*"Open job ./run_b")
        from textual.command import CommandList

        commands = app.screen.query_one(CommandList)
        assert await wait_for(pilot, lambda: commands.option_count > 0)
        await pilot.press("down", "enter")
        await wait_for(pilot, lambda: isinstance(app.screen, DashboardScreen))
        return titles, opened, app.screen

    titles, opened, screen = run_pilot(app, body)
    for title in ("Job list: Compare", "Job list: Mark", "Job list: Filter", "Job list: Sort", "Everywhere: Export CSV",
                  "Everywhere: Lineage", "Everywhere: Help", "Compare marked jobs", "Theme: insight-light",
                  "Open job ./run_a"):
        assert title in titles, title
    assert opened
    assert isinstance(screen, DashboardScreen) and screen.train_ids == ("./run_b",)


def test_palette_runs_a_binding_action(ui_logs):
    app = make_app(ui_logs)

    async def body(pilot):
        await pilot.press("enter")
        await wait_for_view(pilot, app)
        commands = {c.title: c.callback for c in app.get_system_commands(app.screen)}
        await commands["Dashboard: Tensors"]()
        await pilot.pause()
        before = app.screen.query_one("ScalarsView").state.smoothing
        await commands["Scalars: Smooth more"]()
        await pilot.pause()
        return app.screen.current, before, app.screen.query_one("ScalarsView").state.smoothing

    current, before, after = run_pilot(app, body)
    assert current == "tensors"
    assert after > before


# -- job list: filter, sort, marks, open, compare ---------------------------------------------------

def test_filter_by_substring_and_regex(ui_logs):
    write_run(ui_logs, "other_run")
    app = make_app(ui_logs)

    async def body(pilot):
        await pilot.press("slash")
        await pilot.press(*"run")
        await pilot.pause()
        substring = list(table(app).order)
        box = app.screen.query_one("#jobs-filter", Input)
        box.value = r"^\./run_[ab]$"
        await pilot.pause()
        regex = list(table(app).order)
        box.value = "[run"  # not a regex: a substring
        await pilot.pause()
        broken = list(table(app).order)
        await pilot.press("enter")  # back to the table, filter kept
        focused_table = app.focused is table(app)
        await pilot.press("escape")  # clears the filter
        await pilot.pause()
        return substring, regex, broken, focused_table, list(table(app).order)

    substring, regex, broken, focused_table, cleared = run_pilot(app, body)
    assert substring == ["./other_run", "./run_a", "./run_b", "./run_c"]
    assert regex == ["./run_a", "./run_b"]
    assert broken == []
    assert focused_table
    assert len(cleared) == 4


def test_compile_filter():
    assert compile_filter("lr0.1")("./lenet_lr0.1")
    assert compile_filter("LENET")("./lenet_lr0.1")
    assert compile_filter("(")("./a(b") and not compile_filter("(")("./ab")


def test_sort_by_columns(ui_logs):
    write_run(ui_logs, "short", steps=5, mtime=NOW - 500)
    app = make_app(ui_logs)

    async def body(pilot):
        orders = {}
        t = table(app)
        for key in ("step", "updated"):
            t.set_sort(key, reverse=False)
            await pilot.pause()
            orders[key] = list(t.order)
        await pilot.press("S")
        await pilot.pause()
        orders["updated reversed"] = list(t.order)
        await pilot.press("right", "s")  # the column cursor to the next column, and sort by it
        await pilot.pause()
        orders["next"] = t.sort_key
        return orders

    orders = run_pilot(app, body)
    assert orders["step"][0] == "./short"
    assert orders["updated"][-1] == "./short"  # oldest first
    assert orders["updated reversed"][0] == "./short"
    assert orders["next"] == "tags"


def test_mouse_sorts_by_header_and_opens_a_row(ui_logs):
    write_run(ui_logs, "short", steps=5)
    app = make_app(ui_logs)

    async def body(pilot):
        t = table(app)
        app.screen.state = app.screen.state.with_column("step")  # the column cursor brings it in
        await pilot.pause()
        x = t.column_x("step") + 1  # inside "last step"
        await pilot.click(JobTable, offset=(x, 0))
        await pilot.pause()
        sorted_by = (t.sort_key, t.sort_reverse, list(t.order))
        await pilot.click(JobTable, offset=(x, 0))  # again: reversed
        await pilot.pause()
        reversed_ = t.sort_reverse
        await pilot.click(JobTable, offset=(3, 2))  # second row: the cursor moves there
        await pilot.pause()
        cursor = t.current_job
        await pilot.click(JobTable, offset=(3, 2))  # a click on the cursor row opens it
        await pilot.pause()
        return sorted_by, reversed_, cursor, app.screen

    (key, reverse, order), reversed_, cursor, screen = run_pilot(app, body)
    assert key == "step" and reverse and order[-1] == "./short"  # the most steps first
    assert not reversed_
    assert isinstance(screen, DashboardScreen) and screen.train_ids == (cursor,)


def test_enter_opens_and_escape_returns_to_the_same_job(ui_logs):
    app = make_app(ui_logs)

    async def body(pilot):
        await pilot.press("down")
        await pilot.press("enter")
        await pilot.pause()
        opened = app.screen
        await pilot.press("escape")
        await pilot.pause()
        return opened, app.screen, table(app).current_job

    opened, back, current = run_pilot(app, body)
    assert isinstance(opened, DashboardScreen) and opened.train_ids == ("./run_b",)
    assert isinstance(back, JobsScreen) and current == "./run_b"


def test_space_marks_and_c_compares_in_marking_order(ui_logs):
    app = make_app(ui_logs)

    async def body(pilot):
        await pilot.press("c")  # nothing marked: a warning, no screen
        await pilot.pause()
        nothing = app.screen
        await pilot.press("down", "down", "space")  # marks run_c, the cursor stays on it
        await pilot.press("up", "up", "up", "space")  # marks run_a
        marks = (cell_text(app, "./run_c", "mark").strip(), cell_text(app, "./run_b", "mark").strip())
        await pilot.press("c")
        await pilot.pause()
        return nothing, marks, app.screen

    nothing, marks, screen = run_pilot(app, body)
    assert isinstance(nothing, JobsScreen)
    assert marks == ("●", "")
    assert isinstance(screen, DashboardScreen) and screen.train_ids == ("./run_c", "./run_a")


def test_views_switch_with_keys_1_to_5(ui_logs):
    app = make_app(ui_logs)

    async def body(pilot):
        app.open_jobs(("./run_a",))
        await wait_for_view(pilot, app)
        shown = []
        for key in ("2", "3", "4", "5", "1"):
            await pilot.press(key)
            await pilot.pause()
            view = app.screen.active_view
            shown.append((app.screen.current, type(view).__name__ if view is not None else None,
                          view is not None and view.display))
        return shown

    shown = run_pilot(app, body)
    assert [s[0] for s in shown] == ["histograms", "tensors", "images", "graph", "scalars"]
    for view_id, class_name, displayed in shown:
        assert class_name == view_class(view_id).__name__ and displayed


def test_the_registry_names_every_view_once_with_its_own_key_and_binding_ids():
    ids = [spec.view_id for spec in VIEWS]
    keys = [spec.key for spec in VIEWS]
    assert len(set(ids)) == len(ids) == len(VIEW_CLASSES) and len(set(keys)) == len(keys)
    # 1, 2, 3 ... 9; past nine (no key "10"), a capital letter (a digit is each view's zoom reset)
    digits = [str(i) for i in range(1, min(len(JOB_VIEWS), 9) + 1)]
    assert [spec.key for spec in JOB_VIEWS][:9] == digits
    assert all(len(spec.key) == 1 and spec.key.isupper() for spec in JOB_VIEWS[9:])
    assert "landscape" in [spec.view_id for spec in JOB_VIEWS]
    for cls in VIEW_CLASSES:
        assert view_class(cls.SPEC.view_id) is cls
        for binding in cls.BINDINGS:
            assert binding.id and binding.id.startswith(cls.SPEC.view_id + "."), (cls.__name__, binding.id)


def test_l_opens_lineage_of_all_jobs_and_escape_closes():
    app = make_app(MINDSPORE_LOGS)

    async def body(pilot):
        await pilot.press("l")
        await pilot.pause()
        screen = app.screen
        await pilot.press("escape")
        await pilot.pause()
        return screen, app.screen

    screen, after = run_pilot(app, body)
    assert isinstance(screen, ViewScreen) and screen.spec.view_id == "lineage"
    assert isinstance(after, JobsScreen)


# -- live --------------------------------------------------------------------------------------------

def test_new_jobs_appear_live_and_the_cursor_stays_on_its_job(ui_logs):
    app = make_app(ui_logs, load=False, start_loading=True, reload_interval=0.2)

    async def body(pilot):
        assert await wait_for(pilot, lambda: table(app).row_count == 3)
        await pilot.press("down")  # on ./run_b
        write_run(ui_logs, "aaa_new")  # sorts first: rows move under the cursor
        assert await wait_for(pilot, lambda: table(app).row_count == 4)
        await pilot.pause(0.2)
        with SummaryWriter(ui_logs / "run_b", timestamp=int(T0) + 100, wall_time=T0 + 100) as writer:
            writer.add_scalar("loss", 0.5)
            writer.record(STEPS + 7, wall_time=T0 + 500)
        assert await wait_for(pilot, lambda: cell_text(app, "./run_b", "step").strip() == str(STEPS + 7))
        return list(table(app).order), table(app).current_job

    order, current = run_pilot(app, body)
    assert order[0] == "./aaa_new"
    assert current == "./run_b"


# -- themes, keymap ---------------------------------------------------------------------------------

def test_theme_option_and_unknown_theme(ui_logs):
    light = make_app(ui_logs, theme="insight-light")
    bad = make_app(ui_logs, theme="no-such-theme")

    async def body_light(pilot):
        return light.theme, light.current_theme.dark

    async def body_bad(pilot):
        await pilot.pause()
        return bad.theme, notices(bad)

    assert run_pilot(light, body_light) == ("insight-light", False)
    theme, notes = run_pilot(bad, body_bad, notifications=True)
    assert theme == "insight-dark"
    assert any("no-such-theme" in n for n in notes)


def test_no_color_is_respected(ui_logs, monkeypatch):
    monkeypatch.setenv("NO_COLOR", "1")
    app = make_app(ui_logs)

    async def body(pilot):
        await pilot.press("enter")
        await wait_for_view(pilot, app)
        chart = app.screen.query("ScalarChart").first()
        return app.no_color, chart.image()

    no_color, image = run_pilot(app, body)
    assert no_color
    segments = [seg for line in image.lines for seg in line]
    assert segments and all(seg.style is None or seg.style.color is None for seg in segments)


def test_keymap_file_remaps_a_binding_by_id(ui_logs, tmp_path):
    path = tmp_path / "keymap.toml"
    path.write_text('[keymap]\n"jobs.compare" = "k"\n')
    keymap, problem = load_keymap(path)
    assert problem == "" and keymap == {"jobs.compare": "k"}
    bad = tmp_path / "bad.toml"
    bad.write_text("[keymap\n")
    assert load_keymap(bad)[1].startswith(f"keymap {bad} ignored")
    app = make_app(ui_logs, keymap=keymap)

    async def body(pilot):
        await pilot.press("space")
        await pilot.press("k")
        await pilot.pause()
        return app.screen

    screen = run_pilot(app, body)
    assert isinstance(screen, DashboardScreen) and screen.train_ids == ("./run_a",)


# -- export -------------------------------------------------------------------------------------------

def test_e_exports_what_the_view_shows(ui_logs, tmp_path):
    out = tmp_path / "snapshot"
    app = make_app(ui_logs)

    async def body(pilot):
        await pilot.press("enter")
        await wait_for_view(pilot, app)
        await pilot.press("slash", *"loss", "enter")  # only the loss chart
        await pilot.press("e")
        assert await wait_for(pilot, lambda: isinstance(app.screen, ExportScreen))
        app.screen.query_one("#export-path", Input).value = str(ui_logs / "inside")
        await pilot.press("enter")
        assert await wait_for(pilot, lambda: "refusing" in str(app.screen.query_one("#export-error", Static).render()))
        refused = str(app.screen.query_one("#export-error", Static).render())
        app.screen.query_one("#export-path", Input).value = str(out)
        app.screen.query_one("#export-go").disabled = False
        await pilot.press("enter")
        done = await wait_for(pilot, lambda: not isinstance(app.screen, ExportScreen))
        assert done, str(app.screen.query_one("#export-error", Static).render())
        return refused

    refused = run_pilot(app, body)
    assert "refusing to write inside the log directory" in refused
    assert not (ui_logs / "inside").exists()
    rows = (out / "scalars.csv").read_text().splitlines()
    assert rows[0].startswith("train_id,tag,step")
    assert len(rows) == 1 + 40 and all(",loss," in row for row in rows[1:])


def test_help_shows_bracket_keys_as_they_are():
    """`[` and `]` are markup characters: the help must show them plainly, aligned."""
    from textual.binding import Binding
    from textual.markup import to_content

    from tui_insight.ui.screens.help import help_text

    class Keys:
        def get_key_display(self, binding):
            return binding.key

    groups = {"Scalars": [("[", Binding("[", "pan(-1)", "Pan left", id="scalars.pan_left"), None),
                          ("]", Binding("]", "pan(1)", "Pan right", id="scalars.pan_right"), None)]}
    lines = to_content(help_text(groups, Keys())).plain.splitlines()
    assert lines[1] == f"{'[':>14}  {'Pan left':<26} scalars.pan_left"
    assert lines[2] == f"{']':>14}  {'Pan right':<26} scalars.pan_right"


def test_cache_changes_that_come_before_a_view_is_ready_wait_for_it():
    """A reload can land between building a view and its widgets being composed (seen as
    "No nodes match 'TensorChart'" when opening straight on tensors): the view gets them later."""
    app = make_app(MINDSPORE_LOGS)
    job = ("./lenet_lr0.01",)

    async def body(pilot):
        screen = app.screen
        delivered = []
        for cls in VIEW_CLASSES:
            view = cls(app.cache, job)
            view.cache_changed = lambda changes, name=cls.__name__: delivered.append(name)
            view.deliver_changes(Changes(updated={job[0]: set()}))  # not composed: kept
            assert cls.__name__ not in delivered
            await screen.mount(view)
            assert await wait_for(pilot, lambda name=cls.__name__: name in delivered)
            await view.remove()
        return delivered

    assert run_pilot(app, body) == [cls.__name__ for cls in VIEW_CLASSES]


def test_help_on_a_view_ends_with_the_view_s_note(ui_logs):
    app = make_app(ui_logs)

    async def body(pilot):
        app.open_jobs(("./run_a",))
        await wait_for_view(pilot, app)
        return await open_help(pilot)

    text = run_pilot(app, body)
    assert "Reading the charts" in text and "× NaN" in text


def test_a_job_with_a_profile_counts_it_and_a_lone_profile_is_a_job():
    from fixture_paths import EXTRAS_LOGS

    app = make_app(EXTRAS_LOGS)

    async def body(pilot):
        return {tid: cell_text(app, tid, "files") for tid in table(app).order}

    files = run_pilot(app, body)
    assert files["./profiled"].endswith("/1") and files["./profiled"].startswith("1/")
    assert files["./profiled_legacy"] == "0/0/0/1"
    assert files["./landscape_step"].endswith("/0")


def test_a_tag_that_is_not_utf8_neither_stops_the_job_list_nor_its_view(tmp_path):
    from hostile_logs import write_invalid_utf8_tag

    (tmp_path / "bad").mkdir()
    write_invalid_utf8_tag(tmp_path / "bad")
    write_run(tmp_path, "good")
    app = make_app(tmp_path)

    async def body(pilot):
        rows = list(table(app).order)
        app.open_jobs(("./bad",))
        await wait_for_view(pilot, app)
        view = app.screen.active_view
        titles = [str(chart.border_title) for chart in view.query("ScalarChart")]
        return rows, view.state.tags.visible(), titles

    rows, visible, titles = run_pilot(app, body)
    assert rows == ["./bad", "./good"]
    assert visible == ("acc", "loss\\xff\\xfe")
    assert any("loss\\xff\\xfe" in title for title in titles)


def test_the_clock_tick_after_the_screens_are_gone_is_quiet():
    """The clock's tick may fire while the app shuts down, its screens already popped
    (seen once in CI as a ScreenStackError traceback)."""
    app = make_app(MINDSPORE_LOGS)

    async def body(pilot):
        return len(app.screen_stack)

    assert run_pilot(app, body) == 1 and app.screen_stack == []
    app.tick_clock()  # raised ScreenStackError
