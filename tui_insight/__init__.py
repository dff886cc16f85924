"""tui-insight: MindSpore summary logs in the terminal."""

__version__ = "0.1.0"
