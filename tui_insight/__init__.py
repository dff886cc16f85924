"""tui-insight: MindSpore summary logs and TensorBoard event files in the terminal.

Where things are (layers, top to bottom; ARCHITECTURE.md draws the data flow and the threads)
--------------------------------------------------------------------------------------------
- `cli.py`: the command line; `__main__.py` runs it (`python -m tui_insight`).
- `api.py`: the public Python API, `tui_insight.open(LOGDIR)` (imported on first use).
- `ui/`: the Textual app, screens, views, widgets and state (see its own map).
- `export.py` (`--export csv`), `export_parquet.py` (`--export parquet|arrow`) and
  `health_report.py` (`--summary`): the headless paths.
- `demo.py`: demo logs for `--demo` and the screenshots.
- `workspace.py`: what each view was set to, per LOGDIR, between runs; `remembered_theme.py`:
  the theme picked in the palette, for the next start.
- `config.py`: the user's defaults in config.toml (read by the command line only);
  `completion.py`: the bash/zsh/fish completion scripts and the job names they ask for.
- `summary/`: reading logs, the shared cache and the queries; no UI (see its own map).
- `proto/`: generated protobuf modules.
- `user_dirs.py` (the user's config, state and cache directories, private) and `escape.py`
  (text from files made safe for a terminal): below every layer, imported by any.
"""
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
