"""Logs on another host, read through the system `ssh` (`tui-insight user@host:/path`).

Nothing is installed on the remote side: each request pipes a POSIX `sh` script to `ssh HOST sh -s`
and reads its standard output. The user's `~/.ssh/config`, agent, keys and ProxyJump apply as for
any ssh command; `BatchMode` means a missing key is an error, never a password prompt.

One shared connection: the first listing starts a ControlMaster (socket in a private 0700
directory), every later request is a session over it (no new handshake, ~10 ms on a LAN).

- **list** (`discover`): one request lists every file under the root with its size and mtime
  (GNU `find -printf`, else `find -exec stat -c` as GNU and BusyBox have it, else BSD
  `stat -f`), pruning hidden directories and stopping a few levels below `MAX_DEPTH` (profile
  directories nest); `stat` answers from that listing without a round trip.
- **read** (`read`, `open_range`, `read_ranges`): bytes [start, end) with `tail -c +N | head -c M`
  (`head -c` is not POSIX but is in GNU, BusyBox and BSD), several ranges in one request, each
  behind a header that says how many bytes follow (the file's size at that moment bounds it).

A connection that drops (the master exits, the network goes) makes `status` say
"reconnecting…": the request in flight fails with `ConnectionLost` (an OSError: that file's error
for this reload), later requests of the same reload fail at once, and the listing returns the
last jobs unchanged so the cache keeps what it has. The next `discover` starts a new master and
lists again; the cache then reads from its saved offsets.
"""
from __future__ import annotations

import os
import posixpath
import re
import shutil
import socket
import subprocess
import tempfile
import threading
import time
from collections.abc import Iterable, Sequence
from typing import BinaryIO

from .discovery import MAX_DEPTH, Discovery
from .remote_listing import jobs_from_listing
from .source import RangeCache, RangeFile, SourceError, file_stat

LIST_DEPTH = MAX_DEPTH + 6  # files of a job at MAX_DEPTH, and its profile directory's subfolders
CONTROL_PERSIST = 60  # seconds an idle master stays up (so a crashed program leaves none for long)
SERVER_ALIVE = 5  # seconds between keepalives: a dead network is noticed in 3 x this
CONNECT_TIMEOUT = 15
REQUEST_TIMEOUT = 600  # a last resort: keepalives end a dead connection long before
MARK = b"TUI-INSIGHT-SSH-1\n"  # what the script prints first: lines a login script prints go before it
RECONNECTING = "reconnecting\N{HORIZONTAL ELLIPSIS}"
MAX_MESSAGE = 200


class SshError(SourceError):
    """The host cannot be reached, refused the key, or has no such directory: one line (the
    cache prefixes "cannot read LOCATION: ")."""


class ConnectionLost(SshError):
    """The shared connection dropped; the next listing reconnects."""


_BRACKETED = re.compile(r"^([^@:/\[]+@)?\[([^\]]+)\]:(.*)$", re.S)  # user@[::1]:path


def parse_target(target: str) -> tuple[str, str]:
    """`user@host:/path`, `host:path` (relative to the remote home), `[::1]:path` -> (host, path)."""
    bracketed = _BRACKETED.match(target)
    if bracketed:
        host, path = (bracketed.group(1) or "") + bracketed.group(2), bracketed.group(3)
    else:
        host, sep, path = target.partition(":")
        if not sep:
            raise ValueError(f"{target}: expected host:path")
    if host.startswith("-") or not host.rsplit("@", 1)[-1]:
        raise ValueError(f"{target}: no host name")
    return host, _remote_path(path)


def _remote_path(path: str) -> str:
    """The root as the remote shell is given it: `~/x` and `x` are relative to the home (where
    ssh starts), a name starting with `-` is made `./-...` so no tool takes it for an option."""
    if path in ("", "~", "~/"):
        return "."
    if path.startswith("~/"):
        path = path[2:]
    if path.startswith("-"):
        path = "./" + path
    return path.rstrip("/") or "/"


def quote(path: str) -> bytes:
    """`path` single-quoted for sh; bytes that are not UTF-8 (surrogate-escaped) go back as they came."""
    return b"'" + path.encode("utf-8", "surrogateescape").replace(b"'", b"'\\''") + b"'"


def _text(raw: bytes) -> str:
    return raw.decode("utf-8", "surrogateescape")


def _one_line(stderr: bytes, fallback: str) -> str:
    """The last line ssh (or the script) printed that says something, shortened."""
    lines = [line.strip() for line in stderr.decode("utf-8", "replace").splitlines()]
    lines = [line for line in lines if line and not line.startswith(("Warning: Permanently added", "debug"))]
    line = lines[-1] if lines else fallback
    return line if len(line) <= MAX_MESSAGE else line[:MAX_MESSAGE - 1] + "\N{HORIZONTAL ELLIPSIS}"


# The listing: "<size> <mtime> <path>" per file, NUL-ended with GNU find, else newline-ended
# (a file name holding a newline is then skipped). The first line says which.
_LIST = b"""set -f
root=%(root)s
if ! cd -- "$root" 2>/dev/null; then
  if [ ! -e "$root" ]; then echo "No such file or directory" >&2
  elif [ ! -d "$root" ]; then echo "Not a directory" >&2
  else echo "Permission denied" >&2; fi
  exit 3
fi
printf '%(mark)s'
if find . -maxdepth 0 -printf '' >/dev/null 2>&1; then
  echo nul
  find -L . -maxdepth %(depth)d -name '.?*' -type d -prune -o -type f -printf '%%s %%T@ %%P\\0'
elif stat -L -c '%%s %%Y' . >/dev/null 2>&1; then
  echo line
  find -L . -maxdepth %(depth)d -name '.?*' -type d -prune -o -type f -exec stat -L -c '%%s %%Y %%n' {} +
else
  echo line
  find -L . -maxdepth %(depth)d -name '.?*' -type d -prune -o -type f -exec stat -L -f '%%z %%m %%N' {} +
fi
exit 0
"""

# Reading: `r PATH START END` prints "D <n>\\n" and n bytes (END capped at the file's size now),
# or "E <reason>\\n". Every range but the last is padded to n bytes, so a file truncated between
# the size check and the read cannot shift the ranges after it.
_READ = b"""set -f
r() {
  if [ ! -f "$1" ] || [ ! -r "$1" ]; then
    if [ -d "$1" ]; then echo "E Is a directory"
    elif [ -e "$1" ]; then echo "E Permission denied"
    else echo "E No such file or directory"; fi
    return
  fi
  f=$1 s=$2 e=$3 pad=$4
  set -- $(ls -lnL -- "$f")
  if [ "$5" -lt "$e" ]; then e=$5; fi
  n=$((e - s)); if [ "$n" -lt 0 ]; then n=0; fi
  echo "D $n"
  if [ "$n" -eq 0 ]; then return; fi
  if [ "$pad" = 1 ]; then
    { tail -c +$((s + 1)) -- "$f" | head -c "$n"; head -c "$n" /dev/zero; } | head -c "$n"
  else
    tail -c +$((s + 1)) -- "$f" | head -c "$n"
  fi
}
printf '%(mark)s'
"""


SOCKET_PATH_MAX = 90  # a Unix socket path has ~104 bytes; ssh adds 17 while it makes one


def _private_dir() -> str:
    """A 0700 directory for the control socket (only this user can reach the connection): in
    $XDG_RUNTIME_DIR, else the temp dir, else /tmp, whichever keeps the socket's path short."""
    for base in (os.environ.get("XDG_RUNTIME_DIR"), tempfile.gettempdir(), "/tmp"):
        if base and os.path.isdir(base) and len(os.path.join(base, "tui-insight-ssh-12345678", "master")) \
                <= SOCKET_PATH_MAX:
            return tempfile.mkdtemp(prefix="tui-insight-ssh-", dir=base)
    raise SshError("no directory with a path short enough for ssh's control socket (set TMPDIR=/tmp)")


class SshSource:
    """The files of `target` (`user@host:/path`) through the system ssh. See the module doc."""

    is_local = False

    def __init__(self, target: str, ssh_options: Sequence[str] = ()):
        self.location = target
        try:
            self.host, self.root = parse_target(target)
        except ValueError as exc:
            raise SshError(str(exc)) from None
        self._options = list(ssh_options)
        self._dir = _private_dir()
        self._socket = os.path.join(self._dir, "master")
        self._lock = threading.Lock()
        self._master_pid: int | None = None
        self._dropped = False  # a request found the connection gone: reconnect at the next listing
        self._last_used = 0.0
        self._stats: dict[str, tuple[int, float]] = {}  # path -> (size, mtime) of the last listing
        self._ino: dict[str, int] = {}  # path -> its "inode": a new one when the file was rewritten
        self._ranges = RangeCache(self._fetch)  # payloads decoded on demand
        self._dirs: dict[str, set[str]] = {}  # directory -> names in it, from the last listing
        self._discovery: Discovery | None = None
        self.status = ""
        self.round_trips = 0  # requests sent (the benchmark counts them)

    # -- the connection -----------------------------------------------------------------

    def _ssh(self, master: str) -> list[str]:
        return ["ssh", "-T", "-x", "-a",
                "-o", "BatchMode=yes", "-o", "LogLevel=ERROR",
                "-o", f"ConnectTimeout={CONNECT_TIMEOUT}",
                "-o", f"ServerAliveInterval={SERVER_ALIVE}", "-o", "ServerAliveCountMax=3",
                "-o", f"ControlMaster={master}", "-o", f"ControlPath={self._socket}",
                "-o", f"ControlPersist={CONTROL_PERSIST}",
                *self._options]

    def _master_alive(self) -> bool:
        """Whether the master answers on its socket (a killed one leaves the socket file, and
        may linger as a zombie its parent never reaps)."""
        if self._master_pid is None:
            return False
        try:
            with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as probe:
                probe.connect(self._socket)
        except OSError:
            return False
        return True

    def _find_master(self) -> int | None:
        """The pid of the master just started (`ssh -O check` prints it), to notice it going."""
        done = subprocess.run([*self._ssh("no"), "-O", "check", self.host], stdin=subprocess.DEVNULL,
                              capture_output=True, timeout=CONNECT_TIMEOUT)
        text = (done.stdout + done.stderr).decode("utf-8", "replace")
        start = text.find("pid=")
        if start < 0:
            return None
        digits = text[start + 4:].split(")", 1)[0]
        return int(digits) if digits.isdigit() else None

    def _lose(self, why: str) -> ConnectionLost:
        with self._lock:
            self._dropped = True
            self.status = RECONNECTING
        return ConnectionLost(f"connection lost ({why}); reconnecting")

    def _run(self, script: bytes, connect: bool = False) -> bytes:
        """Run `script` on the host; its standard output after MARK. `connect`: a listing, which
        may start a new master; other requests go only through the live one (the first of all
        starts it)."""
        with self._lock:
            alive = self._master_alive()
            connect = connect or (self._discovery is None and not self._dropped)
            if not connect and (self._dropped or not alive):
                dropped = True
            else:
                dropped = False
                if connect and not alive and os.path.exists(self._socket):
                    os.unlink(self._socket)  # a killed master leaves its socket behind
        if dropped:
            raise self._lose("the shared connection is gone")
        command = [*self._ssh("auto" if connect else "no"), self.host, "sh -s"]
        self.round_trips += 1
        try:
            done = subprocess.run(command, input=script, capture_output=True, timeout=REQUEST_TIMEOUT)
        except subprocess.TimeoutExpired:
            raise self._lose(f"no answer in {REQUEST_TIMEOUT} s") from None
        except FileNotFoundError:
            raise SshError("ssh is not installed (the ssh client runs every remote request)") from None
        self._last_used = time.monotonic()
        if done.returncode == 255:  # ssh's own failure, not the script's
            line = _one_line(done.stderr, "ssh failed")
            if self._discovery is not None and (connect or not self._master_alive()):
                raise self._lose(line)  # it worked before: the connection went
            raise SshError(line)
        if done.returncode != 0:
            raise SshError(_one_line(done.stderr, f"the remote script failed ({done.returncode})"))
        if connect and not alive:
            self._master_pid = self._find_master()
        at = done.stdout.find(MARK)
        if at < 0:
            raise SshError("the remote shell answered nothing readable")
        return done.stdout[at + len(MARK):]

    @property
    def master_pid(self) -> int | None:
        """The process holding the shared connection (None before the first request)."""
        return self._master_pid

    # -- Source -------------------------------------------------------------------------

    def discover(self, listings: dict | None = None) -> Discovery:
        """The jobs under the root, in one request. Raises SshError when the host, the key or the
        root is wrong; when an established connection dropped, returns the last jobs instead."""
        with self._lock:
            if self._master_pid is not None and not self._master_alive() and not self._dropped:
                # Gone since the last request. Idle for its ControlPersist: expected; else say so.
                if time.monotonic() - self._last_used < CONTROL_PERSIST - SERVER_ALIVE:
                    self._dropped, self.status = True, RECONNECTING
                    return self._last_jobs()
        try:
            out = self._run(_LIST % {b"root": quote(self.root), b"mark": MARK, b"depth": LIST_DEPTH},
                            connect=True)
        except ConnectionLost:
            return self._last_jobs()  # still unreachable: keep what was listed, try again next time
        with self._lock:
            self._dropped, self.status = False, ""
        self._discovery = self._parse_listing(out)
        return self._discovery

    def _last_jobs(self) -> Discovery:
        assert self._discovery is not None  # only a connection that once listed is lost
        return Discovery(dict(self._discovery.jobs), list(self._discovery.problems))

    def _parse_listing(self, out: bytes) -> Discovery:
        kind, _, body = out.partition(b"\n")
        records = body.split(b"\0" if kind == b"nul" else b"\n")
        entries: list[tuple[str, int, float]] = []
        for record in records:
            size, _, rest = record.partition(b" ")
            mtime, _, name = rest.partition(b" ")
            if not name:
                continue
            try:
                entry = (_text(name[2:] if name.startswith(b"./") else name), int(size), float(mtime))
            except ValueError:
                continue  # part of a name holding a newline (line mode)
            entries.append(entry)
        stats: dict[str, tuple[int, float]] = {}
        dirs: dict[str, set[str]] = {}
        for rel, size, mtime in entries:
            path = posixpath.join(self.root, rel)
            stats[path] = (size, mtime)
            old = self._stats.get(path)
            if old is None or size < old[0] or (size == old[0] and mtime != old[1]):
                self._ino[path] = self._ino.get(path, 0) + 1  # new, or rewritten: read from its start
                self._ranges.forget(path)
            parent, name = posixpath.split(path)
            while True:
                dirs.setdefault(parent, set()).add(name)
                if len(parent) <= len(self.root):
                    break
                parent, name = posixpath.split(parent)
        for gone in self._stats.keys() - stats.keys():
            self._ranges.forget(gone)
        self._stats, self._dirs = stats, dirs
        return jobs_from_listing(self.root, entries)

    def stat(self, path: str) -> os.stat_result:
        known = self._stats.get(path)
        if known is None:
            raise FileNotFoundError(2, "No such file or directory", path)
        return file_stat(*known, self._ino[path])

    def listdir(self, path: str) -> list[str]:
        names = self._dirs.get(path.rstrip("/") or "/")
        if names is None:
            raise FileNotFoundError(2, "No such file or directory", path)
        return sorted(names)

    def read_ranges(self, ranges: Iterable[tuple[str, int, int | None]]) -> list[bytes | OSError]:
        """Bytes [start, end) of each (path, start, end) in one request (end None: to the end),
        fewer when the file is shorter; an OSError in place of a file that cannot be read."""
        ranges = list(ranges)
        if not ranges:
            return []
        script = [_READ % {b"mark": MARK}]
        for i, (path, start, end) in enumerate(ranges):
            stop = (1 << 62) if end is None else end
            pad = 0 if i == len(ranges) - 1 else 1
            script.append(b"r %s %d %d %d\n" % (quote(path), start, stop, pad))
        out = self._run(b"".join(script))
        results: list[bytes | OSError] = []
        at = 0
        for path, _start, _end in ranges:
            eol = out.find(b"\n", at, at + 200)
            header = out[at:eol].decode("utf-8", "replace") if eol >= 0 else ""
            if header.startswith("E "):
                results.append(OSError(f"{header[2:]}: {path}"))
            elif header.startswith("D ") and header[2:].isdigit():
                count = int(header[2:])
                results.append(out[eol + 1:eol + 1 + count])
                eol += count
            else:  # the script was cut short (the connection went as it answered)
                raise self._lose("the answer ended early")
            at = eol + 1
        return results

    def _fetch(self, path: str, start: int, end: int | None) -> bytes:
        result = self.read_ranges([(path, start, end)])[0]
        if isinstance(result, OSError):
            raise result
        return result

    def read(self, path: str, start: int = 0, end: int | None = None) -> bytes:
        """Bytes of a file (payloads, graphs, lineage, profiles): through a cache of recently read
        blocks, so reading a record's header and then its body is one request."""
        if end is None:
            known = self._stats.get(path)
            if known is None:
                return self._fetch(path, start, None)
            end = known[0]
        return self._ranges.read(path, start, end)

    def open_range(self, path: str, start: int, end: int) -> BinaryIO:
        return RangeFile(self._fetch(path, start, end) if end > start else b"", start)

    def close(self) -> None:
        """Stop the master (`ssh -O exit`) and remove the socket's directory."""
        if self._master_alive():
            try:
                subprocess.run([*self._ssh("no"), "-O", "exit", self.host], stdin=subprocess.DEVNULL,
                               capture_output=True, timeout=CONNECT_TIMEOUT)
            except (OSError, subprocess.TimeoutExpired):
                pass
        self._master_pid = None
        shutil.rmtree(self._dir, ignore_errors=True)
