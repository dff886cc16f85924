"""Where tui-insight keeps its own files in the user's home, and how they are kept private.

Every path the program writes outside LOGDIR comes from here (platformdirs: the XDG base
directories on Linux, `$XDG_CONFIG_HOME` and friends honoured; the platform's own elsewhere):

- `config_dir()`: `~/.config/tui-insight` (`config.toml`, `keymap.toml`), read only;
- `state_dir()`: `~/.local/state/tui-insight` (`workspaces/`, `theme.json`, `tui-insight.log`);
- `cache_dir()`: `~/.cache/tui-insight` (`snapshots/`, `index/`).

Private by default: what they hold names hosts, paths and errors, and the cache is deleted
from by its cleanup. So the directories tui-insight makes are 0700 (an existing one of ours is
narrowed to that), the log is 0600, and a directory of ours that is a symlink, not a directory,
or another user's is refused (`UnsafeDirectory`): one planted in a shared cache directory would
otherwise receive writes and deletions meant for the cache. The base directories above ours
(`~/.cache` itself) may be symlinks: users move them to bigger disks.

No Textual, nothing of the rest of the package: everything may import this.
"""
from __future__ import annotations

import os
import stat
from pathlib import Path
from typing import TYPE_CHECKING, Any

import platformdirs

APP = "tui-insight"
PRIVATE_DIR = 0o700
PRIVATE_FILE = 0o600


class UnsafeDirectory(OSError):
    """A directory of ours that is not used: a symlink, not a directory, or another user's."""


def config_dir() -> Path:
    return platformdirs.user_config_path(APP, appauthor=False)


def state_dir() -> Path:
    return platformdirs.user_state_path(APP, appauthor=False)


def cache_dir() -> Path:
    return platformdirs.user_cache_path(APP, appauthor=False)


def private_dir(path: str | os.PathLike) -> Path:
    """`path` as a directory only this user can enter (made 0700 with its missing parents, or
    narrowed to 0700). UnsafeDirectory when it is a symlink, not a directory or another user's;
    OSError when it cannot be made."""
    path = Path(path)
    _make_missing(path)
    st = os.lstat(path)
    if stat.S_ISLNK(st.st_mode):
        raise UnsafeDirectory(f"{path} is a symlink (point the XDG directory elsewhere instead)")
    if not stat.S_ISDIR(st.st_mode):
        raise UnsafeDirectory(f"{path} is not a directory")
    if hasattr(os, "getuid") and st.st_uid != os.getuid():
        raise UnsafeDirectory(f"{path} belongs to another user")
    if stat.S_IMODE(st.st_mode) & ~PRIVATE_DIR:
        os.chmod(path, PRIVATE_DIR)
    return path


def _make_missing(path: Path) -> None:
    """Make `path` and each missing parent 0700 (the XDG rule for directories a program makes)."""
    missing = []
    while not os.path.lexists(path) and path.parent != path:
        missing.append(path)
        path = path.parent
    for directory in reversed(missing):
        try:
            os.mkdir(directory, PRIVATE_DIR)
        except FileExistsError:  # made meanwhile by another tui-insight
            pass


if TYPE_CHECKING:
    from logging.handlers import RotatingFileHandler

    PrivateLogFile: type[RotatingFileHandler]


def __getattr__(name: str) -> Any:
    # PrivateLogFile is made on first use: logging.handlers (socket, selectors...) costs 6 ms
    # of a start, and only the UI logs to a file.
    if name != "PrivateLogFile":
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    from logging.handlers import RotatingFileHandler

    class PrivateLogFile(RotatingFileHandler):
        """A rotating log only its user can read (0600, also after a rollover; an older, wider log
        is narrowed), never written through a symlink."""

        def _open(self):  # the one place logging opens the file
            flags = os.O_WRONLY | os.O_CREAT | os.O_APPEND | getattr(os, "O_NOFOLLOW", 0)
            fd = os.open(self.baseFilename, flags, PRIVATE_FILE)
            try:
                os.fchmod(fd, PRIVATE_FILE)
                return open(fd, "a", encoding=self.encoding, errors=self.errors)
            except BaseException:
                os.close(fd)
                raise

    globals()[name] = PrivateLogFile
    return PrivateLogFile
