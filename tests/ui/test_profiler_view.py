"""Profiler view (`7`): sections, the op table's keys (sort, filter, detail), steps, memory, the
timeline's keys, the profile picker, bad input and the remembered state. The view is hosted
alone in a small app, as the dashboard builds it (the registry does not list it yet)."""
from __future__ import annotations

import asyncio
import shutil
from pathlib import Path
from typing import Any

import pytest
from fixture_paths import EXTRAS_LOGS
from textual.app import App, ComposeResult
from textual.widgets import Footer, OptionList
from uihelp import make_app, run_pilot, wait_for, wait_for_view, write_run

from tui_insight.summary.store.cache import SummaryCache
from tui_insight.ui.app import InsightApp
from tui_insight.ui.views.profiler import ProfilePicker, ProfilerView
from tui_insight.ui.widgets.profile_table import OpTable
from tui_insight.ui.widgets.profile_timeline import TimelineChart


class Host(App):
    CSS_PATH = InsightApp.CSS_PATH

    def __init__(self, cache: SummaryCache, train_ids: tuple[str, ...], saved: dict | None = None):
        super().__init__()
        self.cache, self.train_ids, self.saved = cache, train_ids, saved
        self.shown_nodes: list[tuple[str, str]] = []

    def compose(self) -> ComposeResult:
        yield ProfilerView(self.cache, self.train_ids, saved=self.saved)
        yield Footer()

    def on_profiler_view_show_node(self, message: ProfilerView.ShowNode) -> None:
        self.shown_nodes.append((message.train_id, message.node))


def screen_text(app: App) -> str:
    return "\n".join(strip.text for strip in app.screen._compositor.render_strips())


def run_view(logdir: Path, train_id: str, body, size=(120, 36), saved: dict | None = None) -> Any:
    async def main():
        cache = SummaryCache(str(logdir))
        cache.reload()
        app = Host(cache, (train_id,), saved)
        async with app.run_test(size=size) as pilot:
            view = app.query_one(ProfilerView)
            assert await wait_for(pilot, lambda: view.profile is not None or bool(view.error))
            assert await wait_for(pilot, lambda: not view.loader.pending())
            await pilot.pause()
            return await body(pilot, app, view)

    return asyncio.run(main())


async def settle(pilot, view) -> None:
    await wait_for(pilot, lambda: not view.loader.pending())
    await pilot.pause()


def test_operator_types_section():
    async def body(pilot, app, view):
        text = screen_text(app)
        assert "vm_7957_20261123084417051_ascend_ms" in text and "15 ops · 240 calls" in text
        assert "Operator types │ Operators │ Steps │ Memory │ Timeline" in text
        assert "48.77%" in text  # the bars' text: presenters/test_profiler_presenter.py
        assert not app.query_one("#profiler-problems").display
        assert app.focused is app.query_one("#profiler-types")
    run_view(EXTRAS_LOGS, "./profiled_legacy", body)


def test_op_table_sort_filter_and_detail():
    async def body(pilot, app, view):
        await pilot.press("right_square_bracket")
        await settle(pilot, view)
        table = app.query_one(OpTable)
        assert app.focused is table and view.state.section == "ops"
        assert [o.name for o in table.rows[:2]] == ["Conv2D-op0", "MatMul-op0"]
        assert "total ms ▼" in screen_text(app)
        await pilot.press("s")  # next column: avg
        assert view.state.sort == "avg" and table.rows[0].name == "Conv2D-op0"
        await pilot.press("r")
        assert not view.state.descending and table.rows[0].avg_ms == min(o.avg_ms for o in table.rows)
        await pilot.press("S", "S", "S", "S", "S")  # back to name, A-Z
        assert view.state.sort == "name" and table.rows[0].name == "ApplyMomentum-op0"
        await pilot.press("slash", *"grad_mat", "enter")
        await settle(pilot, view)
        assert view.state.filter == "grad_mat"
        assert [o.full_name.split("/")[-2] for o in table.rows] == ["Grad_MatMul", "Grad_MatMul"]
        assert app.focused is table
        await pilot.press("down", "enter")
        await settle(pilot, view)
        assert view.state.detail and view.state.cursor == table.rows[1].full_name
        text = screen_text(app)
        assert "Calls over time" in text and "Input shapes: [8, 4]; [8, 256]" in text
        await pilot.press("g")
        assert app.shown_nodes == [("./profiled_legacy", table.rows[1].full_name)]
        await pilot.press("escape")
        assert not view.state.detail
        await pilot.press("escape")
        assert view.state.filter == "" and len(table.rows) == 15
    run_view(EXTRAS_LOGS, "./profiled_legacy", body)


def test_no_memory_section_without_a_record():
    async def body(pilot, app, view):
        assert view.sections() == ["types", "ops", "steps", "timeline"]
        assert "Steps │ Timeline" in screen_text(app)
    run_view(EXTRAS_LOGS, "./profiled", body, saved={"section": "memory"})


def test_timeline_keys():
    async def body(pilot, app, view):
        await pilot.press("left_square_bracket")  # wraps to the timeline
        assert await wait_for(pilot, lambda: view.timeline is not None)
        await settle(pilot, view)
        chart = app.query_one(TimelineChart)
        assert app.focused is chart
        text = screen_text(app)
        assert "CPU OP · Thread 0" in text and "Scope Layer · Thread 5" in text and "158 spans in 7 rows" in text
        await pilot.press("right")
        assert view.state.span == 0
        span = view.state.selected_span(view.timeline)
        assert span.name in screen_text(app)
        await pilot.press("down", "plus", "plus")
        assert view.state.track == 1 and view.state.window[1] == pytest.approx(0.25)
        await pilot.press("comma", "0")
        assert view.state.window == (0.0, 1.0)
        await pilot.press("z")
        assert view.state.window[1] < 1.0
        selected = view.state.selected_span(view.timeline)
        assert f"{selected.duration_us / 1000:.4g} ms" in screen_text(app)
    run_view(EXTRAS_LOGS, "./profiled", body)


def test_pynative_ops_have_no_scope():
    async def body(pilot, app, view):
        await pilot.press("right_square_bracket")
        await settle(pilot, view)
        relu = next(line for line in screen_text(app).splitlines() if line.startswith("ReLU "))
        assert "—" in relu
    run_view(EXTRAS_LOGS, "./profiled_pynative", body)


def copy_profile(root: Path, job: str, source: str = "profiled_legacy", name: str | None = None) -> Path:
    src = next((EXTRAS_LOGS / source).glob("*_ascend_ms"))
    target = root / job / (name or src.name)
    shutil.copytree(src, target)
    return target


def test_bad_input_shows_what_it_could_read(tmp_path):
    profile = copy_profile(tmp_path, "broken")
    detail = profile / "FRAMEWORK" / "cpu_op_detail_info_0.csv"
    detail.write_bytes(detail.read_bytes()[:-40])
    (profile / "FRAMEWORK" / "cpu_op_type_info_0.csv").unlink()
    trace = profile / "ASCEND_PROFILER_OUTPUT" / "trace_view.json"
    trace.write_bytes(trace.read_bytes()[:3000])

    async def body(pilot, app, view):
        text = " ".join(screen_text(app).split())
        assert "could not read:" in text and "cpu_op_detail_info_0.csv: line 16 cut short" in text
        assert "cpu_op_type_info_0.csv: missing" in text
        assert "summed from the operators" in text and "Conv2D" in text
        await pilot.press("left_square_bracket")
        assert await wait_for(pilot, lambda: view.timeline is not None)
        await settle(pilot, view)
        text = " ".join(screen_text(app).split())
        assert "trace_view.json: does not parse" in text
    run_view(tmp_path, "./broken", body)


def test_no_profile(tmp_path):
    (tmp_path / "empty").mkdir()

    async def body(pilot, app, view):
        assert "no profile in this job" in screen_text(app)
        await pilot.press("right_square_bracket", "slash", "p")  # nothing breaks
    run_view(tmp_path, "./empty", body)


def test_picker_newest_first(tmp_path):
    copy_profile(tmp_path, "two", "profiled", "vm_1_20260101000000000_ascend_ms")
    copy_profile(tmp_path, "two", "profiled_legacy", "vm_2_20260301000000000_ascend_ms")

    async def body(pilot, app, view):
        assert "vm_2_20260301000000000_ascend_ms" in screen_text(app) and "2 profiles (p: pick)" in screen_text(app)
        assert len(view.profile.calls) == 240
        await pilot.press("p")
        assert await wait_for(pilot, lambda: isinstance(app.screen, ProfilePicker))
        options = app.screen.query_one(OptionList)
        assert "vm_2" in str(options.get_option_at_index(0).prompt)
        await pilot.press("down", "enter")
        assert await wait_for(pilot, lambda: view.profile is not None and len(view.profile.calls) == 60)
        await settle(pilot, view)
        assert view.state.profile.endswith("vm_1_20260101000000000_ascend_ms#0")
        assert "vm_1_20260101000000000_ascend_ms" in screen_text(app)
    run_view(tmp_path, "./two", body)


def test_remembered_state_is_restored():
    saved = {"section": "ops", "sort": "name", "descending": False, "filter": "relu"}

    async def body(pilot, app, view):
        table = app.query_one(OpTable)
        assert [o.name for o in table.rows] == ["ReLU-op0", "ReluGrad-op0"]
        assert app.query_one("#profiler-filter").value == "relu"
        assert view.state.to_json()["filter"] == "relu"
    run_view(EXTRAS_LOGS, "./profiled", body, saved=saved)


def test_small_terminal_draws():
    async def body(pilot, app, view):
        for key in ("right_square_bracket",) * 4:
            await pilot.press(key)
            await settle(pilot, view)
            assert screen_text(app)
    run_view(EXTRAS_LOGS, "./profiled_legacy", body, size=(80, 24))


def test_g_on_an_op_shows_its_node_in_the_job_s_graph():
    """In the real dashboard: `7` opens the profiler; `g` on an op switches to the graph view on it."""
    from uihelp import make_app, run_pilot, wait_for_view

    from tui_insight.ui.views.graph import GraphView

    app = make_app(EXTRAS_LOGS)

    async def body(pilot):
        app.open_jobs(("./profiled",))
        await wait_for_view(pilot, app)
        await pilot.press("7")
        await wait_for_view(pilot, app, "ProfilerView")
        view = app.screen.active_view
        assert await wait_for(pilot, lambda: view.profile is not None and not view.loader.pending())
        await pilot.press("right_square_bracket")
        await settle(pilot, view)
        op = app.screen.query_one(OpTable).rows[0].full_name
        await pilot.press("g")
        assert await wait_for(pilot, lambda: app.screen.current == "graph")
        graph = app.screen.active_view
        assert isinstance(graph, GraphView)
        assert await wait_for(pilot, lambda: graph.graph_tree.cursor_name == op)
        return op, graph.state.selected

    op, selected = run_pilot(app, body, size=(160, 48))
    assert selected == op and "/" in op


def test_op_type_bars_drop_columns_instead_of_wrapping_on_a_narrow_terminal():
    from tui_insight.ui.widgets.profile_charts import share_bars

    rows = [("MatMul", 0.46, "46.22%\t    12 calls\t 3/step\ttotal    36.08 ms\tavg    3.007 ms"),
            ("SparseSoftmaxCrossEntropyWithLogits", 0.01, " 0.10%\t     8 calls\t 2/step\ttotal  0.08 ms\tavg 0.01 ms")]
    for width in (40, 76, 156):
        lines = share_bars(rows, width).plain.split("\n")
        assert len(lines) == 2 and all(len(line) <= width for line in lines), width
    wide = share_bars(rows, 156).plain
    narrow = share_bars(rows, 76).plain
    assert "avg    3.007 ms" in wide and "total" not in narrow and "3/step" in narrow


# -- snapshots, in the real dashboard ----------------------------------------------------------------

def _profiler_at(section_keys: tuple[str, ...]):
    from uihelp import wait_for_view

    async def run_before(pilot):
        app = pilot.app
        app.open_jobs(("./profiled_legacy",), "profiler")
        await wait_for_view(pilot, app, "ProfilerView")
        view = app.screen.active_view
        assert await wait_for(pilot, lambda: view.profile is not None and not view.loader.pending())
        await pilot.press(*section_keys)
        await settle(pilot, view)
        await pilot.pause(0.2)

    return run_before


@pytest.mark.parametrize("size", [(80, 24), (160, 48)], ids=["80x24", "160x48"])
def test_snapshot_operator_types(snap_compare, size):
    from uihelp import make_app

    assert snap_compare(make_app(EXTRAS_LOGS), terminal_size=size, run_before=_profiler_at(()))


@pytest.mark.parametrize("size", [(80, 24), (160, 48)], ids=["80x24", "160x48"])
def test_snapshot_operators(snap_compare, size):
    from uihelp import make_app

    assert snap_compare(make_app(EXTRAS_LOGS), terminal_size=size, run_before=_profiler_at(("right_square_bracket",)))


def test_landscape_and_profiler_tabs_show_only_on_jobs_with_such_data():
    """As the Text tab: a job without loss landscapes has no `6 Landscape` tab, one without a
    profile no `7 Profiler` tab; their keys do nothing there and the help does not list them. A
    comparison shows a tab when one of its jobs has the data."""
    from uihelp import make_app, open_help, run_pilot, wait_for_view

    app = make_app(EXTRAS_LOGS)

    async def visit(pilot, jobs):
        app.open_jobs(jobs)
        await wait_for_view(pilot, app)
        tabs = {view_id: app.screen.query_one(f"#tab-{view_id}").display for view_id in ("landscape", "profiler")}
        shown = []
        for key in ("6", "1", "7"):
            await pilot.press(key)
            await pilot.pause()
            shown.append(type(app.screen.active_view).__name__)
        await pilot.press("1")
        await wait_for_view(pilot, app)
        help_text = await open_help(pilot)
        await pilot.press("escape")
        await pilot.pause()
        app.pop_screen()
        await pilot.pause()
        return tabs, shown, ("Landscape" in help_text, "Profiler" in help_text)

    async def body(pilot):
        return [await visit(pilot, jobs) for jobs in
                (("./landscape_step",), ("./profiled",), ("./landscape_epoch", "./profiled_legacy"))]

    landscape_only, profile_only, both = run_pilot(app, body)
    assert landscape_only == ({"landscape": True, "profiler": False},
                              ["LandscapeView", "ScalarsView", "ScalarsView"], (True, False))
    assert profile_only == ({"landscape": False, "profiler": True},
                            ["ScalarsView", "ScalarsView", "ProfilerView"], (False, True))
    assert both == ({"landscape": True, "profiler": True},
                    ["LandscapeView", "ScalarsView", "ProfilerView"], (True, True))


@pytest.mark.parametrize("size", [(80, 24), (160, 48)])
def test_a_profile_only_job_opens_on_its_profile_and_a_job_with_scalars_on_scalars(tmp_path, size):
    copy_profile(tmp_path, "profile_only")
    write_run(tmp_path, "with_scalars")
    copy_profile(tmp_path, "with_scalars")
    app = make_app(tmp_path)

    async def body(pilot):
        opened = {}
        for tid, view_name in (("./profile_only", "ProfilerView"), ("./with_scalars", "ScalarsView")):
            assert await wait_for(pilot, lambda: tid in app.cache.jobs and app.cache.jobs[tid].ready)
            app.open_jobs((tid,))
            await wait_for_view(pilot, app, view_name)
            opened[tid] = app.screen.query_one("#view-tabs").active
            await pilot.press("escape")
            assert await wait_for(pilot, lambda: type(app.screen).__name__ == "JobsScreen")
        return opened

    assert run_pilot(app, body, size) == {"./profile_only": "tab-profiler", "./with_scalars": "tab-scalars"}
