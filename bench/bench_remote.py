"""Remote LOGDIR benchmark (issue 13). Run by hand:

    python bench/bench_remote.py [--runs 3] [--only s3|ssh|floor] [--before CHECKOUT] [--own-home]

S3 (`--before CHECKOUT`: that checkout's rows too): a moto S3 server in its own process on
127.0.0.1; the ~100 MB run of `make_logs.write_big` uploaded to it; alternated in each round: the
floor (a plain GET of the object, nothing parsed), a first load in a fresh process (the client
and its connection counted), the whole `--summary` and `--export csv` processes, each through
`s3://` and locally (medians; goal: S3 <= 1.5x local); then 100 small jobs: the idle reload
through S3 (time, and the requests the server saw: goal one LIST).
ssh: see `ssh_figures` (goal: <= 2x local; an idle reload of 100 jobs one round trip, <= 200 ms).
Its sessions run with an empty HOME, so the figures are tui-insight's and ssh's, not this
account's shell startup files (here root's `.bashrc` runs `pyenv init`: ~250 ms for every
request, which sshd's bash reads even for commands); `--own-home` measures with them.
floor: what moving the same bytes over ssh costs without tui-insight (`floor_figures`).
"""
from __future__ import annotations

import argparse
import contextlib
import json
import os
import shutil
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(HERE.parent / "tests"))  # sshd.py: the tests' sshd

from installed_bytecode import compile_checkouts  # noqa: E402

from make_logs import write_big, write_many  # noqa: E402

from tui_insight.summary.store.cache import SummaryCache  # noqa: E402

CREDENTIALS = {"AWS_ACCESS_KEY_ID": "bench", "AWS_SECRET_ACCESS_KEY": "bench", "AWS_DEFAULT_REGION": "us-east-1"}


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


class MotoProcess:
    """`moto_server` in a process of its own (not a thread of this one: it would share the GIL
    with the loader being measured); its request log counts the requests."""

    def __init__(self, log: Path):
        self.port = free_port()
        self.log = log
        self._fh = open(log, "wb")
        self.proc = subprocess.Popen([sys.executable, "-m", "moto.server", "-H", "127.0.0.1", "-p", str(self.port)],
                                     stdout=self._fh, stderr=subprocess.STDOUT)
        self.endpoint = f"http://127.0.0.1:{self.port}"
        self.options = {"client_kwargs": {"endpoint_url": self.endpoint}}
        deadline = time.monotonic() + 30
        while True:
            try:
                socket.create_connection(("127.0.0.1", self.port), timeout=1).close()
                break
            except OSError:
                if time.monotonic() > deadline or self.proc.poll() is not None:
                    raise RuntimeError(f"moto_server did not start; see {log}")
                time.sleep(0.1)

    def requests(self) -> int:
        return sum(1 for line in self.log.read_text(errors="replace").splitlines() if '" 200 ' in line or '" 206 ' in line)

    def stop(self) -> None:
        self.proc.terminate()
        self.proc.wait(timeout=10)
        self._fh.close()


def upload(options: dict, local: Path, prefix: str) -> None:
    import s3fs

    fs = s3fs.S3FileSystem(skip_instance_cache=True, **options)
    bucket = prefix.split("/")[0]
    if not fs.exists(bucket):
        fs.mkdir(bucket)
    for path in local.rglob("*"):
        if path.is_file():
            fs.pipe_file(f"{prefix}/{path.relative_to(local).as_posix()}", path.read_bytes())


def load_seconds(logdir) -> float:
    cache = SummaryCache(logdir)
    t0 = time.perf_counter()
    cache.reload()
    elapsed = time.perf_counter() - t0
    assert cache.error == "" and all(v.loaded for v in cache.jobs.values()), cache.error
    return elapsed


# A first load in a fresh process, its imports done before the clock (s3fs's too): the source is
# made (for S3: s3fs's client, its connection) and every job loaded. Run with `-c` so the
# PYTHONPATH given (this checkout, or `--before`'s) decides which code loads.
FIRST_LOAD = """
import json, sys, time
from tui_insight.summary.store.cache import SummaryCache
logdir, endpoint = sys.argv[1], sys.argv[2]
if endpoint:
    import s3fs  # noqa: F401
    from tui_insight.summary.sources.object_store import FsspecSource
t0, c0 = time.perf_counter(), time.process_time()
cache = SummaryCache(FsspecSource(logdir, {"client_kwargs": {"endpoint_url": endpoint}}) if endpoint else logdir)
cache.reload()
wall, cpu = time.perf_counter() - t0, time.process_time() - c0
assert cache.error == "" and cache.jobs and all(v.loaded for v in cache.jobs.values()), cache.error
print(json.dumps([wall, cpu]))
"""


def pid_cpu(pid: int) -> float:
    """CPU seconds of one process so far (the moto server's: what serving cost)."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def get_floor(url: str) -> None:
    """The bytes of one object by a plain GET into one buffer, nothing parsed: this peer's floor."""
    import http.client
    from urllib.parse import urlsplit

    parts = urlsplit(url)
    conn = http.client.HTTPConnection(parts.hostname, parts.port)
    conn.request("GET", parts.path)
    answer = conn.getresponse()
    size = int(answer.headers["Content-Length"])
    buffer = memoryview(bytearray(size))
    got = 0
    while got < size:
        count = answer.readinto(buffer[got:got + (1 << 20)])
        if not count:
            break
        got += count
    conn.close()
    assert answer.status == 200 and got == size, (answer.status, got, size)


def s3_figures(runs: int, before: Path | None = None) -> None:
    """The 107 MB run from moto (its own process) vs the same file read locally, alternated:
    the floor (a plain GET of the object, no parsing); a first load in a fresh process, the
    client and its connection counted (`FIRST_LOAD`); the whole `--summary` and `--export csv`
    processes. CPU: this side's processes; moto's own CPU beside it. With `before`, that
    checkout's rows too, in the same rounds."""
    from tui_insight.summary.sources.object_store import FsspecSource

    os.environ.update(CREDENTIALS)
    sides = {"after": HERE.parent, **({"before": before.resolve()} if before else {})}
    with tempfile.TemporaryDirectory() as tmp:
        tmp = Path(tmp)
        server = MotoProcess(tmp / "moto.log")
        try:
            big = tmp / "big"
            path = write_big(big)
            upload(server.options, big, "bench/big")
            url = "s3://bench/big"
            object_url = f"{server.endpoint}/bench/big/{path.relative_to(big).as_posix()}"
            storage = ["--storage-option", f"client_kwargs.endpoint_url={server.endpoint}"]
            out = tmp / "out"
            print(f"S3: the {path.stat().st_size / 1e6:.0f} MB run, local vs {url} (moto on 127.0.0.1, its own "
                  f"process), {runs} rounds, alternated; load average {os.getloadavg()[0]:.1f} at the start")
            rows: dict[str, list[tuple[float, float, float]]] = {}  # name -> (wall, our CPU, moto's CPU)

            def timed(name: str, run) -> None:
                moto0, cpu0, t0 = pid_cpu(server.proc.pid), tree_cpu(), time.perf_counter()
                cpu = run()
                wall = time.perf_counter() - t0
                rows.setdefault(name, []).append((wall, tree_cpu() - cpu0 if cpu is None else cpu,
                                                  pid_cpu(server.proc.pid) - moto0))

            def process(side: Path, args: list[str]) -> None:
                shutil.rmtree(out, ignore_errors=True)
                done = subprocess.run([sys.executable, "-m", "tui_insight", *args], stdin=subprocess.DEVNULL,
                                      capture_output=True, text=True, cwd=tmp,
                                      env={**os.environ, "PYTHONPATH": str(side)})
                assert done.returncode in (0, 1), done.stderr  # --summary: 1 when a job has a failing badge

            for _ in range(runs):
                timed("floor: a plain GET, nothing parsed", lambda: get_floor(object_url))
                for side_name, side in sides.items():
                    for where, logdir, endpoint in (("local", str(big), ""), ("s3", url, server.endpoint)):
                        name = f"{side_name} first load {where}"
                        moto0 = pid_cpu(server.proc.pid)
                        done = subprocess.run([sys.executable, "-c", FIRST_LOAD, logdir, endpoint], capture_output=True,
                                              text=True, check=True, cwd=tmp, env={**os.environ, "PYTHONPATH": str(side)})
                        wall, cpu = json.loads(done.stdout)
                        rows.setdefault(name, []).append((wall, cpu, pid_cpu(server.proc.pid) - moto0))
                    for mode, args in (("--summary", ["--summary"]), ("--export csv", ["--export", "csv", "--out", str(out)])):
                        for where, logdir in (("local", [str(big)]), ("s3", [url, *storage])):
                            timed(f"{side_name} process {mode} {where}",
                                  lambda side=side, logdir=logdir, args=args: process(side, [*logdir, *args]))
            median = statistics.median
            print(f"  {'':44s} {'wall':>6s} {'CPU':>6s} {'moto CPU':>8s}  ratio (wall, to local)")
            for name, values in rows.items():
                wall, cpu, moto = (median(v[i] for v in values) for i in range(3))
                local = name.replace(" s3", " local")
                ratio = f"{wall / median(v[0] for v in rows[local]):.2f}x" if name.endswith(" s3") and local in rows else ""
                print(f"  {name:44s} {wall:6.3f} {cpu:6.3f} {moto:8.3f}  {ratio}")
            print(f"  load average {os.getloadavg()[0]:.1f} at the end")

            many = tmp / "many"
            write_many(many, jobs=100, steps=20)
            upload(server.options, many, "bench/many")
            cache = SummaryCache(FsspecSource("s3://bench/many", server.options))
            cache.reload()
            times, requests = [], []
            for _ in range(5):
                before_count = server.requests()
                t0 = time.perf_counter()
                cache.reload()
                times.append(time.perf_counter() - t0)
                time.sleep(0.2)  # the server writes its log line after answering
                requests.append(server.requests() - before_count)
            print(f"  idle reload of {len(cache.jobs)} jobs through S3: {statistics.median(times) * 1000:.0f} ms "
                  f"(median of 5), {statistics.median(requests):.0f} request(s) each (goal: one LIST)")
        finally:
            server.stop()


@contextlib.contextmanager
def sshd_for(what: str, own_home: bool = False):
    """(a real sshd on 127.0.0.1 from tests/sshd.py, a temp dir), stopped and removed after;
    (None, None) after saying so when the tools are missing. Its sessions run with an empty
    HOME (a login shell with no startup files, as most remote accounts' are for commands)
    unless `own_home`: this user's own, whose startup files run for every request."""
    from sshd import Sshd, missing_tools

    if missing_tools():
        print(f"{what}: not measured: needs {', '.join(missing_tools())}")
        yield None, None
        return
    with tempfile.TemporaryDirectory(prefix=f"bench-{what}-", dir="/tmp") as tmp:
        tmp = Path(tmp)
        (tmp / "sshd").mkdir()
        (tmp / "home").mkdir()
        server = Sshd(tmp / "sshd", session_home=None if own_home else tmp / "home")
        server.start()
        try:
            yield server, tmp
        finally:
            server.stop()


def ssh_figures(runs: int, own_home: bool = False, before: Path | None = None) -> None:
    """The 100 MB run through `user@host:/path` (a real sshd on 127.0.0.1, tests/sshd.py) vs the
    same file read locally, alternated (medians; goal <= 2x); an idle reload of 100 jobs (round
    trips and ms; goal one, <= 200 ms), beside the time of one bare `ssh HOST true` over the same
    shared connection (what the remote login shell's startup costs on this machine). The loads are
    timed in this process, after its imports: the first one includes connecting, with nothing to
    overlap it; `command_line_figures` times the program as a user starts it."""
    from tui_insight.summary.sources.ssh import SshSource

    with sshd_for("ssh", own_home) as (server, tmp):
        if server is None:
            return
        big = tmp / "big"
        path = write_big(big)
        print(f"ssh: the {path.stat().st_size / 1e6:.0f} MB run, local vs {server.target(big)}, {runs} runs each; "
              f"sessions with {'the user' + chr(39) + 's own HOME' if own_home else 'an empty HOME (no shell startup files)'}")
        local, remote, warm, local_cpu, remote_cpu, ours = [], [], [], [], [], []
        _adopt_orphans()  # the master ssh backgrounds itself: its CPU is counted with ours
        for _ in range(runs):
            cpu = tree_cpu()
            local.append(load_seconds(str(big)))
            local_cpu.append(tree_cpu() - cpu)
            source = SshSource(server.target(big), server.ssh_options())
            try:
                cpu, own = tree_cpu(), sum(os.times()[:2])
                remote.append(load_seconds(source))  # includes starting the connection
                remote_cpu.append(tree_cpu() - cpu)
                ours.append(sum(os.times()[:2]) - own)
                warm.append(load_seconds(source))  # a new cache over the open connection
            finally:
                source.close()
        lm, rm, wm = statistics.median(local), statistics.median(remote), statistics.median(warm)
        print(f"  local {', '.join(f'{t:.2f}' for t in local)} s; ssh {', '.join(f'{t:.2f}' for t in remote)} s; "
              f"ssh over an open connection {', '.join(f'{t:.2f}' for t in warm)} s")
        print(f"  median local {lm:.2f} s, ssh {rm:.2f} s: ratio {rm / lm:.2f} (goal <= 2); "
              f"over an open connection {wm:.2f} s: ratio {wm / lm:.2f}")
        print(f"  CPU seconds (every process: ssh, sshd, shells, ours): local {statistics.median(local_cpu):.2f}, "
              f"ssh {statistics.median(remote_cpu):.2f}, of it this process's (parsing, receiving) "
              f"{statistics.median(ours):.2f} (see --only floor for what moving the bytes costs)")
        command_line_figures(runs, str(big), [server.target(big), "--ssh-config", str(server.client_config)], tmp, before)

        many = tmp / "many"
        write_many(many, jobs=100, steps=20)
        source = SshSource(server.target(many), server.ssh_options())
        try:
            cache = SummaryCache(source)
            cache.reload()
            times, trips = [], []
            for _ in range(5):
                before = source.round_trips
                t0 = time.perf_counter()
                cache.reload()
                times.append(time.perf_counter() - t0)
                trips.append(source.round_trips - before)
            bare = []
            for _ in range(5):
                t0 = time.perf_counter()
                subprocess.run([*source._ssh("no"), source.host, "true"], check=True, capture_output=True)
                bare.append(time.perf_counter() - t0)
            print(f"  idle reload of {len(cache.jobs)} jobs over ssh: {statistics.median(times) * 1000:.0f} ms "
                  f"(median of 5), {statistics.median(trips):.0f} round trip(s) each (goal: one, <= 200 ms); "
                  f"a bare `ssh HOST true` over the same connection: {statistics.median(bare) * 1000:.0f} ms")
        finally:
            source.close()


def command_line_figures(runs: int, local: str, remote: list[str], tmp: Path, before: Path | None = None) -> None:
    """What a user waits for, from process start to exit: `tui-insight LOGDIR --summary` (every
    job loaded, a table printed) and `--export csv` (loaded, then the payloads the CSVs hold read
    and written), LOGDIR local vs over ssh, alternated (and `before`'s checkout, in the same
    rounds). Python's and our imports are in the clock, so the connection the command line
    starts before them overlaps with them. CPU: every process (ssh, sshd, shells, ours)."""
    out = tmp / "out"
    cases = {"--summary": ["--summary"], "--export csv": ["--export", "csv", "--out", str(out)]}
    sides = {"": HERE.parent, **({"before ": before.resolve()} if before else {})}
    times: dict[tuple[str, str, str], list[tuple[float, float]]] = {}
    for _ in range(runs):
        for side, code in sides.items():
            for name, args in cases.items():
                for where, logdir in (("local", [local]), ("ssh", remote)):
                    shutil.rmtree(out, ignore_errors=True)
                    cpu, t0 = tree_cpu(), time.perf_counter()
                    done = subprocess.run([sys.executable, "-m", "tui_insight", *logdir, *args], stdin=subprocess.DEVNULL,
                                          capture_output=True, text=True, cwd=HERE.parent,
                                          env={**os.environ, "PYTHONPATH": str(code)})
                    times.setdefault((side, name, where), []).append((time.perf_counter() - t0, tree_cpu() - cpu))
                    assert done.returncode in (0, 1), done.stderr  # --summary: 1 when a job has a failing badge
    median = statistics.median
    for side in sides:
        for name in cases:
            local_runs, ssh_runs = times[side, name, "local"], times[side, name, "ssh"]
            lm, rm = median(t for t, _ in local_runs), median(t for t, _ in ssh_runs)
            print(f"  {side}process start to exit, `tui-insight LOGDIR {name}`: local "
                  f"{', '.join(f'{t:.2f}' for t, _ in local_runs)} s; ssh {', '.join(f'{t:.2f}' for t, _ in ssh_runs)} s; "
                  f"median {lm:.2f} vs {rm:.2f} s: ratio {rm / lm:.2f}; CPU {median(c for _, c in local_runs):.2f} vs "
                  f"{median(c for _, c in ssh_runs):.2f} s")


def tree_cpu() -> float:
    """CPU seconds of this process and of every process under it, the ones that exited (reaped
    into their parents) included: our parsing, the ssh clients, the master, sshd and its shells."""
    tick = os.sysconf("SC_CLK_TCK")
    children: dict[int, list[tuple[int, float]]] = {}
    for name in os.listdir("/proc"):
        if name.isdigit():
            try:
                fields = Path(f"/proc/{name}/stat").read_text().rsplit(")", 1)[1].split()
            except OSError:
                continue
            children.setdefault(int(fields[1]), []).append((int(name), sum(int(x) for x in fields[11:15]) / tick))
    total = sum(os.times()[:4])
    todo = [os.getpid()]
    while todo:
        for pid, cpu in children.get(todo.pop(), []):
            total += cpu
            todo.append(pid)
    return total


def _adopt_orphans() -> None:
    """Make this process the reaper of its descendants' orphans (Linux), so a backgrounded
    ssh master stays under it for `tree_cpu`."""
    try:
        import ctypes

        ctypes.CDLL(None, use_errno=True).prctl(36, 1, 0, 0, 0)  # PR_SET_CHILD_SUBREAPER
    except (OSError, AttributeError):
        pass


def floor_figures(runs: int) -> None:
    """The ssh floor on this machine: the local load of the 100 MB run beside the bare transfer of
    its bytes to /dev/null (no parsing), alternated, wall and CPU seconds (every process: ssh,
    sshd, the remote shell). Through a ControlMaster (as SshSource) or a direct connection
    (`-S none`: one process fewer, a handshake more); `cat`, `dd`, `tail | head`; AES-GCM vs
    the default cipher; and a request that moves nothing (the session and login shell's cost)."""
    from sshd import ALIAS

    with sshd_for("floor") as (server, tmp):
        if server is None:
            return
        big = tmp / "big"
        path = write_big(big)
        size = path.stat().st_size
        base = ["ssh", "-T", "-x", "-a", "-o", "BatchMode=yes", *server.ssh_options()]
        masters = {}
        for name, cipher in (("chacha20", []), ("aes128-gcm", ["-c", "aes128-gcm@openssh.com"])):
            control = str(tmp / name)
            masters[name] = subprocess.Popen([*base, *cipher, "-o", "ControlMaster=yes", "-o", f"ControlPath={control}",
                                              "-N", ALIAS], stdin=subprocess.DEVNULL)
            while not os.path.exists(control):
                time.sleep(0.05)
        mux = [*base, "-o", f"ControlPath={tmp / 'chacha20'}", ALIAS]
        cat = f"cat {path}"
        cases = {
            "local load (parse)": lambda: load_seconds(str(big)),
            "mux: cat": lambda: [*mux, cat],
            "mux: dd bs=1M": lambda: [*mux, f"dd if={path} bs=1M iflag=skip_bytes,count_bytes count={size} 2>/dev/null"],
            "mux: tail -c | head -c": lambda: [*mux, f"tail -c +1 {path} | head -c {size}"],
            "mux: head -c": lambda: [*mux, f"head -c {size} {path}"],
            "mux aes128-gcm: cat": lambda: [*base, "-o", f"ControlPath={tmp / 'aes128-gcm'}", ALIAS, cat],
            "direct (-S none): cat": lambda: [*base, "-S", "none", ALIAS, cat],
            "mux: true (no bytes)": lambda: [*mux, "true"],
        }
        wall: dict[str, list[float]] = {name: [] for name in cases}
        cpu: dict[str, list[float]] = {name: [] for name in cases}
        try:
            for _ in range(runs):
                for name, case in cases.items():
                    cpu0, t0 = tree_cpu(), time.perf_counter()
                    command = case()
                    if isinstance(command, list):
                        subprocess.run(command, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, check=True)
                    wall[name].append(time.perf_counter() - t0)
                    cpu[name].append(tree_cpu() - cpu0)
        finally:
            for master in masters.values():
                master.terminate()
                master.wait()
        local = statistics.median(wall["local load (parse)"])
        print(f"floor: {size / 1e6:.0f} MB over ssh to 127.0.0.1 into /dev/null vs the local load, {runs} runs "
              "(medians; CPU: every process)")
        for name in cases:
            median = statistics.median(wall[name])
            print(f"  {name:24s} {median:5.2f} s = {median / local:.2f}x the local load; "
                  f"CPU {statistics.median(cpu[name]):.2f} s")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--only", choices=["s3", "ssh", "floor"])
    parser.add_argument("--before", type=Path, help="a checkout to compare with, in the same rounds (S3; ssh: "
                        "the whole processes), e.g. main in a detached worktree")
    parser.add_argument("--own-home", action="store_true",
                        help="ssh sessions with this user's HOME (its shell startup files run for every request)")
    args = parser.parse_args()
    compile_checkouts(HERE.parent, args.before)
    if args.only in (None, "s3"):
        s3_figures(args.runs, args.before)
    if args.only in (None, "ssh"):
        ssh_figures(args.runs, args.own_home, args.before)
    if args.only == "floor":
        floor_figures(args.runs)
    return 0


if __name__ == "__main__":
    sys.exit(main())
