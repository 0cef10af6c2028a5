"""Where a workspace starts: the nearest directory marked for action-lsp.

A directory is a workspace root when it holds ``.action-lsp`` (a directory or a file) or a
``pyproject.toml`` with a ``[tool.action-lsp]`` table. The Neovim plugin looks for the same
marker, so a transcript inside a marked tree is applied to that tree, never to an enclosing
repository.
"""

from __future__ import annotations

from pathlib import Path

MARKER = ".action-lsp"


def is_root(directory: Path) -> bool:
    """Does ``directory`` carry the marker?"""
    if (directory / MARKER).exists():
        return True
    pyproject = directory / "pyproject.toml"
    try:
        text = pyproject.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError):
        return False
    if "action-lsp" not in text:
        return False
    import tomllib

    try:
        tool = tomllib.loads(text).get("tool", {})
    except tomllib.TOMLDecodeError:
        return False
    return isinstance(tool, dict) and "action-lsp" in tool


def find_root(start: Path) -> Path | None:
    """The nearest marked directory at or above ``start`` (a file or a directory), or None."""
    here = start.resolve()
    if not here.is_dir():
        here = here.parent
    for directory in (here, *here.parents):
        try:
            if is_root(directory):
                return directory
        except OSError:
            return None
    return None
