"""The export dialog (`e`) writes as the command line does (issue 23): links planted in the
directory are replaced, never written through, and a full disk is said in the dialog, with
INCOMPLETE beside what was written."""
from __future__ import annotations

import csv
import os
from pathlib import Path

from export_help import (
    STAGING,
    assert_links_replaced,
    plant_links,
    small_disk,
    write_job,
)
from textual.widgets import Checkbox, Input, Static
from uihelp import make_app, run_pilot, wait_for, wait_for_view


async def export_from_dialog(pilot, app, out: Path, *, all_steps: bool, force: bool) -> str:
    """Open the first job's scalars, press `e` and export to `out`; the dialog's last message
    ("" when it closed: the export was written)."""
    await pilot.press("enter")
    await wait_for_view(pilot, app)
    await pilot.press("e")
    assert await wait_for(pilot, lambda: bool(app.screen.query("#export-path")))
    dialog = app.screen
    dialog.query_one("#export-path", Input).value = str(out)
    dialog.query_one("#export-all-steps", Checkbox).value = all_steps
    dialog.query_one("#export-force", Checkbox).value = force
    await pilot.press("enter")

    def settled() -> bool:
        if app.screen is not dialog:
            return True
        message = str(dialog.query_one("#export-error", Static).render())
        return bool(message) and "exporting" not in message
    assert await wait_for(pilot, settled, timeout=30)
    return "" if app.screen is not dialog else str(dialog.query_one("#export-error", Static).render())


def test_the_dialog_replaces_links_planted_in_the_directory(tmp_path):
    logdir = tmp_path / "logs"
    write_job(logdir, "j")
    out = tmp_path / "out"
    plant_links(tmp_path, logdir, out)
    app = make_app(logdir)

    async def body(pilot):
        return await export_from_dialog(pilot, app, out, all_steps=True, force=True)

    assert run_pilot(app, body) == ""
    assert_links_replaced(tmp_path, logdir, out)


def test_the_dialog_says_a_full_disk_cut_the_export(tmp_path):
    logdir = tmp_path / "logs"
    write_job(logdir, "j", steps=9000)  # every step: 9,000 rows of one tag, ~250 kB
    with small_disk(tmp_path / "disk") as disk:
        out = disk.path / "snapshot"
        app = make_app(logdir)

        async def body(pilot):
            with disk.held():
                return await export_from_dialog(pilot, app, out, all_steps=True, force=False)

        message = run_pilot(app, body)
        assert message.startswith("export incomplete: "), message
        assert "while writing scalars.csv" in message and "INCOMPLETE says what was cut" in message
        assert "This export is incomplete" in (out / "INCOMPLETE").read_text()
        assert not [n for n in os.listdir(out) if n.startswith(STAGING)]


def test_e_in_the_text_view_exports_the_text(tmp_path):
    """Text is exported now: `e` in the text view writes the jobs' text to text.csv, and only it."""
    from tui_insight.summary.formats.writer import TensorBoardWriter

    logdir = tmp_path / "logs"
    writer = TensorBoardWriter(logdir / "run", timestamp=1, wall_time=1.0)
    for step in (1, 2):
        writer.add_scalar("loss", 1.0 / step, step, wall_time=float(step))
        writer.add_text("notes", f"epoch {step}, lr 0.1\nline two", step, wall_time=float(step))
    writer.close()
    out = tmp_path / "out"
    app = make_app(logdir)

    async def body(pilot):
        await pilot.press("enter")
        await wait_for_view(pilot, app)
        await pilot.press("8")
        await wait_for_view(pilot, app, "TextView")
        await pilot.press("e")
        assert await wait_for(pilot, lambda: bool(app.screen.query("#export-path")))
        app.screen.query_one("#export-path", Input).value = str(out)
        await pilot.press("enter")
        return await wait_for(pilot, lambda: not app.screen.query("#export-path"), timeout=30)

    assert run_pilot(app, body)
    with open(out / "text.csv", newline="", encoding="utf-8") as fh:
        rows = list(csv.reader(fh))
    assert rows == [["train_id", "tag", "step", "wall_time", "text"],
                    ["./run", "notes", "1", "1.0", "epoch 1, lr 0.1\nline two"],
                    ["./run", "notes", "2", "2.0", "epoch 2, lr 0.1\nline two"]]
    assert (out / "scalars.csv").read_text() == "train_id,tag,step,wall_time,value\n"


def test_the_dialog_names_its_own_checkbox_for_a_non_empty_directory(tmp_path):
    """A refusal in the dialog says what to do there (the checkbox), not the command line's flag;
    ticked, the export writes beside what was there."""
    logdir = tmp_path / "logs"
    write_job(logdir, "j")
    out = tmp_path / "out"
    out.mkdir()
    (out / "notes.txt").write_text("mine")
    app = make_app(logdir)

    async def body(pilot):
        refused = await export_from_dialog(pilot, app, out, all_steps=False, force=False)
        dialog = app.screen
        dialog.query_one("#export-force", Checkbox).value = True
        await pilot.press("enter")
        return refused, await wait_for(pilot, lambda: app.screen is not dialog, timeout=30)

    refused, written = run_pilot(app, body)
    assert "is not empty" in refused and "write into a non-empty directory" in refused, refused
    assert "--force" not in refused
    assert written and (out / "scalars.csv").exists() and (out / "notes.txt").read_text() == "mine"
