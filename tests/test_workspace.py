"""The workspace file: where it lives, atomic writes, damaged and old files ignored with a notice."""
from __future__ import annotations

import json
import os

from tui_insight.user_dirs import state_dir
from tui_insight.workspace import FORMAT_VERSION, Workspace, workspace_path


def test_it_lives_under_xdg_state_home_never_inside_logdir(tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path / "state"))
    logdir = tmp_path / "logs"
    logdir.mkdir()
    path = workspace_path(str(logdir))
    assert state_dir() == tmp_path / "state" / "tui-insight"
    assert path.parent == tmp_path / "state" / "tui-insight" / "workspaces"
    assert logdir not in path.parents
    assert path != workspace_path(str(tmp_path / "other" / "logs"))  # same name, other directory


def test_what_is_remembered_comes_back_in_a_new_process(tmp_path):
    home = tmp_path / "state"
    workspace, notice = Workspace.open("/data/logs", home=home)
    assert notice == "" and workspace.get("./a", "scalars") == {}
    workspace.remember("./a", "scalars", {"smoothing": 0.6})
    workspace.remember("./a,./b", "scalars", {"smoothing": 0.9})
    assert workspace.dirty
    assert workspace.save() == ""
    assert not workspace.dirty
    again, notice = Workspace.open("/data/logs", home=home)
    assert notice == ""
    assert again.get("./a", "scalars") == {"smoothing": 0.6}
    assert again.get("./a,./b", "scalars") == {"smoothing": 0.9}
    assert again.get("./a", "images") == {}


def test_its_owner_hears_when_something_starts_waiting_to_be_saved(tmp_path):
    """Once per wait: the app then saves a moment later, and no timer looks at a clean workspace."""
    workspace, _ = Workspace.open("/data/logs", home=tmp_path)
    heard: list[bool] = []
    workspace.on_dirty = lambda: heard.append(workspace.dirty)
    workspace.remember("app", "jobs", {"sort": "id"})
    workspace.remember("app", "jobs", {"sort": "step"})  # (still waiting)
    workspace.remember("./a", "scalars", {"smoothing": 0.6})
    assert heard == [True]
    assert workspace.save() == ""
    workspace.remember("app", "jobs", {"sort": "step"})  # the same: nothing to save
    assert heard == [True]
    workspace.remember("app", "jobs", {"sort": "id"})
    assert heard == [True, True]


def test_remembering_the_same_thing_does_not_make_it_dirty(tmp_path):
    workspace, _ = Workspace.open("/data/logs", home=tmp_path)
    workspace.remember("app", "jobs", {"sort": "id"})
    workspace.save()
    workspace.remember("app", "jobs", {"sort": "id"})
    assert not workspace.dirty


def test_fresh_starts_clean_and_writes_over(tmp_path):
    workspace, _ = Workspace.open("/data/logs", home=tmp_path)
    workspace.remember("./a", "scalars", {"smoothing": 0.6})
    workspace.save()
    fresh, notice = Workspace.open("/data/logs", fresh=True, home=tmp_path)
    assert notice == "" and fresh.get("./a", "scalars") == {}


def test_a_damaged_file_is_ignored_with_one_line(tmp_path):
    path = workspace_path("/data/logs", tmp_path)
    path.parent.mkdir(parents=True)
    path.write_text('{"version": 1, "views": {')
    workspace, notice = Workspace.open("/data/logs", home=tmp_path)
    assert workspace.get("./a", "scalars") == {}
    assert "ignored" in notice and "\n" not in notice and str(path) in notice


def test_an_old_version_is_ignored(tmp_path):
    path = workspace_path("/data/logs", tmp_path)
    path.parent.mkdir(parents=True)
    path.write_text(json.dumps({"version": FORMAT_VERSION + 1, "views": {"scalars@./a": {"smoothing": 1}}}))
    workspace, notice = Workspace.open("/data/logs", home=tmp_path)
    assert workspace.get("./a", "scalars") == {}
    assert "version" in notice


def test_entries_that_are_not_objects_are_dropped_with_one_line(tmp_path):
    path = workspace_path("/data/logs", tmp_path)
    path.parent.mkdir(parents=True)
    path.write_text(json.dumps({"version": FORMAT_VERSION, "views": {"scalars@./a": [1, 2], "images@./a": {"x": 1}}}))
    workspace, notice = Workspace.open("/data/logs", home=tmp_path)
    assert notice == f"workspace {path}: 1 damaged entry ignored; the others kept"
    assert workspace.get("./a", "scalars") == {} and workspace.get("./a", "images") == {"x": 1}


def test_the_write_is_atomic_and_leaves_no_temporary_file(tmp_path):
    workspace, _ = Workspace.open("/data/logs", home=tmp_path)
    workspace.remember("./a", "scalars", {"smoothing": 0.6})
    workspace.save()
    files = os.listdir(workspace.path.parent)
    assert files == [workspace.path.name]


def test_an_unwritable_state_directory_is_a_sentence(tmp_path):
    blocker = tmp_path / "state"
    blocker.write_text("a file where the directory should be")
    workspace, notice = Workspace.open("/data/logs", home=blocker)
    assert notice.startswith("workspace not kept") and "not a directory" in notice
    workspace.remember("./a", "scalars", {"smoothing": 0.6})
    assert workspace.save() == "" and blocker.read_text() == "a file where the directory should be"
