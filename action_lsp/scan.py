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

import itertools
import operator
import re
import sys
import zlib
from array import array
from collections.abc import Iterator, Sequence

from .dialects import Construct, Dialect, DialectSet, TagOpen
from .markdown import EOL, fence_open_at, next_line_start
from .model import Diagnostic, Fix, Span, TextEdit
from .records import scan_records
from .scan_state import ScanState, Unit, add_construct, line_start_of
from .session_dirs import Dirs

MAX_UNIT_LINES = 256

# Events, each found by its own regex: an alternation of them would stop `re` from skipping
# ahead by first character (ten times slower on a 4 MB transcript).
_ROLE = r"\*{0,2}(?:[Uu]ser|[Aa]ssistant|[Hh]uman|AI|[Ss]ystem|[Mm]odel)\*{0,2}[ \t]*:"
# At a line start: a fence, a message separator (heading, rule, chat role), or JSON.
_SEP = r"#{1,6}[ \t]|(?:-[ \t]*){3,}(?=\r|\n|\Z)|(?:\*[ \t]*){3,}(?=\r|\n|\Z)|(?:_[ \t]*){3,}(?=\r|\n|\Z)|" + _ROLE
_LINE_EVENT = (
    r"(?P<fence> {0,3}(?P<fence_chars>`{3,}|~{3,})(?P<fence_info>[^\r\n]*))"
    r"|(?P<sep>" + _SEP + ")"
    r"|(?P<linejson>[ \t]*\{)"
)
_TAG_START = re.compile(r"<(?P<slash>/?)(?P<name>[A-Za-z][\w\-]*)")
_JSON_START = re.compile(r"\{(?=[ \t]*\"(?:type|action)\"[ \t]*:)")


_REST_BLANK = re.compile(r"[^\S\r\n]*(?:\r|\n|\Z)")  # only blanks up to the line end
def _line_kinds(markers: tuple[str, ...]) -> tuple[re.Pattern[str], re.Pattern[str], re.Pattern[str]]:
    """The line-event regexes for a dialect set's line markers: what a line start holding an
    event looks like (``_LINE_KIND`` with a ``marker`` group), and two searches for the line
    ending before one -- a fast one for texts without ``\r`` (its literal ``\n`` lets ``re``
    skip ahead; every other line ending is rejected on its first character), and one for any."""
    found = _KINDS.get(markers)
    if found is not None:
        return found
    marker = "|".join(re.escape(m) for m in markers) if markers else r"(?!)"
    # The blanks before a marker (or a brace) taken whole, and the marker's first character
    # checked before its alternatives are tried, when no marker can start with a blank: then
    # only the longest run of blanks can be followed by one, and a line of indented code is
    # rejected after its blanks once, not once for each blank given back (``[ \t]*`` with the
    # alternatives after it: a fifth of the line search of a history, half of it code).
    blanks = blanks_or_brace = r"[ \t]*"
    if markers and all(m and m[0] not in " \t" for m in markers):
        heads = {m[0] for m in markers}
        blanks = r"[ \t]*+(?=[" + re.escape("".join(sorted(heads))) + "])"
        blanks_or_brace = r"[ \t]*+(?=[" + re.escape("".join(sorted(heads | {"{"}))) + "])"
    # Whole lines, each ended by \n, that ``kind`` reads as separators: no marker, no fence
    # (its alternatives before ``sep``), a separator.
    _SEP_RUNS[markers] = re.compile(r"(?:(?!" + blanks + r"(?:" + marker + r"))(?! {0,3}(?:`{3,}|~{3,}))(?:" + _SEP + r")[^\n]*\n)*")
    kind = re.compile(r"(?P<marker>" + blanks + "(?:" + marker + "))|" + _LINE_EVENT)
    # What follows the line ending before an event (a lookahead: the order of its alternatives
    # is free; the most frequent, a heading or an Aider user line, first).
    rest = (
        r"(?:#|" + blanks_or_brace + r"(?:\{|" + marker + r")| {0,3}(?:```|~~~)|[-*_][ \t]*[-*_][ \t]*[-*_]|" + _ROLE + ")"
    )
    firsts = "".join(sorted({m[0] for m in markers if m} | set(" \t#`~{*_-") | set("UuAaHhSsMm")))
    fast = re.compile(r"\n(?=[" + re.escape(firsts) + "])(?=" + rest + ")")
    general = re.compile(r"(?:\n|\r(?!\n))(?=" + rest + ")")
    _KINDS[markers] = found = (kind, fast, general)
    return found


_KINDS: dict[tuple[str, ...], tuple[re.Pattern[str], re.Pattern[str], re.Pattern[str]]] = {}
_SEP_RUNS: dict[tuple[str, ...], re.Pattern[str]] = {}  # see _line_kinds
# The characters a separator line (``_SEP``) starts with: a line starting otherwise is none, and
# needs no match of ``kind`` or of a separator run to say so.
SEP_FIRSTS = frozenset("#-*_UuAaHhSsMm")


def kind_firsts(markers: tuple[str, ...]) -> frozenset[str] | None:
    """The characters a line event (a match of ``_line_kinds(markers)``'s ``kind``) starts
    with (None: any, when a marker is empty)."""
    if not all(markers):
        return None
    return frozenset({m[0] for m in markers} | set(" \t`~{") | SEP_FIRSTS)


class _Events:
    """The next event at or after a position: line events (a fence, a message separator, a
    line starting with ``{``, a dialect's marker line), owned tags and ``{"type":`` objects,
    each kind from its own regex searched lazily (an alternation of them would stop ``re`` from
    skipping ahead by first character). Blank lines are no events (prose is cut by
    :func:`_prose_points` and at example fences)."""

    __slots__ = (
        "_firsts", "_json", "_kind", "_line", "_line_re", "_sep_run", "_tag", "ctx", "dialects", "n", "seps", "text",
    )

    def __init__(self, ctx: ScanState) -> None:
        text = ctx.text
        self.ctx = ctx
        self.text = text
        self.n = len(text)
        self.dialects = dialects = ctx.dialects
        # Message separators (headings, rules, roles) passed on the way to the next event, as
        # (line start, line end): they are no events, the scanner files them with their unit.
        self.seps: list[tuple[int, int]] = []
        markers = tuple(m for m, _ in dialects._line_markers)
        self._kind, fast, general = _line_kinds(markers)
        self._firsts = kind_firsts(markers)
        self._sep_run = _SEP_RUNS[markers].match
        self._line_re = general if ctx.cr else fast
        # Per kind: (searched from, found at, match); found at n + 1 = none.
        self._line: tuple[int, int, re.Match[str] | None] = (-1, -1, None)
        self._tag: tuple[int, int, re.Match[str] | None] = (-1, -1, None)
        self._json = (-1, -1)

    def _line_event(self, pos: int) -> tuple[int, re.Match[str] | None]:
        """The next line event at or after ``pos``: (its offset, its ``_kind`` match)."""
        text = self.text
        kind = self._kind
        firsts = self._firsts
        if (pos == 0 or text[pos - 1] == "\n" or (text[pos - 1] == "\r" and not text.startswith("\n", pos))) and (
            firsts is None or text[pos : pos + 1] in firsts
        ):
            # (A line starting with no event's character, most lines after a construct, is
            # told at once: a match of ``kind`` tries its many alternatives.)
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

    def _sep_line(self, line: int) -> int:
        """Pass the separator line starting at ``line`` (ended by ``\n``: a text with no ``\r``),
        kept in ``seps``; the start of the line after it."""
        text, n = self.text, self.n
        pos = text.find("\n", line) + 1 or n
        self.seps.append((line, pos - 1 if pos < n or text.endswith("\n") else n))
        return pos

    def next(self, pos: int) -> tuple[int, str, re.Match[str] | None]:
        """(offset, kind, match) of the first event at or after ``pos``; kind "" when none.
        Each kind's answer from ``q`` holds for every query in ``[q, answer]``. Separators
        on the way are added to ``seps``; tags in inline code are passed."""
        text, n = self.text, self.n
        while True:
            q, line, lm = self._line
            if not q <= pos <= line:
                line, lm = self._line_event(pos)
            if line == pos and lm is not None and lm.lastgroup != "sep":
                # A line event right here comes first whatever the other kinds find (the tags
                # and JSON objects of a whole JSON document are not searched for at its start).
                return line, lm.lastgroup, lm  # type: ignore[return-value]
            q, tag_at, tm = self._tag
            if not q <= pos <= tag_at:
                tm = self._tag_event(pos)
                tag_at = self._tag[1]
            q, json_at = self._json
            if not q <= pos <= json_at:
                json_at = self._json_event(pos)
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
                    pos = self._sep_line(line)
                    # The separator lines right after it (Aider's user message, a `#### ` line
                    # each) are the next events whatever follows: passed here, the lines ended
                    # by \n at once (matched, split and measured in C), the last line a step.
                    # (A line starting with no separator's character is none: most often the
                    # line after a user message, told without a match of the run or of `kind`.)
                    if text[pos : pos + 1] in SEP_FIRSTS:
                        sr = self._sep_run(text, pos)  # (it matches: emptily at least)
                        run = sr.end() if sr is not None else pos
                        if run > pos:
                            starts = list(itertools.accumulate(map((1).__add__, map(len, text[pos:run].split("\n"))), initial=pos))
                            self.seps.extend(zip(starts[:-2], map((-1).__add__, starts[1:-1]), strict=True))
                            pos = run
                        kind = self._kind.match
                        while text[pos : pos + 1] in SEP_FIRSTS and (sm := kind(text, pos)) is not None and sm.lastgroup == "sep":
                            pos = self._sep_line(pos)
                if pos >= n:
                    return n, "", None
            elif tag_at <= json_at:
                assert tm is not None
                if not self.ctx.in_code_span(tag_at):
                    return tag_at, "tag", tm
                pos = tm.end()  # ```<create_file>``` in prose is an example
            else:
                return json_at, "json", None


CUT_MODULUS = 16  # (a power of two) a line of a long paragraph ends a unit when its hash is 0 modulo this
PARAGRAPH_MODULUS = 8  # a paragraph ends a unit when its hash is 0 modulo this
LONG_PARAGRAPH = 32  # line feeds that make a run of prose long: its lines are cut points too
_HASHED = 256  # characters of a paragraph's end (or a fence's start) that its hash reads
LONG_STRETCH = 2048  # characters of prose between two events that are cut at paragraphs
FENCE_MODULUS = 4  # an example fence starts a unit when its hash is 0 modulo this
_ENCODE = operator.methodcaller("encode", "utf-8", "surrogatepass")


def _prose_points(text: str, pos: int, stop: int, cr: bool, lines: int = -1) -> list[int]:
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
    going). Blank lines are found by runs of line feeds (``re``: ``str.find`` of ``\n\n`` is
    slower where line feeds are frequent); only they cost a Python step."""
    if stop - pos < LONG_STRETCH:
        return []
    if cr:
        return _line_points(text, pos, stop)
    found: list[int] = []
    long = (lines if lines >= 0 else text.count("\n", pos, stop)) >= LONG_PARAGRAPH  # (the caller's count)
    seg = pos
    for m in _BLANK_RUN.finditer(text, pos, stop):
        # Each "\n\n" of the run a paragraph's end: the first ends the one from ``seg`` (empty
        # at ``pos``), each later one an empty one, the next starts after the run. (A "\n\n"
        # ending at ``stop`` ends none; the line feed left after it changes no count below.)
        i = m.start()
        if i > stop - 3:
            break
        if long and i - seg >= 2 * LONG_PARAGRAPH - 1 and text.count("\n", seg, i) >= LONG_PARAGRAPH:
            found.extend(_line_points(text, seg, i, False))  # (k line feeds, no two adjacent: 2k - 1 characters)
        a = max(seg, i - _HASHED)
        if a < i and zlib.crc32(_ENCODE(text[a:i])) % PARAGRAPH_MODULUS == 0:
            found.append(i + 2)
        seg = m.end()
    if long and text.count("\n", seg, stop) >= LONG_PARAGRAPH:
        found.extend(_line_points(text, seg, stop, False))
    return found


def _line_points(text: str, a: int, b: int, cr: bool = True) -> list[int]:
    """The line cut points in ``text[a:b]`` (``a < p < b``), whatever its line endings
    (``cr=False``: the text holds no ``\r``; its lines are split, measured and hashed in C)."""
    if not cr:
        return _lf_line_points(text, a, b)
    found: list[int] = []
    line_from = line_start_of(text, a)
    for m in EOL.finditer(text, a, b):
        at = m.end()
        if at >= b:
            break
        if m.start() > line_from and zlib.crc32(_ENCODE(text[line_from : m.start()])) % CUT_MODULUS == 0:
            found.append(at)
        line_from = at
    return found


def _lf_line_points(text: str, a: int, b: int) -> list[int]:
    """:func:`_line_points` of a text whose lines end at ``\n`` only, without a Python step per
    line (a long history's long paragraphs: 24,000 lines): the lines' UTF-8 bytes split and
    hashed in C, the low bits of the hashes tested in C (a table over their lowest bytes), and
    only the lines that are cuts located, by their text (no line between the last one located
    and a cut can read the same: equal lines hash alike, so it would be a cut too)."""
    line_from = line_start_of(text, a, False)
    lines = _ENCODE(text[line_from:b]).split(b"\n")  # (no byte of UTF-8 but a line feed is 10)
    # The lines ended before ``b`` (not the one a break at ``b - 1`` ends: no cut at ``b``).
    del lines[len(lines) - (1 if lines[-1] else 2) :]
    if not lines:
        return []
    marks = array(_U32, map(zlib.crc32, lines)).tobytes()[_LOW_BYTE::4].translate(_cut_table(CUT_MODULUS))
    found: list[int] = []
    pos = line_from  # a line start: the lines before it are located
    i = marks.find(0)  # (a line whose hash is 0 modulo CUT_MODULUS, a power of two; an empty one too)
    while i >= 0:
        if lines[i]:
            line = lines[i].decode("utf-8", "surrogatepass") + "\n"
            at = text.find(line, pos, b)
            while at > 0 and text[at - 1] != "\n":  # (a line ending so: not at a line start)
                at = text.find(line, at + 1, b)
            pos = at + len(line)
            found.append(pos)
        i = marks.find(0, i + 1)
    return found


_U32 = next(t for t in "IL" if array(t).itemsize == 4)  # (an array typecode of 4-byte items)
_LOW_BYTE = 0 if sys.byteorder == "little" else 3  # (the lowest byte of such an item)
_CUT_TABLES: dict[int, bytes] = {}
_BLANK_RUN = re.compile(r"\n\n+")


def _cut_table(modulus: int) -> bytes:
    """A ``bytes.translate`` table: a hash's lowest byte -> 0 when the hash is 0 modulo
    ``modulus`` (a power of two, at most 256), else 1."""
    table = _CUT_TABLES.get(modulus)
    if table is None:
        table = _CUT_TABLES[modulus] = bytes(0 if k % modulus == 0 else 1 for k in range(256))
    return table


def scan(
    text: str, dialects: DialectSet, start: int = 0, records: Dialect | None = None, dirs: Dirs | None = None
) -> Iterator[Unit]:
    """Yield the units of ``text`` from ``start`` (a unit boundary) to the end, in order.

    ``records`` is the dialect reading a line-structured document (a JSON Lines session, see
    :mod:`action_lsp.records`): it cuts the units itself, a run of whole lines each, from the
    working directories ``dirs`` in force at ``start`` (:mod:`action_lsp.session_dirs`).
    """
    if records is not None:
        yield from scan_records(text, dialects, records, start, dirs)
        return
    ctx = ScanState(text, dialects)
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
        prose = text.count("\n", pos, at)  # (counted once: counted_to <= pos <= at)
        points = _prose_points(text, pos, at, ctx.cr, prose) if at - pos >= LONG_STRETCH else ()
        lines += text.count("\n", counted_to, pos) + prose
        counted_to = at
        if points or lines >= MAX_UNIT_LINES:
            filed = 0  # separators before the cuts so far
            for cut_at in _prose_cuts(text, pos, at, points, lines - prose):
                while filed < len(seps) and seps[filed][0] < cut_at:
                    unit.separators.append(seps[filed])
                    filed += 1
                unit.end = cut_at
                unit.lookahead = max(unit.lookahead, cut_at)
                yield unit
                unit = Unit(cut_at, cut_at, cut_at)
                json_until = -1
            lines = text.count("\n", unit.start, at) if unit.start > pos else lines
            del seps[:filed]
        if seps:
            unit.separators.extend(seps)
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
                        unit.behind = line_start_of(text, at - (2 if text.startswith("\r\n", at - 2) else 1), ctx.cr)
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
            add_construct(unit, construct, ctx)
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
            add_construct(unit, add, ctx)
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


def _fence(ctx: ScanState, at: int) -> tuple[Construct | None, int]:
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


def _tag(ctx: ScanState, unit: Unit, m: re.Match[str]) -> int:
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
    add_construct(unit, construct, ctx)
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


def _prose_json(ctx: ScanState, at: int) -> tuple[Construct | None, int, int]:
    """Offer a JSON value in prose to the dialects that look at prose JSON.

    Returns the construct (None when no dialect takes it), where the parse stopped, and how far
    the text was read (the value may not run past the next blank line or fence)."""
    from .jsonscan import parse_json, parse_strict

    text = ctx.text
    bound = ctx.next_bound(at)
    result = parse_strict(text, at, bound) or parse_json(text, at, bound)
    if result.node is None or result.node.kind != "object":
        return None, max(result.end, at + 1), bound
    for dialect in ctx.dialects.prose_json:
        construct = dialect.parse_prose_json(ctx, at, result)
        if construct is not None:
            construct.lookahead = max(construct.lookahead, bound)
            return construct, construct.end, bound
    return None, max(result.end, at + 1), bound
