"""Pilot tests: names that differ at the end stay apart where the screen is narrow (legends, the
run panel, the tag list), and the whole name of the highlighted row is shown under its list."""
from __future__ import annotations

import html
import re

import pytest
from uihelp import T0, make_app, run_pilot, wait_for, wait_for_view

from tui_insight.summary.formats.writer import SummaryWriter
from tui_insight.ui.views.scalars import ScalarsView
from tui_insight.ui.widgets.run_picker import RunPicker

RUNS = ("./lenet_lr0.01_momentum0.9_batch32", "./lenet_lr0.1_momentum0.9_batch32")
TAGS = ("in_graph/logits_of_the_final_layer", "in_graph/loss_of_the_final_layer")


def write_runs(root):
    for name in RUNS:
        with SummaryWriter(root / name, timestamp=int(T0), wall_time=T0) as writer:
            for step in (1, 2, 3):
                for tag in TAGS:
                    writer.add_scalar(tag, float(step))
                writer.record(step, wall_time=T0 + step)
    return root


def screen_lines(app) -> list[str]:
    """What the terminal shows, line by line (from the SVG screenshot)."""
    svg = app.export_screenshot().split("</style>")[-1]
    rows: dict[float, list[tuple[float, str]]] = {}
    for m in re.finditer(r'<text[^>]*x="([\d.]+)" y="([\d.]+)"[^>]*>(.*?)</text>', svg):
        text = html.unescape(re.sub(r"<[^>]+>", "", m.group(3))).replace("\xa0", " ")
        rows.setdefault(float(m.group(2)), []).append((float(m.group(1)), text))
    return ["".join(t for _, t in sorted(parts)) for _, parts in sorted(rows.items())]


def rows(picker, marks: int) -> list[str]:
    """The names its rows show (after the marks: "✓ " for tags, "✓ 1 ● " for runs)."""
    listing = picker.listing
    return [str(listing.get_option_at_index(i).prompt)[marks:] for i in range(listing.option_count)]


def full_name(picker) -> str:
    """What the line under the list says ("" if there is none)."""
    found = picker.query(".tag-full")
    return str(found.first().render()) if found else ""


@pytest.mark.parametrize("size", [(80, 24), (160, 48)])
def test_compared_runs_and_tags_read_apart_and_the_full_name_is_shown(tmp_path, size):
    app = make_app(write_runs(tmp_path))

    async def body(pilot):
        app.open_jobs(RUNS, "scalars")
        await wait_for_view(pilot, app, "ScalarsView")
        view = app.screen.query_one(ScalarsView)
        assert await wait_for(pilot, lambda: len(view.charts) == 2)
        await pilot.pause()
        lines = screen_lines(app)
        seen = {"legend": [line for line in lines if "│● " in line],  # the charts' legends
                "table": sorted({str(cells[1])[2:] for cells in view.summary.cells.values()})}  # runs, no ★
        tags = view.picker
        seen["tags"] = rows(tags, 2)
        tags.focus_list()
        await pilot.pause()
        seen["tag_full"] = full_name(tags), [line.strip("▊▎ ") for line in screen_lines(app)]
        await pilot.press("R")
        await pilot.pause()
        runs = app.screen.query_one(RunPicker)
        seen["runs"] = rows(runs, 6)
        await pilot.press("down")
        await pilot.pause()
        seen["run_full"] = full_name(runs)
        return seen

    seen = run_pilot(app, body, size)
    for line in seen["legend"]:  # every entry shows where the runs differ, and how they end
        assert "lr0.01" in line and "lr0.1" in line and line.count("batch32") == line.count("●"), line
    assert len(seen["table"]) == 2 and all(len(cell) <= 2 + 24 for cell in seen["table"]), seen["table"]
    assert "lr0.01" in seen["table"][0] and "lr0.1_" in seen["table"][1]  # "● " and the name, cut apart
    tag_names, run_names = seen["tags"], seen["runs"]
    assert tag_names[0] != tag_names[1] and tag_names[0].startswith("…lo")  # "in_graph/" dropped
    assert run_names[0] != run_names[1] and "lr0.01" in run_names[0] and "lr0.1" in run_names[1]
    if size == (80, 24):  # names cut: the highlighted row's whole name under the list
        full, lines = seen["tag_full"]
        assert full == TAGS[0] and any(TAGS[0][:15] in line for line in lines), lines
        assert seen["run_full"] == RUNS[1]
