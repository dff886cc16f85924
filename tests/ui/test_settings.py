"""The user's settings in the app (issue 27): the theme picked in the palette is used at the next
start, `--theme` and a changed config.toml `theme` win over it, and config.toml's `[keymap]`
remaps keys (keymap.toml over it). Each app is built as the command line builds it
(`make_app`), with the state and config directories in a temporary home; the last test runs
the installed program in tmux on a real config.toml."""
from __future__ import annotations


import pytest
from test_e2e_tmux import Tmux, app_command, required_commands
from textual.command import CommandList, CommandPalette
from uihelp import MINDSPORE_LOGS, run_pilot, wait_for

from tui_insight.summary.store.cache import SummaryCache
from tui_insight.ui.app import make_app


@pytest.fixture(autouse=True)
def own_home(tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path / "state"))
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "config"))
    return tmp_path


def app_for(**kwargs):
    return make_app(SummaryCache(str(MINDSPORE_LOGS)), remember=False, **kwargs)


def theme_at_start(**kwargs) -> str:
    app = app_for(**kwargs)

    async def body(pilot):
        return app.theme

    return run_pilot(app, body)


def pick_in_palette(theme: str, **kwargs) -> str:
    """Pick `theme` with ctrl+p and the keyboard; the theme the app then has."""
    app = app_for(**kwargs)

    async def body(pilot):
        await pilot.press("ctrl+p")
        assert await wait_for(pilot, lambda: isinstance(app.screen, CommandPalette))
        await pilot.press(*f"Theme: {theme}")
        commands = app.screen.query_one(CommandList)
        assert await wait_for(pilot, lambda: commands.option_count > 0)
        await pilot.press("down", "enter")
        assert await wait_for(pilot, lambda: app.theme == theme), app.theme
        return app.theme

    return run_pilot(app, body)


def test_the_theme_picked_in_the_palette_is_used_at_the_next_start():
    assert theme_at_start() == "insight-dark"
    assert pick_in_palette("insight-light") == "insight-light"
    assert theme_at_start() == "insight-light"
    assert theme_at_start(theme="textual-dark") == "textual-dark"  # --theme wins, for this start
    assert theme_at_start() == "insight-light"  # and is not remembered


def test_a_config_theme_changed_after_a_pick_wins_until_the_next_pick():
    assert theme_at_start(config_theme="nord") == "nord"
    pick_in_palette("insight-light", config_theme="nord")
    assert theme_at_start(config_theme="nord") == "insight-light"  # picked after the file said nord
    assert theme_at_start(config_theme="dracula") == "dracula"  # the file changed since: newer


def test_a_damaged_remembered_theme_is_ignored(own_home):
    (own_home / "state" / "tui-insight").mkdir(parents=True)
    (own_home / "state" / "tui-insight" / "theme.json").write_text("{not json")
    assert theme_at_start(config_theme="nord") == "nord"


def test_the_config_keymap_remaps_a_key_and_keymap_toml_wins_over_it(own_home):
    def opens_lineage_with(key: str, **kwargs) -> bool:
        app = app_for(**kwargs)

        async def body(pilot):
            await pilot.press(key)
            return await wait_for(pilot, lambda: getattr(app.screen, "spec", None) is not None
                                  and app.screen.spec.view_id == "lineage", timeout=3)

        return run_pilot(app, body)

    assert opens_lineage_with("k", config_keymap={"app.lineage": "k"})
    (own_home / "config" / "tui-insight").mkdir(parents=True)
    (own_home / "config" / "tui-insight" / "keymap.toml").write_text('[keymap]\n"app.lineage" = "j"\n')
    assert opens_lineage_with("j", config_keymap={"app.lineage": "k"})
    assert not opens_lineage_with("k", config_keymap={"app.lineage": "k"})


def test_the_program_applies_config_toml_and_says_what_it_ignored(own_home):
    _tmux, executable = required_commands()
    config = own_home / "config" / "tui-insight" / "config.toml"
    config.parent.mkdir(parents=True)
    config.write_text('workers = 0\nreload_interval = 7\n[keymap]\n"app.lineage" = "k"\n')
    command = app_command(own_home, [executable], str(MINDSPORE_LOGS))
    term = Tmux(width=160, height=40)
    try:
        term.start(command)
        # The notice in the app (shown for 8 s from its start), not the warning printed before it
        term.wait_for("‹health ▼›", "ignored", absent=("tui-insight: warning",))
        term.wait_for("8 jobs", "reload every 7s")  # reload_interval applied
        term.keys("k")
        term.wait_for("Model lineage")
    finally:
        term.kill()
