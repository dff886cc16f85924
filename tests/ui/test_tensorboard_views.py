"""The views on TensorBoard runs (issue 12): the text view, histograms of 600+ buckets, images,
and a MindSpore run compared beside a TensorBoard run. Logs: the real tensorboardX/tensorboard
fixtures (`tests/fixtures/tensorboard`), and a run of our own writer."""
from __future__ import annotations

import io
import json
import shutil

from fixture_paths import FIXTURES
from rich.console import Console
from textual.app import App, ComposeResult
from textual.widgets import Static
from uihelp import make_app, open_help, run_beside, run_pilot, wait_for, wait_for_view, write_run

from tui_insight.summary.store.cache import SummaryCache
from tui_insight.ui.app import InsightApp
from tui_insight.ui.views.text import TextView

TB = FIXTURES / "tensorboard"
MANIFEST = json.loads((FIXTURES / "tensorboard.manifest.json").read_text())


def text_of_view(view: TextView, width: int = 200) -> str:
    """The text body drawn `width` columns wide (markdown rendered or as written), without the
    spaces that end its lines."""
    console = Console(width=width, file=io.StringIO(), record=True)
    console.print(view.query_one("#text-content", Static).content)
    return "\n".join(line.rstrip() for line in console.export_text().rstrip("\n").split("\n"))


def run_on(jobs, view_id: str, view_class: str, body, logs=TB):
    """`await body(pilot, view)` on the dashboard of `jobs` opened on a view, once it has the keys."""
    app = make_app(logs)

    async def wrapped(pilot):
        app.open_jobs(tuple(jobs), view_id)
        await wait_for_view(pilot, app, view_class)
        return await body(pilot, app.screen.query_one(view_class))

    return run_pilot(app, wrapped)


def test_text_view_lists_steps_and_their_text_newest_first_and_turns_the_order():
    async def body(pilot, _):
        app = pilot.app
        await pilot.press("8")
        await wait_for_view(pilot, app, "TextView")
        view = app.screen.query_one(TextView)
        assert await wait_for(pilot, lambda: "step 0" in text_of_view(view))
        shown = text_of_view(view)
        assert shown.index("step 2") < shown.index("step 1") < shown.index("step 0")
        assert "step 0 notes" in shown
        await pilot.press("o")
        assert await wait_for(pilot, lambda: text_of_view(view).index("step 0") < text_of_view(view).index("step 2"))
        return str(view.query_one("#text-status").render())

    status = run_on(("./tf2",), "scalars", "ScalarsView", body)
    assert "notes" in status and "3 steps" in status and "oldest first" in status


def test_a_mindspore_run_beside_a_tensorboard_run_in_the_scalar_view(tmp_path):
    logs = tmp_path / "logs"
    write_run(logs, "mindspore", tags=("loss", "acc"))
    shutil.copytree(TB / "restart", logs / "torch")

    async def body(pilot, view):
        assert await wait_for(pilot, lambda: "loss" in view.charts and len(view.charts["loss"].traces) == 2)
        chart = view.charts["loss"]
        return [run for _, run in chart.options.legend], [trace.y.tolist() for trace in chart.traces]

    runs, ys = run_on(("./mindspore", "./torch"), "scalars", "ScalarsView", body, logs)
    assert runs == ["./mindspore", "./torch"]
    # The TensorBoard run after its restart: steps 0-4 of the first file, 5-7 of the second.
    assert [0.0, 1.0, 2.0, 3.0, 4.0, 105.0, 106.0, 107.0] in ys


def test_histograms_of_600_buckets_are_drawn_rebinned():
    from tui_insight.ui.views.histograms import HistogramChart

    async def body(pilot, view):
        charts = lambda: {chart.chart_key[1]: chart for chart in view.query(HistogramChart)}  # noqa: E731
        assert await wait_for(pilot, lambda: view.loader.pending() == 0 and all(
            c.ridge is not None for c in charts().values()) and "weights" in charts())
        ridge = charts()["weights"].ridge
        return ridge.steps.tolist(), ridge.counts.sum(axis=1).tolist(), ridge.counts.shape[1]

    steps, totals, bins = run_on(("./tensorboardx",), "histograms", "HistogramsView", body)
    assert steps == [0, 1, 2] and bins <= 30
    # Every value of the 605+ buckets is kept; MindInsight's re-binning rounds each bin up.
    assert all(500 <= total <= 500 + bins for total in totals)


def test_images_of_a_tensorboard_run_are_shown():
    from tui_insight.ui.widgets.image_card import ImageCard

    async def body(pilot, view):
        assert await wait_for(pilot, lambda: all(card.image is not None for card in view.query(ImageCard)))
        card = view.query_one(ImageCard)
        return card.tag, card.shown.step, card.image.pixels.shape

    tag, step, shape = run_on(("./tf2",), "images", "ImagesView", body)
    assert (tag, step) == ("samples", 1) and shape[:2] == (6, 10)


def test_text_view_says_when_the_jobs_hold_no_text_and_keys_do_nothing():
    async def body(pilot, view):
        await pilot.press("right_square_bracket", "o", "left_square_bracket")
        return text_of_view(view), view.state.tag

    shown, tag = run_on(("./restart",), "text", "TextView", body)
    assert tag is None and shown.startswith("No text in ./restart")


def test_the_text_tab_shows_only_on_jobs_with_text_and_text_by_name_says_why():
    """A job without text (every MindSpore job) has no `8 Text` tab and `8` does nothing there, as
    a comparison with no text; a job with text keeps both. Opened by name (`--view text`), the
    view says why it is empty until the user moves on; then its tab goes."""
    from tui_insight.ui.screens.dashboard import DashboardScreen

    def tab_shown(app) -> bool:
        return app.screen.query_one("#tab-text").display

    async def body(pilot):
        app = pilot.app
        seen = []
        for jobs in (("./restart",), ("./tf2",), ("./restart", "./keras_hparams")):
            app.open_jobs(jobs, "scalars")
            await wait_for_view(pilot, app, "ScalarsView")
            await pilot.press("8")
            await pilot.pause()
            seen.append((tab_shown(app), type(app.screen.active_view).__name__))
            app.pop_screen()
            await pilot.pause()
        app.open_jobs(("./restart",), "text")
        await wait_for_view(pilot, app, "TextView")
        by_name = (tab_shown(app), text_of_view(app.screen.active_view))
        await pilot.press("1")
        await wait_for_view(pilot, app, "ScalarsView")
        assert isinstance(app.screen, DashboardScreen)
        return seen, by_name, tab_shown(app)

    seen, (by_name_tab, why), after = run_pilot(make_app(TB), body)
    assert seen == [(False, "ScalarsView"), (True, "TextView"), (False, "ScalarsView")]
    assert by_name_tab and why.startswith("No text in ./restart") and "\n" not in why
    assert not after


class Host(App):
    """The text view alone, as the dashboard builds it (no clock-dependent title in the snapshot)."""

    CSS_PATH = InsightApp.CSS_PATH

    def __init__(self, cache: SummaryCache, train_ids: tuple[str, ...]):
        super().__init__()
        self.cache, self.train_ids = cache, train_ids

    def compose(self) -> ComposeResult:
        yield TextView(self.cache, self.train_ids)


def test_snapshot_text_80x24(snap_compare):
    """Two jobs' texts: markdown shown as written, unicode, a text of two lines."""
    cache = SummaryCache(str(TB))
    cache.reload()
    app = Host(cache, ("./tensorboardx", "./tf2"))

    async def before(pilot):
        view = app.query_one(TextView)
        assert await wait_for(pilot, lambda: view.pending() == 0 and "step 0" in text_of_view(view))
        await pilot.press("right_square_bracket")  # tensorboardX's tag: notes/text_summary
        assert await wait_for(pilot, lambda: view.pending() == 0 and "two lines" in text_of_view(view))
        await pilot.pause()

    assert snap_compare(app, terminal_size=(80, 24), run_before=before)


def test_help_lists_the_text_views_keys():
    async def body(pilot, view):
        return await open_help(pilot)

    text = run_on(("./tf2",), "text", "TextView", body)
    assert all(f"text.{name}" in text for name in ("previous_tag", "next_tag", "order"))


def test_hparams_sessions_in_the_lineage_table_and_parallel_coordinates():
    from tui_insight.ui.views.lineage import LineageView
    from tui_insight.ui.widgets.parallel_coords import ParallelChart

    app = make_app(TB)

    async def body(pilot):
        await pilot.press("l")
        assert await wait_for(pilot, lambda: bool(app.screen.query(LineageView)))
        view = app.screen.query_one(LineageView)
        table = view.model_table
        rows, columns = sorted(table.order), [c.key for c in table.columns]
        await pilot.press("p")
        chart = view.query_one(ParallelChart)
        assert await wait_for(pilot, lambda: chart.display and len(chart.runs.ids) == 2)
        return rows, columns, sorted(chart.runs.ids), [axis.column for axis in chart.runs.axes]

    rows, columns, runs, axes = run_pilot(app, body)
    assert rows == runs == ["./keras_hparams/trial-1", "./tensorboardx/hparams_run"]
    # the hyper-parameters named like model-lineage columns and every metric show at once
    assert {"optimizer", "batch_size", "metric/hparam/accuracy", "metric/validation/epoch_accuracy"} <= set(columns)
    assert {"optimizer", "metric/hparam/accuracy"} <= set(axes)


def test_text_view_says_loading_then_shows_the_text_once_the_job_is_read():
    app = make_app(TB, load=False)
    app.cache.discover_jobs()  # listed, not read

    async def body(pilot):
        app.open_jobs(("./tf2",), "text")
        await wait_for_view(pilot, app, "TextView")
        view = app.screen.query_one(TextView)
        before = text_of_view(view)
        await run_beside(pilot, app.cache.reload)
        assert await wait_for(pilot, lambda: "step 0 notes" in text_of_view(view))
        return before, view.state.tag

    before, tag = run_pilot(app, body)
    assert before == "loading…" and tag == "notes"
