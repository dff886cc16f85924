"""Are two checkouts' CSV exports byte for byte the same? (issue 30: a faster load must not
change what is read). Run by hand:

    python bench/compare_export.py --before DIR_OF_CHECKOUT [--after DIR_OF_CHECKOUT] LOGDIR...

For each LOGDIR, each checkout exports it in a fresh process (`python -m tui_insight LOGDIR
--export csv --out OUT --no-cache`, and again with `--all-steps`), with that checkout first on
PYTHONPATH; then every file of the two snapshots is compared. Exit status 1 if any differs.
"""
from __future__ import annotations

import argparse
import filecmp
import os
import subprocess
import sys
import tempfile
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]


def export(checkout: Path, logdir: Path, out: Path, all_steps: bool) -> subprocess.CompletedProcess:
    command = [sys.executable, "-m", "tui_insight", str(logdir), "--export", "csv", "--out", str(out), "--no-cache"]
    if all_steps:
        command.append("--all-steps")
    env = {**os.environ, "PYTHONPATH": str(checkout)}
    return subprocess.run(command, capture_output=True, env=env, check=False, cwd=tempfile.gettempdir())


def compare(before: Path, after: Path) -> list[str]:
    """The files that differ or are in one snapshot only (relative paths)."""
    names_before = {p.relative_to(before) for p in before.rglob("*") if p.is_file()}
    names_after = {p.relative_to(after) for p in after.rglob("*") if p.is_file()}
    differ = sorted(str(n) + " (one side only)" for n in names_before ^ names_after)
    for name in sorted(names_before & names_after):
        if not filecmp.cmp(before / name, after / name, shallow=False):
            differ.append(str(name))
    return differ


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--before", type=Path, required=True, help="the checkout to compare with")
    parser.add_argument("--after", type=Path, default=REPO, help="this checkout by default")
    parser.add_argument("logdirs", type=Path, nargs="+")
    args = parser.parse_args()
    failed = False
    with tempfile.TemporaryDirectory() as tmp:
        for n, logdir in enumerate(args.logdirs):
            for all_steps in (False, True):
                outs = []
                for side, checkout in (("before", args.before), ("after", args.after)):
                    out = Path(tmp) / f"{n}-{all_steps}-{side}"
                    done = export(checkout.resolve(), logdir.resolve(), out, all_steps)
                    outs.append((out, done))
                (before, done_before), (after, done_after) = outs
                label = f"{logdir}{' --all-steps' if all_steps else ''}"
                if done_before.returncode != done_after.returncode or done_before.stderr != done_after.stderr:
                    failed = True
                    print(f"{label}: exit {done_before.returncode} -> {done_after.returncode}, stderr differs: "
                          f"{done_before.stderr[-300:]!r} -> {done_after.stderr[-300:]!r}")
                    continue
                differ = compare(before, after)
                files = sum(1 for p in after.rglob("*") if p.is_file())
                size = sum(p.stat().st_size for p in after.rglob("*") if p.is_file())
                if differ:
                    failed = True
                    print(f"{label}: {len(differ)} of {files} files DIFFER: {', '.join(differ[:8])}")
                else:
                    print(f"{label}: {files} files, {size / 1e6:.1f} MB, byte-identical "
                          f"(exit {done_after.returncode})")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
