"""The dialect registry: every dialect is listed here once, and nowhere else.

A :class:`DialectSet` is the enabled subset, with the lookups the scanner needs (who claims a
fence info or tag name, and which unknown names are near misses of known ones).
"""

from __future__ import annotations

from collections.abc import Iterable
from functools import cached_property

from rapidfuzz.distance import DamerauLevenshtein

from .base import Construct, Dialect, ScanContext, TagOpen

__all__ = ["ALL", "Construct", "Dialect", "DialectSet", "ScanContext", "TagOpen", "by_name"]


# The registry: one line per dialect module, in the order they are offered constructs.
_MODULES = ("actions_json", "xml_tags", "aether", "action_plan")


def _load() -> tuple[Dialect, ...]:
    import importlib

    return tuple(importlib.import_module(f"{__name__}.{m}").DIALECT for m in _MODULES)


ALL: tuple[Dialect, ...] = _load()
NAMES: tuple[str, ...] = tuple(d.name for d in ALL)


def by_name(name: str) -> Dialect:
    for d in ALL:
        if d.name == name:
            return d
    raise KeyError(f"unknown dialect {name!r}; known: {', '.join(NAMES)}")


def _near(written: str, known: str) -> bool:
    """Is ``written`` a near miss of ``known`` (``action`` for ``actions``, ``create-file``)?"""
    a = written.lower().replace("-", "_")
    b = known.lower().replace("-", "_")
    if a == b:
        return written != known
    if len(b) < 5:
        return False
    limit = 1 if len(b) < 8 else 2
    return a[0] == b[0] and DamerauLevenshtein.distance(a, b, score_cutoff=limit) <= limit


class DialectSet:
    """The enabled dialects, in registry order."""

    def __init__(self, dialects: Iterable[Dialect] | None = None) -> None:
        self.dialects: tuple[Dialect, ...] = tuple(ALL if dialects is None else dialects)
        self._fence_owner = {info: d for d in self.dialects for info in d.fence_infos}
        self._tag_cache: dict[str, tuple[Dialect, str] | None] = {}
        self._fence_near: dict[str, str | None] = {}
        self.prose_json = tuple(d for d in self.dialects if d.prose_json)

    @classmethod
    def named(cls, names: Iterable[str] | None) -> DialectSet:
        return cls(None if names is None else [by_name(n) for n in names])

    @cached_property
    def names(self) -> tuple[str, ...]:
        return tuple(d.name for d in self.dialects)

    @cached_property
    def known_tags(self) -> tuple[str, ...]:
        return tuple(sorted({t for d in self.dialects for t in d.tag_names}))

    def fence_owner(self, word: str) -> Dialect | None:
        return self._fence_owner.get(word.lower()) if word else None

    def fence_near_miss(self, word: str) -> str | None:
        """The known fence info that ``word`` misspells, if any."""
        if not word or word.lower() in self._fence_owner:
            return None
        if word not in self._fence_near:
            self._fence_near[word] = next(
                (k for k in self._fence_owner if _near(word, k)), None
            )
        return self._fence_near[word]

    def tag_owner(self, name: str) -> tuple[Dialect, str] | None:
        """The dialect that claims tag ``name`` and the canonical name it stands for.

        A near miss (``create-file``, ``Create_File``) is claimed with its canonical name; the
        scanner reports it as ``wrong-block-name``.
        """
        if name in self._tag_cache:
            return self._tag_cache[name]
        found: tuple[Dialect, str] | None = None
        for d in self.dialects:
            if d.claims_tag(name):
                found = (d, name)
                break
        if found is None:
            for d in self.dialects:
                hit = next((t for t in sorted(d.tag_names) if _near(name, t)), None)
                if hit:
                    found = (d, hit)
                    break
        self._tag_cache[name] = found
        return found
