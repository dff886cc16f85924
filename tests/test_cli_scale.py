"""The command line's settings for many runs: memory budget, loading processes, the disk cache."""
import os
from contextlib import nullcontext

import pytest

from tui_insight.cli import build_parser, dashboard_cache, main
from tui_insight.summary.store.budget import DEFAULT_BUDGET


def test_the_settings_reach_the_cache(tmp_path):
    args = build_parser().parse_args([str(tmp_path), "--memory-budget", "300M", "--workers", "1", "--no-cache"])
    cache = dashboard_cache(str(tmp_path), args)
    assert (cache.memory_budget, cache.workers, cache.disk) == (300 << 20, 1, None)


def test_by_default_a_process_per_core_and_the_user_cache_directory(tmp_path):
    cache = dashboard_cache(str(tmp_path), build_parser().parse_args([str(tmp_path)]))
    assert cache.memory_budget == DEFAULT_BUDGET and cache.workers == (os.cpu_count() or 1)
    assert str(cache.disk.root) == os.path.join(os.environ["XDG_CACHE_HOME"], "tui-insight")
    cache.stop()
    temporary = dashboard_cache(str(tmp_path), build_parser().parse_args([str(tmp_path)]), remember=False)
    assert temporary.disk is None  # the demo's logs go away: nothing of them is kept


@pytest.mark.parametrize("flags, says", [(["--memory-budget", "lots"], "not a size"),
                                         (["--memory-budget", "0"], "not a positive size"),
                                         (["--workers", "0"], "--workers must be 1 or more")])
def test_bad_settings_are_one_line_errors(tmp_path, capsys, flags, says):
    # argparse refuses a size itself (exit 2); the number of workers is checked after parsing.
    with pytest.raises(SystemExit, match="2") if flags[0] == "--memory-budget" else nullcontext():
        assert main([str(tmp_path), *flags]) == 2
    assert says in capsys.readouterr().err


def test_the_program_freezes_what_it_imported_for_the_ui(tmp_path):
    """The program (no argv given to `main`) makes the cache and imports the UI with the
    collector off, then freezes what is alive (the modules' ~50,000 objects: no collection
    walks them while the app starts); a caller of `main(argv)` keeps its objects collectable.
    `run_app` is replaced as its module is imported, and says whether the app's class is left
    to the collector (frozen objects are not) and whether the collector is on."""
    import subprocess
    import sys

    code = """
import gc, importlib.util, sys
class Hook:
    def find_spec(self, name, path, target=None):
        if name != "tui_insight.ui.app":
            return None
        sys.meta_path.remove(self)
        spec = importlib.util.find_spec(name)
        load = spec.loader.exec_module
        def exec_module(module):
            load(module)
            module.run_app = lambda cache, **kw: print(any(o is module.InsightApp for o in gc.get_objects()),
                                                       gc.isenabled()) or 0
        spec.loader.exec_module = exec_module
        return spec
sys.meta_path.insert(0, Hook())
from tui_insight import cli
who = sys.argv.pop(1)
sys.exit(cli.main(None if who == "program" else sys.argv[1:]))
"""
    said = []
    for who in ("program", "caller"):
        done = subprocess.run([sys.executable, "-c", code, who, str(tmp_path), "--workers", "1", "--no-cache"],
                              capture_output=True, text=True, timeout=120)
        assert done.returncode == 0, done.stderr[-2000:]
        said.append(done.stdout.split())
    assert said == [["False", "True"], ["True", "True"]]


@pytest.mark.parametrize("kind", ["csv", "parquet"])
def test_the_program_freezes_what_it_imported_for_an_export(tmp_path, kind):
    """The program imports the exporter (and pyarrow for Parquet) with the collector off, then
    freezes what is alive: the export's collections walk only what the export makes. Said after
    the export: whether the exporter's function and one of pyarrow's are left to the
    collector (frozen objects are not), and whether the collector is on."""
    import subprocess
    import sys

    from tui_insight.summary.formats.writer import SummaryWriter

    writer = SummaryWriter(tmp_path / "logs" / "run", timestamp=1)
    writer.add_scalar("loss", 0.5)
    writer.record(1)
    writer.close()
    code = """
import gc, sys
from tui_insight import cli
who = sys.argv.pop(1)
status = cli.main(None if who == "program" else sys.argv[1:])
module = sys.modules["tui_insight.export_parquet" if sys.argv[3] == "parquet" else "tui_insight.export"]
kept = [module.export_parquet if sys.argv[3] == "parquet" else module.export_streaming]
if sys.argv[3] == "parquet":
    kept.append(sys.modules["pyarrow"].show_versions)
print([any(o is k for o in gc.get_objects()) for k in kept], gc.isenabled())
sys.exit(status)
"""
    said = []
    for who in ("program", "caller"):
        done = subprocess.run([sys.executable, "-c", code, who, str(tmp_path / "logs"), "--export", kind, "--out",
                               str(tmp_path / f"out-{who}")], capture_output=True, text=True, timeout=120)
        assert done.returncode == 0, done.stderr[-2000:]
        said.append(done.stdout.split("\n")[-2])
    frozen, left = ("[False, False]", "[True, True]") if kind == "parquet" else ("[False]", "[True]")
    assert said == [f"{frozen} True", f"{left} True"]
