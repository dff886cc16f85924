"""Hostile ssh hosts (issue 23): how long a request takes and what it spools. Run by hand:

    python bench/bench_hostile_remote.py CASE [SECONDS]

CASE: `fields` (a listing with nan/1e400 mtimes), `runaway` (a listing of /dev/zero), `silent`
(a listing that never answers), `read` (a streamed read answered by /dev/zero), `phantom`
(BusyBox and a root file 'model.pb\\nold'), `links` (links to / and /proc in LOGDIR). A real
sshd on 127.0.0.1 (tests/sshd.py), whose hostile port runs the tools put in its PATH. A case
still running after SECONDS (default 60) is reported with the bytes spooled so far; run it with
PYTHONPATH at another checkout to compare.
"""
from __future__ import annotations

import os
import resource
import sys
import tempfile
import threading
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent / "tests"))

from sshd import Sshd

from tui_insight.summary.formats.writer import SummaryWriter
from tui_insight.summary.sources.ssh import SshSource
from tui_insight.summary.store.cache import SummaryCache


def spooled_mib() -> int:
    """What this process's ssh spools hold (in-memory files named tui-insight-ssh)."""
    total = 0
    for fd in os.listdir("/proc/self/fd"):
        try:
            if "tui-insight-ssh" in os.readlink(f"/proc/self/fd/{fd}"):
                total += os.fstat(int(fd)).st_size
        except OSError:
            pass
    return total >> 20


def timed(label: str, work, limit: float) -> None:
    box: dict = {}

    def run() -> None:
        began = time.monotonic()
        try:
            box["result"] = repr(work())[:300]
        except Exception as exc:
            box["result"] = f"{type(exc).__name__}: {exc}"[:300]
        box["seconds"] = time.monotonic() - began

    thread = threading.Thread(target=run, daemon=True)
    thread.start()
    thread.join(limit)
    rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss >> 10
    if thread.is_alive():
        print(f"{label}: still running after {limit:.0f} s, {spooled_mib()} MiB spooled, max RSS {rss} MiB")
    else:
        print(f"{label}: {box['seconds']:.1f} s -> {box['result']}; max RSS {rss} MiB")


def main() -> None:
    case, limit = sys.argv[1], float(sys.argv[2]) if len(sys.argv) > 2 else 60.0
    home = Path(tempfile.mkdtemp(prefix="bench-hostile-"))
    server = Sshd(home, session_home=home)
    server.start()
    hostile = ["-F", str(server.hostile_config(home / "hostile_config"))]
    root = home / "logs"
    for name in ("a", "b"):
        with SummaryWriter(root / name, timestamp=1) as writer:
            for step in range(1, 11):
                writer.add_scalar("loss", 1.0 / step)
                writer.record(step)
    (root / "a" / "notes.txt").write_bytes(b"0123456789" * 10)
    lists = 'case "$*" in *"-maxdepth 0"*) exit 0;; esac\n'  # a `find` that claims GNU's -printf
    try:
        if case == "fields":
            records = b""
            for name, mtime in (("a", "nan"), ("b", "1e400")):
                path = next((root / name).glob("*summary*"))
                st = path.stat()
                records += f"{st.st_size} {mtime} {st.st_ino} {path.relative_to(root)}".encode() + b"\0"
            (server.hostile_bin / "listing").write_bytes(records)
            server.hostile_tool("find", f"{lists}exec cat {server.hostile_bin / 'listing'}\n")

            def load():
                cache = SummaryCache(SshSource(server.target(root), hostile))
                cache.reload()
                return cache.progress.jobs_loaded, cache.progress.jobs_found, cache.problems

            timed("nan/1e400 mtimes", load, limit)
        elif case == "runaway":
            server.hostile_tool("find", f"{lists}exec cat /dev/zero\n")
            timed("runaway listing", lambda: SshSource(server.target(root), hostile).discover({}), limit)
        elif case == "silent":
            server.hostile_tool("find", "exec sleep 900\n")
            timed("silent listing", lambda: SshSource(server.target(root), hostile).discover({}), limit)
        elif case == "read":
            source = SshSource(server.target(root), hostile)
            source.discover({})
            server.hostile_tool("head", "exec cat /dev/zero\n")

            def read():
                with source.open_range(source.root + "/a/notes.txt", 0, 10) as stream:
                    return stream.read()

            timed("runaway read", read, limit)
        elif case in ("phantom", "links"):
            if case == "phantom":
                (root / "model.pb\nold").write_bytes(b"")
            else:
                os.symlink("/", root / "slash")
                os.symlink("/proc", root / "proc")
            for port in (server.port, server.busybox_port):
                config = server.write_client_config(home / f"config{port}", server.key, port=port)
                source = SshSource(server.target(root), ["-F", str(config)])
                name = "GNU" if port == server.port else "BusyBox"
                timed(f"{case}, {name}", lambda s=source: (sorted(s.discover({}).jobs), s.discover({}).problems[:2]),
                      limit)
        else:
            raise SystemExit(f"unknown case {case!r}")
    finally:
        server.stop()
    os._exit(0)  # a case still running holds a thread


if __name__ == "__main__":
    main()
