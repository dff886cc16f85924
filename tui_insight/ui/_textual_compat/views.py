"""Textual 8.2 shims for views shown and hidden in one place (the dashboard's ContentSwitcher),
part of `_textual_compat` (see its docstring: the rules that hold for every shim here)."""
from __future__ import annotations

import weakref
from typing import Any

from textual import events
from textual._compositor import Compositor, ReflowResult
from textual.errors import NoWidget
from textual.scroll_view import ScrollView
from textual.widget import Widget
from textual.widgets import Tabs
from textual.widgets._tabs import Underline


def quiet_show_resize() -> None:
    """A widget shown again at the size it had gets its Show event but no Resize.

    Textual 8.2: `Screen._refresh_layout` sends a Resize to every widget a layout shows
    (`Compositor.reflow`'s `shown`), sized as before or not: a view shown again ran every
    resize handler in it (an OptionList dropped its rows, `_on_resize`, and painted a frame
    later). A widget sized before (not 0 x 0) and shown at that size, virtual size (a
    ScrollView keeps its own: not compared) and container size is taken out of `shown` and
    sent its Show directly. The original stays reachable as `Compositor.reflow.__wrapped__`."""
    reflow = Compositor.reflow
    if hasattr(reflow, "__wrapped__"):
        return

    def _reflow(self: Compositor, parent: Widget, size: Any) -> ReflowResult:
        result = reflow(self, parent, size)
        if not result.shown:
            return result
        for widget in result.shown:
            _HIDDEN_PLACES.pop(widget, None)  # (laid out hidden before: where it is now is known)
        placed = self._full_map
        same = set()
        for widget in result.shown:
            geometry = placed.get(widget)
            if (geometry is not None and widget._size and widget._size == geometry.region.size
                    and (isinstance(widget, ScrollView) or widget.virtual_size == geometry.virtual_size)
                    and widget._container_size == geometry.container_size):
                same.add(widget)
        for widget in same:
            widget.post_message(events.Show())
        return result._replace(shown=result.shown - same) if same else result

    _reflow.__wrapped__ = reflow  # type: ignore[attr-defined]
    Compositor.reflow = _reflow  # type: ignore[method-assign]


quiet_show_resize()


def underline_active_tab(tabs: Tabs) -> None:
    """Move the underline of `tabs` under its active tab now, not after the next frame.

    Textual 8.2: `Tabs.watch_active` moves the underline in a `call_after_refresh`
    (`_highlight_active`'s `move_underline`), so every view switch painted a second frame for
    it. Tabs that are laid out do not move when another one is activated: the underline is set
    here from the active tab's place (what `move_underline` computes, unanimated), and the later
    move finds it there (unchanged reactives repaint nothing)."""
    active = tabs.query("#tabs-list > Tab.-active")
    underlines = tabs.query(Underline)
    if not active or not underlines or not active.first().region:
        return  # not laid out yet: Textual's own move places it
    tab = active.first()
    start, end = tab.virtual_region.shrink(tab.styles.gutter).column_span
    underline = underlines.first(Underline)
    underline.highlight_start, underline.highlight_end = start, end


# Where each widget laid out hidden would be on screen (`lay_out_hidden`), until it is shown.
_HIDDEN_PLACES: "weakref.WeakKeyDictionary[Widget, Any]" = weakref.WeakKeyDictionary()


def lay_out_hidden(widget: Widget, region: Any) -> bool:
    """Lay out a hidden widget (`display: none`, its parent shown) as if it filled `region` of
    the screen, as `Screen._refresh_layout` does what is shown: each widget takes its size, and
    a Resize where that changed. True when the layout differs from the last one made here
    (their handlers may change it again).

    Textual 8.2 lays out only what is displayed and reads a widget's `region` and `size` from
    the screen's layout, so a view built hidden was sized, drawn and filled when first shown.
    Here it has its own `Compositor` (kept on it until `paint_hidden`), its widgets are found
    where they would be until shown (`find_hidden`); shown at that size, they get no Resize
    (`quiet_show_resize`) and paint from their lines."""
    compositor = getattr(widget, "_insight_hidden_layout", None)
    if compositor is None or compositor.size != region.size:
        compositor = Compositor()
        widget._insight_hidden_layout = compositor  # type: ignore[attr-defined]
    reflow = getattr(Compositor.reflow, "__wrapped__", Compositor.reflow)  # (no Show: nothing is shown)
    hidden, shown, resized = reflow(compositor, widget, region.size)
    for gone in hidden:
        _HIDDEN_PLACES.pop(gone, None)
    offset = region.offset
    placed = list(compositor.layers)
    for child, geometry in placed:
        _HIDDEN_PLACES[child] = geometry._replace(region=geometry.region.translate(offset),
                                                  clip=geometry.clip.translate(offset))
    changed = bool(hidden or shown or resized)
    for child, (place, _order, _clip, virtual_size, container_size, _, _) in placed:
        if child._size_updated(place.size, virtual_size, container_size):
            child.post_message(events.Resize(place.size, virtual_size, container_size))
            changed = True
    return changed


def paint_hidden(widget: Widget) -> None:
    """Render every widget a `lay_out_hidden` placed, discarding the frame: their lines are
    cached (`Widget._styles_cache`) until they change, so showing `widget` paints from them.
    Textual 8.2: `Compositor.render_update(full=True)` on the compositor that laid it out. A
    widget that rendering made dirty (an OptionList counts its lines as it renders) is
    rendered again."""
    compositor = widget.__dict__.pop("_insight_hidden_layout", None)
    if compositor is not None and widget.is_attached:
        compositor.render_update(full=True)
        compositor.render_update(full=True)


def find_hidden() -> None:
    """A widget laid out hidden (`lay_out_hidden`) is found where it would be on screen, until
    a layout of the screen shows it. Textual 8.2: `Compositor.find_widget` (behind
    `Widget.region`, `size`, `content_region`) raises NoWidget for it, so it read as 0 x 0. The
    original stays reachable as `Compositor.find_widget.__wrapped__`."""
    find = Compositor.find_widget
    if hasattr(find, "__wrapped__"):
        return

    def find_widget(self: Compositor, widget: Widget) -> Any:
        try:
            return find(self, widget)
        except NoWidget:
            place = _HIDDEN_PLACES.get(widget)
            if place is None:
                raise
            return place

    find_widget.__wrapped__ = find  # type: ignore[attr-defined]
    Compositor.find_widget = find_widget  # type: ignore[method-assign]


find_hidden()
