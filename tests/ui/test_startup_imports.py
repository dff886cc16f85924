"""The job list starts without the dashboard's views (about half of the imports before the first
paint); they are imported in the background once the first load is done. Each check runs in a
fresh interpreter: this one has imported everything already."""
from __future__ import annotations

import subprocess
import sys
import textwrap

from fixture_paths import MINDSPORE_LOGS

DASHBOARD = "tui_insight.ui.screens.dashboard"


def run(code: str) -> str:
    done = subprocess.run([sys.executable, "-c", textwrap.dedent(code)], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr[-3000:]
    return done.stdout.strip()


def test_the_app_starts_without_the_dashboards_views_and_preloads_them_after_the_first_load():
    out = run(f"""
        import asyncio, sys, time
        from tui_insight.summary.store.cache import SummaryCache
        from tui_insight.ui.app import InsightApp

        print("{DASHBOARD}" in sys.modules, "plotext" in sys.modules)

        async def main():
            app = InsightApp(SummaryCache({str(MINDSPORE_LOGS)!r}), reload_interval=0)
            async with app.run_test(size=(100, 30)) as pilot:
                deadline = time.monotonic() + 60
                while "{DASHBOARD}" not in sys.modules and time.monotonic() < deadline:
                    await pilot.pause(0.05)
                loaded = app.cache.progress.reloads > 0
                print("{DASHBOARD}" in sys.modules, loaded)
                app.open_jobs(("./lenet_lr0.01",))
                await pilot.pause(0.5)
                print(type(app.screen).__name__)

        asyncio.run(main())
    """)
    assert out.splitlines() == ["False False", "True True", "DashboardScreen"]
