"""The shared ssh connection to one host (`ssh_source.SshSource` reads through it): a
ControlMaster whose socket is in a private 0700 directory, and the command line of every request.

A master the user already has (their ssh config's ControlMaster/ControlPath, and a master
running there, e.g. one opened by hand on a host that asks for a one-time password, which
BatchMode cannot answer) is used instead, and left running: `ssh -G` says where its socket
is. If it goes, the next connection is one of our own, as without it.

Only the standard library is imported here, so the command line can `start` the master before
its heavy imports (numpy, Textual: ~0.7 s): a new connection costs 0.2-0.5 s before any byte
moves (the key exchange, OpenSSH's post-quantum one by default, and the authentication), which
then overlaps with them. The first request waits for it (`wait_started`) and goes through it.

Our own master asks for AES-GCM first when this CPU has AES instructions and the user's config
leaves the ciphers at OpenSSH's default (whose first, ChaCha20, moves bytes ~2.7x slower here):
the server still picks from the whole list, so a host without AES-GCM connects as before.
"""
from __future__ import annotations

import os
import re
import shutil
import socket
import subprocess
import tempfile
from collections.abc import Sequence
from typing import IO

CONTROL_PERSIST = 60  # seconds an idle master stays up (so a crashed program leaves none for long)
SERVER_ALIVE = 5  # seconds between keepalives: a dead network is noticed in 3 x this
CONNECT_TIMEOUT = 15
START_TIMEOUT = 60  # for a whole handshake (ConnectTimeout bounds only reaching the host)
MAX_MESSAGE = 200
SOCKET_PATH_MAX = 90  # a Unix socket path has ~104 bytes; ssh adds 17 while it makes one

AES_GCM = ("aes128-gcm@openssh.com", "aes256-gcm@openssh.com")

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


def one_line(stderr: bytes, fallback: str) -> str:
    """The last line ssh (or the script) printed that says something, shortened."""
    lines = [line.strip() for line in stderr.decode("utf-8", "surrogateescape").splitlines()]  # as sent: see `escape`
    lines = [line for line in lines if line and not line.startswith(("Warning: Permanently added", "debug"))]
    line = lines[-1] if lines else fallback
    return line if len(line) <= MAX_MESSAGE else line[:MAX_MESSAGE - 1] + "\N{HORIZONTAL ELLIPSIS}"


def ssh_settings(host: str, options: Sequence[str] = ()) -> dict[str, str]:
    """What ssh would use for `host` (`ssh -G`: no network), by lower-case keyword; {} if it
    cannot say. `options` with `-F /dev/null`: OpenSSH's defaults, no config file read."""
    try:
        done = subprocess.run(["ssh", *options, "-G", host], stdin=subprocess.DEVNULL, capture_output=True,
                              timeout=CONNECT_TIMEOUT)
    except (OSError, subprocess.TimeoutExpired):
        return {}
    if done.returncode != 0:
        return {}
    settings = {}
    for line in done.stdout.decode("utf-8", "surrogateescape").splitlines():
        key, _, value = line.partition(" ")
        settings[key] = value.strip()
    return settings


def cpu_has_aes(cpuinfo: str) -> bool:
    """Whether /proc/cpuinfo's text names AES instructions (x86 `flags`, Arm `Features`)."""
    for line in cpuinfo.splitlines():
        key, _, value = line.partition(":")
        if key.strip().lower() in ("flags", "features"):
            return "aes" in value.split()
    return False


def aes_first(ciphers: str, default: str, has_aes: bool) -> list[str]:
    """`-o Ciphers=...` with AES-GCM moved to the front of `ciphers` (what ssh would offer), or
    nothing: no AES instructions, a cipher list the user chose (not OpenSSH's `default`), or no
    AES-GCM in it."""
    offered = ciphers.split(",")
    first = [c for c in AES_GCM if c in offered]
    if not has_aes or not ciphers or ciphers != default or not first or offered[:len(first)] == first:
        return []
    return ["-o", "Ciphers=" + ",".join(first + [c for c in offered if c not in first])]


def _read_cpuinfo() -> str:
    try:
        with open("/proc/cpuinfo", encoding="utf-8", errors="replace") as cpuinfo:
            return cpuinfo.read()
    except OSError:
        return ""  # not Linux: the order is left as it is


def users_master(settings: dict[str, str]) -> str | None:
    """The control socket of a master the user's ssh config names (`settings`, from
    `ssh_settings`), if one answers there; else None."""
    path = settings.get("controlpath")
    if not path or path == "none":
        return None
    path = os.path.expanduser(path)
    try:
        with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as probe:
            probe.connect(path)
    except OSError:
        return None
    return path


def _private_dir() -> str:
    """A 0700 directory for the control socket (only this user can reach the connection): in
    $XDG_RUNTIME_DIR, else the temp dir, else /tmp, whichever keeps the socket's path short."""
    for base in (os.environ.get("XDG_RUNTIME_DIR"), tempfile.gettempdir(), "/tmp"):
        if base and os.path.isdir(base) and len(os.path.join(base, "tui-insight-ssh-12345678", "master")) \
                <= SOCKET_PATH_MAX:
            return tempfile.mkdtemp(prefix="tui-insight-ssh-", dir=base)
    raise OSError("no directory with a path short enough for ssh's control socket (set TMPDIR=/tmp)")


class SshConnection:
    """The ControlMaster of `host` (`-F`/`-o` options as the user gave them). Raises ValueError
    for a target with no host, OSError when no directory can hold the socket."""

    def __init__(self, target: str, options: Sequence[str] = ()):
        self.host, self.root = parse_target(target)
        self.options = list(options)
        self.dir: str | None = None  # our socket's private directory (None while the user's master is used)
        has_ssh = shutil.which("ssh") is not None
        settings = ssh_settings(self.host, self.options) if has_ssh else {}
        users = users_master(settings)
        self.users = users is not None  # the user's own master: used, never started or stopped
        self.ciphers: list[str] = []  # our own master's cipher order (also once the user's goes)
        if "ciphers" in settings:
            default = ssh_settings(self.host, ["-F", "/dev/null"]).get("ciphers", "")
            self.ciphers = aes_first(settings["ciphers"], default, cpu_has_aes(_read_cpuinfo()))
        self.socket = users or ""  # the master's socket (`use_own` makes ours)
        if users is None:
            self.use_own()
        self._starting: subprocess.Popen | None = None
        self._errors: IO[bytes] | None = None  # the starting ssh's stderr: a file, not a pipe the master would inherit

    def use_own(self) -> None:
        """From now on, a master of our own (the user's went, or there was none)."""
        self.users = False
        self.dir = _private_dir()
        self.socket = os.path.join(self.dir, "master")

    def command(self, master: str) -> list[str]:
        """ssh's command line, up to the host, with ControlMaster=`master` on the shared socket
        (through the user's master: never one of ours)."""
        control = (["-o", "ControlMaster=no", "-o", f"ControlPath={self.socket}"] if self.users else
                   ["-o", f"ControlMaster={master}", "-o", f"ControlPath={self.socket}",
                    "-o", f"ControlPersist={CONTROL_PERSIST}", *self.ciphers])
        return ["ssh", "-T", "-x", "-a",
                "-o", "BatchMode=yes", "-o", "LogLevel=ERROR",
                "-o", f"ConnectTimeout={CONNECT_TIMEOUT}",
                "-o", f"ServerAliveInterval={SERVER_ALIVE}", "-o", "ServerAliveCountMax=3",
                *control, *self.options]

    def start(self) -> SshConnection:
        """Start connecting, without waiting: `ssh -N` exits once the master is up (ControlPersist
        puts it in the background) or has failed. Without ssh, nothing: the first request says so.
        Through the user's master, nothing either: it is up."""
        if shutil.which("ssh") is not None and not self.users:
            self._errors = tempfile.TemporaryFile()
            self._starting = subprocess.Popen([*self.command("yes"), "-N", self.host], stdin=subprocess.DEVNULL,
                                              stdout=subprocess.DEVNULL, stderr=self._errors)
        return self

    def wait_started(self) -> bool:
        """After `start`: wait for it. True: the master it started is up; False: nothing was
        started (or it was waited for already). Raises ConnectionError: ssh's one-line reason."""
        starting, self._starting = self._starting, None
        if starting is None or self._errors is None:
            return False
        with self._errors as errors:
            try:
                returncode = starting.wait(START_TIMEOUT)
            except subprocess.TimeoutExpired:  # connected, but the handshake hangs
                starting.kill()
                starting.wait()
                raise ConnectionError(f"{self.host}: no answer in {START_TIMEOUT} s") from None
            errors.seek(0)
            if returncode != 0:
                raise ConnectionError(one_line(errors.read(), "ssh failed"))
        return True

    def close(self) -> None:
        """Stop the master (`ssh -O exit`), a start still connecting, and remove the socket's
        directory; the user's own master stays."""
        if self.users:
            return
        if self._starting is not None:  # the program ends before its first request
            self._starting.kill()
            self._starting.wait()
            if self._errors is not None:
                self._errors.close()
            self._starting = None
        if os.path.exists(self.socket):  # a master, perhaps one whose pid was never learnt
            try:
                subprocess.run([*self.command("no"), "-O", "exit", self.host], stdin=subprocess.DEVNULL,
                               capture_output=True, timeout=CONNECT_TIMEOUT)
            except (OSError, subprocess.TimeoutExpired):
                pass
        if self.dir is not None:
            shutil.rmtree(self.dir, ignore_errors=True)
