"""Command line: open the terminal UI on a log directory, or export a CSV snapshot headless."""
from __future__ import annotations

import argparse
import atexit
import gc
import math
import os
import sys
from contextlib import contextmanager
from pathlib import Path
from typing import Iterator, NoReturn

# numpy's OpenBLAS starts a thread per core when numpy is imported, spinning for ~40 ms of CPU
# (a third of the import); nothing here multiplies matrices big enough to want them. Set
# before anything imports numpy; a user's own setting stands.
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")

from . import __version__  # noqa: E402
from .config import Config, fill_options, load_config, parse_size  # noqa: E402
from .escape import shown  # noqa: E402
from .summary.sources.location import expand_braces, remote_kind  # noqa: E402

EPILOG = """\
examples:
  tui-insight ./logs                                   open the dashboard on ./logs
  tui-insight ./logs --job ./lenet --view scalars --tags 'loss|acc'
                                                       open straight on one job's loss and acc charts
  tui-insight ./logs --compare ./a,./b                 compare two jobs
  tui-insight --demo                                   open it on demo logs, one run still training
  tui-insight ./logs --export csv --out ./snapshot     write jobs/scalars/histograms/tensors/images/lineage .csv
  tui-insight ./logs --export csv --out ./s --all-steps --force
  tui-insight ./logs --summary [--json] [--metric T]   print each job's health once; exit 1 on NaN/diverging
  tui-insight user@host:/data/logs                     read logs on another machine through the system ssh
  tui-insight 'node{1..4}:/logs' ./local               several LOGDIRs as one: jobs named node1:./run, local:./run
  tui-insight s3://bucket/logs --storage-option client_kwargs.endpoint_url=https://...
                                                       read logs in object storage (pip install 'tui-insight[remote]')

LOGDIR and every directory below it that holds MindSpore summary files (names with
'summary.<digits>'), lineage files (ending '_lineage'), graph files ('.pb') or TensorBoard
event files ('tfevents' in the name: PyTorch, tensorboardX, TF2/Keras) is a job.
LOGDIR may be a path, user@host:/path or host:path (ssh: nothing is installed there), or a
URL such as s3://bucket/prefix, obs://bucket/prefix or hdfs://... (fsspec). Nothing is ever
written inside LOGDIR. What each view was set to is remembered per LOGDIR in
$XDG_STATE_HOME/tui-insight/ (~/.local/state/tui-insight); --fresh starts clean.

Several LOGDIRs: each is listed, read and reconnected on its own; one that cannot be reached is
named on stderr (and in the app's problems) while the others load, and --summary and --export
report the others, then exit with status 2.

Defaults for the options come from ~/.config/tui-insight/config.toml ($XDG_CONFIG_HOME, or the
file named by $TUI_INSIGHT_CONFIG); an option given here wins. Every key is optional:
  theme = "insight-light"     reload_interval = 5      bell = true        bell_stalled = false
  memory_budget = "1G"        workers = 4              ssh_max_listing = "128M"   ssh_timeout = 60
  straggler = 0.1
  [keymap]                    binding id (see ? in the app) = "keys", as in keymap.toml
A bad file or value is one warning line here and a notice in the app; the rest still applies.
Shell completion: eval "$(tui-insight --completion bash)" (zsh, fish: see README).
"""

COMPLETION_SHELLS = ("bash", "zsh", "fish")
VIEW_CHOICES = ("scalars", "histograms", "tensors", "images", "graph", "landscape", "profiler", "text", "pr_curves", "custom_scalars",
                "described", "lineage")  # the registry's ids (a test checks)


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="tui-insight",
        description="A keyboard-driven terminal dashboard for MindSpore summary logs and TensorBoard "
                    "event files: scalars, histograms, tensors, images, graphs and lineage, like "
                    "MindInsight and TensorBoard without a browser.",
        epilog=EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("logdirs", nargs="*", metavar="LOGDIR",
                        help="directory of training logs (searched recursively for jobs): a path, "
                             "user@host:/path (ssh) or a URL (s3://, obs://, hdfs://...); several "
                             "are read as one (jobs named by their source), {1..8} and {a,b} expand")
    parser.add_argument("--version", action="version", version=f"tui-insight {__version__}")
    parser.add_argument("--demo", action="store_true",
                        help="write demo logs to a temporary directory (several runs, every kind of data, "
                             "one run that keeps training) and open them")
    parser.add_argument("--reload-interval", type=float, default=None, metavar="SECONDS",
                        help="look for changes this often (default 3; 30 for URLs, where every listing costs a "
                             "request; 0 loads once); where file-change notices work, changes are read as "
                             "notified and this poll, a safety net for what notices miss, backs off to every "
                             "2 min while nothing changes")
    parser.add_argument("--theme", metavar="NAME", help="colour theme (see the command palette for the list)")
    parser.add_argument("--bell", action=argparse.BooleanOptionalAction, default=None,
                        help="ring the terminal bell when a job gains a NaN or diverging badge, so a background "
                             "tmux window flags it (a run that finishes never rings); --no-bell: not even when "
                             "config.toml says bell = true")
    parser.add_argument("--bell-stalled", action=argparse.BooleanOptionalAction, default=None,
                        help="ring it for stalled too: a MindSpore run read on this machine that stopped with its "
                             "summary file still open (implies --bell)")
    parser.add_argument("--completion", choices=COMPLETION_SHELLS, metavar="SHELL",
                        help="print a completion script for bash, zsh or fish (flags, views, a LOGDIR's jobs) and exit")
    scale = parser.add_argument_group("many runs")
    scale.add_argument("--memory-budget", type=byte_size, default=None, metavar="SIZE",
                       help="memory for the series of jobs not on screen, e.g. 300M or 1G (default 256M); "
                            "past it, jobs used longest ago keep only their job-list row")
    scale.add_argument("--workers", type=int, default=None, metavar="N",
                       help="processes reading jobs on their first load (default: one per core; 1: none)")
    scale.add_argument("--no-cache", action="store_true",
                       help="do not keep what was read in $XDG_CACHE_HOME/tui-insight/ (~/.cache/tui-insight), "
                            "from which a second start reads only what is new")
    remote = parser.add_argument_group("logs elsewhere")
    remote.add_argument("--storage-option", action="append", default=[], metavar="KEY=VALUE",
                        help="an fsspec storage option for a URL LOGDIR, repeatable; dotted keys nest "
                             "(client_kwargs.endpoint_url=http://...); credentials also come from the "
                             "environment and config files as the backend reads them")
    remote.add_argument("--ssh-option", action="append", default=[], metavar="OPT",
                        help="passed to ssh as -o OPT (repeatable), for a user@host:/path LOGDIR")
    remote.add_argument("--ssh-config", metavar="FILE", help="passed to ssh as -F FILE")
    remote.add_argument("--ssh-max-listing", type=byte_size, default=None, metavar="SIZE",
                        help="most one ssh listing may send (default 64M, or $TUI_INSIGHT_SSH_MAX_LISTING): "
                             "past it the files further on are not shown; a read may send what it asked for")
    remote.add_argument("--remote-timeout", "--ssh-timeout", dest="ssh_timeout", type=float, default=None,
                        metavar="SECONDS",
                        help="how long an ssh or object-store request may go unanswered (default 30, or "
                             "$TUI_INSIGHT_SSH_TIMEOUT), plus a second per 64 KiB it moves; past it the request "
                             "fails as a dropped connection")
    start = parser.add_argument_group("where to open")
    jobs = start.add_mutually_exclusive_group()
    jobs.add_argument("--job", metavar="ID", help="open this job's dashboard (./lenet, or lenet)")
    jobs.add_argument("--compare", metavar="ID,ID", help="open these jobs compared (comma-separated)")
    start.add_argument("--view", choices=VIEW_CHOICES, metavar="VIEW",
                       help=f"the view to open: {', '.join(VIEW_CHOICES)} (default scalars)")
    start.add_argument("--tags", metavar="FILTER",
                       help="show the tags this filter (regex or text) lets through, e.g. 'loss|acc'")
    start.add_argument("--fresh", action="store_true",
                       help="start clean instead of where you left this LOGDIR (the remembered views)")
    export = parser.add_argument_group("headless export")
    export.add_argument("--export", choices=["csv", "parquet", "arrow"], metavar="FORMAT",
                        help="write a snapshot instead of opening the UI; FORMAT is csv, parquet "
                             "(--out DIR) or arrow (the scalars as an Arrow stream on stdout)")
    export.add_argument("--out", type=Path, metavar="DIR",
                        help="directory for the snapshot (required with --export; never inside LOGDIR)")
    export.add_argument("--all-steps", action="store_true",
                        help="export every step in the files instead of what the cache keeps "
                             "(1000 scalar, 50 histogram, 20 tensor, 10 image steps a tag)")
    export.add_argument("--force", action="store_true", help="write into a non-empty --out directory")
    summary = parser.add_argument_group("headless health summary")
    summary.add_argument("--summary", action="store_true",
                         help="print the job list's health table once (headline metric, badges) and exit: "
                              "status 1 when a job has a NaN or diverging badge, else 0")
    summary.add_argument("--json", action="store_true", help="with --summary: print JSON instead of a table")
    summary.add_argument("--metric", metavar="TAG",
                         help="with --summary: the headline metric (a scalar tag) instead of the one chosen "
                              "with m in the app, or each job's loss")
    parser.add_argument("--straggler", type=fraction, metavar="FRACTION", default=None,
                        help="a rank more than this fraction of its group's median latest step behind it is a "
                             "straggler (default 0.1)")
    return parser


def fraction(text: str) -> float:
    """A number strictly between 0 and 1, for --straggler."""
    try:
        value = float(text)
    except ValueError:
        value = math.nan
    if not 0 < value < 1:
        raise argparse.ArgumentTypeError(f"{text!r} is not a fraction between 0 and 1 (like 0.1)")
    return value


def byte_size(text: str) -> int:
    """`300M`, `1.5G`, `512k`, `1000000` (bytes; powers of 1024) as a positive number of bytes."""
    try:
        return parse_size(text)
    except ValueError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None


def fail(message: str) -> int:
    print(f"tui-insight: error: {shown(message)}", file=sys.stderr)
    return 2


def check_logdir(logdir: str) -> str | None:
    """None if LOGDIR can be read, else a one-line reason."""
    if not os.path.exists(logdir):
        return f"LOGDIR {logdir!r} does not exist"
    if not os.path.isdir(logdir):
        return f"LOGDIR {logdir!r} is not a directory"
    if not os.access(logdir, os.R_OK | os.X_OK):
        return f"LOGDIR {logdir!r} cannot be read (permission denied)"
    return None


def make_source(logdir: str, args: argparse.Namespace, connection=None):
    """The cache's source for LOGDIR (a local path stays a path). Raises SourceError.
    `connection`: for user@host:/path, the one `connect_early` started."""
    kind = remote_kind(logdir)
    if kind is None:
        return logdir
    from .summary.sources.local import SourceError
    from .summary.sources.remote_limits import limits_from

    try:
        limits = limits_from(args.ssh_max_listing, args.ssh_timeout)
    except ValueError as exc:
        raise SourceError(str(exc)) from None
    if kind == "url":
        from .summary.sources.object_store import FsspecSource, parse_storage_options

        return FsspecSource(logdir, parse_storage_options(args.storage_option), limits)
    if kind == "ssh":
        from .summary.sources.ssh import SshSource

        # An export reads each job's payloads right after loading it: from the streamed bytes, held.
        return SshSource(logdir, ssh_options(args), connection, limits, hold_streams=bool(args.export))
    return logdir


def ssh_options(args: argparse.Namespace) -> list[str]:
    return [arg for opt in args.ssh_option for arg in ("-o", opt)] + (["-F", args.ssh_config] if args.ssh_config else [])


def connect_early(logdir: str, args: argparse.Namespace):
    """For a user@host:/path LOGDIR, its ssh connection, already connecting (0.2-0.5 s) while the
    program imports the rest (numpy, Textual); the first request waits for it. None for other
    LOGDIRs, or when the target is not one (SshSource then says why)."""
    if remote_kind(logdir) != "ssh":
        return None
    from .summary.sources.ssh_connection import SshConnection

    try:
        return SshConnection(logdir, ssh_options(args)).start()
    except (ValueError, OSError):
        return None


def open_several(logdirs: list[str], args: argparse.Namespace):
    """One source over several LOGDIRs (`sources.multi`), and the lines saying which could not be
    opened (those are kept as sources of no jobs that say why, so the others load)."""
    from .summary.sources.local import SourceError
    from .summary.sources.multi import MultiSource, UnreachableSource, unique_labels

    connections = [connect_early(logdir, args) for logdir in logdirs]  # connecting at once, in parallel
    sources, failed = [], []
    for logdir, connection in zip(logdirs, connections):
        problem = check_logdir(logdir) if remote_kind(logdir) is None else None
        try:
            if problem:
                raise SourceError(problem)
            sources.append(make_source(logdir, args, connection))
        except SourceError as exc:
            if connection is not None:
                connection.close()
            failed.append(f"{logdir}: {exc}")
            sources.append(UnreachableSource(logdir, str(exc)))
    return MultiSource(sources, unique_labels(logdirs)), failed


def run_several(args: argparse.Namespace, config: Config, program: bool = False) -> int:
    """The dashboard, --summary or --export over several LOGDIRs read as one. A LOGDIR that cannot
    be read is a problem line naming it (stderr in the headless modes, the problems line in the
    app); the headless modes report the others and exit with 2."""
    source, failed = open_several(args.logdirs, args)
    if len(failed) == len(args.logdirs):
        source.close()
        return fail("none of the LOGDIRs can be read: " + "; ".join(failed))
    try:
        if args.export in ("parquet", "arrow"):
            export_parquet = import_export_parquet(program)
            status = export_parquet.run(args.export, source, args.out, all_steps=args.all_steps, force=args.force,
                                           program=program)
        elif args.export:
            status = export_csv(source.location, args.out, all_steps=args.all_steps, force=args.force, source=source,
                                program=program)
        elif args.summary:
            from .health_report import run

            status = run(source.location, as_json=args.json, metric=args.metric, source=source)
        else:
            return open_ui(source.location, args, config, source=source, program=program)
        for line in source.failures():  # a host that hung mid-read: named once the others are reported
            print(f"tui-insight: warning: {shown(line)}", file=sys.stderr)
        return 2 if source.failing and status == 0 else status
    finally:
        source.close()


@contextmanager
def importing(program: bool) -> Iterator[None]:
    """No garbage collection while importing: the modules' tens of thousands of objects live as
    long as the program, so the passes their allocations set off find nothing. In the program
    (one run a process) they are then frozen out of every later pass, which then walk only what
    the run itself made. (A caller of `main(argv)`, a test, keeps its garbage collectable:
    nothing frozen.)"""
    was_on = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_on:
            if program:
                gc.freeze()
            gc.enable()


def main(argv: list[str] | None = None, done: list[bool] | None = None) -> int:
    """The program; its exit status. A reader that closes stdout early (`--summary | head -2`)
    ends it quietly with status 0, as POSIX tools end on a closed pipe. `done`: see `run_command`."""
    try:
        try:
            return run_command(argv, done)
        finally:
            sys.stdout.flush()  # short output is still buffered: a closed pipe shows here
    except BrokenPipeError:
        # Nothing more can be written there; point stdout at /dev/null so the interpreter's own
        # flush at exit finds no pipe to fail on.
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        os.close(devnull)
        return 0


def program() -> NoReturn:
    """The `tui-insight` command and `python -m tui_insight`: `main`, then the process ends with
    its status. A headless run (`--summary`, `--export`) ends it without the interpreter's
    teardown, which frees every module, array and object one by one (~5-10 ms after a 100 MB
    load): its output is written and its files closed, the exit handlers registered still run
    (`atexit`), stdout and stderr are flushed, then `os._exit`."""
    done: list[bool] = []
    status = main(None, done)
    if done:
        atexit._run_exitfuncs()
        sys.stderr.flush()
        sys.stdout.flush()
        os._exit(status)
    sys.exit(status)


def run_command(argv: list[str] | None = None, done: list[bool] | None = None) -> int:
    """`main` without its closed-pipe rule. `done` (`program`'s) is appended True when the
    program (no `argv`) ran a headless mode on one LOGDIR to its end, its source closed."""
    program = argv is None  # the program itself, not a caller of `main(argv)`
    argv = sys.argv[1:] if argv is None else argv
    parser = build_parser()
    if argv[:1] == ["--complete-jobs"]:  # hidden: what the completion scripts call on TAB
        from .completion import print_job_completions

        return print_job_completions(parser, argv[1:])
    args = parser.parse_args(argv)
    args.logdirs = list(dict.fromkeys(word for logdir in args.logdirs for word in expand_braces(logdir)))
    args.logdir = args.logdirs[0] if len(args.logdirs) == 1 else None
    if args.completion:
        from .completion import completion_script

        print(completion_script(parser, args.completion), end="")
        return 0
    config = read_config()
    if args.reload_interval is None and "reload_interval" in config.values and not (
            any(remote_kind(logdir) == "url" for logdir in args.logdirs)):
        args.reload_interval = config.values["reload_interval"]
    if args.reload_interval is None:
        args.reload_interval = 30.0 if any(remote_kind(logdir) == "url" for logdir in args.logdirs) else 3.0
    if args.reload_interval < 0:
        return fail("--reload-interval must be 0 or more seconds")
    if args.workers is not None and args.workers < 1:
        return fail("--workers must be 1 or more")
    if args.export and args.export != "arrow" and not args.out:
        return fail("--export needs --out DIR")
    if args.export == "arrow" and (args.out or args.force):
        return fail("--export arrow writes to stdout: no --out or --force")
    if (args.out or args.all_steps or args.force) and not args.export:
        return fail("--out, --all-steps and --force go with --export csv")
    if args.export and (args.job or args.compare or args.view or args.tags or args.fresh):
        return fail("--job, --compare, --view, --tags and --fresh are for the dashboard, not --export")
    if (args.json or args.metric) and not args.summary:
        return fail("--json and --metric go with --summary")
    if args.summary and (args.demo or args.export or args.job or args.compare or args.view or args.tags
                         or args.fresh or args.bell or args.bell_stalled):
        return fail("--summary prints a table and exits: it takes only LOGDIRs (and --json, --metric, --straggler)")
    if args.tags and not (args.job or args.compare):
        return fail("--tags goes with --job or --compare")
    if args.view and args.view != "lineage" and not (args.job or args.compare):
        return fail(f"--view {args.view} goes with --job or --compare (only lineage shows every job)")
    fill_options(args, config, ssh=any(remote_kind(logdir) == "ssh" for logdir in args.logdirs))
    try:
        if args.demo:
            from .demo import run_demo

            return run_demo(lambda logdir: open_ui(logdir, args, config, remember=False, program=program))  # temporary logs
        if not args.logdirs:
            parser.print_usage(sys.stderr)
            return fail("give a LOGDIR, or --demo")
        if len(args.logdirs) > 1:
            return run_several(args, config, program)
        if remote_kind(args.logdir) is None:
            problem = check_logdir(args.logdir)
            if problem:
                return fail(problem)
        elif (args.storage_option and remote_kind(args.logdir) != "url") or \
                ((args.ssh_option or args.ssh_config or args.ssh_max_listing) and remote_kind(args.logdir) != "ssh") \
                or (args.ssh_timeout and remote_kind(args.logdir) is None):
            return fail("--storage-option goes with a URL LOGDIR, --ssh-option and --ssh-config with user@host:/path, "
                        "--remote-timeout with either")
        connection = connect_early(args.logdir, args)  # before the imports below
        try:
            with importing(program):
                from .summary.sources.local import SourceError

            try:
                source = make_source(args.logdir, args, connection)
            except SourceError as exc:
                return fail(str(exc))
        except BaseException:
            if connection is not None:
                connection.close()  # interrupted before the source took it over
            raise
        try:
            if args.export in ("parquet", "arrow"):
                export_parquet = import_export_parquet(program)
                return export_parquet.run(args.export, source if source is not None else args.logdir, args.out,
                                          all_steps=args.all_steps, force=args.force, program=program)
            if args.export:
                return export_csv(args.logdir, args.out, all_steps=args.all_steps, force=args.force, source=source,
                                  program=program)
            if args.summary:
                with importing(program):
                    from .health_report import run

                return run(args.logdir, as_json=args.json, metric=args.metric, source=source,
                           straggler=args.straggler)
            return open_ui(args.logdir, args, config, source=source, program=program)
        finally:
            if not isinstance(source, str):
                source.close()  # an ssh connection kept open for the reloads
            if program and done is not None and (args.summary or args.export):
                done.append(True)
    except KeyboardInterrupt:
        return 130
    except BrokenPipeError:
        raise  # a closed stdout: `main` ends quietly
    except Exception as exc:  # a bug: one line for the user, the traceback on request
        if os.environ.get("TUI_INSIGHT_DEBUG"):
            raise
        return fail(f"internal error: {type(exc).__name__}: {exc} (set TUI_INSIGHT_DEBUG=1 for details)")


def read_config() -> Config:
    """The user's config.toml; each thing in it that is ignored is a warning line on stderr."""
    config = load_config()
    for problem in config.problems:
        print(f"tui-insight: warning: {shown(problem)}", file=sys.stderr)
    return config


def import_export_parquet(program: bool):
    """The Parquet and Arrow exporter, and in the program pyarrow too, imported as `importing`
    imports (their objects frozen out of the export's collections)."""
    with importing(program):
        from . import export_parquet

        if program:
            export_parquet.import_arrow()
    return export_parquet


def export_csv(logdir: str, out: Path, *, all_steps: bool, force: bool, source=None, program: bool = False) -> int:
    """The headless export: job by job (bounded memory), with a progress line on stderr and one
    warning line per job with problems (problems.csv lists them).
    `source`: where LOGDIR is read from (`make_source`; None: a local path). `program`: see
    `importing`."""
    import time

    with importing(program):
        from .export import ExportError, explain_state, export_streaming
        from .summary.store.cache import SummaryCache

    cache = SummaryCache(source if source is not None else logdir)
    tty = sys.stderr.isatty()
    progress_at = [0.0, False]  # when the progress line was last written; is it open (no newline yet)?

    def say(text: str) -> None:
        if progress_at[1]:
            print(file=sys.stderr)
            progress_at[1] = False
        print(f"tui-insight: warning: {shown(text)}", file=sys.stderr)

    def warn(view, problems: list[str]) -> None:
        parts = [explain_state(view.state)] if view.state not in ("ok", "loading") else []
        if problems:
            parts.append(f"{_count(len(problems), 'problem')} in problems.csv (first: {_cut(problems[0])})")
        say(f"{view.train_id}: {'; '.join(parts)}")

    def progress(done: int, total: int) -> None:
        now = time.monotonic()
        if done < total and now - progress_at[0] < (0.1 if tty else 1.0):
            return
        progress_at[0] = now
        if tty:
            print(f"\rexported {done}/{total} jobs", end="" if done < total else "\n", file=sys.stderr, flush=True)
            progress_at[1] = done < total
        else:
            print(f"exported {done}/{total} jobs", file=sys.stderr, flush=True)

    try:
        cache.discover_jobs()
        if cache.error:
            return fail(cache.error)
        if cache.problems:
            say(f"LOGDIR: {_count(len(cache.problems), 'problem')} in problems.csv (first: {_cut(cache.problems[0])})")
        result = export_streaming(cache, out, all_steps=all_steps, force=force, progress=progress, warn=warn)
    except ExportError as exc:
        if progress_at[1]:
            print(file=sys.stderr)
        return fail(str(exc))
    counts = ", ".join(f"{n} {name}" for name, n in result.rows.items())
    print(f"wrote {len(result.files)} files to {shown(str(Path(out).resolve()))} ({counts} rows)")
    return 0


def _count(n: int, noun: str) -> str:
    return f"{n} {noun}{'s' if n != 1 else ''}"


def _cut(text: str, length: int = 120) -> str:
    return text if len(text) <= length else text[:length - 1] + "…"


def start_at(args: argparse.Namespace):
    """Where the dashboard opens (`--job`/`--compare`, `--view`, `--tags`), or None: the job list."""
    from .ui.app import StartAt, train_id_of

    names = [args.job] if args.job else [n for n in (args.compare or "").split(",") if n.strip()]
    if not names and not args.view:
        return None
    labelled = len(getattr(args, "logdirs", ())) > 1
    jobs = tuple(dict.fromkeys(train_id_of(n, labelled) for n in names))  # in the order given, once each
    return StartAt(jobs, args.view or "scalars", args.tags or "")


def dashboard_cache(logdir, args: argparse.Namespace, remember: bool = True):
    """The dashboard's cache as the command line sets it up: memory budget, loading processes and
    the disk cache (not for logs that are temporary, like the demo's)."""
    from .summary.store.budget import DEFAULT_BUDGET
    from .summary.store.cache import SummaryCache
    from .summary.store.disk_cache import DiskCache

    workers = args.workers if args.workers is not None else os.cpu_count() or 1
    disk = DiskCache() if remember and not args.no_cache else None
    return SummaryCache(logdir, memory_budget=args.memory_budget or DEFAULT_BUDGET, disk_cache=disk, workers=workers)


def open_ui(logdir: str, args: argparse.Namespace, config: Config, remember: bool = True, source=None,
            program: bool = False) -> int:
    """The dashboard; `remember=False` keeps the workspace in memory (the demo's logs are temporary).
    `source`: where LOGDIR is read from (`make_source`; None: a local path). `program`: the
    program itself (`importing`: the UI's ~50,000 objects frozen, no collection while importing
    them, ~45 ms of a start)."""
    with importing(program):
        cache = dashboard_cache(source if source is not None else logdir, args, remember)
        from .ui.app import run_app

    return run_app(cache, theme=args.theme, reload_interval=args.reload_interval,
                   fresh=args.fresh or not remember, start_at=start_at(args), remember=remember, bell=bool(args.bell),
                   bell_stalled=bool(args.bell_stalled), config_theme=config.get("theme"), config_keymap=config.keymap,
                   config_notices=["\n".join(config.problems)] if config.problems else [], straggler=args.straggler)


if __name__ == "__main__":
    program()
