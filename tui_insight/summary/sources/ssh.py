"""Logs on another host, read through the system `ssh` (`tui-insight user@host:/path`).

Nothing is installed on the remote side: each request pipes a POSIX `sh` script to `ssh HOST sh -s`
and reads its standard output. The user's `~/.ssh/config`, agent, keys and ProxyJump apply as for
any ssh command; `BatchMode` means a missing key is an error, never a password prompt.

One shared connection (`ssh_connection.SshConnection`): a ControlMaster (socket in a private 0700
directory) that the command line starts before its heavy imports, or else the first listing
starts; every later request is a session over it (no new handshake). A master the user's own
ssh config has running for the host is used instead, and left running. The next request's session
is started ahead (as a request takes the last one; the first as the first listing's master comes
up): it waits for its script, so the ssh client's start, the session's round trip and the remote
login shell's start are not in a request's way (~10 ms a request here; a slow `.bashrc`'s time).

- **list** (`discover`): one request lists every file under the root with its size, mtime and
  inode, NUL-separated (`ssh_listing`: GNU `find -printf`, else `stat` as BusyBox or BSD have
  it), pruning hidden directories, staying on LOGDIR's filesystem and below it, and stopping a
  few levels below `MAX_DEPTH` (profile directories nest) or at `limits.MAX_DIRS_WALKED` directories;
  `stat` answers from that listing without a round trip.
- **bounds** (`remote_limits`): a read's answer may hold what it asked for, a listing's
  `--ssh-max-listing` bytes; a request may take a floor plus time for its bytes. The host is not
  trusted: past them the request is stopped, and every field it sent is checked where parsed.
- **read**: bytes [start, end) with `tail -c +N | head -c M`, or only `head -c M` from the start
  (a first load: one process fewer copying every byte; `head -c` is not POSIX but is in GNU,
  BusyBox and BSD), each range behind a header that says how many bytes follow (the file's
  size at that moment bounds it), several ranges in one request (`read_ranges`).
  Right after each listing, one request fetches what grew in every job file since the last
  listing (all of a new file), up to PREFETCH_BYTES, and holds it while the file is unchanged:
  the cache's reads and the payloads it decodes later are then answered from memory, so a
  reload of many live jobs is two round trips. A range not held is streamed by `open_range`
  (the cache parses while the rest is still arriving: ssh writes it into an anonymous file in
  memory, not a pipe, so no thread of ours drains it and the parser's pauses stall nothing) or
  read by `read` through a block cache (the many payloads a histogram view or an export is
  about to decode are fetched together first: `prefetch`, two requests for their records).
  The remote login shell's startup files run once per request: on a host whose `.bashrc` is
  slow that, not the network, is what a round trip costs (ahead of it, in the spare session,
  unless requests follow each other faster).
- **speed**: moving bytes through ssh costs about as much CPU as parsing them (sshd's and the
  master's encryption, 32 KB packets: `bench/bench_remote.py --only floor`); on cores that are
  not free the two cannot overlap and a first load takes about twice the local one or more. A
  cipher with hardware AES (`Ciphers ^aes128-gcm@openssh.com` in the user's ssh config) costs
  less than ssh's default ChaCha20; the user's choice is left alone. A new connection costs
  0.2-0.5 s before any byte moves (here: ~90 ms of OpenSSH's default sntrup761x25519 key
  exchange, two ~40 ms Nagle/delayed-ACK stalls of OpenSSH 9.2's client, the authentication and
  the session): the command line starts it before its heavy imports (`ssh_connection`).

A connection that drops (the master exits, the network goes), or a request past its time, makes
`status` say "reconnecting…": the request in flight fails with `ConnectionLost` (an OSError: that file's error
for this reload), later requests of the same reload fail at once, and the listing returns the
last jobs unchanged so the cache keeps what it has. The next `discover` starts a new master and
lists again; the cache then reads from its saved offsets.
"""
from __future__ import annotations

import io
import mmap
import os
import posixpath
import shutil
import socket
import subprocess
import threading
import time
from collections.abc import Iterable, Sequence
from typing import Any, BinaryIO, Callable

from ..limits import MAX_DIRS_WALKED
from . import ssh_listing
from .discovery import MAX_DEPTH, Discovery
from .local import HEAD_BYTES, ListedFiles, RangeCache, RangeFile, RangeReader, SourceError
from .remote_limits import NOISE_BYTES, RequestLimits, limits_from
from .remote_listing import jobs_from_listing
from .ssh_connection import (
    CONNECT_TIMEOUT,
    CONTROL_PERSIST,
    SERVER_ALIVE,
    SshConnection,
    one_line,
    parse_target,  # noqa: F401 (where it was; the tests import it from here)
)
from .ssh_session import ERRORS_KEPT, RELAYED_MOST, Relayed, Session, answered_unasked

LIST_DEPTH = MAX_DEPTH + 6  # files of a job at MAX_DEPTH, and its profile directory's subfolders
PREFETCH_BYTES = 32 << 20  # at most this much fetched with a listing (larger files are streamed)
MARK = b"TUI-INSIGHT-SSH-1\n"  # what the script prints first: lines a login script prints go before it
RECONNECTING = "reconnecting\N{HORIZONTAL ELLIPSIS}"


class SshError(SourceError):
    """The host cannot be reached, refused the key, or has no such directory: one line (the
    cache prefixes "cannot read LOCATION: ")."""


class ConnectionLost(SshError):
    """The shared connection dropped; the next listing reconnects."""

    transient = True  # a file it cut short is read on at the next reload, changed or not (`JobLoader`)


def quote(path: str) -> bytes:
    """`path` single-quoted for sh; bytes that are not UTF-8 (surrogate-escaped) go back as they came."""
    return b"'" + path.encode("utf-8", "surrogateescape").replace(b"'", b"'\\''") + b"'"


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
  elif [ "$s" -eq 0 ]; then
    head -c "$n" -- "$f"
  else
    tail -c +$((s + 1)) -- "$f" | head -c "$n"
  fi
}
printf '%(mark)s'
"""


class SshSource:
    """The files of `target` (`user@host:/path`) through the system ssh. See the module doc."""

    is_local = False

    def __init__(self, target: str, ssh_options: Sequence[str] = (), connection: SshConnection | None = None,
                 limits: RequestLimits | None = None, hold_streams: bool = False):
        """`connection`: the one the command line started early for `target` (else a new one);
        `limits`: the bounds of one request (else `remote_limits.limits_from` the environment);
        `hold_streams`: a streamed range stays whole in its spool and is held once scanned (up to
        the range cache's `max_held`), for an export, whose payload reads follow each job's load;
        else the spool's pages are given back as it is read (the app's memory stays bounded)."""
        self.location = target
        self.hold_streams = hold_streams
        try:
            self.limits = limits if limits is not None else limits_from()
        except ValueError as exc:
            raise SshError(str(exc)) from None
        if connection is None:
            try:
                connection = SshConnection(target, ssh_options)
            except (ValueError, OSError) as exc:
                raise SshError(str(exc)) from None
        self._connection = connection
        self.host, self.root = connection.host, connection.root
        self._lock = threading.Lock()
        self._start_lock = threading.Lock()  # `_join_start`
        self._started = False  # a master was started for this source (`_master_started`)
        self._master_pid: int | None = None
        self._pid_wanted = False  # a master was started whose pid is not asked for yet (`_ask_pid`)
        self._pid_check: subprocess.Popen | None = None  # `ssh -O check`, not waited for (`master_pid`)
        self._pid_lock = threading.Lock()
        self._spare: Session | None = None  # the next request's session, started ahead (`_spare_up`)
        self._spares = True  # False once a spare answered before its script: no idle session for this host
        self._dropped = False  # a request found the connection gone: reconnect at the next listing
        self._last_used = 0.0
        self._ranges = RangeCache(self._fetch, fetch_many=self.read_ranges)  # payloads decoded on demand
        self._files = ListedFiles(self._ranges)  # the last listing: `stat` answers from it
        self._dirs: dict[str, set[str]] = {}  # directory -> names in it, from the last listing
        self._discovery: Discovery | None = None
        self._prefetched: dict[str, tuple[int, bytes]] = {}  # path -> (start, its bytes from there): `_prefetch`
        self._heads: dict[str, bytes] = {}  # path -> its first bytes, fetched with the listing (`same_start`)
        self.status = ""
        self.heard = time.monotonic()  # when bytes last arrived (a lane's sign of life: `multi.Lane`)
        self.round_trips = 0  # requests sent (the benchmark counts them)
        self.max_walk_dirs = MAX_DIRS_WALKED  # directories one listing may walk (`ssh_listing`)

    # -- the connection -----------------------------------------------------------------

    def _ssh(self, master: str) -> list[str]:
        return self._connection.command(master)

    def _join_start(self) -> None:
        """Before a request: wait for the master the command line started early (its failure
        is this request's) and ask for its pid. Requests of other threads wait for the same."""
        with self._start_lock:
            try:
                started = self._connection.wait_started()
            except ConnectionError as exc:
                raise SshError(str(exc)) from None
            if started:
                self._master_started()

    def _master_alive(self) -> bool:
        """Whether the master answers on its socket (a killed one leaves the socket file, and
        may linger as a zombie its parent never reaps): ours once started, the user's own from
        the start."""
        return (self._started or self._connection.users) and self._socket_answers()

    def _socket_answers(self) -> bool:
        try:
            with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as probe:
                probe.connect(self._connection.socket)
        except OSError:
            return False
        return True

    def _master_started(self) -> None:
        """A master was just started: its pid (`ssh -O check` prints it) is asked for once the
        next request's own ssh has started (`_ask_pid`), and `master_pid` reads the answer: no
        request waits for that third process (its start, and a round trip over the socket)."""
        with self._pid_lock:
            self._reap_check(wait=True)  # an earlier master's
            self._started, self._master_pid, self._pid_wanted = True, None, True

    def _ask_pid(self) -> None:
        """Start `ssh -O check` if a master's pid is wanted (`_master_started`)."""
        with self._pid_lock:
            self._spawn_check()

    def _spawn_check(self) -> None:
        """`_ask_pid` under _pid_lock."""
        if self._pid_wanted:
            self._pid_wanted = False
            self._pid_check = subprocess.Popen([*self._ssh("no"), "-O", "check", self.host], stdin=subprocess.DEVNULL,
                                               stdout=subprocess.PIPE, stderr=subprocess.STDOUT)

    def _reap_check(self, wait: bool) -> None:
        """The pid `ssh -O check` printed, once it has exited (`wait`: wait for it). Under _pid_lock."""
        check = self._pid_check
        if check is None or (not wait and check.poll() is None):
            return
        self._pid_check = None
        try:
            out, _ = check.communicate(timeout=CONNECT_TIMEOUT)
        except subprocess.TimeoutExpired:
            check.kill()
            out, _ = check.communicate()
        text = out.decode("utf-8", "replace")
        start = text.find("pid=")
        digits = text[start + 4:].split(")", 1)[0] if start >= 0 else ""
        self._master_pid = int(digits) if digits.isdigit() else None

    def _lose(self, why: str) -> ConnectionLost:
        with self._lock:
            self._dropped = True
            self.status = RECONNECTING
        return ConnectionLost(f"connection lost ({why}); reconnecting")

    def _command(self, connect: bool) -> list[str]:
        """The ssh command of one request. `connect`: a listing, which may start a new master;
        other requests go only through the live one (the first of all starts it)."""
        with self._pid_lock:
            self._reap_check(wait=False)  # no zombie left once it has answered
        with self._lock:
            alive = self._master_alive()
            connect = connect or (self._discovery is None and not self._dropped)
            gone = not connect and (self._dropped or not alive)
            if connect and not alive and self._connection.users:
                self._connection.use_own()  # the user's master went: this request starts ours
            elif connect and not alive and os.path.exists(self._connection.socket):
                os.unlink(self._connection.socket)  # a killed master of ours leaves its socket behind
        if gone:
            raise self._lose("the shared connection is gone")
        if shutil.which("ssh") is None:
            raise SshError("ssh is not installed (the ssh client runs every remote request)")
        self.round_trips += 1
        return [*self._ssh("auto" if connect else "no"), self.host, "sh -s"]

    def _check(self, returncode: int, stderr: bytes, connected: bool) -> None:
        """After a request: its failure as an SshError (ConnectionLost if it worked before), and
        the pid of a master it started asked for."""
        self._last_used = time.monotonic()
        if returncode == 255:  # ssh's own failure, not the script's
            line = one_line(stderr, "ssh failed")
            if self._discovery is not None:
                raise self._lose(line)  # it worked before: the connection went
            raise SshError(line)
        if not connected:  # the request started a master (even if its script then failed)
            self._master_started()
        if returncode != 0:
            raise SshError(one_line(stderr, f"the remote script failed ({returncode})"))

    def _request(self, script: bytes, connect: bool, nbytes: int = 0) -> tuple[Session, bool]:
        """Send `script` to a session: the spare one if the master is up, else a new one. Returns
        it, and whether the master was up before (`_check`). The next spare starts meanwhile.
        A request for more than RELAYED_MOST bytes (`nbytes`) takes a session of its own: the
        spare's relay would copy every byte again, and its head start is nothing beside them."""
        self._join_start()
        connected = self._master_alive()
        command = self._command(connect)
        session = self._take_spare() if connected and nbytes <= RELAYED_MOST else None
        if session is None:
            session = Session(command)
        session.send(script)
        self._ask_pid()  # now that this request is on its way
        if connected:
            self._spare_up()
        return session, connected

    def _take_spare(self) -> Session | None:
        with self._lock:
            spare, self._spare = self._spare, None
        if spare is not None and spare.proc.poll() is not None:
            spare.discard()  # its ssh ended (the master went, or the host refused the session)
            return None
        if spare is not None and (answered_unasked(spare) or not spare.asked()):
            with self._lock:
                self._spares = False
            spare.discard()
            return None
        return spare

    def _watch_spare(self) -> None:
        """End the spare if it answered unasked (`answered_unasked`); this host then gets no
        more of them."""
        with self._lock:
            spare = self._spare
            if spare is None or not answered_unasked(spare):
                return
            self._spare, self._spares = None, False
        spare.discard()

    def _spare_up(self) -> None:
        """Start the next request's session now (`ssh HOST sh -s` waiting for its script): the
        ssh client's start, the session's round trip and the remote login shell's start are then
        behind it when it is wanted, not in its way (~10 ms here; a slow `.bashrc`'s whole time)."""
        with self._lock:
            old = self._spare
            if not self._spares or (old is not None and old.proc.poll() is None):
                return
            self._spare = Session([*self._ssh("no"), self.host, "sh -s"], idle=True)
        if old is not None:
            old.discard()  # ended with the master that is gone

    def _run(self, script: bytes, connect: bool = False, asked: tuple[int, int] | None = None,
             walked: ssh_listing.WalkedDirectories | None = None, expected: int = 0) -> bytes:
        """Run `script` on the host; its standard output after MARK. `asked`: a read's (bytes,
        ranges), which bound its answer and its time; None: a listing, bounded by
        `limits.max_listing` and `walked` (past them, ssh is stopped and the answer is what
        arrived) and given time for the bytes it sends (`remote_limits`). Past its time a request
        fails as a dropped connection does; a read answering more than asked fails."""
        session, connected = self._request(script, connect, expected)
        proc = session.proc
        limits = self.limits
        most = limits.max_listing + NOISE_BYTES if asked is None else limits.read_bytes(*asked)
        began, capped, counted, seen = time.monotonic(), False, 0, 0
        try:
            wait, spare_wanted = WAIT_FIRST, not connected
            # Looked at every millisecond at most: Popen.wait(timeout) polls too, up to 50 ms apart
            # (an idle reload's listing took 10 ms instead of 7 with it).
            while proc.poll() is None:
                self._watch_spare()  # the one started beside this request, watched as it runs
                spooled = os.fstat(session.spool).st_size
                if spooled > seen:  # the host is alive (`heard`)
                    self.heard, seen = time.monotonic(), spooled
                if os.fstat(session.errors.fileno()).st_size > NOISE_BYTES:
                    raise SshError(f"the host wrote more than {NOISE_BYTES >> 20} MiB of errors")
                if walked is not None and spooled > counted:
                    capped = walked.feed(os.pread(session.spool, spooled - counted, counted))
                    counted = spooled
                if spooled > most and asked is not None:
                    raise SshError(f"the host answered more than the {asked[0]} bytes asked for")
                if spooled > most or capped:
                    session.stop()  # a listing past its bounds: what arrived is parsed
                    capped = True
                    break
                seconds = limits.seconds(spooled if asked is None else asked[0])
                if time.monotonic() - began > seconds:
                    raise self._failed(f"no answer in {seconds:.0f} s")
                if spare_wanted and self._socket_answers():
                    spare_wanted = False
                    self._spare_up()  # the master this request starts is up: the next session starts beside it
                time.sleep(wait)
                wait = min(wait * 2, WAIT_MOST)
        except BaseException:
            session.discard()
            raise
        stdout, stderr = session.output(most)
        if not capped:
            self._check(-1 if proc.returncode is None else proc.returncode, stderr, connected)  # (None: never, it ended)
        elif not connected:
            self._master_started()
        at = stdout.find(MARK)
        if at < 0:
            raise SshError("the remote shell answered nothing readable")
        return stdout[at + len(MARK):]

    def _failed(self, why: str) -> SshError:
        """A request that failed on its way: a dropped connection once the host was listed (the
        next listing reconnects; the cache keeps what it read), else the host's error."""
        return SshError(why) if self._discovery is None else self._lose(why)

    @property
    def master_pid(self) -> int | None:
        """The process holding the shared connection (None before the first request)."""
        with self._pid_lock:
            self._spawn_check()
            self._reap_check(wait=True)
            return self._master_pid

    # -- Source -------------------------------------------------------------------------

    def discover(self, listings: dict | None = None, turn: int | None = None) -> Discovery:
        """The jobs under the root, in one request. Raises SshError when the host, the key or the
        root is wrong; when an established connection dropped, returns the last jobs instead."""
        with self._lock:
            if self._started and not self._master_alive() and not self._dropped:
                # Gone since the last request. Idle for its ControlPersist: expected; else say so.
                if time.monotonic() - self._last_used < CONTROL_PERSIST - SERVER_ALIVE:
                    self._dropped, self.status = True, RECONNECTING
                    return self._last_jobs()
        try:
            walked = ssh_listing.WalkedDirectories(self.max_walk_dirs)
            out = self._run(ssh_listing.SCRIPT % {b"root": quote(self.root), b"mark": MARK, b"depth": LIST_DEPTH,
                                                  b"cap": self.limits.max_listing}, connect=True, walked=walked)
            if not out.startswith(b"nul\n"):
                raise self._failed("the host's answer to the listing is not a listing")
        except ConnectionLost:
            return self._last_jobs()  # still unreachable: keep what was listed, try again next time
        with self._lock:
            self._dropped, self.status = False, ""
        self._discovery, same = self._parse_listing(out, walked)
        self._prefetch(self._discovery, same)
        return self._discovery

    def _prefetch(self, discovery: Discovery, same: dict[str, int]) -> None:
        """Fetch, in one request, what the cache is about to read: the bytes of every job file
        that grew since the last listing (all of a new file), PREFETCH_BYTES held in all. They
        stay held while the file is unchanged, for the payloads decoded later; a reload of many
        live jobs is then two round trips, not one per file. What is not held is streamed by
        `open_range` or read by `read`. `same`: the size at the last listing of each file that
        is still the same file (`ListedFiles.update`)."""
        held: dict[str, tuple[int, bytes]] = {}
        wanted, total = [], 0
        for job in discovery.jobs.values():
            for name in (*job.event_files, *job.lineage_files, *job.graph_files):
                path = posixpath.join(job.path, name)
                size = self._files.size(path)
                if size is None:  # (listed with its job: always known)
                    continue
                kept = self._prefetched.get(path) if path in same else None
                start = kept[0] if kept else same.get(path, 0)
                have = kept[1] if kept else b""
                if start + len(have) > size or total + size - start > PREFETCH_BYTES:
                    continue
                total += size - start
                if start + len(have) == size:
                    held[path] = (start, have)
                else:
                    wanted.append((path, start + len(have), size, start, have))
        # The first bytes of each file grown since it was read, for `same_start`, in the same request.
        heads = [path for path, *_ in wanted if same.get(path)]
        try:
            fetched = self.read_ranges([*((path, at, size) for path, at, size, _, _ in wanted),
                                        *((path, 0, HEAD_BYTES) for path in heads)])
        except OSError:
            fetched = []  # each file's own read says what is wrong
        for (path, _, _, start, have), data in zip(wanted, fetched):
            if isinstance(data, bytes):
                held[path] = (start, have + data)
        self._prefetched = held
        self._heads = {path: data for path, data in zip(heads, fetched[len(wanted):]) if isinstance(data, bytes)}

    def same_start(self, path: str, start: bytes) -> bool:
        head = self._heads.pop(path, b"")
        if len(head) < len(start):  # (what `_held` keeps of the file may be another's)
            fetched = self.read_ranges([(path, 0, len(start))])[0]
            if isinstance(fetched, OSError):
                raise fetched
            head = fetched
        if head[:len(start)] == start:
            return True
        self._files.replaced(path)  # another file under the name: what was kept of it is another's
        self._prefetched.pop(path, None)
        return False

    def _held(self, path: str, start: int, end: int) -> bytes | None:
        """Bytes [start, end) of `path` if the prefetch holds them (fewer where the listed file
        ends: the end of the file as the cache knows it)."""
        held = self._prefetched.get(path)
        if held is None or start < held[0]:
            return None
        stop = held[0] + len(held[1])
        if stop < end and stop != self._files.size(path):
            return None
        return held[1][start - held[0]:end - held[0]]

    def _last_jobs(self) -> Discovery:
        assert self._discovery is not None  # only a connection that once listed is lost
        return Discovery(dict(self._discovery.jobs), list(self._discovery.problems))

    def _parse_listing(self, out: bytes, walked: ssh_listing.WalkedDirectories) -> tuple[Discovery, dict[str, int]]:
        """The jobs of a listing's output, and `ListedFiles.update`'s answer for it."""
        body = out.partition(b"\n")[2][:self.limits.max_listing]
        listing = ssh_listing.parse(body, len(body) >= self.limits.max_listing, walked)
        entries = [(rel, size, mtime) for rel, size, mtime, _inode in listing.entries]
        dirs: dict[str, set[str]] = {}
        for rel, _size, _mtime in entries:
            parent, name = posixpath.split(posixpath.join(self.root, rel))
            while True:
                dirs.setdefault(parent, set()).add(name)
                if len(parent) <= len(self.root):
                    break
                parent, name = posixpath.split(parent)
        same = self._files.update((posixpath.join(self.root, rel), size, mtime, mtime, inode)
                                  for rel, size, mtime, inode in listing.entries)
        self._dirs = dirs
        found = jobs_from_listing(self.root, entries)
        return Discovery(found.jobs, listing.problems + found.problems), same

    def stat(self, path: str) -> os.stat_result:
        return self._files.stat(path)

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
        asked = expected = 0
        for i, (path, start, end) in enumerate(ranges):
            stop = (1 << 62) if end is None else end
            pad = 0 if i == len(ranges) - 1 else 1
            script.append(b"r %s %d %d %d\n" % (quote(path), start, stop, pad))
            # To the end (a file not listed, its size unknown): up to a listing's cap.
            asked += self.limits.max_listing if end is None else max(0, end - start)
            expected += 0 if end is None else max(0, end - start)  # a file not listed: a small one, as a rule
        out = self._run(b"".join(script), asked=(asked, len(ranges)), expected=expected)
        results: list[bytes | OSError] = []
        at = 0
        for path, start, end in ranges:
            eol = out.find(b"\n", at, at + 200)
            header = out[at:eol] if eol >= 0 else b""
            count = _count(header, None if end is None else max(0, end - start))
            if header.startswith(b"E "):
                results.append(OSError(f"{header[2:].decode('utf-8', 'surrogateescape')}: {path}"))
            elif count is not None:
                results.append(out[eol + 1:eol + 1 + count])
                eol += count
            else:  # the script was cut short (the connection went as it answered), or is not ours
                raise self._lose("the answer ended early")
            at = eol + 1
        return results

    def _fetch(self, path: str, start: int, end: int | None) -> bytes:
        held = self._held(path, start, end) if end is not None else None
        if held is not None:
            return held
        result = self.read_ranges([(path, start, end)])[0]
        if isinstance(result, OSError):
            raise result
        return result

    def prefetch(self, ranges: Iterable[tuple[str, int, int]]) -> None:
        """The blocks of each (path, start, end), in one request (`RangeCache.prefetch`)."""
        self._ranges.prefetch(ranges)

    def read(self, path: str, start: int = 0, end: int | None = None) -> bytes:
        """Bytes of a file (payloads, graphs, lineage, profiles): through a cache of recently read
        blocks, so reading a record's header and then its body is one request."""
        if end is None:
            end = self._files.size(path)
            if end is None:
                return self._fetch(path, start, None)
        return self._ranges.read(path, start, end)

    def open_range(self, path: str, start: int, end: int) -> BinaryIO:
        """Bytes [start, end) of a file: prefetched with the listing, or streamed by a request of
        its own (the cache scans records while the rest is still on its way)."""
        held = self._held(path, start, end) if end > start else b""
        if held is not None:
            return RangeFile(held, start)
        script = _READ % {b"mark": MARK} + b"r %s %d %d 0\n" % (quote(path), start, end)
        session, connected = self._request(script, False, end - start)
        errors = session.errors
        bound = _Bound(end - start, self.limits.read_bytes(end - start, 1), self.limits.seconds(end - start),
                       lambda why: self._failed(why), lambda: setattr(self, "heard", time.monotonic()))
        keep = (lambda at, size, spool, skip: self._ranges.hold(path, at, size, spool, skip)) \
            if self.hold_streams and end - start <= self._ranges.max_held else None
        stream = _SpooledRange(session.proc, session.spool, start, bound,
                               lambda returncode: self._finished(returncode, errors, connected), keep)
        try:
            header = stream.header()
        except BaseException:
            stream.close()
            raise
        if header.startswith("E "):
            stream.close()
            raise OSError(f"{header[2:]}: {path}")
        return io.BufferedReader(stream, STREAM_CHUNK)  # the scanner's small reads are C reads

    def _finished(self, returncode: int | None, errors, connected: bool) -> None:
        """A streamed read ended: ssh's failure, if it failed (`_check`); None: we stopped it."""
        with errors:
            errors.seek(0, io.SEEK_END)
            errors.seek(max(0, errors.tell() - ERRORS_KEPT))
            stderr = errors.read()
        if returncode is not None:
            self._check(returncode, stderr, connected)

    def close(self) -> None:
        """End the spare session, stop the master and remove the socket's directory (`SshConnection.close`)."""
        with self._lock:
            spare, self._spare = self._spare, None
        if spare is not None:
            spare.discard()
        with self._pid_lock:
            self._reap_check(wait=True)
            self._started, self._master_pid, self._pid_wanted = False, None, False
        self._ranges.let_go()
        self._connection.close()


STREAM_CHUNK = 1 << 20  # the BufferedReader's buffer (the scanner's own reads are larger)
STREAM_KEEP = 16 << 20  # bytes kept behind the read position (the record scanner's seeks back)
PUNCH_EVERY = 8 << 20  # the spool's pages behind STREAM_KEEP are given back by this much at once
WAIT_FIRST, WAIT_MOST = 0.0002, 0.001  # seconds between looks at a spool that has not enough yet (a wait ends
# at most WAIT_MOST late; a few per load, as the transfer keeps ahead of the parser)


def _count(header: bytes, asked: int | None) -> int | None:
    """The byte count of a range's "D <count>" header, None when it is none (or more than asked)."""
    digits = header[2:] if header.startswith(b"D ") else b""
    if not 0 < len(digits) <= 19 or not digits.isdigit():  # bytes.isdigit: ASCII digits only
        return None
    count = int(digits)
    return count if asked is None or count <= asked else None


def _punch(fd: int, offset: int, length: int) -> None:
    """Give back the pages of [offset, offset + length) of the spool (Linux `fallocate`): the
    bytes behind STREAM_KEEP are never read again. Elsewhere nothing (the spool keeps them)."""
    global _fallocate
    if _fallocate is None:
        try:
            import ctypes

            call = ctypes.CDLL(None, use_errno=True).fallocate
            call.argtypes = [ctypes.c_int, ctypes.c_int, ctypes.c_int64, ctypes.c_int64]
            _fallocate = call
        except (OSError, AttributeError):
            _fallocate = False
    if _fallocate:
        _fallocate(fd, 3, offset, length)  # FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE


_fallocate: Any = None  # fallocate(2) through ctypes once looked for; False where there is none


class _Bound:
    """What a streamed read may spool and how long it may take (`remote_limits`); `failed(why)`
    makes the error a request past them ends with (`SshSource._failed`)."""

    def __init__(self, asked: int, most: int, seconds: float, failed, heard=None):
        self.asked, self.most, self.seconds, self.failed = asked, most, seconds, failed
        self.deadline = time.monotonic() + seconds
        self._heard, self._spooled = heard, 0  # `heard()` as more bytes arrive: the host is alive

    def broken(self, spooled: int) -> SshError | None:
        """The error of a stream that spooled `spooled` bytes so far, None while within bounds."""
        if spooled > self._spooled and self._heard is not None:
            self._spooled = spooled
            self._heard()
        if spooled > self.most:
            return SshError(f"the host answered more than the {self.asked} bytes asked for")
        if time.monotonic() > self.deadline:
            return self.failed(f"no answer in {self.seconds:.0f} s")
        return None


class _SpooledRange(RangeReader):
    """A range of a remote file read from the spool the request's ssh writes it into (`new_spool`):
    reads wait for the bytes they need (looking at the spool's size) and copy them once, from
    the kernel, straight into the reader's buffer; the last STREAM_KEEP bytes stay for the
    scanner's seeks back, the pages before them are given back (`_punch`). A stream that ends
    early (the connection went, the file was cut) reads as the end of the file: the scan stops at
    the last whole record, where the next reload goes on; `close` then raises the request's
    error, if any."""

    def __init__(self, proc: "subprocess.Popen | Relayed", spool: int, start: int, bound: _Bound, finished,
                 keep: Callable[[int, int, mmap.mmap, int], None] | None = None):
        """`keep(start, size, spool, skip)` takes the whole range at `close` (the spool mapped, the
        range `skip` bytes into it); its pages are then not given back as it is read."""
        self._proc, self._spool, self._finished, self._bound = proc, spool, finished, bound
        self._keep = keep
        self._error: SshError | None = None  # past its bounds: stopped, and `close` raises this
        self._start = self._pos = self._end = start
        self._base = 0  # where the range's first byte is in the spool (after the header)
        self._punched = 0  # spool bytes before this are given back
        self._done = False  # ssh has exited: the spool is whole

    def _available(self, need: int) -> int:
        """The spool's size once it holds `need` bytes, or once ssh has exited (then less)."""
        wait = WAIT_FIRST
        while True:
            size = os.fstat(self._spool).st_size
            if size >= need or self._done:
                return size
            if self._proc.poll() is not None:
                self._done = True  # all it wrote is there now: one last look
                continue
            self._error = self._bound.broken(size)
            if self._error is not None:
                self._proc.kill()  # what arrived is read; `close` raises the error
                self._proc.wait()
                self._done = True
                continue
            time.sleep(wait)
            wait = min(wait * 2, WAIT_MOST)

    def header(self) -> str:
        """The answer's header ("D <count>" or "E <reason>"), after any login noise and MARK."""
        seen = b""
        while True:
            size = self._available(len(seen) + 1)
            if size > len(seen):
                seen += os.pread(self._spool, size - len(seen), len(seen))
            at = seen.find(MARK)
            eol = seen.find(b"\n", at + len(MARK)) if at >= 0 else -1
            if eol >= 0:
                break
            if self._done and size <= len(seen):
                self.close()  # raises ssh's error; else the answer was cut short
                raise SshError("the remote shell answered nothing readable")
        raw = seen[at + len(MARK):eol]
        count = _count(raw, self._bound.asked)  # more than asked: not an answer to this read
        if count is not None:
            self._end = self._start + count
            self._base = eol + 1
        elif not raw.startswith(b"E "):
            self.close()
            raise SshError("the host's answer to a read is not one asked for")
        return raw.decode("utf-8", "surrogateescape")

    def read(self, size: int = -1) -> bytes:
        size = self._end - self._pos if size is None or size < 0 else min(size, self._end - self._pos)
        buffer = bytearray(max(size, 0))
        return bytes(buffer[:self.readinto(buffer)])

    def readinto(self, buffer) -> int:
        """The BufferedReader's reads (a megabyte or more): one copy, from the spool."""
        size = min(len(buffer), self._end - self._pos)
        if size <= 0:
            return 0
        at = self._base + self._pos - self._start  # in the spool
        if at < self._punched:
            raise OSError(f"byte {self._pos} is no longer held (the stream is past {self._pos + STREAM_KEEP})")
        have = self._available(at + size) - at
        if have < size:
            self._end = self._pos + max(have, 0)  # ended early: what arrived is all there is
            size = self._end - self._pos
            if size <= 0:
                return 0
        with memoryview(buffer) as into:
            done = 0
            while done < size:
                got = os.preadv(self._spool, [into[done:size]], at + done)
                if got <= 0:
                    raise OSError(f"the spool of the stream ended at byte {self._pos + done}")
                done += got
        self._pos += size
        behind = self._base + self._pos - self._start - STREAM_KEEP
        if behind - self._punched >= PUNCH_EVERY and self._keep is None:
            behind -= behind % PUNCH_EVERY
            _punch(self._spool, self._punched, behind - self._punched)
            self._punched = behind
        return size

    def close(self) -> None:
        if self.closed:
            return
        super().close()
        complete = self._done or os.fstat(self._spool).st_size >= self._base + self._end - self._start
        if self._proc.poll() is None and not complete:
            self._proc.kill()  # the scan stopped early (an incomplete tail): the rest is not wanted
        elif complete:
            self._let_end()
        returncode = self._proc.wait()
        if complete and returncode == 0 and self._error is None and self._keep is not None:
            size = min(self._end - self._start, os.fstat(self._spool).st_size - self._base)  # (mapped bytes exist)
            if size > 0:
                self._keep(self._start, size, mmap.mmap(self._spool, self._base + size, prot=mmap.PROT_READ), self._base)
        os.close(self._spool)
        if self._error is not None:
            raise self._error
        self._finished(None if returncode < 0 and not complete else max(returncode, 0))

    def _let_end(self) -> None:
        """Every byte asked for is there: the remote command ends now, unless it goes on writing
        (hostile) or never ends; then its ssh is stopped once past its bounds."""
        wait = WAIT_FIRST
        while self._proc.poll() is None:
            self._error = self._bound.broken(os.fstat(self._spool).st_size)
            if self._error is not None:
                self._proc.kill()
                return
            time.sleep(wait)
            wait = min(wait * 2, WAIT_MOST)
