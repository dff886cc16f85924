"""Shared test fixtures over the real MindSpore logs in tests/fixtures (paths: fixture_paths.py)."""
from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from fixture_paths import MINDSPORE_LOGS, TRUTH_FILE, fixtures_written_at
from tui_insight.summary.cache import SummaryCache


@pytest.fixture(scope="session")
def truth() -> dict:
    """What MindInsight 2.3.1 served for MINDSPORE_LOGS, plus the `raw` file contents."""
    return json.loads(TRUTH_FILE.read_text())


@pytest.fixture(scope="session")
def fixture_cache() -> SummaryCache:
    """One cache over the read-only fixture logs, loaded once (tests must not change it)."""
    written = fixtures_written_at()
    cache = SummaryCache(str(MINDSPORE_LOGS), clock=lambda: written)
    cache.reload()
    return cache


@pytest.fixture
def logs_copy(tmp_path: Path) -> Path:
    """A writable copy of the fixture logs, for tests that damage or append."""
    dest = tmp_path / "mindspore"
    shutil.copytree(MINDSPORE_LOGS, dest)
    for path in dest.rglob("*"):
        path.chmod(0o755 if path.is_dir() else 0o644)
    return dest
