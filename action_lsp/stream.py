"""Checking a transcript as a stream: diagnostics unit by unit, in bounded memory.

:func:`~action_lsp.document.analyze` keeps every action of a transcript, which the editor needs
(lenses, symbols, apply) and ``check`` does not. The scanner cuts a text into independent units,
and the rules look at the actions of one construct at a time (nothing in the transcript-only
checks looks across units: the message groups that ``analyze`` assembles change no diagnostic).
So this module turns each unit's actions into diagnostics and drops them: a check holds the
text, the diagnostics not yet reported and the scanner's own per-text state -- not the actions.

Two sources:

- :func:`placed_text`: a text in memory (any transcript);
- :func:`placed_pieces`: a text arriving in pieces (a file read in chunks). A JSON Lines session
  (see :mod:`action_lsp.records`) is read a window at a time -- every unit is a run of at most a
  few dozen whole lines that reads nothing past its end -- so its memory is a window, whatever
  the file's size. Any other transcript is joined and read as a whole (its constructs may look
  far ahead: an unclosed tag searches to the end of the text).

Both give the diagnostics in exactly the order ``analyze`` sorts them (by start, then end, in
scan order for ties), each with a :class:`TextPositions` that turns its offsets into lines and
columns: units are scanned in order, and a unit's diagnostics never start before its look-behind
(at most ``lookbehind_lines`` lines before it), so whatever starts before that bound of the next
unit is final and is reported. The Workspace checks (``check --root``) plan every file action in
order and still need the whole :class:`~action_lsp.document.Analysis`.
"""

from __future__ import annotations

import bisect
import heapq
from collections.abc import Callable, Iterable, Iterator, Sequence

from .dialects import Dialect, DialectSet
from .document import scan_units
from .model import Diagnostic, Span, shift_diagnostic
from .records import records_owner, sniff_decided
from .rules import RuleContext
from .rules.paths import FirstAbsolute
from .session_dirs import FirstCwd, find_cwd
from .text import Encoding, Position, Range, units

__all__ = ["WINDOW", "TextPositions", "diagnostics", "placed_pieces", "placed_text"]

WINDOW = 1 << 18  # characters of a JSON Lines session read at a time (grown for longer units)
_ANCHORS = 4096  # line starts remembered by TextPositions (more are dropped, oldest first)

Placed = tuple[Diagnostic, "TextPositions"]


class _Cursor:
    """A position placed before: its offset, line, line start and columns (per encoding)."""

    __slots__ = ("cols", "line", "pos", "start")

    def __init__(self, pos: int, line: int, start: int, cols: dict[str, int]) -> None:
        self.pos = pos
        self.line = line
        self.start = start
        self.cols = cols


_CURSORS = 8  # positions remembered to count on from


class TextPositions:
    """Lines and columns of offsets into (a window of) a text, by LSP's end-of-line rules,
    without a table of every line: a position is counted on from the nearest one placed before
    it (lines and columns), and queries come in nearly increasing order, so each character is
    read about once -- also on one long line holding thousands of diagnostics.

    ``base`` is the offset of ``text[0]`` in the whole transcript and ``line`` its line number;
    answers are those of :class:`~action_lsp.text.LineIndex` over the whole transcript.
    """

    __slots__ = ("_cursors", "_ends", "_lines", "_starts", "base", "text")

    def __init__(self, text: str, base: int = 0, line: int = 0) -> None:
        self.text = text
        self.base = base
        self._starts = [0]  # local line starts placed so far, sorted
        self._lines = [line]  # their line numbers
        self._cursors: list[_Cursor] = [_Cursor(0, line, 0, {})]  # sorted by pos
        self._ends: dict[int, int] = {}  # line start -> its end (line_text)

    def _anchor(self, start: int, line: int) -> None:
        starts = self._starts
        k = bisect.bisect_left(starts, start)
        if k < len(starts) and starts[k] == start:
            return
        starts.insert(k, start)
        self._lines.insert(k, line)
        if len(starts) > _ANCHORS:  # keep the first and the newest half
            half = _ANCHORS // 2
            del starts[1:-half], self._lines[1:-half]

    def _place(self, local: int) -> tuple[int, int]:
        """(line number, local line start) of the line holding ``local``, from the anchors."""
        starts = self._starts
        k = bisect.bisect_right(starts, local) - 1
        anchor, line = starts[k], self._lines[k]
        start = _line_start(self.text, anchor, local)
        if start > anchor:
            line += _breaks(self.text, anchor, start)
        return line, start

    def position(self, offset: int, encoding: Encoding = "utf-16") -> Position:
        text = self.text
        local = max(0, min(offset - self.base, len(text)))
        cursors = self._cursors
        k = bisect.bisect_right(cursors, local, key=lambda c: c.pos) - 1
        if k >= 0:
            c = cursors[k]
            cut = _break_after(text, c.pos, local)
            if cut < 0:  # on the cursor's line: count the columns on from it
                line, start = c.line, c.start
                col = c.cols.get(encoding)
                if col is None:
                    col = c.cols[encoding] = units(text[start : c.pos], encoding)
                col += units(text[c.pos : local], encoding)
            else:
                line, start = c.line + _breaks(text, c.pos, cut), cut
                col = units(text[start:local], encoding)
        else:
            line, start = self._place(local)
            col = units(text[start:local], encoding)
        self._anchor(start, line)
        if k >= 0 and cursors[k].pos == local:
            cursors[k] = _Cursor(local, line, start, {encoding: col})
        else:
            cursors.insert(k + 1, _Cursor(local, line, start, {encoding: col}))
            if len(cursors) > _CURSORS:
                del cursors[0 if k + 1 > _CURSORS // 2 else -1]
        return Position(line, col)

    def range(self, span: Span, encoding: Encoding = "utf-16") -> Range:
        return Range(self.position(span.start, encoding), self.position(span.end, encoding))

    def line_text(self, line: int) -> str:
        """The text of ``line`` (without its line break), for a line at or after one placed."""
        k = max(0, bisect.bisect_right(self._lines, line) - 1)
        text = self.text
        start, at = self._starts[k], self._lines[k]
        while at < line and start < len(text):
            start = _after_break(text, start)
            at += 1
        end = self._ends.get(start)
        if end is None:
            if len(self._ends) > 64:
                self._ends.clear()
            end = self._ends[start] = _break_at(text, start)
        return text[start:end]


def _break_after(text: str, lo: int, hi: int) -> int:
    """The end of the last line break in ``text[lo:hi]`` (a line start in ``(lo, hi]``), or -1."""
    while True:
        i = max(text.rfind("\n", lo, hi), text.rfind("\r", lo, hi))
        if i < 0:
            return -1
        if text[i] == "\r" and text.startswith("\n", i + 1):
            hi = i  # the \r of a \r\n whose \n is at `hi`: not a line start yet
            continue
        return i + 1


def _break_at(text: str, pos: int) -> int:
    """The first line-break character at or after ``pos`` (or the end of the text), searched in
    growing steps: a text without ``\n`` (or without ``\r``) is not read to its end each time."""
    n = len(text)
    step = 256
    while pos < n:
        hi = min(n, pos + step)
        nl = text.find("\n", pos, hi)
        cr = text.find("\r", pos, nl if nl >= 0 else hi)
        if cr >= 0:
            return cr
        if nl >= 0:
            return nl
        pos, step = hi, step * 2
    return n


def _after_break(text: str, pos: int) -> int:
    """The start of the line after the one holding ``pos``."""
    end = _break_at(text, pos)
    if text.startswith("\r\n", end):
        return end + 2
    return min(end + 1, len(text))


def _line_start(text: str, lo: int, pos: int) -> int:
    """The start of the line holding ``pos``, given that the line start ``lo`` is at or before it."""
    hi = pos
    while True:
        i = max(text.rfind("\n", lo, hi), text.rfind("\r", lo, hi))
        if i < 0:
            return lo
        if text[i] == "\r" and text.startswith("\n", i + 1):
            hi = i  # the \r of a \r\n whose \n is at `pos`: not a line start yet
            continue
        return i + 1


def _breaks(text: str, a: int, b: int) -> int:
    """Line breaks in ``text[a:b]`` (both line starts)."""
    return text.count("\n", a, b) + text.count("\r", a, b) - text.count("\r\n", a, b)


class _InOrder:
    """Diagnostics of units scanned in order, released in ``analyze``'s order: sorted by (start,
    end), ties in scan order. What starts before the next units' earliest possible start is
    final."""

    __slots__ = ("_keep", "_pending")

    def __init__(self) -> None:
        self._pending: list[Placed] = []
        self._keep = FirstAbsolute().keep  # as ``analyze``: one absolute-path error per place

    @staticmethod
    def _key(p: Placed) -> tuple[int, int]:
        return p[0].span.start, p[0].span.end

    def add(self, found: Sequence[Placed], mark: int) -> list[Placed]:
        """Add one unit's diagnostics; return those final now (nothing later starts before
        ``mark``)."""
        new = sorted(found, key=self._key)  # stable: scan order for ties
        pending = list(heapq.merge(self._pending, new, key=self._key)) if self._pending else new
        k = 0
        while k < len(pending) and pending[k][0].span.start < mark:
            k += 1
        self._pending = pending[k:]
        return [p for p in pending[:k] if self._keep(p[0])]

    def flush(self) -> list[Placed]:
        out, self._pending = self._pending, []
        return [p for p in out if self._keep(p[0])]


def _dialect_set(dialects: DialectSet | Iterable[str] | None) -> DialectSet:
    return dialects if isinstance(dialects, DialectSet) else DialectSet.named(dialects)


def _back_lines(text: str, pos: int, lines: int, floor: int) -> int:
    """The start of the line ``lines`` lines before the one starting at ``pos`` (not before
    ``floor``, itself a lower bound that is safe to answer)."""
    for _ in range(lines):
        if pos <= floor:
            return floor
        pos = _line_start(text, floor, pos - 1)
    return max(pos, floor)


def placed_text(
    text: str, dialects: DialectSet | Iterable[str] | None = None, roots: Sequence[str] = ()
) -> Iterator[Placed]:
    """The diagnostics of ``text`` in ``analyze``'s order, each with the positions to place it
    (one :class:`TextPositions` for the whole text)."""
    ds = _dialect_set(dialects)
    ctx = RuleContext(ds, tuple(roots))
    owner = records_owner(text, ds)
    positions = TextPositions(text)
    order = _InOrder()
    # A later unit's diagnostics start no earlier than its look-behind: lookbehind_lines lines
    # before its start, which is at or after this unit's end (records read no look-behind).
    back = 0 if owner is not None else ds.lookbehind_lines + 1
    mark = 0
    for unit in scan_units(text, ds, ctx, records=owner):
        if unit.diagnostics:
            mark = _back_lines(text, unit.end, back, mark)
            yield from order.add([(d, positions) for d in unit.diagnostics], mark)
    yield from order.flush()


def diagnostics(
    text: str, dialects: DialectSet | Iterable[str] | None = None, roots: Sequence[str] = ()
) -> Iterator[Diagnostic]:
    """The diagnostics of ``text``, exactly ``analyze(text, dialects, roots).diagnostics``, one
    at a time and without keeping the actions."""
    for d, _ in placed_text(text, dialects, roots):
        yield d


class _Pieces:
    """Text arriving in pieces, taken a window at a time (joined once, never re-copied whole)."""

    __slots__ = ("_have", "_it", "_parts", "eof")

    def __init__(self, pieces: Iterable[str]) -> None:
        self._it = iter(pieces)
        self._parts: list[str] = []  # read and not yet taken, in order
        self._have = 0
        self.eof = False

    def _fill(self, size: int) -> None:
        for piece in self._it:
            self._parts.append(piece)
            self._have += len(piece)
            if self._have >= size:
                return
        self.eof = True

    def peek(self, size: int) -> str:
        """At least ``size`` characters (fewer at the end of the text), not taken."""
        self._fill(size)
        text = "".join(self._parts)
        self._parts = [text]
        return text

    def rest(self) -> str:
        """Everything left, taken."""
        self._fill(1 << 62)
        text = "".join(self._parts)
        self._parts, self._have = [], 0
        return text

    def take(self, size: int) -> str:
        """About ``size`` characters or more, up to a line break (or the end of the text: then
        ``eof`` is set and nothing is left); "" when no line break came within ``size``."""
        if self._have < size:
            self._fill(size)
        parts = self._parts
        if self.eof:
            return self.rest()
        for k in range(len(parts) - 1, -1, -1):
            cut = _last_cut(parts[k])
            if cut:
                last = parts[k]
                window = "".join([*parts[:k], last[:cut]])
                self._parts = [last[cut:], *parts[k + 1 :]]
                self._have -= len(window)
                return window
        return ""

    def put_back(self, text: str) -> None:
        """Return the unused end of a window taken last."""
        if text:
            self._parts.insert(0, text)
            self._have += len(text)


def _sniff(pieces: _Pieces, window: int) -> str:
    """Enough of the text to hold the lines :func:`records_owner` decides on whole (the first
    non-blank one, and those it looks past), or all of it."""
    size = window
    while True:
        head = pieces.peek(size)
        if pieces.eof or sniff_decided(head):
            return head
        size = 2 * max(size, len(head))


def _last_cut(text: str) -> int:
    """Just past the last line break of ``text`` that is surely whole (a ``\\r`` at the very end
    may be the first half of ``\\r\\n``), or 0."""
    cut = text.rfind("\n") + 1
    cr = text.rfind("\r", cut, len(text) - 1)
    return cr + 1 if cr >= 0 else cut


def _reaches(unit_diagnostics: Iterable[Diagnostic], end: int) -> bool:
    """Does a diagnostic (or an edit of its fixes already worked out) reach past ``end``?"""
    for d in unit_diagnostics:
        if d.span.end > end or any(s.end > end for s, _ in d.related):
            return True
        for f in d.fixes:
            if not f.lazy and any(e.span.end > end for e in f.edits):
                return True
    return False


def placed_pieces(
    pieces: Iterable[str],
    dialects: DialectSet | Iterable[str] | None = None,
    roots: Sequence[str] = (),
    window: int | None = None,
    whole: Callable[[], str] | None = None,
) -> Iterator[Placed]:
    """:func:`placed_text` of the text ``"".join(pieces)``, reading a JSON Lines session
    ``window`` characters at a time (default :data:`WINDOW`). Any other transcript is read
    whole: from ``whole()`` when given (a file read at once costs its bytes and its text, less
    than the pieces and their join), else by joining the pieces.

    Each window ends at a line break; its units are scanned as a text of their own and kept up
    to the first one that reads to the window's end, where the next window starts. A unit longer
    than the window (a huge record) grows the window until it fits.
    """
    window = window or WINDOW
    ds = _dialect_set(dialects)
    source = _Pieces(pieces)
    owner = records_owner(_sniff(source, window), ds)
    if owner is None:
        if whole is not None:
            del source
            yield from placed_text(whole(), ds, roots)
        else:
            yield from placed_text(source.rest(), ds, roots)
        return
    yield from _windows(source, ds, owner, roots, window)


def _windows(source: _Pieces, ds: DialectSet, owner: Dialect, roots: Sequence[str], window: int) -> Iterator[Placed]:
    ctx = RuleContext(ds, tuple(roots))
    order = _InOrder()
    offset = line = 0
    size = window
    # The working directories a window starts in (see session_dirs): the session's first cwd
    # once a window held it (absolute offset), the turn's directory the lines before left.
    first: FirstCwd = None
    turn: str | None = None
    while True:
        text = source.take(size)
        final = source.eof
        if not text and not final:
            size *= 2  # not one whole line yet
            continue
        positions = TextPositions(text, offset, line)
        stop = len(text)
        if first is None:
            held = find_cwd(text)
            first = (held[0], held[1] + offset) if held is not None else None
        dirs = (first[0], first[1] - offset) if first is not None else None, turn
        for unit in scan_units(text, ds, ctx, records=owner, dirs=dirs):
            if not final and (unit.lookahead >= len(text) or _reaches(unit.diagnostics, len(text))):
                stop = unit.start  # it may read on past the window: scan it again in the next
                break
            sets = getattr(unit, "turn", None)  # (a Codex turn_context line)
            if sets is not None:
                turn = sets
            if unit.diagnostics:
                found = [(shift_diagnostic(d, offset), positions) for d in unit.diagnostics]
                yield from order.add(found, offset + unit.end)
        if final:
            yield from order.flush()
            return
        source.put_back(text[stop:])
        if not stop:
            size = 2 * max(size, len(text))  # one unit longer than the window
            continue
        line = positions.position(offset + stop).line
        offset += stop
        size = window
