"""Shell completion (issue 27): the script `--completion bash` prints, sourced in a real bash and
asked the way bash's readline asks (COMP_WORDS, COMP_CWORD, then the function `complete -p`
names), completes flags, `--view` values and the jobs of a local LOGDIR through the program
itself (a `tui-insight` on PATH running this checkout)."""
from __future__ import annotations

import os
import shlex
import subprocess
import sys
from pathlib import Path

import pytest
from fixture_paths import MINDSPORE_LOGS

from tui_insight import cli

REPO = Path(__file__).resolve().parents[1]
LOGS = str(MINDSPORE_LOGS)


@pytest.fixture(scope="module")
def program_dir(tmp_path_factory) -> Path:
    """A directory holding a `tui-insight` that runs this checkout (what the script calls on TAB)."""
    bin_dir = tmp_path_factory.mktemp("bin")
    program = bin_dir / "tui-insight"
    program.write_text(f"#!/bin/sh\nPYTHONPATH={shlex.quote(str(REPO))} exec {shlex.quote(sys.executable)} "
                       f"-m tui_insight \"$@\"\n")
    program.chmod(0o755)
    # The script as the program prints it, once: each bash below evaluates this text, as
    # `eval "$(tui-insight --completion bash)"` would (0.5 CPU-s a run of the program saved
    # for each of ~20 completions; the test of the eval line itself runs the program).
    script = subprocess.run([str(program), "--completion", "bash"], capture_output=True, text=True,
                            timeout=60, check=True).stdout
    (bin_dir / "completion.bash").write_text(script)
    return bin_dir


def bash(program_dir: Path, commands: str, setup: str = "") -> str:
    """The output of `commands` in a bash where `setup` installed the completion (by default the
    script the program printed: `program_dir`)."""
    env = {**os.environ, "PATH": f"{program_dir}{os.pathsep}{os.environ['PATH']}"}
    setup = setup or f'eval "$(cat {shlex.quote(str(program_dir / "completion.bash"))})"'
    done = subprocess.run(["bash", "--norc", "--noprofile", "-c", f"{setup}\n{commands}"],
                          capture_output=True, text=True, env=env, timeout=60)
    assert done.returncode == 0, done.stderr
    return done.stdout


def complete(program_dir: Path, *words: str, cword: int | None = None) -> list[str]:
    """What bash offers for the last of `words`, or the `cword`th (from 1), split as bash splits
    (`--view=sc` is `--view = sc`)."""
    array = " ".join(shlex.quote(word) for word in ("tui-insight", *words))
    out = bash(program_dir, f"COMP_WORDS=({array}); COMP_CWORD={cword or len(words)}\n"
                            "func=$(complete -p tui-insight | sed -E 's/.*-F ([^ ]+).*/\\1/')\n"
                            "$func; printf '%s\\n' \"${COMPREPLY[@]}\"")
    return [line for line in out.splitlines() if line]


def test_the_script_registers_a_completion_for_the_command(program_dir):
    """The line a user puts in ~/.bashrc, as it stands (it runs the program)."""
    setup = 'eval "$(tui-insight --completion bash)"'
    assert bash(program_dir, "complete -p tui-insight", setup=setup).startswith("complete -F ")


def test_flags_are_the_parsers_own(program_dir):
    parser_flags = {name for action in cli.build_parser()._actions for name in action.option_strings}
    assert set(complete(program_dir, "-")) == parser_flags
    assert complete(program_dir, LOGS, "--no-b") == ["--no-bell", "--no-bell-stalled"]
    assert complete(program_dir, "--compl") == ["--completion"]


def test_views_complete_after_a_space_or_an_equals_sign(program_dir):
    assert complete(program_dir, LOGS, "--job", "x", "--view", "") == list(cli.VIEW_CHOICES)
    assert complete(program_dir, LOGS, "--view", "sc") == ["scalars"]
    assert complete(program_dir, LOGS, "--view", "=", "l") == ["landscape", "lineage"]
    assert complete(program_dir, LOGS, "--export", "") == ["csv", "parquet", "arrow"]


def test_jobs_of_the_logdir_complete_job_and_compare(program_dir):
    assert complete(program_dir, LOGS, "--job", "./len") == ["./lenet_lr0.01", "./lenet_lr0.1"]
    assert complete(program_dir, LOGS, "--job", "res") == ["resnetish_bs32"]
    # LOGDIR after the flag, and flags with values between
    assert complete(program_dir, "--view", "scalars", "--job", "./res", "--workers", "2", LOGS, cword=4) \
        == ["./resnetish_bs32"]
    assert complete(program_dir, "--view", "scalars", LOGS, "--job", "./res") == ["./resnetish_bs32"]
    assert complete(program_dir, LOGS, "--compare", "./lenet_lr0.1,./len") == ["./lenet_lr0.1,./lenet_lr0.01"]
    assert complete(program_dir, LOGS, "--compare", "=", "./lenet_lr0.1,./re") == ["./lenet_lr0.1,./resnetish_bs32"]


def test_a_job_name_with_a_space_is_completed_quoted(program_dir, tmp_path):
    (tmp_path / "run a").mkdir()
    (tmp_path / "run a" / "events.out.summary.1").write_bytes(b"")  # a job by its name alone
    (tmp_path / "run\x1bb").mkdir()
    (tmp_path / "run\x1bb" / "events.out.summary.1").write_bytes(b"")  # cannot be typed: left out
    assert complete(program_dir, str(tmp_path), "--job", "./r") == ["./run\\ a"]
    assert complete(program_dir, str(tmp_path), "--job", "ru") == ["run\\ a"]


def test_no_logdir_or_a_remote_one_completes_no_job(program_dir):
    assert complete(program_dir, "--job", "./") == []
    assert complete(program_dir, "user@nowhere.invalid", ":", "/logs", "--job", "./") == []
    assert complete(program_dir, "s3://bucket/runs", "--job", "./") == []
    assert complete(program_dir, "/no/such/dir", "--job", "./") == []


def printed(capsys, *argv: str) -> str:
    """What the program prints for `argv`, run in this process (`cli.main`, as the command runs it)."""
    capsys.readouterr()
    assert cli.main(list(argv)) == 0
    return capsys.readouterr().out


def test_zsh_and_fish_scripts_name_every_flag(capsys):
    parser_flags = {name for action in cli.build_parser()._actions for name in action.option_strings}
    zsh = printed(capsys, "--completion", "zsh")
    fish = printed(capsys, "--completion", "fish")
    for flag in parser_flags:
        assert f"{flag}[" in zsh or f"{flag}=[" in zsh, flag
        assert (f"-l {flag[2:]} " if flag.startswith("--") else f"-s {flag[1:]} ") in fish, flag
