"""The locate strategies are modules behind one protocol, listed by the locator, and none of
them imports the locator (the old ``locate`` ⇄ ``syntaxmatch`` import cycle is gone)."""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

import pytest

import action_lsp.edit.strategies as strategies
from action_lsp.edit.locate import locate
from action_lsp.edit.strategies.base import FileText, SearchBlock

PACKAGE = Path(strategies.__file__).parent
MODULES = sorted(p.stem for p in PACKAGE.glob("*.py") if p.stem != "__init__")


def _imported(path: Path) -> set[str]:
    """Every module ``path`` imports, resolved to dotted names (inside functions too)."""
    package = "action_lsp.edit.strategies"
    names: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            names.update(a.name for a in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = package.split(".")
            if node.level:
                base = base[: len(base) - node.level + 1]
                mod = ".".join([*base, node.module] if node.module else base)
            else:
                mod = node.module or ""
            names.add(mod)
            names.update(f"{mod}.{a.name}" for a in node.names)
    return names


@pytest.mark.parametrize("module", MODULES)
def test_no_strategy_imports_the_locator(module: str) -> None:
    imported = _imported(PACKAGE / f"{module}.py")
    assert "action_lsp.edit.locate" not in imported
    assert not any(name.startswith("action_lsp.edit.plan") for name in imported)


def test_the_package_itself_does_not_import_the_locator() -> None:
    assert "action_lsp.edit.locate" not in _imported(PACKAGE / "__init__.py")


@pytest.mark.parametrize("module", MODULES)
def test_each_strategy_module_imports_on_its_own(module: str) -> None:
    """In a fresh interpreter, the module imports before anything else of the edit engine
    (no cycle to enter half-way)."""
    code = f"import importlib; importlib.import_module('action_lsp.edit.strategies.{module}')"
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr


def test_the_locator_lists_the_strategies_in_their_order() -> None:
    assert [s.tried for s in strategies.STRATEGIES] == [
        "exact", "whitespace", "blank-line", "syntax", "fuzzy"
    ]


def test_the_not_found_message_names_the_strategies_tried() -> None:
    found = locate("alpha\nbeta\n", "gamma\ndelta\n", path="a.py")
    assert "tried exact, whitespace, blank-line, syntax and fuzzy matching" in found.message
    found = locate("alpha\nbeta\n", "gamma\ndelta\n", path="a.unknown-extension")
    assert "tried exact, whitespace, blank-line and fuzzy matching" in found.message


def test_a_strategy_is_called_with_the_file_and_search_texts() -> None:
    text, block = FileText("a\r\n\tb\r\n", "f.txt"), SearchBlock("  b\n")
    for strategy in strategies.STRATEGIES:
        if strategy.applies(text, block):
            found = strategy.find(text, block)
            if found is not None:
                break
    assert found is not None and not hasattr(found, "code")
    assert (found.strategy, found.line) == ("whitespace", 2)
    assert text.raw[found.start:found.end] == "\tb\r\n"
