"""Aider's user lines in a chat history (``#### `` and the message, a line each), found once per
scan for the three readers that look for them: the ``aider`` dialect (a block reads no further
than the next user message, whose line may be indented), its reports (a turn ends at one, at
the line's start) and its architect verdicts (an editor's prompt: a ``#### `` line ending with
Aider's two-space line break). Each searched the text for its own: three passes through a long
history where one serves, its answers filtered for the stricter readers.
"""

from __future__ import annotations

import bisect
import re

from ..markdown import blank_line_start, line_end

_HASHES = re.compile(r"####[ \t]")


class UserLines:
    """The user lines of one text, by line start: the lines whose text after their blanks
    (spaces and tabs) starts with ``####`` and a blank.

    Each search's answer is remembered with the position it was searched from: the answer
    holds for every position from there up to it, so readers asking about the same stretch of
    text, in any order, search it once between them."""

    __slots__ = ("_hits", "_queries", "n", "text")

    def __init__(self, text: str) -> None:
        self.text = text
        self.n = len(text)
        # Known answers, ascending, each with the lowest position it is known to answer: no
        # user line starts in ``[_queries[i], _hits[i])`` (``n``: none to the end).
        self._hits: list[int] = []
        self._queries: list[int] = []

    def line(self, pos: int) -> int:
        """The start of the first user line starting at or after ``pos`` (``len(text)``: none);
        indented lines count (as for Aider's reader, which strips them)."""
        hits = self._hits
        i = bisect.bisect_left(hits, pos)
        if i < len(hits) and self._queries[i] <= pos:
            return hits[i]
        found = self._search(pos)
        if i < len(hits) and hits[i] == found:
            self._queries[i] = pos
        else:
            hits.insert(i, found)
            self._queries.insert(i, pos)
        return found

    def _search(self, pos: int) -> int:
        text = self.text
        m = _HASHES.search(text, pos)
        while m is not None:
            at = m.start()
            start = blank_line_start(text, at)
            if start >= pos:
                return start
            m = _HASHES.search(text, at + 1)
        return self.n

    def unindented(self, pos: int) -> int:
        """The start of the first user line at or after ``pos`` written at the line's start
        (``####`` and a blank first on it)."""
        found = self.line(pos)
        while found < self.n and self.text[found] != "#":
            found = self.line(found + 1)
        return found

    def prompt(self, pos: int) -> int:
        """The start of the first line at or after ``pos`` that is a user message as Aider
        writes it into its history: ``#### `` at the line's start, and its text ending with
        two spaces (Aider's Markdown line break) after at least one more character."""
        text, n = self.text, self.n
        found = self.unindented(pos)
        while found < n:
            end = line_end(text, found)
            if end - found >= 7 and text.startswith("#### ", found) and text.endswith("  ", found, end):
                return found
            found = self.unindented(found + 1)
        return found


def user_lines(cache: dict[str, object], text: str) -> UserLines:
    """The scan's :class:`UserLines` (kept in its ``cache``)."""
    found = cache.get("aider-users")
    if not isinstance(found, UserLines):
        found = cache["aider-users"] = UserLines(text)
    return found
