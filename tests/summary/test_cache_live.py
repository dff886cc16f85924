"""A run being written: the cache's loading thread reads what its change notices announce, gathering
the notices of a burst of flushes into a few reloads (issue 14, live at bounded cost)."""
from __future__ import annotations

import time

from tui_insight.summary.formats.writer import SummaryWriter
from tui_insight.summary.store.cache import LIVE_RELOAD_SECONDS, SummaryCache, wait_loaded


def test_a_burst_of_flushes_is_read_in_a_few_reloads_not_one_per_flush(tmp_path):
    writer = SummaryWriter(tmp_path, timestamp=1)
    writer.add_scalar("loss", 1.0)
    writer.record(1)
    writer.flush()
    cache = SummaryCache(str(tmp_path))
    cache.start(interval=60)  # only change notices wake the loop
    reloads: list[float] = []  # when each reload that read new steps told its subscribers
    try:
        assert wait_loaded(cache, timeout=10)
        cache.subscribe(lambda changes: reloads.append(time.monotonic()) if changes.updated else None)
        flushes, every = 50, 0.02  # a training loop flushing 50 times a second for a second
        started = time.monotonic()
        for step in range(2, flushes + 2):
            writer.add_scalar("loss", 1.0 / step)
            writer.record(step)
            writer.flush()  # a change notice per flush
            time.sleep(max(0.0, started + (step - 1) * every - time.monotonic()))  # the writer's pace
        wrote = time.monotonic() - started
        deadline = time.monotonic() + 5
        while time.monotonic() < deadline and cache.job("./").series("scalar", "loss").last_step != flushes + 1:
            time.sleep(0.02)
        assert cache.job("./").series("scalar", "loss").steps.tolist() == list(range(1, flushes + 2))
    finally:
        cache.stop()
        writer.close()
    # Reloads follow each other LIVE_RELOAD_SECONDS apart at the least while the flushes come
    # (each notice read on its own would be a reload every ~0.1 s, watchfiles' debounce); the
    # times are when each reload told its subscribers, so allow for one reload's own length.
    gaps = [later - earlier for earlier, later in zip(reloads, reloads[1:])]
    assert len(reloads) >= 2 and min(gaps) >= LIVE_RELOAD_SECONDS / 2, (wrote, gaps)


def test_a_logdir_whose_name_is_not_utf8_is_polled_with_one_warning(tmp_path, caplog):
    """watchfiles takes UTF-8 paths only: LOGDIR `logs\\xff` is polled, said in one warning (it
    was an ERROR with a traceback in the log), and a new step is still seen."""
    import logging
    import os

    logdir = tmp_path / os.fsdecode(b"logs\xff")
    writer = SummaryWriter(logdir / os.fsdecode(b"run\xfe"), timestamp=1)
    writer.add_scalar("loss", 1.0)
    writer.record(1)
    writer.flush()
    cache = SummaryCache(str(logdir))
    caplog.set_level(logging.WARNING, logger="tui_insight")
    cache.start(interval=0.2)
    train_id = "./" + os.fsdecode(b"run\xfe")
    try:
        assert wait_loaded(cache, timeout=10)
        writer.add_scalar("loss", 0.5)
        writer.record(2)
        writer.flush()
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline and cache.job(train_id).series("scalar", "loss").last_step != 2:
            time.sleep(0.05)
        assert cache.job(train_id).series("scalar", "loss").last_step == 2
    finally:
        cache.stop()
        writer.close()
    assert not [r for r in caplog.records if r.levelno >= logging.ERROR], caplog.text
    assert any("not UTF-8" in r.getMessage() and "polling" in r.getMessage() for r in caplog.records)


def test_the_safety_net_poll_backs_off_while_it_finds_nothing_the_notices_missed():
    """Where change notices work, the full poll only catches what they miss (network file
    systems, symlinked directories): each poll that finds nothing doubles the wait to the next,
    from 30 s to 2 min; one that finds something, or no notices at all, brings back the interval."""
    from tui_insight.summary.store.wakeups import MAX_POLL_SECONDS, QUIET_POLL_SECONDS, next_poll

    waits, wait = [], 3.0
    for _ in range(5):
        wait = next_poll(wait, 3.0, found=False, watching=True)
        waits.append(wait)
    assert waits == [QUIET_POLL_SECONDS, 2 * QUIET_POLL_SECONDS, MAX_POLL_SECONDS, MAX_POLL_SECONDS,
                     MAX_POLL_SECONDS] == [30, 60, 120, 120, 120]
    assert next_poll(MAX_POLL_SECONDS, 3.0, found=True, watching=True) == 3.0
    assert next_poll(3.0, 3.0, found=False, watching=False) == 3.0  # polling is all there is
    assert next_poll(30.0, 300.0, found=False, watching=True) == 300.0  # never more often than asked
