"""The demo logs hold every kind of data, and the live run keeps appending."""
import time

from tui_insight.demo import LiveRun, write_demo
from tui_insight.summary.store.cache import SummaryCache


def test_demo_runs_hold_every_kind_of_data(tmp_path):
    write_demo(tmp_path)
    cache = SummaryCache(str(tmp_path))
    cache.reload()
    assert len(cache.jobs) == 4
    for view in (v for v in cache.jobs.values() if not v.tensorboard_files):
        assert view.state == "ok"
        for plugin in ("scalar", "histogram", "tensor", "image"):
            assert view.tag_names(plugin), (view.train_id, plugin)
        assert view.graphs and view.lineage.train and view.lineage.evaluation["metric"]
        assert view.lineage.dataset_graph["op_type"] == "Batch"
    assert {g.kind for g in cache.job("./lenet_lr0.1").graphs.values()} == {"summary", "pb"}
    assert all(view.update_time < time.time() - 600 for view in cache.jobs.values())  # finished, not live


def test_demo_holds_a_tensorboard_run(tmp_path):
    from tui_insight.summary.formats.graph import load_graph
    from tui_insight.summary.formats.graph_build import build_graph

    write_demo(tmp_path)
    cache = SummaryCache(str(tmp_path))
    cache.reload()
    view = cache.job("./torch_lenet")
    assert view.state == "ok" and view.tensorboard_files and not view.summary_files
    assert {plugin: len(view.tag_names(plugin)) for plugin in ("scalar", "histogram", "image", "text")} == {
        "scalar": 2, "histogram": 1, "image": 1, "text": 1}
    assert len(view.series("scalar", "loss/auto")) == 120
    histogram = view.series("histogram", "conv1.weight")
    assert len(cache.payloads.histogram(view.locator(histogram, 0)).buckets) > 90  # kept whole
    notes = view.series("text", "notes")
    assert cache.payloads.text(view.locator(notes, 0)).text.startswith("epoch 1: loss")
    (source,) = view.graphs.values()
    assert [n.name for n in build_graph(load_graph(source)).children("")] == ["input", "LeNet", "output"]
    assert view.update_time < time.time() - 600  # finished, not live


def test_demo_holds_a_profile_and_loss_landscapes(tmp_path):
    import os

    from tui_insight.summary.formats.profiler import find_profiles, load_profile
    from tui_insight.summary.queries.landscape import FINAL, INTERVAL, landscape_at, list_landscapes

    write_demo(tmp_path)
    cache = SummaryCache(str(tmp_path))
    cache.reload()
    profiled = [view for view in cache.jobs.values() if view.profile_dirs]
    assert profiled
    for view in profiled:
        refs = find_profiles(os.path.join(str(tmp_path), view.train_id))
        assert refs
        profile = load_profile(refs[0])
        assert profile.all_problems() == ()
        assert profile.operators and profile.op_types and len(profile.calls) > 0
        assert profile.shapes.by_op and profile.timeline.tracks
    with_landscapes = [view for view in cache.jobs.values() if view.tag_names("loss_landscape")]
    assert with_landscapes
    for view in with_landscapes:
        entries = list_landscapes(cache.payloads, view)
        assert not any(e.error for e in entries)
        assert [e.kind for e in entries] == [INTERVAL, INTERVAL, FINAL]
        assert all(landscape_at(cache.payloads, view, e.tag, e.index).z.shape == (21, 21) for e in entries)
    assert all(view.update_time < time.time() - 600 for view in cache.jobs.values())


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
