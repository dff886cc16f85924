"""Several LOGDIRs against one (issue 29). Run by hand:

    PYTHONPATH=. python bench/bench_several.py [--ranks 64] [--steps 200] [--runs 3]

The ranks of one training (`exp/rank_<n>`, a scalar `loss` and `lr` every step) are spread over
two ssh "hosts" (two real sshd on 127.0.0.1, tests/sshd.py, sessions with an empty HOME) and one
local directory, and the same ranks are also written to one local LOGDIR. Alternated, medians:
- in this process, a cache over the sources: the jobs known (what the job list needs for its
  first row) and every job loaded, wall seconds;
- idle: the CPU of this process, the ssh clients and the sshd sessions for `--idle` seconds of
  reloads every 3 s (the app's default) with nothing changing, as a share of one core;
- the group's dashboard (Textual's Pilot at 160x48, over the loaded cache): `enter` on the group
  row until its scalar chart has drawn the band, wall;
- the whole program, `tui-insight ... --summary --no-cache`, wall.
"""
from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path[:0] = [str(HERE.parent), str(HERE.parent / "tests"), str(HERE.parent / "tests" / "ui")]

from sshd import Sshd  # noqa: E402

from tui_insight.summary.formats.writer import SummaryWriter  # noqa: E402
from tui_insight.summary.sources.multi import MultiSource, unique_labels  # noqa: E402
from tui_insight.summary.sources.ssh import SshSource  # noqa: E402
from tui_insight.summary.store.cache import SummaryCache  # noqa: E402

RELOAD_SECONDS = 3.0


def write_ranks(root: Path, ranks: range, steps: int) -> None:
    for rank in ranks:
        writer = SummaryWriter(root / "exp" / f"rank_{rank}", timestamp=1_700_000_000)
        for step in range(1, steps + 1):
            writer.add_scalar("loss", 2.0 / step + rank * 1e-3)
            writer.add_scalar("lr", 0.1)
            writer.record(step, wall_time=1_700_000_000 + step)
        writer.close()


def tree_cpu() -> float:
    """CPU seconds of this process, its children, and every ssh/sshd process of this user."""
    own = sum(os.times()[:4])
    out = subprocess.run(["ps", "-e", "-o", "comm=,cputimes="], capture_output=True, text=True).stdout
    others = sum(int(line.split()[-1]) for line in out.splitlines()
                 if line.split() and line.split()[0] in ("ssh", "sshd", "sh"))
    return own + others


def load(make_source) -> tuple[float, float, SummaryCache]:
    started = time.perf_counter()
    cache = SummaryCache(make_source())
    cache.discover_jobs()
    known = time.perf_counter() - started
    cache.reload()
    return known, time.perf_counter() - started, cache


def idle_share(cache: SummaryCache, seconds: float) -> float:
    cpu = tree_cpu()
    started = time.monotonic()
    while time.monotonic() - started < seconds:
        cache.reload()
        time.sleep(RELOAD_SECONDS)
    return (tree_cpu() - cpu) / (time.monotonic() - started)


def dashboard_seconds(make_source) -> float:
    """Pilot at 160x48 over a loaded cache: `enter` on the group row until the band is drawn."""
    from uihelp import make_app, run_pilot, wait_for, wait_for_view

    from tui_insight.ui.views.scalars import ScalarsView
    from tui_insight.ui.widgets.job_table import JobTable

    source = make_source()
    app = make_app(source)

    async def body(pilot):
        table = app.screen.query_one(JobTable)
        table.move_cursor(next(i for i, tid in enumerate(table.order) if tid.endswith("rank_*")))
        await pilot.pause()
        started = time.perf_counter()
        await pilot.press("enter")
        await wait_for_view(pilot, app)
        chart = app.screen.query_one(ScalarsView).charts["loss"]
        assert await wait_for(pilot, lambda: any(t.kind == "band" for t in chart.traces), timeout=60)
        return time.perf_counter() - started

    try:
        return run_pilot(app, body, size=(160, 48))
    finally:
        if not isinstance(source, str):
            source.close()


def whole_program(args: list[str]) -> float:
    started = time.perf_counter()
    subprocess.run([sys.executable, "-m", "tui_insight", *args, "--summary", "--no-cache"],
                   capture_output=True, check=False, env={**os.environ, "PYTHONPATH": str(HERE.parent)})
    return time.perf_counter() - started


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--ranks", type=int, default=64)
    parser.add_argument("--steps", type=int, default=200)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--idle", type=float, default=30.0)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="bench-several-", dir="/tmp") as tmp:
        tmp_path = Path(tmp)
        third = args.ranks * 3 // 8
        parts = [range(0, third), range(third, 2 * third), range(2 * third, args.ranks)]
        for name, ranks in zip(("host1", "host2", "local"), parts):
            write_ranks(tmp_path / name, ranks, args.steps)
        write_ranks(tmp_path / "one", range(args.ranks), args.steps)
        servers = []
        for name in ("sshd1", "sshd2"):
            (tmp_path / name).mkdir()
            (tmp_path / f"{name}-home").mkdir()
            server = Sshd(tmp_path / name, session_home=tmp_path / f"{name}-home")
            server.start()
            servers.append(server)
        try:
            targets = [servers[0].target(tmp_path / "host1"), servers[1].target(tmp_path / "host2")]
            labels = unique_labels(["host1:/x", "host2:/x", str(tmp_path / "local")])

            def several():
                return MultiSource([SshSource(targets[0], servers[0].ssh_options()),
                                    SshSource(targets[1], servers[1].ssh_options()), str(tmp_path / "local")],
                                   labels)

            print(f"{args.ranks} ranks x {args.steps} steps: {len(parts[0])} + {len(parts[1])} over two ssh hosts "
                  f"+ {len(parts[2])} local, against one local LOGDIR of all; {args.runs} runs alternated")
            rows: dict[str, list[tuple[float, float]]] = {"several": [], "one": []}
            for _ in range(args.runs):
                for what, make in (("several", several), ("one", lambda: str(tmp_path / "one"))):
                    known, loaded, cache = load(make)
                    assert len(cache.jobs) == args.ranks, sorted(cache.jobs)[:3]
                    rows[what].append((known, loaded))
                    cache.source.close() if not isinstance(cache.source, str) else None
            for what, found in rows.items():
                known = statistics.median(k for k, _ in found)
                loaded = statistics.median(v for _, v in found)
                print(f"  {what:8} jobs known {known * 1000:6.0f} ms   all loaded {loaded * 1000:6.0f} ms")
            for what, make in (("several", several), ("one", lambda: str(tmp_path / "one"))):
                _, _, cache = load(make)
                share = idle_share(cache, args.idle)
                print(f"  {what:8} idle, reloads every {RELOAD_SECONDS:g} s for {args.idle:g} s: "
                      f"{share * 100:.2f}% of a core (ssh, sshd and shells counted)")
                cache.source.close() if not isinstance(cache.source, str) else None
            for what, make in (("several", several), ("one", lambda: str(tmp_path / "one"))):
                opened = statistics.median(dashboard_seconds(make) for _ in range(args.runs))
                print(f"  {what:8} the group's dashboard open (enter to the band drawn): {opened * 1000:.0f} ms")
            config = tmp_path / "ssh_config"
            config.write_text(servers[0].client_config.read_text().replace("Host remote-test", "Host host1")
                              + servers[1].client_config.read_text().replace("Host remote-test", "Host host2"))
            user = servers[0].user
            command = [f"{user}@host1:{tmp_path / 'host1'}", f"{user}@host2:{tmp_path / 'host2'}",
                       str(tmp_path / "local"), "--ssh-config", str(config)]
            several_times, one_times = [], []
            for _ in range(args.runs):
                several_times.append(whole_program(command))
                one_times.append(whole_program([str(tmp_path / "one")]))
            print(f"  whole program --summary --no-cache: several {statistics.median(several_times):.2f} s, "
                  f"one {statistics.median(one_times):.2f} s")
        finally:
            for server in servers:
                server.stop()


if __name__ == "__main__":
    main()
