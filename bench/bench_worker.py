"""A sweep worker's CPU per job (issue 30), run by hand:

    python bench/bench_worker.py [--jobs 300] [--rounds 3] [--before CHECKOUT] [--dir DIR] [--profile]

What one loading process of a cold sweep does for each job (`pool.read_jobs`): read the job's
files, frame and CRC-check the records, decode them into the books, merge, encode the snapshot
and write its disk-cache entry. A fresh process per round and checkout reads `--jobs` runs of
bench_sweep.py's 5,000-run sweep (made there, or with `bench_sweep.py --runs 5000`) one batch of
8 at a time, into a disk cache of its own that starts empty (as a cold sweep's), after
`--warmup` jobs not counted. Printed: the thread CPU per job (mean and median of the batches'),
and, with `--before`, the same for that checkout in the same rounds, in turn. With `--before`
each side's entries and returned headers are hashed (SHA-256 over all of them, in order): they
must be equal. `--profile` prints a cProfile of the checked-out tree's jobs instead.
"""
from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
sys.path.insert(0, str(HERE))

from installed_bytecode import compile_checkouts  # noqa: E402

CHILD = r"""
import hashlib, json, os, sys, time
sys.path.insert(0, sys.argv[1])
sweep, jobs, warmup, cache_dir, profile = sys.argv[2], int(sys.argv[3]), int(sys.argv[4]), sys.argv[5], sys.argv[6] == "1"
from tui_insight.summary.sources.discovery import FoundJob
from tui_insight.summary.store import pool
from tui_insight.summary.store.disk_cache import DiskCache

names = sorted(os.listdir(sweep))
names = [n for n in names if n.startswith("run_")][: warmup + jobs]
found = []
for name in names:
    path = os.path.join(sweep, name)
    found.append(FoundJob(name, path, summary_files=sorted(f for f in os.listdir(path) if ".summary." in f)))
disk = DiskCache(cache_dir)
entries = [disk.entry_to_write(job.path) for job in found]
pool.warm()
batches = [list(zip(found, entries))[i:i + 8] for i in range(0, len(found), 8)]
head, rest = batches[: warmup // 8], batches[warmup // 8:]
for batch in head:
    pool.read_jobs(batch)
per_job, answers = [], []
if profile:
    import cProfile, pstats
    prof = cProfile.Profile()
    prof.enable()
for batch in rest:
    t0 = time.thread_time()
    out = pool.read_jobs(batch)
    per_job.append((time.thread_time() - t0) / len(batch))
    answers.extend(out)
if profile:
    prof.disable()
    pstats.Stats(prof).sort_stats("tottime").print_stats(45)
    pstats.Stats(prof).sort_stats("cumulative").print_stats(60)
digest = hashlib.sha256()
for (job, entry), answer in zip([pair for batch in rest for pair in batch], answers):
    if isinstance(answer, Exception):
        raise answer
    digest.update(answer[0])
    with open(entry, "rb") as fh:
        digest.update(fh.read())
print(json.dumps({"per_job": per_job, "sha256": digest.hexdigest(), "jobs": len(answers)}))
"""


def run(checkout: Path, sweep: Path, jobs: int, warmup: int, profile: bool) -> dict:
    with tempfile.TemporaryDirectory(prefix="bench-worker-") as cache:
        proc = subprocess.run([sys.executable, "-c", CHILD, str(checkout), str(sweep), str(jobs), str(warmup),
                               cache, "1" if profile else "0"], capture_output=True, text=True)
    if proc.returncode:
        raise SystemExit(proc.stderr)
    lines = proc.stdout.splitlines()
    if profile:
        print("\n".join(lines[:-1]))
    return json.loads(lines[-1])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--jobs", type=int, default=300)
    parser.add_argument("--warmup", type=int, default=24, help="jobs read first, not counted (a multiple of 8)")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--before", type=Path, help="a checkout to compare with (e.g. main in a detached worktree)")
    parser.add_argument("--dir", type=Path, default=Path("/tmp/idle14-bench"), help="where bench_sweep.py made its sweep")
    parser.add_argument("--profile", action="store_true", help="print a cProfile of this checkout's jobs")
    args = parser.parse_args()
    sweep = args.dir / "sweep-5000"
    if not (sweep / ".complete").exists():
        raise SystemExit(f"no sweep at {sweep}: run bench_sweep.py --runs 5000 --dir {args.dir} first")
    compile_checkouts(ROOT, args.before)
    if args.profile:
        run(ROOT, sweep, args.jobs, args.warmup, True)
        return
    sides = {"after": ROOT} | ({"before": args.before.resolve()} if args.before else {})
    results: dict[str, list[dict]] = {side: [] for side in sides}
    for round_ in range(args.rounds):
        for side, checkout in (sides.items() if round_ % 2 == 0 else reversed(sides.items())):
            results[side].append(run(checkout, sweep, args.jobs, args.warmup, False))
    print(f"load {os.getloadavg()[0]:.2f}; {args.jobs} jobs a round, {args.rounds} rounds; thread CPU per job, ms")
    for side, rounds in results.items():
        means = [1e3 * statistics.fmean(r["per_job"]) for r in rounds]
        medians = [1e3 * statistics.median(r["per_job"]) for r in rounds]
        print(f"  {side:6}  mean " + " ".join(f"{m:.3f}" for m in means)
              + "  median " + " ".join(f"{m:.3f}" for m in medians) + f"  (best mean {min(means):.3f})")
    hashes = {side: {r["sha256"] for r in rounds} for side, rounds in results.items()}
    if len(set().union(*hashes.values())) == 1:
        print(f"  entries and headers identical: sha256 {next(iter(hashes['after']))[:16]}")
    else:
        print(f"  entries or headers DIFFER: {hashes}")


if __name__ == "__main__":
    main()
