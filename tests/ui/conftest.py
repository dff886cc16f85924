"""Fixtures of the UI tests (helpers are in uihelp.py)."""
from __future__ import annotations

import time
from pathlib import Path

import pytest

from uihelp import write_run


@pytest.fixture
def ui_logs(tmp_path: Path) -> Path:
    """Three runs: two with loss/acc/lr, one without lr."""
    root = tmp_path / "logs"
    write_run(root, "run_a")
    write_run(root, "run_b")
    write_run(root, "run_c", tags=("loss", "acc"))
    return root


@pytest.fixture(autouse=True)
def utc(monkeypatch):
    """Read-outs show local times: make them the same everywhere."""
    monkeypatch.setenv("TZ", "UTC")
    time.tzset()
    yield
    monkeypatch.undo()
    time.tzset()


@pytest.fixture(autouse=True)
def true_colour(monkeypatch):
    """The screens are drawn for a terminal of true colour, whatever runs the tests (the
    ridgelines take another palette without it): a test of fewer colours sets
    `textual.constants.COLOR_SYSTEM` itself."""
    monkeypatch.setenv("COLORTERM", "truecolor")
