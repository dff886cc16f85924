"""Import contracts and where files are opened, checked over every module of the package.

- `tui_insight/summary/`, `tui_insight/export*.py` and `tui_insight/workspace.py` never import
  Textual or `tui_insight.ui`: the data layer and the exporter run headless (the CLI's CSV
  export, scripts) and are tested without a terminal.
- `tui_insight/ui/state/` never imports Textual: state objects are plain values, tested as such.
- Nothing under `tui_insight/ui/` opens files, except the allowlist below: views read `JobView`s
  and the query modules of `summary/`, which own every file read.

Each rule is checked twice: by parsing every import statement with `ast` (also those inside
functions, and `importlib.import_module("...")` with a literal name), and by importing the
modules in a fresh interpreter and looking at `sys.modules` (which also catches an import made
through another module).
"""
from __future__ import annotations

import ast
import json
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
PACKAGE = REPO / "tui_insight"

HEADLESS = sorted([*(PACKAGE / "summary").rglob("*.py"), PACKAGE / "export.py", PACKAGE / "export_dir.py",
                   PACKAGE / "export_spill.py", PACKAGE / "workspace.py", PACKAGE / "health_report.py"])
STATE = sorted((PACKAGE / "ui" / "state").rglob("*.py"))
UI = sorted((PACKAGE / "ui").rglob("*.py"))

# (file, function) allowed to open files, and why.
OPEN_ALLOWED = {
    # The theme files ship inside the package (tui_insight.themes) and are read once at start-up.
    ("tui_insight/ui/app.py", "load_themes"),
    # The user's keymap file (~/.config/tui-insight/keymap.toml or $TUI_INSIGHT_KEYMAP), read at start-up.
    ("tui_insight/ui/app.py", "load_keymap"),
}
# Modules whose `.open(...)` opens a file by name (`Image.open(io.BytesIO(...))` decodes bytes: allowed).
FILE_OPENERS = {"os", "io", "builtins", "codecs", "gzip", "bz2", "lzma", "tarfile", "zipfile", "Path", "pathlib"}
FILE_METHODS = {"read_text", "read_bytes", "write_text", "write_bytes", "fdopen", "fromfile"}


def module_name(path: Path) -> str:
    parts = list(path.relative_to(REPO).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def imported_modules(source: str, module: str, is_package: bool = False) -> list[tuple[int, str]]:
    """(line, absolute module name) of every import in `source`, at any depth, relative ones resolved."""
    package = module if is_package else module.rpartition(".")[0]
    found = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            found += [(node.lineno, alias.name) for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")
                base = base[: len(base) - node.level + 1]
                prefix = ".".join(base + ([node.module] if node.module else []))
            else:
                prefix = node.module or ""
            found.append((node.lineno, prefix))
            found += [(node.lineno, f"{prefix}.{alias.name}") for alias in node.names]  # `from . import ui`
        elif (isinstance(node, ast.Call) and node.args and isinstance(node.args[0], ast.Constant)
              and isinstance(node.args[0].value, str)
              and (isinstance(node.func, ast.Attribute) and node.func.attr == "import_module"
                   or isinstance(node.func, ast.Name) and node.func.id in ("import_module", "__import__"))):
            found.append((node.lineno, node.args[0].value))
    return found


def forbidden_imports(paths: list[Path], forbidden: tuple[str, ...]) -> list[str]:
    problems = []
    for path in paths:
        name = module_name(path)
        for line, imported in imported_modules(path.read_text(encoding="utf-8"), name, path.name == "__init__.py"):
            if any(imported == f or imported.startswith(f + ".") for f in forbidden):
                problems.append(f"{path.relative_to(REPO)}:{line} imports {imported}")
    return problems


def modules_loaded_by(modules: list[str]) -> set[str]:
    """Top-level-ish names in `sys.modules` of a fresh interpreter after importing `modules`."""
    code = ("import importlib, json, sys\n"
            f"for name in {modules!r}:\n    importlib.import_module(name)\n"
            "print(json.dumps(sorted(sys.modules)))")
    done = subprocess.run([sys.executable, "-c", code], cwd=REPO, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    return set(json.loads(done.stdout.strip().splitlines()[-1]))


def file_opens(source: str) -> list[tuple[int, str, str]]:
    """(line, enclosing function, call) for each call that opens or reads a file by name."""
    found = []

    def visit(node: ast.AST, function: str) -> None:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            function = node.name
        if isinstance(node, ast.Call):
            func = node.func
            if isinstance(func, ast.Name) and func.id == "open":
                found.append((node.lineno, function, "open("))
            elif isinstance(func, ast.Attribute):
                receiver = func.value
                receiver_name = (receiver.id if isinstance(receiver, ast.Name) else
                                 receiver.func.id if isinstance(receiver, ast.Call) and isinstance(receiver.func, ast.Name)
                                 else "")
                if func.attr in FILE_METHODS:
                    found.append((node.lineno, function, f".{func.attr}("))
                elif func.attr == "open" and receiver_name in FILE_OPENERS:
                    found.append((node.lineno, function, f"{receiver_name}.open("))
        for child in ast.iter_child_nodes(node):
            visit(child, function)

    visit(ast.parse(source), "<module>")
    return found


# -- the checkers catch what they are meant to (so the rules below can fail) -----------------------

def test_the_import_checker_sees_every_kind_of_import():
    source = (
        "import textual.app\n"
        "from ...ui import app\n"
        "from ... import ui\n"
        "def later():\n"
        "    from textual.widgets import Static\n"
        "    importlib.import_module('textual')\n"
    )
    found = [name for _, name in imported_modules(source, "tui_insight.summary.store.cache")]
    assert "textual.app" in found and "tui_insight.ui" in found and "tui_insight.ui.app" in found
    assert "textual.widgets" in found and "textual" in found
    assert "tui_insight.ui.common" in [name for _, name in imported_modules("from ..common import x\n",
                                                                              "tui_insight.ui.state.tags")]
    assert "tui_insight.ui.state.persist" in [name for _, name in imported_modules(
        "from .persist import get\n", "tui_insight.ui.state", is_package=True)]


def test_the_open_checker_sees_every_way_of_opening():
    source = (
        "def a(p):\n    return open(p)\n"
        "def b(p):\n    return Path(p).read_text()\n"
        "def c(p):\n    return os.open(p, 0)\n"
        "def d(p):\n    return p.read_bytes()\n"
        "def e(data):\n    return Image.open(io.BytesIO(data))\n"  # decoding bytes: not a file
    )
    assert [(f, call) for _, f, call in file_opens(source)] == [
        ("a", "open("), ("b", ".read_text("), ("c", "os.open("), ("d", ".read_bytes(")]


# -- the rules -------------------------------------------------------------------------------------

def test_data_layer_and_exporter_never_import_textual_or_the_ui():
    assert HEADLESS and PACKAGE / "export.py" in HEADLESS
    assert forbidden_imports(HEADLESS, ("textual", "tui_insight.ui")) == []


def test_state_objects_never_import_textual():
    assert len(STATE) > 2
    assert forbidden_imports(STATE, ("textual",)) == []


@pytest.mark.parametrize("paths, forbidden", [
    (HEADLESS, ("textual", "tui_insight.ui")),
    (STATE, ("textual",)),
], ids=["summary-export-workspace-health_report", "ui-state"])
def test_importing_them_loads_no_textual(paths, forbidden):
    loaded = modules_loaded_by([module_name(p) for p in paths])
    assert module_name(paths[0]) in loaded  # they really were imported
    bad = sorted(m for m in loaded if any(m == f or m.startswith(f + ".") for f in forbidden))
    assert bad == []


def test_the_ui_never_opens_files_outside_the_allowlist():
    found = []
    used = set()
    for path in UI:
        rel = path.relative_to(REPO).as_posix()
        for line, function, call in file_opens(path.read_text(encoding="utf-8")):
            if (rel, function) in OPEN_ALLOWED:
                used.add((rel, function))
            else:
                found.append(f"{rel}:{line} {call} in {function}")
    assert found == [], "views read JobViews and summary/'s query modules; they never open files"
    assert used == OPEN_ALLOWED, "an allowlist entry no longer opens anything: remove it"



def private_names_defined(paths) -> set[str]:
    """`_names` defined in `paths`: functions, methods, class attributes and `self._x = ...`."""
    names: set[str] = set()
    for path in paths:
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8", errors="replace"))):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                names.add(node.name)
            elif isinstance(node, (ast.Assign, ast.AnnAssign)):
                for target in (node.targets if isinstance(node, ast.Assign) else [node.target]):
                    if isinstance(target, ast.Attribute):
                        names.add(target.attr)
                    elif isinstance(target, ast.Name):
                        names.add(target.id)
    return {n for n in names if n.startswith("_") and not n.startswith("__")}


def test_textual_internals_are_reached_only_from_the_compat_module():
    """`ui/_textual_compat` is the one home of workarounds: elsewhere no `obj._name` of
    Textual's own (one it defines and we do not) and no import from Textual's private modules."""
    import textual

    textual_private = private_names_defined(sorted(Path(textual.__file__).parent.rglob("*.py")))
    ours = private_names_defined(sorted(PACKAGE.rglob("*.py")))
    assert {"_check_bindings", "_keymap", "_bindings"} <= textual_private - ours  # the check can fail
    compat = PACKAGE / "ui" / "_textual_compat"  # (a package: its modules are the compat module's)
    found = []
    for path in UI:
        if compat in path.parents:
            continue
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            if isinstance(node, ast.Attribute) and node.attr in textual_private and node.attr not in ours:
                found.append(f"{path.relative_to(REPO)}:{node.lineno} .{node.attr}")
            elif isinstance(node, ast.ImportFrom) and node.module and node.module.startswith("textual") \
                    and any(part.startswith("_") for part in node.module.split(".")):
                found.append(f"{path.relative_to(REPO)}:{node.lineno} from {node.module}")
    assert found == [], "move the workaround into tui_insight/ui/_textual_compat (with its version)"


# -- the suite's own isolation (tests/conftest.py `private_home`) -----------------------------------

def test_tests_run_with_a_private_home(tmp_path_factory):
    """Workspace, keymap and cache dirs of every test are under this session's tmp dir (one per
    xdist worker), never the user's home; no keymap is taken from the environment."""
    import os

    from tui_insight.user_dirs import cache_dir, config_dir, state_dir

    base = tmp_path_factory.getbasetemp()
    for name in ("XDG_STATE_HOME", "XDG_CACHE_HOME", "XDG_CONFIG_HOME"):
        assert Path(os.environ[name]).is_relative_to(base), name
    assert all(d().is_relative_to(base) for d in (state_dir, cache_dir, config_dir))
    assert "TUI_INSIGHT_KEYMAP" not in os.environ


def test_one_escaping_helper_for_text_from_files():
    """Text from files meets markup through `ui/common/text.py` only: no other escaper in ui/."""
    others = []
    for path in UI:
        if path.name == "text.py" and path.parent.name == "common":
            continue
        tree = ast.parse(path.read_text())
        for node in ast.walk(tree):
            if isinstance(node, ast.ImportFrom) and node.module in ("rich.markup", "textual.markup") \
                    and any(alias.name == "escape" for alias in node.names):
                others.append(f"{path.relative_to(REPO)}:{node.lineno} imports {node.module}.escape")
            if isinstance(node, ast.FunctionDef) and node.name == "escape":
                others.append(f"{path.relative_to(REPO)}:{node.lineno} defines escape()")
    assert others == []


def test_the_focused_charts_tint_is_one_rule_in_the_app_stylesheet():
    """Charts and tables that take the keys share `.focus-tint:focus` (themes/app.tcss) through
    the class, not each a copy of the rule in its own CSS."""
    copies = [path.relative_to(REPO) for path in UI if "background-tint: $foreground 3%" in path.read_text()]
    assert copies == []
    assert ".focus-tint:focus" in (REPO / "themes" / "app.tcss").read_text()


def test_the_headless_modules_dataclasses_carry_a_docstring():
    """`dataclass` gives a class without a docstring one built by `inspect.signature` as it is
    imported: the headless modules' imports are every command's start."""
    bare = []
    for path in [*HEADLESS, PACKAGE / "cli.py", PACKAGE / "config.py", PACKAGE / "health_report.py"]:
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if (isinstance(node, ast.ClassDef) and any("dataclass" in ast.unparse(d) for d in node.decorator_list)
                    and ast.get_docstring(node) is None):
                bare.append(f"{path.relative_to(REPO)}:{node.lineno} {node.name}")
    assert bare == []
