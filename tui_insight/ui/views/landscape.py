"""The loss-landscape view (MindInsight's "optimization process"): the job's landscapes listed
(`steps 1–5`, `epochs 1–3`, final), the chosen one drawn as a heat map with its loss path, or
in relief; with several jobs, the same landscape of each side by side on one colour scale.

What the user chose (the landscape, heat/contour/both, map or relief, the angle, the cursor,
the metadata panel) is one `LandscapeState`; `watch_state` redraws from it. Each job's
landscapes are decoded by the view's loader (all of a job at once: a job has a few); the maps
draw only what they are given.

Keys: `c` heat / contour lines / both · `v` relief · `[` `]` rotate, `{` `}` tilt · arrows the
value cursor (shift: 5 cells) · `n` / `p` next / previous checkpoint of the loss path · `,` `.`
previous / next landscape · `m` the metadata panel · `esc` leaves the view (as in every view).
"""
from __future__ import annotations

from functools import partial
from typing import Any

from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical
from textual.reactive import reactive
from textual.widget import Widget
from textual.widgets import OptionList, Static
from textual.widgets.option_list import Option

from ...summary.formats.values import PayloadError
from ...summary.queries.landscape import (
    PLUGIN,
    Landscape,
    LandscapeEntry,
    landscape_at,
    lineage_metadata,
    list_landscapes,
    nearest_index,
    shared_range,
)
from ...summary.store.job_view import Changes
from ..common.text import literal, markup, shown
from ..loader import Loaded, LoadProblem
from ..presenters import landscape as present
from ..presenters.landscape import JobLandscapes
from ..state.landscape import JUMP, LandscapeState
from ..widgets.heatmap import HeatOptions, LandscapeMap, ReliefOptions, legend
from .base import DataView, ViewSpec


def load_job(cache, train_id: str) -> JobLandscapes:
    """Every landscape of one job (runs in the loader's thread); raises `LoadProblem`."""
    view = cache.job(train_id)
    if view is None:
        raise LoadProblem(f"{shown(train_id)} is gone")
    entries = list_landscapes(cache.payloads, view)
    landscapes: dict[str, Landscape] = {}
    errors: dict[str, str] = {}
    for entry in entries:
        if entry.key in landscapes:
            continue  # the same landscape written twice: the first listed wins
        if entry.error:
            errors.setdefault(entry.key, entry.error)
            continue
        try:
            landscapes[entry.key] = landscape_at(cache.payloads, view, entry.tag, entry.index)
        except PayloadError as exc:
            errors[entry.key] = str(exc)
    return JobLandscapes(train_id, tuple(e for e in entries if not e.error), landscapes, errors,
                         lineage_metadata(view) if view.lineage is not None else {})


class MapRow(Horizontal, can_focus=True):
    """The maps, side by side; it has the keyboard for the cursor."""

    HELP_GROUP = "Landscape"
    DEFAULT_CLASSES = "focus-tint"  # app.tcss: the faint tint of the focused chart
    DEFAULT_CSS = """
    MapRow { height: 1fr; width: 1fr; }
    """
    BINDINGS = [
        Binding("up", "move(0, 1)", "Cursor up", show=False, id="landscape.cursor_up"),
        Binding("down", "move(0, -1)", "Cursor down", show=False, id="landscape.cursor_down"),
        Binding("left", "move(-1, 0)", "Cursor left", show=False, id="landscape.cursor_left"),
        Binding("right", "move(1, 0)", "Cursor right", show=False, id="landscape.cursor_right"),
        Binding("shift+up", f"move(0, {JUMP})", "Cursor up 5", show=False, id="landscape.cursor_up_jump"),
        Binding("shift+down", f"move(0, -{JUMP})", "Cursor down 5", show=False, id="landscape.cursor_down_jump"),
        Binding("shift+left", f"move(-{JUMP}, 0)", "Cursor left 5", show=False, id="landscape.cursor_left_jump"),
        Binding("shift+right", f"move({JUMP}, 0)", "Cursor right 5", show=False, id="landscape.cursor_right_jump"),
        Binding("home", "edge(0)", "Cursor to the left edge", show=False, id="landscape.cursor_home"),
        Binding("end", "edge(1)", "Cursor to the right edge", show=False, id="landscape.cursor_end"),
    ]

    def _view(self) -> "LandscapeView | None":
        return next((a for a in self.ancestors if isinstance(a, LandscapeView)), None)

    def action_move(self, dx: int, dy: int) -> None:
        view = self._view()
        if view is not None:
            view.move_cursor(dx, dy)

    def action_edge(self, end: int) -> None:
        view = self._view()
        if view is not None:
            view.cursor_edge(bool(end))


class LandscapeView(DataView):
    SPEC = ViewSpec("landscape", "Landscape", "6", ("loss_landscape",), "job")
    HELP_GROUP = "Landscape"
    DEFAULT_CSS = """
    LandscapeView { layout: horizontal; }
    LandscapeView #landscape-side { width: 30; height: 1fr; }
    LandscapeView #landscape-side.-narrow { width: 22; }
    LandscapeView #landscape-list { height: auto; max-height: 50%; text-wrap: nowrap; text-overflow: ellipsis; }
    LandscapeView #landscape-meta { height: 1fr; padding: 0 1; border: round $panel-lighten-2;
                                     border-title-color: $text-muted; overflow-y: auto; }
    LandscapeView.-nometa #landscape-meta { display: none; }
    LandscapeView #landscape-main { width: 1fr; height: 1fr; }
    LandscapeView #landscape-status { height: 1; padding: 0 1; background: $panel; }
    LandscapeView #landscape-empty { height: 1fr; padding: 1 2; color: $text-muted; display: none; }
    LandscapeView .landscape-map { border: round $panel-lighten-2; border-title-align: left; }
    LandscapeView #landscape-legend { height: 1; padding: 0 1; }
    LandscapeView #landscape-readout { height: auto; max-height: 4; padding: 0 1; background: $panel; }
    """
    BINDINGS = [
        Binding("c", "drawing", "Heat/contour", id="landscape.drawing"),
        Binding("v", "relief", "Relief", id="landscape.relief"),
        Binding("left_square_bracket", "rotate(-1)", "Rotate left", id="landscape.rotate_left"),
        Binding("right_square_bracket", "rotate(1)", "Rotate right", id="landscape.rotate_right"),
        Binding("left_curly_bracket", "tilt(-1)", "Tilt down", show=False, id="landscape.tilt_down"),
        Binding("right_curly_bracket", "tilt(1)", "Tilt up", show=False, id="landscape.tilt_up"),
        Binding("n", "path(1)", "Next checkpoint", id="landscape.path_next"),
        Binding("p", "path(-1)", "Previous checkpoint", show=False, id="landscape.path_previous"),
        Binding("comma", "landscape(-1)", "Previous landscape", show=False, id="landscape.previous"),
        Binding("full_stop", "landscape(1)", "Next landscape", show=False, id="landscape.next"),
        Binding("m", "panel", "Metadata", id="landscape.metadata"),
    ]

    state: reactive[LandscapeState] = reactive(LandscapeState, init=False)

    def __init__(self, cache, train_ids, **kwargs: Any):
        super().__init__(cache, train_ids, **kwargs)
        self.set_reactive(LandscapeView.state, LandscapeState.from_json(self.saved))
        self.data: dict[str, JobLandscapes] = {}  # per job, what the loader gave
        self.errors: dict[str, str] = {}  # per job, why its landscapes could not be read
        self._versions: dict[str, int] = {}
        self._asked: dict[str, int] = {}
        self._got: dict[str, int] = {}
        self.maps: dict[str, LandscapeMap] = {}

    @classmethod
    def has_data(cls, job) -> bool:
        return job.tag_count(PLUGIN) > 0  # most jobs have none: no Landscape tab

    # -- building -----------------------------------------------------------------------------

    def compose(self) -> ComposeResult:
        with Vertical(id="landscape-side"):
            yield OptionList(id="landscape-list")
            yield Static("", id="landscape-meta")
        with Vertical(id="landscape-main"):
            yield Static("", id="landscape-status")
            yield Static("", id="landscape-empty")
            with MapRow(id="landscape-maps"):
                for tid in self.train_ids:
                    chart = LandscapeMap(classes="landscape-map")
                    self.maps[tid] = chart
                    yield chart
            yield Static("", id="landscape-legend")
            yield Static("", id="landscape-readout")

    def on_mount(self) -> None:
        self.query_one("#landscape-list", OptionList).border_title = "landscapes"
        self.query_one("#landscape-meta", Static).border_title = "metadata"
        if self.comparing:
            for tid, chart in self.maps.items():
                chart.styles.border_title_color = self.job_colour(tid)
        self._request_loads()
        self._redraw(None, self.state)
        self.remember(self.state)
        self.ready_for_keys()

    def on_resize(self, event) -> None:
        self.query_one("#landscape-side").set_class(self.app.size.width < 100, "-narrow")

    def first_focus(self) -> Widget | None:
        return self.query_one(MapRow)

    # -- data -----------------------------------------------------------------------------------

    def keys(self) -> list[str]:
        """The landscapes to choose from: every job's, in the first job's order, then the others'."""
        return present.keys(self.data, self.train_ids)

    def entry(self, key: str | None) -> LandscapeEntry | None:
        return present.entry(self.data, self.train_ids, key)

    def landscape(self, train_id: str, key: str | None = None) -> Landscape | None:
        return present.landscape(self.data, train_id, key if key is not None else self.state.selected)

    def shown_landscapes(self) -> dict[str, Landscape]:
        """The selected landscape of each job that has it."""
        return present.shown_landscapes(self.data, self.train_ids, self.state.selected)

    def colours(self) -> dict[str, str]:
        return {tid: self.job_colour(tid) for tid in self.train_ids}

    def grid_size(self) -> tuple[int, int]:
        """(columns, rows) of the first shown landscape's grid."""
        for ls in self.shown_landscapes().values():
            return ls.z.shape[1], ls.z.shape[0]
        return 0, 0

    def _request_loads(self) -> None:
        for tid in self.train_ids:
            version = self._versions.get(tid, 0)
            if self._got.get(tid) == version:
                continue
            if self._asked.get(tid) == version and self.loader.is_wanted(tid):
                continue
            self._asked[tid] = version
            self.loader.request(tid, partial(load_job, self.cache, tid), partial(self._loaded, tid, version))

    def _loaded(self, train_id: str, version: int, result: Loaded) -> None:
        self._got[train_id] = version
        if result.ok:
            self.data[train_id] = result.value
            self.errors.pop(train_id, None)
        else:
            self.data.pop(train_id, None)
            self.errors[train_id] = result.error
        new = self._settled(self.state)
        if new != self.state:
            self.state = new
        else:
            self._redraw(new, new)

    def pending(self) -> int:
        return self.loader.pending()

    def _settled(self, state: LandscapeState) -> LandscapeState:
        state = state.settled(self.keys())
        columns, rows = self._grid_size_for(state)
        return state.fitted(columns, rows)

    def _grid_size_for(self, state: LandscapeState) -> tuple[int, int]:
        for tid in self.train_ids:
            data = self.data.get(tid)
            ls = data.landscapes.get(state.selected) if data and state.selected else None
            if ls is not None:
                return ls.z.shape[1], ls.z.shape[0]
        return 0, 0

    def cache_changed(self, changes: Changes) -> None:
        touched = False
        for tid in set(self.train_ids) & (changes.jobs() | changes.lineage):
            if changes.tags(tid, PLUGIN) == set() and tid not in changes.lineage:
                continue
            self._versions[tid] = self._versions.get(tid, 0) + 1
            touched = True
        if touched:
            self._request_loads()
            self._update_status()

    # -- state ----------------------------------------------------------------------------------

    def watch_state(self, old: LandscapeState, new: LandscapeState) -> None:
        self._redraw(old, new)
        self.remember(new)

    def _redraw(self, old: LandscapeState | None, new: LandscapeState) -> None:
        self.set_class(not new.panel, "-nometa")
        self._sync_list(new)
        shown_ls = self.shown_landscapes()
        value_range = shared_range(shown_ls.values()) if len(shown_ls) > 1 else None
        entry = self.entry(new.selected)
        label = entry.label if entry else "landscape"
        for tid, chart in self.maps.items():
            ls = shown_ls.get(tid)
            message = ""
            if ls is None:
                message = present.missing_text(self.data, self.errors, tid, new.selected, label,
                                               self.loader.is_wanted(tid))
            chart.set_landscape(ls, message)
            chart.border_title = (f"{markup(tid)} · " if self.comparing else "") + markup(label)
            if new.mode == "relief":
                chart.set_options(ReliefOptions(new.angle, new.elevation, value_range, cursor=new.cursor))
            else:
                # on a checkpoint its highlighted number is the cursor
                cursor = new.cursor if new.path_point is None else None
                chart.set_options(HeatOptions(new.drawing, value_range, cursor=cursor, path_point=new.path_point))
        self._update_status()
        self._update_meta()
        self._update_readout()
        first = next(iter(shown_ls.values()), None)
        scale = value_range or (first.finite_range() if first is not None else None)
        self.query_one("#landscape-legend", Static).update(
            legend(scale, 8, new.drawing if new.mode == "map" else "heat")
            + (Text(" · shared colour scale", style="dim") if value_range else Text("")))

    def _sync_list(self, state: LandscapeState) -> None:
        listing = self.query_one("#landscape-list", OptionList)
        keys = self.keys()
        options = [Option(text, id=key) for key, text in present.list_rows(self.data, self.train_ids, self.comparing)]
        current = [listing.get_option_at_index(i).id for i in range(listing.option_count)]
        if current != [o.id for o in options]:
            listing.clear_options()
            listing.add_options(options)
        if state.selected in keys:
            index = keys.index(state.selected)
            if listing.highlighted != index:
                listing.highlighted = index

    @on(OptionList.OptionHighlighted, "#landscape-list")
    def _highlighted(self, event: OptionList.OptionHighlighted) -> None:
        event.stop()
        if event.option.id:
            self.state = self._settled(self.state.select(str(event.option.id)))

    @on(OptionList.OptionSelected, "#landscape-list")
    def _selected(self, event: OptionList.OptionSelected) -> None:
        event.stop()
        self._highlighted(event)  # type: ignore[arg-type]
        self.focus_view()

    # -- text -----------------------------------------------------------------------------------

    def _update_status(self) -> None:
        loading = any(self.loader.is_wanted(tid) for tid in self.train_ids)
        waiting = loading or any(not job.ready for job in self.jobs)
        reason = present.empty_reason(self.data, self.errors, self.train_ids, waiting)
        empty = self.query_one("#landscape-empty", Static)
        empty.update(literal(reason))
        empty.display = bool(reason)
        self.query_one(MapRow).display = not reason
        self.query_one("#landscape-status", Static).update(
            present.status_text(self.state, self.data, self.train_ids, loading))

    def _update_meta(self) -> None:
        colours = self.colours() if self.comparing else None
        self.query_one("#landscape-meta", Static).update(
            present.meta_text(self.state, self.data, self.train_ids, colours))

    def readout(self) -> Text:
        """What the cursor reads (`presenters.landscape.readout`)."""
        return present.readout(self.state, self.shown_landscapes(), self.colours())

    def _update_readout(self) -> None:
        self.query_one("#landscape-readout", Static).update(self.readout())

    # -- actions --------------------------------------------------------------------------------

    def move_cursor(self, dx: int, dy: int) -> None:
        self.state = self.state.move(dx, dy, *self.grid_size())

    def cursor_edge(self, end: bool) -> None:
        self.state = self.state.to_edge(*self.grid_size(), end)

    def path_nodes(self) -> list[tuple[int, int]]:
        """The grid node nearest each checkpoint of the first shown landscape's path."""
        for ls in self.shown_landscapes().values():
            if ls.path is not None:
                return [(nearest_index(ls.x, float(x)), nearest_index(ls.y, float(y)))
                        for x, y in zip(ls.path.x, ls.path.y)]
        return []

    def action_path(self, direction: int) -> None:
        self.state = self.state.step_path(self.path_nodes(), direction)

    def action_drawing(self) -> None:
        self.state = self.state.next_drawing()

    def action_relief(self) -> None:
        self.state = self.state.toggle_relief()

    def action_rotate(self, direction: int) -> None:
        if self.state.mode != "relief":
            self.state = self.state.toggle_relief()
        self.state = self.state.rotate(direction)

    def action_tilt(self, direction: int) -> None:
        if self.state.mode == "relief":
            self.state = self.state.tilt(direction)

    def action_landscape(self, direction: int) -> None:
        self.state = self._settled(self.state.select_by(self.keys(), direction))

    def action_panel(self) -> None:
        self.state = self.state.toggle_panel()

    # -- export ---------------------------------------------------------------------------------

    def export_scope(self) -> dict[str, Any]:
        return {"train_ids": list(self.train_ids), "plugins": {PLUGIN}}

    def describe_export(self) -> str:
        return f"loss landscapes of {', '.join(self.train_ids)}"
