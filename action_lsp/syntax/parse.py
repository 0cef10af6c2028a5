"""Parsing code with tree-sitter, and mapping tree-sitter's byte offsets back to ``str`` indices.

tree-sitter parses the UTF-8 encoding and reports byte offsets; everything else in action-lsp
uses code-point indices into the Python ``str``. :class:`Offsets` converts: identity for ASCII
text, otherwise a bisect over the positions of the non-ASCII characters only.
"""

from __future__ import annotations

import bisect
import re
import threading
from collections import OrderedDict
from dataclasses import dataclass
from typing import TYPE_CHECKING

from action_lsp.syntax.languages import Lang

if TYPE_CHECKING:
    from tree_sitter import Node, Tree

_NON_ASCII = re.compile(r"[^\x00-\x7f]")


class Offsets:
    """Converts byte offsets of ``code.encode("utf-8")`` to indices into ``code``."""

    __slots__ = ("_ends", "_extras", "_starts")

    def __init__(self, code: str) -> None:
        # For every non-ASCII character: its byte start, its byte end, and the number of extra
        # bytes (beyond one per character) up to and including it.
        self._starts: list[int] = []
        self._ends: list[int] = []
        self._extras: list[int] = []
        if code.isascii():
            return
        extra = 0
        for match in _NON_ASCII.finditer(code):
            index = match.start()
            point = ord(code[index])
            width = 2 if point < 0x800 else 3 if point < 0x10000 else 4
            start = index + extra
            extra += width - 1
            self._starts.append(start)
            self._ends.append(start + width)
            self._extras.append(extra)

    @property
    def identity(self) -> bool:
        """Whether byte offsets are the indices themselves (ASCII code)."""
        return not self._ends

    def index(self, byte: int) -> int:
        """The code-point index at ``byte`` (a byte inside a character maps to that character)."""
        if not self._ends:
            return byte
        pos = bisect.bisect_right(self._ends, byte)
        if pos < len(self._starts) and self._starts[pos] < byte:
            return self._starts[pos] - (self._extras[pos - 1] if pos else 0)
        return byte - (self._extras[pos - 1] if pos else 0)


@dataclass(frozen=True, slots=True)
class Parsed:
    """A parse of ``code``: the tree, the UTF-8 bytes it was built from, and offset mapping."""

    code: str
    lang: Lang
    data: bytes
    tree: Tree
    offsets: Offsets

    @property
    def root(self) -> Node:
        return self.tree.root_node

    def start(self, node: Node) -> int:
        return self.offsets.index(node.start_byte)

    def end(self, node: Node) -> int:
        return self.offsets.index(node.end_byte)

    def text(self, node: Node) -> str:
        return self.code[self.start(node) : self.end(node)]


_CACHE_SIZE = 8
_local = threading.local()


def _cache() -> OrderedDict[tuple[str, str], Parsed]:
    """This thread's remembered parses, the most recently used last."""
    cache: OrderedDict[tuple[str, str], Parsed] | None = getattr(_local, "cache", None)
    if cache is None:
        cache = _local.cache = OrderedDict()
    return cache


def _remember(parsed: Parsed) -> None:
    cache = _cache()
    cache[(parsed.lang.name, parsed.code)] = parsed
    if len(cache) > _CACHE_SIZE:
        cache.popitem(last=False)


def parse(code: str, lang: Lang) -> Parsed:
    """Parse ``code``; the last few parses are cached per thread (tokens, definitions and
    syntax errors of one code block are usually asked for together)."""
    cache = _cache()
    key = (lang.name, code)
    hit = cache.get(key)
    if hit is not None:
        cache.move_to_end(key)
        return hit
    # ``prepare`` keeps every offset, so the tree maps onto ``code`` itself.
    data = (lang.prepare(code) if lang.prepare is not None else code).encode("utf-8", "surrogatepass")
    parsed = Parsed(code, lang, data, lang.parser().parse(data), Offsets(code))
    _remember(parsed)
    return parsed


def keep(code: str, lang: Lang, data: bytes, tree: Tree) -> None:
    """Remember ``tree``, a parse of ``data`` (``code`` in UTF-8; no ``prepare`` step) made
    elsewhere -- an incremental parse kept across a plan's edits (:mod:`.reparse`) -- as
    :func:`parse` would remember its own: the syntax strategy then tokenises the file it
    edited without parsing it again. Only a tree without a syntax error is kept: tree-sitter's
    incremental parse of a text with an error may recover from it otherwise than a parse
    from scratch, and the tree must be the one :func:`parse` would make. The caller never
    edits ``tree`` afterwards (:class:`~.reparse.Reparse` edits a copy)."""
    if tree.root_node.has_error or lang.prepare is not None:
        return
    cache = _cache()
    key = (lang.name, code)
    if key in cache:
        cache.move_to_end(key)
        return
    _remember(Parsed(code, lang, data, tree, Offsets(code)))


def forget() -> None:
    """Drop every remembered parse and result, and the remembered path checks (benchmarks
    measure a cold start with it)."""
    for results in _ALL_RESULTS:
        results.clear()
    cache = getattr(_local, "cache", None)
    if cache is not None:
        cache.clear()
    from action_lsp.paths import _check_short
    from action_lsp.syntax.languages import forget_languages

    forget_languages()
    _check_short.cache_clear()


_ALL_RESULTS: list[Results] = []


class Results:
    """Results worked out from a code body (its syntax errors, its unsafe uses), kept by
    language and content: a transcript writes and runs the same code more than once (a file
    rewritten, a script re-run), and the editor re-checks the unchanged bodies of every unit
    a keystroke re-scans. Bounded by the characters of the code it keys (emptied when full),
    so a closed document's bodies do not stay alive for long."""

    __slots__ = ("_chars", "_found", "max_chars")

    def __init__(self, max_chars: int = 1 << 20) -> None:
        self.max_chars = max_chars
        self._found: dict[tuple[str, str, int], object] = {}
        self._chars = 0
        _ALL_RESULTS.append(self)

    def clear(self) -> None:
        self._found.clear()
        self._chars = 0

    def get(self, key: tuple[str, str, int]) -> object | None:
        return self._found.get(key)

    def put(self, key: tuple[str, str, int], value: object) -> None:
        size = len(key[1])
        if size > self.max_chars:
            return
        if self._chars + size > self.max_chars:
            self._found.clear()
            self._chars = 0
        self._found[key] = value
        self._chars += size


def parse_ok(code: str, lang: Lang) -> bool:
    """Whether ``code`` parses without any syntax error (ERROR or MISSING node)."""
    return not parse(code, lang).root.has_error
