"""What one scan of a text holds: the context it hands to dialects and the units it yields.

:class:`ScanState` is the :class:`~action_lsp.dialects.ScanContext` of one scan (the text,
the enabled dialects, and the searches a scan remembers: fence closes, inline code spans, the
next owned tag). :class:`Unit` is a run of whole lines scanned together, and
:func:`add_construct` files what a dialect read into one. Both scanners build on them: the
markdown scanner (:mod:`action_lsp.scan`) and the line-by-line reader of JSON sessions
(:mod:`action_lsp.records`); neither imports the other's internals.
"""

from __future__ import annotations

import bisect
import re
from dataclasses import dataclass, field
from typing import Any

from .dialects import Construct, DialectSet
from .markdown import (
    PARAGRAPH,
    FenceOpen,
    ForwardSearch,
    _find_fence_close,
    glued_close,
    glued_closer,
    line_end,
    line_start,
)
from .model import UNCLOSED_CODES, Action, Diagnostic, mark_in_progress

__all__ = ["SPAN_CACHE_LINES", "ScanState", "Unit", "add_construct", "line_start_of"]

_BOUND = re.compile(r"(?:\n|\r(?!\n))(?=[ \t]*(?:\r|\n)| {0,3}(?:```|~~~))")  # blank line or fence
# The same in a text with no carriage return, written so that `re` finds it by its first
# character (a line feed) and gives no indentation back (possessive): `_BOUND` opens with an
# alternation (a lone carriage return ends a line too), which is tried at every character (a
# 3.9 MB whole JSON document: 45 ms -> 5 ms).
_LF_BOUND = re.compile(r"\n(?=[ \t]*+[\r\n]| {0,3}+(?:```|~~~))")
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
    # Message separators (headings, rules, chat roles): (line start, line end), as the scanner
    # finds them (no Span made for each of a long history's 10,000 `#### ` lines).
    separators: list[tuple[int, int]] = field(default_factory=list)
    watch: list[str] = field(default_factory=list)  # see Construct.watch
    blocks: list[Construct] = field(default_factory=list)  # constructs that hold actions
    behind: int = -1  # the first offset a construct's look-behind read, when before ``start`` (else -1)

    def __init__(
        self,
        start: int,
        end: int,
        lookahead: int,
        actions: list[Action] | None = None,
        diagnostics: list[Diagnostic] | None = None,
        separators: list[tuple[int, int]] | None = None,
        watch: list[str] | None = None,
        blocks: list[Construct] | None = None,
        behind: int = -1,
    ) -> None:
        # (Written out: the generated one calls a factory per list, and a long history's scan
        # makes 3,400 units. A subclass's generated ``__init__`` uses the field defaults above.)
        self.start = start
        self.end = end
        self.lookahead = lookahead
        self.actions = [] if actions is None else actions
        self.diagnostics = [] if diagnostics is None else diagnostics
        self.separators = [] if separators is None else separators
        self.watch = [] if watch is None else watch
        self.blocks = [] if blocks is None else blocks
        self.behind = behind


def _searches(dialects: DialectSet) -> tuple[re.Pattern[str] | None, re.Pattern[str] | None]:
    """The patterns a scan with ``dialects`` searches with, made once per set (a session scans
    each message's text on its own: thousands of scans of a few lines)."""
    cached = dialects.__dict__.get("_scan_searches")
    if cached is None:
        # Kilo Code glues its next call to a fence's closing backticks: a fence line followed
        # by a tag of an enabled dialect's ``fence_glued_tags`` closes the fence, the tag opens there.
        glued = frozenset().union(*(d.fence_glued_tags for d in dialects.dialects))
        body_markers = tuple(m for m, _ in dialects._body_markers)
        cached = dialects.__dict__["_scan_searches"] = (
            glued_closer(glued) if glued else None,
            re.compile(r"[ \t]*(?:" + "|".join(re.escape(m) for m in body_markers) + ")") if body_markers else None,
        )
    return cached


UNKNOWN = (-1, -1)  # (what _Closes.known says when no remembered search tells)


class _Closes:
    """The closing fences a scan found, per fence (character, length), remembered so that a
    search from a line start is answered from an earlier one whenever it must give the same:
    the last search that failed fails from any later start, and the last close found is the
    close of every start from its search's start up to it."""

    __slots__ = ("failed", "found")

    def __init__(self) -> None:
        self.failed: dict[tuple[str, int], int] = {}
        self.found: dict[tuple[str, int], tuple[int, tuple[int, int]]] = {}

    def known(self, start: int, char: str, length: int) -> tuple[int, int] | None:
        """The close from ``start`` when a remembered search tells it (None: none), else
        :data:`UNKNOWN`."""
        key = (char, length)
        failed = self.failed.get(key)
        if failed is not None and start >= failed:
            return None
        since_found = self.found.get(key)
        if since_found is not None and since_found[0] <= start <= since_found[1][0]:
            return since_found[1]
        return UNKNOWN

    def note(self, start: int, char: str, length: int, found: tuple[int, int] | None) -> None:
        if found is None:
            self.failed[(char, length)] = start
        else:
            self.found[(char, length)] = (start, found)


class ScanState:
    """The :class:`~action_lsp.dialects.ScanContext` handed to dialects."""

    def __init__(self, text: str, dialects: DialectSet) -> None:
        self.text = text
        self.dialects = dialects
        self.cache: dict[str, Any] = {}
        self.cr = "\r" in text  # any line ending other than \n (else faster searches serve)
        self._failed: dict[str, int] = {}
        self._fence_closes = _Closes()  # (find_fence_close's answers)
        self._plain_closes = _Closes()  # (plain_fence_close's)
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
        self.glued, self._body_marker = _searches(dialects)

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
        line_start = line_start_of(text, pos, self.cr)
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
        m = (_BOUND if self.cr else _LF_BOUND).search(self.text, at)
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
        close = self.find_fence_close(body, fence[0], len(fence))
        if close is None:
            return -1
        for rx in needs:
            if rx.search(text, body, close[0]):
                return -1
        if self.dialects.fence_bodies and self._marker_line(body) < close[0]:
            return -1
        # Last (the dearest, and an Aider block's file-name line would say yes to it: its
        # marker line said no first; the close is the scan's remembered search).
        if self.dialects.fence_heads and self.dialects.fence_head_claims(text, m.start("fence"), info, body):
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
        known = self._fence_closes.known(body_start, char, length)
        if known is not UNKNOWN:
            return known
        found = self.plain_fence_close(body_start, char, length)
        if self.glued is not None:
            found = glued_close(self.text, body_start, char, length, found, None, self.glued)
        self._fence_closes.note(body_start, char, length, found)
        return found

    def plain_fence_close(self, start: int, char: str, length: int) -> tuple[int, int] | None:
        """The closing fence line at or after the line start ``start`` without glued closers
        (:func:`~action_lsp.markdown.find_fence_close` without ``glued``), remembered the
        same way: the scanner, :meth:`find_fence_close` and the dialects that read a fence's
        blocks up to its close ask it of the same fence in turn."""
        known = self._plain_closes.known(start, char, length)
        if known is not UNKNOWN:
            return known
        found = _find_fence_close(self.text, start, char, length, cr=self.cr)
        self._plain_closes.note(start, char, length, found)
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


line_start_of = line_start  # (markdown's: the dialects' readers use it too)


def _marker_lines(markers: tuple[str, ...], cr: bool) -> re.Pattern[str]:
    """The line ending before a line that starts (after blanks) with one of ``markers``."""
    key = (markers, cr)
    rx = _MARKER_LINES.get(key)
    if rx is None:
        alts = "|".join(re.escape(m) for m in markers)
        blanks = r"[ \t]*"
        if markers and all(m and m[0] not in " \t" for m in markers):
            # The blanks taken whole and the marker's first character checked before its
            # alternatives (as ``scan._line_kinds`` does): a line of a code block's body is
            # rejected at its first character, not after each alternative was tried on it.
            blanks = r"[ \t]*+(?=[" + re.escape("".join(sorted({m[0] for m in markers}))) + "])"
        rx = _MARKER_LINES[key] = re.compile((r"(?:\n|\r(?!\n))" if cr else r"\n") + r"(?=" + blanks + "(?:" + alts + "))")
    return rx


_MARKER_LINES: dict[tuple[tuple[str, ...], bool], re.Pattern[str]] = {}


def add_construct(unit: Unit, construct: Construct | None, ctx: ScanState | None = None) -> None:
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


def _open_at_end(ctx: ScanState, construct: Construct) -> bool:
    """Is ``construct`` unclosed and the last thing in the document: it read to the end, no
    action tag or fence follows it, and no paragraph of prose does (a partial line after it,
    ``<conte`` or a closing fence's first backtick, is the stream's next chunk)? A chat buffer
    may still be streaming it in."""
    n = len(ctx.text)
    if construct.lookahead < n or not any(d.code in UNCLOSED_CODES for d in construct.diagnostics):
        return False
    return ctx.next_tag_start(construct.end) >= n and not ctx.paragraph.found(construct.end)


