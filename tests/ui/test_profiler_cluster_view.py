"""The profiler across ranks (`c` in the profiler view) in the whole app, at 80x24 and 160x48, on
four ranks' profiles written by MindSpore (`mindspore_ranks/`): the ranks' step times, the op
types' spread, the way back, a job that is one rank alone, and ranks without steps."""
from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from fixture_paths import EXTRAS_LOGS, RANKS_LOGS
from uihelp import make_app, run_pilot, wait_for

from tui_insight.summary.formats.profiler import find_profiles, load_profile
from tui_insight.summary.queries.profiler_cluster import cluster, rank_refs
from tui_insight.ui.views.profiler import ProfilerView
from tui_insight.ui.views.profiler_cluster import NO_STEPS


def screen_text(app) -> str:
    return "\n".join(strip.text for strip in app.screen._compositor.render_strips())


def expected(root: Path):
    refs = [(f"./{d.name}", ref) for d in sorted(root.iterdir()) if d.is_dir() for ref in find_profiles(str(d))]
    return cluster([(rank, tid, load_profile(ref, shapes=False, timeline=False)) for rank, tid, ref in rank_refs(refs)])


async def open_cluster(pilot, job_row: int = 0) -> str:
    app = pilot.app
    for _ in range(job_row):
        await pilot.press("down")
    await pilot.press("enter")
    await pilot.pause(0.3)
    await pilot.press("7")
    assert await wait_for(pilot, lambda: bool(app.screen.query(ProfilerView))
                          and app.screen.query_one(ProfilerView).profile is not None)
    view = app.screen.query_one(ProfilerView)
    await pilot.press("c")
    assert await wait_for(pilot, lambda: not view.loader.pending())
    await pilot.pause()
    return screen_text(app)


@pytest.mark.parametrize("size", [(80, 24), (160, 48)])
def test_ranks_side_by_side_and_back(size):
    table = expected(RANKS_LOGS)

    async def body(pilot):
        text = await open_cluster(pilot)
        assert "Across ranks  c: back to this rank's profile" in text
        slowest = ", ".join(map(str, table.slowest))
        assert f"4 ranks · compared by step time · spread {table.spread_ms:.3f} ms" in text
        assert f"slowest first: rank {slowest}" in text
        for r in table.ranks:
            row = next(line for line in text.splitlines() if line.strip().startswith(f"{r.rank}  ./rank_{r.rank}"))
            assert f"{r.step_ms:.3f}" in row and f"{r.total_ms:.3f}" in row
            assert ("◀ slowest" in row) == (r.rank == table.slowest[0])
        top = table.types[0]
        row = next(line for line in text.splitlines() if line.strip().startswith(top.op_type))
        assert [f"{t:.3f}" for t in top.times_ms] == row.split()[1:5]
        assert row.split()[5:8] == [f"{top.spread_ms:.3f}", str(top.slowest_rank), str(top.fastest_rank)]
        if size[0] >= 160:
            assert f"({top.spread_share:.0%})" in row
        await pilot.press("c")
        await pilot.pause()
        back = screen_text(pilot.app)
        assert "c: back to this rank's profile" not in back and "Time share per op type" in back

    run_pilot(make_app(RANKS_LOGS), body, size=size)


def test_one_rank_alone_says_there_is_no_cluster(tmp_path):
    shutil.copytree(EXTRAS_LOGS / "profiled_pynative", tmp_path / "profiled_pynative")

    async def body(pilot):
        text = await open_cluster(pilot)
        assert "no cluster: the job list holds one rank's profile only" in text

    run_pilot(make_app(tmp_path), body, size=(80, 24))


def test_ranks_without_steps_compare_total_op_time_and_say_so(tmp_path):
    shutil.copytree(RANKS_LOGS, tmp_path / "ranks")
    for stamps in (tmp_path / "ranks" / "rank_1").glob("*/FRAMEWORK/cpu_op_execute_timestamp_1.txt"):
        stamps.unlink()
    totals = {r.rank: r.total_ms for r in expected(RANKS_LOGS).ranks}
    slowest = ", ".join(str(k) for k in sorted(totals, key=lambda k: (-totals[k], k)))

    async def body(pilot):
        text = await open_cluster(pilot)
        assert f"compared by total op time · spread {max(totals.values()) - min(totals.values()):.3f} ms" in text
        assert f"slowest first: rank {slowest}" in text
        flat = " ".join(text.split())
        assert " ".join(NO_STEPS.split()[:6]) in flat

    run_pilot(make_app(tmp_path / "ranks"), body, size=(160, 48))


@pytest.mark.parametrize("size", [(80, 24), (160, 48)], ids=["80x24", "160x48"])
def test_snapshot_across_ranks(snap_compare, size):
    from uihelp import wait_for_view

    async def run_before(pilot):
        app = pilot.app
        app.open_jobs(("./rank_0",), "profiler")
        await wait_for_view(pilot, app, "ProfilerView")
        view = app.screen.active_view
        assert await wait_for(pilot, lambda: view.profile is not None and not view.loader.pending())
        await pilot.press("c")
        assert await wait_for(pilot, lambda: not view.loader.pending())
        await pilot.pause(0.2)

    assert snap_compare(make_app(RANKS_LOGS), terminal_size=size, run_before=run_before)


@pytest.mark.parametrize("size", [(80, 24), (160, 48)])
def test_the_footer_offers_c_in_every_section_at_80_columns(size):
    """The profiler's footer keeps `]` and `c` at 80 columns in every section and across ranks
    (`[`, `-` and `z` are in the lines above it and in the help, and still work)."""

    async def body(pilot):
        app = pilot.app
        await open_cluster(pilot)
        view = app.screen.query_one(ProfilerView)
        shown = {"across": [key.description for key in app.screen.query("FooterKey")]}
        await pilot.press("c")
        for _ in range(4):
            await pilot.pause()
            shown[view.state.section] = [key.description for key in app.screen.query("FooterKey")]
            await pilot.press("right_square_bracket")
        before = view.state.section
        await pilot.press("left_square_bracket")
        return shown, before, view.state.section

    shown, before, after = run_pilot(make_app(RANKS_LOGS), body, size=size)
    assert set(shown) == {"across", "types", "ops", "steps", "timeline"}
    for keys in shown.values():
        assert {"Next section", "Across ranks", "Help"} <= set(keys)
        assert not {"Previous section", "Zoom out", "Zoom to span"} & set(keys)
    assert "Pick profile" in shown["types"] and "Zoom in" in shown["timeline"]
    assert (before, after) == ("types", "timeline")  # [ from the first section: the last one
