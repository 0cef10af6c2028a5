"""The installed entry points of one group, read without importing ``importlib.metadata``.

The dialect registry needs the ``action_lsp.dialects`` entry points at every start of the
server, before it answers ``initialize``. ``importlib.metadata.entry_points`` finds them in a few
ms, but importing ``importlib.metadata`` costs 15-50 ms (it imports ``email``, ``zipfile``,
``csv``, ``importlib.resources`` and more, which nothing else of the server needs). This module
does what it does for the usual installation -- the ``*.dist-info`` and ``*.egg-info``
directories of the directories on ``sys.path``, each distribution once (the first found by its
normalized name), their ``entry_points.txt`` read as ``importlib.metadata`` reads it -- and
hands over to ``importlib.metadata`` itself wherever it could find more: a zip file or an
``.egg`` on ``sys.path``, or a finder on ``sys.meta_path`` that finds distributions of its own.
``tests/test_entry_points.py`` checks that both give the same entry points.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Iterator
from typing import Any

_INFO = (".dist-info", ".egg-info")


class EntryPoint:
    """One entry point: ``name = value`` under ``[group]`` (as ``importlib.metadata.EntryPoint``:
    the value is ``module`` or ``module:attribute.attribute``, optionally followed by ``[extras]``)."""

    __slots__ = ("group", "name", "value")

    def __init__(self, name: str, value: str, group: str) -> None:
        self.name, self.value, self.group = name, value, group

    def load(self) -> Any:
        import importlib

        module, _, attrs = self.value.partition("[")[0].strip().partition(":")
        obj: Any = importlib.import_module(module.strip())
        for attr in filter(None, attrs.strip().split(".")):
            obj = getattr(obj, attr.strip())
        return obj

    def __eq__(self, other: object) -> bool:
        return isinstance(other, EntryPoint) and (self.name, self.value, self.group) == (other.name, other.value, other.group)

    def __hash__(self) -> int:
        return hash((self.name, self.value, self.group))

    def __repr__(self) -> str:
        return f"EntryPoint(name={self.name!r}, value={self.value!r}, group={self.group!r})"


def entry_points(group: str) -> list[Any]:
    """The entry points of ``group`` of every installed distribution, in the order
    ``importlib.metadata.entry_points(group=group)`` gives them."""
    if not _plain_paths():
        from importlib import metadata

        return list(metadata.entry_points(group=group))
    return [ep for text in _entry_point_texts() for ep in parse(text) if ep.group == group]


def parse(text: str) -> Iterator[EntryPoint]:
    """The entry points of an ``entry_points.txt`` (as ``importlib.metadata``'s ``Sectioned``:
    blank lines and ``#`` comments skipped, ``[section]`` names the group)."""
    group = None
    for line in map(str.strip, text.splitlines()):
        if not line or line.startswith("#"):
            continue
        if line.startswith("[") and line.endswith("]"):
            group = line.strip("[]")
        elif group is not None and "=" in line:
            name, _, value = line.partition("=")
            yield EntryPoint(name.strip(), value.strip(), group)


def _plain_paths() -> bool:
    """Whether every distribution ``importlib.metadata`` would find is in a directory on
    ``sys.path`` (no zip file or ``.egg`` there, no finder of distributions but the standard one)."""
    from importlib.machinery import PathFinder

    for finder in sys.meta_path:
        if finder is not PathFinder and getattr(finder, "find_distributions", None) is not None:
            return False
    for entry in sys.path:
        if not isinstance(entry, str) or entry.lower().endswith(".egg"):
            return False
        if entry and not os.path.isdir(entry) and os.path.exists(entry):
            return False
    return True


def _entry_point_texts() -> Iterator[str]:
    seen: set[str] = set()
    for entry in sys.path:
        try:
            children = os.listdir(entry or ".")
        except OSError:
            continue
        for child in children:
            low = child.lower()
            if not low.endswith(_INFO):
                continue
            name = _normalize(low.rpartition(".")[0].partition("-")[0])
            if name in seen:
                continue
            seen.add(name)
            try:
                with open(os.path.join(entry, child, "entry_points.txt"), encoding="utf-8") as f:
                    yield f.read()
            except (OSError, UnicodeDecodeError):  # (no entry points, or an egg-info file)
                continue


def _normalize(name: str) -> str:
    """PEP 503's normalization with dashes as underscores (``importlib.metadata``'s ``Prepared``)."""
    out = []
    run = False
    for ch in name:
        if ch in "-_.":
            if not run:
                out.append("_")
            run = True
        else:
            out.append(ch)
            run = False
    return "".join(out).lower()
