"""`TagGridView`: a tag list beside a scrollable grid of one widget per chart, the shape of the
scalar, histogram and image views. (The custom scalars view has no tag list: a category is a new
set of charts, built whole.)

Written once here:
- the keyed re-mount of the grid (`sync_grid`): the widgets that stay are kept, in order, new
  ones mounted between them, gone ones removed; a changed order builds them all again (Textual
  moves no mounted widget within a grid);
- the tag picker's wiring: a change in the picker, `/` (leaving full screen first) and `a`
  (every tag the filter lets through, or none) all go through the state (`with_tag_selection`);
- full screen's leaving: `escape` first undoes what the view says (`leave_first`: a range
  being chosen, a cursor), then leaves full screen, else goes on to the dashboard;
- the grid's layout skeleton: the picker narrows under 100 columns, only the full-screen chart
  shows, then the view sizes its grid (`shape_grid`); which charts are on screen (`on_screen`);
- paging, for a view that binds the keys: `action_page` a screenful of charts further (full
  screen: the next chart), `action_page_to` the first or last, each through `go_to`;
- growing, for a view that composes its grid with itself or fills an empty one (`first_keys`):
  only the widgets that fit on screen, plus a row, are built first, so the first frame comes at once with them drawn; the rest
  are mounted after it, `GROW_BATCH` a refresh (`grow_later`), and the grid is shaped for all of
  them from the start (the first widgets keep their size as the rest come).

The state of a subclass (`STATE`, read from the saved settings when the view is made) has
`tags` (a `TagSelection`), `fullscreen` and `toggle_fullscreen`; `PICKER` names its tag list.
"""
from __future__ import annotations

import math
from collections.abc import Callable, Hashable, Mapping, Sequence
from typing import Any, ClassVar, TypeVar

from textual import on
from textual.actions import SkipAction
from textual.widget import AwaitMount, Widget

from ..common.focus import focus_now
from ..presenters.grid import on_screen, paged
from ..state.tags import TagSelection
from ..widgets.tag_picker import TagPicker
from ..widgets.view_grid import ViewGrid
from .base import DataView

K = TypeVar("K", bound=Hashable)
W = TypeVar("W", bound=Widget)
NARROW = 100  # under this many columns the tag list narrows
# Widgets mounted a refresh while a grid grows after its first frame: each batch is one layout and
# paint, short enough that a key pressed meanwhile is not held long.
GROW_BATCH = 24


def sync_grid(grid: Widget, current: dict[K, W], wanted: Sequence[K], make: Callable[[K], W],
              keep: Callable[[W], bool] = lambda widget: True) -> tuple[dict[K, W], list[AwaitMount]]:
    """The grid's widgets for `wanted` keys, in order, and the mounts to await.

    Widgets of `current` that are still wanted (and that `keep` accepts) stay where they are;
    new ones are made with `make` and mounted between them; the rest are removed. When the kept
    ones would have to change order, every widget is built again."""
    kept = {key: widget for key, widget in current.items() if key in wanted and keep(widget)}
    if list(kept) != [key for key in wanted if key in kept]:
        kept = {}
    for key, old in current.items():
        if kept.get(key) is not old:
            old.remove()
    widgets: dict[K, W] = {}
    mounts: list[AwaitMount] = []
    if not kept:
        widgets = {key: make(key) for key in wanted}
        if widgets:
            mounts.append(grid.mount_all(widgets.values()))
        return widgets, mounts
    first_kept = next(iter(kept.values()))
    previous: W | None = None
    for key in wanted:
        widget = kept.get(key)
        if widget is None:
            widget = make(key)
            mounts.append(grid.mount(widget, after=previous) if previous is not None
                          else grid.mount(widget, before=first_kept))
        widgets[key] = previous = widget
    return widgets, mounts


class TagGridView(DataView):
    """A `DataView` of a tag list (`self.picker`) and a grid (`GRID`) of one widget per chart."""

    GRID: ClassVar[type[ViewGrid]]
    STATE: ClassVar[Any]  # the state's class: `from_json` makes it from the saved settings
    PICKER: ClassVar[tuple[str, str]]  # the tag picker's id prefix and title
    MIN_ROW_HEIGHT: ClassVar[int] = 1  # a row's height before the grid is laid out
    state: Any  # each subclass's reactive state

    picker: TagPicker

    def __init__(self, cache, train_ids, **kwargs: Any):
        super().__init__(cache, train_ids, **kwargs)
        self.set_reactive(type(self).state, self.STATE.from_json(self.saved))
        self.picker = TagPicker(*self.PICKER)
        self._limit: int | None = None  # while the grid grows: how many of its widgets may be mounted
        self._grow_due = False  # a `_grow` waits for the next frame

    @property
    def growing(self) -> bool:
        """Whether widgets of the grid are still to be mounted after its first frame."""
        return self._limit is not None

    # -- hooks --------------------------------------------------------------------------------------

    def with_tag_selection(self, selection: TagSelection) -> Any:
        """The state with the tags chosen in the picker."""
        return self.state.with_tags(selection)

    def leave_first(self) -> bool:
        """What `escape` undoes before leaving full screen (True: it undid something)."""
        return False

    def grid_widgets(self) -> Mapping[Any, Widget]:
        """The grid's widgets by key, in grid order."""
        raise NotImplementedError

    def shown_in_grid(self, key: Any) -> bool:
        """Whether the widget of `key` shows: in full screen, only the full-screen one."""
        return self.state.fullscreen in (None, key)

    def shape_grid(self, grid: ViewGrid, shown: list[Any], width: int, height: int) -> None:
        """Set the grid's columns and rows for the `shown` keys in `width` x `height` cells."""
        raise NotImplementedError

    def rows_height(self, shown: list[Any], width: int, height: int) -> int:
        """The height of the rows `shape_grid` would lay out (more than `height`: the grid scrolls)."""
        raise NotImplementedError

    def grid_shape(self, width: int, height: int, count: int) -> tuple[int, int]:
        """(columns, row height) of a grid of `count` widgets on `width` x `height` cells."""
        raise NotImplementedError

    def grid_keys(self) -> Sequence[Any]:
        """The keys of every widget the state asks for, mounted or not, in grid order."""
        raise NotImplementedError

    def grow(self) -> None:
        """Mount the widgets `limited` lets through now (the grid grew), lay them out and fill them."""
        raise NotImplementedError

    # -- the tag list -------------------------------------------------------------------------------

    @on(TagPicker.Changed)
    def _tags_chosen(self, event: TagPicker.Changed) -> None:
        event.stop()
        self.state = self.with_tag_selection(event.selection)

    def action_filter_tags(self) -> None:
        if self.state.fullscreen is not None:
            self.state = self.state.toggle_fullscreen(None)
        self.picker.focus_filter()

    def action_select_all(self) -> None:
        self.state = self.with_tag_selection(self.state.tags.select_all())

    # -- full screen --------------------------------------------------------------------------------

    def action_leave(self) -> None:
        if self.leave_first():
            return
        if self.state.fullscreen is not None:
            self.action_fullscreen()
            return
        raise SkipAction()

    def action_fullscreen(self) -> None:
        """`f`: the focused chart alone, or back to the grid."""
        raise NotImplementedError

    # -- growing ------------------------------------------------------------------------------------

    def first_keys(self, keys: Sequence[K]) -> Sequence[K]:
        """The keys whose widgets are composed with the view: as many rows as fit on screen, plus
        one, at the app's size (more than the grid has: it never shows one not yet mounted);
        every key in full screen or when the active one is further down. Called from `compose`,
        and when an empty grid is filled (the job's series came after the view)."""
        width, height = self.app.size
        columns, row_height = self.grid_shape(width, height, len(keys))
        count = columns * (math.ceil(height / max(1, row_height)) + 1)
        target = self.state.target()
        if count >= len(keys) or self.state.fullscreen is not None or (target in keys and keys.index(target) >= count):
            return keys
        self._limit = count
        return keys[:count]

    def limited(self, keys: Sequence[K]) -> Sequence[K]:
        """`keys` less those not to be mounted yet while the grid grows."""
        return keys if self._limit is None else keys[:self._limit]

    def grow_later(self) -> None:
        """After the next frame, mount the next `GROW_BATCH` widgets, then the next, until all are."""
        if self._limit is not None and not self._grow_due:
            self._grow_due = True
            self.call_after_refresh(self._grow)

    def _grow(self) -> None:
        self._grow_due = False
        if self._limit is None or not self.is_attached:
            return
        self._limit += GROW_BATCH
        if self._limit >= len(self.grid_keys()):
            self._limit = None
        self.grow()
        self.grow_later()

    # -- the grid -----------------------------------------------------------------------------------

    def sync_grid(self, wanted: Sequence[K], current: dict[K, W], make: Callable[[K], W],
                  keep: Callable[[W], bool] = lambda widget: True) -> tuple[dict[K, W], list[AwaitMount]]:
        """`sync_grid` on this view's grid; nothing while the view is being taken down."""
        grid = self.query_one(self.GRID)
        if not grid.is_attached:
            return current, []
        return sync_grid(grid, current, wanted, make, keep)

    def layout_grid(self) -> None:
        grid = self.query_one(self.GRID)
        self.picker.set_class(self.app.size.width < NARROW, "-narrow")
        widgets = self.grid_widgets()
        shown = [key for key in widgets if self.shown_in_grid(key)]
        for key, widget in widgets.items():
            widget.display = key in shown
        if self._limit is not None and self.state.fullscreen is None:  # shaped for every widget to come
            shown += [key for key in self.grid_keys() if key not in widgets]
        width, height = grid.size.width, grid.size.height
        if width and height and shown:
            room = width + self._picker_change()  # (`size` holds the scrollbar's columns too)
            self._shape_with_scrollbar(grid, shown, room, height)

    def _picker_change(self) -> int:
        """The columns the grid gains at the next layout as the tag list hides or shows (full
        screen): the list's width in the last layout less its width now (its styles change at
        once, its place at the layout). Shaped for the width it will have, the grid is laid out
        once; shaped for the old one, it was laid out and drawn again when its size changed."""
        picker = self.picker
        laid = picker.region.width
        if not picker.display:
            return laid
        styles_width = picker.styles.width
        if styles_width is None or not styles_width.is_cells:
            return 0  # a width that only the layout knows: shaped again when it comes
        return laid - int(styles_width.value)

    def _shape_with_scrollbar(self, grid: ViewGrid, shown: list[Any], room: int, height: int) -> None:
        """Shape the grid for `room` columns (its width, a scrollbar's included), or for what a
        scrollbar leaves of them if the rows overflow, and show the scrollbar exactly then.

        Left to `overflow-y: auto`, Textual shows or hides the scrollbar only after a layout,
        then lays the grid out again at the other width: every chart or card was drawn twice,
        once at a width it never kept (`g` in the image view painted three frames)."""
        bar = grid.styles.scrollbar_size_vertical
        overflow = self.rows_height(shown, room, height) > height and bar > 0
        self.shape_grid(grid, shown, room - bar if overflow else room, height)
        grid.styles.overflow_y = "scroll" if overflow else "hidden"

    def laid_out(self) -> tuple[int, int]:
        """(columns, row height) of the grid as `layout_grid` laid it out."""
        grid = self.query_one(self.GRID)
        rows = grid.styles.grid_rows
        row_height = int(rows[0].value) if rows else self.MIN_ROW_HEIGHT
        return int(grid.styles.grid_size_columns or 1), max(row_height, 1)

    def on_screen(self) -> set[Any]:
        """The charts the grid shows at its scroll position (every displayed one before it has a size)."""
        grid = self.query_one(self.GRID)
        shown = [key for key, widget in self.grid_widgets().items() if widget.display]
        if not grid.size.height:
            return set(shown)
        columns, row_height = self.laid_out()
        return {shown[i] for i in on_screen(len(shown), columns, row_height, grid.scroll_y, grid.size.height)}

    # -- paging -------------------------------------------------------------------------------------

    def action_page(self, direction: int) -> None:
        """pgdn/pgup: a screenful of charts further (in full screen: the next chart)."""
        keys = list(self.grid_widgets())
        if not keys:
            return
        target = self.state.target()
        index = keys.index(target) if target in keys else 0
        columns, row_height = self.laid_out()
        step = 1 if self.state.fullscreen else columns * max(1, self.query_one(self.GRID).size.height // row_height)
        self.go_to(keys[paged(index, len(keys), direction, step)])

    def action_page_to(self, index: int) -> None:
        """home/end: the first or the last chart."""
        keys = list(self.grid_widgets())
        if keys:
            self.go_to(keys[index % len(keys)])

    def go_to(self, key: Any) -> None:
        """Focus the chart of `key` and scroll it to the top of the grid (the subclass first makes
        it the state's active or full-screen chart)."""
        widget = self.grid_widgets()[key]
        focus_now(widget)
        if not self.state.fullscreen:
            self.query_one(self.GRID).scroll_to_widget(widget, animate=False, top=True)


__all__ = ["TagGridView", "sync_grid"]
