"""Shared test fixtures over the real MindSpore logs in tests/fixtures (paths: fixture_paths.py)."""
from __future__ import annotations

import importlib.util
import json
import os
import shutil
from pathlib import Path
from typing import TYPE_CHECKING

import pytest
from fixture_paths import MINDSPORE_LOGS, TRUTH_FILE, fixtures_written_at

if TYPE_CHECKING:
    from tui_insight.summary.store.cache import SummaryCache

TEST_NEEDS = ("google.protobuf", "numpy", "textual", "hypothesis", "xdist")


def pytest_configure(config: pytest.Config) -> None:
    """Where the test extra is not installed: one line naming the install, not a traceback."""
    missing = [name for name in TEST_NEEDS if _missing(name)]
    if missing:
        pytest.exit(f"the tests need tui-insight's test dependencies ({', '.join(missing)} missing): "
                    "pip install -e '.[test]' (the README's test command)", returncode=4)


def _missing(module: str) -> bool:
    try:
        return importlib.util.find_spec(module) is None
    except ModuleNotFoundError:  # its parent package is missing
        return True


@pytest.fixture(scope="session", autouse=True)
def private_home(tmp_path_factory: pytest.TempPathFactory):
    """Tests never read or write the real home: the XDG state/cache/config dirs point at a tmp dir
    of this session (one per xdist worker), and no keymap or config file is taken from the environment."""
    home = tmp_path_factory.mktemp("home")
    names = ("XDG_STATE_HOME", "XDG_CACHE_HOME", "XDG_CONFIG_HOME", "TUI_INSIGHT_KEYMAP", "TUI_INSIGHT_CONFIG")
    saved = {name: os.environ.get(name) for name in names}
    for name in names[:3]:
        os.environ[name] = str(home / name.lower())
    os.environ.pop("TUI_INSIGHT_KEYMAP", None)
    os.environ.pop("TUI_INSIGHT_CONFIG", None)
    yield home
    for name, value in saved.items():
        if value is None:
            os.environ.pop(name, None)
        else:
            os.environ[name] = value


@pytest.fixture(scope="session")
def truth() -> dict:
    """What MindInsight 2.3.1 served for MINDSPORE_LOGS, plus the `raw` file contents."""
    return json.loads(TRUTH_FILE.read_text())


@pytest.fixture(scope="session")
def fixture_cache() -> "SummaryCache":
    """One cache over the read-only fixture logs, loaded once (tests must not change it)."""
    written = fixtures_written_at()
    from tui_insight.summary.store.cache import SummaryCache  # imported once the dependencies are known to be there

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
