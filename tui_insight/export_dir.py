"""The directory an export writes into: complete, or saying it is not; never through a link.

Every file is created in a fresh private directory inside OUT (`.tui-insight-export-*`, made
with mkdtemp, so nothing can be planted in it), opened with O_EXCL and O_NOFOLLOW. When all
were written, each is renamed into OUT: a rename replaces whatever name was there, a symbolic
link included, and never writes through it, so `--force` over `OUT/scalars.csv -> ../victim`
leaves the victim as it was. A stale `INCOMPLETE` left by an earlier export goes last.

When writing fails (a full disk, a quota, an interrupt), what was written is renamed into OUT
with a file `INCOMPLETE` saying what was cut. That file is written first, padded to
`MARKER_BYTES`, and rewritten in place at the end, so a full disk cannot keep it from being
written.
"""
from __future__ import annotations

import os
import tempfile
from pathlib import Path
from typing import IO

from .escape import shown
from .summary.store.job_view import state_meaning

MARKER = "INCOMPLETE"
MARKER_BYTES = 8192
_CREATE = os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | getattr(os, "O_CLOEXEC", 0)
_DIRECTORY = os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | getattr(os, "O_CLOEXEC", 0)


class ExportDir:
    """OUT (an existing directory, resolved) with a private directory inside it to write into."""

    def __init__(self, out: Path):
        self.out = out
        self.names: list[str] = []  # files created and not moved into OUT yet, in order
        self._marker = self._fd = -1
        self._out_fd = os.open(out, _DIRECTORY)
        try:
            self.staging = tempfile.mkdtemp(prefix=".tui-insight-export-", dir=out)
            self._fd = os.open(self.staging, _DIRECTORY)
            self._marker = self._create(MARKER)
            os.write(self._marker, b"this export is being written\n".ljust(MARKER_BYTES, b" "))
        except BaseException:
            self.discard()
            raise

    def _create(self, name: str) -> int:
        return os.open(name, _CREATE, 0o666, dir_fd=self._fd)

    def open(self, name: str) -> IO[bytes]:
        """A new file `name`, buffered, in the private directory."""
        fd = self._create(name)
        self.names.append(name)
        return os.fdopen(fd, "wb", buffering=1 << 16)

    def commit(self) -> None:
        """Every file written, into OUT (their handles closed first)."""
        while self.names:
            self._move(self.names[0])
        os.close(self._marker)
        self._marker = -1
        os.unlink(MARKER, dir_fd=self._fd)
        try:
            os.unlink(MARKER, dir_fd=self._out_fd)  # an earlier export's, now untrue
        except FileNotFoundError:
            pass
        self.close()

    def abandon(self, what_was_cut: str) -> str:
        """What was written and not yet moved, into OUT with INCOMPLETE saying `what_was_cut`;
        returns where it is (the private directory if even that failed)."""
        text = what_was_cut.encode("utf-8", "backslashreplace")[:MARKER_BYTES]
        try:
            if self._marker < 0:  # the marker went as the export was committed: write it anew
                self._marker = self._create(MARKER)
            os.pwrite(self._marker, text, 0)
            os.ftruncate(self._marker, len(text))
            os.close(self._marker)
            self._marker = -1
            while self.names:
                self._move(self.names[0])
            self._move(MARKER)
        except OSError:
            return self.staging
        self.close()
        return str(self.out)

    def _move(self, name: str) -> None:
        os.rename(name, name, src_dir_fd=self._fd, dst_dir_fd=self._out_fd)
        if name in self.names:
            self.names.remove(name)

    def discard(self) -> None:
        """Nothing written goes into OUT: the private directory is removed."""
        if self._fd >= 0:
            for name in [*self.names, MARKER]:
                try:
                    os.unlink(name, dir_fd=self._fd)
                except FileNotFoundError:
                    pass
        self.close()

    def close(self) -> None:
        """Close what is open; the private directory goes if it is empty."""
        if self._marker >= 0:
            os.close(self._marker)
            self._marker = -1
        if self._fd >= 0:
            os.close(self._fd)
            self._fd = -1
            try:
                os.rmdir(self.staging)
            except OSError:
                pass  # something is left in it: it stays, for the user to see
        if self._out_fd >= 0:
            os.close(self._out_fd)
            self._out_fd = -1


# -- what every export shares (the CSV export's module re-exports them) ---------------------

class ExportError(Exception):
    """An export that was refused or failed; the message is for the user (escaped), in the
    command line's words; `in_dialog` says the same in the export dialog's (its fields, not flags)."""

    def __init__(self, message: str, in_dialog: str | None = None):
        super().__init__(message)
        self.in_dialog = message if in_dialog is None else in_dialog


class ExportIncomplete(ExportError):
    """Writing stopped before the end: OUT holds what was written and an INCOMPLETE file."""


def explain_state(state: str) -> str:
    """A job state as a warning a script's user can act on."""
    if state in ("growing", "truncated"):
        return f"{state} ({state_meaning(state)}; the records before it are exported)"
    if state.startswith("corrupt"):
        return f"{state} ({state_meaning(state)})"
    return state


def check_destination_of(location: str, out: Path, force: bool) -> Path:
    """`check_destination` for the LOGDIR at `location` (a path, or a remote's location)."""
    out = Path(out).expanduser().resolve()
    logdir = Path(os.path.realpath(location))
    if out == logdir or logdir in out.parents:
        refused = f"refusing to write inside the log directory {shown(str(logdir))}"
        raise ExportError(f"{refused}: choose --out elsewhere", f"{refused}: choose a directory elsewhere")
    if out.exists():
        if not out.is_dir():
            raise ExportError(f"{shown(str(out))} exists and is not a directory")
        if any(out.iterdir()) and not force:
            raise ExportError(f"{shown(str(out))} is not empty: use --force to overwrite",
                              f"{shown(str(out))} is not empty: tick “write into a non-empty directory” to overwrite")
    return out
