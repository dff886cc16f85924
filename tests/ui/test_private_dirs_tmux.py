"""The real program in tmux with its cache and state directories planted as symlinks: it says
it keeps nothing there, shows the logs all the same, and writes nothing through the links."""
from __future__ import annotations

import os
import shlex
from pathlib import Path

from test_e2e_tmux import Tmux, required_commands
from uihelp import MINDSPORE_LOGS


def test_symlinked_cache_and_state_directories_are_refused_with_a_notice(tmp_path: Path):
    _tmux, executable = required_commands()
    target = tmp_path / "victim"
    target.mkdir()
    (target / "kept.snap").write_bytes(b"precious")
    for base in ("cache", "state"):
        (tmp_path / base).mkdir()
        (tmp_path / base / "tui-insight").symlink_to(target)
    env = {"TERM": "xterm-256color", "TUI_INSIGHT_KEYMAP": os.devnull, "XDG_CONFIG_HOME": str(tmp_path / "config"),
           "XDG_STATE_HOME": str(tmp_path / "state"), "XDG_CACHE_HOME": str(tmp_path / "cache")}
    command = " ".join(["env", *(f"{k}={shlex.quote(v)}" for k, v in env.items()), shlex.quote(executable),
                        shlex.quote(str(MINDSPORE_LOGS)), "--reload-interval", "0"])
    term = Tmux(width=160, height=48)
    try:
        term.start(command)
        term.wait_for("8 jobs", "./lenet_lr0.01", "cache directory is not used", "is a symlink")
        term.keys("q")
        term.wait_for("EXITED-0")
    finally:
        term.kill()
    assert [p.name for p in target.iterdir()] == ["kept.snap"]
