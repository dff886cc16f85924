"""Where the real MindSpore logs the tests read live: `tests/fixtures/`, inside the repository.

They are copies of the project's shared fixtures (see `tests/fixtures/README.md`), so a fresh
clone tests on its own. Import from here, never from `conftest`.
"""
from __future__ import annotations

from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
FIXTURES = REPO / "tests" / "fixtures"
MINDSPORE_LOGS = FIXTURES / "mindspore"
TRUTH_FILE = FIXTURES / "mindspore.truth.json"
EXTRAS_LOGS = FIXTURES / "mindspore_extras"
RANKS_LOGS = FIXTURES / "mindspore_ranks"  # four ranks' profiles (`make_ranks_profile.py`)


def fixtures_written_at(root: Path = MINDSPORE_LOGS) -> float:
    """The newest file mtime under `root`: a clock reading it makes the cache see the logs as
    just written, however long ago they were checked out (a cut tail is `growing`, not yet
    `truncated`)."""
    mtimes = [path.stat().st_mtime for path in root.rglob("*") if path.is_file()]
    if not mtimes:
        raise FileNotFoundError(f"no fixture logs under {root}: the repository is incomplete")
    return max(mtimes)
