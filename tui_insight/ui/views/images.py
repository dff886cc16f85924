"""The image view: every image tag of a job (or of the compared jobs, side by side), drawn with
half blocks, stepped through with `[`/`]`, the samples of a step with `n`/`p`, brightened and
contrasted with one setting for all.

What the user chose (tags, the chosen step, brightness, contrast, grid/list, full screen) is one
`ImagesState`; `watch_state` redraws from it. Cards only show what they are given. A card asks
for its pixels when it is first drawn (so only what is on screen is decoded); the view's loader
decodes them (the focused card first), and the view keeps them in a small LRU bounded in bytes.

Once every card's pixels are in, the steps `[`, `]`, `home` and `end` would show next are
decoded ahead (`steps_ahead`), while they take at most half of the LRU: stepping then paints
once, with the pixels, instead of once with the old ones and again when the new are decoded.

The chosen step applies to every card: a card shows its kept step at or before it (the first
kept step if it has none before), and says which step that is. With no chosen step the cards
follow the newest step as the job grows. A step may hold several images (TF2's and Keras'
`tf.summary.image`): each card shows the chosen sample of its step (its last when it holds
fewer) and says which in its title, `sample 2/4`.
"""
from __future__ import annotations

from functools import partial
from typing import Any

import numpy as np
from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.reactive import reactive
from textual.widget import AwaitMount, Widget
from textual.widgets import OptionList, Static

from ...summary.formats.values import Locator
from ...summary.store.job_view import Changes, JobView
from ...summary.store.series import Series
from ..common.focus import focus_now
from ..common.text import literal
from ..loader import Loaded
from ..state.images import ImagesState
from ..presenters import images as present
from ..presenters.images import pick_index, steps_ahead
from ..widgets.halfblock import DecodedImage
from ..widgets.image_card import ImageCard, ImageGrid
from ..widgets.image_data import Shown
from ..widgets.tag_picker import TagList
from .base import ViewSpec
from .image_decoding import DecodedCache, decode_at
from .tag_grid import TagGridView



class ImagesView(TagGridView):
    STATE = ImagesState
    PICKER = ("image", "tags")
    GRID = ImageGrid
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
        Binding("n", "sample(1)", "Next sample", show=False, id="images.next_sample"),
        Binding("p", "sample(-1)", "Previous sample", show=False, id="images.previous_sample"),
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

    state: reactive[ImagesState] = reactive(ImagesState, init=False)

    def __init__(self, cache, train_ids, **kwargs: Any):
        super().__init__(cache, train_ids, **kwargs)
        self.decoded = DecodedCache()
        self._cards: dict[tuple[str, str], ImageCard] = {}  # the mounted cards, in grid order
        self._requested: set[tuple[Locator, int]] = set()  # asked of the loader, not yet delivered or forgotten
        self._ahead: set[tuple[Locator, int]] = set()  # asked of the loader ahead of a key, not yet delivered
        self._columns = 1

    # -- building ---------------------------------------------------------------------------------

    def compose(self) -> ComposeResult:
        # The cards are composed with the view, so its first frame has them (mounted in
        # `on_mount`, they came one layout and paint later); `_redraw` keeps them.
        state = self.state.with_tags(self.state.tags.with_tags(self._read_tags()))
        self.set_reactive(ImagesView.state, state)
        self._cards = {key: ImageCard(*key) for key in self._card_keys(state)}
        yield self.picker
        with Vertical(id="image-main"):
            yield Static("", id="image-status")
            yield Static("", id="image-empty")
            yield ImageGrid(*self._cards.values(), id="image-grid")

    async def on_mount(self) -> None:
        state = self.state
        mounting = self._redraw(None, state)
        self.remember(state)
        for mount in mounting:
            await mount  # the cards are there before the view takes the keys
        self.ready_for_keys()

    def first_focus(self) -> Widget | None:
        """The first card on screen, else the tag list; None while nothing is mounted."""
        for card in self.shown_cards():
            if card.is_mounted and card.display:
                return card
        listing = self.picker.query(TagList)
        return listing.first() if listing else None

    # -- data -------------------------------------------------------------------------------------

    def _read_tags(self) -> list[str]:
        return sorted({tag for job in self.jobs for tag in job.tag_names("image")})

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
        for tid in mine & changes.jobs():
            if changes.tags(tid, "image") != set():
                touched.add(tid)
        if not touched:
            return
        new = self.state.with_tags(self.state.tags.with_tags(self._read_tags()))
        if new != self.state:
            self.state = new
        else:
            self._redraw(new, new)  # same choices, new data

    # -- state ------------------------------------------------------------------------------------

    def watch_state(self, old: ImagesState, new: ImagesState) -> None:
        self._redraw(old, new)
        self.remember(new)

    def _redraw(self, old: ImagesState | None, new: ImagesState) -> list[AwaitMount]:
        """Draw `new`: the tag list, the cards (mounted, laid out, pointed at their step), the status."""
        if old is None or old.tags != new.tags:
            self.picker.show(new.tags)
        mounting = self._sync_cards(new)
        self.set_class(bool(new.fullscreen), "-fullscreen")
        self.layout_grid()
        self.update_cards()
        self._forget_unshown()
        self.call_after_refresh(self._decode_ahead)
        if old is not None and old.fullscreen != new.fullscreen:
            cards = self.shown_cards()
            focused = self.screen.focused
            if cards and not (isinstance(focused, ImageCard) and focused in cards):
                focus_now(cards[0])
        if old is not None and old.layout != new.layout:
            focused = self.screen.focused
            if isinstance(focused, ImageCard):
                self.call_after_refresh(self.query_one(ImageGrid).scroll_to_widget, focused, animate=False)
        return mounting

    # -- tag list ---------------------------------------------------------------------------------

    @on(OptionList.OptionHighlighted, "#image-list")
    def _highlighted(self, event: OptionList.OptionHighlighted) -> None:
        event.stop()
        tag = (event.option.id or "").removeprefix("tag:")
        card = next((c for (tid, t), c in self._cards.items() if t == tag), None)
        if card is not None and card.display:
            self.query_one(ImageGrid).scroll_to_widget(card, animate=False)

    # -- cards ------------------------------------------------------------------------------------

    def _card_order(self) -> list[tuple[str, str]]:
        """(train id, tag) of every card on screen: tag by tag, the compared jobs side by side."""
        return [(tid, tag) for tag in self.state.shown_tags() for tid in self.train_ids]

    def shown_cards(self) -> list[ImageCard]:
        """The cards on screen, in grid order."""
        return [self._cards[key] for key in self._card_order() if key in self._cards]

    def _card_keys(self, state: ImagesState) -> list[tuple[str, str]]:
        return [(tid, tag) for tag in state.tags.visible() for tid in self.train_ids]

    def _sync_cards(self, state: ImagesState) -> list[AwaitMount]:
        """Mount the cards `state` asks for, keeping the ones that stay (in order)."""
        wanted = self._card_keys(state)
        if list(self._cards) == wanted:
            return []
        focused = self.screen.focused.key if isinstance(self.screen.focused, ImageCard) else None
        self._cards, mounts = self.sync_grid(wanted, self._cards, lambda key: ImageCard(*key))
        cards = self._cards
        if focused is not None:  # the focused card may be gone: another card, else the tag list
            if cards:
                self.call_after_refresh(focus_now, cards.get(focused) or next(iter(cards.values())))
            else:
                self.picker.focus_list()
        return mounts

    def grid_widgets(self) -> dict[tuple[str, str], ImageCard]:
        return self._cards

    def shown_in_grid(self, key: tuple[str, str]) -> bool:
        """In full screen, the full-screen tag's card of each job."""
        return key in self._card_order()

    def shape_grid(self, grid, shown: list[tuple[str, str]], width: int, height: int) -> None:
        """Columns and row heights that give the images the most room."""
        columns, rows_height = self._layout(shown, width, height)
        self._columns = columns
        grid.styles.grid_size_columns = columns
        grid.styles.grid_rows = " ".join(str(h) for h in rows_height)

    def rows_height(self, shown: list[tuple[str, str]], width: int, height: int) -> int:
        return present.rows_height(len(shown), *self._layout(shown, width, height))

    def _layout(self, shown: list[tuple[str, str]], width: int, height: int) -> tuple[int, list[int]]:
        return present.layout([self._image_size(key) for key in shown], width, height, len(self.train_ids), self.state)

    def _image_size(self, key: tuple[str, str]) -> tuple[int, int]:
        """The pixel size of what a card shows, or `UNKNOWN` before it is decoded."""
        card = self._cards.get(key)
        if card is not None and card.image is not None:
            return card.image.width, card.image.height
        return present.UNKNOWN

    def update_cards(self) -> None:
        """Point every card at the step it should show; fill those whose pixels are known."""
        for card in self.shown_cards():
            self._update_card(card)
        self._update_status()

    def _update_card(self, card: ImageCard) -> None:
        state = self.state
        card.set_adjust(state.brightness, state.contrast)
        job, series = self.series(card.train_id, card.tag)
        card.border_title = self._title(card, None)
        if job is None:
            card.want(None)
            card.border_subtitle = ""
            card.set_message("this job is gone from LOGDIR")
            return
        if series is None or not len(series):
            card.want(None)
            card.border_subtitle = ""
            card.set_message("no image for this tag in this job" if job.ready else "loading…")
            return
        i = pick_index(series.steps, state.step)
        samples = job.samples(series, i)
        shown = Shown(int(series.steps[i]), i, len(series), job.locator(series, i), state.shown_sample(samples),
                      samples)
        card.border_title = self._title(card, shown)
        card.want(shown)
        found = self.decoded.get(shown.key)
        if found is not None:
            self._show(card, shown, found)
        elif card.image is None:
            card.set_message("decoding…")
            card.border_subtitle = self._subtitle(shown, None)

    def _title(self, card: ImageCard, shown: Shown | None) -> str:
        colour = self.job_colour(card.train_id) if self.comparing else None
        return present.card_title(card.tag, card.train_id, shown, colour)

    def _subtitle(self, shown: Shown, image: DecodedImage | None, grey: bool = False, note: str = "") -> str:
        size = (image.width, image.height) if image is not None else None
        return present.card_subtitle(shown, self.state.step, size, grey, note)

    def _show(self, card: ImageCard, shown: Shown, result: Loaded) -> None:
        """What the loader gave for `shown`: its pixels, or why not where they would be."""
        if result.ok:
            image, grey, note = result.value
            resized = card.image is None or (card.image.width, card.image.height) != (image.width, image.height)
            card.set_image(image)
            card.border_subtitle = self._subtitle(shown, image, grey, note)
            if resized:
                self.call_after_refresh(self.layout_grid)  # the best layout depends on the shapes
        else:
            card.set_message(f"step {shown.step}: {result.error}")
            card.border_subtitle = self._subtitle(shown, None)

    # -- decoding (the loader) --------------------------------------------------------------------

    @on(ImageCard.Wanted)
    def _card_wanted(self, event: ImageCard.Wanted) -> None:
        event.stop()
        shown = event.card.shown
        if shown is None or shown.key in self.decoded or shown.key in self._requested:
            return
        self._requested.add(shown.key)
        if shown.key in self._ahead:  # on its way: delivered to the card like any other
            self._ahead.discard(shown.key)
            return
        self.loader.request(shown.key, partial(decode_at, self.cache, shown.locator, shown.sample),
                            self._decoded_one, first=event.card.has_focus)

    def _decoded_one(self, result: Loaded) -> None:
        self._requested.discard(result.key)
        self._ahead.discard(result.key)
        self.decoded.put(result.key, result)
        for card in self.shown_cards():
            shown = card.shown
            if shown is not None and shown.key == result.key:
                self._show(card, shown, result)
        self._decode_ahead()

    def _decode_ahead(self) -> None:
        """Once what the cards show is decoded, ask for the steps the keys would show next (see
        the module's docstring); nothing while the LRU is half full or more."""
        if self._requested or self._ahead or not self.is_attached:
            return
        budget = self.decoded.limit // 2 - self.decoded.nbytes
        for card in self.shown_cards():
            shown, image = card.shown, card.image
            job, series = self.series(card.train_id, card.tag)
            if shown is None or image is None or job is None or series is None:
                continue
            for i in steps_ahead(shown.index, len(series)):
                key = (job.locator(series, i), self.state.shown_sample(job.samples(series, i)))
                if key in self.decoded or key in self._ahead:
                    continue
                budget -= image.nbytes  # (the size of what the card shows now: the likeliest)
                if budget < 0:
                    return
                self._ahead.add(key)
                self.loader.request(key, partial(decode_at, self.cache, key[0], key[1]), self._decoded_one)

    def _forget_unshown(self) -> None:
        """Stepping fast: drop the decodes no card shows any more."""
        wanted = {card.shown.key for card in self.shown_cards() if card.shown is not None}
        for key in (self._requested | self._ahead) - wanted:
            self.loader.forget(key)
        self._requested &= wanted
        self._ahead &= wanted

    # -- status -----------------------------------------------------------------------------------

    def _update_status(self) -> None:
        state = self.state
        empty = self.query_one("#image-empty", Static)
        message = present.empty_message(state, any(not job.ready for job in self.jobs), len(self.train_ids),
                                        bool(self._card_order()))
        empty.update(literal(message))
        empty.display = bool(message)
        self.query_one(ImageGrid).display = not message
        self.query_one("#image-status", Static).update(present.status(state, self.all_steps(), self.most_samples()))

    # -- actions ----------------------------------------------------------------------------------

    def action_step(self, direction: int) -> None:
        steps = self.all_steps()
        if not len(steps):
            return
        new = self.state.step_by(steps.tolist(), direction)
        if new == self.state:
            self.notify("first kept step" if direction < 0 else "newest kept step (end follows new steps)",
                        timeout=1.5)
            return
        self.state = new

    def most_samples(self) -> int:
        """The most images a step shown on a card holds (what `n` browses up to)."""
        return max((card.shown.samples for card in self.shown_cards() if card.shown is not None), default=0)

    def action_sample(self, direction: int) -> None:
        most = self.most_samples()
        if most <= 1:
            self.notify("one image a step here: nothing to browse", timeout=1.5)
            return
        new = self.state.sample_by(most, direction)
        if new == self.state:
            self.notify("first sample" if direction < 0 else f"last sample ({most} at most a step)", timeout=1.5)
            return
        self.state = new

    def action_first_step(self) -> None:
        self.state = self.state.first_step(self.all_steps().tolist())

    def action_newest_step(self) -> None:
        self.state = self.state.follow_newest()

    def action_brightness(self, direction: int) -> None:
        self.state = self.state.brighter(direction)

    def action_contrast(self, direction: int) -> None:
        self.state = self.state.more_contrast(direction)

    def action_reset_adjust(self) -> None:
        self.state = self.state.reset_adjust()

    def action_toggle_layout(self) -> None:
        self.state = self.state.toggle_layout()

    def action_fullscreen(self) -> None:
        tag = None
        if not self.state.fullscreen:
            focused = self.screen.focused
            visible = self.state.tags.visible()
            if isinstance(focused, ImageCard):
                tag = focused.tag
            else:
                listing = self.picker.listing
                index = listing.highlighted
                option_id = listing.get_option_at_index(index).id if index is not None else None
                tag = (option_id or "").removeprefix("tag:")
                if tag not in visible:
                    tag = next(iter(visible), None)
        self.state = self.state.toggle_fullscreen(tag)

    @on(ImageCard.Move)
    def _move_focus(self, event: ImageCard.Move) -> None:
        """An arrow key on a card: the card beside, above or below it in the grid."""
        event.stop()
        cards = self.shown_cards()
        if event.card not in cards:
            return
        i = cards.index(event.card) + event.dx + event.dy * self._columns
        if 0 <= i < len(cards):
            focus_now(cards[i])
            self.query_one(ImageGrid).scroll_to_widget(cards[i], animate=False)

    # -- export -----------------------------------------------------------------------------------

    def export_scope(self) -> dict[str, Any]:
        return {"train_ids": list(self.train_ids), "plugins": {"image"},
                "tags": {("image", tag) for tag in self.state.tags.visible()}}

    def describe_export(self) -> str:
        tags = self.state.tags.visible()
        return f"{len(tags)} image tag{'s' if len(tags) != 1 else ''} of {', '.join(self.train_ids)}"

