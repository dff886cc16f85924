"""Tests of the image view (issue 4) and of the half-block image widget.

Expected pixels and colours are computed here from what the test wrote (or from the formulas of
the xterm palette); expected sizes and the image of the last step come from MindInsight's answers
in the truth file.
"""
from __future__ import annotations

import hashlib
import html
import io
import json
import re
import threading
import time
from pathlib import Path

import numpy as np
import pytest
from PIL import Image
from rich.color import ColorType
from textual.widgets import Input
from uihelp import MINDSPORE_LOGS, T0, make_app, run_pilot, wait_for

from tui_insight.summary.formats.writer import SummaryWriter
from tui_insight.ui.loader import Loaded
from tui_insight.ui.screens.help import collect_bindings
from tui_insight.ui.views import image_decoding
from tui_insight.ui.presenters.images import pick_index, steps_ahead
from tui_insight.ui.views.image_decoding import DecodedCache
from tui_insight.ui.views.images import ImagesView
from tui_insight.ui.widgets.image_card import ImageCard, ImageGrid
from tui_insight.ui.widgets import halfblock
from tui_insight.ui.widgets.halfblock import (
    DecodedImage,
    HalfBlockImage,
    ImageDecodeError,
    adjust,
    decode_image,
    fit_cells,
    halfblock_strips,
    quantize_256,
    render_image,
    scale,
)
from tui_insight.ui.widgets.tag_picker import TagList

TRUTH_FILE = MINDSPORE_LOGS.parent / "mindspore.truth.json"


@pytest.fixture(autouse=True)
def truecolor(monkeypatch):
    """The app reads the colour system from the environment: true colour unless a test says not."""
    monkeypatch.setenv("COLORTERM", "truecolor")
    monkeypatch.delenv("NO_COLOR", raising=False)


@pytest.fixture(scope="module")
def truth() -> dict:
    return json.loads(TRUTH_FILE.read_text())


def png_bytes(array: np.ndarray, mode: str | None = None) -> bytes:
    out = io.BytesIO()
    Image.fromarray(array, mode).save(out, format="PNG")
    return out.getvalue()


def flat_rgb(colour: tuple[int, int, int], width: int = 16, height: int = 16) -> np.ndarray:
    return np.tile(np.array(colour, dtype=np.uint8), (height, width, 1))


def write_images(root: Path, name: str, steps=(1, 2, 3), images=None) -> Path:
    """A run whose images are given per tag as {tag: f(step) -> png bytes or (array NCHW)}."""
    directory = root / name
    with SummaryWriter(directory, timestamp=int(T0), wall_time=T0) as writer:
        for step in steps:
            for tag, make in images.items():
                made = make(step)
                if isinstance(made, bytes):
                    writer.add_image(tag, png=made, width=4, height=4)
                else:
                    writer.add_image(tag, made)
            writer.record(step, wall_time=T0 + step)
    return directory


def colour_of_step(step: int) -> tuple[int, int, int]:
    return (10 * step, 100, 200 - 10 * step)


def flat_png_of_step(step: int) -> bytes:
    return png_bytes(flat_rgb(colour_of_step(step)))


# -- helpers to drive the view ------------------------------------------------------------------

def settled(app) -> bool:
    view = app.screen.query_one(ImagesView)
    return view.loader.pending() == 0 and not any(w.is_running for w in app.workers)


async def settle(pilot) -> None:
    """Let cards draw, ask for their pixels, and the worker decode them."""
    app = pilot.app
    for _ in range(3):
        await pilot.pause(0.02)
        assert await wait_for(pilot, lambda: settled(app))


async def open_images(pilot, jobs) -> ImagesView:
    app = pilot.app
    app.open_jobs(tuple(jobs), "images")
    await pilot.pause()
    await settle(pilot)
    return app.screen.query_one(ImagesView)


def run_view(logdir, jobs, body, size=(120, 36), **kwargs):
    app = make_app(logdir, **kwargs)

    async def wrapped(pilot):
        view = await open_images(pilot, jobs)
        return await body(pilot, view)

    return run_pilot(app, wrapped, size)


def card_state(view) -> dict[tuple[str, str], dict]:
    out = {}
    for card in view.shown_cards():
        out[card.key] = {
            "title": card.border_title, "subtitle": card.border_subtitle, "message": card.message,
            "image": card.image, "step": card.shown.step if card.shown else None,
        }
    return out


def cell_colours(card: HalfBlockImage) -> list[tuple]:
    """(foreground, background) triplets of every half-block cell the card draws."""
    colours = []
    for strip in card.strips():
        for segment in strip:
            if halfblock.UPPER_HALF in segment.text and segment.style is not None:
                fg = segment.style.color.get_truecolor() if segment.style.color else None
                bg = segment.style.bgcolor.get_truecolor() if segment.style.bgcolor else None
                colours.extend([(tuple(fg) if fg else None, tuple(bg) if bg else None)] * len(segment.text))
    return colours


# -- the half-block pipeline (pure functions) ------------------------------------------------------

def test_fit_cells_keeps_the_aspect_ratio_with_two_pixels_a_cell():
    # 1000x1000 in 160x48 cells: 96 pixels high is the limit (48 rows x 2), so 96 x 96 pixels.
    assert fit_cells(1000, 1000, 160, 48) == (96, 96)
    # A wide batch grid (256x64, 8 columns of 32x32) in 58x18 cells: the width limits, 58/256.
    cols, rows = fit_cells(256, 64, 58, 18)
    assert cols == 58 and abs(rows - 64 * 58 / 256) <= 1
    # Small images grow by whole multiples only: 8x8 in 58x18 cells -> x4 (36 pixel rows allow 4.5).
    assert fit_cells(8, 8, 58, 18) == (32, 32)
    assert fit_cells(8, 8, 58, 18, upscale=False) == (8, 8)
    assert fit_cells(10, 10, 0, 5) == (0, 0)


def test_scale_averages_down_and_repeats_up():
    pixels = np.zeros((4, 4, 3), dtype=np.uint8)
    pixels[:2, :2] = 200  # top-left quarter bright
    down = scale(pixels, 2, 2)
    assert down.shape == (2, 2, 3)
    assert down[0, 0].tolist() == [200, 200, 200] and down[1, 1].tolist() == [0, 0, 0]
    up = scale(pixels, 8, 8)
    assert up.shape == (8, 8, 3) and (up[:4, :4] == 200).all() and (up[4:, :] == 0).all()


def test_adjust_brightness_and_contrast_are_linear_around_mid_grey_and_clip():
    pixels = np.array([[[0, 50, 255]]], dtype=np.uint8)
    assert adjust(pixels, 0.0, 1.0) is pixels
    brighter = adjust(pixels, 0.1, 1.0)  # + 25.5
    assert brighter.tolist() == [[[np.rint(25.5), np.rint(75.5), 255]]]
    contrast = adjust(pixels, 0.0, 2.0)  # (v - 127.5) * 2 + 127.5
    assert contrast.tolist() == [[[0, 0, 255]]]
    soft = adjust(pixels, 0.0, 0.5)
    expected = np.clip(np.rint((np.array([0, 50, 255]) - 127.5) * 0.5 + 127.5), 0, 255)
    assert soft[0, 0].tolist() == expected.tolist()


def test_strips_put_the_top_pixel_in_the_foreground_and_the_bottom_in_the_background():
    pixels = np.array([[[255, 0, 0], [0, 0, 255]],
                       [[0, 255, 0], [255, 255, 255]],
                       [[9, 9, 9], [1, 2, 3]]], dtype=np.uint8)  # three rows: the last one alone
    strips = halfblock_strips(pixels, truecolor=True)
    assert len(strips) == 2 and all(s.cell_length == 2 for s in strips)
    first = list(strips[0])
    assert "".join(seg.text for seg in first) == "▀▀"
    assert first[0].style.color.get_truecolor() == (255, 0, 0)
    assert first[0].style.bgcolor.get_truecolor() == (0, 255, 0)
    assert first[1].style.color.get_truecolor() == (0, 0, 255)
    assert first[1].style.bgcolor.get_truecolor() == (255, 255, 255)
    last = list(strips[1])
    assert last[0].style.color.get_truecolor() == (9, 9, 9) and last[0].style.bgcolor is None


def test_strips_merge_runs_of_the_same_colours():
    strips = halfblock_strips(flat_rgb((10, 20, 30), width=50, height=4))
    assert [len(list(s)) for s in strips] == [1, 1]
    assert strips[0].text == "▀" * 50


def test_256_colour_fallback_picks_the_nearest_xterm_colour():
    def xterm(index):  # the xterm palette, written out
        if index >= 232:
            v = 8 + 10 * (index - 232)
            return (v, v, v)
        levels = [0, 95, 135, 175, 215, 255]
        i = index - 16
        return (levels[i // 36], levels[i // 6 % 6], levels[i % 6])

    rng = np.random.default_rng(3)
    pixels = rng.integers(0, 256, (6, 7, 3)).astype(np.uint8)
    indices = quantize_256(pixels)
    palette = np.array([xterm(i) for i in range(16, 256)])
    for (y, x), index in np.ndenumerate(indices):
        errors = ((palette - pixels[y, x].astype(int)) ** 2).sum(axis=1)
        assert ((np.array(xterm(index)) - pixels[y, x]) ** 2).sum() == errors.min()
    assert quantize_256(np.array([[[255, 0, 0], [255, 255, 255], [128, 128, 128]]], np.uint8)).tolist() == \
        [[196, 231, 244]]
    strips = halfblock_strips(np.array([[[255, 0, 0]], [[128, 128, 128]]], np.uint8), truecolor=False)
    segment = list(strips[0])[0]
    assert segment.style.color.type == ColorType.EIGHT_BIT and segment.style.color.number == 196
    assert segment.style.bgcolor.number == 244


def test_decode_reads_grey_alpha_and_16_bit_images():
    grey = np.arange(12 * 8, dtype=np.uint8).reshape(8, 12) * 2
    image = decode_image(png_bytes(grey, "L"))
    assert image.grey and (image.width, image.height) == (12, 8)
    assert image.pixels.shape == (8, 12, 3)
    assert (image.pixels[..., 0] == grey).all() and (image.pixels[..., 2] == grey).all()

    rgba = np.zeros((2, 2, 4), dtype=np.uint8)
    rgba[0, 0] = (200, 100, 50, 255)
    rgba[1, 1] = (200, 100, 50, 0)  # fully transparent: black, like a dark page
    image = decode_image(png_bytes(rgba, "RGBA"))
    assert image.pixels[0, 0].tolist() == [200, 100, 50] and image.pixels[1, 1].tolist() == [0, 0, 0]

    wide = np.array([[0, 1000], [2000, 4000]], dtype=np.uint16)
    image = decode_image(png_bytes(wide))
    assert image.grey
    assert np.abs(image.pixels[..., 0].astype(int) - wide / 4000 * 255).max() <= 1  # scaled by its range


def test_decode_explains_what_is_wrong():
    with pytest.raises(ImageDecodeError, match="not an image.*9 bytes"):
        decode_image(b"not a png")
    with pytest.raises(ImageDecodeError, match="empty"):
        decode_image(b"")
    whole = png_bytes(np.random.default_rng(0).integers(0, 256, (64, 64, 3)).astype(np.uint8))
    with pytest.raises(ImageDecodeError):
        decode_image(whole[: len(whole) // 2])


def test_decode_reduces_huge_images_once_but_keeps_their_size():
    big = np.zeros((300, 2000, 3), dtype=np.uint8)
    image = decode_image(png_bytes(big), max_side=500)
    assert (image.width, image.height) == (2000, 300)
    assert image.pixels.shape == (75, 500, 3)
    strips = render_image(image, 100, 40)
    assert len(strips) == 8 and strips[0].cell_length == 100  # fitted by the original 2000x300


def test_pick_index_shows_the_kept_step_at_or_before_the_chosen_one():
    steps = np.array([1, 3, 5, 12])
    assert pick_index(steps, None) == 3
    assert pick_index(steps, 5) == 2 and pick_index(steps, 4) == 1
    assert pick_index(steps, 0) == 0 and pick_index(steps, 99) == 3
    assert pick_index(np.array([], dtype=np.int64), 3) == -1


# -- the view on the MindSpore fixtures -------------------------------------------------------------

def test_every_image_tag_is_drawn_and_labelled_with_step_size_and_tag(truth):
    expected = truth["jobs"]["./lenet_lr0.01"]["images"]

    async def body(pilot, view):
        states = card_state(view)
        hashes = {}
        for card in view.shown_cards():
            data = view.cache.payloads.image(card.shown.locator)
            hashes[card.tag] = hashlib.sha256(data.png).hexdigest()
            rendered = cell_colours(card)
            assert rendered, f"{card.tag} drew nothing"
        return states, hashes

    states, hashes = run_view(MINDSPORE_LOGS, ["./lenet_lr0.01"], body, size=(160, 48))
    assert [tag for _, tag in states] == sorted(t.removesuffix("/image") for t in expected)
    for (_, tag), state in states.items():
        answer = expected[tag + "/image"]
        last = answer["metadatas"][-1]
        assert state["step"] == answer["last_image"]["step"] == last["step"]
        assert state["title"] == tag
        assert state["subtitle"].startswith(f"step {last['step']} · ")
        assert f"{last['width']}×{last['height']}" in state["subtitle"]
        assert state["image"] is not None and state["message"] == ""
        assert (state["image"].width, state["image"].height) == (last["width"], last["height"])
        assert hashes[tag] == answer["last_image"]["sha256"]  # the newest step's very PNG


def test_nchw_batch_grid_stays_one_image(tmp_path):
    """MindSpore tiles a batch into <= 8 columns inside one PNG: shown as is, one card."""
    batch = np.zeros((10, 3, 4, 4))
    for i in range(10):
        batch[i, 0] = i / 9  # red rises through the batch
    write_images(tmp_path, "run", steps=(1,), images={"batch": lambda step: batch})

    async def body(pilot, view):
        card = view.shown_cards()[0]
        return len(view.shown_cards()), card.image, card.border_subtitle

    count, image, subtitle = run_view(tmp_path, ["./run"], body)
    assert count == 1
    assert (image.width, image.height) == (8 * 4, 2 * 4)  # 8 columns, 2 rows of 4x4 images
    assert "32×8" in subtitle
    reds = image.pixels[0, ::4, 0].astype(int)  # first row of tiles, one pixel each
    assert list(reds) == sorted(reds) and reds[0] == 0


def test_brackets_move_through_the_kept_steps_and_end_follows_again():
    async def body(pilot, view):
        kept = [int(s) for s in view.cache.job("./lenet_lr0.01").series("image", "custom/img_nchw").steps]
        seen = {"start": card_state(view)}
        await pilot.press("left_square_bracket")
        await settle(pilot)
        seen["back"] = card_state(view)
        await pilot.press("home")
        await settle(pilot)
        seen["first"] = card_state(view)
        await pilot.press("right_square_bracket")
        await settle(pilot)
        seen["on"] = card_state(view)
        seen["status"] = str(view.query_one("#image-status").render())
        await pilot.press("end")
        await settle(pilot)
        seen["end"] = card_state(view)
        seen["follow"] = view.state.step
        return kept, seen

    kept, seen = run_view(MINDSPORE_LOGS, ["./lenet_lr0.01"], body)
    n = len(kept)
    for name, index in (("start", n - 1), ("back", n - 2), ("first", 0), ("on", 1), ("end", n - 1)):
        for state in seen[name].values():  # every tag moves together
            assert state["step"] == kept[index], name
            assert state["subtitle"].startswith(f"step {kept[index]} · "), name
            assert state["subtitle"].endswith(f" · {index + 1}/{n}"), name
            assert state["image"] is not None, name
    assert f"step {kept[1]} of {kept[0]}..{kept[-1]}" in seen["status"]
    assert seen["follow"] is None


def test_limits_job_steps_through_at_most_ten_kept_of_fifteen(truth):
    raw_steps = truth["jobs"]["./limits"]["raw"]["tags"]["limits/img/image"]["steps_in_file_order"]

    async def body(pilot, view):
        await pilot.press("home")
        await settle(pilot)
        visited = [view.shown_cards()[0].shown.step]
        for _ in range(11):  # more presses than kept steps: stops at the newest
            await pilot.press("right_square_bracket")
            await settle(pilot)
            visited.append(view.shown_cards()[0].shown.step)
        return visited, view.shown_cards()[0].image

    visited, image = run_view(MINDSPORE_LOGS, ["./limits"], body)
    distinct = sorted(set(visited))
    assert len(raw_steps) == 15 and len(distinct) <= 10
    assert set(distinct) <= set(raw_steps)
    assert distinct[0] == min(raw_steps)  # the cache always keeps the first and the newest step
    assert distinct[-1] == max(raw_steps) and visited[-1] == max(raw_steps)
    assert image is not None


def test_grey_one_channel_fixture_image_is_drawn_grey():
    async def body(pilot, view):
        card = view.shown_cards()[0]
        return card.image, card.border_subtitle, cell_colours(card)

    image, subtitle, colours = run_view(MINDSPORE_LOGS, ["./edge_cases"], body)
    assert (image.width, image.height) == (12, 8)
    assert "grey" in subtitle
    assert all(fg[0] == fg[1] == fg[2] for fg, _bg in colours)
    assert all(bg is None or bg[0] == bg[1] == bg[2] for _fg, bg in colours)


def test_one_channel_png_and_broken_png_side_by_side_with_good_ones(tmp_path):
    grey = (np.arange(20 * 30).reshape(20, 30) % 256).astype(np.uint8)
    write_images(tmp_path, "run", images={
        "bad": lambda step: b"not a png",
        "good": lambda step: flat_png_of_step(step),
        "grey": lambda step: png_bytes(grey, "L"),
    })

    async def body(pilot, view):
        states = card_state(view)
        await pilot.press("left_square_bracket")  # stepping over a broken image is fine too
        await settle(pilot)
        return states, card_state(view)

    states, after = run_view(tmp_path, ["./run"], body, size=(80, 24))
    bad, good, grey_card = (states[("./run", tag)] for tag in ("bad", "good", "grey"))
    assert bad["image"] is None
    assert "cannot decode this image (4×4 declared)" in bad["message"] and "not an image" in bad["message"]
    assert good["image"] is not None and good["image"].pixels[0, 0].tolist() == list(colour_of_step(3))
    assert grey_card["image"] is not None and "grey" in grey_card["subtitle"]
    assert (grey_card["image"].pixels[..., 1] == grey).all()
    assert after[("./run", "bad")]["message"].startswith("step 2: cannot decode")
    assert after[("./run", "good")]["image"].pixels[0, 0].tolist() == list(colour_of_step(2))


def test_brightness_and_contrast_keys_apply_to_every_image(tmp_path):
    write_images(tmp_path, "run", steps=(1,), images={
        "a": lambda step: png_bytes(flat_rgb((50, 100, 150))),
        "b": lambda step: png_bytes(flat_rgb((200, 20, 120))),
    })

    def expected(colour, brightness, contrast):
        v = (np.array(colour, dtype=float) - 127.5) * contrast + 127.5 + brightness * 255
        return tuple(int(x) for x in np.clip(np.rint(v), 0, 255))

    async def body(pilot, view):
        seen = {"before": {card.tag: cell_colours(card)[0][0] for card in view.shown_cards()}}
        await pilot.press("b")
        await pilot.pause()
        seen["brighter"] = {card.tag: cell_colours(card)[0][0] for card in view.shown_cards()}
        await pilot.press("c")
        await pilot.pause()
        seen["contrast"] = {card.tag: cell_colours(card)[0][0] for card in view.shown_cards()}
        seen["status"] = str(view.query_one("#image-status").render())
        await pilot.press("B", "B", "C", "C")
        await pilot.pause()
        seen["darker"] = {card.tag: cell_colours(card)[0][0] for card in view.shown_cards()}
        await pilot.press("0")
        await pilot.pause()
        seen["reset"] = {card.tag: cell_colours(card)[0][0] for card in view.shown_cards()}
        seen["settings"] = (view.state.brightness, view.state.contrast)
        return seen

    seen = run_view(tmp_path, ["./run"], body)
    colours = {"a": (50, 100, 150), "b": (200, 20, 120)}
    for tag, colour in colours.items():
        assert seen["before"][tag] == colour
        assert seen["brighter"][tag] == expected(colour, 0.1, 1.0)
        assert seen["contrast"][tag] == expected(colour, 0.1, 1.25)
        assert seen["darker"][tag] == expected(colour, -0.1, 1 / 1.25)
        assert seen["reset"][tag] == colour
    assert "brightness +0.1" in seen["status"] and "contrast ×1.25" in seen["status"]
    assert seen["settings"] == (0.0, 1.0)


def test_256_colour_terminal_gets_palette_colours(tmp_path, monkeypatch):
    monkeypatch.delenv("COLORTERM", raising=False)
    monkeypatch.setenv("TERM", "xterm-256color")
    write_images(tmp_path, "run", steps=(1,), images={"a": lambda step: png_bytes(flat_rgb((255, 0, 0)))})

    async def body(pilot, view):
        card = view.shown_cards()[0]
        segment = next(seg for strip in card.strips() for seg in strip if halfblock.UPPER_HALF in seg.text)
        return pilot.app.console.color_system, segment.style.color

    system, colour = run_view(tmp_path, ["./run"], body)
    assert system == "256"
    assert colour.type == ColorType.EIGHT_BIT and colour.number == 196


def test_png_decoding_runs_in_a_worker_thread(tmp_path, monkeypatch):
    write_images(tmp_path, "run", steps=(1, 2), images={"a": flat_png_of_step, "b": flat_png_of_step})
    threads = []
    real = image_decoding.decode_image

    def spy(data, *args, **kwargs):
        threads.append(threading.current_thread())
        return real(data, *args, **kwargs)

    monkeypatch.setattr(image_decoding, "decode_image", spy)

    async def body(pilot, view):
        await pilot.press("left_square_bracket")
        await settle(pilot)
        return threading.current_thread(), card_state(view)

    ui_thread, states = run_view(tmp_path, ["./run"], body)
    assert len(threads) == 4  # two tags x two steps, each decoded once
    assert all(t is not ui_thread for t in threads)
    assert all(state["step"] == 1 and state["image"] is not None for state in states.values())


def test_steps_ahead_are_the_neighbours_then_the_first_and_the_newest():
    assert steps_ahead(4, 5) == [3, 0]
    assert steps_ahead(2, 5) == [1, 3, 0, 4]
    assert steps_ahead(0, 5) == [1, 4]
    assert steps_ahead(0, 1) == []


def step_of_pixels(image: DecodedImage | None) -> int | None:
    """The step whose flat colour (`colour_of_step`) `image` shows."""
    if image is None:
        return None
    return int(image.pixels[0, 0, 0]) // 10


def slow_decodes(monkeypatch) -> list[int]:
    """Decodes slower than a paint (so what a key's first paint shows was decoded before the key);
    the steps decoded, in order."""
    decoded: list[int] = []
    real = image_decoding.decode_image

    def slow(data, *args, **kwargs):
        time.sleep(0.15)
        image = real(data, *args, **kwargs)
        decoded.append(step_of_pixels(image))
        return image

    monkeypatch.setattr(image_decoding, "decode_image", slow)
    return decoded


def test_the_steps_a_key_shows_next_are_decoded_ahead_and_painted_at_once(tmp_path, monkeypatch):
    write_images(tmp_path, "run", steps=(1, 2, 3, 4, 5), images={"a": flat_png_of_step})
    decoded = slow_decodes(monkeypatch)

    async def body(pilot, view):
        app, card = pilot.app, view.shown_cards()[0]
        ahead = sorted(decoded)
        first_paints = []
        display = app._display

        def painted(screen, renderable):
            if renderable is not None and len(first_paints) < len(shown):
                first_paints.append(step_of_pixels(card.image))
            return display(screen, renderable)

        app._display = painted
        shown: list[str] = []
        for key in ("left_square_bracket", "home", "end", "left_square_bracket"):
            shown.append(key)
            await pilot.press(key)
            await wait_for(pilot, lambda: len(first_paints) == len(shown))
            await settle(pilot)
        return ahead, first_paints

    ahead, first_paints = run_view(tmp_path, ["./run"], body)
    assert ahead == [1, 4, 5]  # shown (newest), then the step before it and the first
    assert first_paints == [4, 1, 5, 4]  # each key's first paint has the step's pixels


def test_steps_are_decoded_ahead_only_into_half_the_kept_pixels(tmp_path, monkeypatch):
    write_images(tmp_path, "run", steps=(1, 2, 3, 4, 5), images={"a": flat_png_of_step})
    decoded = slow_decodes(monkeypatch)
    image_bytes = 16 * 16 * 3
    monkeypatch.setattr(DecodedCache.__init__, "__defaults__", (4 * image_bytes,))  # half: two images

    async def body(pilot, view):
        return sorted(decoded)

    assert run_view(tmp_path, ["./run"], body) == [4, 5]  # shown, and the nearest step ahead


def test_grid_and_list_layouts(tmp_path):
    square = lambda step: png_bytes(flat_rgb((1, 2, 3), 16, 16))  # noqa: E731
    write_images(tmp_path, "run", steps=(1,), images={f"t{i}": square for i in range(4)})

    async def body(pilot, view):
        grid = view.query_one(ImageGrid)
        seen = {"grid": (view.state.layout, grid.styles.grid_size_columns)}
        await pilot.press("g")
        await settle(pilot)
        seen["list"] = (view.state.layout, grid.styles.grid_size_columns)
        seen["regions"] = [card.region for card in view.shown_cards()]
        return seen

    seen = run_view(tmp_path, ["./run"], body, size=(160, 48))
    assert seen["grid"][0] == "grid" and seen["grid"][1] > 1  # four squares: side by side
    assert seen["list"] == ("list", 1)
    xs = {region.x for region in seen["regions"]}
    assert len(xs) == 1  # one column


def test_a_layout_that_makes_the_grid_scroll_draws_each_card_at_one_size(tmp_path, monkeypatch):
    """`g` to a list of cards taller than the screen: the scrollbar comes with the layout, so each
    card is drawn once, at the width it keeps (with the scrollbar left to Textual, every card was
    drawn at the full width first, then again two columns narrower)."""
    square = lambda step: png_bytes(flat_rgb((1, 2, 3), 16, 16))  # noqa: E731
    write_images(tmp_path, "run", steps=(1,), images={f"t{i}": square for i in range(4)})
    drawn: list[tuple[int, int]] = []
    real = halfblock.render_image

    def spy(image, max_cols, max_rows, *args, **kwargs):
        drawn.append((max_cols, max_rows))
        return real(image, max_cols, max_rows, *args, **kwargs)

    monkeypatch.setattr(halfblock, "render_image", spy)

    async def body(pilot, view):
        drawn.clear()
        await pilot.press("g")
        await settle(pilot)
        grid = view.query_one(ImageGrid)
        return grid.show_vertical_scrollbar, [tuple(card.content_region.size) for card in view.shown_cards()]

    scrolls, sizes = run_view(tmp_path, ["./run"], body, size=(160, 48))
    assert scrolls
    assert drawn and set(drawn) == set(sizes)  # every size drawn is the one the cards kept
    assert len(drawn) <= len(sizes)  # no card drawn twice


def test_leaving_full_screen_draws_each_card_at_the_size_it_keeps(tmp_path, monkeypatch):
    """`/` in full screen brings the tag list back: the cards are shaped for the width the list
    leaves them in the same layout (shaped for the full width first, they were drawn at it, then
    again once the list took its place)."""
    wide = lambda step: png_bytes(flat_rgb((1, 2, 3), 64, 16))  # noqa: E731  (rows as tall as the width allows)
    write_images(tmp_path, "run", steps=(1,), images={f"t{i}": wide for i in range(4)})
    drawn: list[tuple[int, int]] = []
    real = halfblock.render_image

    def spy(image, max_cols, max_rows, *args, **kwargs):
        drawn.append((max_cols, max_rows))
        return real(image, max_cols, max_rows, *args, **kwargs)

    monkeypatch.setattr(halfblock, "render_image", spy)

    async def body(pilot, view):
        for key in ("g", "f"):
            await pilot.press(key)
            await settle(pilot)
        drawn.clear()
        await pilot.press("slash")
        await settle(pilot)
        return view.state.fullscreen, [tuple(card.content_region.size) for card in view.shown_cards()]

    fullscreen, sizes = run_view(tmp_path, ["./run"], body, size=(160, 48))
    assert fullscreen is None
    assert drawn and set(drawn) == set(sizes)


def test_compared_jobs_are_side_by_side_with_their_colours():
    jobs = ["./lenet_lr0.01", "./lenet_lr0.1", "./resnetish_bs32"]

    async def body(pilot, view):
        grid = view.query_one(ImageGrid)
        cards = view.shown_cards()
        rows = {}
        for card in cards:
            rows.setdefault(card.tag, []).append((card.region.y, card.region.x, card.train_id))
        seen = {"columns": grid.styles.grid_size_columns, "states": card_state(view), "rows": rows,
                "colours": {tid: view.job_colour(tid) for tid in jobs}}
        await pilot.press("home")
        await settle(pilot)
        seen["first"] = card_state(view)
        await pilot.press("right_square_bracket")
        await settle(pilot)
        seen["second"] = card_state(view)
        seen["chosen"] = view.state.step
        seen["kept"] = {tid: [int(s) for s in view.cache.job(tid).series("image", "custom/img_nchw").steps]
                        for tid in jobs}
        return seen

    seen = run_view(MINDSPORE_LOGS, jobs, body, size=(160, 48))
    assert seen["columns"] % len(jobs) == 0
    for tag, row in seen["rows"].items():
        assert len({y for y, _, _ in row}) == 1, tag  # one tag: one row
        assert [tid for _, _, tid in sorted(row, key=lambda r: r[1])] == jobs  # in the order compared
    states = seen["states"]
    for tid in jobs:
        state = states[(tid, "custom/img_nchw")]
        assert seen["colours"][tid] in state["title"] and tid in state["title"]
    assert "no image for this tag" in states[("./lenet_lr0.1", "in_graph/input")]["message"]
    # The step moves through the union of the jobs' kept steps; a job without the chosen step
    # shows its kept step before it, and says so.
    union = sorted({s for steps in seen["kept"].values() for s in steps})
    assert seen["chosen"] == union[1]
    for tid, steps in seen["kept"].items():
        state = seen["second"][(tid, "custom/img_nchw")]
        assert state["step"] == max(s for s in steps if s <= union[1])
        if state["step"] != union[1]:
            assert f"(for {union[1]})" in state["subtitle"]
        assert seen["first"][(tid, "custom/img_nchw")]["step"] == steps[0]


def test_full_screen_arrows_filter_and_selection(tmp_path):
    write_images(tmp_path, "run", steps=(1,), images={tag: flat_png_of_step for tag in ("alpha", "beta", "gamma")})

    async def body(pilot, view):
        app = pilot.app
        seen = {"focused": app.focused.tag}
        await pilot.press("right")
        seen["right"] = app.focused.tag
        await pilot.press("f")
        await settle(pilot)
        seen["full"] = ([c.tag for c in view.shown_cards()], view.has_class("-fullscreen"),
                        view.query_one("#image-tags").display)
        await pilot.press("escape")
        await settle(pilot)
        seen["back"] = [c.tag for c in view.shown_cards()]
        await pilot.press("slash", *"mm")
        await settle(pilot)
        seen["filtered"] = [c.tag for c in view.shown_cards()]
        await pilot.press("enter")  # to the tag list
        await pilot.press("space")  # gamma (the only one listed) off
        await settle(pilot)
        seen["deselected"] = [c.tag for c in view.shown_cards()]
        seen["empty"] = str(view.query_one("#image-empty").render())
        view.query_one("#image-filter", Input).value = ""
        await settle(pilot)
        seen["unfiltered"] = [c.tag for c in view.shown_cards()]
        await pilot.press("a")
        await settle(pilot)
        seen["all"] = [c.tag for c in view.shown_cards()]
        seen["list_title"] = view.query_one("#image-list", TagList).border_title
        return seen

    seen = run_view(tmp_path, ["./run"], body)
    assert seen["focused"] == "alpha" and seen["right"] == "beta"
    assert seen["full"][0] == ["beta"] and seen["full"][1]
    assert seen["back"] == ["alpha", "beta", "gamma"]
    assert seen["filtered"] == ["gamma"]
    assert seen["deselected"] == [] and "no tag selected" in seen["empty"]
    assert seen["unfiltered"] == ["alpha", "beta"]
    assert seen["all"] == ["alpha", "beta", "gamma"]
    assert seen["list_title"] == "tags 3/3"


def test_new_steps_show_when_following_and_a_chosen_step_stays(tmp_path):
    directory = write_images(tmp_path, "run", steps=(1, 2), images={"a": flat_png_of_step})

    def append(step):
        with SummaryWriter(directory, timestamp=int(T0) + 10, wall_time=T0 + 10) as writer:
            writer.add_image("a", png=flat_png_of_step(step))
            writer.record(step, wall_time=T0 + step)

    async def body(pilot, view):
        app = pilot.app
        card = view.shown_cards()[0]
        seen = {"start": (card.shown.step, card.image.pixels[0, 0].tolist())}
        append(3)
        app.cache.reload()
        await settle(pilot)
        seen["followed"] = (card.shown.step, card.image.pixels[0, 0].tolist(), card.border_subtitle)
        card.focus()
        await pilot.press("left_square_bracket")
        await settle(pilot)
        append(4)
        app.cache.reload()
        await settle(pilot)
        seen["kept"] = (card.shown.step, card.image.pixels[0, 0].tolist(), app.focused is card, view.state.step)
        return seen

    seen = run_view(tmp_path, ["./run"], body)
    assert seen["start"] == (2, list(colour_of_step(2)))
    assert seen["followed"][:2] == (3, list(colour_of_step(3))) and "3/3" in seen["followed"][2]
    assert seen["kept"] == (2, list(colour_of_step(2)), True, 2)


def test_keys_are_in_help_and_have_ids():
    async def body(pilot, view):
        groups = collect_bindings(pilot.app.screen, pilot.app.extra_binding_nodes(pilot.app.screen))
        return {binding.id for items in groups.values() for _, binding, _ in items}

    ids = run_view(MINDSPORE_LOGS, ["./edge_cases"], body)
    for name in ("step_back", "step_on", "first_step", "newest_step", "brighter", "darker", "contrast_more",
                 "contrast_less", "reset", "layout", "fullscreen", "filter", "select_all", "left", "up"):
        assert f"images.{name}" in ids
    view_ids = [b.id for b in ImagesView.BINDINGS] + [b.id for b in ImageCard.BINDINGS]
    assert all(i and i.startswith("images.") for i in view_ids)


def test_jobs_without_images_say_so():
    async def body(pilot, view):
        return str(view.query_one("#image-empty").render()), view.query_one(ImageGrid).display

    message, grid_shown = run_view(MINDSPORE_LOGS, ["./"], body, size=(80, 24))
    assert message == "this job has no images" and not grid_shown


def test_decoded_pixels_are_bounded():
    cache = DecodedCache(limit=10_000)
    for i in range(10):
        pixels = np.zeros((30, 30, 3), dtype=np.uint8)  # 2,700 bytes each
        cache.put(i, Loaded(i, (DecodedImage(pixels, 30, 30, False), False)))
    assert cache.nbytes <= 10_000 and len(cache) == 3
    assert cache.keys() == [7, 8, 9]
    assert cache.get(7) is not None  # used: now the newest
    cache.put("bad", Loaded("bad", None, "cannot decode"))  # a failure is remembered too, and small
    assert cache.keys() == [8, 9, 7, "bad"]


def test_export_scope_is_the_image_tags_shown():
    async def body(pilot, view):
        return view.export_scope()

    scope = run_view(MINDSPORE_LOGS, ["./lenet_lr0.01"], body)
    assert scope["plugins"] == {"image"} and scope["train_ids"] == ["./lenet_lr0.01"]
    assert scope["tags"] == {("image", t) for t in ("custom/img_nchw", "in_graph/input", "input_data/auto")}


MARKUP_TAG = "[bold red]markup[/]"


def screen_text(app) -> str:
    """What the screen shows, as plain text (from the SVG screenshot)."""
    svg = app.export_screenshot()
    return html.unescape(re.sub(r"<[^>]+>", "", svg.split("</style>")[-1])).replace("\xa0", " ")


def test_tag_names_and_job_ids_are_shown_literally(tmp_path):
    write_images(tmp_path, "[exp]", steps=(1,), images={MARKUP_TAG: flat_png_of_step})
    write_images(tmp_path, "b", steps=(1,), images={MARKUP_TAG: flat_png_of_step})

    async def body(pilot, view):
        await pilot.pause()
        return screen_text(pilot.app), [card.border_title for card in view.shown_cards()]

    text, titles = run_view(tmp_path, ["./[exp]", "./b"], body, size=(160, 48))
    assert f"{MARKUP_TAG} · ./[exp]" in text  # the card's title, as written
    assert f"✓ {MARKUP_TAG}" in text  # the tag list
    assert len(titles) == 2


def test_no_tag_selected_or_matching_says_what_to_do(tmp_path):
    write_images(tmp_path, "run", steps=(1,), images={"alpha": flat_png_of_step, "beta": flat_png_of_step})

    async def body(pilot, view):
        empty = view.query_one("#image-empty")
        seen = {"start": (empty.display, isinstance(pilot.app.focused, ImageCard))}
        await pilot.press("a")  # from a card: the cards go, the tag list takes the keys
        await settle(pilot)
        seen["none"] = (str(empty.render()), empty.display, view.query_one(ImageGrid).display, view.shown_cards())
        seen["keys"] = isinstance(pilot.app.focused, TagList)  # still somewhere that takes `a`
        await pilot.press("a", "slash", *"xyz")
        await settle(pilot)
        seen["nomatch"] = str(empty.render())
        await pilot.press("escape")
        await settle(pilot)
        seen["back"] = ([c.tag for c in view.shown_cards()], empty.display)
        return seen

    seen = run_view(tmp_path, ["./run"], body)
    assert seen["start"] == (False, True) and seen["keys"]
    assert seen["none"] == ("no tag selected: space selects, a selects all", True, False, [])
    assert seen["nomatch"] == "no tag matches /xyz/ (esc clears)"
    assert seen["back"] == (["alpha", "beta"], False)


def test_remembered_step_and_adjustment_come_back(tmp_path):
    write_images(tmp_path, "run", steps=(1, 2, 3), images={"a": flat_png_of_step, "gone": flat_png_of_step})
    app = make_app(tmp_path)
    app.workspace.remember("./run", "images", {
        "tags": {"deselected": ["gone", "never/was"], "filter": ""}, "step": 2, "brightness": 0.3,
        "contrast": 1.25, "layout": "list", "fullscreen": "never/was"})

    async def body(pilot):
        view = await open_images(pilot, ["./run"])
        card = view.shown_cards()[0]
        seen = (view.state.step, card.shown.step, card.brightness, card.contrast, view.state.layout,
                view.state.fullscreen, [c.tag for c in view.shown_cards()])
        await pilot.press("end")
        return seen, app.workspace.get("./run", "images")["step"]

    seen, remembered_step = run_pilot(app, body)
    assert seen == (2, 2, 0.3, 1.25, "list", None, ["a"])
    assert remembered_step is None  # `end` follows the newest again, and that is remembered


def test_pressing_4_right_after_opening_a_job_and_focus_before_compose(tmp_path):
    write_images(tmp_path, "run", steps=(1,), images={"a": flat_png_of_step})
    app = make_app(tmp_path)

    async def body(pilot):
        early = ImagesView(app.cache, ("./run",))
        early.focus_view()  # built, not composed: nothing happens, no exception
        assert early.first_focus() is None
        app.open_jobs(("./run",))
        await pilot.press("4")  # no pause
        await pilot.press("b")  # a key at once reaches the image view
        assert await wait_for(pilot, lambda: bool(app.screen.query(ImagesView)))
        view = app.screen.query_one(ImagesView)
        assert await wait_for(pilot, lambda: isinstance(app.focused, ImageCard))
        return view.state.brightness

    assert run_pilot(app, body) in (0.0, 0.1)  # `b` went to the view, or to nothing: never a traceback


# -- snapshots --------------------------------------------------------------------------------------

def snapshot_app(jobs):
    app = make_app(MINDSPORE_LOGS)

    async def run_before(pilot):
        await open_images(pilot, jobs)
        await settle(pilot)

    return app, run_before


def test_snapshot_lenet_80x24(snap_compare):
    app, run_before = snapshot_app(["./lenet_lr0.01"])
    assert snap_compare(app, terminal_size=(80, 24), run_before=run_before)


def test_snapshot_lenet_160x48(snap_compare):
    app, run_before = snapshot_app(["./lenet_lr0.01"])
    assert snap_compare(app, terminal_size=(160, 48), run_before=run_before)


def test_snapshot_compare_160x48(snap_compare):
    app, run_before = snapshot_app(["./lenet_lr0.01", "./lenet_lr0.1", "./resnetish_bs32"])
    assert snap_compare(app, terminal_size=(160, 48), run_before=run_before)


def test_snapshot_edge_cases_grey_80x24(snap_compare):
    app, run_before = snapshot_app(["./edge_cases"])
    assert snap_compare(app, terminal_size=(80, 24), run_before=run_before)


# -- images no writer should make (issue 15) ----------------------------------------------------

def test_a_decompression_bomb_is_refused_by_its_declared_size_before_decoding():
    import time
    import tracemalloc

    from hostile_logs import png_bomb

    bomb = png_bomb(20_000, 20_000)  # 400 million pixels in ~60 KB: 1.2 GB as RGB
    assert len(bomb) < 200_000 and halfblock.png_size(bomb) == (20_000, 20_000)
    tracemalloc.start()
    started = time.perf_counter()
    try:
        with pytest.raises(ImageDecodeError, match="20000×20000 is 400,000,000 pixels"):
            decode_image(bomb)
        took, peak = time.perf_counter() - started, tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < 5 << 20 and took < 1.0, (peak, took)
    just_under = png_bomb(5_000, 6_000)  # 30 million pixels: under the bound, decoded and reduced
    image = decode_image(just_under)
    assert (image.width, image.height) == (5_000, 6_000) and max(image.pixels.shape[:2]) == 1024


def test_hostile_images_each_say_what_is_wrong_and_the_rest_show(tmp_path):
    from hostile_logs import write_hostile_images

    job = tmp_path / "logs" / "bad"
    job.mkdir(parents=True)
    write_hostile_images(job)

    async def body(pilot, view):
        cards = {tag: state for (_, tag), state in card_state(view).items()}
        assert cards["fine"]["image"] is not None and "8×6" in cards["fine"]["subtitle"]
        # the PNG is shown at its own size, and the card says what the record declared
        assert cards["wrong_size"]["image"] is not None
        assert "8×6 (record says 300×2)" in cards["wrong_size"]["subtitle"]
        assert "not an image" in cards["not_png"]["message"]
        assert "400,000,000 pixels: images over 32,000,000 pixels are not decoded" in cards["bomb"]["message"]
        assert "20000×20000 declared" in cards["bomb"]["message"]
        assert "cannot decode" in cards["half_png"]["message"] and "empty" in cards["empty"]["message"]
        return True

    assert run_view(tmp_path / "logs", ["./bad"], body, size=(160, 60))
