"""Fenced code blocks, recognised the CommonMark way (up to 3 spaces of indentation, ``` or ~~~).

Lines end by LSP's rules (``\\n``, ``\\r\\n``, ``\\r``), so line starts are found with a
look-behind on either character rather than ``re.MULTILINE`` (which ignores a lone ``\\r``).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass

from .model import Span

LINE_START = r"(?:\A|(?<=\n)|(?<=\r))"
EOL = re.compile(r"\r\n|\r|\n")
_OPENER = re.compile(r"( {0,3})(`{3,}|~{3,})([^\r\n]*)")
# A closing fence line, from its line start (found by its fence characters: _find_fence_close).
_CLOSER_AT = re.compile(r" {0,3}(`{3,}|~{3,})[ \t]*(?:\r\n|\r|\n|\Z)")


@dataclass(frozen=True, slots=True)
class FenceOpen:
    """An opening fence line: ```` ```actions ```` or ``~~~ python``."""

    start: int  # offset of the line start
    char: str  # "`" or "~"
    length: int  # number of fence characters
    info: str  # the info string, stripped
    word: str  # its first word ("actions", "json", ""), case kept
    word_span: Span  # where the first word is written
    body_start: int  # offset of the line after the opener (len(text) at the end)

    @property
    def opener_span(self) -> Span:
        """The fence characters and info string (without the line ending)."""
        end = self.word_span.end if self.word else self.start + self.length
        return Span(self.start, max(end, self.start + self.length))


def line_end(text: str, pos: int) -> int:
    """Offset of the end of the line containing ``pos`` (before its line ending)."""
    m = EOL.search(text, pos)
    return m.start() if m else len(text)


def line_start(text: str, pos: int, cr: bool = True) -> int:
    """Start of the line holding ``pos``: ``pos`` itself at a line start, else the offset after
    the last ``\n`` or ``\r`` before it (a ``\r\n`` ends one line), searched back in growing
    windows, so the cost is the distance to the line start even when one of ``\n``/``\r``
    never occurs before it (``cr=False``: the text holds no ``\r``)."""
    if pos == 0 or text[pos - 1 : pos] in ("\n", "\r"):  # (a marker's line, most often)
        return pos
    width = 1024
    while True:
        lo = max(0, pos - width)
        nl = text.rfind("\n", lo, pos)
        found = max(nl, text.rfind("\r", max(lo, nl + 1), pos)) if cr else nl
        if found >= 0 or lo == 0:
            return found + 1
        width *= 4


def blank_line_start(text: str, pos: int) -> int:
    """The start of ``pos``'s line when only blanks (spaces, tabs) precede it there, else -1.
    Reads back over the blanks only: a marker found many times in one long line costs a
    character or two each, not the line up to it (the blank runs before two places are apart)."""
    i = pos
    while i and text[i - 1] in " \t":
        i -= 1
    return i if not i or text[i - 1] in "\n\r" else -1


def next_line_start(text: str, pos: int) -> int:
    """Offset of the start of the line after the one containing ``pos`` (len(text) if none)."""
    m = EOL.search(text, pos)
    return m.end() if m else len(text)


def fence_open_at(text: str, pos: int) -> FenceOpen | None:
    """The fence opener on the line starting at ``pos``, if that line is one."""
    m = _OPENER.match(text, pos)
    if m is None:
        return None
    char = m.group(2)[0]
    info_raw = m.group(3)
    if char == "`" and "`" in info_raw:  # CommonMark: a backtick fence's info has no backtick
        return None
    info = info_raw.strip()
    word = info.split(None, 1)[0] if info else ""
    word_start = m.start(3) + (len(info_raw) - len(info_raw.lstrip()))
    return FenceOpen(
        start=pos,
        char=char,
        length=len(m.group(2)),
        info=info,
        word=word,
        word_span=Span(word_start, word_start + len(word)),
        body_start=next_line_start(text, m.end()),
    )


def glued_closer(tags: Iterable[str]) -> re.Pattern[str]:
    """For :func:`find_fence_close`'s ``glued``: fence characters followed by one of ``tags``
    as an opening tag (```` ```<update_todo_list> ````: Kilo Code writes its next tool call
    right after the closing backticks of a fence it wrote)."""
    names = "|".join(re.escape(t) for t in sorted(tags, key=len, reverse=True))
    # (```+ rather than `{3,}: a literal first in each branch lets `re` skip ahead by character.)
    return re.compile(r"(```+|~~~+)(?=<(?:" + names + r")>)")


def find_fence_close(
    text: str, body_start: int, char: str, length: int, limit: int | None = None, *, cr: bool = True,
    glued: re.Pattern[str] | None = None,
) -> tuple[int, int] | None:
    """The closing fence after ``body_start``: (its line start, the offset after its line).

    A closing fence uses the opener's character, at least as many of them, and nothing else
    on its line but spaces. Returns None when the block is never closed. (``cr``, whether the
    text may hold ``\r``, is no longer needed: the search is the same.) With ``glued`` (see :func:`glued_closer`), fence
    characters at a line start followed by one of its tags close the fence too, before the tag:
    (the line start, the tag's offset).
    """
    found = _find_fence_close(text, body_start, char, length, limit, cr=cr)
    if glued is None:
        return found
    return glued_close(text, body_start, char, length, found, limit, glued)


def glued_close(
    text: str, body_start: int, char: str, length: int, found: tuple[int, int] | None, limit: int | None,
    glued: re.Pattern[str],
) -> tuple[int, int] | None:
    """:func:`find_fence_close` with ``glued``, given ``found``, its answer without it."""
    stop = found[0] if found is not None else (len(text) if limit is None else limit)
    # A glued closer of this fence ends just before a `<` that follows its fence character:
    # none in the body (most fences) is a search in C; else none starts before the line of the
    # first (fence characters in a row are on one line).
    first = text.find(char + "<", body_start, stop)
    if first < 0:
        return found
    for m in glued.finditer(text, text.rfind("\n", body_start, first) + 1 or body_start, stop):
        fence = m.group(1)
        line = m.start()
        while line > body_start and line > m.start() - 3 and text[line - 1] == " ":
            line -= 1
        at_line_start = line == body_start or text[line - 1] in "\r\n"
        if at_line_start and fence[0] == char and len(fence) >= length:
            return line, m.end()
    return found


def _find_fence_close(
    text: str, body_start: int, char: str, length: int, limit: int | None = None, *, cr: bool = True
) -> tuple[int, int] | None:
    # The fence's own three characters are looked for (``str.find``), each checked for a line
    # start before it (up to 3 spaces back) and a closing line after it: a regex through the
    # body tried a match at each of its line endings (a code block's every line), a tenth of
    # a long history's scan. (``cr`` needs no other search: a lone ``\r`` ends a line either way.)
    end = len(text) if limit is None else limit
    needle = char * 3
    at = text.find(needle, body_start, end)
    while at >= 0:
        line = at
        while line > body_start and at - line < 3 and text[line - 1] == " ":
            line -= 1
        if line == body_start or text[line - 1] in "\n\r":
            m = _CLOSER_AT.match(text, line, end)
            if m is not None and len(m.group(1)) >= length and m.group(1)[0] == char:
                return line, m.end()
        at += 3
        while at < end and text[at] == char:  # (the rest of this run: not at a line start)
            at += 1
        at = text.find(needle, at, end)
    return None


PARAGRAPH = re.compile(r"(?:\n|\r\n?)[ \t]*(?:\n|\r\n?)\s*\S")  # a blank line, then text


class Forward:
    """The first place at or after a position that ``search`` finds (``n``: none), remembered:
    the answer to a query from ``q`` holds for every query in ``[q, answer]``, so queries in
    text order read the text once, and constructs that each ask "is there more after me?" (many
    unclosed blocks) cost one search per scan, not one search to the end each. ``search`` must
    be monotone so: what it finds from ``q`` is what it finds from any position up to it."""

    __slots__ = ("memo", "n", "search")

    def __init__(self, n: int, search: Callable[[int], int]) -> None:
        self.n = n
        self.search = search
        self.memo = (-1, -1)  # (searched from, what was found)

    def next(self, pos: int) -> int:
        q, found = self.memo
        if q <= pos <= found:
            return found
        found = self.search(pos)
        self.memo = (pos, found)
        return found


class ForwardSearch(Forward):
    """``rx.search(text, pos)`` remembered (:class:`Forward`), for a regex without look-behind."""

    __slots__ = ()

    def __init__(self, text: str, rx: re.Pattern[str]) -> None:
        def search(pos: int) -> int:
            m = rx.search(text, pos)
            return m.start() if m else len(text)

        super().__init__(len(text), search)

    def found(self, pos: int) -> bool:
        """Whether a match starts at or after ``pos``."""
        return self.next(pos) < self.n


def text_finder(text: str, needle: str) -> Forward:
    """The next occurrence of ``needle`` at or after a position (``len(text)``: none), remembered."""

    def search(pos: int) -> int:
        found = text.find(needle, pos)
        return found if found >= 0 else len(text)

    return Forward(len(text), search)
