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

import re
from dataclasses import dataclass
from typing import Literal

import numpy as np

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


def units(text: str, encoding: Encoding) -> int:
    """Length of ``text`` in code units of ``encoding``."""
    if encoding == "utf-32" or text.isascii():
        return len(text)
    if encoding == "utf-16":
        # One unit per code point, two for each astral one.
        return len(text) + sum(1 for ch in text if ord(ch) > 0xFFFF)
    return len(text.encode("utf-8", "surrogatepass"))


def index_at_units(text: str, count: int, encoding: Encoding) -> int:
    """The code-point index in ``text`` after ``count`` code units (clamped to the text)."""
    if encoding == "utf-32" or text.isascii():
        return min(count, len(text))
    used = 0
    for i, ch in enumerate(text):
        if used >= count:
            return i
        cp = ord(ch)
        if encoding == "utf-16":
            used += 2 if cp > 0xFFFF else 1
        else:
            used += 1 if cp < 0x80 else 2 if cp < 0x800 else 3 if cp < 0x10000 else 4
        if used > count:  # the count falls inside this character: LSP says round down
            return i
    return len(text)


class _Positions:
    """Shared conversions; subclasses provide ``text``, ``_line_of`` and ``_start``."""

    text: str

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
            if self.text.startswith("\r\n", end - 2) and end - 2 >= self._start(line):
                return end - 2
            return end - 1
        return len(self.text)

    def line_text(self, line: int) -> str:
        return self.text[self._start(line) : self.line_end(line)]

    def line_of(self, offset: int) -> int:
        return self._line_of(offset)

    def position(self, offset: int, encoding: Encoding = "utf-16") -> Position:
        offset = max(0, min(offset, len(self.text)))
        line = self._line_of(offset)
        start = self._start(line)
        return Position(line, units(self.text[start:offset], encoding))

    def range(self, span: Span, encoding: Encoding = "utf-16") -> Range:
        return Range(self.position(span.start, encoding), self.position(span.end, encoding))

    def offset(self, position: Position, encoding: Encoding = "utf-16") -> int:
        """Offset of an LSP position; a line past the end clamps to the end of the text and a
        column past the end of its line clamps to the line's end (LSP's rule)."""
        if position.line >= self.line_count():
            return len(self.text)
        if position.line < 0:
            return 0
        start = self._start(position.line)
        end = self.line_end(position.line)
        return start + index_at_units(self.text[start:end], position.character, encoding)


class LineIndex(_Positions):
    """Positions for a fixed text."""

    def __init__(self, text: str) -> None:
        self.text = text
        self._starts = line_starts(text)

    def line_count(self) -> int:
        return len(self._starts)

    def _start(self, line: int) -> int:
        return self._starts[line]

    def _line_of(self, offset: int) -> int:
        import bisect

        return bisect.bisect_right(self._starts, offset) - 1


class EditableLineIndex(_Positions):
    """Positions for a text that changes by small edits (an open document)."""

    def __init__(self, text: str) -> None:
        self.text = text
        self._starts = np.asarray(line_starts(text), dtype=np.int64)

    def line_count(self) -> int:
        return int(self._starts.shape[0])

    def _start(self, line: int) -> int:
        return int(self._starts[line])

    def _line_of(self, offset: int) -> int:
        return int(np.searchsorted(self._starts, offset, side="right")) - 1

    def replace(self, start: int, end: int, new_text: str) -> None:
        """Replace ``text[start:end]`` with ``new_text`` and update the line starts.

        Starts before ``start`` are kept, starts after ``end`` are shifted, and only the starts
        inside the new text are recomputed. Whether an offset starts a line depends on the
        character before it and, for a lone ``\\r``, the one after it (``\\r\\n`` is one
        ending), so the recomputed window is ``[start, start + len(new_text)]`` inclusive.
        """
        old = self.text
        self.text = text = old[:start] + new_text + old[end:]
        delta = len(new_text) - (end - start)
        stop = start + len(new_text)
        starts = self._starts
        head = starts[: int(np.searchsorted(starts, start, side="left"))]
        tail = starts[int(np.searchsorted(starts, end + 1, side="left")) :] + delta
        middle = [0] if start == 0 else []
        for m in _EOL.finditer(text, max(0, start - 1), min(len(text), stop + 1)):
            if start <= m.end() <= stop:
                middle.append(m.end())
        self._starts = np.concatenate((head, np.asarray(middle, dtype=np.int64), tail))
