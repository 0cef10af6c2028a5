"""The dialect registry: the dialects installed, found through the ``action_lsp.dialects``
entry point group, and nowhere else.

A dialect is one module defining ``DIALECT`` (a :class:`Dialect`) and one line under
``[project.entry-points."action_lsp.dialects"]`` in its package's ``pyproject.toml`` -- the
built-in dialects are registered that way too, and a third-party package registers its own the
same way (as python-lsp-server's plugins do). A source checkout whose installed metadata
predates a built-in dialect still finds it: the modules of this package that define
``DIALECT`` are added when no entry point names them.

A :class:`DialectSet` is the enabled subset, with the lookups the scanner needs (who claims a
fence info or tag name, and which unknown names are near misses of known ones).
"""

from __future__ import annotations

import importlib
import logging
import pkgutil
import re
from collections.abc import Iterable
from functools import cached_property
from types import ModuleType
from typing import Any, Protocol

from .. import entry_points as _entry_points
from ..model import Action, FileView
from .base import Construct, Dialect, ScanContext, TagOpen

__all__ = [
    "ALL",
    "ENTRY_POINT_GROUP",
    "NAMES",
    "Construct",
    "Dialect",
    "DialectSet",
    "ScanContext",
    "TagOpen",
    "by_name",
    "declared",
    "file_view",
    "load_dialects",
    "set_declared",
]

ENTRY_POINT_GROUP = "action_lsp.dialects"
log = logging.getLogger(__name__)


def _as_dialect(obj: Any) -> Dialect | None:
    """An entry point may name a Dialect, a Dialect class, or a module defining ``DIALECT``."""
    if isinstance(obj, ModuleType):
        obj = getattr(obj, "DIALECT", None)
    if isinstance(obj, type) and issubclass(obj, Dialect):
        obj = obj()
    return obj if isinstance(obj, Dialect) and obj.name else None


def _builtin_modules() -> list[str]:
    """The modules of this package that define a dialect (the fallback for stale metadata)."""
    return [m.name for m in pkgutil.iter_modules(__path__) if not m.name.startswith("_")]


class EntryPoint(Protocol):
    """An installed entry point (``importlib.metadata.EntryPoint`` or :mod:`action_lsp.entry_points`'s)."""

    name: str
    value: str

    def load(self) -> Any: ...


def load_dialects(entry_points: Iterable[EntryPoint] | None = None) -> tuple[Dialect, ...]:
    """Every registered dialect, ordered by ``Dialect.order`` then name.

    A dialect that fails to load is logged and skipped; a name registered twice keeps the
    first one loaded (built-ins are loaded first, so a plug-in cannot replace one silently).
    """
    if entry_points is None:
        entry_points = _entry_points.entry_points(ENTRY_POINT_GROUP)  # (without importlib.metadata)
    found: dict[str, Dialect] = {}

    def add(d: Dialect | None, origin: str) -> None:
        if d is None:
            log.warning("dialect entry point %s does not name a Dialect; ignored", origin)
        elif d.name in found:
            if found[d.name] is not d:
                log.warning("dialect %r from %s is already registered; ignored", d.name, origin)
        else:
            found[d.name] = d

    eps = sorted(entry_points, key=lambda ep: (not ep.value.startswith(__name__ + "."), ep.name))
    loaded_modules: set[str] = set()
    for ep in eps:
        try:
            obj = ep.load()
        except Exception:  # a broken plug-in must not take the server down
            log.exception("cannot load dialect entry point %s = %s", ep.name, ep.value)
            continue
        loaded_modules.add(ep.value.partition(":")[0])
        add(_as_dialect(obj), f"{ep.name} = {ep.value}")
    for module in _builtin_modules():
        qualified = f"{__name__}.{module}"
        if qualified in loaded_modules:
            continue
        mod = importlib.import_module(qualified)
        d = getattr(mod, "DIALECT", None)
        if isinstance(d, Dialect):
            add(d, qualified)
    return tuple(sorted(found.values(), key=lambda d: (d.order, d.name)))


ALL: tuple[Dialect, ...] = load_dialects()
NAMES: tuple[str, ...] = tuple(d.name for d in ALL)


_DECLARED: tuple[Dialect, ...] = ()


def set_declared(dialects: Iterable[Dialect]) -> None:
    """Install the dialects a project's configuration declares (see
    :mod:`action_lsp.project_config`); they join every :class:`DialectSet` made afterwards.
    One set per process: loading another configuration replaces it."""
    global _DECLARED
    _DECLARED = tuple(d for d in dialects if d.name not in NAMES)


def declared() -> tuple[Dialect, ...]:
    return _DECLARED


def by_name(name: str) -> Dialect:
    for d in (*ALL, *_DECLARED):
        if d.name == name:
            return d
    known = (*NAMES, *(d.name for d in _DECLARED))
    raise KeyError(f"unknown dialect {name!r}; known: {', '.join(known)}")


def file_view(action: Action) -> FileView | None:
    """The normalized file operation of ``action`` (None when it is no file action), as its
    dialect reads it: the one view the edit engine applies and ``parse --format json`` shows."""
    for d in (*ALL, *_DECLARED):
        if d.name == action.dialect:
            return d.file_view(action)
    return None


def _near(written: str, known: str) -> bool:
    """Is ``written`` a near miss of ``known`` (``action`` for ``actions``, ``create-file``)?"""
    a = written.lower().replace("-", "_")
    b = known.lower().replace("-", "_")
    if a == b:
        return written != known
    if len(b) < 5:
        return False
    limit = 1 if len(b) < 8 else 2
    if a[0] != b[0]:
        return False
    # Two lower bounds of the distance first (an edit changes the length by one at most, and
    # adds or removes one character to either side's excess at most): most candidates are told
    # by them, and rapidfuzz (28 M instructions to import) is not loaded by a scan for them.
    if abs(len(a) - len(b)) > limit or max(_excess(a, b), _excess(b, a)) > limit:
        return False
    from rapidfuzz.distance import DamerauLevenshtein  # only when a name is a candidate

    return DamerauLevenshtein.distance(a, b, score_cutoff=limit) <= limit


def _excess(a: str, b: str) -> int:
    """The characters of ``a`` that ``b`` lacks, counted with their repeats."""
    return sum(max(0, a.count(c) - b.count(c)) for c in set(a))


class DialectSet:
    """The enabled dialects, in registry order."""

    def __init__(self, dialects: Iterable[Dialect] | None = None) -> None:
        if dialects is None:
            dialects = [d for d in (*ALL, *_DECLARED) if d.default_enabled]
        self.dialects: tuple[Dialect, ...] = tuple(dialects)
        self._fence_owner: dict[str, Dialect] = {}
        self._fence_owners: dict[str, tuple[Dialect, ...]] = {}
        for d in self.dialects:
            for info in d.fence_infos:
                self._fence_owner.setdefault(info, d)
                self._fence_owners[info] = (*self._fence_owners.get(info, ()), d)
        self._by_name = {d.name: d for d in self.dialects}
        self._tag_cache: dict[str, tuple[Dialect, str] | None] = {}
        self._tag_firsts: list[tuple[Dialect, dict[str, list[str]]]] | None = None  # see _tag_names_by_first
        self._fence_near: dict[str, str | None] = {}
        self.prose_json = tuple(d for d in self.dialects if d.prose_json)
        self.sequential = frozenset(d.name for d in self.dialects if d.sequential)
        self.fence_bodies = tuple(d for d in self.dialects if d.fence_bodies)
        self.fence_heads = tuple(d for d in self.dialects if d.fence_heads)
        self.lookbehind_lines = max((d.lookbehind_lines for d in self.dialects), default=0)
        # How far back a construct's parse may read at all (its look-behind, or context).
        self.context_lines = max((max(d.lookbehind_lines, d.context_lines) for d in self.dialects), default=0)
        self._line_markers = tuple((m, d) for d in self.dialects for m in d.line_markers)
        self._body_markers = tuple((m, d) for d in self.dialects for m in d.fence_body_markers)
        # A line start (after blanks) holding a line marker; None when no dialect has one.
        self.line_marker_re: re.Pattern[str] | None = (
            re.compile(
                r"(?:(?<=[\r\n])|\A)[ \t]*(?:"
                + "|".join(re.escape(m) for m, _ in self._line_markers)
                + ")"
            )
            if self._line_markers
            else None
        )

    def line_owner(self, text: str, start: int) -> Dialect | None:
        """The dialect whose line marker the line at ``start`` begins with (after blanks)."""
        i = start
        while i < len(text) and text[i] in " \t":
            i += 1
        for marker, d in self._line_markers:
            if text.startswith(marker, i):
                return d
        return None

    def fence_head_claims(self, text: str, start: int, info: str, body_start: int) -> bool:
        """Does a ``fence_heads`` dialect want to look at the fence at ``start``? (Asked for
        every fence of a document: a loop, not a generator.)"""
        for d in self.fence_heads:  # noqa: SIM110 (a generator costs more, once per fence)
            if d.claims_fence_head(text, start, info, body_start):
                return True
        return False

    def fence_body_owner(self, text: str, body_start: int) -> Dialect | None:
        """The dialect claiming a fence by its first body line (``*** Begin Patch``)."""
        if not self._body_markers:
            return None
        i = body_start
        while i < len(text) and text[i] in " \t":
            i += 1
        for marker, d in self._body_markers:
            if text.startswith(marker, i):
                return d
        return None

    @classmethod
    def named(cls, names: Iterable[str] | None) -> DialectSet:
        """The dialects called ``names`` (None: all). The declared dialects are always on: a
        project's configuration declaring one is the choice to read it."""
        if names is None:
            return cls(None)
        chosen = [by_name(n) for n in names]
        return cls([*chosen, *(d for d in _DECLARED if d not in chosen)])

    @cached_property
    def names(self) -> tuple[str, ...]:
        return tuple(d.name for d in self.dialects)

    def get(self, name: str) -> Dialect | None:
        """The enabled dialect called ``name`` (an action's ``dialect``)."""
        return self._by_name.get(name)

    @cached_property
    def known_tags(self) -> tuple[str, ...]:
        return tuple(sorted({t for d in self.dialects for t in d.tag_names}))

    def fence_owner(self, word: str) -> Dialect | None:
        return self._fence_owner.get(word.lower()) if word else None

    def fence_owners(self, word: str) -> tuple[Dialect, ...]:
        """Every dialect claiming the fence info ``word``, in registry order: a ```` ```json ````
        fence is offered to each until one recognises its body's shape."""
        return self._fence_owners.get(word.lower(), ()) if word else ()

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

        When two enabled dialects claim the same tag, the first in registry order owns it.
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
            # A near miss starts as its name does (after lower case): only those are compared.
            first = name.lower().replace("-", "_")[:1]  # (as _near compares them)
            for d, by_first in self._tag_names_by_first():
                hit = next((t for t in by_first.get(first, ()) if _near(name, t)), None)
                if hit:
                    found = (d, hit)
                    break
        self._tag_cache[name] = found
        return found

    def _tag_names_by_first(self) -> list[tuple[Dialect, dict[str, list[str]]]]:
        """Per dialect, its tag names in sorted order by their first character in lower case
        (made once per set: a document's unknown tag names were each compared with all)."""
        if self._tag_firsts is None:
            self._tag_firsts = []
            for d in self.dialects:
                by_first: dict[str, list[str]] = {}
                for t in sorted(d.tag_names):
                    by_first.setdefault(t.lower().replace("-", "_")[:1], []).append(t)
                self._tag_firsts.append((d, by_first))
        return self._tag_firsts
