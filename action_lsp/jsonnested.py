"""The map of a JSON string written inside another JSON string, made from its value.

An OpenAI tool call's ``arguments`` is a JSON string holding JSON: a written file's content is
escaped twice (a line break is ``\\\\n`` in the document, a quote ``\\\\\\"``). Its map to the
document is :meth:`SourceMap.compose` of the ``arguments`` string's map and its own, whose
breaks are worked out from both maps' breaks -- and the outer map's breaks, a search of the
whole ``arguments`` value, were made for every call only to compose its fields' maps.

When both strings are written with two-character escapes only (no ``\\\\u``, no ``\\\\/``: the
lazy maps :func:`~action_lsp.jsonscan.strict_string_map` makes say so), each character of the
inner value takes a known number of document characters: one for a character written as is,
three for one written ``\\\\n`` (``\\\\b \\\\f \\\\r \\\\t`` too), four for a quote or a backslash
(``\\\\\\"``, ``\\\\\\\\\\\\``). The composed map then follows from the inner value and two offsets,
its ends: no outer breaks are made, nothing but the value is kept (its field holds it anyway),
and the map is the one :meth:`SourceMap.compose` makes (``tests/test_json_nested.py``).
"""

from __future__ import annotations

import functools
from array import array
from typing import Any

from . import model
from .jsonscan import _COUNTED, _ESCAPED, _NUMPY_FROM, _count_escaped, _escaped_breaks
from .model import Breaks, SourceMap


def _escaped_value(m: SourceMap) -> str | None:
    """The decoded value of a string's map whose breaks follow from its value and are not made
    yet (:func:`~action_lsp.jsonscan.strict_string_map`'s), else None."""
    breaks = m.breaks
    if breaks.__class__ is not Breaks or m.offset:
        return None
    make: Any = breaks._make
    if make.__class__ is not functools.partial or make.func is not _escaped_breaks:
        return None
    value: str = make.args[0]
    return value


def _none(m: SourceMap) -> bool:
    """Has ``m`` no breaks? (Not asked of a :class:`Breaks`: its length or equality makes it.)"""
    breaks = m.breaks
    return breaks.__class__ is not Breaks and not breaks


def compose(outer: SourceMap, inner: SourceMap) -> SourceMap:
    """``outer.compose(inner)``: made from the inner value when both strings have two-character
    escapes only (see the module's docstring), else by :meth:`SourceMap.compose`."""
    if model.LAZY and (_none(outer) or _escaped_value(outer) is not None):
        if _none(inner):  # (no escape inside: a character a character, no outer escape either)
            base = outer.to_source(inner.base)
            return SourceMap(base, inner.length, base + inner.length)
        value = _escaped_value(inner)
        if value is not None:
            base = outer.to_source(inner.base)
            end = outer.to_source(inner.source_end)
            n = inner.length
            return SourceMap(
                base,
                n,
                end,
                Breaks.lazy(
                    functools.partial(_twice_escaped_breaks, value, base),
                    functools.partial(_twice_escaped_to_source, value, base, end - base - n),
                ),
            )
    return outer.compose(inner)


def _twice_escaped_breaks(value: str, base: int) -> tuple[array[int], array[int]]:
    """The breaks of a value escaped twice, its first character at ``base``: one after each
    character only an escape writes (but the last character), where the document has moved on
    by three or four characters for it."""
    n = len(value)
    if n < _NUMPY_FROM:
        idx, src = array("q"), array("q")
        extra = 0
        for m in _ESCAPED.finditer(value, 0, n - 1):
            k = m.start()
            extra += 3 if value[k] in '"\\' else 2
            idx.append(k + 1)
            src.append(base + k + 1 + extra)
        return idx, src
    import numpy as np

    if value.isascii():
        codes = np.frombuffer(value.encode("ascii"), dtype=np.uint8)
    else:
        codes = np.frombuffer(value.encode("utf-32-le", "surrogatepass"), dtype=np.uint32)
    quoted = codes == 34
    quoted |= codes == 92
    hit = codes < 32
    hit |= quoted
    found = hit[: n - 1].nonzero()[0].astype(np.int64, copy=False)
    added = np.cumsum(quoted[found].astype(np.int64) + 2)
    found += 1
    idx, src = array("q"), array("q")
    idx.frombytes(found.tobytes())
    found += added
    found += base
    src.frombytes(found.tobytes())
    return idx, src


def _twice_escaped_to_source(value: str, base: int, extra: int, index: int) -> int:
    """The document offset of ``value[index]`` (``extra``: the characters the escapes add in
    all), counted on the shorter side of ``index``; -1 when both are longer than ``_COUNTED``."""
    n = len(value)
    if index <= n - index:
        return base + index + _count_twice(value, 0, index) if index <= _COUNTED else -1
    return base + index + extra - _count_twice(value, index, n) if n - index <= _COUNTED else -1


def _count_twice(value: str, a: int, b: int) -> int:
    """The characters the escapes of ``value[a:b]`` add, escaped twice."""
    return 2 * _count_escaped(value, a, b) + value.count('"', a, b) + value.count("\\", a, b)
