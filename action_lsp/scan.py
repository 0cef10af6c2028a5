"""The top-level scanner: one forward pass that cuts a document into units.

The pass jumps from one *event* to the next (a fence opener, a ``<tag`` some dialect owns, a
``{`` that may start JSON in prose, a line a dialect declares as its marker, such as
``<<<<<<< SEARCH``), each kind found by its own compiled regex searched lazily, and hands
constructs to the dialects that claim them (a fence by its info word, or by its body).
Ordinary fenced code is skipped whole: what sits inside it is an example, not an action.
Message separators (headings, rules, chat roles) and tags in inline code are passed inside
the event search; blank lines are no events at all. Prose costs a Python step per event, not
per paragraph: that is what makes a chat transcript read at tens of MB/s.

Units are cut at line starts where the scanner is at top level: before and after a construct
that holds something (an action, a diagnostic), at an example fence whose hash says so, in a
long stretch of prose at paragraphs (and lines of long paragraphs) whose hash says so, and at
most every ``MAX_UNIT_LINES`` lines. The cut points depend only on the text around them, so
an incremental re-scan that reaches an old cut point after the edit can stop there (see
:mod:`action_lsp.document`); the scan state never crosses a cut.
"""

from __future__ import annotations

import bisect
import itertools
import operator
import re
import zlib
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any

from .dialects import Construct, Dialect, DialectSet, TagOpen
from .markdown import (
    EOL,
    PARAGRAPH,
    FenceOpen,
    ForwardSearch,
    fence_open_at,
    find_fence_close,
    glued_closer,
    line_end,
    next_line_start,
)
from .model import UNCLOSED_CODES, Action, Diagnostic, Fix, Span, TextEdit, mark_in_progress

MAX_UNIT_LINES = 256

# Events, each found by its own regex: an alternation of them would stop `re` from skipping
# ahead by first character (ten times slower on a 4 MB transcript).
_ROLE = r"\*{0,2}(?:[Uu]ser|[Aa]ssistant|[Hh]uman|AI|[Ss]ystem|[Mm]odel)\*{0,2}[ \t]*:"
# At a line start: a fence, a message separator (heading, rule, chat role), or JSON.
_LINE_EVENT = (
    r"(?P<fence> {0,3}(?P<fence_chars>`{3,}|~{3,})(?P<fence_info>[^\r\n]*))"
    r"|(?P<sep>#{1,6}[ \t]|(?:-[ \t]*){3,}(?=\r|\n|\Z)|(?:\*[ \t]*){3,}(?=\r|\n|\Z)|(?:_[ \t]*){3,}(?=\r|\n|\Z)|" + _ROLE + ")"
    r"|(?P<linejson>[ \t]*\{)"
)
_TAG_START = re.compile(r"<(?P<slash>/?)(?P<name>[A-Za-z][\w\-]*)")
_JSON_START = re.compile(r"\{(?=[ \t]*\"(?:type|action)\"[ \t]*:)")
_BOUND = re.compile(r"(?:\n|\r(?!\n))(?=[ \t]*(?:\r|\n)| {0,3}(?:```|~~~))")  # blank line or fence


@dataclass(slots=True)
class Unit:
    """A run of whole lines scanned together; what the incremental re-scan reuses or redoes.

    Spans inside are absolute for the text the unit was scanned in, whose start was ``origin``;
    :meth:`shifted` moves them when text before the unit changes length.
    """

    start: int
    end: int
    lookahead: int
    actions: list[Action] = field(default_factory=list)
    diagnostics: list[Diagnostic] = field(default_factory=list)
    separators: list[Span] = field(default_factory=list)  # message separators (headings, rules)
    watch: list[str] = field(default_factory=list)  # see Construct.watch
    blocks: list[Construct] = field(default_factory=list)  # constructs that hold actions
    behind: int = -1  # the first offset a construct's look-behind read, when before ``start`` (else -1)


class _Context:
    """The :class:`~action_lsp.dialects.ScanContext` handed to dialects."""

    def __init__(self, text: str, dialects: DialectSet) -> None:
        self.text = text
        self.dialects = dialects
        self.cache: dict[str, Any] = {}
        self.cr = "\r" in text  # any line ending other than \n (else faster searches serve)
        self._failed: dict[str, int] = {}
        self._fence_failed: dict[tuple[str, int], int] = {}
        self._fence_found: dict[tuple[str, int], tuple[int, tuple[int, int]]] = {}
        self._next_tag: tuple[int, int] = (-1, -1)  # (query start, answer)
        self._next_fence: tuple[int, int] = (-1, -1)  # (query start, next fence line or end)
        self._code_spans: tuple[int, int, list[tuple[int, int]]] = (0, -1, [])
        self.paragraph = ForwardSearch(text, PARAGRAPH)  # is there prose after a position?
        # Lines whose code spans were worked out, by start: the scanner and the closing-tag
        # searches ahead of it ask about different lines in turn.
        self._span_lines: list[int] = []
        self._span_cache: dict[int, tuple[int, list[tuple[int, int]]]] = {}
        self._bound: tuple[int, int] = (-1, -1)  # (query start, answer) of next_bound
        self._markers = (-1, -1)  # (query, next line-marker line) of body_has_marker
        self._plain_words: dict[str, tuple[re.Pattern[str], ...] | None] = {}  # see _word_needs
        # Kilo Code glues its next call to a fence's closing backticks: a fence line followed
        # by a tag of an enabled dialect's ``fence_glued_tags`` closes the fence, the tag opens there.
        glued = frozenset().union(*(d.fence_glued_tags for d in dialects.dialects))
        self.glued = glued_closer(glued) if glued else None
        body_markers = tuple(m for m, _ in dialects._body_markers)
        self._body_marker = (
            re.compile(r"[ \t]*(?:" + "|".join(re.escape(m) for m in body_markers) + ")") if body_markers else None
        )

    def in_code_span(self, pos: int) -> bool:
        """Is ``pos`` inside an inline code span? The spans of a line are worked out once, so a
        line holding thousands of tags costs one pass, not one pass per tag."""
        line_start, line_stop, spans = self._code_spans
        if not line_start <= pos < line_stop:
            if not self.cr:
                # A short line of single backticks (most prose): inside a span when an odd
                # number of them stands before ``pos`` and one after it, on its line.
                text = self.text
                a = text.rfind("\n", max(0, pos - _SHORT_LINE), pos) + 1
                b = text.find("\n", pos, pos + _SHORT_LINE)
                if (a or pos <= _SHORT_LINE) and (b >= 0 or pos + _SHORT_LINE >= len(text)):
                    b = b if b >= 0 else len(text)
                    if text.find("``", a, b) < 0:
                        return text.count("`", a, pos) % 2 == 1 and text.find("`", pos, b) > pos
            line_start, line_stop, spans = self._line_spans(pos)
            self._code_spans = (line_start, line_stop, spans)
        if not spans:
            return False
        k = bisect.bisect_right(spans, (pos, 1 << 62)) - 1
        return k >= 0 and spans[k][0] <= pos < spans[k][1]

    def _line_spans(self, pos: int) -> tuple[int, int, list[tuple[int, int]]]:
        starts = self._span_lines
        k = bisect.bisect_right(starts, pos) - 1
        if k >= 0:
            stop, spans = self._span_cache[starts[k]]
            if pos < stop or (pos == stop and stop == len(self.text)):
                return starts[k], stop, spans
        text = self.text
        line_start = _line_start_of(text, pos, self.cr)
        if self.cr:
            line_stop = line_end(text, pos)
        else:
            line_stop = text.find("\n", pos)
            line_stop = len(text) if line_stop < 0 else line_stop
        spans = _code_spans(text, line_start, line_stop)
        if len(starts) >= SPAN_CACHE_LINES:
            starts.clear()
            self._span_cache.clear()
        bisect.insort(starts, line_start)
        self._span_cache[line_start] = (line_stop, spans)
        return line_start, line_stop, spans

    def next_bound(self, at: int) -> int:
        """Just past the next blank line or fence line after ``at`` (or the text's end): how far
        a JSON value in prose may run. Remembered, so values in one paragraph share a search."""
        q, answer = self._bound
        if q <= at and (at < answer or (answer == at == len(self.text))):
            return answer
        m = _BOUND.search(self.text, at)
        answer = m.end() if m else len(self.text)
        self._bound = (at, answer)
        return answer

    def plain_fence(self, m: re.Match[str]) -> int:
        """Where the fence opened on the line ``m`` (a line event's match) ends, when it is a
        plain example no dialect takes (checked without building it: most fences of a chat
        are); else -1."""
        text = self.text
        fence, info = m.group("fence_chars"), m.group("fence_info")
        if fence[0] == "`" and "`" in info:
            return -1
        word = info.split(None, 1)[0] if info and not info.isspace() else ""
        if word in self._plain_words:
            needs = self._plain_words[word]
        else:
            needs = self._plain_words[word] = self._word_needs(word)
        if needs is None:
            return -1
        n = len(text)
        body = m.end()
        if body < n:
            body += 2 if text.startswith("\r\n", body) else 1
        if self._body_marker is not None and self._body_marker.match(text, body):
            return -1
        if self.dialects.fence_heads and self.dialects.fence_head_claims(text, m.start("fence"), info, body):
            return -1
        failed = self._fence_failed.get((fence[0], len(fence)))
        if failed is not None and body >= failed:
            return -1
        close = find_fence_close(text, body, fence[0], len(fence), cr=self.cr, glued=self.glued)
        if close is None:
            return -1
        for rx in needs:
            if rx.search(text, body, close[0]):
                return -1
        if self.dialects.fence_bodies and self._marker_line(body) < close[0]:
            return -1
        return close[1]

    def _word_needs(self, word: str) -> tuple[re.Pattern[str], ...] | None:
        """For a fence info word: the patterns a body must hold for one of its owners to take
        it (empty: no owner), or None when the fence must be offered to its owners whatever
        it holds (or its word is a near miss, reported)."""
        ds = self.dialects
        owners = ds.fence_owners(word)
        if not owners:
            return () if ds.fence_near_miss(word) is None else None
        needs = tuple(d.fence_body_needs for d in owners)
        return None if any(rx is None for rx in needs) else needs  # type: ignore[return-value]

    def _marker_line(self, at: int) -> int:
        """The start of the first line at or after the line start ``at`` that begins (after
        blanks) with a line marker, or the text's length (remembered forward)."""
        q, found = self._markers
        if not q <= at <= found:
            markers = tuple(m for m, _ in self.dialects._line_markers)
            if not markers:
                return len(self.text)
            m = _marker_lines(markers, self.cr).search(self.text, at - 1)
            found = m.end() if m is not None else len(self.text)
            self._markers = (at, found)
        return found

    def body_may_hold(self, fence: FenceOpen, needs: re.Pattern[str] | None) -> bool:
        """May the body of ``fence`` (to its close, or the text's end) hold a match of
        ``needs`` (a dialect's ``fence_body_needs``)?"""
        if needs is None:
            return True
        close = self.find_fence_close(fence.body_start, fence.char, fence.length)
        return needs.search(self.text, fence.body_start, close[0] if close else len(self.text)) is not None

    def body_has_marker(self, fence: FenceOpen) -> bool:
        """Might a dialect offered every fence (``Dialect.fence_bodies``) claim this one: is it
        unclosed, or does a line in its body start with a line marker?"""
        close = self.find_fence_close(fence.body_start, fence.char, fence.length)
        if close is None:
            return True
        return self._marker_line(fence.body_start) < close[0]

    def find(self, needle: str, start: int) -> int:
        failed = self._failed.get(needle)
        if failed is not None and start >= failed:
            return -1
        found = self.text.find(needle, start)
        if found < 0:
            self._failed[needle] = start if failed is None else min(start, failed)
        return found

    def find_fence_close(self, body_start: int, char: str, length: int) -> tuple[int, int] | None:
        """The closing fence line at or after the line start ``body_start``. Both answers are
        remembered: a later block whose body starts before a found fence gets the same one
        (blocks that never close, before one far fence, would each search to it)."""
        key = (char, length)
        failed = self._fence_failed.get(key)
        if failed is not None and body_start >= failed:
            return None
        since_found = self._fence_found.get(key)
        if since_found is not None and since_found[0] <= body_start <= since_found[1][0]:
            return since_found[1]
        found = find_fence_close(self.text, body_start, char, length, cr=self.cr, glued=self.glued)
        if found is None:
            self._fence_failed[key] = body_start
        else:
            self._fence_found[key] = (body_start, found)
        return found

    def next_tag_start(self, start: int) -> int:
        q, answer = self._next_tag
        if q <= start <= answer:
            return answer
        pos = start
        text = self.text
        # A code fence also ends the recovery: running into it would start the scan inside the
        # fence, and turn its examples into actions and the blocks after it into examples.
        fq, limit = self._next_fence  # memo: no fence line in [fq, limit)
        if not fq <= start <= limit:
            limit = _next_fence_line(text, start)
            self._next_fence = (start, limit)
        while True:
            i = text.find("<", pos, limit)
            if i < 0:
                answer = limit
                break
            m = _TAG_NAME.match(text, i + 1)
            if m and self.dialects.tag_owner(m.group(0)) is not None:
                answer = i
                break
            pos = i + 1
        self._next_tag = (start, answer)
        return answer


_TAG_NAME = re.compile(r"[A-Za-z][\w\-]*")
_SHORT_LINE = 1024  # either side of a position: its line's code spans are counted, not cached
SPAN_CACHE_LINES = 4096  # lines whose inline code spans a scan remembers (then it forgets them all)
_REST_BLANK = re.compile(r"[^\S\r\n]*(?:\r|\n|\Z)")  # only blanks up to the line end
_FENCE_AT = re.compile(r" {0,3}(?:`{3,}|~{3,})")
_FENCE_LINE = re.compile(r"(?:\n|\r(?!\n))(?P<line> {0,3}(?:`{3,}|~{3,}))")


def _next_fence_line(text: str, start: int) -> int:
    """Offset of the first fence line at or after ``start``, or ``len(text)``."""
    if (start == 0 or text[start - 1] in "\r\n") and _FENCE_AT.match(text, start):
        return start
    m = _FENCE_LINE.search(text, start)
    return m.start("line") if m else len(text)


_BACKTICKS = re.compile(r"`+")
_BACKTICK = re.compile(r"`")


def _code_spans(text: str, start: int, end: int) -> list[tuple[int, int]]:
    """The inline code spans of the line ``text[start:end]``, as (open, close) offsets.

    As in CommonMark, a span opens with a run of backticks and closes with the next run of the
    same length (```` ``<tag>`` ```` as well as `` `<tag>` ``); a run that is never matched on
    the line is literal text.
    """
    if text.find("`", start, end) < 0:
        return []
    if text.find("``", start, end) < 0:  # single backticks only: they pair up in order
        ticks = [m.start() for m in _BACKTICK.finditer(text, start, end)]
        return list(zip([t + 1 for t in ticks[0::2]], ticks[1::2], strict=False))  # an odd last one is literal
    runs = [m.span() for m in _BACKTICKS.finditer(text, start, end)]
    spans: list[tuple[int, int]] = []
    open_by_width: dict[int, int] = {}  # width -> index into runs of the next run of that width
    i = 0
    while i < len(runs):
        a, b = runs[i]
        width = b - a
        # The next run of the same width after this one closes it.
        j = open_by_width.get(width, i + 1)
        j = max(j, i + 1)
        while j < len(runs) and runs[j][1] - runs[j][0] != width:
            j += 1
        open_by_width[width] = j
        if j < len(runs):
            spans.append((b, runs[j][0]))
            i = j + 1
        else:
            i += 1  # unmatched: literal backticks
    return spans


def _line_start_of(text: str, pos: int, cr: bool = True) -> int:
    """Start of the line holding ``pos``: searched back in growing windows, so the cost is the
    distance to the line start even when one of ``\n``/``\r`` never occurs before it
    (``cr=False``: the text holds no ``\r``)."""
    width = 1024
    while True:
        lo = max(0, pos - width)
        nl = text.rfind("\n", lo, pos)
        found = max(nl, text.rfind("\r", max(lo, nl + 1), pos)) if cr else nl
        if found >= 0 or lo == 0:
            return found + 1
        width *= 4


def _line_kinds(markers: tuple[str, ...]) -> tuple[re.Pattern[str], re.Pattern[str], re.Pattern[str]]:
    """The line-event regexes for a dialect set's line markers: what a line start holding an
    event looks like (``_LINE_KIND`` with a ``marker`` group), and two searches for the line
    ending before one -- a fast one for texts without ``\r`` (its literal ``\n`` lets ``re``
    skip ahead; every other line ending is rejected on its first character), and one for any."""
    found = _KINDS.get(markers)
    if found is not None:
        return found
    marker = "|".join(re.escape(m) for m in markers) if markers else r"(?!)"
    kind = re.compile(r"(?P<marker>[ \t]*(?:" + marker + "))|" + _LINE_EVENT)
    rest = (
        r"(?:[ \t]*(?:\{|" + marker + r")| {0,3}(?:```|~~~)|#|[-*_][ \t]*[-*_][ \t]*[-*_]|" + _ROLE + ")"
    )
    firsts = "".join(sorted({m[0] for m in markers if m} | set(" \t#`~{*_-") | set("UuAaHhSsMm")))
    fast = re.compile(r"\n(?=[" + re.escape(firsts) + "])(?=" + rest + ")")
    general = re.compile(r"(?:\n|\r(?!\n))(?=" + rest + ")")
    _KINDS[markers] = found = (kind, fast, general)
    return found


_KINDS: dict[tuple[str, ...], tuple[re.Pattern[str], re.Pattern[str], re.Pattern[str]]] = {}


def _marker_lines(markers: tuple[str, ...], cr: bool) -> re.Pattern[str]:
    """The line ending before a line that starts (after blanks) with one of ``markers``."""
    key = (markers, cr)
    rx = _MARKER_LINES.get(key)
    if rx is None:
        alts = "|".join(re.escape(m) for m in markers)
        rx = _MARKER_LINES[key] = re.compile((r"(?:\n|\r(?!\n))" if cr else r"\n") + r"(?=[ \t]*(?:" + alts + "))")
    return rx


_MARKER_LINES: dict[tuple[tuple[str, ...], bool], re.Pattern[str]] = {}


class _Events:
    """The next event at or after a position: line events (a fence, a message separator, a
    line starting with ``{``, a dialect's marker line), owned tags and ``{"type":`` objects,
    each kind from its own regex searched lazily (an alternation of them would stop ``re`` from
    skipping ahead by first character). Blank lines are no events (prose is cut by
    :func:`_prose_points` and at example fences)."""

    __slots__ = ("_json", "_kind", "_line", "_line_re", "_tag", "ctx", "dialects", "n", "seps", "text")

    def __init__(self, ctx: _Context) -> None:
        text = ctx.text
        self.ctx = ctx
        self.text = text
        self.n = len(text)
        self.dialects = dialects = ctx.dialects
        # Message separators (headings, rules, roles) passed on the way to the next event, as
        # (line start, line end): they are no events, the scanner files them with their unit.
        self.seps: list[tuple[int, int]] = []
        self._kind, fast, general = _line_kinds(tuple(m for m, _ in dialects._line_markers))
        self._line_re = general if ctx.cr else fast
        # Per kind: (searched from, found at, match); found at n + 1 = none.
        self._line: tuple[int, int, re.Match[str] | None] = (-1, -1, None)
        self._tag: tuple[int, int, re.Match[str] | None] = (-1, -1, None)
        self._json = (-1, -1)

    def _line_event(self, pos: int) -> tuple[int, re.Match[str] | None]:
        """The next line event at or after ``pos``: (its offset, its ``_kind`` match)."""
        text = self.text
        kind = self._kind
        if pos == 0 or text[pos - 1] == "\n" or (text[pos - 1] == "\r" and not text.startswith("\n", pos)):
            m = kind.match(text, pos)
            if m is not None:
                self._line = (pos, pos, m)
                return pos, m
        search = self._line_re.search
        c = search(text, pos)
        while c is not None:
            m = kind.match(text, c.end())
            if m is not None:
                self._line = (pos, c.end(), m)
                return c.end(), m
            c = search(text, c.end())
        self._line = (pos, self.n + 1, None)
        return self.n + 1, None

    def _tag_event(self, pos: int) -> re.Match[str] | None:
        """The next ``<name`` or ``</name`` of a name some dialect owns (or a near miss)."""
        search = _TAG_START.search
        owner = self.dialects.tag_owner
        m = search(self.text, pos)
        while m is not None and owner(m.group("name")) is None:
            m = search(self.text, m.end())
        self._tag = (pos, m.start() if m is not None else self.n + 1, m)
        return m

    def _json_event(self, pos: int) -> int:
        m = _JSON_START.search(self.text, pos)
        found = m.start() if m is not None else self.n + 1
        self._json = (pos, found)
        return found

    def next(self, pos: int) -> tuple[int, str, re.Match[str] | None]:
        """(offset, kind, match) of the first event at or after ``pos``; kind "" when none.
        Each kind's answer from ``q`` holds for every query in ``[q, answer]``. Separators
        on the way are added to ``seps``; tags in inline code are passed."""
        text, n = self.text, self.n
        while True:
            q, tag_at, tm = self._tag
            if not q <= pos <= tag_at:
                tm = self._tag_event(pos)
                tag_at = self._tag[1]
            q, json_at = self._json
            if not q <= pos <= json_at:
                json_at = self._json_event(pos)
            q, line, lm = self._line
            if not q <= pos <= line:
                line, lm = self._line_event(pos)
            if line <= tag_at and line <= json_at:
                if lm is None:
                    return n, "", None
                if lm.lastgroup != "sep":
                    return line, lm.lastgroup, lm  # type: ignore[return-value]
                # A separator's line is passed whole (tags on it included).
                if self.ctx.cr:
                    eol = EOL.search(text, line)
                    self.seps.append((line, eol.start() if eol is not None else n))
                    pos = eol.end() if eol is not None else n
                else:
                    pos = text.find("\n", line) + 1 or n
                    self.seps.append((line, pos - 1 if pos < n or text.endswith("\n") else n))
                if pos >= n:
                    return n, "", None
            elif tag_at <= json_at:
                assert tm is not None
                if not self.ctx.in_code_span(tag_at):
                    return tag_at, "tag", tm
                pos = tm.end()  # ```<create_file>``` in prose is an example
            else:
                return json_at, "json", None


CUT_MODULUS = 16  # a line of a long paragraph ends a unit when its hash is 0 modulo this
PARAGRAPH_MODULUS = 8  # a paragraph ends a unit when its hash is 0 modulo this
LONG_PARAGRAPH = 32  # line feeds that make a run of prose long: its lines are cut points too
_HASHED = 256  # characters of a paragraph's end (or a fence's start) that its hash reads
LONG_STRETCH = 2048  # characters of prose between two events that are cut at paragraphs
FENCE_MODULUS = 4  # an example fence starts a unit when its hash is 0 modulo this
_ENCODE = operator.methodcaller("encode", "utf-8", "surrogatepass")


def _prose_points(text: str, pos: int, stop: int, cr: bool) -> list[int]:
    """Content-defined cut points in the prose ``[pos, stop)`` between two events, when it is
    ``LONG_STRETCH`` characters or more (shorter prose is cut at some fences, see ``scan``):

    - the start of a paragraph (the line after a blank line) when the end of the paragraph
      before it (its last ``_HASHED`` characters, from ``pos`` at most) has a CRC-32 that is
      0 modulo ``PARAGRAPH_MODULUS``;
    - in a run of ``LONG_PARAGRAPH`` lines or more without a blank line, and in a text with
      ``\r`` line endings, the line starts after a line whose CRC-32 is 0 modulo
      ``CUT_MODULUS``.

    A cut point depends only on the text around it (events are content too), so a re-scan
    right after an edit finds the old ones again and can stop there (counting lines from the
    unit's start would shift every later cut when a line is inserted, and keep a re-scan
    going). Blank lines are found with ``str.find``; only they cost a Python step."""
    if stop - pos < LONG_STRETCH:
        return []
    if cr:
        return _line_points(text, pos, stop)
    found: list[int] = []
    long = text.count("\n", pos, stop) >= LONG_PARAGRAPH
    seg = pos
    i = text.find("\n\n", pos, stop)
    while 0 <= i < stop - 2:
        if long and text.count("\n", seg, i) >= LONG_PARAGRAPH:
            found.extend(_line_points(text, seg, i))
        a = max(seg, i - _HASHED)
        if a < i and zlib.crc32(_ENCODE(text[a:i])) % PARAGRAPH_MODULUS == 0:
            found.append(i + 2)
        seg = i + 2
        i = text.find("\n\n", i + 1, stop)
    if long and text.count("\n", seg, stop) >= LONG_PARAGRAPH:
        found.extend(_line_points(text, seg, stop))
    return found


def _line_points(text: str, a: int, b: int) -> list[int]:
    """The line cut points in ``text[a:b]`` (``a < p < b``), whatever its line endings."""
    found: list[int] = []
    line_from = _line_start_of(text, a)
    for m in EOL.finditer(text, a, b):
        at = m.end()
        if at >= b:
            break
        if m.start() > line_from and zlib.crc32(_ENCODE(text[line_from : m.start()])) % CUT_MODULUS == 0:
            found.append(at)
        line_from = at
    return found


def scan(text: str, dialects: DialectSet, start: int = 0, records: Dialect | None = None) -> Iterator[Unit]:
    """Yield the units of ``text`` from ``start`` (a unit boundary) to the end, in order.

    ``records`` is the dialect reading a line-structured document (a JSON Lines session, see
    :mod:`action_lsp.records`): it cuts the units itself, a run of whole lines each.
    """
    if records is not None:
        from .records import scan_records

        yield from scan_records(text, dialects, records, start)
        return
    ctx = _Context(text, dialects)
    events = _Events(ctx)
    seps = events.seps
    n = len(text)
    unit = Unit(start, start, start)
    pos = start
    json_until = -1  # JSON candidates before this offset were already looked at
    counted_to, lines = start, 0  # line feeds in the current unit before `counted_to`

    while pos < n:
        at, kind, m = events.next(pos)
        # The prose between here and the event: cut at content-defined line starts, and after
        # MAX_UNIT_LINES lines without one.
        points = _prose_points(text, pos, at, ctx.cr) if at - pos >= LONG_STRETCH else ()
        lines += text.count("\n", counted_to, at)
        counted_to = at
        if points or lines >= MAX_UNIT_LINES:
            filed = 0  # separators before the cuts so far
            for cut_at in _prose_cuts(text, pos, at, points, lines - text.count("\n", pos, at)):
                while filed < len(seps) and seps[filed][0] < cut_at:
                    unit.separators.append(Span(*seps[filed]))
                    filed += 1
                unit.end = cut_at
                unit.lookahead = max(unit.lookahead, cut_at)
                yield unit
                unit = Unit(cut_at, cut_at, cut_at)
                json_until = -1
            lines = text.count("\n", unit.start, at) if unit.start > pos else lines
            del seps[:filed]
        if seps:
            unit.separators.extend(itertools.starmap(Span, seps))
            seps.clear()
        if not kind:
            break
        cut_before = cut_after = -1
        add: Construct | None = None  # a construct with its own unit
        if kind == "fence":
            assert m is not None
            end = ctx.plain_fence(m)
            if end >= 0:  # an example: part of the prose around it, and a unit start by its hash
                if at > unit.start and zlib.crc32(_ENCODE(text[at : min(end, at + _HASHED)])) % FENCE_MODULUS == 0:
                    unit.end = at
                    unit.lookahead = max(unit.lookahead, at)
                    yield unit
                    unit = Unit(at, at, at)
                    if dialects.fence_heads:  # it read the line before the fence to decide
                        unit.behind = _line_start_of(text, at - (2 if text.startswith("\r\n", at - 2) else 1), ctx.cr)
                    json_until = -1
                    lines, counted_to = 0, at
                pos = end
                continue
            construct, pos = _fence(ctx, at)
            if construct is None:
                pass
            elif _plain(construct):  # an example: part of the prose around it
                unit.lookahead = max(unit.lookahead, construct.lookahead)
            else:
                cut_before, add, cut_after = at, construct, pos
        elif kind == "marker":
            cut_before = at
            owner = dialects.line_owner(text, at)
            construct = owner.parse_line(ctx, at) if owner is not None else None
            if construct is None or construct.end <= at:
                pos = next_line_start(text, at)
            else:
                add = construct
                pos = construct.end
                if pos >= n or text[pos - 1] in "\r\n":
                    cut_after = pos
        elif kind == "tag":  # (outside inline code: see _Events)
            assert m is not None
            pos = _tag(ctx, unit, m)
            if pos < n and text[pos - 1] not in "\r\n" and _REST_BLANK.match(text, pos):
                pos = next_line_start(text, pos)
            if pos >= n or text[pos - 1] in "\r\n":
                cut_after = pos
        else:  # JSON: a line starting with a brace, or an action object in a line
            brace = text.find("{", at) if kind == "linejson" else at
            if brace < json_until or ctx.in_code_span(brace):
                pos = brace + 1
                continue
            construct, stop, bound = _prose_json(ctx, brace)
            unit.lookahead = max(unit.lookahead, bound)  # what was read to decide
            if construct is None:
                json_until = stop
                pos = brace + 1
                continue
            _add(unit, construct, ctx)
            pos = construct.end
            if pos < n and _REST_BLANK.match(text, pos):
                pos = next_line_start(text, pos)
                cut_after = pos
        if cut_before > unit.start:
            unit.end = cut_before
            unit.lookahead = max(unit.lookahead, cut_before)
            yield unit
            unit = Unit(cut_before, cut_before, cut_before)
            json_until = -1
            lines, counted_to = 0, cut_before
        if add is not None:
            _add(unit, add, ctx)
        if cut_after > unit.start:
            unit.end = cut_after
            unit.lookahead = max(unit.lookahead, cut_after)
            yield unit
            unit = Unit(cut_after, cut_after, cut_after)
            json_until = -1
            lines, counted_to = 0, cut_after
    unit.end = n
    unit.lookahead = max(unit.lookahead, n)
    yield unit


def _plain(construct: Construct) -> bool:
    """A construct that holds nothing and relied on nothing past its end or before its start
    (an example fence): it stays inside the prose unit around it, without cuts."""
    return (
        not construct.actions
        and not construct.diagnostics
        and not construct.watch
        and construct.behind < 0
        and construct.lookahead <= construct.end
    )


def _prose_cuts(text: str, pos: int, stop: int, points: Sequence[int], lines: int) -> Iterator[int]:
    """The cuts in the prose ``[pos, stop)`` of a unit holding ``lines`` line feeds before
    ``pos``: the content-defined ``points``, and the line start after ``MAX_UNIT_LINES`` line
    feeds without a cut (at once when a long construct before ``pos`` passed them already)."""
    at = pos
    for nxt in (*points, stop):
        seg = text.count("\n", at, nxt)
        while lines + seg >= MAX_UNIT_LINES:
            cut = at
            for _ in range(max(1, MAX_UNIT_LINES - lines)):
                cut = text.find("\n", cut, nxt) + 1
            if not pos < cut < stop:
                break
            yield cut
            lines, at = 0, cut
            seg = text.count("\n", at, nxt)
        if nxt == stop:
            return
        yield nxt
        lines, at = 0, nxt


def _add(unit: Unit, construct: Construct | None, ctx: _Context | None = None) -> None:
    """Add ``construct`` to ``unit``; with the scan's ``ctx``, mark it in progress when it is
    unclosed at the end of the text."""
    if construct is None:
        return
    if ctx is not None and construct.diagnostics and _open_at_end(ctx, construct):
        mark_in_progress(construct.diagnostics)
        for a in construct.actions:
            a.in_progress = True
        unit.lookahead = len(ctx.text)  # any text added after it decides whether it still is
    unit.actions.extend(construct.actions)
    unit.diagnostics.extend(construct.diagnostics)
    unit.lookahead = max(unit.lookahead, construct.lookahead, construct.end)
    behind = min(construct.span.start, construct.behind) if construct.behind >= 0 else construct.span.start
    if behind < unit.start and (unit.behind < 0 or behind < unit.behind):
        unit.behind = behind  # a declared look-behind (see Construct)
    unit.watch.extend(w for w in construct.watch if w not in unit.watch)
    if construct.actions:
        unit.blocks.append(construct)


def _open_at_end(ctx: _Context, construct: Construct) -> bool:
    """Is ``construct`` unclosed and the last thing in the document: it read to the end, no
    action tag or fence follows it, and no paragraph of prose does (a partial line after it,
    ``<conte`` or a closing fence's first backtick, is the stream's next chunk)? A chat buffer
    may still be streaming it in."""
    n = len(ctx.text)
    if construct.lookahead < n or not any(d.code in UNCLOSED_CODES for d in construct.diagnostics):
        return False
    return ctx.next_tag_start(construct.end) >= n and not ctx.paragraph.found(construct.end)


def _fence(ctx: _Context, at: int) -> tuple[Construct | None, int]:
    """Handle a fence line at ``at``; returns the construct (if a dialect took it) and where to go on."""
    text, dialects = ctx.text, ctx.dialects
    fence = fence_open_at(text, at)
    if fence is None:  # a backtick line that is not an opener (backticks in the info)
        return None, next_line_start(text, at)
    body_owner = dialects.fence_body_owner(text, fence.body_start)
    owner = body_owner or dialects.fence_owner(fence.word)
    diagnostics: list[Diagnostic] = []
    if owner is None:
        near = dialects.fence_near_miss(fence.word)
        if near is not None:
            owner = dialects.fence_owner(near)
            diagnostics.append(
                Diagnostic(
                    "wrong-block-name",
                    f"```{fence.word} is not a block the agent reads; did you mean ```{near}?",
                    fence.word_span,
                    fixes=[Fix(f"Rename to ```{near}", [TextEdit(fence.word_span, near)], True)],
                )
            )
    owners: tuple[Dialect, ...] = ()
    if owner is not None:
        owners = dialects.fence_owners(fence.word) or (owner,)
        if body_owner is not None:  # claimed by its first line first (a Codex patch in ```diff)
            owners = (body_owner, *(c for c in owners if c is not body_owner))
        for candidate in owners:
            if candidate is not body_owner and not ctx.body_may_hold(fence, candidate.fence_body_needs):
                continue
            construct = candidate.parse_fence(ctx, fence)
            if construct is not None:
                construct.diagnostics[:0] = diagnostics
                return construct, construct.end
    if dialects.fence_bodies and ctx.body_has_marker(fence):
        for claimer in dialects.fence_bodies:  # a fence claimed by what its body holds
            if claimer not in owners and (construct := claimer.parse_fence(ctx, fence)) is not None:
                construct.diagnostics[:0] = diagnostics
                return construct, construct.end
    if dialects.fence_heads and dialects.fence_head_claims(text, at, fence.info, fence.body_start):
        for claimer in dialects.fence_heads:  # a fence claimed by the file its head names
            if claimer not in owners and (construct := claimer.parse_fence(ctx, fence)) is not None:
                construct.diagnostics[:0] = diagnostics
                return construct, construct.end
    close = ctx.find_fence_close(fence.body_start, fence.char, fence.length)
    end = close[1] if close else len(text)
    if diagnostics:
        return Construct(Span(at, end), diagnostics=diagnostics, lookahead=end), end
    return Construct(Span(at, end), lookahead=end), end


def _tag(ctx: _Context, unit: Unit, m: re.Match[str]) -> int:
    text = ctx.text
    name = m.group("name")
    at = m.start()
    owner = ctx.dialects.tag_owner(name)
    if owner is None or ctx.in_code_span(at):
        return m.end()
    dialect, canonical = owner
    name_span = Span(m.start("name"), m.end("name"))
    if m.group("slash") and name in dialect.quiet_closers:
        return m.end()  # a fence-like line whose block another dialect read (Aider's </source>)
    if m.group("slash"):
        unit.diagnostics.append(
            Diagnostic(
                "mismatched-tag",
                f"</{name}> closes no open <{name}>; remove it or add the opening tag",
                Span(at, _gt_after(text, m.end())),
            )
        )
        return m.end()
    construct = dialect.parse_tag(ctx, TagOpen(at, name, name_span, canonical))
    if canonical != name:
        construct.diagnostics.insert(
            0,
            Diagnostic(
                "wrong-block-name",
                f"<{name}> is not a tag the agent reads; did you mean <{canonical}>?",
                name_span,
                fixes=[Fix(f"Rename to <{canonical}>", _rename_tag_edits(text, construct, name, canonical, name_span), True)],
            ),
        )
    _add(unit, construct, ctx)
    return max(construct.end, m.end())


def _rename_tag_edits(text: str, construct: Construct, name: str, canonical: str, name_span: Span) -> list[TextEdit]:
    edits = [TextEdit(name_span, canonical)]
    closing = f"</{name}>"
    end = construct.end
    if text.endswith(closing, 0, end) or text[construct.span.start:end].rstrip().endswith(closing):
        at = text.rfind(closing, construct.span.start, end)
        if at > name_span.start:
            edits.append(TextEdit(Span(at + 2, at + 2 + len(name)), canonical))
    return edits


_TO_GT = re.compile(r"[^<>\r\n]*>")


def _gt_after(text: str, pos: int) -> int:
    """Just past the ``>`` that ends a closing tag's name at ``pos`` (``pos`` if none before the
    line's end or the next ``<``: reading no further keeps a line of closers linear)."""
    m = _TO_GT.match(text, pos)
    return m.end() if m else pos


def _prose_json(ctx: _Context, at: int) -> tuple[Construct | None, int, int]:
    """Offer a JSON value in prose to the dialects that look at prose JSON.

    Returns the construct (None when no dialect takes it), where the parse stopped, and how far
    the text was read (the value may not run past the next blank line or fence)."""
    from .jsonscan import parse_json

    text = ctx.text
    bound = ctx.next_bound(at)
    result = parse_json(text, at, bound)
    if result.node is None or result.node.kind != "object":
        return None, max(result.end, at + 1), bound
    for dialect in ctx.dialects.prose_json:
        construct = dialect.parse_prose_json(ctx, at, result)
        if construct is not None:
            construct.lookahead = max(construct.lookahead, bound)
            return construct, construct.end, bound
    return None, max(result.end, at + 1), bound
