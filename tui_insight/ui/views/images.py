"""The image view: every image tag of a job (or of the compared jobs, side by side), drawn with
half blocks, stepped through with `[`/`]`, brightened and contrasted with one setting for all.

State that outlives a redraw (tag selection, chosen step, brightness, contrast, layout, full
screen) lives here. Cards only show what they are given. Images are decoded in a thread worker
when a card is first drawn (so only what fits on screen is decoded), and kept in a small LRU of
decoded pixels bounded in bytes.

The chosen step applies to every card: a card shows its kept step at or before it (the first
kept step if it has none before), and says which step that is. With no chosen step the cards
follow the newest step as the job grows.
"""
from __future__ import annotations

import math
from collections import OrderedDict
from dataclasses import dataclass
from typing import Any

import numpy as np
from rich.markup import escape
from textual import on
from textual.actions import SkipAction
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.message import Message
from textual.strip import Strip
from textual.widgets import SelectionList, Static
from textual.worker import get_current_worker

from ...summary.cache import Changes, JobView
from ...summary.payloads import Locator, PayloadError
from ...summary.series import Series
from .base import DataView, ViewSpec
from ..widgets.halfblock import DecodedImage, HalfBlockImage, ImageDecodeError, decode_image, fit_cells
from ..widgets.tag_picker import TagPicker
from ..widgets.view_grid import ViewGrid
from ..common.focus import focus_now

MIN_CARD_WIDTH = 24
MIN_CARD_HEIGHT = 8
BORDER = 2  # cells a card's border takes in each direction
DECODED_BYTES = 48 << 20  # decoded pixels kept for stepping back and forth
BRIGHTNESS_STEP = 0.1
BRIGHTNESS_LIMIT = 1.0
CONTRAST_FACTOR = 1.25
CONTRAST_LIMITS = (0.2, 5.0)


@dataclass(frozen=True)
class Failure:
    """An image that cannot be shown: why, and the size its record declares."""

    message: str
    width: int = 0
    height: int = 0
    nbytes: int = 256


@dataclass(frozen=True)
class Shown:
    """What a card is asked to show: which step of which series, and where its payload is."""

    step: int
    index: int  # among the series' kept steps
    count: int  # kept steps of the series
    locator: Locator


def pick_index(steps: np.ndarray, step: int | None) -> int:
    """The kept step a card shows for the chosen `step`: the last at or before it, else the first."""
    if not len(steps):
        return -1
    if step is None:
        return len(steps) - 1
    return max(0, int(np.searchsorted(steps, step, side="right")) - 1)


def size_text(width: int, height: int) -> str:
    return f"{width}×{height}"


class ImagesDecoded(Message):
    """From the decoding worker: the image (or why not) at one locator."""

    def __init__(self, locator: Locator, result: "DecodedImage | Failure", grey: bool = False):
        super().__init__()
        self.locator = locator
        self.result = result
        self.grey = grey


class ImageCard(HalfBlockImage):
    """One image of one job and tag, with its labels on the border; asks for its pixels when drawn."""

    HELP_GROUP = "Images"
    can_focus = True
    DEFAULT_CSS = """
    ImageCard { border: round $panel-lighten-2; height: 100%; width: 1fr; padding: 0; }
    ImageCard:focus { border: round $accent; }
    """
    BINDINGS = [
        Binding("left", "move(-1, 0)", "Image left", show=False, id="images.left"),
        Binding("right", "move(1, 0)", "Image right", show=False, id="images.right"),
        Binding("up", "move(0, -1)", "Image above", show=False, id="images.up"),
        Binding("down", "move(0, 1)", "Image below", show=False, id="images.down"),
    ]

    class Wanted(Message):
        """A card was drawn and has no pixels for what it should show."""

        def __init__(self, card: "ImageCard"):
            super().__init__()
            self.card = card

    def __init__(self, train_id: str, tag: str, **kwargs: Any):
        super().__init__(message="", **kwargs)
        self.train_id = train_id
        self.tag = tag
        self.shown: Shown | None = None  # what the view wants on this card
        self.asked = False  # a Wanted message was sent for `shown`

    @property
    def key(self) -> tuple[str, str]:
        return self.train_id, self.tag

    def want(self, shown: Shown | None) -> None:
        if shown != self.shown:
            self.shown = shown
            self.asked = False
            self.refresh()

    def render_line(self, y: int) -> Strip:
        if not self.asked and self.shown is not None:
            self.asked = True  # drawn means on screen: now its pixels are worth decoding
            self.post_message(self.Wanted(self))
        return super().render_line(y)

    def action_move(self, dx: int, dy: int) -> None:
        view = next((a for a in self.ancestors if isinstance(a, ImagesView)), None)
        if view is not None:
            view.move_focus(self, dx, dy)


class ImageGrid(ViewGrid):
    """The scrollable grid of cards; tells the view when its size changes."""

    DEFAULT_CSS = """
    ImageGrid { layout: grid; grid-size: 1; grid-rows: 12; overflow-y: auto; height: 1fr; }
    """


class ImagesView(DataView):
    SPEC = ViewSpec("images", "Images", "4", ("image",), "job")
    HELP_GROUP = "Images"
    DEFAULT_CSS = """
    ImagesView { layout: horizontal; }
    ImagesView.-fullscreen #image-tags { display: none; }
    ImagesView #image-main { width: 1fr; height: 1fr; }
    ImagesView #image-status { height: 1; padding: 0 1; background: $panel; }
    ImagesView #image-empty { height: 1fr; padding: 1 2; color: $text-muted; }
    """
    BINDINGS = [
        Binding("left_square_bracket", "step(-1)", "Step back", id="images.step_back"),
        Binding("right_square_bracket", "step(1)", "Step on", id="images.step_on"),
        Binding("home", "first_step", "First step", show=False, id="images.first_step"),
        Binding("end", "newest_step", "Newest step (follow)", show=False, id="images.newest_step"),
        Binding("b", "brightness(1)", "Brighter", id="images.brighter"),
        Binding("B", "brightness(-1)", "Darker", show=False, id="images.darker"),
        Binding("c", "contrast(1)", "More contrast", id="images.contrast_more"),
        Binding("C", "contrast(-1)", "Less contrast", show=False, id="images.contrast_less"),
        Binding("0", "reset_adjust", "Reset brightness/contrast", show=False, id="images.reset"),
        Binding("g", "toggle_layout", "Grid/list", id="images.layout"),
        Binding("f", "fullscreen", "Full screen", id="images.fullscreen"),
        Binding("slash", "filter_tags", "Filter tags", show=False, id="images.filter"),
        Binding("a", "select_all", "Select all/none", show=False, id="images.select_all"),
        Binding("escape", "leave", "Leave full screen", show=False, id="images.leave"),
    ]

    def __init__(self, cache, train_ids, **kwargs: Any):
        super().__init__(cache, train_ids, **kwargs)
        self.picker = TagPicker("image", "tags")
        self.step: int | None = None  # None: follow the newest step
        self.brightness = 0.0
        self.contrast = 1.0
        self.arrangement = "grid"  # or "list": one tag per row
        self.fullscreen: str | None = None  # the tag shown alone (all compared jobs of it)
        self._cards: dict[tuple[str, str], ImageCard] = {}
        self._decoded: OrderedDict[Locator, tuple[DecodedImage | Failure, bool]] = OrderedDict()
        self._decoded_bytes = 0
        self._in_flight: set[Locator] = set()
        self._asked: list[Locator] = []  # cards drawn without pixels since the last worker started
        self._columns = 1
        self._focus_tries = 0
        self._ready = False  # on_mount has run

    # -- building ---------------------------------------------------------------------------------

    def compose(self) -> ComposeResult:
        yield self.picker
        with Vertical(id="image-main"):
            yield Static("", id="image-status")
            yield Static("", id="image-empty")
            yield ImageGrid(id="image-grid")

    def on_mount(self) -> None:
        self._read_tags()
        self._sync_cards()
        self._ready = True
        self.call_after_refresh(self.ready_for_keys)  # interim: the view takes the keys when ready

    def focus_view(self) -> None:
        cards = [card for card in self._shown_cards() if card.is_mounted]
        if cards:
            focus_now(cards[0])
        elif self._focus_tries < 3 and (not self._ready or self._cards):
            self._focus_tries += 1  # the view or its cards are still being mounted
            self.call_after_refresh(self.focus_view)
        else:
            self.picker.focus_list()

    # -- data -------------------------------------------------------------------------------------

    def _read_tags(self) -> bool:
        """Re-read the tag names of the jobs; True if they changed."""
        return self.picker.set_tags(sorted({tag for job in self.jobs for tag in job.tag_names("image")}))

    def series(self, train_id: str, tag: str) -> tuple[JobView | None, Series | None]:
        job = self.cache.job(train_id)
        series = job.series("image", tag) if job is not None else None
        return job, series

    def all_steps(self) -> np.ndarray:
        """Every kept step of the images on screen, sorted."""
        arrays = []
        for train_id, tag in self._card_order():
            _, series = self.series(train_id, tag)
            if series is not None and len(series):
                arrays.append(series.steps)
        return np.unique(np.concatenate(arrays)) if arrays else np.empty(0, dtype=np.int64)

    def cache_changed(self, changes: Changes) -> None:
        mine = set(self.train_ids)
        touched = mine & changes.removed
        for tid in mine & (set(changes.updated) | changes.added):
            keys = changes.updated.get(tid) or set()
            if not keys or any(plugin == "image" for plugin, _ in keys):
                touched.add(tid)
        if not touched:
            return
        if self._read_tags():
            self._sync_cards()
        else:
            self.update_cards()

    # -- tag list ---------------------------------------------------------------------------------

    @property
    def tags(self) -> list[str]:
        return self.picker.tags

    def visible_tags(self) -> list[str]:
        return self.picker.visible_tags()

    @on(TagPicker.Changed)
    def _tags_changed(self, event: TagPicker.Changed) -> None:
        event.stop()
        self._sync_cards()

    @on(SelectionList.SelectionHighlighted, "#image-list")
    def _highlighted(self, event: SelectionList.SelectionHighlighted) -> None:
        event.stop()
        card = next((c for (tid, tag), c in self._cards.items() if tag == event.selection.value), None)
        if card is not None and card.display:
            self.query_one(ImageGrid).scroll_to_widget(card, animate=False)

    def action_filter_tags(self) -> None:
        if self.fullscreen:
            self.action_fullscreen()
        self.picker.focus_filter()

    def action_select_all(self) -> None:
        self.picker.select_all()
        self._sync_cards()

    # -- cards ------------------------------------------------------------------------------------

    def _card_order(self) -> list[tuple[str, str]]:
        """(train id, tag) of every card: tag by tag, the compared jobs side by side."""
        tags = [self.fullscreen] if self.fullscreen else self.visible_tags()
        return [(tid, tag) for tag in tags for tid in self.train_ids]

    def _shown_cards(self) -> list[ImageCard]:
        return [self._cards[key] for key in self._card_order() if key in self._cards]

    def _sync_cards(self) -> None:
        """Mount the cards the selection asks for (keeping the ones that stay), then fill them."""
        grid = self.query_one(ImageGrid)
        wanted = [(tid, tag) for tag in self.visible_tags() for tid in self.train_ids]
        if list(self._cards) != wanted:
            had_focus = isinstance(self.screen.focused, ImageCard)
            focused = self.screen.focused.key if isinstance(self.screen.focused, ImageCard) else None
            kept = {key: card for key, card in self._cards.items() if key in wanted}
            if list(kept) != [key for key in wanted if key in kept]:
                kept = {}  # the order changed: build them all again
            for key, card in self._cards.items():
                if key not in kept:
                    card.remove()
            first_kept = next(iter(kept.values()), None)
            previous = None
            cards: dict[tuple[str, str], ImageCard] = {}
            for key in wanted:
                card = kept.get(key)
                if card is None:
                    card = ImageCard(*key)
                    card.set_adjust(self.brightness, self.contrast)
                    if previous is not None:
                        grid.mount(card, after=previous)
                    elif first_kept is not None:
                        grid.mount(card, before=first_kept)
                    else:
                        grid.mount(card)
                cards[key] = previous = card
            self._cards = cards
            if self.fullscreen is not None and self.fullscreen not in self.visible_tags():
                self.fullscreen = None
                self.remove_class("-fullscreen")
            if had_focus and cards:
                target = cards.get(focused) if focused in cards else next(iter(cards.values()))
                self.call_after_refresh(target.focus)
        self.layout_grid()
        self.update_cards()

    def layout_grid(self) -> None:
        """Columns and row heights that give the images the most room."""
        grid = self.query_one(ImageGrid)
        self.query_one("#image-tags").set_class(self.app.size.width < 100, "-narrow")
        shown = self._card_order()
        for key, card in self._cards.items():
            card.display = key in shown
        width, height = grid.size.width, grid.size.height
        if not width or not height or not shown:
            return
        jobs = len(self.train_ids)
        if self.fullscreen:
            columns, rows_height = jobs, [height]
        elif self.arrangement == "list":
            columns = jobs
            rows_height = [self._list_row_height(shown[i:i + jobs], width // jobs, height)
                           for i in range(0, len(shown), jobs)]
        else:
            columns, row_height = self._grid_shape(shown, width, height, jobs)
            rows_height = [row_height]
        self._columns = columns
        grid.styles.grid_size_columns = columns
        grid.styles.grid_rows = " ".join(str(h) for h in rows_height)

    def _image_size(self, key: tuple[str, str]) -> tuple[int, int]:
        """The pixel size of what a card shows, or a square guess before it is decoded."""
        card = self._cards.get(key)
        if card is not None and card.image is not None:
            return card.image.width, card.image.height
        return 1, 1

    def _grid_shape(self, shown: list[tuple[str, str]], width: int, height: int, group: int) -> tuple[int, int]:
        """(columns, row height): the column count (a multiple of `group`) that shows most pixels."""
        most = max(group, min(len(shown), width // MIN_CARD_WIDTH // group * group))
        best = (-1.0, group, max(MIN_CARD_HEIGHT, height))
        for columns in range(group, most + 1, group):
            rows = math.ceil(len(shown) / columns)
            row_height = max(MIN_CARD_HEIGHT, height // rows)
            cell_w, cell_h = width // columns - BORDER, row_height - BORDER
            if cell_w < 1 or cell_h < 1:
                continue
            on_screen = max(1, min(rows, height // row_height)) * columns  # scrolled-off cards count less
            area = sum(_fitted_area(*self._image_size(key), cell_w, cell_h) for key in shown[:on_screen])
            if area > best[0] * 1.05:  # a near tie goes to fewer columns: bigger single images
                best = (area, columns, row_height)
        return best[1], best[2]

    def _list_row_height(self, row: list[tuple[str, str]], cell_width: int, height: int) -> int:
        needed = MIN_CARD_HEIGHT
        for key in row:
            w, h = self._image_size(key)
            if (w, h) == (1, 1):
                return max(MIN_CARD_HEIGHT, height * 2 // 3)
            cols, pixel_rows = fit_cells(w, h, cell_width - BORDER, 10_000, upscale=False)
            scale_up = max(1, (cell_width - BORDER) // max(1, cols))
            needed = max(needed, math.ceil(pixel_rows * scale_up / 2) + BORDER)
        return max(MIN_CARD_HEIGHT, min(height, needed))

    def update_cards(self) -> None:
        """Point every card at the step it should show; fill those whose pixels are known."""
        for key in self._card_order():
            card = self._cards.get(key)
            if card is not None:
                self._update_card(card)
        self._update_status()

    def _update_card(self, card: ImageCard) -> None:
        card.set_adjust(self.brightness, self.contrast)
        job, series = self.series(card.train_id, card.tag)
        colour = self.job_colour(card.train_id)
        title = escape(card.tag)
        if len(self.train_ids) > 1:  # the tag first: a narrow border cuts the end off
            title = f"[{colour}]●[/] {title} · {escape(card.train_id)}"
        card.border_title = title
        if job is None:
            card.want(None)
            card.border_subtitle = ""
            card.set_message("this job is gone from LOGDIR")
            return
        if series is None or not len(series):
            card.want(None)
            card.border_subtitle = ""
            card.set_message("no image for this tag in this job" if job.loaded else "loading…")
            return
        i = pick_index(series.steps, self.step)
        shown = Shown(int(series.steps[i]), i, len(series), job.locator(series, i))
        card.want(shown)
        found = self._decoded.get(shown.locator)
        if found is not None:
            self._decoded.move_to_end(shown.locator)
            self._show(card, shown, *found)
        elif card.image is None:
            card.set_message("decoding…")
            card.border_subtitle = self._subtitle(shown, None)

    def _subtitle(self, shown: Shown, result: DecodedImage | Failure | None, grey: bool = False) -> str:
        """`step 12 · 32×16 · 7/7`: most important first, as a narrow border cuts the end off."""
        parts = [f"step {shown.step}"]
        if self.step is not None and shown.step != self.step:
            parts[0] += f" (for {self.step})"
        if isinstance(result, DecodedImage):
            parts.append(size_text(result.width, result.height) + (" grey" if grey else ""))
        elif isinstance(result, Failure) and result.width and result.height:
            parts.append(size_text(result.width, result.height) + " declared")
        parts.append(f"{shown.index + 1}/{shown.count}")
        return " · ".join(parts)

    def _show(self, card: ImageCard, shown: Shown, result: DecodedImage | Failure, grey: bool) -> None:
        if isinstance(result, DecodedImage):
            resized = card.image is None or (card.image.width, card.image.height) != (result.width, result.height)
            card.set_image(result)
            if resized:
                self.call_after_refresh(self.layout_grid)  # the best layout depends on the shapes
        else:
            card.set_message(f"step {shown.step}: {result.message}")
        card.border_subtitle = self._subtitle(shown, result, grey)

    # -- decoding (thread worker) -------------------------------------------------------------------

    @on(ImageCard.Wanted)
    def _card_wanted(self, event: ImageCard.Wanted) -> None:
        event.stop()
        shown = event.card.shown
        if shown is None or shown.locator in self._decoded or shown.locator in self._in_flight:
            return
        if not self._asked:
            self.call_after_refresh(self._start_decoding)  # one worker for every card drawn now
        self._asked.append(shown.locator)

    def _start_decoding(self) -> None:
        locators = [loc for loc in dict.fromkeys(self._asked) if loc not in self._decoded]
        self._asked = []
        if not locators:
            return
        self._in_flight.update(locators)
        self.run_worker(lambda: self._decode(locators), thread=True, group="images-decode",
                        description=f"decode {len(locators)} image(s)", exit_on_error=False)

    def _decode(self, locators: list[Locator]) -> None:
        """In a thread: read each payload and decode its image; every result is posted back."""
        worker = get_current_worker()
        for loc in locators:
            if worker.is_cancelled:
                return
            result, grey = decode_at(self.cache, loc)
            self.post_message(ImagesDecoded(loc, result, grey))

    @on(ImagesDecoded)
    def _decoded_one(self, event: ImagesDecoded) -> None:
        event.stop()
        self._in_flight.discard(event.locator)
        self._remember(event.locator, event.result, event.grey)
        for card in self._cards.values():
            shown = card.shown
            if shown is not None and shown.locator == event.locator:
                self._show(card, shown, event.result, event.grey)

    def _remember(self, loc: Locator, result: DecodedImage | Failure, grey: bool) -> None:
        if loc in self._decoded:
            return
        self._decoded[loc] = (result, grey)
        self._decoded_bytes += result.nbytes
        while self._decoded_bytes > DECODED_BYTES and len(self._decoded) > 1:
            _, (old, _grey) = self._decoded.popitem(last=False)
            self._decoded_bytes -= old.nbytes

    # -- status -----------------------------------------------------------------------------------

    def _update_status(self) -> None:
        empty = self.query_one("#image-empty", Static)
        cards = self._card_order()
        if not self.tags:
            loading = any(not job.loaded for job in self.jobs)
            message = "no image tags yet: loading…" if loading else (
                "this job has no images" if len(self.train_ids) == 1 else "these jobs have no images")
        elif not cards:
            message = "no tag selected: space selects a tag in the list, a selects all"
        else:
            message = ""
        empty.update(message)
        empty.display = bool(message)
        self.query_one(ImageGrid).display = not message
        steps = self.all_steps()
        parts = []
        if len(steps):
            if self.step is None:
                parts.append(f"step {int(steps[-1])} (newest)")
            else:
                parts.append(f"step {self.step} of {int(steps[0])}..{int(steps[-1])}")
        if self.brightness:
            parts.append(f"brightness {self.brightness:+.1f}")
        if self.contrast != 1.0:
            parts.append(f"contrast ×{self.contrast:.2f}")
        parts.append(self.arrangement)
        if self.fullscreen:
            parts.append("full screen (f/esc)")
        self.query_one("#image-status", Static).update(" · ".join(parts))

    # -- actions ----------------------------------------------------------------------------------

    def action_step(self, direction: int) -> None:
        steps = self.all_steps()
        if not len(steps):
            return
        current = int(steps[-1]) if self.step is None else self.step
        if direction < 0:
            i = int(np.searchsorted(steps, current, side="left")) - 1
        else:
            i = int(np.searchsorted(steps, current, side="right"))
        if not 0 <= i < len(steps):
            self.notify("first kept step" if direction < 0 else "newest kept step (end follows new steps)",
                        timeout=1.5)
            return
        self.step = int(steps[i])
        self.update_cards()

    def action_first_step(self) -> None:
        steps = self.all_steps()
        if len(steps):
            self.step = int(steps[0])
            self.update_cards()

    def action_newest_step(self) -> None:
        self.step = None
        self.update_cards()

    def action_brightness(self, direction: int) -> None:
        value = round(self.brightness + direction * BRIGHTNESS_STEP, 2)
        self.brightness = max(-BRIGHTNESS_LIMIT, min(BRIGHTNESS_LIMIT, value))
        self.update_cards()

    def action_contrast(self, direction: int) -> None:
        value = self.contrast * (CONTRAST_FACTOR if direction > 0 else 1 / CONTRAST_FACTOR)
        value = round(value, 4)
        if abs(value - 1.0) < 1e-3:
            value = 1.0
        self.contrast = max(CONTRAST_LIMITS[0], min(CONTRAST_LIMITS[1], value))
        self.update_cards()

    def action_reset_adjust(self) -> None:
        self.brightness, self.contrast = 0.0, 1.0
        self.update_cards()

    def action_toggle_layout(self) -> None:
        self.arrangement = "list" if self.arrangement == "grid" else "grid"
        self.layout_grid()
        self.update_cards()
        focused = self.screen.focused
        if isinstance(focused, ImageCard):
            self.call_after_refresh(self.query_one(ImageGrid).scroll_to_widget, focused, animate=False)

    def action_fullscreen(self) -> None:
        if self.fullscreen:
            self.fullscreen = None
        else:
            focused = self.screen.focused
            if isinstance(focused, ImageCard):
                tag = focused.tag
            else:
                listing = self.picker.listing
                index = listing.highlighted
                tag = listing.get_option_at_index(index).value if index is not None else None
                if tag not in self.visible_tags():
                    tag = next(iter(self.visible_tags()), None)
            if tag is None:
                return
            self.fullscreen = tag
        self.set_class(bool(self.fullscreen), "-fullscreen")
        self.layout_grid()
        self.update_cards()
        cards = self._shown_cards()
        focused = self.screen.focused
        if cards and not (isinstance(focused, ImageCard) and focused in cards):
            focus_now(cards[0])

    def action_leave(self) -> None:
        if self.fullscreen:
            self.action_fullscreen()
        elif self.screen.focused is self.query_one("#image-filter"):
            self.picker.focus_list()
        else:
            raise SkipAction()

    def move_focus(self, card: ImageCard, dx: int, dy: int) -> None:
        cards = self._shown_cards()
        if card not in cards:
            return
        i = cards.index(card) + dx + dy * self._columns
        if 0 <= i < len(cards):
            focus_now(cards[i])
            self.query_one(ImageGrid).scroll_to_widget(cards[i], animate=False)

    # -- export -----------------------------------------------------------------------------------

    def export_scope(self) -> dict[str, Any]:
        return {"train_ids": list(self.train_ids), "plugins": {"image"},
                "tags": {("image", tag) for tag in self.visible_tags()}}

    def describe_export(self) -> str:
        tags = self.visible_tags()
        return f"{len(tags)} image tag{'s' if len(tags) != 1 else ''} of {', '.join(self.train_ids)}"


def decode_at(cache, loc: Locator) -> tuple[DecodedImage | Failure, bool]:
    """The image at `loc` and whether it is grey, or why it cannot be shown. Slow: not in the UI thread."""
    try:
        data = cache.payloads.image(loc)
    except PayloadError as exc:
        return Failure(str(exc)), False
    except Exception as exc:  # anything else reading the record: a message in the card, never a traceback
        return Failure(f"cannot read this image: {type(exc).__name__}: {exc}"), False
    try:
        image = decode_image(data.png)
    except ImageDecodeError as exc:
        return Failure(f"cannot decode this image: {exc}", data.width, data.height), False
    except Exception as exc:  # e.g. out of memory: still a message in the card, never a traceback
        return Failure(f"cannot decode this image: {type(exc).__name__}: {exc}", data.width, data.height), False
    return image, image.grey or data.colorspace == 1 or _equal_channels(image.pixels)


def _fitted_area(width: int, height: int, cols: int, rows: int) -> float:
    """Pixels an image would cover in `cols` x `rows` cells (two pixels a cell), scaled freely."""
    ratio = min(cols / width, 2 * rows / height)
    return width * height * ratio * ratio


def _equal_channels(pixels: np.ndarray) -> bool:
    """True for a grey image stored as RGB (MindSpore triples one-channel images)."""
    return bool(np.array_equal(pixels[..., 0], pixels[..., 1]) and np.array_equal(pixels[..., 1], pixels[..., 2]))

