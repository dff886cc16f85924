"""Helpers of the export tests: small jobs written by the MindSpore writer, links planted in
an output directory, and a small disk to fill."""
from __future__ import annotations

import contextlib
import os
import resource
import signal
import subprocess
from dataclasses import dataclass
from pathlib import Path

from tui_insight.summary.formats.writer import SummaryWriter

STAGING = ".tui-insight-export-"  # the private directory an export writes in, inside OUT


def write_job(logdir: Path, name: str | bytes, steps: int = 3, tags=("loss",), tail: bool = False) -> Path:
    """A job written by the MindSpore writer; `tail`: an incomplete last record (a job that
    warns: "growing"). `name` as bytes for a name that is not UTF-8."""
    directory = Path(os.fsdecode(os.path.join(os.fsencode(logdir), os.fsencode(name))))
    writer = SummaryWriter(directory, timestamp=1, wall_time=1.0)
    for step in range(1, steps + 1):
        for i, tag in enumerate(tags):
            writer.add_scalar(tag, step + i / 10)
        writer.record(step, wall_time=float(step))
    if tail:
        writer.write_raw(b"\x20\x00\x00")
    writer.close()
    return directory


def header_of(path: Path) -> str:
    with open(path, encoding="utf-8") as fh:
        return fh.readline().rstrip("\n")


def plant_links(tmp_path: Path, logdir: Path, out: Path) -> None:
    """OUT holding links to a victim file, into LOGDIR (job `j`), to a directory and to a file
    that is not there."""
    victim = tmp_path / "victim.txt"
    victim.write_text("precious\n")
    (tmp_path / "victim_dir").mkdir()
    out.mkdir()
    targets = {"scalars.csv": victim, "jobs.csv": logdir / "j" / "x.csv", "text.csv": tmp_path / "victim_dir",
               "problems.csv": tmp_path / "created_by_export.csv"}
    for name, target in targets.items():
        (out / name).symlink_to(os.path.relpath(target, out))


def assert_links_replaced(tmp_path: Path, logdir: Path, out: Path) -> None:
    assert (tmp_path / "victim.txt").read_text() == "precious\n"
    assert not (logdir / "j" / "x.csv").exists()
    assert os.listdir(tmp_path / "victim_dir") == []
    assert not (tmp_path / "created_by_export.csv").exists()
    for name in ("scalars.csv", "jobs.csv", "text.csv", "problems.csv"):
        assert not (out / name).is_symlink() and (out / name).is_file(), name
    assert header_of(out / "scalars.csv") == "train_id,tag,step,wall_time,value"
    assert not [n for n in os.listdir(out) if n.startswith(STAGING)]


@dataclass
class SmallDisk:
    """Where files cannot grow past a few kB: a tmpfs (root can mount one), or where mounting is
    refused, RLIMIT_FSIZE (writing past it: EFBIG rather than ENOSPC) in the processes that
    `limit` or `held` are applied to."""

    path: Path
    limit: int | None  # bytes; None: the tmpfs holds every process to its size

    def child(self):
        """A child's preexec_fn (None with the tmpfs)."""
        if self.limit is None:
            return None
        limit = self.limit

        def apply() -> None:
            signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
            resource.setrlimit(resource.RLIMIT_FSIZE, (limit, limit))
        return apply

    @contextlib.contextmanager
    def held(self):
        """This process held by the limit while the block runs (an export made in it: the UI's)."""
        if self.limit is None:
            yield
            return
        old_handler = signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
        old = resource.getrlimit(resource.RLIMIT_FSIZE)
        resource.setrlimit(resource.RLIMIT_FSIZE, (self.limit, old[1]))
        try:
            yield
        finally:
            resource.setrlimit(resource.RLIMIT_FSIZE, old)
            signal.signal(signal.SIGXFSZ, old_handler)


@contextlib.contextmanager
def small_disk(path: Path, kilobytes: int = 96):
    path.mkdir()
    mounted = subprocess.run(["mount", "-t", "tmpfs", "-o", f"size={kilobytes}k", "tmpfs", str(path)],
                             capture_output=True, check=False).returncode == 0
    try:
        yield SmallDisk(path, None if mounted else kilobytes * 1024)
    finally:
        if mounted:
            subprocess.run(["umount", "-l", str(path)], check=True)
