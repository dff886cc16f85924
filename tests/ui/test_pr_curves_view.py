"""The PR curves view (issue 26) on runs written by tensorboardX's `add_pr_curve`: the figures
it shows are TensorBoard's (`PrCurvesPlugin._make_pr_entry`) and the trapezoid area over them;
keys move the step, the tag and the threshold cursor; compared runs overlay."""
from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from tensorboard.backend.event_processing.event_file_loader import EventFileLoader
from tensorboard.plugins.pr_curve.pr_curves_plugin import PrCurvesPlugin
from tensorboard.util import tensor_util
from tensorboardX import SummaryWriter
from uihelp import make_app, run_beside, run_pilot, wait_for, wait_for_view

from tui_insight.summary.formats.pr_curves import PrCurveData
from tui_insight.ui.views.pr_curves import PrCurvesView, curve_traces, readout, step_text

STEPS = 3
THRESHOLDS = 11


def write_run(root: Path, name: str, seed: int) -> Path:
    writer = SummaryWriter(str(root / name))
    for step in range(STEPS):
        rng = np.random.default_rng(seed * 10 + step)
        labels = rng.integers(0, 2, 100)
        predictions = np.clip(labels * 0.4 + rng.random(100) * 0.6, 0, 1)
        writer.add_pr_curve("pr/cat", labels, predictions, step * 10, num_thresholds=THRESHOLDS)
        writer.add_pr_curve("pr/dog", 1 - labels, 1 - predictions, step * 10, num_thresholds=THRESHOLDS)
        writer.add_scalar("loss", 1.0 / (step + 1), step * 10)
    writer.close()
    return root / name


@pytest.fixture
def logs(tmp_path: Path) -> Path:
    root = tmp_path / "logs"
    write_run(root, "a", 1)
    write_run(root, "b", 2)
    writer = SummaryWriter(str(root / "plain"))
    writer.add_scalar("loss", 1.0, 0)
    writer.close()
    return root


def tensorboard_entry(run: Path, tag: str, step: int) -> dict:
    for path in sorted(run.glob("*tfevents*")):
        for event in EventFileLoader(str(path)).Load():
            for value in event.summary.value:
                if value.tag == tag and event.step == step:
                    return PrCurvesPlugin._make_pr_entry(None, step, event.wall_time,
                                                         tensor_util.make_ndarray(value.tensor))
    raise AssertionError(f"no {tag} at {step}")


def texts(view: PrCurvesView) -> tuple[str, str]:
    return str(view.query_one("#pr-status").render()), str(view.query_one("#pr-readout").render())


def test_the_view_shows_tensorboards_numbers_and_keys_move_step_tag_and_cursor(logs):
    app = make_app(logs)

    async def body(pilot):
        app.open_jobs(("./a",), "pr_curves")
        await wait_for_view(pilot, app, "PrCurvesView")
        view = app.screen.query_one(PrCurvesView)
        assert await wait_for(pilot, lambda: "area" in texts(view)[1])
        seen = [texts(view)]
        for keys in (("left_square_bracket",), ("right", "right"), ("n",), ("home",), ("end",)):
            await pilot.press(*keys)
            await pilot.pause()
            assert await wait_for(pilot, lambda: "area" in texts(view)[1])
            seen.append(texts(view))
        return seen

    seen = run_pilot(app, body)
    run = logs / "a"

    def expected(tag: str, step: int, index: int) -> str:
        entry = tensorboard_entry(run, tag, step)
        area = np.trapezoid(entry["precision"][::-1], entry["recall"][::-1])
        tp, fp, tn, fn = (entry[k][index] for k in ("true_positives", "false_positives", "true_negatives",
                                                    "false_negatives"))
        return (f"step {step} · area {area:.3f} · t {entry['thresholds'][index]:.3f}: "
                f"P {entry['precision'][index]:.3f} R {entry['recall'][index]:.3f} · "
                f"TP {tp} FP {fp} TN {tn} FN {fn}")

    (status0, readout0), (status1, readout1), (_, readout2), (status3, readout3), (status4, _), (status5, _) = seen
    assert status0.startswith("pr/cat (1/2) · step 20 (3/3) · newest")
    assert readout0.splitlines()[0] == expected("pr/cat", 20, THRESHOLDS // 2)
    assert status1.startswith("pr/cat (1/2) · step 10 (2/3) ·") and "newest" not in status1
    assert readout1.splitlines()[0] == expected("pr/cat", 10, THRESHOLDS // 2)
    assert readout2.splitlines()[0] == expected("pr/cat", 10, THRESHOLDS // 2 + 2)
    assert status3.startswith("pr/dog (2/2) · step 10 (2/3)")
    assert readout3.splitlines()[0] == expected("pr/dog", 10, THRESHOLDS // 2 + 2)
    assert status4.startswith("pr/dog (2/2) · step 0 (1/3)")
    assert status5.startswith("pr/dog (2/2) · step 20 (3/3) · newest")
    assert "TensorBoard shows none" in readout0


def test_compared_runs_overlay_and_the_tab_shows_only_on_jobs_with_pr_curves(logs):
    app = make_app(logs)

    async def body(pilot):
        app.open_jobs(("./a", "./b"), "pr_curves")
        await wait_for_view(pilot, app, "PrCurvesView")
        view = app.screen.query_one(PrCurvesView)
        assert await wait_for(pilot, lambda: texts(view)[1].count(" · area ") == 2)
        from tui_insight.ui.widgets.chart import ScalarChart
        chart = view.query_one(ScalarChart)
        compared = (texts(view)[1], [t.kind for t in chart.traces], chart.image().plain)
        app.pop_screen()
        await pilot.pause()
        app.open_jobs(("./plain",), "scalars")
        await wait_for_view(pilot, app, "ScalarsView")
        await pilot.press("9")
        await pilot.pause()
        return compared, app.screen.query_one("#tab-pr_curves").display, type(app.screen.active_view).__name__

    (shown, kinds, plain), tab, active = run_pilot(app, body, size=(160, 48))
    lines = shown.splitlines()
    assert lines[0].startswith("./a step 20 · area") and lines[1].startswith("./b step 20 · area")
    assert kinds == ["line", "line", "points", "points"]
    assert "● ./a  ● ./b" in plain and "precision (y) over recall (x)" in plain
    assert (tab, active) == (False, "ScalarsView")


def test_readout_and_traces_are_pure_presentation():
    values = np.array([[4, 3, 1], [4, 1, 0], [0, 3, 4], [0, 1, 3], [0.5, 0.75, 1.0], [1.0, 0.75, 0.25]], float)
    curve = PrCurveData(values)
    assert curve.area == pytest.approx(0.25 * (0.75 + 0.5) / 2 + 0.5 * (1.0 + 0.75) / 2)
    assert readout(curve, 1) == "area 0.594 · t 0.500: P 0.750 R 0.750 · TP 3 FP 1 TN 3 FN 1"
    traces = curve_traces([("#ff0000", curve)], [1])
    assert traces[0].x.tolist() == [1.0, 0.75, 0.25] and traces[0].y.tolist() == [0.5, 0.75, 1.0]
    assert (traces[1].kind, traces[1].x.tolist(), traces[1].y.tolist()) == ("points", [0.75], [0.75])
    assert step_text(10, [0, 10, 20]) == "step 10 (2/3)" and step_text(None, []) == "no steps"


def test_the_newest_step_is_followed_as_training_writes_more_and_a_chosen_step_stays(logs):
    app = make_app(logs)

    def more() -> None:
        writer = SummaryWriter(str(logs / "a"), filename_suffix=".more")
        labels = np.array([0, 1, 1, 0, 1])
        writer.add_pr_curve("pr/cat", labels, np.array([0.1, 0.9, 0.7, 0.4, 0.6]), 30, num_thresholds=THRESHOLDS)
        writer.close()

    async def body(pilot):
        app.open_jobs(("./a",), "pr_curves")
        await wait_for_view(pilot, app, "PrCurvesView")
        view = app.screen.query_one(PrCurvesView)
        assert await wait_for(pilot, lambda: "step 20 (3/3)" in texts(view)[0])
        await run_beside(pilot, more)
        await run_beside(pilot, app.cache.reload)
        assert await wait_for(pilot, lambda: "step 30 (4/4) · newest" in texts(view)[0])
        followed = texts(view)
        await pilot.press("left_square_bracket")
        assert await wait_for(pilot, lambda: "step 20 (3/4)" in texts(view)[0])
        return followed

    status, shown = run_pilot(app, body)
    # The new step's scores separate the classes; the drawn curve ends at recall 1/3 (the top
    # threshold has no positives), so the area over its points is 2/3.
    assert shown.splitlines()[0] == "step 30 · area 0.667 · t 0.500: P 1.000 R 1.000 · TP 3 FP 0 TN 2 FN 0"


def test_a_hostile_tag_is_shown_escaped_and_a_damaged_curve_says_why(tmp_path):
    from tensorboard.compat.proto import event_pb2, summary_pb2
    from tensorboard.plugins.pr_curve import metadata as pr_metadata
    from tensorboard.summary.writer.event_file_writer import EventFileWriter

    run = tmp_path / "logs" / "run"
    writer = EventFileWriter(str(run))
    for step, rows in ((0, 6), (1, 3)):  # step 1: a [3, 4] tensor is no PR curve
        summary = summary_pb2.Summary()
        summary.value.add(tag="[b]x\x1b[2J", tensor=tensor_util.make_tensor_proto(np.float32(np.ones((rows, 4)))),
                          metadata=pr_metadata.create_summary_metadata("x", "", 4))
        writer.add_event(event_pb2.Event(step=step, wall_time=1_700_000_000.0 + step, summary=summary))
    writer.close()
    app = make_app(tmp_path / "logs")

    async def body(pilot):
        app.open_jobs(("./run",), "pr_curves")
        await wait_for_view(pilot, app, "PrCurvesView")
        view = app.screen.query_one(PrCurvesView)
        assert await wait_for(pilot, lambda: "no PR curve" in texts(view)[1])
        newest = texts(view)
        await pilot.press("left_square_bracket")
        assert await wait_for(pilot, lambda: " · area " in texts(view)[1])
        return newest

    status, shown = run_pilot(app, body)
    assert status.startswith("[b]x\\x1b[2J (1/1) · step 1 (2/2)")
    assert shown.splitlines()[0] == "a tensor of shape [3, 4] is no PR curve (it takes [6, thresholds])"
