"""The demo logs hold every kind of data, and the live run keeps appending."""
import time

from tui_insight.demo import LiveRun, write_demo
from tui_insight.summary.cache import SummaryCache


def test_demo_runs_hold_every_kind_of_data(tmp_path):
    write_demo(tmp_path)
    cache = SummaryCache(str(tmp_path))
    cache.reload()
    assert len(cache.jobs) == 3
    for view in cache.jobs.values():
        assert view.state == "ok"
        for plugin in ("scalar", "histogram", "tensor", "image"):
            assert view.tag_names(plugin), (view.train_id, plugin)
        assert view.graphs and view.lineage.train and view.lineage.evaluation["metric"]
        assert view.lineage.dataset_graph["op_type"] == "Batch"
    assert {g.kind for g in cache.job("./lenet_lr0.1").graphs.values()} == {"summary", "pb"}
    assert all(view.update_time < time.time() - 600 for view in cache.jobs.values())  # finished, not live


def test_live_run_keeps_appending(tmp_path):
    live = LiveRun(tmp_path, period=0.05)
    live.start()
    try:
        cache = SummaryCache(str(tmp_path))
        deadline = time.monotonic() + 10
        seen = []
        while time.monotonic() < deadline and len(set(seen)) < 3:
            cache.reload()
            view = cache.job("./live_run")
            series = view.series("scalar", "loss/auto") if view else None
            if series is not None:
                seen.append(series.last_step)
            time.sleep(0.05)
        assert len(set(seen)) >= 3 and seen == sorted(seen)
    finally:
        live.stopped.set()
        live.join(timeout=5)
