"""What the user had set up on a LOGDIR, remembered between runs: one small JSON file per LOGDIR.

The file lives under `$XDG_STATE_HOME/tui-insight/workspaces/` (`user_dirs.state_dir()`, private),
never inside LOGDIR, and is written atomically (a temporary file in the same directory, then
`os.replace`), so a crash mid-write leaves the old file. It holds one entry per (scope, view):
the scope names the jobs ("./lenet", "./a,./b" when compared, "*" for views of every job, "app"
for the job list), the entry is whatever the view's state object wrote with `to_json()`.
A damaged file, or one of another format version, is ignored with a one-line notice; so is an
entry that is not an object (the others are kept). Inside an entry, each state's `from_json`
checks every value's type and range and falls back to its default.

No Textual here: the app owns a `Workspace` and saves it when something changed.
"""
from __future__ import annotations

import json
import os
import tempfile
import threading
from pathlib import Path
from typing import Any, Callable

from .user_dirs import private_dir, state_dir

# CPython's own SHA-256 where it has one (the digest is the same): `hashlib` loads OpenSSL
# first, a cost every start would pay.
try:
    from _sha2 import sha256  # type: ignore[import-not-found]  # (Python 3.12 on)
except ImportError:
    try:
        from _sha256 import sha256  # type: ignore[import-not-found]
    except ImportError:
        from hashlib import sha256

FORMAT_VERSION = 1


def workspace_path(logdir: str, home: Path | None = None) -> Path:
    """The file for `logdir`: named by the directory's name and a hash of its absolute path."""
    absolute = os.path.abspath(logdir)
    digest = sha256(absolute.encode("utf-8", "surrogateescape")).hexdigest()[:16]
    name = "".join(c if c.isalnum() or c in "-_." else "_" for c in os.path.basename(absolute))[:40] or "root"
    return (home or state_dir()) / "workspaces" / f"{name}-{digest}.json"


class Workspace:
    """The remembered state of every view on one LOGDIR (see the module doc)."""

    def __init__(self, logdir: str, path: Path | None, entries: dict[str, dict[str, Any]] | None = None):
        self.logdir = os.path.abspath(logdir)
        self.path = path  # None: remember in memory only (tests, or no state directory)
        self._entries: dict[str, dict[str, Any]] = dict(entries or {})
        self._dirty = False
        self._lock = threading.Lock()
        # Called when something is remembered while nothing was waiting to be saved (the app
        # saves a moment later), on the thread that remembered it.
        self.on_dirty: Callable[[], None] | None = None

    @classmethod
    def open(cls, logdir: str, *, fresh: bool = False, home: Path | None = None) -> tuple["Workspace", str]:
        """The workspace of `logdir` and "" (or a fresh one and why the file was not used).

        `fresh`: start clean; the file is written over when something is remembered.
        """
        path = workspace_path(logdir, home)
        try:
            private_dir(path.parent.parent)
            private_dir(path.parent)
        except OSError as exc:
            return cls(logdir, None), f"workspace not kept: {exc.strerror or exc}"
        workspace = cls(logdir, path)
        if fresh or not path.exists():
            return workspace, ""
        try:
            data = json.loads(path.read_text(encoding="utf-8"))
        except (OSError, ValueError) as exc:
            return workspace, f"workspace {path} ignored (unreadable: {type(exc).__name__}); starting clean"
        if not isinstance(data, dict) or data.get("version") != FORMAT_VERSION:
            return workspace, f"workspace {path} ignored (another format version); starting clean"
        entries = data.get("views")
        if not isinstance(entries, dict):
            return workspace, f"workspace {path} ignored (no views in it); starting clean"
        workspace._entries = {key: value for key, value in entries.items()
                              if isinstance(key, str) and isinstance(value, dict)}
        damaged = len(entries) - len(workspace._entries)
        if damaged:
            return workspace, (f"workspace {path}: {damaged} damaged "
                               f"{'entry' if damaged == 1 else 'entries'} ignored; the others kept")
        return workspace, ""

    @staticmethod
    def key(scope: str, view_id: str) -> str:
        return f"{view_id}@{scope}"

    def get(self, scope: str, view_id: str) -> dict[str, Any]:
        """What was remembered for the view (an empty dict when nothing)."""
        with self._lock:
            return dict(self._entries.get(self.key(scope, view_id), {}))

    def remember(self, scope: str, view_id: str, data: dict[str, Any]) -> None:
        key = self.key(scope, view_id)
        with self._lock:
            if self._entries.get(key) == data:
                return
            self._entries[key] = data
            was_dirty, self._dirty = self._dirty, True
        if not was_dirty and self.on_dirty is not None:
            self.on_dirty()

    @property
    def dirty(self) -> bool:
        return self._dirty

    def save(self) -> str:
        """Write the file if something changed; "" or why it could not be written."""
        with self._lock:
            if not self._dirty or self.path is None:
                self._dirty = False
                return ""
            payload = {"version": FORMAT_VERSION, "logdir": self.logdir, "views": self._entries}
            # ASCII: a name that is not UTF-8 (lone surrogates from surrogateescape) is written
            # as its \udcXX escape and read back as the same name.
            text = json.dumps(payload, indent=1, sort_keys=True, ensure_ascii=True)
            self._dirty = False
        try:
            write_atomically(self.path, text)
        except OSError as exc:
            return f"cannot save the workspace to {self.path}: {exc.strerror or exc}"
        return ""


def write_atomically(path: Path, text: str) -> None:
    """Write `text` to `path` so that readers see the old or the new file, never a part (its
    directory private: `user_dirs`)."""
    private_dir(path.parent)
    fd, temp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as handle:
            handle.write(text)
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(temp, path)
    except BaseException:
        try:
            os.unlink(temp)
        except OSError:
            pass
        raise
