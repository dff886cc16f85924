"""The user's directories (`tui_insight.user_dirs`): where they are, and private by default.

Real directories and real permission bits: what tui-insight makes is 0700, its log 0600, and a
directory of its own that is a symlink (planted in a shared place) is refused, never followed.
"""
from __future__ import annotations

import logging
import os
import stat
from pathlib import Path

import pytest

from tui_insight import user_dirs
from tui_insight.ui.app import keymap_path, log_to_state_dir
from tui_insight.user_dirs import PrivateLogFile, UnsafeDirectory, private_dir
from tui_insight.workspace import Workspace, workspace_path


def mode(path) -> int:
    return stat.S_IMODE(os.lstat(path).st_mode)


def test_every_directory_follows_its_xdg_variable(tmp_path, monkeypatch):
    for name in ("XDG_CONFIG_HOME", "XDG_STATE_HOME", "XDG_CACHE_HOME"):
        monkeypatch.setenv(name, str(tmp_path / name.lower()))
    assert user_dirs.config_dir() == tmp_path / "xdg_config_home" / "tui-insight"
    assert user_dirs.state_dir() == tmp_path / "xdg_state_home" / "tui-insight"
    assert user_dirs.cache_dir() == tmp_path / "xdg_cache_home" / "tui-insight"
    monkeypatch.delenv("TUI_INSIGHT_KEYMAP", raising=False)
    assert keymap_path() == tmp_path / "xdg_config_home" / "tui-insight" / "keymap.toml"
    assert workspace_path("/data/logs").parent == tmp_path / "xdg_state_home" / "tui-insight" / "workspaces"


def test_directories_are_made_private_with_their_missing_parents(tmp_path):
    base = tmp_path / "home"
    base.mkdir(mode=0o755)
    made = private_dir(base / "state" / "tui-insight")
    assert made.is_dir()
    assert mode(base / "state") == 0o700 and mode(made) == 0o700
    assert mode(base) == 0o755  # a directory that was there is not ours to change


def test_a_directory_of_ours_left_open_is_narrowed(tmp_path):
    ours = tmp_path / "tui-insight"
    ours.mkdir()
    ours.chmod(0o755)
    private_dir(ours)
    assert mode(ours) == 0o700


def test_a_symlink_or_a_file_in_our_place_is_refused_and_left_alone(tmp_path):
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir(mode=0o755)
    planted = tmp_path / "tui-insight"
    planted.symlink_to(elsewhere)
    with pytest.raises(UnsafeDirectory, match="is a symlink"):
        private_dir(planted)
    assert mode(elsewhere) == 0o755  # not narrowed through the link either
    (tmp_path / "afile").write_text("x")
    with pytest.raises(UnsafeDirectory, match="not a directory"):
        private_dir(tmp_path / "afile")


def test_a_directory_of_another_user_is_refused_and_left_alone(tmp_path):
    if os.getuid() == 0:  # root makes one for somebody else (nobody)
        theirs = tmp_path / "tui-insight"
        theirs.mkdir(mode=0o755)
        os.chown(theirs, 65534, 65534)
    else:  # anyone else finds one: the root directory is root's
        theirs = Path("/")
    before = mode(theirs)
    with pytest.raises(UnsafeDirectory, match="belongs to another user"):
        private_dir(theirs)
    assert mode(theirs) == before


def test_the_log_is_readable_by_its_user_alone_also_after_a_rollover(tmp_path):
    path = tmp_path / "tui-insight.log"
    path.write_text("an older log, left open\n")
    path.chmod(0o644)
    handler = PrivateLogFile(path, maxBytes=200, backupCount=1, encoding="utf-8")
    try:
        assert mode(path) == 0o600
        record = logging.LogRecord("t", logging.WARNING, __file__, 1, "host node1: %s", ("x" * 150,), None)
        handler.emit(record)
        handler.emit(record)  # past maxBytes: rolled over into tui-insight.log.1, a new log begun
    finally:
        handler.close()
    assert (tmp_path / "tui-insight.log.1").exists()
    assert mode(path) == 0o600 and mode(tmp_path / "tui-insight.log.1") == 0o600


def test_the_log_is_never_written_through_a_symlink(tmp_path):
    target = tmp_path / "somebody-elses-file"
    target.write_text("theirs\n")
    (tmp_path / "tui-insight.log").symlink_to(target)
    with pytest.raises(OSError):
        PrivateLogFile(tmp_path / "tui-insight.log", maxBytes=1000, backupCount=1, encoding="utf-8")
    assert target.read_text() == "theirs\n"


def test_the_app_log_goes_to_a_private_state_directory(tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path / "state"))
    root = logging.getLogger()
    before = list(root.handlers)
    try:
        assert log_to_state_dir() == ""
        logging.getLogger("tui_insight.test").warning("cannot reach node1:/data/logs")
    finally:
        for handler in root.handlers[:]:
            if handler not in before:
                root.removeHandler(handler)
                handler.close()
    log = tmp_path / "state" / "tui-insight" / "tui-insight.log"
    assert "node1:/data/logs" in log.read_text()
    assert mode(log) == 0o600 and mode(log.parent) == 0o700


def test_a_state_directory_that_is_a_symlink_keeps_the_workspace_in_memory(tmp_path):
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    home = tmp_path / "tui-insight"
    home.symlink_to(elsewhere)
    workspace, notice = Workspace.open("/data/logs", home=home)
    assert "is a symlink" in notice and workspace.path is None
    workspace.remember("./a", "scalars", {"smoothing": 0.6})
    assert workspace.save() == "" and list(elsewhere.iterdir()) == []
    assert workspace.get("./a", "scalars") == {"smoothing": 0.6}  # remembered while it runs


def test_workspace_files_and_their_directories_are_private(tmp_path):
    workspace, notice = Workspace.open("/data/logs", home=tmp_path / "state")
    workspace.remember("./a", "scalars", {"smoothing": 0.6})
    assert notice == "" and workspace.save() == ""
    assert mode(tmp_path / "state") == 0o700 and mode(workspace.path.parent) == 0o700
    assert mode(workspace.path) == 0o600

