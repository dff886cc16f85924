"""The key footer rebuilds once per burst of binding changes and always ends on the current keys."""
from __future__ import annotations

import asyncio

from textual.app import App, ComposeResult
from textual.binding import Binding
from textual.widgets import Footer, Static

from tui_insight.ui.widgets.footer import InsightFooter


class Pane(Static, can_focus=True):
    pass


class Left(Pane):
    BINDINGS = [Binding("a", "noop", "Left key")]


class Right(Pane):
    BINDINGS = [Binding("b", "noop", "Right key"), Binding("c", "extra", "Extra key"),
                Binding("d", "more", "More key")]
    show_extra = False
    show_more = False

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action == "extra":
            return self.show_extra
        if action == "more":
            return self.show_more
        return True


class Host(App):
    def __init__(self, footer: type[Footer] = InsightFooter):
        super().__init__()
        self.footer = footer

    def compose(self) -> ComposeResult:
        yield Left("left", id="left")
        yield Right("right", id="right")
        yield self.footer()


def shown_keys(app: App) -> set[str]:
    return {key.description for key in app.query("FooterKey")}  # Footer's key widgets


async def keys_shown_on_focus(app: App, pilot, widget) -> list[str]:
    """The keys the footer shows once `widget` is focused and the app settled (palette key aside)."""
    app.screen.set_focus(widget)
    for _ in range(5):
        await pilot.pause()
    return sorted(key.description for key in app.query("FooterKey")
                  if key.display and not key.has_class("-command-palette"))


def run(body, footer: type[Footer] = InsightFooter):
    async def main():
        app = Host(footer)
        async with app.run_test(size=(80, 10)) as pilot:
            await pilot.pause()
            return await body(app, pilot)

    return asyncio.run(main())


def scheduled_rebuilds(monkeypatch, footer: type[Footer]) -> tuple[int, set[str]]:
    """How many rebuilds (`recompose` calls) a burst of five focus changes schedules, and the keys shown."""
    calls = []
    recompose = footer.recompose

    async def counted(self):
        calls.append(1)
        await recompose(self)

    monkeypatch.setattr(footer, "recompose", counted)

    async def body(app, pilot):
        left, right = app.query_one(Left), app.query_one(Right)
        for _ in range(3):
            await pilot.pause()
        calls.clear()
        for widget in (right, left, right, left, right):  # five changes before the next refresh
            app.screen.set_focus(widget)
        for _ in range(5):
            await pilot.pause()
        return len(calls), shown_keys(app)

    return run(body, footer)


def test_a_burst_of_focus_changes_schedules_one_rebuild_per_refresh(monkeypatch):
    count, keys = scheduled_rebuilds(monkeypatch, InsightFooter)
    # Each focus change publishes at once and again when the focus events are handled: ten
    # changes in two bursts. Textual's footer schedules ten rebuilds (the test below); this one
    # one per burst, and one more for changes that came after a rebuild had read the keys.
    assert count <= 3
    assert "Right key" in keys and "Left key" not in keys


def test_textual_footer_schedules_one_rebuild_per_change(monkeypatch):
    """What the coalescing guards against (the test above fails without it: Textual 8.2's own
    `Footer.bindings_changed` schedules a recompose for every change)."""
    count, keys = scheduled_rebuilds(monkeypatch, Footer)
    assert count >= 10  # two per focus change
    assert "Right key" in keys


def test_focus_moving_between_widgets_with_the_same_keys_rebuilds_nothing(monkeypatch):
    rebuilt = []
    compose = InsightFooter.compose

    def counted(self):
        rebuilt.append(1)
        yield from compose(self)

    monkeypatch.setattr(InsightFooter, "compose", counted)

    async def body(app, pilot):
        left, right = app.query_one("#left", Left), app.query_one(Right)
        await app.mount(Left("twin", id="twin"))
        twin = app.query_one("#twin", Left)
        app.screen.set_focus(left)
        for _ in range(5):
            await pilot.pause()
        rebuilt.clear()
        for widget in (twin, left, twin):
            app.screen.set_focus(widget)
            for _ in range(3):
                await pilot.pause()
        same = len(rebuilt)
        app.screen.set_focus(right)
        for _ in range(5):
            await pilot.pause()
        return same, len(rebuilt) - same, shown_keys(app)

    same, changed, keys = run(body)
    assert same == 0  # Left and its twin show the same keys
    assert changed >= 1 and "Right key" in keys


def test_a_change_after_the_rebuild_read_the_keys_is_not_lost():
    async def body(app, pilot):
        right = app.query_one(Right)
        footer = app.query_one(InsightFooter)
        app.screen.set_focus(right)
        for _ in range(3):
            await pilot.pause()
        assert "Extra key" not in shown_keys(app)
        compose = InsightFooter.compose

        def compose_then_change(self):
            yield from compose(self)
            if not right.show_extra:  # the key appears while the rebuild is under way, published once
                right.show_extra = True
                app.screen.refresh_bindings()

        InsightFooter.compose = compose_then_change
        try:
            right.show_more = True  # a change: the footer rebuilds, and meanwhile the next one comes
            app.screen.refresh_bindings()
            for _ in range(5):
                await pilot.pause()
        finally:
            InsightFooter.compose = compose
        return shown_keys(app), footer.rebuild_pending

    keys, pending = run(body)
    assert "More key" in keys and "Extra key" in keys and not pending


def test_a_focus_change_shows_its_keys_at_once_in_the_key_widgets_already_there():
    """The footer's key widgets take the newly focused widget's keys when the focus change is
    published, not in a rebuild after the next refresh (a second paint, ~50 ms later in the app):
    the same widgets stay, those past the new count are hidden, missing ones are added."""
    def plain(app):
        return [key for key in app.query("FooterKey") if not key.has_class("-command-palette") and key.display]

    async def body(app, pilot):
        left, right = app.query_one("#left", Left), app.query_one(Right)
        app.screen.set_focus(left)
        for _ in range(5):
            await pilot.pause()
        before = plain(app)
        app.screen.set_focus(right)
        for _ in range(5):
            await pilot.pause()
        shown, same = shown_keys(app), plain(app)
        right.show_more = True
        app.screen.refresh_bindings()
        for _ in range(5):
            await pilot.pause()
        more = shown_keys(app)
        app.screen.set_focus(left)
        for _ in range(5):
            await pilot.pause()
        return before, shown, same, more, shown_keys(app), len(plain(app))

    before, shown, same, more, back, count = run(body)
    assert "Right key" in shown and "Left key" not in shown
    assert same == before  # one key each: the same widget shows Right's
    assert {"Right key", "More key"} <= more
    assert "Left key" in back and "Right key" not in back and "More key" not in back and count == 1


def test_the_key_bar_shows_only_whole_keys_and_keeps_help(ui_logs):
    from tui_insight.ui.widgets.footer import FooterKey
    from uihelp import make_app, run_pilot, wait_for_view

    def keys_at(size):
        app = make_app(ui_logs)

        async def body(pilot):
            app.open_jobs(("./run_a",))
            await wait_for_view(pilot, app)
            await pilot.pause(0.2)
            footer = app.screen.query_one(InsightFooter)
            keys = [k for k in footer.query(FooterKey) if not k.has_class("-command-palette") and k.display]
            text = " ".join(str(k.render().plain) for k in keys)
            return [(k.key_display, k.description) for k in keys], text, footer.size.width

        return run_pilot(app, body, size=size)

    narrow, narrow_text, width = keys_at((80, 24))
    wide, _, _ = keys_at((160, 48))
    assert narrow[-1] == ("?", "Help") and wide[-1] == ("?", "Help")
    assert len(wide) > len(narrow)  # the keys that did not fit at 80 columns are shown at 160
    assert narrow == wide[:len(narrow) - 1] + [("?", "Help")]  # in order, whole
    assert sum(len(k) + len(d) + 3 for k, d in narrow) <= width - len("^p Commands") - 2
    for key, description in narrow:
        assert f"{key} {description}" in narrow_text


def test_new_keys_are_written_into_the_key_widgets_already_shown():
    """Focus moving to a pane with other keys rewrites the mounted key widgets (one more is
    mounted for the extra key) instead of mounting a new set, and each shows its new key."""
    async def body(app, pilot):
        left, right = app.query_one(Left), app.query_one(Right)
        right.show_extra = True
        app.screen.set_focus(left)
        for _ in range(5):
            await pilot.pause()
        before = list(app.query("FooterKey"))
        app.screen.set_focus(right)
        for _ in range(5):
            await pilot.pause()
        after = list(app.query("FooterKey"))
        rendered = [str(key.render()) for key in after]
        return before, after, rendered

    before, after, rendered = run(body)
    assert {id(key) for key in before} <= {id(key) for key in after}  # the same widgets, kept
    assert len(after) == len(before) + 1  # "Right key" and "Extra key" where "Left key" was
    assert [key.description for key in after if not key.has_class("-command-palette")] == ["Right key", "Extra key"]
    assert any("Right key" in text for text in rendered) and not any("Left key" in text for text in rendered)


def test_keys_hidden_and_shown_again_by_a_focus_change_are_not_restyled():
    """Focus moving to a widget of fewer keys hides the key widgets past them and blanks their
    text, but leaves their classes: restyling a key costs ~1 ms and `/` in a view hid nine of
    them, which `escape` brought back (each key was restyled twice)."""
    async def body(app, pilot):
        left, right = app.query_one("#left", Left), app.query_one(Right)
        right.show_more = True
        app.screen.set_focus(right)
        for _ in range(5):
            await pilot.pause()
        styled: list[str] = []
        apply = app.stylesheet.apply

        def counted(node, *args, **kwargs):
            styled.append(type(node).__name__)
            return apply(node, *args, **kwargs)

        app.stylesheet.apply = counted
        seen = []
        for widget in (left, right):
            seen.append(await keys_shown_on_focus(app, pilot, widget))
        app.stylesheet.apply = apply
        return seen, styled.count("FooterKey")

    seen, restyled = run(body)
    assert seen == [["Left key"], ["More key", "Right key"]]
    assert restyled == 0
