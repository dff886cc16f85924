"""The documents a newcomer follows: every `§` in the code and the tests names a section of the
compatibility spec kept in the repository, and each package opens with a map of its modules."""
from __future__ import annotations

import ast
import re
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
SPEC = REPO / "docs" / "mindinsight-compat.md"
SECTION = r"\d+(?:\.\d+)*"
REFERENCE = re.compile(rf"§\s*({SECTION})(?:\s*[-–]\s*({SECTION}))?")


def spec_sections() -> set[str]:
    """The numbers of the spec's headings: `## 3.` and `### 3.4` give "3" and "3.4"."""
    headings = re.findall(rf"^#+\s+({SECTION})\.?\s", SPEC.read_text(encoding="utf-8"), flags=re.M)
    return set(headings)


def references() -> list[tuple[str, str]]:
    """(where, section) for each `§` in the text files of tui_insight/ and tests/."""
    found = []
    for folder in ("tui_insight", "tests"):
        for path in sorted((REPO / folder).rglob("*")):
            if path.suffix not in (".py", ".md", ".txt", ".toml") or "__pycache__" in path.parts:
                continue
            for lineno, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
                for match in REFERENCE.finditer(line):
                    for section in filter(None, match.groups()):
                        found.append((f"{path.relative_to(REPO)}:{lineno}", section.rstrip(".")))
    return found


def test_every_section_sign_names_a_section_of_the_spec():
    sections = spec_sections()
    assert {"1.1", "3.8", "6.4"} <= sections  # the headings are read
    found = references()
    assert len(found) > 30  # the references are found
    assert [f"{where} §{section}" for where, section in found if section not in sections] == []


def test_every_package_opens_with_a_map_of_its_modules():
    """Each package's docstring is a map: a few lines, naming each of its subpackages, and every
    `name.py` or `name/` it names is there (a map never points at a module that moved)."""
    problems = []
    for init in sorted((REPO / "tui_insight").rglob("__init__.py")):
        package = init.parent
        where = package.relative_to(REPO).as_posix()
        doc = ast.get_docstring(ast.parse(init.read_text(encoding="utf-8"))) or ""
        if len(doc.splitlines()) < 3:
            problems.append(f"{where}: no map (a docstring of a few lines)")
        subpackages = [p.name for p in package.iterdir() if (p / "__init__.py").exists()]
        problems += [f"{where}: {name}/ not in the map" for name in subpackages if f"`{name}/`" not in doc]
        for name in re.findall(r"`([A-Za-z_][A-Za-z0-9_]*)(\.py|/)`", doc):
            if not (package / "".join(name)).exists():
                problems.append(f"{where}: names {''.join(name)}, which is not there")
    assert problems == []
