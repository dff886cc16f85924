"""Regenerate the README's screenshots from the demo logs: python screenshots/generate.py

Each picture is the real app, run headless at 140x40 on freshly written demo logs and driven by
the keys listed next to it; Textual saves the screen as SVG.
"""
from __future__ import annotations

import asyncio
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))

from tui_insight.demo import write_demo  # noqa: E402
from tui_insight.summary.store.cache import SummaryCache  # noqa: E402
from tui_insight.ui.app import InsightApp  # noqa: E402
from tui_insight.ui.widgets.job_table import JobTable  # noqa: E402

SIZE = (140, 40)
# name: keys pressed from the job list (rows: lenet_adam, lenet_lr0.01, lenet_lr0.1, live_run,
# torch_lenet), then seconds to let it settle
SHOTS = {
    "jobs": ([], 0.8),
    "scalars": (["down", "down", "enter", "s", "s", "s", "s", "s", "right", "right"], 0.8),
    "compare": (["space", "down", "space", "down", "space", "c", "s", "s", "s", "s"], 0.8),
    "histograms": (["down", "down", "enter", "2"], 1.5),
    "distributions": (["down", "down", "enter", "2", "wait", "d", "wait", "end", "left", "left"], 1.5),
    "tensors": (["down", "down", "enter", "3"], 1.0),
    "images": (["down", "down", "enter", "4"], 1.5),
    "graph": (["down", "down", "enter", "5"], 1.5),
    "graph_search": (["down", "down", "enter", "5", "wait", "slash", *"conv", "enter"], 1.0),
    "dataset_pipeline": (["down", "down", "enter", "5", "wait", "d"], 1.0),
    "landscape": (["down", "down", "enter", "6"], 1.5),
    "profiler": (["down", "down", "enter", "7", "wait", "right_square_bracket"], 1.5),
    "lineage": (["l"], 0.8),
    "lineage_dataset": (["l", "wait", "t"], 0.8),
    "parallel": (["l", "wait", "p", "right", "right", "right_square_bracket"], 0.8),
    "importance": (["l", "wait", "i"], 0.8),
    "help": (["down", "down", "enter", "question_mark"], 0.5),
    "tensorboard_histograms": (["end", "enter", "2"], 1.5),  # the last row: torch_lenet, a TensorBoard run
    "text": (["end", "enter", "8"], 1.0),
}


async def shoot(logdir: Path, name: str, keys: list[str], settle: float) -> None:
    app = InsightApp(SummaryCache(str(logdir)), reload_interval=0, logdir_label="./logs")
    async with app.run_test(size=SIZE) as pilot:
        while not (app.screen.query(JobTable) and app.screen.query_one(JobTable).row_count >= 3):
            await pilot.pause(0.05)
        for key in keys:
            if key == "wait":
                await pilot.pause(1.0)
            else:
                await pilot.press(key)
        await pilot.pause(settle)
        app.save_screenshot(filename=f"{name}.svg", path=str(HERE))
    print(f"screenshots/{name}.svg")


def main() -> None:
    with tempfile.TemporaryDirectory() as tmp:
        logdir = Path(tmp) / "logs"
        write_demo(logdir)
        for name, (keys, settle) in SHOTS.items():
            asyncio.run(shoot(logdir, name, keys, settle))


if __name__ == "__main__":
    main()
