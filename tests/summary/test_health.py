"""Run health (summary/queries/health.py): the headline metric and the badge rules, on logs written by our
writer and read by the cache, with a fake clock."""
from __future__ import annotations

import math
import os
from pathlib import Path

import numpy as np
import pytest
from health_logs import T0, cut_short, falling, write_scalars

from tui_insight.summary.formats.writer import SummaryWriter
from tui_insight.summary.queries import health
from tui_insight.summary.queries.health import BadgeWatch, HealthBook, JobHealth, default_headline, lower_is_better
from tui_insight.summary.store.cache import SummaryCache


def write_log(root: Path, name: str, values: dict[str, np.ndarray], seconds_per_step: float = 1.0,
              mtime: float | None = None) -> Path:
    """Steps 1..n, step k at T0 + k * seconds_per_step."""
    n = len(next(iter(values.values())))
    return write_scalars(root, name, values, T0 + n * seconds_per_step, seconds_per_step, mtime)


def load(root: Path, now: float) -> SummaryCache:
    cache = SummaryCache(str(root), clock=lambda: now)
    cache.reload()
    return cache


# -- the headline -----------------------------------------------------------------------------------------

def test_the_default_headline_is_loss_or_a_tag_ending_in_slash_loss_else_one_containing_loss():
    assert default_headline(["acc", "train/Loss", "loss"]) == "loss"
    assert default_headline(["acc", "eval/loss", "loss"]) == "eval/loss"  # the first of either
    assert default_headline(["acc", "train/Loss", "loss_scale"]) == "train/Loss"
    assert default_headline(["acc", "lr"]) is None
    assert default_headline([]) is None


def test_better_is_lower_for_losses_and_unknown_names_higher_for_accuracies():
    assert lower_is_better("loss") and lower_is_better("train/val_loss") and lower_is_better("lr")
    assert not any(lower_is_better(t) for t in ("acc", "val_acc", "metric/Accuracy", "f1_score", "auc",
                                                  "eval/precision", "recall"))


def test_a_job_reports_its_headline_last_best_change_speed(tmp_path):
    loss = falling(100)
    write_log(tmp_path, "run", {"acc": 1 - loss / 2, "loss": loss}, seconds_per_step=0.5)
    view = load(tmp_path, T0 + 10_000).job("./run")
    job = JobHealth.of(view)
    assert job.tag == "loss" and job.lower
    cells = job.cells(T0 + 10_000)
    assert cells["value"] == f"{np.float32(loss[-1]):.4g}"
    assert cells["best"] == f"{np.float32(loss.min()):.4g}@100"
    assert cells["speed"] == "2"  # steps per second
    assert cells["change"].startswith("-")
    assert cells["since"] == ""  # not live
    acc = JobHealth.of(view, "acc")
    assert not acc.lower and acc.cells(T0 + 10_000)["best"] == f"{np.float32(1 - loss.min() / 2):.4g}@100"
    missing = JobHealth.of(view, "no_such_tag")
    assert missing.digest is None and missing.cells(T0)["value"] == "-" and missing.badges(T0) == ()


# -- NaN ----------------------------------------------------------------------------------------------------

def test_a_nan_anywhere_in_the_headline_counts_even_a_step_that_sampling_dropped(tmp_path):
    loss = falling(5000)
    loss[1234] = np.nan  # step 1235: not one of the 1000 kept steps
    acc = 1 - falling(5000) / 2
    acc[10] = np.inf
    write_log(tmp_path, "run", {"loss": loss, "acc": acc})
    view = load(tmp_path, T0 + 100_000).job("./run")
    kept = view.series("scalar", "loss")
    assert 1235 not in kept.steps.tolist() and np.isfinite(kept.values).all()
    now = T0 + 100_000
    assert JobHealth.of(view).badges(now) == ("NaN",)
    assert JobHealth.of(view, "acc").badges(now) == ("NaN",)  # inf counts too
    write_log(tmp_path, "clean", {"loss": falling(5000)})
    clean = load(tmp_path, now).job("./clean")
    assert JobHealth.of(clean).badges(now) == ()


def test_nan_only_in_another_tag_is_not_a_headline_badge(tmp_path):
    lr = np.full(50, 0.1)
    lr[3] = np.nan
    write_log(tmp_path, "run", {"loss": falling(50), "lr": lr})
    view = load(tmp_path, T0 + 10_000).job("./run")
    assert JobHealth.of(view).badges(T0 + 10_000) == ()
    assert JobHealth.of(view, "lr").badges(T0 + 10_000) == ("NaN",)


# -- diverging ----------------------------------------------------------------------------------------------

@pytest.mark.parametrize("rise, diverging", [(1.8, False), (2.3, False), (3.5, True)])
def test_a_loss_that_gives_back_over_half_of_what_it_gained_is_diverging(tmp_path, rise, diverging):
    """From about 0.98 down to a best of about 0.22: back up to 0.4 (1.8x) or 0.5 (2.3x) is less
    than half the way back, 0.77 (3.5x) is more."""
    n = 200
    loss = falling(n)
    best = loss[int(n * 0.8):int(n * 0.9)].mean()
    loss[int(n * 0.9):] = best * rise  # the last tenth rose
    write_log(tmp_path, "run", {"loss": loss})
    view = load(tmp_path, T0 + 10_000).job("./run")
    assert ("diverging" in JobHealth.of(view).badges(T0 + 10_000)) is diverging


def test_an_accuracy_diverges_when_it_falls_back_over_half_its_range_and_a_loss_that_falls_does_not(tmp_path):
    n = 200
    acc = np.linspace(0.1, 0.9, n)
    acc[int(n * 0.9):] = 0.3
    write_log(tmp_path, "run", {"loss": falling(n), "acc": acc})
    view = load(tmp_path, T0 + 10_000).job("./run")
    assert JobHealth.of(view).badges(T0 + 10_000) == ()
    assert JobHealth.of(view, "acc").badges(T0 + 10_000) == ("diverging",)


def test_a_loss_that_converges_to_exactly_0_is_not_diverging(tmp_path):
    """Issue 22: a best of exactly 0 made any value above it "over twice the best"; a converged
    run then failed `--summary`."""
    n = 200
    loss = np.maximum(0.0, 1.0 - np.arange(n) / 100)  # 0 from step 100 on
    loss[int(n * 0.9)::2] = 1e-7  # the last steps: rounding noise above 0
    write_log(tmp_path, "run", {"loss": loss})
    view = load(tmp_path, T0 + 10_000).job("./run")
    assert min(view.digests["loss"].spark) == 0.0
    assert JobHealth.of(view).badges(T0 + 10_000) == ()


def test_noise_around_a_flat_trend_is_not_diverging_and_a_rise_through_it_is(tmp_path):
    rng = np.random.default_rng(22)
    n = 400
    flat = 0.5 + 0.05 * rng.standard_normal(n)  # converged early: what moves is noise
    rising = flat.copy()
    rising[int(n * 0.9):] += 1.0
    write_log(tmp_path, "flat", {"loss": flat})
    write_log(tmp_path, "rising", {"loss": rising})
    cache = load(tmp_path, T0 + 10_000)
    assert JobHealth.of(cache.job("./flat")).badges(T0 + 10_000) == ()
    assert JobHealth.of(cache.job("./rising")).badges(T0 + 10_000) == ("diverging",)


def test_a_short_run_is_not_called_diverging(tmp_path):
    write_log(tmp_path, "run", {"loss": np.array([1.0, 0.1, 0.1, 0.1, 0.1, 0.1, 0.1, 0.1, 0.1, 5.0])})
    view = load(tmp_path, T0 + 10_000).job("./run")
    assert view.digests["loss"].count < health.DIVERGE_MIN_STEPS
    assert JobHealth.of(view).badges(T0 + 10_000) == ()


def test_a_negative_loss_diverges_by_its_distance_from_the_best(tmp_path):
    n = 100
    loss = -2.0 - np.linspace(0, 1, n)  # falls to -3
    loss[int(n * 0.9):] = 0.5  # 3.4 above a best of about -2.9, over a trend range of about 0.8
    write_log(tmp_path, "run", {"loss": loss})
    view = load(tmp_path, T0 + 10_000).job("./run")
    assert JobHealth.of(view).badges(T0 + 10_000) == ("diverging",)


# -- stalled ------------------------------------------------------------------------------------------------

def test_a_live_job_stalls_after_five_step_intervals_and_is_presumed_finished_after_two_minutes(tmp_path):
    write_log(tmp_path, "run", {"loss": falling(30)}, seconds_per_step=2.0)  # last step at T0 + 60
    last = T0 + 60
    cache = SummaryCache(str(tmp_path), clock=lambda: last)
    cache.reload()
    view = cache.job("./run")
    assert view.digests["loss"].step_interval == pytest.approx(2.0)
    job = JobHealth.of(view)
    at = {dt: (job.live(last + dt), job.badges(last + dt), job.cells(last + dt)["since"])
          for dt in (9, 11, 119, 121)}
    assert at[9] == (True, (), "9s")
    assert at[11] == (True, ("stalled",), "11s")
    assert at[119] == (True, ("stalled",), "1m")
    assert at[121] == (False, (), "")  # the finish window (its floor, 2 minutes) without a write: finished
    assert job.finished(last + 121) and not job.finished(last + 119)
    assert job.next_change(last + 1) == last + 10 and job.next_change(last + 11) == last + 120
    assert job.next_change(last + 121) is None


def test_a_slow_job_stays_live_for_twenty_of_its_intervals_and_stalls_after_five(tmp_path):
    write_log(tmp_path, "run", {"loss": falling(10)}, seconds_per_step=30.0)
    last = T0 + 300
    view = load(tmp_path, last).job("./run")
    job = JobHealth.of(view)
    assert job.badges(last + 140) == () and job.live(last + 140)
    assert job.badges(last + 160) == ("stalled",) and job.badges(last + 599) == ("stalled",)
    assert job.badges(last + 601) == () and not job.live(last + 601)


def test_a_fast_job_polled_slowly_stalls_only_once_a_reload_interval_more_has_passed(tmp_path):
    """A step every 0.5 s, read every 3 s (logs over ssh): between two polls the newest step seen
    is up to 3 s old. Five intervals (2.5 s) alone flagged the job "stalled" before every poll."""
    write_log(tmp_path, "run", {"loss": falling(60)}, seconds_per_step=0.5)  # last step at T0 + 30
    last = T0 + 30
    view = load(tmp_path, last).job("./run")
    polled = JobHealth.of(view, seen_within=3.0)
    assert polled.badges(last + 3.0) == () and polled.badges(last + 5.4) == ()
    assert polled.badges(last + 5.6) == ("stalled",)  # no new step though two polls came
    assert polled.next_change(last + 1) == last + 5.5
    assert JobHealth.of(view).badges(last + 3.0) == ("stalled",)  # read as it is written: no wait
    book = HealthBook(seen_within=3.0)
    assert book.of(view).badges(last + 3.0) == ()
    assert BadgeWatch(book).update({"./run": view}, ["./run"], None, last + 3.0) == []
    # live one reload interval longer too: the next poll may bring the next change
    assert polled.live(last + 122.0) and not JobHealth.of(view).live(last + 122.0)


def test_the_interval_is_the_logging_stride_even_when_the_kept_steps_are_a_sample(tmp_path):
    n = 3000  # every 10th step for 30,000 steps, a step every 0.1 s: a record every second
    write_scalars(tmp_path, "run", {"loss": falling(n)}, T0 + n, interval=1.0, stride=10)
    view = load(tmp_path, T0 + n).job("./run")
    d = view.digests["loss"]
    assert d.count == 1000 < d.seen
    assert d.step_interval == pytest.approx(1.0)


# -- finished -----------------------------------------------------------------------------------------------

def walk(cache: SummaryCache, watch: BadgeWatch, now: list[float], until: float, step: float = 1.0):
    """Move the clock to `until` a `step` at a time, as the job list's once-a-second check does;
    every (time, job, badges) the watch announces on the way."""
    news = []
    while now[0] < until:
        now[0] += step
        news += [(now[0], job.train_id, new) for job, new in watch.tick(cache.jobs, None, now[0])]
    return news


def test_a_mindspore_run_closed_by_its_writer_is_finished_at_once_and_one_left_open_stalls(tmp_path):
    """MindSpore leaves its summary file read-only on close: that run is finished, not live, and
    never stalled or announced; a run whose writer stopped with the file still open (the process
    hung or was killed) stalls after five intervals and is announced."""
    now = [T0 + 30]
    writers = {}
    for name in ("closed", "left_open"):
        writer = writers[name] = SummaryWriter(tmp_path / name, timestamp=int(T0), wall_time=T0,
                                               read_only_on_close=name == "closed")
        for step in range(1, 31):
            writer.add_scalar("loss", float(falling(30)[step - 1]))
            writer.record(step, wall_time=T0 + step)
        writer.flush()
        os.utime(writer.path, (T0 + 30, T0 + 30))  # written as its last step was
    cache = SummaryCache(str(tmp_path), clock=lambda: now[0])
    cache.reload()
    watch = BadgeWatch()
    watch.reset(cache.jobs, None, now[0])
    assert all(JobHealth.of(view).live(now[0]) for view in cache.jobs.values())  # both open, both live
    for writer in writers.values():
        writer.close()  # the file goes read-only for "closed"; "left_open" was never closed by MindSpore
    now[0] += 1
    changes = cache.reload()
    assert "./closed" in changes.updated  # its close is news to the job list
    assert (cache.job("./closed").closed, cache.job("./left_open").closed) == (True, False)
    news = watch.update(cache.jobs, changes.updated, None, now[0]) + walk(cache, watch, now, T0 + 1000)
    assert [(tid, new) for _, tid, new in news] == [("./left_open", ("stalled",))]
    assert news[0][0] == T0 + 30 + 5  # five of its 1 s intervals after its last step
    closed = JobHealth.of(cache.job("./closed"))
    assert not closed.live(T0 + 32) and closed.finished(T0 + 32) and closed.badges(T0 + 40) == ()
    left_open = JobHealth.of(cache.job("./left_open"))
    assert left_open.live(T0 + 30 + 119) and left_open.finished(T0 + 30 + 121)  # presumed done after the window


def test_a_run_copied_after_it_ended_is_finished_not_live_or_stalled(tmp_path):
    """`cp -r` / `scp -r` without `-p` give the files the time of the copy: they changed a day
    after the run's last step, by their own clock. That is a finished run seen anew, not a live
    one that stopped; a run written up to its files' last change stays live and stalls."""
    now = T0 + 86_400
    write_log(tmp_path, "copied", {"loss": falling(30)}, mtime=now)  # steps up to T0 + 30, copied a day later
    write_log(tmp_path, "running", {"loss": falling(30)}, mtime=T0 + 30)
    cache = load(tmp_path, now)
    copied = JobHealth.of(cache.job("./copied"))
    assert not copied.live(now) and copied.finished(now) and copied.badges(now + 10) == ()
    running = JobHealth.of(cache.job("./running"))
    assert running.live(T0 + 40) and running.badges(T0 + 40) == ("stalled",)


def test_a_tensorboardx_run_that_finishes_normally_is_never_announced_and_is_finished_after_the_window(tmp_path):
    """tensorboardX leaves nothing on close (and writes its buffer only every 120 s while
    training): a run that ended looks like one that stopped until the finish window passes. Its
    `stalled` badge is shown in that time, never announced; then it is finished."""
    from tensorboardX import SummaryWriter as TensorBoardXWriter

    with TensorBoardXWriter(str(tmp_path / "run")) as writer:
        for step in range(1, 31):
            writer.add_scalar("loss", float(falling(30)[step - 1]), step, walltime=T0 + 2 * step)
    last = T0 + 60
    for path in (tmp_path / "run").iterdir():
        os.utime(path, (last, last))
    now = [last + 1]
    cache = SummaryCache(str(tmp_path), clock=lambda: now[0])
    cache.reload()
    job = JobHealth.of(cache.job("./run"))
    assert job.closed is None and job.buffered
    watch = BadgeWatch()
    watch.reset(cache.jobs, None, now[0])
    assert walk(cache, watch, now, last + 3600) == []
    assert job.badges(last + 10 + 119) == () and job.badges(last + 10 + 121) == ("stalled",)  # 5 intervals + 120 s
    assert job.live(last + 239) and job.finished(last + 241)  # the window: 120 s, and 120 s for the writer's buffer
    assert job.badges(last + 241) == ()


# -- from the job's state -----------------------------------------------------------------------------------

def test_truncated_and_corrupt_come_from_the_state(tmp_path):
    cut_short(write_log(tmp_path, "cut", {"loss": falling(30)}), T0)
    bad = write_log(tmp_path, "bad", {"loss": falling(30)})
    path = next(bad.iterdir())
    data = bytearray(path.read_bytes())
    data[len(data) // 2] ^= 0xFF
    path.write_bytes(bytes(data))
    os.utime(path, (T0 + 30, T0 + 30))
    now = T0 + 3600
    cache = load(tmp_path, now)
    assert JobHealth.of(cache.job("./cut")).badges(now) == ("truncated",)
    assert cache.job("./bad").state.startswith("corrupt")
    bad_health = JobHealth.of(cache.job("./bad"))
    assert bad_health.badges(now) == ("corrupt",)
    assert bad_health.cells(now)["health"] == ""  # the state column says it


# -- the watch that announces badges ------------------------------------------------------------------------

def test_the_watch_announces_badges_that_appear_not_the_ones_a_job_started_with(tmp_path):
    loss = falling(40)
    loss[5] = np.nan
    write_log(tmp_path, "had_nan", {"loss": loss}, mtime=T0 - 3600)  # not live: it cannot stall
    run = write_log(tmp_path, "run", {"loss": falling(40)}, seconds_per_step=1.0)
    now = [T0 + 40]
    cache = SummaryCache(str(tmp_path), clock=lambda: now[0])
    cache.reload()
    watch = BadgeWatch()
    watch.reset(cache.jobs, None, now[0])
    assert watch.tick(cache.jobs, None, now[0]) == []
    with SummaryWriter(run, timestamp=int(T0) + 100, wall_time=T0 + 41) as writer:
        writer.add_scalar("loss", math.nan)
        writer.record(41, wall_time=T0 + 41)
    for path in run.iterdir():  # dated by the writer's clock, as its steps are
        os.utime(path, (T0 + 41, T0 + 41))
    now[0] = T0 + 41
    changes = cache.reload()
    news = watch.update(cache.jobs, changes.updated, None, now[0])
    assert [(job.train_id, new) for job, new in news] == [("./run", ("NaN",))]
    assert "./run: a NaN or infinite value in loss" == health.notice(news[0][0], news[0][1], now[0])
    assert watch.update(cache.jobs, ["./run", "./had_nan"], None, now[0]) == []  # said once
    now[0] = T0 + 41 + 6  # no new step for 6 intervals: the clock alone brings "stalled"
    news = watch.tick(cache.jobs, None, now[0])
    assert [(job.train_id, new) for job, new in news] == [("./run", ("stalled",))]
    assert health.notice(news[0][0], news[0][1], now[0]) == "./run: stalled: no new step of loss for 6s"


@pytest.mark.parametrize("skew", [-7200.0, -30.0, 0.0, 30.0, 7200.0])
def test_a_skewed_writers_clock_neither_stalls_a_job_nor_hides_a_stall(tmp_path, skew):
    """Logs from a host whose clock is `skew` seconds ahead of this one (behind when negative):
    the steps' wall times and the files' mtimes are both on its clock. Once the cache has seen
    the files change, a job that keeps stepping is never stalled and one that stops stalls
    after five of its intervals, by this clock, and says so with the true time since its step."""
    run = write_log(tmp_path, "run", {"loss": falling(30)}, seconds_per_step=2.0)  # steps 1..30, last at T0 + 60
    for path in run.iterdir():
        os.utime(path, (T0 + 60 + skew, T0 + 60 + skew))
    now = [T0 + 61]
    cache = SummaryCache(str(tmp_path), clock=lambda: now[0])
    cache.reload()
    with SummaryWriter(run, timestamp=int(T0) + 100, wall_time=T0 + 62 + skew) as writer:  # step 31, by its clock
        writer.add_scalar("loss", 0.1)
        writer.record(31, wall_time=T0 + 62 + skew)
    for path in run.iterdir():
        os.utime(path, (T0 + 62 + skew, T0 + 62 + skew))
    now[0] = T0 + 63  # seen a second after it was written
    cache.reload()
    job = JobHealth.of(cache.job("./run"))
    at = {dt: (job.live(T0 + 62 + dt), job.badges(T0 + 62 + dt), job.cells(T0 + 62 + dt)["since"])
          for dt in (3, 9, 12, 59)}
    # The change was seen a second after it was written: this clock reads the step a second late.
    assert at[3] == (True, (), "2s") and at[9] == (True, (), "8s")
    assert at[12] == (True, ("stalled",), "11s") and at[59] == (True, ("stalled",), "58s")
    assert not job.live(T0 + 63 + 121)


@pytest.mark.parametrize("skew", [-30.0, 0.0, 30.0])
def test_a_jobs_health_works_out_its_clock_once_and_says_what_the_rules_say_at_every_moment(tmp_path, skew):
    """`JobHealth` keeps when a job stops being live and when it stalls (the job list asks
    thousands of them several times): its badges, liveness and next change agree with the rules'
    functions from before the stall to long after the job stopped being live."""
    run = write_log(tmp_path, "run", {"loss": falling(30)}, seconds_per_step=2.0)  # last step at T0 + 60
    for path in run.iterdir():
        os.utime(path, (T0 + 60 + skew, T0 + 60 + skew))
    cache = SummaryCache(str(tmp_path), clock=lambda: T0 + 61)
    cache.reload()
    job = JobHealth.of(cache.job("./run"))
    changed = job.changed_at if job.changed_at is not None else job.update_time
    live_end = health.live_until(changed, job.digest)
    stall = health.stalls_at(job.digest, job.update_time - changed)
    for now in np.arange(T0 + 55, T0 + 200, 0.5):
        assert job.badges(now) == health.badges(job.digest, now, job.state, job.update_time, job.lower, job.changed_at)
        assert job.live(now) == (now < live_end)
        later = [t for t in (live_end, stall) if t is not None and t > now]
        assert job.next_change(now) == (min(later) if later else None)
    assert job.badges(T0 + 80) == ("stalled",) and job.badges(T0 + 200) == ()


def test_the_book_computes_a_jobs_health_once_per_view_and_headline(tmp_path):
    run = write_log(tmp_path, "run", {"loss": falling(40), "acc": falling(40)})
    now = T0 + 40
    cache = load(tmp_path, now)
    book = HealthBook()
    view = cache.jobs["./run"]
    first = book.of(view)
    assert first == JobHealth.of(view) and book.of(view) is first  # the same view: the same health
    assert book.of(view, "acc") == JobHealth.of(view, "acc") != first  # another headline: computed
    with SummaryWriter(run, timestamp=int(T0) + 100, wall_time=now + 1) as writer:
        writer.add_scalar("loss", 5.0)
        writer.record(41, wall_time=now + 1)
    cache.reload()
    newer = cache.jobs["./run"]
    assert newer is not view and book.of(newer) == JobHealth.of(newer) != first  # a new version
    watch = BadgeWatch(book)
    watch.reset(cache.jobs, None, now)
    assert book.of(newer) is book.of(newer) and watch.book is book


def test_stalled_takes_its_place_among_the_badges_that_last():
    assert health.with_stall(("NaN", "diverging", "truncated"), True) == ("NaN", "diverging", "stalled", "truncated")
    assert health.with_stall(("corrupt",), True) == ("stalled", "corrupt")
    assert health.with_stall(("NaN",), False) == ("NaN",) and health.with_stall((), True) == ("stalled",)
    assert all(health.with_stall(tuple(b for b in health.BADGES if b != "stalled" and b in kept), True)
               == tuple(b for b in health.BADGES if b in kept or b == "stalled")
               for kept in (set(), {"NaN"}, {"diverging", "corrupt"}, {"NaN", "diverging", "truncated"}))


def test_numbers_are_short():
    assert [health.compact(v) for v in (0.213456, 1234.5, 123456.0, 0.0000123, 0.0, math.nan, -math.inf)] == [
        "0.2135", "1234", "1.23e+05", "1.23e-05", "0", "nan", "-inf"]
    assert [health.signed(v) for v in (0.5, -0.25, 0.0, math.nan)] == ["+0.5", "-0.25", "0", "nan"]
    assert [health.age(s) for s in (5, 125, 7300, 200_000)] == ["5s", "2m", "2h", "2d"]


def test_infinities_at_both_ends_give_a_nan_change_without_a_warning(tmp_path, recwarn):
    """inf - inf: the change over the last 10% is NaN, said silently (a numpy warning would be
    printed by `--summary` and `--export`)."""
    loss = falling(100)
    loss[[90, 99]] = np.inf  # the first of the last 10% of steps, and the last
    write_log(tmp_path, "run", {"loss": loss})
    view = load(tmp_path, T0 + 1000).job("./run")
    assert math.isnan(view.digests["loss"].recent_change)
    assert JobHealth.of(view).metric_cells()["change"] == "nan"
    assert not [w for w in recwarn if issubclass(w.category, RuntimeWarning)]


class LookedAt(dict):
    """Jobs' views that note which jobs were looked up."""

    def __init__(self, *args):
        super().__init__(*args)
        self.looked: list[str] = []

    def get(self, key, default=None):
        self.looked.append(key)
        return super().get(key, default)


def test_the_clock_looks_at_a_live_job_only_when_its_badges_can_change(tmp_path):
    """Once a second, every live job was looked at again: thousands in a live sweep."""
    last = T0 + 60  # a step every 2 s: stalled from last + 10, finished from last + 120
    write_log(tmp_path, "live", {"loss": falling(30)}, seconds_per_step=2.0)
    write_scalars(tmp_path, "old", {"loss": falling(30)}, last - 3600, 2.0, last - 3600)  # finished an hour ago
    views = LookedAt(load(tmp_path, last).jobs)
    watch = BadgeWatch()
    watch.reset(views, None, last)
    views.looked.clear()
    for second in range(1, 10):
        watch.tick(views, None, last + second)
    assert views.looked == []
    watch.tick(views, None, last + 10)
    assert views.looked == ["./live"]  # it stalls now
    for second in range(11, 300):
        watch.tick(views, None, last + second)
    assert views.looked == ["./live", "./live"]  # and it is finished from 2 minutes on
