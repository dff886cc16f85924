"""The store's one scheduler: typed work on one thread, merged, by urgency; and the cache on it."""
from __future__ import annotations

import gc
import threading
import time
import weakref
from concurrent.futures import CancelledError

import pytest

from tui_insight.summary.formats.writer import SummaryWriter
from tui_insight.summary.store import scheduler as scheduling
from tui_insight.summary.store.cache import SummaryCache
from tui_insight.summary.store.scheduler import Call, Poll, Reload, Scheduler, ServeHolds



def write_steps(writer, steps):
    for step in steps:
        writer.add_scalar("loss", step * 0.5)
        writer.record(step, wall_time=1000.0 + step)
    writer.flush()


class Recorder:
    """A scheduler's work function that records what it did, and can be held on one item."""

    def __init__(self):
        self.done: list = []
        self.threads: set[str] = set()
        self.gate = threading.Event()
        self.gate.set()
        self.started = threading.Event()

    def __call__(self, work):
        self.started.set()
        self.gate.wait(10)
        self.threads.add(threading.current_thread().name)
        self.done.append(work)
        return work.run() if isinstance(work, Call) else len(self.done)


def busy(recorder: Recorder, scheduler: Scheduler):
    """The scheduler held on a first item, so that what follows queues."""
    recorder.gate.clear()
    first = scheduler.submit(Reload(frozenset({"first"})))
    assert recorder.started.wait(10)
    return first


def test_queued_work_is_merged_and_done_by_urgency_on_one_thread():
    recorder = Recorder()
    scheduler = Scheduler(recorder, "test-scheduler")
    first = busy(recorder, scheduler)
    polls = [scheduler.submit(Poll()) for _ in range(3)]
    a = scheduler.submit(Reload(frozenset({"a"})))
    b = scheduler.submit(Reload(frozenset({"b"})))
    holds = [scheduler.submit(ServeHolds()) for _ in range(50)]
    call = scheduler.submit(Call(lambda: "answer"))
    recorder.gate.set()
    assert call.result(10) == "answer"
    for future in (first, *polls, a, b, *holds):
        future.result(10)
    assert recorder.done == [Reload(frozenset({"first"})), ServeHolds(), recorder.done[2], Reload(frozenset({"a", "b"})),
                             Poll()]
    assert isinstance(recorder.done[2], Call)
    assert a is b and len({id(f) for f in holds}) == 1 and len({id(f) for f in polls}) == 1
    assert recorder.threads == {"test-scheduler"}
    scheduler.stop()


def test_a_full_reload_absorbs_the_changed_paths_queued_with_it():
    recorder = Recorder()
    scheduler = Scheduler(recorder, "test-scheduler")
    busy(recorder, scheduler)
    scheduler.submit(Reload(frozenset({"a"})))
    scheduler.submit(Reload())
    scheduler.submit(Reload(frozenset({"b"})))
    recorder.gate.set()
    scheduler.submit(Call(lambda: None)).result(10)
    scheduler.submit(Poll()).result(10)
    assert recorder.done[1:] == [recorder.done[1], Reload(), Poll()]


def test_a_call_made_while_doing_an_item_runs_at_once():
    recorder = Recorder()
    scheduler = Scheduler(recorder, "test-scheduler")
    busy(recorder, scheduler)
    nested = scheduler.submit(Call(lambda: scheduler.call(lambda: threading.current_thread().name)))
    recorder.gate.set()
    assert nested.result(10) == "test-scheduler"
    scheduler.stop()


def test_a_call_finding_the_scheduler_idle_is_done_on_the_callers_thread():
    recorder = Recorder()
    scheduler = Scheduler(recorder, "test-scheduler")
    assert scheduler.call(lambda: (scheduler.on_thread(), threading.current_thread())) == (True, threading.current_thread())
    assert scheduler.thread is None and recorder.done == []  # no thread, no queue
    busy(recorder, scheduler)
    seen = []
    caller = threading.Thread(target=lambda: seen.append(scheduler.call(lambda: threading.current_thread().name)))
    caller.start()
    recorder.gate.set()
    caller.join(10)
    assert seen == ["test-scheduler"]  # busy: queued, and done on the scheduler's thread
    scheduler.stop()


def test_a_failure_reaches_whoever_waits_and_the_thread_goes_on():
    recorder = Recorder()
    scheduler = Scheduler(recorder, "test-scheduler")

    def fail():
        raise ValueError("broken")

    with pytest.raises(ValueError, match="broken"):
        scheduler.call(fail)
    assert scheduler.call(lambda: 2) == 2
    scheduler.stop()


def test_stop_cancels_background_work_does_a_waiting_call_and_runs_the_last_step():
    recorder = Recorder()
    scheduler = Scheduler(recorder, "test-scheduler")
    busy(recorder, scheduler)
    poll = scheduler.submit(Poll())
    holds = scheduler.submit(ServeHolds())
    call = scheduler.submit(Call(lambda: "still done"))
    last = []
    stopper = threading.Thread(target=scheduler.stop, kwargs={"last": lambda: last.append(threading.current_thread().name)})
    stopper.start()
    deadline = time.monotonic() + 10
    while not scheduler.stopping and time.monotonic() < deadline:
        time.sleep(0.005)
    assert scheduler.stopping  # the item being done is told
    recorder.gate.set()
    stopper.join(10)
    assert last == ["test-scheduler"]
    with pytest.raises(CancelledError):
        poll.result(0)
    with pytest.raises(CancelledError):
        holds.result(0)
    assert call.result(10) == "still done"  # a caller waits for it: a new thread did it


def test_an_idle_thread_ends_and_lets_go_of_its_cache(tmp_path, monkeypatch):
    monkeypatch.setattr(scheduling, "IDLE_SECONDS", 0.05)
    write_steps(SummaryWriter(tmp_path, timestamp=1), [1, 2])
    cache = SummaryCache(str(tmp_path))
    cache.reload()
    assert cache.job("./").loaded
    cache.hold("screen", ["./"])  # served on the scheduler's thread
    thread = cache.loading_thread
    gone = weakref.ref(cache)
    del cache
    deadline = time.monotonic() + 10
    while gone() is not None and time.monotonic() < deadline:
        gc.collect()
        time.sleep(0.02)
    assert gone() is None
    assert thread is not None
    thread.join(10)
    assert not thread.is_alive()


def test_a_burst_of_holds_is_served_on_the_one_loading_thread(tmp_path):
    for run in ("a", "b"):
        write_steps(SummaryWriter(tmp_path / run, timestamp=1), [1, 2, 3])
    cache = SummaryCache(str(tmp_path), memory_budget=0)  # nobody holds a job: its details go
    try:
        cache.reload()
        assert not cache.job("./a").detailed
        threads = []
        cache.subscribe(lambda changes: threads.append(threading.current_thread()))
        before = threading.active_count()
        for i in range(200):
            cache.hold(("screen", i % 2), ["./a"] if i % 2 else ["./b"])
            assert threading.active_count() <= before + 1
        view = cache.details("./a")
        assert view is not None and view.detailed
        assert set(threads) == {cache.loading_thread}
    finally:
        cache.stop()


def test_a_subscriber_may_reload_but_not_wait_for_details(tmp_path):
    write_steps(SummaryWriter(tmp_path, timestamp=1), [1])
    cache = SummaryCache(str(tmp_path))
    seen: list = []
    called = []

    def subscriber(changes):
        if called:  # (the reload below tells subscribers too)
            return
        called.append(1)
        seen.append(cache.reload())  # on the loading thread: runs at once
        try:
            cache.details("./")
        except RuntimeError as exc:
            seen.append(str(exc))

    cache.subscribe(subscriber)
    try:
        cache.reload()
        assert len(seen) == 2 and "loading thread" in seen[1]
    finally:
        cache.stop()


def test_stop_ends_loading_and_the_cache_can_be_used_after(tmp_path):
    write_steps(SummaryWriter(tmp_path, timestamp=1), [1])
    cache = SummaryCache(str(tmp_path))
    others = set(threading.enumerate())
    cache.start(interval=0.05)
    deadline = time.monotonic() + 10
    while not (cache.job("./") and cache.job("./").loaded) and time.monotonic() < deadline:
        time.sleep(0.01)
    loading = cache.loading_thread
    watching = [t for t in threading.enumerate() if t.name == "summary-cache-watch" and t not in others]
    cache.stop()
    assert cache.loading_thread is None and loading is not None and not loading.is_alive()
    assert watching and not any(t.is_alive() for t in watching)
    write_steps(SummaryWriter(tmp_path, timestamp=2), [2])
    cache.reload()
    assert cache.job("./").last_step == 2
    cache.stop()
