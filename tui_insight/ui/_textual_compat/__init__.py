"""Every place tui-insight leans on Textual (or plotext) internals, in one package: this module,
`views.py` (views shown and hidden in one place), `offstage.py` (screens built ahead, off
stage) and `input.py` (the terminal's input thread).

Each shim below names the version it was written and tested against. On an upgrade, read this
package against the new release and run the tests of tests/ui named test_textual_compat and
test_footer: they fail when the behaviour a shim guards is gone (they check the outcome, not
that a private name still exists). pyproject pins Textual to the minor version tested here
(`textual==8.2.*`); test_textual_compat checks the pin and this constant agree and that the
installed Textual is one they allow.

Shims:
- `resolve_binding_now` (Textual 8.2): resolve a key's bindings in arrival order (`App._check_bindings`).
- `app_keymap` (Textual 8.2): the keymap the app was given (`App._keymap`), for `?`.
- `own_bindings` (Textual 8.2): a node's own bindings, focused or not (`DOMNode._bindings`), for `?`.
- `CoalescingFooter` (Textual 8.2): a Footer that rebuilds once per burst of binding changes
  (overrides `Footer.bindings_changed`, which Textual calls from `Screen.bindings_updated_signal`),
  before the next frame rather than after it, by rewriting the mounted `FooterKey`s where it
  can (`_take_keys`: their plain attributes), and shows only the keys that fit whole (filters
  what `Footer.compose` yields: `FooterKey`).
- `add_signal` (plotext 6.1): register a plot signal without `draw`'s colour scan (`fig._signals._add`).
- `paint_once_settled` (Textual 8.2): a key holds the screen's paint (`App._begin_batch`) until
  the messages it started are handled (at most 30 ms), so it paints once, settled.
- `guard_option_list_paging` (Textual 8.2): page up/down on an OptionList squeezed to no size do
  nothing instead of raising KeyError (`OptionList._move_page`, `_index_to_line`). Applied when
  this module is imported, to OptionList itself: every list is covered, Textual's own included.
- `quiet_scroll_view_layout` (Textual 8.2): a ScrollView that a layout leaves as its scrollbars were
  last updated for does not update and repaint them (`ScrollView._size_updated`, `_scroll_update`).
  Applied when this module is imported.
- `layout_once` (Textual 8.2): a widget resized by a layout does not ask for another layout
  (`Widget._size_updated`). Applied when this module is imported.
- `quiet_tree_resize` (Textual 8.2): a Tree resized by a layout keeps its lines and asks for no
  other layout (`Tree._on_resize`, `Tree._invalidate`). Applied when this module is imported.
- `quiet_show_resize` (Textual 8.2, `views.py`): a widget shown again at the size it had gets
  no Resize (`Compositor.reflow`'s `shown`, which `Screen._refresh_layout` sends a Resize).
  Applied when this module is imported.
- `quiet_option_list_resize` (Textual 8.2): an OptionList resized by a layout keeps its rendered
  options (and paints no second time) unless its width changed (`OptionList._on_resize`).
  Applied when this module is imported.
- `bars_paint_with_layout` (Textual 8.2): the scrollbars a layout updates are painted in that
  layout's frame (`Widget._scroll_update`, `_arrange_scrollbars`, `Screen._refresh_layout`,
  `_compositor_refresh`). Applied when this module is imported.
- `quiet_focus_change` (Textual 8.2): moving the focus does not repaint the whole screen
  (`Screen.focused`, a reactive with `repaint=True`). Applied when this module is imported.
- `quiet_after_leaving` (Textual 8.2): a widget or screen that is being removed, or was, runs no
  handler of ours (mount, messages, loader results) but its unmount (`_get_dispatch_methods`,
  `DOMNode._pruning`). Applied when this module is imported, to every Widget.
- `hidden_under_opaque` (Textual 8.2): a screen under an opaque current screen is neither laid
  out, painted nor repainted through it (`App._background_screens`). Applied when this module
  is imported.
- `answer_once` (Textual 8.2): `Screen.dismiss` on a screen that is no longer the one shown does
  nothing (Textual pops whatever screen is on top). Applied when this module is imported.
- `StyledOnceScreen` (Textual 8.2): a pushed screen's `ScreenResume` does not restyle every widget
  unless the CSS changed since (`Screen._on_screen_resume`, `ScreenResume.refresh_styles`).
- `same_sender` (Textual 8.2): whether two messages were posted by the same node (`Message._sender`).
- `mount_offstage`, `offstage_layout_due`, `lay_out_offstage`, `paint_offstage` (Textual 8.2,
  `offstage.py`): a screen built, laid out and painted before it is pushed (`App._register`, `AwaitMount`,
  `Screen._refresh_layout`, `Screen._compositor`), for dashboards built ahead, painted a widget
  at a time by `paint_offstage_some` (`Compositor.visible_widgets`, `Widget.render_lines`), its
  mount awaited by `offstage_mounted` (`MessagePump._mounted_event`); `remove_offstage` takes
  one down without reflowing and repainting the screen shown (`App._prune`, `Prune`). Neither
  holds the app's queue (the keys) until the whole screen is mounted or closed, as Textual's
  `App._get_screen` and `App._prune` do (`App.call_next`).
- `hold_offstage_mounts`, `release_offstage_mounts`, `stop_holding`, `key_sent` (Textual 8.2,
  `offstage.py`): the widgets of a screen mounted off stage wait to compose and to handle
  their Mount while a key is served (`MessagePump._pre_process`). Applied when imported.
- `lay_out_hidden`, `paint_hidden`, `find_hidden` (Textual 8.2, `views.py`): a hidden widget (a
  view built ahead) laid out where it would be and painted with its own `Compositor`, found
  there until shown (`Compositor.find_widget`), so it is shown from its lines. `find_hidden` is
  applied when this module is imported.
- `underline_active_tab` (Textual 8.2, `views.py`): the tab underline moves in the frame that
  activates a tab, not one after it (`Tabs._highlight_active`).
- `ClosesKeptScreens` (Textual 8.2): installed screens off the stack are pruned whole, once
  mounted, before the app's shutdown closes what is left one node at a time (`App._shutdown`).
- `sleeping_input` (Textual 8.2, `input.py`): the LinuxDriver's input thread waits for a key, the parser's
  escape timeout or the stop, not 0.1 s at a time (`LinuxDriver.run_input_thread`,
  `Parser._timeout_time`).
"""
from __future__ import annotations

import asyncio
from typing import Any, Iterator

from textual.app import App, ComposeResult
from textual.await_complete import AwaitComplete
from textual.binding import Binding
from textual.dom import DOMNode
from textual.message import Message
from textual.screen import Screen
from textual.scroll_view import ScrollView
from rich.cells import cell_len
from textual import events
from textual.widget import Widget
from textual.widgets import Footer, OptionList, Tree
from textual.widgets._footer import FooterKey

TEXTUAL_TESTED = "8.2"  # major.minor the shims were written for; pyproject pins ==8.2.*
PLOTEXT_TESTED = "6.1"  # major.minor of plotext `add_signal` was written for


# -- key bindings (Textual 8.2) ----------------------------------------------------------------

async def resolve_binding_now(app: "App", key: str) -> bool:
    """Run `key`'s binding at once, as Textual would once the key bubbled back up. True if one ran.

    Textual 8.2: `App._check_bindings(key, priority)` walks the screen's binding chain (priority
    bindings from the app down, then the others from the focused widget up) and runs the first
    binding whose action is allowed. Textual calls it only after the key went to the focused
    widget, i.e. after keys that arrived behind it were forwarded too; the app calls it here, in
    arrival order (see `InsightApp.on_event`). A Textual without it: False (its own order).
    """
    check = getattr(app, "_check_bindings", None)
    if check is None:
        return False
    return await check(key, priority=True) or await check(key)


def app_keymap(app: "App") -> dict[str, str]:
    """{binding id: keys} given to `app.set_keymap` (Textual 8.2 keeps it in `App._keymap`)."""
    return dict(getattr(app, "_keymap", None) or {})


def own_bindings(node: DOMNode) -> Iterator[tuple[str, Binding]]:
    """(key, binding) for the bindings `node` declares (with those it inherits), keymap not applied.

    Textual 8.2 keeps them in `DOMNode._bindings` (a `BindingsMap`, iterated as (key, binding));
    `Screen.active_bindings` only lists those of the focused widget's ancestors, and `?` also
    lists an unfocused view's keys.
    """
    bindings = getattr(node, "_bindings", None)
    if bindings is None:
        return iter(())
    return iter(bindings)


# -- the key footer (Textual 8.2) ----------------------------------------------------------------

class CoalescingFooter(Footer):
    """The key footer, rebuilt once per burst of binding changes.

    Textual 8.2's Footer schedules a full recompose (~35 key widgets, each styled) for every
    bindings change (`Footer.bindings_changed`, subscribed to `Screen.bindings_updated_signal`),
    and switching views publishes several in a row (focus leaves, focus arrives, the view
    refreshes its keys): opening the graph view rebuilt the footer four times while the graph
    was being built. Here changes that arrive before a pending rebuild has read the bindings join
    it; one that arrives after schedules one more, so the footer always ends on the current
    keys. And a rebuild that would show the same keys (focus moving between widgets of one view,
    or into a text box whose own keys are hidden) is skipped. A rebuild runs before the next
    frame (Textual's waits for a frame, so the keys changed one layout and paint after the view
    they belong to); where the key widgets already mounted can show the new keys, they are
    rewritten at once instead (`_refit`).

    Keys are shown in their order while they fit whole, so the bar never cuts a word; `? Help`
    (which lists every key) is kept whenever the screen shows it. Textual 8.2 lays each
    `FooterKey` out as " key " + "description " (`footer-key--key` padding 0 1,
    `footer-key--description` padding 0 1 0 0), the command palette key docked right.
    """

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._rebuild_pending = False  # a recompose is scheduled and has not finished
        self._changed_meanwhile = False  # bindings changed after the pending one was scheduled
        self._composed: tuple | None = None  # what the last rebuild or refit showed (see _shown)
        self._refitting = False  # `_refit` is reading the keys

    @property
    def rebuild_pending(self) -> bool:
        """True while a rebuild is scheduled and has not finished (tests check none is left)."""
        return self._rebuild_pending

    def bindings_changed(self, screen: Screen) -> None:
        if not self._rebuild_pending and self._refit(screen):
            return
        if self._rebuild_pending:
            self._changed_meanwhile = True
            return
        self._bindings_ready = True  # what `Footer.bindings_changed` sets, read by `Footer.compose`
        if not screen.app.app_focus or not self.is_attached or screen is not self.screen:
            return  # Textual's own footer does not rebuild then either
        self._rebuild_pending = True
        self._changed_meanwhile = False
        # Before the next frame, not after it (Textual's `call_after_refresh`): the keys then
        # change in the frame that shows the new view, not one layout and paint later.
        self.call_next(self._rebuild, screen)

    async def _rebuild(self, screen: Screen) -> None:
        await self.recompose()
        self._rebuilt(screen)

    def compose(self) -> ComposeResult:
        self._changed_meanwhile = False  # this build reads the bindings as they are now
        self._composed = self._shown()
        yield from fitting_keys(list(super().compose()), self.app.size.width)

    def on_resize(self, event: events.Resize) -> None:
        if self.children and self._shown() != self._composed:
            self.refresh(recompose=True)  # another width: other keys fit

    async def recompose(self) -> None:
        if self.children and self._shown() == self._composed:
            return  # the same keys as shown (focus moved between widgets with the same keys)
        await super().recompose()

    def _shown(self) -> tuple | None:
        """What the footer would show: the shown bindings as displayed, and the palette key."""
        if not self.is_attached:
            return None
        app, active = self.app, self.screen.active_bindings
        keys = tuple((b.key, app.get_key_display(b), b.description, b.action, b.group, enabled, tooltip)
                     for _node, b, enabled, tooltip in active.values() if b.show)
        palette = active.get(app.COMMAND_PALETTE_BINDING)
        return keys, self.show_command_palette, palette[1:] if palette else None, app.size.width

    def _refit(self, screen: Screen) -> bool:
        """Show the current keys at once, in the key widgets already mounted (True); False where
        only a rebuild can (key groups, the palette key coming or going, not shown yet).

        A rebuild runs after the next paint and mounts and styles every key again: a key that
        moves the keyboard into a filter box painted twice, the footer ~50 ms after the rest.
        Here the widgets take the new keys' text (those past the new count are hidden, missing
        ones mounted), so the footer changes in the key's own frame. A change published while
        the keys are read is read again after."""
        if self._refitting:
            self._changed_meanwhile = True
            return True
        if not (self.children and self.is_attached and screen is self.screen and self._bindings_ready
                and self.app.app_focus):
            return False
        if self._shown() == self._composed:
            return True
        self._refitting = True
        try:
            while True:
                with self._context():  # (Footer.compose binds each key's `compact` to the footer it runs in)
                    items = list(self.compose())
                if not _take_keys(self, items):
                    self._composed = None  # the rebuild must not take these keys as shown
                    return False
                if not self._changed_meanwhile:
                    return True
        finally:
            self._refitting = False

    def _rebuilt(self, screen: Screen) -> None:
        self._rebuild_pending = False
        if self._changed_meanwhile:
            self.bindings_changed(screen)


def _take_keys(footer: Footer, items: list[Any]) -> bool:
    """The mounted keys of `footer` show `items` (what its compose yields): True; False when the
    widgets do not match one to one (key groups, the palette key coming or going).

    Keys past the new count are blanked and hidden, not removed (a removal lands a paint later,
    and lays the footer out again); missing ones are mounted."""
    old = [widget for widget in footer.children if isinstance(widget, FooterKey)]
    if len(old) != len(footer.children) or not all(isinstance(widget, FooterKey) for widget in items):
        return False
    old_palette = [key for key in old if key.has_class("-command-palette")]
    new_palette = [key for key in items if key.has_class("-command-palette")]
    if len(old_palette) != len(new_palette):
        return False
    old_keys = [key for key in old if key not in old_palette]
    new_keys = [key for key in items if key not in new_palette]
    for target, source in [*zip(old_keys, new_keys), *zip(old_palette, new_palette)]:
        _take_key(target, source)
        target.display = True
    for spare in old_keys[len(new_keys):]:
        # Hidden, a spare loses its key's text but keeps its classes: restyling a key (its
        # `-disabled`) costs ~1 ms, and `/` left 9 spares, which `escape` took back.
        spare.key = spare.key_display = spare.description = spare.action = ""
        spare.tooltip = None
        spare.display = False
    missing = new_keys[len(old_keys):]
    if missing:
        footer.mount_all(missing, before=old_palette[0] if old_palette else None)
    return True


def _take_key(target: FooterKey, source: FooterKey) -> None:
    """`target` (mounted) shows what `source` (made by `Footer.compose`, not mounted) would."""
    if (target.key, target.key_display, target.description, target.action, target._disabled, target.tooltip) == (
            source.key, source.key_display, source.description, source.action, source._disabled, source.tooltip):
        return
    target.key, target.key_display, target.description = source.key, source.key_display, source.description
    target.action, target._disabled, target.tooltip = source.action, source._disabled, source.tooltip
    target.set_class(source._disabled, "-disabled")
    target.refresh(layout=True)


def footer_key_width(key: Any) -> int:
    """Cells a `FooterKey` takes in Textual 8.2's default footer style (see `CoalescingFooter`)."""
    if not isinstance(key, FooterKey):
        return 0
    if not key.description:
        return cell_len(key.key_display)
    return cell_len(key.key_display) + cell_len(key.description) + 3


def fitting_keys(items: list[Any], width: int) -> list[Any]:
    """The footer's items whose keys fit in `width` cells, whole and in order, `?` kept."""
    keys = [w for w in items if isinstance(w, FooterKey) and not w.has_class("-command-palette")]
    others = [w for w in items if w not in keys]
    budget = width - sum(footer_key_width(w) + 2 for w in others)
    help_key = next((k for k in keys if k.action.endswith("help")), None)
    if help_key is not None:
        budget -= footer_key_width(help_key)
    kept = []
    for key in keys:
        if key is help_key:
            continue
        size = footer_key_width(key)
        if size > budget:
            break
        budget -= size
        kept.append(key)
    if help_key is not None:
        kept.append(help_key)
    return kept + others


# -- one paint per key (Textual 8.2) ------------------------------------------------------------

KEY_HOLD_SECONDS = 0.03  # the longest a key holds the paint back for the messages it started
KEY_HOLD_CHECK = 0.001  # how often the queues are looked at meanwhile


def paint_once_settled(app: "App") -> None:
    """Hold the screen's paint back (`App._begin_batch`) until the messages a key started are
    handled, at most KEY_HOLD_SECONDS: one paint of the settled screen instead of several.

    Textual 8.2 paints as soon as the screen's own queue is idle (`Screen._on_idle`), while a
    key's work often goes on in messages to other widgets (a table's cursor tells its view,
    which draws the read-out): a cursor move painted twice, the settled frame ~30 ms after the
    first. The hold ends once every node of the screen has had an empty queue at two looks in a
    row (`message_queue_size`); the screen is then told to check for work
    (`MessagePump.check_idle`: `App._end_batch` tells only the app), and paints once."""
    if getattr(app, "_insight_holding", False):
        return
    app._insight_holding = True  # type: ignore[attr-defined]
    app._begin_batch()
    loop = asyncio.get_running_loop()
    until = loop.time() + KEY_HOLD_SECONDS
    quiet = 0

    def check() -> None:
        nonlocal quiet
        screen = app.screen if app.screen_stack else None
        nodes = [app, *screen.walk_children(with_self=True)] if screen is not None else [app]
        quiet = 0 if any(node.message_queue_size for node in nodes) else quiet + 1
        if quiet < 2 and loop.time() < until:
            loop.call_later(KEY_HOLD_CHECK, check)
            return
        app._insight_holding = False  # type: ignore[attr-defined]
        app._end_batch()
        if screen is not None and screen.is_attached:
            screen.check_idle()

    loop.call_soon(check)


# -- option lists (Textual 8.2) -----------------------------------------------------------------

def guard_option_list_paging() -> None:
    """Make page up/down do nothing on an OptionList that has no lines laid out.

    Textual 8.2: `OptionList._move_page` looks the highlighted option up in `_index_to_line`,
    which is filled only once the list has a size. On a list squeezed to nothing (a terminal
    resized to 20x6) page up/down raised KeyError, which ended the app (found by the chaos test).
    The original stays reachable as `OptionList._move_page.__wrapped__`.
    """
    move = OptionList._move_page
    if hasattr(move, "__wrapped__"):
        return

    def _move_page(self: OptionList, direction: Any) -> None:
        if self.highlighted is not None and self.highlighted not in self._index_to_line:
            return
        move(self, direction)

    _move_page.__wrapped__ = move  # type: ignore[attr-defined]
    OptionList._move_page = _move_page  # type: ignore[method-assign]


guard_option_list_paging()


# -- scroll views in a layout (Textual 8.2) -----------------------------------------------------------

def quiet_scroll_view_layout() -> None:
    """A layout that leaves a ScrollView's size, container and virtual size as its scrollbars
    were last updated for skips the update (and its repaint).

    Textual 8.2: `ScrollView._size_updated` compares the virtual size the layout passes with the
    view's own (which it keeps itself: they never agree), so every layout of the screen updated
    and repainted the scrollbars of every ScrollView (option lists, tables, trees, inputs) after
    the paint, even one whose new lines had updated them already (`_scroll_update`): a key that
    changed a line of text painted twice, the settled frame ~30 ms after the first. The
    originals stay reachable as `ScrollView._size_updated.__wrapped__` (and `_scroll_update`)."""
    updated, scrolled = ScrollView._size_updated, ScrollView._scroll_update
    if hasattr(updated, "__wrapped__"):
        return

    def _scroll_update(self: ScrollView, virtual_size: Any) -> None:
        scrolled(self, virtual_size)
        self._insight_scrolled_for = (self._size, virtual_size, self.container_size, self.styles.gutter.totals)  # type: ignore[attr-defined]

    def _size_updated(self: ScrollView, size: Any, virtual_size: Any, container_size: Any,
                      layout: bool = True) -> bool:
        if getattr(self, "_insight_scrolled_for", None) == (size, self.virtual_size, container_size,
                                                            self.styles.gutter.totals):
            return False  # (what the original returns when nothing changed)
        return updated(self, size, virtual_size, container_size, layout)

    _size_updated.__wrapped__ = updated  # type: ignore[attr-defined]
    _scroll_update.__wrapped__ = scrolled  # type: ignore[attr-defined]
    ScrollView._size_updated = _size_updated  # type: ignore[method-assign,assignment]
    ScrollView._scroll_update = _scroll_update  # type: ignore[method-assign,assignment]


quiet_scroll_view_layout()


def layout_once() -> None:
    """A widget resized by a layout takes its new virtual size without asking for another layout.

    Textual 8.2: after a full reflow, `Screen._refresh_layout` calls `Widget._size_updated` with
    `layout=True`, which sets the `virtual_size` reactive (`layout=True`): every widget whose size
    changed in a layout asked for a second one, and a second paint (~30 ms later), although the
    layout that sized it is the one on screen. The original stays reachable as
    `Widget._size_updated.__wrapped__`."""
    updated = Widget._size_updated
    if hasattr(updated, "__wrapped__"):
        return

    def _size_updated(self: Widget, size: Any, virtual_size: Any, container_size: Any, layout: bool = True) -> bool:
        return updated(self, size, virtual_size, container_size, False)

    _size_updated.__wrapped__ = updated  # type: ignore[attr-defined]
    Widget._size_updated = _size_updated  # type: ignore[method-assign]


layout_once()


def quiet_tree_resize() -> None:
    """A Tree resized by a layout only grows its line cache to its new height.

    Textual 8.2: `Tree._on_resize` also calls `_invalidate`, which drops every cached line and
    the tree's lines and asks for another layout (`refresh(layout=True)`). Nothing of that
    depends on the size (a cached line is keyed by the width it was drawn at, the lines and the
    virtual size by the nodes alone), and the layout that resized the tree painted it: a tree
    shown again (the graph view's `d`) was laid out and painted twice. The original stays
    reachable as `Tree._on_resize.__wrapped__`."""
    resize = Tree._on_resize
    if hasattr(resize, "__wrapped__"):
        return

    def _on_resize(self: Tree, event: events.Resize) -> None:
        self._line_cache.grow(event.size.height)

    _on_resize.__wrapped__ = resize  # type: ignore[attr-defined]
    Tree._on_resize = _on_resize  # type: ignore[method-assign]


quiet_tree_resize()


def quiet_option_list_resize() -> None:
    """A Resize drops an OptionList's rendered options, and repaints it, only when the width
    they were drawn at changed.

    Textual 8.2: `OptionList._on_resize` clears the rendered options and the line map and
    repaints. A Resize is handled after the layout that sized the list was painted: a list shown
    again (the tag list as full screen ends) or only made taller was painted twice, the second
    time from nothing, although its options are drawn at a width, not a height (they are cached
    by option and style). The original stays reachable as `OptionList._on_resize.__wrapped__`."""
    resize = OptionList._on_resize
    if hasattr(resize, "__wrapped__"):
        return

    def _on_resize(self: OptionList) -> None:
        width = self.scrollable_content_region.width
        if getattr(self, "_insight_drawn_width", None) != width:
            self._insight_drawn_width = width  # type: ignore[attr-defined]
            resize(self)

    _on_resize.__wrapped__ = resize  # type: ignore[attr-defined]
    OptionList._on_resize = _on_resize  # type: ignore[method-assign]


quiet_option_list_resize()


def bars_paint_with_layout() -> None:
    """The scrollbars a layout updates are painted in the frame of that layout.

    Textual 8.2: `Screen._refresh_layout` places each widget's scrollbars (`_arrange_scrollbars`)
    and sizes the widget (`_size_updated`, whose `_scroll_update` refreshes them); a refresh asks
    the screen for a paint by a message, handled after the layout's own paint, so a grid whose
    rows came to overflow (`g` in the image view, `/` out of full screen) or a long list shown
    again painted a second frame for its scrollbar alone.
    The scrollbars refreshed while a screen lays out, and still waiting for their paint, join
    the layout's paint instead. The originals stay reachable as `__wrapped__`."""
    lay_out, paint = Screen._refresh_layout, Screen._compositor_refresh
    if hasattr(lay_out, "__wrapped__"):
        return

    def collect(widget: Widget) -> None:
        if _LAYING_OUT:  # (layouts do not nest: the one under way is the widget's screen's)
            bars = (widget._vertical_scrollbar, widget._horizontal_scrollbar)
            _LAYING_OUT[-1]._insight_bars.extend(bar for bar in bars if bar is not None)  # type: ignore[attr-defined]

    def collecting(scroll_update: Any) -> Any:
        def _scroll_update(self: Widget, virtual_size: Any) -> None:
            scroll_update(self, virtual_size)
            collect(self)

        _scroll_update.__wrapped__ = scroll_update  # type: ignore[attr-defined]
        return _scroll_update

    arrange = Widget._arrange_scrollbars

    def _arrange_scrollbars(self: Widget, region: Any) -> Iterator[tuple[Widget, Any]]:
        yield from arrange(self, region)  # (sets the bars' sizes: a repaint each that changed)
        collect(self)

    def _refresh_layout(self: Screen, size: Any = None, scroll: bool = False) -> None:
        self._insight_bars = []  # type: ignore[attr-defined]
        _LAYING_OUT.append(self)
        try:
            lay_out(self, size, scroll)
        finally:
            _LAYING_OUT.remove(self)

    def _compositor_refresh(self: Screen) -> None:
        bars = getattr(self, "_insight_bars", None)
        if bars:
            self._insight_bars = []  # type: ignore[attr-defined]
            shown = self._compositor.visible_widgets
            waiting = {bar for bar in bars if bar._repaint_required and bar in shown}
            self._compositor.update_widgets(waiting)
            for bar in waiting:
                bar._repaint_required = False  # (painted now: no Update message after this frame)
        paint(self)

    _refresh_layout.__wrapped__ = lay_out  # type: ignore[attr-defined]
    _compositor_refresh.__wrapped__ = paint  # type: ignore[attr-defined]
    _arrange_scrollbars.__wrapped__ = arrange  # type: ignore[attr-defined]
    Widget._scroll_update = collecting(Widget._scroll_update)  # type: ignore[method-assign]
    Widget._arrange_scrollbars = _arrange_scrollbars  # type: ignore[method-assign]
    ScrollView._scroll_update = collecting(ScrollView._scroll_update)  # type: ignore[method-assign]
    Screen._refresh_layout = _refresh_layout  # type: ignore[method-assign]
    Screen._compositor_refresh = _compositor_refresh  # type: ignore[method-assign]


_LAYING_OUT: list[Screen] = []  # the screen in `Screen._refresh_layout` now, if one is


bars_paint_with_layout()


def quiet_focus_change() -> None:
    """Moving the focus repaints the widgets it changes, not the whole screen.

    Textual 8.2: `Screen.focused` is a reactive that repaints (`Reactive(None)`, `repaint=True`),
    so every focus change (`/` into a filter box, `escape` out of it, a view taking the keys)
    marked the screen dirty and the next frame drew every widget again, after the layout had
    drawn what changed. What a focus change changes is redrawn anyway: the widgets that gain
    or lose `:focus` or `:focus-within` are restyled and repaint themselves
    (`Widget.watch_has_focus`, `Screen._update_focus_styles`), the footer rewrites its keys.
    The original flag stays reachable as `Screen.focused.repaint_before_shim`."""
    focused = Screen.focused
    if hasattr(focused, "repaint_before_shim"):
        return
    focused.repaint_before_shim = focused._repaint  # type: ignore[attr-defined]
    focused._repaint = False


quiet_focus_change()


def hidden_under_opaque() -> None:
    """A screen under an opaque one is not drawn, nor drawn through it.

    Textual 8.2's `App._background_screens` always counts the screen right under the current one
    (the loop keeps a screen before it checks whether that one is opaque), so the job list under
    a dashboard counted as shown (`Screen.is_current`): each change on it (its footer rewritten
    when a key changes the bindings, its progress line) was laid out and painted, and its dirty
    regions repainted on the dashboard (`Screen._compositor_refresh`): frames with nothing new,
    four after a graph's `o`, in the key's window. Under an opaque current screen nothing is
    counted; a screen with a see-through background (a dialog) keeps Textual's rule. The
    original stays reachable as `App._background_screens.fget.__wrapped__`."""
    prop: Any = App.__dict__["_background_screens"]
    if hasattr(prop.fget, "__wrapped__"):
        return
    original = prop.fget

    def background_screens(self: App) -> list[Screen]:
        stack = self._screen_stack
        if stack and stack[-1].styles.background.a == 1:
            return []
        return original(self)

    background_screens.__wrapped__ = original  # type: ignore[attr-defined]
    App._background_screens = property(background_screens)  # type: ignore[method-assign, assignment]


hidden_under_opaque()


# -- late mounts and late messages (Textual 8.2) ----------------------------------------------------

def is_leaving(node: Widget) -> bool:
    """Whether `node` is being removed or was (its screen was dismissed, its view replaced).

    Textual 8.2 marks every node of a removed subtree with `_pruning` as the removal starts, then
    closes their message loops (`_closing`, `_closed`); their queued messages still run meanwhile.
    """
    return bool(getattr(node, "_pruning", False) or node._closing or node._closed or not node.is_attached)


def _ours(cls: type) -> bool:
    """A class of the application, not of Textual (whose handlers take nodes down)."""
    return not cls.__module__.startswith("textual.")


def quiet_after_leaving() -> None:
    """Run none of our handlers on a widget that is leaving, except its unmount.

    The rule: a view, widget or screen whose screen has left does nothing on mount, on a loader
    result or on any message. Keys pressed faster than the app settles (open a job, a view key,
    escape) mount a view after its dashboard was dismissed; its `on_mount` then queried children
    that were already gone (`NoMatches`), and a picker's second `OptionSelected` dismissed the
    screen under it. Textual 8.2 dispatches every message through
    `MessagePump._get_dispatch_methods`, the (class, handler) pairs of the node's classes; here
    the pairs of classes outside Textual are dropped while the node is leaving. Textual's own
    handlers still run (removal needs them), and so does `on_unmount` (it gives back what the
    node holds). The original stays reachable as `Widget._get_dispatch_methods.__wrapped__`.
    """
    dispatch = Widget._get_dispatch_methods
    if hasattr(dispatch, "__wrapped__"):
        return

    def _get_dispatch_methods(self: Widget, method_name: str, message: Any) -> Iterator[tuple[type, Any]]:
        for cls, method in dispatch(self, method_name, message):
            if _ours(cls) and not isinstance(message, events.Unmount) and is_leaving(self):
                continue
            yield cls, method

    _get_dispatch_methods.__wrapped__ = dispatch  # type: ignore[attr-defined]
    Widget._get_dispatch_methods = _get_dispatch_methods  # type: ignore[method-assign, assignment]


quiet_after_leaving()


def answer_once() -> None:
    """Make a screen's `dismiss` act only while that screen is the one shown.

    The rule: a picker, prompt or dialog acts on its first answer only. Textual 8.2's
    `Screen.dismiss` calls the result callback and pops the top of the stack, whichever screen
    that is: a double enter in a picker (two `OptionSelected` queued before the first was
    handled) answered twice and the second closed the dashboard under the picker. The first
    dismiss takes the screen off the stack at once (`App.pop_screen`), so a later one finds it
    no longer shown and does nothing. The original stays reachable as `Screen.dismiss.__wrapped__`.
    """
    dismiss = Screen.dismiss
    if hasattr(dismiss, "__wrapped__"):
        return

    def _dismiss(self: Screen, result: Any = None) -> AwaitComplete:
        if not self.is_attached or self.app.screen is not self:
            return AwaitComplete()  # answered already (or never shown): nothing to wait for
        return dismiss(self, result)

    _dismiss.__wrapped__ = dismiss  # type: ignore[attr-defined]
    _dismiss.__doc__ = dismiss.__doc__
    Screen.dismiss = _dismiss  # type: ignore[method-assign]


answer_once()


# -- plotext 6.1 --------------------------------------------------------------------------------

def add_signal(fig: Any, signal: Any) -> bool:
    """Register a plot signal on a plotext figure. True if plotext's shortcut was taken.

    plotext 6.1: `fig.draw(signal)` scans every point for colours we set ourselves;
    `fig._signals._add(signal)` registers it as is. A plotext without the shortcut: `draw`.
    """
    signals = getattr(fig, "_signals", None)
    if signals is not None and hasattr(signals, "_add"):
        signals._add(signal)
        return True
    fig.draw(signal)
    return False


__all__ = ["TEXTUAL_TESTED", "PLOTEXT_TESTED", "resolve_binding_now", "app_keymap", "own_bindings",
           "CoalescingFooter", "add_signal", "fitting_keys", "guard_option_list_paging",
           "is_leaving", "quiet_after_leaving", "hidden_under_opaque", "answer_once", "StyledOnceScreen", "mount_offstage",
           "offstage_layout_due", "lay_out_offstage", "paint_offstage", "paint_offstage_some", "remove_offstage",
           "hold_offstage_mounts", "release_offstage_mounts", "stop_holding", "key_sent", "lay_out_hidden", "paint_hidden",
           "find_hidden", "quiet_show_resize", "underline_active_tab", "ClosesKeptScreens"]


# -- screens (Textual 8.2) ---------------------------------------------------------------------

class StyledOnceScreen(Screen):
    """A screen shown (again) does not restyle every widget when nothing changed the CSS.

    Textual 8.2's `App.push_screen` sends the new screen `ScreenResume(refresh_styles=True)`,
    and `Screen._on_screen_resume` then restyles the whole tree (`update_node_styles`): after
    every widget was styled as it mounted, or, for a screen kept off the stack and pushed again
    (`screens.kept`), though `App.refresh_css` restyles every screen the app holds. The dashboard
    of the 100 MB run (96 widgets, 50 charts) paid for its CSS twice before its first frame. Here
    a resume restyles only when the app's CSS was invalidated (`App._css_update_count`: a theme
    change) since the screen was last styled or shown.
    """

    _styled_for: int | None = None  # the app's CSS count when last styled whole (None: at mount)

    def _on_screen_resume(self, event: events.ScreenResume) -> None:
        count = getattr(self.app, "_css_update_count", None)
        if self._styled_for in (None, count):
            event.refresh_styles = False  # styled as it mounted, or under the same CSS since
        self._styled_for = count
        super()._on_screen_resume(event)


# -- messages (Textual 8.2) --------------------------------------------------------------------

def same_sender(first: Message, second: Message) -> bool:
    """Whether two messages were posted by the same node. Textual 8.2 keeps the node that posted
    a message in `Message._sender` and offers no public accessor."""
    return getattr(first, "_sender", None) is getattr(second, "_sender", first)


class ClosesKeptScreens(App):
    """An app whose screens off the screen stack are taken down properly when it ends.

    Textual 8.2 stops every mount under way once the app exits (`App.exit` sets `_exit`, then
    `is_attached` is False: a `Tabs` composing then mounts with no tabs and raises), and
    `App._shutdown` prunes the screens on the stacks (`_close_all`), then closes every node left
    in its registry one by one, in no order. A screen kept off the stack (`screens.kept`), built
    ahead, or let go and being taken down holds none of the app's keys (`mount_offstage`,
    `remove_offstage`), so the quit may come while it mounts or closes. Here `exit` waits until
    such screens are mounted (`MessagePump._mounted_event`, at most `WAIT` seconds), and the
    shutdown prunes each whole (`App._prune`), or lets one being pruned already
    (`DOMNode._pruning`) finish (its task)."""

    WAIT = 2.0

    def _offstage_screens(self) -> list[Screen]:
        stacked = {id(screen) for stack in self._screen_stacks.values() for screen in stack}
        return [node for node in list(self._registry)
                if isinstance(node, Screen) and node._parent is self and id(node) not in stacked]

    def exit(self, *args: Any, **kwargs: Any) -> None:
        mounting = [screen for screen in self._offstage_screens() if not screen.is_mounted]
        for screen in mounting:
            offstage.unregister(screen)  # (not held back by the quit's own key)
        if not mounting or self.__dict__.get("_insight_exit") is not None:
            super().exit(*args, **kwargs)
            return

        async def once_mounted() -> None:
            await asyncio.wait([asyncio.ensure_future(screen._mounted_event.wait()) for screen in mounting],
                               timeout=self.WAIT)
            super(ClosesKeptScreens, self).exit(*args, **kwargs)

        self._insight_exit = asyncio.ensure_future(once_mounted())  # (held: a task nobody holds may go)

    async def _shutdown(self) -> None:
        for screen in self._offstage_screens():
            if not screen.is_mounted:
                try:
                    await asyncio.wait_for(screen._mounted_event.wait(), self.WAIT)
                except asyncio.TimeoutError:
                    pass
            if not screen._pruning:
                await self._prune(screen)
            elif screen._task is not None:
                await asyncio.wait([screen._task], timeout=self.WAIT)
        await super()._shutdown()


# The shims in their own modules (those of views are applied as they are imported).
from . import offstage  # noqa: E402
from .offstage import hold as hold_offstage_mounts, release as release_offstage_mounts  # noqa: E402
from .offstage import key_sent as key_sent, unregister as stop_holding  # noqa: E402
from .offstage import lay_out_offstage as lay_out_offstage, mount_offstage as mount_offstage  # noqa: E402
from .offstage import offstage_layout_due as offstage_layout_due, offstage_mounted as offstage_mounted  # noqa: E402
from .offstage import paint_offstage as paint_offstage, paint_offstage_some as paint_offstage_some  # noqa: E402
from .offstage import remove_offstage as remove_offstage  # noqa: E402
from .input import sleeping_input as sleeping_input  # noqa: E402
from .views import find_hidden as find_hidden, lay_out_hidden as lay_out_hidden  # noqa: E402
from .views import paint_hidden as paint_hidden, quiet_show_resize as quiet_show_resize  # noqa: E402
from .views import underline_active_tab as underline_active_tab  # noqa: E402
