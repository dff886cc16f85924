"""Text rendered as TensorBoard renders it (issue 26): markdown, tables included, a matrix of
strings as a table, with the texts as written one key (`m`) away. Logs written by tensorboardX
(`add_text`) and, for a matrix of strings, tensorboard's own `text_pb` through its writer."""
from __future__ import annotations

import io
import re

import numpy as np
from rich.console import Console
from textual.widgets import Static
from uihelp import make_app, open_help, run_pilot, wait_for, wait_for_view

from tui_insight.ui.views.text import TextView

TABLE = "**step** 45: results\n\n| metric | value |\n|---|---|\n| loss | 0.25 |\n| accuracy | 0.875 |"
WIDE_CELLS = [f"{1000 * k + 0.123456:.6f}" for k in range(14)]
WIDE = ("| " + " | ".join(f"column_{k}" for k in range(14)) + " |\n|" + "---|" * 14 + "\n| "
        + " | ".join(WIDE_CELLS) + " |")
LONG = "\n\n".join(f"paragraph {k}: " + "words " * 12 for k in range(60))


def write_logs(root):
    from tensorboard.plugins.text.summary_v2 import text_pb
    from tensorboardX import SummaryWriter
    from tensorboardX.proto.summary_pb2 import Summary

    run = root / "run"
    with SummaryWriter(logdir=str(run)) as writer:
        writer.add_text("a_table", TABLE, 45)
        writer.add_text("b_wide", WIDE, 1)
        writer.add_text("c_long", LONG, 1)
        matrix = np.array([["name", "**bold** cell"], ["x", "y"]])
        # tensorboard's proto through tensorboardX's writer: the same wire format
        writer.file_writer.add_summary(Summary.FromString(text_pb("d_matrix", matrix).SerializeToString()), 3)
    return root


def shown(view: TextView) -> str:
    """The text body at the width the view gives it, lines without trailing spaces."""
    content = view.query_one("#text-content", Static)
    console = Console(width=content.size.width, file=io.StringIO(), record=True)
    console.print(content.content)
    return "\n".join(line.rstrip() for line in console.export_text().rstrip("\n").split("\n"))


def status(view: TextView) -> str:
    return str(view.query_one("#text-status", Static).render())


def run_text(tmp_path, body, size):
    app = make_app(write_logs(tmp_path / "logs"))

    async def wrapped(pilot):
        app.open_jobs(("./run",), "text")
        await wait_for_view(pilot, app, "TextView")
        view = app.screen.query_one(TextView)
        assert await wait_for(pilot, lambda: view.pending() == 0 and "step" in shown(view))
        return await body(pilot, view)

    return run_pilot(app, wrapped, size=size)


def _rendered_then_raw(tmp_path, size):
    async def body(pilot, view):
        rendered, before = shown(view), status(view)
        await pilot.press("m")
        assert await wait_for(pilot, lambda: "|" in shown(view))
        raw, after = shown(view), status(view)
        await pilot.press("m")
        assert await wait_for(pilot, lambda: "|" not in shown(view))
        return rendered, before, raw, after, view.state.raw

    rendered, before, raw, after, raw_again = run_text(tmp_path, body, size)
    # Rendered: the emphasis is a style, the table a table (a rule under its header, no pipes).
    assert "step 45: results" in rendered and "**" not in rendered and "|" not in rendered
    assert re.search(r"metric\s+value", rendered) and re.search(r"accuracy\s+0\.875", rendered)
    assert "─" in rendered
    assert "· markdown ·" in before and "· as written ·" in after and "m raw" in after
    # As written: the markdown itself.
    assert "**step** 45: results" in raw and "| accuracy | 0.875 |" in raw
    assert not raw_again


def test_a_markdown_table_is_rendered_and_m_shows_it_as_written_80x24(tmp_path):
    _rendered_then_raw(tmp_path, (80, 24))


def test_a_markdown_table_is_rendered_and_m_shows_it_as_written_160x48(tmp_path):
    _rendered_then_raw(tmp_path, (160, 48))


def test_a_table_wider_than_80_columns_keeps_every_character(tmp_path):
    """14 columns of 11-digit numbers do not fit 80 columns: the cells fold, none is cut short."""

    async def body(pilot, view):
        await pilot.press("right_square_bracket")
        assert await wait_for(pilot, lambda: view.pending() == 0 and view.state.tag == "b_wide/text_summary"
                              and "step 1" in shown(view))
        return shown(view), view.query_one("#text-content").size.width

    text, width = run_text(tmp_path, body, (80, 24))
    assert width <= 80 and max(map(len, text.split("\n"))) <= width
    assert "…" not in text
    digits = sorted(re.sub(r"\D", "", "".join(WIDE_CELLS) + "".join(f"column_{k}" for k in range(14))))
    assert sorted(re.sub(r"\D", "", text.split("step 1", 1)[1])) == digits


def test_a_long_text_scrolls_with_the_keyboard_at_80x24(tmp_path):
    async def body(pilot, view):
        for _ in range(2):
            await pilot.press("right_square_bracket")
        assert await wait_for(pilot, lambda: view.pending() == 0 and "paragraph 59" in shown(view))
        body_ = view.query_one("#text-body")
        top = body_.scroll_y
        await pilot.press("end")
        assert await wait_for(pilot, lambda: body_.scroll_y > top)
        return top, body_.scroll_y, body_.max_scroll_y

    top, bottom, most = run_text(tmp_path, body, (80, 24))
    assert top == 0 and bottom == most > 0


def test_a_matrix_of_strings_is_a_table_of_markdown_cells_as_tensorboard_draws_it(tmp_path):
    async def body(pilot, view):
        await pilot.press("left_square_bracket")  # wraps around to the last tag
        assert await wait_for(pilot, lambda: view.pending() == 0 and "name" in shown(view))
        rendered = shown(view)
        await pilot.press("m")
        assert await wait_for(pilot, lambda: "\\x09" in shown(view) or "**" in shown(view))
        return view.state.tag, rendered, shown(view)

    tag, rendered, raw = run_text(tmp_path, body, (80, 24))
    assert tag == "d_matrix"  # tensorboard's own tag; tensorboardX's are "<tag>/text_summary"
    assert re.search(r"name\s+bold cell", rendered) and "**" not in rendered
    assert "**bold** cell" in raw


def test_help_and_footer_name_the_markdown_key(tmp_path):
    async def body(pilot, view):
        footer = " ".join(str(key.render()) for key in pilot.app.screen.query("FooterKey"))
        return footer, await open_help(pilot)

    footer, text = run_text(tmp_path, body, (160, 48))
    assert "m Raw" in footer
    assert re.search(r"\bm\b +Raw", text)


def test_snapshot_markdown_table_80x24(tmp_path, snap_compare):
    from test_tensorboard_views import Host

    from tui_insight.summary.store.cache import SummaryCache

    cache = SummaryCache(str(write_logs(tmp_path / "logs")))
    cache.reload()
    app = Host(cache, ("./run",))

    async def before(pilot):
        view = app.query_one(TextView)
        assert await wait_for(pilot, lambda: view.pending() == 0 and "metric" in shown(view))
        await pilot.pause()

    assert snap_compare(app, terminal_size=(80, 24), run_before=before)
