"""tui-insight: MindSpore summary logs in the terminal."""
from __future__ import annotations

import importlib
from typing import Any

__version__ = "0.1.0"


def __getattr__(name: str) -> Any:
    # `tui_insight.open` (the public API, `tui_insight.api`) is imported on first use, so that
    # `import tui_insight` (the app's start, and `__version__` for the data layer) imports
    # neither numpy nor the cache; by name, so the package's root names no layer above any.
    if name == "open":
        return importlib.import_module(f"{__name__}.api").open
    raise AttributeError(f"module 'tui_insight' has no attribute {name!r}")
