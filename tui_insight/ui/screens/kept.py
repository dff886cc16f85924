"""The dashboards of the last few jobs opened, kept mounted while the user is away from them.

Building a dashboard costs 150-250 ms of CPU (its widgets mounted and styled, then laid out and
painted), so a job opened again (`escape`, then `enter`; or another job, then back) is shown
again instead: the same screen, with the changes that came while it was away handed over first.
At most `KEEP` are kept (each holds its jobs' series and its charts); the one opened longest ago
is taken down when another comes. A kept dashboard whose job left LOGDIR is taken down at once.

Textual keeps a screen that is popped only when it is installed (`App.install_screen`): a kept
dashboard is installed under its jobs' names, and uninstalled when it is let go.

One more can be built ahead (`build_ahead`), off screen, for the job the cursor rests on in the
job list: composed and mounted, laid out at the app's size until its layout settles (a view's
grid shapes itself on its first Resize), and painted once with the frame thrown away (each
widget keeps its lines), a step at a time between the user's keys. `enter` then only shows it.
It does not count against `KEEP`; another built ahead lets it go if it was never shown.
"""
from __future__ import annotations

from collections import OrderedDict
from typing import TYPE_CHECKING, Callable

from ...summary.store.job_view import Changes
from .._textual_compat import (lay_out_offstage, mount_offstage, offstage_layout_due, paint_offstage,
                               remove_offstage)

if TYPE_CHECKING:
    from textual.app import App
    from textual.screen import Screen

KEEP = 3  # dashboards kept: each holds its jobs' series in memory and its charts' drawings
# Layouts of a dashboard built ahead before it is painted: its view's grid shapes itself on the
# first Resize, then grows a batch at a time (`TagGridView.grow_later`).
AHEAD_LAYOUTS = 8


class KeptScreens:
    """Dashboards by their jobs (`train_ids`), the one used last at the end."""

    def __init__(self, app: "App", keep: int = KEEP) -> None:
        self.app = app
        self.keep = keep
        self._screens: OrderedDict[tuple[str, ...], Screen] = OrderedDict()
        self._away: dict[tuple[str, ...], Changes] = {}  # changes a screen off the stack has not seen
        self._ahead: tuple[str, ...] | None = None  # built ahead and not shown yet

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
        if self._ahead == train_ids:
            self._ahead = None  # shown: kept as any other from now on
        missed = self._away.pop(train_ids, None)
        if missed is not None:
            screen.cache_changed(missed)  # type: ignore[attr-defined]
        return screen

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
        # The oldest off the screen stack go (one on it, under lineage say, stays until popped).
        keep = self.keep + (self._ahead is not None)
        for oldest in [ids for ids, kept in self._screens.items()
                       if kept not in self.app.screen_stack and ids != self._ahead]:
            if len(self._screens) <= keep:
                break
            self._let_go(oldest, self._screens.pop(oldest))

    def build_ahead(self, train_ids: tuple[str, ...], make: Callable[[], Screen]) -> None:
        """Build the dashboard of `train_ids` (`make()`) off screen, unless one is kept; the one
        built ahead before and never shown is let go."""
        if train_ids in self._screens or self.keep <= 0:
            return
        if self._ahead is not None and self._ahead in self._screens:
            self._let_go(self._ahead, self._screens.pop(self._ahead))
        screen = make()
        self._ahead = train_ids
        self.add(train_ids, screen)
        mount_offstage(self.app, screen)
        screen.call_later(self._settle_ahead, train_ids, screen, AHEAD_LAYOUTS)  # queued behind its mount

    def _settle_ahead(self, train_ids: tuple[str, ...], screen: Screen, layouts: int) -> None:
        """One step of building ahead, each after the app's next refresh: a layout while one is
        due (and `layouts` are left), then the paint. Stops once the screen was shown or let go."""
        if self._ahead != train_ids or self._screens.get(train_ids) is not screen or not screen.is_mounted:
            if self._ahead == train_ids and screen.is_attached and not screen.is_mounted:
                self.app.set_timer(0.05, lambda: self._settle_ahead(train_ids, screen, layouts))  # still mounting
            return
        if layouts and offstage_layout_due(screen):
            lay_out_offstage(self.app, screen)
            self.app.call_after_refresh(self._settle_ahead, train_ids, screen, layouts - 1)
            return
        paint_offstage(screen)

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
            if train_ids == self._ahead and screen.is_mounted:
                # Being made ready (its job's series read back for it, say): taken now, painted again.
                screen.cache_changed(changes)  # type: ignore[attr-defined]
                screen.call_later(self._settle_ahead, train_ids, screen, AHEAD_LAYOUTS)
                continue
            self._away.setdefault(train_ids, Changes()).merge(changes)

    def _let_go(self, train_ids: tuple[str, ...], screen: Screen) -> None:
        self._away.pop(train_ids, None)
        if self._ahead == train_ids:
            self._ahead = None
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
