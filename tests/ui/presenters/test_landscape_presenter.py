"""What the landscape view shows (list, status, metadata, read-out), from the landscapes the
loader reads of the fixture logs: plain unit tests, no app, no Pilot."""
from __future__ import annotations

import json

import pytest
from fixture_paths import EXTRAS_LOGS, FIXTURES

from tui_insight.summary.store.cache import SummaryCache
from tui_insight.ui.presenters import landscape as present
from tui_insight.ui.state.landscape import LandscapeState
from tui_insight.ui.views.landscape import load_job

TRUTH = json.loads((FIXTURES / "mindspore_extras.truth.json").read_text())["landscapes"]
STEP, EPOCH = "./landscape_step", "./landscape_epoch"
COLOURS = {STEP: "#111111", EPOCH: "#222222"}


@pytest.fixture(scope="module")
def data() -> dict[str, present.JobLandscapes]:
    cache = SummaryCache(str(EXTRAS_LOGS))
    cache.reload()
    return {tid: load_job(cache, tid) for tid in (STEP, EPOCH)}


def test_the_list_names_each_landscape_and_compared_how_many_jobs_have_it(data):
    rows = present.list_rows(data, (STEP,), comparing=False)
    assert [str(text) for _, text in rows] == ["steps 1–5", "steps 6–8", "final (step 8)"]
    both = dict(present.list_rows(data, (STEP, EPOCH), comparing=True))
    assert str(both["final"]).endswith("2/2") and str(both["interval:1-5"]).endswith("1/2")


def test_the_readout_reads_the_cell_under_the_cursor(data):
    shown = present.shown_landscapes(data, (STEP,), "interval:1-5")
    assert "arrows cursor" in str(present.readout(LandscapeState(selected="interval:1-5"), shown, COLOURS))
    text = str(present.readout(LandscapeState(selected="interval:1-5", cursor=(3, 2)), shown, COLOURS))
    truth = TRUTH[STEP]["intervals"][0]["landscape"]["points"]
    assert f"loss {truth['z'][2][3]:.6g}" in text and f"x {truth['x'][3]:.4g}" in text
    assert f"y {truth['y'][2]:.4g}" in text and "cell 4,3 of" in text


def test_on_the_path_the_readout_reads_each_checkpoints_step_and_loss(data):
    shown = present.shown_landscapes(data, (STEP,), "interval:1-5")
    path = TRUTH[STEP]["intervals"][0]["landscape"]["path"]
    last = len(path["intervals"]) - 1
    for k in range(last + 1):
        state = LandscapeState(selected="interval:1-5", cursor=(0, 0), path_point=k)
        text = str(present.readout(state, shown, COLOURS))
        assert f"checkpoint {k + 1}/5" in text and f"step {path['intervals'][k]}" in text
        assert f"loss {path['z'][k]:.6g}" in text
        assert ("convergence point" in text) == (k == last)


def test_compared_jobs_read_one_line_each_and_a_missing_landscape_says_so(data):
    shown = present.shown_landscapes(data, (STEP, EPOCH), "final")
    lines = str(present.readout(LandscapeState(selected="final", cursor=(2, 2)), shown, COLOURS)).splitlines()
    assert len(lines) == 2
    assert f"loss {TRUTH[STEP]['final']['points']['z'][2][2]:.6g}" in lines[0]
    assert f"loss {TRUTH[EPOCH]['final']['points']['z'][2][2]:.6g}" in lines[1]
    said = present.missing_text(data, {}, EPOCH, "interval:1-5", "steps 1–5", reading=False)
    assert said == "no steps 1–5 landscape in this job"
    assert present.missing_text({}, {}, EPOCH, "final", "final", reading=True) == "reading…"
    assert present.missing_text({}, {EPOCH: "cannot read"}, EPOCH, "final", "final", reading=True) == "cannot read"


def test_status_says_the_landscape_the_drawing_and_the_jobs(data):
    state = LandscapeState(selected="final")
    assert str(present.status_text(state, data, (STEP,), loading=False)) == "final (step 8) · heat map"
    relief = state.toggle_relief()
    text = str(present.status_text(relief, data, (STEP, EPOCH), loading=True))
    assert text.startswith("final") and f"relief {relief.angle}°" in text
    assert text.endswith("2 jobs side by side · reading…")


def test_the_metadata_panel_lists_grid_path_and_convergence(data):
    text = str(present.meta_text(LandscapeState(selected="interval:1-5"), data, (STEP,), None))
    assert "checkpoints 5" in text and "convergence " in text and "decomposition " in text
    compared = str(present.meta_text(LandscapeState(selected="interval:1-5"), data, (STEP, EPOCH), COLOURS))
    assert f"● {EPOCH}\nno such landscape" in compared


def test_no_landscapes_says_why_and_how_mindspore_writes_them():
    assert present.empty_reason({}, {}, ("./plain",), waiting=True) == "reading the landscapes…"
    assert present.empty_reason({}, {"./plain": "gone"}, ("./plain",), waiting=False) == "./plain: gone"
    assert "SummaryLandscape" in present.empty_reason({}, {}, ("./plain",), waiting=False)
