"""The theme last picked in the app, used at the next start: `theme.json` in the state directory
(`$XDG_STATE_HOME/tui-insight/`, private, written atomically). A theme is the user's, not a
LOGDIR's, so it is kept beside the workspaces, not in one.

Which theme a start uses (`starting_theme`): `--theme`, else the one last picked, else
`theme` in config.toml. A pick remembers the config's theme of that moment, so editing the
config's `theme` later makes the config win again: the newer choice is used.

A damaged file is ignored (the config's theme, or the default, is used) with a one-line reason.
"""
from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

from .user_dirs import private_dir, state_dir
from .workspace import write_atomically


@dataclass(frozen=True)
class PickedTheme:
    """The theme last picked in the app, and config.toml's theme at the time."""

    name: str
    config_theme: str | None  # config.toml's `theme` when it was picked (None: not set)


def theme_path(home: Path | None = None) -> Path:
    return (home or state_dir()) / "theme.json"


def load_picked(path: Path) -> tuple[PickedTheme | None, str]:
    """The theme picked last and "" (or None and why the file was not used; "" when there is none)."""
    if not path.exists():
        return None, ""
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        return None, f"remembered theme {path} ignored (unreadable: {type(exc).__name__})"
    name = data.get("theme") if isinstance(data, dict) else None
    config_theme = data.get("config_theme") if isinstance(data, dict) else None
    if not isinstance(name, str) or not (config_theme is None or isinstance(config_theme, str)):
        return None, f"remembered theme {path} ignored (not a theme name)"
    return PickedTheme(name, config_theme), ""


def save_picked(path: Path, picked: PickedTheme) -> str:
    """Remember `picked`; "" or why it could not be kept."""
    text = json.dumps({"theme": picked.name, "config_theme": picked.config_theme}, ensure_ascii=True)
    try:
        private_dir(path.parent)
        write_atomically(path, text)
    except OSError as exc:
        return f"cannot remember the theme in {path}: {exc.strerror or exc}"
    return ""


def starting_theme(given: str | None, config_theme: str | None, picked: PickedTheme | None) -> str | None:
    """The theme to start with (None: the app's default); see the module doc."""
    if given:
        return given
    if picked is not None and picked.config_theme == config_theme:
        return picked.name
    return config_theme
