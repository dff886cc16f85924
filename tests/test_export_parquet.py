"""`--export parquet` and `--export arrow`, read back without tui-insight: pyarrow and DuckDB."""
from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import duckdb
import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

import tui_insight
from fixture_paths import FIXTURES, MINDSPORE_LOGS, REPO

TENSORBOARD_LOGS = FIXTURES / "tensorboard"


def cli(*args: str, **kwargs) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "tui_insight", *args], capture_output=True, timeout=300,
                          cwd=REPO, **kwargs)


@pytest.fixture(scope="module")
def exported(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("pq") / "out"
    done = cli(str(MINDSPORE_LOGS), "--export", "parquet", "--out", str(out), "--all-steps")
    assert done.returncode == 0, done.stderr.decode()
    return out


@pytest.fixture(scope="module")
def logs():
    with tui_insight.open(MINDSPORE_LOGS) as opened:
        yield opened


def test_one_parquet_file_per_kind(exported):
    assert sorted(p.name for p in exported.iterdir()) == sorted(
        f"{kind}.parquet" for kind in ("scalars", "histograms", "tensors", "pr_curves", "distributions", "lineage", "health",
                                       "problems"))


def test_scalars_read_by_pyarrow_are_the_apis(exported, logs):
    table = pq.read_table(exported / "scalars.parquet")
    assert table.column_names == ["job", "tag", "step", "wall_time", "value"]
    frame = table.to_pandas()
    mine = logs.scalars(all_steps=True)
    assert frame[["job", "tag", "step"]].values.tolist() == mine[["job", "tag", "step"]].values.tolist()
    assert np.array_equal(frame.value.to_numpy(), mine.value.to_numpy(), equal_nan=True)


def test_duckdb_reads_every_file(exported, logs):
    final = duckdb.sql(f"""
        select job, arg_max(value, step) as last from '{exported / "scalars.parquet"}'
        where tag = 'loss/auto' group by job order by job""").fetchall()
    loss = logs.scalars(tags="loss/auto", all_steps=True)
    assert final == [(job, group.value.iloc[-1]) for job, group in loss.groupby("job")]
    health = dict(duckdb.sql(f"select job, state from '{exported / 'health.parquet'}'").fetchall())
    assert health == {row["job"]: row["state"] for row in logs.health()}
    dirs = [r[0] for r in duckdb.sql(f"select summary_dir from '{exported / 'lineage.parquet'}' order by 1").fetchall()]
    assert dirs == sorted(logs.lineage().summary_dir)
    problems = duckdb.sql(f"select problem from '{exported / 'problems.parquet'}' where job = './damaged_truncated'")
    assert any("truncated" in row[0] or "growing" in row[0] for row in problems.fetchall())


def test_tensors_are_lists_of_their_values(exported, logs):
    frame = pq.read_table(exported / "tensors.parquet").to_pandas()
    mine = logs.tensors(all_steps=True)
    assert len(frame) == len(mine)
    for (_, theirs), (_, ours) in zip(frame.iterrows(), mine.iterrows()):
        assert list(theirs["shape"]) == list(ours["shape"])
        if ours["array"] is not None:
            assert np.array_equal(np.asarray(theirs["values"]), ours["array"].ravel(), equal_nan=True)


def test_histograms_are_the_buckets(exported, logs):
    frame = pq.read_table(exported / "histograms.parquet").to_pandas()
    assert frame.equals(logs.histograms(all_steps=True))


def test_names_laid_out_a_few_rows_at_a_time_are_each_row_s(tmp_path, monkeypatch, logs):
    # A run of one name is written RUN_ROWS rows at a time (an all-steps job's runs are long).
    from tui_insight import export_parquet

    monkeypatch.setattr(export_parquet, "RUN_ROWS", 7)
    export_parquet.export_parquet(logs, tmp_path / "out")
    for kind, mine in (("histograms", logs.histograms()), ("scalars", logs.scalars())):
        table = pq.read_table(tmp_path / "out" / f"{kind}.parquet")
        assert len(mine) > 7 * 20
        assert table.column("job").to_pylist() == mine["job"].tolist()
        assert table.column("tag").to_pylist() == mine["tag"].tolist()


def test_arrow_stream_on_stdout(logs):
    done = cli(str(MINDSPORE_LOGS), "--export", "arrow")
    assert done.returncode == 0, done.stderr.decode()
    table = pa.ipc.open_stream(done.stdout).read_all()
    frame, mine = table.to_pandas(), logs.scalars()
    assert frame[["job", "tag", "step"]].values.tolist() == mine[["job", "tag", "step"]].values.tolist()
    assert np.array_equal(frame[["wall_time", "value"]].to_numpy(), mine[["wall_time", "value"]].to_numpy(),
                          equal_nan=True)


def test_a_link_planted_in_out_is_replaced_not_written_through(tmp_path):
    out, victim = tmp_path / "out", tmp_path / "victim"
    out.mkdir()
    victim.write_text("keep me")
    (out / "scalars.parquet").symlink_to(victim)
    done = cli(str(MINDSPORE_LOGS), "--export", "parquet", "--out", str(out), "--force")
    assert done.returncode == 0, done.stderr.decode()
    assert victim.read_text() == "keep me" and not (out / "scalars.parquet").is_symlink()
    assert pq.read_table(out / "scalars.parquet").num_rows > 0


def test_refusals_are_one_line(tmp_path):
    logdir = tmp_path / "logs"
    shutil.copytree(MINDSPORE_LOGS / "lenet_lr0.1", logdir / "lenet_lr0.1")
    inside = cli(str(logdir), "--export", "parquet", "--out", str(logdir / "out"))
    missing = cli(str(tmp_path / "none"), "--export", "parquet", "--out", str(tmp_path / "o"))
    for done in (inside, missing):
        assert done.returncode == 2
        assert len(done.stderr.decode().strip().splitlines()) == 1 and b"Traceback" not in done.stderr
    assert b"inside the log directory" in inside.stderr and b"does not exist" in missing.stderr


def test_without_pyarrow_the_export_names_the_extra(tmp_path, monkeypatch, capsys):
    from tui_insight.export_parquet import run

    monkeypatch.setitem(sys.modules, "pyarrow", None)  # as when pyarrow is not installed
    assert run("parquet", str(MINDSPORE_LOGS), tmp_path / "out", all_steps=False, force=False) == 2
    err = capsys.readouterr().err
    assert err.strip() == "tui-insight: error: --export parquet and arrow need pyarrow: pip install 'tui-insight[arrow]'"


def test_arrow_goes_to_stdout_not_to_out(tmp_path):
    done = cli(str(MINDSPORE_LOGS), "--export", "arrow", "--out", str(tmp_path / "o"))
    assert done.returncode == 2 and not (tmp_path / "o").exists()
    assert done.stderr.decode().strip() == "tui-insight: error: --export arrow writes to stdout: no --out or --force"


def test_pr_curves_are_the_csv_exports_rows_in_the_api_and_in_parquet(tmp_path):
    import csv

    done = cli(str(TENSORBOARD_LOGS), "--export", "csv", "--out", str(tmp_path / "csv"))
    assert done.returncode == 0, done.stderr.decode()
    with open(tmp_path / "csv" / "pr_curves.csv", newline="", encoding="utf-8") as fh:
        expected = [(r["train_id"], r["tag"], int(r["step"]), *(float(r[k]) for k in
                     ("threshold", "tp", "fp", "tn", "fn", "precision", "recall"))) for r in csv.DictReader(fh)]
    assert expected  # the fixture holds a PR curve
    with tui_insight.open(TENSORBOARD_LOGS) as logs:
        mine = logs.pr_curves(all_steps=True)
    names = ["job", "tag", "step", "threshold", "tp", "fp", "tn", "fn", "precision", "recall"]
    got = [tuple(row) for row in mine[names].itertuples(index=False)]
    assert [r[:3] for r in got] == [r[:3] for r in expected]
    assert np.allclose(np.array([r[3:] for r in got]), np.array([r[3:] for r in expected]), rtol=1e-6)
    done = cli(str(TENSORBOARD_LOGS), "--export", "parquet", "--out", str(tmp_path / "pq"), "--all-steps")
    assert done.returncode == 0, done.stderr.decode()
    theirs = duckdb.sql(f"SELECT * FROM '{tmp_path / 'pq' / 'pr_curves.parquet'}'").df()
    assert theirs[names].values.tolist() == mine[names].values.tolist()


def test_a_job_named_with_bytes_not_utf8_is_written_with_them_escaped(tmp_path):
    from export_help import write_job

    write_job(tmp_path / "logs", b"run\xff\xfe")
    done = cli(str(tmp_path / "logs"), "--export", "parquet", "--out", str(tmp_path / "pq"))
    assert done.returncode == 0, done.stderr.decode()
    for kind in ("scalars", "health"):  # Parquet's strings are UTF-8: the bytes as the screens show them
        assert set(pq.read_table(tmp_path / "pq" / f"{kind}.parquet").column("job").to_pylist()) == {"./run\\xff\\xfe"}


UNNEEDED = ("pandas", "cloudpickle", "dateutil", "pyarrow.fs", "ssl", "tui_insight.export")


def test_the_cli_export_leaves_pandas_unimported_and_writes_the_same_files(tmp_path):
    # pyarrow imports pandas whenever it is handed an array unless pandas cannot be found, and
    # cloudpickle, dateutil, and (through pyarrow.parquet) pyarrow.fs and ssl, none of which a
    # Parquet file needs; nor the CSV export's module (its formatter, csv: 6 ms).
    code = ("import sys; from tui_insight import cli; status = cli.main(); "  # the program: sys.argv
            f"print([m for m in {UNNEEDED!r} if m in sys.modules]); sys.exit(status)")
    outs = {}
    for first in ("", "import pandas; "):  # a process that holds pandas already: pyarrow uses it
        outs[first] = out = tmp_path / ("with" if first else "without")
        done = subprocess.run([sys.executable, "-c", first + code, str(MINDSPORE_LOGS), "--export", "parquet",
                               "--out", str(out)], capture_output=True, timeout=300, cwd=REPO)
        assert done.returncode == 0, done.stderr.decode()
        imported = done.stdout.decode().strip()
        assert ("'pandas'" in imported) if first else imported == "[]"
    assert pq.read_table(outs[""] / "lineage.parquet").num_rows > 0
    for kind in ("scalars", "histograms", "tensors", "distributions", "lineage", "problems"):
        assert (outs[""] / f"{kind}.parquet").read_bytes() == (outs["import pandas; "] / f"{kind}.parquet").read_bytes()


def test_the_files_are_the_bytes_pyarrow_parquet_writes(exported, tmp_path):
    # The export writes through the writer pyarrow.parquet wraps (without pyarrow.fs), with the
    # wrapper's settings: a table read back and written by pyarrow.parquet is the same file.
    for kind in ("scalars", "histograms", "distributions", "problems", "lineage"):  # (with rows, no lists)
        pq.write_table(pq.read_table(exported / f"{kind}.parquet"), tmp_path / kind)
        assert (tmp_path / kind).read_bytes() == (exported / f"{kind}.parquet").read_bytes(), kind


def test_a_caller_of_main_finds_every_module_during_a_parquet_export(tmp_path):
    # Hiding pandas from pyarrow is for the program alone: a notebook or a test calling
    # `main(argv)` may import pandas from another thread meanwhile, so its imports are untouched
    # (pyarrow, handed arrays, imports pandas then).
    code = ("import sys; from tui_insight import cli; assert cli.main(sys.argv[1:]) == 0; "
            "print('pandas' in sys.modules)")
    done = subprocess.run([sys.executable, "-c", code, str(MINDSPORE_LOGS), "--export", "parquet",
                           "--out", str(tmp_path / "pq")], capture_output=True, timeout=300, cwd=REPO)
    assert done.returncode == 0, done.stderr.decode()
    assert done.stdout.decode().strip() == "True"


def test_the_cli_export_labels_names_without_importing_pyarrow_compute(tmp_path):
    # pyarrow.compute (25 ms of CPU) comes with Array.take: the job and tag columns are laid out
    # without it, and read back as the names each row had. numpy.ma (22 ms) comes with pa.array
    # of a numpy array: numbers go as their buffers, names as lists (this run's load needs no
    # numpy.ma; a MindSpore load that samples a series imports it).
    code = ("import sys; from tui_insight import cli; status = cli.main(); "
            "print([m for m in ('pyarrow.compute', 'numpy.ma') if m in sys.modules]); sys.exit(status)")
    for steps in ([], ["--all-steps"]):
        out = tmp_path / ("pq" + "".join(steps))
        done = subprocess.run([sys.executable, "-c", code, str(TENSORBOARD_LOGS), "--export", "parquet", *steps,
                               "--out", str(out)], capture_output=True, timeout=300, cwd=REPO)
        assert done.returncode == 0, done.stderr.decode()
        assert done.stdout.decode().strip() == "[]"
    with tui_insight.open(TENSORBOARD_LOGS) as opened:
        for kind, mine in (("scalars", opened.scalars(all_steps=True)),
                           ("histograms", opened.histograms(all_steps=True))):
            table = pq.read_table(tmp_path / "pq" / f"{kind}.parquet")
            assert len(set(table.column("tag").to_pylist())) > 1
            assert table.select(["job", "tag"]).to_pylist() == mine[["job", "tag"]].to_dict("records")


def test_a_full_disk_stops_the_parquet_export_with_one_line_and_what_was_written(tmp_path):
    # Row groups are written by a thread while the next tables are made: its failure ends the
    # export as one written in the caller would, with the files and an INCOMPLETE file in OUT.
    from export_help import small_disk, write_job

    write_job(tmp_path / "logs", "j", steps=3000, tags=[f"metric_{i}" for i in range(10)])
    with small_disk(tmp_path / "disk") as disk:
        out = disk.path / "pq"
        done = subprocess.run([sys.executable, "-m", "tui_insight", str(tmp_path / "logs"), "--export", "parquet",
                               "--out", str(out)], capture_output=True, timeout=300, cwd=REPO, preexec_fn=disk.child())
        stderr = done.stderr.decode()
        assert done.returncode == 2 and "Traceback" not in stderr
        assert [line for line in stderr.splitlines() if "error" in line][0].startswith("tui-insight: error: cannot write to")
        assert (out / "INCOMPLETE").read_text().startswith("the export stopped: ")
