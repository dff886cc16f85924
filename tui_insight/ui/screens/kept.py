"""The dashboards of the last few jobs opened, kept mounted while the user is away from them.

Building a dashboard costs 150-250 ms of CPU (its widgets mounted and styled, then laid out and
painted), so a job opened again (`escape`, then `enter`; or another job, then back) is shown
again instead: the same screen, with the changes that came while it was away handed over first.
At most `KEEP` are kept (each holds its jobs' series and its charts); the one opened longest ago
is taken down when another comes; the lineage screen (`l`, every job's) is kept beside them. A
kept dashboard whose job left LOGDIR is taken down at once.

Textual keeps a screen that is popped only when it is installed (`App.install_screen`): a kept
dashboard is installed under its jobs' names, and uninstalled when it is let go.

The screens the user may open next are built ahead (`want_ahead`), off screen, one at a time
once the keys rested (`AHEAD_AFTER_SECONDS`; the lineage screen, less likely next, 1-2 s), each
in its slot: the dashboard of the job the cursor rests on in the job list, that of the jobs
marked for `c`, and the lineage screen (`LINEAGE`). Each is composed and mounted, laid out at
the app's size until its layout settles (a view's grid shapes itself on its first Resize), and
painted once with the frame thrown away (each widget keeps its lines), a step at a time between
the user's keys (a few widgets a step, none right after a key); the opening key then only shows
it. Neither its mount nor its removal holds the app's keys (`mount_offstage`, `remove_offstage`),
and a key holds its mount (`key_came`: its widgets wait to compose until the keys rested
`KEY_GAP_SECONDS`); one opened while it is still mounting is shown once mounted, at once
(`when_mounted`). Built ahead, a
screen does not count against `KEEP` until it is shown; another built in its slot lets it go if
it was never shown.
"""
from __future__ import annotations

from collections import OrderedDict
from typing import TYPE_CHECKING, Any, Callable, NamedTuple

from ...summary.store.job_view import Changes
from .._textual_compat import (hold_offstage_mounts, key_sent, lay_out_offstage, mount_offstage,
                               offstage_layout_due, offstage_mounted, paint_offstage, paint_offstage_some,
                               release_offstage_mounts, remove_offstage, stop_holding)

if TYPE_CHECKING:
    from textual.app import App
    from textual.screen import Screen

KEEP = 3  # dashboards kept: each holds its jobs' series in memory and its charts' drawings
# Once the keys rested this long, what the user may open next is built ahead: longer than the gap
# between repeated arrow keys, shorter than a read.
AHEAD_AFTER_SECONDS = 0.25
LINEAGE = ("\x00lineage",)  # the lineage screen's key (no job id starts with NUL)
LINEAGE_REST = 1.0  # seconds the keys rested before the lineage screen is built ahead
# On the job list, where `enter` on the dashboard built ahead is the likely next key, longer: a
# mount under way (its widgets composed and styled between the keys' messages) slows that key.
LIST_LINEAGE_REST = 2.0
# Layouts of a dashboard built ahead before it is painted: its view's grid shapes itself on the
# first Resize, then grows a batch at a time (`TagGridView.grow_later`).
AHEAD_LAYOUTS = 8
PAINT_STEP_SECONDS = 0.015  # widgets painted ahead in one step, then the app's next frame (a key's)
KEY_GAP_SECONDS = 0.1  # a step waits this long after a key, whose frame comes first


class Ahead(NamedTuple):
    """A screen to build ahead: in `slot` (one screen each), for `key` (its jobs, or `LINEAGE`)."""

    slot: str
    key: tuple[str, ...]
    make: Callable[[], "Screen"]
    rest: float = AHEAD_AFTER_SECONDS  # the keys rested this long first


class KeptScreens:
    """Dashboards by their jobs (`train_ids`), the one used last at the end."""

    def __init__(self, app: "App", keep: int = KEEP) -> None:
        self.app = app
        self.keep = keep
        self._screens: OrderedDict[tuple[str, ...], Screen] = OrderedDict()
        self._away: dict[tuple[str, ...], Changes] = {}  # changes a screen off the stack has not seen
        self._ahead: dict[str, tuple[str, ...]] = {}  # slot -> the key built ahead there, not shown yet
        self._wanted: Callable[[], list[Ahead]] | None = None  # what to build ahead, asked when rested
        self._timer: Any = None  # `_next_ahead`, once the keys rested
        self._building: tuple[str, ...] | None = None  # built ahead now, not yet painted
        self._release: Any = None  # the timer that lets mounts held by a key go on

    def __len__(self) -> int:
        return len(self._screens)

    def __contains__(self, train_ids: object) -> bool:
        return train_ids in self._screens

    def get(self, train_ids: tuple[str, ...]) -> Screen | None:
        """The kept dashboard of `train_ids` if it can be shown again (it is not on the screen
        stack already, e.g. under lineage), the changes it missed handed over; else None."""
        screen = self._screens.get(train_ids)
        if screen is None or screen in self.app.screen_stack or not screen.is_attached:
            return None
        self._screens.move_to_end(train_ids)
        if train_ids in self._ahead.values():  # shown: kept as any other, counted from now on
            self._ahead = {slot: key for slot, key in self._ahead.items() if key != train_ids}
            self._trim(train_ids)
        missed = self._away.pop(train_ids, None)
        if missed is not None:
            screen.cache_changed(missed)  # type: ignore[attr-defined]
        return screen

    def when_mounted(self, screen: Screen, show: Callable[[], Any], again: Callable[[], Any]) -> None:
        """`show()` (a kept screen, from `get`) now if it is mounted. One built ahead that is still
        mounting is shown once mounted, the app's queue (the keys) waiting meanwhile as for a new
        screen; `again()` instead if it was let go in that time."""
        if screen.is_mounted:
            show()
            return
        stop_holding(screen)  # (the keys wait for it now)

        async def once_mounted() -> None:
            await offstage_mounted(screen)
            (show if screen.is_attached and screen.is_mounted else again)()

        self.app.call_next(once_mounted)

    def add(self, train_ids: tuple[str, ...], screen: Screen) -> None:
        """Keep `screen` (about to be pushed); let the oldest go beyond `keep` (0: keep none)."""
        if self.keep <= 0:
            return
        old = self._screens.get(train_ids)
        if old is not None and old in self.app.screen_stack:
            return  # the kept one is under this one (opened again from lineage): this one is not kept
        if old is not None:
            self._let_go(train_ids, self._screens.pop(train_ids))
        self.app.install_screen(screen, self._name(train_ids))
        self._screens[train_ids] = screen
        self._trim(train_ids)

    def _trim(self, shown: tuple[str, ...]) -> None:
        """Let the oldest go beyond `keep`, but `shown` (about to be on screen) and those on the
        screen stack (under lineage, say: until popped); those built ahead and the lineage screen
        (it holds no series) do not count."""
        ahead = set(self._ahead.values()) | {LINEAGE}
        keep = self.keep + len(ahead & set(self._screens))
        for oldest in [ids for ids, kept in self._screens.items()
                       if kept not in self.app.screen_stack and ids not in ahead and ids != shown]:
            if len(self._screens) <= keep:
                break
            self._let_go(oldest, self._screens.pop(oldest))

    def key_came(self) -> None:
        """A key arrived: screens mounting off stage stop within a step, so the key's messages
        run alone, and go on once the keys rested `KEY_GAP_SECONDS`."""
        if hold_offstage_mounts() and self._release is None:
            self._release = self.app.set_timer(KEY_GAP_SECONDS, self._release_mounts, name="mounts-held")

    def _release_mounts(self) -> None:
        rested = self.app.idle_seconds()  # type: ignore[attr-defined]
        if rested < KEY_GAP_SECONDS:
            self._release = self.app.set_timer(KEY_GAP_SECONDS - rested, self._release_mounts, name="mounts-held")
            return
        self._release = None
        release_offstage_mounts()

    def want_ahead(self, wanted: Callable[[], list[Ahead]]) -> None:
        """Build what `wanted()` lists (asked again before each), in that order, one after
        another, each once the keys rested its `rest`; the latest call wins."""
        self._wanted = wanted
        self._arm(AHEAD_AFTER_SECONDS)

    def _arm(self, delay: float) -> None:
        if self._timer is not None:
            self._timer.stop()
        self._timer = self.app.set_timer(delay, self._next_ahead, name="build-ahead")

    def _next_ahead(self) -> None:
        """The next screen wanted and not kept, built ahead if the keys rested (else later)."""
        self._timer = None
        if self._wanted is None or self._building is not None:
            return  # (the one being built asks again once painted)
        if not self.app.screen_stack:  # the app is ending (its kept screens closing): nothing ahead
            return
        wanted = next((ahead for ahead in self._wanted() if ahead.key not in self._screens), None)
        if wanted is None:
            self._wanted = None  # everything wanted is there
            return
        rested = self.app.idle_seconds()  # type: ignore[attr-defined]
        if rested < wanted.rest:  # a key came since: not in the next key's way
            self._arm(wanted.rest - rested)
            return
        self.build_ahead(wanted.key, wanted.make, wanted.slot)

    def build_ahead(self, train_ids: tuple[str, ...], make: Callable[[], Screen], slot: str = "cursor") -> None:
        """Build the screen of `train_ids` (`make()`) off screen, unless one is kept; the one
        built ahead in `slot` before and never shown is let go."""
        if train_ids in self._screens or self.keep <= 0:
            return
        before = self._ahead.get(slot)
        if before is not None and before in self._screens:
            self._let_go(before, self._screens.pop(before))
        screen = make()
        self._ahead[slot] = train_ids
        self._building = train_ids
        self.add(train_ids, screen)
        mount_offstage(self.app, screen)
        screen.call_later(self._settle_ahead, train_ids, screen, AHEAD_LAYOUTS)  # queued behind its mount

    def _settle_ahead(self, train_ids: tuple[str, ...], screen: Screen, layouts: int) -> None:
        """One step of building ahead, each after the app's next refresh and never right after a
        key: a layout while one is due (and `layouts` are left), then the paint, a few widgets a
        step; then the next screen wanted. Stops once the screen was shown or let go."""
        if (train_ids not in self._ahead.values() or self._screens.get(train_ids) is not screen
                or not screen.is_mounted):
            if train_ids in self._ahead.values() and screen.is_attached and not screen.is_mounted:
                self.app.set_timer(0.05, lambda: self._settle_ahead(train_ids, screen, layouts))  # still mounting
                return
            self._built(train_ids)
            return
        rested = 0.0 if key_sent() else self.app.idle_seconds()  # type: ignore[attr-defined]
        if rested < KEY_GAP_SECONDS:
            self.app.set_timer(KEY_GAP_SECONDS - rested, lambda: self._settle_ahead(train_ids, screen, layouts))
            return
        if layouts and offstage_layout_due(screen):
            lay_out_offstage(self.app, screen)
            self.app.call_after_refresh(self._settle_ahead, train_ids, screen, layouts - 1)
            return
        if not paint_offstage_some(screen, PAINT_STEP_SECONDS):
            self.app.call_after_refresh(self._settle_ahead, train_ids, screen, layouts)
            return
        paint_offstage(screen)  # (their lines joined)
        self._built(train_ids)

    def _built(self, train_ids: tuple[str, ...]) -> None:
        """The screen built ahead is painted (or gone): the next one wanted, after the next frame."""
        if self._building == train_ids:
            self._building = None
            if self._wanted is not None:
                self.app.call_after_refresh(self._next_ahead)

    def changed(self, changes: Changes) -> None:
        """Changes the app handed to the screens on the stack: those off it keep them for their
        return, but the one built ahead takes them now; one whose job disappeared is let go (it
        would only say so)."""
        for train_ids, screen in list(self._screens.items()):
            if screen in self.app.screen_stack:
                continue
            if changes.removed & set(train_ids):
                self._let_go(train_ids, self._screens.pop(train_ids))
                continue
            if train_ids in self._ahead.values() and screen.is_mounted:
                # Being made ready (its job's series read back for it, say): taken now, painted again.
                screen.cache_changed(changes)  # type: ignore[attr-defined]
                screen.call_later(self._settle_ahead, train_ids, screen, AHEAD_LAYOUTS)
                continue
            self._away.setdefault(train_ids, Changes()).merge(changes)

    def _let_go(self, train_ids: tuple[str, ...], screen: Screen) -> None:
        self._away.pop(train_ids, None)
        self._ahead = {slot: key for slot, key in self._ahead.items() if key != train_ids}
        if self._building == train_ids:
            self._building = None
        self.app.uninstall_screen(self._name(train_ids))  # (never one on the stack: Textual refuses)
        if screen.is_mounted:
            remove_offstage(self.app, screen)  # its unmount releases its jobs' series
        elif screen.is_attached:
            # Still mounting (built ahead, the cursor moved on at once): removed once mounted, as
            # Textual's own widgets (`Tabs`) fail to mount with their children taken away.
            screen.call_later(remove_offstage, self.app, screen)  # queued behind its mount

    @staticmethod
    def _name(train_ids: tuple[str, ...]) -> str:
        return "dashboard:" + "\n".join(train_ids)
