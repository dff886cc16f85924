"""Each export against its load, whole processes (issue 30: an export at most 1.2x its load). Run by hand:

    python bench/bench_export.py [--repeat 3] [--before CHECKOUT] [--only KIND,...] [RUN ...]

RUN defaults to three ~100 MB runs kept under $TMPDIR/tui-insight-bench/export30 (written on
first use): `tensorboard` (bench/make_logs.py: 10 scalars and 20 histograms a step by the real
tensorboardX writer), `collector` (bench/make_collector_run.py: a MindSpore run as
SummaryCollector records it, scalars and 20 histograms every step) and `big` (bench/make_logs.py:
MindSpore, 50 scalars every step, 20 histograms every 10th). Per run, each fresh Python process:

- load: `python -m tui_insight RUN --summary --no-cache`;
- csv, csv all: `--export csv --out OUT --no-cache` (and `--all-steps`);
- parquet, parquet all: `--export parquet --out OUT --no-cache` (and `--all-steps`);

`--repeat` rounds, the processes of a round one after the other (interleaved), medians of wall,
CPU (user + sys) and peak RSS reported, with each export's ratio to the load (the target: 1.2).
With `--before CHECKOUT` the same processes of that checkout run too (rows `before`), and the
CSV files the two checkouts write are compared byte for byte.
"""
from __future__ import annotations

import argparse
import filecmp
import os
import shutil
import statistics
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
REPO = HERE.parent
sys.path.insert(0, str(REPO))
sys.path.insert(0, str(HERE))

from bench_mindspore_floor import run_process  # noqa: E402
from installed_bytecode import compile_checkouts  # noqa: E402

KINDS = {
    "load": ["--summary"],
    "csv": ["--export", "csv"],
    "csv all": ["--export", "csv", "--all-steps"],
    "parquet": ["--export", "parquet"],
    "parquet all": ["--export", "parquet", "--all-steps"],
}
TARGET = 1.2


def default_runs(root: Path) -> list[Path]:
    from make_collector_run import write_collector_run
    from make_logs import write_big, write_tensorboard

    runs = []
    for name, write in (("tensorboard", write_tensorboard), ("collector", write_collector_run), ("big", write_big)):
        run = root / name
        if not run.exists() or not any(run.iterdir()):
            print(f"writing {run} ...", flush=True)
            run.mkdir(parents=True, exist_ok=True)
            write(run)
        runs.append(run)
    return runs


def command(run: Path, kind: str, out: Path) -> list[str]:
    words = [sys.executable, "-m", "tui_insight", str(run.resolve()), *KINDS[kind], "--no-cache"]
    return words + ["--out", str(out)] if kind != "load" else words


def same_files(before: Path, after: Path) -> list[str]:
    """The files that differ or are in one directory only."""
    names = {p.relative_to(before) for p in before.rglob("*") if p.is_file()}
    others = {p.relative_to(after) for p in after.rglob("*") if p.is_file()}
    differ = sorted(str(n) + " (one side only)" for n in names ^ others)
    return differ + [str(n) for n in sorted(names & others) if not filecmp.cmp(before / n, after / n, shallow=False)]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--before", type=Path, help="a checkout to compare with (e.g. main in a detached worktree)")
    parser.add_argument("--only", default=",".join(KINDS), help="the kinds to time, comma separated (load always)")
    parser.add_argument("runs", type=Path, nargs="*")
    args = parser.parse_args()
    compile_checkouts(REPO, args.before)
    kinds = ["load", *(k.strip() for k in args.only.split(",") if k.strip() in KINDS and k.strip() != "load")]
    runs = args.runs or default_runs(Path(tempfile.gettempdir()) / "tui-insight-bench" / "export30")
    sides = {"ours": REPO}
    if args.before:
        sides["before"] = args.before.resolve()
    failed = False
    with tempfile.TemporaryDirectory() as pycache, tempfile.TemporaryDirectory() as outs:
        base = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
        base["PYTHONPYCACHEPREFIX"] = pycache
        for run in runs:
            size = sum(p.stat().st_size for p in run.rglob("*") if p.is_file())
            results: dict[tuple[str, str], list[tuple[float, float, float]]] = {}
            for round_ in range(args.repeat + 1):  # round 0 compiles the bytecode, warms the page cache
                for kind in kinds:
                    for side, checkout in sides.items():
                        out = Path(outs) / f"{side}-{kind.replace(' ', '-')}"
                        shutil.rmtree(out, ignore_errors=True)
                        env = {**base, "PYTHONPATH": str(checkout)}
                        measured = run_process(command(run, kind, out), env)
                        if round_:
                            results.setdefault((kind, side), []).append(measured)
                    if round_ == 0 and args.before and kind.startswith("csv"):
                        differ = same_files(Path(outs) / f"before-{kind.replace(' ', '-')}",
                                            Path(outs) / f"ours-{kind.replace(' ', '-')}")
                        if differ:
                            failed = True
                            print(f"{run.name} {kind}: {len(differ)} files DIFFER: {', '.join(differ[:8])}")
            print(f"{run.name}: {size / 1e6:.1f} MB, median of {args.repeat} (interleaved)")
            for side in sides:
                load_wall, load_cpu, _ = (statistics.median(r[i] for r in results[("load", side)]) for i in range(3))
                for kind in kinds:
                    rows = results[(kind, side)]
                    wall, cpu, rss = (statistics.median(r[i] for r in rows) for i in range(3))
                    ratio = "" if kind == "load" else (
                        f"  x load: wall {wall / load_wall:4.2f}  CPU {cpu / load_cpu:4.2f}"
                        f"{'' if cpu / load_cpu <= TARGET else '  (over ' + str(TARGET) + ')'}")
                    print(f"  {side:6s} {kind:12s} wall {wall:6.2f} s  CPU {cpu:6.2f} s  RSS {rss:6.0f} MB{ratio}")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
