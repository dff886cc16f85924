"""Speed and memory of the histogram and tensor views (issue 4). Run by hand, prints figures:

    python bench/bench_views_issue4.py [--quick] [--only ridgeline,table,memory]

Targets:
- ridgeline of 50 steps x 30 bins redraws in <= 20 ms;
- 1000 x 1000 float32 tensor: first paint of the table <= 100 ms after the slice is entered,
  a page of scrolling <= 30 ms;
- opening every tensor step of `limits` one after another does not grow the process by more
  than the payload LRU's bound (and neither do 20 steps of a 1000 x 1000 tensor, 160 MB decoded).
"""
from __future__ import annotations

import asyncio
import gc
import statistics
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from tui_insight.summary import limits  # noqa: E402
from tui_insight.summary.formats.writer import SummaryWriter  # noqa: E402
from tui_insight.summary.queries.histograms import Ridgeline  # noqa: E402
from tui_insight.summary.store.cache import SummaryCache  # noqa: E402
from tui_insight.ui.app import InsightApp  # noqa: E402
from tui_insight.ui.views.histograms import HistogramsView  # noqa: E402
from tui_insight.ui.views.tensors import TensorsView  # noqa: E402
from tui_insight.ui.widgets.ridgeline import RidgeOptions, draw_ridgeline  # noqa: E402
from tui_insight.ui.widgets.slice_table import SliceTable  # noqa: E402

FIXTURES = ROOT / "tests" / "fixtures" / "mindspore"
T0 = 1_700_000_000.0


def rss_mb() -> float:
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return float("nan")


def figures(times: list[float]) -> str:
    ms = [t * 1000 for t in times]
    return f"median {statistics.median(ms):6.1f} ms   p90 {sorted(ms)[int(len(ms) * 0.9)]:6.1f} ms   max {max(ms):6.1f} ms"


def ridge_50x30() -> Ridgeline:
    rng = np.random.default_rng(0)
    n, bins = 50, 30
    edges = np.linspace(-4, 4, bins + 1)
    counts = np.array([np.histogram(rng.normal(i / 25, 1, 5000), edges)[0] for i in range(n)])
    nan = np.zeros(n, dtype=np.int64)
    nan[::9] = 3
    zeros = np.zeros(n, dtype=np.int64)
    return Ridgeline(edges, counts, np.arange(n, dtype=np.int64) * 20, T0 + np.arange(n) * 30.0, nan, zeros,
                     zeros, 8 / bins)


def bench_ridgeline_draw(repeat: int) -> None:
    print("Ridgeline, 50 steps x 30 bins: drawing the strips (what a redraw costs the chart)")
    ridge = ridge_50x30()
    for mode in ("offset", "overlay"):
        for width, height in ((76, 16), (156, 42), (236, 66)):
            times = []
            for k in range(repeat):
                options = RidgeOptions(mode=mode, cursor_step=k % 50, cursor_bin=k % 30)  # a new picture each time
                start = time.perf_counter()
                draw_ridgeline(ridge, options, width, height, "#15181e")
                times.append(time.perf_counter() - start)
            print(f"  {mode:8s} {width:3d}x{height:<3d} {figures(times)}")


def write_big_tensor(directory: Path, steps: int, shape=(1000, 1000)) -> None:
    rng = np.random.default_rng(1)
    with SummaryWriter(directory, timestamp=int(T0), wall_time=T0) as writer:
        for step in range(1, steps + 1):
            array = rng.standard_normal(shape).astype(np.float32)
            array[0, 0], array[1, 1], array[2, 2] = np.nan, np.inf, -np.inf
            writer.add_tensor("big", array)
            writer.record(step, wall_time=T0 + step)


async def open_view(app: InsightApp, pilot, train_id: str, key: str, cls):
    await pilot.pause()
    app.open_jobs((train_id,))
    await pilot.pause()
    await pilot.press(key)
    await pilot.pause()
    return app.screen.query_one(cls)


async def until(pilot, condition, timeout: float = 60.0) -> None:
    deadline = time.monotonic() + timeout
    while not condition():
        if time.monotonic() > deadline:
            raise TimeoutError("the view did not get there")
        await pilot.pause(0.005)


def bench_ridgeline_in_app(repeat: int) -> None:
    print("Ridgeline in the app (160x48, limits/weights: 47 steps x 30 bins): key press -> chart redrawn")
    cache = SummaryCache(str(FIXTURES))
    cache.reload()
    app = InsightApp(cache, start_loading=False, reload_interval=0, clock=lambda: T0)

    async def main():
        async with app.run_test(size=(160, 48)) as pilot:
            view = await open_view(app, pilot, "./limits", "2", HistogramsView)
            await until(pilot, lambda: view._charts and all(c.ridge is not None for c in view._charts.values()))
            chart = next(iter(view._charts.values()))
            chart.focus()
            await pilot.press("f")  # one chart filling the screen
            await pilot.pause()
            draws = []
            original = chart.strips

            def timed():
                start = time.perf_counter()
                before = chart.draws
                out = original()
                if chart.draws > before:  # a real drawing, not the kept one
                    draws.append(time.perf_counter() - start)
                return out

            chart.strips = timed  # type: ignore[method-assign]
            moves = []
            chart.action_cursor_step(-1)  # shows the cursor on the newest step
            await pilot.pause()
            direction = -1
            for k in range(repeat):
                i = chart.cursor_index
                if not 0 <= i + direction < len(chart.ridge.steps) or k % 10 == 9:
                    direction = -direction  # a move that changes something
                before = len(draws)
                start = time.perf_counter()
                chart.action_cursor_step(direction)
                await until(pilot, lambda: len(draws) > before)
                moves.append(time.perf_counter() - start)
            print(f"  chart {chart.content_size.width}x{chart.content_size.height}, drawing:        {figures(draws)}")
            print(f"  cursor move to first line painted:       {figures(moves)}")

    asyncio.run(main())


def bench_tensor_table(repeat: int, root: Path) -> None:
    print("Tensor table, 1000 x 1000 float32 (160x48):")
    directory = root / "big"
    start = time.perf_counter()
    write_big_tensor(directory, 1)
    print(f"  (writing the log took {time.perf_counter() - start:.1f} s)")
    cache = SummaryCache(str(root))
    cache.reload()
    app = InsightApp(cache, start_loading=False, reload_interval=0, clock=lambda: T0)

    async def main():
        async with app.run_test(size=(160, 48)) as pilot:
            start = time.perf_counter()
            view = await open_view(app, pilot, "./big", "3", TensorsView)
            await until(pilot, lambda: view.slice is not None)
            print(f"  opening the tag (decode 1,000,000 values + statistics in a worker): "
                  f"{(time.perf_counter() - start) * 1000:.0f} ms")
            table = view.query_one(SliceTable)
            paints: list[float] = []
            original = table.render_line

            def timed(y):
                strip = original(y)
                paints.append(time.perf_counter())
                return strip

            table.render_line = timed  # type: ignore[method-assign]
            box = view.query_one("#tensor-slice")
            first_paint, apply_only = [], []
            slices = ["[0:100,:]", "[100:200,:]", "[::10,::10]", "[500:600,:]", "[:,0:100]"]
            for k in range(repeat):
                await pilot.press("d")
                box.value = slices[k % len(slices)]
                await pilot.pause()
                paints.clear()
                start = time.perf_counter()
                await pilot.press("enter")
                await until(pilot, lambda: paints and view.slice.text == slices[k % len(slices)].replace(" ", ""))
                first_paint.append(paints[0] - start)
                start = time.perf_counter()
                view._apply(slices[k % len(slices)])
                for y in range(table.size.height):
                    original(y)
                apply_only.append(time.perf_counter() - start)
            print(f"  enter -> first line of the table painted: {figures(first_paint)}")
            print(f"  slicing + formatting a screen (no Textual): {figures(apply_only)}")
            await pilot.press("d")
            box.value = "[0:100,:]"
            await pilot.press("enter")
            await pilot.pause()
            page, direct = [], []
            for k in range(repeat):
                key = "pagedown" if (k // 4) % 2 == 0 else "pageup"
                paints.clear()
                start = time.perf_counter()
                await pilot.press(key)
                await until(pilot, lambda: len(paints) >= table.size.height - 1)
                page.append(paints[-1] - start)
                table._rows.clear()
                start = time.perf_counter()
                table.action_page(1 if key == "pagedown" else -1)
                for y in range(table.size.height):
                    original(y)
                direct.append(time.perf_counter() - start)
            idle = []
            for k in range(repeat):
                start = time.perf_counter()
                await pilot.press("f12")  # bound to nothing: what the test driver itself costs
                idle.append(time.perf_counter() - start)
            action = []
            for k in range(repeat):
                paints.clear()
                start = time.perf_counter()
                table.action_page(1 if (k // 4) % 2 == 0 else -1)  # the key's action, without the test driver
                await until(pilot, lambda: len(paints) >= table.size.height - 1)
                action.append(paints[-1] - start)
            print(f"  page action -> whole table painted:       {figures(action)}")
            print(f"  page key -> whole table painted:          {figures(page)}")
            print(f"  (a key bound to nothing, for comparison:  {figures(idle)})")
            print(f"  a page formatted and drawn (no Textual):  {figures(direct)}")

    asyncio.run(main())


def bench_memory(root: Path, big_steps: int) -> None:
    bound = limits.PAYLOAD_CACHE_BYTES / 2**20
    print(f"Memory (payload LRU bound {bound:.0f} MB): every tensor step opened one after another")
    for label, logdir, train_id in (("limits (fixture)", FIXTURES, "./limits"),
                                    (f"{big_steps} steps of 1000x1000", root / "mem", "./run")):
        if train_id == "./run":
            write_big_tensor(root / "mem" / "run", big_steps)
        cache = SummaryCache(str(logdir))
        cache.reload()
        app = InsightApp(cache, start_loading=False, reload_interval=0, clock=lambda: T0)

        async def main():
            async with app.run_test(size=(160, 48)) as pilot:
                view = await open_view(app, pilot, train_id, "3", TensorsView)
                await until(pilot, lambda: view.tensor is not None)
                gc.collect()
                before = rss_mb()
                lru_before = cache.payloads.cached_bytes / 2**20
                peak = before
                opened = 0
                for key in list(view.keys):
                    view._open(key)
                    series = view._series()
                    for i in range(len(series)):
                        view._go_to(i)
                        step = int(series.steps[i])
                        await until(pilot, lambda: view.step == step and view.tensor is not None
                                    and view.locator == cache.job(key[0]).locator(series, i))
                        opened += 1
                        peak = max(peak, rss_mb())
                gc.collect()
                after = rss_mb()
                lru_after = cache.payloads.cached_bytes / 2**20
                print(f"  {label:24s} {opened:3d} steps opened; RSS {before:6.1f} -> {after:6.1f} MB "
                      f"(peak {peak:6.1f}): growth {after - before:5.1f} MB, of which the LRU "
                      f"{lru_before:4.1f} -> {lru_after:4.1f} MB; beyond the LRU "
                      f"{after - before - (lru_after - lru_before):5.1f} MB")

        asyncio.run(main())


def main() -> None:
    """`--quick`: fewer repeats; `--only ridgeline,table,memory`: some parts."""
    quick = "--quick" in sys.argv
    parts = {"ridgeline", "table", "memory"}
    if "--only" in sys.argv:
        parts = set(sys.argv[sys.argv.index("--only") + 1].split(","))
    repeat = 10 if quick else 40
    if "ridgeline" in parts:
        bench_ridgeline_draw(repeat * 2)
        bench_ridgeline_in_app(repeat)
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        if "table" in parts:
            bench_tensor_table(repeat, root / "table")
        if "memory" in parts:
            bench_memory(root, 6 if quick else 20)


if __name__ == "__main__":
    main()
