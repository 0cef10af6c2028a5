"""Lines and positions by LSP's rules.

LSP ends a line at ``\\n``, ``\\r\\n`` or ``\\r`` and nothing else (not ``\\f``, ``\\v``,
``\\x85``, U+2028 or U+2029, which ``str.splitlines`` also splits on). Columns count code units
of the negotiated position encoding: ``utf-16`` (the default, VS Code), ``utf-8`` (Neovim 0.11+)
or ``utf-32`` (code points).

:class:`LineIndex` is immutable and built in one C-speed pass; :class:`EditableLineIndex`
(used by the server) keeps its line starts in a NumPy array so that an edit shifts the lines
after it in one vector operation instead of a Python loop over 100,000 lines.
"""

from __future__ import annotations

import bisect
import re
from collections.abc import Sequence
from dataclasses import dataclass
from itertools import accumulate
from typing import TYPE_CHECKING, Any, Literal

if TYPE_CHECKING:
    import numpy as np
else:
    from .deferred import numpy as np  # (imported after the server's start: deferred.py)

from .model import Span

Encoding = Literal["utf-8", "utf-16", "utf-32"]
ENCODINGS: tuple[Encoding, ...] = ("utf-8", "utf-16", "utf-32")

_EOL = re.compile(r"\r\n|\r|\n")


@dataclass(frozen=True, slots=True)
class Position:
    """0-based line and column (in code units of some encoding)."""

    line: int
    character: int


@dataclass(frozen=True, slots=True)
class Range:
    start: Position
    end: Position


def line_starts(text: str, base: int = 0) -> list[int]:
    """Offsets where each line starts, by LSP's end-of-line rules."""
    return [base] + [m.end() + base for m in _EOL.finditer(text)]


# Characters of a text looked at a time by _line_start_array (256 KB as UTF-32). Chunks of a
# million characters (4 MB each, as each step's arrays) were fresh memory each, the pages of
# which the first open of a process faulted in one by one: for a 4 MB history 29 ms and 3,967
# page faults at its first open, 18-21 ms later; a chunk this size stays in the CPU's cache and
# reuses its memory: 17-18 ms and 440 faults first, 15-16 ms later (docs/performance.md).
LINE_CHUNK = 1 << 16
# A lazy EditableLineIndex answers the lines of its first characters from a list of their starts
# (found by a regex) until a place past HEAD_LIMIT is asked for; it lists at least HEAD.
HEAD = 1 << 19
HEAD_LIMIT = 1 << 20


def _starts_of(text: str) -> list[int]:
    """:func:`line_starts`, found by ``str.split`` when the text has no ``\r`` (3 ms instead of
    10 for the first 512 K characters of a 4 MB history)."""
    if "\r" in text:
        return line_starts(text)
    return list(accumulate(map((1).__add__, map(len, text.split("\n")[:-1])), initial=0))


def _line_start_array(text: str) -> np.ndarray[Any, np.dtype[np.int64]]:
    """:func:`line_starts` of ``text`` as an array, found at C speed: each chunk's code points
    (UTF-32) compared at once. A regex's matches turned into Python ints one by one took 0.15 s
    for the 100,000 lines of a 4 MB transcript, on the way to its first diagnostics."""
    parts = [np.zeros(1, dtype=np.int64)]
    n = len(text)
    if "\r" not in text:  # (most texts: the line feeds are all there is to find)
        for base in range(0, n, LINE_CHUNK):
            codes = np.frombuffer(text[base : base + LINE_CHUNK].encode("utf-32-le", "surrogatepass"), dtype=np.uint32)
            parts.append(np.flatnonzero(codes == 10).astype(np.int64) + (base + 1))
        return np.concatenate(parts)
    for base in range(0, n, LINE_CHUNK):
        end = min(n, base + LINE_CHUNK)
        # (one character more: whether a `\r` at the chunk's end is followed by a `\n`)
        codes = np.frombuffer(text[base : end + 1].encode("utf-32-le", "surrogatepass"), dtype=np.uint32)
        body = codes[: end - base]
        crlf = np.zeros(len(body), dtype=bool)
        crlf[: len(codes) - 1] = codes[1:] == 10
        crlf &= body == 13
        ends = np.flatnonzero((body == 10) | ((body == 13) & ~crlf))
        parts.append(ends.astype(np.int64) + (base + 1))
    return np.concatenate(parts)


def units(text: str, encoding: Encoding) -> int:
    """Length of ``text`` in code units of ``encoding`` (counted by the C codecs: a Python step
    per character made an outline of 100,000 actions on non-ASCII lines take seconds)."""
    if encoding == "utf-32" or text.isascii():
        return len(text)
    if encoding == "utf-16":  # one unit per code point, two for each astral one
        return len(text.encode("utf-16-le", "surrogatepass")) >> 1
    return len(text.encode("utf-8", "surrogatepass"))


def index_at_units(text: str, count: int, encoding: Encoding) -> int:
    """The code-point index in ``text`` after ``count`` code units (clamped to the text); a count
    that falls inside a character rounds down to its start (LSP's rule)."""
    if encoding == "utf-32" or text.isascii():
        return min(count, len(text))
    if encoding == "utf-16":
        data = text.encode("utf-16-le", "surrogatepass")
        if len(data) == 2 * len(text):  # no astral character: a unit each
            return min(count, len(text))
        used = 0  # (an emoji on the line: counted a character at a time)
        for i, ch in enumerate(text):
            used += 2 if ord(ch) > 0xFFFF else 1
            if used > count:
                return i
        return len(text)
    data = text.encode("utf-8", "surrogatepass")
    cut = min(max(count, 0), len(data))
    while cut < len(data) and data[cut] & 0xC0 == 0x80:
        cut -= 1  # inside a character's bytes
    return len(data[:cut].decode("utf-8", "surrogatepass"))


MARK = 1024  # characters between the remembered column counts of a long line (see _marks)


class _Positions:
    """Shared conversions; subclasses provide ``_slice``, ``_length``, ``_line_of``, ``_start``
    and an empty ``_column_marks``."""

    _column_marks: dict[tuple[int, Encoding], list[int]]

    def _slice(self, start: int, end: int) -> str:
        raise NotImplementedError

    def _length(self) -> int:
        raise NotImplementedError

    def slice(self, start: int, end: int) -> str:
        """``text[start:end]`` without materialising the whole text."""
        return self._slice(start, end)

    def __len__(self) -> int:
        return self._length()

    def line_count(self) -> int:
        raise NotImplementedError

    def _start(self, line: int) -> int:
        raise NotImplementedError

    def _line_of(self, offset: int) -> int:
        raise NotImplementedError

    def line_start(self, line: int) -> int:
        return self._start(line)

    def line_end(self, line: int, *, include_eol: bool = False) -> int:
        """Offset of the end of ``line``, before its line ending unless asked."""
        if line + 1 < self.line_count():
            end = self._start(line + 1)
            if include_eol:
                return end
            if end - 2 >= self._start(line) and self._slice(end - 2, end) == "\r\n":
                return end - 2
            return end - 1
        return self._length()

    def line_text(self, line: int) -> str:
        return self._slice(self._start(line), self.line_end(line))

    def line_of(self, offset: int) -> int:
        return self._line_of(offset)

    def lines_of(self, offsets: Sequence[int]) -> list[int]:
        """``[line_of(o) for o in offsets]`` (one call for many: an outline's or folding's)."""
        return [self._line_of(o) for o in offsets]

    def line_starts_of(self, lines: Sequence[int]) -> list[int]:
        """``[line_start(n) for n in lines]``."""
        return [self._start(n) for n in lines]

    def _marks(self, start: int, encoding: Encoding, upto: int) -> list[int]:
        """Code units of the line at ``start`` before each multiple of ``MARK`` characters
        along it, up to the ``upto``-th: worked out once per line, so that the columns of
        thousands of places on one long line (a compact JSON export) measure it once."""
        key = (start, encoding)
        marks = self._column_marks.get(key)
        if marks is None:
            marks = self._column_marks[key] = [0]
        while len(marks) <= upto:
            at = start + (len(marks) - 1) * MARK
            marks.append(marks[-1] + units(self._slice(at, at + MARK), encoding))
        return marks

    def _column(self, start: int, offset: int, encoding: Encoding) -> int:
        if encoding == "utf-32":
            return offset - start
        k = (offset - start) // MARK
        if not k:
            return units(self._slice(start, offset), encoding)
        return self._marks(start, encoding, k)[k] + units(self._slice(start + k * MARK, offset), encoding)

    def position(self, offset: int, encoding: Encoding = "utf-16") -> Position:
        offset = max(0, min(offset, self._length()))
        line = self._line_of(offset)
        start = self._start(line)
        return Position(line, self._column(start, offset, encoding))

    def range(self, span: Span, encoding: Encoding = "utf-16") -> Range:
        return Range(self.position(span.start, encoding), self.position(span.end, encoding))

    def positions(self, offsets: Sequence[int], encoding: Encoding = "utf-16") -> list[tuple[int, int]]:
        """``(line, character)`` of each offset, as :meth:`position` gives them, with the lines
        looked up in one call (an outline's symbols: a handful of places each)."""
        n = self._length()
        clamped = [0 if o < 0 else n if o > n else o for o in offsets]
        lines = self.lines_of(clamped)
        column = self._column
        return [
            (line, column(start, offset, encoding))
            for line, start, offset in zip(lines, self.line_starts_of(lines), clamped, strict=True)
        ]

    def offset(self, position: Position, encoding: Encoding = "utf-16") -> int:
        """Offset of an LSP position; a line past the end clamps to the end of the text and a
        column past the end of its line clamps to the line's end (LSP's rule)."""
        if position.line >= self.line_count():
            return self._length()
        if position.line < 0:
            return 0
        start = self._start(position.line)
        end = self.line_end(position.line)
        count = position.character
        if encoding == "utf-32":
            return start + max(0, min(count, end - start))
        if end - start <= MARK:
            return start + index_at_units(self._slice(start, end), count, encoding)
        marks = self._marks(start, encoding, (end - start) // MARK)
        k = max(0, bisect.bisect_right(marks, count, 0, (end - start) // MARK + 1) - 1)
        at = start + k * MARK
        return at + index_at_units(self._slice(at, min(end, at + MARK)), count - marks[k], encoding)


class LineIndex(_Positions):
    """Positions for a fixed text."""

    def __init__(self, text: str) -> None:
        self.text = text
        self._starts = line_starts(text)
        self._column_marks = {}

    def _slice(self, start: int, end: int) -> str:
        return self.text[start:end]

    def _length(self) -> int:
        return len(self.text)

    def line_count(self) -> int:
        return len(self._starts)

    def _start(self, line: int) -> int:
        return self._starts[line]

    def _line_of(self, offset: int) -> int:
        import bisect

        return bisect.bisect_right(self._starts, offset) - 1


class ChunkedText:
    """A text kept as a list of chunks, so that an edit copies one chunk, not the whole text.

    A 4 MB transcript with one emoji is stored by Python at 4 bytes per character: rebuilding
    that ``str`` on every keystroke costs more than everything else a keystroke does.
    :meth:`full` joins the chunks only when a caller needs the whole text, and keeps the result
    until the next edit.
    """

    CHUNK = 1 << 15

    def __init__(self, text: str) -> None:
        # Cut into chunks at the first edit: a document only read needs one copy of its text.
        self._chunks: list[str] = []
        self._starts: list[int] = []
        self._length = len(text)
        self._full: str | None = text

    def _cut(self) -> None:
        if not self._chunks:
            text, size = self.full(), self.CHUNK
            self._chunks = [text[i : i + size] for i in range(0, len(text), size)] or [""]
            self._starts = [i * size for i in range(len(self._chunks))]

    def __len__(self) -> int:
        return self._length

    def full(self) -> str:
        if self._full is None:
            self._full = "".join(self._chunks)
        return self._full

    def _chunk_at(self, offset: int) -> int:
        import bisect

        return max(0, bisect.bisect_right(self._starts, offset) - 1)

    def slice(self, start: int, end: int) -> str:
        start = max(0, start)
        end = min(end, self._length)
        if end <= start:
            return ""
        if self._full is not None:
            return self._full[start:end]
        i = self._chunk_at(start)
        j = self._chunk_at(end - 1)
        if i == j:
            base = self._starts[i]
            return self._chunks[i][start - base : end - base]
        parts = [self._chunks[i][start - self._starts[i] :]]
        parts.extend(self._chunks[i + 1 : j])
        parts.append(self._chunks[j][: end - self._starts[j]])
        return "".join(parts)

    def find(self, needle: str, start: int = 0) -> int:
        """``full().find(needle, start)`` chunk by chunk, without joining the text."""
        if self._full is not None:
            return self._full.find(needle, start)
        start = max(0, start)
        overlap = len(needle) - 1
        for i in range(self._chunk_at(start), len(self._chunks)):
            base = self._starts[i]
            # The chunk plus enough of the next ones to catch a needle across the boundary.
            piece = self._chunks[i] + self.slice(base + len(self._chunks[i]), base + len(self._chunks[i]) + overlap) if overlap else self._chunks[i]
            found = piece.find(needle, max(0, start - base))
            if found >= 0:
                return base + found
        return -1

    def replace(self, start: int, end: int, new_text: str) -> None:
        self._cut()
        i = self._chunk_at(start)
        j = self._chunk_at(max(start, end - 1)) if end > start else i
        merged = (
            self._chunks[i][: start - self._starts[i]]
            + new_text
            + self._chunks[j][end - self._starts[j] :]
        )
        size = self.CHUNK
        if len(merged) > 2 * size:
            pieces = [merged[k : k + size] for k in range(0, len(merged), size)]
        else:
            pieces = [merged] if merged or len(self._chunks) == j - i + 1 else []
        base = self._starts[i]
        self._chunks[i : j + 1] = pieces
        starts = self._starts[:i]
        pos = base
        for chunk in self._chunks[i:]:
            starts.append(pos)
            pos += len(chunk)
        self._starts = starts
        self._length = pos
        if not self._chunks:
            self._chunks, self._starts = [""], [0]
        self._full = None


class EditableLineIndex(_Positions):
    """Positions for a text that changes by small edits (an open document).

    The text lives in a :class:`ChunkedText`; ``text`` joins it on demand.
    """

    def __init__(self, text: str, *, lazy: bool = False) -> None:
        """``lazy``: the array of line starts (and NumPy) is made when first asked for; until
        then the lines of the text's first ``HEAD`` characters or so are answered from a list
        of their starts (:meth:`_head_for`: a large document's first diagnostics, published
        before NumPy is imported by a server that has just started)."""
        self._store = ChunkedText(text)
        self._column_marks = {}
        self._head: list[int] = []  # line starts up to _head_end (while the array is not made)
        self._head_end = -1
        # Straight into an array: a list of a million Python ints would cost 40 MB meanwhile.
        self._array: np.ndarray[Any, np.dtype[np.int64]] | None = None if lazy else _line_start_array(text)

    @property
    def _starts(self) -> np.ndarray[Any, np.dtype[np.int64]]:
        array = self._array
        if array is None:
            array = self._array = _line_start_array(self._store.full())
            self._head, self._head_end = [], -1
        return array

    @_starts.setter
    def _starts(self, array: np.ndarray[Any, np.dtype[np.int64]]) -> None:
        self._array = array

    def _head_for(self, offset: int) -> list[int] | None:
        """While the array is not made: the starts of every line that starts at or before
        ``offset`` (None past ``HEAD_LIMIT`` characters: the array is made instead). A start
        at ``p`` follows a ``\n``, or a ``\r`` that is not before a ``\n``: the text up to
        ``p + 1`` tells."""
        if self._array is not None:
            return None
        if offset <= self._head_end:
            return self._head
        n = len(self._store)
        if offset > HEAD_LIMIT or offset >= n:
            return None
        end = min(n - 1, max(HEAD, 2 * offset))
        self._head = [s for s in _starts_of(self._store.slice(0, end + 1)) if s <= end]
        self._head_end = end
        return self._head

    @property
    def text(self) -> str:
        return self._store.full()

    def _slice(self, start: int, end: int) -> str:
        return self._store.slice(start, end)

    def _length(self) -> int:
        return len(self._store)

    def find(self, needle: str, start: int = 0) -> int:
        return self._store.find(needle, start)

    def line_count(self) -> int:
        return int(self._starts.shape[0])

    def _start(self, line: int) -> int:
        if self._array is None and 0 <= line < len(self._head):
            return self._head[line]
        return int(self._starts[line])

    def _line_of(self, offset: int) -> int:
        if self._array is None and (head := self._head_for(offset)) is not None:
            return bisect.bisect_right(head, offset) - 1
        # (the array's own method: np.searchsorted's dispatch tripled the cost of a call, and a
        # large document's outline and folding ranges ask for every action's lines)
        return int(self._starts.searchsorted(offset, "right")) - 1

    def line_end(self, line: int, *, include_eol: bool = False) -> int:
        if self._array is None and 0 <= line < len(self._head) - 1:
            end = self._head[line + 1]
            if include_eol:
                return end
            if end - 2 >= self._head[line] and self._slice(end - 2, end) == "\r\n":
                return end - 2
            return end - 1
        return super().line_end(line, include_eol=include_eol)

    def lines_of(self, offsets: Sequence[int]) -> list[int]:
        if not offsets:
            return []
        if self._array is None and self._head_for(max(offsets)) is not None:
            return super().lines_of(offsets)
        found = self._starts.searchsorted(np.fromiter(offsets, np.int64, len(offsets)), "right") - 1
        return found.tolist()

    def line_starts_of(self, lines: Sequence[int]) -> list[int]:
        if not lines:
            return []
        if self._array is None and min(lines) >= 0 and max(lines) < len(self._head):
            return super().line_starts_of(lines)
        return self._starts[np.fromiter(lines, np.int64, len(lines))].tolist()

    def positions(self, offsets: Sequence[int], encoding: Encoding = "utf-16") -> list[tuple[int, int]]:
        text = self._store._full
        if text is None or not offsets:  # (edited since it was joined: sliced chunk by chunk)
            return super().positions(offsets, encoding)
        if self._array is None and self._head_for(max(offsets)) is not None:
            return super().positions(offsets, encoding)
        n = len(text)
        places = [0 if o < 0 else n if o > n else o for o in offsets]
        found = self._starts.searchsorted(places, "right") - 1  # (a few places: no NumPy but this)
        lines, starts = found.tolist(), self._starts[found].tolist()
        if encoding == "utf-32":
            return list(zip(lines, [p - s for p, s in zip(places, starts, strict=True)], strict=True))
        out: list[tuple[int, int]] = []
        for line, start, offset in zip(lines, starts, places, strict=True):
            column = offset - start
            if column >= MARK:
                column = self._column(start, offset, encoding)
            elif column and not (piece := text[start:offset]).isascii():
                column = units(piece, encoding)
            out.append((line, column))
        return out

    def replace(self, start: int, end: int, new_text: str) -> None:
        """Replace ``text[start:end]`` with ``new_text`` and update the line starts.

        Starts before ``start`` are kept, starts after ``end`` are shifted, and only the starts
        inside the new text are recomputed. Whether an offset starts a line depends on the
        character before it and, for a lone ``\\r``, the one after it (``\\r\\n`` is one
        ending), so the recomputed window is ``[start, start + len(new_text)]`` inclusive.
        """
        starts = self._starts  # (made now if it is not: from the text before the edit)
        self._store.replace(start, end, new_text)
        self._column_marks.clear()
        delta = len(new_text) - (end - start)
        stop = start + len(new_text)
        head = starts[: int(np.searchsorted(starts, start, side="left"))]
        tail = starts[int(np.searchsorted(starts, end + 1, side="left")) :] + delta
        middle = [0] if start == 0 else []
        base = max(0, start - 1)
        window = self._store.slice(base, min(len(self._store), stop + 1))
        for m in _EOL.finditer(window):
            if start <= base + m.end() <= stop:
                middle.append(base + m.end())
        self._starts = np.concatenate((head, np.asarray(middle, dtype=np.int64), tail))
