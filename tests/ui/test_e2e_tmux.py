"""End to end: the installed `tui-insight` in a real terminal (tmux) on the fixture logs.

Types keys the way a user does and reads the screen back with `tmux capture-pane`.
"""
from __future__ import annotations

import os
import shutil
import subprocess
import time
import uuid

from uihelp import MINDSPORE_LOGS


class Tmux:
    def __init__(self, width: int = 110, height: int = 32):
        self.socket = f"tui-insight-test-{uuid.uuid4().hex[:8]}"  # a private server: no clash with users
        self.width, self.height = width, height

    def run(self, *args: str) -> str:
        done = subprocess.run(["tmux", "-L", self.socket, *args], capture_output=True, text=True, timeout=20)
        return done.stdout

    def start(self, command: str) -> None:
        self.run("new-session", "-d", "-s", "e2e", "-x", str(self.width), "-y", str(self.height),
                 f"{command}; echo EXITED-$?; sleep 30")

    def keys(self, *keys: str) -> None:
        for key in keys:  # one at a time: escape followed by a letter would read as alt+letter
            self.run("send-keys", "-t", "e2e", key)
            time.sleep(0.15)

    def screen(self) -> str:
        return self.run("capture-pane", "-p", "-t", "e2e")

    def wait_for(self, text: str, timeout: float = 15.0) -> str:
        deadline = time.monotonic() + timeout
        screen = ""
        while time.monotonic() < deadline:
            screen = self.screen()
            if text in screen:
                return screen
            time.sleep(0.1)
        raise AssertionError(f"{text!r} never showed; the screen was:\n{screen}")

    def kill(self) -> None:
        self.run("kill-server")


def test_installed_tui_insight_in_tmux(tmp_path):
    # A copy with fresh mtimes: the cut file reads as still being written ("growing"), however
    # long ago the fixtures were checked out (after 10 idle minutes it would be "truncated").
    logs = tmp_path / "logs"
    shutil.copytree(MINDSPORE_LOGS, logs, copy_function=shutil.copy)
    for path in [logs, *logs.rglob("*")]:
        path.chmod(0o755 if path.is_dir() else 0o644)  # the fixtures may be read-only
    executable = shutil.which("tui-insight")
    assert executable, "the console script is not installed (pip install -e .)"
    assert shutil.which("tmux"), "tmux is needed for the end-to-end test"
    term = Tmux()
    env = f"TERM=xterm-256color TUI_INSIGHT_KEYMAP={os.devnull}"
    try:
        term.start(f"env {env} {executable} {logs} --reload-interval 1")
        screen = term.wait_for("8 jobs")  # loaded in the background; the list filled in
        assert "./lenet_lr0.01" in screen and "growing" in screen
        term.keys("/", "l", "e", "n", "e", "t", "Enter")
        screen = term.wait_for("./lenet_lr0.1 ")
        assert "./limits" not in screen
        term.keys("Enter")  # the first filtered job: ./lenet_lr0.01
        screen = term.wait_for("custom/acc_proxy")
        assert "1 Scalars" in screen and "x: step" in screen
        term.keys("s", "s", "Right")
        screen = term.wait_for("smoothing 0.2")
        assert "step 1 " in screen and "smoothed" in screen  # the value cursor's read-out
        term.keys("2")
        term.wait_for("conv1.weight/auto")  # the histogram view (or its placeholder) lists the tags
        term.keys("?")
        term.wait_for("dashboard.histograms")  # help lists the bindings with their ids
        term.keys("Escape")
        time.sleep(0.3)
        term.keys("3")
        screen = term.wait_for("3x4x5 DT_FLOAT32")  # the tensor view: custom/t3d, its last step
        assert "[0,:,:]" in screen  # the default slice, as MindInsight sets it
        term.keys("4")
        term.wait_for("32×16")  # the images view labels each image with its size
        term.keys("5")
        term.wait_for("Default (117)")  # the graph's top scope and how many nodes it holds
        term.keys("Escape")  # back to the job list
        term.wait_for("job ▲")
        term.keys("l")
        screen = term.wait_for("summary_dir")  # lineage of all jobs: only those that have lineage
        assert "./resnetish_bs32" in screen and "./lenet_lr0.01" in screen and "./limits" not in screen
        term.keys("Escape")
        term.wait_for("job ▲")
        term.keys("q")
        term.wait_for("EXITED-0")
    finally:
        term.kill()
