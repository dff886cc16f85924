"""One `ssh HOST sh -s` request session (`ssh.SshSource` sends it its script): its output
spooled into an anonymous file no thread of ours drains; one started ahead of its script
(`idle`) writes through relays that bound what it may spool until a request takes it.
"""
from __future__ import annotations

import io
import os
import shutil
import subprocess
import tempfile

try:  # the idle session's relay (`Relayed`)
    import fcntl
    import resource
except ImportError:  # Windows
    resource = None  # type: ignore[assignment]

from .remote_limits import NOISE_BYTES

ERRORS_KEPT = 64 << 10  # of a request's stderr: its last lines say why it failed (`one_line`)


def answered_unasked(session: "Session") -> bool:
    """Whether a session that was sent no script yet spooled more than a login's noise: a host
    that answers unasked (a runaway or hostile ForceCommand). Such a host gets no more sessions
    started ahead; the one that answered spooled at most IDLE_SPOOL (`Relayed`)."""
    return os.fstat(session.spool).st_size > NOISE_BYTES or os.fstat(session.errors.fileno()).st_size > NOISE_BYTES


RELAYED_MOST = 4 << 20  # a larger request gets a session of its own (`SshSource._request`)
PIPE_BYTES = 1 << 20  # the relay's pipe (Linux's default 64 KiB: a switch per 64 KiB moved)
IDLE_SPOOL = NOISE_BYTES + 1  # what a session started ahead may spool before its script: past a login's noise


class Session:
    """One `ssh HOST sh -s`, started before its script is known (`SshSource._spare_up`): its
    stdout a spool (`new_spool`), its stderr a file (neither is a pipe anyone must drain). One
    started ahead (`idle`) writes through a relay that bounds its spool until it is asked."""

    def __init__(self, command: list[str], idle: bool = False):
        self.spool, self.errors = new_spool(), tempfile.TemporaryFile()
        try:
            if idle and Relayed.works:
                self.proc: subprocess.Popen | Relayed = Relayed(command, self.spool, self.errors)
            else:
                self.proc = subprocess.Popen(command, stdin=subprocess.PIPE, stdout=self.spool, stderr=self.errors)
        except BaseException:
            os.close(self.spool)
            self.errors.close()
            raise

    def asked(self) -> bool:
        """Lift the idle bound, now that a script is on its way; False if that failed (the relay
        was stopped at its bound: the host answered unasked)."""
        return self.proc.unbound() if isinstance(self.proc, Relayed) else True

    def send(self, script: bytes) -> None:
        stdin = self.proc.stdin
        if stdin is None:
            return
        try:
            stdin.write(script)
            stdin.close()
        except OSError:
            pass  # ssh already exited: its status says why

    def stop(self) -> None:
        """Stop its ssh (the master then closes the session, whose remote command ends)."""
        if self.proc.poll() is None:
            self.proc.kill()
        self.proc.wait()

    def output(self, most: int) -> tuple[bytes, bytes]:
        """After ssh exited: what it wrote on stdout (at most `most` bytes) and on stderr (its
        last ERRORS_KEPT bytes); its files are closed."""
        out = b""
        try:
            size = min(os.fstat(self.spool).st_size, most)
            while len(out) < size:
                part = os.pread(self.spool, size - len(out), len(out))
                if not part:
                    break
                out += part  # one part, as a rule: no copy
        finally:
            os.close(self.spool)
        with self.errors:
            self.errors.seek(0, io.SEEK_END)
            self.errors.seek(max(0, self.errors.tell() - ERRORS_KEPT))
            return out, self.errors.read()

    def discard(self) -> None:
        """End it unused (or stop it): its ssh is killed (the master then closes the session,
        whose shell ends) and its files are closed."""
        if self.proc.poll() is None:
            self.proc.kill()
        self.proc.wait()
        if self.proc.stdin is not None:
            try:
                self.proc.stdin.close()
            except OSError:
                pass
        try:
            os.close(self.spool)
        except OSError:
            pass  # closed by `output`
        self.errors.close()


class Relayed:
    """An idle session's ssh, its stdout and stderr each a pipe into its file through `cat`: the
    kernel bounds what a `cat` may write (its RLIMIT_FSIZE soft limit at IDLE_SPOOL, so a host
    that streams before its script gets it stopped there) until `unbound` lifts it. With
    ControlMaster the master process writes the session's output, so no limit on ssh itself
    could do this. Popen's face: `poll`/`wait` count every process (the files are whole once the
    relays are done), `returncode` is ssh's. Linux only (`resource.prlimit`); elsewhere sessions
    start unrelayed."""

    works = resource is not None and hasattr(resource, "prlimit") and shutil.which("cat") is not None

    def __init__(self, command: list[str], spool: int, errors):
        self.relays: list[subprocess.Popen] = []
        ends: list[int] = []
        try:
            for into in (spool, errors):
                read_end, write_end = os.pipe()
                ends += [read_end, write_end]
                try:
                    fcntl.fcntl(write_end, getattr(fcntl, "F_SETPIPE_SZ", 1031), PIPE_BYTES)
                except OSError:
                    pass  # past /proc/sys/fs/pipe-max-size: the default size
                relay = subprocess.Popen(["cat"], stdin=read_end, stdout=into, stderr=subprocess.DEVNULL)
                self.relays.append(relay)
                resource.prlimit(relay.pid, resource.RLIMIT_CORE, (0, resource.prlimit(relay.pid, resource.RLIMIT_CORE)[1]))
                hard = resource.prlimit(relay.pid, resource.RLIMIT_FSIZE)[1]
                resource.prlimit(relay.pid, resource.RLIMIT_FSIZE, (IDLE_SPOOL, hard))
            self.ssh = subprocess.Popen(command, stdin=subprocess.PIPE, stdout=ends[1], stderr=ends[3])
        except BaseException:
            for relay in self.relays:
                relay.kill()
                relay.wait()
            raise
        finally:
            for end in ends:
                os.close(end)
        self.stdin = self.ssh.stdin

    @property
    def returncode(self) -> int | None:
        return self.ssh.returncode

    def unbound(self) -> bool:
        for relay in self.relays:
            try:
                hard = resource.prlimit(relay.pid, resource.RLIMIT_FSIZE)[1]
                resource.prlimit(relay.pid, resource.RLIMIT_FSIZE, (resource.RLIM_INFINITY, hard))
            except OSError:
                return False  # `cat` is gone: stopped at its bound
        return all(relay.poll() is None for relay in self.relays)

    def poll(self) -> int | None:
        if self.ssh.poll() is None or any(relay.poll() is None for relay in self.relays):
            return None
        return self.ssh.returncode

    def kill(self) -> None:
        for proc in (self.ssh, *self.relays):
            if proc.poll() is None:
                proc.kill()

    def wait(self, timeout: float | None = None) -> int:
        self.ssh.wait(timeout)
        for relay in self.relays:
            relay.wait(timeout)
        return self.ssh.returncode


def new_spool() -> int:
    """A file descriptor for ssh's standard output: an anonymous file in memory (Linux), else an
    unlinked file in the temp dir. Not a pipe: ssh writes into it as fast as the bytes come (no
    thread of ours drains it, no copy through our memory, the parser's pauses stall nothing)."""
    if hasattr(os, "memfd_create"):
        try:
            return os.memfd_create("tui-insight-ssh", getattr(os, "MFD_CLOEXEC", 0))
        except OSError:
            pass  # a kernel without it
    fd, name = tempfile.mkstemp(prefix="tui-insight-ssh-")
    os.unlink(name)
    return fd
