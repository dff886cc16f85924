"""A real OpenSSH server for tests: Debian's `/usr/sbin/sshd` on 127.0.0.1, a free port, its own
config, host key and user key in a temp dir, and an ssh client config the program is given with
`--ssh-config` (Host `ALIAS`). The "remote" logs are local temp dirs reached through it.
With `busybox` installed, a second port runs each session's script under BusyBox's sh with only
BusyBox's tools on PATH (a small remote system: no GNU find or stat). A third port is a hostile
host: its sessions find the tools a test put in `hostile_bin` first on PATH (a `find` that
answers a crafted listing, one that streams without end, one that never answers).

`sshd_or_fail(tmp)` starts one, or fails naming what to install (no sshd, ssh, ssh-keygen or busybox):
`.ci/install-system-tools` installs them, and tmux; a skipped ssh test would prove nothing.
"""
from __future__ import annotations

import getpass
import re
import os
import shutil
import signal
import socket
import subprocess
import time
from pathlib import Path

import pytest

SSHD = "/usr/sbin/sshd"
ALIAS = "remote-test"
START_TIMEOUT = 20.0


def _keygen(path: Path) -> Path:
    subprocess.run(["ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-C", "tui-insight-test", "-f", str(path)],
                   check=True, capture_output=True, timeout=30)
    return path


def _free_ports(count: int) -> list[int]:
    """`count` distinct free ports: the probes stay bound until all are chosen, since the kernel
    may hand a just-closed port out again (a hostile port equal to the BusyBox one ran the tests
    of hostile hosts against BusyBox's tools)."""
    probes = [socket.socket() for _ in range(count)]
    try:
        for probe in probes:
            probe.bind(("127.0.0.1", 0))
        return [probe.getsockname()[1] for probe in probes]
    finally:
        for probe in probes:
            probe.close()


class PortTaken(RuntimeError):
    """sshd could not bind a port chosen free: another process took it meanwhile."""


class Sshd:
    def __init__(self, home: Path, session_home: Path | None = None, settings: tuple[str, ...] = ("LogLevel INFO",)):
        """`session_home`: the HOME of the sessions (default: the user's own, with its shell
        startup files: root's `.bashrc` here runs `pyenv init`, ~250 ms per request).
        `settings`: more sshd_config lines (the log level, the ciphers offered)."""
        self.home = home
        home.mkdir(parents=True, exist_ok=True)
        self.user = getpass.getuser()
        has_busybox = shutil.which("busybox") is not None
        self.port, self.hostile_port, *busybox_port = _free_ports(3 if has_busybox else 2)
        self.key = _keygen(home / "user_key")
        self.other_key = _keygen(home / "other_key")  # a key the server does not know
        (home / "authorized_keys").write_text((home / "user_key.pub").read_text())
        host_key = _keygen(home / "host_key")
        self.busybox_port = busybox_port[0] if busybox_port else None
        if self.busybox_port:
            self._busybox(home / "busybox")
        self.hostile_bin = home / "hostile"
        self.hostile_bin.mkdir()
        self.log = home / "sshd.log"
        self.config = home / "sshd_config"
        self.config.write_text("\n".join([
            f"Port {self.port}",
            f"Port {self.hostile_port}",
            "ListenAddress 127.0.0.1",
            f"HostKey {host_key}",
            f"PidFile {home / 'sshd.pid'}",
            f"AuthorizedKeysFile {home / 'authorized_keys'}",
            "StrictModes no",
            "PubkeyAuthentication yes",
            "PasswordAuthentication no",
            "KbdInteractiveAuthentication no",
            "PermitRootLogin prohibit-password",
            "UsePAM no",
            "MaxSessions 64",
            "MaxStartups 64",
            *settings,
            *([f"SetEnv HOME={session_home}"] if session_home is not None else []),
            *([f"Port {self.busybox_port}",  # a second port whose sessions have only BusyBox's tools
               f"Match LocalPort {self.busybox_port}",
               f"  ForceCommand PATH={home / 'busybox'} exec {home / 'busybox' / 'sh'} -s"]
              if self.busybox_port else []),
            f"Match LocalPort {self.hostile_port}",  # a host whose tools are the test's (`hostile_bin`)
            f"  ForceCommand PATH={self.hostile_bin}:/usr/bin:/bin exec {self._hostile_session(home)}",
            "",
        ]))
        self.client_config = self.write_client_config(home / "ssh_config", self.key)
        self.process: subprocess.Popen | None = None

    @staticmethod
    def _busybox(directory: Path) -> None:
        """A directory of BusyBox applets (sh, find, stat, tail, ...): the tools of a small
        remote system, for the port whose sessions run the request script with only them."""
        directory.mkdir()
        subprocess.run(["busybox", "--install", "-s", str(directory)], check=True, capture_output=True, timeout=30)

    def write_client_config(self, path: Path, key: Path, port: int | None = None) -> Path:
        """An ssh client config naming this server `ALIAS` (or another port, or another key)."""
        path.write_text("\n".join([
            f"Host {ALIAS}",
            "  HostName 127.0.0.1",
            f"  Port {port or self.port}",
            f"  User {self.user}",
            f"  IdentityFile {key}",
            "  IdentitiesOnly yes",
            "  StrictHostKeyChecking no",
            "  UserKnownHostsFile /dev/null",
            "  LogLevel ERROR",
            "",
        ]))
        return path

    def _hostile_session(self, home: Path) -> Path:
        """What the hostile port runs: an `eager` tool the test put in `hostile_bin`, at once,
        before any script arrives (a host that answers unasked); else the request's script,
        given to a `session` tool there if there is one (looked for once the script is in: a
        session started ahead gets it too), else to `sh -s`."""
        session = home / "hostile_session"
        session.write_text(f'#!/bin/sh\n[ -x "{self.hostile_bin}/eager" ] && exec "{self.hostile_bin}/eager"\n'
                           f'script=$(cat)\nif [ -x "{self.hostile_bin}/session" ]; then\n'
                           f'  printf "%s\\n" "$script" | "{self.hostile_bin}/session"\n'
                           'else\n  printf "%s\\n" "$script" | /bin/sh -s\nfi\n')
        session.chmod(0o755)
        return session

    def hostile_config(self, path: Path) -> Path:
        """A client config naming the hostile port `ALIAS`."""
        return self.write_client_config(path, self.key, self.hostile_port)

    def hostile_tool(self, name: str, script: str) -> None:
        """Put an executable `name` (a sh script) first on the hostile host's PATH."""
        tool = self.hostile_bin / name
        tool.write_text("#!/bin/sh\n" + script)
        tool.chmod(0o755)

    def clear_hostile_tools(self) -> None:
        for tool in self.hostile_bin.iterdir():
            tool.unlink()

    def start(self) -> None:
        if os.geteuid() == 0:
            os.makedirs("/run/sshd", mode=0o755, exist_ok=True)  # privilege separation directory
        with open(self.log, "wb") as log:
            self.process = subprocess.Popen([SSHD, "-D", "-e", "-f", str(self.config)], stdin=subprocess.DEVNULL,
                                            stdout=log, stderr=subprocess.STDOUT)
        ports = [port for port in (self.port, self.hostile_port, self.busybox_port) if port]
        deadline = time.monotonic() + START_TIMEOUT
        while True:  # sshd -e says when it listens on each port, and when one was taken meanwhile
            log = self.log.read_text(errors="replace")
            if re.search(r"Bind to port \d+ on \S+ failed", log):
                self.stop()
                raise PortTaken(log[-2000:])
            if all(f"Server listening on 127.0.0.1 port {port}." in log for port in ports):
                return
            if self.process.poll() is not None:
                raise RuntimeError(f"sshd exited ({self.process.returncode}): {log[-2000:]}")
            if time.monotonic() > deadline:
                self.stop()
                raise RuntimeError(f"sshd did not listen within {START_TIMEOUT:.0f}s: {log[-2000:]}")
            time.sleep(0.02)

    def ssh_options(self, config: Path | None = None) -> list[str]:
        return ["-F", str(config or self.client_config)]

    def target(self, path: os.PathLike | str) -> str:
        return f"{self.user}@{ALIAS}:{path}"

    def stop(self) -> None:
        """The listener and the connections still open (a test that failed before closing its
        source): sshd -D leaves those running when only the listener goes."""
        if self.process is not None and self.process.poll() is None:
            children = subprocess.run(["pgrep", "-P", str(self.process.pid)], capture_output=True, text=True).stdout
            for pid in children.split():
                try:
                    os.kill(int(pid), signal.SIGTERM)
                except ProcessLookupError:
                    pass
            self.process.terminate()
            self.process.wait(timeout=10)


def missing_tools() -> list[str]:
    missing = [] if os.access(SSHD, os.X_OK) else [f"{SSHD} (apt-get install openssh-server)"]
    missing += [f"{tool} (apt-get install openssh-client)" for tool in ("ssh", "ssh-keygen") if not shutil.which(tool)]
    missing += [] if shutil.which("busybox") else ["busybox (apt-get install busybox)"]
    return missing


def sshd_or_fail(home: Path) -> Sshd:
    missing = missing_tools()
    if missing:
        pytest.fail("the ssh tests need " + ", ".join(missing) + " (.ci/install-system-tools installs them)", pytrace=False)
    for attempt in range(3):  # a port another process took between choosing it and sshd's bind
        server = Sshd(home / f"attempt{attempt}")
        try:
            server.start()
            return server
        except PortTaken as taken:
            last = taken
    raise RuntimeError(f"sshd found its ports taken three times: {last}")
