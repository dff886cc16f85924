"""Load benchmark for the summary cache (issue 2). Run by hand:

    python bench/bench_load.py [--runs 3]

Writes the ~100 MB benchmark file (50 scalar tags x 20,000 steps + 20 histogram tags x
2,000 steps) with our writer, then in a fresh process per run measures the full load into
the cache and the peak RSS, then appends one step and measures the reload.
Targets: full load <= 1.5 s, peak RSS <= 150 MB, the reload reads only the new bytes.
"""
from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))
sys.path.insert(0, str(HERE))

CHILD = r"""
import json, os, resource, sys, time
sys.path.insert(0, sys.argv[2])
from tui_insight.summary.store.cache import SummaryCache
from tui_insight.summary.formats.writer import SummaryWriter
logdir = sys.argv[1]
rss_before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
cache = SummaryCache(logdir)
t0 = time.perf_counter(); cache.reload(); load = time.perf_counter() - t0
view = cache.job("./")
peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
path = os.path.join(logdir, view.summary_files[0])
size = os.path.getsize(path)
with open(path, "ab") as fh:  # one more step, as MindSpore appends it
    from tui_insight.proto import summary_pb2
    from tui_insight.summary.formats.framing import frame
    event = summary_pb2.Event(wall_time=time.time(), step=20001)
    for i in range(50):
        event.summary.value.add(tag=f"train/scalar_{i:02d}", scalar_value=1.0)
    fh.write(frame(event.SerializeToString()))
appended = os.path.getsize(path) - size
read_before = cache.progress.bytes_read
t0 = time.perf_counter(); changes = cache.reload(); reload = time.perf_counter() - t0
with open(path, "r+b") as fh:
    fh.truncate(size)  # leave the file as it was for the next run
print(json.dumps({"load_s": load, "peak_rss_mb": peak, "rss_after_imports_mb": rss_before,
                  "reload_s": reload, "appended_bytes": appended,
                  "reload_read_bytes": cache.progress.bytes_read - read_before,
                  "tags": len(view.tags), "kept_scalar_steps": len(view.series("scalar", "train/scalar_00")),
                  "updated_tags": len(changes.updated.get("./", ()))}))
"""


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=3)
    args = parser.parse_args()
    from make_logs import write_big

    with tempfile.TemporaryDirectory() as tmp:
        path = write_big(Path(tmp))
        print(f"benchmark file: {path.stat().st_size / 1e6:.1f} MB")
        results = []
        for _ in range(args.runs):
            out = subprocess.run([sys.executable, "-c", CHILD, tmp, str(HERE.parent)], capture_output=True,
                                 text=True, check=True)
            results.append(json.loads(out.stdout))
        for r in results:
            print(f"load {r['load_s']:.3f} s  peak RSS {r['peak_rss_mb']:.0f} MB "
                  f"(imports {r['rss_after_imports_mb']:.0f} MB)  reload after one step {r['reload_s'] * 1000:.1f} ms, "
                  f"read {r['reload_read_bytes']} of {r['appended_bytes']} appended bytes; "
                  f"{r['tags']} tags, {r['kept_scalar_steps']} scalar steps kept")
        best = min(r["load_s"] for r in results)
        worst_rss = max(r["peak_rss_mb"] for r in results)
        ok = best <= 1.5 and worst_rss <= 150 and all(r["reload_read_bytes"] == r["appended_bytes"] for r in results)
        print(f"best load {best:.3f} s (target 1.5 s), peak RSS {worst_rss:.0f} MB (target 150 MB): "
              f"{'OK' if ok else 'MISSED'}")
    for jobs in (500, 5000):
        idle_reload_of_many_jobs(jobs)
    return 0 if ok else 1


def idle_reload_of_many_jobs(jobs: int = 500) -> None:
    """What the reload loop costs every few seconds when nothing is being written: a full
    reload (the poll), and a reload after a change notice naming one job's file."""
    import os
    import statistics
    import time

    from make_logs import write_many

    from tui_insight.summary.store.cache import SummaryCache

    with tempfile.TemporaryDirectory() as tmp:
        write_many(Path(tmp), jobs=jobs)
        time.sleep(2.5)  # idle: nothing written for a while (fresh directories are listed again)
        cache = SummaryCache(tmp)
        t0 = time.perf_counter()
        cache.reload()
        loaded = time.perf_counter() - t0
        published = []
        cache.subscribe(published.append)
        calls = [0]
        real_stat = os.stat

        def counting_stat(*args, **kwargs):
            calls[0] += 1
            return real_stat(*args, **kwargs)

        times, cpus = [], []
        os.stat = counting_stat
        try:
            for _ in range(5):
                t0, c0 = time.perf_counter(), time.process_time()
                cache.reload()
                times.append(time.perf_counter() - t0)
                cpus.append(time.process_time() - c0)
        finally:
            os.stat = real_stat
        one = cache.job(sorted(cache.jobs)[jobs // 2])
        path = os.path.join(one.path, one.summary_files[0])
        notice = []
        for _ in range(5):
            c0 = time.process_time()
            cache.reload_changed([path])
            notice.append(time.process_time() - c0)
        print(f"{jobs} jobs: loaded in {loaded * 1000:.0f} ms; an idle reload {statistics.median(times) * 1000:.1f} ms "
              f"wall, {statistics.median(cpus) * 1000:.1f} ms CPU (median of 5; target <= 30 ms CPU for 5,000 jobs), "
              f"{calls[0] / 5:.0f} stat calls, {len(published)} publications; a change notice of one file "
              f"{statistics.median(notice) * 1000:.2f} ms CPU")


if __name__ == "__main__":
    sys.exit(main())
