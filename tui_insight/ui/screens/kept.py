"""The dashboards of the last few jobs opened, kept mounted while the user is away from them.

Building a dashboard costs 150-250 ms of CPU (its widgets mounted and styled, then laid out and
painted), so a job opened again (`escape`, then `enter`; or another job, then back) is shown
again instead: the same screen, with the changes that came while it was away handed over first.
At most `KEEP` are kept (each holds its jobs' series and its charts); the one opened longest ago
is taken down when another comes. A kept dashboard whose job left LOGDIR is taken down at once.

Textual keeps a screen that is popped only when it is installed (`App.install_screen`): a kept
dashboard is installed under its jobs' names, and uninstalled when it is let go.
"""
from __future__ import annotations

from collections import OrderedDict
from typing import TYPE_CHECKING

from ...summary.store.job_view import Changes

if TYPE_CHECKING:
    from textual.app import App
    from textual.screen import Screen

KEEP = 3  # dashboards kept: each holds its jobs' series in memory and its charts' drawings


class KeptScreens:
    """Dashboards by their jobs (`train_ids`), the one used last at the end."""

    def __init__(self, app: "App", keep: int = KEEP) -> None:
        self.app = app
        self.keep = keep
        self._screens: OrderedDict[tuple[str, ...], Screen] = OrderedDict()
        self._away: dict[tuple[str, ...], Changes] = {}  # changes a screen off the stack has not seen

    def __len__(self) -> int:
        return len(self._screens)

    def get(self, train_ids: tuple[str, ...]) -> Screen | None:
        """The kept dashboard of `train_ids` if it can be shown again (it is not on the screen
        stack already, e.g. under lineage), the changes it missed handed over; else None."""
        screen = self._screens.get(train_ids)
        if screen is None or screen in self.app.screen_stack or not screen.is_attached:
            return None
        self._screens.move_to_end(train_ids)
        missed = self._away.pop(train_ids, None)
        if missed is not None:
            screen.cache_changed(missed)  # type: ignore[attr-defined]
        return screen

    def add(self, train_ids: tuple[str, ...], screen: Screen) -> None:
        """Keep `screen` (about to be pushed); let the oldest go beyond `keep`."""
        old = self._screens.pop(train_ids, None)
        if old is not None and old is not screen:
            self._let_go(train_ids, old)
        self.app.install_screen(screen, self._name(train_ids))
        self._screens[train_ids] = screen
        # The oldest off the screen stack go (one on it, under lineage say, stays until popped).
        for oldest in [ids for ids, kept in self._screens.items() if kept not in self.app.screen_stack]:
            if len(self._screens) <= self.keep:
                break
            self._let_go(oldest, self._screens.pop(oldest))

    def changed(self, changes: Changes) -> None:
        """Changes the app handed to the screens on the stack: those off it keep them for their
        return; one whose job disappeared is let go (it would only say so)."""
        for train_ids, screen in list(self._screens.items()):
            if screen in self.app.screen_stack:
                continue
            if changes.removed & set(train_ids):
                self._let_go(train_ids, self._screens.pop(train_ids))
                continue
            self._away.setdefault(train_ids, Changes()).merge(changes)

    def _let_go(self, train_ids: tuple[str, ...], screen: Screen) -> None:
        self._away.pop(train_ids, None)
        self.app.uninstall_screen(self._name(train_ids))  # (never one on the stack: Textual refuses)
        if screen.is_attached:
            screen.remove()  # its unmount releases its jobs' series

    @staticmethod
    def _name(train_ids: tuple[str, ...]) -> str:
        return "dashboard:" + "\n".join(train_ids)
