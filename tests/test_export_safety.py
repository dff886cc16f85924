"""An export is complete or says it is not, and writes only where it is told (issue 23):
links planted in --out are replaced, never written through; a full disk leaves what was
written and an INCOMPLETE file saying what was cut; a job name that is not UTF-8 keeps its
bytes in the CSV files and is printed escaped, as is a name holding terminal escapes; 200,000
tags are exported with one open file per CSV file. Each runs the real command in a child."""
from __future__ import annotations

import csv
import os
import resource
import subprocess
import sys
from pathlib import Path

import pytest
from export_help import (
    STAGING,
    assert_links_replaced,
    header_of,
    plant_links,
    small_disk,
    write_job,
)

from tui_insight.summary.formats.writer import SummaryWriter


def export(logdir: Path, out: Path, *extra: str, limits=None) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "tui_insight", os.fsdecode(logdir), "--export", "csv",
                           "--out", os.fsdecode(out), *extra], capture_output=True, timeout=300, preexec_fn=limits,
                          check=False)


# -- links planted in --out -----------------------------------------------------------------------

@pytest.mark.parametrize("all_steps", [False, True], ids=["cached", "all-steps"])
def test_force_replaces_links_planted_in_out_and_writes_through_none(tmp_path, all_steps):
    logdir = tmp_path / "logs"
    write_job(logdir, "j")
    out = tmp_path / "out"
    plant_links(tmp_path, logdir, out)
    result = export(logdir, out, "--force", *(["--all-steps"] if all_steps else []))
    assert result.returncode == 0, result.stderr
    assert_links_replaced(tmp_path, logdir, out)
    with open(out / "scalars.csv", encoding="utf-8") as fh:
        assert [r[1] for r in csv.reader(fh)][1:] == ["loss"] * 3


def test_a_successful_export_removes_a_stale_incomplete_marker_and_keeps_other_files(tmp_path):
    logdir = tmp_path / "logs"
    write_job(logdir, "j")
    out = tmp_path / "out"
    out.mkdir()
    (out / "INCOMPLETE").write_text("This export is incomplete: an earlier one\n")
    (out / "mine.txt").write_text("keep me")
    result = export(logdir, out, "--force")
    assert result.returncode == 0, result.stderr
    assert sorted(os.listdir(out)) == sorted([*(f"{n}.csv" for n in (
        "jobs", "scalars", "histograms", "tensors", "images", "text", "custom_scalars", "landscapes", "profile_ops",
        "profile_op_types", "profile_cluster", "pr_curves", "distributions", "described", "problems", "lineage")), "mine.txt"])


# -- a full disk ----------------------------------------------------------------------------------

@pytest.mark.parametrize("all_steps", [False, True], ids=["cached", "all-steps"])
def test_a_full_disk_leaves_what_was_written_and_an_incomplete_marker_saying_what_was_cut(tmp_path, all_steps):
    logdir = tmp_path / "logs"
    write_job(logdir, "a_small", steps=2)
    write_job(logdir, "b_big", steps=900, tags=[f"metric_{i}" for i in range(6)])  # 5,400 rows: ~250 kB
    with small_disk(tmp_path / "disk") as disk:
        out = disk.path / "snapshot"
        result = export(logdir, out, *(["--all-steps"] if all_steps else []), limits=disk.child())
        stderr = result.stderr.decode()
        assert result.returncode == 2
        assert "Traceback" not in stderr
        errors = [line for line in stderr.splitlines() if "error" in line]
        assert len(errors) == 1 and "export incomplete" in errors[0] and "while writing scalars.csv" in errors[0]
        marker = (out / "INCOMPLETE").read_text()
        assert marker.startswith("This export is incomplete: ") and "while writing scalars.csv" in marker
        assert "Jobs written in full: 1 of 2 (the last: ./a_small)." in marker
        assert "The rows of ./b_big and of every job after it are missing or cut" in marker
        assert "lineage.csv was not written." in marker
        written = sorted(os.listdir(out))
        assert "jobs.csv" in written and "scalars.csv" in written and not [n for n in written if n.startswith(STAGING)]
        scalars = (out / "scalars.csv").read_text(errors="replace").splitlines()
        assert scalars[1].startswith("./a_small,loss,1,")


def test_a_full_disk_met_by_the_thread_writing_big_blocks_says_so_as_the_export_would(tmp_path):
    # A block of 256 kB or more (16,384 scalar rows: ~0.7 MB) is written by a thread while the
    # next is formatted; its failure is the export's, naming the file, and the jobs written in full.
    logdir = tmp_path / "logs"
    write_job(logdir, "a_small", steps=2)
    write_job(logdir, "b_big", steps=1000, tags=[f"metric_{i}" for i in range(20)])
    with small_disk(tmp_path / "disk") as disk:
        out = disk.path / "snapshot"
        result = export(logdir, out, limits=disk.child())
        stderr = result.stderr.decode()
        assert result.returncode == 2 and "Traceback" not in stderr
        errors = [line for line in stderr.splitlines() if "error" in line]
        assert len(errors) == 1 and "export incomplete" in errors[0] and "while writing scalars.csv" in errors[0]
        marker = (out / "INCOMPLETE").read_text()
        assert "while writing scalars.csv" in marker and "Jobs written in full: 1 of 2 (the last: ./a_small)." in marker
        assert (out / "scalars.csv").read_text(errors="replace").splitlines()[1].startswith("./a_small,loss,1,")


# -- names ----------------------------------------------------------------------------------------

HOSTILE = "job\x1b]52;c;cHduZWQ=\x07\x1b]0;PWNED\x07"


@pytest.mark.parametrize("all_steps", [False, True], ids=["cached", "all-steps"])
def test_a_name_that_is_not_utf8_keeps_its_bytes_and_names_are_printed_escaped(tmp_path, all_steps):
    logdir = tmp_path / "logs"
    write_job(logdir, b"run\xff\xfe", tail=True)
    write_job(logdir, HOSTILE, tail=True)
    out = tmp_path / "out"
    result = export(logdir, out, *(["--all-steps"] if all_steps else []))
    assert result.returncode == 0, result.stderr
    jobs = (out / "jobs.csv").read_bytes()
    assert b"\n./run\xff\xfe,1,0,0," in jobs
    assert b"\n./run\xff\xfe,loss,1,1.0,1.0\n" in (out / "scalars.csv").read_bytes()
    problems = (out / "problems.csv").read_bytes().splitlines()
    assert [p.split(b",")[0] for p in problems[1:]] == [os.fsencode("./" + HOSTILE), b"./run\xff\xfe"]
    stderr = result.stderr.decode("utf-8")
    assert "\x1b" not in stderr and "\x07" not in stderr and "\udcff" not in stderr
    warnings = [line for line in stderr.splitlines() if "warning" in line]
    assert len(warnings) == 2  # one line per job
    assert any(line.startswith("tui-insight: warning: ./run\\xff\\xfe: growing") for line in warnings)
    assert any("./job\\x1b]52;c;cHduZWQ=\\x07\\x1b]0;PWNED\\x07: growing" in line for line in warnings)


# -- many tags ------------------------------------------------------------------------------------

def test_200000_tags_are_exported_with_one_open_file_per_csv_file(tmp_path):
    """One event of 200,000 scalar tags, exported every step with at most 256 open files."""
    logdir = tmp_path / "logs"
    writer = SummaryWriter(logdir / "run", timestamp=1, wall_time=1.0)
    for i in range(200_000):
        writer.add_scalar(f"t{i:06d}", float(i))
    writer.record(7, wall_time=2.0)
    writer.close()

    def limits():
        resource.setrlimit(resource.RLIMIT_NOFILE, (256, 256))
    result = export(logdir, tmp_path / "out", "--all-steps", limits=limits)
    assert result.returncode == 0, result.stderr
    with open(tmp_path / "out" / "scalars.csv", encoding="utf-8") as fh:
        rows = list(csv.reader(fh))[1:]
    assert len(rows) == 200_000
    assert rows[0] == ["./run", "t000000", "7", "2.0", "0.0"] and rows[-1][1] == "t199999"
    assert [r[1] for r in rows] == sorted(r[1] for r in rows)


def test_a_directory_in_the_way_of_a_file_is_left_as_it_was_and_the_export_says_where_it_is(tmp_path):
    """--force replaces files and links, not a directory of the user's named like a CSV file."""
    logdir = tmp_path / "logs"
    write_job(logdir, "j")
    out = tmp_path / "out"
    (out / "scalars.csv").mkdir(parents=True)
    (out / "scalars.csv" / "mine.txt").write_text("keep me")
    result = export(logdir, out, "--force")
    stderr = result.stderr.decode()
    assert result.returncode == 2 and "Traceback" not in stderr
    assert "export incomplete: Is a directory while moving scalars.csv into place" in stderr
    assert (out / "scalars.csv" / "mine.txt").read_text() == "keep me"
    (staging,) = [n for n in os.listdir(out) if n.startswith(STAGING)]
    assert f"what was written is in {out / staging}" in stderr
    assert header_of(out / staging / "scalars.csv") == "train_id,tag,step,wall_time,value"
    assert "moving scalars.csv into place" in (out / staging / "INCOMPLETE").read_text()


def test_force_over_a_link_named_as_a_wav_file_leaves_its_target_alone(tmp_path):
    """An audio clip's WAV is renamed into OUT like every CSV file: a planted link of its name is
    replaced, never written through."""
    from described_logs import write_described

    logdir = write_described(tmp_path / "logs")
    out = tmp_path / "out"
    out.mkdir()
    victim = tmp_path / "victim"
    victim.write_text("keep me")
    (out / "audio-00001.wav").symlink_to(victim)
    refused = export(logdir, out)
    assert refused.returncode != 0 and b"use --force" in refused.stderr and victim.read_text() == "keep me"
    result = export(logdir, out, "--force")
    assert result.returncode == 0, result.stderr
    assert victim.read_text() == "keep me" and not (out / "audio-00001.wav").is_symlink()
    assert (out / "audio-00001.wav").read_bytes()[:4] == b"RIFF"
