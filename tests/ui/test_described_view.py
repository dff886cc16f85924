"""The described view (issue 26): audio, mesh and projector embeddings listed and described, at
80x24 and 160x48, on logs written by tensorboardX; `s` cycles the kinds, remembered."""
from __future__ import annotations

from described_logs import write_described
from textual.app import App, ComposeResult
from textual.widgets import Static
from uihelp import make_app, open_help, run_pilot, wait_for, wait_for_view

from tui_insight.summary.store.cache import SummaryCache
from tui_insight.ui.app import InsightApp
from tui_insight.ui.views.described import DescribedView


def body_text(view: DescribedView) -> str:
    return str(view.query_one("#described-content", Static).render())


def run_described(tmp_path, body, size):
    app = make_app(write_described(tmp_path / "logs"))

    async def wrapped(pilot):
        await pilot.press("enter")  # the only job
        await wait_for_view(pilot, app)
        await pilot.press("M")
        await wait_for_view(pilot, app, "DescribedView")
        view = app.screen.query_one(DescribedView)
        assert await wait_for(pilot, lambda: view.pending() == 0 and "Projector" in body_text(view))
        return await body(pilot, view)

    return run_pilot(app, wrapped, size=size)


def _lists_every_kind(tmp_path, size):
    async def body(pilot, view):
        every = body_text(view)
        await pilot.press("s")
        audio_only = body_text(view)
        for _ in range(3):
            await pilot.press("s")
        return every, audio_only, view.state.section, str(pilot.app.screen.query_one("#dashboard-not-shown").render())

    every, audio_only, section, line = run_described(tmp_path, body, size)
    assert "16000 Hz · 0.1 s · 1600 frames · 1 channel · 16-bit" in every
    assert "2 channels" in every
    assert "5 vertices  bounds x [0, 2]  y [0, 3]  z [-1, 1]" in every and "3 faces" in every
    assert "12 × 6 (12 points of 6 dimensions)" in every and "metadata: index, parity" in every
    assert "█" in every  # a waveform
    assert "Hz" in audio_only and "Mesh" not in audio_only and "Projector" not in audio_only
    assert section == "all"
    assert "M describes audio, embeddings, mesh" in line


def test_the_described_view_at_80x24(tmp_path):
    _lists_every_kind(tmp_path, (80, 24))


def test_the_described_view_at_160x48(tmp_path):
    _lists_every_kind(tmp_path, (160, 48))


def test_n_and_p_choose_the_point_whose_nearest_points_are_listed(tmp_path):
    async def body(pilot, view):
        assert await wait_for(pilot, lambda: "Nearest to point 0 of 12" in body_text(view))
        first = body_text(view)
        await pilot.press("n", "n")
        assert await wait_for(pilot, lambda: "Nearest to point 2 of 12 (2 · even)" in body_text(view))
        await pilot.press("p", "p", "p")
        assert await wait_for(pilot, lambda: "Nearest to point 11 of 12 (11 · odd)" in body_text(view))
        return first, view.state.point

    first, point = run_described(tmp_path, body, (80, 24))
    assert "Nearest to point 0 of 12 (0 · even)" in first and point == 11


def test_help_names_the_kinds_key(tmp_path):
    async def body(pilot, view):
        return await open_help(pilot)

    text = run_described(tmp_path, body, (120, 36))
    assert "Described (audio, mesh, projector)" in text and "Kinds" in text


def test_a_job_with_none_of_them_has_no_tab(tmp_path):
    from uihelp import write_run

    write_run(tmp_path / "logs", "plain")
    app = make_app(tmp_path / "logs")

    async def body(pilot):
        await pilot.press("enter")
        await wait_for_view(pilot, app)
        await pilot.press("M")
        await pilot.pause()
        return app.screen.query_one("#tab-described").display, type(app.screen.active_view).__name__

    assert run_pilot(app, body) == (False, "ScalarsView")


class Host(App):
    CSS_PATH = InsightApp.CSS_PATH

    def __init__(self, cache: SummaryCache):
        super().__init__()
        self.cache = cache

    def compose(self) -> ComposeResult:
        yield DescribedView(self.cache, ("./run",))


def test_snapshot_described_80x24(tmp_path, snap_compare):
    cache = SummaryCache(str(write_described(tmp_path / "logs")))
    cache.reload()
    app = Host(cache)

    async def before(pilot):
        view = app.query_one(DescribedView)
        assert await wait_for(pilot, lambda: view.pending() == 0 and "Nearest" in body_text(view))
        await pilot.pause()

    assert snap_compare(app, terminal_size=(80, 24), run_before=before)
