"""`--all-steps` applies the restart rules the screens' store applies (issue 22): a TensorBoard
`purge_step` restart, a resume that rewrites steps in a newer file without it, several files
per run, and a MindSpore resume as MindInsight treats it (compat §3.8). Logs are written by
tensorboardX and by the repository's MindSpore writer; each run stays under the store's step
limits, so the store keeps every step it does not drop and both exports must hold the same
rows, file by file."""
from __future__ import annotations

import csv
from pathlib import Path

import numpy as np
import pytest

from tui_insight.export import export_snapshot
from tui_insight.summary.queries.distributions import BP_COLUMNS
from tui_insight.summary.formats.writer import SummaryWriter
from tui_insight.summary.store.cache import SummaryCache

KINDS = ("scalars", "histograms", "tensors", "images", "text")
T0 = 1_700_000_000


def rows(out: Path, kind: str) -> list[list[str]]:
    with open(out / f"{kind}.csv", newline="", encoding="utf-8") as fh:
        return list(csv.reader(fh))[1:]


def exports(logdir: Path, tmp_path: Path) -> tuple[SummaryCache, Path, Path]:
    """The store of `logdir`, and its export as the store holds it and with every step."""
    cache = SummaryCache(str(logdir))
    cache.reload()
    export_snapshot(cache, tmp_path / "cached")
    export_snapshot(cache, tmp_path / "every", all_steps=True)
    return cache, tmp_path / "cached", tmp_path / "every"


def assert_same_rows(cached: Path, every: Path) -> None:
    for kind in KINDS:
        assert rows(every, kind) == rows(cached, kind), kind


def scalar_rows(out: Path, tag: str) -> list[tuple[int, float]]:
    return [(int(r[2]), float(r[4])) for r in rows(out, "scalars") if r[1] == tag]


# -- TensorBoard, written by tensorboardX ----------------------------------------------------------

def tbx_write(run: Path, steps, name_time: int, purge_step: int | None = None, base: float = 0.0) -> None:
    """One tensorboardX writer (one file, renamed to a fixed name: files are read in name order):
    a scalar, a histogram, an image and a text at each step; values `base + step`."""
    from tensorboardX import SummaryWriter as TBXWriter

    before = set(run.iterdir()) if run.exists() else set()
    rng = np.random.default_rng(name_time)
    with TBXWriter(logdir=str(run), purge_step=purge_step) as writer:
        for step in steps:
            wall = T0 + base + step
            writer.add_scalar("loss", base + step, step, walltime=wall)
            writer.add_histogram("weights", rng.normal(base + step, 1.0, 200), step, walltime=wall)
            writer.add_image("sample", np.full((3, 4, 6), step % 256, dtype=np.uint8), step, walltime=wall)
            writer.add_text("note", f"step {step}, written {'again' if base else 'first'}", step, walltime=wall)
    (new,) = set(run.iterdir()) - before
    new.rename(run / f"events.out.tfevents.{name_time}.test")


def test_purge_step_restart_drops_the_steps_after_it_in_every_kind(tmp_path):
    run = tmp_path / "logs" / "run"
    tbx_write(run, range(10), T0)
    tbx_write(run, range(5, 8), T0 + 100, purge_step=5, base=100.0)
    cache, cached, every = exports(tmp_path / "logs", tmp_path)
    assert scalar_rows(every, "loss") == [(s, float(s)) for s in range(5)] + [(s, 100.0 + s) for s in range(5, 8)]
    series = cache.jobs["./run"].series("scalar", "loss")
    assert series.steps.tolist() == [s for s, _ in scalar_rows(every, "loss")]
    assert_same_rows(cached, every)
    texts = [r[4] for r in rows(every, "text")]
    assert texts == [f"step {s}, written first" for s in range(5)] + [f"step {s}, written again" for s in range(5, 8)]
    assert [int(r[2]) for r in rows(every, "images")] == list(range(8))


def test_a_resume_without_purge_step_replaces_the_steps_it_writes_again(tmp_path):
    """A second file (later in name order) writing steps 5..7 again: the first file's 5..9 go
    (its 8 and 9 too: a newer file's smaller step rolls the older file's later steps back)."""
    run = tmp_path / "logs" / "run"
    tbx_write(run, range(10), T0)
    tbx_write(run, range(5, 8), T0 + 100, base=100.0)
    _, cached, every = exports(tmp_path / "logs", tmp_path)
    assert scalar_rows(every, "loss") == [(s, float(s)) for s in range(5)] + [(s, 100.0 + s) for s in range(5, 8)]
    assert_same_rows(cached, every)
    histogram_steps = sorted({int(r[2]) for r in rows(every, "histograms")})
    assert histogram_steps == list(range(8))


def test_several_files_per_run_each_continuing_the_last_keep_every_step(tmp_path):
    run = tmp_path / "logs" / "run"
    for i in range(3):
        tbx_write(run, range(4 * i, 4 * i + 4), T0 + 100 * i)
    _, cached, every = exports(tmp_path / "logs", tmp_path)
    assert scalar_rows(every, "loss") == [(s, float(s)) for s in range(12)]
    for kind in ("scalars", "histograms", "text"):
        assert rows(every, kind) == rows(cached, kind), kind
    images = rows(every, "images")  # the store keeps 10 steps of an image tag: some of these
    assert [int(r[2]) for r in images] == list(range(12))
    assert all(r in images for r in rows(cached, "images"))


# -- MindSpore, written by the repository's writer ------------------------------------------------------

def ms_write(directory: Path, timestamp: int, steps, base: float) -> None:
    rng = np.random.default_rng(timestamp)
    writer = SummaryWriter(directory, timestamp=timestamp)
    for step in steps:
        writer.add_scalar("loss", base + step)
        writer.add_histogram("weights", rng.normal(base + step, 1.0, 100))
        writer.add_tensor("activations", np.full((2, 3), base + step, dtype=np.float32))
        writer.add_image("input", np.full((1, 3, 4, 4), step % 256, dtype=np.uint8))
        writer.record(step, wall_time=T0 + base + step)
    writer.close()


def test_mindspore_resume_in_a_newer_file_as_mindinsight_treats_it(tmp_path):
    """Compat §3.8, verified case: file A (ts 100) holds steps 1-10, file B (ts 200) steps 5-7:
    1-4 from A and 5-7 from B; A's 8-10 are gone."""
    run = tmp_path / "logs" / "run"
    ms_write(run, 100, range(1, 11), 0.0)
    ms_write(run, 200, range(5, 8), 100.0)
    _, cached, every = exports(tmp_path / "logs", tmp_path)
    expected = [(s, float(s)) for s in range(1, 5)] + [(s, 100.0 + s) for s in range(5, 8)]
    assert scalar_rows(every, "loss") == expected
    assert [int(r[2]) for r in rows(every, "tensors")] == list(range(1, 8))
    assert [float(r[9]) for r in rows(every, "tensors")] == [v for _, v in expected]  # avg
    assert_same_rows(cached, every)


def test_mindspore_step_written_again_in_one_file_is_replaced_and_the_later_steps_stay(tmp_path):
    """Compat §3.8, verified case: one file holding 1-10 and then step 5 again."""
    run = tmp_path / "logs" / "run"
    rng = np.random.default_rng(0)
    writer = SummaryWriter(run, timestamp=100)
    for step, value in [*((s, float(s)) for s in range(1, 11)), (5, 105.0)]:
        writer.add_scalar("loss", value)
        writer.add_histogram("weights", rng.normal(value, 1.0, 100))
        writer.record(step, wall_time=T0 + step)
    writer.close()
    _, cached, every = exports(tmp_path / "logs", tmp_path)
    assert scalar_rows(every, "loss") == [(s, 105.0 if s == 5 else float(s)) for s in range(1, 11)]
    assert_same_rows(cached, every)


@pytest.mark.parametrize("narrowed", [False, True])
def test_restart_rules_hold_for_a_narrowed_export_too(tmp_path, narrowed):
    """The dialog's export of one view goes through the same path."""
    run = tmp_path / "logs" / "run"
    tbx_write(run, range(10), T0)
    tbx_write(run, range(5, 8), T0 + 100, purge_step=5, base=100.0)
    cache = SummaryCache(str(tmp_path / "logs"))
    cache.reload()
    scope = {"plugins": {"scalar"}, "tags": {("scalar", "loss")}} if narrowed else {}
    export_snapshot(cache, tmp_path / "out", all_steps=True, **scope)
    assert [s for s, _ in scalar_rows(tmp_path / "out", "loss")] == list(range(8))


def test_a_file_gone_since_the_store_read_it_is_said_in_problems_csv(tmp_path):
    run = tmp_path / "logs" / "run"
    ms_write(run, 100, range(1, 4), 0.0)
    ms_write(run, 200, range(4, 6), 0.0)
    cache = SummaryCache(str(tmp_path / "logs"))
    cache.reload()
    gone = next(run.glob("*summary.200*"))
    gone.unlink()
    export_snapshot(cache, tmp_path / "out", all_steps=True)
    assert [s for s, _ in scalar_rows(tmp_path / "out", "loss")] == [1, 2, 3]
    problems = rows(tmp_path / "out", "problems")
    assert [p[0] for p in problems] == ["./run"]
    assert problems[0][1].startswith(f"{gone.name}: not read to its end (No such file or directory)")


def test_histograms_of_many_steps_across_a_restart_are_the_apis_rows(tmp_path):
    """An all-steps export formats a tag's histograms a batch of steps at a time: a run of
    several batches, restarted (purge_step) inside one, gives the rows the public API reads
    step by step: the same steps, edges, widths and counts, and the same basis points."""
    import tui_insight

    run = tmp_path / "logs" / "run"
    tbx_write(run, range(700), T0)
    tbx_write(run, range(300, 320), T0 + 100, purge_step=300, base=100.0)
    cache = SummaryCache(str(tmp_path / "logs"))
    cache.reload()
    export_snapshot(cache, tmp_path / "every", all_steps=True)
    with tui_insight.open(tmp_path / "logs") as logs:
        buckets = logs.histograms(all_steps=True, output="table").records()
        points = logs.distributions(all_steps=True, output="table").records()
    got = rows(tmp_path / "every", "histograms")
    assert sorted({int(r[2]) for r in got}) == list(range(320))
    assert got == [[r["job"], r["tag"], str(r["step"]), repr(r["wall_time"]), repr(r["left"]), repr(r["width"]),
                    str(r["count"])] for r in buckets]
    assert rows(tmp_path / "every", "distributions") == [
        [r["job"], r["tag"], str(r["step"]), repr(r["wall_time"]), r["kind"], *(repr(r[c]) for c in BP_COLUMNS)]
        for r in points]
