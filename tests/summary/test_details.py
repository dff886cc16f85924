"""Details on demand: a job's series are kept under a memory budget, least recently used out;
held jobs stay; an evicted job comes back (or grows) with exactly the data a plain load has."""
from sweep_logs import append, contents, loaded_reference, row, wait_until, write_run, write_sweep

from tui_insight.export import export_snapshot
from tui_insight.summary.store import loader as loader_module
from tui_insight.summary.store.cache import SummaryCache


def job_bytes(cache, train_id) -> int:
    return sum(series.nbytes for series in cache.job(train_id).tags.values())


def detailed(cache) -> set[str]:
    return {tid for tid, view in cache.jobs.items() if view.detailed}


def budget_of(jobs: float, reference, train_id="./run_00") -> int:
    return int(jobs * job_bytes(reference, train_id))


def test_an_evicted_job_comes_back_with_identical_data(tmp_path):
    ids = write_sweep(tmp_path, 6)
    reference = loaded_reference(tmp_path)
    cache = SummaryCache(str(tmp_path), memory_budget=budget_of(2.5, reference))
    cache.reload()
    evicted = set(ids) - detailed(cache)
    assert len(evicted) == 4 and evicted == set(ids[:4])  # read in train id order: the first ones went
    for tid in ids:
        view = cache.job(tid)
        assert row(view) == row(reference.job(tid))  # its list row is the same, details or not
        if tid in evicted:
            assert not view.tags and view.loaded and not view.ready
    for tid in ids:
        view = cache.details(tid)
        assert view.detailed and contents(view) == contents(reference.job(tid))
        assert row(view) == row(reference.job(tid))
    assert cache._budget.total <= budget_of(2.5, reference)


def test_eviction_is_least_recently_used_and_never_takes_a_held_job(tmp_path):
    ids = write_sweep(tmp_path, 5)  # a b c d e
    a, b, c, d, e = ids
    reference = loaded_reference(tmp_path)
    cache = SummaryCache(str(tmp_path), memory_budget=budget_of(2.5, reference))
    cache.reload()
    assert detailed(cache) == {d, e}
    cache.hold("screen", [a])
    assert wait_until(lambda: cache.job(a).detailed)
    assert detailed(cache) == {e, a}  # d was used longest ago
    cache.details(c)
    assert detailed(cache) == {a, c}  # e went; a is held
    cache.details(b)
    assert detailed(cache) == {a, b}  # c was used before b; a is still held
    cache.release("screen")  # a was used just now: the last to go
    cache.details(d)
    assert detailed(cache) == {a, d}
    assert contents(cache.job(d)) == contents(reference.job(d))


def test_a_job_brought_back_is_announced_with_every_tag(tmp_path):
    ids = write_sweep(tmp_path, 3)
    reference = loaded_reference(tmp_path)
    cache = SummaryCache(str(tmp_path), memory_budget=budget_of(1.5, reference))
    cache.reload()
    first = ids[0]
    assert not cache.job(first).detailed
    heard = []
    cache.subscribe(heard.append)
    cache.hold("view", [first])
    assert wait_until(lambda: cache.job(first).detailed)
    assert heard and heard[-1].updated[first] == set(reference.job(first).tags)


def test_an_evicted_job_that_grows_gets_its_new_steps(tmp_path):
    live = write_run(tmp_path / "live", 7)
    write_sweep(tmp_path, 3)
    reference = loaded_reference(tmp_path)
    cache = SummaryCache(str(tmp_path), memory_budget=budget_of(1.5, reference, "./live"))
    cache.reload()
    assert not cache.job("./live").detailed  # read first, evicted by the runs read after it
    append(live, 7, range(2501, 2601))
    changes = cache.reload()
    assert "./live" in changes.updated
    view = cache.job("./live")
    assert view.digests["loss"].last_step == 2600 and view.last_step == 2600
    assert not view.detailed  # read, published, evicted again: the budget still holds
    live.close()
    assert contents(cache.details("./live")) == contents(loaded_reference(tmp_path).job("./live"))


def test_the_export_reads_back_evicted_jobs(tmp_path):
    write_sweep(tmp_path, 4, steps=300)
    reference = loaded_reference(tmp_path)
    cache = SummaryCache(str(tmp_path), memory_budget=budget_of(1.5, reference))
    cache.reload()
    assert len(detailed(cache)) < 4
    export_snapshot(cache, tmp_path.parent / "small", force=True)
    export_snapshot(reference, tmp_path.parent / "plain", force=True)
    for name in ("scalars", "histograms", "jobs"):
        small = (tmp_path.parent / "small" / f"{name}.csv").read_text()
        assert small == (tmp_path.parent / "plain" / f"{name}.csv").read_text()
        assert len(small.splitlines()) > 4


def test_a_job_opened_while_a_big_one_is_read_is_served_between_its_batches(tmp_path, monkeypatch):
    """Opening a job never waits for a big job read in this process: held jobs are served after
    a batch of its records, not only once it is read whole."""
    monkeypatch.setattr(loader_module, "PROGRESS_EVERY_SECONDS", 0.0)  # a progress view after every batch
    write_sweep(tmp_path, 1)
    cache = SummaryCache(str(tmp_path), memory_budget=1)  # a job nobody holds is evicted once read
    cache.reload()
    assert not cache.job("./run_00").detailed
    monkeypatch.setattr(loader_module, "_BATCH_BYTES", 4096)  # records are read in blocks of this
    write_run(tmp_path / "big", 1, steps=1000).close()  # many blocks of records
    seen = []  # (the big job loaded, the small one detailed) at each notice
    opened = []

    def on_change(changes):
        big, small = cache.job("./big"), cache.job("./run_00")
        if big is not None and big.records and not big.loaded and not opened:
            opened.append(True)
            cache.hold("viewer", ["./run_00"])  # opened while the big job is being read
        seen.append((big is not None and big.loaded, small.detailed))

    cache.subscribe(on_change)
    cache.reload()
    assert cache.job("./big").loaded and cache.job("./run_00").detailed
    assert contents(cache.job("./run_00")) == contents(loaded_reference(tmp_path).job("./run_00"))
    big_loaded_when_served = next(loaded for loaded, detailed in seen if detailed)
    assert not big_loaded_when_served


def test_details_on_the_loading_thread_raises_at_once_instead_of_waiting_for_itself(tmp_path):
    """A subscriber runs on the loading thread, which `details` of an evicted job waits for: there
    it raises a RuntimeError saying so (it used to block until its timeout, then hand back the view
    without details). Loading goes on, and `details` from another thread still works."""
    ids = write_sweep(tmp_path, 3)
    reference = loaded_reference(tmp_path)
    cache = SummaryCache(str(tmp_path), memory_budget=budget_of(1.5, reference))
    outcomes = []

    def subscriber(changes):
        first = cache.job(ids[0])
        if not outcomes and first is not None and first.loaded and not first.detailed:  # evicted: details would wait
            try:
                outcomes.append(cache.details(ids[0], timeout=3))
            except RuntimeError as exc:
                outcomes.append(exc)

    cache.subscribe(subscriber)
    cache.start(interval=0)
    try:
        assert wait_until(lambda: outcomes and all(view.loaded for view in cache.jobs.values()))
    finally:
        cache.stop()
    assert isinstance(outcomes[0], RuntimeError), outcomes
    assert "loading thread" in str(outcomes[0])
    assert contents(cache.details(ids[0])) == contents(reference.job(ids[0]))
