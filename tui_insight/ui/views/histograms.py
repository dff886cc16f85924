"""The histogram view: tag list, a grid of ridgelines (one per tag and job), a step/bucket cursor.

Every chart shows all kept steps of a tag re-binned onto the tag's shared buckets (§4.5).
`d` shows each tag's distribution instead (TensorBoard's percentile bands over steps, from the
same histograms: `widgets/bands.py`); a chart's cursor keeps its step across the switch.
What the user chose (tags, offset/overlay, bands, step axis, full screen, the active chart and each
chart's cursor) is one `HistogramsState`; `watch_state` redraws from it. Decoding up to 50
payloads per tag and re-binning them goes through the view's loader, the focused and
on-screen charts first. A chart keeps what it shows until the new data of a changed tag
arrives, and its cursor stays on the same step, so live updates do not move the user.
"""
from __future__ import annotations

from functools import partial
from typing import Any

from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.reactive import reactive
from textual.widget import AwaitMount, Widget
from textual.widgets import Static

from ...summary.formats.values import PayloadError
from ...summary.queries.distributions import Distribution, distribution
from ...summary.queries.histograms import Ridgeline, histogram_steps, rebin
from ...summary.store.job_view import Changes
from ..common.focus import focus_now
from ..common.text import literal, shown
from ..loader import Loaded, LoadProblem
from ..presenters import histograms as present
from ..state.histograms import ChartKey, HistogramsState, RidgeCursor
from ..widgets.bands import HINT as BANDS_HINT
from ..widgets.bands import BandsChart, bands_bindings
from ..widgets.ridgeline import TRUE_COLOUR_HINT, RidgelineChart, limited_colours, ridgeline_bindings
from ..widgets.tag_picker import TagList
from ..widgets.view_grid import ViewGrid
from .base import ViewSpec
from .tag_grid import TagGridView



def load_ridgeline(cache, train_id: str, tag: str) -> tuple[Ridgeline, Distribution]:
    """The ridgeline and the distribution of one tag of one job, from one decode of its steps
    (runs in the loader's thread); raises `LoadProblem`."""
    view = cache.job(train_id)
    if view is None:
        raise LoadProblem(f"{shown(train_id)} is gone")
    try:
        steps = histogram_steps(cache, view, tag)
    except PayloadError as exc:
        raise LoadProblem(f"cannot read {shown(tag)}: {exc}") from None
    if not steps:
        raise LoadProblem("no kept steps")
    try:
        return rebin(steps), distribution(steps)
    except (ValueError, FloatingPointError) as exc:
        raise LoadProblem(f"cannot re-bin {shown(tag)}: {exc}") from None


def _cursor_in_view_state(chart: Widget, key: ChartKey, cursor: RidgeCursor) -> bool:
    """Put a chart's cursor in its histograms view's state; False outside one (the chart keeps it)."""
    view = next((a for a in chart.ancestors if isinstance(a, HistogramsView)), None)
    if view is None:
        return False
    view.state = view.state.with_cursor(key, cursor)
    return True


class HistogramChart(RidgelineChart):
    """One chart of the view: its cursor lives in the view's state."""

    HELP_GROUP = "Histograms"
    BINDINGS = ridgeline_bindings("histograms")

    def __init__(self, key: ChartKey, title: str, colour: str | None):
        super().__init__(f"{key[0]}\n{key[1]}", title, colour=colour)
        self.chart_key = key

    def cursor_to(self, cursor: RidgeCursor) -> None:
        if not _cursor_in_view_state(self, self.chart_key, cursor):
            super().cursor_to(cursor)


class HistogramBands(BandsChart):
    """One chart of the view in distributions mode: its cursor lives in the view's state."""

    HELP_GROUP = "Histogram distributions"
    BINDINGS = bands_bindings("histograms")

    def __init__(self, key: ChartKey, title: str, colour: str | None):
        super().__init__(title, colour=colour)
        self.chart_key = key

    def cursor_to(self, cursor: RidgeCursor) -> None:
        if not _cursor_in_view_state(self, self.chart_key, cursor):
            super().cursor_to(cursor)


Chart = HistogramChart | HistogramBands


class HistogramGrid(ViewGrid):
    """The scrollable grid of charts; tells the view when its size changes."""

    DEFAULT_CSS = """
    HistogramGrid { layout: grid; grid-size: 1; grid-rows: 16; overflow-y: auto; height: 1fr; }
    HistogramGrid > HistogramChart, HistogramGrid > HistogramBands { height: 100%; }
    """


class HistogramsView(TagGridView):
    STATE = HistogramsState
    PICKER = ("histogram", "histograms")
    GRID = HistogramGrid
    SPEC = ViewSpec("histograms", "Histograms", "2", ("histogram",), "job")
    HELP_GROUP = "Histograms"
    DEFAULT_CSS = """
    HistogramsView { layout: horizontal; }
    HistogramsView.-fullscreen #histogram-tags { display: none; }
    HistogramsView #histogram-main { width: 1fr; height: 1fr; }
    HistogramsView #histogram-status { height: 1; padding: 0 1; background: $panel; text-wrap: nowrap; text-overflow: ellipsis; }
    HistogramsView #histogram-empty { height: 1fr; padding: 1 2; color: $text-muted; display: none; }
    HistogramsView #histogram-readout { height: auto; max-height: 3; padding: 0 1; background: $panel; }
    """
    BINDINGS = [
        Binding("slash", "filter_tags", "Filter tags", id="histograms.filter"),
        Binding("a", "select_all", "Select all/none", id="histograms.select_all"),
        Binding("o", "mode", "Offset/overlay", id="histograms.mode"),
        Binding("d", "bands", "Distributions", id="histograms.bands"),
        Binding("x", "cycle_axis", "Step axis", id="histograms.step_axis"),
        Binding("f", "fullscreen", "Full screen", id="histograms.fullscreen"),
        Binding("escape", "leave", "Hide cursor / leave full screen", show=False, id="histograms.leave"),
    ]

    state: reactive[HistogramsState] = reactive(HistogramsState, init=False)

    def __init__(self, cache, train_ids, **kwargs: Any):
        super().__init__(cache, train_ids, **kwargs)
        self._charts: dict[ChartKey, Chart] = {}  # the mounted charts, in grid order
        self._versions: dict[ChartKey, int] = {}  # bumped when the cache says a tag changed
        self._ridges: dict[ChartKey, tuple[int, Loaded]] = {}  # what each chart's last load gave (ridge, bands)
        self._asked: dict[ChartKey, int] = {}  # the version last asked of the loader

    # -- building -----------------------------------------------------------------------------

    def compose(self) -> ComposeResult:
        # The charts on screen are composed with the view, so its first frame has them (mounted
        # in `on_mount`, they came one layout and paint later); `_redraw` keeps them and the
        # others are mounted after that frame (`first_keys`, `grow_later`).
        state = self._settled(self.state.with_tags(self.state.tags.with_tags(self._read_tags())))
        self.set_reactive(HistogramsView.state, state)
        self._charts = {key: self._make_chart(key, state) for key in self.first_keys(self.chart_keys(state))}
        yield self.picker
        with Vertical(id="histogram-main"):
            yield Static("", id="histogram-status")
            yield Static("", id="histogram-empty")
            yield HistogramGrid(*self._charts.values(), id="histogram-grid")
            yield Static("", id="histogram-readout")

    async def on_mount(self) -> None:
        state = self.state
        mounting = self._redraw(None, state)
        self.remember(state)
        for mount in mounting:
            await mount  # the charts are there before the view takes the keys
        self.ready_for_keys()  # the picker and the charts are there: the view takes the keys
        self.grow_later()

    def first_focus(self) -> Widget | None:
        """The active chart (or the first), else the tag list; None while nothing is mounted."""
        wanted = self.state.target()
        target = self._charts.get(wanted) if wanted is not None else None
        for chart in ([target] if target else []) + list(self._charts.values()):
            if chart.is_mounted and chart.display:
                return chart
        listing = self.picker.query(TagList)
        return listing.first() if listing else None

    # -- state ----------------------------------------------------------------------------------

    def _read_tags(self) -> list[str]:
        return sorted({tag for job in self.jobs for tag in job.tag_names("histogram")})

    def chart_keys(self, state: HistogramsState | None = None) -> tuple[ChartKey, ...]:
        """The charts to show: every visible tag, for each job that has it."""
        jobs = {job.train_id: job for job in self.jobs}
        return (state or self.state).chart_keys(
            list(jobs), lambda tid, tag: jobs[tid].series("histogram", tag) is not None)

    def _settled(self, state: HistogramsState) -> HistogramsState:
        return state.settled(self.chart_keys(state))

    def watch_state(self, old: HistogramsState, new: HistogramsState) -> None:
        self._redraw(old, new)
        self.remember(new)

    def _redraw(self, old: HistogramsState | None, new: HistogramsState) -> list[AwaitMount]:
        """Draw `new`: the tag list, the charts (mounted, styled, cursors, data), the lines."""
        if old is None or old.tags != new.tags:
            self.picker.show(new.tags)
        mounting = self._sync_charts(new)
        self.set_class(new.fullscreen is not None, "-fullscreen")
        for key, chart in self._charts.items():
            job = self.cache.job(key[0])
            origin = float(job.first_wall_time or 0.0) if job is not None else 0.0
            if isinstance(chart, HistogramBands):
                chart.set_style(new.axis, origin)
            else:
                chart.set_style(new.mode, new.axis, origin)
            result = self._ridges.get(key)
            if result is not None:
                _hand(chart, (key, result[0]), result[1])
            chart.set_cursor(new.cursor(key))
        self.layout_grid()
        self._request_loads(new)
        self._update_status()
        self._update_readout()
        if old is not None and old.fullscreen != new.fullscreen:
            wanted = new.target()
            target = self._charts.get(wanted) if wanted is not None else None
            if target is not None:
                focus_now(target)
        return mounting

    # -- charts ---------------------------------------------------------------------------------

    def _chart_colour(self, train_id: str) -> str | None:
        return None if len(self.train_ids) == 1 else self.job_colour(train_id)  # None: the theme's primary

    def _make_chart(self, key: ChartKey, state: HistogramsState) -> Chart:
        kind = HistogramBands if state.bands else HistogramChart
        return kind(key, present.chart_title(key, len(self.train_ids) > 1), self._chart_colour(key[0]))

    def _sync_charts(self, state: HistogramsState) -> list[AwaitMount]:
        """Mount the charts `state` asks for, keeping those that stay (in order)."""
        keys = self.chart_keys(state)
        wanted = self.limited(keys) if self._charts else self.first_keys(keys)
        kind = HistogramBands if state.bands else HistogramChart
        if list(self._charts) == list(wanted) and all(isinstance(c, kind) for c in self._charts.values()):
            return []
        had_focus = any(chart.has_focus for chart in self._charts.values())
        self._charts, mounts = self.sync_grid(wanted, self._charts, lambda key: self._make_chart(key, state),
                                              keep=lambda chart: isinstance(chart, kind))
        active = state.target()
        target = self._charts.get(active) if active is not None else None
        if had_focus:  # the focused chart may be gone: the active one, else the tag list, has the keys
            self.call_after_refresh(focus_now, target) if target is not None else self.picker.focus_list()
        self.grow_later()
        return mounts

    def grid_widgets(self) -> dict[ChartKey, Chart]:
        return self._charts

    def grid_keys(self) -> tuple[ChartKey, ...]:
        return self.chart_keys()

    def grid_shape(self, width: int, height: int, count: int) -> tuple[int, int]:
        return present.grid_shape(width, height, count, bool(self.state.fullscreen))

    def grow(self) -> None:
        if self._charts.keys() != set(self.limited(self.chart_keys())):
            self._redraw(self.state, self.state)

    def shape_grid(self, grid, shown: list[ChartKey], width: int, height: int) -> None:
        columns, row_height = present.grid_shape(width, height, len(shown), bool(self.state.fullscreen))
        grid.styles.grid_size_columns = columns
        grid.styles.grid_rows = str(row_height)

    def rows_height(self, shown: list[ChartKey], width: int, height: int) -> int:
        columns, row_height = present.grid_shape(width, height, len(shown), bool(self.state.fullscreen))
        return -(-len(shown) // columns) * row_height

    # -- loading --------------------------------------------------------------------------------

    def _request_loads(self, state: HistogramsState) -> None:
        """Ask the loader for the charts whose data is missing or stale: the active one first,
        then those on screen, then the rest."""
        target = state.target()
        missing = []
        for key, chart in self._charts.items():
            version = self._versions.get(key, 0)
            result = self._ridges.get(key)
            if result is not None and result[0] == version:
                continue
            if self._asked.get(key) == version and self.loader.is_wanted(key):
                continue
            missing.append(key)
        # `first=True` puts a request at the front of the queue: ask in reverse order of priority.
        on_screen = [key for key in missing if self._charts[key].display and key != target]
        off_screen = [key for key in missing if not self._charts[key].display and key != target]
        for key, first in [*((k, False) for k in off_screen), *((k, True) for k in reversed(on_screen)),
                           *((k, True) for k in missing if k == target)]:
            version = self._versions.get(key, 0)
            self._asked[key] = version
            self.loader.request(key, partial(load_ridgeline, self.cache, *key),
                                partial(self._loaded, key, version), first=first)

    def _loaded(self, key: ChartKey, version: int, result: Loaded) -> None:
        self._ridges[key] = (version, result)
        chart = self._charts.get(key)
        if chart is not None:
            _hand(chart, (key, version), result)
        self._update_status()
        self._update_readout()

    def pending(self) -> int:
        """Charts asked for and not yet drawn (queued, being decoded, or on their way)."""
        return self.loader.pending()

    # -- live updates ---------------------------------------------------------------------------

    def cache_changed(self, changes: Changes) -> None:
        mine = set(self.train_ids)
        touched = False
        for tid in mine & changes.jobs():
            changed = changes.tags(tid, "histogram")
            if changed is not None:
                tags = list(changed)
            else:  # the job appeared, vanished or was read again from scratch
                tags = [tag for (t, tag) in set(self._versions) | set(self._ridges) | set(self._charts) if t == tid]
                view = self.cache.job(tid)
                tags += view.tag_names("histogram") if view is not None else []
            for tag in set(tags):
                self._versions[(tid, tag)] = self._versions.get((tid, tag), 0) + 1
                touched = True
        if not touched:
            return
        new = self._settled(self.state.with_tags(self.state.tags.with_tags(self._read_tags())))
        if new != self.state:
            self.state = new
        else:
            self._redraw(new, new)  # same choices, new data

    def with_tag_selection(self, selection) -> HistogramsState:
        return self._settled(self.state.with_tags(selection))

    # -- status and read-out ----------------------------------------------------------------------

    def _update_status(self) -> None:
        state = self.state
        empty = self.query_one("#histogram-empty", Static)
        reason = state.empty_reason()
        empty.update(literal(reason))
        empty.display = bool(reason)
        self.query_one(HistogramGrid).display = not reason
        loading = any(not job.ready for job in self.jobs)
        colour_hint = TRUE_COLOUR_HINT if limited_colours(self.app) else ""
        text = present.status(state, len(self._charts), self.loader.pending(), loading, colour_hint)
        self.query_one("#histogram-status", Static).update(text)

    def _update_readout(self) -> None:
        readout = self.query_one("#histogram-readout", Static)
        active = self.state.target()
        chart = self._charts.get(active) if active else None
        if chart is None:
            readout.update("")
            return
        hint = BANDS_HINT if isinstance(chart, HistogramBands) else present.HINT
        readout.update(present.readout(chart.readout(), chart.chart_key[0], self.comparing, hint))

    @on(RidgelineChart.CursorMoved)
    def _cursor_moved(self, event: RidgelineChart.CursorMoved) -> None:
        event.stop()
        if isinstance(event.chart, HistogramChart) and event.chart.chart_key == self.state.target():
            self._update_readout()

    @on(BandsChart.CursorMoved)
    def _bands_cursor_moved(self, event: BandsChart.CursorMoved) -> None:
        event.stop()
        if isinstance(event.chart, HistogramBands) and event.chart.chart_key == self.state.target():
            self._update_readout()

    def on_descendant_focus(self, event) -> None:
        if isinstance(event.widget, (HistogramChart, HistogramBands)) and event.widget.chart_key in self._charts:
            self.state = self.state.with_active(event.widget.chart_key)

    # -- actions --------------------------------------------------------------------------------

    def action_mode(self) -> None:
        self.state = self.state.next_mode()

    def action_bands(self) -> None:
        self.state = self.state.toggle_bands()

    def action_cycle_axis(self) -> None:
        self.state = self.state.next_axis()

    def action_fullscreen(self) -> None:
        focused = self.screen.focused
        key = focused.chart_key if isinstance(focused, (HistogramChart, HistogramBands)) else None
        self.state = self.state.toggle_fullscreen(key)

    def leave_first(self) -> bool:
        """`escape` first hides the focused chart's cursor."""
        target = self.state.target()
        chart = self._charts.get(target) if target else None
        return chart is not None and chart.has_focus and chart.hide_cursor()

    # -- export ---------------------------------------------------------------------------------

    def export_scope(self) -> dict[str, Any]:
        return {"train_ids": list(self.train_ids), "plugins": {"histogram"},
                "tags": {("histogram", tag) for tag in self.state.tags.visible()}}

    def describe_export(self) -> str:
        tags = self.state.tags.visible()
        return f"{len(tags)} histogram tag{'s' if len(tags) != 1 else ''} of {', '.join(self.train_ids)}"


def _hand(chart: Chart, key: tuple, loaded: Loaded) -> None:
    """A load's answer to a chart: the ridgeline to a ridgeline, the distribution to bands."""
    value = loaded.value
    if isinstance(chart, HistogramBands):
        chart.set_data(key, value[1] if value is not None else None, loaded.error)
    else:
        chart.set_data(key, value[0] if value is not None else None, loaded.error)
