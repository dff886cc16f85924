"""Browsing the samples of a step in the image view (issues 22 and 26): `n`/`p` move through a
step's images, the card's title counts them (`sample 2/4`), and the chosen sample stays while
stepping. Logs written with the repo's TensorBoard writer in `tf.summary.image`'s layout (several
images in one images-plugin tensor) beside a one-image-a-step tag.
"""
from __future__ import annotations

import numpy as np
import pytest
from uihelp import T0, make_app, run_pilot, wait_for

from tui_insight.summary.formats.writer import TensorBoardWriter
from tui_insight.ui.screens.help import collect_bindings
from tui_insight.ui.views.images import ImagesView

SAMPLES = 4


@pytest.fixture(autouse=True)
def truecolor(monkeypatch):
    monkeypatch.setenv("COLORTERM", "truecolor")
    monkeypatch.delenv("NO_COLOR", raising=False)


def level(step: int, sample: int) -> float:
    """The grey level of one sample of one step: every image tells which it is."""
    return (1 + sample + SAMPLES * step) / 10


def grey_byte(value: float) -> int:
    return int((np.float64(value) * 255).astype(np.uint8))  # as the writer scales [0, 1] to bytes


def write_run(root):
    writer = TensorBoardWriter(root / "run", timestamp=int(T0), wall_time=T0)
    for step in range(2):
        batch = np.stack([np.full((3, 4, 6), level(step, k)) for k in range(SAMPLES)])
        writer.add_images("batch", batch, step, T0 + step, max_outputs=SAMPLES)
        writer.add_image("single", np.full((3, 4, 6), 0.5), step, T0 + step)
    writer.close()
    return root


def settled(app) -> bool:
    view = app.screen.query_one(ImagesView)
    return view.loader.pending() == 0 and not any(w.is_running for w in app.workers)


async def settle(pilot) -> None:
    for _ in range(3):
        await pilot.pause(0.02)
        assert await wait_for(pilot, lambda: settled(pilot.app))


def cards(view) -> dict[str, tuple[str, int | None, str]]:
    """Per tag: the card's title, the grey level of its pixels, its subtitle."""
    out = {}
    for card in view.shown_cards():
        grey = int(card.image.pixels[0, 0, 0]) if card.image is not None else None
        out[card.tag] = (card.border_title, grey, card.border_subtitle)
    return out


def test_n_and_p_browse_the_samples_of_a_step_counted_in_the_title(tmp_path):
    logdir = write_run(tmp_path)

    async def body(pilot):
        app = pilot.app
        app.open_jobs(("./run",), "images")
        await pilot.pause()
        await settle(pilot)
        view = app.screen.query_one(ImagesView)
        seen = {"start": cards(view), "status": str(view.query_one("#image-status").render())}
        groups = collect_bindings(app.screen, app.extra_binding_nodes(app.screen))
        seen["help"] = {binding.id: key for items in groups.values() for key, binding, _ in items}
        for name, keys in (("n", ["n"]), ("nnn", ["n", "n", "n"]), ("back", ["left_square_bracket"]),
                           ("p", ["p"]), ("ppp", ["p", "p", "p"])):
            for key in keys:
                await pilot.press(key)
            await settle(pilot)
            seen[name] = cards(view)
        seen["sample"] = view.state.sample
        return seen

    seen = run_pilot(make_app(logdir), body, (120, 36))
    assert seen["start"]["batch"][:2] == ("batch · sample 1/4", grey_byte(level(1, 0)))
    assert seen["start"]["single"][0] == "single"  # one image a step: nothing to count
    assert "sample 1 of up to 4 (n/p)" in seen["status"]
    assert seen["n"]["batch"][:2] == ("batch · sample 2/4", grey_byte(level(1, 1)))
    # past the last sample `n` stays on it
    assert seen["nnn"]["batch"][:2] == ("batch · sample 4/4", grey_byte(level(1, 3)))
    # a step back keeps the sample: the same image of the batch, one step earlier
    assert seen["back"]["batch"][:2] == ("batch · sample 4/4", grey_byte(level(0, 3)))
    assert seen["back"]["batch"][2].startswith("step 0 · ")
    assert seen["p"]["batch"][:2] == ("batch · sample 3/4", grey_byte(level(0, 2)))
    assert seen["ppp"]["batch"][:2] == ("batch · sample 1/4", grey_byte(level(0, 0)))
    assert seen["sample"] == 0
    assert seen["help"]["images.next_sample"] == "n" and seen["help"]["images.previous_sample"] == "p"
    for name in ("n", "nnn", "back", "p"):  # the one-image tag shows its image whatever the sample
        assert seen[name]["single"][:2] == ("single", grey_byte(0.5))

