"""Shell completion: `tui-insight --completion bash|zsh|fish` prints a script made from the
command line's own parser, so the flags it completes are always the ones that exist.

The scripts complete flags, the values of flags with a fixed set (`--view`, `--export`,
`--theme`, `--completion`), directories for LOGDIR and `--out`, files for `--ssh-config`, and
the job names of a local LOGDIR for `--job` and `--compare` (after a comma too). For those the
script runs `tui-insight --complete-jobs CURRENT WORD...` (CURRENT: the word being completed;
WORD...: the words of the command line after the program, CURRENT among them), which finds LOGDIR among the words, lists its jobs
(`summary.discovery`: directory listings only, no file is read) and prints those that
complete CURRENT, one a line. A LOGDIR on another machine or in object storage completes
nothing: a TAB must not open a connection.
"""
from __future__ import annotations

import argparse
import os
import shlex
import sys

from .summary.sources.location import remote_kind

JOB_OPTIONS = ("--job", "--compare")
DIRECTORY_OPTIONS = ("--out",)
FILE_OPTIONS = ("--ssh-config",)


def theme_names() -> list[str]:
    from textual.theme import BUILTIN_THEMES

    from .ui.app import load_themes

    return sorted({theme.name for theme in load_themes()} | set(BUILTIN_THEMES))


class Option:
    """One flag of the parser as a completion script needs it."""

    def __init__(self, action: argparse.Action):
        self.names = list(action.option_strings)
        self.takes_value = action.nargs != 0
        self.repeats = isinstance(action, argparse._AppendAction)
        self.help = (action.help or "").split(";")[0].split(" (")[0].strip()
        self.metavar = str(action.metavar or action.dest.upper())
        name = self.names[-1]
        if name == "--theme":
            self.values: list[str] | None = theme_names()
        else:
            self.values = [str(choice) for choice in action.choices] if action.choices else None
        self.kind = ("jobs" if name in JOB_OPTIONS else "dirs" if name in DIRECTORY_OPTIONS
                     else "files" if name in FILE_OPTIONS else "choices" if self.values else "text")


def options(parser: argparse.ArgumentParser) -> list[Option]:
    return [Option(action) for action in parser._actions if action.option_strings
            and action.help != argparse.SUPPRESS]


def value_options(parser: argparse.ArgumentParser) -> set[str]:
    return {name for action in parser._actions if action.option_strings and action.nargs != 0
            for name in action.option_strings}


def completion_script(parser: argparse.ArgumentParser, shell: str) -> str:
    opts = options(parser)
    return {"bash": bash_script, "zsh": zsh_script, "fish": fish_script}[shell](opts)


# -- the scripts -------------------------------------------------------------------------------

def bash_script(opts: list[Option]) -> str:
    cases = []
    for opt in opts:
        if not opt.takes_value:
            continue
        pattern = "|".join(opt.names)
        if opt.kind == "jobs":
            # a name with a character the shell reads specially is quoted (`./run\ a`): readline
            # inserts it as it is
            body = ('local id; COMPREPLY=(); while IFS= read -r id; do '
                    '[[ $id == *[!A-Za-z0-9._/,=+@%:-]* ]] && printf -v id %q "$id"; COMPREPLY+=("$id"); '
                    'done < <("${COMP_WORDS[0]}" --complete-jobs "$cur" "${COMP_WORDS[@]:1}" 2>/dev/null)')
        elif opt.kind == "dirs":
            body = 'compopt -o filenames 2>/dev/null; COMPREPLY=($(compgen -d -- "$cur"))'
        elif opt.kind == "files":
            body = 'compopt -o filenames 2>/dev/null; COMPREPLY=($(compgen -f -- "$cur"))'
        elif opt.kind == "choices":
            body = f'COMPREPLY=($(compgen -W {shlex.quote(" ".join(opt.values or []))} -- "$cur"))'
        else:
            body = "COMPREPLY=()"
        cases.append(f"        {pattern}) {body}; return 0;;")
    flags = " ".join(name for opt in opts for name in opt.names)
    return f"""\
# tui-insight completion for bash: eval "$(tui-insight --completion bash)" in ~/.bashrc
_tui_insight() {{
    local cur=${{COMP_WORDS[COMP_CWORD]}} opt=${{COMP_WORDS[COMP_CWORD-1]}}
    # --opt=value: bash splits the word at '=' (COMP_WORDBREAKS)
    if [[ $cur == "=" ]]; then cur=""
    elif [[ $opt == "=" ]]; then opt=${{COMP_WORDS[COMP_CWORD-2]}}
    else [[ $cur == -* ]] && opt=""
    fi
    case $opt in
{chr(10).join(cases)}
    esac
    if [[ $cur == -* ]]; then
        COMPREPLY=($(compgen -W {shlex.quote(flags)} -- "$cur"))
    else
        compopt -o filenames 2>/dev/null; COMPREPLY=($(compgen -d -- "$cur"))
    fi
}}
complete -F _tui_insight tui-insight
"""


def _zsh_text(text: str) -> str:
    return text.replace("\\", "\\\\").replace("[", "\\[").replace("]", "\\]").replace(":", "\\:")


def zsh_script(opts: list[Option]) -> str:
    specs = []
    for opt in opts:
        exclusive = f"({' '.join(opt.names)})" if len(opt.names) > 1 and not opt.repeats else ""
        for name in opt.names:
            spec = (f"{exclusive}{'*' if opt.repeats else ''}{name}"
                    f"{'=' if opt.takes_value and name.startswith('--') else ''}[{_zsh_text(opt.help)}]")
            if opt.takes_value:
                action = {"jobs": "_tui_insight_jobs", "dirs": "_files -/", "files": "_files",
                          "choices": f"({' '.join(opt.values or [])})", "text": " "}[opt.kind]
                spec += f":{_zsh_text(opt.metavar)}:{action}"
            specs.append("'" + spec.replace("'", "'\\''") + "'")
    lines = " \\\n        ".join(specs)
    return f"""\
#compdef tui-insight
# tui-insight completion for zsh: eval "$(tui-insight --completion zsh)" in ~/.zshrc (after compinit),
# or save it as _tui-insight in a directory of $fpath
_tui_insight_jobs() {{
    local -a ids
    ids=("${{(@f)$(${{words[1]}} --complete-jobs "$PREFIX" "${{(@)words[2,-1]}}" 2>/dev/null)}}")
    compadd -- "${{(@)ids:#}}"
}}
_tui_insight() {{
    _arguments -s \\
        {lines} \\
        '::LOGDIR:_files -/'
}}
if [[ $zsh_eval_context[-1] == loadautofunc ]]; then
    _tui_insight "$@"
else
    compdef _tui_insight tui-insight
fi
"""


def _fish_text(text: str) -> str:
    return "'" + text.replace("\\", "\\\\").replace("'", "\\'") + "'"


def fish_script(opts: list[Option]) -> str:
    lines = ["# tui-insight completion for fish: tui-insight --completion fish > ~/.config/fish/completions/tui-insight.fish",
             "function __tui_insight_jobs",
             "    set -l words (commandline -opc)",
             "    $words[1] --complete-jobs (commandline -ct) $words[2..-1] (commandline -ct) 2>/dev/null",
             "end",
             "complete -c tui-insight -f -a '(__fish_complete_directories)'"]
    for opt in opts:
        names = " ".join(f"-l {name[2:]}" if name.startswith("--") else f"-s {name[1:]}" for name in opt.names)
        line = f"complete -c tui-insight {names} -d {_fish_text(opt.help)}"
        if opt.takes_value:
            line += {"jobs": " -x -a '(__tui_insight_jobs)'", "dirs": " -x -a '(__fish_complete_directories)'",
                     "files": " -r -F", "choices": f" -x -a {_fish_text(' '.join(opt.values or []))}",
                     "text": " -x"}[opt.kind]
        lines.append(line)
    return "\n".join(lines) + "\n"


# -- the jobs of a LOGDIR, on TAB --------------------------------------------------------------

def print_job_completions(parser: argparse.ArgumentParser, argv: list[str]) -> int:
    """`--complete-jobs CURRENT WORD...`: the job names completing CURRENT, one a line (WORD...:
    the command line's words after the program, CURRENT among them, so a flag's value is one). Prints
    nothing (status 0) when there is no local LOGDIR among the words or it cannot be listed."""
    if not argv:
        return 0
    current, words = argv[0], argv[1:]
    logdir = find_logdir(words, value_options(parser))
    if logdir is None or remote_kind(logdir) is not None:
        return 0
    from .summary.sources.discovery import discover

    try:
        train_ids = list(discover(os.path.expanduser(logdir)).jobs)
    except (OSError, ValueError):
        return 0
    out = sys.stdout.buffer
    for candidate in job_completions(current, train_ids):
        out.write(os.fsencode(candidate) + b"\n")
    return 0


def find_logdir(words: list[str], takes_value: set[str]) -> str | None:
    """The first word that is neither a flag nor a flag's value (bash splits `--opt=value` at `=`)."""
    words = [_unquoted(word) for word in words]
    skip = False
    after_dashes = False
    for index, word in enumerate(words):
        if skip:
            skip = word == "="  # `--opt` `=` `value`: the value is next
            continue
        if word == "--" and not after_dashes:
            after_dashes = True
            continue
        if word.startswith("-") and not after_dashes and word != "-":
            skip = "=" not in word and word in takes_value
            continue
        if word in ("=", ":") or (index + 1 < len(words) and words[index + 1] == ":"):
            return None  # host:path split at ':' by bash: not local
        return word
    return None


def _unquoted(word: str) -> str:
    try:
        parts = shlex.split(word)
    except ValueError:  # an open quote
        parts = shlex.split(word + word[:1]) if word[:1] in "'\"" else [word]
    return parts[0] if len(parts) == 1 else word


def job_completions(current: str, train_ids: list[str]) -> list[str]:
    """The names completing `current`: `./lenet` forms, or `lenet` ones when `current` does not
    start with `.`; after a comma (`--compare ./a,./`), the jobs not yet named. Names holding
    control characters are left out: they cannot be typed as one word."""
    current = _unquoted(current)
    if current.startswith("--") and "=" in current:  # fish passes `--job=./le`
        current = current.split("=", 1)[1]
    head, _, tail = current.rpartition(",")
    head = head + "," if _ else ""
    named = {name if name.startswith("./") else "./" + name for name in head.split(",") if name}
    found = []
    for train_id in train_ids:
        if train_id in named or any(ord(c) < 32 or ord(c) == 127 for c in train_id):
            continue
        form = train_id if tail.startswith(".") or not tail else train_id.removeprefix("./")
        if form and form.startswith(tail):
            found.append(head + form)
    return found
