"""Textual 8.2 shim for screens mounted off stage (built ahead): their widgets wait to mount
while the keys are served. Part of `_textual_compat` (see its docstring: the rules that hold for
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
import weakref
from typing import Any

from textual import events
from textual.driver import Driver
from textual.screen import Screen
from textual.widget import Widget

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
