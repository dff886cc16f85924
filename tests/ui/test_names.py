"""Unit tests of `ui/common/names.py`: names cut in the middle, shared starts dropped."""
from __future__ import annotations

from rich.cells import cell_len

from tui_insight.ui.common.names import apart, common_start, middle


def test_a_name_that_fits_is_left_whole():
    assert middle("./lenet", 7) == "./lenet"


def test_a_long_name_keeps_its_start_and_its_end():
    cut = middle("./lenet_lr0.01_seed3", 12)
    assert cut == "./len…_seed3" and len(cut) == 12


def test_middle_counts_terminal_cells():
    cut = middle("训练日志训练日志训练日志", 9)
    assert cell_len(cut) <= 9 and cut.startswith("训练") and cut.endswith("日志")


def test_tiny_widths():
    assert middle("abcdef", 1) == "…" and middle("abcdef", 0) == ""


def test_the_shared_start_ends_at_a_separator():
    assert common_start(["./runs/lenet_lr0.01", "./runs/lenet_lr0.1"]) == "./runs/lenet_"
    assert common_start(["lenet_", "lenet_b"]) == ""  # never a whole name
    assert common_start(["alone"]) == ""


def test_comparison_names_at_80_columns_stay_apart():
    names = ["./lenet_lr0.01_momentum0.9", "./lenet_lr0.1_momentum0.9"]
    shown = apart(names, 12)
    assert shown[0] != shown[1] and all(cell_len(s) <= 12 for s in shown)
    assert shown == ["…lr0.01…", "…lr0.1…"]  # the shared "./lenet_" and "_momentum0.9" dropped


def test_a_shared_start_is_dropped_first_and_the_end_kept():
    names = ["./runs/experiment_alpha_v1", "./runs/experiment_beta_v1"]
    assert apart(names, 16) == ["…alpha_v1", "…beta_v1"]


def test_names_that_fit_are_not_touched():
    assert apart(["./a", "./b"], 10) == ["./a", "./b"]

