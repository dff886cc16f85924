"""The user's defaults: `config.toml` in the config directory (`$XDG_CONFIG_HOME/tui-insight/`),
or the file named by `$TUI_INSIGHT_CONFIG`.

Every key is optional and stands for the command-line option of the same name (a flag given
on the command line wins; for the ssh limits, so does their environment variable):

    theme = "insight-light"        # --theme
    reload_interval = 5            # --reload-interval, seconds (URLs keep 30: a listing is a paid request)
    bell = true                    # --bell
    bell_stalled = false           # --bell-stalled
    memory_budget = "1G"           # --memory-budget (or a number of bytes)
    workers = 4                    # --workers
    ssh_max_listing = "128M"       # --ssh-max-listing
    ssh_timeout = 60               # --ssh-timeout, seconds
    straggler = 0.1                # --straggler: how far behind its group's median step a rank lags

    [keymap]                       # as in keymap.toml: binding id (shown by `?`) = keys
    "jobs.compare" = "k"

A file that is not TOML is ignored as a whole; a key that is unknown or has a bad value is
ignored alone, and the rest applies. Each is one line in `Config.problems`, which the command
line prints on stderr and the app shows as a notice. Nothing here writes.
"""
from __future__ import annotations

import math
import os
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable

from .user_dirs import config_dir

CONFIG_ENV = "TUI_INSIGHT_CONFIG"
SIZE_UNITS = {"": 1, "k": 1 << 10, "m": 1 << 20, "g": 1 << 30, "t": 1 << 40}


def config_path() -> Path:
    """`$TUI_INSIGHT_CONFIG`, else `$XDG_CONFIG_HOME/tui-insight/config.toml` (~/.config by default)."""
    if os.environ.get(CONFIG_ENV):
        return Path(os.environ[CONFIG_ENV]).expanduser()
    return config_dir() / "config.toml"


def parse_size(text: str) -> int:
    """`300M`, `1.5G`, `512k`, `1000000` (bytes; powers of 1024) as a positive number of bytes.
    Raises ValueError saying why not."""
    number = text.strip().lower().removesuffix("b").removesuffix("i")
    unit = number[-1:] if number[-1:] in SIZE_UNITS else ""
    try:
        value = float(number[:len(number) - len(unit)]) * SIZE_UNITS[unit]
    except ValueError:
        raise ValueError(f"{text!r} is not a size (like 300M or 1G)") from None
    if not value >= 1 or value > 1 << 50:
        raise ValueError(f"{text!r} is not a positive size")
    return int(value)


def _size(value: Any) -> int:
    if isinstance(value, bool) or not isinstance(value, (int, str)):
        raise ValueError("is not a size (like \"300M\" or \"1G\")")
    return parse_size(str(value))


def _seconds(upper: float) -> Callable[[Any], float]:
    def check(value: Any) -> float:
        if isinstance(value, bool) or not isinstance(value, (int, float)) or not 0 <= value <= upper \
                or math.isnan(value):
            raise ValueError(f"is not a number of seconds from 0 to {upper:g}")
        return float(value)
    return check


def _positive_seconds(value: Any) -> float:
    seconds = _seconds(86400)(value)
    if seconds == 0:
        raise ValueError("is not a number of seconds from 0 to 86400 (0 excluded)")
    return seconds


def _flag(value: Any) -> bool:
    if not isinstance(value, bool):
        raise ValueError("is not true or false")
    return value


def _count(value: Any) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or value < 1:
        raise ValueError("is not a whole number from 1")
    return value


def _fraction(value: Any) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not 0 < value < 1:
        raise ValueError("is not a fraction between 0 and 1 (like 0.1)")
    return float(value)


def _name(value: Any) -> str:
    if not isinstance(value, str) or not value.strip():
        raise ValueError("is not a name in quotes")
    return value.strip()


# key -> the check that turns the file's value into the option's (or raises ValueError: why not)
KEYS: dict[str, Callable[[Any], Any]] = {
    "theme": _name,
    "reload_interval": _seconds(86400),
    "bell": _flag,
    "bell_stalled": _flag,
    "memory_budget": _size,
    "workers": _count,
    "ssh_max_listing": _size,
    "ssh_timeout": _positive_seconds,
    "straggler": _fraction,
}


@dataclass(frozen=True)
class Config:
    """What the file set: option name -> value (only the keys it set, each checked), its key
    map, and one line for each thing ignored."""

    path: Path | None = None
    values: dict[str, Any] = field(default_factory=dict)
    keymap: dict[str, str] = field(default_factory=dict)
    problems: tuple[str, ...] = ()

    def get(self, key: str, default: Any = None) -> Any:
        return self.values.get(key, default)


def load_config(path: Path | None = None) -> Config:
    """The config in `path` (default `config_path()`); an empty one when there is no file."""
    path = config_path() if path is None else path
    if not path.exists():
        return Config(path)
    if sys.version_info >= (3, 11):
        import tomllib
    else:  # the same parser, as a package (a dependency on 3.10)
        import tomli as tomllib  # type: ignore[import-not-found]  # installed on 3.10 only
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError) as exc:
        return Config(path, problems=(f"config {path} ignored: {getattr(exc, 'strerror', None) or exc}",))
    except ValueError as exc:  # tomllib.TOMLDecodeError: says the line and column
        return Config(path, problems=(f"config {path} ignored: not TOML: {exc}",))
    return read_table(path, data)


def read_table(path: Path, data: dict[str, Any]) -> Config:
    """The checked values of the file's top-level table; each bad or unknown key a problem."""
    values: dict[str, Any] = {}
    keymap: dict[str, str] = {}
    problems: list[str] = []
    for key, value in data.items():
        if key == "keymap":
            keymap, bad = _checked_keymap(value)
            problems += [f"config {path}: [keymap] {entry} ignored" for entry in bad]
        elif key in KEYS:
            try:
                values[key] = KEYS[key](value)
            except ValueError as exc:
                problems.append(f"config {path}: {key} = {_toml(value)} ignored: {exc}")
        else:
            problems.append(f"config {path}: unknown key {key!r} ignored "
                            f"(keys: {', '.join(KEYS)}, [keymap])")
    return Config(path, values, keymap, tuple(problems))


def _checked_keymap(table: Any) -> tuple[dict[str, str], list[str]]:
    if not isinstance(table, dict):
        return {}, [f"= {_toml(table)} (expected a table of binding-id = \"keys\")"]
    good = {key: value for key, value in table.items() if isinstance(value, str) and value.strip()}
    return good, [f"{key!r} = {_toml(value)} (expected \"keys\")" for key, value in table.items() if key not in good]


def _toml(value: Any) -> str:
    """A value as the file wrote it, near enough for a message (cut when long)."""
    text = ("true" if value else "false") if isinstance(value, bool) else \
        f'"{value}"' if isinstance(value, str) else repr(value)
    return text if len(text) <= 40 else text[:39] + "…"


# Options filled from the file when not given; the ssh limits only for an ssh LOGDIR (elsewhere
# they are refused as options) and only without their environment variable (which wins over
# the file, as an option does). `theme` and `reload_interval` are resolved by their users.
FILLED = ("bell", "bell_stalled", "memory_budget", "workers", "straggler")
SSH_FILLED = {"ssh_max_listing": "TUI_INSIGHT_SSH_MAX_LISTING", "ssh_timeout": "TUI_INSIGHT_SSH_TIMEOUT"}


def fill_options(args: Any, config: Config, *, ssh: bool, environ: dict | None = None) -> None:
    """Set each option of `args` (an argparse namespace) left unset (None) to the file's value."""
    env = os.environ if environ is None else environ
    keys = [*FILLED, *(key for key, name in SSH_FILLED.items() if ssh and not env.get(name))]
    if getattr(args, "bell", None) is False:
        keys.remove("bell_stalled")  # --no-bell silences the stalled bell of the file too
    for key in keys:
        if getattr(args, key, None) is None and key in config.values:
            setattr(args, key, config.values[key])
