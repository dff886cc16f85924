"""tui-insight: MindSpore summary logs in the terminal."""
from __future__ import annotations

from typing import Any

__version__ = "0.1.0"


def __getattr__(name: str) -> Any:
    # `tui_insight.open` (the public API, `tui_insight.api`) is imported on first use, so that
    # `import tui_insight` (the app's start) does not import numpy and the cache.
    if name == "open":
        from .api import open as api_open

        return api_open
    raise AttributeError(f"module 'tui_insight' has no attribute {name!r}")
