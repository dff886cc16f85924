"""Shared test fixtures: the real MindSpore logs in ../shared/fixtures and their truth file."""
from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from tui_insight.summary.cache import SummaryCache

REPO = Path(__file__).resolve().parents[1]
FIXTURES = REPO.parent / "shared" / "fixtures"
MINDSPORE_LOGS = FIXTURES / "mindspore"
TRUTH_FILE = FIXTURES / "mindspore.truth.json"


def fixtures_written_at(root: Path = MINDSPORE_LOGS) -> float:
    """The newest file mtime under `root`: a clock reading it makes the cache see the logs as
    just written, however long ago they were checked out (a cut tail is `growing`, not yet
    `truncated`)."""
    return max(path.stat().st_mtime for path in root.rglob("*") if path.is_file())


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
