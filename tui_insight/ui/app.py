"""The app: screens, global keys, command palette, themes, keymap, and the bridge from the cache.

`run_app(cache, theme=..., reload_interval=...)` is what the CLI calls. The cache is started
here (`cache.start`) and stopped on exit. Its change notices arrive on the loading thread: they
are merged into one pending `Changes` and a single `CacheChanged` message is posted, so the UI
thread applies them in one go, never touching files itself.

How a new view plugs in (which module to create, which class to subclass, how it receives the
cache, the jobs and the changes, how its bindings reach `?` and the palette) is described in
`tui_insight/ui/__init__.py`; the registry is `tui_insight/ui/views.py`.
"""
from __future__ import annotations

import importlib.resources
import json
import logging
import os
import sys
import threading
import time
import weakref
from dataclasses import dataclass
from functools import partial
from pathlib import Path
from typing import Any, Callable, Iterable

from textual import events
from textual.app import SystemCommand
from textual.binding import Binding
from textual.screen import Screen
from textual.theme import Theme

from ..remembered_theme import PickedTheme, load_picked, save_picked, starting_theme, theme_path
from ..summary import gc_policy
from ..summary.queries import health
from ..summary.queries.ranks import STRAGGLER_FRACTION
from ..summary.store.cache import SummaryCache
from ..summary.store.job_view import Changes
from ..user_dirs import PrivateLogFile, config_dir, private_dir, state_dir
from ..workspace import Workspace
from . import _textual_compat
from .common.filters import compile_filter
from .common.text import markup
from .dialogs import ExportScreen
from .messages import CacheChanged, WorkspaceChanged
from .not_shown_log import NotShownLog
from .screens import dashboard_loaded, load_dashboard
from .screens.kept import KEEP, LINEAGE, LINEAGE_REST, Ahead, KeptScreens
from .screens.help import HelpScreen, collect_bindings, help_text
from .screens.jobs import JobsScreen
from .views.base import DataView

log = logging.getLogger(__name__)
def themes_dir() -> Path:
    """Where the theme files are: the installed `tui_insight.themes`, else the checkout's `themes/`.

    The top-level `themes/` folder is installed as `tui_insight.themes`. Run from a checkout
    (`python -m pytest`, `python -m tui_insight`), the checkout's `tui_insight` shadows the
    installed one and has no `themes` subpackage: then the folder beside it is used.
    """
    try:
        return Path(str(importlib.resources.files("tui_insight.themes")))
    except ModuleNotFoundError:
        return Path(__file__).resolve().parents[2] / "themes"


THEMES_DIR = themes_dir()
DEFAULT_THEME = "insight-dark"
KEYMAP_ENV = "TUI_INSIGHT_KEYMAP"


def load_themes(directory: Path = THEMES_DIR) -> list[Theme]:
    """The themes defined as JSON files (Textual `Theme` fields) in `directory`."""
    themes = []
    for path in sorted(directory.glob("*.json")):
        data = json.loads(path.read_text())
        variables = data.pop("variables", {})
        themes.append(Theme(**data, variables=variables))
    return themes


def keymap_path() -> Path:
    """`$TUI_INSIGHT_KEYMAP`, else `$XDG_CONFIG_HOME/tui-insight/keymap.toml` (~/.config by default)."""
    if os.environ.get(KEYMAP_ENV):
        return Path(os.environ[KEYMAP_ENV]).expanduser()
    return config_dir() / "keymap.toml"


def load_keymap(path: Path) -> tuple[dict[str, str], str]:
    """The keymap in `path` and "" (or {} and why it was ignored).

    The file maps binding ids (shown by `?`) to keys, e.g.:

        [keymap]
        "scalars.smooth_more" = "s,plus"
        "app.quit" = "ctrl+q"
    """
    if not path.exists():
        return {}, ""
    if sys.version_info >= (3, 11):
        import tomllib
    else:  # the same parser, as a package (a dependency on 3.10)
        import tomli as tomllib
    try:
        data = tomllib.loads(path.read_text())
    except (OSError, ValueError) as exc:
        return {}, f"keymap {path} ignored: {exc}"
    table = data.get("keymap", data)
    if not isinstance(table, dict) or not all(isinstance(v, str) for v in table.values()):
        return {}, f"keymap {path} ignored: expected binding-id = \"keys\" lines under [keymap]"
    return dict(table), ""


TAG_PLUGINS = {"scalars": "scalar", "histograms": "histogram", "tensors": "tensor", "images": "image"}
WORKSPACE_SAVE_SECONDS = 2.0  # a changed workspace is saved this long after its first change
CHANGES_EVERY = 0.25  # seconds: cache changes reach the screens at most 4 times a second
GC_IDLE_SECONDS = 1.0  # no key for this long: the collector's full pass may run (`tick_clock`)
PROGRESS_EVERY = 0.25  # seconds between updates of the progress line while the cache loads (idle: the clock's)
# The clock's tick (`tick_clock`): every CLOCK_EVERY seconds while anything moves (a key, the mouse,
# a change of the logs, a load), else when the first thing it moves can change (a "5s ago", a live
# marker, a stall), but never less often than CLOCK_AT_MOST: an idle app wakes for what it shows.
CLOCK_EVERY = 1.0
CLOCK_AT_MOST = 60.0
CLOCK_LATE = 0.01  # a tick waits this much past when a cell changes (Textual's timers fire a hair early)


@dataclass(frozen=True)
class StartAt:
    """Where the command line asked the app to open: `--job`/`--compare`, `--view`, `--tags`."""

    jobs: tuple[str, ...] = ()
    view: str = "scalars"
    tags: str = ""  # a filter (regex or text) for the view's tag list


def train_id_of(text: str, labelled: bool = False) -> str:
    """A job as the user typed it (`lenet`, `./lenet/`, `.`) in the cache's form (`./lenet`, `./`).
    `labelled`: several LOGDIRs are open, and a job is named by its source (`node1:lenet` is
    `node1:./lenet`)."""
    if labelled and ":" in text:
        label, _, rest = text.partition(":")
        return f"{label}:{train_id_of(rest)}"
    text = text.strip().replace("\\", "/").rstrip("/")
    if text in ("", "."):
        return "./"
    return text if text.startswith("./") else "./" + text.lstrip("/")


class InsightApp(_textual_compat.ClosesKeptScreens):
    """The terminal dashboard over one `SummaryCache`."""

    TITLE = "tui-insight"
    CSS_PATH = str(THEMES_DIR / "app.tcss")
    HELP_GROUP = "Everywhere"
    BINDINGS = [
        Binding("question_mark", "help", "Help", id="app.help"),
        Binding("q", "quit", "Quit", id="app.quit"),
        Binding("escape", "back", "Back", show=False, id="app.back"),
        Binding("ctrl+p", "command_palette", "Commands", show=False, priority=True, id="app.palette"),
        Binding("e", "export", "Export CSV", id="app.export"),
        Binding("l", "lineage", "Lineage", id="app.lineage"),
        Binding("tab", "focus_next", "Next pane", show=False, id="app.focus_next"),
        Binding("shift+tab", "focus_previous", "Previous pane", show=False, id="app.focus_previous"),
    ]

    def get_driver_class(self) -> type:
        """The platform's driver; in a terminal on Linux or macOS, one whose input thread sleeps
        while no key comes (`_textual_compat.sleeping_input`)."""
        return _textual_compat.sleeping_input(super().get_driver_class())

    def __init__(self, cache: SummaryCache, *, theme: str | None = None, reload_interval: float = 3.0,
                 clock: Callable[[], float] = time.time, start_loading: bool = True,
                 keymap: dict[str, str] | None = None, notices: Iterable[str] = (),
                 logdir_label: str | None = None, graph_prefetch_delay: float | None = 0.5,
                 workspace: Workspace | None = None, start_at: StartAt | None = None, bell: bool = False,
                 bell_stalled: bool = False, theme_memory: Path | None = None, config_theme: str | None = None,
                 keep_dashboards: int = KEEP):
        super().__init__()
        self.cache = cache
        self.straggler_fraction = STRAGGLER_FRACTION  # --straggler: how far behind its group's median a rank lags
        # --bell: a NaN or diverging badge appearing also rings the terminal bell; --bell-stalled: stalled too
        self.bell_on_badges = frozenset((*health.RINGING, *(("stalled",) if bell_stalled else ()))
                                        if bell or bell_stalled else ())
        # What the views remember; in memory only unless the caller opened the user's file.
        self.workspace = workspace if workspace is not None else Workspace(cache.logdir, None)
        self.start_at = start_at  # consumed once the jobs it names are found (see _open_start)
        self.reload_interval = reload_interval
        self.clock = clock  # tests inject a fixed clock so "12s ago" does not move
        self.logdir_label = logdir_label or cache.logdir  # what the title calls LOGDIR
        self.start_loading = start_loading
        # Seconds after a dashboard is first shown before its graph starts building in the
        # background, then its other views are built hidden (None: each when shown). See
        # DashboardScreen.prefetch_graph and build_views_ahead.
        self.graph_prefetch_delay = graph_prefetch_delay
        self.requested_theme = theme
        # A theme picked once the app runs is remembered here for the next start (None: not kept),
        # with config.toml's theme of the moment (`remembered_theme.starting_theme`).
        self.theme_memory = theme_memory
        self.config_theme = config_theme
        self._theme_started = False  # the start's theme is applied: later changes are picks
        self.initial_keymap = keymap or {}
        self.startup_notices = list(notices)  # e.g. a keymap file that could not be read
        # The last few dashboards, shown again when reopened (0: each is built when opened).
        self.kept_dashboards = KeptScreens(self, keep_dashboards)
        self.marked: list[str] = []  # jobs marked for comparison, in marking order (their colours)
        self.quitting = False  # `q` was pressed: keys behind it are dropped (`on_event`)
        self._pending = Changes()
        self._pending_lock = threading.Lock()
        self._notice_posted = False
        self._last_key = 0.0  # time.monotonic() of the last key (the collector waits for a pause)
        self._changes_delivered = -CHANGES_EVERY  # time.monotonic() of the last hand-over
        self._changes_timer: Any = None  # the timer that hands over what waits
        self._progress_timer: Any = None  # runs while the cache loads or changes (`_progress_tick`)
        self._clock_timer: Any = None  # the clock's next tick (`tick_clock`), due at `_clock_at` (monotonic)
        self._clock_at = 0.0
        self._stirred = True  # something moved since the clock's last tick (`_stir`)
        self._save_timer: Any = None  # saves the workspace, once it changed (`_save_soon`)
        # Changes for screens not mounted yet (`_hand_over`); a screen popped first takes its own along.
        self._held_changes: weakref.WeakKeyDictionary[Screen, Changes] = weakref.WeakKeyDictionary()
        self.changes_delivered = 0  # how many times the screens were handed changes
        self.not_shown_log = NotShownLog()  # what jobs hold that no view shows, logged once a job
        self._unsubscribe: Callable[[], None] | None = None
        for theme_obj in load_themes():
            self.register_theme(theme_obj)
        self.theme = DEFAULT_THEME
        # No animations unless asked for (TEXTUAL_ANIMATIONS=full): over SSH every frame of the
        # tab underline's slide is a screen update on the wire, and on the UI thread it takes the
        # GIL from the worker building a graph (~20 frames when a view opens).
        if "TEXTUAL_ANIMATIONS" not in os.environ:
            self.animation_level = "none"

    # -- start and stop ---------------------------------------------------------------------

    def get_default_screen(self) -> Screen:
        return JobsScreen()

    async def on_event(self, event: events.Event) -> None:
        # Textual runs a screen's key bindings only once the key has bubbled back up from the
        # focused widget, after the keys behind it were already forwarded: `/loss` arriving in
        # one burst (a paste, fast typing over SSH) would send `loss` to the list, where `l`
        # opens lineage and `q` quits. So while a widget that takes no text has the keyboard,
        # bindings are resolved here, in arrival order. A text box keeps Textual's own path, so
        # its `enter` comes after the characters typed before it.
        if isinstance(event, (events.InputEvent, events.Resize)):
            self._stir()
        if isinstance(event, events.Key):
            self._last_key = time.monotonic()
            self.kept_dashboards.key_came()  # a screen being built ahead waits
        if isinstance(event, events.Key) and (self.quitting or not self.screen_stack):
            # `qe` in one burst: a screen opened while the app is taken down would fail to build;
            # keys still queued once its screens are gone have nothing to go to.
            return
        if isinstance(event, events.Key) and not event.is_forwarded:
            _textual_compat.paint_once_settled(self)  # a Textual internal: see there
        if (isinstance(event, events.Key) and not event.is_forwarded and self.focused is not None
                and self.screen.maximized is None
                and not self.focused.check_consume_key("a", "a")
                and await self._bound_now(event.key)):
            return
        await super().on_event(event)

    async def _bound_now(self, key: str) -> bool:
        return await _textual_compat.resolve_binding_now(self, key)  # a Textual internal: see there

    def on_mount(self) -> None:
        if self.requested_theme:
            self.switch_theme(self.requested_theme)
        self._theme_started = True
        if self.initial_keymap:
            self.set_keymap(self.initial_keymap)
        for notice in self.startup_notices:
            self.notify(markup(notice), severity="warning", timeout=8)
        self._unsubscribe = self.cache.subscribe(self._on_cache_notice)
        if self.start_loading:
            self.cache.start(self.reload_interval)
            # A cold sweep's loading processes start once the first frame is painted: started
            # sooner, they take the cores from the imports and the layout that frame waits for.
            self.call_after_refresh(self.cache.start_processes)
        self._progress_timer = self.set_interval(PROGRESS_EVERY, self._progress_tick)
        self._arm_clock(CLOCK_EVERY)
        gc_policy.defer_full()  # full passes at idle moments (`tick_clock`)
        self.workspace.on_dirty = self._workspace_dirty
        if self.workspace.dirty:
            self._save_soon()
        self._open_start()

    def on_unmount(self) -> None:
        gc_policy.undefer_full()
        if self._unsubscribe:
            self._unsubscribe()
        self.cache.stop()
        self._save_workspace()

    def _workspace_dirty(self) -> None:
        self.post_message(WorkspaceChanged())  # from the thread that remembered

    def on_workspace_changed(self, _message: WorkspaceChanged) -> None:
        self._save_soon()

    def _save_soon(self) -> None:
        """The workspace changed: it is saved WORKSPACE_SAVE_SECONDS later, with what else changes
        meanwhile."""
        if self._save_timer is None:
            self._save_timer = self.set_timer(WORKSPACE_SAVE_SECONDS, self._save_due, name="workspace-save")

    def _save_due(self) -> None:
        self._save_timer = None
        self._save_workspace()

    def _save_workspace(self) -> None:
        if not self.workspace.dirty:
            return
        problem = self.workspace.save()
        if problem and not getattr(self, "_workspace_warned", False):
            self._workspace_warned = True  # say it once, not at every save
            self.notify(markup(problem), severity="warning", timeout=8)

    # -- where the command line asked to start ------------------------------------------------

    def _open_start(self) -> None:
        """Open what `start_at` names once its jobs are found; say so and stay on the job list
        when a job, or every tag the `--tags` filter names, does not exist."""
        start = self.start_at
        if start is None:
            return
        jobs = self.cache.jobs
        discovered = self.cache.progress.reloads > 0 or not self.start_loading
        missing = [tid for tid in start.jobs if tid not in jobs]
        if missing:
            if discovered:
                self.start_at = None
                known = ", ".join(list(jobs)[:5]) + (" ..." if len(jobs) > 5 else "")
                self.notify(markup(f"No job {', '.join(missing)} in {self.logdir_label}"
                                   + (f" (jobs: {known})" if jobs else "")), severity="error", timeout=10)
            return
        if start.view == "lineage":
            self.start_at = None
            self.action_lineage()
            return
        plugin = TAG_PLUGINS.get(start.view) if start.tags else None
        if plugin is not None:
            # The tags are known once the jobs are read: check them before opening, so a filter
            # that matches nothing leaves the user on the job list with a sentence, not a flash.
            if not all(jobs[tid].ready for tid in start.jobs):
                self.cache.hold("start_at", start.jobs)  # read first, their series kept until checked
                return
            self.cache.release("start_at")
            match = compile_filter(start.tags)
            if not any(match(tag) for tid in start.jobs for tag in jobs[tid].tag_names(plugin)):
                self.start_at = None
                self.notify(markup(f"No {plugin} tag matches {start.tags!r} in {', '.join(start.jobs)}"),
                            severity="error", timeout=10)
                return
        self.start_at = None
        self.push_screen(load_dashboard().DashboardScreen(start.jobs, initial=start.view, tag_filter=start.tags))

    def switch_theme(self, name: str) -> bool:
        if name not in self.available_themes:
            known = ", ".join(sorted(self.available_themes))
            self.notify(markup(f"Unknown theme {name!r}; themes: {known}"), severity="error", timeout=8)
            return False
        self.theme = name
        return True

    def watch_theme(self, name: str) -> None:
        """A theme picked in the palette (ours or Textual's picker) is remembered."""
        if not self._theme_started or self.theme_memory is None:
            return
        problem = save_picked(self.theme_memory, PickedTheme(name, self.config_theme))
        if problem:
            self.notify(markup(problem), severity="warning", timeout=8)

    # -- the cache bridge -------------------------------------------------------------------

    def _on_cache_notice(self, changes: Changes) -> None:
        """On the loading thread: remember what changed; post one message until it is handled.
        A flag, not `Message.can_replace`: Textual folds only messages next to each other in
        the queue, and keys and loader results come between, so notices would still pile up."""
        with self._pending_lock:
            self._pending.merge(changes)
            if self._notice_posted:
                return
            self._notice_posted = True
        self.post_message(CacheChanged())

    def on_cache_changed(self, message: CacheChanged) -> None:
        """Hand the pending changes to the screens at most every `CHANGES_EVERY` seconds: a change
        after a quiet spell goes at once, the ones that follow wait for the timer and go together
        (a run appending 100 steps/s would otherwise redraw its charts ~10 times a second). The
        pending changes stay pending until the timer hands them over, so the last one is never lost."""
        self._progress_faster()
        wait = self._changes_delivered + CHANGES_EVERY - time.monotonic()
        if wait > 0:
            if self._changes_timer is None:
                self._changes_timer = self.set_timer(wait, self._deliver_changes, name="cache-changes")
            return
        self._deliver_changes()

    def _deliver_changes(self) -> None:
        self._changes_timer = None
        if not self.is_running:
            return  # the app is shutting down: its screens are being taken apart
        with self._pending_lock:
            changes, self._pending = self._pending, Changes()
            self._notice_posted = False
        if changes.updated or changes.lineage or changes.graphs:
            # A hand-over of jobs found, none read (a cold start's first), does not hold the next:
            # the first jobs read show as soon as they are (up to CHANGES_EVERY sooner).
            self._changes_delivered = time.monotonic()
        self.changes_delivered += 1
        self._stir()
        if changes.removed:
            self.marked[:] = [tid for tid in self.marked if tid not in changes.removed]
        self.not_shown_log.record(changes, self.cache.jobs)
        if self.start_at is not None:
            self._open_start()
        for screen in self.screen_stack:
            self._hand_over(screen, changes)
        self.kept_dashboards.changed(changes)

    def _hand_over(self, screen: Screen, changes: Changes) -> None:
        """`screen.cache_changed(changes)`, once the screen is mounted (composed, its `on_mount`
        run): the one rule for every screen. A screen pushed a moment ago (a deep link opens its
        dashboard while handing over the very changes that found its job) keeps what comes
        before then, merged, and is handed it right after its own mount."""
        if getattr(screen, "cache_changed", None) is None:
            return
        if not screen.is_mounted:
            held = self._held_changes.get(screen)
            if held is None:
                self._held_changes[screen] = held = Changes()
                screen.call_later(self._hand_over_held, screen)  # runs after the screen's mount
            held.merge(changes)
            return
        try:
            screen.cache_changed(changes)  # type: ignore[attr-defined]
        except Exception as exc:  # a broken view must not stop the others
            log.exception("%s failed to apply a cache change", type(screen).__name__)
            self.notify(markup(f"{type(screen).__name__}: {exc}"), severity="error")

    def _hand_over_held(self, screen: Screen) -> None:
        held = self._held_changes.pop(screen, None)
        if held is not None and screen.is_attached:
            self._hand_over(screen, held)

    def _progress_tick(self) -> None:
        """The progress line (and what else the job list keeps up with the load) made current.
        Once the cache has nothing to read, the clock's tick does it, and this timer waits for
        the next load or change (4 wakeups a second of an idle app saved)."""
        for screen in self.screen_stack:
            if isinstance(screen, JobsScreen):
                screen.update_progress()
        progress = self.cache.progress
        if self._progress_timer is not None and progress.reloads and not progress.loading:
            self._progress_timer.pause()

    def _progress_faster(self) -> None:
        if self._progress_timer is not None:
            self._progress_timer.resume()

    def _stir(self) -> None:
        """Something moved (a key, the mouse, a change of the logs): the clock ticks within
        CLOCK_EVERY, and every CLOCK_EVERY until a tick finds that nothing moved since the last."""
        self._stirred = True
        if self._clock_at - time.monotonic() > CLOCK_EVERY:
            self._arm_clock(CLOCK_EVERY)

    def _arm_clock(self, delay: float) -> None:
        if self._clock_timer is not None:
            self._clock_timer.stop()
        self._clock_at = time.monotonic() + delay
        self._clock_timer = self.set_timer(delay, self._clock_due, name="clock")

    def _clock_due(self) -> None:
        self._clock_timer = None
        self.tick_clock()

    def _clock_wait(self) -> float:
        """Seconds to the clock's next tick, once nothing moved (see CLOCK_EVERY)."""
        progress = self.cache.progress
        if progress.loading or not progress.reloads or not self.cache.source.is_local:
            return CLOCK_EVERY  # (a remote source's status, "reconnecting…", changes with no notice)
        due = [screen.clock_due() for screen in self.screen_stack if isinstance(screen, JobsScreen)]
        soonest = min((t for t in due if t is not None), default=None)
        if soonest is None:
            return CLOCK_AT_MOST
        return min(CLOCK_AT_MOST, max(CLOCK_EVERY, soonest - self.clock() + CLOCK_LATE))

    def tick_clock(self) -> None:
        """The job list's relative times ("12s ago") move on, live jobs may stall; the progress
        line is made current, or faster again when the cache loads. Then the next tick is set
        (see CLOCK_EVERY)."""
        stirred, self._stirred = self._stirred, False
        if self.cache.progress.loading or not self.cache.progress.reloads:
            self._progress_faster()
        else:
            self._progress_tick()
        stack = self.screen_stack  # empty while the app shuts down (`self.screen` raises then)
        if stack and isinstance(stack[-1], JobsScreen):
            stack[-1].tick()
        for screen in stack:
            if isinstance(screen, JobsScreen):
                screen.watch_the_clock()
        # The collector's full passes wait for a pause in the keys (`gc_policy.defer_full`, set
        # at mount): one at allocation took 50-150 ms out of a key's paint.
        gc_policy.collect_full_when_due(idle=time.monotonic() - self._last_key >= GC_IDLE_SECONDS)
        if stack and self.is_running:  # (not while the app shuts down)
            self._arm_clock(CLOCK_EVERY if stirred else self._clock_wait())

    # -- navigation -------------------------------------------------------------------------

    def open_jobs(self, train_ids: tuple[str, ...], view_id: str | None = None) -> None:
        """The dashboard of `train_ids`: the one kept from their last opening if there is one
        (`KeptScreens`: shown again as it was left, with what changed since), else a new one."""
        train_ids = tuple(train_ids)
        kept = self.kept_dashboards.get(train_ids)
        if kept is not None:
            def show() -> None:
                if view_id is not None:
                    kept.show_view(view_id)  # type: ignore[attr-defined]
                self.push_screen(kept)

            self.kept_dashboards.when_mounted(kept, show, lambda: self.open_jobs(train_ids, view_id))
            return
        screen = load_dashboard().DashboardScreen(train_ids, initial=view_id)
        self.kept_dashboards.add(train_ids, screen)
        self.push_screen(screen)

    def idle_seconds(self) -> float:
        """Seconds since the last key (work done ahead waits for a pause in the keys)."""
        return time.monotonic() - self._last_key

    @property
    def keys_seen(self) -> bool:
        """Whether a key came since the start (an app left alone does no work ahead)."""
        return self._last_key > 0.0

    def build_ahead(self, train_ids: tuple[str, ...]) -> None:
        """Build the dashboard of `train_ids` off screen, so that opening it only shows it
        (`KeptScreens.build_ahead`); the job list asks once the cursor rests on a job."""
        train_ids = tuple(train_ids)
        self.kept_dashboards.build_ahead(train_ids, lambda: load_dashboard().DashboardScreen(train_ids))

    async def action_back(self) -> None:  # async as Textual's own
        if len(self.screen_stack) > 1:
            self.pop_screen()

    def action_lineage(self) -> None:
        if isinstance(self.screen, load_dashboard().ViewScreen) and self.screen.spec.view_id == "lineage":
            self.pop_screen()
            return
        kept = self.kept_dashboards.get(LINEAGE)  # kept from the last visit, or built ahead
        if kept is not None:
            self.kept_dashboards.when_mounted(kept, partial(self.push_screen, kept), self.action_lineage)
            return
        screen = self.lineage_screen()
        self.kept_dashboards.add(LINEAGE, screen)
        self.push_screen(screen)

    def lineage_screen(self) -> Screen:
        """A new lineage screen (every job's), to show or to build ahead."""
        return load_dashboard().ViewScreen("lineage")

    def lineage_ahead(self, rest: float = LINEAGE_REST) -> list[Ahead]:
        """The lineage screen, to build ahead once the keys rested `rest` seconds
        (`KeptScreens.want_ahead`): wanted when a job has lineage, a key came (an app left alone
        stays idle) and the dashboard's module is imported (not waited for)."""
        if not self.keys_seen or not dashboard_loaded() or LINEAGE in self.kept_dashboards:
            return []
        if not any(job.lineage is not None for job in list(self.cache.jobs.values())):
            return []
        return [Ahead("lineage", LINEAGE, self.lineage_screen, rest)]

    def extra_binding_nodes(self, screen: Screen) -> list[Any]:
        """Nodes whose bindings count even when they are not focused: the active view and its parts."""
        view = getattr(screen, "active_view", None)
        if view is None and isinstance(screen, load_dashboard().ViewScreen):
            view = screen.query_one(DataView)
        if view is None:
            return []
        return [view, *view.query("*")]

    def action_help(self) -> None:
        screen = self.screen
        if isinstance(screen, HelpScreen):
            return
        nodes = self.extra_binding_nodes(screen)
        groups = collect_bindings(screen, nodes)
        title = getattr(screen, "HELP_GROUP", type(screen).__name__)
        # The screen's note (made when asked: `help_note`), else the active view's (nodes[0] when a view is shown).
        note_of = getattr(screen, "help_note", None)
        note = note_of() if callable(note_of) else (
            getattr(screen, "HELP_NOTE", "") or (getattr(nodes[0], "HELP_NOTE", "") if nodes else ""))
        self.push_screen(HelpScreen(help_text(groups, self, note), title))

    async def action_quit(self) -> None:
        self.quitting = True
        self.exit()

    def action_export(self) -> None:
        scope_of = getattr(self.screen, "export_scope", None)
        if scope_of is None:
            return
        scope, what = scope_of()
        self.push_screen(ExportScreen(self.cache, scope, what))

    # -- command palette --------------------------------------------------------------------

    def get_system_commands(self, screen: Screen) -> Iterable[SystemCommand]:
        yield from super().get_system_commands(screen)
        groups = collect_bindings(screen, self.extra_binding_nodes(screen))
        for group, items in groups.items():
            for key, binding, node in items:
                if binding.action in {"command_palette", "quit"}:
                    continue
                shown = self.get_key_display(binding.with_key(key))
                yield SystemCommand(f"{group}: {binding.description or binding.action}",
                                    f"key {shown} · id {binding.id}",
                                    partial(self._run_binding, binding.action, node))
        yield SystemCommand("Compare marked jobs", f"{len(self.marked)} marked", self._compare_marked)
        for name in sorted(self.available_themes):
            yield SystemCommand(f"Theme: {name}", "switch the colour theme", partial(self.switch_theme, name),
                                discover=name.startswith("insight"))
        for tid in self.cache.jobs:
            yield SystemCommand(f"Open job {tid}", "open its dashboard", partial(self.open_jobs, (tid,)),
                                discover=False)

    async def _run_binding(self, action: str, node: Any) -> None:
        await self.run_action(action, node)

    def _compare_marked(self) -> None:
        marked = [tid for tid in self.marked if tid in self.cache.jobs]
        if marked:
            self.open_jobs(tuple(marked))
        else:
            self.notify("Mark jobs with space in the job list first", severity="warning")


def log_to_state_dir() -> str:
    """Send warnings and the exceptions the app catches to `$XDG_STATE_HOME/tui-insight/tui-insight.log`
    (a terminal UI has no stderr to show them on), readable by the user alone. "" or why not."""
    root = logging.getLogger()
    if any(isinstance(h, PrivateLogFile) for h in root.handlers):
        return ""
    path = state_dir() / "tui-insight.log"
    try:
        # A name that is not UTF-8 is logged with its bytes as \xNN (never a logging error).
        handler = PrivateLogFile(private_dir(path.parent) / path.name, maxBytes=1 << 20, backupCount=1, encoding="utf-8",
                                 errors="backslashreplace")
    except OSError as exc:
        return f"cannot write the log {path}: {exc.strerror or exc}"
    handler.setFormatter(logging.Formatter("%(asctime)s %(levelname)s %(name)s: %(message)s"))
    handler.setLevel(logging.WARNING)
    root.addHandler(handler)
    return ""


def run_app(cache: SummaryCache, *, theme: str | None = None, reload_interval: float = 3.0,
            fresh: bool = False, start_at: StartAt | None = None, remember: bool = True, bell: bool = False,
            bell_stalled: bool = False, config_theme: str | None = None, config_keymap: dict[str, str] | None = None,
            config_notices: Iterable[str] = (), straggler: float | None = None) -> int:
    """Run the UI until the user quits; starts and stops the cache's loading thread (`make_app`).
    `straggler`: --straggler (None: the default fraction)."""
    app = make_app(cache, theme=theme, reload_interval=reload_interval, fresh=fresh, start_at=start_at,
                   remember=remember, bell=bell, bell_stalled=bell_stalled, config_theme=config_theme,
                   config_keymap=config_keymap, config_notices=config_notices)
    if straggler is not None:
        app.straggler_fraction = straggler
    try:
        app.run()
    finally:
        cache.stop()
    return app.return_code or 0


def make_app(cache: SummaryCache, *, theme: str | None = None, reload_interval: float = 3.0,
             fresh: bool = False, start_at: StartAt | None = None, remember: bool = True, bell: bool = False,
             bell_stalled: bool = False, config_theme: str | None = None, config_keymap: dict[str, str] | None = None,
             config_notices: Iterable[str] = ()) -> InsightApp:
    """The app over `cache` with the user's files: key map, remembered theme, workspace, log.

    The workspace (what each view was set to) is read from, and saved to, the user's state
    directory (`remember=False`: kept in memory only); `fresh` starts clean. `theme` is
    `--theme`; the theme last picked in the palette, or else config.toml's, is used without it.
    The key map is config.toml's `[keymap]` with keymap.toml's entries over it.
    """
    keymap, problem = load_keymap(keymap_path())
    keymap = {**(config_keymap or {}), **keymap}
    memory = theme_path()
    picked, theme_problem = load_picked(memory)
    log_problem = log_to_state_dir() if remember else ""
    if remember:
        workspace, workspace_problem = Workspace.open(cache.logdir, fresh=fresh)
    else:
        workspace, workspace_problem = Workspace(cache.logdir, None), ""
    cache_problem = cache.disk.refused() if cache.disk is not None else ""
    notices = [*config_notices,
               *(text for text in (problem, theme_problem, workspace_problem, log_problem, cache_problem) if text)]
    app = InsightApp(cache, theme=starting_theme(theme, config_theme, picked), reload_interval=reload_interval,
                     keymap=keymap, notices=notices, workspace=workspace, start_at=start_at, bell=bell,
                     bell_stalled=bell_stalled, theme_memory=memory, config_theme=config_theme)
    return app
