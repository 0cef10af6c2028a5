"""Where a workspace starts: the one root finder of the command line, the server and (in Lua,
the same rule) the Neovim plugin.

Walking up from a transcript, the first directory that holds one of these is its workspace
root (the nearest wins; in one directory they are named in this order):

* ``.action-lsp`` (a directory or a file), ``.action-lsp.toml``, or a ``pyproject.toml`` with
  a ``[tool.action-lsp]`` table: a workspace marked for action-lsp;
* ``.git``, ``.hg`` or ``.jj``: the top of a repository.

So a transcript inside a marked tree is applied to that tree, never to an enclosing repository,
and nothing above a repository's top is ever a transcript's root. A directory every user may
write into (``/tmp``) is skipped: anyone could plant a marker there. The project's configuration
(:mod:`action_lsp.project_config`) is read from the root only, never from directories above it.
"""

from __future__ import annotations

import re
import stat
from dataclasses import dataclass
from pathlib import Path

MARKER = ".action-lsp"
CONFIG_FILE = ".action-lsp.toml"
PYPROJECT_MARKER = "pyproject.toml [tool.action-lsp]"
VCS = (".git", ".hg", ".jj")
# Every marker, strongest first, as messages and :checkhealth name them.
MARKERS = (MARKER, CONFIG_FILE, PYPROJECT_MARKER, *VCS)


@dataclass(frozen=True, slots=True)
class Root:
    """A workspace root and what made it one: a marker of :data:`MARKERS`, ``--root`` or
    ``workspace folder``."""

    path: Path
    marker: str

    def describe(self) -> str:
        """``/p (marked by .git)``: how stderr and logs name it."""
        how = self.marker if self.marker in ("--root", "workspace folder") else f"marked by {self.marker}"
        return f"{self.path} ({how})"


def _has_tool_table(pyproject: Path) -> bool:
    try:
        text = pyproject.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError):
        return False
    if "action-lsp" not in text:
        return False
    import tomllib

    try:
        tool = tomllib.loads(text).get("tool", {})
    except (tomllib.TOMLDecodeError, RecursionError):
        # A broken file whose table header reads as the Neovim client's test does still marks
        # the root: reading its configuration then says what is wrong, instead of the table
        # being silently ignored.
        return re.search(r'(?m)^\s*\[tool\.(?:action-lsp|"action-lsp")[\].]', text) is not None
    return isinstance(tool, dict) and "action-lsp" in tool


def shared(directory: Path) -> bool:
    """Can every user write into ``directory`` (like ``/tmp``)? Anyone may plant a marker or a
    configuration there, so such a directory is never a root and has no configuration."""
    try:
        return bool(directory.stat().st_mode & stat.S_IWOTH)
    except OSError:
        return False


def marker_of(directory: Path) -> str | None:
    """The strongest marker ``directory`` holds (one of :data:`MARKERS`), or None; None for a
    :func:`shared` directory."""
    if shared(directory):
        return None
    if (directory / MARKER).exists():
        return MARKER
    if (directory / CONFIG_FILE).is_file():
        return CONFIG_FILE
    if _has_tool_table(directory / "pyproject.toml"):
        return PYPROJECT_MARKER
    for name in VCS:
        if (directory / name).exists():
            return name
    return None


def is_root(directory: Path) -> bool:
    """Does ``directory`` carry a marker?"""
    return marker_of(directory) is not None


class RootFinder:
    """:func:`find` with the answer of every directory remembered: a walk over many transcripts
    looks at each directory once."""

    def __init__(self) -> None:
        self._known: dict[Path, Root | None] = {}
        self._beside: dict[Path, Root | None] = {}  # by the directory a file was named in

    def find(self, start: Path) -> Root | None:
        try:
            here = start.resolve()
            if not here.is_dir():
                here = here.parent
        except (OSError, RuntimeError):
            return None
        return self._of(here)

    def find_for_file(self, file: Path) -> Root | None:
        """:meth:`find` for a file that is known not to be a directory (a file of a walk): its
        directory is resolved once for all the files named in it (a symbolic link is followed,
        as :meth:`find` follows it)."""
        if file.is_symlink():
            return self.find(file)
        beside = file.parent
        if beside not in self._beside:
            self._beside[beside] = self.find(beside)
        return self._beside[beside]

    def _of(self, directory: Path) -> Root | None:
        seen: list[Path] = []
        found: Root | None = None
        for d in (directory, *directory.parents):
            if d in self._known:
                found = self._known[d]
                break
            seen.append(d)
            try:
                marker = marker_of(d)
            except OSError:
                marker = None
            if marker is not None:
                found = Root(d, marker)
                break
        for d in seen:
            self._known[d] = found
        return found


def find(start: Path) -> Root | None:
    """The workspace root of ``start`` (a file or a directory): the nearest directory at or
    above it that holds a marker, or None."""
    return RootFinder().find(start)


def find_root(start: Path) -> Path | None:
    """The directory of :func:`find`, or None."""
    found = find(start)
    return found.path if found is not None else None
