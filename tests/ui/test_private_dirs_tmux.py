"""The real program in tmux with its cache and state directories planted as symlinks: it says
it keeps nothing there, shows the logs all the same, and writes nothing through the links."""
from __future__ import annotations

from pathlib import Path

from test_e2e_tmux import Tmux, app_command, required_commands
from uihelp import MINDSPORE_LOGS


def test_symlinked_cache_and_state_directories_are_refused_with_a_notice(tmp_path: Path):
    _tmux, executable = required_commands()
    target = tmp_path / "victim"
    target.mkdir()
    (target / "kept.snap").write_bytes(b"precious")
    for base in ("cache", "state"):
        (tmp_path / base).mkdir()
        (tmp_path / base / "tui-insight").symlink_to(target)
    command = app_command(tmp_path, [executable], str(MINDSPORE_LOGS), "--reload-interval", "0")
    term = Tmux(width=160, height=48)
    try:
        term.start(command)
        term.wait_for("8 jobs", "./lenet_lr0.01", "cache directory is not used", "is a symlink")
        term.keys("q")
        term.wait_for("EXITED-0")
    finally:
        term.kill()
    assert [p.name for p in target.iterdir()] == ["kept.snap"]
