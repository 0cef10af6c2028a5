"""The current text of a file under an action of many edits (a MultiEdit, a diff's hunks, a
Codex patch's chunks): each edit's search text found without searching, counting the lines of,
or rebuilding the whole text (issue 21).

:class:`ManyEdits` answers only what it can answer exactly as the planner's ``str`` code would:
a search text found verbatim once in the whole current text (``exact``), and that a
replacement is *not* in the text up to whitespace (the first test of ``plan._present``).
Everything else -- not found verbatim, found twice (``search-ambiguous``: the refusal is worked
out on the whole text, as before), a context line, a ``replace_all`` -- is asked of the whole
text (:attr:`ManyEdits.text`, built once until the next edit), so the results are the same.
"""

from __future__ import annotations

import re

from .chunked import ChunkedText
from .strategies.base import Located, ReplacementTransform

#: Actions with at least this many edits of one file keep its text in a :class:`ManyEdits`.
MANY_EDITS = 16

_SPACE = re.compile(r"\s+")


def _squeezed(text: str) -> str:
    return _SPACE.sub("", text)


class ManyEdits:
    """A file's text, edited in place; ``text`` is the whole of it as a ``str``."""

    def __init__(self, text: str) -> None:
        self.chunked = ChunkedText(text)
        #: The text without its whitespace (``_SPACE`` removes characters one by one, so an
        #: edit of the text is an edit of it), made when first asked.
        self._bare: ChunkedText | None = None
        #: Whether every line break is CRLF (None: not read yet; see _crlf_only).
        self._crlf: bool | None = None

    @property
    def text(self) -> str:
        return str(self.chunked)

    def slice(self, a: int, b: int) -> str:
        return self.chunked.slice(a, b)

    def exact(self, search: str, start: int = 0) -> Located | None:
        """What ``locate(text, search, start=start)`` answers when ``search`` (not empty) is
        in the text after ``start`` verbatim exactly once (the exact strategy); None
        otherwise (not found, or found twice: ask the whole text)."""
        chunked = self.chunked
        pos = chunked.find(search, start)
        if pos < 0:
            return self._exact_crlf(search, start)
        if chunked.find(search, pos + 1) >= 0:
            return None
        newline = chunked.newline_near(pos, start)
        if newline is None:
            return None
        return Located(pos, pos + len(search), "exact", ReplacementTransform(newline=newline),
                       chunked.line_of(pos) + 1)

    def _exact_crlf(self, search: str, start: int) -> Located | None:
        """The exact strategy's second try -- line endings normalised on both sides -- for a
        file whose every line break is CRLF and a search text with LF ones: there, the search
        text with CRLF line breaks is found once in the text exactly where the normalised one
        is found once in the normalised text (None: ask the whole text)."""
        if start or "\n" not in search or "\r" in search or not self._crlf_only():
            return None
        needle = search.replace("\n", "\r\n")
        chunked = self.chunked
        pos = chunked.find(needle)
        if pos < 0 or chunked.find(needle, pos + 1) >= 0:
            return None
        return Located(pos, pos + len(needle), "exact", ReplacementTransform(newline="\r\n"),
                       chunked.line_of(pos) + 1)

    def _crlf_only(self) -> bool:
        """Does every line break of the text end in CRLF? Read once, then kept current by
        :meth:`replace` (which looks only around what it changed)."""
        if self._crlf is None:
            text = self.text
            self._crlf = "\r\n" in text and text.count("\n") == text.count("\r\n")
        return self._crlf

    def absent(self, replace: str) -> bool:
        """Whether ``replace`` is surely not in the text, even up to whitespace (what
        ``plan._present`` tests first)."""
        needle = _squeezed(replace)
        if not needle:
            return False
        if self._bare is None:
            self._bare = ChunkedText(_squeezed(self.text))
        return self._bare.find(needle) < 0

    def replace(self, a: int, b: int, new: str) -> None:
        chunked = self.chunked
        if self._bare is not None:
            bare_a = a - chunked.spaces_before(a)
            bare_b = bare_a + len(_squeezed(chunked.slice(a, b)))
            self._bare.replace(bare_a, bare_b, _squeezed(new))
        chunked.replace(a, b, new)
        if self._crlf:
            # A lone LF can appear only in what was written or right after it; the character
            # before it (kept as it was) is read as what may precede a written LF.
            lo = max(0, a - 1)
            around = chunked.slice(lo, a + len(new) + 1)
            if lo < a and around.startswith("\n"):
                around = around[1:]  # an LF before the edit: unchanged, and a CRLF's
            self._crlf = around.count("\n") == around.count("\r\n")

