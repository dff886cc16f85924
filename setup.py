"""The package list, found: every package under tui_insight/, and the top-level themes/ folder
installed as tui_insight.themes (pyproject.toml's package-dir maps it; a find table alone cannot
add a package from another folder). Everything else is in pyproject.toml."""
from setuptools import find_packages, setup

setup(packages=[*find_packages(include=["tui_insight", "tui_insight.*"]), "tui_insight.themes"])
