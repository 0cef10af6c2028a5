"""A file's parse kept across the edits a plan makes to it (tree-sitter's incremental parsing).

The plan asks, after each edit it applies, whether the file still parses (``new-syntax-error``).
Parsing the whole file again twice per edit (before and after) was most of the workspace
checks' time on a long history: a 60 KB file edited ten times was parsed twenty times. Here the
tree of the text before an edit is told what the edit replaced (``Tree.edit``) and the text after
it is parsed with that tree, so tree-sitter re-reads only around the edit.

Only the yes/no answer comes from the kept tree: when it says the text has an error, the caller
asks :func:`~action_lsp.syntax.errors.syntax_errors` (a full parse) for the message, as before.

The trees are shared with :func:`~action_lsp.syntax.parse.parse`'s cache: a text the syntax
strategy parsed to locate an edit is not parsed again here, and the tree of the text after an
edit (when it has no syntax error: see :func:`~action_lsp.syntax.parse.keep`) is the one the
syntax strategy finds for the file's next edit. A kept tree is never edited: each edit starts
from a copy.
"""

from __future__ import annotations

from collections.abc import Sequence

from tree_sitter import Point, Tree

from action_lsp.syntax.languages import Lang
from action_lsp.syntax.parse import keep, parse

#: Edits beyond which :meth:`Reparse.after` parses the text after them in full.
MANY_EDITS = 16


def _bytes(text: str) -> bytes:
    return text.encode("utf-8", "surrogatepass")


def _size(text: str) -> int:
    return len(text) if text.isascii() else len(_bytes(text))


def _point(text: str, at: int) -> tuple[int, Point]:
    """The byte offset of index ``at`` of ``text``, and its (row, byte column) point."""
    line_start = text.rfind("\n", 0, at) + 1
    return _size(text[:at]), Point(text.count("\n", 0, at), _size(text[line_start:at]))


class Reparse:
    """The parse of one file's current text in ``lang`` (no ``prepare`` step: those languages
    are parsed in full by the caller), updated by :meth:`after`."""

    __slots__ = ("_code", "_tree", "lang")

    def __init__(self, lang: Lang) -> None:
        self.lang = lang
        self._code: str | None = None
        self._tree: Tree | None = None

    @staticmethod
    def usable(lang: Lang) -> bool:
        return lang.prepare is None

    def has_error(self, code: str) -> bool:
        """Whether ``code`` has a syntax error (parsed in full unless it is the kept text)."""
        if self._tree is None or (self._code is not code and self._code != code):
            self._code, self._tree = code, parse(code, self.lang).tree
        return self._tree.root_node.has_error

    def after(self, before: str, edits: Sequence[tuple[int, int, str]], after: str) -> bool:
        """Whether ``after`` -- ``before`` with ``edits`` applied in order, each ``(start, end,
        text)`` in indices of the text the ones before it left -- has a syntax error."""
        if len(edits) > MANY_EDITS:
            # Each edit's place counted in a text rebuilt after every edit: N edits of a long
            # file cost N times its length (issue 21). One parse of the whole text instead.
            return self.has_error(after)
        self.has_error(before)
        assert self._tree is not None
        tree, current = self._tree.copy(), before  # (the tree may be parse()'s: never edited)
        for start, end, text in edits:
            start_byte, start_point = _point(current, start)
            old_end_byte = start_byte + _size(current[start:end])
            new_end_byte = start_byte + _size(text)
            row, column = start_point
            old_rows = current.count("\n", start, end)
            old_end_point = _point(current, end)[1] if old_rows else Point(row, column + old_end_byte - start_byte)
            if "\n" in text:
                new_end_point = Point(row + text.count("\n"), _size(text[text.rfind("\n") + 1 :]))
            else:
                new_end_point = Point(row, column + new_end_byte - start_byte)
            tree.edit(start_byte, old_end_byte, new_end_byte, start_point, old_end_point, new_end_point)
            current = current[:start] + text + current[end:]
        if current != after:  # (the edits do not lead there: parse it in full)
            self._tree = None
            return self.has_error(after)
        data = _bytes(after)
        self._code, self._tree = after, self.lang.parser().parse(data, tree)
        keep(after, self.lang, data, self._tree)
        return self._tree.root_node.has_error
