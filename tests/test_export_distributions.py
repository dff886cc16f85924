"""Distributions in the exports (issue 26): distributions.csv, `Logdir.distributions` and
distributions.parquet carry a row per step of each histogram and tensor tag with TensorBoard's
nine basis-point values (the query is tested against TensorBoard in
tests/summary/test_distributions.py); here, on logs written by the writers, each export holds
the query's values for every kept step, and the three agree."""
from __future__ import annotations

import csv
from pathlib import Path

import numpy as np
import pyarrow.parquet as pq
import pytest

import tui_insight
from tui_insight.export import HEADERS, export_snapshot
from tui_insight.export_parquet import export_parquet
from tui_insight.summary.formats.writer import SummaryWriter
from tui_insight.summary.queries.distributions import BP_COLUMNS, histogram_distribution, tensor_distribution
from tui_insight.summary.store.cache import SummaryCache

T0 = 1_700_000_000.0


def write_logs(root: Path) -> Path:
    """Two runs: histograms "w" and "b", a tensor "t", and a tensor that is also named "w"."""
    rng = np.random.default_rng(3)
    for name, shift in (("a", 0.0), ("b", 2.0)):
        with SummaryWriter(root / name, timestamp=int(T0), wall_time=T0) as writer:
            for step in range(0, 60, 10):
                writer.add_histogram("w", rng.normal(shift + step * 0.01, 1.0, 300))
                writer.add_histogram("b", rng.exponential(1.0 + step * 0.1, 80))
                writer.add_tensor("t", rng.normal(shift, 2.0, (4, 6)).astype(np.float32))
                writer.add_tensor("w", np.arange(12, dtype=np.float32).reshape(3, 4) * (step + 1))
                writer.record(step, wall_time=T0 + step)
    return root


def read_csv(path: Path) -> list[dict]:
    with open(path, newline="", encoding="utf-8") as fh:
        return list(csv.DictReader(fh))


def expected_rows(cache: SummaryCache) -> list[tuple]:
    """(job, tag, step, kind, values) of every kept step, from the query."""
    rows = []
    for train_id in sorted(cache.jobs):
        view = cache.job(train_id)
        for kind, query in (("histogram", histogram_distribution), ("tensor", tensor_distribution)):
            for tag in view.tag_names(kind):
                dist = query(cache, view, tag)
                rows += [(train_id, tag, int(dist.steps[i]), kind, tuple(dist.values[i])) for i in range(len(dist))]
    return rows


@pytest.fixture
def logs(tmp_path) -> Path:
    return write_logs(tmp_path / "logs")


@pytest.mark.parametrize("all_steps", [False, True], ids=["kept", "all_steps"])
def test_distributions_csv_holds_the_querys_values_for_every_step(logs, tmp_path, all_steps):
    cache = SummaryCache(str(logs))
    cache.reload()
    export_snapshot(cache, tmp_path / "out", all_steps=all_steps)
    rows = read_csv(tmp_path / "out" / "distributions.csv")
    assert list(rows[0]) == HEADERS["distributions"] == ["train_id", "tag", "step", "wall_time", "kind", *BP_COLUMNS]
    assert BP_COLUMNS == ("bp_0", "bp_668", "bp_1587", "bp_3085", "bp_5000", "bp_6915", "bp_8413", "bp_9332",
                          "bp_10000")
    got = [(r["train_id"], r["tag"], int(r["step"]), r["kind"], tuple(float(r[c]) for c in BP_COLUMNS)) for r in rows]
    expected = expected_rows(cache)
    assert len(expected) == 2 * 4 * 6  # two runs, four tags (one name twice), six steps
    assert sorted(got) == sorted(expected)  # the values as computed, written exactly (repr round-trips)
    assert {(r[1], r[3]) for r in got} == {("w", "histogram"), ("b", "histogram"), ("t", "tensor"), ("w", "tensor")}
    assert all(float(r["wall_time"]) == T0 + int(r["step"]) for r in rows)


def test_the_api_and_parquet_give_the_csv_rows(logs, tmp_path):
    cache = SummaryCache(str(logs))
    cache.reload()
    export_snapshot(cache, tmp_path / "csv")
    rows = read_csv(tmp_path / "csv" / "distributions.csv")
    csv_rows = [(r["train_id"], r["tag"], int(r["step"]), float(r["wall_time"]), r["kind"],
                 *(float(r[c]) for c in BP_COLUMNS)) for r in rows]
    with tui_insight.open(logs) as opened:
        frame = opened.distributions()
        only_b = opened.distributions(jobs="./b", tags="w")
        export_parquet(opened, tmp_path / "pq")
    columns = ["job", "tag", "step", "wall_time", "kind", *BP_COLUMNS]
    assert list(frame.columns) == columns
    assert [tuple(r) for r in frame[columns].itertuples(index=False)] == csv_rows
    assert set(only_b["job"]) == {"./b"} and set(only_b["tag"]) == {"w"} and set(only_b["kind"]) == {"histogram", "tensor"}
    table = pq.read_table(tmp_path / "pq" / "distributions.parquet")
    assert table.column_names == columns
    assert [tuple(r) for r in table.to_pandas()[columns].itertuples(index=False)] == csv_rows
