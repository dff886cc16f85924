"""End to end: the installed `tui-insight` in a real terminal (tmux) on the fixture logs.

Types keys the way a user does and reads the screen back with `tmux capture-pane`. Every step
waits, up to a deadline, for the screen to show what the keys lead to (and no longer show what
they take away) before it reads anything from it: no fixed sleeps, so a loaded machine makes the
test slower, not red. (It used to wait for text that was already on the screen before the keys
took effect, `./lenet_lr0.1` while filtering for `lenet`, and then read the screen too early.)
Without tmux or the `tui-insight` command it fails and says which is missing.
"""
from __future__ import annotations

import os
import re
import shlex
import shutil
import subprocess
import time
import uuid
from pathlib import Path

import pytest

from uihelp import MINDSPORE_LOGS

STEP_TIMEOUT = 30.0  # seconds one step may take on a busy 2-core machine


class Tmux:
    def __init__(self, width: int = 110, height: int = 32):
        self.socket = f"tui-insight-test-{uuid.uuid4().hex[:8]}"  # a private server: no clash with users
        self.width, self.height = width, height

    def run(self, *args: str, check: bool = True) -> str:
        done = subprocess.run(["tmux", "-L", self.socket, *args], capture_output=True, text=True, timeout=20)
        if check and done.returncode != 0:
            raise AssertionError(f"tmux {' '.join(args[:1])} failed ({done.returncode}): {done.stderr.strip()}")
        return done.stdout

    def start(self, command: str) -> None:
        """`command` in the pane, without COLUMNS and LINES: a size in the environment wins over the
        terminal's own (Python's `shutil.get_terminal_size`, which Textual reads), and the test
        runner's can be 80x24 whatever size the pane has."""
        self.run("new-session", "-d", "-s", "e2e", "-x", str(self.width), "-y", str(self.height),
                 f"unset COLUMNS LINES; {command}; echo EXITED-$?; sleep 60")

    def keys(self, *keys: str) -> None:
        for key in keys:  # one at a time: escape followed by a letter would read as alt+letter
            self.run("send-keys", "-t", "e2e", key)
            time.sleep(0.05)

    def burst(self, *keys: str) -> None:
        """`keys` in one write, as typed ahead or sent over a slow ssh link arrive."""
        self.run("send-keys", "-t", "e2e", *keys)

    def screen(self) -> str:
        return self.run("capture-pane", "-p", "-t", "e2e")

    def wait_for(self, *texts: str, absent: tuple[str, ...] = (), timeout: float = STEP_TIMEOUT) -> str:
        """The screen once it shows every one of `texts` and none of `absent`."""
        deadline = time.monotonic() + timeout
        while True:
            screen = self.screen()
            missing = [t for t in texts if t not in screen]
            still = [t for t in absent if t in screen]
            if not missing and not still:
                return screen
            if "EXITED-" in screen and not any("EXITED-" in t for t in texts):
                raise AssertionError(f"tui-insight exited while waiting for {missing or still}:\n{screen}")
            if time.monotonic() > deadline:
                raise AssertionError(f"after {timeout:.0f}s the screen still lacks {missing} / still shows "
                                     f"{still}; it was:\n{screen}")
            time.sleep(0.1)

    def kill(self) -> None:
        self.run("kill-server", check=False)


def required_commands() -> tuple[str, str]:
    """tmux and the installed `tui-insight`, or a failure naming what is missing (never a skip)."""
    tmux = shutil.which("tmux")
    executable = shutil.which("tui-insight")
    missing = []
    if not tmux:
        missing.append("tmux is not installed (the end-to-end test drives a real terminal: apt-get install tmux)")
    if not executable:
        missing.append("the `tui-insight` command is not on PATH (pip install -e '.[test]' installs it)")
    if missing:
        pytest.fail("; ".join(missing), pytrace=False)
    return tmux, executable


def app_command(home: Path, program: list[str], *args: str, env: dict[str, str] | None = None,
                cwd: Path | None = None, replace_shell: bool = False) -> str:
    """The shell command that runs `program` with `args` in a home of its own: state, config and
    cache under `home`, no keymap of the user's, `env` added. `replace_shell` execs the program, so
    the pane's pid is the app's."""
    environment = {"TERM": "xterm-256color", "TUI_INSIGHT_KEYMAP": os.devnull,
                   **{f"XDG_{base.upper()}_HOME": str(home / base) for base in ("state", "config", "cache")},
                   **(env or {})}
    return " ".join([*(["cd", shlex.quote(str(cwd)), "&&"] if cwd else []), "exec env" if replace_shell else "env",
                     *(f"{k}={shlex.quote(v)}" for k, v in environment.items()),
                     *map(shlex.quote, [*program, *args])])


def test_missing_commands_fail_with_the_reason(monkeypatch):
    monkeypatch.setenv("PATH", "/nonexistent")
    with pytest.raises(pytest.fail.Exception, match="tmux is not installed.*`tui-insight` command is not on PATH"):
        required_commands()


def test_installed_tui_insight_in_tmux(tmp_path: Path):
    _tmux, executable = required_commands()
    # A copy with fresh mtimes: the cut file reads as still being written ("growing"), however
    # long ago the fixtures were checked out (after 10 idle minutes it would be "truncated").
    logs = tmp_path / "logs"
    shutil.copytree(MINDSPORE_LOGS, logs, copy_function=shutil.copy)
    for path in [logs, *logs.rglob("*")]:
        path.chmod(0o755 if path.is_dir() else 0o644)  # the fixtures may be read-only
    # State (the workspace file), config and cache under tmp_path, not ~
    command = app_command(tmp_path, [executable], str(logs), "--reload-interval", "1")
    term = Tmux()
    try:
        term.start(command)
        term.wait_for("8 jobs", "./lenet_lr0.01")  # loaded in the background; the list filled in
        term.keys("Down", "Down")  # the state's glyph is said whole under the list for the cursor job
        term.wait_for("./damaged_truncated · + growing")
        term.keys("Home")
        # Typed ahead in one burst: the first enter ends the filter, the second opens the first
        # filtered job (./lenet_lr0.01; unfiltered, the first row is the root's job).
        term.burst("/lenet", "Enter", "Enter")
        term.wait_for("./lenet_lr0.01", "custom/acc_proxy", "1 Scalars", "x: step")
        term.keys("s", "s", "Right")
        term.wait_for("smoothing 0.2", "step 1 ", "smoothed")  # the value cursor's read-out
        term.keys("2")
        term.wait_for("conv1.weight/auto")  # the histogram view lists the tags
        term.keys("?")
        term.wait_for("dashboard.histograms")  # help lists the bindings with their ids
        term.keys("Escape")
        term.wait_for("conv1.weight/auto", absent=("dashboard.histograms",))  # help closed
        term.keys("3")
        term.wait_for("3x4x5 DT_FLOAT32", "[0,:,:]")  # the tensor view: custom/t3d, its last step, default slice
        term.keys("4")
        term.wait_for("32×16")  # the images view labels each image with its size
        term.keys("5")
        term.wait_for("Default (117)")  # the graph's top scope and how many nodes it holds
        term.keys("Escape")  # back to the job list
        term.wait_for("‹health ▼›", "headline", "best@step")  # the health columns: jobs' losses differ in name
        term.keys("m")
        term.wait_for("Headline metric of every job", "each job's loss (the default)", "loss/auto")
        term.keys("Escape")
        term.wait_for("‹health ▼›", absent=("Headline metric of every job",))
        term.keys("l")
        # Lineage of all jobs: only those that have lineage.
        term.wait_for("summary_dir", "./resnetish_bs32", "./lenet_lr0.01", absent=("./limits",))
        term.keys("p")  # parallel coordinates over the table's columns
        term.wait_for("3/3 runs inside", "colour metric/Accuracy")
        term.keys("]", "]")  # brush: the low end of the picked axis (network) up: only one network left
        term.wait_for("1/3 runs inside", "1 shown by network=ResNetish")
        term.keys("Escape")  # the brush is the filter: escape clears it
        term.wait_for("3/3 runs inside", absent=("shown by",))
        term.keys("i")  # parameter importance, MindInsight's measure beside Spearman and n
        term.wait_for("importance", "Pearson", "Spearman", "too few runs (n=2)")
        term.keys("Escape")  # closes the panel
        term.wait_for("summary_dir", absent=("Spearman",))
        term.keys("Escape")
        term.wait_for("‹health ▼›", absent=("summary_dir",))
        term.keys("q")
        term.wait_for("EXITED-0")
    finally:
        term.kill()


def test_loss_landscape_and_profiler_in_tmux(tmp_path: Path):
    """Views 6 and 7 on real MindSpore output: straight to a landscape from the command line,
    its relief, then another job's profile and its operator table."""
    from fixture_paths import EXTRAS_LOGS

    _tmux, executable = required_commands()
    command = app_command(tmp_path, [executable], str(EXTRAS_LOGS), "--reload-interval", "0",
                          "--job", "landscape_step", "--view", "landscape")
    term = Tmux(width=120, height=40)
    try:
        term.start(command)
        term.wait_for("steps 1–5", "steps 6–8", "final (step 8)", "decomposition PCA")
        term.keys("v")
        term.wait_for("relief 30°", "azimuth 30°")
        term.keys("Escape")
        term.wait_for("‹health ▼›", "./profiled_legacy")
        term.keys("/", "l", "e", "g", "a", "c", "y", "Enter")
        term.wait_for("./profiled_legacy", absent=("./landscape_step",))
        term.keys("Enter", "7")
        term.wait_for("Operator types │ Operators", "Conv2D", "48.77%")
        term.keys("]")
        term.wait_for("total ms ▼", "Conv2D-op0")
        term.keys("q")
        term.wait_for("EXITED-0")
    finally:
        term.kill()


def test_summary_on_an_80_column_terminal_fits_and_names_what_it_left_out():
    """`--summary` in a real 80-column terminal: no line wraps; the job, its health and the
    headline's value, best and trend stay; the columns left out are named (a pipe gets all)."""
    _tmux, executable = required_commands()
    tmux = Tmux(width=80, height=24)
    try:
        tmux.start(f"{shlex.quote(executable)} {shlex.quote(str(MINDSPORE_LOGS))} --summary --no-cache")
        screen = tmux.wait_for("EXITED-")
    finally:
        tmux.kill()
    lines = screen.splitlines()
    header = next(line for line in lines if line.startswith("job "))
    for column in ("job", "health", "last", "best@step", "trend"):
        assert column in header.split()
    assert "updated" not in header
    start = next(i for i, line in enumerate(lines) if line.startswith("(not shown at this width:"))
    end = next(i for i, line in enumerate(lines) if line.startswith("EXITED-"))
    note = " ".join(lines[start:end])
    assert "updated" in note and "--json has them" in note
    rows = lines[lines.index(header) + 1:start]
    assert rows and all(line.startswith("./") for line in rows)  # a row per job, none wrapped


TABLE_ROW = re.compile(r"^\s*●?\s*\./run_(\d{5})\s{2}")  # a row of the job table (the cursor line: "id · …")


@pytest.mark.parametrize("size", [(80, 24), (160, 48)], ids=["80x24", "160x48"])
def test_a_cold_start_of_1000_runs_paints_the_terminal_with_no_row_missing(tmp_path: Path, monkeypatch, size):
    """What reaches a real terminal while 1,000 runs load, the list sorted by name (an order the
    user chose, remembered): every frame tmux holds shows the first rows, run_00000 on, none
    missing, none out of place; once loaded, the screen's worth of them. (A frame may end early:
    tmux can be read while a frame is half written, top down, as a terminal without synchronized
    output shows it for a moment.)"""
    from uihelp import write_run

    from tui_insight.workspace import Workspace, workspace_path

    _tmux, executable = required_commands()
    logs = tmp_path / "logs"
    for i in range(1000):
        write_run(logs, f"run_{i:05d}", steps=2, tags=("loss",))
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path / "state"))  # the app's (`app_command`)
    workspace = Workspace(str(logs), workspace_path(str(logs)))
    workspace.remember("app", "jobs", {"sort_key": "id", "reverse": False, "sort_chosen": True})
    workspace.path.parent.mkdir(parents=True)
    assert workspace.save() == ""
    command = app_command(tmp_path, [executable], str(logs), "--reload-interval", "0")
    term = Tmux(*size)
    frames = []
    try:
        term.start(command)
        deadline = time.monotonic() + 4 * STEP_TIMEOUT
        while time.monotonic() < deadline:
            screen = term.screen()
            frames.append([int(m.group(1)) for line in screen.splitlines() if (m := TABLE_ROW.match(line))])
            if "1,000 jobs · 1,000 files" in screen and "loading" not in screen:
                break
            time.sleep(0.02)
        else:
            raise AssertionError(f"the 1,000 runs did not load; the screen was:\n{screen}")
        term.keys("q")
        term.wait_for("EXITED-0")
    finally:
        term.kill()
    final = frames[-1]
    assert final == list(range(len(final))) and len(final) >= size[1] // 2
    wrong = [(i, rows) for i, rows in enumerate(frames) if rows != final[:len(rows)]]
    assert not wrong, f"{len(wrong)} of {len(frames)} frames: {wrong[:3]}"
    assert sum(1 for rows in frames if rows) >= 2  # frames were read while the runs loaded


def _wakeups(pid: int) -> dict[str, int]:
    """Each thread of `pid` and how often it went to sleep and woke (voluntary context switches)."""
    counts = {}
    for task in Path(f"/proc/{pid}/task").iterdir():
        status = (task / "status").read_text()
        counts[task.name] = int(re.search(r"^voluntary_ctxt_switches:\s+(\d+)", status, re.M).group(1))
    return counts


def test_an_idle_app_in_a_terminal_lets_its_threads_sleep(tmp_path: Path):
    """Left alone in a real terminal (no reloads), no thread of the app wakes more than the clock's
    once a second: Textual's input thread waited 0.1 s at a time (30 wakeups in 3 s), now it
    sleeps until a key comes. Keys still come through after the wait: a lone escape (known by the
    parser's timeout) closes help, `q` quits."""
    _tmux, executable = required_commands()
    command = app_command(tmp_path, [executable], str(MINDSPORE_LOGS), "--reload-interval", "0", replace_shell=True)
    term = Tmux(width=100, height=30)
    try:
        term.run("new-session", "-d", "-s", "e2e", "-x", "100", "-y", "30", f"unset COLUMNS LINES; {command}")
        term.wait_for("8 jobs", "./lenet_lr0.01")
        time.sleep(4.0)  # what the app prepares once loaded (imports ahead, job rows) done
        pid = int(term.run("display-message", "-p", "-t", "e2e", "#{pane_pid}").strip())  # exec: the app
        before = _wakeups(pid)
        time.sleep(3.0)
        after = _wakeups(pid)
        woke = {tid: after[tid] - before[tid] for tid in before if tid in after}
        assert max(woke.values()) <= 6, woke
        term.keys("?")
        term.wait_for("Keys: Job list")
        term.keys("Escape")
        term.wait_for("‹health ▼›", absent=("Keys: Job list",))
        term.keys("q")
        deadline = time.monotonic() + STEP_TIMEOUT
        while Path(f"/proc/{pid}").exists() and time.monotonic() < deadline:
            time.sleep(0.1)
        assert not Path(f"/proc/{pid}").exists()  # quit
    finally:
        term.kill()
