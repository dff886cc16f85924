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
