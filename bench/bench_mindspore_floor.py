"""A MindSpore run's cold load against protobuf's parse alone, whole processes (issue 30). Run by hand:

    python bench/bench_mindspore_floor.py [--repeat 5] [--before CHECKOUT] [RUN ...]

RUN defaults to two ~100 MB runs kept under $TMPDIR/tui-insight-bench (written on first use):
`collector` (bench/make_collector_run.py: scalars and 20 histograms every step, as
MindSpore's SummaryCollector records them) and `big` (bench/make_logs.py: 50 scalars every
step, 20 histograms every 10th). Per run, `--repeat` rounds, the processes of a round one
after the other (interleaved), each a fresh Python process, medians reported:

- floor: the least a process can do to read the run with upb: start Python, import the
  generated protos, read each file, walk its records (length, payload) and parse every
  payload with `Event.FromString`: no CRC, nothing kept;
- floor + CRCs: the same checking both CRCs of every record (google_crc32c), as we do;
- ours: `python -m tui_insight RUN --summary --no-cache` (this checkout);
- before: the same from CHECKOUT (e.g. main in a detached worktree), when given.

Wall and CPU (user + sys, the process and its children) and peak RSS per process. Bytecode is
compiled once beforehand (PYTHONPYCACHEPREFIX in a temporary directory), as installed.
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
REPO = HERE.parent
sys.path.insert(0, str(REPO))
sys.path.insert(0, str(HERE))

from installed_bytecode import compile_checkouts  # noqa: E402

FLOOR = r"""
import os, struct, sys
from tui_insight.proto import summary_pb2
crc = sys.argv[2] == "crc"
if crc:
    import google_crc32c
    def masked(data):
        c = google_crc32c.value(data)
        return (((c >> 15) | (c << 17)) + 0xA282EAD8) & 0xFFFFFFFF
parse = summary_pb2.Event.FromString
header = struct.Struct("<QI").unpack_from
footer = struct.Struct("<I").unpack_from
events = 0
for folder, _, names in os.walk(sys.argv[1]):
    for name in sorted(names):
        if ".summary." not in name:
            continue
        with open(os.path.join(folder, name), "rb") as fh:
            data = fh.read()
        p, end = 0, len(data)
        while p + 12 <= end:
            length, head = header(data, p)
            payload = data[p + 12:p + 12 + length]
            if crc and (masked(data[p:p + 8]) != head or masked(payload) != footer(data, p + 12 + length)[0]):
                raise SystemExit("bad CRC")
            parse(payload)
            p += 16 + length
            events += 1
print(events)
"""


def run_process(command: list[str], env: dict[str, str]) -> tuple[float, float, float]:
    """(wall s, CPU s, peak RSS MB) of one process run to its end."""
    start = time.perf_counter()
    proc = subprocess.Popen(command, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, cwd=tempfile.gettempdir())
    _, status, usage = os.wait4(proc.pid, 0)
    wall = time.perf_counter() - start
    proc.returncode = os.waitstatus_to_exitcode(status)
    err = proc.stderr.read() if proc.stderr else b""
    if proc.returncode not in (0, 1):  # --summary exits 1 for a job it finds unhealthy
        raise RuntimeError(f"{command} failed ({proc.returncode}): {err[-500:]!r}")
    return wall, usage.ru_utime + usage.ru_stime, usage.ru_maxrss / 1024


def default_runs(root: Path) -> list[Path]:
    from make_collector_run import write_collector_run
    from make_logs import write_big

    runs = []
    for name, write in (("collector", write_collector_run), ("big", write_big)):
        run = root / name
        if not run.exists() or not any(run.iterdir()):
            print(f"writing {run} ...", flush=True)
            write(run)
        runs.append(run)
    return runs


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--before", type=Path, help="a checkout to compare with (e.g. main in a detached worktree)")
    parser.add_argument("runs", type=Path, nargs="*")
    args = parser.parse_args()
    compile_checkouts(REPO, args.before)
    runs = args.runs or default_runs(Path(tempfile.gettempdir()) / "tui-insight-bench")
    with tempfile.TemporaryDirectory() as pycache:
        base = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
        base["PYTHONPYCACHEPREFIX"] = pycache
        sides = {"floor": (REPO, "floor"), "floor + CRCs": (REPO, "crc"), "ours": (REPO, "ours")}
        if args.before:
            sides["before"] = (args.before.resolve(), "ours")
        for run in runs:
            commands = {}
            for label, (checkout, kind) in sides.items():
                env = {**base, "PYTHONPATH": str(checkout)}
                if kind == "ours":
                    command = [sys.executable, "-m", "tui_insight", str(run.resolve()), "--summary", "--no-cache"]
                else:
                    command = [sys.executable, "-c", FLOOR, str(run.resolve()), kind]
                commands[label] = (command, env)
                run_process(command, env)  # compiles the bytecode, warms the page cache
            results: dict[str, list[tuple[float, float, float]]] = {label: [] for label in commands}
            for _ in range(args.repeat):
                for label, (command, env) in commands.items():
                    results[label].append(run_process(command, env))
            size = sum(p.stat().st_size for p in run.rglob("*") if p.is_file())
            print(f"{run.name}: {size / 1e6:.1f} MB, median of {args.repeat} (interleaved)")
            median = {label: tuple(statistics.median(r[i] for r in rows) for i in range(3))
                      for label, rows in results.items()}
            floor_wall, floor_cpu, _ = median["floor"]
            for label, (wall, cpu, rss) in median.items():
                print(f"  {label:14s} wall {wall:6.3f} s  CPU {cpu:6.3f} s  RSS {rss:6.1f} MB   "
                      f"x floor: wall {wall / floor_wall:4.2f}  CPU {cpu / floor_cpu:4.2f}   "
                      f"(CPU runs: {', '.join(f'{r[1]:.3f}' for r in results[label])})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
