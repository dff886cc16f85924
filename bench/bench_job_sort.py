"""Draw time of a sort in the job list (issue 27), run by hand:

    python bench/bench_job_sort.py [--jobs 1000] [--repeats 5]

Uses bench_sweep.py's sweep (made once under $TMPDIR and kept). The cache is loaded up front;
then, headless at 80x24 and at 160x48, each sortable column is chosen in turn (`s` on the
column under the column cursor, as a user sorts) and timed from the key to the end of the paint
that shows the new order (the table's `render_line` of its last line). Prints the median and
the slowest per size, and which columns show at each size.
"""
from __future__ import annotations

import argparse
import asyncio
import statistics
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))
sys.path.insert(0, str(HERE))

from bench_sweep import make_sweep  # noqa: E402

from tui_insight.summary.store.cache import SummaryCache  # noqa: E402
from tui_insight.ui.app import InsightApp  # noqa: E402
from tui_insight.ui.state.jobs import SORT_KEYS  # noqa: E402
from tui_insight.ui.widgets.job_table import JobTable  # noqa: E402


def measure(logdir: Path, size: tuple[int, int], repeats: int) -> tuple[list[float], tuple[str, ...]]:
    cache = SummaryCache(str(logdir))
    cache.reload()
    app = InsightApp(cache, reload_interval=0, start_loading=False, graph_prefetch_delay=None,
                     logdir_label="LOGDIR")
    painted: list[float] = []
    render_line = JobTable.render_line

    def timed(self, y):
        strip = render_line(self, y)
        if y == self.size.height - 1:
            painted.append(time.perf_counter())
        return strip

    JobTable.render_line = timed  # type: ignore[method-assign]
    times: list[float] = []

    async def main():
        async with app.run_test(size=size) as pilot:
            await pilot.pause()
            t = app.screen.query_one(JobTable)
            columns = t.columns
            for _ in range(repeats):
                for key in SORT_KEYS:
                    app.screen.state = app.screen.state.with_column(key)
                    await pilot.pause()
                    painted.clear()
                    start = time.perf_counter()
                    await pilot.press("s")
                    await pilot.pause()
                    if painted:
                        times.append(painted[-1] - start)
            return columns

    try:
        columns = asyncio.run(main())
    finally:
        JobTable.render_line = render_line  # type: ignore[method-assign]
    return times, columns


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--jobs", type=int, default=1000)
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--dir", type=Path, default=Path(tempfile.gettempdir()) / "tui-insight-bench")
    args = parser.parse_args()
    logdir = make_sweep(args.dir, args.jobs)
    for size in ((80, 24), (160, 48)):
        times, columns = measure(logdir, size, args.repeats)
        ms = sorted(1000 * t for t in times)
        print(f"{size[0]}x{size[1]}: {len(ms)} sorts of {args.jobs} jobs: median {statistics.median(ms):.1f} ms, "
              f"slowest {ms[-1]:.1f} ms; columns shown: {' '.join(columns)}")


if __name__ == "__main__":
    main()
