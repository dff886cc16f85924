"""tui-insight: MindSpore summary logs and TensorBoard event files in the terminal.

Where things are (layers, top to bottom; ARCHITECTURE.md draws the data flow and the threads)
--------------------------------------------------------------------------------------------
- `cli.py`: the command line; `__main__.py` runs it (`python -m tui_insight`).
- `ui/`: the Textual app, screens, views, widgets and state (see its own map).
- `export.py` (`--export csv`) and `health_report.py` (`--summary`): the headless paths.
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

__version__ = "0.1.0"
