"""Idle reload cost (issue 14), run by hand:

    python bench/bench_idle.py [--runs 5000] [--repeats 20] [--dir DIR] [--profile N]

On a sweep of N runs (bench_sweep's template hard-linked into DIR/idle-N/run_*, made once and
kept) plus one live run written by this process (`live`), loaded once through a disk cache of the
benchmark's own (DIR/cache-idle-N: the first invocation reads every run, later ones start warm),
measures in one process, interleaved, `--repeats` times each, CPU (`time.process_time`) of:

- the stat floor: one `os.stat` per job directory and per file of each job (what a full poll
  that must see appends cannot avoid on Linux: an append leaves the directory's mtime alone);
- an idle full reload (`SummaryCache.reload()` with nothing changed): must publish nothing; and
  its discovery alone (the directory walk: compare with the directories' floor);
- an idle background poll (`SummaryCache.poll()`, what the app's loop runs): the sweep's runs
  are finished (their files are links to one made long ago), so they are looked at in turn, a
  `poll.DORMANT_TURNS`-th at each poll; the live run and LOGDIR at each. Must publish nothing;
- a notice reload of the live run with nothing changed (`reload_changed([its file])`);
- a notice reload of the live run after 10 steps were appended to it.

Medians (and the fastest) in ms; `--profile N` then prints cProfile's top functions over N idle
full reloads.
"""
from __future__ import annotations

import argparse
import cProfile
import os
import pstats
import statistics
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))
sys.path.insert(0, str(HERE))

from bench_sweep import make_sweep  # noqa: E402

from tui_insight.summary.formats.writer import SummaryWriter  # noqa: E402
from tui_insight.summary.store.cache import SummaryCache  # noqa: E402
from tui_insight.summary.store.disk_cache import DiskCache  # noqa: E402


class LiveRun:
    """A run this process appends to (its own file: the sweep's are hard links of one)."""

    def __init__(self, sweep: Path):
        directory = sweep / "live"
        for old in directory.glob("*") if directory.exists() else ():
            old.unlink()
        self.writer = SummaryWriter(directory, timestamp=int(time.time()))
        self.path = str(self.writer.path)
        # As if made a while ago: a directory changed in the last seconds is listed again at each
        # poll (discovery's RACY_SECONDS), which a short run of this benchmark would measure.
        os.utime(directory, (time.time() - 60, time.time() - 60))
        self.step = 0
        self.append(100)

    def append(self, steps: int) -> None:
        for _ in range(steps):
            self.step += 1
            for i in range(10):
                self.writer.add_scalar(f"metric/m{i}", 1.0 / self.step + i)
            self.writer.record(self.step)
        self.writer.flush()


def stat_floor(cache: SummaryCache) -> tuple[list[str], list[str]]:
    """The paths a full poll cannot avoid stating: each job directory, each file of each job."""
    dirs, files = [], []
    for job in cache._found.values():
        dirs.append(job.path)
        files += [os.path.join(job.path, name) for name in (*job.event_files, *job.lineage_files, *job.graph_files)]
    return dirs, files


def stat_all(paths: list[str]) -> None:
    for path in paths:
        os.stat(path)


def cpu_ms(fn) -> tuple[float, object]:
    t0 = time.process_time()
    result = fn()
    return (time.process_time() - t0) * 1000, result


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=5000)
    parser.add_argument("--repeats", type=int, default=20)
    parser.add_argument("--dir", type=Path, default=Path(tempfile.gettempdir()) / "tui-insight-bench")
    parser.add_argument("--profile", type=int, default=0, help="idle full reloads to profile")
    args = parser.parse_args()
    args.dir.mkdir(parents=True, exist_ok=True)
    sweep = make_sweep(args.dir, args.runs, "idle")  # its own: the live run is added to it
    for run in sweep.glob("run_*"):  # finished runs: a directory last changed when its file was made
        made = min(p.stat().st_mtime for p in run.iterdir())
        os.utime(run, (made, made))
    live = LiveRun(sweep)
    cache = SummaryCache(sweep, disk_cache=DiskCache(args.dir / f"cache-idle-{args.runs}"),
                         workers=os.cpu_count() or 1)
    t0 = time.perf_counter()
    cache.reload()
    print(f"{len(cache.jobs)} jobs at {sweep}, loaded in {time.perf_counter() - t0:.1f} s")
    cache.reload()  # settled: the next reloads find nothing changed
    published = []
    cache.subscribe(published.append)
    views = dict(cache.jobs)

    times: dict[str, list[float]] = {"stat floor: directories": [], "stat floor: files": [], "stat floor": [],
                                     "idle full reload": [], "its discovery alone": [],
                                     "idle background poll": [], "notice, unchanged": [],
                                     "notice, 10 steps appended": []}
    dirs, files = stat_floor(cache)
    for _ in range(args.repeats):
        times["stat floor: directories"].append(cpu_ms(lambda: stat_all(dirs))[0])
        times["stat floor: files"].append(cpu_ms(lambda: stat_all(files))[0])
        times["stat floor"].append(times["stat floor: directories"][-1] + times["stat floor: files"][-1])
        times["its discovery alone"].append(cpu_ms(lambda: cache.source.discover(cache._listings))[0])
        ms, changes = cpu_ms(cache.reload)
        times["idle full reload"].append(ms)
        assert not changes and not published, (changes, published)
        ms, changes = cpu_ms(cache.poll)
        times["idle background poll"].append(ms)
        assert not changes and not published, (changes, published)
        ms, changes = cpu_ms(lambda: cache.reload_changed([live.path]))
        times["notice, unchanged"].append(ms)
        assert not changes and not published, (changes, published)
        live.append(10)
        ms, changes = cpu_ms(lambda: cache.reload_changed([live.path]))
        times["notice, 10 steps appended"].append(ms)
        assert changes.updated.keys() == {"./live"}, changes
        published.clear()
    cache.reload()  # the last append, seen by the full poll too
    published.clear()
    views = dict(cache.jobs)
    cache.reload()
    same = all(cache.jobs[t] is v for t, v in views.items())
    print(f"{args.repeats} repeats each, CPU ms (median / fastest); {len(dirs)} job directories and "
          f"{len(files)} files: {len(dirs) + len(files)} stat calls per full poll")
    for name, values in times.items():
        print(f"  {name:28s} {statistics.median(values):8.2f} / {min(values):8.2f}")
    print(f"  idle reloads published nothing: {not published and same}")
    if args.profile:
        profile = cProfile.Profile()
        profile.enable()
        for _ in range(args.profile):
            cache.reload()
        profile.disable()
        pstats.Stats(profile).sort_stats("tottime").print_stats(25)
    cache.stop()
    live.writer.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
