"""What the image view says (card titles and subtitles, status line, the sentence in place of the
grid), from the fixture logs' images: plain unit tests, no app, no Pilot."""
from __future__ import annotations

import numpy as np
import pytest
from fixture_paths import MINDSPORE_LOGS

from tui_insight.summary.store.cache import SummaryCache
from tui_insight.ui.presenters import images as present
from tui_insight.ui.state.images import ImagesState
from tui_insight.ui.state.tags import TagSelection
from tui_insight.ui.widgets.image_data import Shown

JOB = "./lenet_lr0.01"


@pytest.fixture(scope="module")
def shown() -> Shown:
    cache = SummaryCache(str(MINDSPORE_LOGS))
    cache.reload()
    job = cache.job(JOB)
    tag = job.tag_names("image")[0]
    series = job.series("image", tag)
    i = present.pick_index(series.steps, None)
    return Shown(int(series.steps[i]), i, len(series), job.locator(series, i), 1, 4)


def test_a_card_names_its_tag_its_sample_and_when_compared_its_run(shown):
    assert present.card_title("input_data/image", JOB, shown) == "input_data/image · sample 2/4"
    compared = present.card_title("a[b]", JOB, shown, colour="#123456")
    assert compared.startswith("[#123456]●[/] a\\[b]") and compared.endswith(f"· {JOB}")


def test_the_subtitle_says_the_step_shown_for_the_one_chosen_its_size_and_place(shown):
    text = present.card_subtitle(shown, shown.step + 5, (32, 16), grey=True, note="record says 1×1")
    assert text == f"step {shown.step} (for {shown.step + 5}) · 32×16 grey (record says 1×1) · {shown.count}/{shown.count}"
    assert present.card_subtitle(shown, None) == f"step {shown.step} · {shown.count}/{shown.count}"


def test_pick_index_takes_the_last_kept_step_at_or_before_the_chosen_one():
    steps = np.array([2, 4, 8])
    assert [present.pick_index(steps, s) for s in (None, 1, 4, 5, 100)] == [2, 0, 1, 1, 2]
    assert present.pick_index(np.array([], dtype=np.int64), 3) == -1


def test_the_status_line_and_the_empty_sentence():
    state = ImagesState().with_tags(TagSelection().with_tags(["a"]))
    assert present.status(state, np.array([1, 5, 9]), 1) == "step 9 (newest) · grid"
    stepped = ImagesState(step=5, brightness=0.2, contrast=1.5, layout="list")
    assert present.status(stepped, np.array([1, 5, 9]), 3) == (
        "step 5 of 1..9 · sample 1 of up to 3 (n/p) · brightness +0.2 · contrast ×1.50 · list")
    assert present.empty_message(ImagesState(), loading=True, jobs=1, cards=False) == "no image tags yet: loading…"
    assert present.empty_message(ImagesState(), loading=False, jobs=2, cards=False) == "these jobs have no images"
    assert present.empty_message(state, loading=False, jobs=1, cards=True) == ""


def test_wide_images_take_one_column_and_square_ones_share_rows():
    assert present.grid_shape([(400, 40)] * 2, 100, 40, 1) == (1, 20)  # wide: stacked, full width
    assert present.grid_shape([(28, 28)] * 4, 100, 40, 1)[0] > 1  # square: side by side
    assert present.grid_shape([(28, 28)] * 4, 100, 40, 2)[0] % 2 == 0  # compared: whole jobs a row


def test_a_list_row_is_as_tall_as_its_tallest_image_and_waits_for_undecoded_ones():
    # 28x28 at 40 cells wide: 38 inner columns, enlarged by whole multiples to 28 (14 rows) + border
    assert present.list_row_height([(28, 28)], 40, 48) == 16
    assert present.list_row_height([(28, 28), present.UNKNOWN], 40, 48) == 32  # two thirds of 48
    assert present.list_row_height([(10, 1000)], 40, 48) == 48  # never taller than the grid


def test_full_screen_is_one_row_of_the_jobs():
    state = ImagesState(fullscreen="t")
    assert present.layout([(28, 28)] * 4, 100, 40, 2, state) == (2, [40])
