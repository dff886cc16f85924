"""What `pip install .` makes: a wheel with every package (a new subpackage too: they are found,
not listed), the theme files as tui_insight.themes, the licence, and metadata that names both
kinds of logs. Built for real, from a copy of the checkout, with the setuptools installed here."""
from __future__ import annotations

import email
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

from tui_insight.cli import build_parser

REPO = Path(__file__).resolve().parents[1]


@pytest.fixture(scope="module")
def wheel(tmp_path_factory) -> zipfile.ZipFile:
    source = tmp_path_factory.mktemp("source")
    for name in ("pyproject.toml", "setup.py", "README.md", "LICENSE"):
        shutil.copy(REPO / name, source / name)
    for folder in ("tui_insight", "themes"):
        shutil.copytree(REPO / folder, source / folder, ignore=shutil.ignore_patterns("__pycache__"))
    added = source / "tui_insight" / "summary" / "newly_added"  # a subpackage nobody listed anywhere
    added.mkdir()
    (added / "__init__.py").write_text('"""A package made by the test."""\n')
    out = tmp_path_factory.mktemp("dist")
    done = subprocess.run([sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation", "-q",
                           "-w", str(out), str(source)], capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    return zipfile.ZipFile(next(out.glob("*.whl")))


def test_every_package_of_the_checkout_is_in_the_wheel(wheel):
    names = set(wheel.namelist())
    packages = sorted(p.parent.relative_to(REPO).as_posix() for p in (REPO / "tui_insight").rglob("__init__.py"))
    assert packages and all(f"{package}/__init__.py" in names for package in packages)
    assert "tui_insight/summary/newly_added/__init__.py" in names
    assert {"tui_insight/themes/app.tcss", "tui_insight/themes/insight-dark.json"} <= names


def test_the_metadata_names_both_kinds_of_logs_the_licence_and_where_it_runs(wheel):
    metadata_name = next(n for n in wheel.namelist() if n.endswith(".dist-info/METADATA"))
    metadata = email.message_from_bytes(wheel.read(metadata_name))
    assert "MindSpore" in metadata["Summary"] and "TensorBoard" in metadata["Summary"]
    assert metadata["License-Expression"] == "Apache-2.0"
    assert any(n.endswith(".dist-info/licenses/LICENSE") for n in wheel.namelist())
    classifiers = metadata.get_all("Classifier")
    assert "Environment :: Console" in classifiers and "Programming Language :: Python :: 3.10" in classifiers
    assert metadata.get_all("Project-URL")
    requires = metadata.get_all("Requires-Dist")
    assert any(r.startswith("tomli") and "python_version < \"3.11\"" in r for r in requires)
    assert any(r.startswith("textual==") for r in requires)  # the snapshots were drawn with one minor version


def test_the_licence_is_the_apache_2_text():
    text = (REPO / "LICENSE").read_text()
    assert "Apache License" in text and "Version 2.0, January 2004" in text and "END OF TERMS AND CONDITIONS" in text


def test_help_names_both_kinds_of_logs():
    text = build_parser().format_help()
    assert "MindSpore" in text and "TensorBoard" in text and "tfevents" in text


def test_version_prints_the_version_the_wheel_is_built_with(wheel):
    metadata_name = next(n for n in wheel.namelist() if n.endswith(".dist-info/METADATA"))
    built = email.message_from_bytes(wheel.read(metadata_name))["Version"]
    printed = subprocess.run([sys.executable, "-m", "tui_insight", "--version"], capture_output=True, text=True,
                             cwd=REPO, timeout=60)
    assert (printed.returncode, printed.stdout) == (0, f"tui-insight {built}\n")
