"""First loads in worker processes: the same views as one process; a worker that dies is said
and its jobs read again; special files do not block the pool."""
import multiprocessing
import os
import subprocess
import sys
import threading
from pathlib import Path

import pytest
from sweep_logs import contents, loaded_reference, row, write_sweep

from tui_insight.summary.store.cache import SummaryCache
from tui_insight.summary.store.disk_cache import DiskCache

RUNS = 12  # a pool is used for passes of at least pool.MIN_JOBS jobs


def same_as_plain(cache, logs) -> None:
    reference = loaded_reference(logs)
    assert list(cache.jobs) == list(reference.jobs)
    for tid, view in reference.jobs.items():
        assert row(cache.job(tid)) == row(view)
        assert contents(cache.details(tid)) == contents(view) and contents(view)


@pytest.fixture(scope="module")
def sweep(tmp_path_factory):
    logs = tmp_path_factory.mktemp("sweep")
    write_sweep(logs, RUNS, steps=1200)
    return logs


def test_a_pooled_load_gives_what_one_process_gives(sweep, tmp_path):
    cache = SummaryCache(str(sweep), workers=2, disk_cache=DiskCache(tmp_path / "cache"))
    heard = []
    cache.subscribe(lambda changes: heard.extend(changes.updated))
    try:
        cache.reload()
    finally:
        cache.stop()
    assert sorted(heard) == sorted(cache.jobs)  # each job published once, as it arrived
    assert cache.progress.bytes_read == sum(os.path.getsize(f) for v in cache.jobs.values() for f in v.files)
    assert len(list((tmp_path / "cache" / "snapshots").iterdir())) == RUNS  # and saved for the next start
    same_as_plain(cache, sweep)  # the series read back from there
    assert not cache.problems and all(not view.problems for view in cache.jobs.values())


def test_the_entries_a_pooled_load_wrote_list_every_job_at_the_next_start(sweep, tmp_path):
    """The workers write the jobs' entries; their headers reach the index: the next start (one
    process) lists every job from there and reads no byte of the logs, with the same views."""
    first = SummaryCache(str(sweep), workers=2, disk_cache=DiskCache(tmp_path / "cache"))
    try:
        first.reload()
    finally:
        first.stop()
    assert not list((tmp_path / "cache" / "snapshots").glob(".tmp-*"))  # each written whole, renamed into place
    warm = SummaryCache(str(sweep), disk_cache=DiskCache(tmp_path / "cache"))
    warm.reload()
    assert warm.progress.bytes_read == 0 and len(warm.jobs) == RUNS
    same_as_plain(warm, sweep)
    assert not warm.problems


def test_a_pooled_load_writes_its_index_without_decoding_the_headers_again(sweep, tmp_path, monkeypatch):
    """The app's process decodes each header the workers send back once, to list the job; the
    index is written from that (a cold sweep of 5,000 jobs decoded each again at its end), and
    holds what an index written by one process holds."""
    from tui_insight.summary.store import disk_cache, snapshot

    decoded = []
    real_decode = snapshot.decode
    monkeypatch.setattr(snapshot, "decode", lambda *a, **k: decoded.append(a) or real_decode(*a, **k))
    pooled = SummaryCache(str(sweep), workers=2, disk_cache=DiskCache(tmp_path / "pooled"))
    try:
        pooled.reload()
    finally:
        pooled.stop()
    assert decoded == []  # (the pass decodes through the module it imported; only the index's writing comes here)
    plain = SummaryCache(str(sweep), disk_cache=DiskCache(tmp_path / "plain"))
    plain.reload()
    # (the jobs' headers; the directory listings kept beside them depend on when each pass ran)
    headers = [disk_cache._read_index(next((tmp_path / kind / "index").iterdir()))[2] for kind in ("pooled", "plain")]
    assert len(headers[0]) == RUNS and headers[0] == headers[1]


def test_the_entries_the_workers_write_are_those_one_process_writes(sweep, tmp_path):
    """A worker writes its job's entry in pieces (header, table, columns), not joined first:
    byte for byte the entry the app's own process writes for the same job."""
    pooled = SummaryCache(str(sweep), workers=2, disk_cache=DiskCache(tmp_path / "pooled"))
    try:
        pooled.reload()
    finally:
        pooled.stop()
    plain = SummaryCache(str(sweep), disk_cache=DiskCache(tmp_path / "plain"))
    try:
        plain.reload()
    finally:
        plain.stop()
    entries = {kind: {p.name: p.read_bytes() for p in (tmp_path / kind / "snapshots").iterdir()}
               for kind in ("pooled", "plain")}
    assert len(entries["pooled"]) == RUNS and entries["pooled"] == entries["plain"]


def test_a_worker_that_dies_is_reported_and_its_jobs_read_again(sweep):
    cache = SummaryCache(str(sweep), workers=2)
    killed = []

    def kill_the_workers(changes):
        # On the loading thread, after the first job arrived: more are in the pool or waiting.
        if changes.updated and not killed:
            killed.extend(multiprocessing.active_children())
            for process in killed:
                process.kill()

    cache.subscribe(kill_the_workers)
    try:
        cache.reload()
    finally:
        cache.stop()
    assert killed
    assert any("loading process died" in p for p in cache.problems)
    affected = [tid for tid, view in cache.jobs.items() if any("loading process died" in p for p in view.problems)]
    assert affected
    assert all(view.loaded for view in cache.jobs.values())
    same_as_plain(cache, sweep)  # every job, lost or not, as a plain load reads it


def test_a_fifo_named_like_a_summary_file_does_not_block_a_pooled_load(sweep, tmp_path):
    logs = tmp_path / "logs"
    write_sweep(logs, RUNS, steps=50)
    os.mkfifo(logs / "run_03" / "events.out.events.summary.1800000000.0.localhost_MS")
    (logs / "fifo_only").mkdir()
    os.mkfifo(logs / "fifo_only" / "events.out.events.summary.1.0.localhost_MS")
    cache = SummaryCache(str(logs), workers=2, disk_cache=DiskCache(tmp_path / "cache"))
    done = threading.Event()
    thread = threading.Thread(target=lambda: (cache.reload(), done.set()), daemon=True)
    thread.start()
    try:
        assert done.wait(60), "the load blocked"
    finally:
        cache.stop()
    assert "./fifo_only" not in cache.jobs
    assert all(view.state == "ok" for view in cache.jobs.values())
    assert len(cache.job("./run_03").summary_files) == 1


def test_the_workers_read_with_this_package_whatever_the_current_directory_holds(sweep, tmp_path):
    """The workers' processes are forked from a server started with the current directory first
    on its path: one holding another `tui_insight` (an old checkout) is never what they read with.
    Run in a process of its own (the server is started once per process)."""
    decoy = tmp_path / "decoy"
    for package in ("tui_insight", "tui_insight/summary", "tui_insight/summary/store"):
        (decoy / package).mkdir(parents=True)
        (decoy / package / "__init__.py").write_text("")
    (decoy / "tui_insight/summary/store/loader.py").write_text("")
    script = (
        "from tui_insight.summary.store.cache import SummaryCache\n"
        "if __name__ == '__main__':\n"
        f"    cache = SummaryCache({str(sweep)!r}, workers=2)\n"
        "    cache.reload()\n"
        "    cache.stop()\n"
        "    print(len(cache.jobs), sorted({p for v in cache.jobs.values() for p in v.problems}))\n"
    )
    (tmp_path / "load.py").write_text(script)
    root = str(Path(__file__).resolve().parents[2])
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([root, os.environ.get("PYTHONPATH", "")])}
    done = subprocess.run([sys.executable, str(tmp_path / "load.py")], cwd=decoy, env=env,
                          capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr[-2000:]
    assert done.stdout.split("\n")[0] == f"{RUNS} []", done.stdout


def discovery_watched(monkeypatch, waits: list[float]) -> list[int]:
    """How many loading processes were alive when each discovery ended, waiting up to the next
    of `waits` (seconds) for the first (a walk of a few runs is over in a moment)."""
    from tui_insight.summary.sources.local import LocalSource

    seen: list[int] = []
    discover = LocalSource.discover

    def watched(self, *args, **kwargs):
        found = discover(self, *args, **kwargs)
        for _ in range(int(waits[min(len(seen), len(waits) - 1)] / 0.05)):
            if multiprocessing.active_children():
                break
            threading.Event().wait(0.05)
        seen.append(len(multiprocessing.active_children()))
        return found

    monkeypatch.setattr(LocalSource, "discover", watched)
    return seen


def test_a_cold_load_of_many_runs_starts_its_processes_before_discovery_ends(sweep, tmp_path, monkeypatch):
    """The workers of a cold first load of a LOGDIR of many directories start when asked
    (`start_processes`, the app's after its first paint: their start overlaps discovery); a
    start with the disk cache's index of LOGDIR (warm: nothing to read) starts none, and no
    process is left once a pass ends."""
    seen = discovery_watched(monkeypatch, [20, 0.5])
    cold = SummaryCache(str(sweep), workers=2, disk_cache=DiskCache(tmp_path / "cache"))
    try:
        cold.start_processes()
        cold.reload()
        assert not multiprocessing.active_children()  # closed with the pass
    finally:
        cold.stop()
    warm = SummaryCache(str(sweep), workers=2, disk_cache=DiskCache(tmp_path / "cache"))
    try:
        warm.start_processes()
        warm.reload()
    finally:
        warm.stop()
    assert seen[0] >= 1 and seen[1:] == [0]
    assert warm.progress.bytes_read == 0
    same_as_plain(cold, sweep)


def test_the_processes_wait_to_be_asked_and_never_start_after_the_first_pass(sweep, tmp_path):
    """Making the cache starts no loading process (they would take the cores from the app's
    imports and first paint); `start_processes` after the first pass ended starts none either
    (idle processes would wait for a pass that may never come), and reading is the same."""
    cache = SummaryCache(str(sweep), workers=2)  # (no disk cache: every start is cold)
    try:
        threading.Event().wait(0.3)
        assert not multiprocessing.active_children()
        cache.reload()
        cache.start_processes()
        threading.Event().wait(0.3)
        assert not multiprocessing.active_children()
    finally:
        cache.stop()
    same_as_plain(cache, sweep)


def test_processes_started_for_a_load_with_nothing_to_send_them_are_closed(tmp_path, monkeypatch):
    """Directories without a job (and too few jobs for the pool) at the top of a cold LOGDIR:
    the processes started ahead are closed when the first pass ends."""
    seen = discovery_watched(monkeypatch, [20])
    write_sweep(tmp_path / "logs", 2, steps=20)
    for k in range(10):
        (tmp_path / "logs" / f"empty_{k}").mkdir()
    cache = SummaryCache(str(tmp_path / "logs"), workers=2)
    try:
        cache.start_processes()
        cache.reload()
        assert not multiprocessing.active_children()
    finally:
        cache.stop()
    assert seen[0] >= 1  # (started: the second may still be on its way)
    assert len(cache.jobs) == 2 and all(view.loaded for view in cache.jobs.values())


def test_until_the_pool_answers_the_pass_reads_jobs_itself(sweep, tmp_path, monkeypatch):
    """The pass sends the pool its first tasks (a job each, two per worker); until one of them
    is answered (the processes start: ~0.3 s on 2 cores), the jobs that find the queue full are
    read in the cache's own process instead of waiting. Here the pool's answers are held until
    the rest was published: every job but the four sent, with the same views in the end."""
    from concurrent.futures import Future

    from tui_insight.summary.store.pool import JobPool

    release = threading.Event()
    submit = JobPool.submit

    def held(self, batch):
        future, generation = submit(self, batch)
        answer: Future = Future()

        def forward():
            release.wait(60)
            try:
                answer.set_result(future.result())
            except Exception as exc:  # noqa: BLE001 (handed on as the pool's own answer)
                answer.set_exception(exc)
        threading.Thread(target=forward, daemon=True).start()
        return answer, generation

    monkeypatch.setattr(JobPool, "submit", held)
    cache = SummaryCache(str(sweep), workers=2, disk_cache=DiskCache(tmp_path / "cache"))
    before: set[str] = set()
    cache.subscribe(lambda changes: None if release.is_set() else before.update(
        tid for tid in changes.updated if cache.job(tid) is not None and cache.job(tid).loaded))
    loading = threading.Thread(target=cache.reload)
    loading.start()
    for _ in range(600):  # (at most 30 s; without the rule nothing comes before the release)
        if len(before) >= RUNS - 4:
            break
        threading.Event().wait(0.05)
    release.set()
    loading.join(120)
    cache.stop()
    assert len(before) == RUNS - 4
    same_as_plain(cache, sweep)
