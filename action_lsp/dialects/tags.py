"""Shared scanning for the tag dialects (``xml-tags``, ``aether``): start tags with their
attributes, the closing tag that ends an action, element bodies and their exact source ranges.

Everything here runs in linear time: start tags and attribute values are read with anchored
matches at known positions, closing quotes with the scanner's memoised ``find``, and closing tags
with a :class:`_Matcher` that reads each part of the text at most once per tag name, however many
unclosed tags ask for their end.

Values taken from element bodies are verbatim (``SourceMap.verbatim``); attribute values decode
the XML entities (``&lt; &gt; &amp; &quot; &apos;`` and numeric references) and map back through
a :class:`~action_lsp.model.SourceMap` with a break after each entity.
"""

from __future__ import annotations

import bisect
import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from typing import NamedTuple

from ..jsonscan import SHORT
from ..model import Diagnostic, Field, Fix, SourceMap, Span, TextEdit
from ..shared import share
from .base import ScanContext

__all__ = [
    "Attribute",
    "Close",
    "Finder",
    "StartTag",
    "attribute_fields",
    "body_value",
    "decoded",
    "find_close",
    "insert_closing_fix",
    "mismatched_close",
    "parse_start_tag",
    "stop_lookahead",
    "stripped_value",
    "trimmed_end",
    "unclosed_start_tag",
]

_WS = re.compile(r"[ \t\r\n\f]*")
_ATTR_NAME = re.compile(r"[^\s\"'<>/=`]+")
_EQ = re.compile(r"[ \t\r\n\f]*=[ \t\r\n\f]*")
_UNQUOTED = re.compile(r"[^\s\"'<>=`]+")
_ENTITY = re.compile(r"&(?:(lt|gt|amp|quot|apos)|#([0-9]{1,7})|#[xX]([0-9a-fA-F]{1,6}));")
_NAMED = {"lt": "<", "gt": ">", "amp": "&", "quot": '"', "apos": "'"}
_CLOSE_TAIL = re.compile(r"[ \t\r\n\f]*>")
_CLOSER = re.compile(r"</([A-Za-z][\w\-.:]*)[ \t\r\n\f]*>")
_NEWLINE = re.compile(r"\r\n|\r|\n")
CDATA_OPEN = "<![CDATA["
CDATA_CLOSE = "]]>"


@dataclass(slots=True)
class Attribute:
    """``name="value"`` in a start tag. ``span`` is the value as written (inside its quotes);
    a boolean attribute (``test``) has the value True and the name's span."""

    name: str
    name_span: Span
    value: str | bool
    span: Span
    source_map: SourceMap | None = None
    quote: str = ""  # the quote character around the value, if any

    @property
    def end(self) -> int:
        """Just past the attribute as written (its closing quote included)."""
        return self.span.end + len(self.quote)

    def to_field(self) -> Field:
        return Field(self.name, self.value, self.span, self.name_span, self.source_map)


@dataclass(slots=True)
class StartTag:
    """An opening tag ``<name attr=... >`` read from ``start``.

    ``end`` is just past its ``>`` (or ``/>``) when ``closed``; otherwise where reading stopped
    (an ``<`` or the end of the text) and ``problem`` says what is missing.
    """

    start: int
    name: str
    name_span: Span
    end: int
    closed: bool
    self_closing: bool = False
    attributes: list[Attribute] = field(default_factory=list)
    problem: str = ""
    lookahead: int = -1

    def attribute(self, name: str) -> Attribute | None:
        """The last attribute called ``name`` (the last of duplicates wins)."""
        for a in reversed(self.attributes):
            if a.name == name:
                return a
        return None


def parse_start_tag(ctx: ScanContext, start: int, name_end: int) -> StartTag:
    """Read the start tag whose name ends at ``name_end`` (``text[start]`` is its ``<``).

    Attribute values may be double- or single-quoted (holding ``>`` and the other quote),
    unquoted (``path=src/a.py``) or absent (a boolean attribute).
    """
    # The last tag read is asked for again at once: a dialect reads an action's start tag, then
    # the closing-tag search steps over that same tag (a pure function of the text: shared).
    last = ctx.cache.get("tags:start")
    if last is not None and last.start == start and last.name_span.end == name_end:
        return last
    tag = _parse_start_tag(ctx, start, name_end)
    ctx.cache["tags:start"] = tag
    return tag


def _parse_start_tag(ctx: ScanContext, start: int, name_end: int) -> StartTag:
    text = ctx.text
    n = len(text)
    name = share(text[start + 1 : name_end])  # (kept by every action: see jsonscan.SHORT)
    tag = StartTag(start, name, Span(start + 1, name_end), name_end, False)
    pos = name_end
    while True:
        pos = _WS.match(text, pos).end()  # type: ignore[union-attr]
        if pos >= n:
            tag.end = tag.lookahead = n
            tag.problem = "is never finished with `>`"
            return tag
        c = text[pos]
        if c == ">":
            tag.end = tag.lookahead = pos + 1
            tag.closed = True
            return tag
        if c == "/":
            if text.startswith("/>", pos):
                tag.end = tag.lookahead = pos + 2
                tag.closed = tag.self_closing = True
                return tag
            pos += 1
            continue
        if c == "<":
            tag.end = tag.lookahead = pos
            tag.problem = "is never finished with `>`"
            return tag
        m = _ATTR_NAME.match(text, pos)
        if m is None:  # a stray quote, `=` or backtick: skip it
            pos += 1
            continue
        name_span = Span(pos, m.end())
        pos = m.end()
        eq = _EQ.match(text, pos)
        if eq is None:
            tag.attributes.append(Attribute(share(m.group(0)), name_span, True, name_span))
            continue
        vpos = eq.end()
        quote = text[vpos] if vpos < n else ""
        if quote in ('"', "'"):
            close = ctx.find(quote, vpos + 1)
            if close < 0:
                tag.end = vpos
                tag.lookahead = n
                tag.problem = f"has a value of `{m.group(0)}` whose {quote} is never closed"
                return tag
            tag.attributes.append(_attribute(text, share(m.group(0)), name_span, vpos + 1, close, quote))
            pos = close + 1
            continue
        um = _UNQUOTED.match(text, vpos)
        vend = um.end() if um else vpos
        if vend - vpos > 1 and text[vend - 1] == "/" and text.startswith(">", vend):
            vend -= 1  # `type=refresh/>` is self-closing, not a value ending in `/`
        tag.attributes.append(_attribute(text, share(m.group(0)), name_span, vpos, vend))
        pos = vend


def _attribute(
    text: str, name: str, name_span: Span, start: int, end: int, quote: str = ""
) -> Attribute:
    value, source_map = decode_entities(text, start, end)
    if len(value) <= SHORT:
        value = share(value)  # a path, a type: repeated across a transcript
    return Attribute(name, name_span, value, Span(start, end), source_map, quote)


def decode_entities(text: str, start: int, end: int) -> tuple[str, SourceMap]:
    """``text[start:end]`` with XML entities decoded, and the map back to the document."""
    if text.find("&", start, end) < 0:
        return text[start:end], SourceMap.verbatim(start, end)
    return decoded(text, start, end, _entities(text, start, end))


def _entities(text: str, start: int, end: int) -> Iterator[tuple[int, int, str]]:
    amp = text.find("&", start, end)
    while amp >= 0:
        m = _ENTITY.match(text, amp, end)
        if m is None:
            amp = text.find("&", amp + 1, end)
            continue
        if m.group(1):
            char = _NAMED[m.group(1)]
        else:
            code = int(m.group(2)) if m.group(2) else int(m.group(3), 16)
            if code == 0 or code > 0x10FFFF or 0xD800 <= code <= 0xDFFF:
                amp = text.find("&", amp + 1, end)
                continue
            char = chr(code)
        yield amp, m.end(), char
        amp = text.find("&", m.end(), end)


def decoded(text: str, start: int, end: int, found: Iterable[tuple[int, int, str]]) -> tuple[str, SourceMap]:
    """``text[start:end]`` with each ``(a, b, char)`` of ``found`` (in order: ``text[a:b]``,
    an entity, written for the one character ``char``) decoded, and the map back to the
    document (a break after each entity)."""
    parts: list[str] = []
    breaks: list[tuple[int, int]] = []
    length = 0
    pos = start
    for a, b, char in found:
        parts.append(text[pos:a])
        parts.append(char)
        length += (a - pos) + 1
        pos = b
        breaks.append((length, pos))
    parts.append(text[pos:end])
    length += end - pos
    return "".join(parts), SourceMap(start, length, end, tuple(breaks))


def attribute_fields(tag: StartTag) -> dict[str, Field]:
    """The attributes as fields (the last of duplicate attributes wins)."""
    return {a.name: a.to_field() for a in tag.attributes}


# --------------------------------------------------------------------------------------------
# Values of element bodies


def body_value(text: str, start: int, end: int) -> tuple[str, Span, SourceMap]:
    """Content kept byte for byte: only the line break right after the opening tag is dropped;
    a lone CDATA section gives its inside.

    The line break before the closing tag stays: it is the file's final newline. A block
    written ``<content>\\nline\\n</content>`` creates a file ``line\\n`` (what editors write
    and POSIX tools expect), while ``<content>line</content>`` gives exactly ``line``.
    """
    inner = _cdata(text, start, end)
    if inner is not None:
        start, end = inner
    else:
        m = _NEWLINE.match(text, start, end)
        if m is not None:
            start = m.end()
    return text[start:end], Span(start, end), SourceMap.verbatim(start, end)


def stripped_value(text: str, start: int, end: int) -> tuple[str, Span, SourceMap]:
    """A path, command or line of prose: surrounding whitespace dropped (the span follows)."""
    inner = _cdata(text, start, end)
    if inner is not None:
        start, end = inner
    while start < end and text[start].isspace():
        start += 1
    end = trimmed_end(text, start, end)
    value = text[start:end]
    if end - start <= SHORT:
        value = share(value)  # a path, a command: repeated across a transcript
    return value, Span(start, end), SourceMap.verbatim(start, end)


def _cdata(text: str, start: int, end: int) -> tuple[int, int] | None:
    """The inside of ``<![CDATA[...]]>`` when it is all the element holds (whitespace aside)."""
    lead = _WS.match(text, start, end).end()  # type: ignore[union-attr]
    if not text.startswith(CDATA_OPEN, lead, end):
        return None
    inside = lead + len(CDATA_OPEN)
    close = text.find(CDATA_CLOSE, inside, end)
    if close < 0 or trimmed_end(text, close + len(CDATA_CLOSE), end) != close + len(CDATA_CLOSE):
        return None
    return inside, close


def trimmed_end(text: str, start: int, end: int) -> int:
    """``end`` moved back over whitespace, not before ``start``."""
    while end > start and text[end - 1].isspace():
        end -= 1
    return end


# --------------------------------------------------------------------------------------------
# Finding things


class Finder:
    """``text.find(needle, start, bound)`` for searches whose starts only grow.

    Each needle remembers its last answer; a later search from a start not past that answer
    reuses it, so a needle is looked for across ``[start, bound)`` at most once in total.
    """

    def __init__(self, text: str, bound: int) -> None:
        self.text = text
        self.bound = bound
        self._memo: dict[str, tuple[int, int]] = {}

    def find(self, needle: str, start: int) -> int:
        memo = self._memo.get(needle)
        if memo is not None:
            since, found = memo
            if since <= start and (found < 0 or found >= start):
                return found
        found = self.text.find(needle, start, self.bound)
        if found >= 0 and found + len(needle) > self.bound:
            found = -1
        self._memo[needle] = (start, found)
        return found


_ANY_TAG = re.compile(r"<(/?)([A-Za-z][\w\-]*)(?=[\s/>])")


class _TagEvents:
    """Every ``<name``/``</name`` of the text, read once in one pass for all names.

    The closing-tag searches of the tag dialects (:class:`_Matcher`, one per name) used to run
    one regex per name over the text ahead: with a dozen names, a dozen passes, each stopping
    at every ``<``. They now share this reader, which goes only as far as some search needs
    and files each tag's offset under its name -- unless it stands in inline code, which is no
    tag. That question is asked here, once per tag and in text order, so the scan works out
    each line's code spans once: asked by each name's search, every line was worked out again
    on each name's walk once the text had more lines than the scan remembers.
    """

    __slots__ = ("_it", "by_name", "ctx", "done", "lo")

    def __init__(self, ctx: ScanContext, start: int) -> None:
        self.ctx = ctx
        self.lo = start
        self._it = _ANY_TAG.finditer(ctx.text, start)
        self.by_name: dict[str, list[int]] = {}
        self.done = False

    @classmethod
    def of(cls, ctx: ScanContext, start: int) -> _TagEvents:
        events = ctx.cache.get("tags:events")
        if not isinstance(events, _TagEvents) or start < events.lo:
            events = ctx.cache["tags:events"] = cls(ctx, start)
            for key in [k for k in ctx.cache if k.startswith("tags:close:")]:
                del ctx.cache[key]  # their positions lists belong to the old reader
        return events

    def positions(self, name: str) -> list[int]:
        return self.by_name.setdefault(name, [])

    def read_more(self, name: str) -> bool:
        """Read on until a tag called ``name`` is found; False at the end of the text."""
        if self.done:
            return False
        by_name = self.by_name
        in_code_span = self.ctx.in_code_span
        for m in self._it:
            at = m.start()
            if in_code_span(at):
                continue
            found = m.group(2)
            lst = by_name.get(found)
            if lst is None:
                by_name[found] = [at]
            else:
                lst.append(at)
            if found == name:
                return True
        self.done = True
        return False


class _Matcher:
    """Where the element opened before an offset closes, counting nested ``<name>`` pairs.

    Each ``<name ...>`` (not self-closing) and ``</name>`` after the first query is read once,
    in order, with the depth after it; closing tags are indexed by that depth. The close of
    an element whose content starts at ``p`` is the first closing tag after ``p`` that brings
    the depth one below the depth at ``p`` -- found by bisection once the text up to it has
    been read. A failed search reads to the end of the text once, for all later queries.
    """

    def __init__(self, ctx: ScanContext, name: str, start: int) -> None:
        self.ctx = ctx
        self.name = name
        self.events = _TagEvents.of(ctx, start)
        self.seen = self.events.positions(name)  # where `<name` / `</name` stand, as read so far
        self.k = 0  # next index into `seen`
        self.lo = self.cursor = start
        self.done = False
        self.depth = 0
        self.starts: list[int] = []
        self.ends: list[int] = []
        self.depths: list[int] = []  # depth after each event
        self.closes: dict[int, list[int]] = {}  # depth after -> event indices of closing tags
        self.furthest = -1  # the furthest offset a nested start tag read (an open quote)

    def _step(self) -> int:
        """Read the next event; its index, -1 if the match was no event, -2 at the end."""
        text = self.ctx.text
        m = self._next()
        if m is None:
            self.done = True
            self.cursor = len(text)
            return -2
        at, name_end, slash = m  # (outside inline code: see _TagEvents)
        if slash:
            tail = _CLOSE_TAIL.match(text, name_end)
            if tail is None:
                self.cursor = name_end
                return -1
            self.depth -= 1
            end = tail.end()
            self.closes.setdefault(self.depth, []).append(len(self.starts))
        else:
            tag = parse_start_tag(self.ctx, at, name_end)
            if tag.lookahead > self.furthest:
                self.furthest = tag.lookahead
            if not tag.closed or tag.self_closing:
                self.cursor = tag.end if tag.closed else name_end
                return -1
            self.depth += 1
            end = tag.end
        self.starts.append(at)
        self.ends.append(end)
        self.depths.append(self.depth)
        self.cursor = end
        return len(self.starts) - 1

    def _next(self) -> tuple[int, int, bool] | None:
        """``(at, name_end, slash)`` of the next ``<name`` or ``</name`` at or after the cursor."""
        seen, k, cursor = self.seen, self.k, self.cursor
        while True:
            n = len(seen)
            while k < n and seen[k] < cursor:
                k += 1
            if k < n:
                self.k = k + 1
                at = seen[k]
                slash = self.ctx.text.startswith("/", at + 1)
                return at, at + 1 + slash + len(self.name), slash
            if not self.events.read_more(self.name):
                self.k = k
                return None

    def close_after(self, p: int) -> tuple[int, int] | None:
        while not self.done and self.cursor < p:
            self._step()
        i = bisect.bisect_left(self.starts, p)
        target = (self.depths[i - 1] if i else 0) - 1
        found = self.closes.get(target)
        if found:
            k = bisect.bisect_left(found, i)
            if k < len(found):
                j = found[k]
                return self.starts[j], self.ends[j]
        while not self.done:
            j = self._step()
            if (
                j >= 0
                and self.depths[j] == target
                and self.ctx.text.startswith("</", self.starts[j])
            ):
                return self.starts[j], self.ends[j]
        return None


class Close(NamedTuple):
    """A closing tag found by :func:`find_close`."""

    start: int  # its ``<``
    end: int  # just past its ``>``
    lookahead: int  # how far the search read (a nested start tag may read past ``end``)


def watched_tags(*names: str) -> tuple[str, ...]:
    """What an unclosed element's result rests on: no ``</name`` after it, and the ``<name``
    openers after it (nested pairs) staying as they are. See ``Construct.watch``."""
    return tuple(sorted({w for n in names for w in (f"</{n}", f"<{n}")}))


def find_close(ctx: ScanContext, name: str, content_start: int) -> Close | None:
    """The ``</name>`` that closes the element whose content starts at ``content_start``, or
    None when it is never closed (then the search read to the end of the text). Nested
    ``<name>...</name>`` pairs inside the content (a file that documents the format) are
    skipped whole."""
    key = "tags:close:" + name
    matcher = ctx.cache.get(key)
    if not isinstance(matcher, _Matcher) or content_start < matcher.lo:
        matcher = ctx.cache[key] = _Matcher(ctx, name, content_start)
    found = matcher.close_after(content_start)
    if found is None:
        return None
    return Close(found[0], found[1], max(found[1], matcher.furthest))


# --------------------------------------------------------------------------------------------
# Diagnostics shared by the tag dialects


def unclosed_start_tag(tag: StartTag) -> Diagnostic:
    """``<name ...`` that never reaches its ``>``."""
    fixes: list[Fix] = []
    if tag.problem.startswith("is never finished"):
        end = tag.attributes[-1].end if tag.attributes else tag.name_span.end
        fixes.append(Fix("Insert `>`", [TextEdit(Span(end, end), ">")], True))
    return Diagnostic(
        "unclosed-tag",
        f"the start tag <{tag.name} {tag.problem}; the tag is ignored until it is",
        tag.name_span,
        fixes=fixes,
    )


def insert_closing_fix(text: str, name: str, at: int, multiline: bool) -> Fix:
    """Insert ``</name>`` at ``at`` (on a line of its own when the element spans lines)."""
    lead = "\n" if multiline and at > 0 and text[at - 1] not in "\r\n" else ""
    return Fix(f"Insert </{name}>", [TextEdit(Span(at, at), f"{lead}</{name}>")], True)


def mismatched_close(text: str, close: Span, opened: str, what: str = "") -> Diagnostic:
    """``</other>`` where ``</opened>`` belongs; the fix renames it."""
    m = _CLOSER.match(text, close.start, close.end)
    written = m.group(1) if m else text[close.start + 2 : close.end - 1]
    name_span = Span(close.start + 2, close.start + 2 + len(written))
    return Diagnostic(
        "mismatched-tag",
        f"</{written}> does not close <{opened}>{what}; write </{opened}>",
        name_span,
        fixes=[Fix(f"Rename to </{opened}>", [TextEdit(name_span, opened)], True)],
    )


_STOPPER = re.compile(r"<[A-Za-z][\w\-]*| {0,3}(?:`+|~+)")


def stop_lookahead(text: str, bound: int) -> int:
    """How far the text was read to tell that an unclosed element stops at ``bound`` (the next
    tag a dialect claims, or a fence line; see ``ScanContext.next_tag_start``): its ``<name`` or
    fence run and the character after it -- not the rest of its line, which on a line of
    thousands of tags would be read once per tag."""
    m = _STOPPER.match(text, bound)
    return min(len(text), (m.end() if m else bound) + 1)


def closer_at(text: str, pos: int, bound: int) -> tuple[str, int] | None:
    """``(name, end)`` when a closing tag ``</name>`` starts at ``pos``."""
    m = _CLOSER.match(text, pos, bound)
    return (m.group(1), m.end()) if m else None
