"""Pilot tests of the job list at 80x24 and 160x48 (issue 27): the columns fit the width, the
column cursor and `s` sort by any column, a new order shows the top, the state's glyph is said
whole under the list, and the rows painted during a cold start of 1,000 runs are the model's."""
from __future__ import annotations

import os
import re
import threading
import time
from typing import BinaryIO

import pytest
from uihelp import MTIME, NOW, make_app, post_key, run_pilot, write_run

from tui_insight.summary.sources.local import Discovery, LocalSource
from tui_insight.summary.store.cache import SummaryCache
from tui_insight.ui.app import InsightApp
from tui_insight.ui.widgets.job_table import JobTable

SIZES = pytest.mark.parametrize("size", [(80, 24), (160, 48)], ids=["80x24", "160x48"])
RUN = re.compile(r"\./run_\d+")


def table(app) -> JobTable:
    return app.screen.query_one(JobTable)


def header(app) -> str:
    return table(app).render_line(0).text


TEXT = re.compile(r'<text[^>]*clip-path="url\(#[\w-]*-line-(\d+)\)"[^>]*>(.*?)</text>')


def screen_lines(app) -> list[str]:
    """What the terminal shows now, line by line (the SVG screenshot's text, by its line)."""
    svg = app.export_screenshot().split("</style>")[-1].replace("&#160;", " ")
    rows = [""] * app.size.height
    for line, text in TEXT.findall(svg):
        rows[int(line)] += text
    return rows


def table_ids(app) -> list[str]:
    """The job ids on the table's rows on screen, top to bottom."""
    region = table(app).region
    return RUN.findall("\n".join(screen_lines(app)[region.y + 1:region.y + region.height]))


@pytest.fixture
def sweep(tmp_path):
    """60 runs: enough rows that the top of the list is off screen once the cursor went down."""
    root = tmp_path / "logs"
    for i in range(60):
        write_run(root, f"run_{i:02d}", steps=4 + i % 9, tags=("loss",))
    return root


@SIZES
def test_the_columns_fit_the_width_dropping_the_least_telling_first(sweep, size):
    app = make_app(sweep)

    async def body(pilot):
        t = table(app)
        last = t.columns[-1]
        return t.columns, t.column_x(last) + t.width_of(last) + 2, header(app), t.size.width

    columns, right_edge, head, width = run_pilot(app, body, size=size)
    assert right_edge <= width  # nothing behind a horizontal scroll
    for key in ("id", "health", "value", "best", "trend", "change"):
        assert key in columns
    assert "live" not in columns  # nothing is live: the column takes no room
    if size == (80, 24):
        assert not {"files", "tags", "updated", "step"} & set(columns)
        assert "‹health ▼›" in head.replace(" ▼ ›", " ▼›")  # the column cursor starts on the sort column
    else:
        assert {"files", "tags", "updated", "step", "speed"} <= set(columns)


@SIZES
def test_right_moves_a_column_cursor_that_brings_a_column_in_and_s_sorts_by_it(sweep, size):
    app = make_app(sweep)

    async def body(pilot):
        t = table(app)
        await pilot.press(*["right"] * 20)  # to the last column (files), stopping there
        await pilot.pause()
        at_end = (app.screen.state.cursor_column, t.columns, header(app))
        await pilot.press("s")
        await pilot.pause()
        by_files = (t.sort_key, t.sort_reverse)
        await pilot.press("left", "left", "s")  # tags, then updated: sort by it
        await pilot.pause()
        return at_end, by_files, (t.sort_key, t.sort_reverse, t.columns)

    (cursor, columns, head), by_files, (key, reverse, later) = run_pilot(app, body, size=size)
    assert cursor == "files" and "files" in columns and "‹files" in head
    assert by_files == ("files", False)
    assert key == "updated" and not reverse and "updated" in later


@SIZES
def test_delta_is_four_keys_away_and_a_new_order_shows_the_top(sweep, size):
    """From the default order (health, most badges first): → → → reach Δ10%, s sorts by it; the
    cursor, far down before, is on the first row and the first row is on screen."""
    app = make_app(sweep)

    async def body(pilot):
        t = table(app)
        await pilot.press(*["down"] * 40)
        await pilot.pause()
        scrolled = t.scroll_y
        await pilot.press("right", "right", "right", "s")
        await pilot.pause()
        return scrolled, t.sort_key, t.cursor_row, t.scroll_y, t.order[0], table_ids(app)

    scrolled, key, cursor, top, first, shown = run_pilot(app, body, size=(size[0], size[1] // 2))
    assert scrolled > 0
    assert key == "change" and cursor == 0 and top == 0
    assert shown[0] == first  # the first row shown is the order's first


@SIZES
def test_the_state_is_a_glyph_said_whole_under_the_list_for_the_cursor_job(tmp_path, size):
    root = tmp_path / "logs"
    write_run(root, "run_a")
    cut = write_run(root, "run_b")
    summary = next(p for p in cut.iterdir() if ".summary." in p.name)
    data = summary.read_bytes()
    summary.write_bytes(data[:-7])  # its last record cut short, long ago: truncated
    os.utime(summary, (MTIME - 3600, MTIME - 3600))
    app = make_app(root)

    async def body(pilot):
        t = table(app)
        cells = {tid: t.cell(tid, "state") for tid in t.order}
        await pilot.press("home")
        first = str(app.screen.query_one("#jobs-cursor").render())
        t.move_cursor(t.order.index("./run_b"))
        await pilot.pause()
        return cells, first, t.order[0], str(app.screen.query_one("#jobs-cursor").render())

    cells, first, first_id, line = run_pilot(app, body, size=size)
    assert cells == {"./run_a": "✓", "./run_b": "!"}
    assert first_id == "./run_b"  # truncated is a badge: first in the default order
    assert "./run_b" in first and "truncated" in line and "./run_b" in line


class SlowSource(LocalSource):
    """A LOGDIR found once the test says so (`release`) and read slowly (0.3 ms a file):
    the list is painted before, while and after the runs load, however busy the machine."""

    def __init__(self, logdir: str):
        super().__init__(logdir)
        self.release = threading.Event()

    def discover(self, listings: dict, turn: int | None = None) -> Discovery:
        self.release.wait(10)
        return super().discover(listings, turn)

    def open_range(self, path: str, start: int, end: int) -> BinaryIO:
        time.sleep(0.0003)
        return super().open_range(path, start, end)


@pytest.mark.parametrize("size, sort", [((160, 48), "health"), ((80, 24), "updated")], ids=["160x48", "80x24"])
def test_rows_painted_during_a_cold_start_of_1000_runs_are_the_models(tmp_path, size, sort):
    """A cold start: at each paint while the runs load (and move to their sorted place
    as they do, sorted by update time), the rows on screen are the table's order from its top,
    none missing, and once loaded every run is listed."""
    root = tmp_path / "logs"
    n = 1000
    for i in range(n):  # (about a second)
        write_run(root, f"run_{i:05d}", steps=2, tags=("loss",), mtime=MTIME - (i * 37) % 101)
    source = SlowSource(str(root))
    cache = SummaryCache(source, clock=lambda: NOW)
    app = InsightApp(cache, reload_interval=0, clock=lambda: NOW, logdir_label="LOGDIR",
                     graph_prefetch_delay=None)
    app.workspace.remember("app", "jobs", {"sort_key": sort, "reverse": True})

    async def body(pilot):
        t = table(app)
        paints, wrong, while_loading = 0, [], 0
        source.release.set()
        while paints < 1000:
            await pilot.pause(0.01)
            shown = table_ids(app)
            top = int(t.scroll_y)
            model = t.order[top:top + max(0, t.size.height - 1)]
            paints += 1
            while_loading += bool(t.loading_ids)
            if shown != model:
                wrong.append((paints, [x[-3:] for x in shown], [x[-3:] for x in model]))
            if t.row_count == n and not t.loading_ids and not cache.progress.loading and cache.progress.reloads:
                break
        return while_loading, wrong, t.row_count, sorted(t.order) == sorted(cache.jobs)

    while_loading, wrong, rows, all_listed = run_pilot(app, body, size=size)
    assert wrong == [], "\n".join(map(str, wrong))
    assert while_loading > 0 and rows == n and all_listed


@SIZES
def test_keys_typed_ahead_sort_by_the_column_the_cursor_reached(sweep, size):
    """`→ → → s` in one burst (over ssh, typed ahead): `s` sorts by the column the cursor
    reached, not by the one the state had heard of when `s` came."""
    app = make_app(sweep)

    async def body(pilot):
        for key in ("right", "right", "right", "s"):
            post_key(app, key)
        await pilot.pause()
        await pilot.pause()
        return app.screen.state.sort_key, app.screen.state.cursor_column, table(app).sort_key

    assert run_pilot(app, body, size=size) == ("change", "change", "change")


@SIZES
def test_o_picks_the_column_to_sort_by_by_name_with_type_ahead(sweep, size):
    app = make_app(sweep)

    async def body(pilot):
        await pilot.press("o", *"chan")
        await pilot.pause()
        count = str(app.screen.query_one("#picker-count").render())
        await pilot.press("enter")
        await pilot.pause()
        return count, app.screen.state.sort_key, app.screen.state.reverse, "change" in table(app).columns

    count, key, reverse, shown = run_pilot(app, body, size=size)
    assert count.startswith("2 of 12")  # Δ10% (change...) and updated (...changed)
    assert (key, reverse, shown) == ("change", False, True)


@SIZES
def test_a_list_remembered_with_the_old_id_default_opens_by_health_and_a_chosen_order_stays(sweep, size):
    """A workspace written while id ascending was the default holds that order though nobody chose
    it: the list opens by health. An order the user sorts by is remembered across a restart."""
    app = make_app(sweep)
    app.workspace.remember("app", "jobs", {"filter": "", "sort_key": "id", "reverse": False, "marked": []})

    async def body(pilot):
        t = table(app)
        opened = t.sort_key, t.sort_reverse
        await pilot.press("o")
        await pilot.pause()
        await pilot.press(*"updated", "enter")
        await pilot.pause()
        return opened, app.workspace.get("app", "jobs")

    opened, remembered = run_pilot(app, body, size=size)
    assert opened == ("health", True)
    assert remembered["sort_key"] == "updated" and remembered["sort_chosen"] is True
