"""Bytecode for the checkouts a benchmark runs, written before its processes start.

An installed tui-insight has its bytecode (pip compiles at install; an editable install writes
it on first import). A machine with PYTHONDONTWRITEBYTECODE set, as the benchmark machine has,
would otherwise compile every module of ours in every process: ~90 ms of CPU a process, in
every load, export and sweep worker measured. Stale files are rewritten (source mtimes)."""
from __future__ import annotations

import compileall
from pathlib import Path


def compile_checkouts(*checkouts: Path | None) -> None:
    """Write the bytecode of each checkout's `tui_insight` package next to its sources
    (`__pycache__`, ignored by git)."""
    for checkout in checkouts:
        if checkout is not None:
            compileall.compile_dir(str(Path(checkout) / "tui_insight"), quiet=1)
