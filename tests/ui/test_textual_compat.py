"""The shims of `tui_insight/ui/_textual_compat` do what they are there for.

Each test checks the behaviour a shim guards and, with the shim switched off, that the same
check fails: on a Textual (or plotext) where a shim's internal is gone, these go red instead of
the program quietly losing the behaviour. The footer's coalescing is tested in test_footer.py.
"""
from __future__ import annotations

import asyncio
import importlib.metadata
import re
from pathlib import Path

import numpy as np
import plotext as plt
from textual import events
from textual.app import App, ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical
from textual.message import Message
from textual.widgets import Input, OptionList, Static, Tree

from tui_insight.ui import _textual_compat as compat
from tui_insight.ui.messages import LatestMessage
from tui_insight.ui.screens import help as help_module
from tui_insight.ui.screens.help import collect_bindings, help_text
from tui_insight.ui.screens.jobs import JobsScreen
from tui_insight.ui.widgets.chart import ChartOptions, Trace, draw_chart
from uihelp import MINDSPORE_LOGS, make_app, run_pilot

PYPROJECT = Path(__file__).resolve().parents[2] / "pyproject.toml"


# -- versions ---------------------------------------------------------------------------------------

def major_minor(version: str) -> tuple[int, int]:
    match = re.match(r"(\d+)\.(\d+)", version)
    assert match, f"not a version: {version!r}"
    return int(match[1]), int(match[2])


def supported(installed: str, tested: str) -> bool:
    """The rule: the major version the shims were tested on, and no older minor.

    A newer minor of the same major is allowed (Textual keeps its API within a major; the shim
    tests below say if an internal moved anyway). A new major fails until the shims were
    checked against it and TEXTUAL_TESTED and the pin in pyproject moved together.
    """
    (major, minor), (t_major, t_minor) = major_minor(installed), major_minor(tested)
    return major == t_major and minor >= t_minor


def test_the_version_rule():
    assert supported("8.2.8", "8.2") and supported("8.2.0", "8.2") and supported("8.5.1", "8.2")
    assert not supported("9.0.0", "8.2") and not supported("8.1.3", "8.2") and not supported("7.9", "8.2")


def test_installed_textual_is_the_one_the_shims_were_tested_on():
    installed = importlib.metadata.version("textual")
    assert supported(installed, compat.TEXTUAL_TESTED), (
        f"Textual {installed} is installed; the shims in tui_insight/ui/_textual_compat were "
        f"written for {compat.TEXTUAL_TESTED}: check each against it, then move TEXTUAL_TESTED and the pin")


def test_pyproject_pins_textual_to_the_tested_minor():
    """The snapshots are drawn by one Textual: the pin is the minor version the shims name."""
    pins = re.findall(r'"textual([<>=!~][^"]*)"', PYPROJECT.read_text(encoding="utf-8"))
    assert pins == [f"=={compat.TEXTUAL_TESTED}.*"]


# -- keys resolved in arrival order (App._check_bindings) ------------------------------------------

def burst(app, text: str) -> None:
    """Post every key at once, without waiting for the app in between (as a terminal delivers them)."""
    names = {"/": "slash", " ": "space"}
    for char in text:
        app.post_message(events.Key(names.get(char, char), char))


def filter_burst() -> tuple[bool, str]:
    """`/lenet` in one burst on the job list: (still on the job list, what the filter box holds)."""
    app = make_app(MINDSPORE_LOGS)

    async def body(pilot):
        burst(app, "/lenet")
        await pilot.pause(0.3)
        boxes = app.screen.query(Input)
        return isinstance(app.screen, JobsScreen), boxes.first().value if boxes else None

    return run_pilot(app, body)


def test_a_burst_goes_where_the_user_meant_with_the_shim():
    assert filter_burst() == (True, "lenet")


def test_without_the_shim_the_same_burst_is_misrouted(monkeypatch):
    """The test above can fail: with the shim off, `l` of `lenet` reaches the list (lineage opens)."""
    async def off(app, key):
        return False

    monkeypatch.setattr(compat, "resolve_binding_now", off)
    assert filter_burst() != (True, "lenet")


# -- `?` lists remapped keys (App._keymap, DOMNode._bindings) -----------------------------------------

class Pane(Static, can_focus=True):
    HELP_GROUP = "Pane"
    BINDINGS = [Binding("b", "noop", "Bee", id="pane.bee")]


class Other(Static, can_focus=True):
    pass


class KeyHost(App):
    BINDINGS = [Binding("x", "noop", "Ex", id="host.ex")]

    def compose(self) -> ComposeResult:
        yield Other("other", id="other")
        yield Pane("pane", id="pane")


def help_for_unfocused_pane() -> tuple[dict[str, str], str]:
    """{binding id: key} of `?` while the pane with remapped keys is not focused, and the help text."""
    async def main():
        app = KeyHost()
        async with app.run_test(size=(80, 12)) as pilot:
            app.set_keymap({"pane.bee": "z", "host.ex": "y"})
            app.screen.set_focus(app.query_one("#other"))
            await pilot.pause()
            groups = collect_bindings(app.screen, extra=[app.query_one(Pane)])
            keys = {binding.id: key for entries in groups.values() for key, binding, _node in entries}
            return keys, help_text(groups, app)

    return asyncio.run(main())


def test_help_lists_remapped_keys_of_unfocused_nodes():
    keys, text = help_for_unfocused_pane()
    assert keys["pane.bee"] == "z" and keys["host.ex"] == "y"
    plain = re.sub(r"\[/?[^\]]*\]", "", text)  # the markup's tags dropped
    assert re.search(r"\bz\s+Bee", plain) and not re.search(r"\bb\s+Bee", plain)


def test_without_the_keymap_shim_help_shows_the_old_keys(monkeypatch):
    monkeypatch.setattr(help_module, "app_keymap", lambda app: {})
    keys, _text = help_for_unfocused_pane()
    assert keys["pane.bee"] == "b"


def test_without_the_bindings_shim_help_misses_unfocused_keys(monkeypatch):
    monkeypatch.setattr(help_module, "own_bindings", lambda node: iter(()))
    keys, _text = help_for_unfocused_pane()
    assert "pane.bee" not in keys


# -- plotext's shortcut (fig._signals._add) --------------------------------------------------------

def chart(n: int = 50):
    x = np.arange(n, dtype=np.float64)
    traces = [Trace(x, np.sin(x / 5), "#ff0000"), Trace(x, np.cos(x / 5), "#00ff00", kind="smoothed")]
    return draw_chart(traces, ChartOptions(hlines=(0.5,)), 60, 14)


def test_charts_take_plotexts_shortcut(monkeypatch):
    fig = plt.figure
    added, drawn = [], []
    shortcut, draw = fig._signals._add, fig.draw

    def counted_add(signal):
        added.append(signal)
        return shortcut(signal)

    def counted_draw(*args, **kwargs):
        drawn.append(args)
        return draw(*args, **kwargs)

    monkeypatch.setattr(fig._signals, "_add", counted_add)
    monkeypatch.setattr(fig, "draw", counted_draw)
    picture = chart().plain
    assert len(added) == 3 and drawn == []  # two traces and the threshold line, none through draw
    assert picture.strip()


def test_the_shortcut_draws_what_draw_would(monkeypatch):
    with_shortcut = chart().lines
    drawn = []

    def through_draw(fig, signal):
        drawn.append(signal)
        fig.draw(signal)
        return False

    monkeypatch.setattr(compat, "add_signal", through_draw)  # a plotext without the shortcut
    assert chart().lines == with_shortcut and len(drawn) == 3


# -- option lists ---------------------------------------------------------------------------------

class SqueezedList(App):
    """An option list with no room at all, as a 20x6 terminal leaves the views' lists."""

    CSS = "OptionList { height: 0; }"

    def compose(self) -> ComposeResult:
        from textual.widgets import OptionList

        yield OptionList(*[f"option {i}" for i in range(50)])


def press_page_keys(app: App):
    async def body(pilot):
        from textual.widgets import OptionList

        options = app.query_one(OptionList)
        options.focus()
        options.highlighted = 3
        await pilot.pause()
        await pilot.press("pagedown", "pageup")
        return options.highlighted

    return run_pilot(app, body)


def test_page_keys_on_a_squeezed_option_list_do_nothing():
    assert press_page_keys(SqueezedList()) == 3


def test_without_the_paging_guard_page_keys_on_a_squeezed_list_raise(monkeypatch):
    import pytest
    from textual.widgets import OptionList

    monkeypatch.setattr(OptionList, "_move_page", OptionList._move_page.__wrapped__)
    with pytest.raises(KeyError):
        press_page_keys(SqueezedList())


# -- same_sender: messages only the newest of which matters ----------------------------------------

class _Moved(LatestMessage):
    def __init__(self, where: int) -> None:
        super().__init__()
        self.where = where


class _Said(Message):
    def __init__(self, where: int) -> None:
        super().__init__()
        self.where = where


class _Mover(Static):
    def burst(self, kind: type, wheres: range, made: list) -> None:
        made.extend(kind(where) for where in wheres)  # made by the widget: it is their sender


class _Movers(App):
    def __init__(self) -> None:
        super().__init__()
        self.heard: list[tuple[str, str, int]] = []

    def compose(self) -> ComposeResult:
        yield _Mover(id="a")
        yield _Mover(id="b")

    def on__moved(self, message: _Moved) -> None:
        self.heard.append(("moved", message._sender.id, message.where))

    def on__said(self, message: _Said) -> None:
        self.heard.append(("said", message._sender.id, message.where))


def test_a_burst_of_latest_messages_from_one_widget_is_heard_once_and_others_every_time():
    """Five moves from one widget queued one behind the other are heard as the last; another
    widget's move queued right behind them is heard too (`same_sender`), and ordinary messages are
    all heard."""
    app = _Movers()

    async def main():
        async with app.run_test() as pilot:
            a, b = app.query_one("#a", _Mover), app.query_one("#b", _Mover)
            moves_a: list = []
            move_b: list = []
            said: list = []
            a.call_later(a.burst, _Moved, range(5), moves_a)
            b.call_later(b.burst, _Moved, range(9, 10), move_b)
            a.call_later(a.burst, _Said, range(3), said)
            await pilot.pause()
            for message in moves_a + move_b + said:  # one behind the other in the app's queue
                app.post_message(message)
            await pilot.pause()

    asyncio.run(main())
    assert sorted(m for m in app.heard if m[0] == "moved") == [("moved", "a", 4), ("moved", "b", 9)]
    assert [m for m in app.heard if m[0] == "said"] == [("said", "a", 0), ("said", "a", 1), ("said", "a", 2)]


def test_a_lineage_cursor_move_by_the_user_is_not_folded_into_one_by_the_program():
    from tui_insight.ui.widgets.lineage_table import LineageTable

    table = LineageTable()
    by_user = LineageTable.CursorMoved(table, "r1", "c", user=True)
    by_program = LineageTable.CursorMoved(table, "r2", "c", user=False)
    assert not by_user.can_replace(by_program)  # the user's move stays
    assert by_program.can_replace(by_user) and by_user.can_replace(LineageTable.CursorMoved(table, "r3", "c", True))


# -- one paint per key (App._begin_batch, Screen._on_idle) ---------------------------------------------

def count_paints(app, whole_screen: bool = False) -> list[int]:
    """A list that gets a 1 for each paint of `app` with something to draw (`App._display`);
    `whole_screen`: only for a paint that draws the whole screen (Textual's full update, a
    `LayoutUpdate` over the screen's region, where a partial one is made of spans)."""
    painted: list[int] = []
    display = app._display

    def counted(screen, renderable):
        if renderable is not None and (not whole_screen or getattr(renderable, "region", None) == screen.region):
            painted.append(1)
        return display(screen, renderable)

    app._display = counted
    return painted


def paints_per_cursor_key() -> tuple[list[int], list[str]]:
    """Paints (`App._display` with something to draw) after each of six cursor moves in the tensor
    view's table, which tells the view by a message (the view then draws the read-out); and the
    read-out after each key."""
    from tui_insight.ui.views.tensors import TensorsView

    app = make_app(MINDSPORE_LOGS)
    painted = count_paints(app)

    async def body(pilot):
        app.open_jobs(("./lenet_lr0.01",), "tensors")
        view = None
        for _ in range(100):
            await pilot.pause(0.05)
            views = app.screen.query(TensorsView)
            view = views.first() if views else None
            if view is not None and view.body.table_key is not None and view.slice is not None:
                break
        assert view is not None and view.body.table_key is not None
        await pilot.pause(0.3)
        for key in ("down", "right", "up", "left"):  # not counted: the first moves of a process paint
            await pilot.press(key)                   # more (the table's first scroll, styles cached)
            await pilot.pause(0.2)
        counts, readouts = [], []
        for key in ("down", "right", "down", "right", "up", "left"):
            painted.clear()
            await pilot.press(key)
            await pilot.pause(0.2)
            counts.append(len(painted))
            readouts.append(str(view.query_one("#tensor-readout").render()))
        return counts, readouts

    return run_pilot(app, body, size=(120, 36))


def test_a_cursor_key_whose_work_goes_on_in_messages_paints_once():
    counts, readouts = paints_per_cursor_key()
    assert sum(counts) <= 7, counts  # one each (a loaded machine may stretch a key past the hold)
    assert len(set(readouts)) > 1  # the read-out followed the cursor


def test_without_the_hold_the_same_keys_paint_twice(monkeypatch):
    """The test above can fail: with the hold off, the table's move paints, then the read-out."""
    monkeypatch.setattr(compat, "paint_once_settled", lambda app: None)
    counts, _ = paints_per_cursor_key()
    assert sum(counts) >= 10, counts


def test_without_the_scroll_view_shim_the_same_keys_paint_twice(monkeypatch):
    """Every layout repainted every ScrollView's scrollbars after the paint (the read-out's new
    line lays the screen out): a second paint per key, although nothing else changed."""
    from textual.scroll_view import ScrollView

    from textual.screen import Screen

    monkeypatch.setattr(ScrollView, "_size_updated", ScrollView._size_updated.__wrapped__)
    # (the scrollbars' paint would join the layout's: bars_paint_with_layout, tested below)
    monkeypatch.setattr(Screen, "_compositor_refresh", Screen._compositor_refresh.__wrapped__)
    counts, _ = paints_per_cursor_key()
    assert sum(counts) >= 10, counts


# -- one layout per change (Widget._size_updated) -------------------------------------------------------

class Grow(App):
    CSS = "Static { width: auto; } Horizontal { height: 1; }"

    def compose(self) -> ComposeResult:
        with Horizontal():
            yield Static("a", id="one")
            yield Static("b", id="two")


def paints_per_resize() -> tuple[list[int], str]:
    """Paints after each of three updates that change a widget's width (and move its neighbour)."""
    async def main():
        app = Grow()
        painted = count_paints(app)
        async with app.run_test(size=(40, 5)) as pilot:
            await pilot.pause(0.2)
            counts = []
            for text in ("longer text", "x", "much longer text here"):
                painted.clear()
                app.query_one("#one", Static).update(text)
                await pilot.pause(0.2)
                counts.append(len(painted))
            return counts, str(app.query_one("#two", Static).region.x)

    return asyncio.run(main())


def test_a_widget_resized_by_a_layout_is_laid_out_and_painted_once():
    counts, neighbour_at = paints_per_resize()
    assert counts == [1, 1, 1]
    assert neighbour_at == str(len("much longer text here"))  # the neighbour moved over


def test_without_the_layout_shim_each_resize_paints_twice(monkeypatch):
    from textual.widget import Widget

    monkeypatch.setattr(Widget, "_size_updated", Widget._size_updated.__wrapped__)
    counts, _ = paints_per_resize()
    assert counts == [2, 2, 2]


# -- a tree shown again (Tree._on_resize) ---------------------------------------------------------------

class Panes(App):
    """A tree and a text in one place, one shown at a time (the graph view's `d`)."""

    CSS = "#tree { display: none; height: 1fr; } #text { height: 1fr; }"

    def compose(self) -> ComposeResult:
        tree: Tree[None] = Tree("root", id="tree")
        for i in range(5):
            tree.root.add_leaf(f"leaf {i}")
        tree.root.expand()
        yield tree
        yield Static("text", id="text")


def paints_per_swap() -> tuple[list[int], list[str]]:
    """Paints after each time the tree is shown in place of the text, and its first lines."""
    async def main():
        app = Panes()
        painted = count_paints(app)
        async with app.run_test(size=(40, 12)) as pilot:
            await pilot.pause(0.2)
            tree, text = app.query_one(Tree), app.query_one("#text")
            counts = []
            for shown in (True, False, True):
                painted.clear()
                tree.display, text.display = shown, not shown
                await pilot.pause(0.2)
                if shown:
                    counts.append(len(painted))
            lines = [line.text.rstrip() for line in tree.render_lines(tree.region.reset_offset)[:3]]
            return counts, lines

    return asyncio.run(main())


def test_a_tree_shown_again_is_laid_out_and_painted_once():
    counts, lines = paints_per_swap()
    assert counts == [1, 1]
    assert lines[1].endswith("leaf 0")  # its lines drawn at its size


def test_without_the_tree_shim_a_tree_shown_again_paints_twice(monkeypatch):
    from textual._compositor import Compositor

    monkeypatch.setattr(Tree, "_on_resize", Tree._on_resize.__wrapped__)
    # (and without quiet_show_resize, which spares a tree shown again at its size the Resize)
    monkeypatch.setattr(Compositor, "reflow", Compositor.reflow.__wrapped__)
    counts, _ = paints_per_swap()
    assert counts == [2, 2]


# -- a widget shown again at its size (Compositor.reflow) ---------------------------------------------

class ShownList(OptionList):
    """An option list that counts its Show events."""

    shows = 0

    def on_show(self) -> None:
        self.shows += 1


class ListPanes(App):
    """An option list and a text in one place, one shown at a time (views in a ContentSwitcher)."""

    CSS = "#list { display: none; height: 1fr; } #text { height: 1fr; }"

    def compose(self) -> ComposeResult:
        yield ShownList(*(f"option {i}" for i in range(5)), id="list")
        yield Static("text", id="text")


def list_shows() -> tuple[list[int], list[str], int]:
    """Paints after each time the list is shown in place of the text, its first lines, and the
    Show events it got."""
    async def main():
        app = ListPanes()
        painted = count_paints(app)
        async with app.run_test(size=(40, 12)) as pilot:
            await pilot.pause(0.2)
            listing, text = app.query_one(ShownList), app.query_one("#text")
            counts = []
            for shown in (True, False, True, False, True):
                painted.clear()
                listing.display, text.display = shown, not shown
                await pilot.pause(0.2)
                if shown:
                    counts.append(len(painted))
            lines = [line.text.rstrip() for line in listing.render_lines(listing.region.reset_offset)[:2]]
            return counts, lines, listing.shows

    return asyncio.run(main())


# -- an option list shown again or resized (OptionList._on_resize) ----------------------------------

class Options(App):
    """An option list and a text in one place, one shown at a time (the tag list as full screen
    ends); the list is longer than its height, its rows cut at its width, which can change."""

    CSS = """
    #options { height: 1fr; width: 24; text-wrap: nowrap; text-overflow: ellipsis; }
    #text { display: none; height: 1fr; }
    """

    def compose(self) -> ComposeResult:
        yield OptionList(*(f"option {i} " + "word " * 8 for i in range(8)), id="options")
        yield Static("text", id="text")


def paints_per_option_swap() -> tuple[list[int], list[str]]:
    """Paints after each time the list is shown again in place of the text; its first line then,
    and after it is made wider."""
    async def main():
        app = Options()
        painted = count_paints(app)
        async with app.run_test(size=(40, 12)) as pilot:
            await pilot.pause(0.2)
            options, text = app.query_one(OptionList), app.query_one("#text")
            counts, lines = [], []
            for shown in (False, True, False, True):
                painted.clear()
                options.display, text.display = shown, not shown
                await pilot.pause(0.2)
                if shown:
                    counts.append(len(painted))
            lines.append(options.render_lines(options.region.reset_offset)[1].text.strip(" ▊▎"))
            options.styles.width = 36
            await pilot.pause(0.2)
            lines.append(options.render_lines(options.region.reset_offset)[1].text.strip(" ▊▎"))
            return counts, lines

    return asyncio.run(main())


def test_a_list_shown_again_at_its_size_is_painted_once():
    """The first show sizes the list (its Resize drops its rows: a second paint); shown again
    at that size, one paint, and every show still gets its Show event."""
    counts, lines, shows = list_shows()
    assert counts[1:] == [1, 1], counts
    assert "option 0" in lines[1]  # (its first line is its border)
    assert shows == 3


def test_without_the_show_shim_a_list_shown_again_paints_twice(monkeypatch):
    from textual._compositor import Compositor

    monkeypatch.setattr(Compositor, "reflow", Compositor.reflow.__wrapped__)
    # (and without the option list's own shim, which keeps its rows through a same-size Resize)
    monkeypatch.setattr(OptionList, "_on_resize", OptionList._on_resize.__wrapped__)
    counts, _, _ = list_shows()
    assert counts[1:] == [2, 2], counts


def test_an_option_list_shown_again_is_painted_once_and_drawn_again_at_a_new_width():
    counts, (narrow, wide) = paints_per_option_swap()
    assert counts == [1, 1]
    assert narrow == "option 0 word word …"  # cut at its width...
    assert wide == "option 0 word word word word wo…"  # ...and again at the new one


def test_without_the_option_list_shim_a_list_shown_again_paints_twice(monkeypatch):
    from textual._compositor import Compositor

    monkeypatch.setattr(OptionList, "_on_resize", OptionList._on_resize.__wrapped__)
    # (and without quiet_show_resize, which spares a list shown again at its size the Resize)
    monkeypatch.setattr(Compositor, "reflow", Compositor.reflow.__wrapped__)
    counts, _ = paints_per_option_swap()
    assert counts == [2, 2]


# -- scrollbars a layout shows (Widget._scroll_update) ---------------------------------------------

class Overflowing(App):
    """Rows that overflow a box that shows no scrollbar until asked (a tag grid's `g`)."""

    CSS = "#box { height: 10; overflow-y: hidden; } #box > Static { height: 4; }"

    def compose(self) -> ComposeResult:
        with Vertical(id="box"):
            for i in range(5):
                yield Static(f"row {i}")


def paints_per_scrollbar() -> tuple[list[int], list[int]]:
    """Paints after the box is given its scrollbar, then after it is taken away; the box's
    scrollbar columns after each."""
    async def main():
        app = Overflowing()
        painted = count_paints(app)
        async with app.run_test(size=(30, 12)) as pilot:
            await pilot.pause(0.2)
            box = app.query_one("#box")
            counts, bars = [], []
            for overflow in ("scroll", "hidden"):
                painted.clear()
                box.styles.overflow_y = overflow
                await pilot.pause(0.2)
                counts.append(len(painted))
                bars.append(box.scrollbar_size_vertical)
            return counts, bars

    return asyncio.run(main())


def test_a_scrollbar_a_layout_shows_is_painted_with_it():
    counts, bars = paints_per_scrollbar()
    assert counts == [1, 1]
    assert bars[0] > 0 and bars[1] == 0


def test_without_the_scrollbar_shim_a_scrollbar_paints_after_the_layout(monkeypatch):
    from textual.screen import Screen

    monkeypatch.setattr(Screen, "_compositor_refresh", Screen._compositor_refresh.__wrapped__)
    counts, _ = paints_per_scrollbar()
    assert counts[0] == 2, counts


# -- a focus change (Screen.focused) ----------------------------------------------------------------

def whole_screen_paints_per_filter_key() -> list[int]:
    """Paints that drew the whole screen (a full update: the region of every widget) after each
    of `/` and `escape` (the keyboard into the scalar view's tag filter and back), twice; counted
    after two uncounted rounds (the first ones of a process lay out and style more)."""
    from tui_insight.ui.views.scalars import ScalarsView
    from tui_insight.ui.widgets.chart import ScalarChart

    app = make_app(MINDSPORE_LOGS)
    whole = count_paints(app, whole_screen=True)

    async def body(pilot):
        app.open_jobs(("./lenet_lr0.01",), "scalars")
        for _ in range(100):
            await pilot.pause(0.05)
            if app.screen.query(ScalarsView) and isinstance(app.focused, ScalarChart):
                break
        assert isinstance(app.focused, ScalarChart)
        await pilot.pause(0.3)
        for key in ("slash", "escape", "slash", "escape"):  # not counted
            await pilot.press(key)
            await pilot.pause(0.2)
        counts = []
        for key in ("slash", "escape", "slash", "escape"):
            whole.clear()
            await pilot.press(key)
            await pilot.pause(0.2)
            counts.append(len(whole))
        assert app.focused is not None and not isinstance(app.focused, Input)  # escape left the box
        return counts

    return run_pilot(app, body, size=(160, 48))


def test_a_focus_change_does_not_repaint_the_whole_screen():
    """With the shim, `/` and `escape` paint only what they change (the filter box, the footer,
    the charts the layout moved); Textual's own focus repaint drew the whole screen again."""
    assert whole_screen_paints_per_filter_key() == [0, 0, 0, 0]


def test_without_the_focus_shim_a_focus_change_repaints_the_whole_screen(monkeypatch):
    from textual.screen import Screen

    monkeypatch.setattr(Screen.focused, "_repaint", Screen.focused.repaint_before_shim)
    assert all(whole_screen_paints_per_filter_key()), "Textual's focus repaint is gone: drop the shim?"


# -- the tab underline (Tabs._highlight_active) ----------------------------------------------------

class TabBar(App):
    """Tabs whose activation is followed, as the dashboard's, by moving the underline at once."""

    def compose(self) -> ComposeResult:
        from textual.widgets import Tab, Tabs

        yield Tabs(*(Tab(f"{i} view {i}", id=f"tab-{i}") for i in range(1, 5)), active="tab-1")
        yield Static("body")

    def activate(self, tab_id: str, now: bool) -> None:
        from textual.widgets import Tabs

        tabs = self.query_one(Tabs)
        tabs.active = tab_id
        if now:
            compat.underline_active_tab(tabs)


def underline_paints(now: bool) -> tuple[list[int], list[tuple[int, int]]]:
    """Paints after each tab activated, and where the underline is then."""
    from textual.widgets._tabs import Underline

    async def main():
        app = TabBar()
        app.animation_level = "none"
        painted = count_paints(app)
        async with app.run_test(size=(60, 6)) as pilot:
            await pilot.pause(0.2)
            counts, places = [], []
            for tab in ("tab-3", "tab-2"):
                painted.clear()
                app.activate(tab, now)
                await pilot.pause(0.2)
                counts.append(len(painted))
                underline = app.query_one(Underline)
                places.append((underline.highlight_start, underline.highlight_end))
            return counts, places

    return asyncio.run(main())


def test_the_underline_moves_in_the_frame_that_activates_a_tab():
    counts, places = underline_paints(now=True)
    later_counts, later_places = underline_paints(now=False)
    assert counts == [1, 1]
    assert places == later_places and places[0] != places[1]  # where Textual puts it
    assert later_counts == [2, 2]  # Textual alone: the tab's frame, then the underline's


def test_a_change_on_the_job_list_under_a_dashboard_paints_nothing():
    """The job list under an (opaque) dashboard is not shown: a change on it (its table redrawn,
    its footer rewritten for new bindings) paints no frame, and it shows the change once back."""
    from uihelp import MINDSPORE_LOGS, make_app, run_pilot, wait_for_view

    from tui_insight.ui.widgets.job_table import JobTable

    app = make_app(MINDSPORE_LOGS)

    async def body(pilot):
        app.open_jobs(("./lenet_lr0.01",), "scalars")
        await wait_for_view(pilot, app)
        await pilot.pause(0.3)
        painted = count_paints(app)
        covered = app.screen_stack[-2]
        covered.query_one(JobTable).refresh()
        covered.refresh()
        await pilot.pause(0.3)
        under = len(painted)
        await pilot.press("escape")
        await pilot.pause(0.3)
        return under, len(painted), app.screen is covered

    under, after, back = run_pilot(app, body, size=(100, 30))
    assert under == 0
    assert back and after > 0
