"""Textual 8.2 shims for screens built ahead: mounted, laid out, painted and taken down off
stage (`mount_offstage` ... `remove_offstage`, below), their widgets waiting to mount while the
keys are served (`hold`). Part of `_textual_compat` (see its docstring: the rules that hold for
every shim here).

Textual 8.2 mounts a composed screen as a cascade: each widget is a task of its own whose
`MessagePump._pre_process` composes it, registers and styles its children (starting their
tasks) and waits for them, then handles its Mount. The event loop runs every ready task once a
turn, so a key that came while a dashboard was being built ahead (100-200 tasks, 1-10 ms each)
waited one turn of the build at each hop (the driver's send, the app, the screen, the focused
widget, the paint): a key 0-25 ms into a build settled 50-60 ms later, though no step is longer
than ~20 ms. Here a widget of a screen registered with `let_wait` waits, before its compose and
again before its Mount, while `hold` holds that screen's mounts: the build stops within a turn
and the key's hops run alone. `release` lets them go on; `unregister` (the screen is shown, or
mounted, or the app ends) lets one go for good.

The app takes a key two turns after the driver sent it (`Driver.send_message` runs
`App._post_message` as a task of its own, which then wakes the app's): the send raises a flag,
from the driver's thread, and the first widget about to mount holds the mounts at once. They go
on at `release` (armed by the app as it takes the key), or after `MAX_HOLD` seconds whatever
happens. The originals stay reachable as `Widget._pre_process.__wrapped__` and
`Driver.send_message.__wrapped__`.
"""
from __future__ import annotations

import asyncio
import time
import weakref
from typing import TYPE_CHECKING, Any

from textual import events
from textual.driver import Driver
from textual.messages import Prune
from textual.screen import Screen
from textual.widget import AwaitMount, Widget

if TYPE_CHECKING:
    from textual.app import App

# Screens mounted off stage whose mounts may be held: each's "go on" (set: not held).
_GATES: "weakref.WeakKeyDictionary[Screen, asyncio.Event]" = weakref.WeakKeyDictionary()
MAX_HOLD = 1.0  # seconds a widget waits at most, released or not (a key the app dropped)
_key_sent = False  # a key was sent to the app since the last `hold` (set on the driver's thread)


def let_wait(screen: Screen) -> None:
    """Register `screen` (about to be mounted off stage): `hold` may hold its widgets' mounts."""
    gate = asyncio.Event()
    gate.set()
    _GATES[screen] = gate


def unregister(screen: Screen) -> None:
    """Nothing holds `screen`'s mounts any more; those held go on now."""
    gate = _GATES.pop(screen, None)
    if gate is not None:
        gate.set()


def hold() -> bool:
    """Widgets of registered screens that have not composed or handled their Mount yet wait
    (True: a screen is registered, so something may be held)."""
    global _key_sent
    _key_sent = False
    for gate in _GATES.values():
        gate.clear()
    return bool(_GATES)


def release() -> None:
    """The widgets `hold` held go on."""
    for gate in _GATES.values():
        gate.set()


def key_sent() -> bool:
    """Whether a key was sent to the app that screens mounted off stage did not wait for yet
    (the app may not have taken it: a step of their build waits too)."""
    return _key_sent


def held(screen: Screen) -> bool:
    """Whether `screen`'s mounts are being held now."""
    gate = _GATES.get(screen)
    return gate is not None and not gate.is_set()


def _gate(widget: Widget) -> asyncio.Event | None:
    node: Any = widget
    while node is not None and not isinstance(node, Screen):
        node = node._parent
    return _GATES.get(node) if node is not None else None


async def _wait(widget: Widget) -> None:
    gate = _gate(widget)
    if gate is None:
        return
    if _key_sent:
        hold()
    if not gate.is_set():
        try:  # (set by `release`, or by `unregister`)
            await asyncio.wait_for(gate.wait(), MAX_HOLD)
        except asyncio.TimeoutError:
            pass


def wait_while_held() -> None:
    """Install the waits in `Widget._pre_process` (Textual 8.2's, `MessagePump._pre_process`,
    dispatches Compose, then Mount, then `_post_mount`: copied here with the waits between) and
    the flag in `Driver.send_message`."""
    pre_process, send = Widget._pre_process, Driver.send_message
    if hasattr(pre_process, "__wrapped__"):
        return

    async def _pre_process(self: Widget) -> bool:
        if not _GATES:
            return await pre_process(self)
        try:
            await _wait(self)
            await self._dispatch_message(events.Compose())
            await _wait(self)
            if self._prevented_messages_on_mount:
                with self.prevent(*self._prevented_messages_on_mount):
                    await self._dispatch_message(events.Mount())
            else:
                await self._dispatch_message(events.Mount())
            self._post_mount()
        except Exception as error:
            self.app._handle_exception(error)
            return False
        finally:
            self._mounted_event.set()  # (a mount may be waiting for it)
            self._is_mounted = True
        return True

    def send_message(self: Driver, message: Any) -> None:
        global _key_sent
        if _GATES and isinstance(message, events.Key):
            _key_sent = True
        send(self, message)

    _pre_process.__wrapped__ = pre_process  # type: ignore[attr-defined]
    send_message.__wrapped__ = send  # type: ignore[attr-defined]
    Widget._pre_process = _pre_process  # type: ignore[method-assign, assignment]
    Driver.send_message = send_message  # type: ignore[method-assign]


wait_while_held()


# -- built ahead: mounted, laid out, painted and taken down off stage -----------------------------

def mount_offstage(app: "App", screen: Screen) -> None:
    """Compose and mount `screen` (installed, not on the screen stack) as `push_screen` would,
    without showing it: a later push only shows it, once it is mounted (`offstage_mounted`).

    Textual 8.2's `App._get_screen` registers the screen (each widget styled as it mounts) and
    queues the wait for its mount on the app (`App.call_next(AwaitMount)`): the app's queue, keys
    included, would hold until the whole screen is mounted, 70-200 ms. The wait is queued on the
    screen itself instead, behind its mount (its layout is refreshed once mounted, as after the
    app's wait; `call_next` would be run inside the mount, waiting for itself)."""
    if not screen.is_running:
        let_wait(screen)  # (its widgets wait while a key is served: `hold_offstage_mounts`)
        screen.call_later(AwaitMount(screen, app._register(app, screen)))
        screen.call_later(unregister, screen)  # mounted: nothing more to hold


async def offstage_mounted(screen: Screen, timeout: float = 5.0) -> None:
    """Return once a screen mounted off stage (`mount_offstage`) is mounted (at most `timeout`
    seconds); Textual 8.2 sets `MessagePump._mounted_event` once its Mount is handled."""
    try:
        await asyncio.wait_for(screen._mounted_event.wait(), timeout)
    except asyncio.TimeoutError:
        pass


def offstage_layout_due(screen: Screen) -> bool:
    """Whether a screen that is not shown asked for a layout (a widget mounted or resized since).
    Textual 8.2 sets `Screen._layout_required` (on a `Layout` message) and clears it only when the
    current screen lays out (`_on_timer_update`)."""
    return bool(screen._layout_required)


def lay_out_offstage(app: "App", screen: Screen) -> None:
    """Lay out a mounted screen that is not shown at the app's size (its widgets get their Resize
    events), as `Screen._on_timer_update` does for the current one (Textual 8.2:
    `Screen._refresh_layout(size)` reflows any screen and paints only the current one); a push
    then lays it out again only if the size changed (`_on_screen_resume`) or a layout is due."""
    if screen.is_attached and not screen.is_current:
        screen._refresh_layout(app.size)
        screen._layout_required = False
        screen.__dict__.pop("_insight_rendered", None)  # placed anew: `paint_offstage_some` starts over


def paint_offstage(screen: Screen) -> None:
    """Render every widget of a laid-out screen that is not shown, discarding the frame: their
    lines are cached (`Widget._styles_cache`) until they change, so the push paints from them.
    Textual 8.2: `Screen._compositor.render_update(full=True)`."""
    if screen.is_attached and not screen.is_current:
        screen._compositor.update_widgets(screen._dirty_widgets)
        screen._dirty_widgets.clear()
        screen._compositor.render_update(full=True)


def paint_offstage_some(screen: Screen, budget: float) -> bool:
    """Render the widgets of a laid-out screen that is not shown one at a time (their lines
    cached, as `paint_offstage` does for all at once) until `budget` seconds went by; True when
    none is left to render, `paint_offstage` then only joins their lines. Textual 8.2: the
    widgets and crops `Compositor._get_renders` renders (`visible_widgets`, `Widget.render_lines`);
    the screen keeps the ones rendered here (`_insight_rendered`) until a layout places them anew."""
    if not screen.is_attached or screen.is_current:
        return True
    started = time.perf_counter()
    done = screen.__dict__.setdefault("_insight_rendered", weakref.WeakSet())
    for widget, (region, clip) in screen._compositor.visible_widgets.items():
        if widget in done:
            continue
        if time.perf_counter() - started >= budget:
            return False
        crop = region.intersection(clip)
        if crop.width and crop.height:
            widget.render_lines(crop.translate(-region.offset))
        done.add(widget)
    return True


def remove_offstage(app: "App", screen: Screen) -> None:
    """Take down a screen that is not on the screen stack (a dashboard kept or built ahead)
    without touching the one shown or holding the app's queue.

    Textual 8.2's `Widget.remove` prunes with the screen's parent, the App, whose
    `refresh(layout=True)` once the prune ends reflows and repaints the current screen whole
    (`App._prune`'s `post_mount`): a frame with nothing new, in the window of the next key. And
    `App._prune` queues the wait for the prune on the app (`call_next(AwaitRemove)`), so the
    app's queue, keys included, holds until every widget of the screen is closed. Here the prune
    is started as `App._prune` starts it (`Prune` to the screen, each node marked `_pruning`),
    and nothing waits for it: each node leaves the app's registry as it closes."""
    nodes = list(screen.walk_children(with_self=True))
    screen.post_message(Prune())
    for node in nodes:
        node._pruning = True
