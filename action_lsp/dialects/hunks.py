"""Lines of a patch body and the values built from them, shared by ``unified-diff`` and
``codex-patch``.

A hunk's search text is its context and removed lines without their one-character prefix,
joined; its replacement the context and added lines. Such a value is not a slice of the
document, so each is a :class:`~action_lsp.model.Field` whose :class:`SourceMap` restarts at
every line: a diagnostic, hover or syntax error inside it lands on the exact characters. When
the patch itself is a decoded value (a JSON string in a tool call), ``outer`` maps it on to the
document: the two maps are composed.
"""

from __future__ import annotations

import bisect
import functools
from array import array
from collections.abc import Sequence
from typing import NamedTuple

from .. import model
from ..model import Breaks, Field, SourceMap, Span


class Line(NamedTuple):
    """One line of ``text``: ``start``, ``end`` (before its line break), ``next`` (after it).
    A named tuple: a 4 MB diff has 100,000 of them, and a tuple is the cheapest to build."""

    start: int
    end: int
    next: int


def lines_of(text: str, start: int, end: int) -> list[Line]:
    """The lines of ``text[start:end]`` in one pass (``\n``, ``\r\n`` and ``\r`` breaks)."""
    chunk = text[start:end]
    if "\r" in chunk:
        return _lines_slow(text, start, end)
    out: list[Line] = []
    pos = start
    pieces = chunk.split("\n")
    last = len(pieces) - 1
    for k, piece in enumerate(pieces):
        stop = pos + len(piece)
        if k == last:
            if stop > pos:
                out.append(Line(pos, stop, stop))
            break
        out.append(Line(pos, stop, stop + 1))
        pos = stop + 1
    return out


def _lines_slow(text: str, start: int, end: int) -> list[Line]:
    out: list[Line] = []
    pos = start
    while pos < end:
        nl = text.find("\n", pos, end)
        stop = end if nl < 0 else nl
        cr = text.find("\r", pos, stop)
        if cr >= 0 and cr + 1 < stop:  # a lone \r breaks the line (rare; old Mac files)
            out.append(Line(pos, cr, cr + 1))
            pos = cr + 1
            continue
        content_end = stop - 1 if stop > pos and text[stop - 1] == "\r" else stop
        nxt = end if nl < 0 else nl + 1
        out.append(Line(pos, content_end, nxt))
        pos = nxt
    return out


def _outer_breaks(outer: SourceMap, a: int, b: int) -> list[tuple[int, int]]:
    """The breaks of ``outer`` strictly inside the value slice ``[a, b)``, as document offsets."""
    br = outer.breaks
    if not br:
        return []
    off = outer.offset
    if isinstance(br, Breaks):
        lo = bisect.bisect_right(br.idx, a)
        hi = bisect.bisect_left(br.idx, b)
        return [(br.idx[k], br.src[k] + off) for k in range(lo, hi)]
    lo = bisect.bisect_right(br, (a, 1 << 62))
    hi = bisect.bisect_left(br, (b, -1))
    return [(i, s + off) for i, s in br[lo:hi]]


def joined(
    text: str,
    name: str,
    lines: Sequence[tuple[Line, bool]],
    skip: int,
    span: Span,
    outer: SourceMap | None = None,
) -> Field:
    """A field whose value is ``lines`` without their first ``skip`` characters, each ended by
    ``\\n`` unless its flag says it has no line break (``\\ No newline at end of file``).

    ``span`` is the field's range as reported (a hunk, the content of an added file); offsets
    are into ``text``, mapped on through ``outer`` when the patch is itself a decoded value.
    """
    parts: list[str] = []
    breaks: list[tuple[int, int]] = []
    cut: list[int] = []  # (through `outer`) per line: where its value starts, where it ends, 1 if a break follows
    length = 0
    source_end = span.start
    if outer is None:
        for line, eol in lines:
            a = line.start + skip
            if a > line.end:
                a = line.end
            breaks.append((length, a))
            length += line.end - a
            if eol:
                if line.next == line.end + 1 and text[line.end] == "\n":
                    parts.append(text[a : line.next])  # the line with its own break
                else:
                    parts.append(text[a : line.end] + "\n")
                length += 1
                source_end = line.next if line.next > line.end else line.end
            else:
                parts.append(text[a : line.end])
                source_end = line.end
    else:
        for (s, e, _), eol in lines:
            a = s + skip
            if a > e:
                a = e
            parts.append(text[a:e])
            if eol:
                parts.append("\n")
                cut += (a, e, 1)
            else:
                cut += (a, e, 0)
    value = "".join(parts)
    if outer is not None:
        span = outer.span(span.start, span.end)
        if not lines:
            return Field(name, value, span, None, SourceMap(span.start, 0, span.start))
        last, eol = lines[-1]
        base = outer.to_source(min(lines[0][0].start + skip, lines[0][0].end))
        source_end = outer.to_source(last.next if eol else last.end)
        make = functools.partial(_joined_breaks, array("q", cut), outer)
        made = Breaks.lazy(make) if model.LAZY else Breaks.from_arrays(*make())
        return Field(name, value, span, None, SourceMap(base, len(value), source_end, made))
    if not breaks:
        return Field(name, value, span, None, SourceMap(span.start, 0, span.start))
    base = breaks[0][1]
    return Field(name, value, span, None, SourceMap(base, length, source_end, tuple(breaks)))


def _joined_breaks(cuts: array[int], outer: SourceMap) -> tuple[array[int], array[int]]:
    """The breaks of :func:`joined`'s field read through ``outer`` (``cuts``: each line's start,
    end and line break flag): one where each line starts, and ``outer``'s own inside each line
    (worked out when first read)."""
    breaks: list[tuple[int, int]] = []
    length = 0
    for k in range(0, len(cuts), 3):
        a, end, eol = cuts[k], cuts[k + 1], cuts[k + 2]
        breaks.append((length, outer.to_source(a)))
        breaks.extend((length + (i - a), s) for i, s in _outer_breaks(outer, a, end + 1))
        length += end - a + eol
    return array("q", [i for i, _ in breaks]), array("q", [s for _, s in breaks])


def plain(text: str, name: str, start: int, end: int, outer: SourceMap | None = None) -> Field:
    """A field holding ``text[start:end]`` as written (a path)."""
    if outer is None:
        return Field(name, text[start:end], Span(start, end), None, SourceMap.verbatim(start, end))
    span = outer.span(start, end)
    br = outer.breaks
    if model.LAZY and isinstance(br, Breaks) and br._make is not None:
        # ``outer`` not made yet (a patch read through its tool call's arguments: a composed
        # map, costly to make): this field's breaks are made when first read, an index inside
        # it mapped through ``outer`` meanwhile. (Its hunks' fields keep ``outer`` already.)
        made = Breaks.lazy(functools.partial(_plain_breaks, outer, start, end),
                           functools.partial(_plain_via, outer, start))
        return Field(name, text[start:end], span, None, SourceMap(span.start, end - start, span.end, made))
    breaks = tuple((i - start, s) for i, s in _outer_breaks(outer, start, end))
    return Field(name, text[start:end], span, None,
                 SourceMap(span.start, end - start, span.end, breaks))


def _plain_breaks(outer: SourceMap, start: int, end: int) -> tuple[array[int], array[int]]:
    """The breaks of :func:`plain`'s field of ``[start, end)`` read through ``outer``."""
    found = _outer_breaks(outer, start, end)
    return array("q", [i - start for i, _ in found]), array("q", [s for _, s in found])


def _plain_via(outer: SourceMap, start: int, index: int) -> int:
    return outer.to_source(start + index)


def doc_span(start: int, end: int, outer: SourceMap | None) -> Span:
    """A span of the patch text as a document span."""
    return Span(start, end) if outer is None else outer.span(start, end)
